"""Wall time and peak memory of `python -m wizard demo` beside a bare script doing the same
framework work (imports, loading, the forward passes), and their ratio.

    python benchmarks/demo_overhead.py [--framework tensorflow|pytorch] [--repeat 2]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BARE = r'''
import os, sys
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1"); os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
framework, root = sys.argv[1], sys.argv[2]
import numpy as np
from datasets import load_from_disk
from transformers import AutoTokenizer, DataCollatorWithPadding
ds = load_from_disk(f"{root}/dataset")
tok = AutoTokenizer.from_pretrained(f"{root}/model")
enc = ds.map(lambda e: tok(e["premise"], e["hypothesis"], truncation=True), batched=True)
if framework == "tensorflow":
    import tensorflow as tf
    from transformers import TFAutoModelForSequenceClassification as M
    coll = DataCollatorWithPadding(tok, return_tensors="np")
    tfds = enc["train"].select_columns(["input_ids", "attention_mask", "label"]).to_tf_dataset(
        columns=["input_ids", "attention_mask", "label"], batch_size=16, shuffle=False, collate_fn=coll)
    for batch in tfds: break
    model = M.from_pretrained(f"{root}/model", use_safetensors=False)
    feats = {k: v for k, v in batch.items() if k != "labels"}
    logits = model(feats).logits
    try: model(batch)
    except Exception: pass
    import tf_keras; tf_keras.losses.get("sparse_categorical_crossentropy")(batch["labels"], logits)
else:
    import torch
    from transformers import AutoModelForSequenceClassification as M
    coll = DataCollatorWithPadding(tok, return_tensors="pt")
    rows = enc["train"].select(range(16))
    batch = coll([{k: r[k] for k in ("input_ids", "attention_mask", "label")} for r in rows])
    model = M.from_pretrained(f"{root}/model")
    with torch.no_grad():
        feats = {k: v for k, v in batch.items() if k != "labels"}
        model(**feats)
        try: model(**batch)
        except Exception: pass
'''


def measure(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(seconds, peak RSS in MiB of the largest process) for one command, in a fresh wrapper."""
    wrapper = ("import resource, subprocess, sys, time, json; t = time.perf_counter(); "
               "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE); "
               "dt = time.perf_counter() - t; "
               "print(json.dumps([r.returncode, dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]))")
    out = subprocess.run([sys.executable, "-c", wrapper, *cmd], capture_output=True, text=True,
                         env=env, check=True)
    code, seconds, maxrss_kib = json.loads(out.stdout.strip().splitlines()[-1])
    if code not in (0, 1):
        raise SystemExit(f"{cmd[:4]} failed with exit code {code}")
    return seconds, maxrss_kib / 1024


def main() -> None:
    from wizard.demo.fixtures import build_fixtures, default_cache_dir
    from wizard.frontends.terminal.cli import default_demo_framework

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--framework", default=default_demo_framework())
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    root = build_fixtures(default_cache_dir(), frameworks=(args.framework,))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    if args.framework == "pytorch":
        env["USE_TF"] = "0"
    out = Path(tempfile.mkdtemp())
    wizard_cmd = [sys.executable, "-m", "wizard", "demo", "--quiet", "--framework", args.framework,
                  "--out", str(out)]
    bare_cmd = [sys.executable, "-c", BARE, args.framework, str(root)]
    rows = []
    for name, cmd in (("bare script", bare_cmd), ("wizard demo", wizard_cmd)):
        runs = [measure(cmd, env) for _ in range(args.repeat)]
        rows.append((name, min(r[0] for r in runs), max(r[1] for r in runs)))
    print(f"framework: {args.framework}, best of {args.repeat} runs, peak RSS of the largest process")
    print(f"{'':14}{'wall s':>10}{'peak MiB':>12}")
    for name, seconds, mib in rows:
        print(f"{name:14}{seconds:10.1f}{mib:12.0f}")
    (_, bs, bm), (_, ws, wm) = rows
    print(f"{'ratio':14}{ws / bs:10.2f}{wm / bm:12.2f}")


if __name__ == "__main__":
    main()
