"""How the model runs: mixed precision (fp16 overflow risk, fp16/bf16 support on this device) and
the course's two framework hints, run for real: PyTorch's re-run of the failing batch on CPU
for a readable error instead of "device-side assert triggered", and TensorFlow's
run_eagerly=True for a readable error instead of a graph error."""
from __future__ import annotations

import inspect
import tempfile
import time
import traceback
from typing import Any

import numpy as np

from wizard.backends.tf import first_line
from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding
from wizard.triage.parse import parse_traceback

FP16_MAX = 65504.0           # largest finite float16
FP16_HEADROOM_WARN = 8.0     # activations within 8x of the fp16 limit on an untrained step
T5_FAMILY = {"t5", "mt5", "umt5", "longt5", "switch_transformers"}
RERUN_MAX_BATCHES = 64
RERUN_SECONDS = 60.0


# -- mixed precision --------------------------------------------------------------------------
def _features(ctx: Context) -> dict[str, np.ndarray]:
    batch = ctx.batch
    return {k: v for k, v in batch.inputs.items()
            if not (batch.labels_in_inputs and k == batch.label_key) and k not in ("labels", "label")}


def _activations(case: Case, ctx: Context) -> tuple[float, bool | None]:
    """Largest |activation| of the fp32 forward (hidden states and logits), and whether an fp16
    autocast forward stays finite (PyTorch only; None when not measured)."""
    model, feats = ctx.model, _features(ctx)
    arrays: list[np.ndarray] = []
    finite16: bool | None = None
    if case.framework == "tensorflow":
        import tensorflow as tf

        out = model({k: tf.constant(v) for k, v in feats.items()}, output_hidden_states=True,
                    training=False)
        values = out.values() if hasattr(out, "values") else [out]
        for v in values:
            arrays.extend(np.asarray(t) for t in (v if isinstance(v, (tuple, list)) else [v]))
    else:
        import torch

        device = next(model.parameters()).device
        tensors = {k: torch.as_tensor(v).to(device) for k, v in feats.items()}
        model.eval()
        with torch.no_grad():
            out = model(**tensors, output_hidden_states=True)
            for v in out.values():
                for t in (v if isinstance(v, (tuple, list)) else [v]):
                    if torch.is_tensor(t):
                        arrays.append(t.float().cpu().numpy())
            try:
                with torch.autocast(device.type, dtype=torch.float16):
                    logits16 = model(**tensors).logits
                finite16 = bool(torch.isfinite(logits16).all())
            except Exception:
                finite16 = None
    biggest = max((float(np.max(np.abs(a))) for a in arrays if a.size), default=0.0)
    return biggest, finite16


def _fp16_finding(case: Case, ctx: Context) -> Finding:
    model_type = str(getattr(ctx.model.config, "model_type", "") or "")
    biggest, finite16 = _activations(case, ctx)
    headroom = FP16_MAX / biggest if biggest else float("inf")
    evidence = {"model_type": model_type, "max_abs_activation_fp32": round(biggest, 2),
                "fp16_max": FP16_MAX, "headroom": round(headroom, 1),
                "fp16_forward_finite": finite16}
    fix = ("args = TrainingArguments(..., bf16=True)  # Ampere+ GPU; same range as fp32\n"
           "# or keep fp32: TrainingArguments(..., fp16=False)")
    if case.framework == "tensorflow":
        fix = ("from tf_keras import mixed_precision\n"
               "mixed_precision.set_global_policy('mixed_bfloat16')  # or 'float32'")
    if finite16 is False or biggest >= FP16_MAX:
        return Finding(
            "model.fp16-overflow-risk", "fail",
            "fp16 overflows on the first batch already",
            evidence=evidence,
            explanation="Activations exceed 65504, the largest float16: they become Inf and the "
                        "loss NaN within the first steps.", fix=fix)
    if model_type in T5_FAMILY:
        return Finding(
            "model.fp16-overflow-risk", "warn",
            f"{model_type} models overflow in fp16: train them in bf16 or fp32",
            evidence=evidence,
            explanation="T5-family checkpoints were pretrained with bfloat16 activations; their "
                        "feed-forward outputs grow past 65504 during fine-tuning, giving Inf and "
                        f"then NaN loss. This batch peaks at {biggest:.0f} ({headroom:.0f}x below "
                        "the limit) before any training.", fix=fix)
    if headroom < FP16_HEADROOM_WARN:
        return Finding(
            "model.fp16-overflow-risk", "warn",
            f"Activations reach {biggest:.0f}, within {headroom:.1f}x of the fp16 limit",
            evidence=evidence,
            explanation="Fine-tuning tends to grow activations; this little headroom before the "
                        "first step makes Inf/NaN likely in fp16.", fix=fix)
    return Finding("model.fp16-overflow-risk", "pass",
                   f"fp16 has {headroom:.0f}x headroom over this batch's largest activation",
                   evidence=evidence)


def _support_finding(case: Case, ctx: Context, precision: str) -> Finding | None:
    device = ctx.device
    evidence: dict[str, Any] = {"mixed_precision": precision, "device": device,
                                "trainer": case.trainer}
    if case.framework == "pytorch":
        import torch

        if device.startswith("cuda"):
            evidence["gpu"] = torch.cuda.get_device_name(0)
            evidence["compute_capability"] = list(torch.cuda.get_device_capability(0))
        # a live run (`wizard run`) built its own TrainingArguments: they did not raise
        if case.trainer == "trainer" and not ctx.scratch.get("live_run"):
            from transformers import TrainingArguments

            flag = {"fp16": {"fp16": True}, "bf16": {"bf16": True}}[precision]
            try:
                with tempfile.TemporaryDirectory() as tmp:
                    TrainingArguments(output_dir=tmp, report_to=[], **flag)
            except (ValueError, RuntimeError) as exc:
                evidence["error"] = f"{type(exc).__name__}: {str(exc).strip()[:300]}"
                alt = ("fp16=True  # pre-Ampere GPU" if device.startswith("cuda")
                       else "use_cpu=True, bf16=True  # or drop bf16 on CPU")
                return Finding(
                    "model.precision-unsupported", "fail",
                    f"TrainingArguments({precision}=True) raises on this {device.split(':')[0].upper()}",
                    evidence=evidence,
                    explanation=f"Reproduced here: {evidence['error']}",
                    fix=f"args = TrainingArguments(..., {alt})")
            if device == "cpu":
                return Finding(
                    "model.precision-unsupported", "info",
                    f"{precision} is accepted on CPU but brings no GPU speed-up",
                    evidence=evidence,
                    explanation="Mixed precision pays off on GPUs with tensor cores; on a CPU "
                                "training runs at about fp32 speed or slower.")
            return None
        if device.startswith("cuda") and precision == "bf16":
            check = torch.cuda.is_bf16_supported
            native = (check(including_emulation=False)
                      if "including_emulation" in inspect.signature(check).parameters else check())
            evidence["native_bf16"] = bool(native)
            if not native:
                return Finding(
                    "model.precision-unsupported", "warn",
                    f"This GPU has no native bf16 ({evidence['gpu']})",
                    evidence=evidence,
                    explanation="bf16 needs compute capability 8.0 (Ampere) or newer; older GPUs "
                                "emulate it slowly or fail in some kernels.",
                    fix="with torch.autocast('cuda', dtype=torch.float16):  # plus a GradScaler\n"
                        "    loss = model(**batch).loss")
            return None
        if device == "cpu":
            evidence["cpu_capability"] = torch.backends.cpu.get_cpu_capability()
            return Finding(
                "model.precision-unsupported", "info",
                f"{precision} autocast runs on CPU, without a speed-up here",
                evidence=evidence,
                explanation="CPU autocast works, but only CPUs with AVX512-BF16/AMX run bf16 "
                            "faster than fp32; fp16 on CPU is emulated.")
        return None
    import tensorflow as tf

    gpus = tf.config.list_physical_devices("GPU")
    need = (7, 0) if precision == "fp16" else (8, 0)
    policy = "mixed_float16" if precision == "fp16" else "mixed_bfloat16"
    if not gpus:
        return Finding(
            "model.precision-unsupported", "info" if precision == "bf16" else "warn",
            f"{policy} on a machine without a GPU",
            evidence={**evidence, "policy": policy},
            explanation=(f"TensorFlow: 'The dtype policy {policy} may run slowly because this "
                         "machine does not have a GPU.' fp16 only pays off on NVIDIA GPUs with "
                         "compute capability 7.0+." if precision == "fp16" else
                         "mixed_bfloat16 runs on CPU; it is faster than fp32 only on CPUs with "
                         "bf16 instructions."),
            fix="from tf_keras import mixed_precision\nmixed_precision.set_global_policy('float32')")
    details = tf.config.experimental.get_device_details(gpus[0])
    cc = tuple(details.get("compute_capability") or (0, 0))
    evidence.update({"gpu": details.get("device_name"), "compute_capability": list(cc),
                     "needs": list(need)})
    if cc < need:
        return Finding(
            "model.precision-unsupported", "warn",
            f"{policy} needs compute capability {need[0]}.{need[1]}; this GPU has {cc[0]}.{cc[1]}",
            evidence=evidence,
            explanation="The policy runs slowly (fp16) or hits missing kernels (bf16) on this GPU.",
            fix="from tf_keras import mixed_precision\nmixed_precision.set_global_policy("
                + ("'mixed_float16')" if precision == "bf16" else "'float32')"))
    return None


def probe_precision(case: Case, ctx: Context) -> list[Finding]:
    """fp16 overflow risk (measured activations, T5 family) and fp16/bf16 on this device."""
    precision = case.training.mixed_precision
    if precision not in ("fp16", "bf16"):
        return []
    findings: list[Finding] = []
    support = _support_finding(case, ctx, precision)
    if support is not None:
        findings.append(support)
    if precision == "fp16":
        findings.append(_fp16_finding(case, ctx))
    return findings


# -- PyTorch: re-run the failing batch on CPU -------------------------------------------------
def _cpu_model(case: Case, ctx: Context) -> Any:
    if ctx.device == "cpu" and ctx.is_loaded("model"):
        return ctx.model
    if case.model:
        from transformers import AutoModelForSequenceClassification

        kwargs: dict[str, Any] = ctx.pretrained_kwargs()
        if case.num_labels is not None:
            kwargs["num_labels"] = case.num_labels
        try:
            return AutoModelForSequenceClassification.from_pretrained(ctx.model_location, **kwargs)
        except RuntimeError:  # a head size mismatch: model.head-size-mismatch reports it
            return AutoModelForSequenceClassification.from_pretrained(
                ctx.model_location, ignore_mismatched_sizes=True, **kwargs)
    import copy

    return copy.deepcopy(ctx.model).cpu()


def _rerun_error(exc: BaseException, index: int, start: int, batch: Any, model: Any,
                 size: int) -> dict[str, Any]:
    tb = traceback.extract_tb(exc.__traceback__)
    inner = tb[-1] if tb else None
    n = len(batch["labels"]) if batch is not None else size
    text = str(exc).strip()
    out: dict[str, Any] = {
        "batch": index, "rows": [start, start + n - 1],
        "error": f"{type(exc).__name__}: {text.splitlines()[0][:300] if text else ''}",
        "raised_at": f"{inner.filename}:{inner.lineno} in {inner.name}" if inner else None,
        "num_labels": int(model.config.num_labels),
        "vocab_size": int(model.get_input_embeddings().num_embeddings),
        "max_positions": getattr(model.config, "max_position_embeddings", None)}
    if batch is not None:
        out.update({"labels": sorted({int(v) for v in batch["labels"].reshape(-1).tolist()}),
                    "max_token_id": int(batch["input_ids"].max()),
                    "sequence_length": int(batch["input_ids"].shape[1])})
    return out


def _cpu_batches(case: Case, ctx: Context, model: Any) -> Any:
    """Batches as Trainer/DataLoader build them, in order, on CPU (labels under `labels`)."""
    from transformers import DataCollatorWithPadding

    split = ctx.tokenized[case.dataset.train_split]
    label_col = case.dataset.label_column
    params = set(inspect.signature(model.forward).parameters)
    names = [n for n in getattr(ctx.tokenizer, "model_input_names", ["input_ids"]) if n in params]
    collate = DataCollatorWithPadding(ctx.tokenizer, return_tensors="pt")
    size = case.training.batch_size
    for start in range(0, len(split), size):
        rows = split.select(range(start, min(start + size, len(split))))
        feats = [{**{k: r[k] for k in names if k in r}, "labels": r[label_col]} for r in rows]
        yield start, collate(feats)


def probe_cpu_rerun(case: Case, ctx: Context) -> list[Finding]:
    """A pasted "device-side assert triggered": run the batches on CPU for the readable error."""
    text = case.traceback or ""
    if case.framework != "pytorch" or not ("device-side assert" in text or "CUDA error" in text):
        return []
    import torch

    on_cpu = ctx.device == "cpu"
    model = _cpu_model(case, ctx)
    model.eval()
    start_t, checked, rows_checked = time.perf_counter(), 0, 0
    found: dict[str, Any] | None = None
    batches = _cpu_batches(case, ctx, model)
    with torch.no_grad():
        while True:
            start, batch = rows_checked, None
            try:
                start, batch = next(batches)
                model(**batch)
            except StopIteration:
                break
            except Exception as exc:  # building the batch or the forward: the readable error
                found = _rerun_error(exc, checked, start, batch, model, case.training.batch_size)
                break
            n = len(batch["labels"])
            checked += 1
            rows_checked += n
            if checked >= RERUN_MAX_BATCHES or time.perf_counter() - start_t > RERUN_SECONDS:
                break
    evidence: dict[str, Any] = {"device_of_checks": ctx.device, "batches_run_on_cpu": checked,
                                "rows_run_on_cpu": rows_checked}
    rerun_code = ("model = model.cpu()\nbatch = {k: v.cpu() for k, v in batch.items()}\n"
                  "outputs = model(**batch)  # the readable error\n"
                  "# or keep the GPU and get the true line: CUDA_LAUNCH_BLOCKING=1 python train.py")
    if found is None:
        return [Finding(
            "model.cpu-rerun", "info",
            f"On CPU, the first {checked} batches ({rows_checked} rows) run without error",
            evidence=evidence,
            explanation="The assert comes from data after these rows, or from code outside the "
                        "model's forward (a custom loss or metric). Re-run the failing step on "
                        "CPU, or with CUDA_LAUNCH_BLOCKING=1 to see the line that failed.",
            fix=rerun_code)]
    evidence.update(found)
    where = ("This machine runs the checks on CPU, so the CPU run already gives the readable "
             "error in place of the GPU's device-side assert." if on_cpu else
             "On the GPU the same batch only says 'device-side assert triggered'.")
    return [Finding(
        "model.cpu-rerun", "warn",
        f"On CPU, batch {found['batch']} (rows {found['rows'][0]}..{found['rows'][1]}) raises "
        f"{found['error']}",
        evidence=evidence,
        explanation=f"{where} Compare the labels with num_labels and the token ids with the "
                    "vocabulary size in the evidence.",
        fix=rerun_code)]


# -- TensorFlow: run_eagerly for graph errors --------------------------------------------------
def _is_graph_error(text: str) -> bool:
    if "Graph execution error" in text or "Detected at node" in text:
        return True

    parsed = parse_traceback(text)
    return any(e.graph_node or e.graph_op for e in parsed.all_errors)


def probe_run_eagerly(case: Case, ctx: Context) -> list[Finding]:
    """A pasted TF graph error: one training step with run_eagerly=True for the readable error
    and the Python line it comes from (weights restored afterwards)."""
    if case.framework != "tensorflow" or not _is_graph_error(case.traceback or ""):
        return []
    import tensorflow as tf
    import tf_keras


    model, batch = ctx.model, ctx.batch
    x = {k: tf.constant(v) for k, v in batch.inputs.items()}
    y = None if batch.labels_in_inputs or batch.labels is None else tf.constant(batch.labels)
    weights = model.get_weights()
    error, frames = None, []
    try:
        default_loss = "auto" if hasattr(model, "hf_compute_loss") else None  # transformers'
        model.compile(optimizer=tf_keras.optimizers.Adam(learning_rate=5e-5),
                      loss=case.training.loss or default_loss, run_eagerly=True)
        model.train_on_batch(x, y)
    except Exception as exc:
        error = f"{type(exc).__name__}: {first_line(exc)}"
        frames = [f"{f.filename}:{f.lineno} in {f.name}: {(f.line or '').strip()}"
                  for f in traceback.extract_tb(exc.__traceback__)[-3:]]
    finally:
        model.set_weights(weights)
    loss = case.training.loss
    compile_code = (f"model.compile(optimizer=optimizer{f', loss={loss!r}' if loss else ''}, "
                    "run_eagerly=True)  # readable errors, slow: remove once fixed\n"
                    "model.fit(tf_train_dataset.take(1))")
    evidence = {"eager_error": error, "innermost_frames": frames,
                "batch_keys": list(batch.inputs), "labels": "inside the inputs"
                if batch.labels_in_inputs else "separate", "loss": loss}
    if error is None:
        return [Finding(
            "model.tf-run-eagerly", "info",
            "One eager training step on the first batch runs without error",
            evidence=evidence,
            explanation="Your graph error comes from another batch or from code outside this "
                        "step; compile with run_eagerly=True and fit again to get the Python "
                        "line where it happens.",
            fix=compile_code)]
    return [Finding(
        "model.tf-run-eagerly", "warn", f"Run eagerly, the first batch raises {error}",
        evidence=evidence,
        explanation="A graph error names a graph node; the same step run eagerly raises the "
                    "plain error at the Python line that caused it (innermost frames in the "
                    "evidence). The wizard ran one eager step and restored the weights.",
        fix=compile_code)]
