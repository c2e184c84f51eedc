"""Overfit one batch with a LoRA adapter on the tiny local Llama: an adapter that falls too
slowly for the test is judged against every parameter training under the same budget, so a
healthy LoRA setup comes out healthy; the judgement itself, on runs built by hand."""
from __future__ import annotations

import pytest

from tests.conftest import needs_torch
from wizard.backends.train_types import TrainRun
from wizard.checks.adapter_overfit import judge_adapter_overfit
from wizard.core.case import Case


def _run(initial: float, final: float, params: int = 100) -> TrainRun:
    return TrainRun("x", "Adam(learning_rate=0.003)", 3e-3, losses=[initial, final],
                    initial=initial, final=final, trainable_params=params)


def test_the_full_model_decides_only_when_it_learns_the_batch():
    user, good = _run(4.0, 3.96), _run(4.0, 3.8)
    assert judge_adapter_overfit(user, good, _run(4.0, 3.5, 1000), 40, {}) is None  # not learnt
    assert judge_adapter_overfit(user, good, None, 40, {}) is None                  # too large
    slow = judge_adapter_overfit(user, good, _run(4.0, 0.7, 1000), 40, {})
    assert slow.id == "training.overfit-batch" and slow.status == "info"
    assert slow.evidence["full_model_run"]["final_over_initial"] == pytest.approx(0.175)
    flat = judge_adapter_overfit(user, _run(4.0, 3.99), _run(4.0, 0.7, 1000), 40, {})
    assert flat.id == "training.cannot-overfit-batch" and flat.status == "warn"
    assert "target_modules" in flat.fix


@needs_torch
def test_a_healthy_lora_case_overfits_as_far_as_the_full_model_says(tmp_path_factory):
    from tests.lm_fixtures import build
    from wizard.checks.adapters import probe_adapter
    from wizard.checks.training import probe_overfit
    from wizard.context import Context
    from wizard.engine.verdict import decide

    fx = build(tmp_path_factory.mktemp("lora"))
    case = Case.from_dict({
        "model": str(fx["model"]), "task": "text-generation",
        "dataset": {"path": str(fx["text"]), "text_columns": ["text"]},
        "preprocessing": {"max_length": 48},
        "adapter": {"method": "lora", "r": 8, "alpha": 16, "target_modules": ["q_proj", "v_proj"]},
        "training": {"learning_rate": 2e-4, "batch_size": 8, "trainer": "trainer",
                     "warmup_steps": 10},
        "symptom": "not-sure"})
    ctx = Context(case, device="cpu")
    [overfit] = probe_overfit(case, ctx)
    assert overfit.id == "training.overfit-batch" and overfit.status == "info", overfit.title
    assert decide(case, [overfit]).kind == "healthy"
    full = overfit.evidence["full_model_run"]
    assert full["final_over_initial"] <= 0.5 < overfit.evidence["adapter_known_good_over_initial"]
    adapter = next(f for f in probe_adapter(case, ctx) if f.id == "model.adapter").evidence
    assert full["trainable_params"] == adapter["total"] > adapter["trainable"]
