"""The static script reader: the course's script read verbatim into the case `check` diagnoses,
a Trainer script likewise, constant propagation, questions with their lines, unusual scripts,
and each static check firing on a faulty script and staying quiet on a healthy one."""
from __future__ import annotations

import importlib.util
import inspect
import os
import textwrap
from pathlib import Path

import pytest

from wizard.core.case import CaseError
from wizard.script.checks import KERAS_DEFAULT_LR, TORCH_DEFAULT_LR
from wizard.engine.verdict import combine_findings
from wizard.script.reader import ScriptError, case_from_script, course_script_path, read_script

HAS_TF = importlib.util.find_spec("tensorflow") is not None
HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_tf = pytest.mark.skipif(not HAS_TF, reason="TensorFlow is tested in env 'tf'")
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="needs torch")

# The course's three faults, and from the script a fourth: its to_tf_dataset() has no
# collate_fn over texts tokenized without padding, so today's datasets cannot stack a batch
# ("all input arrays must have the same shape"); the case file says padding is dynamic.
COURSE_FAULTS = ["data.labels-in-inputs-with-keras-loss", "data.labels-out-of-range",
                 "data.ragged-batch", "hyperparameters.learning-rate-too-high"]
V457 = {"transformers": "4.57.6", "tensorflow": "2.21.0", "keras": "3.15.1"}

TRAINER_SCRIPT = '''\
import numpy as np
from datasets import load_dataset
from transformers import (AutoModelForSequenceClassification, AutoTokenizer,
                          DataCollatorWithPadding, Trainer, TrainingArguments)

checkpoint = "distilbert-base-uncased"
raw = load_dataset("glue", "mnli")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)


def tokenize(batch):
    return tokenizer(batch["premise"], batch["hypothesis"], truncation=True)


tokenized = raw.map(tokenize, batched=True)
model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=NUM_LABELS)


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    return {"accuracy": float((np.argmax(logits, -1) == labels).mean())}


args = TrainingArguments("out", learning_rate=LR, per_device_train_batch_size=16,
                         num_train_epochs=1, fp16=False, warmup_ratio=0.1)
trainer = Trainer(model=model, args=args, train_dataset=tokenized["train"],
                  eval_dataset=tokenized["validation"],
                  data_collator=DataCollatorWithPadding(tokenizer),
                  compute_metrics=compute_metrics)
trainer.train()
'''


def ids(findings, status=None):
    return sorted(f.id for f in findings if status is None or f.status == status)


def one(findings, fid):
    found = [f for f in findings if f.id == fid]
    assert found, f"no {fid}: {[f.id for f in findings]}"
    return found[0]


def keras_script(body: str) -> str:
    head = ('from datasets import load_from_disk\n'
            'from transformers import AutoTokenizer, TFAutoModelForSequenceClassification\n'
            'raw = load_from_disk("data")\n'
            'tokenizer = AutoTokenizer.from_pretrained("bert")\n'
            'def tok(ex):\n'
            '    return tokenizer(ex["text"], truncation=True)\n'
            'ds = raw.map(tok, batched=True)\n'
            'model = TFAutoModelForSequenceClassification.from_pretrained("bert", num_labels=2)\n')
    return head + textwrap.dedent(body)


# -- the course's script, verbatim -----------------------------------------------------------------
def test_course_script_is_read_completely():
    text = course_script_path().read_text()
    assert 'model.compile(loss="sparse_categorical_crossentropy", optimizer="adam")' in text
    assert text.startswith("from datasets import load_dataset\nimport evaluate\n")
    r = case_from_script(course_script_path(), versions=V457)
    c = r.case
    assert r.entry == "keras" and r.complete and r.questions == []
    assert (c.model, c.framework, c.task) == ("distilbert-base-uncased", "tensorflow",
                                              "text-classification")
    assert (c.dataset.path, c.dataset.config) == ("glue", "mnli")
    assert (c.dataset.train_split, c.dataset.eval_split) == ("train", "validation_matched")
    assert c.dataset.text_columns == ["premise", "hypothesis"]
    assert c.dataset.label_column == "label" and c.num_labels is None
    assert c.preprocessing.truncation is True
    t = c.training
    assert (t.optimizer, t.loss, t.labels, t.batch_size, t.trainer) == (
        "adam", "sparse_categorical_crossentropy", "inputs", 16, "keras")
    assert {k: r.read[k].line for k in ("model", "dataset.path", "dataset.text_columns",
                                        "training.optimizer", "training.labels")} == {
        "model": 28, "dataset.path": 8, "dataset.text_columns": 15, "training.optimizer": 30,
        "training.labels": 20}
    assert r.settings["tokenizer"]["value"] == "distilbert-base-uncased"


def test_course_script_static_findings_point_at_their_lines():
    r = case_from_script(course_script_path(), versions=V457)
    assert ids(r.findings, "fail") == ["data.labels-in-inputs-with-keras-loss",
                                       "hyperparameters.learning-rate-too-high"]
    wired = one(r.findings, "data.labels-in-inputs-with-keras-loss")
    assert wired.evidence["line"] == 20 and wired.evidence["compile_line"] == 30
    lr = one(r.findings, "hyperparameters.learning-rate-too-high")
    assert lr.evidence["learning_rate"] == pytest.approx(1e-3) and lr.evidence["line"] == 30
    assert "learning_rate=5e-5" in lr.fix
    assert one(r.findings, "hyperparameters.hidden-defaults").evidence["means"] == {
        "learning_rate": 1e-3}
    assert one(r.findings, "script.read").status == "info"
    # labels inside the inputs already say it: no separate from_logits finding; truncation=True
    assert "script.from-logits-mismatch" not in ids(r.findings)
    assert "script.no-truncation" not in ids(r.findings)


def test_course_script_beside_transformers_5_names_the_import_line():
    r = case_from_script(course_script_path(), versions={**V457, "transformers": "5.0.0"})
    f = one(r.findings, "environment.transformers-without-tensorflow")
    assert f.status == "fail" and f.evidence["line"] == 5
    assert "TFAutoModelForSequenceClassification" in f.title
    assert "environment.transformers-without-tensorflow" not in ids(
        case_from_script(course_script_path(), versions=V457).findings)


@pytest.fixture(scope="module")
def mnli_local(demo_dir, tmp_path_factory):
    """The demo data under MNLI's split names (train, validation_matched)."""
    import datasets

    d = datasets.load_from_disk(str(demo_dir / "dataset"))
    out = tmp_path_factory.mktemp("glue") / "glue_mnli"
    datasets.DatasetDict({"train": d["train"], "validation_matched": d["validation"]}).save_to_disk(str(out))
    return out


def _check_inline(case):
    """`check` on a case, with the probes in this process (the same steps and probes)."""
    from wizard.context import Context
    from wizard.engine.session import Session

    return Session(case, ctx=Context(case)).run()


@needs_tf
def test_course_script_read_then_checked_finds_its_faults(demo_dir, mnli_local):
    # The script is read verbatim; its Hub ids are mapped to the local fixtures (offline tests).
    refs = {"distilbert-base-uncased": str(demo_dir / "model"), "glue": str(mnli_local)}
    r = case_from_script(course_script_path(), refs=refs)
    assert r.case.model == str(demo_dir / "model") and r.case.dataset.path == str(mnli_local)
    result = r.merge(_check_inline(r.case))
    assert ids(result.findings, "fail") == COURSE_FAULTS
    assert result.verdict.kind == "user-error"
    assert result.verdict.primary == "data.ragged-batch"  # no batch can be built first
    wired = one(result.findings, "data.labels-in-inputs-with-keras-loss")
    assert wired.evidence["script"]["line"] == 20  # the run's finding keeps the script's line
    assert [f.id for f in result.findings].count("hyperparameters.learning-rate-too-high") == 1
    assert result.findings[0].id == "script.read"


def test_course_script_with_load_from_disk_substituted(tmp_path):
    text = course_script_path().read_text().replace(
        "from datasets import load_dataset", "from datasets import load_from_disk").replace(
        'load_dataset("glue", "mnli")', 'load_from_disk("/data/glue_mnli")')
    script = tmp_path / "train.py"
    script.write_text(text)
    r = case_from_script(script, versions=V457)
    assert r.case.dataset.path == "/data/glue_mnli" and r.case.dataset.config is None
    assert r.read["dataset.path"].line == 8 and r.complete


# -- a Trainer script ----------------------------------------------------------------------------
def test_trainer_script_is_read(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(TRAINER_SCRIPT.replace("NUM_LABELS", "2").replace("LR", "1e-3"))
    r = case_from_script(script, versions=V457)
    c, t = r.case, r.case.training
    assert r.entry == "trainer" and r.complete
    assert (c.framework, c.num_labels, c.dataset.eval_split) == ("pytorch", 2, "validation")
    assert (t.trainer, t.learning_rate, t.batch_size, t.epochs, t.mixed_precision) == (
        "trainer", 1e-3, 16, 1, "fp32")
    assert r.settings["compute_metrics"]["value"] == "compute_metrics"
    assert r.settings["data_collator"]["value"] == "DataCollatorWithPadding(tokenizer)"
    assert r.settings["TrainingArguments.warmup_ratio"]["value"] == 0.1
    assert (t.warmup_ratio, t.warmup_steps) == (0.1, None)    # read, so no "no warmup" warning
    assert r.settings["TrainingArguments.remove_unused_columns"] == {
        "value": True, "line": r.settings["TrainingArguments.remove_unused_columns"]["line"],
        "code": r.settings["TrainingArguments.remove_unused_columns"]["code"], "default": True}
    assert ids(r.findings, "fail") == ["hyperparameters.learning-rate-too-high"]
    assert one(r.findings, "hyperparameters.learning-rate-too-high").evidence["line"] == 24


@needs_torch
@pytest.mark.parametrize("num_labels,lr,faults", [
    ("2", "1e-3", ["data.labels-out-of-range", "hyperparameters.learning-rate-too-high"]),
    ("3", "5e-5", [])])
def test_trainer_script_read_then_checked(demo_dir, tmp_path, monkeypatch, num_labels, lr, faults):
    if "USE_TF" not in os.environ:
        monkeypatch.setenv("USE_TF", "0")
    script = tmp_path / "train.py"
    # the Hub ids replaced in the text by the local fixture folders
    script.write_text(TRAINER_SCRIPT.replace("NUM_LABELS", num_labels).replace("LR", lr)
                      .replace('"distilbert-base-uncased"', repr(str(demo_dir / "model")))
                      .replace('load_dataset("glue", "mnli")',
                               f'load_dataset({str(demo_dir / "dataset")!r})'))
    r = case_from_script(script)
    assert r.case.dataset.path == str(demo_dir / "dataset")
    r.case.dataset.path = str(demo_dir / "dataset")
    result = r.merge(_check_inline(r.case))
    assert ids(result.findings, "fail") == faults
    assert result.verdict.kind == ("user-error" if faults else "healthy")


# -- constant propagation and questions -----------------------------------------------------------
def test_constants_fstrings_and_argparse_defaults_are_resolved():
    r = read_script(textwrap.dedent('''\
        import argparse
        from transformers import (AutoModelForSequenceClassification, AutoTokenizer, Trainer,
                                  TrainingArguments)
        from datasets import load_dataset
        parser = argparse.ArgumentParser()
        parser.add_argument("--lr", type=float, default=3e-5)
        args = parser.parse_args()
        org, size = "my-org", "base"
        name = f"{org}/bert-{size}-uncased"
        BATCH = 8 * 2
        labels = ["neg", "pos"]
        model = AutoModelForSequenceClassification.from_pretrained(
            name, num_labels=len(labels))
        tok = AutoTokenizer.from_pretrained(name)
        ds = load_dataset("imdb").map(lambda ex: tok(ex["text"], truncation=True), batched=True)
        targs = TrainingArguments("out", learning_rate=args.lr, per_device_train_batch_size=BATCH)
        Trainer(model=model, args=targs, train_dataset=ds["train"]).train()
        '''))
    c = r.case
    assert c.model == "my-org/bert-base-uncased" and c.num_labels == 2
    assert c.training.learning_rate == pytest.approx(3e-5) and c.training.batch_size == 16
    assert any("`lr` was read from its default in the script" in n for n in r.notes)
    assert r.questions == []


def test_runtime_values_become_questions_with_their_line():
    src = textwrap.dedent('''\
        import sys
        from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments
        from datasets import load_dataset
        checkpoint = sys.argv[1]
        ds = load_dataset("imdb").map(lambda ex: tokenizer(ex["text"]), batched=True)
        names = ds["train"].features["label"].names
        model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=len(names))
        Trainer(model=model, args=TrainingArguments("o"), train_dataset=ds["train"]).train()
        ''')
    r = read_script(src, "train.py")
    q = {q.field: q for q in r.questions}
    assert set(q) == {"model", "num_labels"}
    assert q["model"].line == 4 and q["model"].code == "checkpoint = sys.argv[1]"
    assert q["num_labels"].line == 6
    assert "line 4" in q["model"].prompt and q["model"].prompt.startswith("Model:")
    assert not r.complete and one(r.findings, "script.read").status == "warn"
    with pytest.raises(CaseError, match=r"line 4: `checkpoint = sys.argv\[1\]`"):
        r.require_complete()
    answered = read_script(src, "train.py", answers={"model": "bert-base-uncased", "num_labels": 2})
    assert answered.questions == [] and answered.case.model == "bert-base-uncased"
    assert answered.complete


# -- unusual scripts --------------------------------------------------------------------------------
def test_syntax_error_is_one_sentence_with_the_line():
    with pytest.raises(ScriptError, match=r"syntax error at line 2 \(`model.fit\(`\)"):
        read_script("import os\nmodel.fit(\n", "train.py")


def test_missing_script_is_one_sentence(tmp_path):
    with pytest.raises(ScriptError, match="does not exist"):
        case_from_script(tmp_path / "nope.py")


def test_notebook_magics_are_skipped():
    r = read_script("!pip install transformers\n%time x = 1\n" + course_script_path().read_text())
    assert r.case.model == "distilbert-base-uncased"
    assert any("2 notebook line(s)" in n for n in r.notes)


def test_script_without_a_training_call_says_what_was_read():
    r = read_script(textwrap.dedent('''\
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
        from datasets import load_dataset
        tok = AutoTokenizer.from_pretrained("bert-base-cased")
        ds = load_dataset("imdb").map(lambda ex: tok(ex["text"], truncation=True), batched=True)
        model = AutoModelForSequenceClassification.from_pretrained("bert-base-cased")
        '''))
    assert r.entry == "none"
    assert r.case.model == "bert-base-cased" and r.case.dataset.text_columns == ["text"]
    assert "never calls fit(), Trainer.train() or optimizer.step()" in r.summary()
    assert one(r.findings, "script.read").status == "warn"


def test_custom_torch_loop_reads_optimizer_and_loader():
    r = read_script(textwrap.dedent('''\
        import torch
        from torch.utils.data import DataLoader
        from transformers import AutoModelForSequenceClassification
        from datasets import load_from_disk
        ds = load_from_disk("/data/d")
        model = AutoModelForSequenceClassification.from_pretrained("/models/m", num_labels=3)
        loader = DataLoader(ds["train"], batch_size=4, shuffle=True)
        optimizer = torch.optim.AdamW(model.parameters())
        for epoch in range(3):
            for batch in loader:
                loss = model(**batch).loss
                loss.backward()
                optimizer.step()
        '''), versions=V457)
    t = r.case.training
    assert r.entry == "loop" and (t.trainer, t.batch_size, t.epochs) == ("loop", 4, 3)
    assert t.optimizer == {"name": "AdamW"} and r.case.model == "/models/m"
    assert "custom training loop" in r.summary() and "was not" in r.summary()
    lr = one(r.findings, "hyperparameters.learning-rate-too-high")
    assert lr.status == "fail" and "torch.optim AdamW" in lr.evidence["source"]


_LOOP = """\
import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForSequenceClassification, get_scheduler
from datasets import load_from_disk
ds = load_from_disk("/data/d")
model = AutoModelForSequenceClassification.from_pretrained("/models/m", num_labels=3)
train_dataloader = DataLoader(ds["train"], batch_size=4, shuffle=True)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
num_epochs = {epochs}
scheduler = get_scheduler("linear", optimizer=optimizer, num_warmup_steps=0,
                          num_training_steps={steps})
for epoch in range(num_epochs):
    for batch in train_dataloader:
        loss = model(**batch).loss
        loss.backward()
        optimizer.step()
        scheduler.step()
{clear}
"""


def _loop(epochs: int = 3, steps: str = "num_epochs * len(train_dataloader)",
          clear: str = "        optimizer.zero_grad()"):
    return read_script(_LOOP.format(epochs=epochs, steps=steps, clear=clear), versions=V457)


def test_a_loop_that_never_clears_the_gradients():
    f = one(_loop(clear="").findings, "script.zero-grad-missing")
    assert f.status == "fail" and "optimizer.zero_grad()" in f.fix
    assert (f.evidence["line"], f.evidence["code"]) == (16, "optimizer.step()")
    for clear in ("        optimizer.zero_grad()", "        model.zero_grad()",
                  "        for p in model.parameters():\n            p.grad = None"):
        assert "script.zero-grad-missing" not in ids(_loop(clear=clear).findings), clear


def test_a_schedule_one_epoch_long_while_training_runs_several():
    f = one(_loop(steps="len(train_dataloader)").findings, "script.schedule-ends-early")
    assert f.status == "fail" and f.evidence["epochs"] == 3
    assert f.fix == "num_training_steps = num_epochs * len(train_dataloader)"
    # controls: the course's length, one epoch, and len() of the examples (not the batches)
    for kw in ({}, {"epochs": 1, "steps": "len(train_dataloader)"}, {"steps": 'len(ds["train"])'}):
        assert "script.schedule-ends-early" not in ids(_loop(**kw).findings), kw
    keras = keras_script(
        "import tf_keras\nfrom tf_keras.optimizers.schedules import PolynomialDecay\n"
        "tf_ds = ds.to_tf_dataset(columns=['input_ids'], label_cols=['label'], batch_size=8)\n"
        "schedule = PolynomialDecay(initial_learning_rate=5e-5, end_learning_rate={end}, "
        "decay_steps=len(tf_ds))\nmodel.compile(optimizer=tf_keras.optimizers.Adam(schedule))\n"
        "model.fit(tf_ds, epochs=3)\n")
    assert one(read_script(keras.format(end="0.0"), versions=V457).findings,
               "script.schedule-ends-early").status == "fail"
    # PolynomialDecay's end rate above the start is no decay
    assert "script.schedule-ends-early" not in ids(
        read_script(keras.format(end="1e-3"), versions=V457).findings)


def test_a_tf_data_pipeline_never_batched():
    script = (
        "import tensorflow as tf\nimport tf_keras\n"
        "from transformers import AutoTokenizer, TFAutoModelForSequenceClassification\n"
        "tokenizer = AutoTokenizer.from_pretrained('bert')\n"
        "enc = tokenizer(texts, truncation=True, padding=True)\n"
        "train = tf.data.Dataset.from_tensor_slices((dict(enc), labels)){tail}\n"
        "model = TFAutoModelForSequenceClassification.from_pretrained('bert', num_labels=2)\n"
        "model.compile(optimizer=tf_keras.optimizers.Adam(5e-5))\nmodel.fit(train, epochs=2)\n")
    f = one(read_script(script.format(tail=".shuffle(100)"), versions=V457).findings,
            "script.tf-dataset-not-batched")
    assert f.status == "fail" and f.evidence["line"] == 6 and f.fix.endswith(".batch(16)")
    for tail in (".shuffle(100).batch(16)", ".batch(8).prefetch(1)"):
        assert "script.tf-dataset-not-batched" not in ids(
            read_script(script.format(tail=tail), versions=V457).findings), tail
    plain = read_script(script.format(tail=".batch(8)"), versions=V457).case
    assert plain.training.one_hot_labels is False
    encoded = read_script(script.format(
        tail=".map(lambda x, y: (x, tf.one_hot(y, 2))).batch(8)"), versions=V457).case
    assert encoded.training.one_hot_labels is True


def test_gradient_tape_loop_and_in_memory_dataset():
    r = read_script(textwrap.dedent('''\
        import tensorflow as tf
        from datasets import Dataset
        from transformers import TFAutoModelForSequenceClassification
        ds = Dataset.from_dict({"text": ["a"], "label": [0]})
        model = TFAutoModelForSequenceClassification.from_pretrained("bert")
        with tf.GradientTape() as tape:
            out = model(ds)
        '''))
    assert "tf.GradientTape" in r.summary()
    q = {q.field: q for q in r.questions}
    assert q["dataset.path"].line == 4 and "built in the script" in q["dataset.path"].reason


# -- static checks: faulty and healthy --------------------------------------------------------------
def test_no_truncation_fires_and_stays_quiet():
    bad = read_script(keras_script('model.compile(optimizer="adam")\nmodel.fit(ds)\n').replace(
        "truncation=True", "padding=True"), versions=V457)
    f = one(bad.findings, "script.no-truncation")
    assert f.status == "warn" and f.evidence["line"] == 6 and "truncation=True" in f.fix
    good = read_script(keras_script('model.compile(optimizer="adam")\nmodel.fit(ds)\n'), versions=V457)
    assert "script.no-truncation" not in ids(good.findings)


def test_from_logits_against_the_head():
    body = '''\
        train = ds["train"].to_tf_dataset(columns=["input_ids"], label_cols=["label"], batch_size=8)
        model.compile(optimizer="adam", loss=LOSS)
        model.fit(train)
        '''
    bad = read_script(keras_script(body.replace("LOSS", '"sparse_categorical_crossentropy"')),
                      versions=V457)
    f = one(bad.findings, "script.from-logits-mismatch")
    assert f.status == "fail" and f.evidence["line"] == 10 and "from_logits=True" in f.fix
    assert bad.case.training.labels == "separate"
    assert "data.labels-in-inputs-with-keras-loss" not in ids(bad.findings)
    explicit = read_script(keras_script(body.replace(
        "LOSS", "tf.keras.losses.SparseCategoricalCrossentropy(from_logits=False)")), versions=V457)
    assert one(explicit.findings, "script.from-logits-mismatch").evidence["from_logits"] is False
    good = read_script(keras_script(body.replace(
        "LOSS", "tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True)")), versions=V457)
    assert "script.from-logits-mismatch" not in ids(good.findings)
    assert good.case.training.from_logits is True
    softmax = read_script(textwrap.dedent('''\
        import tf_keras
        from transformers import TFAutoModel
        from datasets import load_from_disk
        ds = load_from_disk("d")
        base = TFAutoModel.from_pretrained("bert")
        inputs = tf_keras.Input(shape=(None,), dtype="int32")
        outputs = tf_keras.layers.Dense(3, activation="softmax")(base(inputs)[0][:, 0])
        model = tf_keras.Model(inputs, outputs)
        train = ds["train"].to_tf_dataset(columns=["input_ids"], label_cols=["label"])
        model.compile(optimizer="adam",
                      loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(train)
        '''), versions=V457)
    f = one(softmax.findings, "script.from-logits-mismatch")
    assert f.evidence["head_line"] == 7 and "softmax" in f.title


def test_labels_in_columns_with_a_loss_fires_and_stays_quiet():
    body = '''\
        train = ds["train"].to_tf_dataset(columns=["input_ids", "label"], batch_size=8)
        model.compile(optimizer="adam"LOSS)
        model.fit(train)
        '''
    bad = read_script(keras_script(body.replace("LOSS", ', loss="sparse_categorical_crossentropy"')),
                      versions=V457)
    assert one(bad.findings, "data.labels-in-inputs-with-keras-loss").evidence["line"] == 9
    good = read_script(keras_script(body.replace("LOSS", "")), versions=V457)
    assert "data.labels-in-inputs-with-keras-loss" not in ids(good.findings)
    assert good.case.training.loss is None and good.case.training.labels == "inputs"


@pytest.mark.parametrize("imports,optimizer,environ,versions,status", [
    ("from tensorflow.keras.optimizers import Adam", "Adam(5e-5)", {}, V457, "fail"),
    ("from tensorflow.keras.optimizers import Adam", "Adam(5e-5)", {"TF_USE_LEGACY_KERAS": "1"},
     V457, None),
    ("import tensorflow as tf", "tf.keras.optimizers.Adam(learning_rate=5e-5)", {}, V457, "fail"),
    ("import tensorflow as tf", "tf.keras.optimizers.Adam(5e-5)", {},
     {**V457, "tensorflow": "2.15.1"}, None),
    ("import tensorflow as tf", "tf.keras.optimizers.Adam(5e-5)", {}, {**V457, "tensorflow": None},
     "warn"),
    ("import keras", "keras.optimizers.Adam(5e-5)", {"TF_USE_LEGACY_KERAS": "1"}, V457, "fail"),
    ("import tf_keras", "tf_keras.optimizers.Adam(5e-5)", {}, V457, None),
])
def test_keras3_objects_handed_to_a_tf_keras_model(imports, optimizer, environ, versions, status):
    src = keras_script(f'{imports}\nmodel.compile(optimizer={optimizer})\nmodel.fit(ds)\n')
    r = read_script(src, environ=environ, versions=versions)
    found = [f for f in r.findings if f.id == "script.keras3-with-tf-keras"]
    assert [f.status for f in found] == ([status] if status else [])
    if status:
        assert found[0].evidence["line"] == 10 and "tf_keras.optimizers.Adam" in found[0].fix
    assert r.case.training.optimizer == {"name": "Adam", "learning_rate": 5e-5}


def test_keras3_flag_set_inside_the_script_is_seen():
    src = 'import os\nos.environ["TF_USE_LEGACY_KERAS"] = "1"\n' + keras_script(
        "from tensorflow.keras.optimizers import Adam\nmodel.compile(optimizer=Adam(5e-5))\n"
        "model.fit(ds)\n")
    assert "script.keras3-with-tf-keras" not in ids(read_script(src, environ={}, versions=V457).findings)


@pytest.mark.parametrize("compile_opt,lr,status,source", [
    ('"adam"', 1e-3, "fail", "the default of Keras adam"),
    ("tf_keras.optimizers.Adam()", 1e-3, "fail", "no learning rate given"),
    ("tf_keras.optimizers.Adam(learning_rate=5e-5)", 5e-5, "pass", "Adam(learning_rate=...)"),
    ("tf_keras.optimizers.Adam(2e-4)", 2e-4, "warn", "Adam(learning_rate=...)"),
    ("opt", 2e-5, "pass", "PolynomialDecay schedule"),
    ('"sgd"', 0.01, "pass", "the default of Keras sgd"),   # SGD: judged by its own range
    ("tf_keras.optimizers.SGD(learning_rate=3.0)", 3.0, "fail", "SGD(learning_rate=...)"),
])
def test_static_learning_rate(compile_opt, lr, status, source):
    body = ("import tf_keras\nsched = tf_keras.optimizers.schedules.PolynomialDecay("
            "initial_learning_rate=2e-5, decay_steps=100)\nopt = tf_keras.optimizers.Adam(sched)\n"
            f"model.compile(optimizer={compile_opt})\nmodel.fit(ds)\n")
    r = read_script(keras_script(body), versions=V457)
    found = [f for f in r.findings if f.id == "hyperparameters.learning-rate-too-high"]
    assert found[0].status == status and found[0].evidence["learning_rate"] == pytest.approx(lr)
    assert source in found[0].evidence["source"]


def test_combine_keeps_the_run_and_the_script_line():
    from wizard.core.findings import Finding

    static = [Finding("script.read", "info", "read"),
              Finding("hyperparameters.learning-rate-too-high", "fail", "s",
                      evidence={"line": 30, "code": "adam"}),
              Finding("script.no-truncation", "warn", "t", evidence={"line": 15})]
    dynamic = [Finding("hyperparameters.learning-rate-too-high", "fail", "d", evidence={})]
    out = combine_findings(static, dynamic)
    assert [f.title for f in out] == ["read", "t", "d"]
    assert out[2].evidence["script"] == {"line": 30, "code": "adam"}


# -- the default tables against the installed frameworks ------------------------------------------
@needs_torch
def test_torch_default_learning_rates_match_torch():
    import torch

    for name, lr in TORCH_DEFAULT_LR.items():
        cls = next(getattr(torch.optim, n) for n in dir(torch.optim) if n.lower() == name)
        assert inspect.signature(cls).parameters["lr"].default == pytest.approx(lr), name


@needs_tf
def test_keras_default_learning_rates_match_tf_keras():
    import tf_keras

    for name, lr in KERAS_DEFAULT_LR.items():
        if name == "adamweightdecay":
            continue
        assert float(tf_keras.optimizers.get(name).learning_rate) == pytest.approx(lr), name


def test_reading_imports_no_framework():
    import subprocess
    import sys

    code = ("import sys; from wizard.script.reader import case_from_script, course_script_path; "
            "case_from_script(course_script_path()); "
            "print(sorted(m for m in ('torch', 'tensorflow', 'transformers', 'datasets') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1], timeout=120)
    assert out.stdout.strip() == "[]", out.stderr[-2000:]


@pytest.mark.parametrize("freeze_code", [
    "model.distilbert.trainable = False\n",
    "model.distilbert.requires_grad_(False)\n",
    "for p in model.distilbert.parameters():\n    p.requires_grad = False\n",
])
def test_freezing_in_a_script_is_read(freeze_code):
    src = TRAINER_SCRIPT.replace("trainer.train()", freeze_code + "trainer.train()")
    r = read_script(src.replace("NUM_LABELS", "3").replace("LR", "5e-5"))
    assert r.case.freeze == ["distilbert"]
    assert read_script(TRAINER_SCRIPT.replace("NUM_LABELS", "3")
                       .replace("LR", "5e-5")).case.freeze == []  # nothing frozen: nothing read


@needs_torch
def test_a_body_frozen_in_the_script_is_found_by_the_checks(demo_dir, tmp_path, monkeypatch):
    """`check --script` of a Trainer script that freezes the body, with a loss that will not
    go down: the frozen body is named (it used to blame something else)."""
    if "USE_TF" not in os.environ:
        monkeypatch.setenv("USE_TF", "0")
    script = tmp_path / "train.py"
    script.write_text(TRAINER_SCRIPT.replace("NUM_LABELS", "3").replace("LR", "5e-5")
                      .replace("trainer.train()", "for p in model.distilbert.parameters():\n"
                                                  "    p.requires_grad = False\ntrainer.train()")
                      .replace('"distilbert-base-uncased"', repr(str(demo_dir / "model")))
                      .replace('load_dataset("glue", "mnli")',
                               f'load_dataset({str(demo_dir / "dataset")!r})'))
    r = case_from_script(script)
    r.case.symptom = "loss-not-decreasing"
    result = r.merge(_check_inline(r.case))
    frozen = one(result.findings, "model.frozen-parameters")
    assert frozen.status == "fail" and "distilbert" in frozen.fix  # head alone at 5e-5
    assert result.verdict.primary == "model.frozen-parameters"


@needs_torch
def test_from_pretrained_arguments_are_read_and_applied(demo_dir, monkeypatch):
    """torch_dtype, attn_implementation (and quantization, kept as written) reach the case;
    the checks load the model with the dtype the script asks for."""
    if "USE_TF" not in os.environ:
        monkeypatch.setenv("USE_TF", "0")
    from wizard.context import Context

    src = (TRAINER_SCRIPT.replace("NUM_LABELS", "3").replace("LR", "5e-5")
           .replace("num_labels=3)", "num_labels=3, torch_dtype=torch.bfloat16,\n"
                    "    attn_implementation='eager', ignore_mismatched_sizes=True,\n"
                    "    quantization_config=BitsAndBytesConfig(load_in_4bit=True))"))
    case = read_script("import torch\n" + src).case
    assert case.load_args == {"torch_dtype": "torch.bfloat16", "attn_implementation": "eager",
                              "quantization_config": "BitsAndBytesConfig(load_in_4bit=True)"}
    assert case.ignore_mismatched_sizes is True
    case.model = str(demo_dir / "model")
    import torch

    assert Context(case, device="cpu").model.dtype == torch.bfloat16


def test_fixes_are_written_with_the_scripts_own_names():
    """A Keras script that calls its tokenized dataset `ds`, loads "bert" and has no collator:
    the fixes use `ds`, its checkpoint and batch size, and define the collator they need."""
    from wizard.core.findings import Finding
    from wizard.script.fixes import fit_fix

    r = read_script(keras_script('tf_ds = ds["train"].to_tf_dataset(columns=["input_ids", '
                                 '"attention_mask", "label"], batch_size=8)\n'
                                 'model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")\n'
                                 'model.fit(tf_ds)\n'))
    assert r.names.tokenized == "ds" and r.names.checkpoint == "'bert'"
    assert r.names.collator is None and r.names.tokenizer == "tokenizer"
    fix = ('train_dataset = tokenized_datasets["train"].to_tf_dataset(\n'
           '    columns=["input_ids", "attention_mask"], label_cols=["labels"],\n'
           '    batch_size=16, shuffle=True, collate_fn=data_collator)\n'
           "model = TFAutoModelForSequenceClassification.from_pretrained(model_checkpoint)")
    fitted = fit_fix(fix, r.names, 8)
    assert 'ds["train"]' in fitted and "tokenized_datasets" not in fitted
    assert "from_pretrained('bert')" in fitted and "batch_size=8" in fitted
    assert fitted.startswith("data_collator = DataCollatorWithPadding(tokenizer")
    compile(fitted, "<fix>", "exec")  # the fix still runs as shown
    result = type("R", (), {"findings": [Finding("data.ragged-batch", "fail", "t", fix=fix)],
                            "case": r.case, "verdict": None})()
    r.case.validate = lambda: None
    merged = r.merge(result)
    assert 'ds["train"]' in merged.findings[-1].fix


def test_the_apps_pasted_script_fixes_use_its_names(demo_dir):
    """The app keeps a pasted script's names beside its findings and writes the run's fixes
    with them, as check --script does."""
    from wizard.core.findings import Finding, Verdict
    from wizard.demo.cases import healthy_case
    from wizard.engine.session import Result
    from wizard.frontends.app.run import merge_static_findings

    case = healthy_case(demo_dir, "pytorch")
    fix = 'DataLoader(tokenized_datasets["train"], batch_size=16, collate_fn=data_collator)'
    result = Result(case, {}, "cpu", [], [Finding("data.ragged-batch", "fail", "t", fix=fix)],
                    Verdict("user-error", "data.ragged-batch", "t")).to_dict()
    merged = merge_static_findings(result, [], {"tokenized": "ds", "collator": "collate"})
    assert merged["findings"][0]["fix"] == (f'DataLoader(ds["train"], batch_size='
                                            f'{case.training.batch_size}, collate_fn=collate)')


def _trainer_script(old: str = "", new: str = "") -> str:
    return TRAINER_SCRIPT.replace("NUM_LABELS", "3").replace("LR", "5e-5").replace(old, new)


def test_pad_token_and_config_values_are_read():
    """`tokenizer.pad_token = tokenizer.eos_token` and `model.config.pad_token_id = ...` reach
    the case, so the checks pad as the script does."""
    case = read_script(_trainer_script(
        "trainer.train()", "tokenizer.pad_token = tokenizer.eos_token\n"
        "model.config.pad_token_id = tokenizer.pad_token_id\ntrainer.train()")).case
    assert case.preprocessing.pad_token == "eos_token"
    assert case.model_config == {"pad_token_id": "pad_token_id"}
    case = read_script(_trainer_script(
        "trainer.train()", "tokenizer.pad_token = '[PAD]'\ntrainer.train()")).case
    assert case.preprocessing.pad_token == "[PAD]" and case.model_config == {}
    case = read_script(_trainer_script("num_labels=3)",
                                       "num_labels=3, pad_token_id=tokenizer.eos_token_id)")).case
    assert case.model_config == {"pad_token_id": "eos_token_id"}
    plain = read_script(_trainer_script()).case
    assert plain.preprocessing.pad_token is None and plain.model_config == {}


def test_a_trainer_keeping_every_column_is_read():
    script = _trainer_script()
    args = script[script.index("TrainingArguments("):].split(")", 1)[0]
    keeps = read_script(script.replace(args, args + ", remove_unused_columns=False")).case
    assert keeps.training.remove_unused_columns is False
    assert read_script(script).case.training.remove_unused_columns is True


def test_a_tokenizer_from_another_checkpoint_is_read():
    src = _trainer_script('AutoTokenizer.from_pretrained(checkpoint)',
                          'AutoTokenizer.from_pretrained("bert-base-uncased")')
    assert read_script(src).case.tokenizer == "bert-base-uncased"
    assert read_script(_trainer_script()).case.tokenizer is None  # the model's own


def test_compute_metrics_source_is_read():
    case = read_script(_trainer_script()).case
    assert case.training.compute_metrics.startswith("def compute_metrics(eval_pred):")
    assert "np.argmax(logits, -1)" in case.training.compute_metrics


def test_no_padding_collator_means_unpadded_batches():
    """Trainer without a collator or tokenizer (default_data_collator), and a DataLoader without
    collate_fn, stack the rows as tokenized: padding none, so the ragged-batch check judges."""
    bare = _trainer_script("                  data_collator=DataCollatorWithPadding(tokenizer),\n", "")
    assert read_script(bare).case.preprocessing.padding == "none"
    assert read_script(_trainer_script()).case.preprocessing.padding == "dynamic"
    padded = bare.replace("truncation=True)", "truncation=True, padding='max_length')")
    assert read_script(padded).case.preprocessing.padding == "max_length"
    with_tok = bare.replace("eval_dataset=tokenized", "processing_class=tokenizer, "
                                                      "eval_dataset=tokenized")
    assert read_script(with_tok).case.preprocessing.padding == "dynamic"


_HOOK = '''\
from transformers import Trainer, TrainingArguments


class WeightedLossTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False{extra}):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        return outputs.loss


trainer = WeightedLossTrainer(model=model, args=TrainingArguments("out"), train_dataset=ds)
trainer.train()
'''


def test_a_trainer_hook_overridden_with_the_signature_before_4_46():
    def hook(extra: str, transformers: str) -> list:
        reading = read_script(_HOOK.format(extra=extra), versions={"transformers": transformers})
        return [f for f in reading.findings if f.id == "script.trainer-hook-signature"]

    found = hook("", "4.57.6")
    assert len(found) == 1 and found[0].status == "fail"
    assert found[0].evidence["line"] == 5 and found[0].evidence["argument"] == "num_items_in_batch"
    assert "num_items_in_batch=None" in found[0].fix
    # controls: the argument taken, **kwargs, or a release that does not pass it yet
    assert hook(", num_items_in_batch=None", "4.57.6") == []
    assert hook(", **kwargs", "4.57.6") == []
    assert hook("", "4.45.2") == []


_TOKENS = '''\
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("gpt2")
model = AutoModelForCausalLM.from_pretrained("gpt2")
tokenizer.add_special_tokens({added})
model.resize_token_embeddings(len(tokenizer))
model = get_peft_model(model, LoraConfig(r=8, target_modules=["c_attn"]{saved}))
'''


def test_tokens_added_under_a_lora_adapter_that_leaves_the_embeddings_frozen():
    def found(added: str, saved: str = "") -> list:
        reading = read_script(_TOKENS.format(added=added, saved=saved))
        return [f for f in reading.findings if f.id == "script.adapter-new-tokens-frozen"]

    chat = '{"additional_special_tokens": ["<|im_start|>", "<|im_end|>"]}'
    [frozen] = found(chat)
    assert frozen.status == "fail" and frozen.evidence["line"] == 6
    assert "modules_to_save" in frozen.fix
    # controls: the embeddings trained, or only a pad token added (masked out of the loss)
    assert found(chat, ', modules_to_save=["wte", "lm_head"]') == []
    assert found(chat, ", trainable_token_indices=[50257, 50258]") == []
    assert found('{"pad_token": "<pad>"}') == []


_FLOAT_LABELS = '''\
import torch
from torch.utils.data import DataLoader, TensorDataset
from datasets import load_from_disk
from transformers import AutoModelForSequenceClassification, AutoTokenizer

raw = load_from_disk("data")
tokenizer = AutoTokenizer.from_pretrained("bert")


def encode(split):
    texts, labels = list(raw[split]["text"]), list(raw[split]["label"])
    enc = tokenizer(texts, truncation=True, padding="max_length", max_length=48, return_tensors="pt")
    return TensorDataset(enc["input_ids"], enc["attention_mask"], {cast})


loader = DataLoader(encode("train"), batch_size=16, shuffle=True)
model = AutoModelForSequenceClassification.from_pretrained("bert", num_labels=2)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
for epoch in range(2):
    for input_ids, attention_mask, labels in loader:
        loss = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
'''


def test_labels_cast_to_float_by_the_script_and_columns_read_through_a_list():
    case = read_script(_FLOAT_LABELS.format(
        cast="torch.tensor(labels, dtype=torch.float32)")).case
    assert case.training.float_labels is True
    # the text column read through `texts, labels = list(raw[split]["text"]), ...`
    assert case.dataset.text_columns == ["text"]
    # controls: class ids kept as integers; a float cast that feeds the script's own loss
    assert read_script(_FLOAT_LABELS.format(cast="torch.tensor(labels)")
                       ).case.training.float_labels is False
    own_loss = _FLOAT_LABELS.format(cast="torch.tensor(labels)").replace(
        "labels=labels).loss", "labels=None).logits\n        loss = loss_fn(loss, labels.float())")
    assert read_script(own_loss).case.training.float_labels is False


_GENERATE = '''\
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("gpt2"{side})
model = AutoModelForCausalLM.from_pretrained("gpt2")
{assign}
for start in range(0, len(prompts), 16):
    inputs = tokenizer(prompts[start:start + 16], padding={padding}, return_tensors="pt").to("cpu")
    with torch.no_grad():
        out = model.generate(**inputs, max_new_tokens=8)
'''


def test_batched_generation_on_prompts_padded_on_the_right():
    def found(side: str = "", assign: str = "", padding: str = "True") -> list:
        reading = read_script(_GENERATE.format(side=side, assign=assign, padding=padding))
        return [f for f in reading.findings if f.id == "script.generate-right-padding"]

    [right] = found()
    assert right.status == "fail" and right.evidence["line"] == 10
    assert 'padding_side = "left"' in right.fix
    # controls: padded on the left (either way of saying it), or not padded at all
    assert found(assign='tokenizer.padding_side = "left"') == []
    assert found(side=', padding_side="left"') == []
    assert found(padding="False") == []


_H5 = '''\
import tensorflow as tf
from transformers import TFAutoModelForSequenceClassification

model = TFAutoModelForSequenceClassification.from_pretrained("distilbert-base-uncased",
                                                             num_labels=2)
model.compile(optimizer=tf.keras.optimizers.Adam(3e-5))
model.fit(train_set, validation_data=val_set, epochs=2,
          callbacks=[tf.keras.callbacks.ModelCheckpoint({checkpoint})])
'''


def test_a_transformers_tf_model_saved_whole_to_hdf5():
    def found(checkpoint: str) -> list:
        reading = read_script(_H5.format(checkpoint=checkpoint), versions=V457)
        return [f for f in reading.findings if f.id == "script.keras-h5-whole-model"]

    [whole] = found('"best_model.h5", save_best_only=True')
    assert whole.status == "fail" and whole.evidence["line"] == 8
    assert "save_weights_only=True" in whole.fix
    # controls: the weights only, or the TensorFlow SavedModel format
    assert found('"best.weights.h5", save_weights_only=True') == []
    assert found('"best_model", save_best_only=True') == []


def test_a_literal_id2label_given_to_from_pretrained_reaches_the_config():
    script = ("from transformers import AutoModelForSequenceClassification\n"
              "id2label = {0: 'NEGATIVE', 1: 'POSITIVE'}\n"
              "model = AutoModelForSequenceClassification.from_pretrained('bert', num_labels=4, "
              "id2label=id2label, label2id={'NEGATIVE': 0, 'POSITIVE': 1})\n")
    case = read_script(script).case
    assert case.num_labels == 4
    assert case.model_config["id2label"] == {0: "NEGATIVE", 1: "POSITIVE"}
    assert case.model_config["label2id"] == {"NEGATIVE": 0, "POSITIVE": 1}
    # control: a mapping built at run time stays a setting only
    built = script.replace("id2label = {0: 'NEGATIVE', 1: 'POSITIVE'}",
                           "id2label = {i: n for i, n in enumerate(names)}")
    assert "id2label" not in read_script(built).case.model_config
