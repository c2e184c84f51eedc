"""TensorFlow/Keras backend (transformers 4.x TF classes on tf-keras)."""
from __future__ import annotations

import re
import time
import traceback
from typing import Any

import numpy as np

from wizard.backends.batch import Batch, ForwardResult
from wizard.core.findings import Finding
from wizard.frameworks import import_tensorflow


class TFBackend:
    framework = "tensorflow"

    def __init__(self, ctx: Any):
        self.ctx = ctx
        tf = import_tensorflow()
        gpus = tf.config.list_physical_devices("GPU")
        if ctx.requested_device == "cpu" and gpus:
            tf.config.set_visible_devices([], "GPU")
            gpus = []
        for gpu in gpus:  # do not grab all GPU memory (the course's warning)
            try:
                tf.config.experimental.set_memory_growth(gpu, True)
            except RuntimeError:
                pass
        self.device = "gpu:0" if gpus else "cpu"

    # -- loading ----------------------------------------------------------------------
    def load_model(self) -> Any:
        import tf_keras
        from transformers import TFAutoModelForSequenceClassification

        tf_keras.utils.set_random_seed(0)  # a newly initialised head: the same evidence every run
        case = self.ctx.case
        kwargs: dict[str, Any] = {**self.ctx.pretrained_kwargs(), **self.ctx.model_load_kwargs()}
        if case.num_labels is not None:
            kwargs["num_labels"] = case.num_labels
        location = self.ctx.model_location
        try:
            return TFAutoModelForSequenceClassification.from_pretrained(location, **kwargs)
        except TypeError as exc:
            if "safe_open" not in str(exc):
                raise
            # transformers 4.57 cannot read PyTorch safetensors into TF ("'builtins.safe_open'
            # object is not iterable"); the TF weights file next to it loads fine.

            self.ctx.notes.append(Finding(
                "environment.tf-safetensors-load-bug", "warn",
                "transformers could not load the PyTorch safetensors into TensorFlow",
                evidence={"error": f"TypeError: {exc}"},
                explanation="TFAutoModel... tried model.safetensors (PyTorch weights) and failed "
                            "inside transformers; the wizard loaded tf_model.h5 instead.",
                fix=f"model = TFAutoModelForSequenceClassification.from_pretrained("
                    f"{case.model!r}, use_safetensors=False)"))
            return TFAutoModelForSequenceClassification.from_pretrained(
                location, use_safetensors=False, **kwargs)

    def model_input_names(self) -> list[str]:
        names = list(getattr(self.ctx.tokenizer, "model_input_names", ["input_ids"]))
        import inspect

        params = inspect.signature(self.ctx.model.call).parameters
        return [n for n in names if n in params]

    def first_batch(self) -> Batch:
        """Build the batch the way the course does: to_tf_dataset, then `for batch in ...: break`."""
        from transformers import DataCollatorWithPadding

        case, ctx = self.ctx.case, self.ctx
        split = ctx.tokenized[case.dataset.train_split]
        label_col = case.dataset.label_column
        inputs = self.model_input_names()
        collator = DataCollatorWithPadding(ctx.tokenizer, return_tensors="np")
        in_inputs = case.training.labels == "inputs"
        keep = split.select_columns([c for c in inputs + [label_col] if c in split.column_names])
        if in_inputs:
            tfds = keep.to_tf_dataset(columns=[c for c in keep.column_names], batch_size=case.training.batch_size,
                                      shuffle=False, collate_fn=collator)
        else:
            # DataCollatorWithPadding renames `label`/`label_ids` to `labels`; other names stay
            collated = "labels" if label_col in ("label", "labels", "label_ids") else label_col
            tfds = keep.to_tf_dataset(columns=inputs, label_cols=[collated],
                                      batch_size=case.training.batch_size, shuffle=False,
                                      collate_fn=collator)
        for native in tfds:
            break
        if in_inputs:
            features, labels_t = native, None
        else:
            features, labels_t = native
        arrays = {k: np.asarray(v) for k, v in features.items()}
        label_key = next((k for k in ("labels", "label", label_col) if k in arrays), None)
        labels = arrays[label_key] if label_key else (np.asarray(labels_t) if labels_t is not None else None)
        n = len(next(iter(arrays.values())))
        return Batch(inputs=arrays, labels=labels, labels_in_inputs=label_key is not None,
                     label_key=label_key if label_key else "labels", indices=list(range(n)),
                     native=native)

    # -- running ----------------------------------------------------------------------
    def forward(self, batch: Batch) -> ForwardResult:
        """The model on the batch as given (its own loss when labels ride along), and logits
        without labels so they are available even when the loss raises."""
        tf = import_tensorflow()
        model = self.ctx.model
        start = time.perf_counter()
        features = {k: tf.constant(v) for k, v in batch.inputs.items()
                    if not (batch.labels_in_inputs and k == batch.label_key)}
        try:
            logits = np.asarray(model(features, training=False).logits)
        except Exception as exc:  # the plain forward itself fails: evidence for triage
            return ForwardResult(logits=None, error=f"{type(exc).__name__}: {first_line(exc)}",
                                 raised="logits", traceback=traceback.format_exc(),
                                 seconds=time.perf_counter() - start)
        result = ForwardResult(logits=logits)
        if batch.labels is not None:
            try:
                out = model({**features, "labels": tf.constant(batch.labels)}, training=False)
                loss = np.asarray(out.loss).reshape(-1)
                result.loss = float(np.mean(loss))
                if loss.size == len(batch.labels):
                    result.loss_per_sample = loss
            except Exception as exc:  # the framework's own words are the evidence
                result.error = f"{type(exc).__name__}: {first_line(exc)}"
                result.traceback = traceback.format_exc()
        result.seconds = time.perf_counter() - start
        return result

    def keras_loss(self, name: str, labels: np.ndarray, logits: np.ndarray) -> float:
        """The loss Keras computes for `compile(loss=name)` on these labels and outputs."""
        import tf_keras

        fn = tf_keras.losses.get(name)
        return float(np.mean(np.asarray(fn(labels, logits))))

    def optimizer_defaults(self, name: str) -> dict[str, Any]:
        """What a Keras optimizer string stands for, read from tf-keras itself."""
        import tf_keras

        opt = tf_keras.optimizers.get(name)
        config = opt.get_config()
        return {"class": f"tf_keras.optimizers.{type(opt).__name__}",
                **{k: _plain(v) for k, v in config.items() if k in (
                    "learning_rate", "beta_1", "beta_2", "epsilon", "weight_decay", "momentum",
                    "clipnorm", "global_clipnorm")}}

    def loss_defaults(self, name: str) -> dict[str, Any]:
        import inspect

        import tf_keras

        fn = tf_keras.losses.get(name)
        params = inspect.signature(fn).parameters
        return {k: p.default for k, p in params.items()
                if p.default is not inspect.Parameter.empty and k in ("from_logits", "axis",
                                                                      "ignore_class")}


def _plain(v: Any) -> Any:
    """Keras stores float32 values (0.0010000000474974513): show them as written (0.001)."""
    if isinstance(v, (np.floating, float)):
        return float(f"{float(v):.7g}")
    return v if isinstance(v, (int, str, bool, type(None))) else str(v)


def first_line(exc: BaseException) -> str:
    """The framework's message in one line: the label error when there is one, else the first
    line inside Keras' 'Exception encountered when calling layer ...' wrapper (whose own first
    line only names the layer), without graph node names and the [Op:...] tail."""
    text = str(exc).strip()
    for line in text.splitlines():
        if "No gradients provided" in line:
            return line.strip()[:400]
        if "Received a label value" in line or "out of bounds" in line:
            line = re.sub(r"\{\{.*?\}\}\s*", "", line)
            return re.split(r"\s+Label values:|\s+\[Op:", line)[0].strip()[:400]
    while text.startswith("Exception encountered when calling layer"):
        parts = [p.strip() for p in text.split("\n\n") if p.strip()]
        if len(parts) < 2:
            break
        text = "\n\n".join(parts[1:])
    text = re.sub(r"\{\{[^}]*\}\}\s*", "", text)
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return re.split(r"\s+\[Op:", line)[0][:400]
