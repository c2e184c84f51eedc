"""The interactive terminal wizard: renders the tree's questions with questionary, runs the
checks with rich output, saves the session as it goes (a saved session is a case file).

Right after the symptom it offers to read the user's training script (statically, never run):
what the script says fills the case, and only the values it leaves to run time are asked.
"""
from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prompt_toolkit.key_binding import KeyBindings, merge_key_bindings

from wizard.backends.data import load_splits
from wizard.checks.hub import UNREACHABLE
from wizard.context import is_local_ref
from wizard.core.case import (
    FRAMEWORKS,
    LABEL_PLACES,
    PADDINGS,
    PRECISIONS,
    TRAINERS,
    Case,
    CaseError,
)
from wizard.demo.cases import course_case
from wizard.demo.fixtures import default_cache_dir, ensure_fixtures
from wizard.engine.plan import (
    QUESTIONS,
    Edge,
    Question,
    QuestionWalk,
    get_field,
    set_field,
)
from wizard.engine.session import Session
from wizard.errors import WizardError
from wizard.frameworks import default_demo_framework
from wizard.frontends.app import wording
from wizard.frontends.terminal.console import (
    EventPrinter,
    exit_code,
    finding_line,
    make_console,
    summary_line,
    verdict_panel,
)
from wizard.hub.dataset import resolve_dataset
from wizard.hub.errors import HubError
from wizard.hub.resolve import resolve_model
from wizard.reports.render import write_reports
from wizard.script.reader import ScriptError, case_from_script
from wizard.script.types import CASE_TYPES, ScriptQuestion, ScriptReading
from wizard.settings import PROBE_TIMEOUT

if TYPE_CHECKING:
    pass

BACK = "__back__"
DEMO = "__demo__"
HUB_ID = re.compile(r"^[\w.-]+(/[\w.-]+)?$")
HUB_LOOKUP_S = 5.0      # seconds the model and dataset questions wait for the Hub
SCRIPT_PROMPT = "Path to your training script (empty to answer the questions instead)"
SETUP_START = "framework"   # the script question comes right before this one
SETUP_END = "batch_size"    # the last setup question a script can answer (logs are not in it)
CHOICES = {"framework": FRAMEWORKS, "training.labels": LABEL_PLACES,
           "preprocessing.padding": PADDINGS, "training.mixed_precision": PRECISIONS,
           "training.trainer": TRAINERS}


class Validation(WizardError):
    """An answer that cannot be used; the message says why, and the question is asked again."""


def session_files(out_dir: Path) -> tuple[Path, Path]:
    return out_dir / "session.yaml", out_dir / "session.progress.json"


@dataclass
class ScriptStep:
    """The optional script question between the symptom and the setup questions, and what the
    script answered: `skip` holds the setup question ids it resolved, `questions` the values it
    leaves to run time (tree questions show their line; the others are asked right after)."""

    asked: bool = False
    path: str | None = None
    skip: set[str] = field(default_factory=set)
    questions: list[ScriptQuestion] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)  # fields of `questions` no tree question has
    answered: list[str] = field(default_factory=list)  # fields the user gave after the reading

    def prompt_for(self, dotted: str) -> ScriptQuestion | None:
        return next((q for q in self.questions if q.field == dotted), None)

    def reset(self) -> None:
        self.path, self.skip, self.questions, self.pending, self.answered = None, set(), [], [], []

    def to_dict(self) -> dict[str, Any]:
        return {"asked": self.asked, "path": self.path, "skip": sorted(self.skip),
                "questions": [q.to_dict() for q in self.questions], "pending": self.pending,
                "answered": self.answered}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> "ScriptStep":
        if not data:
            return cls()
        return cls(bool(data.get("asked")), data.get("path"), set(data.get("skip", [])),
                   [ScriptQuestion(**q) for q in data.get("questions", [])],
                   list(data.get("pending", [])), list(data.get("answered", [])))


def save_progress(walk: QuestionWalk, out_dir: Path, script: ScriptStep | None = None) -> Path:
    """The answers so far as a case file (replayable with `check`), plus where the walk is."""
    case_file, progress = session_files(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    case_file.write_text(walk.case.to_yaml(), encoding="utf-8")
    state: dict[str, Any] = {"position": walk.position, "history": walk.history}
    if script is not None:
        state["script"] = script.to_dict()
    progress.write_text(json.dumps(state))
    return case_file


def load_script_step(path: Path) -> ScriptStep:
    """The script step of a saved session (a fresh one when the session has none)."""
    progress = session_files(path if path.is_dir() else path.parent)[1]
    if not progress.exists():
        return ScriptStep(asked=True)  # a bare case file: its setup is already written
    return ScriptStep.from_dict(json.loads(progress.read_text()).get("script"))


def load_progress(path: Path) -> QuestionWalk:
    case_file, progress = session_files(path if path.is_dir() else path.parent)
    if path.is_file():
        case_file = path
    if not case_file.exists():
        raise CaseError(f"No saved session at {str(path)!r}; give the folder or session.yaml "
                        "that an earlier run wrote.")
    case = Case.from_yaml(case_file.read_text(encoding="utf-8"), validate=False)
    state = json.loads(progress.read_text()) if progress.exists() else {"position": "checks",
                                                                       "history": []}
    return QuestionWalk(case, state["position"], state["history"])


# -- answers: parse and validate -------------------------------------------------------------------
def parse_answer(q: Question, raw: Any, case: Case, columns: list[str] | None) -> Any:
    """Turn what was typed or picked into the field's value, or raise Validation (worded as the
    web form words it: wizard.frontends.app.wording)."""
    text = raw.strip() if isinstance(raw, str) else raw
    if q.kind == "select" and any(c.value == raw for c in q.choices_for(case)):
        return raw  # a picked choice, False included
    if q.optional and text in ("", None, []):
        return None
    if q.kind == "number":
        try:
            value = int(text)
        except (TypeError, ValueError):
            raise Validation(wording.not_whole_number(q, text))
        if value < 1:
            raise Validation(wording.too_small(q, value))
        return value
    if q.kind == "float":
        try:
            value = float(text)
        except (TypeError, ValueError):
            raise Validation(wording.not_a_number(q, text))
        if value <= 0:
            raise Validation(wording.not_positive(q, value))
        return value
    if q.kind in ("columns", "column"):
        values = text if isinstance(text, list) else [c.strip() for c in str(text).split(",") if c.strip()]
        if not values:
            raise Validation(wording.required(q))
        if columns is not None:
            unknown = [c for c in values if c not in columns]
            if unknown:
                raise Validation(wording.unknown_columns(q, unknown, columns))
        return values if q.kind == "columns" else values[0]
    if q.field == "model" and not text and case.traceback.strip():
        return ""                     # only the pasted error: it is read, no model runs
    if q.field in ("model", "dataset.path"):
        return _validate_ref(str(text), "model" if q.field == "model" else "dataset")
    if q.field == "logs" and text and not Path(str(text)).expanduser().exists():
        raise Validation(wording.missing_path(q, str(text)))
    if not text and not q.optional:
        raise Validation(wording.required(q))
    if q.check is not None and text:
        try:
            q.check(str(text))
        except CaseError as bad:
            raise Validation(str(bad)) from None
    return text


def _validate_ref(text: str, what: str) -> str:
    if not text:
        raise Validation(wording.required(QUESTIONS[what]))
    if is_local_ref(text) or not HUB_ID.match(text):
        path = Path(text).expanduser()
        if not path.exists():
            raise Validation(wording.missing_path(what, text))
        return str(path.resolve())
    return text


def hub_note(q: Question, value: Any, case: Case) -> str | None:
    """For a Hub id answer, one sentence when the Hub cannot answer for it now (offline mode,
    unreachable), saying which checks that prevents; None for local paths and ids that resolve.
    Other lookup failures (a missing or gated repo) are the checks' findings, with their fix."""
    if q.field not in ("model", "dataset.path") or not isinstance(value, str) \
            or is_local_ref(value):
        return None
    what = "model" if q.field == "model" else "dataset"
    try:
        if what == "model":
            resolve_model(value, revision=case.revision, timeout=HUB_LOOKUP_S)
        else:
            resolve_dataset(value, case.dataset.config, timeout=HUB_LOOKUP_S)
    except HubError as err:
        return wording.hub_not_checked(what, err.message) if err.kind in UNREACHABLE else None
    except Exception:  # noqa: BLE001 - the checks look again and report what they find
        return None
    return None


def dataset_columns(case: Case) -> list[str] | None:
    """Column names of the train split, when the dataset can be opened cheaply (local)."""

    if not case.dataset.path or not is_local_ref(case.dataset.path):
        return None
    try:
        spec = case.dataset
        probe = type(spec)(**{**spec.__dict__, "max_samples": 1, "eval_split": None})
        return list(load_splits(probe)[spec.train_split].column_names)
    except Exception:
        return None


# -- rendering --------------------------------------------------------------------------------------
def ask(q: Question, case: Case, columns: list[str] | None, can_go_back: bool,
        keep_default: bool = True) -> Any:
    """One question through questionary; returns the raw answer or BACK. keep_default=False:
    no current value is offered (a value the script leaves to run time has none)."""
    import questionary

    current = get_field(case, q.field) if keep_default else None
    back_hint = " ('<' goes back)" if can_go_back else ""
    if q.kind == "select":
        choices = [questionary.Choice(c.label, value=c.value) for c in q.choices_for(case)]
        if q.id == "symptom":
            choices.append(questionary.Choice("Try the built-in offline demo case", value=DEMO))
        if can_go_back:
            choices.append(questionary.Choice("← back", value=BACK))
        default = next((c for c in choices if c.value == current), None)
        return _back_key(questionary.select(q.prompt, choices=choices, default=default,
                                            use_shortcuts=len(choices) <= 36,
                                            instruction=f"({q.why})"), can_go_back).unsafe_ask()
    if q.kind == "columns" and columns:
        guess = current if current and all(c in columns for c in current) else [
            c for c in columns if c in ("text", "sentence", "premise", "hypothesis", "question")]
        choices = [questionary.Choice(c, value=c, checked=c in guess) for c in columns]
        return _back_key(questionary.checkbox(q.prompt, choices=choices,
                                              instruction="(space to pick, enter to confirm)"),
                         can_go_back).unsafe_ask()
    if q.kind == "column" and columns:
        choices = [questionary.Choice(c, value=c) for c in columns]
        if can_go_back:
            choices.append(questionary.Choice("← back", value=BACK))
        default = next((c for c in choices if c.value == (current or "label")), None)
        return _back_key(questionary.select(q.prompt, choices=choices, default=default),
                         can_go_back).unsafe_ask()
    default = "" if current in (None, [], "") else (", ".join(current) if isinstance(current, list)
                                                    else str(current))
    if q.kind == "multiline":
        return read_pasted(q.prompt)
    else:
        shown = f" [{default}]" if default and not q.optional else ""
        answer = questionary.text(q.prompt + shown + back_hint).unsafe_ask()
        if not answer.strip() and default and not q.optional:
            answer = current  # Enter keeps the default shown in brackets
    return BACK if can_go_back and isinstance(answer, str) and answer.strip() == "<" else answer


def _back_key(question: Any, can_go_back: bool) -> Any:
    """A menu where '<' goes back at once, as the header says (text answers read '<' too)."""
    if can_go_back:
        keys = KeyBindings()

        @keys.add("<")
        def _back(event: Any) -> None:
            event.app.exit(result=BACK)

        app = question.application
        app.key_bindings = merge_key_bindings([app.key_bindings, keys])
    return question


def read_pasted(prompt: str) -> str:
    """Pasted multi-line text (a traceback keeps its single blank lines): ends at two empty
    lines in a row or Ctrl-D; an empty first line skips."""
    from rich.console import Console

    Console(highlight=False).print(f"[bold]?[/] [bold]{prompt}[/] [dim](two empty lines or "
                                   "Ctrl-D to finish; empty to skip)[/]")
    lines: list[str] = []
    while True:
        try:
            line = input()
        except EOFError:
            break
        if not line.strip() and (not lines or not lines[-1].strip()):
            break
        lines.append(line)
    return "\n".join(lines).strip()


def run_interactive(out_dir: Path, resume: Path | None = None, device: str = "auto",
                    timeout: float = PROBE_TIMEOUT) -> int:
    """The whole guided walk: questions (or a script read), checks, verdict, report."""
    from rich.markup import escape


    console = make_console()
    walk = load_progress(resume) if resume else QuestionWalk(Case.from_dict({}, validate=False))
    script = load_script_step(resume) if resume else ScriptStep()
    console.print("[bold]hf-debug-wizard[/] — the checks an expert would run, on your model and data.")
    console.print(f"[dim]Answers are saved in {session_files(out_dir)[0]} as you go; "
                  "Ctrl-C stops (saved), '<' or ← back goes to the previous question.[/]\n")
    try:
        while not walk.done:
            q = walk.current()
            assert q is not None
            if q.id == SETUP_START and not script.asked:
                if ask_script(console, walk, script) == BACK:
                    walk.back()
                save_progress(walk, out_dir, script)
                continue
            if script.pending:
                if ask_script_value(console, walk, script) == BACK:
                    script.asked = False  # the script question again
                save_progress(walk, out_dir, script)
                continue
            if q.id in script.skip:  # read from the script: kept as it is
                walk.answer(get_field(walk.case, q.field))
                _after_answer(walk)
                continue
            from_script = script.prompt_for(q.field)
            shown = dataclasses.replace(q, prompt=from_script.prompt) if from_script else q
            columns = dataset_columns(walk.case) if q.kind in ("columns", "column") else None
            raw = ask(shown, walk.case, columns, can_go_back=bool(walk.history),
                      keep_default=from_script is None)
            if raw == BACK:
                go_back(walk, script, q)
                continue
            if raw == DEMO:
                return _run_demo(console, out_dir, device, timeout)
            try:
                value = parse_answer(q, raw, walk.case, columns)
            except Validation as bad:
                console.print(f"[red]✗ {escape(str(bad))}[/] Please answer again.")
                continue
            note = hub_note(q, value, walk.case)
            if note:
                console.print(f"[yellow]⚠ {escape(note)}[/]")
            walk.answer(value)
            if script.path and q.field not in script.answered and q.id != "logs":
                script.answered.append(q.field)
            _after_answer(walk)
            save_progress(walk, out_dir, script)
        try:
            walk.case.validate()
        except CaseError as exc:
            console.print(f"[red]✗ {escape(wording.in_users_words(str(exc), exc.field_name))}[/]")
            return 2
        case_file = save_progress(walk, out_dir, script)
        console.print(f"\n[green]Setup complete[/] — saved as a case file: {case_file}\n"
                      f"[dim](replay it any time: python -m wizard check {case_file})[/]")
        return _run_checks(console, walk.case, out_dir, device, timeout,
                           reading=final_reading(console, walk.case, script))
    except KeyboardInterrupt:
        saved = save_progress(walk, out_dir, script)
        console.print(f"\n[yellow]Stopped.[/] Your answers are saved in {saved}; continue with "
                      f"[bold]python -m wizard --resume {out_dir}[/]")
        return 130


def go_back(walk: QuestionWalk, script: ScriptStep, q: Question) -> None:
    """'<' on a setup question: the previous question the user was asked (skipping what the
    script answered); before the first setup question comes the script question."""
    if q.id == SETUP_START:
        script.asked = False
        return
    walk.back()
    while walk.position in script.skip:
        if walk.position == SETUP_START or not walk.back():
            script.asked = False
            return


# -- the training script ------------------------------------------------------------------------------
def ask_script(console: Any, walk: QuestionWalk, script: ScriptStep) -> str | None:
    """Ask for the training script; read it and prefill the case. Returns BACK or None. A path
    that cannot be read is said in one sentence and asked again."""
    import questionary
    from rich.markup import escape


    while True:
        raw = questionary.text(SCRIPT_PROMPT + " ('<' goes back)").unsafe_ask()
        text = (raw or "").strip()
        if text == "<":
            return BACK
        script.reset()
        if not text:
            script.asked = True
            return None
        try:
            reading = case_from_script(Path(text).expanduser())
        except ScriptError as exc:
            console.print(f"[red]✗ {escape(str(exc))}[/] Please answer again.")
            continue
        apply_reading(walk, script, reading)
        show_reading(console, reading, script)
        script.asked = True
        return None


def apply_reading(walk: QuestionWalk, script: ScriptStep, reading: ScriptReading) -> None:
    """The script's case becomes the walk's case (the symptom and the pasted error stay); the
    setup questions it resolved are skipped, those it leaves to run time will be asked."""
    case = reading.case
    case.symptom, case.traceback, case.logs = (walk.case.symptom, walk.case.traceback,
                                               walk.case.logs)
    walk.case = case
    script.path = reading.path
    script.questions = list(reading.questions)
    open_fields = {q.field for q in reading.questions}
    if not case.model:
        open_fields.add("model")
    if not case.dataset.path and not case.dataset.data_files:
        open_fields.add("dataset.path")
    if "framework" not in reading.read:
        open_fields.add("framework")
    setup = list(QUESTIONS)
    setup = setup[setup.index(SETUP_START):setup.index(SETUP_END) + 1]
    script.skip = {qid for qid in setup if QUESTIONS[qid].field not in open_fields}
    tree_fields = {QUESTIONS[qid].field for qid in setup}
    script.pending = [q.field for q in reading.questions if q.field not in tree_fields]


def show_reading(console: Any, reading: ScriptReading, script: ScriptStep) -> None:
    """What was read, line by line; the static findings with their lines; what is still open."""
    from rich.markup import escape
    from rich.text import Text


    console.print(f"\n[green]✓[/] {escape(reading.summary())}")
    for dotted, src in reading.read.items():
        try:
            value = get_field(reading.case, dotted)
        except AttributeError:
            continue
        console.print(Text.assemble(f"   {dotted:<26} ", (f"{value!r:<32}", "bold"),
                                    (f" line {src.line}", "dim")))
    static = [f for f in reading.findings if f.id != "script.read"]
    if static:
        console.print("\n[bold]What the script already shows[/] (static checks, nothing was run):")
    for f in static:
        line = f.evidence.get("line")
        console.print(finding_line(f).append(f"  line {line}" if line else "", "dim"))
    if script.questions:
        console.print("\n[bold]Left to run time[/] — you will be asked for:")
        for q in script.questions:
            console.print(f"   {q.field}: line {q.line}: [dim]{escape(q.code)}[/] ({escape(q.reason)})")
    if script.skip:
        console.print("[dim]The setup questions the script answers are skipped.[/]")
    console.print()


def ask_script_value(console: Any, walk: QuestionWalk, script: ScriptStep) -> str | None:
    """The first value the script leaves to run time that no setup question covers (the
    train split, max_length, ...): asked with its line. Returns BACK or None."""
    from rich.markup import escape

    dotted = script.pending[0]
    sq = script.prompt_for(dotted)
    assert sq is not None
    q = script_value_question(sq)
    columns = dataset_columns(walk.case) if q.kind == "columns" else None
    raw = ask(q, walk.case, columns, can_go_back=True, keep_default=False)
    if raw == BACK:
        return BACK
    try:
        value = parse_answer(q, raw, walk.case, columns)
        value = _typed(dotted, value)
    except Validation as bad:
        console.print(f"[red]✗ {escape(str(bad))}[/] Please answer again.")
        return None
    set_field(walk.case, dotted, value)
    script.pending.pop(0)
    script.answered.append(dotted)
    return None


def script_value_question(sq: ScriptQuestion) -> Question:
    """A question for a case field the tree does not ask, typed by the field."""

    kind = {int: "number", float: "float", list: "columns"}.get(CASE_TYPES.get(sq.field), "text")
    return Question(f"script:{sq.field}", sq.field, sq.prompt, "The script sets it at run time.",
                    kind, (Edge("checks"),))


def _typed(dotted: str, value: Any) -> Any:
    if CASE_TYPES.get(dotted) is bool:
        text = str(value).strip().lower()
        if text not in ("true", "false", "yes", "no"):
            raise Validation("Answer true or false.")
        return text in ("true", "yes")
    allowed = CHOICES.get(dotted)
    if allowed and value not in allowed:
        raise Validation(f"Use one of: {', '.join(allowed)}.")
    return value


def final_reading(console: Any, case: Case, script: ScriptStep) -> ScriptReading | None:
    """The script read again with the user's answers, so that its static findings (with their
    lines) join the run's; None without a script or when it can no longer be read."""
    if not script.path:
        return None

    answers = {f: get_field(case, f) for f in script.answered}
    try:
        return case_from_script(script.path, answers=answers)
    except ScriptError as exc:
        console.print(f"[yellow]! The script's static checks are left out: {exc}[/]")
        return None


def _after_answer(walk: QuestionWalk) -> None:
    """Defaults that follow from an answer (the trainer from the framework)."""
    case = walk.case
    if walk.history and walk.history[-1] == "framework" and case.training.trainer is None:
        case.training.trainer = "keras" if case.framework == "tensorflow" else "trainer"


def _run_demo(console: Any, out_dir: Path, device: str, timeout: float) -> int:
    framework = default_demo_framework()
    with console.status("building the demo fixtures (once)"):
        root = ensure_fixtures(default_cache_dir(), framework)
    case = course_case(root, framework)
    console.print(f"The demo: the HF course's DistilBERT-on-MNLI script ({framework}), with "
                  f"its faults, on a tiny local model (saved in {out_dir / 'demo'}; your own "
                  "answers so far stay as they were).\n")
    return _run_checks(console, case, out_dir / "demo", device, timeout)


def _run_checks(console: Any, case: Case, out_dir: Path, device: str, timeout: float,
                reading: ScriptReading | None = None) -> int:
    import questionary


    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "session.yaml").write_text(case.to_yaml(), encoding="utf-8")
    printer = EventPrinter(console)
    try:
        with printer:
            result = Session(case, device=device, timeout=timeout, on_event=printer,
                             autosave=out_dir / "session.json").run()
        if reading is not None:
            result = reading.merge(result)  # the script's static findings, with their lines
    except KeyboardInterrupt:
        console.print(f"\n[yellow]Stopped.[/] The findings so far are saved in "
                      f"{out_dir / 'session.json'}.")
        return 130
    console.print(verdict_panel(result.verdict))
    console.print(summary_line(result))
    fmt = questionary.select("Write a report?", choices=[
        questionary.Choice("Markdown report (report.md)", value="markdown"),
        questionary.Choice("GitHub issue", value="github"),
        questionary.Choice("Forum post", value="forum"),
        questionary.Choice("Hub discussion", value="hub"),
        questionary.Choice("No report", value=None)], use_shortcuts=True).unsafe_ask()
    if fmt:

        paths = write_reports(result, out_dir, (fmt,))
        result.reports = [str(p) for p in paths]
        for p in paths:
            console.print(f"report: {p}")
        for f in result.findings:
            for plot in f.plots:
                if plot.path:
                    console.print(f"plot: {plot.path}")
    (out_dir / "session.json").write_text(json.dumps(result.to_dict(), indent=2, default=str))
    return exit_code(result)
