"""Token classification checks on the first batch: labels aligned with word_ids (-100 on special
tokens, padding and continuation subwords), and the tags against the head's num_labels."""
from __future__ import annotations

from typing import Any

import numpy as np

from wizard.backends.lm_data import IGNORE_INDEX
from wizard.context import Context
from wizard.core.case import Case
from wizard.core.findings import Finding

ALIGN_FIX = ("def align_labels(word_ids, tags):\n"
             "    out, prev = [], None\n"
             "    for w in word_ids:\n"
             "        out.append(-100 if w is None or w == prev else tags[w])\n"
             "        prev = w\n"
             "    return out\n"
             "# labels = align_labels(tokenized.word_ids(i), example['ner_tags'])")


def _tag_names(ctx: Context, case: Case) -> list[str] | None:
    feature = ctx.raw[case.dataset.train_split].features.get(case.dataset.label_column)
    inner = getattr(feature, "feature", None)
    names = getattr(inner, "names", None) if inner is not None else None
    return list(names) if names else None


def probe_token_labels(case: Case, ctx: Context) -> list[Finding]:
    batch = ctx.batch
    ids = np.asarray(batch.inputs["input_ids"])
    labels = batch.inputs.get("labels", batch.labels)
    if labels is None:
        return [Finding("data.token-labels-misaligned", "fail", "The batch has no labels",
                        evidence={"keys": sorted(batch.inputs)},
                        fix="data_collator = DataCollatorForTokenClassification(tokenizer)")]
    labels = np.asarray(labels)
    mask = np.asarray(batch.inputs.get("attention_mask", np.ones_like(ids)))
    tok = ctx.tokenizer
    # the unknown token stands for a real word (with its word id and tag), not an added token
    added = set(getattr(tok, "all_special_ids", []) or []) - {getattr(tok, "unk_token_id", None)}
    special = np.isin(ids, sorted(added)) & (mask == 1)
    kept = labels != IGNORE_INDEX
    counts: dict[str, int] = {"special_tokens_labelled": int((special & kept).sum()),
                              "padding_labelled": int(((mask == 0) & kept).sum())}
    rows: list[list[str]] = []
    if not ctx.supplied and case.dataset.label_column in ctx.raw[case.dataset.train_split].column_names \
            and "word_ids" in ctx.tokenized[case.dataset.train_split].column_names:
        split = ctx.tokenized[case.dataset.train_split].select(range(ids.shape[0]))
        tags = list(ctx.raw[case.dataset.train_split][case.dataset.label_column][:ids.shape[0]])
        wrong = continuation = 0
        for i, word_ids in enumerate(split["word_ids"]):
            prev = None
            row = []
            for j, w in enumerate(word_ids[:labels.shape[1]]):
                lab = int(labels[i, j])
                if w >= 0 and lab != IGNORE_INDEX:
                    wrong += int(w >= len(tags[i]) or lab != tags[i][w])
                    continuation += int(w == prev)
                if i == 0 and j < 24:
                    word = tok.convert_ids_to_tokens(int(ids[i, j]))
                    row.append(f"{word}|{'-100' if lab == IGNORE_INDEX else lab}")
                prev = w
            rows.append(row)
        counts.update(wrong_word_label=wrong, continuation_subwords_labelled=continuation)
    evidence: dict[str, Any] = {**counts, "token_labels": case.preprocessing.token_labels,
                                "example_row": rows[0] if rows else []}
    findings: list[Finding] = []
    bad = counts["special_tokens_labelled"] + counts["padding_labelled"] + \
        counts.get("wrong_word_label", 0)
    if bad:
        findings.append(Finding(
            "data.token-labels-misaligned", "fail",
            f"Token labels are not aligned with the words: {bad} position(s) carry a label that "
            "is not their word's",
            evidence=evidence,
            explanation="Tokenizing splits words into subwords and adds special tokens, so the "
                        "word labels must be re-aligned with word_ids(): special tokens and "
                        "padding at -100, each word's label on its (first) subword. Labels "
                        "given one per word drift against the tokens.",
            fix=ALIGN_FIX))
    try:
        findings += _label_count(case, ctx, evidence)
    except (KeyError, ValueError, TypeError):  # a live run whose raw tags were not seen
        evidence["label_count"] = "not checked: the raw tags were not seen"
    if not findings:
        cont = counts.get("continuation_subwords_labelled", 0)
        how = (f"{cont} continuation subwords labelled (label_all_tokens)" if cont else
               "continuation subwords at -100")
        findings.append(Finding("data.token-labels", "pass",
                                f"Token labels follow word_ids: special tokens and padding at "
                                f"-100, {how}", evidence=evidence))
    return findings


def _label_count(case: Case, ctx: Context, evidence: dict[str, Any]) -> list[Finding]:
    tags = ctx.raw[case.dataset.train_split][case.dataset.label_column]
    values = [int(t) for row in tags for t in row]
    if not values:
        return []
    highest, heads = max(values), ctx.num_labels
    names = _tag_names(ctx, case)
    wanted = len(names) if names else highest + 1
    evidence.update(highest_tag=highest, num_labels=heads, tag_names=names)
    if highest < heads and wanted <= heads:
        return []
    return [Finding(
        "data.token-labels-out-of-range", "fail",
        f"Tags reach {highest} ({wanted} tags) but the token head has num_labels={heads}",
        evidence=evidence,
        explanation="A tag the head has no output for raises an index error on the GPU (or a "
                    "NaN loss); the head must have one output per tag.",
        fix=f"model = AutoModelForTokenClassification.from_pretrained(checkpoint, "
            f"num_labels={wanted}" + (", id2label=dict(enumerate(label_names))" if names else "")
            + ")")]
