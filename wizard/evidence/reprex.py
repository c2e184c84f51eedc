"""Verify and shrink a reproduction written from the user's script (the reprex way).

A candidate counts as a reproduction only when a fresh interpreter running it raises the same
exception type from the same library function as the user's run (the innermost library
frame: package, file inside the package, function). A verified candidate is then shrunk by
delta debugging over its top-level statements: each statement is dropped in turn, from the
last but one up, and stays dropped while the script still reproduces; all within a time budget.
"""
from __future__ import annotations

import ast
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from wizard.evidence.repro import Outcome, run_script
from wizard.triage.parse import parse_traceback

RUN_TIMEOUT = 150.0         # one candidate (a TensorFlow import alone can take a minute on a busy CPU)
BUDGET = 420.0              # every run together (candidates and shrinking)
MAX_LINES = 30


@dataclass(frozen=True)
class Signature:
    """Where an error comes from: its type and the innermost library function."""

    exc_type: str
    package: str | None
    file: str | None            # the file inside its package, e.g. modeling_tf_pytorch_utils.py
    function: str | None

    def describe(self) -> str:
        where = f"{self.package}/{self.file}" if self.package and self.file else "user code"
        func = f" in {self.function}()" if self.function else ""
        return f"{self.exc_type} from {where}{func}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _inside_package(path: str, package: str) -> str:
    p = path.replace("\\", "/")
    marker = f"/{package}/"
    return p.rsplit(marker, 1)[1] if marker in p else p.rsplit("/", 1)[-1]


def signature_of(traceback_text: str) -> Signature | None:
    """The Signature of the last exception in a traceback, or None without one."""
    parsed = parse_traceback(traceback_text or "")
    if not parsed.exc_name:
        return None
    frame = next((f for f in reversed(parsed.frames) if f.is_library), None)
    if frame is None:
        return Signature(parsed.exc_name, None, None, None)
    pkg = frame.package
    return Signature(parsed.exc_name, pkg, _inside_package(frame.file, pkg or ""), frame.function)


# the libraries a fine-tuning script calls into; the frameworks beneath them only report
HF_LIBRARIES = ("transformers", "datasets", "peft", "trl", "accelerate", "tokenizers",
                "huggingface_hub", "safetensors", "evaluate", "diffusers")


def suspect(traceback_text: str) -> tuple[str | None, str | None]:
    """(package, file inside it) of the library to blame (and to try on its latest release):
    the innermost Hugging Face library frame of the traceback, where the error surfaced in the
    framework beneath it (`model(**batch)` on weights transformers left on the meta device
    fails in torch's check_same_device); else the innermost library frame."""
    frames = [f for f in parse_traceback(traceback_text or "").frames if f.is_library]
    frame = next((f for f in reversed(frames) if f.package in HF_LIBRARIES),
                 frames[-1] if frames else None)
    if frame is None or not frame.package:
        return None, None
    return frame.package, _inside_package(frame.file, frame.package)


def same_failure(outcome: Outcome, expected: Signature) -> tuple[bool, str]:
    """(reproduced, why) for one run of a candidate."""
    if outcome.timed_out:
        return False, "timed out"
    if outcome.returncode == 0:
        return False, "ran without error"
    got = signature_of(outcome.stderr)
    if got is None:
        return False, f"exit code {outcome.returncode} without a Python traceback"
    if got == expected:
        return True, f"same error: {got.describe()}"
    return False, f"another error: {got.describe()}"


@dataclass
class Try:
    """One run of one candidate."""

    label: str
    reproduced: bool
    why: str
    seconds: float
    lines: int

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["seconds"] = round(self.seconds, 1)
        return d


@dataclass
class Reprex:
    """The outcome: the smallest verified script (if any) and every run that led to it."""

    expected: Signature
    verified: bool = False
    script: str = ""
    label: str = ""
    output: str = ""                 # what the verified run printed
    seconds: float = 0.0             # the verified script's own run time
    tries: list[Try] = field(default_factory=list)
    stopped: str = ""                # why the search stopped early

    @property
    def lines(self) -> int:
        return len(self.script.strip().splitlines()) if self.script else 0

    def to_dict(self) -> dict[str, Any]:
        return {"expected": self.expected.to_dict(), "verified": self.verified,
                "label": self.label, "lines": self.lines, "seconds": round(self.seconds, 1),
                "tries": [t.to_dict() for t in self.tries], "stopped": self.stopped}


Runner = Callable[[str, float], Outcome]


def default_runner(python: str | None = None, env: dict[str, str] | None = None) -> Runner:
    """A fresh interpreter (the user's, by default) in an empty folder."""
    return lambda code, timeout: run_script(code, timeout=timeout, env=env, python=python)


def shrink(code: str, reproduces: Callable[[str], bool], deadline: float) -> str:
    """Drop top-level statements one at a time (the last one, the failing line, stays) while
    the script still reproduces; stops at the deadline (time.monotonic())."""
    statements = [ast.unparse(s) for s in ast.parse(code).body]
    i = len(statements) - 2
    while i >= 0 and time.monotonic() < deadline:
        trial = statements[:i] + statements[i + 1:]
        text = "\n".join(trial) + "\n"
        if _compiles(text) and not _leaves_undefined(statements[i], trial[i:]) and \
                reproduces(text):
            statements = trial
        i -= 1
    return "\n".join(statements) + "\n"


def _leaves_undefined(removed: str, later: list[str]) -> bool:
    """Whether dropping `removed` leaves a name it binds used by the statements after it
    (such a trial would only fail with a NameError: not worth a run)."""
    bound = {n.id for n in ast.walk(ast.parse(removed))
             if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for node in ast.parse(removed).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
    used = {n.id for text in later for n in ast.walk(ast.parse(text))
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return bool(bound & used)


def _compiles(code: str) -> bool:
    try:
        compile(code, "repro.py", "exec")
    except SyntaxError:
        return False
    return True


def verify_and_shrink(candidates: list[tuple[str, str]], expected: Signature,
                      runner: Runner, budget: float = BUDGET, run_timeout: float = RUN_TIMEOUT,
                      do_shrink: bool = True,
                      on_progress: Callable[[str], None] | None = None) -> Reprex:
    """Run (label, code) candidates smallest first; the first that fails like `expected` is
    shrunk and kept. A candidate that does not reproduce is never returned as verified."""
    result = Reprex(expected)
    deadline = time.monotonic() + budget
    say = on_progress or (lambda _msg: None)

    def attempt(label: str, code: str) -> tuple[bool, Outcome | None]:
        left = deadline - time.monotonic()
        if left < 5:
            result.stopped = f"the time budget of {budget:.0f} s was used up"
            return False, None
        outcome = runner(code, min(run_timeout, left))
        ok, why = same_failure(outcome, expected)
        result.tries.append(Try(label, ok, why, outcome.seconds,
                                len(code.strip().splitlines())))
        return ok, outcome

    for n, (label, code) in enumerate(candidates, 1):
        say(f"reproduction: trying candidate {n}/{len(candidates)} ({label})")
        ok, outcome = attempt(label, code)
        if outcome is None:
            break
        if not ok:
            continue
        best, best_outcome = code, outcome
        if do_shrink:
            say("reproduction: verified; shrinking it statement by statement")
            kept: dict[str, Outcome] = {}

            def reproduces(text: str) -> bool:
                good, out = attempt(f"{label}, shrunk", text)
                if good and out is not None:
                    kept[text] = out
                return good

            best = shrink(code, reproduces, deadline)
            best_outcome = kept.get(best, outcome)
        result.verified, result.script, result.label = True, best, label
        result.output, result.seconds = best_outcome.output, best_outcome.seconds
        return result
    return result
