"""Token classification data as the user's pipeline makes it: words tokenized with
is_split_into_words, word labels put on the subwords the way the case says
(wizard.core.tasks.TOKEN_LABELS), and the first batch through DataCollatorForTokenClassification."""
from __future__ import annotations

from typing import Any

import numpy as np

from wizard.backends.lm_data import IGNORE_INDEX
from wizard.core.case import Case


def align(word_ids: list[int | None], word_labels: list[int], how: str) -> list[int]:
    """Subword labels from word labels: `first-subword` (-100 on continuations), `all-subwords`;
    special tokens (word id None) get -100."""
    out, previous = [], None
    for wid in word_ids:
        if wid is None or wid >= len(word_labels):
            out.append(IGNORE_INDEX)
        elif wid != previous or how == "all-subwords":
            out.append(int(word_labels[wid]))
        else:
            out.append(IGNORE_INDEX)
        previous = wid
    return out


def encode_tokens(case: Case, tokenizer: Any) -> Any:
    """The function given to Dataset.map: input_ids, attention_mask, word_ids and the labels."""
    spec, pre = case.dataset, case.preprocessing

    def encode(examples: dict[str, list]) -> dict[str, list]:
        kwargs: dict[str, Any] = {"truncation": pre.truncation, "is_split_into_words": True}
        if pre.max_length:
            kwargs["max_length"] = pre.max_length
        out = tokenizer(examples[spec.text_columns[0]], **kwargs)
        words = [out.word_ids(i) for i in range(len(out["input_ids"]))]
        tags = examples[spec.label_column]
        out["word_ids"] = [[-1 if w is None else w for w in ids] for ids in words]
        if pre.token_labels == "none":
            out["labels"] = [list(t) for t in tags]
        else:
            out["labels"] = [align(ids, t, pre.token_labels) for ids, t in zip(words, tags)]
        return out

    return encode


def token_batch(tokenizer: Any, rows: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The first batch as DataCollatorForTokenClassification pads it (labels with -100)."""
    from transformers import DataCollatorForTokenClassification

    features = [{"input_ids": list(r["input_ids"]), "attention_mask": list(r["attention_mask"]),
                 "labels": list(r["labels"])} for r in rows]
    width = max(len(f["input_ids"]) for f in features)
    for f in features:  # word labels longer than the tokens are cut as the collator would fail
        f["labels"] = f["labels"][:width]
    collated = DataCollatorForTokenClassification(tokenizer, return_tensors="np")(features)
    return {k: np.asarray(v) for k, v in collated.items()}
