"""Every probe by name: where its function lives and whether it needs the framework worker.

Probes that load the model run in the worker process; the others run in the wizard itself.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class ProbeInfo:
    name: str
    target: str          # "module:function"
    in_worker: bool      # needs the framework, model or data
    title: str

    def load(self) -> Callable:
        module, func = self.target.split(":")
        return getattr(importlib.import_module(module), func)


PROBES: dict[str, ProbeInfo] = {p.name: p for p in [
    ProbeInfo("environment", "wizard.probes.environment:probe_environment", False,
              "Python environment"),
    ProbeInfo("hub", "wizard.probes.hub:probe_hub", False, "Model and dataset: where they come from"),
    ProbeInfo("triage", "wizard.triage:probe_triage", False, "Reading the error message"),
    ProbeInfo("batch", "wizard.probes.data:probe_batch_structure", True,
              "The batch as the model sees it"),
    ProbeInfo("labels", "wizard.probes.data:probe_labels_range", True, "Labels against num_labels"),
    ProbeInfo("balance", "wizard.probes.data:probe_label_balance", True, "Label balance"),
    ProbeInfo("labels-in-inputs", "wizard.probes.data:probe_labels_in_inputs", True,
              "Where the labels go"),
    ProbeInfo("forward", "wizard.probes.model:probe_forward", True, "One batch through the model"),
    ProbeInfo("optimizer", "wizard.probes.hyperparameters:probe_optimizer", True,
              "Hidden hyperparameters"),
    ProbeInfo("curves", "wizard.probes.curves:probe_curves", False, "Training logs"),
]}


def resolve(name: str) -> Callable:
    """A probe function by registered name, or by "module:function" (plugins, tests)."""
    if name in PROBES:
        return PROBES[name].load()
    if ":" in name:
        return ProbeInfo(name, name, True, name).load()
    raise KeyError(f"unknown probe {name!r}; known: {', '.join(PROBES)}")
