"""The words a regex cannot match without: a cheap `in` test that skips most signatures' searches.

A paste is searched by some 540 case-insensitive patterns; Python's `re` tries each at every
position, so a long paste (a whole training log) took seconds. Most patterns contain a run of
plain characters that every match must contain ("out of bounds"); when the folded text lacks all
of a pattern's runs, the search cannot succeed and is skipped. The test is never stricter than
the regex: `fold` maps the four non-ASCII characters that `re.IGNORECASE` equates with ASCII
letters, and only ASCII runs are taken.
"""
from __future__ import annotations

import re
from functools import lru_cache
from re import _constants as sre
from re import _parser as sre_parse

_SHORTEST = 3                    # a shorter run skips too little to be worth the test
_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT))


def fold(text: str) -> str:
    """`text` as `required_runs` compares it: lower case, with IGNORECASE's odd equivalents."""
    return text.translate(_FOLD).lower()


@lru_cache(maxsize=None)
def required_runs(pattern: str, flags: int = re.IGNORECASE) -> tuple[str, ...]:
    """Folded strings one of which every match of `pattern` contains; () when none is certain."""
    try:
        tree = sre_parse.parse(pattern, flags)
    except (re.error, RecursionError, ValueError):
        return ()
    runs = _runs(list(tree))
    return runs if runs and min(map(len, runs)) >= _SHORTEST else ()


def _runs(items: list) -> tuple[str, ...] | None:
    """The most selective requirement of a sequence of parsed items (None: nothing certain)."""
    candidates: list[tuple[str, ...]] = []
    run: list[str] = []
    for op, arg in items:
        if op is sre.LITERAL and arg < 128:
            run.append(chr(arg).lower())
            continue
        if run:
            candidates.append(("".join(run),))
            run = []
        sub = _required_by(op, arg)
        if sub:
            candidates.append(sub)
    if run:
        candidates.append(("".join(run),))
    return max(candidates, key=lambda c: min(map(len, c)), default=None)


def _required_by(op: object, arg: object) -> tuple[str, ...] | None:
    """What one parsed item requires: a group's content, every branch's, a repeat's (taken at
    least once)."""
    if op is sre.SUBPATTERN:
        return _runs(list(arg[3]))                                     # type: ignore[index]
    if op is sre.ATOMIC_GROUP:
        return _runs(list(arg))                                        # type: ignore[arg-type]
    if op in _REPEATS and arg[0] >= 1:                                 # type: ignore[index]
        return _runs(list(arg[2]))                                     # type: ignore[index]
    if op is sre.BRANCH:
        branches = [_runs(list(b)) for b in arg[1]]                    # type: ignore[index]
        if any(b is None for b in branches):
            return None
        return tuple(sorted({s for b in branches for s in b}))         # type: ignore[union-attr]
    return None
