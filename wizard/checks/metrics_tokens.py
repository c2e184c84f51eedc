"""compute_metrics of a token classifier, run the way the Trainer calls it: on positions whose
label is -100 (special tokens, later subwords, padding) nothing should be scored."""
from __future__ import annotations

from typing import Any

import numpy as np

from wizard.backends.lm_data import IGNORE_INDEX
from wizard.checks.metrics import OwnMetric, call_safely, compile_compute_metrics, eval_prediction
from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding

FIX = ("def compute_metrics(eval_pred):\n    logits, labels = eval_pred\n"
       "    predictions = np.argmax(logits, axis=-1)\n"
       "    kept = labels != -100   # special tokens, later subwords, padding\n"
       '    return {"accuracy": float((predictions[kept] == labels[kept]).mean())}')


def probe_token_metrics(case: Case, ctx: Context) -> list[Finding]:
    """metrics.value-disagrees for token classification: the user's accuracy against the
    accuracy over the labelled positions of the same first batch."""
    source = case.training.compute_metrics or ctx.loaded("compute_metrics")
    if source is None:
        return []
    fwd, batch = ctx.forward, ctx.batch
    labels = batch.inputs.get("labels", batch.labels)
    if fwd is None or fwd.logits is None or labels is None:
        return []
    logits, labels = np.asarray(fwd.logits), np.asarray(labels)
    if logits.ndim != 3 or labels.shape != logits.shape[:2]:
        return []
    fn: Any = source if callable(source) else compile_compute_metrics(str(source),
                                                                      OwnMetric(("accuracy",)))
    result, err = call_safely(lambda: fn(eval_prediction(logits, labels)))
    if err is not None or not isinstance(result, dict):
        return []
    preds, kept = logits.argmax(-1), labels != IGNORE_INDEX
    if not kept.any():
        return []
    labelled = float((preds[kept] == labels[kept]).mean())
    everywhere = float((preds == labels).mean())
    evidence = {"result": {k: v for k, v in result.items() if isinstance(v, (int, float))},
                "accuracy_on_labelled_positions": round(labelled, 4),
                "accuracy_on_every_position": round(everywhere, 4),
                "labelled_share": round(float(kept.mean()), 4)}
    accuracy = {k: float(v) for k, v in result.items()
                if "acc" in k.lower() and isinstance(v, (int, float))}
    off = {k: v for k, v in accuracy.items() if abs(v - labelled) > 1e-3}
    if not off:
        return [Finding("metrics.value-disagrees", "pass",
                        "compute_metrics scores the labelled positions only", evidence=evidence)]
    counted = all(abs(v - everywhere) <= 1e-3 for v in off.values())
    return [Finding(
        "metrics.value-disagrees", "fail" if counted else "warn",
        "compute_metrics scores the positions labelled -100 too" if counted else
        "compute_metrics returns another accuracy than the labelled positions give",
        evidence=evidence,
        explanation=(f"Only {kept.mean():.0%} of the positions carry a label; the rest are -100 "
                     "(special tokens, later subwords, padding), which no prediction can match. "
                     "Counting them caps the accuracy far below what the model reaches: "
                     f"{labelled:.2f} on the labelled positions of this batch, {everywhere:.2f} "
                     "as your function counts." if counted else
                     "On the first batch your compute_metrics and a direct computation over "
                     "the labelled positions disagree."),
        fix=FIX)]
