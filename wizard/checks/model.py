"""Model probes: one batch through the freshly loaded model, no weight update."""
from __future__ import annotations

import math

import numpy as np

from wizard.backends.lm_data import token_rows
from wizard.checks.data import binary_cross_entropy, cross_entropy
from wizard.context import Context, ForwardResult
from wizard.core.case import Case
from wizard.core.findings import Finding
from wizard.core.tasks import CAUSAL_LM, SEQ2SEQ
from wizard.triage.parse import parse_traceback

INITIAL_LOSS_TOLERANCE = 0.5  # |loss - ln C| > 0.5 * ln C is a wiring problem, not chance


def probe_forward(case: Case, ctx: Context) -> list[Finding]:
    """Finite logits, per-sample loss, and the initial loss against ln(C)."""
    fwd, batch = ctx.forward, ctx.batch
    if fwd.logits is None:
        return [_forward_raised(fwd)]
    logits, labels = fwd.logits, batch.labels
    if logits.ndim == 3:  # a causal LM or a token classifier: one row per position
        logits, labels = token_rows(logits, labels, shift=case.task == CAUSAL_LM)
    lm_head = case.task in (CAUSAL_LM, SEQ2SEQ)  # a pretrained head, not a fresh one
    findings: list[Finding] = []
    bad_rows = np.flatnonzero(~np.isfinite(logits).all(axis=1))
    evidence = {"logits_shape": list(logits.shape), "seconds": round(fwd.seconds, 3),
                "device": ctx.device, "first_logits": np.round(logits[:3], 4).tolist()}
    if bad_rows.size:
        findings.append(Finding(
            "model.forward", "fail", f"The model outputs NaN/Inf logits for {bad_rows.size} samples",
            evidence={**evidence, "samples": bad_rows[:10].tolist()},
            explanation="Before any training step the outputs are not finite: look at those "
                        "samples' inputs (token ids, masks) and at the checkpoint's weights.",
            fix="import numpy as np\nprint(np.flatnonzero(~np.isfinite(logits).all(axis=1)))"))
    else:
        findings.append(Finding("model.forward", "pass",
                                f"One batch runs through the model ({logits.shape[0]} x "
                                f"{logits.shape[1]} finite logits)", evidence=evidence))
    if labels is None:
        return findings
    multi_hot = np.ndim(labels) == 2 and np.shape(labels) == logits.shape
    per_sample = (binary_cross_entropy(logits, labels) if multi_hot else
                  cross_entropy(logits, labels))
    nan = np.flatnonzero(~np.isfinite(per_sample))
    if nan.size and not multi_hot:
        labels_at = sorted({int(labels[i]) for i in nan})
        findings.append(Finding(
            "model.nan-loss-samples", "warn",
            f"{nan.size} of {len(per_sample)} samples in the first batch have a NaN loss",
            evidence={"indices": nan.tolist(), "labels_of_those": labels_at,
                      "num_labels": ctx.num_labels, "framework_error": fwd.error,
                      "per_sample_loss": [None if not np.isfinite(v) else round(float(v), 4)
                                          for v in per_sample]},
            explanation="These samples share the labels listed; compare them with num_labels "
                        "(see data.labels-out-of-range).",
            fix="loss = model(batch).loss.numpy()\nindices = np.flatnonzero(np.isnan(loss))\n"
                "print(batch['labels'].numpy()[indices])"))
    finite = per_sample[np.isfinite(per_sample)]
    if finite.size:
        c = 2 if multi_hot else logits.shape[1]  # multi-label: one yes/no per class
        loss = float(finite.mean())
        expected = math.log(c) if c > 1 else float("nan")
        off = c > 1 and abs(loss - expected) > INITIAL_LOSS_TOLERANCE * expected
        if lm_head:  # a pretrained LM starts far below ln(vocab); above it is broken
            off = c > 1 and loss > (1 + INITIAL_LOSS_TOLERANCE) * expected
        findings.append(Finding(
            "model.initial-loss", "warn" if off else "info",
            f"Initial loss {loss:.3f} {'is far from' if off else 'is close to'} ln({c}) = {expected:.3f}",
            evidence={"initial_loss": round(loss, 4), "ln_C": round(expected, 4), "classes": c,
                      "samples": int(finite.size), "framework_loss": fwd.loss},
            explanation=("An untrained classification head predicts near-uniform probabilities, "
                         "so its loss should be near ln(C). " +
                         ("A large gap points at a saturated head or a loss wired the wrong way."
                          if off else "The head starts where it should.")),
            fix="" if not off else "print(model(batch).logits[:4])  # look for very large logits"))
    return findings


def _forward_raised(fwd: ForwardResult) -> Finding:
    """The plain forward pass (no labels) raised: where, and whether inside library code."""

    parsed = parse_traceback(fwd.traceback)
    inner = parsed.frames[-1] if parsed.frames else None
    library = bool(parsed.frames) and parsed.library_frames_innermost
    return Finding(
        "model.forward-raised", "warn",
        f"The forward pass raises {fwd.error.split(':')[0] if fwd.error else 'an error'}"
        + (" inside library code" if library else ""),
        evidence={"error": fwd.error, "innermost_frame": inner.to_dict() if inner else None,
                  "innermost_in_library": library, "traceback": fwd.traceback[-4000:]},
        explanation="Even without labels, one batch through the freshly loaded model fails. "
                    + ("The innermost frames are in library code: if the data checks are clean, "
                       "this may be a library bug (see the reproduction)." if library else
                       "The innermost frame is in your code."),
        fix="")
