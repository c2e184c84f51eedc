"""Every probe by name: its function and whether it needs the framework worker.

Probes that load the model run in the worker process; the others run in the wizard itself. The
functions are imported here, so a wrong name fails when the registry is imported.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from wizard.checks import (
    adapters,
    causal_lm,
    collation,
    curves,
    data,
    environment,
    hyperparameters,
    labels,
    library,
    lm_truncation,
    metrics,
    metrics_tokens,
    model,
    model_head,
    optimizer_checks,
    packing,
    precision,
    qa,
    reported,
    seq2seq,
    text,
    token_cls,
    tokenizer,
    trainable,
    training,
    warmup_length,
)
from wizard.checks import hub as hub_checks
from wizard.checks.memory import probes as memory
from wizard.triage import match as triage


@dataclass(frozen=True)
class ProbeInfo:
    name: str
    function: Callable
    in_worker: bool      # needs the framework, model or data
    title: str

    @property
    def target(self) -> str:
        """Where the function lives, as "module:function"."""
        return f"{self.function.__module__}:{self.function.__name__}"


PROBES: dict[str, ProbeInfo] = {p.name: p for p in [
    ProbeInfo("environment", environment.probe_environment, False, "Python environment"),
    ProbeInfo("hub", hub_checks.probe_hub, False, "Model and dataset: where they come from"),
    ProbeInfo("triage", triage.probe_triage, False, "Reading the error message"),
    ProbeInfo("batch", data.probe_batch_structure, True, "The batch as the model sees it"),
    ProbeInfo("labels", data.probe_labels_range, True, "Labels against num_labels"),
    ProbeInfo("balance", data.probe_label_balance, True, "Label balance"),
    ProbeInfo("labels-in-inputs", data.probe_labels_in_inputs, True, "Where the labels go"),
    ProbeInfo("forward", model.probe_forward, True, "One batch through the model"),
    ProbeInfo("optimizer", hyperparameters.probe_optimizer, True, "Hidden hyperparameters"),
    ProbeInfo("curves", curves.probe_curves, False, "Training logs"),
    ProbeInfo("label-column", labels.probe_label_column, True, "The label column"),
    ProbeInfo("label-values", labels.probe_label_values, True, "Label values and dtype"),
    ProbeInfo("eval-labels", labels.probe_eval_labels, True, "Eval labels against train"),
    ProbeInfo("empty-text", text.probe_empty_text, True, "Empty or missing texts"),
    ProbeInfo("duplicates", text.probe_duplicates, True, "Train/eval duplicates"),
    ProbeInfo("lengths", text.probe_lengths, True, "Token lengths"),
    ProbeInfo("pad-token", tokenizer.probe_pad_token, True, "The pad token"),
    ProbeInfo("vocab", tokenizer.probe_vocab, True, "Token ids against the embedding table"),
    ProbeInfo("tokenizer-checkpoint", tokenizer.probe_tokenizer_checkpoint, True, "The tokenizer against the checkpoint"),
    ProbeInfo("collation", collation.probe_collation, True, "Collation"),
    ProbeInfo("checkpoint-head", model_head.probe_checkpoint_head, True, "The checkpoint's head against num_labels"),
    ProbeInfo("num-labels", model_head.probe_num_labels, True, "num_labels against the classes"),
    ProbeInfo("label-mapping", model_head.probe_label_mapping, True, "id2label against the dataset's names"),
    ProbeInfo("trainable", trainable.probe_trainable, True, "Trainable parameters"),
    ProbeInfo("model-loss", trainable.probe_model_loss, True, "Does the model return a loss"),
    ProbeInfo("precision", precision.probe_precision, True, "Mixed precision"),
    ProbeInfo("cpu-rerun", precision.probe_cpu_rerun, True, "The failing batch again on the CPU"),
    ProbeInfo("run-eagerly", precision.probe_run_eagerly, True, "The graph error again, eagerly"),
    ProbeInfo("loss-strings", optimizer_checks.probe_loss_strings, True, "Losses given as strings"),
    ProbeInfo("from-logits", optimizer_checks.probe_from_logits, True, "from_logits against the model's outputs"),
    ProbeInfo("weight-decay", optimizer_checks.probe_weight_decay, True, "Weight decay"),
    ProbeInfo("warmup", optimizer_checks.probe_warmup, True, "Warmup"),
    ProbeInfo("warmup-length", warmup_length.probe_warmup_length, True,
              "Warmup against the run's length"),
    ProbeInfo("keras3-optimizer", optimizer_checks.probe_keras3_optimizer, True, "A Keras 3 optimizer on a tf-keras model"),
    ProbeInfo("metrics", metrics.probe_metrics, True, "Your metric against baselines"),
    ProbeInfo("token-metrics", metrics_tokens.probe_token_metrics, True,
              "compute_metrics on a token classifier's labelled positions"),
    ProbeInfo("eval-label-set", metrics.probe_eval_label_set, True, "The eval split's labels"),
    ProbeInfo("memory", memory.probe_memory, False, "Memory estimate from the config and weights' metadata"),
    ProbeInfo("memory-measure", memory.probe_memory_measure, True, "Memory of one real training step"),
    ProbeInfo("largest-batch", memory.probe_largest_batch, True, "The largest batch that fits"),
    ProbeInfo("overfit", training.probe_overfit, True, "Overfitting one batch"),
    ProbeInfo("gradients", training.probe_gradients, True, "Gradient flow per layer"),
    ProbeInfo("lm-labels", causal_lm.probe_lm_labels, True, "Causal LM labels against input_ids"),
    ProbeInfo("chat-template", causal_lm.probe_chat_template, True, "The chat template"),
    ProbeInfo("lm-completion-length", lm_truncation.probe_completion_truncation, True,
              "Completions against max_length"),
    ProbeInfo("token-labels", token_cls.probe_token_labels, True, "Token labels against the words"),
    ProbeInfo("qa-positions", qa.probe_qa_positions, True, "Answer positions inside the context"),
    ProbeInfo("packing", packing.probe_packing, True, "Packed examples"),
    ProbeInfo("seq2seq-labels", seq2seq.probe_seq2seq_labels, True,
              "Seq2seq labels and decoder inputs"),
    ProbeInfo("adapter", adapters.probe_adapter, True, "The LoRA / QLoRA adapter"),
    ProbeInfo("differential", library.probe_differential, True, "The same weights in the other framework"),
    ProbeInfo("reproduction", library.probe_reproduction, True, "A standalone reproduction script, verified"),
    ProbeInfo("newer-release", library.probe_newer_release, True, "Newer releases of the failing libraries"),
    ProbeInfo("reported-before", reported.probe_reported_before, False, "The library's issues, searched for the error"),
]}


def resolve(name: str) -> Callable:
    """A probe function by registered name, or by "module:function" for a probe outside the
    registry (a plugin, a test); an unknown name raises."""
    if name in PROBES:
        return PROBES[name].function
    if ":" in name:
        module, func = name.split(":")
        return getattr(importlib.import_module(module), func)
    raise KeyError(f"unknown probe {name!r}; known: {', '.join(PROBES)}")
