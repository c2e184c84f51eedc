"""The check sequence as data, in the course's order: every front end walks this one list.

Each step says why it is there; `when` skips what the case makes irrelevant.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from wizard.case import Case


def _always(case: Case) -> bool:
    return True


@dataclass(frozen=True)
class Step:
    id: str
    title: str
    why: str
    probes: tuple[str, ...]
    when: Callable[[Case], bool] = _always


CHECK_STEPS: tuple[Step, ...] = (
    Step("environment", "Your environment",
         "A framework that is missing, or transformers without TF classes, stops everything else.",
         ("environment",)),
    Step("triage", "The error message",
         "A known error message points straight at the checks that confirm its cause.",
         ("triage",), when=lambda c: bool(c.traceback.strip())),
    Step("data", "Check your data",
         "Look at the data where it enters the model: if it is broken, nothing downstream can fix it.",
         ("batch", "labels-in-inputs", "labels", "balance")),
    Step("model", "Check your model",
         "One batch through the freshly loaded model, no update: NaN and wrong losses show here.",
         ("forward",)),
    Step("hyperparameters", "Check your hyperparameters",
         "String shortcuts hide defaults (\"adam\" means learning_rate=0.001).",
         ("optimizer",)),
    Step("curves", "Read your training logs",
         "Loss curves show overfitting, plateaus, spikes and the first NaN.",
         ("curves",), when=lambda c: bool(c.logs)),
)
