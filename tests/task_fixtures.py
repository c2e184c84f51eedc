"""Tiny seq2seq and extractive-QA fixtures built locally: a 2-layer T5 with a word-level
tokenizer (and a copy with no decoder_start_token_id), a translation-shaped dataset whose targets
vary in length; a 2-layer DistilBERT for QA with a WordPiece tokenizer and a SQuAD-shaped
dataset whose answers sit early or late in contexts of varied length."""
from __future__ import annotations

import random
from pathlib import Path

_SRC = ["the", "cat", "dog", "sat", "ran", "on", "a", "mat", "in", "park", "big", "small",
        "red", "blue", "today", "slowly"]
_TGT = ["le", "chat", "chien", "assis", "couru", "sur", "un", "tapis", "dans", "parc", "grand",
        "petit", "rouge", "bleu", "aujourd'hui", "lentement"]


def build_seq2seq(root: Path, n: int = 40) -> dict[str, Path]:
    """T5 model + tokenizer, the same model without decoder_start_token_id, and a dataset with
    `source` and `target` columns (targets of 3 to 14 words)."""
    from datasets import Dataset, DatasetDict
    from tokenizers import Tokenizer, models, pre_tokenizers
    from tokenizers.processors import TemplateProcessing
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    out = {"model": root / "tiny-t5", "no_start": root / "tiny-t5-no-start",
           "data": root / "s2s-data"}
    if all(p.exists() for p in out.values()):
        return out
    specials = ["<pad>", "</s>", "<unk>", "translate", ":"]
    vocab = {w: i for i, w in enumerate(specials + _SRC + _TGT)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>",
                                            special_tokens=[("</s>", 1)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="</s>",
                                   unk_token="<unk>")
    fast.model_max_length = 64
    import torch

    torch.manual_seed(0)
    config = T5Config(vocab_size=len(vocab), d_model=32, d_ff=64, d_kv=16, num_layers=2,
                      num_decoder_layers=2, num_heads=2, pad_token_id=0, eos_token_id=1,
                      decoder_start_token_id=0)
    T5ForConditionalGeneration(config).save_pretrained(out["model"])
    fast.save_pretrained(out["model"])
    config.decoder_start_token_id = None
    T5ForConditionalGeneration(config).save_pretrained(out["no_start"])
    fast.save_pretrained(out["no_start"])
    rng = random.Random(2)
    rows: dict[str, list[str]] = {"source": [], "target": []}
    for _ in range(n):
        idx = [rng.randrange(len(_SRC)) for _ in range(rng.randint(3, 14))]
        rows["source"].append("translate : " + " ".join(_SRC[i] for i in idx))
        rows["target"].append(" ".join(_TGT[i] for i in idx))
    split = int(n * 0.75)
    DatasetDict({"train": Dataset.from_dict({k: v[:split] for k, v in rows.items()}),
                 "validation": Dataset.from_dict({k: v[split:] for k, v in rows.items()})}
                ).save_to_disk(str(out["data"]))
    return out


_FILLER = ["the", "weather", "was", "mild", "and", "people", "walked", "along", "river",
           "market", "opened", "early", "music", "played", "near", "square"]
_PEOPLE = ["annabel", "roberto", "kimberly", "theodore"]
_PLACES = ["lisbon", "toronto", "helsinki", "santiago"]


def build_qa(root: Path, n: int = 32) -> dict[str, Path]:
    """A DistilBERT QA model + WordPiece tokenizer and a SQuAD-shaped dataset (question,
    context, answers); half the answers sit past the 40th word of a long context."""
    from datasets import Dataset, DatasetDict
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
    from tokenizers.processors import TemplateProcessing
    from transformers import DistilBertConfig, DistilBertForQuestionAnswering, PreTrainedTokenizerFast

    out = {"model": root / "tiny-qa", "data": root / "qa-data"}
    if all(p.exists() for p in out.values()):
        return out
    rng = random.Random(3)
    rows: dict[str, list] = {"question": [], "context": [], "answers": []}
    for i in range(n):
        who, where = rng.choice(_PEOPLE), rng.choice(_PLACES)
        before = [rng.choice(_FILLER) for _ in range(4 if i % 2 else 44)]
        after = [rng.choice(_FILLER) for _ in range(rng.randint(2, 8))]
        head = " ".join(before) + f" . {who} lives in "
        context = head + where + " . " + " ".join(after)
        rows["question"].append(f"where does {who} live ?")
        rows["context"].append(context)
        rows["answers"].append({"text": [where], "answer_start": [len(head)]})
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.decoder = decoders.WordPiece()
    tok.train_from_iterator(rows["question"] + rows["context"], trainers.WordPieceTrainer(
        vocab_size=120, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    tok.post_processor = TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]",
                                   cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
    fast.model_max_length = 128
    import torch

    torch.manual_seed(0)
    config = DistilBertConfig(vocab_size=tok.get_vocab_size(), dim=32, hidden_dim=64, n_layers=2,
                              n_heads=2, max_position_embeddings=128, pad_token_id=0)
    DistilBertForQuestionAnswering(config).save_pretrained(out["model"])
    fast.save_pretrained(out["model"])
    split = int(n * 0.75)
    DatasetDict({"train": Dataset.from_dict({k: v[:split] for k, v in rows.items()}),
                 "validation": Dataset.from_dict({k: v[split:] for k, v in rows.items()})}
                ).save_to_disk(str(out["data"]))
    return out
