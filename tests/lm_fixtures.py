"""Tiny causal-LM fixtures built locally: a 2-layer Llama, a word-level tokenizer with a real pad
token (and a ChatML template), and text, prompt/completion and chat datasets."""
from __future__ import annotations

import random
from pathlib import Path

CHATML = ("{% for m in messages %}<|im_start|>{{ m['role'] }} {{ m['content'] }}<|im_end|> "
          "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant {% endif %}")
SPECIALS = ["<unk>", "<s>", "</s>", "<pad>", "<|im_start|>", "<|im_end|>"]
_WORDS = ["the", "cat", "dog", "sat", "ran", "on", "a", "mat", "in", "park", "what", "did",
          "do", "?", "it", "slept", "ate", "fish", "bone", "question", ":", "answer", "user",
          "assistant", "hello", "hi", "how", "are", "you", "fine", "thanks", "and", "then",
          "'s", "day"]
_NAMES = ["tom", "ann", "bob", "eve", "sam", "kim"]
_DAYS = ["one", "two", "three", "four", "five", "six"]
_ACTS = ["sat on a mat", "ran in the park", "slept", "ate fish", "ate a bone"]


def _rows(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """n distinct question/answer pairs."""
    combos = [(p, a, d, act) for p in _NAMES for a in ("cat", "dog") for d in _DAYS for act in _ACTS]
    return [(f"question : what did {p} 's {a} do on day {d} ?", f"answer : {p} 's {a} {act}")
            for p, a, d, act in rng.sample(combos, n)]


def build(root: Path, n: int = 48) -> dict[str, Path]:
    """Model, tokenizer and datasets under `root` (built once per folder)."""
    from datasets import Dataset, DatasetDict
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    out = {"model": root / "tiny-llama", "text": root / "lm-text",
           "pairs": root / "lm-pairs", "chat": root / "lm-chat",
           "pad_eos": root / "tiny-llama-pad-eos"}
    if all(p.exists() for p in out.values()):
        return out
    vocab = {w: i for i, w in enumerate(SPECIALS + _WORDS + _NAMES + _DAYS)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.add_special_tokens(SPECIALS)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>",
                                   eos_token="</s>", pad_token="<pad>")
    fast.chat_template = CHATML
    fast.model_max_length = 64
    config = LlamaConfig(vocab_size=len(vocab), hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
                         max_position_embeddings=64, bos_token_id=1, eos_token_id=2,
                         pad_token_id=3, tie_word_embeddings=False)
    import torch

    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(out["model"])
    fast.save_pretrained(out["model"])
    # the classic setup: pad_token = eos_token, no chat template
    LlamaForCausalLM(config).save_pretrained(out["pad_eos"])
    fast.pad_token = fast.eos_token
    fast.chat_template = None
    fast.save_pretrained(out["pad_eos"])
    rng = random.Random(0)
    rows = _rows(rng, n)
    split = int(n * 0.75)

    def dd(columns: dict[str, list]) -> DatasetDict:
        return DatasetDict({"train": Dataset.from_dict({k: v[:split] for k, v in columns.items()}),
                            "validation": Dataset.from_dict({k: v[split:]
                                                             for k, v in columns.items()})})

    dd({"text": [f"{q} {a} </s>" for q, a in rows]}).save_to_disk(str(out["text"]))
    dd({"prompt": [q for q, _ in rows],
        "completion": [f" {a} </s>" for _, a in rows]}).save_to_disk(str(out["pairs"]))
    dd({"messages": [[{"role": "user", "content": q}, {"role": "assistant", "content": a}]
                     for q, a in rows]}).save_to_disk(str(out["chat"]))
    return out


NER_TAGS = ["O", "B-PER", "I-PER", "B-LOC"]


def build_ner(root: Path, n: int = 32) -> dict[str, Path]:
    """A tiny DistilBERT token classifier with a WordPiece tokenizer small enough to split
    words into subwords, and a CoNLL-shaped dataset (tokens, ner_tags with tag names)."""
    from datasets import ClassLabel, Dataset, DatasetDict, Features, Sequence, Value
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
    from transformers import DistilBertConfig, DistilBertForTokenClassification, PreTrainedTokenizerFast

    out = {"model": root / "tiny-ner", "data": root / "ner-data"}
    if all(p.exists() for p in out.values()):
        return out
    rng = random.Random(1)
    names, places = ["annabel", "roberto", "kimberly"], ["lisbon", "toronto", "helsinki"]
    rows = {"tokens": [], "ner_tags": []}
    for _ in range(n):
        who, where = rng.choice(names), rng.choice(places)
        rows["tokens"].append([who, "smith", "lives", "in", where])
        rows["ner_tags"].append([1, 2, 0, 0, 3])
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.decoder = decoders.WordPiece()
    corpus = [" ".join(t) for t in rows["tokens"]]
    tok.train_from_iterator(corpus, trainers.WordPieceTrainer(
        vocab_size=60, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    from tokenizers.processors import TemplateProcessing

    tok.post_processor = TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
                                            special_tokens=[("[CLS]", tok.token_to_id("[CLS]")),
                                                            ("[SEP]", tok.token_to_id("[SEP]"))])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]",
                                   cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
    import torch

    torch.manual_seed(0)
    config = DistilBertConfig(vocab_size=tok.get_vocab_size(), dim=32, hidden_dim=64, n_layers=2,
                              n_heads=2, max_position_embeddings=64, num_labels=len(NER_TAGS),
                              pad_token_id=0)
    DistilBertForTokenClassification(config).save_pretrained(out["model"])
    fast.save_pretrained(out["model"])
    features = Features({"tokens": Sequence(Value("string")),
                         "ner_tags": Sequence(ClassLabel(names=NER_TAGS))})
    split = int(n * 0.75)
    DatasetDict({"train": Dataset.from_dict({k: v[:split] for k, v in rows.items()}, features=features),
                 "validation": Dataset.from_dict({k: v[split:] for k, v in rows.items()},
                                                 features=features)}).save_to_disk(str(out["data"]))
    return out
