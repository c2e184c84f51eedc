"""Causal LM / SFT with LoRA on a tiny local Llama: a healthy case file comes out healthy, each
faulty setup gets its finding (padding or the prompt in the loss, pad = eos, chat template,
adapter targets), the script reader reads LoRA/TRL, and `wizard run` checks a LoRA Trainer run."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.conftest import needs_torch
from tests.helpers import check_case, finding
from wizard.core.case import Case

HAS_PEFT = importlib.util.find_spec("peft") is not None
needs_peft = pytest.mark.skipif(not HAS_PEFT, reason="needs peft (the llm extra)")
pytestmark = needs_torch


@pytest.fixture(scope="module")
def fx(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from tests.lm_fixtures import build

    return build(tmp_path_factory.mktemp("lm"))


def lm_case(fx: dict[str, Path], **over) -> Case:
    data = {"model": str(fx["model"]), "task": "text-generation", "framework": "pytorch",
            "dataset": {"path": str(fx["text"]), "text_columns": ["text"]},
            "preprocessing": {"max_length": 48},
            "training": {"learning_rate": 2e-4, "batch_size": 8, "trainer": "trainer",
                         "warmup_steps": 2},   # of the 5 steps that 36 rows in batches of 8 make
            "symptom": "none"}
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    return Case.from_dict(data)


def probe(case: Case, name: str) -> list:
    from wizard.context import Context
    from wizard.engine.registry import resolve

    return resolve(name)(case, Context(case, device="cpu"))


def by_id(found: list, id: str):
    return next(f for f in found if f.id == id)


@needs_peft
def test_healthy_sft_lora_case_file_is_healthy(fx, tmp_path):
    case = lm_case(fx, adapter={"method": "lora", "r": 8, "alpha": 16,
                                "target_modules": ["q_proj", "v_proj"]})
    proc, out = check_case(case, tmp_path)
    assert out["verdict"]["kind"] == "healthy", (out["verdict"], proc.stderr[-2000:])
    labels = finding(out, "data.lm-labels")
    assert labels["status"] == "pass" and labels["evidence"]["padding_positions"] > 0
    adapter = finding(out, "model.adapter")
    assert adapter["evidence"]["matched_names"] == ["q_proj", "v_proj"]
    assert 0 < adapter["evidence"]["trainable_share"] < 0.5
    lr = finding(out, "hyperparameters.learning-rate-too-high")
    assert lr["status"] == "pass" and lr["evidence"]["adapter"] is True
    skipped = {f["evidence"]["probe"] for f in out["findings"] if f["id"] == "wizard.not-for-task"}
    assert {"label-column", "num-labels", "metrics"} <= skipped
    assert all(f["status"] != "error" for f in out["findings"])


def test_labels_copied_from_input_ids_train_on_padding(fx):
    found = probe(lm_case(fx, preprocessing={"lm_labels": "copy"}), "lm-labels")
    bad = by_id(found, "data.lm-padding-in-loss")
    assert bad.status == "fail" and bad.evidence["padding_in_loss"] > 0


def test_pad_token_equal_to_eos_masks_the_eos(fx):
    found = probe(lm_case(fx, model=str(fx["pad_eos"])), "lm-labels")
    eos = by_id(found, "data.lm-eos-masked")
    assert eos.status == "fail" and eos.evidence["eos_masked"] == eos.evidence["eos_in_texts"] > 0
    healthy = probe(lm_case(fx), "lm-labels")
    assert not [f for f in healthy if f.status in ("fail", "warn")]


def test_trls_own_collator_keeps_an_eos_that_is_also_the_pad_token(fx):
    found = probe(lm_case(fx, model=str(fx["pad_eos"]), preprocessing={"lm_labels": "sft"}),
                  "lm-labels")
    assert not [f for f in found if f.status in ("fail", "warn")]
    assert by_id(found, "data.lm-labels").evidence["padding_positions"] > 0


def test_an_sft_trainer_script_is_read_as_trls_collator():
    from wizard.script.reader import read_script

    script = ("from trl import SFTConfig, SFTTrainer\n"
              "from transformers import AutoTokenizer{extra}\n"
              "tokenizer = AutoTokenizer.from_pretrained('gpt2')\n"
              "tokenizer.pad_token = tokenizer.eos_token\n"
              "trainer = SFTTrainer(model='gpt2', args=SFTConfig('out'), train_dataset=ds"
              "{collator})\ntrainer.train()\n")
    own = read_script(script.format(extra="", collator="")).case
    assert own.preprocessing.lm_labels == "sft"
    # control: transformers' collator handed to it masks every pad id (the eos too)
    theirs = read_script(script.format(
        extra=", DataCollatorForLanguageModeling",
        collator=", data_collator=DataCollatorForLanguageModeling(tokenizer, mlm=False)")).case
    assert theirs.preprocessing.lm_labels == "collator"


def test_prompt_in_the_loss_unless_completion_only(fx):
    pairs = {"path": str(fx["pairs"]), "text_columns": ["prompt", "completion"]}
    found = probe(lm_case(fx, dataset=pairs), "lm-labels")
    assert by_id(found, "data.lm-prompt-in-loss").status == "warn"
    only = probe(lm_case(fx, dataset=pairs, preprocessing={"lm_labels": "completion-only"}),
                 "lm-labels")
    ok = by_id(only, "data.lm-labels")
    assert ok.status == "pass" and ok.evidence["prompt_tokens_in_loss"] == 0
    assert not any(f.id == "data.lm-prompt-in-loss" for f in only)


def test_chat_rows_need_a_chat_template(fx):
    chat = {"path": str(fx["chat"]), "text_columns": ["messages"]}
    good = probe(lm_case(fx, dataset=chat), "chat-template")
    assert by_id(good, "data.chat-template-missing").status == "pass"
    bad = probe(lm_case(fx, dataset=chat, model=str(fx["pad_eos"])), "chat-template")
    assert by_id(bad, "data.chat-template-missing").status == "fail"


def test_texts_formatted_for_another_chat_template(fx):
    from datasets import Dataset
    from transformers import AutoTokenizer

    from wizard.checks.causal_lm import probe_chat_template
    from wizard.context import Context

    case = lm_case(fx)
    tok = AutoTokenizer.from_pretrained(str(fx["model"]))
    llama2 = Dataset.from_dict({"text": ["[INST] what did tom 's cat do ? [/INST] it slept"]})
    found = probe_chat_template(case, Context.from_objects(case, raw={"train": llama2},
                                                           tokenizer=tok))
    assert by_id(found, "data.chat-template-mismatch").status == "warn"
    chatml = Dataset.from_dict({"text": ["<|im_start|>user hi<|im_end|> "]})
    same = probe_chat_template(case, Context.from_objects(case, raw={"train": chatml},
                                                          tokenizer=tok))
    assert by_id(same, "data.chat-template-mismatch").status == "pass"


@needs_peft
def test_lora_targets_that_match_nothing(fx):
    found = probe(lm_case(fx, adapter={"method": "lora", "target_modules": ["c_attn"]}),
                  "adapter")
    bad = by_id(found, "model.adapter-targets-not-found")
    assert bad.status == "fail" and "q_proj" in bad.fix
    some = probe(lm_case(fx, adapter={"method": "lora", "target_modules": ["q_proj", "qkv"]}),
                 "adapter")
    assert by_id(some, "model.adapter-targets-not-found").status == "warn"


@needs_peft
def test_qlora_base_is_said_to_be_unchecked_on_cpu(fx):
    found = probe(lm_case(fx, adapter={"method": "qlora"}), "adapter")
    assert by_id(found, "model.adapter-unavailable").status == "info"
    assert by_id(found, "model.adapter").status == "info"


def test_adapter_learning_rates_are_judged_by_the_lora_range():
    from wizard.checks.hyperparameters import learning_rate_finding
    from wizard.core.optimizer import parse_optimizer

    spec = parse_optimizer("adamw")
    assert learning_rate_finding(2e-4, "x", spec, "pytorch", "trainer", adapter=True).status == "pass"
    assert learning_rate_finding(2e-4, "x", spec, "pytorch", "trainer").status != "pass"
    assert learning_rate_finding(1e-2, "x", spec, "pytorch", "trainer", adapter=True).status == "fail"


def test_bad_task_and_causal_lm_with_tensorflow_are_one_sentence(fx):
    from wizard.errors import CaseError

    with pytest.raises(CaseError, match="task"):
        lm_case(fx, task="text-generaton")
    with pytest.raises(CaseError, match="PyTorch"):
        lm_case(fx, framework="tensorflow")


SFT_SCRIPT = '''\
from datasets import load_from_disk
from peft import LoraConfig
from trl import SFTConfig, SFTTrainer

dataset = load_from_disk("DATA")
peft_config = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05,
                         target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
args = SFTConfig(output_dir="out", learning_rate=2e-4, per_device_train_batch_size=4,
                 max_steps=2, report_to=[])
trainer = SFTTrainer(model="MODEL", args=args, train_dataset=dataset["train"],
                     peft_config=peft_config)
trainer.train()
'''


def test_script_reader_reads_sft_trainer_and_lora(fx):
    from wizard.script.reader import read_script

    text = SFT_SCRIPT.replace("DATA", str(fx["text"])).replace("MODEL", str(fx["model"]))
    reading = read_script(text, "sft.py")
    case = reading.case
    assert case.task == "text-generation" and case.model == str(fx["model"])
    assert case.adapter.method == "lora" and case.adapter.r == 16
    assert case.adapter.target_modules == ["q_proj", "v_proj"] and case.adapter.alpha == 32
    assert case.training.learning_rate == 2e-4 and case.training.batch_size == 4
    assert case.dataset.text_columns == ["text"]
    assert not any(q.field == "dataset.text_columns" for q in reading.questions)
    lr = [f for f in reading.findings if f.id == "hyperparameters.learning-rate-too-high"]
    assert all(f.status == "pass" for f in lr)


LORA_TRAINER_SCRIPT = '''\
from datasets import load_from_disk
from peft import LoraConfig, get_peft_model
from transformers import (AutoModelForCausalLM, AutoTokenizer, DataCollatorForLanguageModeling,
                          Trainer, TrainingArguments)

checkpoint = "MODEL"
raw = load_from_disk("DATA")
tokenizer = AutoTokenizer.from_pretrained(checkpoint)
PAD_LINE


def tokenize(batch):
    return tokenizer(batch["text"], truncation=True, max_length=48)


tokenized = raw.map(tokenize, batched=True, remove_columns=["text"])
model = AutoModelForCausalLM.from_pretrained(checkpoint)
model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"],
                                         task_type="CAUSAL_LM"))
args = TrainingArguments("OUT", learning_rate=2e-4, per_device_train_batch_size=8,
                         warmup_steps=10, max_steps=3, report_to=[], save_strategy="no",
                         use_cpu=True, disable_tqdm=True)
trainer = Trainer(model=model, args=args, train_dataset=tokenized["train"],
                  data_collator=DataCollatorForLanguageModeling(tokenizer, mlm=False))
trainer.train()
'''


@needs_peft
@pytest.mark.parametrize("pad_eos", [False, True], ids=["healthy", "pad-eos"])
def test_wizard_run_checks_a_lora_trainer_script(fx, tmp_path, pad_eos):
    from wizard.live.run import run_instrumented

    script = tmp_path / "train_lora.py"
    script.write_text(LORA_TRAINER_SCRIPT.replace("MODEL", str(fx["model"]))
                      .replace("DATA", str(fx["text"])).replace("OUT", str(tmp_path / "o"))
                      .replace("PAD_LINE", "tokenizer.pad_token = tokenizer.eos_token"
                               if pad_eos else ""))
    result = run_instrumented(script, steps=2).result
    ids = {f.id: f for f in result.findings}
    assert result.case.task == "text-generation" and result.case.adapter.method == "lora"
    assert ids["model.adapter"].evidence["matched_names"] == ["q_proj", "v_proj"]
    if pad_eos:
        assert ids["data.lm-eos-masked"].status == "fail"
        assert result.verdict.kind == "user-error"
    else:
        assert ids["data.lm-labels"].status == "pass"
        assert not [f.id for f in result.findings if f.status in ("fail", "error")]


def test_the_tree_asks_a_causal_lm_its_own_questions(fx):
    from wizard.engine.plan import QuestionWalk

    walk = QuestionWalk(Case())
    asked = []
    answers = {"symptom": "none", "framework": "pytorch", "model": str(fx["model"]),
               "task": "text-generation", "dataset": str(fx["text"]), "dataset_config": None,
               "text_columns": ["text"], "lm_labels": "collator", "packing": False,
               "adapter": "lora",
               "trainer": "trainer", "optimizer": "adamw", "learning_rate": 2e-4,
               "batch_size": 8, "logs": None}
    while not walk.done:
        q = walk.current()
        asked.append(q.id)
        walk.answer(answers[q.id])
    assert "task" in asked and "lm_labels" in asked and "adapter" in asked
    assert "label_column" not in asked and "num_labels" not in asked
    assert walk.case.task == "text-generation" and walk.case.adapter.active
    classifier = QuestionWalk(Case(framework="pytorch", model=str(fx["text"])))
    classifier.position = "model"
    classifier.answer("distilbert-base-uncased")
    assert classifier.current().id != "task"  # not a causal LM: the course's questions


@needs_peft
def test_check_script_finds_pad_eos_in_a_lora_trainer_script(fx, tmp_path):
    import json

    from tests.helpers import run_cli

    script = tmp_path / "train_lora.py"
    script.write_text(LORA_TRAINER_SCRIPT.replace("MODEL", str(fx["model"]))
                      .replace("DATA", str(fx["text"])).replace("OUT", str(tmp_path / "o"))
                      .replace("PAD_LINE", "tokenizer.pad_token = tokenizer.eos_token"))
    out = tmp_path / "out.json"
    proc = run_cli("check", "--script", str(script), "--set", "symptom=none", "--json", str(out),
                   "--out", str(tmp_path / "s"), "--quiet")
    result = json.loads(out.read_text())
    assert proc.returncode == 1, proc.stderr[-2000:]
    case = result["case"]
    assert case["task"] == "text-generation" and case["adapter"]["method"] == "lora"
    assert case["preprocessing"]["lm_labels"] == "collator"
    assert result["verdict"]["primary"] == "data.lm-eos-masked"


@needs_peft
@pytest.mark.skipif(importlib.util.find_spec("trl") is None, reason="needs trl (the llm extra)")
def test_wizard_run_checks_a_trl_sft_trainer_script(fx, tmp_path):
    from wizard.live.run import run_instrumented

    script = tmp_path / "sft.py"
    script.write_text(SFT_SCRIPT.replace("DATA", str(fx["text"])).replace("MODEL", str(fx["model"]))
                      .replace('output_dir="out"', f'output_dir="{tmp_path / "o"}", use_cpu=True, '
                               'warmup_steps=5, max_length=48, save_strategy="no"'))
    result = run_instrumented(script, steps=2).result
    ids = {f.id: f for f in result.findings}
    assert ids["script.run"].evidence["entry"] == "trainer.train"
    assert ids["data.lm-labels"].status == "pass"
    assert ids["model.adapter"].evidence["matched_names"] == ["q_proj", "v_proj"]
    assert result.verdict.kind == "healthy", result.verdict
