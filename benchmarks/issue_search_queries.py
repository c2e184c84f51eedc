"""Would the issue search built from one report find another report of the same error?

The "reported before" link and the `report.reported-before` check search a library's issues for
the words of an error message that stay the same between reports
(`wizard.core.repositories.issue_search_terms`). Offline, GitHub's matching is simulated: the
text is lower-cased and cut into runs of letters and digits; a quoted phrase matches where its
words follow each other, a bare word where it occurs; every part of the query must match.

Over every ordered pair of real reports A != B of the sets below (each report names the known
error it is, `signature` or `cause_id`; the environment family's ids, each naming many different
errors, are left out):

- found:  A's query matches B's paste, when A and B are the same error (higher is better);
- wrong:  A's query matches B's paste, when they are different errors (lower is better);
- none:   reports whose message leaves nothing stable to search for.

Tuned on tests/data/wording_variants.yaml ("dev"); scored on tests/data/fresh_wordings.yaml
("held", threads gathered apart). The real-error corpus is left out of the pairs: its cause ids
are families (one id for many different errors), so its pairs say nothing about one error's
reports.

Where the search goes: over the real-error corpus (tests/data/real_errors/, its dev and held
splits), for each thread filed in the GitHub repository of a library the wizard knows, whether
the search of a report goes to that repository (the place its reporter filed it, and where the
other reports of it are); "nothing" counts the reports with nothing to search.

    python benchmarks/issue_search_queries.py
"""
from __future__ import annotations

import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from wizard.triage.env_answers import FAMILY  # noqa: E402
from wizard.triage.match import triage  # noqa: E402

DATA = ROOT / "tests" / "data"
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> str:
    """The text as GitHub's search is simulated to see it: ' w1 w2 ... '."""
    return " " + " ".join(_WORD.findall(text.lower())) + " "


def parts(query: str) -> list[str]:
    """A query's parts as word strings: each quoted phrase, each bare word."""
    phrases = re.findall(r'"([^"]*)"', query)
    bare = re.sub(r'"[^"]*"', " ", query).split()
    return [words(p) for p in phrases + bare if words(p).strip()]


def load(name: str) -> list[dict[str, Any]]:
    reports = yaml.safe_load((DATA / f"{name}.yaml").read_text(encoding="utf-8"))
    for r in reports:
        r["error"] = r.get("signature") or r["cause_id"]
    return [r for r in reports if r["error"] not in FAMILY]   # a family is many errors


def score(reports: list[dict[str, Any]]) -> dict[str, Any]:
    texts = [words(r["paste"]) for r in reports]
    queries = []
    for r in reports:
        terms = triage(r["paste"]).search_terms
        queries.append(parts(terms[1]) if terms else None)
    by_error: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(reports):
        by_error[r["error"]].append(i)
    same = [0, 0]
    other = [0, 0]
    for i, q in enumerate(queries):
        if q is None:
            continue
        for j, text in enumerate(texts):
            if i == j:
                continue
            hit = all(p in text for p in q)
            bucket = same if reports[i]["error"] == reports[j]["error"] else other
            bucket[0] += hit
            bucket[1] += 1
    pairs_possible = sum(len(v) * (len(v) - 1) for v in by_error.values())
    return {"reports": len(reports), "none": sum(q is None for q in queries),
            "same_pairs": pairs_possible, "found": same[0], "found_of": same[1],
            "wrong": other[0], "wrong_of": other[1]}


def repositories() -> dict[str, list[int]]:
    """{split: [right repository, another repository, nothing to search]} over the corpus."""
    from triage_accuracy import load as load_corpus   # noqa: E402 - the corpus reader

    from wizard.core.repositories import REPOSITORIES
    from wizard.triage.versions import pastes_from_elsewhere

    known, out = set(REPOSITORIES.values()), defaultdict(lambda: [0, 0, 0])
    with pastes_from_elsewhere():
        for r in load_corpus():
            filed = re.search(r"github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull)/", r["url"])
            if filed is None or filed.group(1) not in known:
                continue
            terms = triage(r["paste"]).search_terms
            out[r["split"]][2 if terms is None else 0 if terms[0] == filed.group(1) else 1] += 1
    return dict(out)


def main() -> int:
    for split, names in (("dev", ("wording_variants",)), ("held", ("fresh_wordings",))):
        for name in names:
            t = time.perf_counter()
            s = score(load(name))
            found = s["found"] / s["same_pairs"] if s["same_pairs"] else 0.0
            wrong = s["wrong"] / s["wrong_of"] if s["wrong_of"] else 0.0
            print(f"== {split} {name}: {s['reports']} reports, nothing to search {s['none']}; "
                  f"same error found {s['found']}/{s['same_pairs']} pairs ({100 * found:.1f} %); "
                  f"other errors matched {s['wrong']}/{s['wrong_of']} ({100 * wrong:.3f} %); "
                  f"{time.perf_counter() - t:.1f} s")
    t = time.perf_counter()
    for split, (right, other, none) in sorted(repositories().items()):
        print(f"== {split} real_errors: {right + other + none} threads in a known library's "
              f"repository; the search goes there for {right}/{right + other} "
              f"({100 * right / max(right + other, 1):.1f} %), nothing to search {none}; "
              f"{time.perf_counter() - t:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
