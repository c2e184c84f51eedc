"""The course's TensorFlow scenario end to end, and its PyTorch counterpart, on the real tiny
models and data: each fault alone, all three together, and the fixed script."""
from __future__ import annotations

import math

import pytest

from tests.conftest import needs_tf, needs_torch
from tests.helpers import check_case, fails, finding
from wizard.demo.cases import course_case, healthy_case

COURSE_FAULTS = ["data.labels-in-inputs-with-keras-loss", "data.labels-out-of-range",
                 "hyperparameters.learning-rate-too-high"]


@needs_tf
def test_tf_course_script_has_exactly_the_three_faults(demo_dir, tmp_path):
    proc, result = check_case(course_case(demo_dir, "tensorflow"), tmp_path, "--report",
                              str(tmp_path / "report"))
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert fails(result) == COURSE_FAULTS
    assert result["verdict"]["kind"] == "user-error"
    assert result["verdict"]["primary"] == "data.labels-in-inputs-with-keras-loss"  # course order

    labels = finding(result, "data.labels-out-of-range")
    ev = labels["evidence"]
    assert ev["num_labels"] == 2 and ev["classes_in_data"] == 3
    assert ev["out_of_range"]["train"]["values"] == [2]
    assert ev["out_of_range"]["train"]["indices"][:3] == [2, 5, 8]  # rows with label 2
    assert "Received a label value of 2" in ev["framework_error"]
    assert "num_labels=3" in labels["fix"]

    wired = finding(result, "data.labels-in-inputs-with-keras-loss")
    assert "labels" in wired["evidence"]["input_keys"]
    assert wired["evidence"]["loss_defaults"]["from_logits"] is False
    # Both losses measured on the same in-range samples are in the evidence.
    assert wired["evidence"]["samples_used"] > 0
    assert wired["evidence"]["internal_loss"] == pytest.approx(math.log(2), abs=0.1)
    assert wired["evidence"]["keras_loss"] > 0
    assert "model.compile(optimizer=optimizer)" in wired["fix"]

    lr = finding(result, "hyperparameters.learning-rate-too-high")
    assert lr["evidence"]["learning_rate"] == pytest.approx(1e-3)
    assert "tf_keras.optimizers.Adam" in lr["evidence"]["source"]
    assert "learning_rate=5e-5" in lr["fix"]
    hidden = finding(result, "hyperparameters.hidden-defaults")
    assert hidden["evidence"]["means"]["learning_rate"] == pytest.approx(1e-3)

    report = (tmp_path / "report" / "report.md").read_text()
    assert "Verdict: user-error" in report and "### System Info" not in report
    assert "transformers" in report and "tensorflow" in report  # the environment block
    for key in ("environment", "device", "path", "findings", "verdict", "reports"):
        assert key in result
    assert result["path"][:3] == ["environment", "triage", "data"]
    assert set(result["findings"][0]) >= {"id", "status", "category", "title", "evidence", "fix"}


@needs_tf
def test_tf_fixed_script_has_no_fault(demo_dir, tmp_path):
    proc, result = check_case(healthy_case(demo_dir, "tensorflow"), tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert fails(result) == []
    assert result["verdict"]["kind"] == "healthy"
    initial = finding(result, "model.initial-loss")
    assert initial["status"] == "info"
    assert initial["evidence"]["initial_loss"] == pytest.approx(math.log(3), abs=0.1)


@needs_tf
@pytest.mark.parametrize("fault", COURSE_FAULTS)
def test_tf_each_fault_alone_is_found_alone(demo_dir, tmp_path, fault):
    case = healthy_case(demo_dir, "tensorflow")
    case.symptom = "error"
    if fault == "data.labels-in-inputs-with-keras-loss":
        case.training.loss = "sparse_categorical_crossentropy"
    elif fault == "data.labels-out-of-range":
        case.num_labels = None
    else:
        case.training.optimizer = "adam"
    _, result = check_case(case, tmp_path)
    assert fails(result) == [fault]


@needs_tf
def test_tf_labels_passed_separately_with_a_keras_loss_is_fine(demo_dir, tmp_path):
    case = healthy_case(demo_dir, "tensorflow")
    case.training.loss = "sparse_categorical_crossentropy"
    case.training.from_logits = True  # SparseCategoricalCrossentropy(from_logits=True)
    case.training.labels = "separate"
    _, result = check_case(case, tmp_path)
    assert fails(result) == []
    assert finding(result, "data.labels-in-inputs-with-keras-loss")["status"] == "pass"


@needs_torch
def test_torch_course_script_faults(demo_dir, tmp_path):
    proc, result = check_case(course_case(demo_dir, "pytorch"), tmp_path)
    assert proc.returncode == 1
    assert fails(result) == ["data.labels-out-of-range", "hyperparameters.learning-rate-too-high"]
    ev = finding(result, "data.labels-out-of-range")["evidence"]
    assert "Target 2 is out of bounds" in ev["framework_error"]
    lr = finding(result, "hyperparameters.learning-rate-too-high")["evidence"]
    assert lr["source"] == "the default of torch.optim.Adam"
    nan = finding(result, "model.nan-loss-samples")["evidence"]
    assert nan["labels_of_those"] == [2]


@needs_torch
def test_torch_fixed_script_has_no_fault(demo_dir, tmp_path):
    proc, result = check_case(healthy_case(demo_dir, "pytorch"), tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert fails(result) == [] and result["verdict"]["kind"] == "healthy"


@needs_torch
def test_torch_trainer_defaults_are_read_from_transformers(demo_dir, tmp_path):
    case = healthy_case(demo_dir, "pytorch")
    case.training.trainer = "trainer"
    case.training.optimizer = "adamw"
    _, result = check_case(case, tmp_path)
    lr = finding(result, "hyperparameters.learning-rate-too-high")
    assert lr["status"] == "pass" and lr["evidence"]["learning_rate"] == pytest.approx(5e-5)
    case.training.learning_rate = 1e-3
    _, result = check_case(case, tmp_path / "high")
    assert fails(result) == ["hyperparameters.learning-rate-too-high"]
