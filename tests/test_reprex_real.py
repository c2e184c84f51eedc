"""`wizard run` on real library bugs of the pinned stacks (nothing injected), and the controls.

- transformers 4.57.6 (env tf): a TF model cannot load a PyTorch checkpoint saved as
  model.safetensors alone: `TFAutoModel...from_pretrained(path)` raises "TypeError:
  'builtins.safe_open' object is not iterable" in load_pytorch_state_dict_in_tf2_model
  (huggingface/transformers#40028, any safetensors 0.4.5-0.7). The run ends in library-bug with
  a verified reproduction of a few lines written from the script.
- transformers 4.57.6 (env tf): a PyTorch model loaded from TensorFlow weights
  (`from_pretrained(path, from_tf=True)`, a folder with tf_model.h5 alone) keeps its parameters
  on the meta device (the TF->PT loader fills an empty-weights model and never materialises it;
  huggingface/transformers#37786, the meta-device init of that path, and #38014, which fixed only
  its size mismatch): the first forward raises "RuntimeError: Tensor on device meta is not on
  the expected device cpu!". The blame goes to transformers, not torch where it surfaces.
- trl 1.16 (env modern): SFTTrainer with a tokenizer that has no EOS token (a word-level
  vocabulary) raises "TypeError: endswith first arg must be str or a tuple of str, not
  NoneType" in trl's add_eos while it prepares the dataset: the EOS appending added by
  huggingface/trl#3091 never checks that there is an EOS token (huggingface/trl#3299 later
  exposed `SFTConfig(eos_token=...)`, the workaround). A tiny random model reproduces it.
- Control (env modern): a script with a user error (a column the dataset lacks) never gets
  library-bug, and no reproduction is offered.
- A pasted error with its script (env modern, the trl bug): `python -m wizard check CASE.yaml`
  with `traceback:` + `script:` and wizard.api.check(traceback=, script=) reach the same
  library-bug and verified reproduction without running the script; the traceback was pasted
  from another folder (the script's file name matches). Controls: the same paste beside a
  user error's script, and beside a setup where the cut script runs clean, never get
  library-bug nor an offered reproduction.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import HAS_TF, needs_tf
from tests.test_run_script import LOOP_SCRIPT, write
from wizard.evidence.repro import run_script
from wizard.evidence.reprex import signature_of
from wizard.frontends.terminal.cli import main
from wizard.live.run import run_instrumented

SAFETENSORS_BUG = '''\
import sys
import tensorflow as tf
from datasets import load_from_disk
from transformers import AutoTokenizer, DataCollatorWithPadding, TFAutoModelForSequenceClassification

checkpoint = sys.argv[1]          # a PyTorch checkpoint: config.json + model.safetensors
raw = load_from_disk(sys.argv[2])
tokenizer = AutoTokenizer.from_pretrained(checkpoint)
print("tokenizing")
tokenized = raw.map(lambda b: tokenizer(b["premise"], b["hypothesis"], truncation=True), batched=True)
collator = DataCollatorWithPadding(tokenizer, return_tensors="np")
train = tokenized["train"].to_tf_dataset(columns=["input_ids", "attention_mask"], label_cols="label",
                                         batch_size=8, shuffle=True, collate_fn=collator)
model = TFAutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=3)
model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=5e-5),
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(train, epochs=1)
'''


FROM_TF_BUG = '''\
import sys
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

checkpoint = sys.argv[1]          # a TensorFlow checkpoint: config.json + tf_model.h5
tokenizer = AutoTokenizer.from_pretrained(checkpoint)
model = AutoModelForSequenceClassification.from_pretrained(checkpoint, from_tf=True, num_labels=3)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
batch = tokenizer(["A man inspects a uniform.", "Two women embrace."],
                  ["The man is sleeping.", "Two women hold each other."],
                  padding=True, return_tensors="pt")
model.train()
outputs = model(**batch, labels=torch.tensor([2, 0]))
outputs.loss.backward()
optimizer.step()
'''


SFT_NO_EOS_BUG = '''\
import sys
from datasets import load_from_disk
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import SFTConfig, SFTTrainer

model_dir = sys.argv[1]           # a small causal LM; its word-level tokenizer has no EOS token
data = load_from_disk(sys.argv[2])
tokenizer = AutoTokenizer.from_pretrained(model_dir)
model = AutoModelForCausalLM.from_pretrained(model_dir)
args = SFTConfig(output_dir=sys.argv[3], max_steps=3, per_device_train_batch_size=2, max_length=32,
                 bf16=False, report_to=[])
trainer = SFTTrainer(model=model, args=args, train_dataset=data["train"], processing_class=tokenizer)
trainer.train()
'''


def _one(result, id):
    found = [f for f in result.findings if f.id == id]
    assert len(found) == 1, [f.id for f in result.findings]
    return found[0]


@needs_tf
def test_tf_cannot_load_pytorch_safetensors_is_a_verified_library_bug(demo_dir, tmp_path):
    ckpt = tmp_path / "pt-checkpoint"       # what a PyTorch user pushes: no tf_model.h5
    ckpt.mkdir()
    for f in (demo_dir / "model").iterdir():
        if f.name != "tf_model.h5":
            shutil.copy(f, ckpt / f.name)
    script = tmp_path / "train.py"
    script.write_text(SAFETENSORS_BUG)
    out = run_instrumented(script, [str(ckpt), str(demo_dir / "dataset")])
    r = out.result
    assert out.capture.ended == "raised" and "safe_open" in r.case.traceback
    repro = _one(r, "report.reproduction")
    assert r.verdict.kind == "library-bug", repro.evidence.get("attempts")
    assert repro.status == "warn" and repro.evidence["verified"] is True
    assert repro.evidence["from"] == "script"
    lines = repro.fix.strip().splitlines()
    assert len(lines) <= 30 and repro.evidence["lines"] == len(lines)
    assert "from_pretrained(" in repro.fix and "load_from_disk" not in repro.fix  # sliced
    assert "sys.argv" not in repro.fix and str(ckpt) in repro.fix            # inlined
    assert "holds: config.json, model.safetensors" in repro.fix  # what the folder held
    assert "tf_model.h5" not in repro.fix
    # the failing line is the load itself: a tiny random model (from_config) never runs that
    # code, so it is not run; the first run is the slice with the checkpoint, and it reproduces
    tries = repro.evidence["attempts"]
    assert tries[0]["label"] == "slice, your checkpoint" and tries[0]["reproduced"]
    assert "slice, tiny model" in [n["label"] for n in repro.evidence["not_run"]]
    assert repro.evidence["tiny_config"] is False
    latest = _one(r, "report.latest-release")      # the tests' index is unreachable
    assert latest.status == "skip" and "could not be reached" in latest.title
    # independently: the script fails the same way in a fresh interpreter
    again = run_script(repro.fix, env={"TF_USE_LEGACY_KERAS": "1"})
    sig = signature_of(again.stderr)
    assert sig is not None and sig.exc_type == "TypeError"
    assert sig.function == "load_pytorch_state_dict_in_tf2_model"


@needs_tf
def test_pytorch_from_tf_weights_left_on_meta_is_a_verified_transformers_bug(demo_dir, tmp_path):
    ckpt = tmp_path / "tf-checkpoint"       # what a Keras user pushes: no PyTorch weights
    ckpt.mkdir()
    for f in (demo_dir / "model").iterdir():
        if f.name != "model.safetensors":
            shutil.copy(f, ckpt / f.name)
    script = tmp_path / "train.py"
    script.write_text(FROM_TF_BUG)
    start = time.monotonic()
    out = run_instrumented(script, [str(ckpt)])
    took = time.monotonic() - start
    r = out.result
    assert out.capture.ended == "raised" and "device meta" in r.case.traceback
    repro = _one(r, "report.reproduction")
    assert r.verdict.kind == "library-bug", (r.verdict, repro.evidence.get("attempts"))
    assert "inside transformers" in r.verdict.summary          # not torch, where it surfaced
    assert repro.evidence["verified"] is True and repro.evidence["package"] == "transformers"
    lines = repro.fix.strip().splitlines()
    assert len(lines) <= 30 and "from_tf=True" in repro.fix and "sys.argv" not in repro.fix
    assert "holds: config.json" in repro.fix and "tf_model.h5" in repro.fix
    assert not repro.evidence["attempts"][0]["reproduced"]      # a tiny random model loads fine
    # the checks of the live objects ran without a dataset to read: none of them crashed
    assert not [f for f in r.findings if f.id == "wizard.probe-crashed"]
    latest = _one(r, "report.latest-release")
    assert latest.evidence["package"] == "transformers" and latest.status == "skip"
    again = run_script(repro.fix, env={"TF_USE_LEGACY_KERAS": "1"})
    sig = signature_of(again.stderr)
    assert sig is not None and sig.exc_type == "RuntimeError" and again.seconds < 30
    print(f"wizard run {took:.0f} s; repro.py {again.seconds:.1f} s, {len(lines)} lines")


@pytest.mark.skipif(HAS_TF, reason="the transformers 5 / trl 1.16 stack is env modern's")
def test_sft_with_a_tokenizer_without_eos_is_a_verified_trl_bug(tmp_path):
    from transformers import AutoTokenizer

    from tests.lm_fixtures import build

    fx = build(tmp_path / "fx")
    model = tmp_path / "no-eos"
    shutil.copytree(fx["model"], model)
    tok = AutoTokenizer.from_pretrained(model)
    tok.eos_token = None
    tok.save_pretrained(model)
    script = tmp_path / "train.py"
    script.write_text(SFT_NO_EOS_BUG)
    start = time.monotonic()
    out = run_instrumented(script, [str(model), str(fx["text"]), str(tmp_path / "sft-out")])
    took = time.monotonic() - start
    r = out.result
    assert out.capture.ended == "raised" and "add_eos" in r.case.traceback
    repro = _one(r, "report.reproduction")
    assert r.verdict.kind == "library-bug", (r.verdict, repro.evidence.get("attempts"))
    assert "inside trl" in r.verdict.summary and repro.evidence["package"] == "trl"
    lines = repro.fix.strip().splitlines()
    assert len(lines) <= 30 and "load_from_disk" not in repro.fix and "sys.argv" not in repro.fix
    assert repro.evidence["tiny_config"] is True and "from_config(" in repro.fix  # no weights
    assert "Dataset.from_dict" in repro.fix                                     # two rows
    again = run_script(repro.fix)
    sig = signature_of(again.stderr)
    assert sig is not None and sig.exc_type == "TypeError" and sig.function == "add_eos"
    assert again.seconds < 30
    print(f"wizard run {took:.0f} s; repro.py {again.seconds:.1f} s, {len(lines)} lines")


@pytest.mark.skipif(HAS_TF, reason="env modern runs the PyTorch control")
def test_a_user_error_never_gets_library_bug_nor_a_reproduction(demo_dir, tmp_path):
    script = write(tmp_path, LOOP_SCRIPT.replace('batch["premise"]', 'batch["sentence"]'),
                   MODEL_DIR=str(demo_dir / "model"), DATA_DIR=str(demo_dir / "dataset"))
    out = run_instrumented(script)
    r = out.result
    assert out.capture.ended == "raised" and "KeyError" in r.case.traceback
    assert r.verdict.kind != "library-bug"
    assert not [f for f in r.findings if f.id in ("report.reproduction", "report.latest-release")]


# -- a pasted error with its script: check CASE.yaml and wizard.api.check ----------------------------
def _pasted(script: Path, args: list[str]) -> str:
    """What the user pastes: the error their own run of the script printed."""
    env = {**os.environ, "USE_TF": "0"}
    done = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode != 0
    return done.stderr[done.stderr.index("Traceback (most recent call last)"):]


@pytest.fixture(scope="module")
def pasted_trl_bug(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The trl bug's setup, the error as the user's run printed it (in another folder: the
    paste names the script by a path that is not the case's), and a case file's fields."""
    from transformers import AutoTokenizer

    from tests.lm_fixtures import build

    root = tmp_path_factory.mktemp("pasted")
    fx = build(root / "fx")
    model = root / "no-eos"
    shutil.copytree(fx["model"], model)
    tok = AutoTokenizer.from_pretrained(model)
    tok.eos_token = None
    tok.save_pretrained(model)
    (root / "their-machine").mkdir()
    (root / "their-machine" / "train.py").write_text(SFT_NO_EOS_BUG)
    args = [str(model), str(fx["text"]), str(root / "sft-out")]
    traceback = _pasted(root / "their-machine" / "train.py", args)
    assert "add_eos" in traceback and str(root / "their-machine") in traceback
    (root / "train.py").write_text(SFT_NO_EOS_BUG)
    case = {"model": str(model), "framework": "pytorch", "task": "text-generation",
            "dataset": {"path": str(fx["text"]), "text_columns": ["text"], "eval_split": None},
            "training": {"trainer": "trainer", "batch_size": 2, "optimizer": "adamw"},
            "symptom": "error", "traceback": traceback}
    return {"root": root, "case": case, "args": args, "fx": fx}


def _assert_verified_trl_bug(data: dict) -> None:
    assert data["verdict"]["kind"] == "library-bug", data["verdict"]
    repro = next(f for f in data["findings"] if f["id"] == "report.reproduction")
    assert repro["status"] == "warn" and repro["evidence"]["verified"] is True
    assert repro["evidence"]["package"] == "trl" and repro["evidence"]["from"] == "script"
    assert "SFTTrainer(" in repro["fix"] and "sys.argv" not in repro["fix"]
    again = run_script(repro["fix"])            # independently: it fails the same way
    sig = signature_of(again.stderr)
    assert sig is not None and sig.function == "add_eos"


@pytest.mark.skipif(HAS_TF, reason="the trl 1.16 stack is env modern's")
def test_check_case_with_a_pasted_error_and_its_script_is_a_verified_library_bug(
        pasted_trl_bug, tmp_path):
    import yaml

    root = pasted_trl_bug["root"]
    case_file = root / "case.yaml"                      # the script relative to the case file
    case_file.write_text(yaml.safe_dump({**pasted_trl_bug["case"], "script": "train.py",
                                         "script_args": pasted_trl_bug["args"]}))
    out = tmp_path / "result.json"
    start = time.monotonic()
    code = main(["check", str(case_file), "--json", str(out), "-q", "--out", str(tmp_path / "o"),
                 "--report", str(tmp_path / "r"), "--format", "github"])
    took = time.monotonic() - start
    data = json.loads(out.read_text())
    assert code == 0  # no fault of the setup's (README: exit codes); the bug is trl's
    assert data["case"]["script"] == str(root / "train.py")
    assert "script.run" not in [f["id"] for f in data["findings"]]   # the script never ran
    _assert_verified_trl_bug(data)
    issue = (tmp_path / "r" / "report-github.md").read_text()
    assert "huggingface/trl/issues/new" in issue and "### Checklist" in issue
    assert (tmp_path / "r" / "repro.py").is_file()
    print(f"check CASE.yaml {took:.0f} s")


@pytest.mark.skipif(HAS_TF, reason="the trl 1.16 stack is env modern's")
def test_api_check_with_a_pasted_error_and_its_script_is_a_verified_library_bug(pasted_trl_bug):
    from wizard import check

    case = {k: v for k, v in pasted_trl_bug["case"].items() if k != "traceback"}
    report = check(case, traceback=pasted_trl_bug["case"]["traceback"],
                   script=pasted_trl_bug["root"] / "train.py",
                   script_args=pasted_trl_bug["args"])
    _assert_verified_trl_bug(report.to_dict())
    assert report.result.path[0] == "api" and "report.reproduction" in report


@pytest.mark.skipif(HAS_TF, reason="the trl 1.16 stack is env modern's")
def test_a_pasted_error_never_gets_library_bug_where_the_cut_script_runs_clean(pasted_trl_bug):
    """The same paste, but the script's arguments name a tokenizer that has an EOS token: the
    script cut from it does not fail, so no reproduction is offered and no bug is claimed."""
    from wizard import check

    fx = pasted_trl_bug["fx"]
    args = [str(fx["model"]), *pasted_trl_bug["args"][1:]]
    report = check({**pasted_trl_bug["case"], "model": str(fx["model"])},
                   script=pasted_trl_bug["root"] / "train.py", script_args=args)
    assert report.verdict.kind != "library-bug"
    repro = report["report.reproduction"]        # tried, and said so
    assert repro.status == "info" and repro.evidence["verified"] is False and not repro.fix
    assert repro.evidence["attempts"] and not any(a["reproduced"]
                                                  for a in repro.evidence["attempts"])


@pytest.mark.skipif(HAS_TF, reason="env modern runs the PyTorch control")
def test_a_pasted_user_error_with_its_script_never_gets_library_bug(demo_dir, tmp_path):
    script = write(tmp_path, LOOP_SCRIPT.replace('batch["premise"]', 'batch["sentence"]'),
                   MODEL_DIR=str(demo_dir / "model"), DATA_DIR=str(demo_dir / "dataset"))
    traceback = _pasted(script, [])
    assert "KeyError" in traceback
    from wizard import check

    report = check({"model": str(demo_dir / "model"),
                    "dataset": {"path": str(demo_dir / "dataset"),
                                "text_columns": ["premise", "hypothesis"]},
                    "training": {"trainer": "loop", "optimizer": "adamw", "batch_size": 8}},
                   traceback=traceback, script=script)
    assert report.verdict.kind != "library-bug"
    assert not [f for f in report.findings if f.id.startswith("report.")]
