"""What trains: trainable parameters (nothing trainable, a frozen body or head) and whether the
model computes the loss the training loop reads (Trainer, a plain loop, Keras without a loss).

Gradient flow through the layers is the training probes' job; these checks are static
(requires_grad / trainable flags) plus one forward pass with the batch as the trainer sends it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from wizard.checks.hyperparameters import effective_learning_rate, optimizer_defaults
from wizard.checks.model_head import model_class
from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding
from wizard.core.tasks import CAUSAL_LM
from wizard.core.optimizer import parse_optimizer

LABEL_KEYS = ("labels", "label", "label_ids")  # kept by Trainer, renamed to labels by collators
# A head trained alone needs a feature-extraction rate: Keras' transfer-learning guide trains the
# new head over a frozen base at Adam's default 1e-3 and fine-tunes the whole model at 1e-5.
# At or below the top of the fine-tuning range (1e-4) a frozen body leaves the head barely moving.
HEAD_ONLY_MIN_LR = 1e-4
HEAD_ONLY_SOURCE = "keras.io/guides/transfer_learning (head over a frozen base at 1e-3)"


def _parameters(model: Any, framework: str) -> list[tuple[str, int, bool]]:
    """(name, size, trainable) for every parameter, as the framework sees them."""
    if framework == "tensorflow":
        return ([(w.name, int(np.prod(w.shape)), True) for w in model.trainable_weights]
                + [(w.name, int(np.prod(w.shape)), False) for w in model.non_trainable_weights])
    return [(n, int(p.numel()), bool(p.requires_grad)) for n, p in model.named_parameters()]


def _in_body(name: str, prefix: str, framework: str) -> bool:
    if not prefix:
        return True
    if framework == "tensorflow":
        return name.startswith(prefix + "/") or f"/{prefix}/" in name
    return name.startswith(prefix + ".")


def _group(name: str, framework: str) -> str:
    """A readable module name: the first two path parts of a parameter name."""
    sep = "/" if framework == "tensorflow" else "."
    parts = [p for p in name.split(sep) if p and not p.startswith("tf_")]
    return sep.join(parts[:3 if framework == "tensorflow" else 2])


def probe_trainable(case: Case, ctx: Context) -> list[Finding]:
    """Nothing trainable (fail), a frozen head or body, or a partly frozen model."""
    model = ctx.model
    params = _parameters(model, case.framework)
    if not params:
        return []
    prefix = getattr(model, "base_model_prefix", "") or ""
    total = sum(s for _, s, _ in params)
    trainable = sum(s for _, s, t in params if t)
    body = [(n, s, t) for n, s, t in params if _in_body(n, prefix, case.framework)]
    head = [(n, s, t) for n, s, t in params if not _in_body(n, prefix, case.framework)]
    frozen_groups = sorted({_group(n, case.framework) for n, _, t in params if not t})
    evidence = {"parameters": total, "trainable": trainable,
                "trainable_share": round(trainable / total, 4) if total else 0.0,
                "body_trainable": sum(s for _, s, t in body if t), "body": sum(s for _, s, _ in body),
                "head_trainable": sum(s for _, s, t in head if t), "head": sum(s for _, s, _ in head),
                "frozen_modules": frozen_groups[:20]}
    tf = case.framework == "tensorflow"
    if trainable == 0:
        return [Finding(
            "model.nothing-trainable", "fail", f"None of the model's {total:,} parameters is trainable",
            evidence=evidence,
            explanation="Every parameter is frozen, so training cannot change anything: Keras "
                        "raises 'No gradients provided for any variable' or the loss stays "
                        "exactly flat; PyTorch's loss.backward() raises 'element 0 of tensors "
                        "does not require grad'.",
            fix=("model.trainable = True\nmodel.compile(optimizer=optimizer)  # compile again after "
                 "changing trainable" if tf else
                 "for p in model.parameters():\n    p.requires_grad = True"))]
    findings = [Finding("model.nothing-trainable", "pass",
                        f"{trainable:,} of {total:,} parameters are trainable", evidence=evidence)]
    attr = _head_attr(model)
    output = [t for n, _, t in head if _in_body(n, attr, case.framework)]
    body_frozen = bool(body) and bool(head) and evidence["body_trainable"] == 0
    head_frozen = bool(output) and not any(output) and evidence["body_trainable"] > 0 \
        and not _pretrained_head(case, model)
    if head_frozen:
        findings.append(Finding(
            "model.frozen-parameters", "warn",
            f"The output layer ({attr}) is frozen while the body trains",
            evidence=evidence,
            explanation="The head keeps its (usually random, newly initialised) weights, so the "
                        "body has to learn to fit a fixed random projection: the loss falls "
                        "slowly if at all.",
            fix=(f"model.get_layer({attr!r}).trainable = True\nmodel.compile(optimizer=optimizer)"
                 if tf else f"for p in model.{attr}.parameters():\n    p.requires_grad = True")))
    elif body_frozen:
        symptom = case.symptom in ("loss-not-decreasing", "metric-wrong")
        lr = _learning_rate(case, ctx)
        slow = lr is not None and lr <= HEAD_ONLY_MIN_LR
        evidence.update(learning_rate=lr, head_only_min_learning_rate=HEAD_ONLY_MIN_LR,
                        source=HEAD_ONLY_SOURCE)
        findings.append(Finding(
            "model.frozen-parameters", "fail" if slow else "warn" if symptom else "info",
            f"The pretrained body is frozen: only the head's {evidence['head_trainable']:,} "
            "parameters train" + (f", at a fine-tuning learning rate ({lr:g})" if slow else ""),
            evidence=evidence,
            explanation="Freezing the body is feature extraction: it is cheap, but accuracy is "
                        "capped well below fine-tuning, and the head alone needs a higher "
                        "learning rate (around 1e-3) than the 5e-5 used to fine-tune the whole "
                        "model." + (f" At {lr:g} the head barely moves and the loss stays flat."
                                    if slow else
                                    " With your symptom this is a likely cause." if symptom
                                    else ""),
            fix=(f"model.{prefix}.trainable = True\nmodel.compile(optimizer=optimizer)" if tf else
                 f"for p in model.{prefix}.parameters():\n    p.requires_grad = True")))
    elif frozen_groups:
        findings.append(Finding(
            "model.frozen-parameters", "info",
            f"{total - trainable:,} parameters are frozen ({len(frozen_groups)} modules)",
            evidence=evidence,
            explanation="Part of the model is frozen; if that is not intended, unfreeze it."))
    return findings


def _pretrained_head(case: Case, model: Any) -> bool:
    """A causal LM's output layer is pretrained (often tied to the embeddings), and an adapter
    freezes it by design: frozen, it is not the random-head fault."""
    return case.task == CAUSAL_LM or case.adapter.active or hasattr(model, "peft_config")


def _head_attr(model: Any) -> str:
    for name in ("classifier", "score", "head", "lm_head"):
        if hasattr(model, name):
            return name
    return "classifier"


# -- does the model return the loss the trainer reads? ------------------------------------------
def _needs_model_loss(case: Case) -> bool:
    if case.framework == "tensorflow":
        return case.trainer == "keras" and not case.training.loss
    return case.trainer in ("trainer", "loop")


def _inputs_as_trainer_sends(case: Case, ctx: Context) -> tuple[dict[str, np.ndarray], list[str]]:
    """The batch as the training loop passes it to the model, and the keys it drops."""
    batch = ctx.batch
    arrays = dict(batch.inputs)
    if batch.labels is not None and batch.label_key not in arrays:
        arrays["labels"] = batch.labels  # passed separately (Keras y) -> model's labels
    if case.framework == "pytorch" and case.trainer == "trainer":
        import inspect

        signature = set(inspect.signature(ctx.model.forward).parameters) | set(LABEL_KEYS)
        dropped = [k for k in arrays if k not in signature]
        return {k: v for k, v in arrays.items() if k not in dropped}, dropped
    return arrays, []


def _run(case: Case, ctx: Context, arrays: dict[str, np.ndarray]) -> Any:
    model = ctx.model
    if case.framework == "tensorflow":
        import tensorflow as tf

        if "label" in arrays and "labels" not in arrays:
            arrays = {("labels" if k == "label" else k): v for k, v in arrays.items()}
        return model({k: tf.constant(v) for k, v in arrays.items()}, training=False)
    import torch

    device = next(model.parameters()).device
    model.eval()
    with torch.no_grad():
        return model(**{k: torch.as_tensor(v).to(device) for k, v in arrays.items()})


def _keys(out: Any) -> list[str]:
    if hasattr(out, "keys"):
        return [k for k in out.keys() if out.get(k) is not None] if hasattr(out, "get") else list(out)
    return [type(out).__name__]


def probe_model_loss(case: Case, ctx: Context) -> list[Finding]:
    """Trainer / a loop using outputs.loss / Keras without a compile loss: the model must
    return a loss for the batch as the trainer sends it."""
    if not _needs_model_loss(case):
        return []
    arrays, dropped = _inputs_as_trainer_sends(case, ctx)
    sent = list(arrays)
    has_labels = any(k in LABEL_KEYS for k in sent)
    cls = model_class(case)
    evidence: dict[str, Any] = {"trainer": case.trainer, "inputs_sent": sent,
                                "dropped_by_trainer": dropped,
                                "labels_among_inputs": has_labels,
                                "model_class": type(ctx.model).__name__}
    try:
        out = _run(case, ctx, arrays)
    except (IndexError, ValueError, RuntimeError) as exc:
        # a loss that cannot be computed (e.g. labels out of range) is another check's finding:
        # the model did try to compute one, so the labels reached it
        if not has_labels:
            raise
        evidence["error"] = f"{type(exc).__name__}: {str(exc).strip()[:200]}"
        return [Finding("model.no-loss", "pass", "The labels reach the model and it computes a "
                        "loss (which fails on these labels: see the data checks)", evidence=evidence)]
    except TypeError as exc:
        lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()] or [""]
        text = next((ln for ln in lines if "unexpected keyword" in ln), lines[0])[:300]
        evidence["error"] = f"TypeError: {text}"
        no_head = "'labels'" in text
        return [Finding(
            "model.no-loss", "fail",
            (f"{type(ctx.model).__name__} does not take labels: it has no task head"
             if no_head else f"The model rejects the batch: {text}"),
            evidence=evidence,
            explanation=("A bare model class (AutoModel/TFAutoModel) returns hidden states, not "
                         "logits or a loss; training needs the class with a head." if no_head else
                         "A column the model does not accept is passed to it; rename the label "
                         "column to `labels` and drop the rest."),
            fix=(f"from transformers import {cls}\nmodel = {cls}.from_pretrained({case.model!r}, "
                 "num_labels=num_labels)" if no_head else
                 "dataset = dataset.rename_column('label_column_name', 'labels')\n"
                 "dataset = dataset.remove_columns([c for c in dataset.column_names\n"
                 "                                  if c not in ('input_ids', 'attention_mask', "
                 "'labels')])"))]
    loss = out.get("loss") if hasattr(out, "get") else getattr(out, "loss", None)
    keys = _keys(out)
    evidence["output_keys"] = keys
    if loss is not None:
        value = float(np.asarray(loss.detach().cpu() if hasattr(loss, "detach") else loss).mean())
        return [Finding("model.no-loss", "pass",
                        f"The model computes its own loss from the batch ({value:.4f})",
                        evidence={**evidence, "loss": round(value, 4)})]
    message = (f"The model did not return a loss from the inputs, only the following keys: "
               f"{','.join(keys)}. For reference, the inputs it received are {','.join(sent)}.")
    evidence["trainer_message"] = message
    if not has_labels:
        label_col = case.dataset.label_column
        return [Finding(
            "model.no-loss", "fail", "The labels never reach the model, so it returns no loss",
            evidence={**evidence, "label_column": label_col},
            explanation=(f"The label column {label_col!r} is "
                         + ("dropped by Trainer's remove_unused_columns: the model's forward has "
                            "no argument of that name" if label_col in dropped else
                            "not among the inputs") +
                         ". Without labels the model returns logits only; Trainer then raises "
                         "the message in the evidence (see also data.label-column-missing)."),
            fix=f"dataset = dataset.rename_column({label_col!r}, 'labels')")]
    return [Finding(
        "model.no-loss", "fail", f"{type(ctx.model).__name__} gets labels but returns no loss",
        evidence=evidence,
        explanation="The model class has no task head, so it ignores the labels and returns only "
                    "hidden states. Trainer raises the message in the evidence; a loop's "
                    "outputs.loss is None.",
        fix=f"from transformers import {cls}\nmodel = {cls}.from_pretrained({case.model!r}, "
            "num_labels=num_labels)")]


def _learning_rate(case: Case, ctx: Context) -> float | None:
    """The learning rate the run uses (None when it cannot be told)."""
    spec = parse_optimizer(case.training.optimizer)
    try:
        defaults = optimizer_defaults(case, ctx, spec)
    except Exception:
        defaults = {}
    return effective_learning_rate(case, spec, defaults)[0]
