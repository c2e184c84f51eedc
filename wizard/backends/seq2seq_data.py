"""Seq2seq data as the user's pipeline makes it: the source texts tokenized as inputs, the target
texts tokenized as the case says (wizard.core.tasks.SEQ2SEQ_TARGETS, cut at max_target_length),
and the first batch padded the way DataCollatorForSeq2Seq pads it (labels with -100, or with the
pad id: wizard.core.tasks.LABEL_PADS)."""
from __future__ import annotations

from typing import Any

import numpy as np

from wizard.backends.lm_data import IGNORE_INDEX
from wizard.core.case import Case
from wizard.frameworks import import_torch


def target_ids(tokenizer: Any, targets: list[str], how: str, **kwargs: Any) -> list[list[int]]:
    """The targets' token ids: in the tokenizer's target mode (text_target=) or as inputs."""
    if how == "as-inputs":
        return [list(ids) for ids in tokenizer(targets, **kwargs)["input_ids"]]
    return [list(ids) for ids in tokenizer(text_target=targets, **kwargs)["input_ids"]]


def encode_seq2seq(case: Case, tokenizer: Any) -> Any:
    """The function given to Dataset.map: input_ids, attention_mask, labels, and each target's
    whole length in tokens (before max_target_length cuts it)."""
    spec, pre = case.dataset, case.preprocessing
    source, target = spec.text_columns[0], spec.text_columns[1]

    def encode(examples: dict[str, list]) -> dict[str, list]:
        kwargs: dict[str, Any] = {"truncation": pre.truncation}
        if pre.max_length:
            kwargs["max_length"] = pre.max_length
        out = dict(tokenizer([str(t) for t in examples[source]], **kwargs))
        targets = [str(t) for t in examples[target]]
        cut: dict[str, Any] = {}
        if pre.max_target_length:
            cut = {"truncation": True, "max_length": pre.max_target_length}
            if pre.label_pad == "pad-id" and pre.padding == "max_length":
                cut["padding"] = "max_length"
        out["labels"] = target_ids(tokenizer, targets, pre.targets, **cut)
        out["target_length"] = [len(ids) for ids in target_ids(tokenizer, targets, "text-target")]
        return out

    return encode


def seq2seq_batch(case: Case, tokenizer: Any, rows: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The first batch as DataCollatorForSeq2Seq gives it: inputs padded with the pad id, labels
    with label_pad_token_id (-100, or the pad id)."""
    from transformers import DataCollatorForSeq2Seq

    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    label_pad = pad_id if case.preprocessing.label_pad == "pad-id" else IGNORE_INDEX
    features = [{"input_ids": list(r["input_ids"]), "attention_mask": list(r["attention_mask"]),
                 "labels": list(r["labels"])} for r in rows]
    collated = DataCollatorForSeq2Seq(tokenizer, label_pad_token_id=label_pad,
                                      return_tensors="np")(features)
    return {k: np.asarray(v) for k, v in collated.items()}


def decoder_inputs(model: Any, labels: np.ndarray) -> np.ndarray | None:
    """decoder_input_ids as DataCollatorForSeq2Seq(model=model) makes them: the labels shifted
    right behind decoder_start_token_id (None when the model cannot: no start token)."""
    torch = import_torch()
    prepare = getattr(model, "prepare_decoder_input_ids_from_labels", None)
    if prepare is None:
        return None
    try:
        with torch.no_grad():
            return prepare(labels=torch.as_tensor(labels)).cpu().numpy()
    except (ValueError, TypeError, AttributeError):  # no decoder_start_token_id: the seq2seq
        return None                                  # check names it
