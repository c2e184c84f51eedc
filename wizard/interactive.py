"""The interactive terminal wizard: renders the tree's questions with questionary, runs the
checks with rich output, saves the session as it goes (a saved session is a case file)."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from wizard.case import Case, CaseError
from wizard.tree import QUESTIONS, Question, QuestionWalk, get_field

BACK = "__back__"
DEMO = "__demo__"
HUB_ID = re.compile(r"^[\w.-]+(/[\w.-]+)?$")


class Validation(Exception):
    """An answer that cannot be used; the message says why, and the question is asked again."""


def session_files(out_dir: Path) -> tuple[Path, Path]:
    return out_dir / "session.yaml", out_dir / "session.progress.json"


def save_progress(walk: QuestionWalk, out_dir: Path) -> Path:
    """The answers so far as a case file (replayable with `check`), plus where the walk is."""
    case_file, progress = session_files(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    case_file.write_text(walk.case.to_yaml(), encoding="utf-8")
    progress.write_text(json.dumps({"position": walk.position, "history": walk.history}))
    return case_file


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
    """Turn what was typed or picked into the field's value, or raise Validation."""
    text = raw.strip() if isinstance(raw, str) else raw
    if q.optional and text in ("", None, []):
        return None
    if q.kind == "number":
        try:
            value = int(text)
        except (TypeError, ValueError):
            raise Validation(f"{text!r} is not a whole number.")
        if value < 1:
            raise Validation("It must be at least 1.")
        return value
    if q.kind == "float":
        try:
            value = float(text)
        except (TypeError, ValueError):
            raise Validation(f"{text!r} is not a number; write it like 5e-5.")
        if value <= 0:
            raise Validation("It must be a positive number such as 5e-5.")
        return value
    if q.kind in ("columns", "column"):
        values = text if isinstance(text, list) else [c.strip() for c in str(text).split(",") if c.strip()]
        if not values:
            raise Validation("Pick at least one column.")
        if columns is not None:
            unknown = [c for c in values if c not in columns]
            if unknown:
                raise Validation(f"Column {unknown[0]!r} is not in the dataset (columns: "
                                 f"{', '.join(columns)}).")
        return values if q.kind == "columns" else values[0]
    if q.field in ("model", "dataset.path"):
        return _validate_ref(str(text), "model" if q.field == "model" else "dataset")
    if q.field == "logs" and text and not Path(str(text)).expanduser().exists():
        raise Validation(f"{text!r} does not exist; give the path of trainer_state.json, a CSV "
                         "log or a TensorBoard folder, or leave it empty.")
    if not text and not q.optional:
        raise Validation("This answer is needed.")
    return text


def _validate_ref(text: str, what: str) -> str:
    from wizard.context import is_local_ref

    if not text:
        raise Validation(f"Give a Hub id or a local folder for the {what}.")
    if is_local_ref(text) or not HUB_ID.match(text):
        path = Path(text).expanduser()
        if not path.exists():
            raise Validation(f"{text!r} does not exist here; give a local folder written by "
                             f"{'save_pretrained' if what == 'model' else 'save_to_disk'} or a "
                             "Hub id like org/name.")
        return str(path.resolve())
    return text


def dataset_columns(case: Case) -> list[str] | None:
    """Column names of the train split, when the dataset can be opened cheaply (local)."""
    from wizard.context import is_local_ref

    if not case.dataset.path or not is_local_ref(case.dataset.path):
        return None
    try:
        from wizard.data_loading import load_splits

        spec = case.dataset
        probe = type(spec)(**{**spec.__dict__, "max_samples": 1, "eval_split": None})
        return list(load_splits(probe)[spec.train_split].column_names)
    except Exception:
        return None


# -- rendering --------------------------------------------------------------------------------------
def ask(q: Question, case: Case, columns: list[str] | None, can_go_back: bool) -> Any:
    """One question through questionary; returns the raw answer or BACK."""
    import questionary

    current = get_field(case, q.field)
    back_hint = " ('<' goes back)" if can_go_back else ""
    if q.kind == "select":
        choices = [questionary.Choice(c.label, value=c.value) for c in q.choices_for(case)]
        if q.id == "symptom":
            choices.append(questionary.Choice("Try the built-in offline demo case", value=DEMO))
        if can_go_back:
            choices.append(questionary.Choice("← back", value=BACK))
        default = next((c for c in choices if c.value == current), None)
        return questionary.select(q.prompt, choices=choices, default=default,
                                  use_shortcuts=len(choices) <= 36,
                                  instruction=f"({q.why})").unsafe_ask()
    if q.kind == "columns" and columns:
        guess = current if current and all(c in columns for c in current) else [
            c for c in columns if c in ("text", "sentence", "premise", "hypothesis", "question")]
        choices = [questionary.Choice(c, value=c, checked=c in guess) for c in columns]
        answer = questionary.checkbox(q.prompt, choices=choices,
                                      instruction="(space to pick, enter to confirm)").unsafe_ask()
        return answer
    if q.kind == "column" and columns:
        choices = [questionary.Choice(c, value=c) for c in columns]
        if can_go_back:
            choices.append(questionary.Choice("← back", value=BACK))
        default = next((c for c in choices if c.value == (current or "label")), None)
        return questionary.select(q.prompt, choices=choices, default=default).unsafe_ask()
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
                    timeout: float = 300.0) -> int:
    """The whole guided walk: questions, checks, verdict, report."""
    from wizard.console import make_console

    console = make_console()
    walk = load_progress(resume) if resume else QuestionWalk(Case.from_dict({}, validate=False))
    console.print("[bold]hf-debug-wizard[/] — the checks an expert would run, on your model and data.")
    console.print(f"[dim]Answers are saved in {session_files(out_dir)[0]} as you go; "
                  "Ctrl-C stops (saved), '<' or ← back goes to the previous question.[/]\n")
    try:
        while not walk.done:
            q = walk.current()
            assert q is not None
            columns = dataset_columns(walk.case) if q.kind in ("columns", "column") else None
            raw = ask(q, walk.case, columns, can_go_back=bool(walk.history))
            if raw == BACK:
                walk.back()
                continue
            if raw == DEMO:
                return _run_demo(console, out_dir, device, timeout)
            try:
                value = parse_answer(q, raw, walk.case, columns)
            except Validation as bad:
                console.print(f"[red]✗ {bad}[/] Please answer again.")
                continue
            walk.answer(value)
            _after_answer(walk)
            save_progress(walk, out_dir)
        try:
            walk.case.validate()
        except CaseError as exc:
            console.print(f"[red]✗ {exc}[/]")
            return 2
        case_file = save_progress(walk, out_dir)
        console.print(f"\n[green]Setup complete[/] — saved as a case file: {case_file}\n"
                      f"[dim](replay it any time: python -m wizard check {case_file})[/]")
        return _run_checks(console, walk.case, out_dir, device, timeout)
    except KeyboardInterrupt:
        saved = save_progress(walk, out_dir)
        console.print(f"\n[yellow]Stopped.[/] Your answers are saved in {saved}; continue with "
                      f"[bold]python -m wizard --resume {out_dir}[/]")
        return 130


def _after_answer(walk: QuestionWalk) -> None:
    """Defaults that follow from an answer (the trainer from the framework)."""
    case = walk.case
    if walk.history and walk.history[-1] == "framework" and case.training.trainer is None:
        case.training.trainer = "keras" if case.framework == "tensorflow" else "trainer"


def _run_demo(console: Any, out_dir: Path, device: str, timeout: float) -> int:
    from wizard.cli import default_demo_framework
    from wizard.demo.cases import course_case
    from wizard.demo.fixtures import build_fixtures, default_cache_dir

    framework = default_demo_framework()
    with console.status("building the demo fixtures (once)"):
        root = build_fixtures(default_cache_dir(), frameworks=(framework,))
    case = course_case(root, framework)
    console.print(f"The demo: the HF course's DistilBERT-on-MNLI script ({framework}), with "
                  "its faults, on a tiny local model.\n")
    return _run_checks(console, case, out_dir, device, timeout)


def _run_checks(console: Any, case: Case, out_dir: Path, device: str, timeout: float) -> int:
    import questionary

    from wizard.console import EventPrinter, verdict_panel
    from wizard.session import Session

    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "session.yaml").write_text(case.to_yaml(), encoding="utf-8")
    printer = EventPrinter(console)
    try:
        with printer:
            result = Session(case, device=device, timeout=timeout, on_event=printer,
                             autosave=out_dir / "session.json").run()
    except KeyboardInterrupt:
        console.print(f"\n[yellow]Stopped.[/] The findings so far are saved in "
                      f"{out_dir / 'session.json'}.")
        return 130
    console.print(verdict_panel(result.verdict))
    fmt = questionary.select("Write a report?", choices=[
        questionary.Choice("Markdown report (report.md)", value="markdown"),
        questionary.Choice("GitHub issue", value="github"),
        questionary.Choice("Forum post", value="forum"),
        questionary.Choice("Hub discussion", value="hub"),
        questionary.Choice("No report", value=None)], use_shortcuts=True).unsafe_ask()
    if fmt:
        from reports.render import write_reports

        paths = write_reports(result, out_dir, (fmt,))
        result.reports = [str(p) for p in paths]
        for p in paths:
            console.print(f"report: {p}")
        for f in result.findings:
            for plot in f.plots:
                if plot.path:
                    console.print(f"plot: {plot.path}")
    (out_dir / "session.json").write_text(json.dumps(result.to_dict(), indent=2, default=str))
    return 0
