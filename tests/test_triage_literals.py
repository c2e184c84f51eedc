"""The runs of characters a signature's regex cannot match without: the prefilter of triage."""
from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wizard.triage.literals import fold, required_runs
from wizard.triage.match import triage
from wizard.triage.signatures import SIGNATURES


@pytest.mark.parametrize("pattern, runs", [
    (r"Target (?P<t>\d+) is out of bounds", (" is out of bounds",)),   # the longest run
    (r"(?:CUDA|MPS)\s+OOM", ("cuda", "mps")),                  # one of the branches, folded
    (r"(?:foo)?barbaz", ("barbaz",)),                           # an optional group needs nothing
    (r"x*yz|abc", ()),                                          # a branch of two letters: too short
    (r"(?:ab)+cd", ()),
    (r"(?:abcd)+cd", ("abcd",)),                                # a repeat taken at least once
    (r"(?=lookahead)x", ()),                                    # a lookahead is not read
    (r"(unbalanced", ()),                                       # not a regex: never skipped
    (r"(?x) no \s+ space", ("space",)),                         # verbose mode drops the blanks
    (r"caf\u00e9 au lait", (" au lait",)),                     # only ASCII runs
])
def test_required_runs(pattern: str, runs: tuple[str, ...]) -> None:
    assert required_runs(pattern) == runs


def test_the_odd_case_equivalents_of_ignorecase_are_folded() -> None:
    for text in ("\u0130NDEX", "\u0131ndex", "index"):
        assert re.search("index", text, re.I) and "index" in fold(text)
    assert "mask" in fold("MAS\u212a") and "size" in fold("\u017fIZE")


def test_nearly_every_signature_has_runs() -> None:
    without = [s.id for s in SIGNATURES if not required_runs(s.pattern)]
    assert len(without) <= len(SIGNATURES) // 20, without


_SAMPLE = [s.pattern for s in SIGNATURES[::7]]


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(_SAMPLE).flatmap(
    lambda p: st.tuples(st.just(p), st.from_regex(re.compile(p, re.I)))))
def test_a_text_the_regex_matches_always_holds_a_run(case: tuple[str, str]) -> None:
    """Never stricter than the regex: whatever it matches (any case, any filler) passes."""
    pattern, text = case
    runs = required_runs(pattern)
    assert re.search(pattern, text, re.I)
    assert not runs or any(r in fold(text) for r in runs)


def test_a_long_log_still_gets_its_answer() -> None:
    """A 600 kB training log with the error at its end (its speed: benchmarks/triage_speed.py)."""
    log = ("step 10 loss 0.6931 lr 2e-05\n" * 20_000
           + "IndexError: Target 5 is out of bounds.\n")
    assert triage(log).cause_id == triage("IndexError: Target 5 is out of bounds.").cause_id
