"""The label-balance baselines, the decoded first batch, and the environment checks that stop
a run early (a TensorFlow case where transformers has no TF classes)."""
from __future__ import annotations

import math

import pytest

pytest.importorskip("torch")  # USE_TF=0 comes from conftest where TensorFlow is absent

from tests.conftest import HAS_TF  # noqa: E402
from tests.helpers import check_case, fails  # noqa: E402
from tests.test_data_support import by_id, context, make_case, splits, text_rows  # noqa: E402
from wizard.checks.data import probe_batch_structure, probe_label_balance  # noqa: E402
from wizard.checks.environment import probe_environment  # noqa: E402


@pytest.fixture(scope="module")
def tok(demo_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(demo_dir / "model")


def _balance(demo_dir, tok, labels):
    case = make_case(demo_dir)
    rows = text_rows(len(labels), labels=labels)
    ctx = context(case, splits(train=rows, validation=text_rows(6, offset=200)), tok)
    return by_id(probe_label_balance(case, ctx), "data.label-balance")


def test_balanced_labels_give_the_baselines(demo_dir, tok):
    f = _balance(demo_dir, tok, [0, 1, 2] * 20)
    assert f.status == "info" and f.title.startswith("3 classes")
    ev = f.evidence
    assert ev["expected_initial_loss_ln_C"] == round(math.log(3), 4)
    assert ev["uniform_random"] == {"loss": round(math.log(3), 4), "accuracy": 0.333}
    assert ev["majority_constant"]["accuracy"] == pytest.approx(1 / 3, abs=1e-3)
    assert ev["counts"] == {"0": 20, "1": 20, "2": 20}
    assert f.plots and f.plots[0].series["values"] == [20, 20, 20]


def test_one_dominant_class_warns_with_the_constant_baseline(demo_dir, tok):
    f = _balance(demo_dir, tok, [1] * 57 + [0, 2, 0])
    assert f.status == "warn" and "95%" in f.title
    assert f.evidence["majority"]["label"] == 1
    assert f.evidence["majority_constant"]["accuracy"] == 0.95
    assert f.evidence["rarest"]["label"] == 2 and f.fix


def test_first_batch_is_decoded_beside_its_labels(demo_dir, tok):
    case = make_case(demo_dir)
    rows = text_rows(8)
    ctx = context(case, splits(train=rows, validation=text_rows(6, offset=200)), tok)
    ev = by_id(probe_batch_structure(case, ctx), "data.batch-structure").evidence
    assert set(ev["inputs"]) >= {"input_ids", "attention_mask"}
    first = ev["examples"][0]
    row = first["index"]
    assert rows["text"][row] in first["decoded"]  # the text as the model sees it, specials kept
    assert first["label"] == rows["label"][row]
    assert "[PAD]" not in first["decoded"]


def test_a_pytorch_case_here_has_no_environment_fault(demo_dir):
    assert probe_environment(make_case(demo_dir, "pytorch")) == []


@pytest.mark.skipif(not HAS_TF, reason="TensorFlow is tested in env 'tf'")
def test_a_tensorflow_case_in_the_tf_env_has_no_environment_fault(demo_dir):
    assert probe_environment(make_case(demo_dir, "tensorflow")) == []


@pytest.mark.skipif(HAS_TF, reason="the modern env has transformers 5 and no TensorFlow")
def test_a_tensorflow_case_beside_transformers_5_stops_with_the_pin_to_use(demo_dir, tmp_path):
    from wizard.demo.cases import course_case

    proc, result = check_case(course_case(demo_dir, "tensorflow"), tmp_path)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert fails(result) == ["environment.framework-missing",
                             "environment.transformers-without-tensorflow"]
    assert "Traceback" not in proc.stderr
    pin = next(f for f in result["findings"] if f["id"] == "environment.transformers-without-tensorflow")
    assert '"transformers>=4.57,<5"' in pin["fix"]
    assert not [f for f in result["findings"] if f["category"] in ("model", "data")]
