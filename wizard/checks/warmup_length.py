"""Warmup against the length of the run: a warmup of more optimizer steps than the training
makes, so the learning rate never reaches the value it was set to (a recipe's warmup_steps
copied onto a small dataset)."""
from __future__ import annotations

import math

from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding
from wizard.hub.dataset import resolve_dataset


def optimizer_steps(case: Case, rows: int) -> int:
    """The optimizer updates the Trainer makes: max_steps, or epochs x the batches of an epoch
    divided by the accumulation steps (at least one per epoch)."""
    t = case.training
    if t.max_steps and t.max_steps > 0:
        return int(t.max_steps)
    batches = math.ceil(rows / max(1, t.batch_size))
    return max(1, batches // max(1, t.gradient_accumulation_steps)) * max(1, t.epochs)


def _train_rows(case: Case, ctx: Context) -> int | None:
    """The train split's size: the script's own split in a live run, else the loaded sample
    when it is the whole split, else the size the dataset's description gives."""
    spec = case.dataset
    try:
        rows = len(ctx.raw[spec.train_split])
    except Exception:  # noqa: BLE001 - no data to count: nothing to judge
        return None
    if "raw" in ctx.supplied or rows < spec.max_samples:
        return rows or None
    try:
        described = resolve_dataset(spec.path or None, config=spec.config,
                                    split=spec.train_split, data_files=spec.data_files).splits
    except Exception:  # noqa: BLE001 - the size stays unknown
        return None
    size = (described or {}).get(spec.train_split)
    return int(size) if isinstance(size, int) and size > 0 else None


def probe_warmup_length(case: Case, ctx: Context) -> list[Finding]:
    """hyperparameters.warmup-longer-than-training: warmup_steps >= the optimizer steps."""
    warmup = case.training.warmup_steps
    if not isinstance(warmup, int) or isinstance(warmup, bool) or warmup <= 0:
        return []
    rows = None if case.training.max_steps else _train_rows(case, ctx)
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
