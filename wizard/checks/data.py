"""Data probes: look at the batch where it enters the model, and at the labels."""
from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np

from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding, Plot

IGNORE_INDEX = -100  # transformers' "ignore this label" value
SHOWN_TOKEN_LABELS = 32  # per-token labels shown for an example (padding never)


def probe_batch_structure(case: Case, ctx: Context) -> list[Finding]:
    """Keys, shapes and dtypes of the first batch, and its first examples decoded."""
    batch = ctx.batch
    structure = {k: {"shape": list(v.shape), "dtype": str(v.dtype)} for k, v in batch.inputs.items()}
    examples = []
    ids = batch.inputs.get("input_ids")
    for i in range(min(3, len(batch.indices))):
        text = ctx.tokenizer.decode(ids[i], skip_special_tokens=False) if ids is not None else ""
        text = text.replace(f" {ctx.tokenizer.pad_token}", "") if ctx.tokenizer.pad_token else text
        label = None if batch.labels is None else (
            batch.labels[i].tolist() if np.ndim(batch.labels[i]) else int(batch.labels[i]))
        name = _label_name(ctx, label)
        if isinstance(label, list) and len(label) > 1 and ids is not None \
                and len(label) == len(ids[i]):  # one label per token: as long as the text
            mask = batch.inputs.get("attention_mask")
            length = int(np.sum(mask[i])) if mask is not None else len(label)
            label = label[:min(length, SHOWN_TOKEN_LABELS)] + (
                ["…"] if length > SHOWN_TOKEN_LABELS else [])
        examples.append({"index": batch.indices[i], "decoded": text, "label": label,
                         "label_name": name})
    where = "inside the input dict" if batch.labels_in_inputs else "separate from the inputs"
    return [Finding(
        "data.batch-structure", "info", "The first batch as it enters the model",
        evidence={"inputs": structure, "labels": where, "label_key": batch.label_key,
                  "batch_size": len(batch.indices), "examples": examples},
        explanation=f"The model receives {', '.join(structure)}; the labels sit {where}. "
                    "Read the decoded examples: do you agree with their labels?")]


def probe_labels_range(case: Case, ctx: Context) -> list[Finding]:
    """Labels must be integers in 0..num_labels-1 (or the ignore index -100); 0..1 for one
    output under a binary cross-entropy."""
    num_labels = ctx.num_labels
    top = 2 if num_labels == 1 and case.training.binary_loss else num_labels
    findings: list[Finding] = []
    bad_total: dict[str, Any] = {}
    for split in ctx.raw:
        labels = ctx.labels(split)
        if labels.dtype.kind not in "iu":
            continue  # string / float labels are other checks
        bad = np.flatnonzero(((labels >= top) | (labels < 0)) & (labels != IGNORE_INDEX))
        if bad.size:
            bad_total[split] = {"count": int(bad.size), "of": int(labels.size),
                                "indices": bad[:10].tolist(),
                                "values": sorted({int(v) for v in labels[bad]})}
    if not bad_total:
        return [Finding("data.labels-out-of-range", "pass",
                        f"All labels are within 0..{top - 1}",
                        evidence={"num_labels": num_labels,
                                  **({"binary_loss": case.training.loss} if top != num_labels
                                     else {})})]
    observed = sorted({int(v) for s in ctx.raw for v in np.unique(ctx.labels(s))
                       if ctx.labels(s).dtype.kind in "iu" and v != IGNORE_INDEX})
    needed = max(observed) + 1
    names = ctx.label_names
    split, info = next(iter(bad_total.items()))
    evidence: dict[str, Any] = {"num_labels": num_labels, "model.config.num_labels": num_labels,
                                "labels_seen": observed, "classes_in_data": needed,
                                "out_of_range": bad_total}
    forward = _forward_evidence(ctx)
    evidence.update(forward)
    cls = "TFAutoModelForSequenceClassification" if case.framework == "tensorflow" else \
        "AutoModelForSequenceClassification"
    fix = f"model = {cls}.from_pretrained(\n    {case.model!r},\n    num_labels={needed},"
    if names and len(names) == needed:
        fix += (f"\n    id2label={dict(enumerate(names))},"
                f"\n    label2id={ {n: i for i, n in enumerate(names)} },")
    fix += "\n)"
    findings.append(Finding(
        "data.labels-out-of-range", "fail",
        f"Labels reach {max(info['values'])} but the model has num_labels={num_labels}",
        evidence=evidence,
        explanation=f"{info['count']} of {info['of']} {split!r} samples have a label the "
                    f"classifier head has no output for (e.g. rows {info['indices'][:5]}). "
                    "TensorFlow on CPU raises 'Received a label value ... outside the valid range', "
                    "on GPU or with XLA the loss of exactly those samples is NaN; PyTorch raises "
                    "'Target N is out of bounds'.",
        fix=fix))
    return findings


def _forward_evidence(ctx: Context) -> dict[str, Any]:
    """What the framework itself did with the first batch: its error or its NaN samples."""
    try:
        fwd = ctx.forward
    except Exception as exc:  # evidence only; the model probe reports the failure itself
        return {"forward_error": f"{type(exc).__name__}: {exc}"[:300]}
    out: dict[str, Any] = {}
    if fwd.error:
        out["framework_error"] = fwd.error
    if fwd.loss_per_sample is not None:
        nan = np.flatnonzero(~np.isfinite(fwd.loss_per_sample))
        if nan.size:
            out["nan_loss_samples_in_first_batch"] = nan.tolist()
    return out


def probe_label_balance(case: Case, ctx: Context) -> list[Finding]:
    """Class shares, and the loss/accuracy that random or constant predictions would give."""
    labels = ctx.labels()
    if labels.dtype.kind not in "iu":
        return []
    labels = labels[labels != IGNORE_INDEX]
    counts = Counter(int(v) for v in labels)
    n, c = int(labels.size), len(counts)
    if n == 0:
        return []
    majority, maj_count = counts.most_common(1)[0]
    rarest, rare_count = min(counts.items(), key=lambda kv: kv[1])
    classes = max(c, ctx.num_labels)
    p_major = maj_count / n
    evidence = {
        "samples": n, "classes": c, "counts": {str(k): v for k, v in sorted(counts.items())},
        "majority": {"label": majority, "name": _label_name(ctx, majority), "share": round(p_major, 3)},
        "rarest": {"label": rarest, "name": _label_name(ctx, rarest), "share": round(rare_count / n, 3)},
        "expected_initial_loss_ln_C": round(math.log(classes), 4),
        "uniform_random": {"loss": round(math.log(classes), 4), "accuracy": round(1 / classes, 3)},
        "majority_constant": {"accuracy": round(p_major, 3)},
        "prior_loss": round(-sum((k / n) * math.log(k / n) for k in counts.values()), 4),
    }
    status = "warn" if p_major >= 0.9 and c > 1 else "info"
    title = (f"One class dominates: {p_major:.0%} of the labels are {majority}" if status == "warn"
             else f"{c} classes; the majority class holds {p_major:.0%}")
    names = [_label_name(ctx, k) or str(k) for k in sorted(counts)]
    plot = Plot(name="label-balance", title="Label balance (train sample)", kind="bar",
                series={"labels": names, "values": [counts[k] for k in sorted(counts)]},
                ylabel="samples")
    return [Finding("data.label-balance", status, title, evidence=evidence,
                    explanation="A model predicting only the majority class reaches "
                                f"{p_major:.0%} accuracy; an untrained classifier's loss should be "
                                f"near ln({classes}) = {math.log(classes):.2f}.",
                    fix="" if status == "info" else
                    "# weight the loss by inverse class frequency, or resample the training set",
                    plots=[plot])]


def probe_labels_in_inputs(case: Case, ctx: Context) -> list[Finding]:
    """Keras: labels inside the input dict while compile() also got a loss (the course's fault 1)."""
    if case.framework != "tensorflow" or case.trainer != "keras":
        return []
    loss = case.training.loss
    batch = ctx.batch
    if not loss:
        return []
    if not batch.labels_in_inputs:
        return [Finding("data.labels-in-inputs-with-keras-loss", "pass",
                        "Labels are passed separately, as compile(loss=...) expects",
                        evidence={"loss": loss, "input_keys": list(batch.inputs)})]
    evidence: dict[str, Any] = {"compile_loss": loss, "input_keys": list(batch.inputs),
                                "label_key": batch.label_key}
    defaults: dict[str, Any] = {}
    if isinstance(loss, str):
        try:
            defaults = ctx.backend.loss_defaults(loss)
            evidence["loss_defaults"] = defaults
        except Exception:
            pass
    from_logits = case.training.from_logits
    if from_logits is None:
        from_logits = bool(defaults.get("from_logits", False))
    measured = _keras_vs_internal(ctx, loss)
    evidence.update(measured)
    status = "warn" if from_logits else "fail"
    explanation = (
        f"The batch carries `{batch.label_key}` inside the input dict, so the model computes its "
        "own loss, and compile() was also given a loss. Older transformers then fail with 'No "
        "gradients provided for any variable'; transformers 4.57 copies the labels out and Keras "
        f"trains on {loss!r} instead")
    if not from_logits:
        explanation += (", which treats the model's logits as probabilities (from_logits=False): "
                        "a wrong loss, silently")
    if "keras_loss" in measured:
        explanation += (f". Measured on the in-range samples of one batch: Keras loss "
                        f"{measured['keras_loss']:.3f}, the model's own loss "
                        f"{measured['internal_loss']:.3f}, ln(C) = {measured['ln_C']:.3f}")
    return [Finding(
        "data.labels-in-inputs-with-keras-loss", status,
        "Labels ride inside the inputs while compile() got a loss",
        evidence=evidence, explanation=explanation + ".",
        fix="# Option 1 (simplest): let the model use its internal loss\n"
            "model.compile(optimizer=optimizer)  # no loss=\n\n"
            "# Option 2: keep a Keras loss and pass the labels separately\n"
            "train_dataset = tokenized_datasets[\"train\"].to_tf_dataset(\n"
            "    columns=[\"input_ids\", \"attention_mask\"], label_cols=[\"labels\"],\n"
            f"    batch_size={case.training.batch_size}, shuffle=True, collate_fn=data_collator)\n"
            "model.compile(optimizer=optimizer,\n"
            "              loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))")]


def _keras_vs_internal(ctx: Context, loss: str) -> dict[str, Any]:
    """Keras's loss and the model's own loss on the samples whose labels are in range."""
    batch, fwd = ctx.batch, ctx.forward
    if batch.labels is None or fwd.logits is None:
        return {}
    ok = (batch.labels >= 0) & (batch.labels < ctx.num_labels)
    if not ok.any():
        return {}
    labels, logits = batch.labels[ok], fwd.logits[ok]
    try:
        keras = ctx.backend.keras_loss(loss, labels, logits)
    except Exception as exc:
        return {"keras_loss_error": f"{type(exc).__name__}: {exc}"[:300]}
    internal = float(np.mean(cross_entropy(logits, labels)))
    return {"keras_loss": round(keras, 4), "internal_loss": round(internal, 4),
            "ln_C": round(math.log(logits.shape[1]), 4), "samples_used": int(ok.sum())}


def cross_entropy(logits: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per-sample softmax cross-entropy; NaN where a label has no logit (as on GPU)."""
    logits = logits.astype(np.float64)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    out = np.full(len(labels), np.nan)
    ok = (labels >= 0) & (labels < logits.shape[1])
    out[ok] = -log_probs[np.flatnonzero(ok), labels[ok].astype(int)]
    return out


def binary_cross_entropy(logits: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Per-sample mean sigmoid cross-entropy of multi-hot targets (BCEWithLogitsLoss)."""
    x, y = logits.astype(np.float64), targets.astype(np.float64)
    return (np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x)))).mean(axis=1)


def _label_name(ctx: Context, label: Any) -> str | None:
    names = ctx.label_names
    if not isinstance(label, int) or not names or not 0 <= label < len(names):
        return None
    return names[label]
