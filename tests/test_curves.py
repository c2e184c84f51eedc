"""Loss-curve probe, plot renderer and the `curves` subcommand, on logs written in the real formats."""
from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from wizard.reports.plots import PlotError, render, render_all
from wizard.core.case import Case
from wizard.core.findings import Finding, Plot
from wizard.checks.curves import (
    Curves,
    LogsError,
    Series,
    analyse_curves,
    probe_curves,
    read_curves,
    read_curves_text,
)


ROOT = Path(__file__).resolve().parents[1]
PROBLEMS = {"curves.nan", "curves.overfitting", "curves.plateau", "curves.spikes",
            "curves.oscillation", "curves.divergence"}
# The catalogue entry curves.divergence needs (wizard/core/catalogue.py); registered for these
# tests while the catalogue lacks it (the rule reports itself skipped until then).
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


# -- writers for the real formats -----------------------------------------------------------
def write_trainer_state(folder: Path, train: list[float], evals: list[float],
                        logging_steps: int = 10, steps_per_epoch: int = 50) -> Path:
    """trainer_state.json as Trainer writes it: train logs every logging_steps, eval per epoch."""
    history = []
    step = 0
    evals_left = list(evals)
    for loss in train:
        step += logging_steps
        history.append({"epoch": round(step / steps_per_epoch, 4), "grad_norm": 1.0,
                        "learning_rate": 5e-5, "loss": loss, "step": step})
        if step % steps_per_epoch == 0 and evals_left:
            history.append({"epoch": step / steps_per_epoch, "eval_loss": evals_left.pop(0),
                            "eval_runtime": 0.1, "eval_samples_per_second": 700.0,
                            "eval_steps_per_second": 88.0, "step": step})
    history.append({"epoch": step / steps_per_epoch, "step": step, "total_flos": 1.0e6,
                    "train_loss": float(np.nanmean(train)), "train_runtime": 1.7,
                    "train_samples_per_second": 111.8, "train_steps_per_second": 13.98})
    state = {"best_global_step": None, "best_metric": None, "best_model_checkpoint": None,
             "epoch": step / steps_per_epoch, "eval_steps": 500, "global_step": step,
             "is_hyper_param_search": False, "is_local_process_zero": True,
             "is_world_process_zero": True, "log_history": history,
             "logging_steps": logging_steps, "max_steps": step, "num_input_tokens_seen": 0,
             "num_train_epochs": step // steps_per_epoch, "save_steps": 500,
             "stateful_callbacks": {"TrainerControl": {"args": {"should_epoch_stop": False,
                                                                "should_evaluate": False,
                                                                "should_log": False,
                                                                "should_save": True,
                                                                "should_training_stop": True},
                                                       "attributes": {}}},
             "total_flos": 1.0e6, "train_batch_size": 8, "trial_name": None, "trial_params": None}
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "trainer_state.json"
    path.write_text(json.dumps(state, indent=2))  # json writes NaN for float('nan'), like Trainer
    return path


def write_keras_csv(path: Path, loss: list[float], val_loss: list[float]) -> Path:
    """A file in CSVLogger's layout: epoch first, then the metric keys sorted."""
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["epoch", "accuracy", "loss", "val_accuracy", "val_loss"])
        w.writeheader()
        for e, (a, b) in enumerate(zip(loss, val_loss)):
            w.writerow({"epoch": e, "accuracy": 0.5, "loss": a, "val_accuracy": 0.5, "val_loss": b})
    return path


def write_tensorboard(folder: Path, train: dict[int, float], evals: dict[int, float],
                      train_tag: str = "train/loss", eval_tag: str = "eval/loss") -> Path:
    """Events written with torch's SummaryWriter, as Trainer's TensorBoardCallback does."""
    pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(log_dir=str(folder))
    for step, v in train.items():
        w.add_scalar(train_tag, v, step)
        w.add_scalar("train/learning_rate", 5e-5, step)
    for step, v in evals.items():
        w.add_scalar(eval_tag, v, step)
    w.close()
    return folder


# -- constructed runs with known shapes -----------------------------------------------------
def healthy(n: int, start: float = 2.0, end: float = 0.3, noise: float = 0.01,
            seed: int = 0) -> list[float]:
    rng = np.random.default_rng(seed)
    x = np.arange(n)
    v = end + (start - end) * np.exp(-x / (n / 4))
    return [float(a) for a in v * (1 + noise * rng.standard_normal(n))]


def overfitting(n: int, best: int) -> tuple[list[float], list[float]]:
    """Train falls throughout; validation falls to its minimum at index `best`, then rises."""
    train = healthy(n, 2.0, 0.05, 0.0)
    val = [1.2 - 0.06 * i for i in range(best + 1)]
    val += [val[-1] * (1 + 0.04 * k) for k in range(1, n - best)]
    return train, val


def ids(findings: list[Finding]) -> set[str]:
    return {f.id for f in findings}


def problems(findings: list[Finding]) -> set[str]:
    return {f.id for f in findings if f.status in ("warn", "fail")}


def by_id(findings: list[Finding], fid: str) -> Finding:
    return next(f for f in findings if f.id == fid)


# -- readers --------------------------------------------------------------------------------
def test_trainer_state_reader_takes_latest_checkpoint(tmp_path: Path) -> None:
    out = tmp_path / "output_dir"
    write_trainer_state(out / "checkpoint-20", healthy(5), [1.0])
    write_trainer_state(out / "checkpoint-100", healthy(10), [1.5, 1.0])
    (out / "checkpoint-300").mkdir()  # a checkpoint being written: no trainer_state.json yet
    c = read_curves(out)
    assert (c.source_format, c.x_unit, c.trainer) == ("trainer_state", "step", "trainer")
    assert len(c.train) == 10 and c.eval.values == [1.5, 1.0]  # numeric, not lexical order
    assert c.train.x[:3] == [10, 20, 30] and c.eval.x == [50, 100]
    assert c.train.epochs[:2] == [0.2, 0.4]
    assert "checkpoint-100" in c.notes[0]
    assert read_curves(out / "checkpoint-20").eval.values == [1.0]
    assert read_curves(out / "checkpoint-20" / "trainer_state.json").x_unit == "step"


def test_keras_csv_and_history_readers(tmp_path: Path) -> None:
    loss, val = healthy(6), healthy(6, 2.1, 0.4, seed=1)
    c = read_curves(write_keras_csv(tmp_path / "log.csv", loss, val))
    assert (c.source_format, c.x_unit, c.trainer) == ("keras_csv", "epoch", "keras")
    assert c.train.x == [0, 1, 2, 3, 4, 5]
    np.testing.assert_allclose(c.train.values, loss)
    np.testing.assert_allclose(c.eval.values, val)
    hist = tmp_path / "history.json"
    hist.write_text(json.dumps({"loss": loss, "accuracy": [0.5] * 6, "val_loss": val}))
    h = read_curves(hist)
    assert h.source_format == "keras_history" and h.train.x == c.train.x
    np.testing.assert_allclose(h.eval.values, val)


def test_tensorboard_reader_trainer_tags_and_newest_run(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_tensorboard(runs / "old", {10: 9.0, 20: 8.0}, {20: 9.5})
    os.utime(next((runs / "old").iterdir()), (1, 1))
    train = {s: v for s, v in zip(range(10, 110, 10), healthy(10))}
    write_tensorboard(runs / "new", train, {50: 1.4, 100: 1.0})
    c = read_curves(runs)
    assert (c.source_format, c.x_unit, c.trainer) == ("tensorboard", "step", "trainer")
    assert c.train.x == list(map(float, train)) and c.eval.x == [50.0, 100.0]
    np.testing.assert_allclose(c.train.values, list(train.values()), rtol=1e-6)
    assert "newest of 2" in c.notes[0]


def test_tensorboard_reader_keras_layout(tmp_path: Path) -> None:
    """Keras's TensorBoard callback layout: train/ and validation/ folders with epoch_loss."""
    loss, val = overfitting(12, 5)
    write_tensorboard(tmp_path / "logs" / "train", dict(enumerate(loss)), {}, "epoch_loss")
    write_tensorboard(tmp_path / "logs" / "validation", {}, dict(enumerate(val)),
                      eval_tag="epoch_loss")
    c = read_curves(tmp_path / "logs")
    assert (c.x_unit, c.trainer) == ("epoch", "keras")
    np.testing.assert_allclose(c.eval.values, val, rtol=1e-6)
    assert by_id(analyse_curves(c), "curves.overfitting").evidence["onset_x"] == 5


@pytest.mark.parametrize("make, words", [
    (lambda p: p / "missing.json", "does not exist"),
    (lambda p: (p / "notes.txt").write_text("hello\nworld\n") and p / "notes.txt", "no `loss`"),
    (lambda p: (p / "x.json").write_text('{"accuracy": [0.5]}') and p / "x.json", "neither"),
    (lambda p: (p / "bad.json").write_text('{"loss": [1,') and p / "bad.json", "not valid JSON"),
    (lambda p: (p / "empty").mkdir() or p / "empty", "no trainer_state.json"),
    (lambda p: (p / "h.json").write_text('{"loss": [], "val_loss": []}') and p / "h.json",
     "no values yet"),
    (lambda p: (p / "b.bin").write_bytes(b"\xff\xfe\x00") and p / "b.bin", "not a text file"),
])
def test_unreadable_logs_raise_one_sentence(tmp_path: Path, make, words: str) -> None:
    path = make(tmp_path)
    with pytest.raises(LogsError) as err:
        read_curves(path)
    msg = str(err.value)
    assert words in msg and str(path) in msg and "Keras CSVLogger" in msg
    assert msg.count(". ") == 0 and "\n" not in msg


def test_tensorboard_without_loss_names_the_tags(tmp_path: Path) -> None:
    write_tensorboard(tmp_path / "run", {1: 0.5, 2: 0.6}, {}, train_tag="accuracy")
    with pytest.raises(LogsError, match="tags found: .*accuracy"):
        read_curves(tmp_path / "run")


# -- detectors ------------------------------------------------------------------------------
def test_healthy_runs_raise_nothing_in_every_format(tmp_path: Path) -> None:
    n = 30
    runs = [read_curves(write_trainer_state(tmp_path / "t", healthy(n, noise=0.05),
                                            healthy(6, 2.1, 0.4, seed=2))),
            read_curves(write_keras_csv(tmp_path / "k.csv", healthy(18), healthy(18, 2.1, 0.4, seed=3))),
            read_curves(write_tensorboard(tmp_path / "tb", dict(enumerate(healthy(200, noise=0.1))),
                                          {s: v for s, v in zip(range(0, 200, 20),
                                                                healthy(10, 2.1, 0.4, seed=4))}))]
    for c in runs:
        f = analyse_curves(c)
        assert problems(f) == set(), (c.source_format, [x.title for x in f])
        assert f[0].id == "curves.summary" and f[0].status == "info"
        assert set(f[0].evidence["checks"]) == {"overfitting", "divergence", "plateau", "spikes",
                                                "oscillation"}


def test_overfitting_onset_is_found_and_marked(tmp_path: Path) -> None:
    loss, val = overfitting(20, 9)
    f = analyse_curves(read_curves(write_keras_csv(tmp_path / "log.csv", loss, val)))
    over = by_id(f, "curves.overfitting")
    assert over.status == "warn" and over.evidence["onset_x"] == 9
    assert over.evidence["evaluations_after_best"] == 10 and over.evidence["eval_rise_pct"] > 5
    assert "EarlyStopping" in over.fix and "TrainingArguments" not in over.fix
    assert problems(f) == {"curves.overfitting"}
    marks = f[0].plots[0].marks
    assert marks and marks[0]["x"] == 9 and "overfitting" in marks[0]["label"]
    assert "_marks" not in over.evidence


def test_overfitting_in_trainer_state_reports_step_and_epoch(tmp_path: Path) -> None:
    train = healthy(50, 2.0, 0.05, 0.02)  # 10 epochs, 5 logs an epoch
    _, val = overfitting(10, 4)
    f = analyse_curves(read_curves(write_trainer_state(tmp_path, train, val)))
    over = by_id(f, "curves.overfitting")
    assert over.evidence["onset_x"] == 250 and over.evidence["onset_epoch"] == 5
    assert "step 250 (epoch 5)" in over.title and "load_best_model_at_end" in over.fix


@pytest.mark.parametrize("shape", ["bump-at-end", "both-rise", "too-short"])
def test_overfitting_stays_quiet_without_a_sustained_divergence(tmp_path: Path, shape: str) -> None:
    loss, val = healthy(12, 2.0, 0.2, 0.0), healthy(12, 2.1, 0.5, 0.0)
    if shape == "bump-at-end":  # one bad evaluation at the end is not a trend
        val[-1] *= 1.2
    elif shape == "both-rise":  # divergence, not overfitting: the training loss rises too
        loss = loss[:6] + [loss[5] * (1 + 0.1 * k) for k in range(1, 7)]
        val = val[:6] + [val[5] * (1 + 0.1 * k) for k in range(1, 7)]
    else:
        loss, val = loss[:3], [1.0, 0.9, 1.2]
    f = analyse_curves(read_curves(write_keras_csv(tmp_path / "log.csv", loss, val)))
    assert "curves.overfitting" not in ids(f)


def test_plateau_at_ln_c(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    flat = [float(math.log(3) * (1 + 0.002 * rng.standard_normal())) for _ in range(40)]
    f = analyse_curves(read_curves(write_trainer_state(tmp_path, flat, flat[:8])))
    plateau = by_id(f, "curves.plateau")
    assert plateau.status == "fail" and plateau.evidence["uniform_guess_classes"] == 3
    assert plateau.evidence["total_drop_pct"] < 5 and "learning_rate" in plateau.fix
    assert problems(f) == {"curves.plateau"}


def test_plateau_quiet_when_the_loss_falls_late(tmp_path: Path) -> None:
    """Flat for the first half, then a real drop: the model did learn."""
    loss = [1.1] * 10 + [1.1 - 0.08 * k for k in range(1, 11)]
    f = analyse_curves(read_curves(write_keras_csv(tmp_path / "log.csv", loss, loss)))
    assert "curves.plateau" not in ids(f)


def test_spikes_are_found_with_their_steps(tmp_path: Path) -> None:
    base = healthy(100, noise=0.03)
    train = dict(zip(range(10, 1010, 10), base))
    train[300] *= 4.0
    train[700] *= 2.5
    f = analyse_curves(read_curves(write_tensorboard(tmp_path / "run", train, {})))
    spikes = by_id(f, "curves.spikes")
    assert spikes.evidence["count"] == 2
    assert [s["x"] for s in spikes.evidence["spikes"]] == [300, 700]
    assert "step 300" in spikes.title and spikes.evidence["spikes"][0]["ratio"] > 3
    assert problems(f) == {"curves.spikes"}


def test_a_level_shift_is_not_a_spike(tmp_path: Path) -> None:
    loss = [1.0] * 10 + [2.0] * 10
    f = analyse_curves(read_curves(write_keras_csv(tmp_path / "log.csv", loss, loss)))
    assert "curves.spikes" not in ids(f)


def test_oscillation(tmp_path: Path) -> None:
    trend = healthy(40, 1.5, 0.6, 0.0)
    loss = [v * (1.3 if i % 2 else 0.75) for i, v in enumerate(trend)]
    f = analyse_curves(read_curves(write_trainer_state(tmp_path, loss, [])))
    osc = by_id(f, "curves.oscillation")
    assert osc.evidence["series"] == "train" and osc.evidence["sign_change_pct"] > 85
    assert "learning_rate" in osc.fix


def test_noisy_but_healthy_run_is_not_oscillation(tmp_path: Path) -> None:
    f = analyse_curves(read_curves(write_trainer_state(tmp_path, healthy(60, noise=0.15, seed=5), [])))
    assert "curves.oscillation" not in ids(f)


def test_first_nan_with_its_step(tmp_path: Path) -> None:
    train = healthy(20)[:11] + [float("nan")] * 9
    f = analyse_curves(read_curves(write_trainer_state(tmp_path, train, [1.9, 1.5, float("nan")])))
    nan = by_id(f, "curves.nan")
    assert nan.status == "fail" and nan.evidence["x"] == 120 and nan.evidence["index"] == 11
    assert nan.evidence["value"] == "NaN"
    assert nan.evidence["last_finite_loss"] == pytest.approx(train[10], rel=1e-3)
    assert nan.evidence["non_finite_points"] == {"train": 9, "eval": 1}
    assert f[0].plots[0].marks[0]["x"] == 120
    assert f[0].plots[0].series["training loss"][11] is None
    assert problems(f) == {"curves.nan"}


def test_inf_in_keras_csv(tmp_path: Path) -> None:
    loss = healthy(8)[:5] + [float("inf"), float("nan"), float("nan")]
    f = analyse_curves(read_curves(write_keras_csv(tmp_path / "log.csv", loss, healthy(8))))
    assert by_id(f, "curves.nan").evidence["value"] == "Inf"
    assert "epoch 5" in by_id(f, "curves.nan").title


def test_probe_reads_case_logs(tmp_path: Path) -> None:
    assert probe_curves(Case(model="m", logs=None), None) == []
    loss, val = overfitting(12, 5)
    path = write_keras_csv(tmp_path / "log.csv", loss, val)
    assert "curves.overfitting" in ids(probe_curves(Case(model="m", logs=str(path)), None))
    bad = probe_curves(Case(model="m", logs=str(tmp_path / "nope.csv")), None)
    assert [(b.id, b.status) for b in bad] == [("curves.logs-unreadable", "error")]
    assert "does not exist" in bad[0].evidence["error"]


# -- real runs ------------------------------------------------------------------------------
def test_real_torch_run_logged_to_tensorboard_overfits(tmp_path: Path) -> None:
    """A tiny MLP memorising random labels, logged like Trainer does; val loss must diverge."""
    torch = pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a tiny model: threads only add contention
    try:
        vals = _torch_run(torch, SummaryWriter, tmp_path / "runs" / "run1")
    finally:
        torch.set_num_threads(threads)
    c = read_curves(tmp_path / "runs")
    np.testing.assert_allclose(c.eval.values, vals, rtol=1e-6)
    over = by_id(analyse_curves(c), "curves.overfitting")
    best = 4 * (int(np.argmin(vals)) + 1)
    assert abs(over.evidence["onset_x"] - best) <= 4  # the minimum, up to median smoothing
    assert over.evidence["onset_epoch"] == over.evidence["onset_x"] / 4


def _torch_run(torch, SummaryWriter, log_dir: Path) -> list[float]:
    torch.manual_seed(0)
    x, y = torch.randn(32, 8), torch.randint(0, 2, (32,))
    xv, yv = torch.randn(64, 8), torch.randint(0, 2, (64,))
    model = torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    lossf = torch.nn.CrossEntropyLoss()
    w = SummaryWriter(log_dir=str(log_dir))
    vals = []
    for step in range(1, 81):
        opt.zero_grad()
        loss = lossf(model(x), y)
        loss.backward()
        opt.step()
        w.add_scalar("train/loss", loss.item(), step)
        w.add_scalar("train/epoch", step / 4, step)
        if step % 4 == 0:
            with torch.no_grad():
                vals.append(lossf(model(xv), yv).item())
            w.add_scalar("eval/loss", vals[-1], step)
    w.close()
    return vals


@pytest.fixture(scope="module")
def keras_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[float]]]:
    """A real tf_keras fit with CSVLogger and TensorBoard callbacks, memorising random labels."""
    pytest.importorskip("tensorflow")
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    tf_keras = pytest.importorskip("tf_keras")
    tf_keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((32, 8)).astype("float32"), rng.integers(0, 2, 32)
    xv, yv = rng.standard_normal((64, 8)).astype("float32"), rng.integers(0, 2, 64)
    model = tf_keras.Sequential([tf_keras.layers.Dense(64, activation="relu"),
                                 tf_keras.layers.Dense(2)])
    model.compile(optimizer=tf_keras.optimizers.Adam(1e-2),
                  loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    d = tmp_path_factory.mktemp("keras")
    hist = model.fit(x, y, validation_data=(xv, yv), epochs=30, batch_size=32, verbose=0,
                     callbacks=[tf_keras.callbacks.CSVLogger(str(d / "log.csv")),
                                tf_keras.callbacks.TensorBoard(str(d / "logs"))])
    (d / "history.json").write_text(json.dumps(hist.history))
    return d, hist.history


@pytest.mark.parametrize("name", ["log.csv", "history.json", "logs"])
def test_real_keras_logs_read_the_same_and_overfit(keras_run, name: str) -> None:
    d, history = keras_run
    c = read_curves(d / name)
    assert c.x_unit == "epoch" and c.train.x == list(range(30))
    np.testing.assert_allclose(c.train.values, history["loss"], rtol=1e-5)
    np.testing.assert_allclose(c.eval.values, history["val_loss"], rtol=1e-5)
    over = by_id(analyse_curves(c), "curves.overfitting")
    assert abs(over.evidence["onset_x"] - int(np.argmin(history["val_loss"]))) <= 1


# -- console and text logs, written as the libraries print them ------------------------------
KERAS_HEALTHY = [  # a real tf_keras fit (Adam 3e-3, 400 samples): loss, accuracy, val_loss, val_accuracy
    (1.1869, 0.4175, 1.0875, 0.4350), (0.9912, 0.5325, 0.9135, 0.5550), (0.8665, 0.6400, 0.8136, 0.6650),
    (0.7657, 0.7250, 0.7295, 0.7250), (0.6791, 0.7775, 0.6604, 0.7800), (0.6034, 0.8000, 0.6035, 0.7850),
    (0.5412, 0.8200, 0.5699, 0.7850), (0.4862, 0.8300, 0.5289, 0.7850), (0.4457, 0.8575, 0.4985, 0.8000),
    (0.4091, 0.8550, 0.4696, 0.8300), (0.3808, 0.8750, 0.4513, 0.8150), (0.3548, 0.8875, 0.4326, 0.8250)]
KERAS_OVERFIT = [  # a real tf_keras fit memorising 120 noisy samples: val_loss is lowest at epoch 2
    (0.5986, 0.6500, 0.4812, 0.79), (0.3066, 0.9167, 0.4642, 0.80), (0.2399, 0.9250, 0.5549, 0.79),
    (0.1674, 0.9417, 0.6235, 0.78), (0.1493, 0.9333, 0.6144, 0.79), (0.1159, 0.9583, 0.7057, 0.78),
    (0.0957, 0.9667, 0.8150, 0.77), (0.0724, 0.9833, 0.8721, 0.77), (0.0627, 0.9833, 0.9335, 0.78),
    (0.0894, 0.9750, 0.9460, 0.77), (0.0500, 0.9917, 1.1749, 0.76), (0.0654, 0.9667, 1.1144, 0.77),
    (0.0281, 1.0000, 1.1265, 0.77), (0.0275, 1.0000, 1.2181, 0.76), (0.0277, 0.9917, 1.2707, 0.76),
    (0.0208, 1.0000, 1.3244, 0.76), (0.0135, 1.0000, 1.3407, 0.76), (0.0122, 1.0000, 1.4222, 0.75)]
KERAS_PLATEAU = [  # a real tf_keras fit with Adam(1e-7): nothing moves
    (1.3066, 0.3525, 1.3550, 0.3200)] * 5 + [(1.3065, 0.3525, 1.3549, 0.3200)] * 7
KERAS_DIVERGING = [  # SGD at a learning rate far too high, stopped by TerminateOnNaN
    (0.6931, 0.5031, 0.6874, 0.5100), (0.6712, 0.5594, 0.6652, 0.5650), (0.7480, 0.5125, 0.8237, 0.5000),
    (1.2391, 0.4969, 1.8830, 0.5000), (3.8802, 0.5031, 6.1270, 0.5000), (17.2284, 0.4875, 40.8812, 0.5000),
    (164.9417, 0.5125, 611.4370, 0.5000), (math.nan, 0.4922, math.nan, 0.5625)]


def keras_console(rows: list[tuple[float, float, float, float]], verbose: int = 1,
                  keras3: bool = False, steps: int = 25) -> str:
    """model.fit(..., verbose=verbose) on a terminal, as tf_keras 2.x or Keras 3 writes it: a
    verbose=1 bar is redrawn with backspaces and a carriage return (Keras 3 adds colours)."""
    out = []
    for e, (loss, acc, vloss, vacc) in enumerate(rows, 1):
        out.append(f"Epoch {e}/{len(rows)}\n")
        first, mid = (loss * 1.2, acc * 0.8), (loss * 1.05, acc * 0.95)
        if keras3:
            def k3(l_: float, a: float) -> str:
                return f"accuracy: {a:.4f} - loss: {l_:.4f}"
            final = f"{k3(loss, acc)} - val_accuracy: {vacc:.4f} - val_loss: {vloss:.4f}"
            if verbose == 2:
                out.append(f"{steps}/{steps} - 1s - 9ms/step - {final}\n")
                continue
            head = (f"\r\x1b[1m{1:>2}/{steps}\x1b[0m \x1b[37m{'━' * 20}\x1b[0m \x1b[1m15s\x1b[0m "
                    f"636ms/step - {k3(*first)}")
            visible = len(head) - len("\r\x1b[1m\x1b[0m\x1b[37m\x1b[0m\x1b[1m\x1b[0m")
            out.append(head + "\b" * visible + f"\r\x1b[1m{steps}/{steps}\x1b[0m \x1b[32m"
                       f"{'━' * 20}\x1b[0m\x1b[37m\x1b[0m \x1b[1m1s\x1b[0m 9ms/step - {final}\n")
            continue
        metrics = (f"loss: {loss:.4f} - accuracy: {acc:.4f} - val_loss: {vloss:.4f} - "
                   f"val_accuracy: {vacc:.4f}")
        if verbose == 2:
            out.append(f"{steps}/{steps} - 0s - {metrics} - 50ms/epoch - 2ms/step\n")
            continue
        bar1 = (f"\r{1:>2}/{steps} [>{'.' * 29}] - ETA: 15s - loss: {first[0]:.4f} - "
                f"accuracy: {first[1]:.4f}")
        bar2 = (f"\r{20:>2}/{steps} [{'=' * 23}>{'.' * 6}] - ETA: 0s - loss: {mid[0]:.4f} - "
                f"accuracy: {mid[1]:.4f} ")
        out.append(bar1 + "\b" * (len(bar1) - 1) + bar2 + "\b" * (len(bar2) - 1)
                   + f"\r{steps}/{steps} [{'=' * 30}] - 1s 15ms/step - {metrics}\n")
    text = "".join(out)
    if rows and math.isnan(rows[-1][0]):  # TerminateOnNaN writes into the running bar
        text = text.replace(f"\r{steps}/{steps} [{'=' * 30}] - 1s 15ms/step - loss: nan",
                            f"Batch 7: Invalid loss, terminating training\r{steps}/{steps} "
                            f"[{'=' * 30}] - 1s 15ms/step - loss: nan")
    return text


NOISE = ("2026-12-03 10:19:55.317216: I tensorflow/core/util/port.cc:153] oneDNN custom operations "
         "are on.\nWARNING:tensorflow:From /usr/lib/python3.11/site-packages/tf_keras/src/losses.py:"
         "2976: The name tf.losses.sparse_softmax_cross_entropy is deprecated.\n"
         "Some weights of BertForSequenceClassification were not initialized from the model "
         "checkpoint at bert-base-uncased and are newly initialized: ['classifier.bias', "
         "'classifier.weight']\nYou should probably TRAIN this model on a down-stream task to be "
         "able to use it for predictions and inference.\n")
TRACEBACK = ("Traceback (most recent call last):\n  File \"train.py\", line 41, in <module>\n"
             "    loss = criterion(model(x), y)\n           ^^^^^^^^^^^^^^^^^^^^^\n"
             "RuntimeError: CUDA error: device-side assert triggered\n")


def trainer_console(train: list[tuple[float, float]], evals: list[tuple[float, float]],
                    v5: bool = False, steps_per_epoch: int = 20, tqdm: bool = True) -> str:
    """Trainer.train() on a terminal: its log dicts (numbers in transformers 4, strings rounded
    to 4 digits in 5) written between the redraws of the tqdm bars (stderr mixed in)."""
    def show(d: dict[str, float]) -> str:
        return str({k: f"{v:.4g}" for k, v in d.items()} if v5 else d)

    total = int(max(e for e, _ in train + evals) * steps_per_epoch)
    out, pending = [NOISE], sorted(evals)
    for epoch, loss in train:
        step = round(epoch * steps_per_epoch)
        if tqdm:
            out.append(f"\r{100 * step // total:3d}%|{'█' * (10 * step // total):<10}| {step}/{total} "
                       f"[00:03<00:25,  5.51it/s]\r{' ' * 49}\r")
        out.append(show({"loss": loss, "grad_norm": 1.8051928281784058 * loss,
                         "learning_rate": 5e-05 * (1 - step / total), "epoch": epoch}) + "\n")
        while pending and pending[0][0] <= epoch:
            ev_epoch, ev_loss = pending.pop(0)
            if tqdm:
                out.append("\n\r  0%|          | 0/8 [00:00<?, ?it/s]\x1b[A\n\r 50%|█████     | 4/8 "
                           "[00:00<00:00, 31.80it/s]\x1b[A\n\r100%|██████████| 8/8 [00:00<00:00, "
                           f"29.54it/s]\x1b[A\r{' ' * 48}\r\n\r{' ' * 45}\r\x1b[A")
            out.append(show({"eval_loss": ev_loss, "eval_accuracy": 0.9 - ev_loss / 4,
                             "eval_runtime": 0.3263, "eval_samples_per_second": 196.135,
                             "eval_steps_per_second": 24.517, "epoch": ev_epoch}) + "\n")
    out.append(show({"train_runtime": 22.0217, "train_samples_per_second": 58.124,
                     "train_steps_per_second": 7.266, "train_loss": 0.1857, "epoch": train[-1][0]}))
    return "".join(out) + "\n"


TRAINER_OVERFIT = (  # a real run (transformers 4.57): eval_loss lowest at epoch 3, then rising
    [(0.5, 0.6928), (1.0, 0.6915), (1.5, 0.6387), (2.0, 0.4736), (2.5, 0.2278), (3.0, 0.0911),
     (3.5, 0.0397), (4.0, 0.0227), (4.5, 0.0173), (5.0, 0.0131), (5.5, 0.0133), (6.0, 0.0104),
     (6.5, 0.0097), (7.0, 0.0097), (7.5, 0.0101), (8.0, 0.0092)],
    [(1.0, 0.6744853854179382), (2.0, 0.42389971017837524), (3.0, 0.26209333539009094),
     (4.0, 0.31738394498825073), (5.0, 0.3528052270412445), (6.0, 0.3695487976074219),
     (7.0, 0.3782420754432678), (8.0, 0.3814050257205963)])
TRAINER_PLATEAU = (  # a real run (transformers 5.2, lr 5e-4 on a tiny BERT): stuck at ln(2)
    [(0.25, 0.6939), (0.5, 0.6947), (0.75, 0.6936), (1.0, 0.6938), (1.25, 0.6913), (1.5, 0.6898),
     (1.75, 0.6919), (2.0, 0.6937), (2.25, 0.6918), (2.5, 0.6895), (2.75, 0.691), (3.0, 0.6878)],
    [(1.0, 0.6898), (2.0, 0.6876), (3.0, 0.687)])
TRAINER_HEALTHY = (  # fine-tuning a classifier: 8 logs an epoch, noisy but falling
    [(round(0.125 * i, 3), v) for i, v in enumerate(
        [0.6931, 0.6874, 0.6702, 0.6391, 0.5733, 0.5112, 0.4620, 0.4398, 0.4127, 0.3961, 0.4210,
         0.3674, 0.3302, 0.3519, 0.3105, 0.2987, 0.2811, 0.3024, 0.2583, 0.2476, 0.2650, 0.2312,
         0.2205, 0.2398], 1)],
    [(1.0, 0.4113), (2.0, 0.3298), (3.0, 0.3051)])
TRAINER_DIVERGING = (  # learning_rate=1e-2 on a transformer: the loss climbs, then NaN
    [(round(0.125 * i, 3), v) for i, v in enumerate(
        [0.6931, 0.7012, 0.6884, 0.7377, 0.8843, 1.377, 2.151, 2.951, 4.127, 6.127, 9.918, 13.48,
         math.nan, math.nan], 1)],
    [(1.0, 2.8331)])


def test_keras_console_formats_read_epochs_from_one(tmp_path: Path) -> None:
    """tf_keras and Keras 3, verbose=1 (bars redrawn with \\r and \\b) and verbose=2, read the
    same: one point an epoch, numbered as Keras prints them (`Epoch 1/12` is epoch 1)."""
    for keras3 in (False, True):
        for verbose in (1, 2):
            text = keras_console(KERAS_HEALTHY, verbose, keras3)
            c = read_curves_text(NOISE + text)
            assert (c.source_format, c.x_unit, c.trainer) == ("keras_console", "epoch", "keras")
            assert c.train.x == list(range(1, 13)) and c.eval.x == c.train.x
            assert c.train.values == [r[0] for r in KERAS_HEALTHY]
            assert c.eval.values == [r[2] for r in KERAS_HEALTHY]
            assert c.metrics["val_accuracy"].values[-1] == 0.825
            f = analyse_curves(c)
            assert problems(f) == set(), (keras3, verbose, [x.title for x in f])
            assert f[0].title.endswith("from Keras fit() output")
            assert f[0].evidence["metrics_last"]["accuracy"] == 0.8875
    log = tmp_path / "fit.log"  # a file the console output was saved to, carriage returns kept
    log.write_bytes(keras_console(KERAS_HEALTHY).encode())
    assert read_curves(log).train.values == read_curves_text(keras_console(KERAS_HEALTHY)).train.values


@pytest.mark.parametrize("rows, verbose, keras3, expected", [
    (KERAS_OVERFIT, 1, False, {"curves.overfitting": "warn"}),
    (KERAS_OVERFIT, 2, True, {"curves.overfitting": "warn"}),
    (KERAS_PLATEAU, 1, True, {"curves.plateau": "fail"}),
    (KERAS_PLATEAU, 2, False, {"curves.plateau": "fail"}),
    (KERAS_DIVERGING, 1, False, {"curves.divergence": "fail", "curves.nan": "fail"}),
])
def test_keras_console_faults(rows, verbose: int, keras3: bool, expected: dict[str, str]) -> None:
    f = analyse_curves(read_curves_text(keras_console(rows, verbose, keras3) + TRACEBACK))
    assert {x.id: x.status for x in f if x.status in ("warn", "fail")} == expected
    if "curves.overfitting" in expected:
        assert by_id(f, "curves.overfitting").evidence["onset_x"] == 2  # `Epoch 2/18`
        assert "EarlyStopping" in by_id(f, "curves.overfitting").fix
    if "curves.nan" in expected:
        assert by_id(f, "curves.nan").evidence["x"] == 8
        assert by_id(f, "curves.divergence").evidence["onset_x"] == 2


def test_keras_run_stopped_inside_an_epoch() -> None:
    """An interrupted epoch adds its last running mean at the fractional epoch; with no finished
    epoch the progress lines give the running mean per step."""
    text = keras_console(KERAS_HEALTHY[:3])
    cut = text + "Epoch 4/12\n\r 1/25 [>" + "." * 29 + "] - ETA: 0s - loss: nan - accuracy: 0.5000"
    c = read_curves_text(cut)
    assert c.train.x == [1, 2, 3, 3.04] and math.isnan(c.train.values[-1])
    assert "epoch 4 stopped at batch 1/25" in c.notes[0]
    assert by_id(analyse_curves(c), "curves.nan").evidence["x"] == 3.04
    first = read_curves_text(text.split("\r25/25")[0])
    assert (first.x_unit, first.train.x) == ("step", [1, 20])
    assert "running mean" in first.notes[0]


def test_trainer_printed_logs_both_versions_and_tqdm_noise() -> None:
    for v5 in (False, True):
        c = read_curves_text(trainer_console(*TRAINER_HEALTHY, v5=v5) + TRACEBACK)
        assert (c.source_format, c.x_unit, c.trainer) == ("trainer_console", "epoch", "trainer")
        assert c.train.x[:3] == [0.125, 0.25, 0.375] and c.eval.x == [1.0, 2.0, 3.0]
        np.testing.assert_allclose(c.train.values, [v for _, v in TRAINER_HEALTHY[0]], rtol=1e-3)
        assert set(c.metrics) == {"grad_norm", "learning_rate", "eval_accuracy"}
        assert any("carry no step" in n for n in c.notes)
        f = analyse_curves(c)
        assert problems(f) == set(), [x.title for x in f]
        assert f[0].evidence["train_points"] == 24 and f[0].evidence["eval_points"] == 3


@pytest.mark.parametrize("run, v5, expected", [
    (TRAINER_OVERFIT, False, {"curves.overfitting": "warn"}),
    (TRAINER_PLATEAU, True, {"curves.plateau": "fail"}),
    (TRAINER_DIVERGING, True, {"curves.divergence": "fail", "curves.nan": "fail"}),
    (TRAINER_DIVERGING, False, {"curves.divergence": "fail", "curves.nan": "fail"}),
])
def test_trainer_printed_logs_faults(run, v5: bool, expected: dict[str, str]) -> None:
    f = analyse_curves(read_curves_text(trainer_console(*run, v5=v5)))
    assert {x.id: x.status for x in f if x.status in ("warn", "fail")} == expected
    if "curves.overfitting" in expected:
        assert by_id(f, "curves.overfitting").evidence["onset_x"] == 3
        assert "load_best_model_at_end" in by_id(f, "curves.overfitting").fix
    if "curves.plateau" in expected:
        assert by_id(f, "curves.plateau").evidence["uniform_guess_classes"] == 2
    if "curves.nan" in expected:
        assert by_id(f, "curves.nan").evidence["x"] == 1.625
        assert "max_grad_norm" in by_id(f, "curves.divergence").fix


def test_trainer_plateau_during_warmup_is_not_a_fault() -> None:
    """A flat start while the printed learning rate still rises is warmup, not a plateau."""
    lines = "".join(str({"loss": 0.6931 + 0.001 * (i % 3), "grad_norm": 1.2,
                         "learning_rate": 2e-06 * i, "epoch": round(0.01 * i, 2)}) + "\n"
                    for i in range(1, 13))
    f = analyse_curves(read_curves_text(lines))
    assert problems(f) == set() and "warming up" in f[0].evidence["skipped"]["plateau"]


TABLE_EPOCH_OVERFIT = """ [3125/3125 21:04, Epoch 5/5]
Epoch\tTraining Loss\tValidation Loss\tAccuracy\tF1
1\tNo log\t0.311245\t0.872000\t0.871544
2\t0.287100\t0.274417\t0.889600\t0.889421
3\t0.172600\t0.305329\t0.891200\t0.891037
4\t0.098300\t0.377216\t0.888400\t0.888390
5\t0.052400\t0.436985\t0.887600\t0.887561
TrainOutput(global_step=3125, training_loss=0.1527, metrics={'train_runtime': 1264.9, 'epoch': 5.0})
"""
TABLE_EPOCH_HEALTHY = """Epoch\tTraining Loss\tValidation Loss\tAccuracy
1\t0.523400\t0.389102\t0.832000
2\t0.341200\t0.321876\t0.861000
3\t0.263900\t0.298734\t0.874000
4\t0.221300\t0.290117\t0.879000
5\t0.198700\t0.287455\t0.880000
"""
TABLE_STEP_PLATEAU = """| Step | Training Loss | Validation Loss | Accuracy |
|------|---------------|-----------------|----------|
| 500  | 0.693700      | 0.693100        | 0.498000 |
| 1000 | 0.693400      | 0.693200        | 0.502000 |
| 1500 | 0.693100      | 0.693100        | 0.498000 |
| 2000 | 0.693500      | 0.693100        | 0.502000 |
| 2500 | 0.693200      | 0.693200        | 0.498000 |
| 3000 | 0.693000      | 0.693100        | 0.502000 |
"""


def test_trainer_notebook_tables() -> None:
    over = read_curves_text(TABLE_EPOCH_OVERFIT)
    assert (over.source_format, over.x_unit, over.trainer) == ("trainer_table", "epoch", "trainer")
    assert over.train.x == [2, 3, 4, 5] and over.eval.x == [1, 2, 3, 4, 5]  # `No log`: none yet
    assert over.metrics["F1"].values[0] == 0.871544
    f = analyse_curves(over)
    assert {x.id: x.status for x in f if x.status in ("warn", "fail")} == {"curves.overfitting": "warn"}
    assert by_id(f, "curves.overfitting").evidence["onset_x"] == 2
    assert problems(analyse_curves(read_curves_text(TABLE_EPOCH_HEALTHY))) == set()
    flat = read_curves_text(TABLE_STEP_PLATEAU)
    assert flat.x_unit == "step" and flat.train.x == [500, 1000, 1500, 2000, 2500, 3000]
    plateau = by_id(analyse_curves(flat), "curves.plateau")
    assert plateau.status == "fail" and plateau.evidence["uniform_guess_classes"] == 2
    stacked = "\n".join(TABLE_EPOCH_HEALTHY.replace("\t", "\n").splitlines())  # one cell a line
    s = read_curves_text(stacked)
    assert s.eval.values == read_curves_text(TABLE_EPOCH_HEALTHY).eval.values and s.x_unit == "epoch"


def _torch_loop_prints(torch, lr: float) -> str:
    """A hand-written PyTorch loop that prints `step {i} loss {loss:.4f}`: linear regression on
    minibatches; lr=0.02 converges, lr=0.3 is past the stability limit and diverges."""
    torch.manual_seed(0)
    x = 2 * torch.randn(256, 8)
    y = x @ torch.randn(8, 1) + 0.3 * torch.randn(256, 1)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    lines = []
    for step in range(1, 26):
        idx = torch.randint(0, 256, (32,))
        loss = torch.nn.functional.mse_loss(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        lines.append(f"step {step} loss {loss.item():.4f}")
    return "\n".join(lines)


def test_real_torch_loop_prints_healthy_and_diverging() -> None:
    torch = pytest.importorskip("torch")
    good = read_curves_text(_torch_loop_prints(torch, 0.02))
    assert (good.source_format, good.x_unit, good.train.x[:2]) == ("text_log", "step", [1, 2])
    assert problems(analyse_curves(good)) == set()
    bad = analyse_curves(read_curves_text(_torch_loop_prints(torch, 0.3)))
    div = by_id(bad, "curves.divergence")
    assert div.status == "fail" and div.evidence["ratio"] > 10
    assert "clip_grad_norm_" in div.fix  # a plain loop gets the PyTorch fix too


PLAIN_HEALTHY = {  # realistic noisy but falling prints of hand-written loops
    "step": "\n".join(f"step {10 * i} loss {v}" for i, v in enumerate(
        [2.3102, 2.2418, 2.1963, 2.0175, 1.9321, 1.8876, 1.6920, 1.7304, 1.5518, 1.4902, 1.5213,
         1.3377, 1.2968, 1.3410, 1.1822, 1.1506, 1.2013, 1.0645, 1.0317, 1.0522], 1)),
    "epoch-step": "\n".join(f"epoch {1 + i // 5} step {100 * (1 + i % 5)}: loss={v}"
                            for i, v in enumerate(
        [0.6912, 0.6421, 0.5837, 0.5209, 0.4987, 0.4513, 0.4390, 0.4027, 0.4112, 0.3795, 0.3621,
         0.3688, 0.3402, 0.3377, 0.3195])),
    "bracketed": "\n".join(f"Epoch [{1 + i // 6}/3], Step [{100 * (1 + i % 6)}/600], Loss: {v}"
                           for i, v in enumerate(
        [0.5231, 0.3512, 0.2987, 0.2645, 0.1823, 0.2239, 0.1411, 0.1587, 0.0968, 0.1320, 0.1034,
         0.0872, 0.0913, 0.0655, 0.0832, 0.0591, 0.0712, 0.0488])),
    "iter": "\n".join(f"iter {50 * i} | loss {v} | lr 6.0e-04 | 31.02ms" for i, v in enumerate(
        [4.1837, 3.6120, 3.2954, 3.0411, 2.8847, 2.7512, 2.6903, 2.6011, 2.5597, 2.4802, 2.4625,
         2.4013], 1)),
}
PLAIN_FAULTY = [
    ("step", "\n".join(f"step {10 * i} loss {v}" for i, v in enumerate(  # lr too high
        [2.3102, 2.2875, 2.3391, 2.4410, 2.7308, 3.1842, 4.0511, 5.3907, 7.7120, 11.0463, 16.9311,
         25.4470], 1)), {"curves.divergence": "fail"}),
    ("epoch-step", "\n".join(f"epoch {1 + i // 5} step {100 * (1 + i % 5)}: loss={v}"  # no step()
                             for i, v in enumerate(
        [0.6982, 0.6874, 0.7105, 0.6931, 0.6859, 0.7012, 0.6948, 0.6890, 0.7077, 0.6921, 0.6853,
         0.6996, 0.6938, 0.7041, 0.6902])), {"curves.plateau": "fail"}),
    ("bracketed", "\n".join(f"Epoch [{1 + i // 6}/3], Step [{100 * (1 + i % 6)}/600], Loss: {v}"
                            for i, v in enumerate(
        [0.5231, 0.3512, 0.3387, 0.4645, 0.6823, 1.0239, 1.7411, 3.1587, 6.0968, 11.4320, "nan",
         "nan"])), {"curves.divergence": "fail", "curves.nan": "fail"}),
    ("iter", "\n".join(f"iter {50 * i} | loss {v} | lr 6.0e-04 | 31.02ms" for i, v in enumerate(
        [3.2189, 3.1622, 3.2540, 3.1978, 3.2302, 3.1713, 3.2411, 3.2057, 3.1869, 3.2236, 3.1935,
         3.2148], 1)), {"curves.plateau": "fail"}),
    ("step-spike", "\n".join(f"step {10 * i} loss {v}" for i, v in enumerate(  # one bad batch
        [2.3102, 2.2418, 2.1963, 2.0175, 1.9321, 1.8876, 1.6920, 1.7304, 1.5518, 4.9902, 1.5213,
         1.3377, 1.2968, 1.3410, 1.1822, 1.1506, 1.2013, 1.0645, 1.0317, 1.0522], 1)),
     {"curves.spikes": "warn"}),
]
TUTORIAL_OVERFIT = "".join(  # the PyTorch transfer-learning tutorial's prints
    f"Epoch {e}/9\n----------\ntrain Loss: {t:.4f} Acc: {0.6 + e / 25:.4f}\n"
    f"val Loss: {v:.4f} Acc: {0.9 - e / 100:.4f}\n\n"
    for e, (t, v) in enumerate([(0.6102, 0.3815), (0.4391, 0.2702), (0.3512, 0.2563), (0.2807, 0.2891),
                                (0.2175, 0.3174), (0.1698, 0.3520), (0.1203, 0.3911), (0.0917, 0.4306),
                                (0.0711, 0.4620), (0.0524, 0.5087)]))


def _short_run(rng: np.random.Generator, kind: str, noise: float) -> Curves:
    """10-30 printed losses (a live run stopped after N steps) with multiplicative noise."""
    n = int(rng.integers(10, 31))
    x, start = np.arange(n), rng.uniform(0.5, 3.0)
    if kind == "healthy":  # falls by 20-80 %, fast or nearly linear
        floor, tau = rng.uniform(0.2, 0.8), rng.uniform(n / 8, n)
        v = start * (floor + (1 - floor) * np.exp(-x / tau))
    elif kind == "diverging":
        v = start * np.exp(x / (n / rng.uniform(1.5, 4)))
    else:  # flat
        v = np.full(n, start)
    v = v * np.exp(noise * rng.standard_normal(n))
    return Curves(Series([10.0 * (i + 1) for i in range(n)], list(map(float, v))), Series(),
                  "step", "text_log")


def test_short_noisy_runs_false_alarms_and_detection() -> None:
    """The rules on 10-30 points: healthy noisy runs raise (almost) nothing, diverging runs are
    caught, flat runs are caught while the noise leaves room to tell."""
    rng = np.random.default_rng(0)
    alarms = sum(bool(problems(analyse_curves(_short_run(rng, "healthy", noise))))
                 for noise in (0.0, 0.05, 0.1, 0.2, 0.3) for _ in range(60))
    assert alarms <= 3  # of 300 (simulated, 10k runs a level: < 0.05 % to 10 % noise, < 1 % at 30 %)
    caught = [("curves.divergence" in problems(analyse_curves(_short_run(rng, "diverging", 0.1))))
              for _ in range(40)]
    assert sum(caught) >= 38
    flat = [("curves.plateau" in problems(analyse_curves(_short_run(rng, "flat", 0.02))))
            for _ in range(40)]
    assert all(flat)


@pytest.mark.parametrize("name", sorted(PLAIN_HEALTHY))
def test_plain_loop_prints_healthy(name: str) -> None:
    bar = "\n 45%|████▌     | 45/100 [00:03<00:04, 13.1it/s]\n"
    noisy = "Using device: cuda\n" + PLAIN_HEALTHY[name].replace("\n", bar, 2)
    c = read_curves_text(noisy + "\n" + TRACEBACK)
    assert (c.source_format, c.x_unit) == ("text_log", "step")
    f = analyse_curves(c)
    assert problems(f) == set(), [x.title for x in f]
    assert "plateau" in f[0].evidence["checks"] and "divergence" in f[0].evidence["checks"]


@pytest.mark.parametrize("name, text, expected", PLAIN_FAULTY, ids=[p[0] for p in PLAIN_FAULTY])
def test_plain_loop_prints_faults(name: str, text: str, expected: dict[str, str]) -> None:
    f = analyse_curves(read_curves_text(text))
    assert {x.id: x.status for x in f if x.status in ("warn", "fail")} == expected


def test_plain_prints_x_axis() -> None:
    """Steps that restart each epoch count on; a loss with only an epoch is per epoch."""
    c = read_curves_text(PLAIN_HEALTHY["epoch-step"])
    assert c.train.x[:7] == [100, 200, 300, 400, 500, 600, 700] and c.train.epochs[5] == 2
    assert any("restarts each epoch" in n for n in c.notes)
    b = read_curves_text(PLAIN_HEALTHY["bracketed"])
    assert b.train.x[5:8] == [600, 700, 800]  # [100/600] of epoch 2 is step 700
    t = read_curves_text(TUTORIAL_OVERFIT)
    assert (t.x_unit, t.train.x[:3], t.eval.x[:3]) == ("epoch", [0, 1, 2], [0, 1, 2])
    assert t.metrics["val_acc"].values[0] == 0.9 and t.metrics["acc"].values[0] == 0.6
    over = by_id(analyse_curves(t), "curves.overfitting")
    assert over.evidence["onset_x"] == 2 and "epoch 2" in over.title
    nano = read_curves_text("iter 0: loss 4.2012, time 812.11ms, mfu -100.00%\n"
                            "step 250: train loss 2.1034, val loss 2.1544\niter 260: loss 2.0811")
    assert nano.train.x == [0, 250, 260] and nano.eval.x == [250] and nano.eval.values == [2.1544]


def test_pasted_text_and_files_without_a_known_extension(tmp_path: Path) -> None:
    text = keras_console(KERAS_OVERFIT, 2)
    single = read_curves("{'loss': 0.6931, 'grad_norm': 1.23, 'learning_rate': 4.9e-05, "
                         "'epoch': 0.09}")
    assert single.source_format == "trainer_console" and single.train.values == [0.6931]
    assert read_curves(text).path == "pasted text"
    (tmp_path / "stdout").write_text(text)
    assert read_curves(tmp_path / "stdout").source_format == "keras_console"
    state = write_trainer_state(tmp_path / "run", healthy(5), [1.0])
    assert read_curves_text(state.read_text()).source_format == "trainer_state"
    with pytest.raises(LogsError, match="the pasted text: it has no `loss`"):
        read_curves_text("Epoch 1/3\nTraceback (most recent call last):\nValueError: bad\n")


@pytest.fixture(scope="module")
def keras_console_run() -> dict[int, tuple[str, dict[str, list[float]]]]:
    """Real tf_keras fit() console output captured from stdout: epochs 1-3 with verbose=1, then
    the same model on to epoch 6 with verbose=2 (one model: its train function is traced once)."""
    pytest.importorskip("tensorflow")
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    tf_keras = pytest.importorskip("tf_keras")
    tf_keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((64, 8)).astype("float32"), rng.integers(0, 2, 64)
    model = tf_keras.Sequential([tf_keras.layers.Dense(32, activation="relu"),
                                 tf_keras.layers.Dense(2)])
    model.compile(optimizer=tf_keras.optimizers.Adam(1e-2), metrics=["accuracy"],
                  loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    out = {}
    for verbose, first in ((1, 0), (2, 3)):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            hist = model.fit(x[:48], y[:48], validation_data=(x[48:], y[48:]), batch_size=8,
                             initial_epoch=first, epochs=first + 3, verbose=verbose)
        out[verbose] = (buf.getvalue(), hist.history)
    return out


@pytest.mark.parametrize("verbose", [1, 2])
def test_real_keras_console_output(keras_console_run, verbose: int) -> None:
    text, history = keras_console_run[verbose]
    assert ("\b" in text) == (verbose == 1)  # the redrawn progress bar
    c = read_curves_text(text)
    assert c.source_format == "keras_console"
    assert c.train.x == ([1, 2, 3] if verbose == 1 else [4, 5, 6])  # as printed: `Epoch 4/6`
    np.testing.assert_allclose(c.train.values, history["loss"], atol=6e-5)  # printed to 4 places
    np.testing.assert_allclose(c.eval.values, history["val_loss"], atol=6e-5)
    np.testing.assert_allclose(c.metrics["accuracy"].values, history["accuracy"], atol=6e-5)


# -- plots ----------------------------------------------------------------------------------
def test_render_every_kind(tmp_path: Path) -> None:
    plots = [
        Plot("line", "Loss", "line", {"train": [3.0, 1.0, None, 0.01], "val": [2.0, 1.5]},
             x={"train": [0, 1, 2, 3], "val": [1, 3]}, xlabel="step", ylabel="loss", log_y=True,
             marks=[{"x": 1, "label": "overfitting starts"}]),
        Plot("bar", "Gradient per layer", "bar", {"labels": ["Layer 0", "Layer 1"],
                                                  "values": [0.0016, 0.031],
                                                  "colors": ["#d62728", "#1f77b4"]}),
        Plot("scatter", "Embeddings", "scatter", {"a": {"x": [0, 1], "y": [1, 0]},
                                                  "b": {"x": [2], "y": [2]}}),
        Plot("hist", "Gradient values", "hist", {"layer 0": list(np.random.randn(200)),
                                                 "layer 4": list(3 * np.random.randn(200))}),
    ]
    findings = [Finding("curves.summary", "info", "x", plots=plots[:2]),
                Finding("curves.spikes", "warn", "y", plots=plots[2:] + [plots[0]])]
    paths = render_all(findings, tmp_path / "plots")
    assert [p.name for p in paths] == ["line.png", "bar.png", "scatter.png", "hist.png"]
    for p, plot in zip(paths, plots):
        assert p.read_bytes()[:8] == PNG_MAGIC and p.stat().st_size > 5000
        assert plot.path == str(p)


def test_render_rejects_bad_data(tmp_path: Path) -> None:
    with pytest.raises(PlotError, match="kind"):
        render(Plot("p", "t", "pie", {"a": [1]}), tmp_path / "p.png")  # type: ignore[arg-type]
    with pytest.raises(PlotError, match="one x per value"):
        render(Plot("p", "t", "line", {"a": [1, 2]}, x={"a": [0]}), tmp_path / "p.png")
    with pytest.raises(PlotError, match="list of numbers"):
        render(Plot("p", "t", "line", {"a": ["high"]}), tmp_path / "p.png")


def test_same_names_get_distinct_files(tmp_path: Path) -> None:
    a, b = Plot("curves", "a", "line", {"x": [1, 2]}), Plot("curves", "b", "line", {"x": [2, 1]})
    paths = render_all([Finding("curves.summary", "info", "t", plots=[a, b])], tmp_path)
    assert [p.name for p in paths] == ["curves.png", "curves-2.png"]


# -- the command ----------------------------------------------------------------------------
REGISTER = ("import argparse, sys\n"
            "from wizard.frontends.terminal.commands import curves\n"
            "p = argparse.ArgumentParser(prog='wizard'); sub = p.add_subparsers()\n"
            "curves.register(sub)\n"
            "a = p.parse_args(sys.argv[1:]); sys.exit(a.func(a))\n")


def cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-c", REGISTER, "curves", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_command_json_and_plot(tmp_path: Path) -> None:
    loss, val = overfitting(20, 9)
    loss[15] = float("nan")
    log = write_keras_csv(tmp_path / "log.csv", loss, val)
    r = cli([str(log), "--json", "--plot", str(tmp_path / "out" / "loss.png")], tmp_path)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout, parse_constant=lambda c: pytest.fail(f"non-JSON {c}"))
    assert data["format"] == "keras_csv"
    assert {f["id"] for f in data["findings"]} >= {"curves.summary", "curves.overfitting",
                                                  "curves.nan"}
    assert all(f["category"] == "curves" for f in data["findings"])
    png = Path(data["plot"])
    assert png == tmp_path / "out" / "loss.png" and png.read_bytes()[:8] == PNG_MAGIC


def test_command_human_output_and_default_plot(tmp_path: Path) -> None:
    log = write_trainer_state(tmp_path / "ckpt", [math.log(2)] * 20, [math.log(2)] * 4)
    r = cli([str(log.parent)], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "curves.plateau" in r.stdout and "TrainingArguments" in r.stdout
    default = tmp_path / "wizard-out" / "curves.png"
    assert default.read_bytes()[:8] == PNG_MAGIC and "curves.png" in r.stdout


def test_command_bad_path_is_one_sentence_exit_2(tmp_path: Path) -> None:
    r = cli([str(tmp_path / "nope")], tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().count("\n") == 0 and "does not exist" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.skipif(not (ROOT / "wizard" / "__main__.py").exists(), reason="no wizard/__main__.py yet")
def test_python_m_wizard_curves(tmp_path: Path) -> None:
    log = write_keras_csv(tmp_path / "log.csv", healthy(10), healthy(10, 2.1, 0.4))
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    r = subprocess.run([sys.executable, "-m", "wizard", "curves", str(log), "--json"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["findings"][0]["id"] == "curves.summary"


@pytest.mark.skipif(not (ROOT / "wizard" / "__main__.py").exists(), reason="no wizard/__main__.py yet")
def test_python_m_wizard_curves_reads_a_keras_console_log(tmp_path: Path) -> None:
    log = tmp_path / "fit.log"
    log.write_text(NOISE + keras_console(KERAS_OVERFIT))
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    r = subprocess.run([sys.executable, "-m", "wizard", "curves", str(log), "--json"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
                       check=False)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert (data["format"], data["x_unit"]) == ("keras_console", "epoch")
    summary, *found = data["findings"]
    assert summary["evidence"]["train_points"] == 18 and summary["evidence"]["eval_points"] == 18
    assert [(f["id"], f["status"]) for f in found] == [("curves.overfitting", "warn")]
    assert found[0]["evidence"]["onset_x"] == 2
