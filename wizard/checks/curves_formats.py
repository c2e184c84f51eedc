"""Console and text training logs read into loss and metric points.

Four formats, tried in this order (the first that yields a loss wins; other lines are noise):
Keras fit() output (verbose=1 progress bars, verbose=2 lines, tf_keras and Keras 3), the
Trainer's printed log dicts (`{'loss': ..., 'epoch': ...}`, also inside tqdm output), the
Trainer's notebook table (`Step | Training Loss | Validation Loss | ...`) and a plain loop's
prints (`step 10 loss 2.31`, `Epoch [1/10], Step [100/600], Loss: 0.5231`, ...).
"""
from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise

Point = tuple[float, float, float]  # (x, value, epoch); epoch is NaN when unknown
Row = tuple[float | None, float | None, float | None, dict[str, float]]  # epoch, step, steps, values
Record = tuple[int, int | None, dict[str, float]]  # a Keras progress line: batch, batches, metrics
Segment = tuple[int | None, list[Record]]  # the records after an `Epoch k/N` line
NO_EPOCH_DONE = ("no epoch finished: the points are Keras's running mean of the loss within the "
                 "epoch, per step")

NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf(?:inity)?)\b"
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
TQDM = re.compile(r"\d+%\|.*\|\s*\d+/\d+\s*\[")

KERAS_EPOCH = re.compile(r"^Epoch (\d+)/(\d+)$")
KERAS_BAR = re.compile(r"^(\d+)/(\d+|Unknown)\s+(?:\[[=>.]*\]|━+)?\s*(?:-\s+)?(.*)$")
KERAS_METRIC = re.compile(rf"(?:^|\s-\s)([A-Za-z]\w*):\s+({NUM})(?=\s|$)", re.IGNORECASE)

DICT = re.compile(r"\{[^{}]*\}")
BARE_NONFINITE = re.compile(r"(?<=[:\s\[,])(-?(?:nan|inf|Infinity|NaN))(?=\s*[,}\]])")
TRAINER_SKIP = re.compile(r"runtime|per_second|total_flos|^epoch$|^step$|^global_step$")

TABLE_SPLIT = re.compile(r"\t|\s*\|\s*|\s{2,}")
TABLE_X = {"step": "step", "epoch": "epoch"}
TABLE_SKIP = re.compile(r"time", re.IGNORECASE)  # `Model Preparation Time` and the like

VAL_WORDS = r"val(?:id(?:ation)?)?|eval(?:uation)?|test|dev"
VAL_LOSS = re.compile(rf"\b(?:{VAL_WORDS})[ _/-]?loss\b|\bloss[/_](?:{VAL_WORDS})\b", re.IGNORECASE)
TRAIN_LOSS = re.compile(r"\b(?:(?:train(?:ing)?|tr|avg|average|running|batch|mean|total|lm)"
                        r"[ _/-]?)?loss\b|\bloss[/_]train(?:ing)?\b", re.IGNORECASE)
VALUE_AFTER = re.compile(rf"\s*(?:[:=]|\bis\b)?\s*(?:tensor\()?({NUM})", re.IGNORECASE)
COUNTER = re.compile(r"\b(epoch|ep|global[ _]step|step|steps|iter|iters|iteration|batch|update)"
                     r"\b\s*[:=#]?\s*\[?\s*(\d+(?:\.\d+)?)(?:\s*/\s*(\d+))?\s*\]?", re.IGNORECASE)
METRIC = re.compile(rf"\b([A-Za-z][\w/.]*)\s*[:=]\s*(?:tensor\()?({NUM})", re.IGNORECASE)
METRIC_SKIP = re.compile(r"time|^eta$|elapsed|sec\b|speed|throughput|mfu|tok|it/s|samples|mem|"
                         r"epoch|step|iter|batch|update|loss", re.IGNORECASE)  # not metrics


@dataclass
class TextLog:
    """Points read from a console or text log: series name -> [(x, value, epoch)].

    `loss` is the training loss and `val_loss` the validation loss; other names are metrics.
    """

    fmt: str
    x_unit: str
    series: dict[str, list[Point]]
    notes: list[str] = field(default_factory=list)
    lines_read: int = 0

    def losses(self) -> int:
        return len(self.series.get("loss", [])) + len(self.series.get("val_loss", []))


def parse_text_log(text: str) -> TextLog | None:
    """The first format that reads a loss from `text`, or None when none does."""
    lines = clean_lines(text)
    parsers: tuple[Callable[[list[str]], TextLog | None], ...] = (
        parse_keras_console, parse_trainer_dicts, parse_trainer_table, parse_plain_prints)
    for parse in parsers:
        log = parse(lines)
        if log is not None and log.losses():
            skipped = sum(1 for line in lines if line) - log.lines_read
            if skipped > 0:
                log.notes.append(f"read {log.lines_read} lines, skipped {skipped} others "
                                 "(progress bars, warnings, other output)")
            return log
    return None


def clean_lines(text: str) -> list[str]:
    """Split on newlines and carriage returns (progress bars), drop ANSI colours and backspaces."""
    text = ANSI.sub("", text).replace("\x08", "")
    return [line.strip() for line in re.split(r"\r\n|\r|\n", text)]


def number(raw: object) -> float:
    """float(raw), NaN for what is not a number (the Trainer prints numbers as strings)."""
    try:
        return float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return float("nan")


# -- Keras fit() ------------------------------------------------------------------------------
def parse_keras_console(lines: list[str]) -> TextLog | None:
    """Keras fit(): one point per epoch from its last progress line (`57/57 [===] - ... - loss:`).

    Epochs are numbered as Keras prints them (`Epoch 1/3` is epoch 1). A run stopped inside an
    epoch adds its last progress line at the fractional epoch; a log with no finished epoch
    gives the running means of the progress lines per step.
    """
    segments: list[Segment] = []
    read = 0
    for line in lines:
        if m := KERAS_EPOCH.match(line):
            segments.append((int(m.group(1)), []))
            read += 1
            continue
        m = KERAS_BAR.match(line)
        if not m:
            continue
        metrics = {k: number(v) for k, v in KERAS_METRIC.findall(m.group(3))
                   if k.lower() != "eta"}
        if not any(k.endswith("loss") for k in metrics):
            continue
        if not segments:
            segments.append((None, []))
        total = int(m.group(2)) if m.group(2).isdigit() else None
        segments[-1][1].append((int(m.group(1)), total, metrics))
        read += 1
    if not any(recs for _, recs in segments):
        return None
    if not any(r[1] is not None and r[0] == r[1] for _, recs in segments for r in recs) \
            and len(segments) == 1:
        return _keras_steps(segments, read)
    log = TextLog("keras_console", "epoch", {}, lines_read=read)
    epoch = 0.0
    for i, (number_, recs) in enumerate(segments):
        finals = [r for r in recs if r[1] is not None and r[0] == r[1]]
        if number_ is None:  # no `Epoch k/N` header: each finished progress line is an epoch
            for _, _, metrics in finals:
                epoch += 1
                _add_all(log.series, epoch, metrics, epoch)
            continue
        epoch = float(number_)
        if finals or (recs and i < len(segments) - 1):  # an `Unknown` total: the last line
            _add_all(log.series, epoch, (finals or recs)[0 if finals else -1][2], epoch)
        elif recs:
            cur, total, metrics = recs[-1]
            at = epoch - 1 + cur / total if total else epoch
            _add_all(log.series, at, metrics, at)
            log.notes.append(f"epoch {number_} stopped at batch {cur}/{total or '?'}: its last "
                             "point is the running mean of the loss so far")
    if not log.losses():
        return _keras_steps(segments, read)
    return log


def _keras_steps(segments: list[Segment], read: int) -> TextLog:
    log = TextLog("keras_console", "step", {}, lines_read=read, notes=[NO_EPOCH_DONE])
    offset = 0
    for number_, recs in segments:
        for cur, total, metrics in recs:
            epoch = float(number_ or 1) - 1 + cur / (total or cur)
            _add_all(log.series, offset + cur, metrics, epoch)
        offset += max((r[1] or r[0] for r in recs), default=0)
    return log


def _add_all(series: dict[str, list[Point]], x: float, metrics: dict[str, float],
             epoch: float) -> None:
    for key, value in metrics.items():
        series.setdefault(key, []).append((float(x), value, float(epoch)))


# -- Trainer: printed log dicts ---------------------------------------------------------------
def parse_trainer_dicts(lines: list[str]) -> TextLog | None:
    """The Trainer's printed logs: `{'loss': 0.69, 'grad_norm': 1.2, 'learning_rate': 5e-05,
    'epoch': 0.09}` and `{'eval_loss': ..., 'epoch': 1.0}` (numbers or, from transformers 5,
    strings). They carry the epoch, not the step: x is the fractional epoch unless a `step` is
    logged (JSON lines from other loggers)."""
    records: list[dict[str, float]] = []
    read = 0
    for line in lines:
        found = False
        for m in DICT.finditer(line):
            d = _literal_dict(m.group(0))
            if d is None or not ({"loss", "eval_loss"} & d.keys()):
                continue
            records.append({k: number(v) for k, v in d.items() if isinstance(k, str)})
            found = True
        read += found
    if not records:
        return None
    key = next((k for k in ("step", "global_step") if all(k in r for r in records)), None)
    unit = "step" if key else "epoch"
    log = TextLog("trainer_console", unit, {}, lines_read=read)
    for i, r in enumerate(records, 1):
        epoch = r.get("epoch", float("nan"))
        x = r[key] if key else epoch if math.isfinite(epoch) else float(i)
        for name, value in r.items():
            if name in ("loss", "eval_loss"):
                log.series.setdefault("val_loss" if name == "eval_loss" else "loss", []).append(
                    (x, value, epoch))
            elif not TRAINER_SKIP.search(name):
                log.series.setdefault(name, []).append((x, value, epoch))
    if not key:
        log.notes.append("the Trainer's printed logs carry no step: x is the epoch (fractional)")
    return log


def _literal_dict(text: str) -> dict[object, object] | None:
    try:
        d = json.loads(text)
    except ValueError:
        try:
            d = ast.literal_eval(BARE_NONFINITE.sub(r"'\1'", text))
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    return d if isinstance(d, dict) else None


# -- Trainer: notebook table ------------------------------------------------------------------
def parse_trainer_table(lines: list[str]) -> TextLog | None:
    """The Trainer's notebook table, copied as text: a `Step`/`Epoch` column, `Training Loss`
    (`No log` before the first log), `Validation Loss` and the metrics; cells separated by tabs,
    `|` or runs of spaces, or one cell a line."""
    log: TextLog | None = None
    header: list[str] | None = None
    i = 0
    while i < len(lines):
        cells = _cells(lines[i])
        if _is_table_header(cells):
            header = cells
            log = log or TextLog("trainer_table", TABLE_X[cells[0].lower()], {})
            log.lines_read += 1
        elif _stacked_header(lines, i):
            header, rows, i = _stacked_table(lines, i)
            log = _table_rows(log, header, rows)
            log.lines_read += len(header) * (len(rows) + 1)
            header = None
            continue
        elif header and cells and _numeric(cells[0]) and len(cells) >= len(header):
            log = _table_rows(log, header, [cells[:len(header)]])
            log.lines_read += 1
        elif header and cells and not set("".join(cells)) <= set("-: "):
            header = None  # the table ended (a markdown separator row does not end it)
        i += 1
    return log


def _cells(line: str) -> list[str]:
    return [c.strip() for c in TABLE_SPLIT.split(line.strip().strip("|")) if c.strip()]


def _is_table_header(cells: list[str]) -> bool:
    lower = [c.lower() for c in cells]
    return (len(cells) >= 2 and lower[0] in TABLE_X
            and bool({"training loss", "validation loss"} & set(lower)))


def _stacked_header(lines: list[str], i: int) -> bool:
    return (lines[i].lower() in TABLE_X and i + 1 < len(lines)
            and lines[i + 1].lower() in ("training loss", "validation loss"))


def _stacked_table(lines: list[str], i: int) -> tuple[list[str], list[list[str]], int]:
    """A table copied one cell a line: the header names, then rows of as many cells."""
    header: list[str] = []
    while i < len(lines) and lines[i] and not _cell_value(lines[i]):
        header.append(lines[i])
        i += 1
    rows: list[list[str]] = []
    while (i + len(header) <= len(lines) and _numeric(lines[i])
           and all(_cell_value(c) for c in lines[i:i + len(header)])):
        rows.append(lines[i:i + len(header)])
        i += len(header)
    return header, rows, i


def _cell_value(cell: str) -> bool:
    return _numeric(cell) or cell.lower() == "no log"


def _numeric(cell: str) -> bool:
    return bool(re.fullmatch(NUM, cell.strip(), re.IGNORECASE))


def _table_rows(log: TextLog | None, header: list[str], rows: list[list[str]]) -> TextLog:
    unit = TABLE_X[header[0].lower()]
    log = log or TextLog("trainer_table", unit, {})
    for row in rows:
        x = number(row[0])
        for name, cell in zip(header[1:], row[1:]):
            if not _numeric(cell) or TABLE_SKIP.search(name):
                continue  # `No log`: nothing logged yet
            key = {"training loss": "loss", "validation loss": "val_loss"}.get(name.lower(), name)
            epoch = x if unit == "epoch" else math.nan
            log.series.setdefault(key, []).append((x, number(cell), epoch))
    return log


# -- a plain loop's prints --------------------------------------------------------------------
def parse_plain_prints(lines: list[str]) -> TextLog | None:
    """Prints of a hand-written loop: a loss after `loss`/`train loss`/`val loss`..., with the
    step (`step`, `iter`, `batch`...) and the epoch (`epoch 1`, `Epoch [1/10]`) of the line or of
    an earlier `Epoch k` line. Steps that restart each epoch are counted on across epochs."""
    rows: list[Row] = []
    epoch: float | None = None
    for line in lines:
        if not line or TQDM.search(line) or line.startswith(("File \"", "Traceback")):
            continue
        counters = _counters(line)
        epoch = counters.get("epoch", (epoch, None))[0]
        values = _plain_values(line)
        if not ({"loss", "val_loss"} & values.keys()):
            continue
        step, total = counters.get("step", (None, None))
        rows.append((epoch, step, total, values))
    if not rows:
        return None
    log = TextLog("text_log", "step", {}, lines_read=len(rows))
    xs = _plain_x(rows, log)
    for x, (ep, _, _, values) in zip(xs, rows):
        for name, value in values.items():
            log.series.setdefault(name, []).append((x, value, ep if ep is not None else math.nan))
    for name, points in log.series.items():
        log.series[name] = _last_per_x(points)
    return log


def _plain_x(rows: list[Row], log: TextLog) -> list[float]:
    """The step when the lines carry one; else the epoch when each epoch prints one training
    loss; else the count of printed losses."""
    if any(r[1] is not None for r in rows):
        return _global_steps(rows, log.notes)
    train_epochs = [r[0] for r in rows if "loss" in r[3]]
    if all(e is not None for e in train_epochs) and len(set(train_epochs)) == len(train_epochs) \
            and any(r[0] is not None for r in rows):
        log.x_unit = "epoch"
        return [r[0] if r[0] is not None else math.nan for r in rows]
    log.notes.append("the lines carry no step: x counts the printed training losses")
    xs, count = [], 0
    for r in rows:
        count += "loss" in r[3]
        xs.append(float(max(count, 1)))
    return xs


def _counters(line: str) -> dict[str, tuple[float, float | None]]:
    out: dict[str, tuple[float, float | None]] = {}
    for m in COUNTER.finditer(line):
        word = m.group(1).lower()
        kind = "epoch" if word in ("epoch", "ep") else "step"
        out.setdefault(kind, (float(m.group(2)), float(m.group(3)) if m.group(3) else None))
    return out


def _plain_values(line: str) -> dict[str, float]:
    """The losses of a line, then its `name: value`/`name=value` metrics (prefixed `val_` on a
    line that has only a validation loss, as in `val Loss: 0.21 Acc: 0.93`)."""
    values: dict[str, float] = {}
    for name, pattern in (("val_loss", VAL_LOSS), ("loss", TRAIN_LOSS)):
        for m in pattern.finditer(line):
            v = VALUE_AFTER.match(line, m.end())
            if v:
                values[name] = number(v.group(1))
                line = line[:m.start()] + " " * (v.end() - m.start()) + line[v.end():]
                break
    prefix = "val_" if "loss" not in values else ""
    for m in METRIC.finditer(line):
        key = m.group(1).lower()
        if not METRIC_SKIP.search(key):
            key = key if key.startswith(("val", "eval", "test")) else prefix + key
            values.setdefault(key, number(m.group(2)))
    return values


def _global_steps(rows: list[Row], notes: list[str]) -> list[float]:
    """Steps counted across epochs when they restart at each epoch; rows without a step take
    the last step seen."""
    xs: list[float] = []
    offset, last, last_epoch, restarted = 0.0, 0.0, None, False
    for ep, step, total, _ in rows:
        if step is None:
            xs.append(offset + last)
            continue
        if last_epoch is not None and ep is not None and ep != last_epoch and step < last:
            offset += total if total else last
            restarted = True
        last, last_epoch = step, ep if ep is not None else last_epoch
        xs.append(offset + step)
    if restarted:
        notes.append("the step restarts each epoch: x counts steps across epochs")
    return xs


def _last_per_x(points: list[Point]) -> list[Point]:
    """Sorted by x; an x printed twice (a resumed run) keeps its last value."""
    if all(a[0] < b[0] for a, b in pairwise(points)):
        return points
    by_x = {p[0]: p for p in points}
    return [by_x[x] for x in sorted(by_x)]
