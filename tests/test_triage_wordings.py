"""Real error reports from public threads outside the benchmark corpus: known errors in older
and newer releases' words, on other platforms, pasted from notebooks or as a title, and frequent
fine-tuning errors (several threads each). Each must reach the cause its thread established
(tests/data/wording_variants.yaml)."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from wizard.triage.causes import same_cause
from wizard.triage.match import triage
from wizard.triage.versions import pastes_from_elsewhere

VARIANTS = yaml.safe_load((Path(__file__).parent / "data" / "wording_variants.yaml")
                          .read_text(encoding="utf-8"))


def test_the_variants_come_from_threads_outside_the_corpus() -> None:
    corpus = Path(__file__).parent / "data" / "real_errors"
    urls = {yaml.safe_load(p.read_text(encoding="utf-8"))["url"] for p in corpus.glob("*.yaml")}
    assert len(VARIANTS) >= 150
    assert not urls & {v["url"] for v in VARIANTS}


@pytest.mark.parametrize("variant", VARIANTS, ids=[v["url"].split("github.com/")[-1]
                                                  for v in VARIANTS])
def test_a_real_wording_reaches_its_cause(variant: dict) -> None:
    with pastes_from_elsewhere():
        got = triage(variant["paste"]).cause_id
    assert same_cause(got, variant["cause_id"]), (variant["url"], got)


def test_the_fresh_threads_are_new_and_only_scored() -> None:
    """The fresh set (benchmarks/triage_accuracy.py scores it) shares no thread with the corpus
    or the variants above, and each thread says whether it confirms the cause named."""
    fresh = yaml.safe_load((Path(__file__).parent / "data" / "fresh_wordings.yaml")
                           .read_text(encoding="utf-8"))
    corpus = Path(__file__).parent / "data" / "real_errors"
    urls = {yaml.safe_load(p.read_text(encoding="utf-8"))["url"] for p in corpus.glob("*.yaml")}
    assert len(fresh) >= 50
    assert not {t["url"] for t in fresh} & (urls | {v["url"] for v in VARIANTS})
    assert all(t["verdict"] in ("same", "other") and t["paste"].strip() for t in fresh)
    assert all(t.get("other_cause") for t in fresh if t["verdict"] == "other")
