"""Builders shared by the data-check tests (no tests here): cases, tiny datasets, a GPT-2-style
tokenizer and model."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from wizard.core.case import Case
from wizard.context import Context
from wizard.core.findings import Finding

CORPUS = ["the cat saw the dog", "a bird sang in the morning", "hello world",
          "the old farmer found the bread near the station", "the dog read a book"]


def make_case(root: Path, framework: str = "pytorch", **over: Any) -> Case:
    """A case on the demo model with a `text`/`label` dataset; `over` sets nested fields
    (e.g. preprocessing={"padding": "none"}, training={"trainer": "loop"})."""
    data: dict[str, Any] = {
        "model": str(root / "model"), "framework": framework, "num_labels": 3,
        "dataset": {"path": str(root / "dataset"), "train_split": "train",
                    "eval_split": "validation", "text_columns": ["text"], "label_column": "label"},
        "preprocessing": {"truncation": True, "padding": "dynamic"},
        "training": {"optimizer": {"name": "Adam", "learning_rate": 5e-5}, "batch_size": 4,
                     "trainer": "keras" if framework == "tensorflow" else "trainer",
                     "labels": "inputs"},
        "symptom": "none",
    }
    for key, value in over.items():
        if isinstance(value, dict):
            data.setdefault(key, {}).update(value)
        else:
            data[key] = value
    return Case.from_dict(data)


def splits(**columns: dict[str, list]) -> dict[str, Any]:
    """{"train": Dataset, "validation": Dataset} from plain column dicts."""
    from datasets import Dataset

    return {name: Dataset.from_dict(cols) for name, cols in columns.items()}


def text_rows(n: int, labels: list | None = None, offset: int = 0) -> dict[str, list]:
    """n distinct short texts built from the demo vocabulary, labels cycling 0..2."""
    nouns = ["cat", "dog", "farmer", "teacher", "child", "pilot", "doctor", "singer", "baker"]
    objects = ["ball", "letter", "bread", "car", "song", "book", "river", "garden"]
    adjectives = ["old", "young", "tall", "quiet", "happy", "tired", "clever", "brave"]
    texts = []
    for i in range(offset, offset + n):  # distinct for i < 576, three different lengths
        texts.append(f"the {adjectives[(i // 72) % 8]} {nouns[i % 9]} saw the {objects[(i // 9) % 8]}"
                     + " near the station" * (i % 3))
    return {"text": texts, "label": labels if labels is not None else [i % 3 for i in range(n)]}


def context(case: Case, raw: dict[str, Any], tokenizer: Any, **objects: Any) -> Context:
    return Context.from_objects(case, device="cpu", raw=raw, tokenizer=tokenizer, **objects)


def by_id(findings: list[Finding], id: str) -> Finding:
    matches = [f for f in findings if f.id == id]
    assert len(matches) == 1, [(f.id, f.status, f.title) for f in findings]
    json.dumps(matches[0].to_dict())  # evidence is plain JSON (no numpy scalars)
    return matches[0]


def loud(findings: list[Finding]) -> list[tuple[str, str, str]]:
    return [(f.id, f.status, f.title) for f in findings if f.status in ("warn", "fail")]


def build_gpt2_tokenizer(out: Path) -> Any:
    """A byte-level BPE tokenizer trained locally (no pad token, eos only), saved to `out`."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(CORPUS * 5, trainers.BpeTrainer(
        vocab_size=300, special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|endoftext|>",
                                   eos_token="<|endoftext|>", unk_token="<|endoftext|>",
                                   model_max_length=64)
    fast.save_pretrained(out)
    return fast


def build_gpt2_style(out: Path) -> Path:
    """build_gpt2_tokenizer's tokenizer and a 1-layer GPT2ForSequenceClassification whose
    config has no pad_token_id, saved to `out`."""
    from transformers import GPT2Config, GPT2ForSequenceClassification

    fast = build_gpt2_tokenizer(out)
    import torch

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=len(fast), n_positions=64, n_embd=16, n_layer=1, n_head=2,
                        num_labels=3, bos_token_id=fast.eos_token_id,
                        eos_token_id=fast.eos_token_id)
    GPT2ForSequenceClassification(config).save_pretrained(out)
    return out
