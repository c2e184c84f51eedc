"""TensorFlow/Keras training probes: train steps on one batch, per-layer gradients, pooled
embeddings. The model is trained in place and its weights (trainable and not) are restored
afterwards; its compile() state and optimizer are never touched (the runs use their own).

The loss is wired like the user's compile(): no loss means the transformers model's own loss
(labels go in with the inputs), a Keras loss is applied to the logits and the labels."""
from __future__ import annotations

import contextlib
import functools
import math
import time
import weakref
from typing import Any, Iterator

import numpy as np

from wizard.backends.tf import first_line
from wizard.backends.train_types import (
    HIST_SAMPLE,
    OVERFIT_EARLY_STOP,
    OVERFIT_TIME_LIMIT,
    GradientSnapshot,
    OptimizerChoice,
    Target,
    TrainRun,
    finish_layer,
    layer_key,
)
from wizard.frameworks import import_tensorflow

CROSS_ENTROPY = ("crossentropy", "cross_entropy")


@contextlib.contextmanager
def preserved(model: Any) -> Iterator[None]:
    """Put every weight (trainable or not) back afterwards; seed TF's RNG for dropout."""
    tf = import_tensorflow()
    saved = model.get_weights()
    tf.random.set_seed(0)
    try:
        yield
    finally:
        model.set_weights(saved)


# -- inputs, outputs and the loss ----------------------------------------------------------------
def _split(target: Target, batch: Any = None) -> tuple[Any, Any]:
    """(inputs without the labels, labels) as tensors; plain (x, y) batches use key "x"."""
    tf = import_tensorflow()
    batch = batch if batch is not None else target.batch
    inputs = {k: tf.constant(v) for k, v in batch.inputs.items()
              if not (batch.labels_in_inputs and k == batch.label_key)}
    labels = tf.constant(batch.labels) if batch.labels is not None else None
    if set(inputs) == {"x"}:
        return inputs["x"], labels
    return inputs, labels


def output_tensor(out: Any) -> Any:
    if hasattr(out, "logits"):
        return out.logits
    if isinstance(out, dict):
        return out.get("logits", next(iter(out.values())))
    if isinstance(out, (tuple, list)):
        return out[0]
    return out


def keras_loss(target: Target) -> Any:
    """The Keras loss of the run (None: the transformers model's own loss)."""
    import tf_keras

    loss = target.loss
    if loss is None:
        return None if target.transformers else _default_loss(target)
    if isinstance(loss, str):
        fn = tf_keras.losses.get(loss)
        if target.from_logits is not None and not isinstance(fn, tf_keras.losses.Loss):
            fn = functools.partial(fn, from_logits=target.from_logits)
            fn.__name__ = loss  # type: ignore[attr-defined]
        return fn
    return loss


def _default_loss(target: Target) -> Any:
    import tf_keras

    labels = target.batch.labels
    if labels is not None and np.asarray(labels).dtype.kind in "iu":
        return tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    return tf_keras.losses.MeanSquaredError()


def compute_loss(target: Target, model: Any, training: bool, batch: Any = None) -> Any:
    x, y = _split(target, batch)
    return _loss_of(model, keras_loss(target), x, y, training)


def _loss_of(model: Any, fn: Any, x: Any, y: Any, training: bool) -> Any:
    """The scalar training loss: the model's own (fn None) or fn(labels, logits)."""
    import tensorflow as tf  # already imported through import_tensorflow(); no environment edits when traced
    if fn is None:
        feed = dict(x) if isinstance(x, dict) else {"input_ids": x}
        if y is not None:
            feed["labels"] = y
        out = model(feed, training=training)
        if getattr(out, "loss", None) is None:
            raise ValueError("the model returned no loss: pass labels in the batch or a loss=")
        loss = tf.reduce_mean(out.loss)
    else:
        loss = tf.reduce_mean(fn(y, output_tensor(model(x, training=training))))
    if model.losses:
        loss = loss + tf.add_n([tf.cast(l, loss.dtype) for l in model.losses])
    return loss


def eval_loss(target: Target, model: Any) -> float:
    return float(compute_loss(target, model, training=False))


# -- optimizers ------------------------------------------------------------------------------------
def _lr_value(opt: Any) -> float | None:
    lr = getattr(opt, "learning_rate", None)
    try:
        if callable(lr) and not hasattr(lr, "numpy"):
            lr = lr(0)
        return float(lr)
    except (TypeError, ValueError):
        return None


def choice_from_instance(opt: Any) -> OptimizerChoice:
    config = opt.get_config() if hasattr(opt, "get_config") else {}
    kwargs = {k: config[k] for k in ("beta_1", "beta_2", "epsilon", "weight_decay", "momentum",
                                      "clipnorm", "global_clipnorm") if config.get(k) is not None}
    return OptimizerChoice(type(opt).__name__, kwargs, _lr_value(opt), "your optimizer object",
                           instance=opt)


def build_optimizer(choice: OptimizerChoice) -> Any:
    import tf_keras

    if choice.instance is not None:
        return type(choice.instance).from_config(choice.instance.get_config())
    config = {k: v for k, v in choice.kwargs.items() if k not in ("lr", "learning_rate")}
    if choice.learning_rate is not None:
        config["learning_rate"] = choice.learning_rate
    if choice.clip_norm:
        config["clipnorm"] = choice.clip_norm
    try:
        return tf_keras.optimizers.get({"class_name": choice.name, "config": config})
    except ValueError:
        opt = tf_keras.optimizers.get(choice.name.lower())
        return type(opt).from_config({**opt.get_config(), **config})


# -- training on one batch ---------------------------------------------------------------------------
def parameter_counts(model: Any) -> tuple[int, int]:
    trainable = int(sum(np.prod(v.shape) for v in model.trainable_weights))
    return trainable, int(sum(np.prod(v.shape) for v in model.weights))


_STEP_FNS: "weakref.WeakKeyDictionary[Any, dict[Any, Any]]" = weakref.WeakKeyDictionary()


def _loss_key(target: Target) -> Any:
    loss = target.loss
    return (loss if isinstance(loss, (str, type(None))) else id(loss), target.from_logits,
            target.transformers)


def grads_fn(target: Target) -> Any:
    """A traced (loss, gradients) function of (x, y) in training mode, cached per model and
    loss wiring: every run on the model shares one trace (tracing a transformer is slow)."""
    tf = import_tensorflow()
    model = target.model
    fns = _STEP_FNS.setdefault(model, {})
    key = _loss_key(target)
    if key not in fns:
        variables = list(model.trainable_variables)
        fn = keras_loss(target)

        @tf.function(reduce_retracing=True)
        def step(x: Any, y: Any) -> Any:
            with tf.GradientTape() as tape:
                loss = _loss_of(model, fn, x, y, training=True)
            return loss, tape.gradient(loss, variables)

        fns[key] = step
    return fns[key]


def train_run(target: Target, choice: OptimizerChoice, steps: int, label: str,
              time_limit: float = OVERFIT_TIME_LIMIT) -> TrainRun:
    """`steps` optimizer steps on the same batch (traced, like fit()); the weights are
    restored afterwards."""
    tf = import_tensorflow()
    model = target.model
    run = TrainRun(label, choice.describe(), choice.learning_rate)
    start = time.perf_counter()
    with preserved(model):
        variables = list(model.trainable_variables)
        run.trainable_params = int(sum(np.prod(v.shape) for v in variables))
        try:
            run.initial = eval_loss(target, model)
            x, y = _split(target)
            if variables:
                opt = build_optimizer(choice)
                compute = grads_fn(target)

                @tf.function
                def apply(grads: Any) -> None:
                    opt.apply_gradients([(g, v) for g, v in zip(grads, variables)
                                         if g is not None])

            for i in range(steps):
                if variables:
                    loss, grads = compute(x, y)
                    if all(g is None for g in grads):
                        raise ValueError("No gradients provided for any variable")
                    apply(grads)
                else:
                    loss = compute_loss(target, model, training=True)
                value = float(loss)
                run.losses.append(value)
                if not math.isfinite(value):
                    run.stopped = f"non-finite loss at step {i}"
                    break
                if not variables and i >= 4:
                    run.stopped = "no trainable parameters: nothing to update"
                    break
                if value < OVERFIT_EARLY_STOP * run.initial:
                    run.stopped = f"loss below {OVERFIT_EARLY_STOP:.0%} of the start"
                    break
                if time.perf_counter() - start > time_limit:
                    run.stopped = f"time limit ({time_limit:.0f} s)"
                    break
            run.final = eval_loss(target, model)
            if variables:
                run.final_snapshot = gradient_snapshot(target, step=len(run.losses),
                                                       keep_state=False)
        except Exception as exc:
            run.error = f"{type(exc).__name__}: {first_line(exc)}"
    run.seconds = time.perf_counter() - start
    return run


# -- gradients --------------------------------------------------------------------------------------
def variable_name(model: Any, var: Any) -> str:
    """'distilbert/transformer/layer_._0/ffn/lin1/kernel' without the model's own scope."""
    name = getattr(var, "path", None) or var.name
    name = name.split(":")[0]
    head, _, rest = name.partition("/")
    if rest and head.startswith(getattr(model, "name", "\0")):
        return rest
    return name


def gradient_snapshot(target: Target, step: int | None = None, keep_state: bool = True
                      ) -> GradientSnapshot:
    """Per-layer gradient statistics after one backward pass (inference mode: no dropout)."""
    tf = import_tensorflow()
    model = target.model
    with (preserved(model) if keep_state else contextlib.nullcontext()):
        variables = list(model.trainable_variables)
        with tf.GradientTape() as tape:
            loss = compute_loss(target, model, training=False)
        grads = tape.gradient(loss, variables) if variables else []
        names = [variable_name(model, v) for v in variables]
        no_grad = [n for n, g in zip(names, grads) if g is None]
        present = [(n, v, g) for n, v, g in zip(names, variables, grads) if g is not None]
        sparse = {n for n, _, g in present if isinstance(g, tf.IndexedSlices)}
        dense = [tf.convert_to_tensor(g) for _, _, g in present]
        stats = np.asarray([per_variable_stats(g) for g in dense]).reshape(-1, 5) if dense else \
            np.zeros((0, 5))
        samples = [_sample(g) for g in dense]
        dead = [_dead_units(g) if len(g.shape) >= 2 else (0, 0) for g in dense]
    snap = group_stats([n for n, _, _ in present], [tuple(v.shape) for _, v, _ in present],
                       stats, samples, dead, embedding=sparse)
    snap.no_grad = no_grad
    snap.trainable_params = int(sum(np.prod(v.shape) for v in variables))
    snap.frozen_params = int(sum(np.prod(v.shape) for v in model.non_trainable_weights))
    snap.loss = float(loss)
    snap.step = step
    return snap


def per_variable_stats(g: Any) -> Any:
    """[sum |g|, sum g^2, max |g|, zeros, non-finite] of one gradient tensor (TF ops)."""
    tf = import_tensorflow()
    g = tf.cast(g, tf.float32)
    a = tf.abs(g)
    return tf.stack([tf.reduce_sum(a), tf.reduce_sum(g * g), tf.reduce_max(a),
                     tf.cast(tf.math.count_nonzero(tf.equal(g, 0.0)), tf.float32),
                     tf.cast(tf.math.count_nonzero(tf.logical_not(tf.math.is_finite(g))),
                             tf.float32)]).numpy()


def _sample(g: Any) -> np.ndarray:
    flat = np.abs(np.asarray(g, dtype=np.float32).ravel())
    flat = flat[flat > 0]
    if flat.size > HIST_SAMPLE:
        flat = np.random.default_rng(0).choice(flat, HIST_SAMPLE, replace=False)
    return flat


def _dead_units(g: Any) -> tuple[int, int]:
    """Keras kernels end with the output axis: units whose incoming gradient is all zero."""
    a = np.asarray(g).reshape(-1, g.shape[-1])
    return int(a.shape[1]), int((a == 0).all(axis=0).sum())


def group_stats(names: list[str], shapes: list[tuple[int, ...]], stats: np.ndarray,
                samples: list[np.ndarray] | None = None,
                dead: list[tuple[int, int]] | None = None,
                embedding: set[str] | None = None) -> GradientSnapshot:
    """Group per-variable statistics (rows of `stats`) by layer, keeping the variables' order."""
    order: list[str] = []
    members: dict[str, list[int]] = {}
    for i, n in enumerate(names):
        key = layer_key(n)
        if key not in members:
            order.append(key)
        members.setdefault(key, []).append(i)
    layers = []
    for key in order:
        idx = members[key]
        s = stats[idx]
        count = int(sum(int(np.prod(shapes[i])) for i in idx))
        kind = "embedding" if "embed" in key.lower() or any(
            names[i] in (embedding or set()) for i in idx) else "layer"
        units = sum(dead[i][0] for i in idx) if dead and kind == "layer" else 0
        dead_n = sum(dead[i][1] for i in idx) if dead and kind == "layer" else 0
        smp = np.concatenate([samples[i] for i in idx]) if samples else None
        if smp is not None and smp.size > HIST_SAMPLE:
            smp = np.random.default_rng(0).choice(smp, HIST_SAMPLE, replace=False)
        layers.append(finish_layer(key, kind, count, float(s[:, 0].sum()), float(s[:, 1].sum()),
                                   float(s[:, 2].max()) if len(s) else 0.0, int(s[:, 3].sum()),
                                   int(s[:, 4].sum()), units, dead_n, smp))
    return GradientSnapshot(layers)


# -- embeddings, outputs ---------------------------------------------------------------------------
def pooled_embeddings(target: Target, batches: list[Any]) -> tuple[dict[str, np.ndarray], Any] | None:
    tf = import_tensorflow()
    model = target.model
    pooled: dict[str, list[np.ndarray]] = {}
    labels: list[np.ndarray] = []
    for batch in batches:
        x, _ = _split(target, batch)
        if target.transformers:
            out = model(x, output_hidden_states=True, training=False)
            states = getattr(out, "hidden_states", None)
            if not states:
                return None
            h = tf.cast(states[-1], tf.float32).numpy()
            mask = np.asarray(x.get("attention_mask", np.ones(h.shape[:2]))
                              if isinstance(x, dict) else np.ones(h.shape[:2]), dtype=np.float32)
            mean = (h * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
            got = {"first-token": h[:, 0], "mean": mean}
        else:
            got = _penultimate(model, x)
            if got is None:
                return None
        for k, v in got.items():
            pooled.setdefault(k, []).append(v)
        if batch.labels is not None:
            labels.append(np.asarray(batch.labels))
    out = {k: np.concatenate(v) for k, v in pooled.items()}
    n = len(next(iter(out.values())))
    lab = np.concatenate(labels) if labels and sum(map(len, labels)) == n else None
    return out, lab


def _penultimate(model: Any, x: Any) -> dict[str, np.ndarray] | None:
    import tf_keras

    try:
        sub = tf_keras.Model(model.inputs, model.layers[-1].input)
    except Exception:  # subclassed models have no graph of layers to cut
        return None
    v = np.asarray(sub(x, training=False), dtype=np.float32)
    return {"penultimate": v.reshape(len(v), -1)}


def loss_expectation(target: Target) -> tuple[str, str] | None:
    """'logits' or 'probabilities' for a cross-entropy Keras loss (None: not applicable)."""
    import tf_keras

    loss = target.loss
    if loss is None:
        return None
    if isinstance(loss, str):
        if not any(c in loss.lower() for c in CROSS_ENTROPY):
            return None
        fl = target.from_logits
        fn = tf_keras.losses.get(loss)
        if fl is None:
            fl = bool(fn.get_config().get("from_logits", False)) if isinstance(
                fn, tf_keras.losses.Loss) else False
        return ("logits" if fl else "probabilities"), f"{loss!r} (from_logits={fl})"
    if isinstance(loss, tf_keras.losses.Loss):
        config = loss.get_config()
        if "from_logits" not in config:
            return None
        fl = bool(config["from_logits"])
        return ("logits" if fl else "probabilities"), f"{type(loss).__name__}(from_logits={fl})"
    return None


def raw_outputs(target: Target) -> tuple[np.ndarray, str | None]:
    """The model's output on the batch and its final activation ('linear' for transformers
    heads; the last layer's activation for plain Keras models; None unknown)."""
    x, _ = _split(target)
    out = np.asarray(output_tensor(target.model(x, training=False)), dtype=np.float32)
    if target.transformers:
        return out, "linear"
    return out, _last_activation(target.model)


def _last_activation(model: Any) -> str | None:
    layers = getattr(model, "layers", None) or []
    if not layers:
        return None
    last = layers[-1]
    if type(last).__name__ == "Softmax":
        return "softmax"
    act = getattr(last, "activation", None)
    name = getattr(act, "__name__", None) or (act if isinstance(act, str) else None)
    return name if name in ("softmax", "sigmoid", "log_softmax", "linear") else None

