"""How long triage takes on real pastes and on long training logs, with and without the prefilter
that skips the signatures whose plain-character runs a paste lacks (wizard/triage/literals.py).

    python benchmarks/triage_speed.py
"""
from __future__ import annotations

import statistics
import sys
import time
import tracemalloc
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from wizard.triage import match  # noqa: E402
from wizard.triage.versions import pastes_from_elsewhere  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "real_errors"
VARIANTS = ROOT / "tests" / "data" / "wording_variants.yaml"
LINE = "{'loss': 0.6931, 'grad_norm': 1.02, 'learning_rate': 2e-05, 'epoch': 0.12}\n"
ERROR = ("Traceback (most recent call last):\n  File \"train.py\", line 40, in <module>\n"
         "    trainer.train()\nIndexError: Target 5 is out of bounds.\n")


@contextmanager
def prefilter(on: bool) -> Iterator[None]:
    """Triage with the prefilter (as shipped) or with every regex searched."""
    saved = match.required_runs
    if not on:
        match.required_runs = lambda pattern: ()          # type: ignore[assignment]
    try:
        yield
    finally:
        match.required_runs = saved


def pastes() -> list[str]:
    out = [yaml.safe_load(p.read_text(encoding="utf-8"))["paste"]
           for p in sorted(CORPUS.glob("*.yaml"))]
    variants = yaml.safe_load(VARIANTS.read_text(encoding="utf-8"))
    out += [v["paste"] for v in variants if v.get("paste")]
    return out


def timed(texts: list[str]) -> list[float]:
    times = []
    for text in texts:
        t = time.perf_counter()
        match.triage(text)
        times.append(time.perf_counter() - t)
    return times


def main() -> int:
    texts = pastes()
    logs = {f"{kb} kB log": LINE * (kb * 1024 // len(LINE)) + ERROR for kb in (50, 200, 1000)}
    match.triage("warm up")
    with pastes_from_elsewhere():
        for on in (True, False):
            with prefilter(on):
                times = sorted(timed(texts))
                p95 = times[int(0.95 * len(times))]
                print(f"== prefilter {'on ' if on else 'off'}: {len(texts)} real pastes "
                      f"{sum(times):6.2f} s, median {1000 * statistics.median(times):5.1f} ms, "
                      f"p95 {1000 * p95:6.1f} ms, max {1000 * times[-1]:7.1f} ms")
                for name, log in logs.items():
                    tracemalloc.start()
                    (took,) = timed([log])
                    peak = tracemalloc.get_traced_memory()[1] / 2**20
                    tracemalloc.stop()
                    print(f"   {name:>12}: {took:6.2f} s, peak {peak:5.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
