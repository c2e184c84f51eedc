"""Overhead of the wizard's callbacks: the same training with and without them.

    python benchmarks/callback_overhead.py                 # every framework installed here
    python benchmarks/callback_overhead.py --framework pytorch --epochs 6 --repeats 3

Trains the offline demo model (a 2-layer DistilBERT on the MNLI-shaped demo data: the
smallest step there is, so the worst case for a fixed per-step cost) without and with the
callback at its default frequency; the target is an overhead <= 5 %.
- Trainer: whole Trainer.train() runs, alternating without/with; the mean time from one
  step's start to the next (forward, backward, optimizer, every callback) after the first
  epoch, and the time spent inside the callback's own hooks per step (immune to the noise
  of a shared machine).
- Keras: two copies of the model trained side by side, a step each in turn, one watched by
  the callback exactly as fit() drives it; mean CPU time per step (the periodic gradient
  snapshots included), with the median step beside it.
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
TARGET = 0.05


def _fixtures(cache: str | None, frameworks: tuple[str, ...]) -> Path:
    from wizard.demo.fixtures import build_fixtures

    root = Path(cache) if cache else Path(tempfile.gettempdir()) / "wizard-bench-fixtures"
    return build_fixtures(root, frameworks=frameworks)


def _tokenized(root: Path) -> Any:
    from datasets import load_from_disk
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(root / "model")
    ds = load_from_disk(str(root / "dataset"))
    enc = ds.map(lambda b: tok(b["premise"], b["hypothesis"], truncation=True), batched=True)
    return tok, enc


# -- PyTorch / Trainer -------------------------------------------------------------------------
def torch_run(root: Path, with_callback: bool, epochs: int, batch_size: int) -> list[float]:
    import torch
    from transformers import (
        AutoModelForSequenceClassification,
        DataCollatorWithPadding,
        Trainer,
        TrainerCallback,
        TrainingArguments,
    )

    tok, enc = _tokenized(root)
    train = enc["train"].remove_columns(["premise", "hypothesis", "idx"])
    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_pretrained(root / "model", num_labels=3)
    starts: list[float] = []

    class Clock(TrainerCallback):
        def on_step_begin(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
            starts.append(time.perf_counter())

    callbacks: list[Any] = [Clock()]
    if with_callback:
        callbacks.append(_timed_trainer_callback())  # the default frequency
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(out, per_device_train_batch_size=batch_size,
                                 num_train_epochs=epochs, learning_rate=5e-5, report_to=[],
                                 save_strategy="no", logging_strategy="no", use_cpu=True,
                                 disable_tqdm=True, dataloader_num_workers=0)
        Trainer(model=model, args=args, train_dataset=train, callbacks=callbacks,
                data_collator=DataCollatorWithPadding(tok)).train()
    return _steady(starts, len(starts) // epochs)


# -- TensorFlow / Keras ------------------------------------------------------------------------
def tf_interleaved(root: Path, steps: int, batch_size: int) -> dict[str, float]:
    """Two copies of the model trained side by side, one step each in turn: one plain, one
    watched by WizardKerasCallback (installed as fit() installs it: set_model, on_train_begin,
    on_train_batch_end after each step). Alternating steps cancels changes of machine load;
    the time is the process's CPU time per step (other processes on the machine do not count)."""
    import tensorflow as tf
    import tf_keras
    from transformers import (
        DataCollatorWithPadding,
        TFAutoModelForSequenceClassification,
    )

    from wizard.callbacks import WizardKerasCallback

    tok, enc = _tokenized(root)
    collate = DataCollatorWithPadding(tok, return_tensors="np")
    data = enc["train"].to_tf_dataset(columns=["input_ids", "attention_mask", "label"],
                                      batch_size=batch_size, shuffle=False,
                                      collate_fn=collate).repeat()
    per_epoch = math.ceil(len(enc["train"]) / batch_size)
    runs: dict[str, Any] = {}
    for name in ("without", "with"):
        tf.random.set_seed(0)
        model = TFAutoModelForSequenceClassification.from_pretrained(
            root / "model", num_labels=3, use_safetensors=False)
        model.compile(optimizer=tf_keras.optimizers.Adam(5e-5))
        cb = None
        if name == "with":
            cb = WizardKerasCallback()  # the default frequency
            cb.set_model(model)
            cb.set_params({"epochs": 1, "steps": per_epoch, "verbose": 0})
            cb.on_train_begin()
        fn = model.make_train_function()
        it = iter(data)
        for _ in range(3):  # tracing and warm-up
            fn(it)
        runs[name] = (fn, cb, it, [])
    hooks: list[float] = []
    for step in range(steps):
        for name, (fn, cb, it, times) in runs.items():
            start = time.process_time()
            logs = {k: float(v) for k, v in fn(it).items()}  # what fit() hands to callbacks
            if cb is not None:
                in_hook = time.perf_counter()
                cb.on_train_batch_end(step % per_epoch, logs)
                hooks.append(time.perf_counter() - in_hook)
            times.append(time.process_time() - start)
    # the mean is what the run pays (it holds the periodic gradient snapshots); the median
    # is a typical step between snapshots
    base = statistics.fmean(runs["without"][3])
    watched = statistics.fmean(runs["with"][3])
    overhead = watched / base - 1
    typical = statistics.median(runs["with"][3]) / statistics.median(runs["without"][3]) - 1
    print(f"{'Keras fit (TF)':<22} without {base * 1000:7.2f} ms/step   with {watched * 1000:7.2f} "
          f"ms/step   overhead {overhead * 100:+5.1f} % (mean; median step {typical * 100:+.1f} %)"
          f"   ({steps} interleaved steps, CPU time; "
          f"{'ok' if overhead <= TARGET else 'ABOVE'} the {TARGET:.0%} target)")
    hook = statistics.fmean(hooks) / statistics.median(runs["without"][3])
    print(f"{'':<22} time inside the callback's hook: {statistics.fmean(hooks) * 1000:.3f} ms/step "
          f"= {hook * 100:.1f} % of a typical step ({'ok' if hook <= TARGET else 'ABOVE'} the "
          f"{TARGET:.0%} target; the snapshots every 50 steps included)")
    return {"without_ms": base * 1000, "with_ms": watched * 1000, "overhead": overhead,
            "median_overhead": typical, "hook_share": hook}


def _limit_threads(n: int, tf_too: bool) -> None:
    if tf_too:
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(n)
        tf.config.threading.set_inter_op_parallelism_threads(n)
    if importlib.util.find_spec("torch") is not None:
        import torch

        torch.set_num_threads(n)


def _steady(starts: list[float], per_epoch: int) -> list[float]:
    """Step-to-step intervals after the first epoch (tracing and warm-up left out)."""
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    return gaps[per_epoch:]


def measure(name: str, run: Any, root: Path, epochs: int, repeats: int,
            batch_size: int) -> dict[str, float]:
    """Mean step time of each run (snapshot steps included: what the run pays), alternating
    without/with so that a change of machine load hits both; the figure compares the medians
    of those per-run means."""
    without: list[float] = []
    with_cb: list[float] = []
    inside: list[float] = []
    for _ in range(repeats):
        without.append(statistics.fmean(run(root, False, epochs, batch_size)))
        _TIMER.clear()
        gaps = run(root, True, epochs, batch_size)
        with_cb.append(statistics.fmean(gaps))
        if _TIMER:
            inside.append(sum(_TIMER.values()) / max(1, _TIMER_STEPS[0]))
    base, watched = statistics.median(without), statistics.median(with_cb)
    overhead = watched / base - 1
    spread = (max(without) - min(without)) / base
    print(f"{name:<22} without {base * 1000:7.2f} ms/step   with {watched * 1000:7.2f} ms/step"
          f"   overhead {overhead * 100:+5.1f} %   (run-to-run spread without the callback: "
          f"{spread * 100:.0f} %)")
    result = {"without_ms": base * 1000, "with_ms": watched * 1000, "overhead": overhead}
    if inside:
        share = statistics.median(inside) / base
        print(f"{'':<22} time inside the callback's hooks: {statistics.median(inside) * 1000:.3f} "
              f"ms/step = {share * 100:.1f} % of a step "
              f"({'ok' if share <= TARGET else 'ABOVE'} the {TARGET:.0%} target)")
        result["inside_share"] = share
    return result


_TIMER: dict[str, float] = {}
_TIMER_STEPS = [0]


def _timed_trainer_callback() -> Any:
    """WizardTrainerCallback with its hooks timed (what it costs the run, step by step)."""
    from wizard.callbacks import WizardTrainerCallback

    class Timed(WizardTrainerCallback):
        pass

    for hook in ("_on_forward", "on_pre_optimizer_step", "on_step_end", "on_log"):
        original = getattr(WizardTrainerCallback, hook)

        def timed(self: Any, *a: Any, _f: Any = original, _h: str = hook, **k: Any) -> Any:
            start = time.perf_counter()
            try:
                return _f(self, *a, **k)
            finally:
                _TIMER[_h] = _TIMER.get(_h, 0.0) + time.perf_counter() - start
                if _h == "on_step_end":
                    _TIMER_STEPS[0] = getattr(a[1], "global_step", _TIMER_STEPS[0])

        setattr(Timed, hook, timed)
    return Timed()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--framework", choices=["pytorch", "tensorflow", "both"], default="both")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--tf-steps", type=int, default=300, help="interleaved Keras steps")
    parser.add_argument("--cache", help="where the demo fixtures are built")
    parser.add_argument("--threads", type=int, default=1,
                        help="intra-op threads per framework (default 1: steady figures on a "
                             "shared machine; 0 keeps the framework's default)")
    args = parser.parse_args(argv)
    has_tf = importlib.util.find_spec("tensorflow") is not None
    wanted = ["pytorch", "tensorflow"] if args.framework == "both" else [args.framework]
    if "tensorflow" in wanted and not has_tf:
        if args.framework == "tensorflow":
            print("TensorFlow is not installed here; run with the TensorFlow environment.",
                  file=sys.stderr)
            return 2
        wanted.remove("tensorflow")
    if "tensorflow" not in wanted:
        os.environ.setdefault("USE_TF", "0")
    if args.threads:  # before anything starts TensorFlow (building the fixtures does)
        _limit_threads(args.threads, has_tf and "tensorflow" in wanted)
    root = _fixtures(args.cache, ("tensorflow", "pytorch") if has_tf else ("pytorch",))
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    print(f"callback overhead, demo model, batch {args.batch_size}, {args.epochs} epochs x "
          f"{args.repeats} repeats, {args.threads or 'default'} thread(s), default frequency "
          "(gradient snapshot every 50 steps)")
    for fw in wanted:
        if fw == "pytorch":
            measure("Trainer (PyTorch)", torch_run, root, args.epochs, args.repeats,
                    args.batch_size)
        else:
            tf_interleaved(root, args.tf_steps, args.batch_size)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
