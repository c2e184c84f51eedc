"""More hyperparameter probes: what a string loss hides, from_logits against the model's real
outputs, weight decay, warmup at a high rate, and a Keras 3 optimizer handed to a tf-keras model.

Recommendations, not tuning (the course: get a working baseline first). The optimizer string
and the effective learning rate come from wizard.checks.hyperparameters.
"""
from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from wizard.checks.hyperparameters import (
    ADAM_FAMILY,
    LR_FAIL,
    LR_WARN,
    effective_learning_rate,
    optimizer_defaults,
)
from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding
from wizard.core.optimizer import OptimizerSpec, parse_optimizer

WEIGHT_DECAY_WARN = 0.1   # BERT/transformers examples fine-tune with 0.01; 0.1 is the top of common use
WARMUP_LR = LR_WARN       # from 1e-4 on, Adam without warmup often diverges early
KERAS3_MODULES = ("tensorflow.keras.", "tf.keras.", "keras.")
# Adam-style optimizers, including transformers' create_optimizer (AdamWeightDecay)
ADAPTIVE = {a.replace("_", "") for a in ADAM_FAMILY} | {"createoptimizer", "adamweightdecay"}


def _adaptive(spec: OptimizerSpec) -> bool:
    return spec.name.lower().replace("_", "") in ADAPTIVE


def _learning_rate(case: Case, spec: OptimizerSpec, defaults: dict[str, Any]
                   ) -> tuple[float | None, str]:
    lr, source = effective_learning_rate(case, spec, defaults)
    if lr is None and isinstance(spec.kwargs.get("init_lr"), (int, float)):
        return float(spec.kwargs["init_lr"]), f"{spec.name}(init_lr=...)"
    return lr, source


def _is_keras(case: Case) -> bool:
    return case.framework == "tensorflow" and case.trainer == "keras"


def user_metrics(case: Case, ctx: Context | None) -> list[Any]:
    """The metrics as the user passes them (names, paths or metric objects).

    Read from `case.training.metrics` once the case has that field, else from a context
    attribute `metrics` / `metric` (the Python API puts live objects there)."""
    value = getattr(case.training, "metrics", None) or None  # [] = none given in the case
    if value is None and ctx is not None:
        value = ctx.loaded("metrics", ctx.loaded("metric"))
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


# -- string losses and metrics (Keras) ------------------------------------------------------------
def keras_loss_class(name: str) -> Any:
    """The tf_keras.losses class behind a loss name ('sparse_categorical_crossentropy' or
    'SparseCategoricalCrossentropy'); None when tf_keras does not know it."""
    import tf_keras

    cls = getattr(tf_keras.losses, name, None)
    if isinstance(cls, type) and issubclass(cls, tf_keras.losses.Loss):
        return cls
    try:
        fn = tf_keras.losses.get(name)
    except Exception:
        return None
    for attr in dir(tf_keras.losses):
        c = getattr(tf_keras.losses, attr)
        if isinstance(c, type) and issubclass(c, tf_keras.losses.Loss) and c is not tf_keras.losses.Loss:
            try:
                if getattr(c(), "fn", None) is fn:
                    return c
            except Exception:
                continue
    return None


def _loss_spec(case: Case) -> OptimizerSpec | None:
    return parse_optimizer(case.training.loss) if case.training.loss else None


def _class_defaults(cls: Any) -> dict[str, Any]:
    import inspect

    return {k: p.default for k, p in inspect.signature(cls).parameters.items()
            if p.default is not inspect.Parameter.empty and k != "name"}


_KERAS_ACCURACY = {"SparseCategoricalCrossentropy": "sparse_categorical_accuracy",
                   "CategoricalCrossentropy": "categorical_accuracy",
                   "BinaryCrossentropy": "binary_accuracy"}


def probe_loss_strings(case: Case, ctx: Context) -> list[Finding]:
    """compile(loss="...", metrics=["..."]) as strings: the defaults they stand for."""
    if not _is_keras(case):
        return []
    spec = _loss_spec(case)
    metric_names = [m for m in user_metrics(case, ctx) if isinstance(m, str)]
    if (spec is None or not spec.is_string_shortcut) and not metric_names:
        return []
    evidence: dict[str, Any] = {}
    cls = keras_loss_class(spec.name) if spec is not None else None
    if spec is not None and spec.is_string_shortcut and cls is not None:
        hidden = _class_defaults(cls)
        evidence["loss"] = {"written": spec.written, "means": f"tf_keras.losses.{cls.__name__}",
                            "defaults": {k: str(v) if not isinstance(v, (bool, int, float, type(None)))
                                         else v for k, v in hidden.items()},
                            "reduction_under_compile": "sum_over_batch_size (mean over the batch)"}
    if metric_names:
        resolved = {}
        for m in metric_names:
            if m in ("accuracy", "acc"):
                resolved[m] = (_KERAS_ACCURACY.get(cls.__name__, "picked from the loss and "
                                                   "label shapes") if cls else
                               "picked from the loss and label shapes")
            else:
                resolved[m] = m
        evidence["metrics"] = {"written": metric_names, "means": resolved}
    if not evidence:
        return []
    loss_part = ""
    if "loss" in evidence:
        d = evidence["loss"]["defaults"]
        shown = ", ".join(f"{k}={v!r}" for k, v in d.items())
        loss_part = f"loss={spec.written} means tf_keras.losses.{cls.__name__}({shown})"
    title = loss_part or f"metrics={metric_names} are resolved by Keras from the loss"
    fix = ("import tf_keras\nmodel.compile(optimizer=optimizer,\n"
           "              loss=tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),\n"
           "              metrics=[tf_keras.metrics.SparseCategoricalAccuracy('accuracy')])\n"
           "# or leave out loss= and let the transformers model compute its own loss")
    return [Finding(
        "hyperparameters.string-loss-defaults", "info", title, evidence=evidence,
        explanation="A string stands for a class with default arguments: from_logits=False "
                    "means Keras assumes the model ends with a softmax, which transformers "
                    "models do not (they output logits). Spell the loss out to choose.",
        fix=fix)]


# -- from_logits against the real outputs ------------------------------------------------------
def _outputs(ctx: Context) -> np.ndarray | None:
    """What the model outputs for the first batch: transformers' logits, or a plain Keras
    model's output tensor."""
    fwd = ctx.loaded("forward")
    if fwd is not None and fwd.logits is not None:
        return np.asarray(fwd.logits)
    import tensorflow as tf

    batch = ctx.batch
    feats = {k: tf.constant(v) for k, v in batch.inputs.items()
             if not (batch.labels_in_inputs and k == batch.label_key)}
    out = ctx.model(feats if len(feats) > 1 else next(iter(feats.values())), training=False)
    return np.asarray(getattr(out, "logits", out))


def _looks_like_probabilities(out: np.ndarray) -> bool:
    if out.size == 0 or np.any(out < 0) or np.any(out > 1):
        return False
    return out.shape[-1] == 1 or bool(np.allclose(out.sum(axis=-1), 1.0, atol=1e-3))


def probe_from_logits(case: Case, ctx: Context) -> list[Finding]:
    """from_logits (explicit or a string loss's False) against what the model really outputs;
    both losses are computed on the first batch."""
    spec = _loss_spec(case)
    if not _is_keras(case) or spec is None:
        return []
    batch = ctx.batch
    if batch.labels_in_inputs or batch.labels is None:
        return []  # labels inside the inputs: data.labels-in-inputs-with-keras-loss reports it
    cls = keras_loss_class(spec.name)
    if cls is None:
        return []
    declared = spec.kwargs.get("from_logits", case.training.from_logits)
    declared = bool(declared) if declared is not None else bool(_class_defaults(cls).get(
        "from_logits", False))
    out = _outputs(ctx)
    if out is None:
        return []
    probs = _looks_like_probabilities(out)
    labels = batch.labels
    try:
        as_declared = float(cls(from_logits=declared)(labels, out).numpy())
        as_other = float(cls(from_logits=not declared)(labels, out).numpy())
    except Exception:
        return []  # label/loss shape problems are other checks (triage: Shapes ... incompatible)
    classes = int(out.shape[-1])
    evidence = {"loss": spec.written, "from_logits": declared,
                "outputs": "probabilities (rows in [0, 1] summing to 1)" if probs else "logits",
                "first_outputs": [[round(float(v), 4) for v in row] for row in out[:2]],
                f"loss_with_from_logits_{declared}": round(as_declared, 4),
                f"loss_with_from_logits_{not declared}": round(as_other, 4),
                "ln_C": round(math.log(classes), 4) if classes > 1 else None}
    right = probs != declared  # probabilities need False, logits need True
    if right:
        return [Finding("hyperparameters.from-logits-mismatch", "pass",
                        f"from_logits={declared} matches the model's {evidence['outputs'].split()[0]}",
                        evidence=evidence)]
    fix = (f"import tf_keras\nloss = tf_keras.losses.{cls.__name__}(from_logits={not declared})\n"
           "model.compile(optimizer=optimizer, loss=loss)")
    return [Finding(
        "hyperparameters.from-logits-mismatch", "fail",
        ("The model outputs logits but the loss has from_logits=False" if not probs else
         "The model outputs probabilities but the loss has from_logits=True"),
        evidence=evidence,
        explanation=(f"On this batch the loss as compiled is {as_declared:.3f}; read correctly it "
                     f"is {as_other:.3f} (an untrained head should give about ln({classes}) = "
                     f"{math.log(classes):.3f}). "
                     + ("Keras clips logits into (0, 1) as if they were probabilities: negative "
                        "logits lose their gradient and the loss is wrong."
                        if not probs else "The softmax is applied twice, which flattens the "
                        "predictions and shrinks the gradients.")),
        fix=fix)]


# -- weight decay ------------------------------------------------------------------------------
def _weight_decay(case: Case, spec: OptimizerSpec, defaults: dict[str, Any]) -> tuple[float, str]:
    if isinstance(spec.kwargs.get("weight_decay"), (int, float)):
        return float(spec.kwargs["weight_decay"]), f"{spec.name}(weight_decay=...)"
    if case.training.weight_decay:
        return float(case.training.weight_decay), "training.weight_decay"
    value = defaults.get("weight_decay")
    if isinstance(value, (int, float)):
        return float(value), f"the default of {defaults.get('class', spec.name)}"
    return 0.0, "none set"


def probe_weight_decay(case: Case, ctx: Context) -> list[Finding]:
    """Weight decay above 0.1, with how much it shrinks the weights per 1000 steps."""
    spec = parse_optimizer(case.training.optimizer)
    defaults = optimizer_defaults(case, ctx, spec)
    wd, source = _weight_decay(case, spec, defaults)
    lr, lr_source = _learning_rate(case, spec, defaults)
    coupled = case.framework == "pytorch" and case.trainer == "loop" and \
        spec.name.lower() in ("adam", "sgd", "rmsprop", "adagrad")
    evidence: dict[str, Any] = {"weight_decay": wd, "source": source, "learning_rate": lr,
                                "learning_rate_source": lr_source,
                                "optimizer": spec.written, "threshold": WEIGHT_DECAY_WARN,
                                "decoupled": not coupled}
    if lr is not None and wd > 0 and not coupled:
        evidence["weights_kept_after_1000_steps"] = round((1 - lr * wd) ** 1000, 6)
    if wd <= WEIGHT_DECAY_WARN:
        return [Finding("hyperparameters.weight-decay-too-high", "pass",
                        f"Weight decay {wd:g} is in the usual range (0..{WEIGHT_DECAY_WARN:g})",
                        evidence=evidence)]
    if case.framework == "tensorflow":
        fix = ("import tf_keras\nmodel.compile(optimizer=tf_keras.optimizers.AdamW("
               "learning_rate=5e-5, weight_decay=0.01))")
    elif case.trainer == "trainer":
        fix = "args = TrainingArguments(..., weight_decay=0.01)"
    else:
        fix = "optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01)"
    return [Finding(
        "hyperparameters.weight-decay-too-high", "warn",
        f"Weight decay {wd:g} is {wd / 0.01:.0f}x the usual 0.01 for fine-tuning",
        evidence=evidence,
        explanation=("Fine-tuning recipes (BERT, the transformers examples) use 0.01; above 0.1 "
                     "the decay pulls the pretrained weights towards zero faster than the task "
                     "can hold them, and accuracy drops. "
                     + ("With torch.optim.Adam/SGD weight_decay is an L2 term added to the "
                        "gradient, not decoupled decay: use AdamW." if coupled else "")),
        fix=fix)]


# -- warmup ------------------------------------------------------------------------------------
def _warmup(case: Case, spec: OptimizerSpec, defaults: dict[str, Any]) -> tuple[float | None, str]:
    """Warmup steps (or ratio) the run uses, and where that comes from; None when unknown."""
    for key in ("num_warmup_steps", "warmup_steps", "warmup_ratio"):
        if isinstance(spec.kwargs.get(key), (int, float)):
            return float(spec.kwargs[key]), f"{spec.name}({key}=...)"
    for key in ("warmup_steps", "warmup_ratio"):
        value = getattr(case.training, key, None)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value), f"training.{key}"
    if case.framework == "pytorch" and case.trainer == "trainer":
        return float(defaults.get("warmup_steps") or 0), "the default of TrainingArguments"
    if _adaptive(spec):
        return 0.0, (f"{spec.written} without warmup steps" if spec.kwargs else
                     f"{spec.written} with a constant learning rate")
    return None, "unknown"


def probe_warmup(case: Case, ctx: Context) -> list[Finding]:
    """No warmup while an Adam-family learning rate is 1e-4 or more."""
    spec = parse_optimizer(case.training.optimizer)
    defaults = optimizer_defaults(case, ctx, spec)
    lr, lr_source = _learning_rate(case, spec, defaults)
    warmup, source = _warmup(case, spec, defaults)
    if lr is None or warmup is None or not _adaptive(spec):
        return []
    evidence = {"learning_rate": lr, "learning_rate_source": lr_source, "warmup": warmup,
                "warmup_source": source, "threshold": WARMUP_LR}
    if warmup > 0 or lr < WARMUP_LR:
        return [Finding("hyperparameters.no-warmup", "pass",
                        f"Warmup {warmup:g} at learning rate {lr:g}: no warmup needed below "
                        f"{WARMUP_LR:g}" if warmup == 0 else f"Warmup is set ({warmup:g})",
                        evidence=evidence)]
    if case.framework == "tensorflow":
        fix = ("from transformers import create_optimizer\n"
               "optimizer, schedule = create_optimizer(init_lr=5e-5, num_train_steps=num_steps,\n"
               "                                      num_warmup_steps=num_steps // 10)\n"
               "model.compile(optimizer=optimizer)")
    elif case.trainer == "trainer":
        fix = "args = TrainingArguments(..., learning_rate=5e-5, warmup_ratio=0.1)"
    else:
        fix = ("from transformers import get_linear_schedule_with_warmup\n"
               "scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=num_steps "
               "// 10,\n                                            num_training_steps=num_steps)\n"
               "# call scheduler.step() after optimizer.step()")
    above = lr > LR_FAIL
    return [Finding(
        "hyperparameters.no-warmup", "info" if above else "warn",
        f"No warmup at learning rate {lr:g}",
        evidence=evidence,
        explanation=("Adam's first updates are large while its moment estimates are still "
                     "noisy; at 1e-4 and above, fine-tuning without warmup often spikes or "
                     "diverges in the first hundred steps. A linear warmup over ~10% of the "
                     "steps is the usual remedy. "
                     + ("Lower the learning rate first (hyperparameters.learning-rate-too-high)."
                        if above else "")).strip(),
        fix=fix)]


# -- a Keras 3 optimizer handed to a tf-keras model ---------------------------------------------
def _keras3_written(spec: OptimizerSpec, raw: Any) -> str | None:
    """The module path the user wrote (tensorflow.keras / tf.keras / keras), if any."""
    text = spec.written
    if isinstance(raw, dict) and raw.get("module"):
        text = f"{raw['module']}.{spec.name}"
    if "tf_keras" in text:
        return None
    for prefix in KERAS3_MODULES:
        if prefix in text:
            return prefix.rstrip(".")
    return None


def probe_keras3_optimizer(case: Case, ctx: Context) -> list[Finding]:
    """An optimizer from tensorflow.keras / keras (Keras 3 on TF >= 2.16) compiled into the
    transformers model (a tf-keras model): tried for real on the user's model."""
    if case.framework != "tensorflow":
        return []
    raw = case.training.optimizer
    spec = parse_optimizer(raw)
    module = _keras3_written(spec, raw)
    in_traceback = "Could not interpret optimizer identifier" in (case.traceback or "")
    if module is None and not in_traceback:
        return []
    try:
        import keras
    except ImportError:
        return []
    import tf_keras

    evidence: dict[str, Any] = {"optimizer": spec.written, "module_written": module,
                                "keras": getattr(keras, "__version__", None),
                                "tf_keras": getattr(tf_keras, "__version__", None),
                                "TF_USE_LEGACY_KERAS_here": os.environ.get("TF_USE_LEGACY_KERAS")}
    if not str(evidence["keras"] or "").startswith("3"):
        return []  # Keras 2: tensorflow.keras is tf-keras itself
    cls = getattr(keras.optimizers, spec.name, None)
    if not isinstance(cls, type):
        cls = keras.optimizers.Adam
    lr = spec.kwargs.get("learning_rate", spec.kwargs.get("lr", 5e-5))
    opt = cls(learning_rate=lr)
    evidence["keras3_class"] = f"{type(opt).__module__}.{type(opt).__name__}"
    try:
        ctx.model.compile(optimizer=opt)
        return []  # accepted: nothing to report
    except Exception as exc:
        evidence["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
    return [Finding(
        "hyperparameters.keras3-optimizer", "fail" if in_traceback else "warn",
        "A Keras 3 optimizer cannot train this tf-keras model",
        evidence=evidence,
        explanation=f"transformers' TF models are tf-keras (Keras 2) models. With Keras "
                    f"{evidence['keras']} installed, `tensorflow.keras` is Keras 3 unless "
                    "TF_USE_LEGACY_KERAS=1 is set before TensorFlow is imported, so "
                    f"`from {module or 'tensorflow.keras'}.optimizers import {spec.name}` "
                    "gives a Keras 3 optimizer. Compiling this model with one, as done here, "
                    f"raises: {evidence['error']}",
        fix="import os\nos.environ['TF_USE_LEGACY_KERAS'] = '1'  # before importing tensorflow\n"
            f"import tf_keras\nmodel.compile(optimizer=tf_keras.optimizers.{spec.name}("
            f"learning_rate={lr!r}))")]
