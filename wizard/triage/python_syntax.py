"""Library code written for a newer Python than the one running it: the syntax (f-strings,
variable annotations, `:=`) or the runtime typing forms (`list[int]`, `int | None`) that a
Python release introduced, met in a library frame of an older interpreter."""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.parse import ParsedError
from wizard.triage.packages import version_lt
from wizard.triage.versions import paste_versions

# (a code line using it, the Python release that introduced it, its name)
_SYNTAX = (
    (re.compile(r":="), "3.8", "assignment expressions (:=)"),
    (re.compile(r"\bdef \w+\([^)]*,\s*/\s*[,)]"), "3.8", "positional-only parameters"),
    (re.compile(r"(?<![\w.])(?:[fF][rR]?|[rR][fF])[\"']"), "3.6", "f-strings"),
    (re.compile(r"[{(\[,]\s*\*\*?[A-Za-z_]\w*\s*[,})\]]|\{\s*\*\*[A-Za-z_]"), "3.5",
     "unpacking inside literals ({**a}, [*a])"),
    (re.compile(r"^\s*(?:self\.)?[A-Za-z_]\w*\s*:\s*[A-Za-z_][\w.]*(?:\[[\w.\[\], ]*\])?\s*"
                r"(?:=|$)"), "3.6", "variable annotations"),
)
# runtime forms: (the message, a code line using it, the release, its name)
_RUNTIME = (
    (re.compile(r"'type' object is not subscriptable"),
     re.compile(r"\b(?:list|dict|tuple|set|type|frozenset)\["), "3.9", "built-in generics (list[int])"),
    (re.compile(r"unsupported operand type\(s\) for \|: '(?:type|types\.GenericAlias|NoneType|"
                r"typing\.\w+|_GenericAlias)'"),
     re.compile(r"\|"), "3.10", "union types written X | Y"),
)
_PY_IN_PATH = re.compile(r"python(?P<v>[23]\.\d{1,2})\b", re.I)


def _running_python(parsed: ParsedError) -> tuple[str | None, bool]:
    """(the Python version the paste shows, whether its frames' paths show it (lib/python3.5/)
    rather than the reporter stating it)."""
    for f in reversed(parsed.frames):
        m = _PY_IN_PATH.search(f.file)
        if m:
            return m.group("v"), True
    return paste_versions(parsed.text).get("python"), False


def refine_python_too_old(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A library's own line fails to parse (a SyntaxError, or a traceback cut at that line) or
    to evaluate a typing form, and the line uses what a newer Python introduced: the library
    needs that Python (or an older release of it does not)."""
    inner = parsed.frames[-1] if parsed.frames else None
    if inner is None or not inner.is_library or not inner.code:
        return {"reject": True}
    exc = parsed.exc_name
    needs = what = None
    if exc in (None, "SyntaxError") and (exc or inner.function is None):
        needs, what = next(((v, w) for rx, v, w in _SYNTAX if rx.search(inner.code)), (None, None))
    elif exc == "TypeError":
        needs, what = next(((v, w) for msg, rx, v, w in _RUNTIME
                            if msg.search(parsed.message) and rx.search(inner.code)), (None, None))
    running, seen = _running_python(parsed)
    if needs is None or (seen and version_lt(running, needs) is False):
        return {"reject": True}
    package = inner.package or "the library"
    ev.update(package="python", needs=needs, library=package)
    if running and version_lt(running, needs) is False and exc == "SyntaxError":
        return {"cause": f"{package}'s code uses {what} (Python {needs}), and the interpreter that "
                         f"parsed it is older, although the paste states Python {running}: the "
                         "pip (or python) command belongs to another, older interpreter.",
                "fix": "python -m pip install ...   # the pip of the Python you mean; check: "
                       "which -a python pip; python -m pip --version"}
    shown = f" (the paste runs Python {running})" if running else ""
    return {"cause": f"{package}'s own code uses {what}, which Python {needs} introduced; the "
                     f"Python running it is older{shown}.",
            "fix": f"# use Python >= {needs}: a new environment, e.g.\n"
                   f"conda create -n ft python=3.11 && conda activate ft && pip install {package}\n"
                   f"# or keep this Python and install a release of {package} that still "
                   "supports it"}
