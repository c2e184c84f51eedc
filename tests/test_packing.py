"""Packing for causal LM / SFT on the tiny local Llama: a healthy packed setup (each text ends
with eos, blocks within the context) stays silent; packed texts with no eos between them and
blocks longer than the model's context are found; the script reader reads SFTConfig(packing=...)
and the course's group_texts."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_torch
from tests.helpers import check_case, finding
from wizard.core.case import Case

pytestmark = needs_torch


@pytest.fixture(scope="module")
def fx(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from datasets import load_from_disk

    from tests.lm_fixtures import build

    root = tmp_path_factory.mktemp("pack")
    out = build(root)
    out["no_eos"] = root / "lm-text-no-eos"
    load_from_disk(str(out["text"])).map(
        lambda r: {"text": r["text"].removesuffix(" </s>")}).save_to_disk(str(out["no_eos"]))
    return out


def packed_case(fx: dict[str, Path], data: str = "text", **pre) -> Case:
    return Case.from_dict({
        "model": str(fx["model"]), "task": "text-generation",
        "dataset": {"path": str(fx[data]), "text_columns": ["text"]},
        "preprocessing": {"packing": True, "max_length": 48, **pre}, "symptom": "none",
        "training": {"learning_rate": 5e-5, "batch_size": 4, "trainer": "trainer"}})


def probe(case: Case) -> dict[str, object]:
    from wizard.checks.packing import probe_packing
    from wizard.context import Context

    return {f.id: f for f in probe_packing(case, Context(case, device="cpu"))}


def test_healthy_packed_case_is_healthy(fx, tmp_path):
    _, out = check_case(packed_case(fx), tmp_path)
    assert out["verdict"]["kind"] == "healthy", out["verdict"]
    ok = finding(out, "data.packing")
    assert ok["status"] == "pass" and ok["evidence"]["joins"] > 0
    assert ok["evidence"]["joins_without_eos"] == 0
    assert finding(out, "model.forward")["status"] == "pass"
    assert all(f["status"] != "error" for f in out["findings"])


def test_packed_texts_without_eos_run_together(fx):
    bad = probe(packed_case(fx, "no_eos"))["data.packing-no-eos"]
    assert bad.status == "fail" and bad.evidence["joins_without_eos"] == bad.evidence["joins"] > 0
    assert "eos_token" in bad.fix
    # TRL's SFTTrainer appends the eos itself: the same data is then packed correctly
    ok = probe(packed_case(fx, "no_eos", add_eos=True))
    assert "data.packing-no-eos" not in ok and ok["data.packing"].status == "pass"


def test_a_live_runs_packed_blocks_without_any_eos(fx):
    from datasets import Dataset
    from transformers import AutoTokenizer

    from wizard.checks.packing import probe_packing
    from wizard.context import Context

    tok = AutoTokenizer.from_pretrained(fx["model"])
    case = packed_case(fx)
    words = tok("a good movie with a bad end", add_special_tokens=False)["input_ids"]

    def found(eos_every: int | None) -> dict[str, object]:
        stream = []
        for i in range(40):
            stream += words + ([tok.eos_token_id] if eos_every and i % eos_every == 0 else [])
        blocks = [stream[i:i + 16] for i in range(0, len(stream) - 15, 16)]
        ctx = Context.from_objects(case, device="cpu", tokenizer=tok,
                                   tokenized={"train": Dataset.from_dict({"input_ids": blocks})})
        return {f.id: f for f in probe_packing(case, ctx)}

    bad = found(None)["data.packing-no-eos"]
    assert bad.status == "fail" and bad.evidence["eos_in_blocks"] == 0
    assert "data.packing-no-eos" not in found(1)   # an eos after every example


def test_packed_blocks_with_labels_copied_from_input_ids(fx):
    from transformers import AutoTokenizer

    from wizard.backends.lm_data import lm_batch

    tok = AutoTokenizer.from_pretrained(fx["model"])
    rows = [{"input_ids": [5, 6, 7, 8]}, {"input_ids": [9, 10, 11, 12]}]   # packed: no labels
    batch = lm_batch(packed_case(fx, lm_labels="copy"), tok, rows)
    assert batch["labels"].tolist() == [[5, 6, 7, 8], [9, 10, 11, 12]]


def test_blocks_longer_than_the_context(fx):
    from transformers import AutoConfig

    context = AutoConfig.from_pretrained(fx["model"]).max_position_embeddings
    bad = probe(packed_case(fx, max_length=4 * context))["data.packing-too-long"]
    assert bad.status == "fail" and bad.evidence["model_context"] == context
    assert f"max_length={context}" in bad.fix and "4.0x" in bad.title
    assert "data.packing-too-long" not in probe(packed_case(fx, max_length=context))


def test_no_packing_no_packing_check(fx):
    assert probe(packed_case(fx, packing=False)) == {}


SFT = '''\
from datasets import load_from_disk
from trl import SFTConfig, SFTTrainer

raw = load_from_disk("DATA")
config = SFTConfig("out", packing=True, max_length=48)
trainer = SFTTrainer(model="MODEL", args=config, train_dataset=raw["train"])
trainer.train()
'''
GROUP_TEXTS = '''\
from datasets import load_from_disk
from transformers import (AutoModelForCausalLM, AutoTokenizer, DataCollatorForLanguageModeling,
                          Trainer, TrainingArguments)

raw = load_from_disk("DATA")
tokenizer = AutoTokenizer.from_pretrained("MODEL")
block_size = 32


def tokenize(examples):
    return tokenizer(examples["text"])


def group_texts(examples):
    ids = sum(examples["input_ids"], [])
    total = len(ids) // block_size * block_size
    return {"input_ids": [ids[i:i + block_size] for i in range(0, total, block_size)]}


data = raw.map(tokenize, batched=True, remove_columns=["text"]).map(group_texts, batched=True)
model = AutoModelForCausalLM.from_pretrained("MODEL")
collator = DataCollatorForLanguageModeling(tokenizer, mlm=False)
trainer = Trainer(model=model, args=TrainingArguments("out"), train_dataset=data["train"],
                  data_collator=collator)
trainer.train()
'''


@pytest.mark.parametrize("script, length, eos", [(SFT, 48, True), (GROUP_TEXTS, 32, False)],
                         ids=["SFTConfig", "group_texts"])
def test_script_reader_reads_packing(fx, script, length, eos):
    from wizard.script.reader import read_script

    text = script.replace("DATA", str(fx["text"])).replace("MODEL", str(fx["model"]))
    case = read_script(text, "sft.py").case
    assert case.task == "text-generation"
    pre = case.preprocessing
    assert (pre.packing, pre.max_length, pre.add_eos) == (True, length, eos)


def test_check_script_finds_group_texts_without_eos(fx, tmp_path):
    import json

    from tests.helpers import run_cli

    path = tmp_path / "clm.py"
    path.write_text(GROUP_TEXTS.replace("DATA", str(fx["no_eos"])).replace("MODEL", str(fx["model"])))
    out = tmp_path / "out.json"
    run_cli("check", "--script", str(path), "--set", "symptom=none", "--json", str(out),
            "--out", str(tmp_path / "s"), "--quiet")
    result = json.loads(out.read_text())
    assert result["verdict"]["primary"] == "data.packing-no-eos", result["verdict"]
    assert finding(result, "data.packing-no-eos")["evidence"]["packed_blocks"] > 0


def test_the_tree_and_the_form_ask_a_causal_lm_about_packing(fx):
    from wizard.engine.plan import QuestionWalk
    from wizard.frontends.app.form import answers_from_case, case_from_answers, reachable

    walk = QuestionWalk(Case())
    answers = {"symptom": "none", "framework": "pytorch", "model": str(fx["model"]),
               "task": "text-generation", "dataset": str(fx["text"]), "dataset_config": None,
               "text_columns": ["text"], "lm_labels": "collator", "packing": True,
               "adapter": "none", "trainer": "trainer", "optimizer": "adamw",
               "learning_rate": 5e-5, "batch_size": 8, "logs": None}
    asked = []
    while not walk.done:
        asked.append(walk.current().id)
        walk.answer(answers[asked[-1]])
    assert asked.index("lm_labels") < asked.index("packing") < asked.index("adapter")
    assert walk.case.preprocessing.packing is True
    form = answers_from_case(packed_case(fx))
    assert "packing" in reachable(form) and case_from_answers(form).preprocessing.packing is True
