"""Evaluation and metrics (the course's "problem with your metric").

The user's metric is loaded as they load it (`evaluate.load`: a local script or folder works
offline; a Hub metric needs the network, and offline the wizard says so and computes the common
ones itself), run on baseline predictions (uniform random, majority class) and on the model's
predictions for one batch. The user's compute_metrics is called the way Trainer and Keras'
KerasMetricCallback call it, with the raw logits: fed logits, shape/type mismatches and values
that disagree with a direct computation are caught there. The eval split's label set is
compared with train's.

Where the metric comes from: `case.training.metrics` (names, paths) and
`case.training.compute_metrics` (a function's source) once the case has those fields; until then
the context attributes `metrics` / `metric` and `compute_metrics` (live objects or source text).
"""
from __future__ import annotations

import builtins
import os
from collections import Counter
from typing import Any, Callable

import numpy as np

from wizard.checks.model_head import IGNORE_LABELS
from wizard.checks.optimizer_checks import user_metrics
from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding, Plot

OWN_METRICS = ("accuracy", "f1", "precision", "recall", "matthews_correlation")
ALIASES = {"acc": "accuracy", "mcc": "matthews_correlation", "matthews": "matthews_correlation",
           "f1_score": "f1"}
GLUE = {"mrpc": ("accuracy", "f1"), "qqp": ("accuracy", "f1"), "cola": ("matthews_correlation",)}
SEED = 0
_FORMAT = "Predictions and/or references don't match the expected format."


# -- the wizard's own metrics ---------------------------------------------------------------------
def _confusion(pred: np.ndarray, ref: np.ndarray, classes: list[int]) -> np.ndarray:
    index = {c: i for i, c in enumerate(classes)}
    m = np.zeros((len(classes), len(classes)), dtype=np.int64)
    for r, p in zip(ref, pred):
        m[index[int(r)], index[int(p)]] += 1
    return m


def _prf(pred: np.ndarray, ref: np.ndarray, average: str | None, pos_label: int = 1
         ) -> dict[str, Any]:
    classes = sorted({int(v) for v in np.concatenate([pred, ref])})
    if average == "binary":
        if len(classes) > 2:
            raise ValueError("Target is multiclass but average='binary'. Please choose another "
                             "average setting, one of [None, 'micro', 'macro', 'weighted'].")
        classes = sorted(set(classes) | {pos_label})
    m = _confusion(pred, ref, classes)
    tp = np.diag(m).astype(float)
    predicted, actual = m.sum(axis=0).astype(float), m.sum(axis=1).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(predicted > 0, tp / predicted, 0.0)
        recall = np.where(actual > 0, tp / actual, 0.0)
        f1 = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
    if average == "binary":
        i = classes.index(pos_label)
        return {"precision": precision[i], "recall": recall[i], "f1": f1[i]}
    if average == "micro":
        p = tp.sum() / max(predicted.sum(), 1)
        r = tp.sum() / max(actual.sum(), 1)
        return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}
    if average is None:
        return {"precision": precision.tolist(), "recall": recall.tolist(), "f1": f1.tolist()}
    weights = actual / actual.sum() if average == "weighted" else np.full(len(classes), 1 / len(classes))
    return {k: float(np.sum(v * weights)) for k, v in
            (("precision", precision), ("recall", recall), ("f1", f1))}


def matthews(pred: np.ndarray, ref: np.ndarray) -> float:
    """Multiclass Matthews correlation (Gorodkin's R_K), as sklearn computes it."""
    classes = sorted({int(v) for v in np.concatenate([pred, ref])})
    c = _confusion(pred, ref, classes).astype(float)
    t, p = c.sum(axis=1), c.sum(axis=0)
    n, correct = c.sum(), np.trace(c)
    cov_ytyp = correct * n - np.dot(t, p)
    cov_ypyp = n * n - np.dot(p, p)
    cov_ytyt = n * n - np.dot(t, t)
    denom = np.sqrt(cov_ytyt * cov_ypyp)
    return float(cov_ytyp / denom) if denom else 0.0


def own_scores(pred: np.ndarray, ref: np.ndarray) -> dict[str, float]:
    """Accuracy, macro precision/recall/F1 and MCC, computed by the wizard."""
    macro = _prf(pred, ref, "macro")
    return {"accuracy": round(float(np.mean(pred == ref)), 4),
            "f1_macro": round(float(macro["f1"]), 4),
            "precision_macro": round(float(macro["precision"]), 4),
            "recall_macro": round(float(macro["recall"]), 4),
            "matthews_correlation": round(matthews(pred, ref), 4)}


def _as_class_ids(values: Any, what: str) -> np.ndarray:
    """Like evaluate's Value('int32') features: one integer per example (floats truncated)."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{_FORMAT}\nExpected format: {{'predictions': Value('int32'), "
                         f"'references': Value('int32')}},\nInput {what}: "
                         f"{np.array2string(arr, threshold=6)[:200]}")
    return np.array([int(v) for v in arr.tolist()], dtype=np.int64)


class OwnMetric:
    """The wizard's stand-in for evaluate's accuracy / f1 / precision / recall /
    matthews_correlation: the same compute(predictions=, references=, ...) call, the same input
    checks and defaults (F1/precision/recall: average='binary', pos_label=1)."""

    def __init__(self, names: tuple[str, ...]):
        self.names = names
        self.name = "+".join(names)

    def compute(self, predictions: Any = None, references: Any = None, average: str | None = "binary",
                pos_label: int = 1, **_: Any) -> dict[str, Any]:
        pred = _as_class_ids(predictions, "predictions")
        ref = _as_class_ids(references, "references")
        if len(pred) != len(ref):
            raise ValueError(f"Mismatch in the number of predictions ({len(pred)}) and "
                             f"references ({len(ref)})")
        out: dict[str, Any] = {}
        for name in self.names:
            if name == "accuracy":
                out["accuracy"] = float(np.mean(pred == ref))
            elif name == "matthews_correlation":
                out[name] = matthews(pred, ref)
            else:
                value = _prf(pred, ref, average, pos_label)[name]
                out[name] = value if isinstance(value, list) else float(value)
        return out


# -- loading the user's metric ------------------------------------------------------------------
def _offline() -> bool:
    return any(os.environ.get(v, "").lower() in ("1", "true", "yes", "on")
               for v in ("HF_HUB_OFFLINE", "HF_EVALUATE_OFFLINE", "TRANSFORMERS_OFFLINE"))


def _fallback(name: str, config: str | None) -> OwnMetric | None:
    key = ALIASES.get(name.lower(), name.lower())
    if key in OWN_METRICS:
        return OwnMetric((key,))
    if key == "glue" and config:
        return OwnMetric(GLUE.get(config, ("accuracy",)))
    return None


class LoadedMetric:
    """A metric as the user asked for it, and how it was obtained."""

    def __init__(self, written: str, metric: Any, how: str, error: str | None = None):
        self.written, self.metric, self.how, self.error = written, metric, how, error


def load_metric(ref: Any, config: str | None = None) -> LoadedMetric:
    """evaluate.load as the user calls it; offline Hub metrics fall back to OwnMetric."""
    if hasattr(ref, "compute"):
        return LoadedMetric(getattr(ref, "name", type(ref).__name__), ref, "object")
    written = str(ref)
    if "/" in written and not os.path.exists(written) and written.split("/")[0] == "glue":
        written, config = "glue", written.split("/", 1)[1]
    local = os.path.exists(os.path.expanduser(written))
    try:
        import evaluate

        metric = evaluate.load(os.path.expanduser(written) if local else written,
                               *([config] if config else []))
        return LoadedMetric(written, metric, "local" if local else "hub")
    except Exception as exc:
        error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:300]}"
    if local:
        return LoadedMetric(written, None, "local-failed", error)
    own = _fallback(written, config)
    return LoadedMetric(written, own, "own" if own else "unavailable", error)


class _EvaluateShim:
    """`evaluate` inside the user's compute_metrics source: loads through load_metric."""

    def load(self, path: Any, config_name: str | None = None, **_: Any) -> Any:
        loaded = load_metric(path, config_name)
        if loaded.metric is None:
            raise RuntimeError(loaded.error or f"cannot load metric {path!r}")
        return loaded.metric


def compile_compute_metrics(source: str, metric: Any) -> Callable:
    """The function defined by the user's compute_metrics source (imports of `evaluate` get the
    wizard's loader, so Hub metrics fall back offline)."""
    shim = _EvaluateShim()
    real_import = builtins.__import__

    def _import(name: str, *args: Any, **kwargs: Any) -> Any:
        return shim if name == "evaluate" else real_import(name, *args, **kwargs)

    ns: dict[str, Any] = {"__builtins__": {**builtins.__dict__, "__import__": _import},
                          "np": np, "numpy": np, "evaluate": shim, "load_metric": shim.load,
                          "metric": metric}
    exec(compile(source, "<compute_metrics>", "exec"), ns)  # the user's own code, from their case
    fn = ns.get("compute_metrics")
    if not callable(fn):
        defined = [v for k, v in ns.items() if callable(v) and getattr(v, "__module__", "") is None
                   and getattr(v, "__code__", None) is not None
                   and v.__code__.co_filename == "<compute_metrics>"]
        fn = defined[-1] if defined else None
    if fn is None:
        raise ValueError("the source defines no function (expected def compute_metrics(eval_pred))")
    return fn


def eval_prediction(predictions: np.ndarray, labels: np.ndarray) -> Any:
    try:
        from transformers import EvalPrediction

        return EvalPrediction(predictions=predictions, label_ids=labels)
    except Exception:
        return (predictions, labels)


def call_safely(fn: Callable[[], Any]) -> tuple[Any, str | None]:
    try:
        return fn(), None
    except Exception as exc:
        text = str(exc).strip().splitlines()
        return None, f"{type(exc).__name__}: {' '.join(text[:2])[:300] if text else ''}"


def _kind(error: str) -> str:
    """What a metric error means: fed-logits, shape, type or other."""
    low = error.lower()
    if ("size-1 arrays" in low or "length-1 arrays" in low or _FORMAT.lower() in low
            or "mix of multiclass and continuous" in low or "continuous-multioutput" in low):
        return "fed-logits"
    if "mismatch in the number" in low or "inconsistent numbers of samples" in low or \
            "could not be broadcast" in low or "shapes" in low:
        return "shape"
    if "invalid literal" in low or "could not convert" in low or "unhashable" in low:
        return "type"
    return "other"


def _round(d: Any) -> Any:
    if isinstance(d, dict):
        return {k: _round(v) for k, v in d.items()}
    if isinstance(d, (float, np.floating)):
        return round(float(d), 4)
    return d


# -- the probe ---------------------------------------------------------------------------------
def _eval_labels(case: Case, ctx: Context) -> tuple[str, np.ndarray]:
    split = case.dataset.eval_split if case.dataset.eval_split in ctx.raw else case.dataset.train_split
    return split, ctx.labels(split)


def probe_metrics(case: Case, ctx: Context) -> list[Finding]:
    """Baselines, the user's metric on them and on one batch, and compute_metrics run the way
    Trainer calls it (with logits)."""
    split, refs = _eval_labels(case, ctx)
    findings: list[Finding] = []
    metrics = [load_metric(m) for m in user_metrics(case, ctx)]
    for lm in metrics:
        if lm.how in ("own", "unavailable"):
            findings.append(Finding(
                "metrics.metric-unavailable", "info" if lm.how == "own" else "warn",
                f"The metric {lm.written!r} could not be loaded from the Hub"
                + ("; the wizard computes it itself" if lm.how == "own" else ""),
                evidence={"metric": lm.written, "offline": _offline(), "error": lm.error},
                explanation=("evaluate loads Hub metrics (accuracy, f1, glue, ...) as scripts from "
                             "the Hub, which needs the network"
                             + (" and this machine is offline (HF_HUB_OFFLINE=1)" if _offline()
                                else "") + ". evaluate's message ('doesn't exist on the Hugging "
                             "Face Hub either') is misleading offline. "
                             + ("The values below come from the wizard's own implementation, "
                                "with evaluate's defaults." if lm.how == "own" else
                                "The wizard has no stand-in for this metric.")),
                fix="# load it once online, or use a local copy of the metric script:\n"
                    f"metric = evaluate.load('./{lm.written}')  # a folder with {lm.written}.py"))
        elif lm.how == "local-failed":
            findings.append(Finding(
                "metrics.metric-error", "fail", f"The local metric {lm.written!r} does not load",
                evidence={"metric": lm.written, "error": lm.error},
                explanation="evaluate.load raised on the local script or folder.",
                fix=f"import evaluate\nmetric = evaluate.load({lm.written!r})  # read the error"))
    usable = [lm for lm in metrics if lm.metric is not None]
    if _multi_hot(refs, ctx):
        return findings  # multi-label targets: class-id baselines do not apply
    if refs.ndim != 1 or refs.dtype.kind not in "iu":
        findings.append(_mismatch_from_labels(split, refs))
        return findings
    refs = refs[~np.isin(refs, IGNORE_LABELS)]
    if refs.size == 0:
        return findings  # no labelled eval rows: probe_eval_label_set reports it
    train_labels = ctx.labels(case.dataset.train_split)
    train_labels = train_labels[~np.isin(train_labels, IGNORE_LABELS)] if \
        train_labels.dtype.kind in "iu" else refs
    classes = max(int(ctx.num_labels), int(refs.max()) + 1)
    majority = Counter(int(v) for v in train_labels).most_common(1)[0][0]
    rng = np.random.default_rng(SEED)
    sets: dict[str, tuple[np.ndarray, np.ndarray]] = {
        "uniform_random": (rng.integers(0, classes, size=refs.size), refs),
        "majority_class": (np.full(refs.size, majority), refs)}
    try:
        fwd, batch = ctx.forward, ctx.batch
    except Exception:  # the model probes report why the forward pass fails
        fwd = batch = None
    model_preds = None
    if fwd is not None and fwd.logits is not None and batch.labels is not None \
            and np.ndim(batch.labels) == 1:
        model_preds = np.argmax(fwd.logits, axis=-1)
        sets["model_one_batch"] = (model_preds, np.asarray(batch.labels))
    table: dict[str, Any] = {}
    errors: list[dict[str, Any]] = []
    for set_name, (pred, ref) in sets.items():
        row: dict[str, Any] = {"wizard": own_scores(pred, ref), "samples": int(ref.size)}
        for lm in usable:
            value, err = call_safely(lambda: lm.metric.compute(predictions=pred, references=ref))
            row[lm.written] = _round(value) if err is None else {"error": err}
            if err and not any(e["metric"] == lm.written for e in errors):
                errors.append({"metric": lm.written, "on": set_name, "error": err})
        table[set_name] = row
    for e in errors:
        binary = "average='binary'" in e["error"]
        findings.append(Finding(
            "metrics.metric-error", "fail",
            f"The metric {e['metric']!r} raises on class-id predictions",
            evidence={**e, "classes": classes},
            explanation=("F1/precision/recall default to average='binary', which only works "
                         f"with two classes; this task has {classes}." if binary else
                         "The metric fails even when given one class id per example, as it "
                         "expects; see the error."),
            fix=("metric.compute(predictions=predictions, references=labels, average='macro')"
                 if binary else "print(metric.compute(predictions=[0, 1], references=[0, 1]))")))
    acc = {k: v["wizard"]["accuracy"] for k, v in table.items()}
    plot = Plot(name="metric-baselines", title=f"Accuracy baselines ({split})", kind="bar",
                series={"labels": list(acc), "values": list(acc.values())}, ylabel="accuracy")
    findings.append(Finding(
        "metrics.baselines", "info",
        f"Baselines on {split!r}: random accuracy {acc['uniform_random']:.2f}, majority class "
        f"{acc['majority_class']:.2f}"
        + (f"; the untrained model on one batch {acc['model_one_batch']:.2f}"
           if "model_one_batch" in acc else ""),
        evidence={"split": split, "classes": classes, "majority_label": majority, "seed": SEED,
                  "expected_random_accuracy": round(1 / classes, 4), "table": table,
                  "user_metrics": [lm.written for lm in metrics]},
        explanation="A trained model must beat both baselines clearly; a metric that scores the "
                    "baselines as well as the model measures the wrong thing. The model row is "
                    "the freshly loaded model on the first training batch (near chance is "
                    "expected before training).",
        plots=[plot]))
    if model_preds is not None:
        findings.extend(_compute_metrics_findings(case, ctx, usable, fwd.logits, batch.labels,
                                                  model_preds))
    return findings


def _multi_hot(refs: np.ndarray, ctx: Context) -> bool:
    """0/1 vectors, one entry per class: multi-label targets (the label checks judge their
    dtype against the loss)."""
    return (refs.ndim == 2 and refs.dtype.kind in "iuf" and refs.shape[1] == int(ctx.num_labels)
            and bool(np.isin(refs, (0, 1)).all()))


def _mismatch_from_labels(split: str, refs: np.ndarray) -> Finding:
    sample = refs[:3].tolist()
    if refs.ndim != 1:
        return Finding(
            "metrics.prediction-label-mismatch", "fail",
            f"The {split!r} labels have shape {list(refs.shape)}: not one class id per example",
            evidence={"split": split, "label_shape": list(refs.shape), "first_labels": sample},
            explanation="argmax predictions are one class id per example; one-hot or multi-label "
                        "references need their own comparison (or an argmax for one-hot).",
            fix="references = np.argmax(labels, axis=-1)  # one-hot labels\n"
                "# multi-label: predictions = (sigmoid(logits) > 0.5).astype(int), "
                "metric 'f1' with average='micro'")
    return Finding(
        "metrics.prediction-label-mismatch", "fail",
        f"The {split!r} labels are {refs.dtype.name} values, the predictions are class ids",
        evidence={"split": split, "label_dtype": str(refs.dtype), "first_labels": sample},
        explanation="The model predicts integer class ids; references given as text never equal "
                    "them (evaluate raises 'invalid literal for int()').",
        fix="dataset = dataset.class_encode_column('label')  # text labels -> ClassLabel ids")


def _compute_metrics_source(case: Case, ctx: Context) -> Any:
    value = getattr(case.training, "compute_metrics", None)
    return value if value is not None else ctx.loaded("compute_metrics")


def _compute_metrics_findings(case: Case, ctx: Context, usable: list[LoadedMetric],
                              logits: np.ndarray | None, labels: np.ndarray | None,
                              preds: np.ndarray | None) -> list[Finding]:
    source = _compute_metrics_source(case, ctx)
    fed_logits_in_paste = _fed_logits_in_traceback(case)
    if logits is None or labels is None or preds is None:
        return []
    labels = np.asarray(labels)
    first = usable[0].metric if usable else None
    if source is None:
        if not (fed_logits_in_paste and first is not None):
            return []
        fn: Callable = lambda ep: first.compute(predictions=ep[0], references=ep[1])  # noqa: E731
        written = f"{usable[0].written}.compute(predictions=logits, references=labels)"
    elif callable(source):
        fn, written = source, getattr(source, "__name__", "compute_metrics")
    else:
        try:
            fn = compile_compute_metrics(str(source), first or OwnMetric(("accuracy",)))
        except Exception as exc:
            return [Finding("metrics.metric-error", "fail", "compute_metrics does not run",
                            evidence={"error": f"{type(exc).__name__}: {exc}"[:300]},
                            explanation="Defining the compute_metrics source raised.",
                            fix="def compute_metrics(eval_pred):\n    logits, labels = eval_pred\n"
                                "    predictions = np.argmax(logits, axis=-1)\n"
                                "    return metric.compute(predictions=predictions, "
                                "references=labels)")]
        written = "compute_metrics"
    as_trainer, err = call_safely(lambda: fn(eval_prediction(logits, labels)))
    evidence: dict[str, Any] = {"called": f"{written}(EvalPrediction(predictions=logits, "
                                          "label_ids=labels))",
                                "logits_shape": list(logits.shape), "labels_shape": list(labels.shape)}
    argmax_fix = ("def compute_metrics(eval_pred):\n    logits, labels = eval_pred\n"
                  "    predictions = np.argmax(logits, axis=-1)  # class ids, not logits\n"
                  "    return metric.compute(predictions=predictions, references=labels)")
    if err is not None:
        with_ids, err_ids = call_safely(lambda: fn(eval_prediction(preds, labels)))
        evidence.update({"error_with_logits": err, "with_class_ids": _round(with_ids),
                         "error_with_class_ids": err_ids})
        if err_ids is None:
            return [Finding(
                "hyperparameters.metric-fed-logits", "fail",
                "The metric gets logits where it expects class ids",
                evidence=evidence,
                explanation="Trainer (and KerasMetricCallback) pass the raw logits, one row of "
                            f"{logits.shape[-1]} scores per example, to compute_metrics. Called "
                            f"that way it raises {err}"
                            + ("; with argmax class ids it works." if err_ids is None else "."),
                fix=argmax_fix)]
        kind = _kind(err)
        return [Finding(
            "metrics.prediction-label-mismatch" if kind in ("shape", "type") else
            "metrics.metric-error", "fail",
            f"compute_metrics raises: {err}", evidence=evidence,
            explanation="compute_metrics fails on the logits and on class ids alike: the "
                        "predictions and the labels it compares do not have the same "
                        + ("length/shape." if kind == "shape" else "type." if kind == "type"
                           else "form; see the error."),
            fix=argmax_fix)]
    result = _round(as_trainer) if isinstance(as_trainer, dict) else as_trainer
    direct = own_scores(preds, labels)
    evidence.update({"result": result, "wizard_on_argmax": direct})
    disagree = {}
    if isinstance(as_trainer, dict):
        for key in ("accuracy", "matthews_correlation"):
            if isinstance(as_trainer.get(key), (int, float)) and abs(
                    float(as_trainer[key]) - direct[key]) > 1e-3:
                disagree[key] = {"yours": round(float(as_trainer[key]), 4), "wizard": direct[key]}
    if disagree:
        evidence["disagree"] = disagree
        return [Finding(
            "metrics.value-disagrees", "warn",
            "compute_metrics returns other values than the same predictions give",
            evidence=evidence,
            explanation="On the first batch your compute_metrics and a direct computation on "
                        "argmax(logits) disagree: the function compares something else (logits "
                        "truncated to integers, argmax over the wrong axis, shuffled labels).",
            fix=argmax_fix)]
    return [Finding("hyperparameters.metric-fed-logits", "pass",
                    "compute_metrics turns the logits into class ids", evidence=evidence)]


def _fed_logits_in_traceback(case: Case) -> bool:
    text = (case.traceback or "").lower()
    return any(s in text for s in ("size-1 arrays can be converted", "length-1 arrays can be "
                                   "converted", _FORMAT.lower(), "mix of multiclass and continuous"))


# -- eval split's label set ------------------------------------------------------------------------
def probe_eval_label_set(case: Case, ctx: Context) -> list[Finding]:
    """The eval split's labels against train's: unlabelled (-1), other names, other classes."""
    spec = case.dataset
    if not spec.eval_split or spec.eval_split not in ctx.raw:
        return []
    train_feat = ctx.raw[spec.train_split].features.get(spec.label_column)
    eval_feat = ctx.raw[spec.eval_split].features.get(spec.label_column)
    train_names = list(getattr(train_feat, "names", None) or [])
    eval_names = list(getattr(eval_feat, "names", None) or [])
    tr, ev = ctx.labels(spec.train_split), ctx.labels(spec.eval_split)
    if tr.dtype.kind not in "iu" or ev.dtype.kind not in "iu" or tr.ndim != 1 or ev.ndim != 1:
        return []
    evidence: dict[str, Any] = {"train_split": spec.train_split, "eval_split": spec.eval_split,
                                "eval_rows": int(ev.size)}
    unlabelled = int(np.sum(ev == -1))
    if unlabelled == ev.size:
        return [Finding(
            "metrics.eval-label-set", "fail",
            f"The {spec.eval_split!r} split has no labels (every label is -1)",
            evidence={**evidence, "unlabelled": unlabelled},
            explanation="Test splits of benchmarks such as GLUE ship without labels (-1); a "
                        "metric on them is meaningless and a loss on them fails or is NaN.",
            fix="eval_dataset = dataset['validation']  # GLUE: the labelled dev split")]
    train_set = {int(v) for v in np.unique(tr) if v not in IGNORE_LABELS}
    eval_set = {int(v) for v in np.unique(ev) if v not in IGNORE_LABELS}
    evidence.update({"train_labels": sorted(train_set), "eval_labels": sorted(eval_set),
                     "unlabelled_in_eval": unlabelled})
    if train_names and eval_names and train_names != eval_names:
        return [Finding(
            "metrics.eval-label-set", "warn",
            "The eval split names its classes differently from train",
            evidence={**evidence, "train_names": train_names, "eval_names": eval_names},
            explanation="The same id means different classes in the two splits, so the metric "
                        "compares predictions with the wrong classes.",
            fix="eval_ds = eval_ds.align_labels_with_mapping(\n"
                f"    {{n: i for i, n in enumerate({train_names!r})}}, {spec.label_column!r})")]
    only_eval, only_train = sorted(eval_set - train_set), sorted(train_set - eval_set)
    if only_eval:
        return []  # classes train never shows: data.eval-classes-unseen reports them
    if only_train:
        return [Finding(
            "metrics.eval-label-set", "info",
            f"Classes {only_train} never appear in {spec.eval_split!r}",
            evidence={**evidence, "only_in_train": only_train},
            explanation="Macro-averaged metrics average over the classes present; per-class "
                        "scores for the missing ones are undefined (sklearn warns "
                        "'ill-defined').")]
    return [Finding("metrics.eval-label-set", "pass",
                    f"{spec.eval_split!r} has the same {len(eval_set)} classes as "
                    f"{spec.train_split!r}", evidence=evidence)]
