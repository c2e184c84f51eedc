"""Collation probes: turn the first tokenized rows into a batch the way the user's setup does.

Also holds the small helpers the other data probes share: the framework's own error message in
one line, the collator run on real rows, and the user's model run on a small hand-built batch.
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from wizard.context import LABEL_NAMES, Context
from wizard.core.case import Case
from wizard.core.findings import Finding
from wizard.frameworks import import_tensorflow

TOKENIZER_OUTPUTS = ("input_ids", "attention_mask", "token_type_ids", "special_tokens_mask",
                     "position_ids", "overflow_to_sample_mapping", "offset_mapping", "length")
ERROR_TYPE = re.compile(r"\b([A-Z]\w*(?:Error|Exception)): ([^\n]+)")
RAGGED_HINT = re.compile(r"expected sequence of length \d+ at dim 1|all input arrays must have the "
                         r"same shape|Perhaps your features \(`(?:input_ids|attention_mask|"
                         r"token_type_ids)` in this case\)")
RAW_HINT = re.compile(r"Perhaps your features \(`(?P<feature>[^`\n]+)` in this case\)")
CUDA_NOT_RUN = ("not run on the GPU: an index past the end of an embedding table is a CUDA "
                "device-side assert there, which breaks every later check; `python -m wizard "
                "check CASE.yaml --device cpu` shows the CPU error")


# -- shared helpers ---------------------------------------------------------------------------
def framework_message(exc: BaseException) -> str:
    """The framework's own words in one line, e.g. 'ValueError: expected sequence of length 5 at
    dim 1 (got 7)'; unwraps Keras' 'Exception encountered when calling layer' and tf.data errors."""
    text = str(exc).strip()
    name = type(exc).__name__
    if text.startswith("Exception encountered when calling layer"):
        parts = [p.strip() for p in text.split("\n\n") if p.strip()]
        text = parts[1] if len(parts) > 1 else parts[0]
    if "Error in user-defined function" in text or "in user code:" in text:
        found = ERROR_TYPE.findall(text)
        if found:
            name, text = found[-1]
    text = re.sub(r"\{\{[^}]*\}\}\s*", "", text)
    text = re.sub(r"\s*\[Op:\w+\].*", "", text)
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return f"{name}: {line[:400]}"


def try_collate(collator: Any, features: list[dict[str, Any]]) -> str | None:
    """None when the collator builds the batch, else its error message."""
    try:
        collator(features)
    except Exception as exc:
        return framework_message(exc)
    return None


def model_config(ctx: Context) -> Any:
    """The live model's config when the model is loaded, else the config (no weights loaded)."""
    model = ctx.loaded("model")
    return getattr(model, "config", None) or ctx.config


def run_model(ctx: Context, inputs: dict[str, np.ndarray], labels: np.ndarray | None = None,
              extra: dict[str, np.ndarray] | None = None, cpu_only: bool = False) -> dict[str, Any]:
    """The user's model on a small batch: {"framework_error": ...}, or {"logits", "loss"} when it
    ran, or {"not_run": why}. `extra` goes into the call as given (e.g. a misnamed label column).
    The config's problem_type, which transformers sets on the first call with labels, is kept."""
    case = ctx.case
    backend = ctx.backend  # sets the framework's environment variables before its import
    if cpu_only and case.framework == "pytorch" and backend.device != "cpu":
        return {"not_run": CUDA_NOT_RUN}
    model = ctx.model
    config = getattr(model, "config", None)
    problem_type = getattr(config, "problem_type", None)
    try:
        if case.framework == "tensorflow":
            return _run_tf(model, inputs, labels, extra or {})
        return _run_torch(model, inputs, labels, extra or {})
    except Exception as exc:
        return {"framework_error": framework_message(exc)}
    finally:
        if config is not None:
            config.problem_type = problem_type


def _run_torch(model: Any, inputs: dict[str, np.ndarray], labels: np.ndarray | None,
               extra: dict[str, np.ndarray]) -> dict[str, Any]:
    import torch

    try:
        device = next(model.parameters()).device
    except (StopIteration, AttributeError):
        device = "cpu"
    args = {k: torch.as_tensor(np.asarray(v)).to(device) for k, v in {**inputs, **extra}.items()}
    if labels is not None:
        args["labels"] = torch.as_tensor(np.asarray(labels)).to(device)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            out = model(**args)
    finally:
        model.train(was_training)
    loss = getattr(out, "loss", None)
    return {"logits": out.logits.float().cpu().numpy(),
            "loss": None if loss is None else float(loss)}


def _run_tf(model: Any, inputs: dict[str, np.ndarray], labels: np.ndarray | None,
            extra: dict[str, np.ndarray]) -> dict[str, Any]:

    tf = import_tensorflow()
    args = {k: tf.constant(np.asarray(v)) for k, v in {**inputs, **extra}.items()}
    if labels is not None:
        args["labels"] = tf.constant(np.asarray(labels))
    out = model(args, training=False)
    loss = getattr(out, "loss", None)
    return {"logits": np.asarray(out.logits),
            "loss": None if loss is None else float(np.mean(np.asarray(loss)))}


def padded_inputs(ctx: Context, rows: list[list[int]]) -> dict[str, np.ndarray]:
    """input_ids and attention_mask for token id lists, right-padded with the pad id (or 0)."""
    pad = ctx.tokenizer.pad_token_id
    pad = 0 if pad is None else int(pad)
    width = max(len(r) for r in rows)
    ids = np.full((len(rows), width), pad, dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=np.int64)
    for i, r in enumerate(rows):
        ids[i, :len(r)] = r
        mask[i, :len(r)] = 1
    return {"input_ids": ids, "attention_mask": mask}


def train_rows(ctx: Context, n: int | None = None) -> Any:
    """The first `n` (batch size) tokenized train rows."""
    split = ctx.tokenized[ctx.case.dataset.train_split]
    n = min(n or ctx.case.training.batch_size, len(split))
    return split.select(range(n))


# -- collation ----------------------------------------------------------------------------------
def probe_collation(case: Case, ctx: Context) -> list[Finding]:
    """Ragged rows without a padding collator, and raw columns that reach the collator."""
    try:
        rows = train_rows(ctx)
    except Exception as exc:  # tokenization itself failed: data.empty-text says why
        return [Finding("data.ragged-batch", "skip", "The rows could not be tokenized",
                        evidence={"error": framework_message(exc)})]
    findings = _ragged(case, ctx, rows)
    findings += _raw_columns(case, ctx, rows)
    return findings


def _ragged(case: Case, ctx: Context, rows: Any) -> list[Finding]:
    pre = case.preprocessing
    if "input_ids" not in rows.column_names or len(rows) < 2:
        return []
    hinted = bool(RAGGED_HINT.search(case.traceback or ""))
    if pre.padding == "dynamic" and not hinted:
        return []  # DataCollatorWithPadding pads each batch: data.batch-structure shows it
    lengths = [len(ids) for ids in rows["input_ids"]]
    settings = {"padding": pre.padding, "truncation": pre.truncation, "max_length": pre.max_length,
                "batch_size": case.training.batch_size}
    if len(set(lengths)) == 1:
        return [Finding("data.ragged-batch", "pass",
                        f"Every row of the first batch has {lengths[0]} tokens",
                        evidence={**settings, "lengths": lengths})]
    error, collator = _default_collation_error(case, ctx, rows)
    shortest, longest = int(np.argmin(lengths)), int(np.argmax(lengths))
    evidence = {**settings, "lengths": lengths, "shortest": {"index": shortest,
                "tokens": lengths[shortest]}, "longest": {"index": longest,
                "tokens": lengths[longest]}, "collator_tried": collator}
    if error:
        evidence["framework_error"] = error
    why = {"none": "padding is off (`padding: none`, no DataCollatorWithPadding)",
           "max_length": "padding='max_length' without an effective max_length/truncation leaves "
                         "rows of different lengths",
           "dynamic": "the pasted error shows the batch was built without the padding collator"}
    tf = case.framework == "tensorflow"
    fix = ("from transformers import DataCollatorWithPadding\n"
           + ("data_collator = DataCollatorWithPadding(tokenizer, return_tensors=\"np\")\n"
              "train_dataset = tokenized_datasets[\"train\"].to_tf_dataset(\n"
              "    columns=[\"input_ids\", \"attention_mask\"], label_cols=[\"labels\"],\n"
              f"    batch_size={case.training.batch_size}, shuffle=True, collate_fn=data_collator)"
              if tf else
              "data_collator = DataCollatorWithPadding(tokenizer)\n"
              "trainer = Trainer(model=model, args=args, train_dataset=tokenized_datasets[\"train\"],"
              "\n                  data_collator=data_collator)\n"
              "# plain loop: DataLoader(tokenized_datasets[\"train\"], batch_size="
              f"{case.training.batch_size}, collate_fn=data_collator)")
           + "\n# or pad when tokenizing: tokenizer(texts, truncation=True, padding=\"max_length\", "
             "max_length=128)")
    return [Finding(
        "data.ragged-batch", "fail" if error else "warn",
        f"The first batch's rows have {min(lengths)} to {max(lengths)} tokens and nothing pads them",
        evidence=evidence,
        explanation=f"{why[pre.padding]}; a batch must be rectangular. Trying the collator your "
                    f"setup uses ({collator}) on the first {len(lengths)} rows: "
                    f"{error or 'it built the batch'}.",
        fix=fix)]


def _default_collation_error(case: Case, ctx: Context, rows: Any) -> tuple[str | None, str]:
    """Collate the rows as a setup without a padding collator does; (error, what was tried)."""
    label = case.dataset.label_column
    inputs = [c for c in ("input_ids", "attention_mask", "token_type_ids") if c in rows.column_names]
    labels = [label] if label in rows.column_names else []
    if case.framework == "tensorflow":
        try:
            ds = rows.to_tf_dataset(columns=inputs, label_cols=labels[0] if labels else None,
                                    batch_size=len(rows), shuffle=False)
            for _ in ds:
                break
        except Exception as exc:
            return framework_message(exc), "Dataset.to_tf_dataset(...) without collate_fn"
        return None, "Dataset.to_tf_dataset(...) without collate_fn"
    from transformers import default_data_collator

    features = [{k: row[k] for k in inputs + labels} for row in rows]
    return try_collate(default_data_collator, features), "transformers.default_data_collator"


def _raw_columns(case: Case, ctx: Context, rows: Any) -> list[Finding]:
    """Raw columns reach the collator in a plain PyTorch loop over a dataset that still has them.

    Only with evidence that the user's own dataset does: a tokenized dataset handed over live
    (ctx.supplied names it), a pasted 'Unable to create tensor' error naming the column, or a
    Trainer told to keep every column (remove_unused_columns=False)."""
    if case.framework != "pytorch":
        return []  # Keras: to_tf_dataset(columns=...) picks the columns
    label = case.dataset.label_column
    hint = RAW_HINT.search(case.traceback or "")
    named = hint.group("feature") if hint else None
    supplied = "tokenized" in (getattr(ctx, "supplied", None) or ())
    inputs = [c for c in TOKENIZER_OUTPUTS if c in rows.column_names]
    extra = [c for c in rows.column_names if c not in inputs and c not in LABEL_NAMES + (label,)]
    if named is not None and named not in extra:
        return []  # names a label or an input column: other checks
    keeps_all = case.trainer == "trainer" and case.training.remove_unused_columns is False
    if not extra or not (named or keeps_all or (supplied and case.trainer == "loop")):
        return []
    from transformers import DataCollatorWithPadding

    keep = inputs + [c for c in (label,) if c in rows.column_names] + extra
    features = [{k: row[k] for k in keep} for row in rows]
    error = try_collate(DataCollatorWithPadding(ctx.tokenizer), features)
    samples = {c: rows[0][c] for c in extra[:4]}
    evidence = {"extra_columns": extra, "first_row_values": _short(samples),
                "model_inputs": inputs, "trainer": case.trainer,
                "collator_tried": "DataCollatorWithPadding(tokenizer) on the first "
                                  f"{len(features)} rows with every column"}
    if named:
        evidence["named_in_traceback"] = named
    if error:
        evidence["framework_error"] = error
    else:
        return [Finding("data.raw-text-columns", "pass",
                        "The collator accepts the extra columns", evidence=evidence)]
    return [Finding(
        "data.raw-text-columns", "fail",
        f"Raw columns ({', '.join(extra)}) are still in the dataset the collator gets",
        evidence=evidence,
        explanation=("The Trainer was told to keep every column (remove_unused_columns=False), "
                     "so it hands them all to the collator" if keeps_all else
                     "A plain PyTorch loop hands every column to the collator (only Trainer's "
                     "remove_unused_columns drops them)") +
                    f". The padding collator cannot turn text into a tensor: {error}",
        fix=f"tokenized_datasets = tokenized_datasets.remove_columns({extra!r})\n"
            + (f"tokenized_datasets = tokenized_datasets.rename_column({label!r}, \"labels\")\n"
               if label != "labels" else "")
            + "tokenized_datasets.set_format(\"torch\")")]


def _short(values: dict[str, Any]) -> dict[str, Any]:
    return {k: (v[:80] + "..." if isinstance(v, str) and len(v) > 80 else v)
            for k, v in values.items()}
