"""Diagnose loss curves read from training logs (wizard/checks/curves_read.py reads them).

`read_curves(path)` detects the format and returns `Curves`; `analyse_curves(curves)` returns
findings (curves.summary always, with the loss plot; curves.nan, curves.overfitting,
curves.plateau, curves.spikes, curves.oscillation, curves.divergence when they apply). Thresholds
are the module constants below; wizard/core/catalogue.py documents them.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from wizard.checks.curves_read import (
    FORMAT_LABELS,
    FORMATS,
    Curves,
    Series,
    read_curves,
    read_curves_text,
)
from wizard.core.findings import Finding, Plot
from wizard.errors import LogsError

__all__ = ["FORMATS", "Curves", "LogsError", "Series", "analyse_curves", "probe_curves",
           "read_curves", "read_curves_text"]

# -- thresholds (own heuristics unless the catalogue says otherwise) --------------------------
OVERFIT_MIN_EVAL_POINTS = 4      # evaluations needed before overfitting is judged
OVERFIT_MIN_POINTS_AFTER = 2     # evaluations after the minimum ("sustained")
OVERFIT_MIN_RISE = 0.05          # smoothed val loss ends >= 5 % above its minimum
OVERFIT_LAST_RISE = 0.025        # ... and each of the last two evaluations >= 2.5 % above it
OVERFIT_TRAIN_FALL = 0.02        # train loss at the end >= 2 % below its value at the onset
PLATEAU_MIN_POINTS = 5
PLATEAU_FIRST_HALF_CHANGE = 0.02  # first half of the run stays within 2 % of its start
PLATEAU_TOTAL_DROP = 0.05        # and the whole run never gets 5 % below its start
PLATEAU_NOISY_MIN_POINTS = 8     # noisy runs: the second half's median is < 2.5 % below the
PLATEAU_NOISY_DROP = 0.025       # first's (a steady 5 % fall gives 2.5 %), and that drop
PLATEAU_NOISY_BOUND = 0.10       # + 3 standard errors of the noise is < 10 %
WARMUP_RISE = 1.5                # a learning rate that ends >= 1.5x its start is still warming up
SPIKE_RATIO = 1.5                # a point >= 1.5x the median of both neighbourhoods
SPIKE_ROBUST_Z = 6.0             # and >= 6 robust standard deviations (MAD) above it
SPIKE_WINDOW = 3                 # points on each side for the baseline (at least 2 needed)
SPIKE_SCALE_WINDOW = 10          # points on each side for the noise scale (MAD)
OSC_MIN_POINTS = 17              # fewer: even perfect alternation is within iid noise (z < 3)
OSC_SIGN_CHANGES = 0.85          # >= 85 % of successive differences flip sign
OSC_REL_SWING = 0.1              # median |step-to-step change| >= 10 % of the median loss
OSC_MIN_Z = 3.0                  # and >= 3 sd more turning points than iid noise has (short runs)
DIVERGE_MIN_POINTS = 5           # stretches: the run cut in fifths (at least 2 points each)
DIVERGE_RISE = 0.5               # the last stretch's median >= 1.5x the lowest stretch before it
DIVERGE_LAST_RISE = 0.25         # each point of the last stretch >= 1.25x that lowest level
DIVERGE_Z = 4.0                  # and the rise >= 4 standard errors of the noise
DIVERGENCE_ID = "curves.divergence"
MAX_LISTED = 10


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
    checks = (("overfitting", _overfitting), ("divergence", _divergence), ("plateau", _plateau),
              ("spikes", _spikes), ("oscillation", _oscillation))
    for name, check in checks:
        diverges = name == "plateau" and any(f.id == DIVERGENCE_ID for f in problems)
        result = "the training loss diverges" if diverges else check(curves, train, ev)
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
                            "CSVLogger file, a History .json, a TensorBoard log folder, or the "
                            "console output saved as a .txt/.log file")]


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


def _rel_noise(v: np.ndarray, robust: bool = True) -> float:
    """Relative noise of a loss series (a standard deviation, 0.1 = 10 %) from its second
    differences, in log space when all values are positive, so that smooth trends, exponential
    ones included, do not count as noise. robust: their MAD (spikes do not count); else the larger
    of that and their RMS (a cautious, higher estimate on short runs)."""
    if len(v) < 4:
        return 0.0
    w = np.log(v) if np.all(v > 0) else v / max(float(np.median(np.abs(v))), 1e-12)
    d2 = np.diff(w, 2)
    mad = 1.4826 * float(np.median(np.abs(d2 - np.median(d2))))
    return (mad if robust else max(mad, float(np.sqrt(np.mean(d2 ** 2))))) / math.sqrt(6)


def _warming_up(curves: Curves) -> str | None:
    """Why a flat start is expected: a printed learning rate that is still rising."""
    lr = next((s for k, s in curves.metrics.items() if k.lower() in ("learning_rate", "lr")), None)
    v = np.asarray(lr.values if lr else [], dtype=float)
    v = v[np.isfinite(v)]
    if len(v) >= 3 and v[0] > 0 and v[-1] >= WARMUP_RISE * v[0] and v[-1] >= v.max():
        return f"the learning rate is still warming up ({_r(float(v[0]))} -> {_r(float(v[-1]))})"
    return None


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


def _fix(curves: Curves, trainer: str, keras: str, torch: str = "") -> str:
    if curves.trainer == "trainer":
        return trainer
    if curves.trainer == "keras":
        return keras
    loop = f"\n\n# PyTorch loop\n{torch}" if torch else ""
    return f"# Trainer\n{trainer}\n\n# Keras\n{keras}{loop}"


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
    warming = _warming_up(curves)
    if warming:
        return warming
    v = np.asarray(s.values)
    chunks = np.array([np.median(c) for c in np.array_split(v, min(8, len(v)))])
    start = float(chunks[0])
    if start == 0:
        return None
    half = chunks[: max(2, (len(chunks) + 1) // 2)]
    first_half = float(np.max(np.abs(half - start)) / abs(start))
    drop = float((start - chunks.min()) / abs(start))
    flat = first_half < PLATEAU_FIRST_HALF_CHANGE and drop < PLATEAU_TOTAL_DROP
    noisy = None if flat else _no_decrease(v)
    if not flat and noisy is None:
        return None
    evidence: dict[str, Any] = {
        "series": "train" if s is train else "eval", "points": len(s),
        "start_loss": _r(start), "end_loss": _r(float(chunks[-1])), "min_loss": _r(float(v.min())),
        "first_half_change_pct": _pct(first_half), "total_drop_pct": _pct(drop), **(noisy or {})}
    k = round(math.exp(start)) if start < 7 else 0
    guess = ""
    if 2 <= k <= 1000 and abs(start - math.log(k)) / math.log(k) < 0.01:
        evidence["uniform_guess_classes"] = k
        guess = (f" It sits at ln({k}) = {math.log(k):.4f}, the loss of a uniform guess over "
                 f"{k} classes: the model predicts the same thing for every input.")
    if noisy:
        title = f"The {label} loss does not decrease: nothing is learned"
        change = noisy["half_drop_pct"]
        halves = (f"only {change} % below the first half's (at most {noisy['drop_bound_pct']} % "
                  f"given the noise of {noisy['noise_pct']} % a point)" if change >= 0 else
                  f"{-change} % above the first half's")
        what = (f"The {label} loss does not go down: the median of the second half of the run is "
                f"{halves}, and the first points are no higher than the rest.")
    else:
        title = f"The {label} loss is flat from the start: nothing is learned"
        what = (f"Over the first half of the run the {label} loss stays within "
                f"{_pct(first_half)} % of its start ({_r(start)}), and over the whole run "
                f"it never gets more than {_pct(drop)} % below it.")
    return Finding(
        "curves.plateau", "fail", title, evidence=evidence,
        explanation=(f"{what}{guess} Usual causes: a learning rate far too high (Keras's 'adam' "
                     "means 1e-3) or far too low, labels that do not match the inputs, frozen "
                     "weights, a loss wired to the wrong outputs, or (in a hand-written loop) no "
                     "optimizer.step() or zero_grad() in the wrong place. (A run resumed from an "
                     "already converged model also looks flat; then there is nothing to fix.)"),
        fix=_fix(curves,
                 "args = TrainingArguments(..., learning_rate=5e-5, warmup_steps=100)\n"
                 "# check the batch and overfit one batch: python -m wizard check case.yaml",
                 "import tf_keras\n"
                 "model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5))  # not 'adam' (1e-3)\n"
                 "# check the batch and overfit one batch: python -m wizard check case.yaml",
                 "optimizer.zero_grad(); loss.backward(); optimizer.step()  # all three, each step\n"
                 "optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)"))


def _no_decrease(v: np.ndarray) -> dict[str, Any] | None:
    """A noisy loss that does not go down: its two halves have the same median (within the noise)
    and its first points are not above the rest by more than 5 % + 2 noise sd (a fast early drop
    is learning)."""
    n = len(v)
    if n < PLATEAU_NOISY_MIN_POINTS or np.any(v <= 0):
        return None
    a, b = v[: n // 2], v[n // 2:]
    ma, mb, level = float(np.median(a)), float(np.median(b)), float(np.median(v))
    noise = _rel_noise(v, robust=False)
    drop = (ma - mb) / ma
    bound = drop + 3 * 1.25 * noise * math.sqrt(1 / len(a) + 1 / len(b))
    head = max(float(v[0]), float(np.median(v[:3])))
    if drop >= PLATEAU_NOISY_DROP or bound >= PLATEAU_NOISY_BOUND or \
            head > level * math.exp(PLATEAU_TOTAL_DROP + 2 * noise):
        return None
    return {"half_drop_pct": _pct(drop), "drop_bound_pct": _pct(bound), "noise_pct": _pct(noise)}


def _divergence(curves: Curves, train: Series, ev: Series) -> Finding | None | str:
    if len(train) < DIVERGE_MIN_POINTS:
        return f"needs {DIVERGE_MIN_POINTS} finite training losses, has {len(train)}"
    v = np.asarray(train.values, dtype=float)
    parts = np.array_split(np.arange(len(v)), len(v) // max(2, len(v) // 5))
    meds = np.array([np.median(v[p]) for p in parts])
    j = int(np.argmin(meds[:-1]))
    best, end, last = float(meds[j]), float(meds[-1]), v[parts[-1]]
    if best <= 0:
        return None
    noise = _rel_noise(v, robust=False)
    se = 1.25 * noise * math.sqrt(1 / len(parts[j]) + 1 / len(last))
    ratio = end / best
    if not (ratio >= 1 + DIVERGE_RISE and last.min() >= best * (1 + DIVERGE_LAST_RISE)
            and math.log(ratio) >= DIVERGE_Z * se):
        return None
    i = int(parts[j][np.argmin(v[parts[j]])])
    where = _where(curves, train, i)
    return Finding(
        DIVERGENCE_ID, "fail",
        f"The training loss diverges: after {where} it climbs to {ratio:.3g}x its lowest level",
        evidence={"onset_x": _fmt_x(train.x[i]), "x_unit": curves.x_unit,
                  "lowest_loss": _r(best), "last_loss": _r(end), "ratio": round(ratio, 2),
                  "points_after": len(v) - 1 - i, "first_loss": _r(float(v[0])),
                  "noise_pct": _pct(noise),
                  "_marks": [{"x": _fmt_x(train.x[i]), "label": f"divergence ({where})",
                              "color": "#d62728"}]},
        explanation=(f"After {where} the training loss goes up instead of down: the median of "
                     f"the last {len(last)} points ({_r(end)}) is {ratio:.3g}x the lowest stretch "
                     f"of the run ({_r(best)}), far beyond the point-to-point noise. The updates "
                     "are too large: a learning rate too high (or no warmup), exploding gradients "
                     "without clipping, or fp16 overflow. A diverging loss usually ends in NaN."),
        fix=_fix(curves,
                 "args = TrainingArguments(..., learning_rate=2e-5, warmup_steps=100, max_grad_norm=1.0)",
                 "import tf_keras\n"
                 "model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5, clipnorm=1.0))",
                 "optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)  # lower: /3 to /10\n"
                 "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # after backward()"))


def _spikes(curves: Curves, train: Series, ev: Series) -> Finding | None | str:
    found: list[dict[str, Any]] = []
    judged = 0
    for label, s in (("train", train), ("eval", ev)):
        v = np.asarray(s.values)
        if len(v) < 2 * 2 + 1:
            continue
        judged += 1
        noise = _rel_noise(v)
        for i in range(2, len(v) - 2):
            left, right = v[max(0, i - SPIKE_WINDOW):i], v[i + 1:i + 1 + SPIKE_WINDOW]
            ref = max(float(np.median(left)), float(np.median(right)))
            nb = np.concatenate([v[max(0, i - SPIKE_SCALE_WINDOW):i], v[i + 1:i + 1 + SPIKE_SCALE_WINDOW]])
            mad = max(1.4826 * float(np.median(np.abs(nb - np.median(nb)))), noise * ref)
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
        turns = int(np.sum(signs[1:] != signs[:-1]))
        flips = turns / (len(signs) - 1)
        m = len(signs) + 1  # turning points of m iid values: mean 2(m-2)/3, var (16m-29)/90
        z = (turns - 2 * (m - 2) / 3) / math.sqrt((16 * m - 29) / 90)
        level = float(np.median(np.abs(v)))
        swing = float(np.median(np.abs(d)))
        rel = swing / level if level else 0.0
        if flips >= OSC_SIGN_CHANGES and rel >= OSC_REL_SWING and z >= OSC_MIN_Z:
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
    last = {k: [v for v in m.values if math.isfinite(v)] for k, m in curves.metrics.items()}
    if last:
        ev["metrics_last"] = {k: _r(v[-1]) if v else None for k, v in list(last.items())[:MAX_LISTED]}
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
