"""Tokenizer probes: a pad token the collator and the model agree on, token ids inside the
model's embedding table, and a tokenizer that belongs to the model's checkpoint."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from wizard.checks.collation import (
    CUDA_NOT_RUN,
    framework_message,
    model_config,
    padded_inputs,
    run_model,
    try_collate,
)
from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding

LOGITS_ATOL = 1e-3          # padded vs unpadded logits of one row, absolute ...
LOGITS_RTOL = 1e-2          # ... plus relative to the largest logit
VOCAB_GAP_WARN = 0.10       # tokenizer smaller than the embedding table by > 10 %
VOCAB_MISMATCH_FAIL = 0.01  # > 1 % of the shared tokens have other ids in the checkpoint's tokenizer


def embedding_rows(ctx: Context) -> tuple[int | None, str]:
    """Rows of the model's input embedding table (the live model when loaded, else the config)."""
    model = ctx.loaded("model")
    if model is not None:
        try:
            emb = model.get_input_embeddings()
            for attr in ("weight", "embeddings"):
                w = getattr(emb, attr, None)
                if w is not None and getattr(w, "shape", None) is not None:
                    return int(w.shape[0]), "model.get_input_embeddings()"
        except Exception:
            pass
    rows = getattr(model_config(ctx), "vocab_size", None)
    return (int(rows), "config.vocab_size") if isinstance(rows, int) else (None, "unknown")


# -- pad token --------------------------------------------------------------------------------
def probe_pad_token(case: Case, ctx: Context) -> list[Finding]:
    """The tokenizer can pad, and the model treats its pad id as padding."""
    tok = ctx.tokenizer
    config = model_config(ctx)
    pad, cfg_pad = tok.pad_token_id, getattr(config, "pad_token_id", None)
    evidence: dict[str, Any] = {
        "tokenizer": type(tok).__name__, "name_or_path": getattr(tok, "name_or_path", ""),
        "pad_token": tok.pad_token, "pad_token_id": pad, "eos_token": tok.eos_token,
        "eos_token_id": tok.eos_token_id, "config.pad_token_id": cfg_pad,
        "padding": case.preprocessing.padding, "batch_size": case.training.batch_size}
    if pad is None:
        if case.preprocessing.padding == "none":
            return []  # nothing pads; data.ragged-batch judges the batch
        evidence["framework_error"] = _pad_error(case, ctx)
        fix = ("tokenizer.pad_token = tokenizer.eos_token\nmodel.config.pad_token_id = "
               "tokenizer.pad_token_id" if tok.eos_token is not None else
               "tokenizer.add_special_tokens({\"pad_token\": \"[PAD]\"})\n"
               "model.resize_token_embeddings(len(tokenizer))\n"
               "model.config.pad_token_id = tokenizer.pad_token_id")
        return [Finding(
            "data.no-pad-token", "fail", "The tokenizer has no pad token, so it cannot pad a batch",
            evidence=evidence,
            explanation="Decoder-only checkpoints (GPT-2, LLaMA, Mistral) ship without one. "
                        f"Padding two rows of different lengths: {evidence['framework_error']}. "
                        "The model's config needs the same id, or a sequence-classification head "
                        "cannot find each row's last real token.",
            fix=fix)]
    if cfg_pad == pad or case.training.batch_size < 2:
        return [Finding("data.no-pad-token", "pass",
                        f"Pad token {tok.pad_token!r} (id {pad}) is the model's pad id too",
                        evidence=evidence)]
    try:
        check = _padding_changes_logits(ctx)
    except Exception as exc:
        check = {"not_run": framework_message(exc)}
    evidence.update(check)
    if "not_run" in check:
        return [Finding("data.no-pad-token", "skip",
                        f"config.pad_token_id={cfg_pad} differs from the tokenizer's {pad}; "
                        "padding could not be tried", evidence=evidence)]
    if not check.get("framework_error") and not check.get("padding_changes_logits"):
        return [Finding("data.no-pad-token", "pass",
                        "Padding does not change the model's output", evidence=evidence)]
    what = (check["framework_error"] if check.get("framework_error") else
            f"row {check['row']}'s logits move by {check['max_abs_difference']:.4g} when it is "
            "padded")
    return [Finding(
        "data.no-pad-token", "fail",
        f"model.config.pad_token_id is {cfg_pad} but the tokenizer pads with id {pad}",
        evidence=evidence,
        explanation="The model locates padding by config.pad_token_id (sequence-classification "
                    "heads of decoder models pool the last non-pad token). Run on one row alone "
                    f"and inside a padded batch: {what}.",
        fix="model.config.pad_token_id = tokenizer.pad_token_id")]


def _two_rows(ctx: Context) -> list[list[int]]:
    """The shortest and the longest of the first rows' token ids (different lengths if any)."""
    split = ctx.tokenized[ctx.case.dataset.train_split]
    ids = list(split.select(range(min(len(split), max(2, ctx.case.training.batch_size))))[
        "input_ids"])
    ids.sort(key=len)
    return [list(ids[0]), list(ids[-1])]


def _pad_error(case: Case, ctx: Context) -> str:
    from transformers import DataCollatorWithPadding

    try:
        rows = _two_rows(ctx)
    except Exception as exc:
        return framework_message(exc)
    if len(rows[0]) == len(rows[1]):
        rows[0] = rows[0][:-1] or rows[0]
    error = try_collate(DataCollatorWithPadding(ctx.tokenizer), [{"input_ids": r} for r in rows])
    return error or "the collator padded without error"


def _padding_changes_logits(ctx: Context) -> dict[str, Any]:
    """Logits of the shorter row alone vs in a batch padded to the longer row."""
    short, long = _two_rows(ctx)
    if len(short) == len(long):
        return {"not_run": "the first rows all have the same length"}
    alone = run_model(ctx, padded_inputs(ctx, [short]))
    padded = run_model(ctx, padded_inputs(ctx, [short, long]))
    for out in (alone, padded):
        if "framework_error" in out or "not_run" in out:
            return {k: v for k, v in out.items() if k != "logits"}
    a, b = alone["logits"][0], padded["logits"][0]
    diff = float(np.max(np.abs(a - b)))
    scale = float(np.max(np.abs(a))) if a.size else 0.0
    return {"row": 0, "tokens": len(short), "padded_to": len(long),
            "max_abs_difference": round(diff, 6),
            "padding_changes_logits": diff > LOGITS_ATOL + LOGITS_RTOL * scale}


# -- token ids vs the embedding table ---------------------------------------------------------
def probe_vocab(case: Case, ctx: Context) -> list[Finding]:
    """Token ids in the tokenized rows at or above the model's number of embedding rows."""
    tok = ctx.tokenizer
    try:
        tokenized = ctx.tokenized
    except Exception as exc:
        return [Finding("data.token-ids-out-of-vocab", "skip", "The rows could not be tokenized",
                        evidence={"error": framework_message(exc)})]
    rows, source = embedding_rows(ctx)
    if rows is None:
        return []
    bad = _ids_at_or_above(tokenized, rows)
    if bad and not ctx.is_loaded("model"):
        ctx.model  # the live embedding table decides, and the repro below needs the model
        rows, source = embedding_rows(ctx)
        bad = _ids_at_or_above(tokenized, rows)
    evidence: dict[str, Any] = {"embedding_rows": rows, "source": source,
                                "len(tokenizer)": len(tok)}
    big_added = {t: i for t, i in _added(tok).items() if i >= rows}
    if big_added:
        evidence["added_tokens_past_the_table"] = dict(list(big_added.items())[:10])
    if not bad:
        if len(tok) > rows:
            return [Finding(
                "data.token-ids-out-of-vocab", "warn",
                f"The tokenizer has {len(tok)} tokens but the model only {rows} embedding rows",
                evidence=evidence,
                explanation="None of the rows checked uses the extra tokens yet; any text that "
                            "does makes the embedding lookup fail.",
                fix="model.resize_token_embeddings(len(tokenizer))")]
        return [Finding("data.token-ids-out-of-vocab", "pass",
                        f"Every token id is below the model's {rows} embedding rows",
                        evidence=evidence)]
    split, info = next(iter(bad.items()))
    ids = sorted(info["ids"])
    evidence.update(out_of_range=bad, tokens=dict(zip(
        [str(i) for i in ids[:10]], tok.convert_ids_to_tokens(ids[:10]))))
    row = list(tokenized[split][info["rows"][0]]["input_ids"])
    out = run_model(ctx, {"input_ids": np.asarray([row], dtype=np.int64),
                          "attention_mask": np.ones((1, len(row)), dtype=np.int64)}, cpu_only=True)
    if "framework_error" in out:
        evidence["framework_error"] = out["framework_error"]
    elif "not_run" in out:
        evidence["not_run"] = CUDA_NOT_RUN
    return [Finding(
        "data.token-ids-out-of-vocab", "fail",
        f"Token ids up to {max(ids)} reach a model with {rows} embedding rows",
        evidence=evidence,
        explanation=f"{info['count']} {split!r} rows hold ids the embedding table has no row for "
                    f"(tokens {', '.join(repr(t) for t in tok.convert_ids_to_tokens(ids[:3]))}): "
                    "tokens added to the tokenizer without resizing the model, or a tokenizer "
                    "from another checkpoint. "
                    + (f"Your model on {split!r} row {info['rows'][0]}: "
                       f"{evidence['framework_error']}." if "framework_error" in evidence
                       else evidence.get("not_run", "")),
        fix="model.resize_token_embeddings(len(tokenizer))")]


def _ids_at_or_above(tokenized: dict[str, Any], rows: int) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for split, ds in tokenized.items():
        if "input_ids" not in ds.column_names:
            continue
        bad_rows, ids = [], set()
        for i, seq in enumerate(ds["input_ids"]):
            high = [t for t in seq if t >= rows]
            if high:
                bad_rows.append(i)
                ids.update(int(t) for t in high)
        if bad_rows:
            out[split] = {"count": len(bad_rows), "of": len(ds), "rows": bad_rows[:10],
                          "ids": sorted(ids)[:20]}
    return out


def _added(tok: Any) -> dict[str, int]:
    try:
        return dict(tok.get_added_vocab())
    except Exception:
        return {}


# -- tokenizer vs checkpoint --------------------------------------------------------------------
def probe_tokenizer_checkpoint(case: Case, ctx: Context) -> list[Finding]:
    """A tokenizer that belongs to another checkpoint than the model."""
    tok = ctx.tokenizer
    config = model_config(ctx)
    rows, source = embedding_rows(ctx)
    model_path = str(getattr(config, "_name_or_path", "") or case.model)
    tok_path = str(getattr(tok, "name_or_path", "") or "")
    evidence: dict[str, Any] = {"tokenizer": tok_path, "model": model_path,
                                "len(tokenizer)": len(tok), "embedding_rows": rows,
                                "embedding_rows_source": source}
    special = {}
    for name in ("pad", "bos", "eos"):
        a, b = getattr(tok, f"{name}_token_id", None), getattr(config, f"{name}_token_id", None)
        if a is not None and b is not None and a != b and not (isinstance(b, list) and a in b):
            special[name] = {"tokenizer": a, "config": b}
    if special:
        evidence["special_ids_differ"] = special
    own = _checkpoint_tokenizer(model_path, tok_path)
    if own is not None:
        compare = _compare_vocab(tok, own)
        evidence.update(compare)
        if compare["mismatched_share"] > VOCAB_MISMATCH_FAIL:
            sample = _first_text(case, ctx)
            if sample:
                ids = tok(*sample)["input_ids"]
                evidence["first_example"] = tok.decode(ids)
                evidence["as_the_model_reads_it"] = own.decode([i for i in ids if i < len(own)])
            return [Finding(
                "data.tokenizer-model-mismatch", "fail",
                "The tokenizer is not the model's: they number the tokens differently",
                evidence=evidence,
                explanation=f"{compare['mismatched_share']:.0%} of the tokens the two share have "
                            f"other ids in the tokenizer saved with the model ({model_path}); "
                            "the model reads your ids as other words"
                            + (f": {evidence['as_the_model_reads_it'][:120]!r}"
                               if "as_the_model_reads_it" in evidence else "") + ".",
                fix=f"tokenizer = AutoTokenizer.from_pretrained({model_path!r})")]
    if rows and len(tok) < (1 - VOCAB_GAP_WARN) * rows:
        return [Finding(
            "data.tokenizer-model-mismatch", "warn",
            f"The tokenizer has {len(tok)} tokens but the model {rows} embedding rows",
            evidence=evidence,
            explanation=f"{1 - len(tok) / rows:.0%} of the embedding table can never be used: "
                        "the tokenizer probably comes from another checkpoint, so its ids mean "
                        "other tokens to the model"
                        + (f"; its special ids differ too ({', '.join(special)})" if special
                           else "") + ".",
            fix=f"tokenizer = AutoTokenizer.from_pretrained({model_path!r})")]
    return [Finding("data.tokenizer-model-mismatch", "pass",
                    "The tokenizer fits the model's embedding table", evidence=evidence)]


def _same_place(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        return Path(a).expanduser().resolve() == Path(b).expanduser().resolve()
    except OSError:
        return False


def _checkpoint_tokenizer(model_path: str, tok_path: str) -> Any:
    """The tokenizer saved with the model, when it is another one than the user's and is
    available without a download."""
    if not model_path or not tok_path or _same_place(model_path, tok_path):
        return None
    path = Path(model_path).expanduser()
    if path.is_dir() and not any((path / f).exists() for f in (
            "tokenizer.json", "tokenizer_config.json", "vocab.txt", "vocab.json",
            "tokenizer.model", "spiece.model")):
        return None
    from transformers import AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(model_path, local_files_only=True)
    except Exception:
        return None


def _compare_vocab(tok: Any, own: Any) -> dict[str, Any]:
    mine, theirs = tok.get_vocab(), own.get_vocab()
    shared = set(mine) & set(theirs)
    differ = [t for t in shared if mine[t] != theirs[t]]
    return {"checkpoint_tokenizer_size": len(own), "shared_tokens": len(shared),
            "shared_with_other_ids": len(differ),
            "mismatched_share": round(len(differ) / max(1, len(shared)), 4) if shared else 1.0,
            "examples": {t: {"yours": mine[t], "checkpoint": theirs[t]}
                         for t in sorted(differ)[:5]}}


def _first_text(case: Case, ctx: Context) -> list[str] | None:
    ds = ctx.raw[case.dataset.train_split]
    if not len(ds):
        return None
    row = ds[0]
    texts = [row[c] for c in case.dataset.text_columns[:2] if c in row]
    return texts if texts and all(isinstance(t, str) for t in texts) else None
