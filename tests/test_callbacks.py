"""The live callbacks inside real runs: Trainer.train() (both envs) and Keras fit() (env tf), on
the offline demo model (healthy runs) and on small networks fed one corrupt sample (faults)."""
from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

HAS_TF = importlib.util.find_spec("tensorflow") is not None
HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_tf = pytest.mark.skipif(not HAS_TF, reason="TensorFlow is tested in env 'tf'")
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="needs torch")
BAD_ROW = 37  # the corrupt sample: batch 5 (rows 32..39) of batch size 8, row 5 in it
ZERO_ROW = 42  # the all-zero sample: batch 6 (rows 40..47), row 2 in it (among the rows shown)


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


def quiet(findings):
    return [(f.id, f.status, f.title) for f in findings if f.status in ("fail", "warn", "error")]


def _tokenized(demo_dir, n=None):
    from datasets import load_from_disk
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(demo_dir / "model")
    ds = load_from_disk(str(demo_dir / "dataset"))
    if n:
        ds["train"] = ds["train"].select(range(n))
    enc = ds.map(lambda b: tok(b["premise"], b["hypothesis"], truncation=True), batched=True)
    return tok, enc.remove_columns(["premise", "hypothesis", "idx"])


def _corrupt_xy(n=96, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 8)).astype("float32")
    y = (x[:, 0] > 0).astype("int64")
    x[BAD_ROW, 3] = np.nan
    return x, y


def _zero_row_xy(n=96, seed=0):
    """Finite data with one all-zero row: a finite loss there, but a NaN gradient through its
    L2 norm (d sqrt(s)/ds is infinite at s = 0, times d s/dh = 2h = 0)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 8)).astype("float32")
    y = (x[:, 0] > 0).astype("int64")
    x[ZERO_ROW] = 0.0
    return x, y


def _assert_gradient_fault(fault, losses, step):
    """The fault is the gradient's, at `step`, whose loss was finite; its batch is captured."""
    assert fault["kind"] == "gradient" and fault["step"] == step, fault
    assert fault["value"] == "nan"
    assert all(math.isfinite(v) for v in losses[:step])  # the loss was finite up to that step
    assert not math.isfinite(losses[step])               # NaN weights from the next step on
    batch = fault["batch"]
    assert batch["rows"][ZERO_ROW % 8]["values"] == [0.0] * 8  # the zero sample is in it
    assert "rows_with_non_finite_values" not in batch         # and every input was finite


# == Trainer ======================================================================================
@needs_torch
def test_trainer_healthy_run_is_quiet_and_writes_the_report(demo_dir, tmp_path):
    import torch
    from transformers import (AutoModelForSequenceClassification, DataCollatorWithPadding,
                              Trainer, TrainingArguments)

    from wizard.callbacks import WizardTrainerCallback

    tok, enc = _tokenized(demo_dir)
    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_pretrained(demo_dir / "model", num_labels=3)
    cb = WizardTrainerCallback(grad_every=20, report_dir=tmp_path / "report")
    args = TrainingArguments(str(tmp_path / "out"), per_device_train_batch_size=16,
                             num_train_epochs=3, learning_rate=1e-2, eval_strategy="epoch",
                             logging_steps=10, report_to=[], save_strategy="no", use_cpu=True,
                             disable_tqdm=True)
    Trainer(model=model, args=args, train_dataset=enc["train"], eval_dataset=enc["validation"],
            data_collator=DataCollatorWithPadding(tok), callbacks=[cb]).train()
    rec = cb.recorder
    assert len(rec.losses) == 57 and rec.steps[:2] == [1.0, 2.0]  # every optimizer step
    assert rec.losses[-1] < 0.7 * rec.losses[0] and len(rec.eval_losses) == 3
    assert [s.step for s in rec.snapshots] == [1, 20, 40]
    assert rec.fault is None
    found = cb.findings()
    assert quiet(found) == []
    ids = {f.id for f in found}
    assert {"curves.summary", "training.gradient-flow", "training.vanishing-gradients"} <= ids
    report = (tmp_path / "report" / "report.md").read_text()
    assert "Verdict: healthy" in report
    assert sorted(p.name for p in (tmp_path / "report" / "plots").iterdir())[:1] == ["curves.png"]
    assert all(h is not None for h in [model]) and not model._forward_hooks  # hooks removed


@needs_torch
def test_trainer_finds_the_first_nan_step_and_its_batch(tmp_path):
    import torch
    from transformers import Trainer, TrainingArguments

    from wizard.callbacks import WizardTrainerCallback

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                                            torch.nn.Linear(16, 2))

        def forward(self, x, labels=None):
            logits = self.body(x)
            loss = torch.nn.functional.cross_entropy(logits, labels) if labels is not None else None
            return {"loss": loss, "logits": logits}

    x, y = _corrupt_xy()
    data = [{"x": torch.tensor(a), "labels": torch.tensor(b)} for a, b in zip(x, y)]
    torch.manual_seed(0)
    cb = WizardTrainerCallback(grad_every=2, check_every=3, stop_on_fault=True)
    args = TrainingArguments(str(tmp_path / "out"), per_device_train_batch_size=8,
                             num_train_epochs=2, learning_rate=1e-3, report_to=[],
                             save_strategy="no", use_cpu=True, disable_tqdm=True,
                             logging_nan_inf_filter=False, dataloader_drop_last=False)
    trainer = Trainer(model=Net(), args=args, train_dataset=data, callbacks=[cb])
    trainer.train()
    fault = cb.recorder.fault
    losses = cb.recorder.losses
    step = next(i for i, v in enumerate(losses) if not math.isfinite(v)) + 1  # Trainer shuffles
    assert fault["kind"] == "loss" and fault["step"] == step
    assert len(fault["batch"]["rows_with_non_finite_values"]["x"]) == 1  # the corrupt sample
    assert fault["batch"]["keys"] == {"x": [8, 8], "labels": [8]}
    assert trainer.state.global_step == math.ceil(step / 3) * 3  # stopped at the next check
    found = cb.findings()
    first = found[0]
    assert (first.id, first.status) == ("training.non-finite-step", "fail")
    assert f"step {step}" in first.title
    nan = next(f for f in found if f.id == "curves.nan")
    assert nan.evidence["x"] == step
    assert cb.result().verdict.kind == "user-error"


@needs_torch
def test_trainer_finds_a_nan_gradient_under_a_finite_loss(tmp_path):
    import torch
    from transformers import Trainer, TrainingArguments

    from wizard.callbacks import WizardTrainerCallback

    class NormFeatureNet(torch.nn.Module):
        """A learned scale, the row's L2 norm appended as a feature, a linear head."""

        def __init__(self):
            super().__init__()
            self.scale = torch.nn.Parameter(torch.ones(8))
            self.head = torch.nn.Linear(9, 2)

        def forward(self, x, labels=None):
            h = x * self.scale
            logits = self.head(torch.cat([h, torch.sqrt((h * h).sum(-1, keepdim=True))], -1))
            loss = torch.nn.functional.cross_entropy(logits, labels) if labels is not None else None
            return {"loss": loss, "logits": logits}

    class InOrder(Trainer):
        def _get_train_sampler(self, *args, **kwargs):
            return torch.utils.data.SequentialSampler(self.train_dataset)

    x, y = _zero_row_xy()
    data = [{"x": torch.tensor(a), "labels": torch.tensor(b)} for a, b in zip(x, y)]
    torch.manual_seed(0)
    # read back once, at the end: the NaN loss of the next step is in the same read-back
    cb = WizardTrainerCallback(grad_every=50, check_every=100)
    args = TrainingArguments(str(tmp_path / "out"), per_device_train_batch_size=8,
                             num_train_epochs=1, learning_rate=1e-3, report_to=[],
                             save_strategy="no", use_cpu=True, disable_tqdm=True,
                             logging_nan_inf_filter=False)
    InOrder(model=NormFeatureNet(), args=args, train_dataset=data, callbacks=[cb]).train()
    step = ZERO_ROW // 8 + 1
    _assert_gradient_fault(cb.recorder.fault, cb.recorder.losses, step)
    assert cb.recorder.fault["batch"]["keys"] == {"x": [8, 8], "labels": [8]}
    first = cb.findings()[0]
    assert first.id == "training.non-finite-step" and first.status == "fail"
    assert first.title.startswith(f"The gradient norm first became nan at step {step}")


# == Keras ========================================================================================
@needs_tf
def test_keras_fit_healthy_run_is_quiet_and_leaves_the_model_as_it_was(demo_dir, tmp_path):
    import tensorflow as tf
    import tf_keras
    from transformers import DataCollatorWithPadding, TFAutoModelForSequenceClassification

    from wizard.callbacks import WizardKerasCallback

    tok, enc = _tokenized(demo_dir, n=128)
    collate = DataCollatorWithPadding(tok, return_tensors="np")
    cols = ["input_ids", "attention_mask", "label"]
    train = enc["train"].to_tf_dataset(columns=cols, batch_size=16, shuffle=False,
                                       collate_fn=collate)
    val = enc["validation"].to_tf_dataset(columns=cols, batch_size=16, shuffle=False,
                                          collate_fn=collate)
    tf.random.set_seed(0)
    model = TFAutoModelForSequenceClassification.from_pretrained(demo_dir / "model", num_labels=3,
                                                                 use_safetensors=False)
    # eager: tracing a transformer's train step costs ~40 s on the 2 test cores; the traced
    # path is exercised by the NaN test below on a small network
    model.compile(optimizer=tf_keras.optimizers.Adam(5e-3), run_eagerly=True)
    cb = WizardKerasCallback(grad_every=10, report_dir=tmp_path / "report")
    history = model.fit(train, validation_data=val.take(2), epochs=3, callbacks=[cb], verbose=0)
    rec = cb.recorder
    assert len(rec.losses) == 24 and rec.steps[-1] == 24.0
    # the per-step losses average back to what Keras reports for each epoch
    assert np.mean(rec.losses[16:]) == pytest.approx(history.history["loss"][2], rel=1e-3)
    assert rec.eval_losses == pytest.approx(history.history["val_loss"])
    assert [s.step for s in rec.snapshots] == [1, 10, 20]
    assert rec.snapshots[0].layers[-1].name == "classifier"
    assert quiet(cb.findings()) == []
    assert (tmp_path / "report" / "report.md").exists()
    # the wrappers are gone and the next fit() builds a clean train function
    assert "train_step" not in model.__dict__ and "apply_gradients" not in model.optimizer.__dict__
    assert model.train_function is None


@needs_tf
def test_keras_fit_finds_the_first_nan_step_and_its_batch():
    import tf_keras

    from wizard.callbacks import WizardKerasCallback

    x, y = _corrupt_xy()
    tf_keras.utils.set_random_seed(0)
    # tanh passes NaN on; oneDNN's relu may turn it into 0, leaving only the gradient NaN
    model = tf_keras.Sequential([tf_keras.Input((8,)), tf_keras.layers.Dense(16, activation="tanh"),
                                 tf_keras.layers.Dense(2)])
    model.compile(optimizer=tf_keras.optimizers.Adam(1e-3),
                  loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    cb = WizardKerasCallback(grad_every=2, stop_on_fault=True)
    model.fit(x, y, batch_size=8, epochs=2, shuffle=False, callbacks=[cb], verbose=0)
    fault = cb.recorder.fault
    assert fault["kind"] == "loss" and fault["step"] == BAD_ROW // 8 + 1
    assert fault["batch"]["rows_with_non_finite_values"] == {"x": [BAD_ROW % 8]}
    assert len(cb.recorder.losses) == BAD_ROW // 8 + 1  # stop_on_fault ended the run there
    assert all(math.isfinite(v) for v in cb.recorder.losses[:-1])
    found = cb.findings()
    assert found[0].id == "training.non-finite-step"
    exploding = next(f for f in found if f.id == "training.exploding-gradients")
    assert exploding.status == "fail"  # the snapshot of that step holds NaN gradients


@needs_tf
def test_keras_fit_finds_a_nan_gradient_under_a_finite_loss():
    import tensorflow as tf
    import tf_keras

    from wizard.callbacks import WizardKerasCallback

    class NormFeature(tf_keras.layers.Layer):
        """A learned scale, and the row's L2 norm appended as a feature."""

        def build(self, input_shape):
            self.scale = self.add_weight(name="scale", shape=(input_shape[-1],),
                                         initializer="ones")

        def call(self, x):
            h = x * self.scale
            return tf.concat([h, tf.sqrt(tf.reduce_sum(tf.square(h), -1, keepdims=True))], -1)

    x, y = _zero_row_xy()
    tf_keras.utils.set_random_seed(0)
    model = tf_keras.Sequential([tf_keras.Input((8,)), NormFeature(), tf_keras.layers.Dense(2)])
    model.compile(optimizer=tf_keras.optimizers.Adam(1e-3),
                  loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    # no read-back is due at the fault's step: it is found at the next step's NaN loss
    cb = WizardKerasCallback(grad_every=4, stop_on_fault=True)
    model.fit(x, y, batch_size=8, epochs=2, shuffle=False, callbacks=[cb], verbose=0)
    step = ZERO_ROW // 8 + 1
    _assert_gradient_fault(cb.recorder.fault, cb.recorder.losses, step)
    assert cb.recorder.fault["batch"]["keys"] == {"x": [8, 8], "y": [8]}
    assert len(cb.recorder.losses) == step + 1  # stop_on_fault ended the run at the read-back
    found = cb.findings()
    assert found[0].id == "training.non-finite-step"
    assert found[0].title.startswith(f"The gradient norm first became nan at step {step}")
    exploding = next(f for f in found if f.id == "training.exploding-gradients")
    assert exploding.status == "fail"  # the snapshot taken at that step holds the NaN
