"""Warmup against the length of the run: a warmup of more optimizer steps than the training
makes, so the learning rate never reaches the value it was set to (a recipe's warmup_steps
copied onto a small dataset)."""
from __future__ import annotations

import math
from typing import Any

from wizard.core.case import Case
from wizard.core.findings import Finding


def optimizer_steps(case: Case, rows: int) -> int:
    """The optimizer updates the Trainer makes: max_steps, or epochs x the batches of an epoch
    divided by the accumulation steps (at least one per epoch)."""
    t = case.training
    if t.max_steps and t.max_steps > 0:
        return int(t.max_steps)
    batches = math.ceil(rows / max(1, t.batch_size))
    return max(1, batches // max(1, t.gradient_accumulation_steps)) * max(1, t.epochs)


def _train_rows(case: Case, ctx: Any) -> int | None:
    """The train split's size from the dataset step's description (not the sampled rows)."""
    found = ctx.get("findings", []) if isinstance(ctx, dict) else []
    source = next((f for f in found if f.id == "environment.dataset-source"), None)
    splits = (source.evidence.get("splits") or {}) if source is not None else {}
    rows = splits.get(case.dataset.train_split)
    return int(rows) if isinstance(rows, int) and rows > 0 else None


def probe_warmup_length(case: Case, ctx: Any) -> list[Finding]:
    """hyperparameters.warmup-longer-than-training: warmup_steps >= the optimizer steps."""
    warmup = case.training.warmup_steps
    if not isinstance(warmup, int) or isinstance(warmup, bool) or warmup <= 0:
        return []
    rows = _train_rows(case, ctx)
    if rows is None and not case.training.max_steps:
        return []
    steps = optimizer_steps(case, rows or 0)
    t = case.training
    evidence = {"warmup_steps": warmup, "optimizer_steps": steps, "train_rows": rows,
                "batch_size": t.batch_size, "gradient_accumulation_steps":
                    t.gradient_accumulation_steps, "epochs": t.epochs, "max_steps": t.max_steps}
    if warmup < steps:
        return [Finding("hyperparameters.warmup-longer-than-training", "pass",
                        f"Warmup of {warmup} steps in a run of {steps} optimizer steps",
                        evidence=evidence)]
    peak = f"{steps / warmup:.0%}" if steps < warmup else "100% only at the last step"
    ratio = "warmup_ratio=0.1"
    # a run cut by max_steps is often a deliberate smoke test: said, not called the fault
    status = "warn" if t.max_steps else "fail"
    return [Finding(
        "hyperparameters.warmup-longer-than-training", status,
        f"The warmup ({warmup} steps) is as long as the whole run or longer ({steps} optimizer "
        "steps): the learning rate never reaches its value",
        evidence={**evidence, "peak_share_of_learning_rate": peak},
        explanation=f"{rows if rows is not None else 'The'} examples in batches of "
                    f"{t.batch_size}"
                    + (f" with {t.gradient_accumulation_steps} accumulation steps"
                       if t.gradient_accumulation_steps > 1 else "")
                    + (f" make {steps} optimizer updates (max_steps)" if t.max_steps else
                       f" over {t.epochs} epoch(s) make {steps} optimizer updates")
                    + "; the linear "
                    f"warmup climbs over {warmup}, so training ends at {peak} of the learning "
                    "rate it was given and the loss barely moves (a recipe's warmup copied onto "
                    "a smaller dataset).",
        fix=f"TrainingArguments(..., {ratio})   # or warmup_steps={max(1, steps // 10)}: a tenth "
            "of the run")]
