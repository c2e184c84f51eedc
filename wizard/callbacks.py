"""Callbacks that watch a real run: a Keras callback for fit() and a TrainerCallback.

    from wizard.callbacks import WizardKerasCallback, WizardTrainerCallback
    model.fit(train_ds, callbacks=[WizardKerasCallback(report_dir="wizard-report")])
    Trainer(..., callbacks=[WizardTrainerCallback(report_dir="wizard-report")])

They record the loss of every step, the first non-finite loss or gradient (with its step and
the batch that caused it) and per-layer gradient snapshots every `grad_every` steps; at the
first fault and at the end they turn the record into the wizard's findings (the curves
analysis and the gradient rules) and, with `report_dir`, write the same report as
`python -m wizard check`. Importing this module imports no framework: the classes are built
on first access.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from wizard.backends.tf_train import group_stats, variable_name
from wizard.backends.torch_train import snapshot_from_grads
from wizard.checks.curves import Curves, Series, analyse_curves
from wizard.checks.training import gradient_flow_finding, judge_gradients
from wizard.core.case import Case, DatasetSpec, Training
from wizard.core.findings import Finding
from wizard.engine.session import Result
from wizard.engine.verdict import decide
from wizard.evidence.environment import environment_info
from wizard.reports.render import write_reports

GRAD_EVERY = 50       # a per-layer gradient snapshot every 50 optimizer steps (and at step 1)
CHECK_EVERY = 10      # PyTorch: losses and gradient norms are read back every 10 steps
MAX_CURVE_POINTS = 2000
BATCH_ROWS_SHOWN = 4

__all__ = ["WizardKerasCallback", "WizardTrainerCallback", "RunRecorder"]


class RunRecorder:
    """The framework-free record of a live run, and its findings."""

    def __init__(self, framework: str, trainer: str, tokenizer: Any = None,
                 model_name: str = "", report_dir: str | Path | None = None):
        self.framework = framework
        self.trainer = trainer
        self.tokenizer = tokenizer
        self.model_name = model_name
        self.report_dir = Path(report_dir) if report_dir else None
        self.steps: list[float] = []
        self.losses: list[float] = []
        self.epochs: list[float] = []
        self.eval_steps: list[float] = []
        self.eval_losses: list[float] = []
        self.eval_epochs: list[float] = []
        self.snapshots: list[Any] = []   # GradientSnapshot, with .step
        self.fault: dict[str, Any] | None = None
        self.settings: dict[str, Any] = {}
        self.reports: list[str] = []

    # -- recording ------------------------------------------------------------------------------
    def add_loss(self, step: float, value: float, epoch: float | None = None) -> None:
        self.steps.append(float(step))
        self.losses.append(float(value))
        self.epochs.append(float(epoch) if epoch is not None else float("nan"))

    def add_eval(self, step: float, value: float, epoch: float | None = None) -> None:
        self.eval_steps.append(float(step))
        self.eval_losses.append(float(value))
        self.eval_epochs.append(float(epoch) if epoch is not None else float("nan"))

    def add_snapshot(self, snap: Any) -> None:
        self.snapshots.append(snap)

    def set_fault(self, kind: str, step: int, value: float | None, epoch: float | None,
                  batch: dict[str, np.ndarray] | None, **detail: Any) -> bool:
        """Record the first fault; False when one is already recorded."""
        if self.fault is not None:
            return False
        self.fault = {"kind": kind, "step": int(step), "epoch": epoch,
                      "value": None if value is None or math.isfinite(value) else str(value),
                      "batch": batch_evidence(batch, self.tokenizer) if batch else None,
                      **detail}
        return True

    # -- findings -------------------------------------------------------------------------------
    def findings(self) -> list[Finding]:
        out: list[Finding] = []
        if self.fault:
            out.append(self._fault_finding())
        out += self._curve_findings()
        if self.snapshots:
            out += self._gradient_findings(judge_gradients)
            first, last = self.snapshots[0], self.snapshots[-1]
            flow = gradient_flow_finding(first, last if last is not first else None,
                                         f"step {last.step}")
            flow.evidence["snapshot_steps"] = [s.step for s in self.snapshots]
            out.append(flow)
        return out

    def _gradient_findings(self, judge: Any) -> list[Finding]:
        """The rules on the last snapshot (the state the run ended in); a non-finite gradient
        in any snapshot wins for exploding gradients. Each finding lists the snapshot steps
        where its rule fired, so a transient blip is visible without being the verdict."""
        judged = [(snap.step, judge(snap, self.framework, where=f"at step {snap.step}"))
                  for snap in self.snapshots]
        flagged: dict[str, list[int]] = {}
        first_nonfinite = None
        for step, found in judged:
            for f in found:
                if f.status in ("fail", "warn"):
                    flagged.setdefault(f.id, []).append(step)
                if (f.id == "training.exploding-gradients" and f.status == "fail"
                        and first_nonfinite is None):
                    first_nonfinite = f
        final = judged[-1][1]
        if first_nonfinite is not None:
            final = [first_nonfinite if f.id == first_nonfinite.id else f for f in final]
        for f in final:
            f.evidence["snapshot_steps_flagged"] = flagged.get(f.id, [])
        return final

    def _fault_finding(self) -> Finding:
        f = self.fault or {}
        what = "loss" if f["kind"] == "loss" else "gradient norm"
        where = f"step {f['step']}" + (f" (epoch {f['epoch']:g})" if isinstance(
            f.get("epoch"), (int, float)) and math.isfinite(f["epoch"]) else "")
        last = [v for v in self.losses if math.isfinite(v)]
        evidence = {**{k: v for k, v in f.items() if v is not None},
                    "last_finite_loss": round(last[-1], 6) if last else None}
        fix = ("args = TrainingArguments(..., learning_rate=2e-5, max_grad_norm=1.0, bf16=True)"
               if self.trainer == "trainer" else
               "import tf_keras\nmodel.compile(optimizer=tf_keras.optimizers.Adam("
               "learning_rate=5e-5, clipnorm=1.0))")
        return Finding(
            "training.non-finite-step", "fail",
            f"The {what} first became {f.get('value') or 'non-finite'} at {where}",
            evidence=evidence,
            explanation=f"Step {f['step']} produced a non-finite {what}; from there the weights "
                        "are NaN and nothing more is learned. The batch of that step is in the "
                        "evidence: look for samples with labels outside the classes, empty or "
                        "extreme inputs. Without a bad sample the usual causes are a learning "
                        "rate too high (gradients grow before the NaN), fp16 overflow, or a "
                        "log/sqrt/division of zero in a custom loss.",
            fix=fix)

    def _curve_findings(self) -> list[Finding]:
        if not self.losses and not self.eval_losses:
            return []
        x, v, e = _thin(self.steps, self.losses, self.epochs)
        curves = Curves(Series(x, v, e, name="loss"),
                        Series(self.eval_steps, self.eval_losses, self.eval_epochs,
                               name="eval_loss"),
                        "step", "trainer_state" if self.trainer == "trainer" else "keras_history",
                        path="(recorded by the wizard callback)",
                        trainer="trainer" if self.trainer == "trainer" else "keras")
        found = analyse_curves(curves)
        for f in found:
            if f.id == "curves.summary":
                f.evidence["format"] = "live run"
                f.title = f.title.rsplit(" from ", 1)[0] + " recorded by the wizard callback"
                for p in f.plots:
                    p.title = "Loss curves (recorded by the wizard callback)"
        return found

    # -- the report -----------------------------------------------------------------------------
    def result(self) -> Any:
        findings = self.findings()
        training = Training(trainer=self.trainer if self.trainer in ("keras", "trainer") else None,
                            **{k: v for k, v in self.settings.items()
                               if k in ("learning_rate", "batch_size", "epochs", "weight_decay")})
        case = Case(model=self.model_name or "(live model)", framework=self.framework,
                    dataset=DatasetSpec(path="(live run)"), training=training,
                    symptom="nan-loss" if self.fault else "not-sure",
                    notes="Recorded by the wizard callback during a real run.")
        return Result(case, environment_info(), self.settings.get("device", "cpu"), ["callback"],
                      findings, decide(case, findings))

    def write_report(self, out_dir: str | Path | None = None) -> list[Path]:
        out = Path(out_dir) if out_dir else self.report_dir
        if out is None:
            return []
        paths = write_reports(self.result(), out)
        self.reports = [str(p) for p in paths]
        return paths

    def safe_report(self) -> None:
        """write_report() from inside a run: a problem here must never stop the training."""
        if self.report_dir is None:
            return
        try:
            self.write_report()
        except Exception as exc:  # reported, not raised: the user's run goes on
            import warnings

            warnings.warn(f"wizard: could not write the report to {self.report_dir}: "
                          f"{type(exc).__name__}: {exc}", RuntimeWarning, stacklevel=2)


def _thin(x: list[float], v: list[float], e: list[float]) -> tuple[list[float], list[float], list[float]]:
    """At most MAX_CURVE_POINTS points: bin means, a bin with a non-finite value stays NaN."""
    n = len(v)
    if n <= MAX_CURVE_POINTS:
        return list(x), list(v), list(e)
    edges = np.linspace(0, n, MAX_CURVE_POINTS + 1).astype(int)
    xs, vs, es = [], [], []
    arr = np.asarray(v, dtype=float)
    for a, b in zip(edges[:-1], edges[1:]):
        if b <= a:
            continue
        chunk = arr[a:b]
        xs.append(float(x[b - 1]))
        vs.append(float(chunk.mean()) if np.isfinite(chunk).all() else float("nan"))
        es.append(float(e[b - 1]))
    return xs, vs, es


def batch_evidence(batch: dict[str, np.ndarray], tokenizer: Any = None) -> dict[str, Any]:
    """Shapes, labels and the first rows (decoded when a tokenizer is given) of a batch."""
    ev: dict[str, Any] = {"keys": {k: list(np.shape(v)) for k, v in batch.items()}}
    labels = next((np.asarray(batch[k]) for k in ("labels", "label", "y") if k in batch), None)
    if labels is not None:
        ev["labels"] = labels.reshape(-1)[:64].tolist()
    for k, v in batch.items():
        arr = np.asarray(v)
        if arr.dtype.kind == "f" and arr.ndim >= 1:
            bad = np.flatnonzero(~np.isfinite(arr.reshape(len(arr), -1)).all(axis=1))
            if bad.size:
                ev.setdefault("rows_with_non_finite_values", {})[k] = bad[:20].tolist()
    ids = batch.get("input_ids", batch.get("x"))
    if ids is not None:
        arr = np.asarray(ids)
        rows = []
        for i in range(min(BATCH_ROWS_SHOWN, len(arr))):
            row: dict[str, Any] = {"row": i}
            if tokenizer is not None and arr.dtype.kind in "iu":
                row["decoded"] = tokenizer.decode(arr[i], skip_special_tokens=True)[:300]
            else:
                flat = arr[i].reshape(-1)
                row["values"] = [round(float(t), 4) for t in flat[:16]]
                if arr.dtype.kind == "f":
                    row["non_finite"] = int((~np.isfinite(flat)).sum())
            rows.append(row)
        ev["rows"] = rows
    return ev


# == Keras =======================================================================================
def _keras_callback_class() -> type:
    import os

    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    import tensorflow as tf
    import tf_keras


    class WizardKerasCallback(tf_keras.callbacks.Callback):
        """Watches model.fit(): per-step loss, the first non-finite loss or gradient with
        its batch, per-layer gradient snapshots every `grad_every` optimizer steps.

        It wraps the optimizer's apply_gradients and the model's train_step for the run
        (both are restored at the end), so the gradients it sees are the ones fit() applies.
        """

        def __init__(self, grad_every: int = GRAD_EVERY, report_dir: str | Path | None = None,
                     stop_on_fault: bool = False, tokenizer: Any = None,
                     capture_batch: bool = True):
            super().__init__()
            self.grad_every = max(1, int(grad_every))
            self.stop_on_fault = stop_on_fault
            self.capture_batch = capture_batch
            self.recorder = RunRecorder("tensorflow", "keras", tokenizer, report_dir=report_dir)
            self._step = 0
            self._epoch = 0
            self._prev = (0, 0.0)  # (batches so far in the epoch, running mean)
            self._installed = False

        # -- installing the probes -----------------------------------------------------------
        def on_train_begin(self, logs: Any = None) -> None:
            model = self.model
            self.recorder.model_name = getattr(getattr(model, "config", None), "_name_or_path",
                                               "") or model.name
            self.recorder.settings["epochs"] = self.params.get("epochs")
            if getattr(model, "optimizer", None) is None:
                return
            lr = getattr(model.optimizer, "learning_rate", None)
            try:
                self.recorder.settings["learning_rate"] = float(lr)
            except (TypeError, ValueError):
                pass
            self._install(model)

        def _install(self, model: Any) -> None:
            opt = model.optimizer
            variables = list(model.trainable_variables)
            self._names = [variable_name(model, v) for v in variables]
            self._shapes = [tuple(v.shape) for v in variables]
            index = {id(v): i for i, v in enumerate(variables)}
            n = len(variables)
            self._stats = tf.Variable(tf.zeros([max(n, 1), 5]), trainable=False)
            self._snap_at = tf.Variable(tf.constant(-1, tf.int64), trainable=False)
            self._grad_bad = tf.Variable(False, trainable=False)
            self._first_bad = tf.Variable(tf.constant(-1, tf.int64), trainable=False)
            self._captured = tf.Variable(False, trainable=False)
            self._batch: dict[str, np.ndarray] | None = None
            self._seen_snap = -1
            every = self.grad_every
            original_apply = opt.apply_gradients
            cb = self

            def apply_gradients(grads_and_vars: Any, *args: Any, **kwargs: Any) -> Any:
                pairs = list(grads_and_vars)
                bad = tf.constant(False)
                watched = _watched(pairs, index)
                if watched:  # NaN/Inf in the sum <=> NaN/Inf in these gradients
                    total = tf.add_n([tf.reduce_sum(tf.cast(_dense_values(g), tf.float32))
                                      for g in watched])
                    bad = tf.logical_not(tf.math.is_finite(total))
                    cb._grad_bad.assign(bad)
                step = tf.cast(opt.iterations, tf.int64) + 1
                if watched:  # the first step with a non-finite gradient, kept for the read-back
                    cb._first_bad.assign(tf.where(tf.logical_and(bad, cb._first_bad < 0), step,
                                                  cb._first_bad))

                def snapshot() -> Any:
                    rows = [tf.zeros([5])] * max(n, 1)
                    for g, v in pairs:
                        if g is not None and id(v) in index:
                            rows[index[id(v)]] = _stats_row(g, v)
                    cb._stats.assign(tf.stack(rows))
                    cb._snap_at.assign(step)
                    return tf.constant(True)

                due = tf.logical_or(tf.equal(step % every, 0), tf.equal(step, 1))
                tf.cond(tf.logical_or(due, bad), snapshot, lambda: tf.constant(False))
                return original_apply(pairs, *args, **kwargs)

            original_step = model.train_step

            def train_step(data: Any) -> Any:
                logs = original_step(data)
                if not cb.capture_batch or getattr(model, "_jit_compile", False):
                    return logs
                loss = logs.get("loss") if isinstance(logs, dict) else None
                bad = cb._grad_bad if loss is None else tf.logical_or(
                    cb._grad_bad, tf.logical_not(tf.math.is_finite(tf.cast(loss, tf.float32))))
                flat = [t for t in tf.nest.flatten(data) if t is not None]

                def capture() -> Any:
                    tf.py_function(lambda *ts: cb._store(data, ts), flat, Tout=[])
                    cb._captured.assign(True)
                    return tf.constant(True)

                tf.cond(tf.logical_and(bad, tf.logical_not(cb._captured)), capture,
                        lambda: tf.constant(False))
                return logs

            self._originals = (opt, model)
            opt.apply_gradients = apply_gradients
            model.train_step = train_step
            model.train_function = model.make_train_function(force=True)
            self._installed = True

        def _store(self, structure: Any, tensors: Any) -> None:
            arrays = [np.asarray(t) for t in tensors]
            names = _flat_names(structure)
            self._batch = {name: a for name, a in zip(names, arrays)}

        def _uninstall(self) -> None:
            if not self._installed:
                return
            opt, model = self._originals
            for obj, attr in ((opt, "apply_gradients"), (model, "train_step")):
                if attr in obj.__dict__:
                    object.__delattr__(obj, attr)
            model.train_function = None  # the next fit() builds a clean one
            self._installed = False

        # -- per step -------------------------------------------------------------------------
        def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
            self._epoch = epoch
            self._prev = (0, 0.0)

        def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
            logs = logs or {}
            k = batch + 1
            mean = logs.get("loss")
            if mean is None:
                return
            mean = float(mean)
            k0, m0 = self._prev
            value = (k * mean - k0 * m0) / (k - k0) if k > k0 else mean
            if not math.isfinite(mean):
                value = mean
            self._prev = (k, mean)
            self._step += k - k0 if k > k0 else 1
            epoch = self._epoch + k / max(1, self.params.get("steps") or k)
            self.recorder.add_loss(self._step, value, epoch)
            if not self._installed:
                if not math.isfinite(value):
                    self._fault("loss", value, epoch)
                return
            # the device is read back only when a snapshot is due, every CHECK_EVERY steps
            # and at a non-finite loss: most steps cost no read at all
            due = self._step == 1 or self._step % self.grad_every == 0
            if due or self._step % CHECK_EVERY == 0 or not math.isfinite(value):
                self._read_back(value, epoch)

        def _read_back(self, value: float, epoch: float) -> None:
            snap_at = int(self._snap_at.numpy())
            if snap_at != self._seen_snap and snap_at > 0:
                self._seen_snap = snap_at
                snap = group_stats(self._names, self._shapes, self._stats.numpy())
                snap.step = snap_at
                snap.trainable_params = int(sum(np.prod(s) for s in self._shapes))
                snap.loss = value
                self.recorder.add_snapshot(snap)
            first_bad = int(self._first_bad.numpy())
            if not math.isfinite(value) and (first_bad < 0 or first_bad >= self._step):
                self._fault("loss", value, epoch)
            elif first_bad > 0:  # the loss of that step was finite: the epoch it was logged at
                rec = self.recorder
                at = next((e for s, e in zip(rec.steps, rec.epochs) if s == first_bad), epoch)
                self._fault("gradient", float("nan"), at, step=first_bad)

        def _fault(self, kind: str, value: float, epoch: float, step: int | None = None) -> None:
            if self.recorder.set_fault(kind, step or self._step, value, round(epoch, 3),
                                       self._batch):
                self.recorder.safe_report()
                if self.stop_on_fault:
                    self.model.stop_training = True

        def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
            val = (logs or {}).get("val_loss")
            if val is not None:
                self.recorder.add_eval(self._step, float(val), epoch + 1)

        def on_train_end(self, logs: Any = None) -> None:
            if self._installed and self.recorder.losses:
                self._read_back(self.recorder.losses[-1], self.recorder.epochs[-1])
            self._uninstall()
            self.recorder.safe_report()

        # -- results --------------------------------------------------------------------------
        def findings(self) -> list[Finding]:
            return self.recorder.findings()

        def result(self) -> Any:
            return self.recorder.result()

        def write_report(self, out_dir: str | Path) -> list[Path]:
            return self.recorder.write_report(out_dir)

    def _watched(pairs: list[Any], index: dict[int, int]) -> list[Any]:
        """The gradients checked at every step: those of the first two and the last two
        variables (input and output side). A NaN/Inf that arises anywhere in the backward
        pass flows down to the input-side gradients, and a non-finite loss reaches the
        output side, so these few sums catch it at the step it happens, at a fraction of
        the cost of summing every gradient (the other variables are checked in each
        snapshot)."""
        ranked = sorted(((index[id(v)], g) for g, v in pairs if g is not None and id(v) in index),
                        key=lambda t: t[0])
        grads = [g for _, g in ranked]
        return grads if len(grads) <= 4 else grads[:2] + grads[-2:]

    def _dense_values(g: Any) -> Any:
        return g.values if isinstance(g, tf.IndexedSlices) else g

    def _stats_row(g: Any, v: Any) -> Any:
        """[sum |g|, sum g^2, max |g|, zeros, non-finite]; sparse gradients count the rows
        they do not touch as zeros."""
        values = tf.cast(_dense_values(g), tf.float32)
        a = tf.abs(values)
        size = tf.cast(tf.size(v), tf.float32)
        nonzero = tf.cast(tf.math.count_nonzero(values), tf.float32)
        return tf.stack([tf.reduce_sum(a), tf.reduce_sum(values * values),
                         tf.reduce_max(a), size - nonzero,
                         tf.cast(tf.math.count_nonzero(tf.logical_not(tf.math.is_finite(values))),
                                 tf.float32)])

    return WizardKerasCallback


def _flat_names(structure: Any) -> list[str]:
    """Names for the flattened tensors of fit()'s data: dict keys, else x/y/sample_weight."""
    import tensorflow as tf

    names: list[str] = []

    def walk(obj: Any, prefix: str) -> None:
        if obj is None:
            return
        if isinstance(obj, dict):
            for k in sorted(obj):
                walk(obj[k], str(k))
        elif isinstance(obj, (tuple, list)):
            roles = ("x", "y", "sample_weight")
            for i, item in enumerate(obj):
                walk(item, roles[i] if not prefix and i < 3 else f"{prefix}{i}")
        else:
            names.append(prefix or "x")

    walk(structure, "")
    flat = [t for t in tf.nest.flatten(structure) if t is not None]
    return names if len(names) == len(flat) else [f"t{i}" for i in range(len(flat))]


# == Trainer =====================================================================================
def _trainer_callback_class() -> type:
    import os
    import sys

    if "tensorflow" not in sys.modules and "transformers" not in sys.modules:
        os.environ.setdefault("USE_TF", "0")  # transformers 4.x would import TensorFlow too
    import torch
    from transformers import TrainerCallback


    class WizardTrainerCallback(TrainerCallback):
        """Watches Trainer.train(): per-step loss (a forward hook on the model), the total
        gradient norm of every step, per-layer gradient snapshots every `grad_every` steps.
        Values stay on the device and are read back every `check_every` steps, so the run
        is not synchronised each step; the first non-finite one is found with its batch."""

        def __init__(self, grad_every: int = GRAD_EVERY, check_every: int = CHECK_EVERY,
                     report_dir: str | Path | None = None, stop_on_fault: bool = False,
                     tokenizer: Any = None):
            self.grad_every = max(1, int(grad_every))
            self.check_every = max(1, int(check_every))
            self.stop_on_fault = stop_on_fault
            self.recorder = RunRecorder("pytorch", "trainer", tokenizer, report_dir=report_dir)
            self._pending: list[dict[str, Any]] = []
            self._norms: dict[int, Any] = {}
            self._handles: list[Any] = []
            self._order: dict[str, int] = {}
            self._params: list[Any] | None = None

        def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None,
                           **kwargs: Any) -> None:
            if model is None:
                return
            if self.recorder.tokenizer is None:
                self.recorder.tokenizer = kwargs.get("processing_class") or kwargs.get("tokenizer")
            self.recorder.model_name = getattr(getattr(model, "config", None), "_name_or_path",
                                               "") or type(model).__name__
            self.recorder.settings.update(learning_rate=args.learning_rate,
                                          batch_size=args.per_device_train_batch_size,
                                          weight_decay=args.weight_decay,
                                          device=str(args.device))
            self._state = state
            self._handles.append(model.register_forward_hook(self._on_forward, with_kwargs=True))
            for name, module in model.named_modules():
                if any(True for _ in module.parameters(recurse=False)):
                    self._handles.append(module.register_forward_pre_hook(self._orderer(name)))
            self._order_hooks = len(self._handles) - 1

        def _orderer(self, name: str) -> Any:
            def hook(module: Any, args: Any) -> None:  # must return None: it keeps the inputs
                self._order.setdefault(name, len(self._order))
            return hook

        def _on_forward(self, module: Any, args: Any, kwargs: Any, output: Any) -> None:
            if not module.training or not torch.is_grad_enabled():
                return
            if self._order_hooks:  # the call order is known after the first forward
                for h in self._handles[1:]:
                    h.remove()
                del self._handles[1:]
                self._order_hooks = 0
            loss = getattr(output, "loss", None)
            if loss is None and isinstance(output, dict):
                loss = output.get("loss")
            inputs = {k: v.detach() for k, v in kwargs.items() if torch.is_tensor(v)}
            if not inputs and args:
                inputs = {"x": args[0].detach()} if torch.is_tensor(args[0]) else {}
            state = self._state
            self._pending.append({"step": state.global_step + 1, "epoch": state.epoch,
                                  "loss": None if loss is None else loss.detach().float().mean().reshape(1),
                                  "batch": inputs})

        def on_pre_optimizer_step(self, args: Any, state: Any, control: Any, model: Any = None,
                                  **kwargs: Any) -> None:
            if model is None:
                return
            if self._params is None:
                self._params = [p for p in model.parameters() if p.requires_grad]
            grads = [p.grad for p in self._params if p.grad is not None]
            step = state.global_step + 1
            if grads:  # one fused pass, left on the device until the next read-back
                with torch.no_grad():
                    norms = (torch._foreach_norm(grads) if hasattr(torch, "_foreach_norm")
                             else [g.norm() for g in grads])
                    self._norms[step] = torch.linalg.vector_norm(torch.stack(norms).float())
            if step == 1 or step % self.grad_every == 0:
                snap = snapshot_from_grads(model, self._order)
                snap.step = step
                self.recorder.add_snapshot(snap)

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
            if state.global_step % self.check_every == 0:
                self._flush(control)
            return control

        def _flush(self, control: Any) -> None:
            pending, self._pending = self._pending, []
            norms, self._norms = self._norms, {}
            losses = [p["loss"] for p in pending if p["loss"] is not None]
            values = torch.cat(losses).cpu().tolist() if losses else []
            norm_values = dict(zip(norms, torch.stack(list(norms.values())).cpu().tolist())) \
                if norms else {}
            it = iter(values)
            # (step, loss before gradient at the same step, kind, pending entry, value): the
            # earliest wins, so a NaN gradient at step k beats the NaN loss it causes at k+1
            faults: list[tuple[int, int, str, dict[str, Any], float]] = []
            for p in pending:
                value = next(it) if p["loss"] is not None else None
                if value is None:
                    continue
                self.recorder.add_loss(p["step"], value, p["epoch"])
                if not math.isfinite(value):
                    faults.append((p["step"], 0, "loss", p, value))
            for step, norm in norm_values.items():
                if not math.isfinite(norm):
                    p = next((q for q in pending if q["step"] == step), {"step": step})
                    faults.append((step, 1, "gradient", p, norm))
            if faults:
                _, _, kind, p, value = min(faults, key=lambda f: (f[0], f[1]))
                self._fault(kind, p, value, control)

        def _fault(self, kind: str, p: dict[str, Any], value: float, control: Any) -> None:
            batch = {k: v.cpu().numpy() for k, v in p.get("batch", {}).items()}
            epoch = p.get("epoch")
            if self.recorder.set_fault(kind, p["step"], value,
                                       round(epoch, 3) if epoch is not None else None,
                                       batch or None):
                self.recorder.safe_report()
                if self.stop_on_fault:
                    control.should_training_stop = True

        def on_log(self, args: Any, state: Any, control: Any, logs: Any = None,
                   **kwargs: Any) -> None:
            logs = logs or {}
            if "eval_loss" in logs:
                self.recorder.add_eval(state.global_step, float(logs["eval_loss"]), state.epoch)

        def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            self._flush(control)
            for h in self._handles:
                h.remove()
            self._handles = []
            self.recorder.safe_report()

        def findings(self) -> list[Finding]:
            return self.recorder.findings()

        def result(self) -> Any:
            return self.recorder.result()

        def write_report(self, out_dir: str | Path) -> list[Path]:
            return self.recorder.write_report(out_dir)

    return WizardTrainerCallback


_BUILT: dict[str, type] = {}


def __getattr__(name: str) -> Any:
    """WizardKerasCallback / WizardTrainerCallback, built (and their framework imported) on
    first access."""
    builders = {"WizardKerasCallback": _keras_callback_class,
                "WizardTrainerCallback": _trainer_callback_class}
    if name in builders:
        if name not in _BUILT:
            _BUILT[name] = builders[name]()
        return _BUILT[name]
    raise AttributeError(f"module 'wizard.callbacks' has no attribute {name!r}")
