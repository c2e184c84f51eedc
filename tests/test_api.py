"""The Python API (wizard.api.diagnose / Report) on live objects: plain torch nn.Module and Keras
models with (x, y) data, and the demo transformers model in PyTorch and TensorFlow."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

HAS_TF = importlib.util.find_spec("tensorflow") is not None
HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_tf = pytest.mark.skipif(not HAS_TF, reason="TensorFlow is tested in env 'tf'")
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="needs torch")
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """2 shared cores: more intra-op threads only contend; keep TF usable after torch."""
    if HAS_TF:
        import datasets  # noqa: F401  (they decide at import whether TF is available)
        import tensorflow as tf
        import transformers  # noqa: F401

        try:
            tf.config.threading.set_intra_op_parallelism_threads(1)
            tf.config.threading.set_inter_op_parallelism_threads(1)
        except RuntimeError:
            pass
    if HAS_TORCH:
        import torch

        torch.set_num_threads(1)
    yield


def test_importing_the_api_and_callbacks_imports_no_framework():
    code = ("import sys, wizard, wizard.api, wizard.callbacks\n"
            "from wizard import diagnose, Report\n"
            "heavy = [m for m in ('torch', 'tensorflow', 'transformers', 'tf_keras') "
            "if m in sys.modules]\n"
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == ""


def test_bad_input_is_one_sentence():
    from wizard.api import InputError, diagnose

    with pytest.raises(InputError, match="needs a torch nn.Module or a Keras model"):
        diagnose("distilbert-base-uncased")


# == plain PyTorch ================================================================================
def _torch_xy(n=64):
    import torch

    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 8, generator=g)
    return x, (x[:, 0] > 0).long() + (x[:, 1] > 0).long()


def _torch_mlp(final=None):
    import torch

    torch.manual_seed(0)
    layers = [torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3)]
    return torch.nn.Sequential(*layers, *([final] if final is not None else []))


@needs_torch
def test_plain_torch_module_healthy_report(tmp_path):
    import torch

    from wizard.api import Report, InputError, diagnose

    model = _torch_mlp()
    report = diagnose(model, _torch_xy(), optimizer=torch.optim.Adam(model.parameters(), 1e-3),
                      loss=torch.nn.CrossEntropyLoss())
    assert isinstance(report, Report) and report.verdict.kind == "healthy", report.ids("fail")
    assert report.failed == []
    for id in ("model.initial-loss", "training.loss-output-mismatch", "training.overfit-batch",
               "training.gradient-flow", "training.embeddings"):
        assert id in report, report.ids()
    lr = report["hyperparameters.learning-rate-too-high"]  # judged for a plain network
    assert lr.status == "pass" and lr.evidence["learning_rate"] == pytest.approx(1e-3)
    assert lr.evidence["family"] == "adaptive"
    assert report["model.initial-loss"].evidence["ln_C"] == pytest.approx(np.log(3), abs=1e-3)
    assert "Adam" in report["training.overfit-batch"].evidence["your_run"]["optimizer"]
    with pytest.raises(KeyError, match="no finding"):
        report["data.labels-out-of-range"]
    paths = report.write(tmp_path / "r")
    assert paths[0].name == "report.md" and "Verdict: healthy" in paths[0].read_text()
    plots = sorted(p.name for p in (tmp_path / "r" / "plots").iterdir())
    assert {"overfit-batch.png", "gradient-flow.png", "embeddings.png"} <= set(plots)
    data = json.loads((tmp_path / "r" / "result.json").read_text())
    assert data["verdict"]["kind"] == "healthy" and data["path"][0] == "api"
    assert "| pass |" in report._repr_markdown_()
    with pytest.raises(InputError, match="Unknown check"):
        diagnose(model, _torch_xy(), checks=["gradient"])


@needs_torch
@pytest.mark.parametrize("make,lr,status", [
    ("SGD", 10.0, "fail"), ("Adam", 1.0, "fail"), ("Adam", 3e-2, "warn"), ("SGD", 0.1, "pass"),
    ("Adam", 1e-2, "pass")])
def test_plain_torch_learning_rate_by_optimizer_family(make, lr, status):
    import torch

    from wizard.api import diagnose

    model = _torch_mlp()
    report = diagnose(model, _torch_xy(), optimizer=getattr(torch.optim, make)(model.parameters(), lr=lr),
                      checks=["optimizer"])
    f = report["hyperparameters.learning-rate-too-high"]
    assert f.status == status and f.evidence["learning_rate"] == pytest.approx(lr)
    if status == "fail":
        assert report.verdict.kind == "user-error"
        assert f"torch.optim.{make}(model.parameters(), lr=" in f.fix


@needs_torch
def test_plain_network_without_an_optimizer_has_no_learning_rate_finding():
    import torch

    from wizard.api import diagnose

    report = diagnose(_torch_mlp(), _torch_xy(), loss=torch.nn.CrossEntropyLoss(),
                      checks=["optimizer", "forward"])
    assert "hyperparameters.learning-rate-too-high" not in report  # nothing given to judge
    assert "model.initial-loss" in report


@needs_torch
def test_plain_torch_softmax_into_cross_entropy_is_caught():
    import torch

    from wizard.api import diagnose

    report = diagnose(_torch_mlp(final=torch.nn.Softmax(dim=-1)), _torch_xy(),
                      loss=torch.nn.CrossEntropyLoss(), checks=["loss-output", "forward"])
    f = report["training.loss-output-mismatch"]
    assert f.status == "fail" and f.evidence["final_activation"] == "softmax"
    assert report.verdict.primary == "training.loss-output-mismatch"


@needs_torch
def test_logs_objects_feed_the_curves_checks():
    import torch

    from wizard.api import diagnose

    history = SimpleNamespace(history={"loss": [1.0, 0.8, 0.6, 0.5, 0.4, 0.3, 0.25],
                                       "val_loss": [1.0, 0.85, 0.7, 0.72, 0.8, 0.9, 1.0]},
                              epoch=list(range(7)))  # what keras.callbacks.History holds
    report = diagnose(_torch_mlp(), _torch_xy(), loss=torch.nn.CrossEntropyLoss(),
                      logs=history, checks=["curves"])
    assert report["curves.overfitting"].evidence["onset_x"] == 2
    trainer_log = [{"loss": 1.1, "step": s} for s in range(1, 8)] + [{"loss": float("nan"), "step": 8}]
    report = diagnose(_torch_mlp(), _torch_xy(), logs=trainer_log, checks=["curves"])
    assert report["curves.nan"].evidence["x"] == 8


# == transformers, PyTorch =========================================================================
@needs_torch
def test_torch_transformers_model_with_batch_tokenizer_and_dataset(demo_dir):
    import torch
    from datasets import load_from_disk
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from wizard.api import diagnose

    tok = AutoTokenizer.from_pretrained(demo_dir / "model")
    train = load_from_disk(str(demo_dir / "dataset"))["train"]
    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_pretrained(demo_dir / "model")  # 2 labels
    optimizer = torch.optim.Adam(model.parameters())  # lr 1e-3: the course's fault 3
    report = diagnose(model, dataset=train, tokenizer=tok, optimizer=optimizer, steps=5,
                      checks=["batch", "labels", "optimizer", "gradients"])
    assert report["data.batch-structure"].evidence["batch_size"] == 16
    labels = report["data.labels-out-of-range"]
    assert labels.status == "fail" and labels.evidence["classes_in_data"] == 3
    lr = report["hyperparameters.learning-rate-too-high"]
    assert lr.status == "fail" and lr.evidence["learning_rate"] == pytest.approx(1e-3)
    assert report.verdict.kind == "user-error"
    assert optimizer.param_groups[0]["lr"] == pytest.approx(1e-3)  # the user's object untouched


# == Keras ==========================================================================================
def _keras_model(out_act=None, from_logits=True):
    import tf_keras

    tf_keras.utils.set_random_seed(0)
    model = tf_keras.Sequential([tf_keras.Input((8,)), tf_keras.layers.Dense(32, activation="relu"),
                                 tf_keras.layers.Dense(3, activation=out_act)])
    model.compile(optimizer=tf_keras.optimizers.Adam(1e-3),
                  loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=from_logits))
    return model


def _keras_xy(n=64):
    x = np.random.default_rng(0).normal(size=(n, 8)).astype("float32")
    return x, (x[:, 0] > 0).astype("int64") + (x[:, 1] > 0).astype("int64")


@needs_tf
def test_plain_keras_model_uses_its_compile_and_finds_softmax_with_from_logits():
    from wizard.api import diagnose

    wrong = diagnose(_keras_model(out_act="softmax"), _keras_xy(),
                     checks=["loss-output", "forward", "overfit"])
    f = wrong["training.loss-output-mismatch"]
    assert f.status == "fail" and "from_logits=True" in f.evidence["loss"]
    overfit = wrong.get("training.overfit-batch") or wrong.get("training.cannot-overfit-batch")
    assert "Adam" in overfit.evidence["your_run"]["optimizer"]  # read from model.optimizer
    healthy = diagnose(_keras_model(), _keras_xy())
    assert healthy.failed == [], healthy.ids("fail")
    assert healthy["training.loss-output-mismatch"].status == "pass"
    assert healthy["hyperparameters.learning-rate-too-high"].status == "pass"  # Adam 1e-3
    assert "training.overfit-batch" in healthy


@needs_tf
def test_plain_keras_model_with_a_too_high_learning_rate():
    import tf_keras

    from wizard.api import diagnose

    model = _keras_model()
    model.compile(optimizer=tf_keras.optimizers.Adam(1.0),
                  loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    report = diagnose(model, _keras_xy(), checks=["optimizer"])
    f = report["hyperparameters.learning-rate-too-high"]  # read from model.optimizer
    assert f.status == "fail" and f.evidence["learning_rate"] == pytest.approx(1.0)
    assert "tf_keras.optimizers.Adam(learning_rate=0.001)" in f.fix


@needs_tf
def test_tf_transformers_model_with_a_batch_dict(demo_dir):
    import tf_keras
    from transformers import AutoTokenizer, TFAutoModelForSequenceClassification

    from wizard.api import diagnose

    tok = AutoTokenizer.from_pretrained(demo_dir / "model")
    model = TFAutoModelForSequenceClassification.from_pretrained(demo_dir / "model", num_labels=3,
                                                                 use_safetensors=False)
    model.compile(optimizer=tf_keras.optimizers.Adam(5e-5))
    enc = tok(["the cat saw the ball .", "the dog did not see the car ."] * 4, padding=True,
              return_tensors="np")
    batch = {**enc, "labels": np.array([0, 2] * 4)}
    report = diagnose(model, batch, tokenizer=tok, checks=["batch", "forward", "optimizer",
                                                           "gradients"])
    assert report["model.forward"].status == "pass"
    assert report["hyperparameters.learning-rate-too-high"].status == "pass"  # model.optimizer
    flow = report["training.gradient-flow"]
    assert flow.evidence["layers"][0]["layer"] == "distilbert.embeddings"
    assert report.failed == []


def test_check_with_only_a_pasted_error_reads_it(tmp_path):
    """wizard.api.check(traceback=...) with no model: the cause and the fix from the error's
    words, in the notebook's Markdown too; a case with neither is one sentence."""
    from wizard.api import check
    from wizard.errors import CaseError

    report = check({}, traceback="Traceback (most recent call last):\n  File \"t.py\", line 4, "
                                 "in <module>\n    import bitsandbytes\nModuleNotFoundError: No "
                                 "module named 'bitsandbytes'\n", device="cpu")
    known = report["triage.known-error"]
    assert known.evidence["cause_id"] == "env-missing-package"
    assert "pip install" in known.fix and "bitsandbytes" in known.fix
    assert report.verdict.primary == "triage.known-error"
    assert report.result.path[1:] == ["installation", "triage"]
    assert "pip install" in report._repr_markdown_()          # its fix shows in a notebook
    with pytest.raises(CaseError, match="traceback"):
        check({"dataset": {"path": "d"}})
