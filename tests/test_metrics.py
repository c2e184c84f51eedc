"""Evaluation and metrics: the wizard's own metrics against hand-computed values, the user's
metric (a local evaluate script, or a Hub metric offline) on baselines and one batch,
compute_metrics called the way Trainer calls it (fed logits, shape mismatches, silently wrong
values), and the eval split's labels; the demo's healthy case gives no warning or failure."""
from __future__ import annotations

import importlib.util
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from wizard.core.case import Case
from wizard.context import Batch, Context, ForwardResult
from wizard.core.findings import Finding
from wizard.checks import metrics as m

HAS_TF = importlib.util.find_spec("tensorflow") is not None
needs_tf = pytest.mark.skipif(not HAS_TF, reason="TensorFlow is tested in env 'tf'")
if HAS_TF:  # before the PyTorch backend sets USE_TF=0, which hides TF from these libraries
    import datasets  # noqa: F401
    import transformers  # noqa: F401
NAMES = ["entailment", "neutral", "contradiction"]
LABELS = (0, 1, 2, 0, 1, 2)

METRIC_SCRIPT = '''
import datasets
import evaluate
import numpy as np


class LocalAccuracy(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description="accuracy", citation="", inputs_description="",
            features=datasets.Features({"predictions": datasets.Value("int32"),
                                        "references": datasets.Value("int32")}))

    def _compute(self, predictions, references):
        return {"accuracy": float(np.mean(np.asarray(predictions) == np.asarray(references)))}
'''
FED_LOGITS = '''
import evaluate
metric = evaluate.load("accuracy")

def compute_metrics(eval_pred):
    predictions, labels = eval_pred
    return metric.compute(predictions=predictions, references=labels)
'''
ARGMAX = '''
import numpy as np
import evaluate
metric = evaluate.load("accuracy")

def compute_metrics(eval_pred):
    logits, labels = eval_pred
    predictions = np.argmax(logits, axis=-1)
    return metric.compute(predictions=predictions, references=labels)
'''
MAX_PROBABILITY = '''
def compute_metrics(eval_pred):
    logits, labels = eval_pred
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    return metric.compute(predictions=probs.max(-1), references=labels)  # not the class id
'''
ONE_SHORT = '''
def compute_metrics(eval_pred):
    logits, labels = eval_pred
    return metric.compute(predictions=np.argmax(logits, axis=-1), references=labels[:-1])
'''


def make_case(**dataset: Any) -> Case:
    return Case.from_dict({"model": "tiny", "framework": "pytorch",
                           "dataset": {"path": "tiny", "text_columns": ["text"], **dataset}})


def raw(train: Any = (0, 1, 2) * 4, validation: Any = (0, 1, 2, 1, 1), names: Any = NAMES,
        eval_names: Any = None) -> dict[str, Any]:
    from datasets import ClassLabel, Dataset, Features, Value

    def ds(labels: Any, label_names: Any) -> Any:
        feats = (Features({"text": Value("string"), "label": ClassLabel(names=label_names)})
                 if label_names else None)
        return Dataset.from_dict({"text": [f"text {i}" for i in range(len(labels))],
                                  "label": list(labels)}, features=feats)

    out = {"train": ds(train, names)}
    if validation is not None:
        out["validation"] = ds(validation, eval_names or names)
    return out


def one_hot_logits(labels: Any, right: int) -> np.ndarray:
    """Logits whose argmax is the label for the first `right` rows and wrong after."""
    labels = np.asarray(labels)
    preds = np.where(np.arange(labels.size) < right, labels, (labels + 1) % 3)
    return (np.eye(3)[preds] * 4.0 - 1.0).astype(np.float32)


def ctx(case: Case, right: int = 6, splits: Any = None, **extra: Any) -> Context:
    labels = np.asarray(LABELS)
    batch = Batch(inputs={"input_ids": np.ones((6, 4), np.int64)}, labels=labels,
                  labels_in_inputs=False, label_key="labels", indices=list(range(6)))
    c = Context.from_objects(case, device="cpu", raw=splits if splits is not None else raw(),
                             config=SimpleNamespace(num_labels=3), batch=batch,
                             forward=ForwardResult(logits=one_hot_logits(labels, right)))
    c.__dict__.update(extra)  # metrics / compute_metrics until the case has the fields
    return c


def one(findings: list[Finding], id: str) -> Finding:
    matches = [f for f in findings if f.id == id]
    assert len(matches) == 1, [(f.id, f.status, f.title) for f in findings]
    return matches[0]


def loud(findings: list[Finding]) -> list[tuple[str, str, str]]:
    return [(f.id, f.status, f.title) for f in findings if f.status in ("warn", "fail", "error")]


# -- the wizard's own metrics ------------------------------------------------------------------
def test_own_metrics_match_hand_computed_values():
    pred, ref = np.array([0, 1, 2, 2, 1, 0]), np.array([0, 1, 1, 2, 1, 0])
    s = m.own_scores(pred, ref)
    assert s["accuracy"] == pytest.approx(5 / 6, abs=1e-4)
    # per class F1: 1, 0.8 (p=1, r=2/3), 2/3 (p=1/2, r=1)
    assert s["f1_macro"] == pytest.approx((1 + 0.8 + 2 / 3) / 3, abs=1e-4)
    # binary MCC from its textbook formula: tp=2, fp=1, tn=1, fn=1 -> 1/6
    bp, br = np.array([1, 1, 0, 0, 1]), np.array([1, 0, 0, 1, 1])
    assert m.matthews(bp, br) == pytest.approx(1 / 6)
    assert m.OwnMetric(("f1",)).compute(predictions=bp, references=br)["f1"] == pytest.approx(2 / 3)
    assert m.matthews(ref, ref) == pytest.approx(1.0)


def test_own_metric_behaves_like_evaluate_on_wrong_inputs():
    f1 = m.OwnMetric(("f1",))
    with pytest.raises(ValueError, match="average='binary'"):
        f1.compute(predictions=[0, 1, 2], references=[0, 1, 1])
    assert f1.compute(predictions=[0, 1, 2], references=[0, 1, 1], average="macro")["f1"] == \
        pytest.approx((1 + 2 / 3 + 0) / 3)
    acc = m.OwnMetric(("accuracy",))
    with pytest.raises(ValueError, match="don't match the expected format"):
        acc.compute(predictions=np.zeros((3, 2)), references=[0, 1, 1])
    with pytest.raises(ValueError, match=r"Mismatch in the number of predictions \(2\)"):
        acc.compute(predictions=[0, 1], references=[0, 1, 1])
    # floats are truncated like evaluate's int32 features: 0.7 -> 0
    assert acc.compute(predictions=[0.7, 0.2, 1.0], references=[1, 0, 1])["accuracy"] == \
        pytest.approx(2 / 3)


# -- the user's metric on baselines ------------------------------------------------------------
def test_baselines_without_a_user_metric_are_info_with_the_numbers():
    case = make_case()
    found = m.probe_metrics(case, ctx(case, right=3))
    f = one(found, "metrics.baselines")
    assert f.status == "info" and loud(found) == []
    table = f.evidence["table"]
    assert f.evidence["split"] == "validation" and f.evidence["majority_label"] == 0
    assert table["majority_class"]["wizard"]["accuracy"] == pytest.approx(1 / 5)  # one 0 of 5
    assert table["model_one_batch"]["wizard"]["accuracy"] == pytest.approx(0.5)
    assert f.plots[0].series["labels"] == ["uniform_random", "majority_class", "model_one_batch"]


def test_a_local_evaluate_metric_runs_on_the_baselines(tmp_path):
    folder = tmp_path / "local_accuracy"
    folder.mkdir()
    (folder / "local_accuracy.py").write_text(METRIC_SCRIPT)
    case = make_case()
    found = m.probe_metrics(case, ctx(case, right=4, metrics=[str(folder)]))
    assert loud(found) == [] and "metrics.metric-unavailable" not in {f.id for f in found}
    table = one(found, "metrics.baselines").evidence["table"]
    for row in table.values():
        assert row[str(folder)]["accuracy"] == pytest.approx(row["wizard"]["accuracy"], abs=1e-4)


def test_a_hub_metric_offline_says_so_and_falls_back():
    case = make_case()
    found = m.probe_metrics(case, ctx(case, metrics=["accuracy"]))
    note = one(found, "metrics.metric-unavailable")
    assert note.status == "info" and note.evidence["offline"] is True
    assert "wizard computes it itself" in note.title
    row = one(found, "metrics.baselines").evidence["table"]["model_one_batch"]
    assert row["accuracy"] == {"accuracy": 1.0}


def test_f1_with_its_binary_default_on_three_classes_fails():
    case = make_case()
    found = m.probe_metrics(case, ctx(case, metrics=["f1"]))
    f = one(found, "metrics.metric-error")
    assert f.status == "fail" and "average='binary'" in f.evidence["error"]
    assert "average='macro'" in f.fix


# -- compute_metrics as Trainer calls it -------------------------------------------------------
def test_compute_metrics_fed_logits_fails_and_argmax_passes():
    case = make_case()
    found = m.probe_metrics(case, ctx(case, compute_metrics=FED_LOGITS))
    f = one(found, "hyperparameters.metric-fed-logits")
    assert f.status == "fail"
    assert "don't match the expected format" in f.evidence["error_with_logits"]
    assert f.evidence["with_class_ids"] == {"accuracy": 1.0}
    assert "np.argmax(logits, axis=-1)" in f.fix
    found = m.probe_metrics(case, ctx(case, compute_metrics=ARGMAX))
    ok = one(found, "hyperparameters.metric-fed-logits")
    assert ok.status == "pass" and ok.evidence["result"] == {"accuracy": 1.0}


def test_a_live_compute_metrics_function_is_called_with_logits_too():
    acc = m.OwnMetric(("accuracy",))

    def compute_metrics(eval_pred):
        predictions, labels = eval_pred
        return acc.compute(predictions=predictions, references=labels)

    case = make_case()
    f = one(m.probe_metrics(case, ctx(case, compute_metrics=compute_metrics)),
            "hyperparameters.metric-fed-logits")
    assert f.status == "fail" and f.evidence["logits_shape"] == [6, 3]


def test_a_silently_wrong_metric_disagrees_with_the_direct_value():
    case = make_case()
    f = one(m.probe_metrics(case, ctx(case, compute_metrics=MAX_PROBABILITY)),
            "metrics.value-disagrees")
    assert f.status == "warn"
    assert f.evidence["disagree"]["accuracy"] == {"yours": pytest.approx(1 / 3, abs=1e-4),
                                                  "wizard": 1.0}


def test_a_length_mismatch_inside_compute_metrics_is_a_shape_problem():
    case = make_case()
    f = one(m.probe_metrics(case, ctx(case, compute_metrics=ONE_SHORT)),
            "metrics.prediction-label-mismatch")
    assert f.status == "fail" and "Mismatch in the number of predictions (6)" in \
        f.evidence["error_with_logits"]


def test_a_pasted_size_1_error_is_reproduced_with_the_users_metric():
    case = make_case()
    case.traceback = "TypeError: only size-1 arrays can be converted to Python scalars"
    f = one(m.probe_metrics(case, ctx(case, metrics=[m.OwnMetric(("accuracy",))])),
            "hyperparameters.metric-fed-logits")
    assert f.status == "fail" and f.evidence["with_class_ids"] == {"accuracy": 1.0}
    case.traceback = ""
    assert "hyperparameters.metric-fed-logits" not in {
        x.id for x in m.probe_metrics(case, ctx(case, metrics=[m.OwnMetric(("accuracy",))]))}


def test_text_labels_in_the_eval_split_do_not_match_class_ids():
    splits = raw(train=["yes", "no", "yes"], validation=["no", "yes"], names=None)
    case = make_case()
    f = one(m.probe_metrics(case, ctx(case, splits=splits)), "metrics.prediction-label-mismatch")
    assert f.status == "fail" and f.evidence["first_labels"] == ["no", "yes"]
    assert "class_encode_column" in f.fix


# -- the eval split's label set ----------------------------------------------------------------
def test_eval_label_set():
    case = make_case()

    def status(**kw: Any) -> list[tuple[str, str]]:
        found = m.probe_eval_label_set(case, ctx(case, splits=raw(**kw)))
        return [(f.id, f.status) for f in found]

    assert status() == [("metrics.eval-label-set", "pass")]
    assert status(validation=(-1, -1, -1)) == [("metrics.eval-label-set", "fail")]
    assert status(eval_names=["neutral", "entailment", "contradiction"]) == [
        ("metrics.eval-label-set", "warn")]
    assert status(validation=(0, 1, 0)) == [("metrics.eval-label-set", "info")]
    assert status(train=(0, 1) * 4) == []  # eval-only classes: data.eval-classes-unseen
    assert status(validation=None) == []


# -- the demo's healthy case -------------------------------------------------------------------
@pytest.mark.parametrize("framework", ["pytorch", pytest.param("tensorflow", marks=needs_tf)])
def test_demo_healthy_case_has_no_metric_warnings(demo_dir, framework):
    from wizard.demo.cases import healthy_case

    case = healthy_case(demo_dir, framework)
    c = Context(case, device="cpu")
    c.__dict__["compute_metrics"] = ARGMAX
    found = m.probe_metrics(case, c) + m.probe_eval_label_set(case, c)
    assert loud(found) == []
    base = one(found, "metrics.baselines")
    assert base.evidence["classes"] == 3 and base.evidence["table"]["model_one_batch"]["samples"] == 16
    assert one(found, "hyperparameters.metric-fed-logits").status == "pass"
    assert one(found, "metrics.eval-label-set").status == "pass"
