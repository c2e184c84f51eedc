"""Loss-curve probe, plot renderer and the `curves` subcommand, on logs written in the real formats."""
from __future__ import annotations

import csv
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
from wizard.checks.curves import LogsError, analyse_curves, probe_curves, read_curves

ROOT = Path(__file__).resolve().parents[1]
PROBLEMS = {"curves.nan", "curves.overfitting", "curves.plateau", "curves.spikes",
            "curves.oscillation"}
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
            read_curves(write_keras_csv(tmp_path / "k.csv", healthy(15), healthy(15, 2.1, 0.4, seed=3))),
            read_curves(write_tensorboard(tmp_path / "tb", dict(enumerate(healthy(200, noise=0.1))),
                                          {s: v for s, v in zip(range(0, 200, 20),
                                                                healthy(10, 2.1, 0.4, seed=4))}))]
    for c in runs:
        f = analyse_curves(c)
        assert problems(f) == set(), (c.source_format, [x.title for x in f])
        assert f[0].id == "curves.summary" and f[0].status == "info"
        assert set(f[0].evidence["checks"]) == {"overfitting", "plateau", "spikes", "oscillation"}


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
