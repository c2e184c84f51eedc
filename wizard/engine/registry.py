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
    ProbeInfo("environment", "wizard.checks.environment:probe_environment", False,
              "Python environment"),
    ProbeInfo("hub", "wizard.checks.hub:probe_hub", False, "Model and dataset: where they come from"),
    ProbeInfo("triage", "wizard.triage.match:probe_triage", False, "Reading the error message"),
    ProbeInfo("batch", "wizard.checks.data:probe_batch_structure", True,
              "The batch as the model sees it"),
    ProbeInfo("labels", "wizard.checks.data:probe_labels_range", True, "Labels against num_labels"),
    ProbeInfo("balance", "wizard.checks.data:probe_label_balance", True, "Label balance"),
    ProbeInfo("labels-in-inputs", "wizard.checks.data:probe_labels_in_inputs", True,
              "Where the labels go"),
    ProbeInfo("forward", "wizard.checks.model:probe_forward", True, "One batch through the model"),
    ProbeInfo("optimizer", "wizard.checks.hyperparameters:probe_optimizer", True,
              "Hidden hyperparameters"),
    ProbeInfo("curves", "wizard.checks.curves:probe_curves", False, "Training logs"),
    ProbeInfo("label-column", "wizard.checks.labels:probe_label_column", True, "The label column"),
    ProbeInfo("label-values", "wizard.checks.labels:probe_label_values", True, "Label values and dtype"),
    ProbeInfo("eval-labels", "wizard.checks.labels:probe_eval_labels", True, "Eval labels against train"),
    ProbeInfo("empty-text", "wizard.checks.text:probe_empty_text", True, "Empty or missing texts"),
    ProbeInfo("duplicates", "wizard.checks.text:probe_duplicates", True, "Train/eval duplicates"),
    ProbeInfo("lengths", "wizard.checks.text:probe_lengths", True, "Token lengths"),
    ProbeInfo("pad-token", "wizard.checks.tokenizer:probe_pad_token", True, "The pad token"),
    ProbeInfo("vocab", "wizard.checks.tokenizer:probe_vocab", True,
              "Token ids against the embedding table"),
    ProbeInfo("tokenizer-checkpoint", "wizard.checks.tokenizer:probe_tokenizer_checkpoint", True,
              "The tokenizer against the checkpoint"),
    ProbeInfo("collation", "wizard.checks.collation:probe_collation", True, "Collation"),
    ProbeInfo("checkpoint-head", "wizard.checks.model_head:probe_checkpoint_head", True,
              "The checkpoint's head against num_labels"),
    ProbeInfo("num-labels", "wizard.checks.model_head:probe_num_labels", True,
              "num_labels against the classes"),
    ProbeInfo("label-mapping", "wizard.checks.model_head:probe_label_mapping", True,
              "id2label against the dataset's names"),
    ProbeInfo("trainable", "wizard.checks.trainable:probe_trainable", True, "Trainable parameters"),
    ProbeInfo("model-loss", "wizard.checks.trainable:probe_model_loss", True,
              "Does the model return a loss"),
    ProbeInfo("precision", "wizard.checks.precision:probe_precision", True, "Mixed precision"),
    ProbeInfo("cpu-rerun", "wizard.checks.precision:probe_cpu_rerun", True,
              "The failing batch again on the CPU"),
    ProbeInfo("run-eagerly", "wizard.checks.precision:probe_run_eagerly", True,
              "The graph error again, eagerly"),
    ProbeInfo("loss-strings", "wizard.checks.optimizer_checks:probe_loss_strings", True,
              "Losses given as strings"),
    ProbeInfo("from-logits", "wizard.checks.optimizer_checks:probe_from_logits", True,
              "from_logits against the model's outputs"),
    ProbeInfo("weight-decay", "wizard.checks.optimizer_checks:probe_weight_decay", True, "Weight decay"),
    ProbeInfo("warmup", "wizard.checks.optimizer_checks:probe_warmup", True, "Warmup"),
    ProbeInfo("keras3-optimizer", "wizard.checks.optimizer_checks:probe_keras3_optimizer", True,
              "A Keras 3 optimizer on a tf-keras model"),
    ProbeInfo("metrics", "wizard.checks.metrics:probe_metrics", True, "Your metric against baselines"),
    ProbeInfo("eval-label-set", "wizard.checks.metrics:probe_eval_label_set", True,
              "The eval split's labels"),
    ProbeInfo("memory", "wizard.checks.memory.probes:probe_memory", False,
              "Memory estimate from the config and weights' metadata"),
    ProbeInfo("memory-measure", "wizard.checks.memory.probes:probe_memory_measure", True,
              "Memory of one real training step"),
    ProbeInfo("largest-batch", "wizard.checks.memory.probes:probe_largest_batch", True,
              "The largest batch that fits"),
    ProbeInfo("overfit", "wizard.checks.training:probe_overfit", True, "Overfitting one batch"),
    ProbeInfo("gradients", "wizard.checks.training:probe_gradients", True, "Gradient flow per layer"),
    # the report step (wizard/probes/library.py)
    ProbeInfo("differential", "wizard.checks.library:probe_differential", True,
              "The same weights in the other framework"),
    ProbeInfo("reproduction", "wizard.checks.library:probe_reproduction", True,
              "A standalone reproduction script, verified"),
    ProbeInfo("newer-release", "wizard.checks.library:probe_newer_release", True,
              "Newer releases of the failing libraries"),
]}


def resolve(name: str) -> Callable:
    """A probe function by registered name, or by "module:function" (plugins, tests)."""
    if name in PROBES:
        return PROBES[name].load()
    if ":" in name:
        return ProbeInfo(name, name, True, name).load()
    raise KeyError(f"unknown probe {name!r}; known: {', '.join(PROBES)}")
