"""Read a training script without running it: fill a Case from what the code says.

`case_from_script("train.py")` parses the script with `ast` (never executes it) and follows the
objects that reach `model.fit(...)`, `Trainer(...).train()` or an `optimizer.step()` loop back
to where they were made: the checkpoint and model class, `load_dataset`/`load_from_disk`, the
tokenization function given to `.map`, `to_tf_dataset`/`prepare_tf_dataset`, `compile`, `fit`,
`TrainingArguments`, the optimizer and the DataLoader. Values that only exist at run time become
questions (with the line they come from); static checks that need no run fire at once.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from wizard.core.case import Case
from wizard.script.checks import static_findings
from wizard.script.extract import Reader
from wizard.script.syntax import ScriptAST
from wizard.script.types import ScriptError, ScriptQuestion, ScriptReading, Source

__all__ = ["ScriptError", "ScriptQuestion", "ScriptReading", "Source", "case_from_script",
           "read_script", "course_script_path"]


def course_script_path() -> Path:
    """The course chapter's broken script, verbatim (the product's demo script)."""
    return Path(__file__).parent.parent / "demo" / "course_script.py"


def case_from_script(path: str | Path, refs: Mapping[str, str] | None = None,
                     answers: Mapping[str, Any] | None = None,
                     environ: Mapping[str, str] | None = None,
                     versions: Mapping[str, str | None] | None = None) -> ScriptReading:
    """Read the script at `path` into a (possibly partial) case. Never runs it.

    refs: replacements for model/tokenizer/dataset references as written in the script (a Hub
    id -> a local folder, e.g. an offline mirror). answers: values for case fields (dotted names)
    that the script leaves to run time; they close the matching questions.
    """
    p = Path(path)
    if not p.is_file():
        raise ScriptError(f"The script {str(p)!r} does not exist; check the path.")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ScriptError(f"The script {str(p)!r} is not UTF-8 text; save it as a .py text file.")
    return read_script(text, str(p), refs=refs, answers=answers, environ=environ, versions=versions)


def read_script(source: str, path: str | None = None, refs: Mapping[str, str] | None = None,
                answers: Mapping[str, Any] | None = None,
                environ: Mapping[str, str] | None = None,
                versions: Mapping[str, str | None] | None = None) -> ScriptReading:
    """Read script text (a file's content or a pasted script) into a case."""
    source, magics = _strip_notebook_magics(source)
    try:
        tree = ScriptAST.parse(source, path or "<script>")
    except SyntaxError as exc:
        where = f" at line {exc.lineno}" if exc.lineno else ""
        code = f" (`{exc.text.strip()}`)" if exc.text and exc.text.strip() else ""
        raise ScriptError(f"Nothing could be read: the script has a syntax error{where}{code}: "
                          f"{exc.msg}; fix it (python -m py_compile {path or 'train.py'}) and try "
                          "again.") from None

    reading = Reader(tree, path, dict(refs or {})).run()
    if magics:
        reading.notes.append(f"{magics} notebook line(s) starting with ! or % were skipped.")
    if answers:
        _apply_answers(reading, answers)

    reading.findings = static_findings(reading, environ=environ, versions=versions)
    return reading


def _strip_notebook_magics(source: str) -> tuple[str, int]:
    lines = source.splitlines()
    count = 0
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("!", "%")):
            lines[i] = "#" + line
            count += 1
    return ("\n".join(lines) + "\n", count) if count else (source, 0)


def _apply_answers(reading: ScriptReading, answers: Mapping[str, Any]) -> None:
    data = reading.case.to_dict()
    for dotted, value in answers.items():
        obj = data
        *parents, last = dotted.split(".")
        for p in parents:
            obj = obj.setdefault(p, {})
        obj[last] = value
        reading.read[dotted] = Source(0, "answered")
    reading.questions = [q for q in reading.questions if q.field not in answers]
    reading.case = Case.from_dict(data, validate=False)
    reading.case.source = reading.path


