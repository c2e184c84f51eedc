"""Memory on TensorFlow (env tf): the measured Keras step and the largest-batch search on the demo's
tiny TF DistilBERT, each attempt a fresh process (TensorFlow is not fork-safe once imported), on
the CPU with a memory cap small enough to matter."""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

tf = pytest.importorskip("tensorflow")
transformers = pytest.importorskip("transformers")
if not hasattr(transformers, "TFAutoModelForSequenceClassification"):
    pytest.skip("this transformers has no TensorFlow classes", allow_module_level=True)

from wizard.demo.cases import healthy_case  # noqa: E402
from wizard.checks.memory.probes import (StepRunner, _child_env,  # noqa: E402
                                         probe_largest_batch, probe_memory_measure)
from wizard.checks.memory.stepping import is_oom  # noqa: E402

MiB = 1024 ** 2
TIMEOUT = 180  # per attempt; one takes ~10-20 s here, most of it importing TensorFlow


def _case(demo_dir: Path, batch_size: int) -> Any:
    case = healthy_case(demo_dir, "tensorflow")    # Adam, num_labels=3, max_length unset: 128
    case.training.batch_size = batch_size
    return case


def test_tensorflow_children_get_tensorflow_and_no_zygote(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("USE_TF", "0")              # left by a PyTorch session in this process
    env = _child_env("tensorflow", "cpu")
    assert "USE_TF" not in env and env["TF_USE_LEGACY_KERAS"] == "1"
    assert env["CUDA_VISIBLE_DEVICES"] == ""
    assert _child_env("pytorch", "cpu")["USE_TF"] == "0"
    assert StepRunner("tensorflow", "cpu").fork is False
    assert is_oom(tf.errors.ResourceExhaustedError(None, None, "OOM when allocating tensor"))
    assert not is_oom(tf.errors.InvalidArgumentError(None, None, "indices[3] = 500 is not in"))


def test_first_step_falls_back_to_autograph_for_python_control_flow_on_tensors() -> None:
    """The step is traced without autograph when the graph is the same without it, and with
    autograph (as model.fit traces) when the code branches in Python on a tensor."""
    import numpy as np

    from wizard.checks.memory.tf_step import _first_step

    class Branchy(tf.keras.Model):
        def __init__(self) -> None:
            super().__init__()
            self.dense = tf.keras.layers.Dense(1)

        def call(self, x: Any) -> Any:
            y = self.dense(x)
            if tf.reduce_sum(y) > 0:       # a graph needs autograph to turn this into tf.cond
                return y
            return -y

    x, y = np.ones((4, 3), np.float32), np.zeros((4, 1), np.float32)
    for model, autograph in ((Branchy(), True), (tf.keras.Sequential([tf.keras.layers.Dense(1)]),
                                                  False)):
        model.compile(optimizer=tf.keras.optimizers.Adam(), loss="mse")
        assert _first_step(tf, model, lambda: model.train_on_batch(x, y)) is autograph
        assert np.isfinite(model.train_on_batch(x, y))


@pytest.fixture(scope="module")
def steps(demo_dir: Path) -> Any:
    """Every probe call of this module started at once (each is a chain of child processes; two
    run side by side), so the tests below wait on them rather than on each other."""
    cap = dict(device="cpu", timeout_s=TIMEOUT)
    jobs = {
        "measure-2": (probe_memory_measure, _case(demo_dir, 2), {}),
        "measure-64": (probe_memory_measure, _case(demo_dir, 64), {}),
        # batch 64 peaks at ~120 MiB and batch 32 at ~88 MiB here: a 105 MiB cap splits them
        "largest-64": (probe_largest_batch, _case(demo_dir, 64),
                       dict(memory_cap_bytes=105 * MiB, max_attempts=2)),
        "largest-1": (probe_largest_batch, _case(demo_dir, 1), dict(memory_cap_bytes=8 * MiB)),
        "measure-oom": (probe_memory_measure, _case(demo_dir, 4), dict(memory_cap_bytes=8 * MiB)),
    }
    with ThreadPoolExecutor(max(2, min(os.cpu_count() or 2, 4))) as pool:
        futures = {k: pool.submit(fn, case, **cap, **kw) for k, (fn, case, kw) in jobs.items()}
        yield lambda key: futures[key].result()
        for fut in futures.values():
            fut.cancel()


def test_measured_keras_step_grows_with_the_batch(steps: Any) -> None:
    peaks = {}
    for b in (2, 64):
        [f] = steps(f"measure-{b}")
        ev = f.evidence
        assert f.id == "memory.measured-peak" and f.status == "info", ev
        assert "RSS" in ev["method"] and "TensorFlow" in ev["method"]
        assert ev["device"] == "cpu" and ev["framework"] == "tensorflow"
        assert (ev["batch_size"], ev["seq_len"]) == (b, 128)
        assert ev["optimizer"] == "Adam"
        assert ev["model_class"] == "TFDistilBertForSequenceClassification"
        assert ev["autograph"] is False    # DistilBERT traces to the same graph without it
        assert ev["measured_peak_gib"] > 0
        peaks[b] = ev["measured_peak_gib"]
    # measured here: ~0.045 GiB at batch 2 (TensorFlow's graph and runtime for the model) and
    # ~0.12 GiB at batch 64 (activations of 64 x 128 tokens on top)
    assert peaks[64] > peaks[2] + 0.03, peaks


def test_largest_batch_under_a_cap(steps: Any) -> None:
    [f] = steps("largest-64")
    ev = f.evidence
    assert f.id == "memory.largest-batch" and f.status == "warn", ev
    assert ev["attempts"] == [[64, False], [32, True]] and not ev["exact"]
    assert ev["largest"] == 32 < ev["case_batch_size"] == 64
    assert ev["framework"] == "tensorflow" and "watched" in ev["cap_enforced"]
    assert "over the memory cap 105.0 MiB" in ev["oom_errors"][64]
    assert 0 < ev["peaks_gib"][32] < 105 / 1024
    assert "to_tf_dataset(columns=..., batch_size=32" in f.fix and "rebatch(32)" in f.fix
    assert "model.fit(" in f.fix and "accumulate 2 steps" in f.fix
    assert "TrainingArguments" not in f.fix


def test_batch_one_over_the_cap_will_not_fit(steps: Any) -> None:
    [g] = steps("largest-1")
    assert g.id == "memory.will-not-fit" and g.status == "fail", g.evidence
    assert g.evidence["source"] == "measured" and g.evidence["batch_size"] == 1
    assert g.evidence["attempts"] == [[1, False]]
    assert "over the memory cap 8.0 MiB" in g.evidence["oom_errors"][1]
    assert "watched" in g.evidence["cap_enforced"]
    assert g.evidence["capacity_gib"] == round(8 * MiB / 1024 ** 3, 3)
    assert g.fix


def test_out_of_memory_in_the_measured_keras_step(steps: Any) -> None:
    [f] = steps("measure-oom")
    assert f.id == "memory.will-not-fit" and f.status == "fail", f.evidence
    assert "over the memory cap 8.0 MiB" in f.evidence["error"]
    assert "watched" in f.evidence["cap_enforced"]
