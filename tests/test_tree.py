"""The decision tree: every path through the questions ends at the checks, every question and
step is reachable, and each symptom's plan runs in a sensible order."""
from __future__ import annotations

import itertools

from wizard.case import SYMPTOMS, Case
from wizard.tree import PLANS, QUESTIONS, STEPS, QuestionWalk, plan

ANSWERS = {"traceback": "IndexError: Target 2 is out of bounds.", "model": "m", "num_labels": None,
           "dataset": "d", "dataset_config": None, "text_columns": ["text"],
           "label_column": "label", "optimizer": "adam", "learning_rate": None,
           "loss": "sparse_categorical_crossentropy", "labels": "inputs", "batch_size": 16,
           "logs": None}


def walk(symptom: str, framework: str, trainer: str) -> tuple[list[str], Case]:
    w = QuestionWalk(Case.from_dict({}, validate=False))
    picks = {"symptom": symptom, "framework": framework, "trainer": trainer}
    seen = []
    while not w.done:
        q = w.current()
        seen.append(q.id)
        value = picks.get(q.id, ANSWERS.get(q.id))
        if q.kind == "select":
            assert value in [c.value for c in q.choices_for(w.case)], (q.id, value)
        w.answer(value)
        assert len(seen) <= len(QUESTIONS), "the walk loops"
    return seen, w.case


def test_every_answer_path_reaches_the_checks_and_covers_every_question():
    reached: set[str] = set()
    for symptom, framework in itertools.product(SYMPTOMS, ("tensorflow", "pytorch")):
        trainers = ("keras",) if framework == "tensorflow" else ("trainer", "loop")
        for trainer in trainers:
            seen, case = walk(symptom, framework, trainer)
            reached.update(seen)
            case.validate()  # a finished walk is a complete case
            assert ("traceback" in seen) == (symptom == "error")
            assert ("loss" in seen) == (trainer == "keras")
            assert ("learning_rate" in seen) == (trainer != "keras")
            steps = [s.id for s in plan(case)]
            assert steps[0] == "environment" and steps[-1] == "report"
            assert ("triage" in steps) == (symptom == "error")
    assert reached == set(QUESTIONS)


def test_back_returns_to_the_previous_question():
    w = QuestionWalk(Case.from_dict({}, validate=False))
    w.answer("nan-loss")
    assert w.current().id == "framework"
    assert w.back() and w.current().id == "symptom"
    assert not w.back()


def test_every_step_is_in_some_plan_and_data_comes_before_model_where_both_run():
    used = {s for p in PLANS.values() for s in p} | {"report"}
    assert used == set(STEPS)
    for symptom in ("error", "nan-loss", "not-sure", "none"):
        steps = PLANS[symptom]
        assert steps.index("data") < steps.index("model") < steps.index("hyperparameters")
    assert PLANS["out-of-memory"][2] == "memory"  # memory first when memory is the symptom
