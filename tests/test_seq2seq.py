"""Seq2seq on a tiny local T5: a healthy case file and script come out healthy; labels padded
with the pad id, a model without decoder_start_token_id, targets cut by max_target_length and
targets tokenized as inputs (by a tokenizer with a target mode) are found."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_torch
from tests.helpers import check_case, finding
from wizard.core.case import Case

pytestmark = needs_torch


@pytest.fixture(scope="module")
def fx(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from tests.task_fixtures import build_seq2seq

    return build_seq2seq(tmp_path_factory.mktemp("s2s"))


def s2s_case(fx: dict[str, Path], model: str = "model", **pre) -> Case:
    return Case.from_dict({
        "model": str(fx[model]), "task": "text2text-generation",
        "dataset": {"path": str(fx["data"]), "text_columns": ["source", "target"]},
        "preprocessing": pre, "symptom": "none",
        "training": {"learning_rate": 5e-5, "batch_size": 8, "trainer": "trainer"}})


def probe(case: Case, tokenizer=None) -> dict[str, object]:
    from wizard.checks.seq2seq import probe_seq2seq_labels
    from wizard.context import Context

    ctx = Context(case, device="cpu")
    if tokenizer is not None:
        ctx.put("tokenizer", tokenizer)
    return {f.id: f for f in probe_seq2seq_labels(case, ctx)}


def test_healthy_seq2seq_case_file_is_healthy(fx, tmp_path):
    _, out = check_case(s2s_case(fx), tmp_path)
    assert out["verdict"]["kind"] == "healthy", out["verdict"]
    ok = finding(out, "data.seq2seq-labels")
    assert ok["status"] == "pass" and ok["evidence"]["decoder_start_token_id"] == 0
    assert ok["evidence"]["masked_positions"] > 0  # the padding is there, at -100
    assert finding(out, "model.forward")["status"] == "pass"
    assert all(f["status"] != "error" for f in out["findings"])
    skipped = {f["evidence"]["probe"] for f in out["findings"] if f["id"] == "wizard.not-for-task"}
    assert {"label-column", "num-labels", "metrics"} <= skipped


def test_labels_padded_with_the_pad_id(fx, tmp_path):
    _, out = check_case(s2s_case(fx, label_pad="pad-id"), tmp_path)
    assert out["verdict"]["primary"] == "data.seq2seq-label-padding"
    bad = finding(out, "data.seq2seq-label-padding")
    # the healthy batch's -100 positions are exactly the ones now holding the pad id
    healthy = probe(s2s_case(fx))["data.seq2seq-labels"]
    assert bad["evidence"]["padding_in_loss"] == healthy.evidence["masked_positions"] > 0
    assert "label_pad_token_id=-100" in bad["fix"]


def test_a_model_without_decoder_start_token(fx):
    found = probe(s2s_case(fx, model="no_start"))
    bad = found["model.decoder-start-missing"]
    assert bad.status == "fail" and "pad_token_id" in bad.fix  # T5 starts with pad


def test_targets_cut_by_max_target_length(fx):
    from datasets import load_from_disk
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(fx["model"])
    targets = load_from_disk(str(fx["data"]))["train"]["target"]
    longer = sum(len(tok(text_target=t)["input_ids"]) > 8 for t in targets)
    bad = probe(s2s_case(fx, max_target_length=8))["data.seq2seq-targets-truncated"]
    assert bad.status == "warn" and bad.evidence["targets_cut"] == longer > 0
    assert f"{longer} of {len(targets)} targets" in bad.title
    # room for every target: silent
    ok = probe(s2s_case(fx, max_target_length=32))
    assert "data.seq2seq-targets-truncated" not in ok and ok["data.seq2seq-labels"].status == "pass"


def test_targets_tokenized_as_inputs(fx):
    from tokenizers.processors import TemplateProcessing
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(fx["model"])
    # the T5 tokenizer has no target mode: tokenizing targets as inputs changes nothing
    assert "data.seq2seq-targets-as-inputs" not in probe(s2s_case(fx, targets="as-inputs"), tok)

    class TargetMode(type(tok)):  # a target language code, as mBART / NLLB tokenizers add
        def _switch_to_target_mode(self):
            self._tokenizer.post_processor = TemplateProcessing(
                single="translate $A </s>", special_tokens=[("translate", 3), ("</s>", 1)])

        def _switch_to_input_mode(self):
            self._tokenizer.post_processor = TemplateProcessing(
                single="$A </s>", special_tokens=[("</s>", 1)])

    moded = TargetMode.from_pretrained(fx["model"])
    bad = probe(s2s_case(fx, targets="as-inputs"), moded)["data.seq2seq-targets-as-inputs"]
    assert bad.status == "fail" and bad.evidence["targets_differ"] == bad.evidence["targets_compared"]
    assert bad.evidence["text_target"][0] == 3 != bad.evidence["as_inputs"][0]
    assert "text_target=" in bad.fix
    assert "data.seq2seq-targets-as-inputs" not in probe(s2s_case(fx), moded)


SCRIPT = '''\
from datasets import load_from_disk
from transformers import (AutoModelForSeq2SeqLM, AutoTokenizer, DataCollatorForSeq2Seq,
                          Seq2SeqTrainer, Seq2SeqTrainingArguments)

raw = load_from_disk("DATA")
tokenizer = AutoTokenizer.from_pretrained("MODEL")
max_target_length = 24


def preprocess(examples):
    model_inputs = tokenizer(examples["source"], max_length=32, truncation=True)
    labels = tokenizer(text_target=examples["target"], max_length=max_target_length, truncation=True)
    model_inputs["labels"] = labels["input_ids"]
    return model_inputs


data = raw.map(preprocess, batched=True, remove_columns=raw["train"].column_names)
model = AutoModelForSeq2SeqLM.from_pretrained("MODEL")
collator = DataCollatorForSeq2Seq(tokenizer, model=model)
args = Seq2SeqTrainingArguments("OUT", report_to=[], use_cpu=True, save_strategy="no",
                                per_device_train_batch_size=8)
trainer = Seq2SeqTrainer(model=model, args=args, train_dataset=data["train"], data_collator=collator)
trainer.train()
'''
PAD_ID = SCRIPT.replace("DataCollatorForSeq2Seq(tokenizer, model=model)",
                        "DataCollatorForSeq2Seq(tokenizer, model=model, "
                        "label_pad_token_id=tokenizer.pad_token_id)")
AS_INPUTS = SCRIPT.replace('text_target=examples["target"]', 'examples["target"]')


def _script(fx: dict[str, Path], text: str, tmp: Path) -> Path:
    path = tmp / "s2s.py"
    path.write_text(text.replace("DATA", str(fx["data"])).replace("MODEL", str(fx["model"]))
                    .replace("OUT", str(tmp / "o")))
    return path


@pytest.mark.parametrize("script, read", [
    (SCRIPT, {"targets": "text-target", "label_pad": "-100"}),
    (PAD_ID, {"label_pad": "pad-id"}),
    (AS_INPUTS, {"targets": "as-inputs"})], ids=["text_target", "pad-id", "as-inputs"])
def test_script_reader_reads_a_seq2seq_script(fx, tmp_path, script, read):
    from wizard.script.reader import read_script

    case = read_script(_script(fx, script, tmp_path).read_text(), "s2s.py").case
    assert case.task == "text2text-generation"
    assert case.dataset.text_columns == ["source", "target"]
    assert case.preprocessing.max_target_length == 24
    for key, value in read.items():
        assert getattr(case.preprocessing, key) == value


@pytest.mark.parametrize("script, fault", [(SCRIPT, None), (PAD_ID, "data.seq2seq-label-padding")],
                         ids=["healthy", "pad-id"])
def test_wizard_run_checks_a_seq2seq_trainer(fx, tmp_path, script, fault):
    from wizard.live.run import run_instrumented

    result = run_instrumented(_script(fx, script, tmp_path), steps=2).result
    assert result.case.task == "text2text-generation"
    if fault:
        assert result.verdict.primary == fault
    else:
        assert result.verdict.kind == "healthy", result.verdict
        assert any(f.id == "data.seq2seq-labels" and f.status == "pass" for f in result.findings)


def test_the_tree_asks_a_seq2seq_model_its_label_padding(fx):
    from wizard.engine.plan import QuestionWalk

    walk = QuestionWalk(Case())
    answers = {"symptom": "none", "framework": "pytorch", "model": str(fx["model"]),
               "task": "text2text-generation", "dataset": str(fx["data"]),
               "dataset_config": None, "text_columns": ["source", "target"],
               "label_pad": "pad-id", "max_target_length": 16, "trainer": "trainer",
               "optimizer": "adamw", "learning_rate": 5e-5, "batch_size": 8, "logs": None}
    asked = []
    while not walk.done:
        asked.append(walk.current().id)
        walk.answer(answers[asked[-1]])
    assert {"task", "label_pad", "max_target_length"} <= set(asked)
    assert not {"label_column", "num_labels", "lm_labels", "stride"} & set(asked)
    walk.case.validate()
    assert (walk.case.preprocessing.label_pad, walk.case.preprocessing.max_target_length) == \
        ("pad-id", 16)


def test_the_app_form_round_trips_a_seq2seq_case(fx):
    from wizard.frontends.app.form import answers_from_case, case_from_answers, reachable

    case = s2s_case(fx, label_pad="pad-id", max_target_length=16)
    answers = answers_from_case(case)
    assert {"label_pad", "max_target_length"} <= set(reachable(answers))
    back = case_from_answers(answers)
    assert back.task == "text2text-generation"
    assert (back.preprocessing.label_pad, back.preprocessing.max_target_length) == ("pad-id", 16)


def test_check_script_finds_labels_padded_with_the_pad_id(fx, tmp_path):
    import json

    from tests.helpers import run_cli

    out = tmp_path / "out.json"
    run_cli("check", "--script", str(_script(fx, PAD_ID, tmp_path)), "--set", "symptom=none",
            "--json", str(out), "--out", str(tmp_path / "s"), "--quiet")
    result = json.loads(out.read_text())
    assert result["verdict"]["primary"] == "data.seq2seq-label-padding", result["verdict"]
    assert finding(result, "data.seq2seq-label-padding")["evidence"]["padding_in_loss"] > 0
