"""Offline fixtures for the scenario benchmark: tiny random models, locally trained tokenizers
and small datasets, built once per framework into a cache folder.

    python benchmarks/scenarios/fixtures.py ROOT pytorch      # in .venv-modern (USE_TF=0)
    python benchmarks/scenarios/fixtures.py ROOT tensorflow   # in .venv-tf (TF_USE_LEGACY_KERAS=1)

ROOT/<framework>/ then holds

    models/bert        BERT body (2 layers, 32 dims, 64 positions) + its WordPiece tokenizer
    models/distilbert  DistilBERT body + another WordPiece tokenizer (other vocabulary, other ids)
    models/gpt2        GPT-2 body (no pad_token_id) + a byte-level BPE tokenizer without a pad token
    data/<name>        DatasetDicts written with save_to_disk (see DATASETS)

and, for PyTorch only (the wizard's causal-LM and token-classification tasks), built apart
(tasks.json) so that adding them rebuilds nothing else:

    models/llama       Llama causal LM (2 layers, 32 dims) + a word-level tokenizer with a real
                       <pad>, eos </s> and a ChatML template
    data/lm_text       reviews ending with " </s>" (a `text` column), for SFT / causal LM
    data/ner           words and tags (O, B-PER, I-PER, B-LOC): names the BERT tokenizer
                       splits into subwords

PyTorch folders carry model.safetensors; TensorFlow folders carry tf_model.h5 only (converted
from the same PyTorch weights), the way a TF user's checkpoint folder looks. Each framework is
built by its own environment (a tokenizer saved by transformers 5 does not load in 4.x).
Nothing is downloaded.
"""
from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

VERSION = "3"
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
POSITIONS = 64

# -- text generators (deterministic: random.Random(seed)) ------------------------------------------
NOUNS = ["film", "movie", "story", "actor", "plot", "soundtrack", "ending", "script", "director",
         "cast", "scene", "camera", "dialogue", "hero", "villain", "sequel"]
POS = ["great", "wonderful", "excellent", "lovely", "superb", "delightful", "brilliant", "moving"]
NEG = ["terrible", "awful", "boring", "dreadful", "poor", "horrible", "dull", "clumsy"]
VERBS = ["was", "felt", "seemed", "looked", "became", "remained"]
TAILS = ["from start to finish", "in every scene", "for most of the time", "at the end",
         "on the big screen", "despite the hype", "as expected", "to my surprise"]
TOPIC_WORDS = {
    "world": ["government", "election", "minister", "border", "treaty", "president", "parliament",
              "embassy"],
    "sports": ["team", "match", "goal", "coach", "league", "stadium", "player", "season"],
    "business": ["market", "shares", "profit", "company", "bank", "investor", "merger", "sales"],
    "science": ["research", "cells", "planet", "experiment", "physics", "telescope", "genome",
                "laboratory"],
}
TOPIC_VERBS = ["announced", "reported", "expected", "questioned", "praised", "reviewed", "changed",
               "delayed"]
TOPIC_TAILS = ["on monday", "this week", "after the talks", "in a statement", "late last night",
               "despite the rain", "for the first time", "according to sources"]
NLI_NOUNS = ["cat", "dog", "farmer", "teacher", "child", "pilot", "doctor", "singer", "baker",
             "sailor", "student", "painter", "driver", "nurse"]
NLI_OBJECTS = ["ball", "letter", "bread", "car", "song", "book", "river", "garden", "boat",
               "picture", "window", "door"]
NLI_VERBS = [("saw", "see"), ("painted", "paint"), ("found", "find"), ("carried", "carry"),
             ("washed", "wash"), ("opened", "open"), ("built", "build")]
NLI_ADJS = ["old", "young", "tall", "quiet", "happy", "tired", "clever", "brave"]
NLI_PLACES = ["in the morning", "near the station", "at the market", "after the storm",
              "before dinner", "by the lake"]
NLI_REASONS = ["because it was raining", "for a friend", "to win a prize", "with great care"]

SENTIMENT_NAMES = ["negative", "positive"]
TOPIC_NAMES = list(TOPIC_WORDS)
NLI_NAMES = ["entailment", "neutral", "contradiction"]


def review(rng: random.Random, label: int) -> str:
    word = rng.choice(POS if label == 1 else NEG)
    extra = rng.choice(POS if label == 1 else NEG)
    return (f"the {rng.choice(NOUNS)} {rng.choice(VERBS)} {word} {rng.choice(TAILS)} , "
            f"and the {rng.choice(NOUNS)} was {extra} .")


def sentiment_rows(n: int, seed: int) -> dict[str, list]:
    rng = random.Random(seed)
    labels = [i % 2 if rng.random() < 0.9 else rng.randrange(2) for i in range(n)]
    return {"text": [review(rng, y) for y in labels], "label": labels}


def headline(rng: random.Random, label: int) -> str:
    words = TOPIC_WORDS[TOPIC_NAMES[label]]
    return (f"the {rng.choice(words)} {rng.choice(TOPIC_VERBS)} the {rng.choice(words)} "
            f"{rng.choice(TOPIC_TAILS)} .")


def topic_rows(n: int, seed: int) -> dict[str, list]:
    rng = random.Random(seed)
    labels = [i % 4 for i in range(n)]
    rng.shuffle(labels)
    return {"text": [headline(rng, y) for y in labels], "label": labels}


def nli_rows(n: int, seed: int) -> dict[str, list]:
    rng = random.Random(seed)
    rows: dict[str, list] = {"premise": [], "hypothesis": [], "label": []}
    for i in range(n):
        noun, obj = rng.choice(NLI_NOUNS), rng.choice(NLI_OBJECTS)
        past, base = rng.choice(NLI_VERBS)
        premise = f"the {rng.choice(NLI_ADJS)} {noun} {past} the {obj} {rng.choice(NLI_PLACES)} ."
        label = i % 3
        if label == 0:
            hypothesis = f"the {noun} {past} the {obj} ."
        elif label == 1:
            hypothesis = f"the {noun} {past} the {obj} {rng.choice(NLI_REASONS)} ."
        else:
            hypothesis = f"the {noun} did not {base} the {obj} ."
        rows["premise"].append(premise)
        rows["hypothesis"].append(hypothesis)
        rows["label"].append(label)
    return rows


def long_rows(n: int, seed: int) -> dict[str, list]:
    """Reviews of 8-14 sentences: 130-260 tokens, far beyond the models' 64 positions."""
    rng = random.Random(seed)
    labels = [i % 2 for i in range(n)]
    texts = [" ".join(review(rng, y) for _ in range(rng.randint(8, 14))) for y in labels]
    return {"text": texts, "label": labels}


def multilabel_rows(n: int, seed: int, floats: bool) -> dict[str, list]:
    """Headlines mixing one or two topics; `labels` is a multi-hot vector over the 4 topics."""
    rng = random.Random(seed)
    texts, labels = [], []
    for i in range(n):
        first = i % 4
        topics = {first} | ({rng.randrange(4)} if rng.random() < 0.5 else set())
        parts = [headline(rng, t) for t in sorted(topics)]
        texts.append(" ".join(parts))
        hot = [1 if t in topics else 0 for t in range(4)]
        labels.append([float(v) for v in hot] if floats else hot)
    return {"text": texts, "labels": labels}


def corpus() -> list[str]:
    rows = [*sentiment_rows(300, 11)["text"], *topic_rows(300, 12)["text"],
            *long_rows(20, 13)["text"]]
    nli = nli_rows(300, 14)
    return rows + nli["premise"] + nli["hypothesis"]


# -- datasets ------------------------------------------------------------------------------------
def disjoint(train: dict, make, n: int, seed: int) -> dict:
    """n validation rows from `make(count, seed)` whose texts are not in `train`: the only
    train/validation overlap in these fixtures is the one a setup is about (sentiment_leaky)."""
    text_cols = [c for c in train if c not in ("label", "labels")]
    seen = set(zip(*(train[c] for c in text_cols)))
    rows = make(4 * n, seed)
    keep = [i for i, key in enumerate(zip(*(rows[c] for c in text_cols))) if key not in seen][:n]
    assert len(keep) == n, "not enough distinct validation rows"
    return {c: [rows[c][i] for i in keep] for c in rows}


def ratings_rows(n: int, seed: int) -> dict[str, list]:
    """Star ratings 1..5 as the label (int64, no ClassLabel): one-based class ids."""
    rng = random.Random(seed)
    stars = [1 + i % 5 for i in range(n)]
    texts = []
    for s in stars:
        pool = NEG if s <= 2 else POS if s >= 4 else NEG + POS
        texts.append(f"{s * 'really '}the {rng.choice(NOUNS)} {rng.choice(VERBS)} "
                     f"{rng.choice(pool)} {rng.choice(TAILS)} .")
    return {"text": texts, "label": stars}


def build_datasets(out: Path) -> None:
    from datasets import ClassLabel, Dataset, DatasetDict, Features, Sequence, Value

    def save(name: str, train: dict, validation: dict, features: Features | None = None) -> None:
        DatasetDict({"train": Dataset.from_dict(train, features=features),
                     "validation": Dataset.from_dict(validation, features=features)}
                    ).save_to_disk(str(out / name))

    def split(make, n_train: int, n_val: int, seed: int) -> tuple[dict, dict]:
        train = make(n_train, seed)
        return train, disjoint(train, make, n_val, seed + 1000)

    sent = Features({"text": Value("string"), "label": ClassLabel(names=SENTIMENT_NAMES)})
    topics = Features({"text": Value("string"), "label": ClassLabel(names=TOPIC_NAMES)})
    nli = Features({"premise": Value("string"), "hypothesis": Value("string"),
                    "label": ClassLabel(names=NLI_NAMES)})
    sent_train, sent_val = split(sentiment_rows, 240, 60, 1)
    save("sentiment", sent_train, sent_val, sent)
    save("topics", *split(topic_rows, 240, 60, 3), topics)
    save("nli", *split(nli_rows, 240, 60, 5), nli)

    # string labels ("positive"/"negative"), as read from a CSV
    def as_strings(rows: dict) -> dict:
        return {"text": rows["text"], "label": [SENTIMENT_NAMES[y] for y in rows["label"]]}
    save("sentiment_str", as_strings(sent_train), as_strings(sent_val))

    # the label column is called `sentiment`
    renamed = Features({"text": Value("string"), "sentiment": ClassLabel(names=SENTIMENT_NAMES)})

    def rename(rows: dict) -> dict:
        return {"text": rows["text"], "sentiment": rows["label"]}
    save("reviews", rename(sent_train), rename(sent_val), renamed)

    save("ratings", *split(ratings_rows, 240, 60, 7))
    save("long_reviews", *split(long_rows, 120, 30, 9), sent)

    ml_int = Features({"text": Value("string"), "labels": Sequence(Value("int64"))})
    ml_float = Features({"text": Value("string"), "labels": Sequence(Value("float32"))})
    save("multilabel_int", *split(lambda n, s: multilabel_rows(n, s, False), 240, 60, 15), ml_int)
    save("multilabel", *split(lambda n, s: multilabel_rows(n, s, True), 240, 60, 15), ml_float)

    # validation leaks: 40 of its 60 rows are copied from train
    leak = {"text": sent_train["text"][:40] + sent_val["text"][:20],
            "label": sent_train["label"][:40] + sent_val["label"][:20]}
    save("sentiment_leaky", sent_train, leak, sent)

    # empty texts: None and "" in 12 % of the train rows (a scraped column with gaps)
    holes = {"text": list(sent_train["text"]), "label": list(sent_train["label"])}
    for i in range(0, 240, 8):
        holes["text"][i] = None if i % 16 == 0 else ""
    save("sentiment_gaps", holes, sent_val, sent)

    # a label-sorted file cut in two: train holds world/sports/business, validation science
    rows = topic_rows(800, 17)
    by_class: dict[int, list[str]] = {}
    for text, y in dict.fromkeys(zip(rows["text"], rows["label"])):
        by_class.setdefault(y, []).append(text)
    ordered = {"text": [t for y in range(4) for t in by_class[y][:80]],
               "label": [y for y in range(4) for _ in range(80)]}
    save("topics_sorted", {k: v[:240] for k, v in ordered.items()},
         {k: v[240:] for k, v in ordered.items()}, topics)


# -- tokenizers ----------------------------------------------------------------------------------
def wordpiece(out: Path, texts: list[str], vocab_size: int) -> int:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(texts, trainers.WordPieceTrainer(vocab_size=vocab_size,
                                                             special_tokens=SPECIALS))
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)])
    tok.decoder = decoders.WordPiece(prefix="##")
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
        sep_token="[SEP]", mask_token="[MASK]", model_max_length=POSITIONS)
    fast.save_pretrained(out)
    return len(fast)


def byte_bpe(out: Path, texts: list[str], vocab_size: int) -> int:
    """GPT-2 style: byte-level BPE, <|endoftext|> as bos/eos/unk, no pad token."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(texts, trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|endoftext|>",
                                   eos_token="<|endoftext|>", unk_token="<|endoftext|>",
                                   model_max_length=POSITIONS)
    fast.save_pretrained(out)
    return len(fast)


# -- models --------------------------------------------------------------------------------------
def build_models(models: Path, framework: str) -> None:
    import torch
    from transformers import (BertConfig, BertModel, DistilBertConfig, DistilBertModel, GPT2Config,
                              GPT2Model)

    texts = corpus()
    torch.manual_seed(0)
    bert_vocab = wordpiece(models / "bert", texts, 600)
    config = BertConfig(vocab_size=bert_vocab, hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64,
                        max_position_embeddings=POSITIONS, pad_token_id=0)
    config.architectures = ["BertModel"]
    BertModel(config).save_pretrained(models / "bert")

    # another checkpoint's tokenizer: trained on the corpus in another order, a smaller vocabulary
    rng = random.Random(99)
    shuffled = texts[::-1] + rng.sample(texts, len(texts) // 2)
    distil_vocab = wordpiece(models / "distilbert", shuffled, 250)
    dconfig = DistilBertConfig(vocab_size=distil_vocab, dim=32, n_layers=2, n_heads=2,
                               hidden_dim=64, max_position_embeddings=POSITIONS, pad_token_id=0)
    dconfig.architectures = ["DistilBertModel"]
    DistilBertModel(dconfig).save_pretrained(models / "distilbert")

    gpt_vocab = byte_bpe(models / "gpt2", texts, 500)
    gconfig = GPT2Config(vocab_size=gpt_vocab, n_positions=POSITIONS, n_embd=32, n_layer=2,
                         n_head=2, bos_token_id=0, eos_token_id=0)
    gconfig.architectures = ["GPT2Model"]
    GPT2Model(gconfig).save_pretrained(models / "gpt2")

    if framework == "tensorflow":
        from transformers import TFBertModel, TFDistilBertModel, TFGPT2Model

        for name, cls in (("bert", TFBertModel), ("distilbert", TFDistilBertModel),
                          ("gpt2", TFGPT2Model)):
            folder = models / name
            cls.from_pretrained(folder, from_pt=True).save_pretrained(folder)
            for f in folder.glob("*.safetensors"):
                f.unlink()  # a TF checkpoint folder: tf_model.h5 only
            cfg = json.loads((folder / "config.json").read_text())
            cfg["architectures"] = [cls.__name__]
            (folder / "config.json").write_text(json.dumps(cfg, indent=2))


# -- causal LM and token classification (PyTorch) -----------------------------------------------
TASKS_VERSION = "1"
NER_TAGS = ["O", "B-PER", "I-PER", "B-LOC"]
FIRST_NAMES = ["annabel", "roberto", "kimberly", "maximilian", "gwendolyn", "bartholomew"]
SURNAMES = ["smithson", "okonkwo", "fitzgerald", "nakamura", "vandermeer"]
PLACES = ["lisbon", "toronto", "helsinki", "marrakesh", "valparaiso", "ljubljana"]
NER_VERBS = [["lives", "in"], ["works", "in"], ["arrived", "in"], ["was", "born", "in"]]


def ner_rows(n: int, seed: int) -> dict[str, list]:
    """CoNLL-shaped rows: `tokens` (words) and `ner_tags`, e.g. "annabel smithson lives in lisbon"."""
    rng = random.Random(seed)
    rows: dict[str, list] = {"tokens": [], "ner_tags": []}
    for _ in range(n):
        verb = rng.choice(NER_VERBS)
        words = [rng.choice(FIRST_NAMES), rng.choice(SURNAMES), *verb, rng.choice(PLACES)]
        tags = [1, 2, *[0] * len(verb), 3]
        if rng.random() < 0.5:
            words, tags = ["yesterday", *words], [0, *tags]
        rows["tokens"].append(words)
        rows["ner_tags"].append(tags)
    return rows


def build_tasks(out: Path) -> None:
    import torch
    from datasets import ClassLabel, Dataset, DatasetDict, Features, Sequence, Value
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    def save(name: str, train: dict, validation: dict, features: Features | None = None) -> None:
        DatasetDict({"train": Dataset.from_dict(train, features=features),
                     "validation": Dataset.from_dict(validation, features=features)}
                    ).save_to_disk(str(out / "data" / name))

    rng = random.Random(21)
    texts = [f"{review(rng, i % 2)} </s>" for i in range(80)]
    save("lm_text", {"text": texts[:64]}, {"text": texts[64:]})
    ner = Features({"tokens": Sequence(Value("string")),
                    "ner_tags": Sequence(ClassLabel(names=NER_TAGS))})
    save("ner", ner_rows(96, 22), ner_rows(32, 23), ner)

    specials = ["<unk>", "<s>", "</s>", "<pad>", "<|im_start|>", "<|im_end|>"]
    words = sorted({w for t in texts for w in t.split()} - set(specials)
                   | {"user", "assistant", "system"})
    vocab = {w: i for i, w in enumerate(specials + words)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.add_special_tokens(specials)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>",
                                   eos_token="</s>", pad_token="<pad>",
                                   model_max_length=POSITIONS)
    fast.chat_template = ("{% for m in messages %}<|im_start|>{{ m['role'] }} {{ m['content'] }}"
                          "<|im_end|> {% endfor %}{% if add_generation_prompt %}<|im_start|>"
                          "assistant {% endif %}")
    config = LlamaConfig(vocab_size=len(vocab), hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
                         max_position_embeddings=POSITIONS, bos_token_id=1, eos_token_id=2,
                         pad_token_id=3, tie_word_embeddings=False)
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(out / "models" / "llama")
    fast.save_pretrained(out / "models" / "llama")


def build(root: Path, framework: str) -> Path:
    out = root / framework
    marker = out / "fixtures.json"
    if not (marker.exists() and json.loads(marker.read_text()).get("version") == VERSION):
        out.mkdir(parents=True, exist_ok=True)
        build_datasets(out / "data")
        build_models(out / "models", framework)
        marker.write_text(json.dumps({"version": VERSION, "framework": framework}))
    tasks = out / "tasks.json"
    if framework == "pytorch" and not (tasks.exists() and
                                       json.loads(tasks.read_text()).get("version") == TASKS_VERSION):
        build_tasks(out)
        tasks.write_text(json.dumps({"version": TASKS_VERSION}))
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in ("pytorch", "tensorflow"):
        sys.exit("usage: fixtures.py ROOT pytorch|tensorflow")
    if sys.argv[2] == "pytorch":
        os.environ.setdefault("USE_TF", "0")
    else:
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    print(build(Path(sys.argv[1]), sys.argv[2]))
