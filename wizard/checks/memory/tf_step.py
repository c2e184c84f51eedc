"""One measured Keras training step of a TensorFlow case, run in a fresh child process.

The TensorFlow counterpart of `wizard.checks.memory.probes.run_step`: the case's model built from its
config with random weights (the transformers TF class for the task's head), compiled with the
optimizer the spec names and the model's internal loss, two `train_on_batch` calls, the peak of
the second. TensorFlow is not fork-safe once imported, so this always runs in a process of its
own (`python -m wizard.checks.memory.probes --once`), never in the forking zygote.

Memory is measured with `tf.config.experimental.get_memory_info('GPU:0')['peak']` on a GPU and
with the process's RSS high-water mark above a baseline (TensorFlow imported and warmed up, no
model yet) on the CPU.

A memory cap is enforced on the quantity that is measured, so "fits" means "measured peak <= cap":
- on a GPU the cap is the memory_limit of a logical device (TensorFlow's allocator raises
  ResourceExhaustedError past it), and the measured peak is checked against it;
- on the CPU a watchdog thread reads the process's anonymous resident memory every few
  milliseconds and ends the child with an out-of-memory result as soon as it is more than the cap
  above the baseline; the high-water mark after the step catches a spike between two reads.
  RLIMIT_AS (the PyTorch step's cap) does not work for TensorFlow: its address space grows about
  1.5 times faster than its resident memory (thread stacks, allocator reservations), so the
  limit fails steps well under the cap, and an allocation refused inside TensorFlow's runtime
  can leave the process deadlocked instead of raising.
"""
from __future__ import annotations

import gc
import json
import os
import re
import sys
import threading
import time
from typing import Any

from wizard.checks.memory.stepping import (
    HEAD_WORDS,
    is_oom,
    reset_peak,
    rss_peak,
    status_bytes,
    step_config,
    tune_malloc,
)
from wizard.estimate.memory import optimizer_state

MiB = 1024 ** 2
WATCH_INTERVAL_S = 0.005


def tf_step_class(config: Any, kind: str) -> Any:
    """The transformers TF class a Keras fine-tune with this head builds (TFAutoModelFor... when
    the checkpoint's own architecture lacks that head, as for the PyTorch step)."""
    import transformers


    word = HEAD_WORDS.get(kind)
    arches = list(getattr(config, "architectures", None) or [])
    if word and not any(word in a for a in arches):
        arches = []
    for arch in arches:
        cls = getattr(transformers, "TF" + re.sub(r"^(TF|Flax)", "", arch), None)
        if cls is not None:
            return cls
    auto = {"cls": "TFAutoModelForSequenceClassification",
            "token": "TFAutoModelForTokenClassification",
            "qa": "TFAutoModelForQuestionAnswering"}.get(kind)
    if kind == "lm":
        auto = ("TFAutoModelForSeq2SeqLM" if getattr(config, "is_encoder_decoder", False)
                else "TFAutoModelForCausalLM")
    return getattr(transformers, auto or "TFAutoModel")


def build_model(config: Any, kind: str) -> Any:
    cls = tf_step_class(config, kind)
    if cls.__name__.startswith("TFAuto"):
        return cls.from_config(config)
    return cls(config)


def tf_optimizer(keras: Any, text: str) -> tuple[Any, str]:
    """The Keras optimizer for what the case names (the same reading as the PyTorch step)."""

    spec = optimizer_state(text)
    key = spec.name
    opts = keras.optimizers
    if spec.state_bytes is not None:
        return opts.AdamW(learning_rate=2e-5), "AdamW (no 8-bit optimizer in Keras)"
    if spec.factored:
        return opts.Adafactor(), "Adafactor"
    if key.startswith("sgd"):
        mom = 0.9 if spec.momentum else 0.0
        return opts.SGD(learning_rate=1e-3, momentum=mom), f"SGD(momentum={mom})"
    if "lion" in key:
        return opts.Lion(learning_rate=1e-4), "Lion"
    if key in ("rmsprop", "adagrad", "adadelta"):
        cls = {"rmsprop": opts.RMSprop, "adagrad": opts.Adagrad, "adadelta": opts.Adadelta}[key]
        return cls(learning_rate=1e-4), cls.__name__
    if key.startswith("adam") and not key.startswith("adamw") and key != "adam_w":
        return opts.Adam(learning_rate=2e-5), "Adam"
    return opts.AdamW(learning_rate=2e-5), "AdamW"


def tf_inputs(config: Any, kind: str, b: int, s: int) -> dict[str, Any]:
    """A random batch with labels in the inputs (the model computes its own loss)."""
    import numpy as np

    rng = np.random.default_rng(0)
    vocab = int(getattr(config, "vocab_size", 1000) or 1000)
    ids = rng.integers(3, max(vocab, 4), (b, s), dtype=np.int32)
    batch = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    n = int(getattr(config, "num_labels", 2) or 2)
    if kind == "lm":
        batch["labels"] = (rng.integers(3, max(vocab, 4), (b, s), dtype=np.int32)
                           if getattr(config, "is_encoder_decoder", False) else ids.copy())
    elif kind == "token":
        batch["labels"] = rng.integers(0, n, (b, s), dtype=np.int32)
    elif kind == "qa":
        batch["start_positions"] = rng.integers(0, s, (b,), dtype=np.int32)
        batch["end_positions"] = rng.integers(0, s, (b,), dtype=np.int32)
    else:
        batch["labels"] = rng.integers(0, n, (b,), dtype=np.int32)
    return batch


def _warm_up(tf: Any, keras: Any) -> None:
    """One tiny Keras training step, so the thread pools, the tf.function machinery and the
    optimizer code exist before the baseline and are not counted as the case's memory."""
    import numpy as np

    try:
        x = keras.Input((8,), dtype="int32")
        h = keras.layers.Embedding(16, 8)(x)
        y = keras.layers.Dense(2)(keras.layers.GlobalAveragePooling1D()(h))
        m = keras.Model(x, y)
        m.compile(optimizer=keras.optimizers.Adam(),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        m.train_on_batch(np.ones((2, 8), np.int32), np.zeros((2,), np.int32))
        del m
        keras.backend.clear_session()
    except Exception:
        pass


def _first_step(tf: Any, model: Any, step: Any) -> bool:
    """The first step, traced without autograph when the model allows it (autograph's source
    conversion of a transformers model is most of the trace time, and the graph is the same
    when the code has no tensor-dependent Python control flow); with autograph, as model.fit
    traces it, when it does not. Returns whether autograph was used."""
    model.train_step = tf.autograph.experimental.do_not_convert(model.train_step)
    try:
        step()
        return False
    except TypeError:   # OperatorNotAllowedInGraphError: a Python `if`/`for` on a tensor
        del model.train_step
        model.train_function = None
        step()
        return True


def _status(key: str) -> int | None:
    return status_bytes(key)


def cap_method(device: str) -> str:
    if device == "cuda":
        return ("measured peak checked against the cap; the GPU is a logical device with "
                "memory_limit = the cap")
    return ("resident memory above the baseline watched while the step runs (the child ends "
            "out of memory past the cap) and the measured peak checked against the cap")


def _watch_rss(cap: int, base: int, t0: float) -> threading.Event:
    """End this process with an out-of-memory result once its anonymous RSS is more than `cap`
    above `base`. Only for the step's own child process (it exits without clean-up)."""
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(WATCH_INTERVAL_S):
            used = (_status("RssAnon") or 0) - base
            if used > cap and not stop.is_set():
                result = {"status": "oom", "error": f"resident memory reached {used / MiB:.1f} "
                          f"MiB above the baseline, over the memory cap {cap / MiB:.1f} MiB",
                          "resident_bytes": int(used), "seconds": round(time.time() - t0, 2),
                          "device": "cpu", "framework": "tensorflow",
                          "cap_enforced": cap_method("cpu")}
                try:
                    sys.stdout.flush()
                except Exception:
                    pass
                os.write(1, ("\n" + json.dumps(result) + "\n").encode())
                os._exit(0)

    threading.Thread(target=watch, name="wizard-memory-cap", daemon=True).start()
    return stop


def _error_text(exc: BaseException) -> str:
    text = str(exc)
    if len(text) > 600:   # autograph's StagingError puts the original error at the end
        text = text[:250] + " ... " + text[-350:]
    return f"{type(exc).__name__}: {text}"


def run_tf_step(spec: dict[str, Any], child: bool = False) -> dict[str, Any]:
    """Two Keras training steps of the spec's model; the peak of the second one. `child`: this
    is the step's own process (`--once`), which a CPU memory cap may end early."""

    t0 = time.time()
    tune_malloc()
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    device = spec.get("device", "cpu")
    cap = int(spec.get("memory_cap_bytes") or 0) or None
    on_gpu = False
    watching: threading.Event | None = None
    try:
        import tensorflow as tf

        keras = tf.keras   # tf-keras with TF_USE_LEGACY_KERAS=1, what transformers' TF models use
        gpus = tf.config.list_physical_devices("GPU")
        on_gpu = device == "cuda" and bool(gpus)
        if gpus:   # one GPU (memory growth must not differ between visible GPUs) or none
            tf.config.set_visible_devices(gpus[:1] if on_gpu else [], "GPU")
        if on_gpu and cap:
            tf.config.set_logical_device_configuration(
                gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=max(1, cap // MiB))])
        elif on_gpu:
            tf.config.experimental.set_memory_growth(gpus[0], True)
        _warm_up(tf, keras)
        policy = {"fp16": "mixed_float16", "bf16": "mixed_bfloat16"}.get(spec.get("precision"))
        if policy:
            keras.mixed_precision.set_global_policy(policy)
        config, kind = step_config(spec)
        gc.collect()
        if on_gpu:
            tf.config.experimental.reset_memory_stats("GPU:0")
            base = int(tf.config.experimental.get_memory_info("GPU:0")["current"])
        else:
            reset_peak()
            base = _status("RssAnon") or _status("VmRSS") or 0
            if cap and child:
                watching = _watch_rss(cap, base, t0)
        tf.random.set_seed(0)
        batch = tf_inputs(config, kind, int(spec["batch_size"]), int(spec["seq_len"]))
        model = build_model(config, kind)
        opt, opt_name = tf_optimizer(keras, spec.get("optimizer", "adamw"))
        model.compile(optimizer=opt)            # no loss: the model's internal loss
        if hasattr(model, "build_in_name_scope"):
            model.build_in_name_scope()
        opt.build(model.trainable_variables)    # slots before the first trace: one trace, not two

        def step() -> float:
            out = model.train_on_batch(batch, return_dict=True)
            return float(out.get("loss", float("nan")))

        autograph = _first_step(tf, model, step)
        gc.collect()
        if on_gpu:
            tf.config.experimental.reset_memory_stats("GPU:0")
            loss = step()
            peak = int(tf.config.experimental.get_memory_info("GPU:0")["peak"]) - base
            extra: dict[str, Any] = {}
        else:
            reset = reset_peak()
            loss = step()
            files = (_status("RssFile") or 0) + (_status("RssShmem") or 0)
            peak = rss_peak() - files - base
            extra = {"hwm_reset": reset}
        if watching is not None:
            watching.set()
        params = int(sum(int(tf.size(v)) for v in model.weights))
        result = {"status": "ok", "peak_bytes": int(peak), "loss": loss, "optimizer": opt_name,
                  "params": params, "attention": None, "model_class": type(model).__name__,
                  "autograph": autograph, "seconds": round(time.time() - t0, 2),
                  "device": "cuda" if on_gpu else "cpu", "framework": "tensorflow", **extra}
        if cap:
            result["cap_enforced"] = cap_method(result["device"])
            if peak > cap:
                result.update(status="oom", error=f"the step's measured peak "
                              f"{peak / MiB:.1f} MiB is over the memory cap {cap / MiB:.1f} MiB")
        return result
    except BaseException as exc:  # noqa: BLE001 - the child reports everything
        if watching is not None:
            watching.set()
        out = {"status": "oom" if is_oom(exc) else "error", "error": _error_text(exc),
               "seconds": round(time.time() - t0, 2), "device": "cuda" if on_gpu else "cpu",
               "framework": "tensorflow"}
        if cap:
            out["cap_enforced"] = cap_method(out["device"])
        return out
