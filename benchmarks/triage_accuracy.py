"""How often triage names the cause that a real thread established, on the corpus of real error
reports in tests/data/real_errors/ (see its README).

The answer and the key are compared by cause (`wizard/triage/causes.py`: tags that name one root
cause in different words count as one); a signature inside a family (audio-backend-missing, of
env-missing-package) names its own cause as well as the family's. The split is fixed by thread: a report is "held" when the
SHA-256 of its address starts with a hex digit below 5 (about a third), else "dev". Tune on dev (its misses are listed); only score
held. Besides top-1, each split prints how often triage names a cause at all and how often it is
right when it does (the trust an answer deserves; the rest are told no known cause matches), and
for a release mismatch (too old and too new are one cause) how often the fix points the way the
thread found. The corpus grew in rounds (a report's `batch`); held is also printed per round.

A third set, "fresh" (tests/data/fresh_wordings.yaml), holds threads outside the corpus for errors
the catalogue already knows, gathered after their signatures were written and never tuned on: it
measures whether a signature reaches new wordings of its error. Each thread either confirms the
cause named (scored: right when triage names it) or establishes another cause (scored: wrong when
triage still names the listed one).

    python benchmarks/triage_accuracy.py [--split dev|held|fresh|all] [--json OUT]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from wizard.triage.causes import same_cause  # noqa: E402
from wizard.triage.match import triage  # noqa: E402
from wizard.triage.versions import pastes_from_elsewhere  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "real_errors"
FRESH = ROOT / "tests" / "data" / "fresh_wordings.yaml"


def split_of(url: str) -> str:
    return "held" if hashlib.sha256(url.encode()).hexdigest()[0] < "5" else "dev"


def load() -> list[dict[str, Any]]:
    reports = []
    for path in sorted(CORPUS.glob("*.yaml")):
        item = yaml.safe_load(path.read_text(encoding="utf-8"))
        item["file"] = path.name
        item["split"] = split_of(item["url"])
        reports.append(item)
    return reports


def answer(paste: str) -> tuple[str, str, str | None]:
    """(the cause id triage names, its verdict, the precise signature); 'library-bug' for a
    possible library bug.

    The cause id is the primary signature's id, or for the environment family the family id
    (env-missing-package, env-version-too-old, ...) that its rule decided: `cause_id`. A
    signature of a family names its own cause too (audio-backend-missing, of
    env-missing-package): its id is the third value, unless a refinement named another cause."""
    result = triage(paste)
    if result.error:
        return "crash", result.error, None
    m = result.primary
    if m is not None:
        own = m.signature.id if m.cause_id == m.signature.cause_id != m.signature.id else None
        return m.cause_id, result.verdict, own
    if result.verdict == "possible-library-bug":
        return "library-bug", result.verdict, None
    return "unknown", result.verdict, None


def names_cause(got: tuple[str, str, str | None], key: str) -> bool:
    """Whether an answer names the key's cause: its cause id, or its precise signature."""
    return same_cause(got[0], key) or (got[2] is not None and same_cause(got[2], key))


# too old and too new are one cause (a release mismatch), but the fix points one way
_DIRECTIONS = {"env-version-too-old", "env-version-too-new"}


def score(reports: list[dict[str, Any]]) -> dict[str, Any]:
    right = 0
    per_category: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    bug = Counter()
    misses = []
    crashes = named = 0
    way = [0, 0]                      # a version answer to a version key: the direction right
    for r in reports:
        full = answer(r["paste"])
        got = full[0]
        if {got, r["cause_id"]} <= _DIRECTIONS:
            way[0] += got == r["cause_id"]
            way[1] += 1
        crashes += got == "crash"
        ok = names_cause(full, r["cause_id"])
        right += ok
        named += got not in ("unknown", "crash")
        per_category[r["category"]][0] += ok
        per_category[r["category"]][1] += 1
        said_bug, is_bug = got == "library-bug", bool(r["library_bug"])
        bug["tp"] += said_bug and is_bug
        bug["fp"] += said_bug and not is_bug
        bug["fn"] += is_bug and not said_bug
        if not ok:
            misses.append((r["file"], r["cause_id"], got))
    n = len(reports)
    precision = bug["tp"] / (bug["tp"] + bug["fp"]) if bug["tp"] + bug["fp"] else None
    recall = bug["tp"] / (bug["tp"] + bug["fn"]) if bug["tp"] + bug["fn"] else None
    return {"reports": n, "top1": right / n if n else None, "crashes": crashes,
            "named": named, "right_when_named": right / named if named else None,
            "per_category": {k: {"right": v[0], "of": v[1]} for k, v in sorted(per_category.items())},
            "library_bug_precision": precision, "library_bug_recall": recall,
            "direction": {"right": way[0], "of": way[1]}, "misses": misses}


def score_fresh(threads: list[dict[str, Any]]) -> dict[str, Any]:
    """Named right on threads confirming the cause; named anyway where a thread found another."""
    same = [t for t in threads if t["verdict"] == "same"]
    other = [t for t in threads if t["verdict"] == "other"]
    right = sum(names_cause(answer(t["paste"]), t["cause_id"]) for t in same)
    claimed = sum(names_cause(answer(t["paste"]), t["cause_id"]) for t in other)
    return {"threads": len(threads), "errors": len({t["cause_id"] for t in threads}),
            "confirming": len(same), "right": right, "top1": right / len(same) if same else None,
            "other_cause": len(other), "claimed_anyway": claimed}


def report_fresh() -> dict[str, Any]:
    """Score the fresh set and print its line."""
    threads = yaml.safe_load(FRESH.read_text(encoding="utf-8"))
    t = time.perf_counter()
    with pastes_from_elsewhere():
        fresh = score_fresh(threads)
    print(f"== fresh: {fresh['threads']} threads of {fresh['errors']} known errors, cause named "
          f"on {fresh['right']}/{fresh['confirming']} confirming threads ({pct(fresh['top1'])}); "
          f"named anyway on {fresh['claimed_anyway']}/{fresh['other_cause']} threads that found "
          f"another cause, {time.perf_counter() - t:.2f} s")
    return fresh


def report_rounds(part: list[dict[str, Any]]) -> None:
    """The held split of each collection round (README: Rounds), when there are several."""
    rounds = sorted({r.get("batch", 1) for r in part})
    if len(rounds) < 2:
        return
    with pastes_from_elsewhere():
        for n in rounds:
            s = score([r for r in part if r.get("batch", 1) == n])
            print(f"   round {n}: {s['reports']:3d} reports, top-1 {pct(s['top1'])}")


def pct(x: float | None) -> str:
    return "  n/a" if x is None else f"{100 * x:5.1f} %"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "held", "fresh", "all"), default="all")
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args()
    reports = load()
    out = {}
    names = ("dev", "held", "fresh") if args.split == "all" else (args.split,)
    for name in names:
        if name == "fresh":
            out[name] = report_fresh()
            continue
        part = [r for r in reports if r["split"] == name]
        t = time.perf_counter()
        with pastes_from_elsewhere():     # the reports come from other machines
            result = score(part)
        result["seconds"] = round(time.perf_counter() - t, 2)
        out[name] = result
        print(f"== {name}: {result['reports']} reports, top-1 {pct(result['top1'])}, "
              f"library-bug precision {pct(result['library_bug_precision'])} "
              f"recall {pct(result['library_bug_recall'])}, crashes {result['crashes']}, "
              f"{result['seconds']} s")
        print(f"   a cause named for {result['named']}/{result['reports']}, right when named "
              f"{pct(result['right_when_named'])} (else: no known cause, the checks and the search "
              "come next)")
        way = result["direction"]
        print(f"   a release too old or too new, and which: {way['right']}/{way['of']} the way "
              "the thread found")
        for cat, v in result["per_category"].items():
            print(f"   {cat:16s} {v['right']:3d}/{v['of']:<3d}")
        if name == "held":
            report_rounds(part)
        if name == "dev":
            print("   misses (file: expected -> got):")
            for file, want, got in result["misses"]:
                print(f"     {file}: {want} -> {got}")
        else:
            result.pop("misses")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
