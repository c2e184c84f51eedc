"""`wizard run`'s report step: when the user's script raised inside library code and the
checks of the setup are clean, a reproduction written from the script itself, verified in a
fresh interpreter and shrunk (report.reproduction), then rerun on the latest release of the
library the error comes from (report.latest-release)."""
from __future__ import annotations

import os
import re
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from wizard.checks.library import FRAMEWORK_NAMES, other_framework_available
from wizard.core.findings import Finding
from wizard.engine.verdict import user_side_errors, user_side_faults
from wizard.evidence.release_rerun import Rerun, rerun_on_latest
from wizard.evidence.reprex import (BUDGET, MAX_LINES, Reprex, Signature, default_runner,
                                    signature_of, suspect, verify_and_shrink)
from wizard.live.instrument import Capture
from wizard.script.reprex_source import (ROWS, TINY_NEVER_LOADS, Candidate, build_candidates,
                                         other_framework)
from wizard.triage.parse import parse_traceback

FRAMEWORK_ENV = {"TF_USE_LEGACY_KERAS": "1", "TF_CPP_MIN_LOG_LEVEL": "3",
                 "TOKENIZERS_PARALLELISM": "false"}


def script_lines(capture: Capture) -> list[int]:
    """The lines of the user's script the error passed through, innermost first. A traceback
    pasted from another machine names the script by another path: its file name decides."""
    script = os.path.realpath(capture.script)
    frames = [f for f in reversed(parse_traceback(capture.traceback).frames) if f.file and f.line]
    here = [f.line for f in frames if os.path.realpath(f.file) == script]
    if here:
        return here
    name = os.path.basename(script)
    return [f.line for f in frames if f.is_user and os.path.basename(f.file) == name]


def failing_line(capture: Capture) -> int | None:
    """The line of the user's script the error passed through last."""
    lines = script_lines(capture)
    return lines[0] if lines else None


def data_rows(capture: Capture, rows: int = ROWS) -> list[dict[str, Any]]:
    """For each dataset the script loaded, in order, its first rows by split (or {})."""
    out: list[dict[str, Any]] = []
    for rec in capture.loads:
        res = rec.get("result")
        try:
            if hasattr(res, "keys") and hasattr(res, "column_names") and isinstance(
                    res.column_names, dict):
                out.append({"kind": "dict", "splits": {
                    str(k): _plain(res[k].select(range(min(rows, len(res[k])))).to_dict())
                    for k in res.keys()}})
            elif hasattr(res, "select") and hasattr(res, "to_dict"):
                out.append({"kind": "dataset",
                            "columns": _plain(res.select(range(min(rows, len(res)))).to_dict())})
            else:
                out.append({})
        except Exception:
            out.append({})
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    return str(value)


LOOKUPS = frozenset({"__getitem__", "__getattr__", "__getattribute__", "__missing__"})


def user_lookup_failed(traceback_text: str) -> bool:
    """Whether the error is a lookup the user's own code asked for (`batch["sentence"]`,
    `model.foo`) that the library's `__getitem__`/`__getattr__` refused: a KeyError,
    IndexError or AttributeError one frame below user code is the user's key, not a bug."""
    parsed = parse_traceback(traceback_text)
    frames = parsed.frames
    if len(frames) < 2 or parsed.exc_name not in ("KeyError", "IndexError", "AttributeError"):
        return False
    inner, caller = frames[-1], frames[-2]
    return inner.is_library and inner.function in LOOKUPS and caller.is_user


def should_reproduce(capture: Capture, findings: list[Finding]) -> Signature | None:
    """The error's signature when a reproduction is worth writing: the script raised inside
    library code with no known user error (triage's possible library bug, or an unknown error
    whose innermost frames are library code: the reproduction itself is the evidence that
    decides), and no check of the setup failed or could not run."""
    if capture.ended != "raised" or not capture.traceback:
        return None
    suspected = any(f.id == "triage.possible-library-bug" for f in findings) or (
        any(f.id == "triage.unknown-error" for f in findings)
        and parse_traceback(capture.traceback).library_frames_innermost)
    if not suspected or user_lookup_failed(capture.traceback):
        return None
    expected = signature_of(capture.traceback)
    if expected is None or expected.package is None:
        return None
    if user_side_faults(findings) or user_side_errors(findings):
        return None
    if failing_line(capture) is None:
        return None
    return expected


def reproduce_script(capture: Capture, expected: Signature,
                     on_progress: Callable[[str], None] | None = None,
                     budget: float | None = None, do_shrink: bool = True
                     ) -> tuple[Reprex, list[Candidate]]:
    """Build the candidates from the script and keep the first that fails the same way."""
    source = Path(capture.script).read_text(encoding="utf-8")
    candidates: list[Candidate] = []
    rows = data_rows(capture)
    for line in script_lines(capture):   # inside a function called with arguments: its caller
        candidates = build_candidates(source, line, argv=[capture.script, *capture.argv],
                                      environ=os.environ, cwd=os.getcwd(), data=rows)
        if candidates:
            break
    runner = default_runner(python=sys.executable, env=dict(FRAMEWORK_ENV))
    result = verify_and_shrink([(c.label, c.source) for c in candidates if not c.not_run],
                               expected, runner,
                               budget=budget or BUDGET,
                               do_shrink=do_shrink, on_progress=on_progress)
    return result, candidates


def reproduction_finding(result: Reprex, candidates: list[Candidate],
                         package: str | None = None, file: str | None = None) -> Finding:
    """report.reproduction: warn with the verified script, info (no script) otherwise.
    `package`, `file`: the library to blame and its file, when not the innermost frame's
    (wizard.evidence.reprex.suspect)."""
    chosen = next((c for c in candidates if c.label == result.label), None)
    ev: dict[str, Any] = {"verified": result.verified, "from": "script",
                          "expected": result.expected.describe(),
                          "package": package or result.expected.package,
                          "file": file if package else result.expected.file,
                          "attempts": [t.to_dict() for t in result.tries],
                          "command": "python repro.py"}
    if result.stopped:
        ev["stopped"] = result.stopped
    not_run = [{"label": c.label, "why": c.not_run} for c in candidates if c.not_run]
    if not_run:
        ev["not_run"] = not_run
    if not result.verified or chosen is None:
        why = result.stopped or f"none of {len(result.tries)} candidate script(s) raised " \
                                f"{result.expected.describe()}"
        return Finding("report.reproduction", "info",
                       "No reproduction: the candidates written from your script did not fail "
                       "the same way", evidence=ev,
                       explanation=f"{why} (see the attempts), so no script is offered as a "
                                   "reproduction. Something outside the script's own statements "
                                   "is involved (the environment, files it reads, state).")
    loads = any(c.not_run == TINY_NEVER_LOADS for c in candidates)
    ev.update({"tiny_config": chosen.tiny, "weights_matter": not chosen.tiny and not loads,
               "sliced": chosen.sliced, "synthetic_data": chosen.swapped_data,
               "checkpoints": chosen.checkpoints,
               "lines": result.lines, "seconds": round(result.seconds, 1),
               "output": quiet(result.output)[-4000:]})
    model = ("a tiny random model of the same config class" if chosen.tiny else
             "your checkpoint: the failing line loads it" if chosen.checkpoints and loads else
             "your checkpoint: the fault needs its files" if chosen.checkpoints else
             "no model download")
    script = folder_notes(chosen) + result.script
    lines = len(script.strip().splitlines())
    ev["lines"] = lines
    long = f" It is longer than {MAX_LINES} lines: trim it by hand." if lines > MAX_LINES else ""
    title = (f"Reproduced in {lines} lines from your script: {result.expected.describe()}"
             f" ({model}; verified in a fresh interpreter, {result.seconds:.0f} s)")

    return Finding("report.reproduction", "warn", title, evidence=ev,
                   explanation="Your script, sliced to the statements the failing line needs, "
                               "with the paths inlined" +
                               (", the data swapped for a few rows of the same columns"
                                if chosen.swapped_data else "") +
                               ", then shrunk while it still fails the same way. Run it with "
                               f"`python repro.py`; it is written next to the report.{long}",
                   fix=script)


_NOISE = re.compile(r"^(?:[IW]\d{4} [\d:.]+ +\d+ \S+\] |WARNING: All log messages before "
                    r"absl::InitializeLog)")


def quiet(output: str) -> str:
    """A run's output without TensorFlow's start-up log lines (absl, oneDNN)."""
    return "\n".join(ln for ln in output.splitlines() if not _NOISE.match(ln))


def folder_notes(chosen: Candidate) -> str:
    """A comment naming the files of each local checkpoint folder the script still loads
    (a maintainer needs to know what was in it: e.g. model.safetensors alone)."""
    if chosen.tiny:
        return ""
    notes = []
    for ckpt in dict.fromkeys(chosen.checkpoints):
        path = Path(ckpt).expanduser()
        if path.is_dir():
            files = sorted(p.name for p in path.iterdir() if p.is_file())
            shown = ", ".join(files[:8]) + (", ..." if len(files) > 8 else "")
            notes.append(f"# {ckpt} holds: {shown}")
    return "\n".join(notes) + "\n" if notes else ""


def differential_finding(script: str, expected: Signature,
                         on_progress: Callable[[str], None] | None = None) -> Finding | None:
    """report.framework-mismatch from the verified script with the other framework's classes:
    running clean there points at one framework's implementation. None when the script cannot
    be translated or the other framework is not installed here."""
    swapped = other_framework(script)
    if swapped is None:
        return None
    other, code = swapped
    mine = "tensorflow" if other == "pytorch" else "pytorch"
    if other_framework_available(mine) is not None:
        return None
    a, b = FRAMEWORK_NAMES[mine], FRAMEWORK_NAMES[other]
    (on_progress or (lambda _m: None))(f"differential: the same script with {b} classes")
    outcome = default_runner(python=sys.executable, env=dict(FRAMEWORK_ENV))(code, 120.0)
    got = signature_of(outcome.stderr) if outcome.returncode else None
    ev: dict[str, Any] = {"from": "script", "frameworks": [mine, other], "other_script": code,
                          other: {"status": "ok" if outcome.returncode == 0 else "raised",
                                  "error": got.describe() if got else None},
                          "points_at_library": outcome.returncode == 0}
    if outcome.returncode == 0:
        return Finding("report.framework-mismatch", "warn",
                       f"Only {a} fails: the same script with {b} classes runs", evidence=ev,
                       explanation=f"The same files and calls work in {b}, so the fault is in "
                                   f"the {a} implementation in the library.")
    return Finding("report.framework-mismatch", "info",
                   f"The same script with {b} classes fails too"
                   + (f" ({got.describe()})" if got else ""), evidence=ev,
                   explanation="Both implementations fail: the cause may be shared (the files, "
                               "the config), not one framework's code.")


def latest_release_finding(rerun: Rerun) -> Finding:
    status = {"still-fails": "warn", "not-newer": "warn", "fixed": "pass"}.get(rerun.status,
                                                                              "skip")
    title = rerun.line
    fix = f'pip install -U "{rerun.distribution}=={rerun.latest}"' if rerun.status == "fixed" \
        else ""
    return Finding("report.latest-release", status, title, evidence=rerun.to_dict(),
                   explanation="The reproduction was rerun in a throwaway virtual environment "
                               "layered over yours, with only this package upgraded."
                   if rerun.status in ("still-fails", "fixed") else "", fix=fix)


def report_findings(capture: Capture, findings: list[Finding],
                    on_progress: Callable[[str], None] | None = None) -> list[Finding]:
    """The report step of `wizard run` (empty when no library bug is suspected)."""
    expected = should_reproduce(capture, findings)
    if expected is None:
        return []
    say = on_progress or (lambda _m: None)
    start = time.monotonic()
    result, candidates = reproduce_script(capture, expected, on_progress=say)
    blamed, blamed_file = suspect(capture.traceback)
    blamed, blamed_file = (blamed, blamed_file) if blamed else (expected.package, expected.file)
    out = [reproduction_finding(result, candidates, blamed, blamed_file)]
    if not result.verified:
        say(f"report step done in {time.monotonic() - start:.0f} s")
        return out
    tf = blamed == "transformers" and "tensorflow" in sys.modules

    def latest() -> Finding | None:
        if not blamed:
            return None
        rerun = rerun_on_latest(result.script, expected, blamed,
                                env=dict(FRAMEWORK_ENV), on_progress=said, same_major=tf,
                                same_major_why="transformers 5 has no TensorFlow classes"
                                if tf else "")
        return latest_release_finding(rerun)

    # two independent fresh interpreters (the other framework; the latest release) at once;
    # their progress lines one at a time (a pipe or a console is not shared safely)
    lock = threading.Lock()

    def said(message: str) -> None:
        with lock:
            say(message)

    with ThreadPoolExecutor(max_workers=2) as pool:
        diff = pool.submit(differential_finding, result.script, expected, said)
        rerun = pool.submit(latest)
        out += [f for f in (diff.result(), rerun.result()) if f is not None]
    say(f"report step done in {time.monotonic() - start:.0f} s")
    return out
