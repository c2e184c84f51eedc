"""The probe worker: a probe that raises, hangs, dies or runs out of memory becomes an `error`
finding naming it, and the next probe still runs."""
from __future__ import annotations

import pytest

from wizard.core.case import Case
from wizard.engine.worker import Worker

CASE = Case.from_dict({"model": "m", "dataset": {"path": "d"}, "framework": "pytorch"})
P = "tests.misbehaving_probes:"


@pytest.fixture
def worker():
    w = Worker(CASE, device="cpu", timeout=60)
    yield w
    w.close()


def _one(findings):
    assert len(findings) == 1
    return findings[0]


def test_healthy_probe_runs_in_a_child_process_and_keeps_it(worker):
    import os

    first = _one(worker.run(P + "ok"))
    second = _one(worker.run(P + "ok"))
    assert first.evidence["pid"] != os.getpid()
    assert first.evidence["pid"] == second.evidence["pid"]  # context kept between probes


@pytest.mark.parametrize("probe, words", [
    ("raises", "raised RuntimeError: boom inside the probe"),
    ("killed", "signal 9: most likely out of memory"),
    ("exits", "exit code 3"),
    ("eats_memory", "raised MemoryError"),
])
def test_misbehaving_probe_becomes_an_error_finding_and_the_next_one_runs(worker, probe, words):
    f = _one(worker.run(P + probe))
    assert f.id == "wizard.probe-crashed" and f.status == "error"
    assert words in f.title and probe in f.title
    after = _one(worker.run(P + "ok"))
    assert after.status == "info"


def test_hanging_probe_is_stopped_at_its_time_limit(worker):
    import time

    start = time.monotonic()
    f = _one(worker.run(P + "hangs", timeout=2))
    assert time.monotonic() - start < 10
    assert "did not finish within 2 s" in f.title
    assert _one(worker.run(P + "ok")).status == "info"


def test_a_tensorflow_case_gets_a_worker_with_tensorflow_enabled(monkeypatch):
    """USE_TF=0 left in this process by a PyTorch session must not reach a TF case's worker."""
    monkeypatch.setenv("USE_TF", "0")
    tf_case = Case.from_dict({"model": "m", "dataset": {"path": "d"}, "framework": "tensorflow"})
    with Worker(tf_case, device="cpu", timeout=300) as w:  # TF starts slowly on a busy machine
        flags = _one(w.run(P + "flags")).evidence
    assert flags == {"USE_TF": None, "TF_USE_LEGACY_KERAS": "1"}
    with Worker(CASE, device="cpu", timeout=300) as w:  # a PyTorch case keeps it
        assert _one(w.run(P + "flags")).evidence["USE_TF"] == "0"
