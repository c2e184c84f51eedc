"""Memory probes: the estimate from metadata, what holds the GPU, a measured training step, and
the largest batch that fits.

`probe_memory` is cheap (config + weight headers). `probe_memory_measure` and
`probe_largest_batch` run real training steps, each in a fresh child process forked from a
pre-imported "zygote" (so an out-of-memory or a poisoned CUDA context dies with its child and the
next attempt starts clean). The zygote is a core.childproc child that receives step specs
over its pipe; `--once` runs a single spec (platforms without fork, and every TensorFlow
step: TensorFlow is not fork-safe once imported, so a Keras step always gets a fresh process;
see wizard/checks/memory/tf_step.py).
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from dataclasses import replace
from pathlib import Path
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
from wizard.checks.memory.tf_step import run_tf_step
from wizard.core.findings import Finding, Plot
from wizard.core.childproc import Child
from wizard.estimate.memory import (
    CUDA_CONTEXT_BYTES,
    GiB,
    MemoryEstimate,
    ModelGeometry,
    ModelNotFound,
    TrainingSetup,
    estimate_memory,
    find_largest_batch,
    largest_batch_by_estimate,
    optimizer_state,
    read_config,
    resolve_params,
    smaller_batch_code,
    torch_class,
)
from wizard.estimate.plans import multi_gpu_note, ranked, recommend
from wizard.frameworks import child_env, package_root

OTHER_PROCESS_MIN_BYTES = 256 * 1024 ** 2   # below this a neighbour is not worth a warning


def _gib(n: float | int | None) -> float | None:
    return None if n is None else round(n / GiB, 3)


# --------------------------------------------------------------------------------------------
# Case -> training setup, device
# --------------------------------------------------------------------------------------------
def _optimizer_text(opt: Any) -> str:
    if isinstance(opt, dict):
        args = ", ".join(f"{k}={v}" for k, v in opt.items() if k != "name")
        return f"{opt.get('name', 'adamw')}({args})"
    return str(opt or "adamw")


def weights_dtype_from_load_args(load_args: dict[str, Any]) -> str:
    """The dtype from_pretrained keeps the weights in: nf4/int8 for a bitsandbytes base,
    bf16/fp16 for torch_dtype (dtype=), else fp32."""
    quant = load_args.get("quantization_config")
    text = str(quant).lower() if quant is not None else ""
    if load_args.get("load_in_4bit") is True or "load_in_4bit=true" in text.replace(" ", "") \
            or "4bit" in text and "load_in_4bit" not in text:
        return "nf4"
    if load_args.get("load_in_8bit") is True or "load_in_8bit=true" in text.replace(" ", ""):
        return "int8"
    dtype = str(load_args.get("torch_dtype", load_args.get("dtype")) or "").rsplit(".", 1)[-1]
    return {"bfloat16": "bf16", "float16": "fp16", "half": "fp16", "bf16": "bf16",
            "fp16": "fp16"}.get(dtype.strip("'\""), "fp32")


def target_capacity(case: Any) -> tuple[int, dict[str, Any]] | None:
    """The target GPU of the case as (bytes per card, the device as the findings show it), or
    None when the case names no target."""
    target = getattr(case, "target", None)
    card = target.card() if target is not None else None
    if card is None:
        return None
    count = target.cards
    name = f"{count} x {card.label}" if count > 1 else card.label
    total = int(card.memory_gib * GiB)
    return total, {"device": "cuda", "name": name, "total": total, "free": total, "used": 0,
                   "target": True, "gpus": count}


def setup_from_case(case: Any, device: str = "cuda", max_positions: int | None = None) -> TrainingSetup:
    """The TrainingSetup a case describes (sequence length: max_length, else up to 512); a
    target GPU makes it a CUDA run on the target's cards; a LoRA/QLoRA adapter counts as such."""
    seq = case.preprocessing.max_length or min(int(max_positions or 512), 512)
    target = getattr(case, "target", None)
    aimed = target is not None and target.card() is not None
    adapter = getattr(case, "adapter", None)
    lora = adapter is not None and adapter.active
    weights = weights_dtype_from_load_args(case.load_args or {})
    if lora and adapter.method == "qlora" and weights == "fp32":
        weights = "nf4"  # QLoRA: a 4-bit base, whether or not the case names its load_args
    return TrainingSetup(batch_size=int(case.training.batch_size), seq_len=int(seq),
                         optimizer=_optimizer_text(case.training.optimizer),
                         precision=case.training.mixed_precision,
                         weights_dtype=weights,
                         lora_rank=int(adapter.r) if lora else None,
                         lora_targets=(tuple(adapter.target_modules) or None) if lora else None,
                         device="cuda" if aimed else device, task=case.task,
                         framework=case.framework, gpus=target.cards if aimed else 1,
                         strategy=(target.strategy or "ddp") if aimed else "ddp")


def _nvml() -> Any:
    try:
        import pynvml

        pynvml.nvmlInit()
        return pynvml
    except Exception:
        return None


def device_memory(device: str | None = None, nvml: Any = None) -> dict[str, Any]:
    """The device the step would run on and its memory: GPU 0 via NVML (no framework import),
    torch.cuda if NVML is missing, else the machine's RAM."""
    if device != "cpu":
        nv = nvml if nvml is not None else _nvml()
        if nv is not None:
            try:
                if nv.nvmlDeviceGetCount() > 0:
                    h = nv.nvmlDeviceGetHandleByIndex(0)
                    mem = nv.nvmlDeviceGetMemoryInfo(h)
                    name = nv.nvmlDeviceGetName(h)
                    return {"device": "cuda", "name": name.decode() if isinstance(name, bytes)
                            else str(name), "total": int(mem.total), "free": int(mem.free),
                            "used": int(mem.used)}
            except Exception:
                pass
        if "torch" in sys.modules or device == "cuda":
            try:
                import torch

                if torch.cuda.is_available():
                    free, total = torch.cuda.mem_get_info(0)
                    return {"device": "cuda", "name": torch.cuda.get_device_name(0),
                            "total": int(total), "free": int(free), "used": int(total - free)}
            except Exception:
                pass
    total = free = None
    try:
        import psutil

        vm = psutil.virtual_memory()
        total, free = int(vm.total), int(vm.available)
    except Exception:
        try:
            info = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
            total = int(info["MemTotal"].split()[0]) * 1024
            free = int(info["MemAvailable"].split()[0]) * 1024
        except Exception:
            pass
    return {"device": "cpu", "name": "CPU RAM", "total": total, "free": free,
            "used": None if total is None or free is None else total - free}


# --------------------------------------------------------------------------------------------
# Estimate probe
# --------------------------------------------------------------------------------------------
def _breakdown_plot(est: MemoryEstimate, capacity: int | None) -> Plot:
    labels = [k for k, v in est.components.items() if v > 0]
    values = [round(est.components[k] / GiB, 4) for k in labels]
    if est.overhead:
        labels.append("cuda_context")
        values.append(round(est.overhead / GiB, 4))
    colors = ["#1f77b4"] * len(labels)
    labels.append("peak (total)")
    values.append(round((est.total + est.overhead) / GiB, 4))
    colors.append("#ff7f0e")
    if capacity:
        labels.append("device capacity")
        values.append(round(capacity / GiB, 4))
        colors.append("#2ca02c")
    return Plot(name="memory-breakdown", title=f"Training memory per device: {Path(est.model).name}",
                kind="bar", series={"labels": labels, "values": values, "colors": colors},
                ylabel="GiB")


def _estimate_evidence(est: MemoryEstimate, dev: dict[str, Any], capacity: int | None) -> dict[str, Any]:
    st = est.setup
    ev: dict[str, Any] = {
        "model": est.model, "parameters": est.params.total, "parameter_source": est.params.source,
        "checkpoint_dtype": est.params.checkpoint_dtype, "trainable_parameters": est.trainable_params,
        "batch_size": st.batch_size, "seq_len": st.seq_len, "optimizer": st.optimizer,
        "precision": st.precision, "gradient_checkpointing": st.gradient_checkpointing,
        "device": dev.get("device"), "device_name": dev.get("name"),
        "breakdown_gib": {k: _gib(v) for k, v in est.components.items()},
        "total_gib": _gib(est.total), "cuda_context_gib": _gib(est.overhead),
        "capacity_gib": _gib(capacity), "notes": est.notes,
    }
    if capacity:
        ev["largest_batch_by_estimate"] = largest_batch_by_estimate(est, capacity)
    return ev


def probe_memory(case: Any, ctx: Any = None, *, capacity_bytes: int | None = None,
                 device: str | None = None, nvml: Any = None, tf_module: Any = None,
                 endpoint: str | None = None) -> list[Finding]:
    """memory.estimate, memory.will-not-fit, memory.gpu-held-by-other-process and
    memory.tf-grabs-all-gpu-memory, from metadata and the device's state (no training)."""
    device = device or getattr(ctx, "device", None)
    nv = nvml if nvml is not None else (None if device == "cpu" else _nvml())
    dev = device_memory(device, nv)
    aimed = target_capacity(case) if capacity_bytes is None else None
    findings: list[Finding] = []
    others = check_gpu_residents(nv) if dev["device"] == "cuda" else None
    if others is not None:
        findings.append(others)
    if case.framework == "tensorflow" and dev["device"] == "cuda":
        tf_finding = check_tf_memory_growth(tf_module)
        if tf_finding is not None:
            findings.append(tf_finding)
    try:
        # run by the wizard's own process (no context): it never imports a framework, so a
        # checkpoint without weight headers is counted by formula, not built on the meta device
        est = _estimate_for_case(case, dev["device"], endpoint,
                                 build=ctx is not None and not isinstance(ctx, dict))
    except ModelNotFound as exc:
        return findings + [Finding("memory.estimate", "skip", "Memory could not be estimated",
                                   {"model": case.model, "reason": str(exc)}, str(exc))]
    held = (others.evidence.get("held_by_others_bytes", 0) if others is not None else 0)
    capacity = capacity_bytes or (dev["total"] - held if dev.get("total") else None)
    if capacity_bytes is None and dev["device"] == "cpu" and dev.get("free"):
        capacity = dev["free"]
    if aimed is not None:   # the case's target GPU, wherever the wizard runs
        capacity, dev = aimed
    options = ranked(est, capacity)
    ev = _estimate_evidence(est, dev, capacity)
    ev["advice"] = [{"action": a.action, "total_gib": _gib(a.total), "fits": a.fits}
                    for a in options[:8]]
    if aimed is not None:
        ev["target"] = dev["name"]
    note = multi_gpu_note(est)
    if note:
        ev["multi_gpu"] = note
        ev["per_gpu_gib"] = {k: _gib(v + est.overhead) for k, v in est.per_strategy.items()}
    per = " per GPU" if est.setup.gpus > 1 else " per device"
    findings.append(Finding(
        "memory.estimate", "info",
        f"Estimated {ev['total_gib']:.2f} GiB{per} for one training step "
        f"(batch {est.setup.batch_size} x {est.setup.seq_len} tokens, {est.setup.optimizer}, "
        f"{est.setup.precision})" + (f" on {dev['name']}" if aimed is not None else ""), ev,
        "Weights, gradients and optimizer state scale with the parameters; activations with "
        "batch size x sequence length (and its square where attention is materialised)."
        + (f" {note}" if note else ""),
        _first_fix(est, capacity, options), [_breakdown_plot(est, capacity)]))
    fits = est.fits(capacity)
    if fits is False:
        findings.append(_will_not_fit(est, capacity, dev, options, source="estimate"))
    return findings


def _first_fix(est: MemoryEstimate, capacity: int | None, options: list) -> str:
    """The code of the recommendation when one fits, else of the biggest saving."""
    best = recommend(est, capacity) or (max(options, key=lambda a: a.saving) if options else None)
    return best.code if best is not None else ""


def _estimate_for_case(case: Any, device: str, endpoint: str | None = None,
                       build: bool = True, **changes: Any) -> MemoryEstimate:
    config, config_file = read_config(case.model, case.revision, endpoint)
    g = ModelGeometry.from_config(config)
    if case.num_labels:
        g.num_labels = int(case.num_labels)
    st = replace(setup_from_case(case, device, g.max_positions), **changes)
    params = resolve_params(case.model, config, config_file, g.head_kind(st.task), case.revision,
                            endpoint, build=build)
    return estimate_memory(params, g, st, model=str(case.model))


def _will_not_fit(est: MemoryEstimate, capacity: int | None, dev: dict[str, Any],
                  options: list, source: str, measured: dict[str, Any] | None = None) -> Finding:
    """memory.will-not-fit, with the recommendation: the first ranked change or plan that fits
    (the biggest saving when none does)."""
    best = recommend(est, capacity)
    best = best or (max(options, key=lambda a: a.saving) if options else None)
    ev: dict[str, Any] = {"source": source, "device": dev.get("device"),
                          "device_name": dev.get("name"), "capacity_gib": _gib(capacity),
                          "free_gib": _gib(dev.get("free")),
                          "estimate_gib": _gib(est.total + est.overhead),
                          "batch_size": est.setup.batch_size, "seq_len": est.setup.seq_len}
    if measured:
        ev.update(measured)
    if best is not None:
        ev["best_fix"] = best.action
        ev["best_fix_estimate_gib"] = _gib(best.total)
        ev["best_fix_fits"] = best.fits
    ev["plans"] = [{"key": a.key, "action": a.action, "total_gib": _gib(a.total), "fits": a.fits}
                   for a in options]
    if dev.get("target"):
        ev["target"] = dev.get("name")
    gpus = est.setup.gpus
    what = ("ran out of memory" if source == "measured"
            else f"needs about {ev['estimate_gib']:.2f} GiB" + (" per GPU" if gpus > 1 else ""))
    cap = f"{ev['capacity_gib']:.2f} GiB" if capacity else "the device"
    cap += " each" if gpus > 1 and capacity else ""
    how = ("the change below is the least disruptive one that brings the estimate under the "
           "capacity" if best is not None and best.fits else
           "no change or plan the wizard knows brings it under the capacity; the one below "
           "saves the most")
    if gpus > 1:
        how += ". " + (multi_gpu_note(est) or "").rstrip(".")
    return Finding("memory.will-not-fit", "fail",
                   f"One training step {what}; {dev.get('name') or dev.get('device')} has {cap}"
                   + (f" — plan that fits: {best.action}" if best is not None and best.fits
                      else ""),
                   ev, f"The step needs more memory than the device offers; {how}.",
                   best.code if best is not None else "")


# --------------------------------------------------------------------------------------------
# GPU residents and TensorFlow's allocator
# --------------------------------------------------------------------------------------------
def check_gpu_residents(nvml: Any = None, own_pids: set[int] | None = None,
                        min_bytes: int = OTHER_PROCESS_MIN_BYTES) -> Finding | None:
    """memory.gpu-held-by-other-process from NVML's process list, like `nvidia-smi`."""
    nv = nvml if nvml is not None else _nvml()
    if nv is None:
        return None
    own = own_pids or {os.getpid(), os.getppid()}
    rows, held = [], 0
    try:
        for idx in range(nv.nvmlDeviceGetCount()):
            h = nv.nvmlDeviceGetHandleByIndex(idx)
            total = int(nv.nvmlDeviceGetMemoryInfo(h).total)
            procs = list(nv.nvmlDeviceGetComputeRunningProcesses(h))
            try:
                procs += list(nv.nvmlDeviceGetGraphicsRunningProcesses(h))
            except Exception:
                pass
            for p in procs:
                used = int(getattr(p, "usedGpuMemory", 0) or 0)
                if p.pid in own or used < min_bytes:
                    continue
                rows.append({"gpu": idx, "pid": int(p.pid), "used_gib": _gib(used),
                             "share": round(used / total, 3) if total else None,
                             "command": _proc_name(p.pid)})
                if idx == 0:
                    held += used
    except Exception:
        return None
    if not rows:
        return None
    pids = " ".join(str(r["pid"]) for r in rows)
    return Finding("memory.gpu-held-by-other-process", "warn",
                   f"{len(rows)} other process(es) hold {_gib(held):.2f} GiB of GPU memory",
                   {"processes": rows, "held_by_others_bytes": held,
                    "held_by_others_gib": _gib(held)},
                   "Memory another process holds is not available to training; a stale notebook "
                   "kernel or a finished-but-alive run is the usual culprit.",
                   f"nvidia-smi   # check what they are\nkill {pids}   # if they are yours and "
                   "idle; in a notebook: restart the other kernel")


def _proc_name(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None


def check_tf_memory_growth(tf: Any = None) -> Finding | None:
    """memory.tf-grabs-all-gpu-memory: TensorFlow on a GPU without memory growth."""
    if os.environ.get("TF_FORCE_GPU_ALLOW_GROWTH", "").lower() == "true":
        return None
    if tf is None:
        try:
            import tensorflow as tf  # noqa: F811 - only for a TensorFlow case on a GPU
        except Exception:
            return None
    try:
        gpus = tf.config.list_physical_devices("GPU")
        off = [g.name for g in gpus if not tf.config.experimental.get_memory_growth(g)]
    except Exception:
        return None
    if not off:
        return None
    return Finding("memory.tf-grabs-all-gpu-memory", "warn",
                   "TensorFlow will reserve nearly all GPU memory at start-up",
                   {"gpus": off, "memory_growth": False,
                    "TF_FORCE_GPU_ALLOW_GROWTH": os.environ.get("TF_FORCE_GPU_ALLOW_GROWTH")},
                   "Without memory growth TensorFlow maps ~all free GPU memory when it first "
                   "touches the GPU, so nvidia-smi shows the card full and a second process "
                   "(another notebook, PyTorch) fails with out-of-memory.",
                   "import tensorflow as tf\nfor gpu in tf.config.list_physical_devices('GPU'):\n"
                   "    tf.config.experimental.set_memory_growth(gpu, True)\n"
                   "# before anything touches the GPU; or export TF_FORCE_GPU_ALLOW_GROWTH=true")


# --------------------------------------------------------------------------------------------
# One real training step in an isolated child
# --------------------------------------------------------------------------------------------
def step_spec(case: Any, device: str, batch_size: int | None = None, seq_len: int | None = None,
              memory_cap_bytes: int | None = None, **extra: Any) -> dict[str, Any]:
    """The JSON-able description of one training step that the child runs."""
    return {"model": case.model, "revision": case.revision, "task": case.task,
            "num_labels": case.num_labels, "batch_size": int(batch_size or case.training.batch_size),
            "seq_len": int(seq_len or case.preprocessing.max_length or 128),
            "optimizer": _optimizer_text(case.training.optimizer),
            "precision": case.training.mixed_precision, "device": device,
            "memory_cap_bytes": memory_cap_bytes, "framework": case.framework, **extra}


def _build_inputs(torch: Any, config: Any, task: str, b: int, s: int, device: str) -> dict[str, Any]:
    vocab = int(getattr(config, "vocab_size", 1000) or 1000)
    ids = torch.randint(3, max(vocab, 4), (b, s), device=device)
    batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    n = int(getattr(config, "num_labels", 2) or 2)
    if task == "lm":
        batch["labels"] = (torch.randint(3, vocab, (b, s), device=device)
                           if getattr(config, "is_encoder_decoder", False) else ids.clone())
    elif task == "token":
        batch["labels"] = torch.randint(0, n, (b, s), device=device)
    elif task == "qa":
        batch["start_positions"] = torch.randint(0, s, (b,), device=device)
        batch["end_positions"] = torch.randint(0, s, (b,), device=device)
    else:
        batch["labels"] = torch.randint(0, n, (b,), device=device)
    return batch


def _build_optimizer(torch: Any, params: list, text: str) -> tuple[Any, str]:
    spec = optimizer_state(text)
    key = spec.name
    if spec.state_bytes is not None:
        try:
            import bitsandbytes as bnb

            return bnb.optim.AdamW8bit(params, lr=2e-5), "AdamW8bit"
        except Exception:
            return torch.optim.AdamW(params, lr=2e-5), "AdamW (bitsandbytes not installed)"
    if spec.factored:
        from transformers.optimization import Adafactor

        return Adafactor(params, lr=None, relative_step=True, scale_parameter=True,
                         warmup_init=False), "Adafactor"
    if key.startswith("sgd"):
        mom = 0.9 if spec.momentum else 0.0
        return torch.optim.SGD(params, lr=1e-3, momentum=mom), f"SGD(momentum={mom})"
    if "lion" in key or key in ("rmsprop", "adagrad"):
        cls = {"rmsprop": torch.optim.RMSprop, "adagrad": torch.optim.Adagrad}.get(key,
                                                                                  torch.optim.AdamW)
        return cls(params, lr=1e-4), cls.__name__
    if key.startswith("adam") and not key.startswith("adamw") and key != "adam_w":
        return torch.optim.Adam(params, lr=2e-5), "Adam"
    return torch.optim.AdamW(params, lr=2e-5), "AdamW"


def _step_class(config: Any, kind: str) -> Any:
    """The torch class a fine-tune with this head builds. The checkpoint's own architecture only
    when it has that head: a base or masked-LM checkpoint (distilbert-base-uncased) fine-tuned for
    classification gets the task's head, as AutoModelForSequenceClassification gives it."""

    word = HEAD_WORDS.get(kind)
    if word and not any(word in a for a in getattr(config, "architectures", None) or []):
        config.architectures = None
    return torch_class(config, kind)


def run_step(spec: dict[str, Any], child: bool = False) -> dict[str, Any]:
    """Two training steps of the spec's model (random weights from its config); the peak of the
    second one (steady state: optimizer state allocated). Runs in the child process. A spec with
    framework "tensorflow" runs as a Keras step (wizard.checks.memory.tf_step); `child`: this is
    a `--once` process of its own, which that step's CPU memory cap may end early."""
    if spec.get("framework") == "tensorflow":

        return run_tf_step(spec, child=child)
    import gc

    t0 = time.time()
    tune_malloc()
    device = spec.get("device", "cpu")
    cap = spec.get("memory_cap_bytes")
    try:
        import torch

        if os.environ.get("WIZARD_STEP_THREADS"):
            torch.set_num_threads(int(os.environ["WIZARD_STEP_THREADS"]))
        if device == "cuda":
            torch.cuda.init()
            if cap:
                total = torch.cuda.get_device_properties(0).total_memory
                torch.cuda.set_per_process_memory_fraction(min(1.0, cap / total), 0)
            torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated()
        else:
            (torch.ones(256, 256) @ torch.ones(256, 256)).sum()   # start the thread pool first
            gc.collect()
            reset_peak()
            # anonymous memory only: a forked child faults in shared-library pages as it runs,
            # which raises RSS without being training memory
            base = status_bytes("RssAnon") or status_bytes("VmRSS") or 0
            if cap:
                import resource

                vm = status_bytes("VmSize") or 0
                resource.setrlimit(resource.RLIMIT_AS, (vm + int(cap), resource.RLIM_INFINITY))
        config, task = step_config(spec)
        if spec.get("attention"):
            config._attn_implementation = spec["attention"]
        torch.manual_seed(0)
        cls = _step_class(config, task)
        with torch.device(device):      # initialise on the device: fast for big models on GPU
            model = cls.from_config(config) if hasattr(cls, "from_config") else cls(config)
        model.to(device).train()
        if spec.get("gradient_checkpointing"):
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        opt, opt_name = _build_optimizer(torch, [p for p in model.parameters() if p.requires_grad],
                                         spec.get("optimizer", "adamw"))
        b, s = int(spec["batch_size"]), int(spec["seq_len"])
        batch = _build_inputs(torch, config, task, b, s, device)
        precision = spec.get("precision", "fp32")
        half = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision)
        scaler = torch.amp.GradScaler("cuda") if precision == "fp16" and device == "cuda" else None

        def step() -> float:
            # like the course's loop: `outputs` (and its logits) stay alive during backward
            with torch.autocast(device, dtype=half or torch.float32, enabled=half is not None):
                outputs = model(**batch)
            loss = outputs.loss
            if scaler is not None:
                scaler.scale(loss).backward()
                scaler.step(opt)
                scaler.update()
            else:
                loss.backward()
                opt.step()
            opt.zero_grad(set_to_none=True)
            return float(loss.detach())

        step()
        gc.collect()
        if device == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            loss = step()
            torch.cuda.synchronize()
            peak = torch.cuda.max_memory_allocated() - base
            extra = {"reserved_bytes": int(torch.cuda.max_memory_reserved())}
        else:
            reset = reset_peak()
            loss = step()
            files = (status_bytes("RssFile") or 0) + (status_bytes("RssShmem") or 0)
            peak = rss_peak() - files - base
            extra = {"hwm_reset": reset}
        return {"status": "ok", "peak_bytes": int(peak), "loss": loss, "optimizer": opt_name,
                "params": int(sum(p.numel() for p in model.parameters())),
                "attention": getattr(model.config, "_attn_implementation", None),
                "seconds": round(time.time() - t0, 2), "device": device, **extra}
    except BaseException as exc:  # noqa: BLE001 - the child reports everything
        status = "oom" if is_oom(exc) else "error"
        return {"status": status, "error": f"{type(exc).__name__}: {str(exc)[:400]}",
                "seconds": round(time.time() - t0, 2), "device": device}
    finally:
        if cap and device != "cuda":   # lift the cap so the result can be written back
            try:
                import resource

                resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY,
                                                        resource.RLIM_INFINITY))
            except Exception:
                pass


class StepRunner:
    """Runs step specs in fresh child processes forked from one pre-imported zygote.

    Use as a context manager; `run(spec)` returns the child's result dict, with status "oom" if it
    ran out of memory (or was killed for it), "timeout", "crashed" or "error" otherwise.
    TensorFlow is not fork-safe once imported: a TensorFlow spec (or a runner for framework
    "tensorflow") always runs in a fresh `--once` process of its own.
    """

    def __init__(self, framework: str = "pytorch", device: str = "cpu", timeout: float = 600.0):
        self.framework, self.device, self.timeout = framework, device, timeout
        self.fork = (hasattr(os, "fork") and sys.platform.startswith("linux")
                     and framework != "tensorflow")
        self.env = _child_env(framework, device)
        self._child: Child | None = None
        self._log = Path(tempfile.gettempdir()) / f"wizard-steps-{os.getpid()}-{id(self)}.log"

    def __enter__(self) -> "StepRunner":
        if self.fork:
            self._start()   # the zygote imports the frameworks while the caller gets on
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _start(self) -> Child:
        if self._child is None or not self._child.alive():
            self._child = Child(zygote_entry, self.env, log=self._log)
        return self._child

    def run(self, spec: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        limit = timeout or self.timeout
        if spec.get("framework") == "tensorflow":  # never forked, whatever the runner
            return _run_once(spec, _child_env("tensorflow", self.device), limit)
        if not self.fork:
            return _run_once(spec, self.env, limit)
        child = self._start()
        try:
            child.send({**spec, "timeout": limit})
        except (BrokenPipeError, OSError):
            return {"status": "error", "error": "the step runner died: " + self._tail()}
        ready = child.poll(limit + 120)  # + imports
        try:
            result = child.recv() if ready else None
        except (EOFError, OSError):
            result = None
        if result is None:
            tail = self._tail()
            self.close()
            return {"status": "timeout" if not ready else "error",
                    "error": "no answer from the step runner: " + tail}
        return result

    def _tail(self) -> str:
        return self._child.log_tail()[-600:] if self._child is not None else ""

    def close(self) -> None:
        if self._child is not None:
            self._child.stop(goodbye={})
            self._child = None
        self._log.unlink(missing_ok=True)


def _child_env(framework: str, device: str) -> dict[str, str]:
    env = child_env(framework if framework == "tensorflow" else "pytorch", device)
    env.setdefault("TRANSFORMERS_VERBOSITY", "error")
    if framework == "tensorflow":
        env["USE_TORCH"] = "0"  # the Keras step never imports torch
    return env


def _run_once(spec: dict[str, Any], env: dict[str, str], timeout: float) -> dict[str, Any]:
    try:
        out = subprocess.run([sys.executable, "-m", "wizard.checks.memory.probes", "--once"],
                             input=json.dumps(spec).encode(), capture_output=True, env=env,
                             cwd=package_root(), timeout=timeout + 120)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "error": f"the step did not finish in {timeout:.0f} s"}
    lines = [ln for ln in out.stdout.decode(errors="replace").splitlines() if ln.startswith("{")]
    if out.returncode < 0 or not lines:
        return _died(-out.returncode if out.returncode < 0 else 0, spec,
                     out.stderr.decode(errors="replace")[-400:])
    return json.loads(lines[-1])


def _died(sig: int, spec: dict[str, Any], tail: str = "") -> dict[str, Any]:
    """A child that died by a signal: SIGKILL is the kernel's OOM killer; SIGABRT/SIGSEGV under a
    memory cap are failed allocations in native code."""
    capped = bool(spec.get("memory_cap_bytes"))
    oom = sig == signal.SIGKILL or (capped and sig in (signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS))
    name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
    return {"status": "oom" if oom else "crashed",
            "error": f"the step's process died with {name}" + (f": {tail}" if tail else "")}


def zygote_entry(conn: Any) -> None:
    """The zygote (see core.childproc): import the frameworks once, fork one child per spec."""
    import gc

    import torch
    import transformers  # noqa: F401 - imported once here so each fork starts warm
    from transformers import AutoConfig


    threads = torch.get_num_threads()
    torch.set_num_threads(1)            # no OpenMP pool before fork; children restore it
    _warm_up(torch)
    gc.collect()
    gc.freeze()                         # children neither scan nor copy these objects
    os.environ["WIZARD_STEP_THREADS"] = str(threads)

    while True:
        try:
            spec = conn.recv()
        except EOFError:
            return
        if not spec:
            return
        try:  # import the model's module here too (no torch ops: safe before fork)
            cfg = AutoConfig.from_pretrained(spec["model"], revision=spec.get("revision"))
            _step_class(cfg, ModelGeometry.from_config(cfg).head_kind(spec.get("task")))
        except Exception:
            pass
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                result = run_step(spec)
                os.write(w, json.dumps(result).encode())
            finally:
                os._exit(0)
        os.close(w)
        conn.send(_collect(r, pid, spec))


def _warm_up(torch: Any) -> None:
    """One tiny training step of an encoder and a decoder, so the lazy imports and first-call
    set-up that every model pays once happen here and not inside each measured child."""
    import transformers as T

    try:
        for cls, cfg, labels in (
                (T.BertForSequenceClassification, T.BertConfig(
                    vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                    intermediate_size=32), "cls"),
                (T.GPT2LMHeadModel, T.GPT2Config(vocab_size=64, n_embd=16, n_layer=1, n_head=2,
                                                 n_positions=16), "lm")):
            model = cls(cfg).train()
            opt = torch.optim.AdamW(model.parameters())
            batch = _build_inputs(torch, cfg, labels, 2, 8, "cpu")
            model(**batch).loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
    except Exception:
        pass


def _collect(r: int, pid: int, spec: dict[str, Any]) -> dict[str, Any]:
    deadline = time.time() + float(spec.get("timeout", 600))
    chunks: list[bytes] = []
    while True:
        left = deadline - time.time()
        ready, _, _ = select.select([r], [], [], max(left, 0))
        if not ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(r)
            return {"status": "timeout", "error": f"the step did not finish in "
                    f"{spec.get('timeout', 600)} s"}
        data = os.read(r, 65536)
        if not data:
            break
        chunks.append(data)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if chunks:
        try:
            return json.loads(b"".join(chunks))
        except ValueError:
            pass
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
    return _died(sig, spec)


# --------------------------------------------------------------------------------------------
# Measured peak and largest batch probes
# --------------------------------------------------------------------------------------------
_STEP_FRAMEWORKS = ("pytorch", "tensorflow")


def _pick_device(case: Any, device: str | None, ctx: Any) -> str:
    device = device or getattr(ctx, "device", None)
    if case.framework == "tensorflow" and str(device or "").lower().startswith("gpu"):
        device = "cuda"                 # the TF backend's "gpu:0"
    if device in ("cpu", "cuda"):
        return device
    return device_memory(None)["device"] if case.framework == "pytorch" else "cpu"


def _shared_runner(ctx: Any, framework: str, device: str, timeout_s: float) -> StepRunner | None:
    """One step runner for the probes of one context (the worker's: the measured step and the
    batch search then share a zygote), closed when the context goes; None without a context."""
    if ctx is None or not hasattr(ctx, "scratch"):
        return None
    runner = ctx.scratch.get("step_runner")
    if runner is not None and (runner.device, runner.timeout) == (device, timeout_s):
        return runner
    if runner is not None:
        runner.close()
    runner = StepRunner(framework, device, timeout_s)
    try:
        weakref.finalize(ctx, runner.close)
    except TypeError:  # a context without weak references: each probe gets its own runner
        return None
    ctx.scratch["step_runner"] = runner
    return runner


def _measure_method(framework: str, device: str) -> str:
    if framework == "tensorflow":
        return ("tf.config.experimental.get_memory_info('GPU:0')['peak']" if device == "cuda" else
                "process RSS high-water mark above the pre-model baseline (TensorFlow imported "
                "and warmed up)")
    return ("torch.cuda.max_memory_allocated" if device == "cuda" else
            "process RSS high-water mark above the pre-model baseline")


def _framework_missing(check_id: str, framework: str) -> list[Finding]:
    """A skip naming the framework when the step's framework is not installed here."""
    import importlib.util

    module = {"tensorflow": "tensorflow", "pytorch": "torch"}[framework]
    if importlib.util.find_spec(module) is not None:
        return []
    fix = ("pip install tensorflow tf-keras 'transformers<5'" if framework == "tensorflow"
           else "pip install torch")
    return [Finding(check_id, "skip", f"{module} is not installed here, so no step can be measured",
                    {"framework": framework}, "The estimate from metadata still holds.", fix)]


def target_cap(case: Any, dev_name: str, check_id: str) -> tuple[int | None, list[Finding]]:
    """A measured step for the case's target GPU: on a GPU here with at least the target's
    memory, the cap that makes it the target's (the memory of one target card less the CUDA
    context); otherwise a skip saying why the estimate alone judges the fit."""
    aimed = target_capacity(case)
    if aimed is None:
        return None, []
    total, dev = aimed
    why = None
    if dev_name != "cuda":
        why = f"The target GPU ({dev['name']}) is not on this machine"
    elif (case.target.strategy or "ddp") != "ddp" and case.target.cards > 1:
        why = f"A step sharded over {dev['name']} cannot be measured on one GPU"
    elif (device_memory("cuda").get("total") or 0) < total:
        why = f"The GPU here has less memory than the target ({dev['name']})"
    if why is None:
        return max(total - CUDA_CONTEXT_BYTES, 1), []
    return None, [Finding(check_id, "skip", f"{why}, so no step is measured for it",
                          {"target": dev["name"], "device_here": dev_name},
                          "The estimate (memory.estimate) judges the fit against the target; run "
                          "the wizard where the target GPU is to measure a real step.")]


def probe_memory_measure(case: Any, ctx: Any = None, *, device: str | None = None,
                         runner: StepRunner | None = None, timeout_s: float = 600.0,
                         memory_cap_bytes: int | None = None) -> list[Finding]:
    """memory.measured-peak: the peak of one real training step at the case's batch size and
    sequence length, next to the estimate; an out-of-memory becomes memory.will-not-fit."""
    dev_name = _pick_device(case, device, ctx)
    try:
        est = _estimate_for_case(case, dev_name)
    except ModelNotFound as exc:
        return [Finding("memory.measured-peak", "skip", "Memory could not be measured",
                        {"model": case.model, "reason": str(exc)}, str(exc))]
    if case.framework not in _STEP_FRAMEWORKS:
        return [Finding("memory.measured-peak", "skip", "The measured step runs on the PyTorch "
                        "and TensorFlow paths only", {"framework": case.framework},
                        "This case is estimated from metadata only.")]
    missing = _framework_missing("memory.measured-peak", case.framework)
    if missing:
        return missing
    if memory_cap_bytes is None:
        memory_cap_bytes, skipped = target_cap(case, dev_name, "memory.measured-peak")
        if skipped:
            return skipped
    spec = step_spec(case, dev_name, seq_len=est.setup.seq_len, memory_cap_bytes=memory_cap_bytes)
    runner = runner or _shared_runner(ctx, case.framework, dev_name, timeout_s)
    own = runner is None
    runner = runner or StepRunner(case.framework, dev_name, timeout_s)
    try:
        res = runner.run(spec, timeout_s)
    finally:
        if own:
            runner.close()
    dev = device_memory(dev_name)
    if memory_cap_bytes:
        dev = {**dev, "total": memory_cap_bytes, "free": memory_cap_bytes}
    if res["status"] == "oom":
        measured = {"error": res.get("error")}
        if res.get("cap_enforced"):
            measured["cap_enforced"] = res["cap_enforced"]
        return [_will_not_fit(est, dev.get("total"), dev, ranked(est, dev.get("total")),
                              "measured", measured)]
    if res["status"] != "ok":
        return [Finding("memory.measured-peak", "error", "The measured training step failed",
                        {"status": res["status"], "error": res.get("error"), **spec},
                        "The step could not run in its child process; the estimate still holds.")]
    peak = int(res["peak_bytes"])
    err = (est.total - peak) / peak * 100 if peak > 0 else None
    ran_on = res.get("device") or dev_name
    ev = {"measured_peak_gib": _gib(peak), "estimate_gib": _gib(est.total),
          "error_percent": None if err is None else round(err, 1),
          "method": _measure_method(case.framework, ran_on),
          "device": ran_on, "batch_size": spec["batch_size"], "seq_len": spec["seq_len"],
          "optimizer": res.get("optimizer"), "precision": spec["precision"],
          "attention": res.get("attention"), "seconds": res.get("seconds"),
          "breakdown_gib": {k: _gib(v) for k, v in est.components.items()}}
    if case.framework == "tensorflow":
        ev.update(framework="tensorflow", model_class=res.get("model_class"),
                  autograph=res.get("autograph"))
    elif ran_on == "cuda":
        ev["reserved_gib"] = _gib(res.get("reserved_bytes"))
    plot = Plot(name="memory-measured-vs-estimate", title="One training step: estimate vs measured",
                kind="bar", series={"labels": ["estimate", "measured"],
                                    "values": [_gib(est.total), _gib(peak)]}, ylabel="GiB")
    return [Finding("memory.measured-peak", "info",
                    f"Measured peak of one training step: {_gib(peak):.3f} GiB "
                    f"(estimate {_gib(est.total):.3f} GiB)", ev,
                    "Peak of the second step (optimizer state already allocated), random "
                    "weights from the model's config.", "", [plot])]


def probe_largest_batch(case: Any, ctx: Any = None, *, device: str | None = None,
                        limit: int | None = None, max_attempts: int = 8,
                        memory_cap_bytes: int | None = None, timeout_s: float = 600.0,
                        runner: StepRunner | None = None) -> list[Finding]:
    """memory.largest-batch: halve from the case's batch until a step fits (or double up to
    `limit`), then bisect; each attempt is a fresh child process."""
    dev_name = _pick_device(case, device, ctx)
    if case.framework not in _STEP_FRAMEWORKS:
        return [Finding("memory.largest-batch", "skip", "The batch search runs on the PyTorch and "
                        "TensorFlow paths only", {"framework": case.framework})]
    missing = _framework_missing("memory.largest-batch", case.framework)
    if missing:
        return missing
    if memory_cap_bytes is None:
        memory_cap_bytes, skipped = target_cap(case, dev_name, "memory.largest-batch")
        if skipped:
            return skipped
    try:
        est = _estimate_for_case(case, dev_name)
    except ModelNotFound as exc:
        return [Finding("memory.largest-batch", "skip", "The batch search could not start",
                        {"model": case.model, "reason": str(exc)}, str(exc))]
    start = int(case.training.batch_size)
    limit = limit or max(start * 4, 8)
    runner = runner or _shared_runner(ctx, case.framework, dev_name, timeout_s)
    own = runner is None
    runner = runner or StepRunner(case.framework, dev_name, timeout_s)
    results: dict[int, dict[str, Any]] = {}

    def fits(b: int) -> bool:
        res = runner.run(step_spec(case, dev_name, b, est.setup.seq_len, memory_cap_bytes),
                         timeout_s)
        results[b] = res
        if res["status"] in ("ok", "oom"):
            return res["status"] == "ok"
        raise RuntimeError(res.get("error") or res["status"])

    try:
        search = find_largest_batch(fits, start, limit, max_attempts)
    except RuntimeError as exc:
        return [Finding("memory.largest-batch", "error", "The batch search stopped on an error",
                        {"error": str(exc)[:500], "attempts": {b: r["status"]
                                                               for b, r in results.items()}})]
    finally:
        if own:
            runner.close()
    capacity = memory_cap_bytes or device_memory(dev_name).get("total")
    ev = {**search.to_dict(), "device": dev_name, "seq_len": est.setup.seq_len,
          "case_batch_size": start, "search_limit": limit,
          "estimate_largest": largest_batch_by_estimate(est, capacity) if capacity else None,
          "peaks_gib": {b: _gib(r.get("peak_bytes")) for b, r in results.items()
                        if r["status"] == "ok"}}
    if case.framework == "tensorflow":
        ev["framework"] = "tensorflow"
        enforced = next((r["cap_enforced"] for r in results.values() if r.get("cap_enforced")),
                        None)
        if enforced:
            ev["cap_enforced"] = enforced
        ev["oom_errors"] = {b: (r.get("error") or "")[:300] for b, r in results.items()
                            if r["status"] == "oom"}
    if search.largest == 0:
        dev = device_memory(dev_name)
        if memory_cap_bytes:
            dev = {**dev, "total": memory_cap_bytes}
        return [_will_not_fit(replace(est, setup=replace(est.setup, batch_size=1)), capacity, dev,
                              ranked(est, capacity), "measured",
                              {"error": "batch size 1 ran out of memory",
                               "attempts": ev["attempts"],
                               **{k: ev[k] for k in ("framework", "cap_enforced", "oom_errors")
                                  if k in ev}})]
    groups = {name: {"x": [a[0] for a in search.attempts if a[1] == ok],
                     "y": [i for i, a in enumerate(search.attempts, 1) if a[1] == ok]}
              for name, ok in (("fits", True), ("out of memory", False))}
    plot = Plot(name="memory-batch-search", title="Largest batch search", kind="scatter",
                series={k: v for k, v in groups.items() if v["x"]},
                xlabel="batch size", ylabel="attempt")
    bound = "" if search.first_failure else f" (stopped at the search limit {limit})"
    if search.largest < start:
        acc = -(-start // search.largest)
        return [Finding("memory.largest-batch", "warn",
                        f"Batch {start} does not fit; the largest that does is {search.largest}",
                        ev, "Keep the effective batch with gradient accumulation.",
                        smaller_batch_code(case.framework, search.largest, acc), [plot])]
    return [Finding("memory.largest-batch", "info",
                    f"Largest batch that fits: {search.largest}{bound}", ev,
                    f"Found in {len(search.attempts)} isolated attempts.", "", [plot])]


def _main(argv: list[str]) -> int:
    if argv[:1] == ["--once"]:
        spec = json.loads(sys.stdin.read())
        result = run_step(spec, child=True)
        sys.stdout.write("\n" + json.dumps(result) + "\n")
        if spec.get("framework") == "tensorflow":
            # TensorFlow's runtime threads can hang interpreter shutdown (after an
            # out-of-memory above all); the result is written, nothing else is left to do
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        return 0
    print("usage: python -m wizard.checks.memory.probes --once  (spec JSON on stdin)",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
