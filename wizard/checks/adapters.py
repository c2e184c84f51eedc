"""LoRA / QLoRA: the adapter as peft puts it on the model, the modules it matched, the trainable
share, and the 4-bit base (which needs bitsandbytes on a CUDA GPU)."""
from __future__ import annotations

import importlib.util
from typing import Any

from wizard.backends.adapters import describe_peft, wants_4bit
from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding

# attention projections across architectures (Llama/Mistral, BERT, GPT-2, Phi, MPT, Falcon)
ATTENTION_NAMES = ("q_proj", "k_proj", "v_proj", "o_proj", "query", "key", "value", "c_attn",
                   "qkv_proj", "Wqkv", "query_key_value")
SHARE_WARN = 0.5  # trainable share above which the adapter is not what trains


def probe_adapter(case: Case, ctx: Context) -> list[Finding]:
    model = ctx.model
    info: dict[str, Any] | None = ctx.scratch.get("adapter")
    if info is None:  # a live model: the script put the adapter on itself
        info = describe_peft(model)
    findings: list[Finding] = []
    error = str(info.get("error") or "")
    if error == "peft is not installed":
        findings.append(Finding(
            "model.adapter-unavailable", "skip", "peft is not installed here: the adapter was "
            "not checked", evidence={"adapter": case.adapter.method},
            explanation="The other checks ran on the base model without the adapter.",
            fix="pip install 'hf-debug-wizard[llm]'   # peft and trl"))
    elif error:
        names = info.get("module_names") or []
        attention = [n for n in names if n in ATTENTION_NAMES]
        findings.append(Finding(
            "model.adapter-targets-not-found", "fail",
            f"target_modules={list(case.adapter.target_modules)} match no module of the model",
            evidence={"error": error, "target_modules": list(case.adapter.target_modules),
                      "model_modules": names},
            explanation="peft puts LoRA on the modules whose names end with the given names; "
                        "this architecture names them differently, so get_peft_model refuses.",
            fix=f'LoraConfig(..., target_modules={attention!r})   # or "all-linear"'
                if attention else 'LoraConfig(..., target_modules="all-linear")'))
    elif info.get("total"):
        findings += _adapter_findings(case, info)
    if wants_4bit(case):
        findings.append(_four_bit(ctx))
    return findings


def _adapter_findings(case: Case, info: dict[str, Any]) -> list[Finding]:
    share = info["trainable"] / max(1, info["total"])
    evidence = {k: info[k] for k in ("target_modules", "matched", "matched_names",
                                     "matched_examples", "trainable", "total") if k in info}
    evidence["trainable_share"] = round(share, 6)
    evidence.update(r=case.adapter.r, alpha=case.adapter.alpha, dropout=case.adapter.dropout)
    out: list[Finding] = []
    wanted = [t for t in case.adapter.target_modules if t not in ("all-linear",)]
    missing = [t for t in wanted if t not in (info.get("matched_names") or [])]
    if missing:
        out.append(Finding(
            "model.adapter-targets-not-found", "warn",
            f"target_modules {missing} match no module; the adapter sits on "
            f"{info.get('matched_names')} only",
            evidence=evidence,
            explanation="peft only refuses when no name matches; a misspelt or foreign name "
                        "among matching ones is silently left without an adapter.",
            fix=f"LoraConfig(..., target_modules={info.get('matched_names')!r})"))
    if share > SHARE_WARN:
        out.append(Finding(
            "model.adapter", "warn",
            f"{share:.0%} of the parameters train: the base model is not frozen",
            evidence=evidence,
            explanation="With LoRA only the adapter (well under 1% to a few %) should train; "
                        "a trainable base costs the memory LoRA is meant to save.",
            fix="model = get_peft_model(model, lora_config)   # freezes the base itself"))
    else:
        out.append(Finding(
            "model.adapter", "info",
            f"LoRA r={case.adapter.r} on {info.get('matched')} module(s) "
            f"({', '.join(info.get('matched_names') or [])}): {info['trainable']:,} of "
            f"{info['total']:,} parameters train ({share:.2%})",
            evidence=evidence))
    return out


def _four_bit(ctx: Context) -> Finding:
    gpu = ctx.device == "cuda"
    bnb = importlib.util.find_spec("bitsandbytes") is not None
    why = ("bitsandbytes is not installed" if gpu and not bnb else
           "this machine has no CUDA GPU, which bitsandbytes' 4-bit kernels need" if not gpu else
           "the checks load the base unquantized to compare it with your run")
    return Finding(
        "model.adapter-unavailable", "info",
        "The 4-bit base (QLoRA) was not loaded here: the checks used the unquantized weights",
        evidence={"device": ctx.device, "bitsandbytes": bnb, "why": why},
        explanation=f"Not checked here: {why}. The memory step estimates the 4-bit base; the "
                    "adapter, the labels and the learning rate are checked as they are.",
        fix="pip install bitsandbytes   # on the CUDA machine that trains")
