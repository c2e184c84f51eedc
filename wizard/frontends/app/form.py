"""The setup form of the web app, derived from the decision tree's QUESTIONS (no gradio here).

The app shows one field per question, in the tree's order; a field is visible when walking the
tree over the current answers reaches its question, exactly as the terminal would ask it.
Answers are turned into a Case by walking `QuestionWalk` over them, so both front ends fill
the same fields the same way; a bad answer raises CaseError naming the question's field.
"""
from __future__ import annotations

import copy
import math
from typing import Any

from wizard.core.case import Case, CaseError
from wizard.engine.plan import (
    FIRST_QUESTION,
    QUESTIONS,
    Question,
    QuestionWalk,
    get_field,
    set_field,
)

_DEFAULTS = Case()  # the value an unasked question's field keeps


def form_questions() -> list[Question]:
    """Every question, in the order the tree first reaches it (then any the walk never reaches)."""
    order: list[str] = []
    pending = [FIRST_QUESTION]
    while pending:
        qid = pending.pop(0)
        if qid == "checks" or qid in order:
            continue
        order.append(qid)
        pending.extend(e.to for e in QUESTIONS[qid].edges)
    return [QUESTIONS[q] for q in order] + [q for q in QUESTIONS.values() if q.id not in order]


def question_for_field(field_name: str | None) -> str | None:
    """The id of the question that fills a (dotted) case field, if one does."""
    for q in QUESTIONS.values():
        if field_name and (q.field == field_name or field_name.startswith(q.field + ".")):
            return q.id
    return None


def field_label(field_name: str) -> str:
    """A case field as the form names it (the question's prompt, shortened), else its name."""
    qid = question_for_field(field_name)
    return _short(QUESTIONS[qid]) if qid else field_name


def reachable(answers: dict[str, Any], base: Case | None = None) -> list[str]:
    """The ids of the questions a walk over these answers asks, in order (lenient: a bad answer
    counts as empty, so the form can show and hide fields while the user types)."""
    case, asked = _walk(answers, base, strict=False)
    return asked


def choices_for(qid: str, answers: dict[str, Any], base: Case | None = None) -> list[tuple[str, Any]]:
    """(label, value) pairs a select question offers for these answers (e.g. trainers by framework)."""
    case, _ = _walk(answers, base, strict=False, stop_at=qid)
    return [(c.label, c.value) for c in QUESTIONS[qid].choices_for(case)]


def case_from_answers(answers: dict[str, Any], base: Case | None = None) -> Case:
    """A validated Case: `base` (the demo or an uploaded case, else the defaults) with the asked
    questions' answers; the fields of questions the walk does not ask keep their defaults."""
    case, _ = _walk(answers, base, strict=True)
    try:
        return Case.from_dict(case.to_dict())
    except CaseError:
        raise
    except (TypeError, ValueError) as exc:  # a value of the wrong shape, in one sentence
        raise CaseError(f"The setup is not valid ({exc}); check the fields.") from None


def answers_from_case(case: Case) -> dict[str, Any]:
    """Form values for every question, from a case (the demo case, an uploaded case file)."""
    answers: dict[str, Any] = {}
    for q in form_questions():
        value = get_field(case, q.field)
        if q.kind == "select":
            offered = [c.value for c in q.choices_for(case)]
            if value not in offered:  # e.g. trainer unset: the framework's default comes first
                value = offered[0] if offered else None
        answers[q.id] = display_value(q, value)
    return answers


def display_value(q: Question, value: Any) -> Any:
    """A case value as the form shows it."""
    if q.kind in ("columns",):
        return list(value or [])
    if q.kind == "number" and not q.optional:
        return value
    if q.kind == "number":
        return "" if value is None else str(value)
    if q.kind == "float":
        return "" if value is None else f"{value:g}"
    if q.kind == "select" or q.kind == "column":
        return value
    if isinstance(value, dict) and "name" in value:  # optimizer: {name: Adam, learning_rate: 5e-5}
        args = ", ".join(f"{k}={v!r}" for k, v in value.items() if k != "name")
        return f"{value['name']}({args})"
    return "" if value is None else str(value)


def parse_answer(q: Question, raw: Any, case: Case) -> Any:
    """A form value as the case field takes it; CaseError (naming the field) when it is bad."""
    default = copy.deepcopy(get_field(_DEFAULTS, q.field))
    empty = raw is None or (isinstance(raw, str) and not raw.strip()) or \
        (isinstance(raw, (list, tuple)) and not raw)
    if empty:
        if q.optional or q.kind == "optional-text":
            return default
        if q.kind in ("text", "column", "columns"):
            return "" if q.kind != "columns" else []  # Case.validate names what is missing
        raise CaseError(f"{_short(q)} is required; fill it in.", q.field)
    if q.kind == "select":
        offered = [c.value for c in q.choices_for(case)]
        if raw not in offered:
            raise CaseError(f"{_short(q)}: {raw!r} is not one of {', '.join(map(str, offered))}; "
                            "choose one of those.", q.field)
        return raw
    if q.kind == "number":
        number = _number(raw)
        if number is None or not float(number).is_integer():
            raise CaseError(f"{_short(q)} must be a whole number such as 16, not {raw!r}.", q.field)
        return int(number)
    if q.kind == "float":
        number = _number(raw)
        if number is None:
            raise CaseError(f"{_short(q)} must be a number such as 5e-5, not {raw!r}.", q.field)
        return float(number)
    if q.kind == "columns":
        values = [raw] if isinstance(raw, str) else list(raw)
        return [str(v).strip() for v in values if str(v).strip()]
    if q.kind == "column":
        return str(raw).strip()
    if q.kind == "multiline":
        return str(raw).strip("\n")
    return str(raw).strip()


def _short(q: Question) -> str:
    """The question's prompt up to its first bracket or colon, as a field name for messages."""
    text = q.prompt
    for stop in (" (", ":", "?"):
        text = text.split(stop)[0]
    return text.strip() or q.id


def _number(raw: Any) -> float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float)):
        return float(raw) if math.isfinite(float(raw)) else None
    try:
        value = float(str(raw).strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _walk(answers: dict[str, Any], base: Case | None, strict: bool,
          stop_at: str | None = None) -> tuple[Case, list[str]]:
    case = copy.deepcopy(base) if base is not None else Case()
    for q in QUESTIONS.values():  # unasked questions leave their fields at the defaults
        set_field(case, q.field, copy.deepcopy(get_field(_DEFAULTS, q.field)))
    walk = QuestionWalk(case)
    while (q := walk.current()) is not None:
        if q.id == stop_at:
            break
        try:
            value = parse_answer(q, answers.get(q.id), case)
        except CaseError:
            if strict:
                raise
            value = copy.deepcopy(get_field(_DEFAULTS, q.field))
            if q.kind == "select":
                offered = [c.value for c in q.choices_for(case)]
                value = offered[0] if offered else value
        walk.answer(value)
    return case, list(walk.history)
