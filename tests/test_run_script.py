"""`python -m wizard run`: real scripts on the tiny local fixtures, run unchanged with the wizard
attached: a Keras fit script (env tf), Trainer scripts, a plain PyTorch loop; the first batch is
captured, the findings come from the live objects, errors are diagnosed from their exception."""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT
from wizard.frontends.terminal.commands.run import split_trailing
from wizard.live.run import run_instrumented

HAS_TF = importlib.util.find_spec("tensorflow") is not None
needs_tf = pytest.mark.skipif(not HAS_TF, reason="TensorFlow is tested in env 'tf'")
COURSE_FAULTS = ["data.labels-in-inputs-with-keras-loss", "data.labels-out-of-range",
                 "hyperparameters.learning-rate-too-high"]

KERAS_SCRIPT = '''\
from datasets import load_from_disk
from transformers import AutoTokenizer, DataCollatorWithPadding, TFAutoModelForSequenceClassification

raw_datasets = load_from_disk("DATA_DIR")
model_checkpoint = "MODEL_DIR"
tokenizer = AutoTokenizer.from_pretrained(model_checkpoint)


def preprocess_function(examples):
    return tokenizer(examples["premise"], examples["hypothesis"], truncation=True)


tokenized_datasets = raw_datasets.map(preprocess_function, batched=True)
collator = DataCollatorWithPadding(tokenizer, return_tensors="np")
train_dataset = tokenized_datasets["train"].to_tf_dataset(
    columns=["input_ids", "attention_mask", "label"], batch_size=16, shuffle=True,
    collate_fn=collator)
model = TFAutoModelForSequenceClassification.from_pretrained(model_checkpoint, NUM_LABELS)
model.compile(COMPILE)
model.fit(train_dataset)
'''

TRAINER_SCRIPT = '''\
from datasets import load_from_disk
from transformers import (AutoModelForSequenceClassification, AutoTokenizer,
                          DataCollatorWithPadding, Trainer, TrainingArguments)

checkpoint = "MODEL_DIR"
raw = load_from_disk("DATA_DIR")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize(batch):
    return tokenizer(batch["premise"], batch["hypothesis"], truncation=True)


tokenized = raw.map(tokenize, batched=True)
model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=NUM_LABELS)
args = TrainingArguments("OUT_DIR", learning_rate=LR, per_device_train_batch_size=16,
                         num_train_epochs=1, report_to=[], save_strategy="no", use_cpu=True,
                         disable_tqdm=True)
trainer = Trainer(model=model, args=args, train_dataset=tokenized["train"],
                  data_collator=DataCollatorWithPadding(tokenizer))
trainer.train()
print("TRAINED")
'''

LOOP_SCRIPT = '''\
import sys
import torch
from torch.utils.data import DataLoader
from datasets import load_from_disk
from transformers import AutoModelForSequenceClassification, AutoTokenizer, DataCollatorWithPadding

checkpoint = "MODEL_DIR"
raw = load_from_disk("DATA_DIR")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize(batch):
    return tokenizer(batch["premise"], batch["hypothesis"], truncation=True)


tokenized = raw.map(tokenize, batched=True, remove_columns=["premise", "hypothesis", "idx"])
tokenized = tokenized.rename_column("label", "labels")
train_dataloader = DataLoader(tokenized["train"], batch_size=8, shuffle=True,
                              collate_fn=DataCollatorWithPadding(tokenizer))
model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=3)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
model.train()
for epoch in range(2):
    for batch in train_dataloader:
        outputs = model(**batch)
        loss = outputs.loss
        if "--normalize" in sys.argv:  # the bug: divide by the count of a class that is absent
            loss = loss / (batch["labels"] == 7).sum()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
'''


@pytest.fixture(scope="module")
def fx(demo_dir, tmp_path_factory):
    """Local paths the scripts use; a TF-only copy of the model (its h5 weights alone)."""
    out = {"MODEL_DIR": str(demo_dir / "model"), "DATA_DIR": str(demo_dir / "dataset")}
    if HAS_TF:
        tf_model = tmp_path_factory.mktemp("tfmodel")
        for f in (demo_dir / "model").iterdir():
            if not f.name.endswith(".safetensors"):
                shutil.copy(f, tf_model / f.name)
        out["TF_MODEL_DIR"] = str(tf_model)
    return out


def write(tmp_path: Path, template: str, **subs: str) -> Path:
    text = template
    for k, v in subs.items():
        text = text.replace(k, v)
    script = tmp_path / "train.py"
    script.write_text(text)
    return script


def ids(result, status=None):
    return sorted(f.id for f in result.findings if status is None or f.status == status)


def one(result, fid):
    found = [f for f in result.findings if f.id == fid]
    assert found, f"no {fid}: {[f.id for f in result.findings]}"
    return found[0]


@pytest.fixture(autouse=True)
def _torch_only(monkeypatch):
    if not HAS_TF:
        monkeypatch.setenv("USE_TF", "0")


def _hooks_removed() -> None:
    from wizard.live import instrument

    assert instrument._ACTIVE is None
    assert not any(isinstance(f, instrument._PostImport) for f in sys.meta_path)
    if "torch" in sys.modules:
        import torch

        assert torch.Tensor.backward.__module__ == "torch._tensor"
        assert not hasattr(torch.Tensor.backward, "__wrapped__")


# -- Keras --------------------------------------------------------------------------------------
@needs_tf
def test_keras_course_faults_from_the_live_fit(fx, tmp_path):
    script = write(tmp_path, KERAS_SCRIPT, DATA_DIR=fx["DATA_DIR"], MODEL_DIR=fx["TF_MODEL_DIR"],
                   NUM_LABELS="", COMPILE='loss="sparse_categorical_crossentropy", optimizer="adam"')
    out = run_instrumented(script)
    r, c = out.result, out.capture
    assert c.entry == "keras.fit" and c.ended == "raised"
    assert set(c.batch.inputs) == {"input_ids", "attention_mask", "labels"}
    assert c.batch.labels_in_inputs and len(c.batch.indices) == 16
    assert c.settings["optimizer_class"] == "Adam" and c.settings["learning_rate"] == 0.001
    assert ids(r, "fail") == COURSE_FAULTS
    assert r.verdict.primary == "data.labels-in-inputs-with-keras-loss"
    tri = one(r, "triage.known-error")  # CPU: "Received a label value of 2 ... [0, 2)"
    assert "label value" in tri.title.lower()
    assert "InvalidArgumentError" in r.case.traceback and "instrument.py" not in r.case.traceback
    assert one(r, "data.labels-in-inputs-with-keras-loss").evidence["script"]["line"] == 15
    assert one(r, "hyperparameters.hidden-defaults").status == "info"
    assert [f.id for f in r.findings[:3]] == ["script.read", "script.run", "triage.known-error"]
    _hooks_removed()


@needs_tf
def test_keras_fixed_script_trains_and_stops_after_steps(fx, tmp_path):
    script = write(tmp_path, KERAS_SCRIPT.replace("from datasets", "import tf_keras\nfrom datasets"),
                   DATA_DIR=fx["DATA_DIR"], MODEL_DIR=fx["TF_MODEL_DIR"], NUM_LABELS="num_labels=3",
                   COMPILE="optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5), run_eagerly=True")
    out = run_instrumented(script, steps=2)
    assert out.capture.ended == "stopped" and out.capture.steps == 2
    assert len(out.capture.losses) == 2 and all(0.5 < v < 2.0 for v in out.capture.losses)
    assert ids(out.result, "fail") == [] and out.result.verdict.kind == "healthy"
    assert out.result.case.training.optimizer == {"name": "Adam", "learning_rate": 5e-5}
    run = one(out.result, "script.run")
    assert "stopped after 2 step(s)" in run.title and run.plots[0].series["loss"]
    _hooks_removed()


# -- Trainer ------------------------------------------------------------------------------------
def test_trainer_healthy_run_stops_after_steps(fx, tmp_path):
    script = write(tmp_path, TRAINER_SCRIPT, NUM_LABELS="3", LR="5e-5", OUT_DIR=str(tmp_path / "o"),
                   MODEL_DIR=fx["MODEL_DIR"], DATA_DIR=fx["DATA_DIR"])
    out = run_instrumented(script, steps=2)
    c, r = out.capture, out.result
    assert c.entry == "trainer.train" and c.ended == "stopped" and c.steps == 2
    assert len(c.losses) == 2 and abs(c.losses[0] - 1.0986) < 0.2  # ln 3 at the start
    assert {"input_ids", "attention_mask", "labels"} <= set(c.batch.inputs)
    assert c.settings["TrainingArguments.learning_rate"] == 5e-5
    assert c.settings["TrainingArguments.optim"].startswith("adamw")
    assert ids(r, "fail") == [] and r.verdict.kind == "healthy"
    assert one(r, "data.labels-out-of-range").status == "pass"
    assert r.case.training.trainer == "trainer" and r.case.training.optimizer == "adamw"
    _hooks_removed()


def test_trainer_script_that_raises_is_diagnosed_from_its_exception(fx, tmp_path):
    script = write(tmp_path, TRAINER_SCRIPT, NUM_LABELS="2", LR="1e-3", OUT_DIR=str(tmp_path / "o"),
                   MODEL_DIR=fx["MODEL_DIR"], DATA_DIR=fx["DATA_DIR"])
    out = run_instrumented(script)
    c, r = out.capture, out.result
    assert c.ended == "raised" and type(c.error).__name__ == "IndexError"
    assert r.case.symptom == "error" and "Target 2 is out of bounds" in r.case.traceback
    tri = one(r, "triage.known-error")
    assert tri.evidence["your_code"].endswith("trainer.train()")  # the script's own frame
    assert ids(r, "fail") == ["data.labels-out-of-range", "hyperparameters.learning-rate-too-high"]
    assert one(r, "model.nan-loss-samples").evidence["labels_of_those"] == [2]
    _hooks_removed()


# -- a plain PyTorch loop -------------------------------------------------------------------------
def test_plain_loop_stops_at_the_first_non_finite_loss(fx, tmp_path):
    script = write(tmp_path, LOOP_SCRIPT, MODEL_DIR=fx["MODEL_DIR"], DATA_DIR=fx["DATA_DIR"])
    out = run_instrumented(script, ["--normalize"])
    c, r = out.capture, out.result
    assert c.entry == "torch.forward" and c.ended == "nonfinite" and c.losses == [float("inf")]
    nan = one(r, "curves.nan")
    assert nan.status == "fail" and nan.evidence["step"] == 0
    assert nan.evidence["weights_finite"] is True and len(nan.evidence["batch_labels"]) == 8
    assert r.case.symptom == "nan-loss" and ids(r, "fail") == ["curves.nan"]
    assert r.case.training.optimizer == {"name": "AdamW", "learning_rate": 5e-5}
    assert r.case.dataset.label_column == "label"  # renamed to labels in the script
    _hooks_removed()


def test_cli_runs_a_plain_loop_with_trailing_options(fx, tmp_path):
    import subprocess

    script = write(tmp_path, LOOP_SCRIPT, MODEL_DIR=fx["MODEL_DIR"], DATA_DIR=fx["DATA_DIR"])
    out = tmp_path / "out.json"
    code = "import sys, wizard.frontends.terminal.cli as c\nsys.exit(c.main(sys.argv[1:]))"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "USE_TF": "0"}
    proc = subprocess.run([sys.executable, "-c", code, "run", "--out", str(tmp_path / "s"),
                           str(script), "--steps", "2", "--json", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads(out.read_text())
    assert data["run"]["ended"] == "stopped" and data["run"]["steps"] == 2
    run = next(f for f in data["findings"] if f["id"] == "script.run")
    assert run["evidence"]["batch"]["inputs"]["input_ids"]["shape"][0] == 8
    assert len(run["evidence"]["losses"]) == 2 and data["verdict"]["kind"] == "healthy"
    assert "tensorflow" not in data["environment"].get("imported_versions", {})


# -- scripts that fail early or do not train --------------------------------------------------------
def test_script_raising_before_training_is_triaged(fx, tmp_path):
    script = write(tmp_path, LOOP_SCRIPT.replace('batch["premise"]', 'batch["sentence"]'),
                   MODEL_DIR=fx["MODEL_DIR"], DATA_DIR=fx["DATA_DIR"])
    out = run_instrumented(script)
    r = out.result
    assert out.capture.ended == "raised" and out.capture.batch is None
    run = one(r, "script.run")
    assert run.status == "warn" and "never reached a training step" in run.title
    assert "KeyError" in r.case.traceback
    assert any(f.category == "triage" and f.evidence.get("exception") == "KeyError"
               for f in r.findings)
    assert r.verdict.kind != "healthy"
    _hooks_removed()


def test_script_without_training_says_nothing_was_captured(tmp_path):
    script = tmp_path / "prep.py"
    script.write_text("import sys\nprint('preprocessing only', sys.argv[1:])\n")
    out = run_instrumented(script, ["--x", "1"])
    assert out.capture.ended == "finished" and out.capture.batch is None
    run = one(out.result, "script.run")
    assert run.status == "warn" and "nothing was captured" in run.title
    assert "never calls fit()" in one(out.result, "script.read").explanation
    assert run.evidence["argv"] == ["--x", "1"]


def test_run_command_bad_input_is_one_sentence(tmp_path, capsys):
    from wizard.frontends.terminal.commands.run import run

    bad = tmp_path / "broken.py"
    bad.write_text("model.fit(\n")
    args = argparse.Namespace(script=str(bad), script_args=[], steps=None, json=None, report=None,
                              format=None, keep_going=False, quiet=True, device="auto",
                              timeout=60.0, out=str(tmp_path / "o"))
    assert run(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "syntax error at line 1" in err
    args.script = str(tmp_path / "missing.py")
    assert run(args) == 2 and "does not exist" in capsys.readouterr().err


def test_trailing_wizard_options_unless_the_script_owns_them():
    args = argparse.Namespace(script_args=["--lr", "1e-3", "--steps", "5", "--json=o.json", "-q"],
                              steps=None, json=None, report=None, format=None, keep_going=False,
                              quiet=False)
    assert split_trailing(args, set()) == ["--lr", "1e-3"]
    assert (args.steps, args.json, args.quiet) == (5, "o.json", True)
    args = argparse.Namespace(script_args=["--steps", "5"], steps=None, json=None, report=None,
                              format=None, keep_going=False, quiet=False)
    assert split_trailing(args, {"--steps"}) == ["--steps", "5"] and args.steps is None


def test_the_live_loss_is_judged_by_the_curve_rules_not_only_nan():
    """A loss that climbs over the steps `run` followed is a finding; a healthy noisy one is not."""
    from wizard.live.run import live_curve_findings

    climbing = [2.3, 2.0, 1.9, 1.8, 2.6, 4.1, 7.9, 12.5, 20.4, 33.0, 41.2, 55.0]
    assert {f.id for f in live_curve_findings(climbing, "train.py")} & {
        "curves.divergence", "curves.spikes"}
    healthy = [2.3, 2.1, 2.15, 1.9, 1.85, 1.7, 1.72, 1.6, 1.5, 1.52, 1.4, 1.35]
    assert live_curve_findings(healthy, "train.py") == []
    assert live_curve_findings(climbing[:4], "train.py") == []  # too few steps to judge


def test_the_tokenizer_the_script_makes_is_kept_until_one_is_called(fx):
    """A cached dataset.map never calls the tokenizer: the one the script made (with the pad
    token it then sets) is what the checks get; a tokenizer that is called wins."""
    from transformers import AutoTokenizer

    from wizard.live.instrument import Capture, Instrument

    capture = Capture("train.py", [])
    with Instrument(capture):
        made = AutoTokenizer.from_pretrained(fx["MODEL_DIR"])
        made.pad_token = made.sep_token
    _hooks_removed()
    assert capture.tokenizer is made and capture.tokenizer.pad_token == made.sep_token
    capture = Capture("train.py", [])
    with Instrument(capture):
        called = AutoTokenizer.from_pretrained(fx["MODEL_DIR"])
        called("a text")
        AutoTokenizer.from_pretrained(fx["MODEL_DIR"])  # made later, never called
    _hooks_removed()
    assert capture.tokenizer is called and capture.tokenizer_call is not None
