"""Extractive QA data as the user's pipeline makes it: (question, context) pairs tokenized with
truncation="only_second" (overflowing windows with a stride when the case has one) and offsets,
start/end token positions found as the case says (wizard.core.tasks.QA_POSITIONS), unanswerable
windows pointed at the CLS token, as the course's prepare_train_features does."""
from __future__ import annotations

from typing import Any

import numpy as np

from wizard.core.case import Case
from wizard.errors import CaseError

DEFAULT_MAX_LENGTH = 384  # the course's max_length for SQuAD


def answer_of(answers: Any) -> tuple[str, int] | None:
    """(text, character start) of a SQuAD-style answers field; None when it has no answer."""
    if not isinstance(answers, dict):
        return None
    texts, starts = list(answers.get("text") or []), list(answers.get("answer_start") or [])
    if not texts or not starts:
        return None
    return str(texts[0]), int(starts[0])


def token_positions(offsets: list[Any], sequence_ids: list[int | None], start_char: int,
                    end_char: int) -> tuple[int, int]:
    """The answer's start and end token in one window, (0, 0) (CLS) when the window does not
    hold the whole answer."""
    context = [i for i, s in enumerate(sequence_ids) if s == 1]
    if not context:
        return 0, 0
    first, last = context[0], context[-1]
    if offsets[first][0] > start_char or offsets[last][1] < end_char:
        return 0, 0
    start = first
    while start <= last and offsets[start][0] <= start_char:
        start += 1
    end = last
    while end >= first and offsets[end][1] >= end_char:
        end -= 1
    return start - 1, end + 1


def tokenize_qa(case: Case, tokenizer: Any, split: Any) -> Any:
    """The split as training features: one row per window, with input_ids, attention_mask,
    start_positions, end_positions, and for the checks the example it came from, its
    sequence_ids and offsets."""
    if not getattr(tokenizer, "is_fast", False):
        raise CaseError("Extractive QA needs a fast tokenizer for return_offsets_mapping; load it "
                        "with AutoTokenizer.from_pretrained(checkpoint) (use_fast=True).",
                        "model")
    spec, pre = case.dataset, case.preprocessing
    question, context = spec.text_columns[0], spec.text_columns[1]
    if spec.label_column not in split.column_names:
        raise CaseError(f"Column {spec.label_column!r} is not in the dataset (columns: "
                        f"{', '.join(split.column_names)}); set `dataset.label_column` to the "
                        "SQuAD-style answers column ({text: [...], answer_start: [...]}).",
                        "dataset.label_column")

    def encode(examples: dict[str, list], indices: list[int]) -> dict[str, list]:
        kwargs: dict[str, Any] = {"truncation": "only_second",
                                  "max_length": pre.max_length or DEFAULT_MAX_LENGTH,
                                  "padding": "max_length", "return_offsets_mapping": True,
                                  "return_overflowing_tokens": bool(pre.stride)}
        if pre.stride:
            kwargs["stride"] = pre.stride
        out = tokenizer([str(q).lstrip() for q in examples[question]],
                        [str(c) for c in examples[context]], **kwargs)
        mapping = out.pop("overflow_to_sample_mapping", list(range(len(out["input_ids"]))))
        rows: dict[str, list] = {"start_positions": [], "end_positions": [], "example_id": [],
                                 "sequence_ids": []}
        for i, offsets in enumerate(out["offset_mapping"]):
            sample = int(mapping[i])
            seq = out.sequence_ids(i)
            found = answer_of(examples[spec.label_column][sample])
            if found is None:
                start, end = 0, 0
            elif pre.qa_positions == "char":  # the classic slip: characters, not tokens
                start, end = found[1], found[1] + len(found[0])
            else:
                start, end = token_positions(offsets, seq, found[1], found[1] + len(found[0]))
            rows["start_positions"].append(start)
            rows["end_positions"].append(end)
            rows["example_id"].append(int(indices[sample]))
            rows["sequence_ids"].append([-1 if s is None else int(s) for s in seq])
        return {**dict(out), **rows}

    return split.map(encode, batched=True, with_indices=True, remove_columns=split.column_names)


def qa_batch(input_names: list[str], rows: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The first batch as default_data_collator gives it: the windows (already padded to
    max_length) with the model's inputs and their start_positions and end_positions."""
    keys = [*input_names, "start_positions", "end_positions"]
    return {k: np.asarray([r[k] for r in rows], dtype=np.int64) for k in keys if k in rows[0]}
