"""Text probes: empty inputs, train/eval duplicates, and token lengths against max_length and
the model's position embeddings, all measured with the user's tokenizer on the user's rows."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator

import numpy as np

from wizard.checks.collation import framework_message, model_config, run_model
from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding, Plot
from wizard.core.tasks import SEQ2SEQ

EMPTY_WARN_SHARE = 0.01       # empty strings in >= 1 % of a split's rows
DUPLICATE_WARN_SHARE = 0.01   # eval rows whose text is also in train
DUPLICATE_FAIL_SHARE = 0.10   # a tenth of the eval split scored on training text: its metrics
                              # measure memory, not generalisation (a split fault, not noise)
TRUNCATED_WARN_SHARE = 0.20   # rows cut by a max_length below the model's maximum
NO_LIMIT = int(1e20)          # transformers' LARGE_INTEGER: model_max_length "not set"
# Position ids start at padding_idx + 1 in these (RobertaEmbeddings and its copies).
OFFSET_POSITIONS = ("roberta", "xlm-roberta", "xlm-roberta-xl", "camembert", "longformer",
                    "roberta-prelayernorm", "data2vec-text", "ibert", "luke", "mpnet", "markuplm",
                    "xmod", "bros")


@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence transformers' logging (the 'Token indices sequence length' warning) for a while."""
    from transformers.utils import logging as hf_logging

    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(level)


# -- empty / missing text -----------------------------------------------------------------------
def probe_empty_text(case: Case, ctx: Context) -> list[Finding]:
    """None, non-string and empty/whitespace-only values in the text columns."""
    missing: dict[str, dict[str, Any]] = {}
    empty: dict[str, dict[str, Any]] = {}
    rows_per_split: dict[str, int] = {}
    for split, ds in ctx.raw.items():
        rows_per_split[split] = len(ds)
        for col in case.dataset.text_columns:
            if col not in ds.column_names:
                continue
            values = list(ds[col])
            bad = [i for i, v in enumerate(values) if not isinstance(v, str)]
            blank = [i for i, v in enumerate(values) if isinstance(v, str) and not v.strip()]
            if bad:
                missing[f"{split}.{col}"] = {"count": len(bad), "indices": bad[:10],
                                             "values": sorted({repr(values[i]) for i in bad})[:5]}
            if blank:
                empty[f"{split}.{col}"] = {"count": len(blank), "indices": blank[:10],
                                           "share": round(len(blank) / max(1, len(values)), 4)}
    evidence: dict[str, Any] = {"text_columns": case.dataset.text_columns, "rows": rows_per_split}
    cols = case.dataset.text_columns
    keep = " and ".join(f"isinstance(x[{c!r}], str) and x[{c!r}].strip()" for c in cols)
    fix = f"dataset = dataset.filter(lambda x: {keep})"
    if missing:
        where, info = next(iter(missing.items()))
        split, col = where.split(".", 1)
        evidence["not_text"] = missing
        evidence["framework_error"] = _tokenize_error(case, ctx, split, info["indices"][0])
        total = sum(v["count"] for v in missing.values())
        return [Finding(
            "data.empty-text", "fail",
            f"{total} text values are not strings (None or numbers), e.g. {split!r} row "
            f"{info['indices'][0]} of {col!r}",
            evidence={**evidence, "empty": empty} if empty else evidence,
            explanation="The tokenizer accepts only strings; tokenizing that row raises: "
                        f"{evidence['framework_error']}.",
            fix=fix)]
    if empty:
        worst = max(v["share"] for v in empty.values())
        where, info = next(iter(empty.items()))
        split = where.split(".", 1)[0]
        evidence["empty"] = empty
        evidence["model_sees"] = _decoded_row(case, ctx, split, info["indices"][0])
        warn = worst >= EMPTY_WARN_SHARE
        return [Finding(
            "data.empty-text", "warn" if warn else "info",
            f"{sum(v['count'] for v in empty.values())} text values are empty or whitespace",
            evidence=evidence,
            explanation=f"An empty text still carries a label; the model sees only "
                        f"{evidence['model_sees']!r} and learns noise from it"
                        + ("" if warn else " (a negligible share here)") + ".",
            fix=fix if warn else "")]
    return [Finding("data.empty-text", "pass", "Every text value is a non-empty string",
                    evidence=evidence)]


def _tokenize_error(case: Case, ctx: Context, split: str, index: int) -> str:
    """Tokenize the bad row with its neighbour, as a batched dataset.map call does."""
    ds = ctx.raw[split]
    rows = ds.select(range(max(0, index - 1), min(len(ds), index + 2)))
    texts = [list(rows[c]) for c in case.dataset.text_columns[:2] if c in rows.column_names]
    try:
        ctx.tokenizer(*texts, truncation=case.preprocessing.truncation)
    except Exception as exc:
        return framework_message(exc)
    return "no error for this row"


def _decoded_row(case: Case, ctx: Context, split: str, index: int) -> str:
    row = ctx.raw[split][index]
    texts = [row[c] for c in case.dataset.text_columns[:2] if c in row]
    try:
        ids = ctx.tokenizer(*texts)["input_ids"]
        return ctx.tokenizer.decode(ids)
    except Exception as exc:
        return framework_message(exc)


# -- train/eval duplicates ----------------------------------------------------------------------
def probe_duplicates(case: Case, ctx: Context) -> list[Finding]:
    """Eval rows whose text (all text columns) also occurs, exactly, in the train rows."""
    spec = case.dataset
    if not spec.eval_split or spec.eval_split not in ctx.raw:
        return []
    train, evals = ctx.raw[spec.train_split], ctx.raw[spec.eval_split]
    cols = [c for c in spec.text_columns if c in train.column_names and c in evals.column_names]
    if not cols:
        return []
    seen: dict[tuple, int] = {}
    for i, key in enumerate(zip(*(list(train[c]) for c in cols))):
        seen.setdefault(key, i)
    label = spec.label_column
    train_labels = list(train[label]) if label in train.column_names else None
    eval_labels = list(evals[label]) if label in evals.column_names else None
    pairs = []
    for j, key in enumerate(zip(*(list(evals[c]) for c in cols))):
        if all(isinstance(k, str) and k.strip() for k in key) and key in seen:
            pairs.append((j, seen[key], key))
    evidence: dict[str, Any] = {"train_rows": len(train), "eval_rows": len(evals),
                                "columns_compared": cols}
    if not pairs:
        return [Finding("data.train-eval-duplicates", "pass",
                        "No eval text also occurs in the train rows", evidence=evidence)]
    share = len(pairs) / max(1, len(evals))
    conflicting = [j for j, i, _ in pairs if train_labels is not None and eval_labels is not None
                   and train_labels[i] != eval_labels[j]]
    evidence.update(count=len(pairs), eval_share=round(share, 4),
                    examples=[{"eval_index": j, "train_index": i,
                               "text": " | ".join(k[:100] for k in key)}
                              for j, i, key in pairs[:5]],
                    eval_indices=[j for j, _, _ in pairs[:20]],
                    with_different_labels=conflicting[:10])
    status = ("fail" if share >= DUPLICATE_FAIL_SHARE else
              "warn" if share >= DUPLICATE_WARN_SHARE else "info")
    return [Finding(
        "data.train-eval-duplicates", status,
        f"{len(pairs)} eval rows ({share:.1%}) repeat a train text exactly",
        evidence=evidence,
        explanation="The model is scored on texts it trained on, so eval metrics overstate how "
                    "it does on new text (leakage)"
                    + (f"; {len(conflicting)} of them even carry a different label"
                       if conflicting else "") + ".",
        fix="train_texts = set(zip(*(dataset['train'][c] for c in "
            f"{cols!r})))\n"
            "dataset['validation'] = dataset['validation'].filter(\n"
            f"    lambda x: tuple(x[c] for c in {cols!r}) not in train_texts)")]


# -- lengths ------------------------------------------------------------------------------------
def max_positions(config: Any) -> tuple[int | None, str]:
    """The longest sequence the model's position embeddings accept, and where it comes from."""
    value = getattr(config, "max_position_embeddings", None)
    if not isinstance(value, int) or value <= 0:
        return None, "the config has no max_position_embeddings"
    if getattr(config, "model_type", "") in OFFSET_POSITIONS:
        offset = int(getattr(config, "pad_token_id", 1) or 1) + 1
        return value - offset, (f"max_position_embeddings={value} minus {offset} (positions "
                                f"start after the padding index in {config.model_type})")
    return value, f"config.max_position_embeddings={value}"


def truncation_limit(case: Case, tokenizer: Any) -> int | None:
    """Where the tokenizer cuts with the case's settings (None: it does not cut)."""
    pre = case.preprocessing
    if not pre.truncation:
        return None
    if pre.max_length:
        return int(pre.max_length)
    limit = getattr(tokenizer, "model_max_length", None)
    return int(limit) if isinstance(limit, int) and limit < NO_LIMIT else None


def raw_lengths(case: Case, ctx: Context, split: str) -> tuple[list[int], list[int]]:
    """Token counts without truncation (with special tokens) of the rows that are text, and
    those rows' indices."""
    ds = ctx.raw[split]
    paired = 1 if case.task == SEQ2SEQ else 2  # a seq2seq target is not part of the input
    cols = [c for c in case.dataset.text_columns[:paired] if c in ds.column_names]
    columns = [list(ds[c]) for c in cols]
    index = [i for i in range(len(ds)) if all(isinstance(col[i], str) for col in columns)]
    if not index or not cols:
        return [], []
    texts = [[col[i] for i in index] for col in columns]
    with quiet_transformers():
        ids = ctx.tokenizer(*texts, truncation=False)["input_ids"]
    return [len(x) for x in ids], index


def probe_lengths(case: Case, ctx: Context) -> list[Finding]:
    """Token lengths against max_length and the model's positions; share truncated; histogram."""
    config = model_config(ctx)
    limit_pos, pos_source = max_positions(config)
    cut = truncation_limit(case, ctx.tokenizer)
    pre = case.preprocessing
    if pre.packing:
        return [Finding("data.text-lengths", "info",
                        "The texts are packed into blocks: the packing check judges their length",
                        evidence={"packing": True, "max_length": pre.max_length})]
    per_split: dict[str, dict[str, Any]] = {}
    raw: dict[str, list[int]] = {}
    seen_lengths: dict[str, tuple[list[int], list[int]]] = {}
    try:
        tokenized = ctx.tokenized
    except Exception as exc:
        return [Finding("data.text-lengths", "skip", "The rows could not be tokenized",
                        evidence={"error": framework_message(exc)})]
    for split in ctx.raw:
        lengths, index = raw_lengths(case, ctx, split)
        if not lengths:
            continue
        raw[split] = lengths
        ids = tokenized[split]["input_ids"]
        masks = tokenized[split]["attention_mask"] if "attention_mask" in \
            tokenized[split].column_names else None
        model_len = [len(ids[i]) for i in index]
        real = [int(sum(masks[i])) if masks is not None else len(ids[i]) for i in index]
        seen_lengths[split] = (model_len, index)
        arr = np.asarray(lengths)
        truncated = int(sum(1 for a, b in zip(lengths, real) if a > b))
        per_split[split] = {
            "rows": len(lengths), "min": int(arr.min()), "median": float(np.median(arr)),
            "p90": float(np.percentile(arr, 90)), "p99": float(np.percentile(arr, 99)),
            "max": int(arr.max()), "longest_row": index[int(arr.argmax())],
            "truncated": truncated, "truncated_share": round(truncated / len(lengths), 4)}
        if pre.padding == "max_length" and model_len:
            per_split[split]["padding_share"] = round(1 - sum(real) / max(1, sum(model_len)), 3)
    if not per_split:
        return []
    tok_max = getattr(ctx.tokenizer, "model_max_length", None)
    evidence: dict[str, Any] = {
        "splits": per_split, "truncation": pre.truncation, "max_length": pre.max_length,
        "truncation_limit": cut, "tokenizer.model_max_length":
            tok_max if isinstance(tok_max, int) and tok_max < NO_LIMIT else "not set",
        "max_positions": limit_pos, "max_positions_source": pos_source}
    if pre.truncation and cut is None:
        evidence["note"] = ("truncation=True without max_length and the tokenizer has no "
                            "model_max_length: nothing is cut")
    findings = [_lengths_finding(case, raw, evidence, cut, limit_pos)]
    findings.append(_too_long(case, ctx, seen_lengths, evidence, cut, limit_pos))
    return findings


def _lengths_finding(case: Case, raw: dict[str, list[int]], evidence: dict[str, Any],
                     cut: int | None, limit_pos: int | None) -> Finding:
    train = evidence["splits"].get(case.dataset.train_split) or next(iter(evidence["splits"].values()))
    share = max(s["truncated_share"] for s in evidence["splits"].values())
    marks = []
    if cut:
        marks.append({"x": cut, "label": f"truncation at {cut}"})
    if limit_pos and limit_pos != cut:
        marks.append({"x": limit_pos, "label": f"model maximum {limit_pos}", "color": "#7f7f7f"})
    plot = Plot(name="token-lengths", title="Tokens per example (before truncation)", kind="hist",
                series={s: v for s, v in raw.items()}, x={"bins": 30}, xlabel="tokens",
                ylabel="examples", marks=marks)
    room = cut is not None and limit_pos is not None and cut < limit_pos
    warn = share >= TRUNCATED_WARN_SHARE and room
    title = (f"{share:.0%} of the examples are cut at max_length={cut}" if warn else
             f"Median {train['median']:.0f} tokens, longest {train['max']}"
             + (f"; {share:.0%} truncated" if share else ""))
    explanation = ("Truncation drops the end of each long example; the labels may depend on it. "
                   f"The model accepts up to {limit_pos} tokens." if warn else
                   "The token counts of the rows checked, as the tokenizer produces them before "
                   "truncation.")
    fix = (f"tokenizer(texts, truncation=True, max_length={min(limit_pos, _round_up(train['p99']))})"
           if warn and limit_pos else "")
    return Finding("data.text-lengths", "warn" if warn else "info", title, evidence=evidence,
                   explanation=explanation, fix=fix, plots=[plot])


def _round_up(x: float) -> int:
    n = 16
    while n < x:
        n *= 2
    return n


def _too_long(case: Case, ctx: Context, seen: dict[str, tuple[list[int], list[int]]],
              evidence: dict[str, Any], cut: int | None, limit_pos: int | None) -> Finding:
    if limit_pos is None:
        return Finding("data.sequence-longer-than-positions", "skip",
                       "The model has no fixed maximum number of positions",
                       evidence={"max_positions_source": evidence["max_positions_source"]})
    over: dict[str, dict[str, Any]] = {}
    for split, (lengths, index) in seen.items():
        bad = [(index[k], n) for k, n in enumerate(lengths) if n > limit_pos]
        if bad:
            over[split] = {"count": len(bad), "of": len(lengths), "rows": [i for i, _ in bad[:10]],
                           "longest": max(n for _, n in bad)}
    base = {"max_positions": limit_pos, "max_positions_source": evidence["max_positions_source"],
            "truncation": case.preprocessing.truncation, "truncation_limit": cut,
            "padding": case.preprocessing.padding}
    if not over:
        return Finding("data.sequence-longer-than-positions", "pass",
                       f"Every sequence fits the model's {limit_pos} positions",
                       evidence={**base, "longest_seen": max(max(v[0]) for v in seen.values()
                                                             if v[0])})
    split, info = next(iter(over.items()))
    row = ctx.tokenized[split][info["rows"][0]]
    ids = list(row["input_ids"])[:limit_pos + 8]
    inputs = {"input_ids": np.asarray([ids], dtype=np.int64),
              "attention_mask": np.ones((1, len(ids)), dtype=np.int64)}
    out = run_model(ctx, inputs, cpu_only=True)
    error = out.get("framework_error")
    ran = "logits" in out
    evidence_out = {**base, "too_long": over, "repro_tokens": len(ids)}
    if error:
        evidence_out["framework_error"] = error
    if "not_run" in out:
        evidence_out["not_run"] = out["not_run"]
    why = ("truncation is off" if not case.preprocessing.truncation else
           f"the truncation limit {cut} is above the model's {limit_pos} positions"
           if cut else "truncation=True cuts nothing: no max_length and no model_max_length")
    if case.preprocessing.padding == "max_length" and cut and cut > limit_pos:
        why += f" (and padding='max_length' makes every row {cut} tokens long)"
    return Finding(
        "data.sequence-longer-than-positions", "warn" if ran else ("fail" if error else "warn"),
        f"{sum(v['count'] for v in over.values())} sequences are longer than the model's "
        f"{limit_pos} positions",
        evidence=evidence_out,
        explanation=f"{why}. The tokenizer warns 'Token indices sequence length is longer than "
                    "the specified maximum'; the model then fails on them ('index out of range "
                    "in self' in PyTorch, a device-side assert on GPU). "
                    + (f"Running your model on {split!r} row {info['rows'][0]} cut to "
                       f"{len(ids)} tokens: {error}." if error else
                       "Your model ran on such a sequence without an error: it extrapolates past "
                       "the positions it was trained on." if ran else out.get("not_run", "")),
        fix=f"tokenizer(texts, truncation=True, max_length={limit_pos})"
            + ("\n# Keras/Trainer alike: the same call inside dataset.map(...)" if ran or error
               else ""))
