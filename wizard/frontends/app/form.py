"""The setup form of the web app, derived from the decision tree's QUESTIONS (no gradio here).

The app shows one field per question, in the tree's order; a field is visible when walking the
tree over the current answers reaches its question, as the terminal would ask it (the learning
rate too for Keras: a Keras script can set it apart from the optimizer, e.g. create_optimizer).
Answers are turned into a Case by walking the tree over them, so both front ends fill the same
fields the same way; `form_errors` lists every bad answer at once, in the form's order, in the
user's words (wizard.frontends.app.wording).
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from wizard.context import is_local_ref
from wizard.core.case import Case, CaseError
from wizard.engine.plan import (
    FIRST_QUESTION,
    QUESTIONS,
    Question,
    get_field,
    set_field,
)
from wizard.frontends.app.wording import (
    field_name,
    in_users_words,
    missing_path,
    not_a_number,
    not_offered,
    not_positive,
    not_whole_number,
    required,
    too_small,
    unknown_columns,
)

_DEFAULTS = Case()  # the value an unasked question's field keeps


@dataclass(frozen=True)
class FormError:
    """One bad answer: the question whose field shows it (None: no field of the form does)."""

    qid: str | None
    message: str


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


def question_for_field(dotted: str | None) -> str | None:
    """The id of the question that fills a (dotted) case field, if one does."""
    for q in QUESTIONS.values():
        if dotted and (q.field == dotted or dotted.startswith(q.field + ".")):
            return q.id
    return None


def field_label(dotted: str) -> str:
    """A case field as the form names it ("Dataset" for dataset.path)."""
    return field_name(question_for_field(dotted) or dotted)


def reachable(answers: dict[str, Any], base: Case | None = None) -> list[str]:
    """The ids of the questions a walk over these answers asks, in order (lenient: a bad answer
    counts as empty, so the form can show and hide fields while the user types)."""
    return _walk(answers, base, strict=False)[1]


def choices_for(qid: str, answers: dict[str, Any], base: Case | None = None) -> list[tuple[str, Any]]:
    """(label, value) pairs a select question offers for these answers (e.g. trainers by framework)."""
    case = _walk(answers, base, strict=False, stop_at=qid)[0]
    return [(c.label, c.value) for c in QUESTIONS[qid].choices_for(case)]


def case_from_answers(answers: dict[str, Any], base: Case | None = None) -> Case:
    """A validated Case: `base` (the demo or an uploaded case, else the defaults) with the asked
    questions' answers; the fields of questions the walk does not ask keep their defaults."""
    case = _walk(answers, base, strict=True)[0]
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
            return "" if q.kind != "columns" else []  # form_errors names what is missing
        raise CaseError(required(q), q.field)
    if q.kind == "select":
        offered = q.choices_for(case)
        if raw not in [c.value for c in offered]:
            raise CaseError(not_offered(q, raw, [c.label for c in offered]), q.field)
        return raw
    if q.kind == "number":
        number = _number(raw)
        if number is None or not float(number).is_integer():
            raise CaseError(not_whole_number(q, raw), q.field)
        if number < 1:
            raise CaseError(too_small(q, raw), q.field)
        return int(number)
    if q.kind == "float":
        number = _number(raw)
        if number is None:
            raise CaseError(not_a_number(q, raw), q.field)
        if number <= 0:
            raise CaseError(not_positive(q, raw), q.field)
        return float(number)
    if q.kind == "columns":
        values = [raw] if isinstance(raw, str) else list(raw)
        return [str(v).strip() for v in values if str(v).strip()]
    if q.kind == "column":
        return str(raw).strip()
    if q.kind == "multiline":
        return str(raw).strip("\n")
    if q.check is not None:
        q.check(str(raw).strip())  # a CaseError with the sentence for this field
    return str(raw).strip()


def form_errors(answers: dict[str, Any], base: Case | None = None,
                columns: Callable[[str, str | None], list[str]] | None = None) -> list[FormError]:
    """Every bad answer of the questions the form asks, at once, in the form's order: values
    that cannot be read, answers the checks need left empty, local paths that do not exist and,
    with `columns` (the dataset's column names, for a local dataset), columns it lacks."""
    case, asked, errors = _walk(answers, base, strict=False)

    def check(qid: str, message: str | None) -> None:
        if message and qid in asked and qid not in errors:
            errors[qid] = message

    check("model", None if case.error_only else required(QUESTIONS["model"])
          if not case.model.strip() else _missing("model", case.model))
    data = case.dataset
    check("dataset", required(QUESTIONS["dataset"]) if not data.path.strip() and not
          data.data_files else _missing("dataset", data.path))
    check("logs", _missing("logs", case.logs or ""))
    check("optimizer", required(QUESTIONS["optimizer"])
          if not str(case.training.optimizer or "").strip() else None)
    for qid in ("text_columns", "label_column"):
        check(qid, required(QUESTIONS[qid]) if not get_field(case, QUESTIONS[qid].field) else None)
    if columns is not None and "dataset" in asked and "dataset" not in errors and \
            data.path.strip() and is_local_ref(data.path):
        try:
            names = columns(data.path, data.config)
        except CaseError:
            names = []  # the run's own check of the dataset says what is wrong with it
        for qid, wanted in (("text_columns", data.text_columns), ("label_column",
                                                                  [data.label_column])):
            unknown = [c for c in wanted if c and c not in names]
            check(qid, unknown_columns(QUESTIONS[qid], unknown, names) if names and unknown
                  else None)
    if not errors:
        try:
            Case.from_dict(case.to_dict())
        except CaseError as exc:
            return [error_for(exc)]
        except (TypeError, ValueError) as exc:
            return [FormError(None, f"The setup is not valid ({exc}); check the fields.")]
    order = [q.id for q in form_questions()]
    return [FormError(qid, errors[qid]) for qid in order if qid in errors]


def error_for(exc: CaseError) -> FormError:
    """A CaseError of the engine (naming a case field) as the form shows it."""
    return FormError(question_for_field(exc.field_name), in_users_words(str(exc), exc.field_name))


def _missing(qid: str, path: str) -> str | None:
    path = path.strip()
    if path and is_local_ref(path) and not Path(path).expanduser().exists():
        return missing_path(qid, path)
    return None


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
          stop_at: str | None = None) -> tuple[Case, list[str], dict[str, str]]:
    """Walk the tree over the answers: the case, the ids of the questions asked, and the
    message of each answer that could not be read (strict: the first raises instead)."""
    case = copy.deepcopy(base) if base is not None else Case()
    for q in QUESTIONS.values():  # unasked questions leave their fields at the defaults
        set_field(case, q.field, copy.deepcopy(get_field(_DEFAULTS, q.field)))
    asked: list[str] = []
    errors: dict[str, str] = {}
    qid = FIRST_QUESTION
    while qid != "checks":
        q = QUESTIONS[qid]
        if not q.when(case):
            qid = q.next_id(case)
            continue
        if q.id == stop_at:
            break
        try:
            value = parse_answer(q, answers.get(q.id), case)
        except CaseError as exc:
            if strict:
                raise
            errors[q.id] = str(exc)
            value = copy.deepcopy(get_field(_DEFAULTS, q.field))
            if q.kind == "select":
                offered = [c.value for c in q.choices_for(case)]
                value = offered[0] if offered else value
        set_field(case, q.field, value)
        asked.append(q.id)
        qid = q.next_id(case)
    return case, asked, errors
