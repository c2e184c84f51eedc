"""The batch as it enters the model, and what one forward pass of it gave."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class Batch:
    """The first batch exactly as it enters the model, as numpy arrays."""

    inputs: dict[str, np.ndarray]
    labels: np.ndarray | None
    labels_in_inputs: bool
    label_key: str | None
    indices: list[int]
    native: Any = None


@dataclass
class ForwardResult:
    logits: np.ndarray | None
    loss: float | None = None                 # the framework's own loss, reduced
    loss_per_sample: np.ndarray | None = None  # the framework's own, when it gives one
    error: str | None = None                   # what the framework raised, type: message
    seconds: float = 0.0
    raised: str | None = None                  # "logits" when even the plain forward raised
    traceback: str = ""                        # the framework's traceback when it raised
