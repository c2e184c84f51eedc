"""Memory plans: the combinations people actually use when no single change fits (a smaller batch
with accumulation, gradient checkpointing, 8-bit optimizer state, sharding over the target's
GPUs, LoRA on bf16 weights, QLoRA on a 4-bit base), each estimated with the same functions as the
setup itself. Plans and single changes are ranked from the least to the most disruptive; the
first that fits the target is the recommendation.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from wizard.estimate.memory import (
    GiB,
    Advice,
    MemoryEstimate,
    ModelGeometry,
    ParamCount,
    TrainingSetup,
    advise,
    combined_fix,
    estimate_memory,
    largest_batch_by_estimate,
    optimizer_state,
    smaller_batch_code,
)

LORA_RANK = 16
# least disruptive first: the same maths (accumulation), cheaper numbers, slower steps, fewer
# trained weights, a quantised base, shorter data, more GPUs than the target has, a smaller model
PREFERENCE = ("smaller-batch", "halve-batch", "mixed-precision", "gradient-checkpointing",
              "checkpointing-smaller-batch", "8bit-optimizer", "8bit-optimizer-checkpointing",
              "sharded", "lora", "lora-bf16", "qlora", "shorter-max-length", "shard",
              "smaller-checkpoint", "combined")
_PEFT_TASKS = {"lm": "CAUSAL_LM", "cls": "SEQ_CLS", "token": "TOKEN_CLS", "qa": "QUESTION_ANS"}


def _fitting_batch(p: ParamCount, g: ModelGeometry, st: TrainingSetup,
                   capacity: int | None) -> tuple[int, int]:
    """The largest per-device batch, at most the setup's, that fits `capacity` (1 when none
    does; half the batch when there is no capacity), and the accumulation that keeps the
    effective batch."""
    if capacity:
        found = largest_batch_by_estimate(estimate_memory(p, g, st), capacity)
        batch = min(st.batch_size, max(1, found))
    else:
        batch = max(1, st.batch_size // 2)
    effective = st.batch_size * st.gradient_accumulation_steps
    return batch, max(1, -(-effective // batch))


def _auto_class(st: TrainingSetup, g: ModelGeometry) -> str:
    return {"cls": "AutoModelForSequenceClassification", "token": "AutoModelForTokenClassification",
            "qa": "AutoModelForQuestionAnswering"}.get(
        g.head_kind(st.task),
        "AutoModelForSeq2SeqLM" if g.is_encoder_decoder else "AutoModelForCausalLM")


def _training_args(st: TrainingSetup, base: TrainingSetup) -> str:
    args = []
    if st.precision != base.precision or st.weights_dtype != "fp32":
        args.append(f"{st.precision}=True")
    if st.gradient_checkpointing and not base.gradient_checkpointing:
        args.append("gradient_checkpointing=True")
    if st.optimizer != base.optimizer:
        args.append(f"optim={st.optimizer!r}")
    if st.batch_size != base.batch_size:
        args += [f"per_device_train_batch_size={st.batch_size}",
                 f"gradient_accumulation_steps={st.gradient_accumulation_steps}"]
    return f"TrainingArguments(..., {', '.join(args)})" if args else ""


def plan_code(key: str, st: TrainingSetup, base: TrainingSetup, g: ModelGeometry,
              model: str) -> str:
    """The code to paste for a plan (Trainer arguments; the model loading where it changes)."""
    if st.framework == "tensorflow":
        return smaller_batch_code("tensorflow", st.batch_size, st.gradient_accumulation_steps)
    lines: list[str] = []
    auto = _auto_class(st, g)
    lora = (f"model = get_peft_model(model, LoraConfig(r={st.lora_rank}, "
            f"lora_alpha={2 * (st.lora_rank or 8)}, target_modules='all-linear', "
            f"lora_dropout=0.05, task_type={_PEFT_TASKS.get(g.head_kind(st.task), 'CAUSAL_LM')!r}))")
    if key == "lora-bf16":
        lines += ["# pip install peft",
                  "import torch\nfrom peft import LoraConfig, get_peft_model",
                  f"model = {auto}.from_pretrained({model!r}, dtype=torch.bfloat16)  "
                  "# torch_dtype= before transformers 4.56",
                  "model.gradient_checkpointing_enable()", lora]
    elif key == "qlora":
        lines += ["# pip install peft bitsandbytes",
                  "import torch\nfrom transformers import BitsAndBytesConfig\n"
                  "from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training",
                  "bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type='nf4', "
                  "bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=torch.bfloat16)",
                  f"model = {auto}.from_pretrained({model!r}, quantization_config=bnb)",
                  "model = prepare_model_for_kbit_training(model)  # gradient checkpointing on",
                  lora]
    elif key == "sharded":
        lines.append(f"accelerate launch --num_processes {st.gpus} --use_fsdp "
                     "--fsdp_sharding_strategy FULL_SHARD train.py\n"
                     f"# or DeepSpeed ZeRO-3: TrainingArguments(..., deepspeed='ds_zero3.json')")
    elif "8bit" in st.optimizer and "8bit" not in base.optimizer:
        lines.append("# pip install bitsandbytes")
    args = _training_args(st, base)
    if args:
        lines.append(args)
    if st.batch_size != base.batch_size:
        lines.append(f"# plain loop: batches of {st.batch_size}, loss / "
                     f"{st.gradient_accumulation_steps} and optimizer.step() every "
                     f"{st.gradient_accumulation_steps} batches")
    return "\n".join(lines)


def _plan_setups(est: MemoryEstimate, capacity: int | None) -> list[tuple[str, str, TrainingSetup]]:
    """(key, action, setup before the batch is fitted) of each plan that applies here."""
    st = est.setup
    out: list[tuple[str, str, TrainingSetup]] = [("smaller-batch", "A smaller batch with "
                                                  "gradient accumulation (same effective batch)",
                                                  st)]
    if st.framework == "tensorflow":
        return out
    spec = optimizer_state(st.optimizer)
    lighter = replace(st, gradient_checkpointing=True,
                      precision="bf16" if st.precision == "fp32" else st.precision)
    if spec.state_bytes is None and spec.state_copies >= 2:
        lighter = replace(lighter, optimizer="adamw_bnb_8bit")
    if not st.gradient_checkpointing:
        out.append(("checkpointing-smaller-batch", "Gradient checkpointing + a smaller batch "
                    "with accumulation", replace(st, gradient_checkpointing=True)))
    if lighter != replace(st, gradient_checkpointing=True):
        out.append(("8bit-optimizer-checkpointing", "Full fine-tune, lighter: bf16 mixed "
                    "precision + 8-bit AdamW state + gradient checkpointing", lighter))
    if st.gpus > 1 and st.strategy not in ("fsdp", "zero3"):
        out.append(("sharded", f"Full fine-tune sharded over the {st.gpus} GPUs (FSDP "
                    "FULL_SHARD / ZeRO-3) + bf16 + gradient checkpointing",
                    replace(st, strategy="fsdp", gradient_checkpointing=True,
                            precision="bf16" if st.precision == "fp32" else st.precision)))
    if not st.lora_rank and st.trainable_fraction > 0.2:
        lora = replace(st, lora_rank=LORA_RANK, lora_targets=("all-linear",),
                       gradient_checkpointing=True, precision="bf16")
        out.append(("lora-bf16", f"LoRA (r={LORA_RANK}, all linear layers) on bf16 weights + "
                    "gradient checkpointing", replace(lora, weights_dtype="bf16")))
    if st.weights_dtype not in ("nf4",) and (st.lora_rank or st.trainable_fraction > 0.2):
        out.append(("qlora", f"QLoRA: a 4-bit NF4 base + LoRA (r={st.lora_rank or LORA_RANK}, "
                    "all linear layers) + gradient checkpointing",
                    replace(st, weights_dtype="nf4", precision="bf16",
                            lora_rank=st.lora_rank or LORA_RANK,
                            lora_targets=st.lora_targets or ("all-linear",),
                            gradient_checkpointing=True)))
    return out


def plans(est: MemoryEstimate, capacity: int | None = None) -> list[Advice]:
    """The combined plans that apply to this setup, least disruptive first, each with its
    estimate per device (the batch fitted to `capacity`) and whether it fits."""
    base = est.total + est.overhead
    out = []
    for key, action, st in _plan_setups(est, capacity):
        batch, acc = _fitting_batch(est.params, est.geometry, st, capacity)
        st = replace(st, batch_size=batch, gradient_accumulation_steps=acc)
        if key == "smaller-batch" and batch >= est.setup.batch_size:
            continue
        if key != "smaller-batch" and batch != est.setup.batch_size:
            action += f" (batch {batch} x {acc} accumulation steps)"
        e = estimate_memory(est.params, est.geometry, st, est.model)
        total = e.total + e.overhead
        changes = {k: v for k, v in st.to_dict().items() if v != est.setup.to_dict()[k]}
        out.append(Advice(key, action, plan_code(key, st, est.setup, est.geometry, est.model),
                          total, base - total, None if not capacity else total <= capacity,
                          changes))
    return out


def ranked(est: MemoryEstimate, capacity: int | None = None) -> list[Advice]:
    """Single changes and combined plans together, least disruptive first (then the biggest
    saving): the order in which a recommendation is looked for."""
    every = [a for a in advise(est, capacity) + plans(est, capacity) if a.saving > 0
             and not (a.key == "shard" and est.setup.gpus > 1)]  # the "sharded" plan does it
    return sorted(every, key=lambda a: (PREFERENCE.index(a.key) if a.key in PREFERENCE
                                        else len(PREFERENCE), -a.saving))


def recommend(est: MemoryEstimate, capacity: int | None) -> Advice | None:
    """The first ranked change or plan that fits `capacity` (the greedy combination of single
    changes when none does); None without a capacity or when nothing fits."""
    if not capacity:
        return None
    found = next((a for a in ranked(est, capacity) if a.fits), None)
    return found or combined_fix(est, capacity)


def multi_gpu_note(est: MemoryEstimate) -> str | None:
    """What N GPUs do for memory, in numbers: data parallel copies, sharding splits."""
    n = est.setup.gpus
    if n <= 1:
        return None
    ddp = est.per_strategy.get("ddp", est.total) + est.overhead
    sharded = est.per_strategy.get("fsdp", est.total) + est.overhead
    return (f"Data parallel (DDP, what torchrun or accelerate launch does by default) keeps a full "
            f"copy of the weights, gradients and optimizer state on every GPU: {n} GPUs do not "
            f"pool their memory, each needs {ddp / GiB:.1f} GiB here. Sharding (FSDP FULL_SHARD, "
            f"DeepSpeed ZeRO-3) splits weights, gradients and optimizer state over the {n} GPUs "
            f"({sharded / GiB:.1f} GiB each here); activations stay on every GPU and each layer's "
            "full weights are gathered while it runs.")


def plan_summary(est: MemoryEstimate, capacity: int | None, where: str) -> dict[str, Any]:
    """What the front ends show for a target: fits or not, the ranked plans, the recommendation."""
    best = recommend(est, capacity) if est.fits(capacity) is False else None
    return {"where": where, "capacity_bytes": capacity, "fits": est.fits(capacity),
            "plans": [a.to_dict() for a in ranked(est, capacity)],
            "recommendation": best.to_dict() if best else None,
            "multi_gpu": multi_gpu_note(est)}
