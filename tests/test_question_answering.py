"""Extractive QA on a tiny local DistilBERT: a healthy case file and script (windows with a
stride, positions from offsets) come out healthy; character positions used as token positions
and answers lost to truncation without a stride are found."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_torch
from tests.helpers import check_case, finding
from wizard.core.case import Case

pytestmark = needs_torch


@pytest.fixture(scope="module")
def fx(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from tests.task_fixtures import build_qa

    return build_qa(tmp_path_factory.mktemp("qa"))


def qa_case(fx: dict[str, Path], **pre) -> Case:
    return Case.from_dict({
        "model": str(fx["model"]), "task": "question-answering",
        "dataset": {"path": str(fx["data"]), "text_columns": ["question", "context"],
                    "label_column": "answers"},
        "preprocessing": {"max_length": 40, **pre}, "symptom": "none",
        "training": {"learning_rate": 5e-5, "batch_size": 8, "trainer": "trainer"}})


def probe(case: Case) -> dict[str, object]:
    from wizard.checks.qa import probe_qa_positions
    from wizard.context import Context

    return {f.id: f for f in probe_qa_positions(case, Context(case, device="cpu"))}


def test_healthy_qa_case_file_is_healthy(fx, tmp_path):
    _, out = check_case(qa_case(fx, stride=16), tmp_path)
    assert out["verdict"]["kind"] == "healthy", out["verdict"]
    ok = finding(out, "data.qa-positions")
    assert ok["status"] == "pass" and ok["evidence"]["answers_lost_to_truncation"] == 0
    assert ok["evidence"]["windows"] > ok["evidence"]["examples"]  # long contexts overflow
    assert finding(out, "model.forward")["status"] == "pass"
    assert all(f["status"] != "error" for f in out["findings"])
    skipped = {f["evidence"]["probe"] for f in out["findings"] if f["id"] == "wizard.not-for-task"}
    assert {"label-values", "num-labels", "metrics"} <= skipped


def test_answers_lost_to_truncation_without_a_stride(fx):
    from datasets import load_from_disk

    train = load_from_disk(str(fx["data"]))["train"]
    # answers past the 40th word cannot fit a 40-token window holding the question too
    far = sum(len(c[:a["answer_start"][0]].split()) > 40
              for c, a in zip(train["context"], train["answers"]))
    bad = probe(qa_case(fx))["data.qa-answers-truncated"]
    assert bad.status == "warn" and bad.evidence["answers_lost_to_truncation"] == far > 0
    assert f"{far} of {len(train)} answers" in bad.title and "stride=" in bad.fix


def test_character_positions_used_as_token_positions(fx, tmp_path):
    _, out = check_case(qa_case(fx, max_length=96, qa_positions="char"), tmp_path)
    assert out["verdict"]["primary"] == "data.qa-positions-wrong"
    bad = finding(out, "data.qa-positions-wrong")
    ev = bad["evidence"]
    assert ev["outside_sequence"] + ev["on_question_tokens"] == ev["windows"]
    assert "offset_mapping" in bad["fix"] and "sequence_ids" in bad["fix"]


SCRIPT = '''\
from datasets import load_from_disk
from transformers import (AutoModelForQuestionAnswering, AutoTokenizer, Trainer,
                          TrainingArguments, default_data_collator)

raw = load_from_disk("DATA")
tokenizer = AutoTokenizer.from_pretrained("MODEL")


def prepare_train_features(examples):
    questions = [q.strip() for q in examples["question"]]
    inputs = tokenizer(questions, examples["context"], max_length=40, truncation="only_second",
                       stride=16, return_overflowing_tokens=True, return_offsets_mapping=True,
                       padding="max_length")
    offset_mapping = inputs.pop("offset_mapping")
    sample_map = inputs.pop("overflow_to_sample_mapping")
    starts, ends = [], []
    for i, offset in enumerate(offset_mapping):
        answer = examples["answers"][sample_map[i]]
        start_char = answer["answer_start"][0]
        end_char = start_char + len(answer["text"][0])
        seq = inputs.sequence_ids(i)
        c0 = seq.index(1)
        c1 = len(seq) - 1 - seq[::-1].index(1)
        if offset[c0][0] > start_char or offset[c1][1] < end_char:
            starts.append(0)
            ends.append(0)
            continue
        s = c0
        while s <= c1 and offset[s][0] <= start_char:
            s += 1
        e = c1
        while e >= c0 and offset[e][1] >= end_char:
            e -= 1
        starts.append(s - 1)
        ends.append(e + 1)
    inputs["start_positions"] = starts
    inputs["end_positions"] = ends
    return inputs


train = raw["train"].map(prepare_train_features, batched=True,
                         remove_columns=raw["train"].column_names)
model = AutoModelForQuestionAnswering.from_pretrained("MODEL")
args = TrainingArguments("OUT", report_to=[], use_cpu=True, save_strategy="no",
                         per_device_train_batch_size=8)
trainer = Trainer(model=model, args=args, train_dataset=train, data_collator=default_data_collator)
trainer.train()
'''


def _script(fx: dict[str, Path], tmp: Path) -> Path:
    path = tmp / "qa.py"
    path.write_text(SCRIPT.replace("DATA", str(fx["data"])).replace("MODEL", str(fx["model"]))
                    .replace("OUT", str(tmp / "o")))
    return path


def test_script_reader_reads_a_qa_script(fx, tmp_path):
    from wizard.script.reader import read_script

    case = read_script(_script(fx, tmp_path).read_text(), "qa.py").case
    assert case.task == "question-answering"
    assert case.dataset.text_columns == ["question", "context"]
    assert case.dataset.label_column == "answers"
    pre = case.preprocessing
    assert (pre.stride, pre.max_length, pre.qa_positions) == (16, 40, "offsets")


def test_check_script_and_wizard_run_on_a_qa_trainer(fx, tmp_path):
    from tests.helpers import run_cli
    from wizard.live.run import run_instrumented

    path = _script(fx, tmp_path)
    out = tmp_path / "out.json"
    run_cli("check", "--script", str(path), "--set", "symptom=none", "--json", str(out),
            "--out", str(tmp_path / "s"), "--quiet")
    import json

    static = json.loads(out.read_text())
    assert static["verdict"]["kind"] == "healthy", static["verdict"]
    assert finding(static, "data.qa-positions")["evidence"]["answers_lost_to_truncation"] == 0
    result = run_instrumented(path, steps=2).result
    assert result.case.task == "question-answering"
    assert result.verdict.kind == "healthy", result.verdict
    assert any(f.id == "data.qa-positions" and f.status == "pass" for f in result.findings)


def test_the_tree_asks_a_qa_model_its_answers_column_and_stride(fx):
    from wizard.engine.plan import QuestionWalk

    walk = QuestionWalk(Case())
    answers = {"symptom": "none", "framework": "pytorch", "model": str(fx["model"]),
               "task": "question-answering", "dataset": str(fx["data"]),
               "dataset_config": None, "text_columns": ["question", "context"],
               "label_column": "answers", "stride": 16, "trainer": "trainer",
               "optimizer": "adamw", "learning_rate": 5e-5, "batch_size": 8, "logs": None}
    asked = []
    while not walk.done:
        asked.append(walk.current().id)
        walk.answer(answers[asked[-1]])
    assert {"task", "label_column", "stride"} <= set(asked)
    assert not {"num_labels", "label_pad", "token_labels"} & set(asked)
    walk.case.validate()
    assert walk.case.preprocessing.stride == 16


def test_tensorflow_is_refused_with_one_sentence(fx):
    from wizard.errors import CaseError

    case = qa_case(fx)
    case.framework = "tensorflow"
    with pytest.raises(CaseError, match="checked with PyTorch"):
        case.validate()


def test_the_app_form_round_trips_a_qa_case(fx):
    from wizard.frontends.app.form import answers_from_case, case_from_answers, reachable

    answers = answers_from_case(qa_case(fx, stride=16))
    assert "stride" in reachable(answers) and "num_labels" not in reachable(answers)
    back = case_from_answers(answers)
    assert (back.task, back.dataset.label_column, back.preprocessing.stride) == \
        ("question-answering", "answers", 16)


def test_a_missing_answers_column_is_one_sentence(fx):
    from wizard.context import Context
    from wizard.errors import CaseError

    case = qa_case(fx)
    case.dataset.label_column = "answer"
    with pytest.raises(CaseError, match="'answer' is not in the dataset.*dataset.label_column"):
        Context(case, device="cpu").tokenized
