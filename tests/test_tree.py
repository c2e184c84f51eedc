"""The decision tree: every path through the questions ends at the checks, every question and
step is reachable, each symptom's plan runs in a sensible order, and the session follows the
step-level branches (`when`, `needs`, `stop_on_fail`)."""
from __future__ import annotations

import itertools
import json
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Iterator

import pytest

from wizard.core.case import SYMPTOMS, Case, CaseError
from wizard.demo.cases import course_case
from wizard.core.findings import Finding
from wizard.engine.registry import PROBES, resolve
from wizard.engine.session import Session
from wizard.engine.plan import PLANS, QUESTIONS, STEPS, QuestionWalk, plan

TRACEBACK = "IndexError: Target 2 is out of bounds."
OOM_TRACEBACK = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB."
ANSWERS = {"traceback": TRACEBACK, "model": "m", "num_labels": None,
           "dataset": "d", "dataset_config": None, "text_columns": ["text"],
           "label_column": "label", "optimizer": "adam", "learning_rate": None,
           "loss": "sparse_categorical_crossentropy", "labels": "inputs", "batch_size": 16,
           "target_gpu": "A100-40GB", "target_count": 2, "logs": None}
TRAINERS = {"tensorflow": ("keras",), "pytorch": ("trainer", "loop")}
OVERFIT = {"nan-loss", "loss-not-decreasing", "not-sure", "metric-wrong"}
GRADIENTS = {"nan-loss", "loss-not-decreasing", "not-sure"}
NO_CURVES = {"out-of-memory", "slow"}  # logs do not explain these
TARGET = {"out-of-memory", "not-sure"}    # the target GPU is asked for these (no GPU here)


@pytest.fixture(autouse=True)
def no_gpu_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """The walks below are those of a machine without a GPU (a laptop, a CPU Space)."""
    monkeypatch.setattr("wizard.engine.plan.gpu_here", lambda: False)


def walk(symptom: str, framework: str, trainer: str, **answers: object) -> tuple[list[str], Case]:
    w = QuestionWalk(Case.from_dict({}, validate=False))
    picks = {**ANSWERS, **answers, "symptom": symptom, "framework": framework, "trainer": trainer}
    seen = []
    while not w.done:
        q = w.current()
        seen.append(q.id)
        value = picks[q.id]
        if q.kind == "select":
            assert value in [c.value for c in q.choices_for(w.case)], (q.id, value)
        w.answer(value)
        assert len(seen) <= len(QUESTIONS), "the walk loops"
    return seen, w.case


def every_walk() -> Iterator[tuple[str, str, str, str | None, str]]:
    """Every symptom x framework x trainer, with and without logs, and for an error with a
    pasted traceback, an out-of-memory one, and none."""
    for symptom, framework in itertools.product(SYMPTOMS, TRAINERS):
        for trainer, logs in itertools.product(TRAINERS[framework], (None, "trainer_state.json")):
            for traceback in ((TRACEBACK, OOM_TRACEBACK, "") if symptom == "error"
                              else (TRACEBACK,)):
                yield symptom, framework, trainer, logs, traceback


def test_every_path_reaches_the_checks_and_walks_every_question_and_step():
    questions: set[str] = set()
    steps_walked: set[str] = set()
    for symptom, framework, trainer, logs, traceback in every_walk():
        seen, case = walk(symptom, framework, trainer, logs=logs, traceback=traceback)
        questions.update(seen)
        case.validate()  # a finished walk is a complete case
        assert ("traceback" in seen) == (symptom == "error")
        assert ("loss" in seen) == ("labels" in seen) == (trainer == "keras")
        assert "learning_rate" in seen  # every framework can set it apart from the optimizer
        assert ("target_gpu" in seen) == ("target_count" in seen) == (
            symptom in TARGET or traceback == OOM_TRACEBACK and symptom == "error")
        steps = [s.id for s in plan(case)]
        steps_walked.update(steps)
        assert steps[0] == "environment" and steps[-1] == "report"
        assert len(steps) == len(set(steps))
        assert ("triage" in steps) == (symptom == "error" and bool(traceback))
        assert ("curves" in steps) == (logs is not None and symptom not in NO_CURVES)
        assert ("overfit" in steps) == (symptom in OVERFIT)
        assert ("gradients" in steps) == (symptom in GRADIENTS)
        assert ("memory-measure" in steps) == (symptom == "out-of-memory" or (
            symptom == "error" and traceback == OOM_TRACEBACK))
        # the course's order: the training steps come after the cheap checks
        for later in ("overfit", "gradients"):
            if later in steps:
                assert all(steps.index(first) < steps.index(later)
                           for first in ("data", "model", "hyperparameters", "memory")
                           if first in steps)
        if "gradients" in steps:
            assert steps.index("overfit") < steps.index("gradients")
        if "memory-measure" in steps:
            assert steps.index("memory-measure") == steps.index("memory") + 1
    # no model here ships code, nor is a causal LM, a token classifier, a seq2seq or a QA model
    # (their questions: tests/test_causal_lm.py, tests/test_token_classification.py,
    # tests/test_seq2seq.py, tests/test_question_answering.py)
    # (the issue search is asked only when the model is left empty: below)
    assert questions == set(QUESTIONS) - {"trust_remote_code", "task", "lm_labels", "adapter",
                                          "token_labels", "label_pad", "max_target_length",
                                          "stride", "packing", "search_issues"}
    # only a pasted error, the model left empty: the error and the installed libraries, and
    # the library's issues when the user says yes to searching them
    walker = QuestionWalk(Case(symptom="error", traceback="ValueError: x"))
    walker.position = "model"
    walker.answer("")
    assert walker.current().id == "search_issues"
    walker.answer(True)
    assert walker.current() is None
    only = [s.id for s in plan(Case(symptom="error", traceback="ValueError: x"))]
    assert only == ["installation", "triage"]
    asked = [s.id for s in plan(walker.case)]
    assert asked == ["installation", "triage", "reported-before"]
    steps_walked.update(asked)
    assert steps_walked == set(STEPS)


def remote_code_model(folder: Path) -> Path:
    """A save_pretrained-style folder whose config maps its classes to the repo's own code."""
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({
        "model_type": "xbert", "auto_map": {"AutoConfig": "configuration_x.XConfig",
                                            "AutoModel": "modeling_x.XModel"}}))
    (folder / "modeling_x.py").write_text("# the repo's code\n")
    return folder


def test_a_model_with_its_own_code_asks_before_trusting_it(tmp_path: Path) -> None:
    model = str(remote_code_model(tmp_path / "remote"))
    for trust in (False, True):
        seen, case = walk("not-sure", "pytorch", "trainer", model=model, trust_remote_code=trust)
        assert seen[seen.index("model") + 1] == "trust_remote_code"
        assert case.trust_remote_code is trust
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "config.json").write_text(json.dumps({"model_type": "bert"}))
    seen, case = walk("not-sure", "pytorch", "trainer", model=str(plain))
    assert "trust_remote_code" not in seen and case.trust_remote_code is False


def test_the_target_gpu_is_asked_without_a_gpu_here_and_fills_the_case(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen, case = walk("out-of-memory", "pytorch", "trainer", target_gpu="a100 40gb",
                      target_count=2)
    assert seen[seen.index("batch_size") + 1:seen.index("logs")] == ["target_gpu", "target_count"]
    card = case.target.card()
    assert (card.name, card.memory_gib, case.target.cards) == ("A100-40GB", 40.0, 2)
    seen, case = walk("not-sure", "pytorch", "trainer", target_gpu=None)
    assert "target_gpu" in seen and "target_count" not in seen   # no GPU named: no count
    assert case.target.card() is None
    seen, _ = walk("nan-loss", "pytorch", "trainer")
    assert "target_gpu" not in seen                              # not a memory question
    monkeypatch.setattr("wizard.engine.plan.gpu_here", lambda: True)
    seen, _ = walk("out-of-memory", "pytorch", "trainer")
    assert "target_gpu" not in seen                              # the GPU here is measured
    with pytest.raises(CaseError) as bad:
        QUESTIONS["target_gpu"].check("A100")
    assert str(bad.value) == "A100 comes in A100-40GB and A100-80GB; write which one, e.g. A100-40GB."


def test_back_returns_to_the_previous_question():
    w = QuestionWalk(Case.from_dict({}, validate=False))
    w.answer("nan-loss")
    assert w.current().id == "framework"
    assert w.back() and w.current().id == "symptom"
    assert not w.back()


def test_plans_keep_the_course_order_and_every_probe_is_registered():
    for symptom in ("error", "nan-loss", "not-sure", "none"):
        steps = PLANS[symptom]
        assert steps.index("data") < steps.index("model") < steps.index("hyperparameters")
    assert PLANS["out-of-memory"][2] == "memory"  # memory first when memory is the symptom
    # the training steps stay out of the error and "none" plans (cheap, and the demo's faults)
    for symptom in ("error", "none", "slow"):
        assert not {"overfit", "gradients"} & set(PLANS[symptom])
    for framework in TRAINERS:
        demo = {s.id for s in plan(course_case(Path("demo"), framework))}
        assert not {"overfit", "gradients", "memory-measure"} & demo
    for step in STEPS.values():
        for name in step.probes:
            assert callable(resolve(name)), name
    # the new steps need the model and data: they run in the framework worker
    for name in ("overfit", "gradients", "memory-measure", "largest-batch"):
        assert PROBES[name].in_worker


# -- the step-level branches, followed by the session -------------------------------------------
def _library_signal(case, ctx):
    return [Finding("triage.possible-library-bug", "warn", "raised inside transformers")]


def _user_fault(case, ctx):
    return [Finding("data.labels-out-of-range", "fail", "label 2 with num_labels=2")]


def _forward_ok(case, ctx):
    return [Finding("model.forward", "pass", "finite logits")]


def _forward_nan(case, ctx):
    return [Finding("model.forward", "fail", "NaN logits before any training")]


def _forward_raised(case, ctx):
    return [Finding("model.forward-raised", "warn", "the forward pass raises")]


def _ran(case, ctx):
    return [Finding("environment.device", "info", "the gated step ran")]


def _session(case: Case, *steps) -> list[str]:
    """The path the session walks (probes run in this process on a stand-in context)."""
    return Session(case, ctx=SimpleNamespace(notes=[]), steps=list(steps)).run().path


@pytest.mark.parametrize("first, gated, walks", [
    (_library_signal, "report", True), (_user_fault, "report", False),
    (_forward_ok, "overfit", True), (_forward_nan, "overfit", False),
    (_forward_ok, "gradients", True), (_forward_raised, "gradients", False)])
def test_a_step_with_needs_runs_only_when_the_findings_call_for_it(first, gated, walks):
    case = Case.from_dict({"model": "m", "dataset": {"path": "d"}, "symptom": "nan-loss"})
    assert STEPS[gated].needs(case, first(case, None)) is walks
    before = replace(STEPS["model"], probes=(f"{__name__}:{first.__name__}",))
    step = replace(STEPS[gated], probes=(f"{__name__}:_ran",))  # the real `needs`
    assert _session(case, before, step) == (["model", gated] if walks else ["model"])


def test_a_fail_in_a_stop_on_fail_step_ends_the_walk():
    case = Case.from_dict({"model": "m", "dataset": {"path": "d"}})
    fault = f"{__name__}:_user_fault"
    assert STEPS["environment"].stop_on_fail
    assert _session(case, replace(STEPS["environment"], probes=(fault,)), STEPS["curves"]) == \
        ["environment"]
    assert _session(case, replace(STEPS["data"], probes=(fault,)),
                    replace(STEPS["model"], probes=(fault,))) == ["data", "model"]
