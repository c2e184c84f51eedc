"""A LoRA / QLoRA adapter put on the loaded model the way the user's script does (peft's
get_peft_model), with what happened: the modules it matched, the trainable share, the error."""
from __future__ import annotations

import importlib.util
from typing import Any

from wizard.core.case import Adapter, Case

FOUR_BIT_ARGS = ("load_in_4bit", "quantization_config")


def wants_4bit(case: Case) -> bool:
    """QLoRA: a 4-bit base (method qlora, load_in_4bit, or a quantization_config)."""
    args = case.load_args
    return case.adapter.method == "qlora" or bool(args.get("load_in_4bit")) or (
        "quantization_config" in args and "4bit" in str(args["quantization_config"]).lower())


def lora_config(adapter: Adapter, task_type: str = "CAUSAL_LM") -> Any:
    from peft import LoraConfig

    kwargs: dict[str, Any] = {"r": adapter.r, "lora_dropout": adapter.dropout,
                              "task_type": task_type}
    if adapter.alpha is not None:
        kwargs["lora_alpha"] = adapter.alpha
    if adapter.target_modules:
        kwargs["target_modules"] = list(adapter.target_modules)
    return LoraConfig(**kwargs)


def apply_adapter(model: Any, case: Case) -> tuple[Any, dict[str, Any]]:
    """The model with the case's adapter on it, and a record of how that went (stored for the
    adapter check). The base model is returned unchanged when peft is missing or refuses."""
    info: dict[str, Any] = {"method": case.adapter.method, "four_bit": wants_4bit(case)}
    if importlib.util.find_spec("peft") is None:
        info["error"] = "peft is not installed"
        return model, info
    from peft import get_peft_model

    names = [n for n, m in model.named_modules() if n and not any(True for _ in m.children())]
    try:
        config = lora_config(case.adapter, "CAUSAL_LM" if case.task == "text-generation"
                             else "SEQ_CLS")
        wrapped = get_peft_model(model, config)
    except (ValueError, TypeError) as exc:
        info["error"] = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:400]}"
        info["module_names"] = sorted({n.rsplit(".", 1)[-1] for n in names})[:40]
        return model, info
    info.update(describe_peft(wrapped))
    return wrapped, info


def describe_peft(model: Any) -> dict[str, Any]:
    """What a peft model carries: its target modules, the modules given LoRA, the parameter
    counts (an empty dict for a model without an adapter)."""
    configs = getattr(model, "peft_config", None)
    if not isinstance(configs, dict) or not configs:
        return {}
    config = next(iter(configs.values()))
    targets = getattr(config, "target_modules", None)
    matched = sorted({n.split(".lora_A", 1)[0].split("base_model.model.", 1)[-1]
                      for n, _ in model.named_parameters() if ".lora_A" in n})
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())
    return {"target_modules": sorted(targets) if isinstance(targets, (set, list, tuple))
            else str(targets), "matched": len(matched),
            "matched_names": sorted({m.rsplit(".", 1)[-1] for m in matched}),
            "matched_examples": matched[:6], "trainable": int(trainable), "total": int(total)}
