"""Overfit one batch with a LoRA adapter: an adapter trains few parameters from a zero update,
so on a small model it may not halve the loss within the test's steps even when nothing is
wrong. When neither the user's nor the known-good adapter run learns the batch, the same budget
is given to every parameter of the model (the known-good optimizer): if that learns the batch,
the data and the loss are sound and the adapter's slower fall is reported, not blamed on them."""
from __future__ import annotations

from typing import Any

from wizard.backends import torch_train
from wizard.backends.train_types import (
    OVERFIT_FLAT_RATIO,
    OVERFIT_PASS_RATIO,
    SMALL_MODEL_PARAMS,
    OptimizerChoice,
    Target,
    TrainRun,
)
from wizard.core.findings import Finding


def full_model_run(target: Target, choice: OptimizerChoice, steps: int) -> TrainRun | None:
    """`choice` on every parameter of the adapted model (base unfrozen) for `steps` steps, the
    model restored afterwards; None when the model is too large for a full run here."""
    model = target.model
    if sum(p.numel() for p in model.parameters()) > SMALL_MODEL_PARAMS:
        return None
    with torch_train.preserved(model):
        for p in model.parameters():
            p.requires_grad = True
        return torch_train.train_run(target, choice, steps, "every parameter")


def _desc(run: TrainRun) -> str:
    return f"{run.initial:.3f} → {run.final:.3f}" if run.initial is not None and \
        run.final is not None else "not run"


def judge_adapter_overfit(user: TrainRun, good: TrainRun, full: TrainRun | None, steps: int,
                          evidence: dict[str, Any]) -> Finding | None:
    """The finding when the full model learns the batch the adapter runs did not; None when the
    full run did not learn it either (the usual judgement then applies)."""
    if full is None or full.error or not full.learnt:
        return None
    ev = {**evidence, "full_model_run": {"optimizer": full.optimizer,
                                         "initial_loss": full.initial, "final_loss": full.final,
                                         "final_over_initial": full.ratio,
                                         "trainable_params": full.trainable_params},
          "adapter_known_good_over_initial": good.ratio,
          "your_run_over_initial": user.ratio}
    if good.ratio is not None and good.ratio < OVERFIT_FLAT_RATIO:
        return Finding(
            "training.overfit-batch", "info",
            f"The adapter lowers the loss of one batch slowly ({_desc(good)} with "
            f"{good.optimizer} in {steps} steps); with every parameter training the batch is "
            f"learnt ({_desc(full)}): the data and the loss are sound",
            evidence=ev,
            explanation=f"An adapter trains {good.trainable_params:,} of "
                        f"{full.trainable_params:,} parameters from a zero-initialised update, "
                        f"so it may not reach {OVERFIT_PASS_RATIO:.0%} of the starting loss in "
                        "this short test; the same budget on the whole model shows the batch "
                        "can be learnt. The adapter's learning rate is judged by the adapter "
                        "range.")
    return Finding(
        "training.cannot-overfit-batch", "warn",
        f"The adapter does not learn one batch ({_desc(good)} with {good.optimizer}), while "
        f"every parameter training learns it ({_desc(full)})",
        evidence=ev,
        explanation="The loss stays flat when only the adapter trains, though the model and the "
                    "data can learn the batch: the adapter sits on modules that barely shape the "
                    "output, or its scale (lora_alpha / r) is tiny.",
        fix='LoraConfig(r=16, lora_alpha=32, target_modules="all-linear")')
