"""A causal LM's data as the user's pipeline makes it: the text (plain, prompt + completion, or
chat messages through the tokenizer's chat template), tokenized, and the first batch with its
labels built the way the case says (wizard.core.tasks.LM_LABELS)."""
from __future__ import annotations

from typing import Any

import numpy as np

from wizard.core.case import Case

IGNORE_INDEX = -100  # the label the loss skips (PyTorch cross-entropy's ignore_index)


def is_chat(value: Any) -> bool:
    """A chat example: a list of {"role": ..., "content": ...} messages."""
    return isinstance(value, list) and bool(value) and all(
        isinstance(m, dict) and "role" in m and "content" in m for m in value)


def chat_text(messages: list[dict[str, Any]], tokenizer: Any) -> str:
    """The messages through the tokenizer's chat template; without one, the bare contents joined
    (the chat-template check says what that loses)."""
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(messages, tokenize=False)
    return "\n".join(f"{m['role']}: {m['content']}" for m in messages)


def prompt_and_text(case: Case, row: dict[str, Any], tokenizer: Any) -> tuple[str, str]:
    """(the prompt part, the whole training text) of one row. With two text columns the first is
    the prompt and the second the completion; a chat row's prompt is every message before the
    last assistant turn."""
    cols = [c for c in case.dataset.text_columns if c in row]
    values = [row[c] for c in cols]
    if values and is_chat(values[0]):
        messages = values[0]
        last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=0)
        whole = chat_text(messages, tokenizer)
        prompt = chat_text(messages[:last], tokenizer) if last else ""
        return (prompt if whole.startswith(prompt) else ""), whole
    texts = [v if isinstance(v, str) else "" for v in values]
    if len(texts) >= 2:
        return texts[0], texts[0] + texts[1]
    return "", texts[0] if texts else ""


def encode_lm(case: Case, tokenizer: Any) -> Any:
    """The function given to Dataset.map: input_ids, attention_mask, and the prompt's length in
    tokens (so the batch can mask it); `copy` labels are made here, as a script makes them."""
    pre = case.preprocessing

    def encode(examples: dict[str, list]) -> dict[str, list]:
        n = len(next(iter(examples.values())))
        rows = [{k: v[i] for k, v in examples.items()} for i in range(n)]
        pairs = [prompt_and_text(case, row, tokenizer) for row in rows]
        eos = getattr(tokenizer, "eos_token", None)
        chat = bool(rows) and is_chat(rows[0].get(case.dataset.text_columns[0]))
        if pre.add_eos and eos and not chat:  # as TRL's SFTTrainer does for text, not chats
            pairs = [(p, t if t.endswith(eos) else t + eos) for p, t in pairs]
        kwargs: dict[str, Any] = {"truncation": pre.truncation and not pre.packing}
        if pre.max_length and not pre.packing:  # packing cuts the joined tokens, not each text
            kwargs["max_length"] = pre.max_length
        if pre.padding == "max_length" and not pre.packing:
            kwargs["padding"] = "max_length"
        out = dict(tokenizer([text for _, text in pairs], **kwargs))
        prompts = tokenizer([p for p, _ in pairs], add_special_tokens=False)["input_ids"]
        out["prompt_length"] = [len(p) if p else 0 for p in prompts]
        if pre.lm_labels == "copy":
            out["labels"] = [list(ids) for ids in out["input_ids"]]
        return out

    return encode


def lm_batch(case: Case, tokenizer: Any, rows: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The first batch as the case's collation gives it: input_ids, attention_mask, labels."""
    features = [{"input_ids": list(r["input_ids"]),
                 "attention_mask": list(r.get("attention_mask") or [1] * len(r["input_ids"]))}
                for r in rows]
    how = case.preprocessing.lm_labels
    if how == "copy":
        padded = tokenizer.pad(features, return_tensors="np")
        arrays = {k: np.asarray(v) for k, v in padded.items()}
        width = arrays["input_ids"].shape[1]
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        copies = [list(r.get("labels") or r["input_ids"]) for r in rows]  # packed: input_ids
        arrays["labels"] = np.asarray([c[:width] + [pad] * (width - len(c)) for c in copies],
                                      dtype=np.int64)
        return arrays
    if how in ("sft", "completion-only"):
        # TRL's collator: the labels are input_ids padded with -100, by position
        arrays = {k: np.asarray(v) for k, v in tokenizer.pad(features, return_tensors="np").items()}
        arrays["labels"] = np.where(arrays["attention_mask"] == 1, arrays["input_ids"],
                                    IGNORE_INDEX).astype(np.int64)
    else:
        from transformers import DataCollatorForLanguageModeling

        collated = DataCollatorForLanguageModeling(tokenizer, mlm=False,
                                                   return_tensors="np")(features)
        arrays = {k: np.asarray(v) for k, v in collated.items()}
    if how == "completion-only":
        labels = arrays["labels"].copy()
        left = getattr(tokenizer, "padding_side", "right") == "left"
        for i, r in enumerate(rows):
            start = int((arrays["attention_mask"][i] == 0).sum()) if left else 0
            labels[i, start:start + int(r.get("prompt_length") or 0)] = IGNORE_INDEX
        arrays["labels"] = labels
    return arrays


def token_rows(logits: np.ndarray, labels: np.ndarray | None,
               shift: bool = True) -> tuple[np.ndarray, Any]:
    """(batch, positions, classes) logits as one row per position the loss takes, -100
    positions dropped; `shift`: a causal LM's, shifted by one as the model shifts them."""
    if labels is None:
        return logits.reshape(-1, logits.shape[-1]), None
    labels = np.asarray(labels)
    if shift:
        logits, labels = logits[:, :-1], labels[:, 1:]
    keep = labels != IGNORE_INDEX
    return logits[keep], labels[keep]


def pack_lm(case: Case, tokenizer: Any, split: Any) -> Any:
    """The tokenized split packed as the course's group_texts (and TRL's packing) does: every
    example's tokens concatenated as they are, cut into blocks of `max_length` tokens. Each
    block records how many examples join inside it and how many of those joins have no eos
    between them."""
    block = packing_length(case, tokenizer)
    eos = getattr(tokenizer, "eos_token_id", None)

    def pack(examples: dict[str, list]) -> dict[str, list]:
        ids: list[int] = []
        ends: list[int] = []  # the position after each example
        for row in examples["input_ids"]:
            ids.extend(int(t) for t in row)
            ends.append(len(ids))
        out: dict[str, list] = {"input_ids": [], "attention_mask": [], "joins": [],
                                "joins_without_eos": []}
        total = len(ids) // block * block if len(ids) >= block else len(ids)  # group_texts
        for start in range(0, total, block):
            inside = [e for e in ends if start < e < start + block]
            out["input_ids"].append(ids[start:start + block])
            out["attention_mask"].append([1] * len(out["input_ids"][-1]))
            out["joins"].append(len(inside))
            out["joins_without_eos"].append(sum(1 for e in inside if ids[e - 1] != eos))
        return out

    return split.map(pack, batched=True, batch_size=None, remove_columns=split.column_names)


def packing_length(case: Case, tokenizer: Any) -> int:
    """The packed block's length: the case's max_length, else the tokenizer's (1024 when it
    names none)."""
    limit = getattr(tokenizer, "model_max_length", None)
    fallback = int(limit) if isinstance(limit, int) and 0 < limit < 1_000_000 else 1024
    return int(case.preprocessing.max_length or fallback)
