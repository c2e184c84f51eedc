"""The data a training run produces, shared by the backends, the training checks and the live
callbacks: gradient snapshots, runs, optimizer choices, and the thresholds they are judged by
(wizard/core/catalogue.py documents their sources)."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# -- thresholds ------------------------------------------------------------------------------
OVERFIT_STEPS = 40               # bounded steps on one batch (transformers)
OVERFIT_STEPS_PLAIN = 200        # plain networks: cheap steps, but a small lr needs more
OVERFIT_PASS_RATIO = 0.5         # final loss <= 50 % of the initial loss: the batch is learnt
OVERFIT_EARLY_STOP = 0.05        # stop a run once a step's loss is below 5 % of the initial
BELOW_PRIOR_RATIO = 0.75        # a comparison run ending below 75 % of the labels' entropy reads the inputs
OVERFIT_FLAT_RATIO = 0.98        # final >= 98 % of initial: the loss did not move
OVERFIT_DIVERGED_RATIO = 1.1     # final >= 110 % of initial (or non-finite): the run diverged
OVERFIT_TIME_LIMIT = 120.0       # seconds per run; the run stops early beyond it
ALREADY_FIT = 1e-3               # an initial loss below this: nothing left to learn
KNOWN_GOOD_LR_SMALL = 3e-3       # Adam lr for models under SMALL_MODEL_PARAMS (measured)
KNOWN_GOOD_LR_LARGE = 1e-4       # Adam lr for pretrained-size models
SMALL_MODEL_PARAMS = 10_000_000
VANISH_RATIO = 1e-3              # first/last layer mean |grad| below this ...
VANISH_FIRST = 1e-4              # ... and the first layer's mean |grad| below this (AUTOTRAINER)
EXPLODE_RATIO = 70.0             # first/last layer mean |grad| above this (AUTOTRAINER)
DEAD_FRACTION = 0.7              # >= 70 % exactly-zero gradients in a layer (AUTOTRAINER)
FULLY_DEAD = 0.99                # a layer with >= 99 % zeros gets no signal at all
HIST_SAMPLE = 256                # |grad| values kept per layer for the histograms
HIST_LAYERS = 6                  # layers drawn in the histogram plot
EMBED_SAMPLES = 128              # samples projected for the embeddings plot
PROB_TOL = 1e-3                  # rows summing to 1 within this are probabilities


# == data shared with the backends and the callbacks ==========================================
@dataclass
class LayerGrad:
    """Gradient statistics of one layer (a block of parameters, e.g. `encoder.layer.3`)."""

    name: str
    kind: str = "layer"          # "embedding" | "layer"
    params: int = 0
    mean_abs: float = 0.0
    norm: float = 0.0
    max_abs: float = 0.0
    zero_fraction: float = 0.0
    nonfinite: int = 0
    units: int = 0               # output units of its 2-D weights
    dead_units: int = 0          # units whose incoming weights all got exactly zero
    sample: list[float] = field(default_factory=list)  # log10 |g| of non-zero finite values


@dataclass
class GradientSnapshot:
    layers: list[LayerGrad]
    loss: float | None = None
    no_grad: list[str] = field(default_factory=list)   # trainable parameters that got None
    trainable_params: int = 0
    frozen_params: int = 0
    step: int | None = None


@dataclass
class OptimizerChoice:
    """An optimizer as a run will build it: class name, arguments, learning rate, origin."""

    name: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    learning_rate: float | None = None
    source: str = ""
    instance: Any = None         # a live optimizer to copy (class and hyperparameters)
    clip_norm: float | None = None

    def describe(self) -> str:
        args = {**({"learning_rate": self.learning_rate} if self.learning_rate else {}),
                **{k: v for k, v in self.kwargs.items() if k not in ("lr", "learning_rate")}}
        shown = ", ".join(f"{k}={short_value(v)}" for k, v in args.items())
        clip = f" + clip_norm={self.clip_norm:g}" if self.clip_norm else ""
        return f"{self.name}({shown}){clip}"


@dataclass
class TrainRun:
    label: str
    optimizer: str
    learning_rate: float | None
    losses: list[float] = field(default_factory=list)  # the training loss of each step
    initial: float | None = None   # loss on the batch before the run (inference mode)
    final: float | None = None     # ... and after it
    seconds: float = 0.0
    error: str | None = None
    stopped: str | None = None
    trainable_params: int = 0
    final_snapshot: GradientSnapshot | None = None

    @property
    def ratio(self) -> float | None:
        if self.initial is None or self.final is None or not self.initial > 0:
            return None
        return self.final / self.initial

    @property
    def diverged(self) -> bool:
        bad = any(not math.isfinite(v) for v in self.losses)
        final = self.final if self.final is not None else float("nan")
        return bad or not math.isfinite(final) or (self.ratio or 0) >= OVERFIT_DIVERGED_RATIO

    @property
    def learnt(self) -> bool:
        if self.error or self.initial is None:
            return False
        if self.initial < ALREADY_FIT:
            return True
        r = self.ratio
        return r is not None and math.isfinite(r) and r <= OVERFIT_PASS_RATIO


@dataclass
class Target:
    """What a run trains: the model, one batch, the loss as the user wires it."""

    framework: str                 # "tensorflow" | "pytorch"
    model: Any
    batch: Any                     # wizard.context.Batch
    loss: Any = None               # None: the model's own loss; else a string / callable / object
    from_logits: bool | None = None
    transformers: bool = True


@dataclass
class LiveSetup:
    """Live objects from the Python API or a callback (absent when a case file is checked)."""

    optimizer: Any = None
    loss: Any = None
    training_args: Any = None
    plain: bool = False            # a plain Keras model / nn.Module, not a transformers model
    steps: int | None = None


# == grouping (used by both backends) ==========================================================
_NUMBERED = re.compile(r"^\d+$|.*_\._\d+$")


def layer_key(param_name: str) -> str:
    """The layer a parameter belongs to: up to the first numbered block (`encoder.layer.3`),
    else the embeddings module, else the parameter's own module (`classifier`)."""
    name = re.sub(r":\d+$", "", param_name)
    parts = [p for p in (name.split("/") if "/" in name else name.split(".")) if p]
    parent = parts[:-1] or parts
    for i, part in enumerate(parent):
        if _NUMBERED.match(part):
            return ".".join(parent[:i + 1])
    for i, part in enumerate(parent):
        if "embed" in part.lower():
            return ".".join(parent[:i + 1])
    return ".".join(parent)


def finish_layer(name: str, kind: str, params: int, sum_abs: float, sum_sq: float,
                 max_abs: float, zeros: int, nonfinite: int, units: int, dead_units: int,
                 sample: np.ndarray | None) -> LayerGrad:
    """A LayerGrad from sums the backends computed in their own framework."""
    n = max(params, 1)
    log_sample: list[float] = []
    if sample is not None and sample.size:
        s = np.abs(sample[np.isfinite(sample)].astype(np.float64))
        s = s[s > 0]
        log_sample = [round(float(v), 3) for v in np.log10(s)[:HIST_SAMPLE]]
    return LayerGrad(name=name, kind=kind, params=params, mean_abs=float(sum_abs) / n,
                     norm=math.sqrt(max(float(sum_sq), 0.0)) if math.isfinite(sum_sq) else float("inf"),
                     max_abs=float(max_abs), zero_fraction=zeros / n, nonfinite=int(nonfinite),
                     units=int(units), dead_units=int(dead_units), sample=log_sample)


def short_value(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)
