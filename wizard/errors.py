"""The one error root: a problem the user can fix, as one sentence and the fix.

Every front end shows a WizardError as its sentence (and fix), never as a traceback: the terminal
exits 2, the app shows it beside the form, the API raises it. Anything else that escapes is the
wizard's own fault (exit 3).
"""
from __future__ import annotations


class WizardError(ValueError):
    """One sentence saying what is wrong; `fix` says what to do when the sentence does not."""

    def __init__(self, message: str, fix: str = "", field_name: str | None = None):
        super().__init__(message)
        self.message = message
        self.fix = fix
        self.field_name = field_name

    def __str__(self) -> str:
        return self.message if not self.fix or self.fix in self.message \
            else f"{self.message} {self.fix}"


class CaseError(WizardError):
    """A problem with the case, naming the field (`field_name`) and the fix."""

    def __init__(self, message: str, field_name: str | None = None, fix: str = ""):
        super().__init__(message, fix=fix, field_name=field_name)


class UsageError(WizardError):
    """A command line that cannot be used."""


class InputError(WizardError):
    """Live objects (Python API, callbacks) the wizard cannot use."""


class LogsError(WizardError):
    """Training logs that cannot be read."""


class ModelNotFound(WizardError):
    """A model whose config or weights cannot be read."""


def one_line(exc: BaseException, limit: int = 400, typed: bool = False) -> str:
    """An exception's message in one line (its first non-empty line, cut at `limit`); with
    `typed`, prefixed by the exception's type: 'KeyError: ...'."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    text = lines[0][:limit] if lines else ""
    if not typed:
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
