"""One known error message: the Signature record every catalogue module builds on."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

Refine = Callable[[dict, Any], "dict[str, Any] | None"]


@dataclass
class Signature:
    """A known error message: what it usually means, the checks that confirm it, the fix.

    `pattern` finds the signature; named groups become evidence. `evidence` holds more regexes
    whose named groups add numbers found anywhere in the paste. `probes` are check ids (some
    are checks other parts of the wizard implement; see `unknown_probe_ids`). `refine` may look
    at the evidence and return a more precise cause/probes/fix, another cause id ("id"), or
    {"reject": True} when the words match but the cause is not this one. `family` is the cause
    id the signature reports when it is one of several rules for one cause (default: its id).
    `behaviour_change` marks an intended change of a release (a new default): a reporter's
    "it worked before" is then explained by it, not evidence of a bug. `requires` is another
    regex the whole paste must contain (frames and prose included) for a generic message to be
    this signature's: a RecursionError is the tokenizer's only beside its unk_token_id frames.
    """

    id: str
    pattern: str
    cause: str
    explanation: str
    probes: list[str]
    fix: str
    title: str = ""
    evidence: tuple[str, ...] = ()
    framework: str = "any"            # pytorch | tensorflow | any
    priority: int = 10                # ties between signatures found at the same place
    refine: Refine | None = None
    benign: bool = False              # a warning that is not the error (never the primary match)
    family: str | None = None         # the cause id reported (environment family), else id
    behaviour_change: bool = False    # a release changed this on purpose: explains a regression
    requires: str | None = None       # a regex the whole paste must also contain
    outcome: bool = False             # the reporter's account of what fixed it: outweighs
                                      # another environment answer read from the error alone
    fallback: bool = False            # answers only when no other signature does

    def regex(self) -> re.Pattern[str]:
        return compile_pattern(self.pattern)

    @property
    def cause_id(self) -> str:
        return self.family or self.id


def signature_maker(default_priority: int) -> Callable[..., Signature]:
    """A catalogue module's constructor: Signature(id, pattern, cause, explanation, probes, fix,
    ...) with that module's default priority."""
    def make(*args: Any, priority: int = default_priority, **kw: Any) -> Signature:
        return Signature(*args, priority=priority, **kw)
    return make


@lru_cache(maxsize=None)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """A signature's regex, compiled once, case-insensitive."""
    return re.compile(pattern, re.IGNORECASE)
