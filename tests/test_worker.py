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


def test_python_m_wizard_starts_the_worker_before_it_parses_and_the_session_claims_it(tmp_path):
    """`python -m wizard demo|check CASE.yaml` knows the framework before the command line is
    parsed: the worker starts then and imports it; the session's Worker claims that child (same
    target, same environment) instead of starting another. A child nobody claims is stopped."""
    import os

    from wizard.core import childproc
    from wizard.engine.warm import WORKER_TARGET, planned_worker, warm_worker
    from wizard.frameworks import child_env

    case_file = tmp_path / "case.yaml"
    case_file.write_text("model: m\ndataset: {path: d}\nframework: tensorflow\n")
    assert planned_worker(["demo", "--framework", "pytorch", "--device", "cpu"]) == ("pytorch", "cpu")
    assert planned_worker(["--out", "x", "check", str(case_file)]) == ("tensorflow", "auto")
    assert planned_worker(["check", str(case_file), "--set", "framework=pytorch"])[0] == "pytorch"
    for argv in ([], ["check", "--script", "train.py"], ["memory", "m"], ["run", "train.py"],
                 ["demo", "--write-case", "d.yaml"], ["check", "notes.txt"]):
        assert planned_worker(argv) is None, argv

    warm_worker(["demo", "--framework", "pytorch", "--device", "cpu"])
    warm = childproc._WARM[-1]
    assert warm.target == WORKER_TARGET
    assert childproc.claim(WORKER_TARGET, child_env("tensorflow", "cpu")) is None  # not this one
    with Worker(CASE, device="cpu", timeout=300) as w:
        w.start()
        assert w._child is warm and warm not in childproc._WARM   # claimed, not started anew
        seen = _one(w.run(P + "modules")).evidence
    assert seen["pid"] == warm.proc.pid and seen["pid"] != os.getpid()
    assert seen["torch"] and seen["datasets"]   # imported while the parent was getting ready

    warm_worker(["demo", "--framework", "pytorch", "--device", "cpu"])
    unclaimed = childproc._WARM[-1]
    childproc._stop_unclaimed()                 # what exit does
    assert not unclaimed.alive() and not childproc._WARM
