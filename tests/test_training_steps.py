"""The tree's training and memory steps, run by the session's worker on the tiny demo model:
overfit one batch and the gradient flow (no fault on the healthy demo, a fault with a learning
rate far too high) and, for out of memory, one measured step and the largest-batch search."""
from __future__ import annotations

import pytest

from tests.conftest import HAS_TF, needs_tf, needs_torch
from wizard.core.case import Case
from wizard.demo.cases import healthy_case
from wizard.core.findings import Finding
from wizard.engine.session import Result, Session
from wizard.engine.plan import STEPS, plan

# (TensorFlow's fault detection is covered in test_training.py; here its healthy walk.)
WALKS = [pytest.param("pytorch", 5e-5, marks=needs_torch, id="healthy-pytorch"),
         pytest.param("pytorch", 1.0, marks=needs_torch, id="lr-far-too-high-pytorch"),
         pytest.param("tensorflow", 5e-5, marks=needs_tf, id="healthy-tensorflow")]


def _walk(case: Case, *step_ids: str) -> Result:
    """The steps as the session runs them: each probe in the framework worker, on the CPU."""
    result = Session(case, device="cpu", steps=[STEPS[s] for s in step_ids]).run()
    assert result.path == list(step_ids)
    assert [f.title for f in result.findings if f.status == "error"] == []
    return result


def _one(result: Result, *ids: str) -> Finding:
    found = [f for f in result.findings if f.id in ids]
    assert len(found) == 1, [f.id for f in result.findings]
    return found[0]


@pytest.mark.parametrize("framework, learning_rate", WALKS)
def test_overfit_and_gradient_steps(demo_dir, framework, learning_rate):
    case = healthy_case(demo_dir, framework)
    case.symptom = "loss-not-decreasing"
    case.training.optimizer = {"name": "Adam", "learning_rate": learning_rate}
    walked = [s.id for s in plan(case)]
    assert walked.index("hyperparameters") < walked.index("overfit") < walked.index("gradients")
    result = _walk(case, "overfit", "gradients")
    overfit = _one(result, "training.overfit-batch", "training.cannot-overfit-batch")
    ev = overfit.evidence
    assert ev["your_run"]["steps_run"] > 0 and ev["your_run"]["learning_rate"] == learning_rate
    assert _one(result, "training.gradient-flow").status == "info"
    assert _one(result, "training.no-gradient").status == "pass"
    if learning_rate < 1:
        # The healthy setup learns the batch, or only falls short of a higher known-good rate
        # on this tiny random model: never a fault.
        assert [f.id for f in result.findings if f.status == "fail"] == []
        assert overfit.status == "info" or (overfit.status == "warn"
                                            and ev["points_to"] == "learning-rate")
        assert result.verdict.kind == "inconclusive"
    else:
        assert overfit.id == "training.cannot-overfit-batch" and overfit.status == "fail"
        assert ev["points_to"] == "learning-rate"
        good = ev["known_good_run"]
        assert good["final_over_initial"] <= 0.5 < ev["your_run"]["final_over_initial"]
        assert result.verdict.kind == "user-error"
        assert result.verdict.primary == "training.cannot-overfit-batch"


@needs_torch
def test_out_of_memory_plan_measures_a_step_and_finds_the_largest_batch(demo_dir):
    case = healthy_case(demo_dir, "pytorch")
    case.symptom = "out-of-memory"
    walked = [s.id for s in plan(case)]
    assert walked.index("memory") < walked.index("memory-measure")
    result = _walk(case, "memory-measure")
    peak = _one(result, "memory.measured-peak")
    assert peak.status == "info" and peak.evidence["measured_peak_gib"] > 0
    assert peak.evidence["batch_size"] == case.training.batch_size
    search = _one(result, "memory.largest-batch").evidence
    # the tiny model fits on any machine: the search doubles up to its limit, every try fits
    assert search["largest"] == search["search_limit"] >= case.training.batch_size
    assert [ok for _, ok in search["attempts"]] == [True] * len(search["attempts"])
    assert result.verdict.kind == "inconclusive"


@pytest.mark.skipif(HAS_TF, reason="TensorFlow is installed: tests/test_memory_tf.py measures")
def test_memory_steps_say_skip_for_tensorflow_without_tensorflow(demo_dir):
    from wizard.checks.memory.probes import probe_largest_batch, probe_memory_measure

    case = healthy_case(demo_dir, "pytorch")
    case.framework = "tensorflow"
    for probe in (probe_memory_measure, probe_largest_batch):
        [f] = probe(case, device="cpu")
        assert f.status == "skip" and "tensorflow is not installed" in f.title
        assert "tf-keras" in f.fix
