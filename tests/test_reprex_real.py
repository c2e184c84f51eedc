"""`wizard run` on real library bugs of the pinned stacks (nothing injected), and the controls.

- transformers 4.57.6 (env tf): a TF model cannot load a PyTorch checkpoint saved as
  model.safetensors alone: `TFAutoModel...from_pretrained(path)` raises "TypeError:
  'builtins.safe_open' object is not iterable" in load_pytorch_state_dict_in_tf2_model
  (huggingface/transformers#40028, any safetensors 0.4.5-0.7). The run ends in library-bug with
  a verified reproduction of a few lines written from the script.
- Control (env modern): a script with a user error (a column the dataset lacks) never gets
  library-bug, and no reproduction is offered.
"""
from __future__ import annotations

import shutil

import pytest

from tests.conftest import HAS_TF, needs_tf
from tests.test_run_script import LOOP_SCRIPT, write
from wizard.evidence.repro import run_script
from wizard.evidence.reprex import signature_of
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
    # the tiny random model was tried first and ran clean: the fault needs the real files
    tries = repro.evidence["attempts"]
    assert tries[0]["label"] == "slice, tiny model" and not tries[0]["reproduced"]
    assert repro.evidence["tiny_config"] is False
    latest = _one(r, "report.latest-release")      # the tests' index is unreachable
    assert latest.status == "skip" and "could not be reached" in latest.title
    # independently: the script fails the same way in a fresh interpreter
    again = run_script(repro.fix, env={"TF_USE_LEGACY_KERAS": "1"})
    sig = signature_of(again.stderr)
    assert sig is not None and sig.exc_type == "TypeError"
    assert sig.function == "load_pytorch_state_dict_in_tf2_model"


@pytest.mark.skipif(HAS_TF, reason="env modern runs the PyTorch control")
def test_a_user_error_never_gets_library_bug_nor_a_reproduction(demo_dir, tmp_path):
    script = write(tmp_path, LOOP_SCRIPT.replace('batch["premise"]', 'batch["sentence"]'),
                   MODEL_DIR=str(demo_dir / "model"), DATA_DIR=str(demo_dir / "dataset"))
    out = run_instrumented(script)
    r = out.result
    assert out.capture.ended == "raised" and "KeyError" in r.case.traceback
    assert r.verdict.kind != "library-bug"
    assert not [f for f in r.findings if f.id in ("report.reproduction", "report.latest-release")]
