"""Token classification on a tiny local DistilBERT whose WordPiece splits words into subwords:
a healthy case file comes out healthy; labels not re-aligned with word_ids and tags beyond the
head are found; the script reader tells the alignment apart."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_torch
from tests.helpers import check_case, finding
from wizard.core.case import Case

pytestmark = needs_torch


@pytest.fixture(scope="module")
def fx(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from tests.lm_fixtures import build_ner

    return build_ner(tmp_path_factory.mktemp("ner"))


def ner_case(fx: dict[str, Path], **over) -> Case:
    data = {"model": str(fx["model"]), "task": "token-classification", "num_labels": 4,
            "dataset": {"path": str(fx["data"]), "text_columns": ["tokens"],
                        "label_column": "ner_tags"},
            "training": {"learning_rate": 5e-5, "batch_size": 8, "trainer": "trainer"},
            "symptom": "none"}
    for key, value in over.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) and key in data else value
    return Case.from_dict(data)


def token_labels(case: Case) -> dict[str, object]:
    from wizard.checks.token_cls import probe_token_labels
    from wizard.context import Context

    return {f.id: f for f in probe_token_labels(case, Context(case, device="cpu"))}


def test_healthy_token_classification_case_file_is_healthy(fx, tmp_path):
    _, out = check_case(ner_case(fx), tmp_path)
    assert out["verdict"]["kind"] == "healthy", out["verdict"]
    ok = finding(out, "data.token-labels")
    assert ok["status"] == "pass" and ok["evidence"]["wrong_word_label"] == 0
    assert ok["evidence"]["special_tokens_labelled"] == 0
    assert finding(out, "model.forward")["status"] == "pass"
    assert all(f["status"] != "error" for f in out["findings"])
    skipped = {f["evidence"]["probe"] for f in out["findings"] if f["id"] == "wizard.not-for-task"}
    assert {"label-column", "metrics"} <= skipped
    # the first batch shows each example's own token labels, not the batch's padding
    shown = finding(out, "data.batch-structure")["evidence"]["examples"]
    width = finding(out, "data.batch-structure")["evidence"]["inputs"]["input_ids"]["shape"][1]
    assert any(len(e["label"]) < width for e in shown), (width, shown)
    assert all(len(e["label"]) <= 33 and e["label"][0] == -100 for e in shown)  # [CLS] first


def test_word_labels_not_aligned_with_the_subwords(fx):
    found = token_labels(ner_case(fx, preprocessing={"token_labels": "none"}))
    bad = found["data.token-labels-misaligned"]
    assert bad.status == "fail" and bad.evidence["special_tokens_labelled"] > 0
    assert bad.evidence["wrong_word_label"] > 0 and "word_ids" in bad.fix


def test_a_word_the_tokenizer_does_not_know_keeps_its_tag(fx, tmp_path):
    """[UNK] stands for a real word: its tag is no special token labelled."""
    from datasets import ClassLabel, Dataset, DatasetDict, Features, Sequence, Value

    from tests.lm_fixtures import NER_TAGS

    features = Features({"tokens": Sequence(Value("string")),
                         "ner_tags": Sequence(ClassLabel(names=NER_TAGS))})
    rows = {"tokens": [["annabel", "smith", "lives", "in", "qxqj"]] * 4,
            "ner_tags": [[1, 2, 0, 0, 3]] * 4}
    DatasetDict({"train": Dataset.from_dict(rows, features=features)}).save_to_disk(
        str(tmp_path / "unk"))
    found = token_labels(ner_case(fx, dataset={"path": str(tmp_path / "unk"), "eval_split": None}))
    ok = found["data.token-labels"]
    assert "[UNK]|3" in ok.evidence["example_row"]
    assert ok.status == "pass" and ok.evidence["special_tokens_labelled"] == 0


def test_label_all_tokens_is_aligned_too(fx):
    found = token_labels(ner_case(fx, preprocessing={"token_labels": "all-subwords"}))
    ok = found["data.token-labels"]
    assert ok.status == "pass" and ok.evidence["continuation_subwords_labelled"] > 0


def test_tags_beyond_the_head(fx):
    found = token_labels(ner_case(fx, num_labels=3))
    bad = found["data.token-labels-out-of-range"]
    assert bad.status == "fail" and bad.evidence["highest_tag"] == 3 and "num_labels=4" in bad.fix


ALIGNED = '''\
from datasets import load_from_disk
from transformers import AutoModelForTokenClassification, AutoTokenizer, Trainer, TrainingArguments

raw = load_from_disk("DATA")
tokenizer = AutoTokenizer.from_pretrained("MODEL")


def tokenize_and_align(examples):
    tokenized = tokenizer(examples["tokens"], truncation=True, is_split_into_words=True)
    labels = []
    for i, tags in enumerate(examples["ner_tags"]):
        previous, row = None, []
        for w in tokenized.word_ids(i):
            row.append(-100 if w is None or w == previous else tags[w])
            previous = w
        labels.append(row)
    tokenized["labels"] = labels
    return tokenized


data = raw.map(tokenize_and_align, batched=True)
model = AutoModelForTokenClassification.from_pretrained("MODEL", num_labels=4)
trainer = Trainer(model=model, args=TrainingArguments("out"), train_dataset=data["train"])
trainer.train()
'''
UNALIGNED = ALIGNED.replace('''    labels = []
    for i, tags in enumerate(examples["ner_tags"]):
        previous, row = None, []
        for w in tokenized.word_ids(i):
            row.append(-100 if w is None or w == previous else tags[w])
            previous = w
        labels.append(row)
    tokenized["labels"] = labels''', '''    tokenized["labels"] = examples["ner_tags"]''')


@pytest.mark.parametrize("script, how", [(ALIGNED, "first-subword"), (UNALIGNED, "none")],
                         ids=["word_ids", "as-is"])
def test_script_reader_reads_the_alignment(fx, script, how):
    from wizard.script.reader import read_script

    text = script.replace("DATA", str(fx["data"])).replace("MODEL", str(fx["model"]))
    case = read_script(text, "ner.py").case
    assert case.task == "token-classification"
    assert case.preprocessing.token_labels == how
    assert case.dataset.text_columns == ["tokens"]


COURSE_LABELS = ALIGNED.replace(
    'tokenizer = AutoTokenizer.from_pretrained("MODEL")',
    'tokenizer = AutoTokenizer.from_pretrained("MODEL")\n'
    'label_names = raw["train"].features["ner_tags"].feature.names\n'
    'id2label = {i: name for i, name in enumerate(label_names)}').replace(
    'from_pretrained("MODEL", num_labels=4)', 'from_pretrained("MODEL", id2label=id2label)')


@pytest.mark.parametrize("how", ["id2label", "len"])
def test_num_labels_from_the_datasets_class_names(fx, tmp_path, how):
    """The course's `label_names = ...features["ner_tags"].feature.names` is counted from the
    saved dataset's features; a Hub dataset's stays a question."""
    from wizard.script.reader import read_script

    script = COURSE_LABELS if how == "id2label" else COURSE_LABELS.replace(
        "id2label=id2label", "num_labels=len(label_names)")
    local = read_script(script.replace("DATA", str(fx["data"])).replace("MODEL", str(fx["model"])))
    assert local.case.num_labels == 4 and not local.questions
    assert "num_labels" in local.read
    # the label rows are appended in a loop over examples["ner_tags"]: that is the label column
    assert local.case.dataset.label_column == "ner_tags"
    hub = read_script(script.replace('load_from_disk("DATA")', 'load_dataset("conll2003")')
                      .replace("load_from_disk", "load_dataset").replace("MODEL", str(fx["model"])))
    assert [q.field for q in hub.questions] == ["num_labels"]


def test_the_tree_asks_a_token_classifier_how_its_labels_are_aligned(fx):
    from wizard.engine.plan import QuestionWalk

    walk = QuestionWalk(Case())
    answers = {"symptom": "none", "framework": "pytorch", "model": str(fx["model"]),
               "task": "token-classification", "num_labels": 4, "dataset": str(fx["data"]),
               "dataset_config": None, "text_columns": ["tokens"], "label_column": "ner_tags",
               "token_labels": "first-subword", "trainer": "trainer", "optimizer": "adamw",
               "learning_rate": 5e-5, "batch_size": 8, "logs": None}
    asked = []
    while not walk.done:
        asked.append(walk.current().id)
        walk.answer(answers[asked[-1]])
    assert {"task", "token_labels", "label_column"} <= set(asked)
    assert "lm_labels" not in asked
    walk.case.validate()


@pytest.mark.parametrize("script, fault", [(ALIGNED, None),
                                           (UNALIGNED, "data.token-labels-misaligned")],
                         ids=["word_ids", "as-is"])
def test_wizard_run_checks_a_token_classification_trainer(fx, tmp_path, script, fault):
    from wizard.live.run import run_instrumented

    path = tmp_path / "ner.py"
    path.write_text(
        script.replace("DATA", str(fx["data"])).replace("MODEL", str(fx["model"]))
        .replace("Trainer, TrainingArguments",
                 "DataCollatorForTokenClassification, Trainer, TrainingArguments")
        .replace('TrainingArguments("out")',
                 f'TrainingArguments("{tmp_path / "o"}", report_to=[], use_cpu=True, '
                 'save_strategy="no", per_device_train_batch_size=8)')
        .replace('train_dataset=data["train"])', 'train_dataset=data["train"], '
                 'data_collator=DataCollatorForTokenClassification(tokenizer))'))
    result = run_instrumented(path, steps=2).result
    assert result.case.task == "token-classification"
    if fault:
        assert result.verdict.primary == fault
    else:
        assert result.verdict.kind == "healthy", result.verdict
        assert any(f.id == "data.token-labels" and f.status == "pass" for f in result.findings)


COUNTS_ALL = ('def compute_metrics(eval_pred):\n    logits, labels = eval_pred\n'
              '    predictions = np.argmax(logits, axis=-1)\n'
              '    return {"accuracy": float((predictions == labels).mean())}\n')
COUNTS_LABELLED = ('def compute_metrics(eval_pred):\n    logits, labels = eval_pred\n'
                   '    predictions = np.argmax(logits, axis=-1)\n    kept = labels != -100\n'
                   '    return {"accuracy": float((predictions[kept] == labels[kept]).mean())}\n')


def test_a_token_accuracy_that_counts_the_ignored_positions(fx):
    from wizard.checks.metrics_tokens import probe_token_metrics
    from wizard.context import Context

    def judged(source: str):
        case = ner_case(fx, training={"compute_metrics": source})
        return probe_token_metrics(case, Context(case, device="cpu"))

    [counts_all] = judged(COUNTS_ALL)
    assert counts_all.id == "metrics.value-disagrees" and counts_all.status == "fail"
    ev = counts_all.evidence
    assert ev["result"]["accuracy"] == pytest.approx(ev["accuracy_on_every_position"], abs=1e-3)
    assert ev["labelled_share"] < 1 and "labels != -100" in counts_all.fix
    # control: the function that skips -100 agrees with the labelled positions
    [right] = judged(COUNTS_LABELLED)
    assert right.status == "pass"
    # no compute_metrics: nothing to judge
    case = ner_case(fx)
    assert probe_token_metrics(case, Context(case, device="cpu")) == []
