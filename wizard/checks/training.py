"""Training-dynamics probes: overfit one batch, gradient flow, embeddings, loss/output wiring.

The framework work (train steps, gradients, hidden states) lives in wizard/backends/tf_train.py
and torch_train.py; this module holds the framework-free data, the rules and the findings, so
the live callbacks (wizard/callbacks.py) judge their snapshots with the same rules.
Thresholds are the module constants below; wizard/core/catalogue.py documents their sources.
"""
from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from wizard.backends import tf_train, torch_train
from wizard.backends.train_types import (
    BELOW_PRIOR_RATIO,
    DEAD_FRACTION,
    EMBED_SAMPLES,
    EXPLODE_RATIO,
    FULLY_DEAD,
    HIST_LAYERS,
    KNOWN_GOOD_LR_LARGE,
    KNOWN_GOOD_LR_SMALL,
    OVERFIT_FLAT_RATIO,
    OVERFIT_PASS_RATIO,
    OVERFIT_STEPS,
    OVERFIT_STEPS_PLAIN,
    PROB_TOL,
    SMALL_MODEL_PARAMS,
    VANISH_FIRST,
    VANISH_RATIO,
    GradientSnapshot,
    LayerGrad,
    LiveSetup,
    OptimizerChoice,
    Target,
    TrainRun,
    layer_key,
)
from wizard.checks.adapter_overfit import full_model_run, judge_adapter_overfit
from wizard.checks.hyperparameters import effective_learning_rate, lr_fix
from wizard.context import Batch
from wizard.core.findings import Finding, Plot
from wizard.core.optimizer import parse_optimizer


# == gradient rules ============================================================================
def judge_gradients(snap: GradientSnapshot, framework: str = "pytorch",
                    where: str = "after one backward pass") -> list[Finding]:
    """vanishing / exploding / dead units / no gradient on one snapshot (fail/warn or pass)."""
    findings: list[Finding] = []
    body = [l for l in snap.layers if l.kind != "embedding" and l.params > 0]
    table = _layer_table(snap.layers)
    fix_frozen = _unfreeze_fix(framework)
    # -- no gradient ------------------------------------------------------------------------
    if snap.trainable_params == 0:
        findings.append(Finding(
            "training.no-gradient", "fail", "The model has no trainable parameters: it is frozen",
            evidence={"trainable_params": 0, "frozen_params": snap.frozen_params},
            explanation="Every parameter is frozen (requires_grad=False / trainable=False), so no "
                        "optimizer step can change anything and the loss cannot fall.",
            fix=fix_frozen))
    elif snap.no_grad:
        everything = not snap.layers or all(l.params == 0 for l in snap.layers)
        modules = sorted({layer_key(n) for n in snap.no_grad})
        findings.append(Finding(
            "training.no-gradient", "fail" if everything else "warn",
            ("No parameter gets a gradient from the loss" if everything else
             f"{len(snap.no_grad)} trainable parameters get no gradient ({', '.join(modules[:4])}"
             f"{', ...' if len(modules) > 4 else ''})"),
            evidence={"parameters": snap.no_grad[:20], "count": len(snap.no_grad),
                      "layers": modules[:20], "trainable_params": snap.trainable_params},
            explanation=("The loss does not depend on any trainable weight: Keras says 'No "
                         "gradients provided for any variable'. The loss is computed from "
                         "something that is not the model's output (labels inside the inputs "
                         "with a compile() loss, a detached tensor, a loss on the inputs)."
                         if everything else
                         "These parameters are trainable but not used on the way to the loss, "
                         "so they never change: an unused head or pooler, a branch the forward "
                         "skips, or a tensor detached with .detach()/.numpy()/stop_gradient."),
            fix=("model.compile(optimizer=optimizer)  # Keras: let the model use its own loss\n"
                 "# PyTorch: compute the loss from model(**batch).logits, without .detach()"
                 if everything else
                 "# freeze them on purpose (saves memory) or use them in forward:\n"
                 + ("for name, p in model.named_parameters():\n    if p.grad is None:\n"
                    "        p.requires_grad_(False)" if framework == "pytorch" else
                    "layer.trainable = False  # then model.compile(...) again"))))
    else:
        findings.append(Finding("training.no-gradient", "pass",
                                "Every trainable parameter gets a gradient",
                                evidence={"trainable_params": snap.trainable_params,
                                          "frozen_params": snap.frozen_params}))
    # -- exploding --------------------------------------------------------------------------
    pair = rule_layers(body)
    ratio = None
    if pair and pair[1].mean_abs > 0 and math.isfinite(pair[1].mean_abs):
        ratio = pair[0].mean_abs / pair[1].mean_abs
    nonfinite = [l for l in snap.layers if l.nonfinite]
    ev_ratio = {"first_layer": pair[0].name if pair else None,
                "last_layer": pair[1].name if pair else None,
                "first_mean_abs": _r(pair[0].mean_abs) if pair else None,
                "last_mean_abs": _r(pair[1].mean_abs) if pair else None,
                "first_over_last": _r(ratio) if ratio is not None else None, "where": where,
                "layers": table}
    if snap.loss is not None and not math.isfinite(snap.loss) or nonfinite:
        findings.append(Finding(
            "training.exploding-gradients", "fail",
            (f"Gradients are NaN/Inf in {len(nonfinite)} of {len(snap.layers)} layers "
             f"(first: {_short_name(nonfinite[0].name)})" if nonfinite else
             f"The loss is {snap.loss} {where}, so every gradient is too"),
            evidence={**ev_ratio, "nonfinite_layers": [l.name for l in nonfinite][:20],
                      "loss": None if snap.loss is None or not math.isfinite(snap.loss)
                      else _r(snap.loss), "step": snap.step},
            explanation="Non-finite gradients turn every weight they touch into NaN at the next "
                        "optimizer step. Usual causes: a learning rate too high (the weights "
                        "grew until the activations overflowed), fp16 overflow, log/sqrt/"
                        "division of zero in a custom loss, or labels outside the classes.",
            fix=_clip_fix(framework)))
    elif ratio is not None and ratio > EXPLODE_RATIO:
        findings.append(Finding(
            "training.exploding-gradients", "warn",
            f"Gradients grow towards the input: the first layer's are {ratio:.0f}x the last "
            "layer's",
            evidence=ev_ratio,
            explanation=f"Mean |gradient| of {pair[0].name} is {ratio:.0f}x that of "
                        f"{pair[1].name} (above {EXPLODE_RATIO:g}x): each layer multiplies the "
                        "backward signal by more than 1, so the first layers get huge updates. "
                        "Lower the learning rate, clip the gradient norm, use normalisation "
                        "layers or a smaller initialisation.",
            fix=_clip_fix(framework)))
    else:
        findings.append(Finding("training.exploding-gradients", "pass",
                                "No exploding gradients", evidence=ev_ratio))
    # -- vanishing --------------------------------------------------------------------------
    first_dead = bool(pair) and pair[0].zero_fraction >= DEAD_FRACTION  # dead-units says it
    if (ratio is not None and pair and not first_dead and ratio < VANISH_RATIO
            and pair[0].mean_abs < VANISH_FIRST):
        findings.append(Finding(
            "training.vanishing-gradients", "warn",
            (f"Vanishing gradients: the first layer's are {1 / ratio:.0f}x smaller than the "
             "last layer's" if ratio > 0 else
             "Vanishing gradients: the first layer's gradients are all zero"),
            evidence=ev_ratio,
            explanation=f"Mean |gradient| falls from {_r(pair[1].mean_abs)} at {pair[1].name} "
                        f"to {_r(pair[0].mean_abs)} at {pair[0].name} (ratio {_r(ratio)} < "
                        f"{VANISH_RATIO:g}, first layer < {VANISH_FIRST:g}): the early layers "
                        "barely learn. Saturating activations (sigmoid, tanh) in a deep stack "
                        "are the classic cause; ReLU/GELU, residual connections, normalisation "
                        "layers and a proper initialisation fix it.",
            fix=_vanish_fix(framework)))
    elif ratio is not None and not first_dead:
        findings.append(Finding("training.vanishing-gradients", "pass",
                                "No vanishing gradients", evidence=ev_ratio))
    # -- dead units -------------------------------------------------------------------------
    dead = [l for l in body if l.zero_fraction >= DEAD_FRACTION]
    if dead:
        worst = max(dead, key=lambda l: l.zero_fraction)
        findings.append(Finding(
            "training.dead-units", "fail" if worst.zero_fraction >= FULLY_DEAD else "warn",
            f"Dead units: {len(dead)} layer{'s' if len(dead) > 1 else ''} with >= "
            f"{DEAD_FRACTION:.0%} exactly-zero gradients (worst {_short_name(worst.name)}: "
            f"{worst.zero_fraction:.0%})",
            evidence={"layers": [{"layer": l.name, "zero_fraction": round(l.zero_fraction, 3),
                                  "dead_units": l.dead_units, "units": l.units} for l in dead],
                      "threshold": DEAD_FRACTION, "where": where},
            explanation="A ReLU unit whose input is negative for every sample outputs 0 and "
                        "passes back exactly 0: its weights never change again. Too-large "
                        "learning rates, large negative biases or a bad initialisation kill "
                        "them; LeakyReLU/GELU, a lower learning rate or re-initialising help.",
            fix=_dead_fix(framework)))
    elif body:
        findings.append(Finding("training.dead-units", "pass",
                                f"No layer has >= {DEAD_FRACTION:.0%} zero gradients",
                                evidence={"max_zero_fraction": round(max(
                                    l.zero_fraction for l in body), 3)}))
    return findings


_BLOCK = re.compile(r"^(.*)\.(\d+)$|^(.*_\._)(\d+)$")  # torch `layer.3`, TF `layer_._3`


def rule_layers(body: list[LayerGrad]) -> tuple[LayerGrad, LayerGrad] | None:
    """The first and last layer the ratio rules compare: the first and last block of the
    longest numbered stack (`encoder.layer.0` .. `encoder.layer.11`: a freshly initialised
    head is left out, its gradients are larger by construction), else the first and last
    non-embedding layers."""
    stacks: dict[str, list[LayerGrad]] = {}
    for l in body:
        m = _BLOCK.match(l.name)
        if m:
            stacks.setdefault(m.group(1) or m.group(3), []).append(l)
    best = max(stacks.values(), key=len, default=[])
    if len(best) >= 2 and len(best) < len(body):
        return best[0], best[-1]
    return (body[0], body[-1]) if len(body) >= 2 else None


def gradient_flow_finding(snap: GradientSnapshot, after: GradientSnapshot | None = None,
                          after_label: str = "") -> Finding:
    """Info: the per-layer bars (mean |grad|, log scale) and the per-layer histograms."""
    layers = [l for l in snap.layers if l.params > 0]
    flagged = _flagged(snap)
    labels = [_short_name(l.name) for l in layers]
    series: dict[str, Any] = {"labels": labels}
    if after is not None:
        by_name = {l.name: l for l in after.layers}
        series["step 0"] = [_plot_value(l.mean_abs) for l in layers]
        series[after_label or "after training"] = [
            _plot_value(by_name[l.name].mean_abs) if l.name in by_name else None for l in layers]
    else:
        series["values"] = [_plot_value(l.mean_abs) for l in layers]
        series["colors"] = ["#d62728" if l.name in flagged else "#1f77b4" for l in layers]
    bars = Plot(name="gradient-flow", title="Mean |gradient| per layer (input → output)",
                kind="bar", series=series, ylabel="mean |gradient|", log_y=True)
    plots = [bars]
    shown = _spread([l for l in layers if l.sample], HIST_LAYERS)
    if shown:
        plots.append(Plot(name="gradient-histograms",
                          title="Gradient distribution per layer (log10 |gradient|)",
                          kind="hist", series={_short_name(l.name): l.sample for l in shown},
                          x={"bins": 30}, xlabel="log10 |gradient|", ylabel="values"))
    pair = rule_layers([l for l in layers if l.kind != "embedding"])
    title = (f"Gradient flow over {len(layers)} layers" if layers else
             "No gradient flows: no layer gets a gradient")
    if pair and pair[1].mean_abs > 0:
        title += (f": mean |gradient| of {_short_name(pair[0].name)} / "
                  f"{_short_name(pair[1].name)} = {_r(pair[0].mean_abs / pair[1].mean_abs)}")
    return Finding(
        "training.gradient-flow", "info", title,
        evidence={"layers": _layer_table(snap.layers), "loss": _r(snap.loss),
                  "trainable_params": snap.trainable_params, "frozen_params": snap.frozen_params,
                  **({"after": _layer_table(after.layers), "after_label": after_label}
                     if after is not None else {})},
        explanation="Read the bars from right (output) to left (input): in a healthy network "
                    "they stay within a few orders of magnitude of each other, and the "
                    "histograms of the layers have similar spreads. A first layer ~1000x below "
                    "the last means vanishing gradients; bars that grow towards the input mean "
                    "exploding ones. Embedding layers are sparse (only the tokens in the batch "
                    "get a gradient) and are left out of the rules.",
        plots=plots)


def _flagged(snap: GradientSnapshot) -> set[str]:
    body = [l for l in snap.layers if l.kind != "embedding" and l.params > 0]
    out = {l.name for l in body if l.zero_fraction >= DEAD_FRACTION or l.nonfinite}
    pair = rule_layers(body)
    if pair and pair[1].mean_abs > 0:
        out |= {l.name for l in body if l.mean_abs < VANISH_FIRST
                and l.mean_abs / pair[1].mean_abs < VANISH_RATIO}
    return out


def _layer_table(layers: list[LayerGrad]) -> list[dict[str, Any]]:
    rows = []
    for l in layers:
        row: dict[str, Any] = {"layer": l.name, "kind": l.kind, "params": l.params,
                               "mean_abs": _r(l.mean_abs), "norm": _r(l.norm),
                               "zero_fraction": round(l.zero_fraction, 3)}
        if l.nonfinite:
            row["nonfinite"] = l.nonfinite
        if l.sample:
            row["log10_abs_p5_p50_p95"] = [round(float(v), 2) for v in
                                           np.percentile(l.sample, [5, 50, 95])]
        rows.append(row)
    return rows


def _spread(items: list[Any], n: int) -> list[Any]:
    if len(items) <= n:
        return items
    idx = sorted({round(i * (len(items) - 1) / (n - 1)) for i in range(n)})
    return [items[i] for i in idx]


def _short_name(name: str) -> str:
    if name.isdigit():
        return f"layer {name}"
    parts = name.split(".")
    return ".".join(parts[-2:]) if len(parts) > 2 else name


def _plot_value(v: float) -> float | None:
    return float(v) if math.isfinite(v) and v > 0 else None


# == overfit one batch =========================================================================
def known_good(trainable_params: int, transformers: bool = True) -> OptimizerChoice:
    """The comparison run: Adam at a rate calibrated on the model's size."""
    lr = KNOWN_GOOD_LR_SMALL if trainable_params < SMALL_MODEL_PARAMS else KNOWN_GOOD_LR_LARGE
    size = "small" if lr == KNOWN_GOOD_LR_SMALL else "pretrained-size"
    return OptimizerChoice("Adam", {}, lr, f"known-good for a {size} model "
                                           f"({trainable_params:,} trainable parameters)")


def judge_overfit(user: TrainRun, good: TrainRun | None, framework: str, trainer: str,
                  batch_info: dict[str, Any], steps: int, loss_note: str = "") -> Finding:
    """The verdict of the overfit-one-batch test, relative to each run's initial loss.
    `loss_note`: how the user's loss differs from the known-good run's (empty: the same)."""
    plot = _overfit_plot(user, good)
    ev: dict[str, Any] = {"steps": steps, "batch": batch_info,
                          "your_run": _run_evidence(user),
                          "known_good_run": _run_evidence(good) if good else None,
                          "pass_if_final_below": f"{OVERFIT_PASS_RATIO:.0%} of the initial loss"}
    if user.error:
        return Finding(
            "training.cannot-overfit-batch", "skip",
            "Training on one batch raises an error, so the overfit test cannot run",
            evidence={**ev, "error": user.error},
            explanation=f"A training step on the first batch raised {user.error}. Fix that "
                        "first (the data and model checks name its cause), then overfit again.",
            plots=[plot])
    final = _r(user.final) if user.final is not None else None
    user_desc = f"{_r(user.initial)} → {final if final is not None else 'NaN'}"
    if user.learnt:
        return Finding(
            "training.overfit-batch", "info",
            f"The model overfits one batch with your settings ({user_desc} in "
            f"{len(user.losses)} steps)",
            evidence=ev,
            explanation="Trained on one batch only, the loss must fall towards its minimum: "
                        "the model, the labels and the optimizer can learn. (The course: "
                        "`model.fit(batch, epochs=20)` must reach a near-zero loss.)",
            plots=[plot])
    good_desc = (f"{good.optimizer} ({_r(good.initial)} → {_r(good.final)})" if good
                 else "a known-good optimizer")
    if user.trainable_params == 0:
        points, status = "frozen", "fail"
        title = "Cannot overfit one batch: the model has no trainable parameters"
        explanation = ("Every parameter is frozen, so the loss stays where it starts "
                       f"({user_desc}). Unfreeze the model (or the layers you mean to train).")
        fix = _unfreeze_fix(framework)
    elif good is not None and comparison_learns(good, batch_info):
        points = "learning-rate" if not loss_note else "learning-rate-or-loss"
        higher = (user.learning_rate is not None and good.learning_rate is not None
                  and user.learning_rate > good.learning_rate)
        status = "fail" if (user.diverged or higher) and not loss_note else "warn"
        way = ("diverges" if user.diverged else "stays where it starts"
               if (user.ratio or 1) >= OVERFIT_FLAT_RATIO else "falls too slowly")
        side = ("too high (the updates are unstable)" if user.diverged else "too high" if higher
                else "too low for this model and step budget")
        title = (f"Cannot overfit one batch with your settings: the loss {way} ({user_desc}); "
                 f"{good.optimizer} learns it")
        reach = (f"below {OVERFIT_PASS_RATIO:.0%} of its start" if good.learnt else
                 f"well below the entropy of the batch's labels "
                 f"({_r(batch_info.get('label_entropy'))})")
        explanation = (f"With {user.optimizer} the loss of one repeated batch {way} in "
                       f"{len(user.losses)} steps, while {good_desc} brings it {reach}: the "
                       "model and the data can learn. ")
        if loss_note:
            explanation += (f"Two things differ from the known-good run: the optimizer, and the "
                            f"loss ({loss_note}); look at the loss first. ")
        if user.learning_rate is not None:
            explanation += (f"Your learning rate ({user.learning_rate:g}) looks {side} next to "
                            f"{good.learning_rate:g}. ")
        explanation += ("(The course: Adam's default 1e-3 is too high for a pretrained "
                        "transformer; 1e-5..1e-4 is the usual range.)")
        fix = _lr_fix(framework, trainer, good.learning_rate or KNOWN_GOOD_LR_LARGE)
    elif good is not None and good.error:
        points, status = "unknown", "warn"
        title = (f"Cannot overfit one batch with your settings ({user_desc}); the known-good "
                 "comparison could not run")
        explanation = (f"With {user.optimizer} the loss of one repeated batch does not fall far "
                       f"in {len(user.losses)} steps. The comparison run with {good.optimizer} "
                       f"raised {good.error}, so whether the learning rate or the data is the "
                       "cause is not known.")
        fix = _lr_fix(framework, trainer, good.learning_rate or KNOWN_GOOD_LR_LARGE)
    else:
        points, status = "data", "fail"
        stuck = batch_info.get("label_entropy")
        near_prior = (stuck is not None and user.final is not None and math.isfinite(user.final)
                      and abs(user.final - stuck) <= 0.15 * max(stuck, 1e-6))
        title = ("Cannot overfit one batch, even with a known-good optimizer: look at the data "
                 "and the loss")
        explanation = (f"Neither your settings ({user_desc}) nor {good_desc} can fit one batch, "
                       "so the learning rate is not the problem. A model that cannot memorise "
                       "one batch is fed something that does not determine the labels: labels "
                       "shuffled or misaligned with the inputs, empty or truncated texts, "
                       "identical inputs with different labels, or a loss wired to the wrong "
                       "outputs.")
        if near_prior:
            explanation += (f" The loss ends at {_r(user.final)}, the entropy of this batch's "
                            f"labels ({_r(stuck)}): the model only learns how often each label "
                            "occurs, nothing from the inputs.")
        if batch_info.get("conflicting_duplicates"):
            explanation += (f" {batch_info['conflicting_duplicates']} groups of identical inputs "
                            "carry different labels.")
        fix = _data_fix(framework)
    ev["points_to"] = points
    return Finding("training.cannot-overfit-batch", status, title, evidence=ev,
                   explanation=explanation, fix=fix, plots=[plot])


def comparison_learns(good: TrainRun, batch_info: dict[str, Any]) -> bool:
    """Whether the known-good run shows that the model and the data can learn: it passes the
    overfit test, or, for multi-hot labels, its loss ends well below the labels' entropy (the
    loss of predicting only how often each label occurs). One binary target per class makes a
    batch of 16 rows 64 targets to memorise, which a small model does not do in the bounded
    steps though its loss falls steadily. Single-label batches keep the plain bar: a small
    network memorising shuffled labels also ends near 74 % of their entropy."""
    if good.learnt:
        return True
    prior = batch_info.get("label_entropy") if batch_info.get("multi_hot") else None
    final = good.final
    return (not good.error and prior is not None and prior > 0 and final is not None
            and math.isfinite(final) and final <= BELOW_PRIOR_RATIO * prior)


def _run_evidence(run: TrainRun | None) -> dict[str, Any] | None:
    if run is None:
        return None
    return {"optimizer": run.optimizer, "learning_rate": run.learning_rate,
            "initial_loss": _r(run.initial), "final_loss": _r(run.final),
            "final_over_initial": _r(run.ratio) if run.ratio is not None else None,
            "steps_run": len(run.losses), "seconds": round(run.seconds, 2),
            "stopped": run.stopped, "error": run.error,
            "losses": [_r(v) for v in run.losses]}


def _overfit_plot(user: TrainRun, good: TrainRun | None) -> Plot:
    series: dict[str, list[float | None]] = {}
    for run in (user, good):
        if run is not None and run.losses:
            series[f"{run.label}: {run.optimizer}"] = [v if math.isfinite(v) else None
                                                       for v in run.losses]
    finite = [v for vals in series.values() for v in vals if v is not None and v > 0]
    log_y = bool(finite) and max(finite) / min(finite) > 50
    return Plot(name="overfit-batch", title="Overfitting one batch: training loss per step",
                kind="line", series=series, xlabel="step", ylabel="loss", log_y=log_y)


def batch_info(batch: Any) -> dict[str, Any]:
    """Labels of the batch: their entropy (the loss of predicting only the label frequencies)
    and groups of identical inputs with different labels."""
    info: dict[str, Any] = {"size": len(batch.indices)}
    labels = batch.labels
    if labels is None:
        return info
    labels = np.asarray(labels)
    if labels.ndim == 2 and labels.shape[1] > 1 and labels.dtype.kind in "fiub" and \
            labels.size and float(labels.min()) >= 0 and float(labels.max()) <= 1:
        rows = labels.astype(np.float64)
        p = np.clip(rows.mean(axis=0), 1e-12, 1 - 1e-12)
        if np.allclose(rows.sum(axis=1), 1.0):  # one-hot (or soft) single-label targets
            entropy = -(p * np.log(p)).sum()
        else:  # multi-hot: one binary target per class, the loss their mean
            entropy = -(p * np.log(p) + (1 - p) * np.log(1 - p)).mean()
            info["multi_hot"] = True
        info["label_entropy"] = round(float(entropy), 4)
    if labels.ndim == 1 and labels.dtype.kind in "iu":
        ok = labels[labels >= 0]
        if ok.size:
            _, counts = np.unique(ok, return_counts=True)
            p = counts / counts.sum()
            info["label_entropy"] = round(float(-(p * np.log(p)).sum()), 4)
            info["labels"] = labels.tolist()[:64]
        key = next((k for k in ("input_ids", "x", "inputs") if k in batch.inputs), None)
        if key is not None:
            rows = np.asarray(batch.inputs[key]).reshape(len(labels), -1)
            groups: dict[bytes, set[int]] = {}
            for row, lab in zip(rows, labels):
                groups.setdefault(row.tobytes(), set()).add(int(lab))
            info["conflicting_duplicates"] = sum(1 for g in groups.values() if len(g) > 1)
    return info


# == embeddings ================================================================================
def pca_2d(points: np.ndarray) -> tuple[np.ndarray, list[float]]:
    """Project onto the first two principal components; returns (n x 2, explained ratios)."""
    x = points.astype(np.float64)
    x = x - x.mean(axis=0, keepdims=True)
    _, s, vt = np.linalg.svd(x, full_matrices=False)
    k = min(2, vt.shape[0])
    proj = x @ vt[:k].T
    if k < 2:
        proj = np.hstack([proj, np.zeros((len(x), 2 - k))])
    var = s ** 2
    total = float(var.sum()) or 1.0
    return proj, [round(float(v / total), 4) for v in var[:2]]


def silhouette(points: np.ndarray, labels: np.ndarray) -> float | None:
    """Mean silhouette coefficient (Euclidean), in numpy; None with fewer than 2 classes."""
    labels = np.asarray(labels)
    classes = np.unique(labels)
    if len(classes) < 2 or len(labels) < 3:
        return None
    x = points.astype(np.float64)
    d = np.sqrt(np.maximum(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1), 0))
    scores = np.zeros(len(x))
    for i in range(len(x)):
        own = labels == labels[i]
        if own.sum() < 2:
            continue
        a = d[i, own].sum() / (own.sum() - 1)
        b = min(d[i, labels == c].mean() for c in classes if c != labels[i])
        scores[i] = 0.0 if max(a, b) == 0 else (b - a) / max(a, b)
    return float(scores.mean())


def nearest_centroid_accuracy(points: np.ndarray, labels: np.ndarray) -> float | None:
    """Leave-one-out accuracy of a nearest-class-mean classifier on the embeddings."""
    labels = np.asarray(labels)
    classes = np.unique(labels)
    if len(classes) < 2:
        return None
    x = points.astype(np.float64)
    sums = {c: x[labels == c].sum(0) for c in classes}
    counts = {c: int((labels == c).sum()) for c in classes}
    right = 0
    for i in range(len(x)):
        best, best_d = None, float("inf")
        for c in classes:
            n = counts[c] - (1 if c == labels[i] else 0)
            if n == 0:
                continue
            mean = (sums[c] - (x[i] if c == labels[i] else 0)) / n
            dist = float(((x[i] - mean) ** 2).sum())
            if dist < best_d:
                best, best_d = c, dist
        right += int(best == labels[i])
    return right / len(x)


def embedding_finding(points: np.ndarray, labels: np.ndarray | None, pooling: str,
                      label_names: list[str] | None = None, other: dict[str, Any] | None = None
                      ) -> Finding:
    proj, explained = pca_2d(points)
    ev: dict[str, Any] = {"samples": int(len(points)), "dim": int(points.shape[1]),
                          "pooling": pooling, "pca_explained_variance": explained}
    if labels is None:
        series: dict[str, Any] = {"x": proj[:, 0].round(4).tolist(), "y": proj[:, 1].round(4).tolist(),
                                  "label": "samples"}
        title = f"Embeddings of {len(points)} samples (no labels to colour by)"
    else:
        labels = np.asarray(labels)
        series = {}
        for c in np.unique(labels):
            m = labels == c
            name = (label_names[int(c)] if label_names and 0 <= int(c) < len(label_names)
                    else str(c))
            series[name] = {"x": proj[m, 0].round(4).tolist(), "y": proj[m, 1].round(4).tolist()}
        sil = silhouette(points, labels)
        acc = nearest_centroid_accuracy(points, labels)
        _, counts = np.unique(labels, return_counts=True)
        ev.update({"silhouette": _r(sil) if sil is not None else None,
                   "nearest_centroid_accuracy": round(acc, 3) if acc is not None else None,
                   "majority_share": round(float(counts.max() / counts.sum()), 3),
                   "classes": int(len(counts))})
        if other:
            ev["other_pooling"] = other
        title = (f"Embeddings of {len(points)} samples: silhouette {_r(sil)}, nearest-centroid "
                 f"accuracy {acc:.0%} (majority {counts.max() / counts.sum():.0%})"
                 if sil is not None and acc is not None else
                 f"Embeddings of {len(points)} samples")
    plot = Plot(name="embeddings", title=f"PCA of the {pooling} embeddings, coloured by label",
                kind="scatter", series=series,
                xlabel=f"PC1 ({explained[0]:.0%})" if explained else "PC1",
                ylabel=f"PC2 ({explained[1]:.0%})" if len(explained) > 1 else "PC2")
    return Finding(
        "training.embeddings", "info", title, evidence=ev,
        explanation="The model's representation of each sample, projected on its two main "
                    "directions. Classes that form separate clouds are what the classifier head "
                    "can use; one mixed cloud (silhouette near 0, nearest-centroid accuracy "
                    "near the majority share) means the representation does not yet separate "
                    "the labels. Before fine-tuning that is normal; after it, it is not.",
        plots=[plot])


# == loss vs output wiring =====================================================================
def output_kind(values: np.ndarray, activation: str | None = None) -> str:
    """'probabilities', 'sigmoid', 'log-probabilities' or 'logits': from the final activation
    when the architecture shows it (`activation`: softmax, sigmoid, log_softmax, linear), else
    from the values (rows summing to 1). Values alone never say 'sigmoid': small raw logits
    also lie in [0, 1]."""
    named = {"softmax": "probabilities", "sigmoid": "sigmoid", "log_softmax": "log-probabilities",
             "linear": "logits"}
    if activation in named:
        return named[activation]
    v = np.asarray(values, dtype=np.float64)
    if v.ndim == 1:
        v = v[:, None]
    v = v.reshape(v.shape[0], -1) if v.ndim > 2 else v
    if not np.isfinite(v).all() or v.size == 0:
        return "unknown"
    if v.shape[1] > 1 and (v >= 0).all() and np.allclose(v.sum(1), 1.0, atol=PROB_TOL):
        return "probabilities"
    if v.shape[1] > 1 and (v <= 0).all() and np.allclose(np.exp(v).sum(1), 1.0, atol=PROB_TOL):
        return "log-probabilities"
    return "logits"


def judge_loss_output(kind: str, expects: str | None, loss_name: str, framework: str,
                      evidence: dict[str, Any]) -> Finding | None:
    """A loss that expects logits fed probabilities (or the reverse)."""
    if expects is None or kind == "unknown":
        return None
    ok = {"logits": {"logits"}, "probabilities": {"probabilities", "sigmoid"},
          "log-probabilities": {"log-probabilities"}}[expects]
    ev = {**evidence, "output_kind": kind, "loss": loss_name, "loss_expects": expects}
    if kind in ok or (expects == "probabilities" and kind == "sigmoid"):
        return Finding("training.loss-output-mismatch", "pass",
                       f"The loss ({loss_name}) gets the {expects} it expects", evidence=ev)
    if expects == "logits":
        why = ("The model already applies softmax/sigmoid, and the loss applies it again "
               "(from_logits=True / CrossEntropyLoss): the probabilities are squashed into a "
               "narrow range, the gradients shrink and learning stalls near the start.")
        fix = ("# Keras: drop the output activation, keep from_logits=True\n"
               "tf_keras.layers.Dense(num_classes)  # no activation='softmax'\n"
               "# PyTorch: remove the final nn.Softmax; CrossEntropyLoss applies log-softmax")
    elif expects == "probabilities":
        why = ("The model outputs raw logits but the loss treats them as probabilities "
               "(Keras losses default to from_logits=False; BCELoss needs sigmoid outputs): "
               "values are clipped into [1e-7, 1], the loss is wrong and its gradients too.")
        fix = ("import tf_keras\nmodel.compile(optimizer=optimizer,\n"
               "              loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))\n"
               "# PyTorch: nn.BCEWithLogitsLoss() instead of nn.BCELoss()")
    else:
        why = ("NLLLoss expects log-probabilities (log_softmax outputs), but the model outputs "
               f"{kind}: the loss is unbounded below and training runs away.")
        fix = "loss_fn = torch.nn.CrossEntropyLoss()  # takes logits; or add nn.LogSoftmax(dim=-1)"
    return Finding("training.loss-output-mismatch", "fail",
                   f"The loss {loss_name} expects {expects} but the model outputs {kind}",
                   evidence=ev, explanation=why, fix=fix)


# == the probes ================================================================================
def training_backend(framework: str) -> Any:
    if framework == "tensorflow":

        return tf_train

    return torch_train


def target_for(case: Any, ctx: Any) -> Target:
    """The model, batch and loss wiring of the case (or of the live objects)."""
    live: LiveSetup | None = getattr(ctx, "live", None)
    batch = ctx.batch
    if live is not None:
        loss = live.loss
        plain = live.plain
    else:
        loss = case.training.loss if case.framework == "tensorflow" else None
        plain = False
    return Target(case.framework, ctx.model, batch, loss=loss,
                  from_logits=case.training.from_logits, transformers=not plain)


def user_optimizer(case: Any, ctx: Any) -> OptimizerChoice:
    """The optimizer the user's run builds: live instance, TrainingArguments, or the case."""

    live: LiveSetup | None = getattr(ctx, "live", None)
    be = training_backend(case.framework)
    if live is not None and live.optimizer is not None and not isinstance(live.optimizer, (str, dict)):
        return be.choice_from_instance(live.optimizer)
    if live is not None and live.training_args is not None:
        return trainer_choice(live.training_args)
    if case.framework == "pytorch" and case.trainer == "trainer":
        lr = case.training.learning_rate or 5e-5
        return OptimizerChoice("AdamW", {"weight_decay": case.training.weight_decay,
                                         "betas": (0.9, 0.999), "eps": 1e-8}, lr,
                               "Trainer's default AdamW", clip_norm=1.0)
    raw = live.optimizer if live is not None and live.optimizer is not None else case.training.optimizer
    spec = parse_optimizer(raw)
    try:
        defaults = ctx.backend.optimizer_defaults(spec.name)
    except Exception:
        defaults = {}
    lr, source = effective_learning_rate(case, spec, defaults)
    kwargs = {k: v for k, v in spec.kwargs.items() if k not in ("lr", "learning_rate")}
    name = defaults.get("class", spec.name).split(".")[-1] if defaults else spec.name
    return OptimizerChoice(name, kwargs, lr, source)


def trainer_choice(args: Any) -> OptimizerChoice:
    """What Trainer builds from TrainingArguments (AdamW, weight decay, clipping)."""
    optim = str(getattr(getattr(args, "optim", ""), "value", getattr(args, "optim", "adamw")))
    name = "SGD" if "sgd" in optim else "Adagrad" if "adagrad" in optim else "AdamW"
    kwargs: dict[str, Any] = {"weight_decay": float(getattr(args, "weight_decay", 0.0))}
    if name == "AdamW":
        kwargs.update(betas=(float(args.adam_beta1), float(args.adam_beta2)),
                      eps=float(args.adam_epsilon))
    clip = float(getattr(args, "max_grad_norm", 0.0) or 0.0)
    return OptimizerChoice(name, kwargs, float(args.learning_rate),
                           f"TrainingArguments(optim={optim!r})", clip_norm=clip or None)


def _runs(ctx: Any) -> dict[str, Any]:
    return ctx.scratch.setdefault("training_runs", {})


def _steps(ctx: Any) -> int:
    live: LiveSetup | None = getattr(ctx, "live", None)
    if live is not None and live.steps:
        return int(live.steps)
    return OVERFIT_STEPS_PLAIN if live is not None and live.plain else OVERFIT_STEPS


def user_run(case: Any, ctx: Any) -> TrainRun:
    """The user's optimizer on one batch (cached per context: the overfit and gradient probes
    share it)."""
    cache = _runs(ctx)
    if "user" not in cache:
        target = target_for(case, ctx)
        choice = user_optimizer(case, ctx)
        cache["user"] = training_backend(case.framework).train_run(target, choice, _steps(ctx),
                                                           "your settings")
    return cache["user"]


def good_run(case: Any, ctx: Any, trainable: int) -> TrainRun:
    cache = _runs(ctx)
    if "good" not in cache:
        target = target_for(case, ctx)
        if target.transformers and own_loss_fits(case.framework, ctx.batch):
            target.loss = None  # the model's own loss: known-good wiring
        choice = known_good(trainable, target.transformers)
        if not target.transformers:
            choice = OptimizerChoice("Adam", {}, KNOWN_GOOD_LR_SMALL, "known-good for a plain "
                                     "network")
        cache["good"] = training_backend(case.framework).train_run(target, choice, _steps(ctx),
                                                           "known-good")
    return cache["good"]


def own_loss_fits(framework: str, batch: Any) -> bool:
    """Whether the model's own loss fits the batch's labels. transformers' TF models compute a
    single-label cross-entropy whatever `problem_type` says, so multi-hot labels need the
    user's Keras loss (BinaryCrossentropy) in the known-good run too."""
    labels = getattr(batch, "labels", None)
    if framework != "tensorflow" or labels is None:
        return True
    labels = np.asarray(labels)
    return not (labels.ndim == 2 and labels.shape[1] > 1
                and not np.allclose(labels.astype(np.float64).sum(axis=1), 1.0))


def probe_overfit(case: Any, ctx: Any) -> list[Finding]:
    """Overfit the first batch with the user's optimizer and with a known-good one."""
    user = user_run(case, ctx)
    good = None
    if not user.error and not user.learnt and user.trainable_params > 0:
        good = good_run(case, ctx, user.trainable_params)
    elif not user.error and user.learnt:
        good = None  # nothing to compare: the user's settings already learn the batch
    target = target_for(case, ctx)
    note = ""
    if target.transformers and target.loss is not None and own_loss_fits(case.framework, ctx.batch):
        note = f"your loss {_loss_label(target.loss)} instead of the model's own loss"
    found = judge_overfit(user, good, case.framework, case.trainer, batch_info(ctx.batch),
                          _steps(ctx), note)
    if case.adapter.active and case.framework == "pytorch" and good is not None \
            and not good.learnt and not good.error and not user.diverged:
        # an adapter may fall too slowly for the test: the whole model under the same budget
        every = sum(p.numel() for p in target.model.parameters())
        full = full_model_run(target, known_good(every), _steps(ctx))
        adapter = judge_adapter_overfit(user, good, full, _steps(ctx), found.evidence)
        if adapter is not None:
            adapter.plots = found.plots
            return [adapter]
    return [found]


def _loss_label(loss: Any) -> str:
    if isinstance(loss, str):
        return repr(loss)
    return getattr(loss, "__name__", None) or type(loss).__name__


def probe_gradients(case: Any, ctx: Any) -> list[Finding]:
    """Per-layer gradients after one backward pass, and after the user's optimizer has run."""
    target = target_for(case, ctx)
    be = training_backend(case.framework)
    try:
        snap = be.gradient_snapshot(target)
    except Exception as exc:  # the framework's own error is the evidence
        return [Finding("training.gradient-flow", "skip",
                        "Gradients cannot be computed on the first batch",
                        evidence={"error": f"{type(exc).__name__}: {str(exc)[:300]}"},
                        explanation="The backward pass on the first batch raised; the data and "
                                    "model checks name the usual causes.")]
    findings = judge_gradients(snap, case.framework)
    run = user_run(case, ctx) if snap.trainable_params else None
    after = run.final_snapshot if run is not None and not run.error else None
    label = f"after {len(run.losses)} steps of {run.optimizer}" if after is not None else ""
    if after is not None:
        later = judge_gradients(after, case.framework, where=label)
        findings = _merge_exploding(findings, later, run)
    findings.append(gradient_flow_finding(snap, after, label))
    return findings


def _merge_exploding(first: list[Finding], later: list[Finding], run: TrainRun) -> list[Finding]:
    """Exploding gradients that appear only after the user's optimizer has run replace the
    step-0 pass (a too-high learning rate shows there, not at step 0)."""
    bad_later = next((f for f in later if f.id == "training.exploding-gradients"
                      and f.status in ("fail", "warn")), None)
    if bad_later is None and run.diverged and any(not math.isfinite(v) for v in run.losses):
        i = next(i for i, v in enumerate(run.losses) if not math.isfinite(v))
        bad_later = Finding(
            "training.exploding-gradients", "fail",
            f"The loss becomes non-finite at step {i} of {run.optimizer}",
            evidence={"step": i, "losses": [_r(v) for v in run.losses[:i + 1]],
                      "optimizer": run.optimizer},
            explanation="The updates grow until the loss overflows: the learning rate is too "
                        "high for this model (or fp16 overflows). Lower it and clip the gradient "
                        "norm.", fix="")
    if bad_later is None:
        return first
    bad_later.evidence["optimizer_run"] = run.optimizer
    out = [f for f in first if f.id != "training.exploding-gradients" or f.status != "pass"]
    if not any(f.id == "training.exploding-gradients" for f in out):
        out.append(bad_later)
    return out


def probe_embeddings(case: Any, ctx: Any) -> list[Finding]:
    """PCA of the model's pooled representation of a sample, coloured by label."""
    target = target_for(case, ctx)
    be = training_backend(case.framework)
    batches = _embedding_batches(case, ctx)
    result = be.pooled_embeddings(target, batches)
    if result is None:
        return [Finding("training.embeddings", "skip",
                        "This model exposes no hidden states to project",
                        explanation="Neither output_hidden_states nor the input of its last "
                                    "layer could be read.")]
    pooled, labels = result
    names = None
    try:
        names = ctx.label_names
    except Exception:
        pass
    pick = "first-token" if "first-token" in pooled and _cls_first(ctx) else "mean"
    if pick not in pooled:
        pick = next(iter(pooled))
    other = {}
    for k, v in pooled.items():
        if k != pick and labels is not None:
            s = silhouette(v, labels)
            other[k] = {"silhouette": _r(s) if s is not None else None}
    return [embedding_finding(pooled[pick], labels, pick, names, other)]


def _cls_first(ctx: Any) -> bool:
    """True when the inputs start with the tokenizer's [CLS] (the head reads the first token)."""
    try:
        ids = ctx.batch.inputs.get("input_ids")
        cls_id = getattr(ctx.tokenizer, "cls_token_id", None)
        return ids is not None and cls_id is not None and bool((np.asarray(ids)[:, 0] == cls_id).all())
    except Exception:
        return False


def _embedding_batches(case: Any, ctx: Any) -> list[Any]:
    """Up to EMBED_SAMPLES samples, batched like the first batch."""

    first = ctx.batch
    if not ctx.is_loaded("tokenized") and getattr(ctx, "live", None) is not None:
        return [first]
    try:
        split = ctx.tokenized[case.dataset.train_split]
        tok = ctx.tokenizer
    except Exception:
        return [first]
    from transformers import DataCollatorWithPadding

    n = min(EMBED_SAMPLES, len(split))
    keys = [k for k in first.inputs if k in split.column_names and k != first.label_key]
    label_col = case.dataset.label_column
    collate = DataCollatorWithPadding(tok, return_tensors="np")
    size = max(1, case.training.batch_size)
    out = []
    for start in range(0, n, size):
        rows = split.select(range(start, min(n, start + size)))
        feats = [{k: r[k] for k in keys} for r in rows]
        arrays = {k: np.asarray(v) for k, v in collate(feats).items()}
        labels = np.asarray(rows[label_col]) if label_col in rows.column_names else None
        out.append(Batch(arrays, labels, False, None, list(range(start, start + len(rows)))))
    return out


def probe_loss_output(case: Any, ctx: Any) -> list[Finding]:
    """softmax outputs with from_logits=True / CrossEntropyLoss, logits with a probability loss."""
    target = target_for(case, ctx)
    if (case.framework == "tensorflow" and target.transformers and ctx.batch.labels_in_inputs
            and case.training.loss):
        return []  # data.labels-in-inputs-with-keras-loss reports this wiring (the course's fault)
    be = training_backend(case.framework)
    info = be.loss_expectation(target)
    if info is None:
        return []
    expects, loss_name = info
    values, activation = be.raw_outputs(target)
    kind = output_kind(values, activation)
    v = np.asarray(values, dtype=np.float64)
    ev = {"final_activation": activation, "output_min": _r(float(v.min())),
          "output_max": _r(float(v.max())),
          "row_sums_first": [_r(float(s)) for s in v.reshape(len(v), -1).sum(1)[:4]]}
    found = judge_loss_output(kind, expects, loss_name, case.framework, ev)
    return [found] if found else []


# -- fixes ------------------------------------------------------------------------------------
def _unfreeze_fix(framework: str) -> str:
    if framework == "tensorflow":
        return ("model.trainable = True  # or: for layer in model.layers: layer.trainable = True\n"
                "model.compile(optimizer=optimizer)  # compile again after changing trainable")
    return "for p in model.parameters():\n    p.requires_grad_(True)"


def _clip_fix(framework: str) -> str:
    if framework == "tensorflow":
        return ("import tf_keras\nmodel.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5, "
                "clipnorm=1.0))")
    return ("torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)  # before optimizer.step()\n"
            "# Trainer: TrainingArguments(..., learning_rate=2e-5, max_grad_norm=1.0)")


def _vanish_fix(framework: str) -> str:
    if framework == "tensorflow":
        return ("tf_keras.layers.Dense(units, activation=\"relu\", kernel_initializer=\"he_normal\")\n"
                "# between blocks: tf_keras.layers.LayerNormalization() / BatchNormalization()")
    return ("torch.nn.Sequential(torch.nn.Linear(d, d), torch.nn.ReLU(), torch.nn.LayerNorm(d), ...)"
            "  # not Sigmoid/Tanh\n"
            "torch.nn.init.kaiming_normal_(layer.weight, nonlinearity=\"relu\")")


def _dead_fix(framework: str) -> str:
    if framework == "tensorflow":
        return ("tf_keras.layers.Dense(units, activation=tf_keras.layers.LeakyReLU(0.01))\n"
                "model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=1e-4))")
    return ("torch.nn.LeakyReLU(0.01)  # or nn.GELU() instead of nn.ReLU()\n"
            "torch.nn.init.zeros_(layer.bias)  # not large negative biases; and a lower lr")


def _lr_fix(framework: str, trainer: str, lr: float) -> str:
    return lr_fix(framework, trainer, lr, restart=False,
                  note="  # overfits one batch here; a pretrained transformer: try 1e-5..1e-4")


def _data_fix(framework: str) -> str:
    return ("for i in range(4):  # do the inputs determine the labels?\n"
            "    print(tokenizer.decode(batch[\"input_ids\"][i]), \"->\", batch[\"labels\"][i])\n"
            "# then: one batch through the model, its loss by hand (the course's checks)")


def _r(v: Any, digits: int = 4) -> Any:
    if v is None:
        return None
    v = float(v)
    return float(f"{v:.{digits}g}") if math.isfinite(v) else None


