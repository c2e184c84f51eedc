"""Estimated vs measured peak memory of one training step on CPU, for three model sizes per
architecture, and how long an estimate from metadata takes.

    .venv-modern/bin/python benchmarks/memory_accuracy.py [--quick] [--json OUT.json]

Each measurement is the second of two AdamW steps in a fresh child process (random weights from
the config), measured as the anonymous-RSS high-water mark above the pre-model baseline. Target:
|error| <= 15 %; estimate from metadata well under 2 s.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("USE_TF", "0")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

# (name, config class, kwargs by size, task, batch, seq)
SIZES = ("tiny", "small", "medium")
MODELS = [
    ("bert-cls", "BertConfig", "text-classification", {
        "tiny": dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=128),
        "small": dict(hidden_size=256, num_hidden_layers=4, num_attention_heads=4, intermediate_size=1024),
        "medium": dict(hidden_size=512, num_hidden_layers=6, num_attention_heads=8, intermediate_size=2048)},
     {"vocab_size": 8000, "architectures": ["BertForSequenceClassification"]}),
    ("gpt2-lm", "GPT2Config", "causal-lm", {
        "tiny": dict(n_embd=64, n_layer=2, n_head=2),
        "small": dict(n_embd=256, n_layer=4, n_head=4),
        "medium": dict(n_embd=512, n_layer=6, n_head=8)},
     {"vocab_size": 8000, "n_positions": 512, "architectures": ["GPT2LMHeadModel"]}),
    ("llama-lm", "LlamaConfig", "causal-lm", {
        "tiny": dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                     intermediate_size=128),
        "small": dict(hidden_size=256, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
                      intermediate_size=512),
        "medium": dict(hidden_size=512, num_hidden_layers=6, num_attention_heads=8, num_key_value_heads=4,
                       intermediate_size=1376)},
     {"vocab_size": 8000, "architectures": ["LlamaForCausalLM"]}),
    ("t5-s2s", "T5Config", "text2text-generation", {
        "tiny": dict(d_model=64, num_layers=2, num_heads=2, d_ff=128, d_kv=32),
        "small": dict(d_model=256, num_layers=3, num_heads=4, d_ff=1024, d_kv=64),
        "medium": dict(d_model=512, num_layers=4, num_heads=8, d_ff=2048, d_kv=64)},
     {"vocab_size": 8000, "decoder_start_token_id": 0, "pad_token_id": 0,
      "architectures": ["T5ForConditionalGeneration"]}),
]
SHAPES = {"tiny": (8, 128), "small": (8, 256), "medium": (4, 256)}
# extra rows: gradient checkpointing and bf16 autocast (slow on CPUs without bf16 units: tiny only)
VARIANTS = [("gpt2-lm", "small", {"gradient_checkpointing": True}),
            ("llama-lm", "small", {"gradient_checkpointing": True}),
            ("bert-cls", "tiny", {"precision": "bf16"}),
            ("llama-lm", "tiny", {"precision": "bf16"})]


def _write_config(folder: Path, cfg_name: str, kwargs: dict) -> None:
    import transformers

    archs = kwargs.pop("architectures")
    cfg = getattr(transformers, cfg_name)(**kwargs)
    cfg.architectures = archs
    cfg.save_pretrained(folder)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="two architectures only")
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args(argv)

    from wizard.checks.memory.probes import StepRunner
    from wizard.estimate.memory import TrainingSetup, estimate_model

    models = MODELS[:2] if args.quick else MODELS
    rows = []
    with tempfile.TemporaryDirectory() as tmp, StepRunner("pytorch", "cpu", timeout=600) as runner:
        plan = [(m, size, {}) for m in models for size in SIZES]
        if not args.quick:
            plan += [(next(m for m in MODELS if m[0] == n), size, extra)
                     for n, size, extra in VARIANTS]
        for (name, cfg_name, task, sizes, common), size, extra in plan:
            folder = Path(tmp) / f"{name}-{size}"
            if not folder.exists():
                _write_config(folder, cfg_name, {**sizes[size], **common})
            b, s = SHAPES[size]
            setup = TrainingSetup(batch_size=b, seq_len=s, optimizer="adamw", device="cpu",
                                  task=task, **extra)
            est = estimate_model(folder, setup)
            res = runner.run({"model": str(folder), "task": task, "batch_size": b, "seq_len": s,
                              "optimizer": "adamw", "precision": "fp32", "device": "cpu", **extra})
            label = size + "".join(f" {k.split('_')[0]}={v}" for k, v in extra.items())
            if res["status"] != "ok":
                print(f"{name:9s} {label:14s} measurement failed: {res.get('error')}")
                continue
            peak = res["peak_bytes"]
            err = 100 * (est.total - peak) / peak
            rows.append({"model": name, "size": size, "variant": extra, "params": est.params.total,
                         "batch": b, "seq": s, "estimate_mib": round(est.total / 2**20, 1),
                         "measured_mib": round(peak / 2**20, 1), "error_percent": round(err, 1),
                         "step_seconds": res.get("seconds")})
            print(f"{name:9s} {label:26s} params {est.params.total/1e6:6.2f}M  b={b} s={s}  "
                  f"estimate {est.total/2**20:7.1f} MiB  measured {peak/2**20:7.1f} MiB  "
                  f"error {err:+6.1f} %", flush=True)
        timings = _time_estimates(Path(tmp))
    worst = max(abs(r["error_percent"]) for r in rows) if rows else None
    mean = sum(abs(r["error_percent"]) for r in rows) / len(rows) if rows else None
    print(f"\n|error|: mean {mean:.1f} %, worst {worst:.1f} % (target <= 15 %)")
    for k, v in timings.items():
        print(f"{k}: {v:.2f}" + ("" if "imported" in k else " s"))
    base = timings["import torch, transformers (baseline)"]
    print(f"config only / baseline: {timings['config only, 7B (CLI)'] / base:.2f}x (target <= 1.2)")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "timings_s": timings,
                                               "mean_abs_error": mean, "worst_abs_error": worst},
                                              indent=2))
    return 0 if worst is not None and worst <= 15 else 1


LLAMA_7B = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
            "intermediate_size": 11008, "num_attention_heads": 32, "num_hidden_layers": 32,
            "num_key_value_heads": 32, "vocab_size": 32000, "max_position_embeddings": 4096,
            "rms_norm_eps": 1e-5, "torch_dtype": "float16"}


def _fresh(args: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, *args], check=True, capture_output=True, cwd=ROOT,
                   env={**os.environ, "USE_TF": "0"})
    return time.perf_counter() - t


def _time_estimates(tmp: Path) -> dict[str, float]:
    """Seconds for an estimate, each in a fresh `python -m wizard memory` process as a user runs
    it: from safetensors headers (a saved GPT-2), and from a config alone (a 7B Llama folder with
    config.json only), beside `import torch, transformers` in a fresh process."""
    os.environ["USE_TF"] = "0"
    import transformers

    folder = tmp / "saved-gpt2"
    transformers.GPT2LMHeadModel(transformers.GPT2Config(n_embd=256, n_layer=4, n_head=4,
                                                         vocab_size=8000)).save_pretrained(folder)
    config_only = tmp / "llama-7b-config-only"
    config_only.mkdir()
    (config_only / "config.json").write_text(json.dumps(LLAMA_7B))
    runs = {"import torch, transformers (baseline)": ["-c", "import torch, transformers"],
            "safetensors headers (CLI)": ["-m", "wizard", "memory", str(folder), "--json"],
            "config only, 7B (CLI)": ["-m", "wizard", "memory", str(config_only), "--json"]}
    out = {name: min(_fresh(args) for _ in range(2)) for name, args in runs.items()}
    code = ("import sys, runpy; sys.argv = ['wizard', 'memory', %r, '--json']\n"
            "try: runpy.run_module('wizard', run_name='__main__')\n"
            "except SystemExit: pass\n"
            "print('torch imported' if 'torch' in sys.modules else 'no torch')" % str(folder))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "USE_TF": "0"})
    out["safetensors headers: torch imported (1 = yes)"] = float(
        proc.stdout.strip().endswith("torch imported"))
    return out


if __name__ == "__main__":
    raise SystemExit(main())
