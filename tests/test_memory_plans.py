"""Where the run will happen: the target GPU in the case, the tree, the form, `memory --gpu`
and `check`, and the combined plans (LoRA on bf16 weights, QLoRA, checkpointing with a smaller
batch, 8-bit state, sharding) judged against it. Metadata only: the 13B model is its config."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import check_case, finding, run_cli
from wizard.checks.memory.probes import probe_memory, target_capacity
from wizard.core.case import Adapter, Case, CaseError
from wizard.core.gpus import read_gpu
from wizard.estimate.memory import (
    GiB,
    QUANT_BYTES,
    ModelGeometry,
    TrainingSetup,
    estimate_memory,
    estimate_model,
    lora_params,
    weight_bytes,
)
from wizard.estimate.plans import PREFERENCE, plans, ranked, recommend
from wizard.frontends.app.form import FormError, case_from_answers, form_errors, reachable

# Llama-2-13b's config.json (the architecture's numbers; no weights anywhere)
LLAMA_13B = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 5120,
             "intermediate_size": 13824, "num_attention_heads": 40, "num_key_value_heads": 40,
             "num_hidden_layers": 40, "vocab_size": 32000, "max_position_embeddings": 4096,
             "rms_norm_eps": 1e-05, "tie_word_embeddings": False, "hidden_act": "silu",
             "torch_dtype": "float16"}


@pytest.fixture(scope="module")
def llama_13b(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("llama-13b")
    (folder / "config.json").write_text(json.dumps(LLAMA_13B))
    return folder


def _case(model: Path, **target: Any) -> Case:
    return Case.from_dict({"model": str(model), "dataset": {"path": "d"}, "task": "text-generation",
                           "preprocessing": {"max_length": 512}, "symptom": "out-of-memory",
                           "training": {"optimizer": "adamw", "batch_size": 8},
                           "target": target})


# -- the target in the case -----------------------------------------------------------------------
def test_gpu_names_and_memory_are_read_and_a_bad_one_is_one_sentence() -> None:
    for text, name, gib in (("A100 40GB", "A100-40GB", 40.0), ("NVIDIA A100-SXM4-80GB",
                                                                 "A100-80GB", 80.0),
                            ("Tesla T4", "T4", 15.0), ("a10g", "A10G", 22.5),
                            ("rtx 4090", "RTX-4090", 24.0), ("H100 80GB HBM3", "H100", 79.6),
                            ("24", None, 24.0), ("12.5 GB", None, 12.5)):
        gpu = read_gpu(text)
        assert (gpu.name, gpu.memory_gib) == (name, gib), text
    said = {}
    for text in ("A100", "A1OO-40GB", "0", "tpu-v5"):
        with pytest.raises(CaseError) as bad:
            read_gpu(text)
        said[text] = str(bad.value)
        assert len(said[text].splitlines()) == 1 and said[text].endswith(".")
    assert said["A100"].startswith("A100 comes in A100-40GB and A100-80GB")
    assert "did you mean A100-40GB?" in said["A1OO-40GB"]
    assert said["0"].startswith("'0' is not the memory of a GPU")
    assert "T4" in said["tpu-v5"] and "memory of one card in GiB" in said["tpu-v5"]


@pytest.mark.parametrize("target, field, words", [
    ({"gpu": "A100"}, "target.gpu", "A100 comes in"),
    ({"gpu": "B300X"}, "target.gpu", "`target.gpu: B300X` is not a GPU"),
    ({"gpu": "T4", "count": 0}, "target.count", "at least 1"),
    ({"memory_gib": -2}, "target.memory_gib", "memory of one GPU in GiB"),
    ({"gpu": "T4", "strategy": "fdsp"}, "target.strategy", "did you mean 'fsdp'"),
])
def test_a_bad_target_in_a_case_file_names_its_field(target: dict, field: str, words: str) -> None:
    with pytest.raises(CaseError) as bad:
        _case(Path("m"), **target)
    assert bad.value.field_name == field and words in str(bad.value)


def test_a_case_file_target_round_trips_and_sizes_the_capacity() -> None:
    case = Case.from_yaml(_case(Path("m"), gpu="a100 80gb", count=4).to_yaml())
    total, dev = target_capacity(case)
    assert total == 80 * GiB and dev["name"] == "4 x A100-80GB" and dev["gpus"] == 4
    own = Case.from_yaml(_case(Path("m"), gpu="A10G", memory_gib=20).to_yaml())
    assert target_capacity(own)[0] == 20 * GiB      # memory_gib: what is free on the card
    assert target_capacity(_case(Path("m"))) is None


def test_no_gpu_here_when_the_environment_hides_them(monkeypatch: pytest.MonkeyPatch) -> None:
    from wizard.core.gpus import gpu_here

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert gpu_here() is False
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    monkeypatch.setenv("WIZARD_DEVICE", "cpu")
    assert gpu_here() is False


def test_the_case_load_args_set_the_weights_dtype(llama_13b: Path) -> None:
    from wizard.checks.memory.probes import setup_from_case, weights_dtype_from_load_args

    assert weights_dtype_from_load_args({"torch_dtype": "torch.bfloat16"}) == "bf16"
    assert weights_dtype_from_load_args({"load_in_4bit": True}) == "nf4"
    assert weights_dtype_from_load_args({"quantization_config": "BitsAndBytesConfig("
                                         "load_in_4bit=True, bnb_4bit_quant_type='nf4')"}) == "nf4"
    assert weights_dtype_from_load_args({"load_in_8bit": True}) == "int8"
    assert weights_dtype_from_load_args({}) == "fp32"
    case = _case(llama_13b, gpu="T4")
    case.load_args = {"dtype": "torch.float16"}
    st = setup_from_case(case, device="cpu")
    assert (st.weights_dtype, st.device, st.gpus) == ("fp16", "cuda", 1)


def test_the_case_adapter_makes_the_estimate_a_lora_run(llama_13b: Path) -> None:
    """An adapter the case (or the script's LoraConfig) carries is what the memory step sizes:
    LoRA trains a sliver of the weights, QLoRA also holds the base in 4 bits."""
    from wizard.checks.memory.probes import setup_from_case

    case = _case(llama_13b, gpu="A100-40GB")
    full = setup_from_case(case, device="cpu")
    assert full.lora_rank is None and full.weights_dtype == "fp32"
    case.adapter = Adapter(method="lora", r=16, target_modules=["q_proj", "v_proj"])
    lora = setup_from_case(case, device="cpu")
    assert (lora.lora_rank, lora.lora_targets, lora.weights_dtype) == (16, ("q_proj", "v_proj"),
                                                                        "fp32")
    case.adapter = Adapter(method="qlora", r=8)
    qlora = setup_from_case(case, device="cpu")
    assert (qlora.lora_rank, qlora.lora_targets, qlora.weights_dtype) == (8, None, "nf4")
    totals = [estimate_model(llama_13b, st).total for st in (full, lora, qlora)]
    assert totals[0] > 2 * totals[1] and totals[1] > totals[2]  # no full grads or Adam state


# -- the estimate's LoRA and 4-bit arithmetic -------------------------------------------------------
def test_lora_parameters_match_peft_on_a_tiny_llama() -> None:
    peft = pytest.importorskip("peft")
    import transformers

    cfg = transformers.LlamaConfig(vocab_size=96, hidden_size=32, intermediate_size=80,
                                   num_hidden_layers=2, num_attention_heads=4,
                                   num_key_value_heads=2)
    g = ModelGeometry.from_config(cfg.to_dict())
    for targets in (None, ["q_proj", "v_proj"], "all-linear", ["o_proj", "down_proj"]):
        model = transformers.LlamaForCausalLM(cfg)
        lora = peft.get_peft_model(model, peft.LoraConfig(
            r=4, target_modules=targets or ["q_proj", "v_proj"], task_type="CAUSAL_LM"))
        trainable = sum(p.numel() for p in lora.parameters() if p.requires_grad)
        assert lora_params(g, 4, targets) == trainable, targets


def test_a_4bit_base_keeps_its_embeddings_and_quantises_the_rest(llama_13b: Path) -> None:
    est = estimate_model(llama_13b, TrainingSetup(batch_size=1, seq_len=256))
    g, p = est.geometry, est.params
    assert p.total == 13_015_864_320 and p.source == "config-formula"
    embeddings = 2 * g.vocab * g.hidden           # input embeddings and the untied lm_head
    nf4 = weight_bytes(p, g, replace(est.setup, weights_dtype="nf4"))
    assert nf4 == int((p.total - embeddings) * QUANT_BYTES["nf4"] + embeddings * 4)
    assert weight_bytes(p, g, replace(est.setup, weights_dtype="bf16")) == 2 * p.total
    assert 6.5 < nf4 / GiB < 8                    # a 13B base in 4 bits: about 7 GiB


# -- the classic question: a full fine-tune of a 13B model on two 40 GB cards ------------------------
def test_13b_full_finetune_on_two_40gb_cards_does_not_fit_and_the_plan_that_does(
        llama_13b: Path) -> None:
    case = _case(llama_13b, gpu="A100-40GB", count=2)
    found = {f.id: f for f in probe_memory(case, device="cpu")}
    fail = found["memory.will-not-fit"]
    assert fail.status == "fail" and fail.evidence["target"] == "2 x A100-40GB"
    assert "2 x A100-40GB has 40.00 GiB each" in fail.title
    per_gpu = found["memory.estimate"].evidence["per_gpu_gib"]
    assert per_gpu["ddp"] > per_gpu["fsdp"] > 40          # not even sharded does it fit
    assert "full copy" in fail.explanation and "splits" in fail.explanation
    assert fail.evidence["best_fix"].startswith("LoRA (r=16, all linear layers) on bf16 weights")
    assert fail.evidence["best_fix_fits"] and fail.evidence["best_fix_estimate_gib"] < 40
    assert "get_peft_model" in fail.fix and "dtype=torch.bfloat16" in fail.fix
    keys = [p["key"] for p in fail.evidence["plans"]]
    first_fit = next(i for i, p in enumerate(fail.evidence["plans"]) if p["fits"])
    assert keys[first_fit] == "lora-bf16" and "sharded" in keys[:first_fit]
    assert keys == sorted(keys, key=PREFERENCE.index)     # least disruptive first


def test_each_plan_is_the_estimate_of_its_changes(llama_13b: Path) -> None:
    """Plans come from the same estimate functions, not a second formula."""
    est = estimate_model(llama_13b, TrainingSetup(batch_size=8, seq_len=512, gpus=2))
    capacity = 40 * GiB
    found = plans(est, capacity)
    assert {"8bit-optimizer-checkpointing", "sharded", "lora-bf16", "qlora"} <= \
        {a.key for a in found}
    for plan in found:
        again = estimate_memory(est.params, est.geometry, replace(est.setup, **plan.changes))
        assert plan.total == again.total + again.overhead, plan.key
        assert plan.fits == (plan.total <= capacity)
    qlora = next(a for a in found if a.key == "qlora")
    assert qlora.changes["weights_dtype"] == "nf4" and "prepare_model_for_kbit_training" in qlora.code
    assert recommend(est, capacity).key == "lora-bf16"
    # a T4 cannot hold the bf16 base of a 13B model: QLoRA is the plan there
    t4 = estimate_model(llama_13b, TrainingSetup(batch_size=4, seq_len=512))
    assert recommend(t4, int(read_gpu("T4").memory_gib * GiB)).key == "qlora"
    # a setup that fits has nothing to recommend, but its plans are still ranked
    assert recommend(estimate_model(llama_13b, TrainingSetup(batch_size=1, seq_len=128)),
                     None) is None
    assert ranked(est, None)


def test_memory_command_plans_for_a_gpu_that_is_not_here(llama_13b: Path) -> None:
    proc = run_cli("memory", str(llama_13b), "--gpu", "A100-40GB", "--gpus", "2",
                   "--batch-size", "8", "--seq-len", "512", "--json")
    assert proc.returncode == 1, proc.stderr[-2000:]
    r = json.loads(proc.stdout)
    assert r["fits"] is False and r["capacity_source"] == "2 x A100-40GB"
    assert r["best_fix"]["key"] == "lora-bf16" and r["best_fix"]["fits"]
    assert "Data parallel" in r["multi_gpu"] and any(p["key"] == "qlora" for p in r["plans"])
    text = run_cli("memory", str(llama_13b), "--gpu", "A100-40GB", "--gpus", "2",
                   "--batch-size", "8", "--seq-len", "512")
    assert "does not fit" in text.stdout and "Recommended: LoRA (r=16" in text.stdout
    bad = run_cli("memory", str(llama_13b), "--gpu", "A100")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip() == ("--gpu: A100 comes in A100-40GB and A100-80GB; write which "
                                  "one, e.g. A100-40GB.")


# -- the tree and the app's form -----------------------------------------------------------------------
def test_the_form_offers_the_target_without_a_gpu_here(monkeypatch: pytest.MonkeyPatch) -> None:
    from wizard.frontends.app.form import answers_from_case

    monkeypatch.setattr("wizard.engine.plan.gpu_here", lambda: False)
    answers = {**answers_from_case(Case()), "symptom": "out-of-memory", "model": "m",
               "dataset": "d"}
    assert "target_gpu" in reachable(answers) and "target_count" not in reachable(answers)
    aimed = {**answers, "target_gpu": "A100 80GB", "target_count": "2"}
    assert "target_count" in reachable(aimed)
    case = case_from_answers(aimed)
    assert (case.target.card().name, case.target.cards) == ("A100-80GB", 2)
    errors = form_errors({**aimed, "target_gpu": "A100"})
    assert errors == [FormError("target_gpu", "A100 comes in A100-40GB and A100-80GB; write which "
                                              "one, e.g. A100-40GB.")]
    assert form_errors({**aimed, "target_count": "0"}) == [
        FormError("target_count", "0 is too small; use 1 or more, or leave it empty.")]
    from wizard.engine.plan import QUESTIONS
    from wizard.frontends.terminal.interactive import Validation
    from wizard.frontends.terminal.interactive import parse_answer as terminal_answer

    with pytest.raises(Validation) as said:     # the terminal says it in the same words
        terminal_answer(QUESTIONS["target_gpu"], "A100", Case(), None)
    assert str(said.value) == errors[0].message
    assert "target_gpu" not in reachable({**answers, "symptom": "nan-loss"})
    monkeypatch.setattr("wizard.engine.plan.gpu_here", lambda: True)
    assert "target_gpu" not in reachable(answers)   # the GPU here is the one measured


# -- check with a case file ------------------------------------------------------------------------
def test_check_judges_the_target_and_names_the_plan(demo_dir: Path, tmp_path: Path) -> None:
    from wizard.checks.memory.probes import _estimate_for_case
    from wizard.demo.cases import healthy_case

    case = healthy_case(demo_dir, "pytorch")
    case.symptom = "out-of-memory"
    case.target.count, case.target.memory_gib = 2, 1.0
    est = _estimate_for_case(case, "cpu")     # a target makes it a run on its GPUs
    assert est.setup.gpus == 2 and est.setup.device == "cuda"
    fitting = [a.total for a in ranked(est, est.total) if a.total < est.total + est.overhead]
    # a card between the best plan and the setup itself: the setup does not fit, a plan does
    case.target.memory_gib = round((min(fitting) + est.total + est.overhead) / 2 / GiB, 6)
    proc, result = check_case(case, tmp_path, "--gpu", "24", "--gpus", "2")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    fail = finding(result, "memory.will-not-fit")
    assert fail["status"] == "fail" and fail["evidence"]["target"].startswith("2 x ")
    assert fail["evidence"]["capacity_gib"] == pytest.approx(case.target.memory_gib, abs=1e-3)
    assert fail["evidence"]["best_fix_fits"] is True and fail["fix"]
    skipped = finding(result, "memory.measured-peak")
    assert skipped["status"] == "skip" and "is not on this machine" in skipped["title"]
    assert result["verdict"]["kind"] == "user-error"
