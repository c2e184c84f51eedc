"""Read training logs (Trainer, Keras, TensorBoard) and diagnose the loss curves.

`read_curves(path)` detects the format and returns `Curves`; `analyse_curves(curves)` returns
findings (curves.summary always, with the loss plot; curves.nan, curves.overfitting,
curves.plateau, curves.spikes, curves.oscillation when they apply). Thresholds are the module
constants below; wizard/core/catalogue.py documents them.
"""
from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from wizard.core.findings import Finding, Plot
from wizard.errors import LogsError

# -- thresholds (own heuristics unless the catalogue says otherwise) --------------------------
OVERFIT_MIN_EVAL_POINTS = 4      # evaluations needed before overfitting is judged
OVERFIT_MIN_POINTS_AFTER = 2     # evaluations after the minimum ("sustained")
OVERFIT_MIN_RISE = 0.05          # smoothed val loss ends >= 5 % above its minimum
OVERFIT_LAST_RISE = 0.025        # ... and each of the last two evaluations >= 2.5 % above it
OVERFIT_TRAIN_FALL = 0.02        # train loss at the end >= 2 % below its value at the onset
PLATEAU_MIN_POINTS = 5
PLATEAU_FIRST_HALF_CHANGE = 0.02  # first half of the run stays within 2 % of its start
PLATEAU_TOTAL_DROP = 0.05        # and the whole run never gets 5 % below its start
SPIKE_RATIO = 1.5                # a point >= 1.5x the median of both neighbourhoods
SPIKE_ROBUST_Z = 6.0             # and >= 6 robust standard deviations (MAD) above it
SPIKE_WINDOW = 3                 # points on each side for the baseline (at least 2 needed)
SPIKE_SCALE_WINDOW = 10          # points on each side for the noise scale (MAD)
OSC_MIN_POINTS = 12
OSC_SIGN_CHANGES = 0.85          # >= 85 % of successive differences flip sign
OSC_REL_SWING = 0.1              # median |step-to-step change| >= 10 % of the median loss
MAX_LISTED = 10

FORMATS = ("a Trainer trainer_state.json (or its checkpoint-*/output folder), a Keras CSVLogger "
           ".csv, a Keras History dict saved as .json, or a TensorBoard event folder")
FORMAT_LABELS = {"trainer_state": "Trainer trainer_state.json", "keras_csv": "Keras CSVLogger",
                 "keras_history": "Keras History JSON", "tensorboard": "TensorBoard events"}

KERAS_NOTE = "Keras numbers epochs from 0: epoch 0 is the first"
TRAIN_TAGS = ("train/loss", "train_loss", "loss/train", "train/epoch_loss", "training/loss",
              "loss/training")
EVAL_TAGS = ("eval/loss", "eval_loss", "val_loss", "val/loss", "validation/loss", "loss/val",
             "loss/validation", "loss/eval", "loss/test", "test/loss", "valid/loss",
             "loss/valid", "validation_loss")
GENERIC_TAGS = ("epoch_loss", "loss", "batch_loss", "evaluation_loss_vs_iterations")
TRAIN_DIRS = ("train", "training")
EVAL_DIRS = ("validation", "val", "eval", "valid", "test", "evaluation")




@dataclass
class Series:
    """One loss curve: x positions (steps or epochs), values (NaN/Inf kept), epochs if known."""

    x: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    epochs: list[float] | None = None
    name: str = ""

    def __len__(self) -> int:
        return len(self.values)


@dataclass
class Curves:
    """Normalised training logs: the train and eval loss series, their x unit, their source."""

    train: Series
    eval: Series
    x_unit: Literal["step", "epoch"]
    source_format: Literal["trainer_state", "keras_csv", "keras_history", "tensorboard"]
    path: str = ""
    trainer: Literal["trainer", "keras", "unknown"] = "unknown"
    notes: list[str] = field(default_factory=list)


# == reading ==================================================================================
def read_curves(path: str | Path) -> Curves:
    """Read training logs from a file or folder, detecting the format."""
    p = Path(path).expanduser()
    if not p.exists():
        raise LogsError(f"The training log {str(p)!r} does not exist; give {FORMATS}.")
    if p.is_dir():
        return _read_dir(p)
    if p.name.startswith("events.out.tfevents"):
        return _read_tensorboard(p.parent, p)
    if p.suffix.lower() == ".json":
        return _read_json(p)
    if p.suffix.lower() in (".csv", ".tsv", ".txt", ".log"):
        return _read_csv(p)
    text = _text(p)
    if text.lstrip().startswith(("{", "[")):
        return _read_json(p, text)
    if text and "loss" in text.splitlines()[0]:
        return _read_csv(p, text)
    raise _unknown(p, "it is neither JSON nor a CSV with a `loss` column")


def _unknown(p: Path, why: str) -> LogsError:
    return LogsError(f"Cannot read training logs from {str(p)!r}: {why}; give {FORMATS}.")


def _text(p: Path) -> str:
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise _unknown(p, "it is not a text file") from None
    except OSError as exc:
        raise _unknown(p, f"it cannot be opened ({exc.strerror or exc})") from None


def _read_dir(p: Path) -> Curves:
    if (p / "trainer_state.json").is_file():
        return _read_json(p / "trainer_state.json")
    ckpts = [(int(m.group(1)), c) for c in p.iterdir()
             if (m := re.fullmatch(r"checkpoint-(\d+)", c.name)) and (c / "trainer_state.json").is_file()]
    if ckpts:
        step, latest = max(ckpts)
        curves = _read_json(latest / "trainer_state.json")
        curves.notes.append(f"read the latest checkpoint, checkpoint-{step}, of {len(ckpts)}")
        return curves
    if any(_event_files(p)):
        return _read_tensorboard(p)
    raise _unknown(p, "the folder has no trainer_state.json, no checkpoint-* folder with one, "
                      "and no TensorBoard events.out.tfevents.* file")


# -- JSON: trainer_state.json, a bare log_history list, a Keras History dict --------------------
def _read_json(p: Path, text: str | None = None) -> Curves:
    text = _text(p) if text is None else text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _unknown(p, f"it is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if isinstance(data, dict) and isinstance(data.get("log_history"), list):
        return _from_log_history(p, data["log_history"])
    if isinstance(data, list) and data and all(isinstance(e, dict) for e in data):
        return _from_log_history(p, data)
    if isinstance(data, dict) and isinstance(data.get("history"), dict):
        data = data["history"]  # {"history": history.history, "epoch": [...]}-style dumps
    if isinstance(data, dict) and any(k in data for k in ("loss", "val_loss")):
        return _from_history(p, data)
    raise _unknown(p, "the JSON has neither a Trainer `log_history` nor Keras `loss`/`val_loss` lists")


def _from_log_history(p: Path, history: list[dict[str, Any]]) -> Curves:
    train, ev = Series(epochs=[], name="loss"), Series(epochs=[], name="eval_loss")
    for i, entry in enumerate(history):
        if not isinstance(entry, dict):
            continue
        for key, series in (("loss", train), ("eval_loss", ev)):
            if key in entry:
                step = _num(entry.get("step", i))
                series.x.append(step if math.isfinite(step) else float(i))
                series.values.append(_num(entry[key]))
                series.epochs.append(_num(entry.get("epoch", float("nan"))))
    if not len(train) and not len(ev):
        raise _unknown(p, "its log_history has no `loss` or `eval_loss` entry yet (the run "
                          "logged nothing: lower logging_steps or train longer)")
    return Curves(train, ev, "step", "trainer_state", str(p), "trainer")


def _from_history(p: Path, hist: dict[str, Any]) -> Curves:
    out = []
    for key in ("loss", "val_loss"):
        vals = hist.get(key, [])
        if not isinstance(vals, list):
            raise _unknown(p, f"its `{key}` is not a list of numbers")
        epochs = hist.get("epoch")
        if not isinstance(epochs, list) or len(epochs) != len(vals):
            epochs = list(range(len(vals)))  # History.epoch: Keras counts from 0
        out.append(Series([_num(e) for e in epochs], [_num(v) for v in vals], name=key))
    _need_values(p, out)
    return Curves(out[0], out[1], "epoch", "keras_history", str(p), "keras", [KERAS_NOTE])


# -- CSV: Keras CSVLogger ---------------------------------------------------------------------
def _read_csv(p: Path, text: str | None = None) -> Curves:
    text = _text(p) if text is None else text
    try:
        dialect = csv.Sniffer().sniff(text.splitlines()[0] if text else "", delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    rows = list(csv.DictReader(io.StringIO(text), dialect=dialect))
    cols = {c.strip().lower(): c for c in (rows[0].keys() if rows else []) if c}
    if "loss" not in cols and "val_loss" not in cols:
        raise _unknown(p, "the CSV has no `loss` or `val_loss` column")
    out = []
    for key in ("loss", "val_loss"):
        s = Series(name=key)
        for i, row in enumerate(rows):
            raw = (row.get(cols.get(key, ""), "") or "").strip()
            if key in cols and raw and raw.upper() != "NA":
                s.values.append(_num(raw, p))
                s.x.append(_num((row.get(cols.get("epoch", ""), "") or "").strip() or i, p))
        out.append(s)
    _need_values(p, out)
    return Curves(out[0], out[1], "epoch", "keras_csv", str(p), "keras", [KERAS_NOTE])


def _need_values(p: Path, series: list[Series]) -> None:
    if not any(len(s) for s in series):
        raise _unknown(p, "its `loss` and `val_loss` have no values yet (the run ended before "
                          "its first epoch)")


def _num(v: Any, p: Path | None = None) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        if p is None:
            return float("nan")
        raise _unknown(p, f"the value {v!r} is not a number") from None


# -- TensorBoard ------------------------------------------------------------------------------
def _event_files(p: Path) -> list[Path]:
    return sorted(f for f in p.rglob("events.out.tfevents.*") if f.is_file())


def _read_tensorboard(p: Path, single: Path | None = None) -> Curves:
    """Pick one run (the newest) and read its loss scalars with tensorboard's EventAccumulator.

    A run is a folder of event files (Trainer, SummaryWriter), or the parent of Keras's
    train/ and validation/ folders.
    """
    files = [single] if single else _event_files(p)
    runs: dict[Path, list[Path]] = {}
    for f in files:
        run = f.parent.parent if f.parent.name.lower() in TRAIN_DIRS + EVAL_DIRS else f.parent
        runs.setdefault(run, []).append(f)
    newest = max(runs, key=lambda r: max(f.stat().st_mtime for f in runs[r]))
    notes = [f"read the newest of {len(runs)} TensorBoard runs: {newest}"] if len(runs) > 1 else []
    picked: dict[str, Series] = {}
    found: list[str] = []
    for d in sorted({f.parent for f in runs[newest]}):
        role = d.name.lower() if d != newest else "mixed"
        role = "train" if role in TRAIN_DIRS else "eval" if role in EVAL_DIRS else "mixed"
        scalars = _tb_scalars(single or d, p)
        found += [t if role == "mixed" else f"{d.name}/{t}" for t in scalars]
        lower = {t.lower(): t for t in scalars}
        epoch_of = dict(zip(*scalars[lower["train/epoch"]])) if "train/epoch" in lower else {}
        wanted = {"train": () if role == "eval" else TRAIN_TAGS + GENERIC_TAGS[:3],
                  "eval": () if role == "train" else EVAL_TAGS + (GENERIC_TAGS if role == "eval" else ())}
        for target, tags in wanted.items():
            tag = next((lower[t] for t in tags if t in lower), None)
            if tag is None or target in picked:
                continue
            xs, vs = scalars[tag]
            epochs = [epoch_of.get(x, float("nan")) for x in xs] if epoch_of else None
            picked[target] = Series(xs, vs, epochs, name=tag)
    if not picked:
        shown = ", ".join(found[:12]) or "none"
        raise _unknown(p, f"its TensorBoard events have no loss scalar (tags found: {shown})")
    names = {s.name.lower() for s in picked.values()}
    keras = any(n.startswith("epoch_") for n in names)
    trainer = "keras" if keras else "trainer" if names & {"train/loss", "eval/loss"} else "unknown"
    if keras:
        notes.append(KERAS_NOTE)
    return Curves(picked.get("train", Series()), picked.get("eval", Series()),
                  "epoch" if keras else "step", "tensorboard", str(p), trainer, notes)


def _tb_scalars(path: Path, shown: Path) -> dict[str, tuple[list[float], list[float]]]:
    """All scalar series in one event folder (legacy simple_value and TF2 scalar tensors)."""
    try:
        from tensorboard.backend.event_processing.event_accumulator import (
            EventAccumulator,
        )
        from tensorboard.util import tensor_util
    except ImportError:
        raise LogsError(f"Reading the TensorBoard logs in {str(shown)!r} needs the tensorboard "
                          "package; pip install tensorboard.") from None
    try:
        acc = EventAccumulator(str(path), size_guidance={"scalars": 0, "tensors": 0})
        acc.Reload()
        tags = acc.Tags()
    except Exception as exc:  # corrupt or truncated event files
        raise _unknown(shown, f"its TensorBoard events cannot be read ({type(exc).__name__})") from None
    out: dict[str, tuple[list[float], list[float]]] = {}
    for tag in tags.get("scalars", []):
        out[tag] = _dedupe([(e.step, e.value) for e in acc.Scalars(tag)])
    for tag in tags.get("tensors", []):
        pts = []
        for e in acc.Tensors(tag):
            try:
                arr = tensor_util.make_ndarray(e.tensor_proto)
            except Exception:
                break
            if arr.size != 1 or arr.dtype.kind not in "fiu":
                break
            pts.append((e.step, float(arr.reshape(-1)[0])))
        else:
            if pts:
                out.setdefault(tag, _dedupe(pts))
    return out


def _dedupe(pts: list[tuple[int, float]]) -> tuple[list[float], list[float]]:
    """Sort by step; a step logged twice (a resumed run) keeps its last value."""
    by_step = {float(s): float(v) for s, v in pts}
    steps = sorted(by_step)
    return steps, [by_step[s] for s in steps]


# == analysis =================================================================================
def analyse_curves(curves: Curves) -> list[Finding]:
    """All curve findings: curves.summary first, then the problems found."""
    problems: list[Finding] = []
    marks: list[dict[str, Any]] = []
    ran: list[str] = []
    skipped: dict[str, str] = {}
    nan = _nan(curves)
    if nan:
        problems.append(nan)
        marks.append({"x": nan.evidence["x"], "label": f"first {nan.evidence['value']}"})
    train, ev = _finite_prefix(curves.train), _finite_prefix(curves.eval)
    checks = (("overfitting", _overfitting), ("plateau", _plateau), ("spikes", _spikes),
              ("oscillation", _oscillation))
    for name, check in checks:
        result = check(curves, train, ev)
        if isinstance(result, str):
            skipped[name] = result
            continue
        ran.append(name)
        if result is not None:
            problems.append(result)
            marks += result.evidence.pop("_marks", [])
    summary = _summary(curves, marks, ran, skipped)
    return [summary] + problems


def probe_curves(case: Any, ctx: Any = None) -> list[Finding]:
    """Probe: read and analyse case.logs ([] when the case has no logs)."""
    if not getattr(case, "logs", None):
        return []
    try:
        return analyse_curves(read_curves(case.logs))
    except LogsError as exc:
        return [Finding("curves.logs-unreadable", "error", "The training logs cannot be read",
                        evidence={"logs": str(case.logs), "error": str(exc)},
                        explanation=str(exc),
                        fix="logs: output_dir/checkpoint-500/trainer_state.json   # or a Keras "
                            "CSVLogger file, a History .json, a TensorBoard log folder")]


# -- helpers ----------------------------------------------------------------------------------
def _finite_prefix(s: Series) -> Series:
    """The part of a series before its first NaN/Inf (what the other checks judge)."""
    v = np.asarray(s.values, dtype=float)
    bad = np.flatnonzero(~np.isfinite(v))
    n = int(bad[0]) if bad.size else len(v)
    return Series(s.x[:n], s.values[:n], s.epochs[:n] if s.epochs else None, s.name)


def _rolling_median(v: np.ndarray, w: int) -> np.ndarray:
    if w <= 1 or len(v) < 3:
        return v.copy()
    h = w // 2
    return np.array([np.median(v[max(0, i - h):i + h + 1]) for i in range(len(v))])


def _where(curves: Curves, s: Series, i: int) -> str:
    """'epoch 9' / 'step 1200 (epoch 3.0)' for point i of s."""
    x = _fmt_x(s.x[i])
    text = f"{curves.x_unit} {x}"
    if curves.x_unit == "step" and s.epochs and math.isfinite(s.epochs[i]):
        text += f" (epoch {round(s.epochs[i], 2):g})"
    return text


def _fmt_x(x: float) -> int | float:
    return int(x) if float(x).is_integer() else round(float(x), 3)


def _r(v: float, digits: int = 4) -> float | None:
    return float(f"{v:.{digits}g}") if math.isfinite(v) else None


def _pct(v: float) -> float:
    return round(100 * v, 1)


def _fix(curves: Curves, trainer: str, keras: str) -> str:
    if curves.trainer == "trainer":
        return trainer
    if curves.trainer == "keras":
        return keras
    return f"# Trainer\n{trainer}\n\n# Keras\n{keras}"


# -- detectors --------------------------------------------------------------------------------
def _nan(curves: Curves) -> Finding | None:
    first: tuple[float, str, Series, int] | None = None
    counts = {}
    for label, s in (("train", curves.train), ("eval", curves.eval)):
        v = np.asarray(s.values, dtype=float)
        bad = np.flatnonzero(~np.isfinite(v))
        counts[label] = int(bad.size)
        if bad.size and (first is None or s.x[bad[0]] < first[0]):
            first = (s.x[bad[0]], label, s, int(bad[0]))
    if first is None:
        return None
    x, label, s, i = first
    value = "NaN" if math.isnan(s.values[i]) else "Inf"
    which = "training" if label == "train" else "validation"
    where = _where(curves, s, i)
    last = _r(s.values[i - 1]) if i else None
    return Finding(
        "curves.nan", "fail", f"The {which} loss becomes {value} at {where}",
        evidence={"series": label, "x": _fmt_x(x), "x_unit": curves.x_unit, "index": i,
                  "value": value, "last_finite_loss": last, "finite_points_before": i,
                  "non_finite_points": counts},
        explanation=(f"The {which} loss is {value} from {where} on ({counts[label]} of "
                     f"{len(s)} logged values); the last finite value was {last}. Once a step "
                     "produces NaN the weights are NaN and nothing after it is learned. Usual "
                     "causes: a learning rate too high, fp16 overflow, labels outside "
                     "0..num_labels-1, or a bad sample in the batch at that step. The Trainer's "
                     "default logging_nan_inf_filter=True hides NaN steps in its logs, so a "
                     "logged NaN means the whole logging window was NaN."),
        fix=_fix(curves,
                 "args = TrainingArguments(..., learning_rate=2e-5, max_grad_norm=1.0,\n"
                 "                         fp16=False, bf16=True)  # bf16 does not overflow\n"
                 "# then find the samples: python -m wizard check case.yaml  (model.nan-loss-samples)",
                 "import tf_keras\n"
                 "model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5, clipnorm=1.0))\n"
                 "model.fit(..., callbacks=[tf_keras.callbacks.TerminateOnNaN()])"))


def _overfitting(curves: Curves, train: Series, ev: Series) -> Finding | None | str:
    if len(ev) < OVERFIT_MIN_EVAL_POINTS:
        return f"needs {OVERFIT_MIN_EVAL_POINTS} finite validation losses, has {len(ev)}"
    if len(train) < 2:
        return "needs a training loss beside the validation loss"
    v = np.asarray(ev.values)
    s = _rolling_median(v, 3) if len(v) >= 5 else v
    i = int(np.argmin(s))
    i = max(0, i - 1) + int(np.argmin(v[max(0, i - 1):i + 2]))  # the raw minimum near it
    after = len(v) - 1 - i
    if after < OVERFIT_MIN_POINTS_AFTER or s[i] <= 0:
        return None
    rise = (s[-1] - s[i]) / abs(s[i])
    sustained = bool(np.min(v[-2:]) >= s[i] * (1 + OVERFIT_LAST_RISE))
    tx, tv = np.asarray(train.x), np.asarray(train.values)
    ts = _rolling_median(tv, max(1, len(tv) // 10) | 1)
    x0 = ev.x[i]
    t_onset = float(np.interp(x0, tx, ts))
    t_end = float(ts[-1])
    fall = (t_onset - t_end) / abs(t_onset) if t_onset else 0.0
    if not (rise >= OVERFIT_MIN_RISE and sustained and fall >= OVERFIT_TRAIN_FALL
            and tx[-1] > x0):
        return None
    where = _where(curves, ev, i)
    return Finding(
        "curves.overfitting", "warn",
        f"Overfitting from {where}: validation loss rises while training loss keeps falling",
        evidence={"onset_x": _fmt_x(x0), "x_unit": curves.x_unit,
                  "onset_epoch": _r(ev.epochs[i]) if ev.epochs else None,
                  "best_eval_loss": _r(float(v[i])), "last_eval_loss": _r(float(v[-1])),
                  "eval_rise_pct": _pct(rise), "evaluations_after_best": after,
                  "train_loss_at_onset": _r(t_onset), "train_loss_at_end": _r(t_end),
                  "train_fall_pct": _pct(fall),
                  "_marks": [{"x": _fmt_x(x0), "label": f"overfitting starts ({where})"}]},
        explanation=(f"The validation loss was lowest at {where} ({_r(float(v[i]))}) and then "
                     f"rose {_pct(rise)} % over the next {after} evaluations, while the training "
                     f"loss fell another {_pct(fall)} %: the model is memorising the training "
                     "set. The checkpoint at the onset is the best one; stop there, or add "
                     "regularisation (weight decay, dropout, more data)."),
        fix=_fix(curves,
                 "from transformers import EarlyStoppingCallback, TrainingArguments\n"
                 "args = TrainingArguments(..., eval_strategy=\"epoch\", save_strategy=\"epoch\",\n"
                 "                         load_best_model_at_end=True, metric_for_best_model=\"eval_loss\",\n"
                 "                         weight_decay=0.01)\n"
                 "trainer = Trainer(..., args=args, callbacks=[EarlyStoppingCallback(early_stopping_patience=2)])",
                 "import tf_keras\n"
                 "early = tf_keras.callbacks.EarlyStopping(monitor=\"val_loss\", patience=2,\n"
                 "                                         restore_best_weights=True)\n"
                 "model.fit(..., validation_data=val_ds, callbacks=[early])"))


def _plateau(curves: Curves, train: Series, ev: Series) -> Finding | None | str:
    s, label = (train, "training") if len(train) else (ev, "validation")
    if len(s) < PLATEAU_MIN_POINTS:
        return f"needs {PLATEAU_MIN_POINTS} finite losses, has {len(s)}"
    v = np.asarray(s.values)
    chunks = np.array([np.median(c) for c in np.array_split(v, min(8, len(v)))])
    start = float(chunks[0])
    if start == 0:
        return None
    half = chunks[: max(2, (len(chunks) + 1) // 2)]
    first_half = float(np.max(np.abs(half - start)) / abs(start))
    drop = float((start - chunks.min()) / abs(start))
    if first_half >= PLATEAU_FIRST_HALF_CHANGE or drop >= PLATEAU_TOTAL_DROP:
        return None
    evidence: dict[str, Any] = {
        "series": "train" if s is train else "eval", "points": len(s),
        "start_loss": _r(start), "end_loss": _r(float(chunks[-1])), "min_loss": _r(float(v.min())),
        "first_half_change_pct": _pct(first_half), "total_drop_pct": _pct(drop)}
    k = round(math.exp(start)) if start < 7 else 0
    guess = ""
    if 2 <= k <= 1000 and abs(start - math.log(k)) / math.log(k) < 0.01:
        evidence["uniform_guess_classes"] = k
        guess = (f" It sits at ln({k}) = {math.log(k):.4f}, the loss of a uniform guess over "
                 f"{k} classes: the model predicts the same thing for every input.")
    return Finding(
        "curves.plateau", "fail", f"The {label} loss is flat from the start: nothing is learned",
        evidence=evidence,
        explanation=(f"Over the first half of the run the {label} loss stays within "
                     f"{_pct(first_half)} % of its start ({_r(start)}), and over the whole run "
                     f"it never gets more than {_pct(drop)} % below it.{guess} Usual causes: a "
                     "learning rate far too high (Keras's 'adam' means 1e-3) or far too low, "
                     "labels that do not match the inputs, frozen weights, or a loss wired "
                     "to the wrong outputs. (A run resumed from an already converged model "
                     "also looks flat; then there is nothing to fix.)"),
        fix=_fix(curves,
                 "args = TrainingArguments(..., learning_rate=5e-5, warmup_steps=100)\n"
                 "# check the batch and overfit one batch: python -m wizard check case.yaml",
                 "import tf_keras\n"
                 "model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5))  # not 'adam' (1e-3)\n"
                 "# check the batch and overfit one batch: python -m wizard check case.yaml"))


def _spikes(curves: Curves, train: Series, ev: Series) -> Finding | None | str:
    found: list[dict[str, Any]] = []
    judged = 0
    for label, s in (("train", train), ("eval", ev)):
        v = np.asarray(s.values)
        if len(v) < 2 * 2 + 1:
            continue
        judged += 1
        for i in range(2, len(v) - 2):
            left, right = v[max(0, i - SPIKE_WINDOW):i], v[i + 1:i + 1 + SPIKE_WINDOW]
            ref = max(float(np.median(left)), float(np.median(right)))
            nb = np.concatenate([v[max(0, i - SPIKE_SCALE_WINDOW):i], v[i + 1:i + 1 + SPIKE_SCALE_WINDOW]])
            mad = 1.4826 * float(np.median(np.abs(nb - np.median(nb))))
            if ref > 0 and v[i] >= SPIKE_RATIO * ref and v[i] - ref >= SPIKE_ROBUST_Z * mad:
                found.append({"series": label, "x": _fmt_x(s.x[i]), "where": _where(curves, s, i),
                              "loss": _r(float(v[i])), "baseline": _r(ref),
                              "ratio": round(float(v[i] / ref), 2)})
    if not judged:
        return "needs 5 finite losses in a series"
    if not found:
        return None
    worst = max(found, key=lambda f: f["ratio"])
    return Finding(
        "curves.spikes", "warn",
        f"{len(found)} loss spike{'s' if len(found) > 1 else ''}, the largest {worst['ratio']}x "
        f"its neighbours at {worst['where']}",
        evidence={"count": len(found), "spikes": found[:MAX_LISTED],
                  "_marks": [{"x": f["x"], "label": "spike", "color": "#9467bd"}
                             for f in sorted(found, key=lambda f: -f["ratio"])[:3]]},
        explanation=("These points jump far above the median of the points around them and the "
                     "loss comes back down after: single bad batches (very long, mislabelled or "
                     "corrupt samples) or steps where the update was too large. If the spikes "
                     "grow, the run is heading for divergence or NaN."),
        fix=_fix(curves,
                 "args = TrainingArguments(..., learning_rate=2e-5, max_grad_norm=1.0, warmup_steps=100)",
                 "import tf_keras\n"
                 "model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5, clipnorm=1.0))"))


def _oscillation(curves: Curves, train: Series, ev: Series) -> Finding | None | str:
    judged = 0
    for label, s in (("train", train), ("eval", ev)):
        v = np.asarray(s.values)
        if len(v) < OSC_MIN_POINTS:
            continue
        judged += 1
        d = np.diff(v)
        signs = np.sign(d[d != 0])
        if len(signs) < OSC_MIN_POINTS - 2:
            continue
        flips = float(np.mean(signs[1:] != signs[:-1]))
        level = float(np.median(np.abs(v)))
        swing = float(np.median(np.abs(d)))
        rel = swing / level if level else 0.0
        if flips >= OSC_SIGN_CHANGES and rel >= OSC_REL_SWING:
            which = "training" if label == "train" else "validation"
            return Finding(
                "curves.oscillation", "warn",
                f"The {which} loss oscillates: {_pct(flips)} % of its steps reverse direction",
                evidence={"series": label, "points": len(v), "sign_change_pct": _pct(flips),
                          "median_swing": _r(swing), "median_loss": _r(level),
                          "relative_swing_pct": _pct(rel)},
                explanation=(f"Successive {which} losses go up and down in turn ({_pct(flips)} % "
                             f"of the differences flip sign) by a median {_pct(rel)} % of the "
                             "loss: the optimiser overshoots back and forth across the minimum. "
                             "The learning rate is too high for this batch size."),
                fix=_fix(curves,
                         "args = TrainingArguments(..., learning_rate=2e-5,  # lower: try /3 to /10\n"
                         "                         gradient_accumulation_steps=4, warmup_steps=100)",
                         "import tf_keras\n"
                         "model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=2e-5))  # lower: /3 to /10"))
    return None if judged else f"needs {OSC_MIN_POINTS} finite losses in a series"


def _summary(curves: Curves, marks: list[dict[str, Any]], ran: list[str],
             skipped: dict[str, str]) -> Finding:
    ev: dict[str, Any] = {"format": curves.source_format, "path": curves.path,
                          "x_unit": curves.x_unit}
    for label, s in (("train", curves.train), ("eval", curves.eval)):
        v = np.asarray(s.values, dtype=float)
        fin = np.isfinite(v)
        ev[f"{label}_points"] = len(v)
        if fin.any():
            j = int(np.nanargmin(np.where(fin, v, np.nan)))
            ev[f"{label}_first"] = _r(float(v[fin][0]))
            ev[f"{label}_last"] = _r(float(v[fin][-1]))
            ev[f"{label}_min"] = _r(float(v[j]))
            ev[f"{label}_min_at"] = _fmt_x(s.x[j])
    epochs = [e for s in (curves.train, curves.eval) for e in (s.epochs or []) if math.isfinite(e)]
    if epochs:
        ev["epochs_seen"] = _r(max(epochs))
    ev["checks"] = ran
    if skipped:
        ev["skipped"] = skipped
    if curves.notes:
        ev["notes"] = curves.notes
    series: dict[str, list[float | None]] = {}
    xs: dict[str, list[float]] = {}
    for name, s in (("training loss", curves.train), ("validation loss", curves.eval)):
        if len(s):
            series[name] = [v if math.isfinite(v) else None for v in s.values]
            xs[name] = [float(x) for x in s.x]
    finite = [v for vals in series.values() for v in vals if v is not None]
    log_y = bool(finite) and min(finite) > 0 and max(finite) / min(finite) > 100
    plot = Plot(name="curves", title=f"Loss curves ({FORMAT_LABELS[curves.source_format]})",
                kind="line", series=series, x=xs, xlabel=curves.x_unit, ylabel="loss",
                log_y=log_y, marks=marks)
    parts = [f"{len(curves.train)} training"] + ([f"{len(curves.eval)} validation"]
                                                 if len(curves.eval) else [])
    return Finding(
        "curves.summary", "info",
        f"Loss curves: {' and '.join(parts)} points from {FORMAT_LABELS[curves.source_format]}",
        evidence=ev,
        explanation=("Healthy curves fall and flatten, with the validation loss close to the "
                     "training loss. Validation rising while training falls is overfitting; both "
                     "flat from the start means the model is not learning."),
        plots=[plot])
