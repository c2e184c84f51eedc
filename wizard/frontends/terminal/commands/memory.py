"""`python -m wizard memory MODEL_OR_PATH [...]`: will fine-tuning this model fit, and what to change.

From metadata alone (config.json and the safetensors headers; no weights are downloaded): the
per-device breakdown, whether it fits the GPU, per-GPU figures when sharded, and ranked advice.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from wizard.core.gpus import known_gpus, read_gpu
from wizard.errors import CaseError
from wizard.estimate.memory import (
    GiB,
    ModelGeometry,
    ModelNotFound,
    TrainingSetup,
    advise,
    estimate_model,
    largest_batch_by_estimate,
    read_config,
    sharding_table,
)
from wizard.estimate.plans import plan_summary

STRATEGY_CHOICES = ("ddp", "zero1", "zero2", "zero3", "fsdp")


def register(subparsers: Any) -> None:
    """Add the `memory` subcommand."""
    p = subparsers.add_parser(
        "memory", help="estimate the training memory of a model and what would make it fit",
        description="Estimate the memory of one training step from the model's config and "
                    "safetensors headers (no weights downloaded): weights, gradients, optimizer "
                    "state, activations; whether it fits the GPU; ranked changes that shrink it.")
    _arguments(p)
    p.set_defaults(func=run)


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="Hub model id or local save_pretrained folder")
    p.add_argument("--batch-size", type=int, default=8, help="per-device batch size (default 8)")
    p.add_argument("--seq-len", type=int, default=None,
                   help="tokens per sample (default: the model's maximum, at most 512)")
    p.add_argument("--optimizer", default="adamw",
                   help="adamw, adam, sgd, 'SGD(momentum=0.9)', adafactor, adamw_bnb_8bit ...")
    p.add_argument("--dtype", choices=("fp32", "fp16", "bf16"), default="fp32",
                   help="training precision; fp16/bf16 = mixed precision with fp32 master weights")
    p.add_argument("--weights-dtype", choices=("fp32", "fp16", "bf16", "nf4", "int8"),
                   default="fp32", help="dtype the weights are kept in (bf16 = pure "
                                        "half-precision training; nf4 = a 4-bit QLoRA base)")
    p.add_argument("--gradient-checkpointing", action="store_true")
    p.add_argument("--lora-rank", type=int, default=None, help="train LoRA adapters of this rank")
    p.add_argument("--lora-targets", default=None, metavar="MODULES",
                   help="LoRA target_modules, comma-separated, or all-linear (default q,v)")
    p.add_argument("--task", default=None,
                   help="text-classification, token-classification, causal-lm, seq2seq ... "
                        "(default: from the architecture)")
    p.add_argument("--gpu", default=None, metavar="NAME",
                   help=f"the GPU the run will happen on, here or not: {known_gpus()}, or its "
                        "memory in GiB")
    p.add_argument("--gpus", type=int, default=1, help="number of GPUs (default 1)")
    p.add_argument("--strategy", choices=STRATEGY_CHOICES, default="ddp",
                   help="how the GPUs share the work (default ddp)")
    p.add_argument("--gpu-memory", type=float, default=None, metavar="GB",
                   help="memory of one GPU in GiB (default: GPU 0 here, via NVML, if any)")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                   help="where training runs (cpu: dropout masks are full size)")
    p.add_argument("--revision", default=None, help="branch, tag or commit on the Hub")
    p.add_argument("--endpoint", default=None, help="Hub endpoint (default: huggingface.co)")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")


def _fail(msg: str) -> int:
    print(msg, file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Estimate, print, return 0 (fits or unknown), 1 (will not fit) or 2 (bad input)."""
    if "transformers" not in sys.modules:   # only PyTorch classes are built (meta device)
        os.environ.setdefault("USE_TF", "0")

    for name in ("batch_size", "seq_len", "gpus", "lora_rank"):
        value = getattr(args, name)
        if value is not None and value < 1:
            return _fail(f"--{name.replace('_', '-')} must be at least 1.")
    if args.gpu_memory is not None and args.gpu_memory <= 0:
        return _fail("--gpu-memory must be a positive number of GiB, e.g. 24.")
    try:
        gpu = read_gpu(args.gpu) if args.gpu else None
    except CaseError as exc:
        return _fail(f"--gpu: {exc}")
    t0 = time.perf_counter()
    try:
        config, _ = read_config(args.model, args.revision, args.endpoint)
        geometry = ModelGeometry.from_config(config)
        seq = args.seq_len or min(int(geometry.max_positions or 512), 512)
        setup = TrainingSetup(batch_size=args.batch_size, seq_len=seq, optimizer=args.optimizer,
                              precision=args.dtype, weights_dtype=args.weights_dtype,
                              gradient_checkpointing=args.gradient_checkpointing,
                              lora_rank=args.lora_rank, gpus=args.gpus, strategy=args.strategy,
                              lora_targets=tuple(t.strip() for t in args.lora_targets.split(",")
                                                 if t.strip()) if args.lora_targets else None,
                              device=args.device, task=args.task)
        est = estimate_model(args.model, setup, revision=args.revision, endpoint=args.endpoint)
    except ModelNotFound as exc:
        return _fail(str(exc))
    except (ValueError, OSError) as exc:
        return _fail(f"Could not read {args.model}: {exc}; pass a save_pretrained folder or a "
                     "Hub model id.")
    seconds = time.perf_counter() - t0
    capacity, cap_source = _capacity(args, gpu)
    ranked = advise(est, capacity)
    fits = est.fits(capacity)
    summary = plan_summary(est, capacity, cap_source or "")
    table = sharding_table(est)
    result = {**est.to_dict(), "capacity_bytes": capacity, "capacity_source": cap_source,
              "fits": fits, "advice": [a.to_dict() for a in ranked],
              "plans": summary["plans"], "multi_gpu": summary["multi_gpu"],
              "best_fix": summary["recommendation"], "sharding": table,
              "largest_batch_by_estimate": largest_batch_by_estimate(est, capacity)
              if capacity else None, "seconds": round(seconds, 3)}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        _print_rich(result, GiB)
    return 1 if fits is False else 0


def _capacity(args: argparse.Namespace, gpu: Any = None) -> tuple[int | None, str | None]:
    """Memory of one GPU: --gpu-memory, else the --gpu card's, else GPU 0 here (NVML)."""
    count = f"{args.gpus} x " if args.gpus > 1 else ""
    if args.gpu_memory:
        name = f"{gpu.name}, " if gpu is not None and gpu.name else ""
        return int(args.gpu_memory * GiB), f"{count}{name}--gpu-memory {args.gpu_memory:g}"
    if gpu is not None:
        return int(gpu.memory_gib * GiB), f"{count}{gpu.label}"
    if args.device == "cpu":
        return None, None
    try:
        import pynvml

        pynvml.nvmlInit()
        if pynvml.nvmlDeviceGetCount() > 0:
            h = pynvml.nvmlDeviceGetHandleByIndex(0)
            return int(pynvml.nvmlDeviceGetMemoryInfo(h).total), "GPU 0 (NVML)"
    except Exception:
        pass
    return None, None


def _print_rich(r: dict[str, Any], gib: int) -> None:
    from rich.console import Console
    from rich.table import Table

    con = Console(highlight=False)
    p, st = r["params"], r["setup"]
    con.print(f"[bold]{r['model']}[/]: {p['total'] / 1e6:,.1f} M parameters "
              f"({p['checkpoint_dtype']}, from {p['source']}), "
              f"{r['trainable_params'] / 1e6:,.2f} M trainable")
    con.print(f"batch {st['batch_size']} x {st['seq_len']} tokens, {st['optimizer']}, "
              f"{st['precision']}" + (", gradient checkpointing" if st["gradient_checkpointing"]
                                      else "") + (f", {st['gpus']} GPUs ({st['strategy']})"
                                                  if st["gpus"] > 1 else ""))
    t = Table(title="Memory per device, one training step")
    t.add_column("component")
    t.add_column("GiB", justify="right")
    t.add_column("share", justify="right")
    total = r["total"] or 1
    for k, v in r["components"].items():
        if k == "overlap" and v:
            t.add_row("overlap (grads vs activations)", f"{v / gib:.2f}", "")
        elif v:
            t.add_row(k.replace("_", " "), f"{v / gib:.2f}", f"{100 * v / total:.0f} %")
    t.add_row("[bold]total[/]", f"[bold]{r['total'] / gib:.2f}[/]", "")
    if r["overhead"]:
        t.add_row("+ CUDA context", f"{r['overhead'] / gib:.2f}", "")
    con.print(t)
    cap = r["capacity_bytes"]
    if cap:
        need = (r["total"] + r["overhead"]) / gib
        verdict = "[green]fits[/]" if r["fits"] else "[bold red]does not fit[/]"
        con.print(f"{need:.2f} GiB needed, {cap / gib:.1f} GiB available "
                  f"({r['capacity_source']}): {verdict}; largest batch by estimate: "
                  f"{r['largest_batch_by_estimate']}")
    else:
        con.print("[dim]No GPU here and no --gpu NAME or --gpu-memory given: fit not judged.[/]")
    s = Table(title="Per-GPU GiB when sharded (same per-device batch)")
    s.add_column("strategy")
    gpus = list(next(iter(r["sharding"].values())).keys())
    for n in gpus:
        s.add_column(f"{n} GPU" + ("s" if int(n) > 1 else ""), justify="right")
    for strat, row in r["sharding"].items():
        cells = []
        for n in gpus:
            v = (row[n] + r["overhead"]) / gib
            ok = cap is None or row[n] + r["overhead"] <= cap
            cells.append(f"{v:.2f}" if ok else f"[red]{v:.2f}[/]")
        s.add_row(strat, *cells)
    con.print(s)
    if r["advice"] and not cap:   # with a capacity, the plans below rank them with the rest
        a = Table(title="What would shrink it, biggest effect first")
        a.add_column("change")
        a.add_column("new GiB", justify="right")
        a.add_column("saves", justify="right")
        if cap:
            a.add_column("fits")
        for adv in r["advice"]:
            row = [adv["action"], f"{adv['total'] / gib:.2f}", f"{adv['saving'] / gib:.2f}"]
            if cap:
                row.append("yes" if adv["fits"] else "no")
            a.add_row(*row)
        con.print(a)
    if r["plans"] and cap:
        pt = Table(title="Plans, least disruptive first (the first that fits is the "
                         "recommendation)")
        pt.add_column("plan")
        pt.add_column("new GiB", justify="right")
        pt.add_column("fits")
        for plan in r["plans"]:
            pt.add_row(plan["action"], f"{plan['total'] / gib:.2f}",
                       "[green]yes[/]" if plan["fits"] else "no")
        con.print(pt)
    if r["multi_gpu"]:
        con.print(r["multi_gpu"])
    best = r["best_fix"] or (r["advice"][0] if r["advice"] else None)
    if best:
        label = ("Recommended" if r["best_fix"] and r["best_fix"]["fits"] else "Biggest saving")
        con.print(f"[bold]{label}:[/] {best['action']} ({best['total'] / gib:.2f} GiB)")
        con.print(best["code"], markup=False)
    for note in r["notes"]:
        con.print(f"[dim]note: {note}[/]")


def main(argv: list[str] | None = None) -> int:
    """Run the subcommand on its own: `python -m wizard.frontends.terminal.commands.memory MODEL ...`."""
    parser = argparse.ArgumentParser(prog="python -m wizard memory")
    _arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
