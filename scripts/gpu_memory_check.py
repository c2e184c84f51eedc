"""GPU check of the memory estimate: estimated vs measured peak of one training step, and the
largest batch found by the isolated search, on a real CUDA GPU. Prints a JSON summary.

    python scripts/gpu_memory_check.py [--quick] [--cap-gib 8] [--out summary.json]

Needs only PyTorch and transformers (no TensorFlow, nothing to install, no downloads: models are
random configs). Without a CUDA GPU it runs one tiny CPU row and reports the GPU parts as skipped.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("USE_TF", "0")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

# name, config class, config kwargs, task, runs: (batch, seq, precision, gradient checkpointing)
GPU_MODELS = [
    ("bert-base-cls", "BertConfig", {"architectures": ["BertForSequenceClassification"]},
     "text-classification", [(32, 256, "fp32", False), (32, 256, "bf16", False)]),
    ("gpt2-124m-lm", "GPT2Config", {"architectures": ["GPT2LMHeadModel"]}, "causal-lm",
     [(16, 512, "fp32", False), (16, 512, "bf16", False), (16, 512, "bf16", True)]),
    ("llama-0.5b-lm", "LlamaConfig", {"hidden_size": 1024, "num_hidden_layers": 16,
                                      "num_attention_heads": 16, "num_key_value_heads": 8,
                                      "intermediate_size": 2816, "vocab_size": 32000,
                                      "architectures": ["LlamaForCausalLM"]},
     "causal-lm", [(8, 1024, "bf16", False), (8, 1024, "bf16", True)]),
    ("t5-small-s2s", "T5Config", {"decoder_start_token_id": 0, "pad_token_id": 0,
                                  "architectures": ["T5ForConditionalGeneration"]},
     "text2text-generation", [(32, 256, "fp32", False)]),
]
CPU_MODEL = ("bert-tiny-cls", "BertConfig",
             {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
              "intermediate_size": 128, "vocab_size": 2000,
              "architectures": ["BertForSequenceClassification"]},
             "text-classification", [(8, 64, "fp32", False)])


def _write(folder: Path, cfg_name: str, kwargs: dict) -> None:
    import transformers

    kw = dict(kwargs)
    archs = kw.pop("architectures")
    cfg = getattr(transformers, cfg_name)(**kw)
    cfg.architectures = archs
    cfg.save_pretrained(folder)


def _rows(models: list, device: str, tmp: Path, runner) -> list[dict]:
    from wizard.estimate.memory import TrainingSetup, estimate_model

    rows = []
    for name, cfg_name, kwargs, task, runs in models:
        folder = tmp / name
        _write(folder, cfg_name, kwargs)
        for b, s, precision, ckpt in runs:
            setup = TrainingSetup(batch_size=b, seq_len=s, precision=precision, device=device,
                                  gradient_checkpointing=ckpt, task=task)
            t = time.perf_counter()
            est = estimate_model(folder, setup)
            est_s = time.perf_counter() - t
            res = runner.run({"model": str(folder), "task": task, "batch_size": b, "seq_len": s,
                              "optimizer": "adamw", "precision": precision, "device": device,
                              "gradient_checkpointing": ckpt})
            row = {"model": name, "params": est.params.total, "batch": b, "seq": s,
                   "precision": precision, "gradient_checkpointing": ckpt,
                   "estimate_bytes": est.total, "estimate_seconds": round(est_s, 4),
                   "components": est.components, "status": res["status"]}
            if res["status"] == "ok":
                peak = res["peak_bytes"]
                row.update(measured_bytes=peak, reserved_bytes=res.get("reserved_bytes"),
                           attention=res.get("attention"), step_seconds=res.get("seconds"),
                           error_percent=round(100 * (est.total - peak) / peak, 1))
            else:
                row["error"] = res.get("error")
            print(json.dumps({k: v for k, v in row.items() if k != "components"}),
                  file=sys.stderr, flush=True)
            rows.append(row)
    return rows


def _largest_batch(device: str, tmp: Path, runner, cap_bytes: int, start: int) -> dict:
    from wizard.estimate.memory import (
        TrainingSetup,
        estimate_model,
        find_largest_batch,
        largest_batch_by_estimate,
    )

    folder = tmp / "gpt2-124m-lm"
    if not folder.exists():
        _write(folder, "GPT2Config", {"architectures": ["GPT2LMHeadModel"]})
    seq = 512
    statuses: dict[int, dict] = {}

    def fits(b: int) -> bool:
        res = runner.run({"model": str(folder), "task": "causal-lm", "batch_size": b,
                          "seq_len": seq, "optimizer": "adamw", "precision": "bf16",
                          "device": device, "memory_cap_bytes": cap_bytes})
        statuses[b] = {"status": res["status"], "peak_bytes": res.get("peak_bytes"),
                       "error": (res.get("error") or "")[:160]}
        if res["status"] not in ("ok", "oom"):
            raise RuntimeError(res.get("error") or res["status"])
        return res["status"] == "ok"

    t = time.perf_counter()
    search = find_largest_batch(fits, start, limit=start * 8, max_attempts=10)
    est = estimate_model(folder, TrainingSetup(batch_size=start, seq_len=seq, precision="bf16",
                                               device=device, task="causal-lm"))
    # the cap is on the allocator only (no CUDA context), so compare without the overhead
    by_estimate = largest_batch_by_estimate(est, cap_bytes + est.overhead)
    return {"model": "gpt2-124m-lm", "seq": seq, "precision": "bf16", "cap_bytes": cap_bytes,
            **search.to_dict(), "largest_by_estimate": by_estimate, "attempt_details": statuses,
            "seconds": round(time.perf_counter() - t, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rows")
    ap.add_argument("--cap-gib", type=float, default=8.0,
                    help="memory cap for the largest-batch search (default 8 GiB)")
    ap.add_argument("--out", help="also write the JSON summary here")
    args = ap.parse_args(argv)

    import torch
    import transformers

    from wizard.checks.memory.probes import StepRunner

    cuda = torch.cuda.is_available()
    device = "cuda" if cuda else "cpu"
    summary: dict = {"device": torch.cuda.get_device_name(0) if cuda else "cpu",
                     "torch": torch.__version__, "transformers": transformers.__version__,
                     "skipped": []}
    if cuda:
        free, total = torch.cuda.mem_get_info(0)
        summary.update(gpu_total_bytes=int(total), gpu_free_bytes=int(free))
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp_s, StepRunner("pytorch", device, timeout=300) as runner:
        tmp = Path(tmp_s)
        if cuda:
            models = GPU_MODELS[:2] if args.quick else GPU_MODELS
            summary["rows"] = _rows(models, device, tmp, runner)
            try:
                summary["largest_batch"] = _largest_batch(device, tmp, runner,
                                                          int(args.cap_gib * 2 ** 30), 16)
            except RuntimeError as exc:
                summary["largest_batch"] = {"error": str(exc)[:400]}
        else:
            summary["skipped"] += ["cuda estimate-vs-peak rows", "cuda largest-batch search"]
            summary["rows"] = _rows([CPU_MODEL], "cpu", tmp, runner)
    ok = [r for r in summary["rows"] if r.get("error_percent") is not None]
    summary["mean_abs_error_percent"] = (round(sum(abs(r["error_percent"]) for r in ok) / len(ok), 1)
                                         if ok else None)
    summary["worst_abs_error_percent"] = max((abs(r["error_percent"]) for r in ok), default=None)
    summary["seconds"] = round(time.perf_counter() - t0, 1)
    text = json.dumps(summary, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
