"""Read training logs into `Curves`: Trainer trainer_state.json, Keras CSVLogger/History,
TensorBoard events, and console or text logs (Keras fit() output, the Trainer's printed logs and
notebook table, a plain loop's prints), given as a file or pasted as text.
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

from wizard.checks.curves_formats import TextLog, parse_text_log
from wizard.errors import LogsError

FORMATS = ("a Trainer trainer_state.json (or its checkpoint-*/output folder), a Keras CSVLogger "
           ".csv, a Keras History dict saved as .json, a TensorBoard event folder, or console "
           "output as text (Keras fit() progress lines, the Trainer's printed log dicts or "
           "notebook table, a loop's `step 10 loss 2.31` prints)")
FORMAT_LABELS = {"trainer_state": "Trainer trainer_state.json", "keras_csv": "Keras CSVLogger",
                 "keras_history": "Keras History JSON", "tensorboard": "TensorBoard events",
                 "keras_console": "Keras fit() output", "trainer_console": "Trainer printed logs",
                 "trainer_table": "Trainer notebook table", "text_log": "printed training log"}
SourceFormat = Literal["trainer_state", "keras_csv", "keras_history", "tensorboard",
                       "keras_console", "trainer_console", "trainer_table", "text_log"]
TEXT_TRAINER = {"keras_console": "keras", "trainer_console": "trainer", "trainer_table": "trainer",
                "text_log": "unknown"}
PASTED = "pasted text"

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
    """Normalised training logs: the train and eval loss series, their x unit, their source, and
    the other metrics read beside them (accuracy, learning rate...; console logs only)."""

    train: Series
    eval: Series
    x_unit: Literal["step", "epoch"]
    source_format: SourceFormat
    path: str = ""
    trainer: Literal["trainer", "keras", "unknown"] = "unknown"
    notes: list[str] = field(default_factory=list)
    metrics: dict[str, Series] = field(default_factory=dict)


# == reading ==================================================================================
def read_curves(path: str | Path) -> Curves:
    """Read training logs from a file or folder, detecting the format; a string of several lines
    (or one that is not a path and names a loss) is read as pasted console output."""
    if isinstance(path, str) and _is_pasted(path):
        return read_curves_text(path)
    p = Path(path).expanduser()
    if not p.exists():
        raise LogsError(f"The training log {str(p)!r} does not exist; give {FORMATS}.")
    if p.is_dir():
        return _read_dir(p)
    if p.name.startswith("events.out.tfevents"):
        return _read_tensorboard(p.parent, p)
    if p.suffix.lower() == ".json":
        return _read_json(p)
    text = _text(p)
    if p.suffix.lower() == ".csv" or _csv_header(text):
        return _read_csv(p, text)
    return _read_text(text, p)


def read_curves_text(text: str, name: str = PASTED) -> Curves:
    """Read training logs pasted as text: JSON (trainer_state.json, a History dict), a CSVLogger
    file, or console output (Keras fit(), the Trainer's printed logs or table, loop prints)."""
    return _read_text(text, name)


def _read_text(text: str, where: Path | str) -> Curves:
    if text.lstrip().startswith(("{", "[")):
        try:
            json.loads(text)
        except ValueError:
            pass  # one log dict a line, or console output that starts with one
        else:
            return _read_json(where, text)
    if isinstance(where, str) and _csv_header(text):
        return _read_csv(where, text)
    log = parse_text_log(text)
    if log is None:
        raise _unknown(where, "it has no `loss` value in a format the wizard reads (the lines "
                              "need a loss after `loss`, `val_loss`, `Training Loss`...)")
    return _from_text_log(where, log)


def _from_text_log(where: Path | str, log: TextLog) -> Curves:
    x_unit: Literal["step", "epoch"] = "epoch" if log.x_unit == "epoch" else "step"

    def series(name: str) -> Series:
        pts = log.series.get(name, [])
        epochs = [p[2] for p in pts]
        known = x_unit == "step" and any(math.isfinite(e) for e in epochs)
        return Series([p[0] for p in pts], [p[1] for p in pts], epochs if known else None, name)

    metrics = {k: series(k) for k in log.series if k not in ("loss", "val_loss")}
    fmt: SourceFormat = log.fmt  # type: ignore[assignment]
    return Curves(series("loss"), series("val_loss"), x_unit, fmt, str(where),
                  TEXT_TRAINER[log.fmt], list(log.notes), metrics)  # type: ignore[arg-type]


def _is_pasted(text: str) -> bool:
    """Several lines, or one line that is no existing path and holds a loss record."""
    if "\n" in text or "\r" in text or len(text) > 4096:
        return True
    try:
        if Path(text).expanduser().exists():
            return False
    except (OSError, ValueError):  # a name too long for the file system
        pass
    return parse_text_log(text) is not None


def _csv_header(text: str) -> bool:
    """The first line is a delimited header with a `loss` or `val_loss` column (CSVLogger)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    fields = {f.strip().strip('"').lower() for f in re.split(r"[,;\t]", first)}
    return len(fields) >= 2 and bool(fields & {"loss", "val_loss"})


def _unknown(p: Path | str, why: str) -> LogsError:
    where = repr(str(p)) if isinstance(p, Path) else f"the {p}"
    return LogsError(f"Cannot read training logs from {where}: {why}; give {FORMATS}.")


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
def _read_json(p: Path | str, text: str | None = None) -> Curves:
    text = _text(p) if text is None else text  # type: ignore[arg-type]
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


def _from_log_history(p: Path | str, history: list[dict[str, Any]]) -> Curves:
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


def _from_history(p: Path | str, hist: dict[str, Any]) -> Curves:
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
def _read_csv(p: Path | str, text: str | None = None) -> Curves:
    text = _text(p) if text is None else text  # type: ignore[arg-type]
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


def _need_values(p: Path | str, series: list[Series]) -> None:
    if not any(len(s) for s in series):
        raise _unknown(p, "its `loss` and `val_loss` have no values yet (the run ended before "
                          "its first epoch)")


def _num(v: Any, p: Path | str | None = None) -> float:
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

