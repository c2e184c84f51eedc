"""Offline demo fixtures: a tiny DistilBERT, a locally trained WordPiece tokenizer, and an
MNLI-shaped dataset, built once into a cache folder and loaded back like a Hub checkpoint."""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

from wizard.errors import WizardError
from wizard.frameworks import child_env

from wizard.settings import current as current_settings

FIXTURE_VERSION = "2"
LABEL_NAMES = ["entailment", "neutral", "contradiction"]
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]

_NOUNS = ["cat", "dog", "farmer", "teacher", "child", "pilot", "doctor", "singer", "baker", "sailor",
          "student", "painter", "driver", "nurse", "poet", "judge", "miner", "clerk"]
_OBJECTS = ["ball", "letter", "bread", "car", "song", "book", "river", "garden", "boat", "picture",
            "window", "door", "map", "cake", "train", "bridge"]
_VERBS = [("saw", "see"), ("painted", "paint"), ("found", "find"), ("carried", "carry"),
          ("washed", "wash"), ("opened", "open"), ("built", "build"), ("read", "read")]
_ADJS = ["old", "young", "tall", "quiet", "happy", "tired", "clever", "brave"]
_PLACES = ["in the morning", "near the station", "at the market", "after the storm",
           "before dinner", "in the old town", "by the lake", "during the festival"]
_REASONS = ["because it was raining", "for a friend", "to win a prize", "while singing",
            "for the first time", "with great care"]


def cache_name() -> str:
    """One fixture folder per transformers major version: a tokenizer saved by transformers 5
    names a class (TokenizersBackend) that transformers 4 cannot load."""
    import importlib.metadata

    try:
        major = importlib.metadata.version("transformers").split(".")[0]
    except importlib.metadata.PackageNotFoundError:
        major = "0"
    return f"demo-v{FIXTURE_VERSION}-t{major}"


def default_cache_dir() -> Path:
    env = current_settings().cache_dir
    base = Path(env) if env else Path.home() / ".cache" / "hf-debug-wizard"
    return base / cache_name()


def mnli_rows(n: int, seed: int) -> dict[str, list]:
    """Premise/hypothesis pairs whose label follows from the words, so a model can learn it."""
    rng = random.Random(seed)
    rows: dict[str, list] = {"premise": [], "hypothesis": [], "label": [], "idx": []}
    for i in range(n):
        noun, obj = rng.choice(_NOUNS), rng.choice(_OBJECTS)
        past, base = rng.choice(_VERBS)
        premise = f"the {rng.choice(_ADJS)} {noun} {past} the {obj} {rng.choice(_PLACES)} ."
        label = i % 3 if rng.random() < 0.8 else rng.randrange(3)
        if label == 0:
            hypothesis = f"the {noun} {past} the {obj} ."
        elif label == 1:
            hypothesis = f"the {noun} {past} the {obj} {rng.choice(_REASONS)} ."
        else:
            hypothesis = f"the {noun} did not {base} the {obj} ."
        rows["premise"].append(premise)
        rows["hypothesis"].append(hypothesis)
        rows["label"].append(label)
        rows["idx"].append(i)
    return rows


def build_tokenizer(out: Path, texts: list[str]) -> Path:
    """Train a lowercase WordPiece tokenizer locally and save it as a transformers tokenizer."""
    from tokenizers import (
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(texts, trainers.WordPieceTrainer(vocab_size=400, special_tokens=SPECIALS))
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)])
    tok.decoder = decoders.WordPiece(prefix="##")
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
        sep_token="[SEP]", mask_token="[MASK]", model_max_length=128,
        model_input_names=["input_ids", "attention_mask"])
    fast.save_pretrained(out)
    return out


def build_model(out: Path, vocab_size: int, frameworks: tuple[str, ...]) -> Path:
    """A 2-layer, 32-dim DistilBERT body with PyTorch (and, when TF is present, TF) weights."""
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    import torch
    from transformers import DistilBertConfig, DistilBertModel

    torch.manual_seed(0)
    config = DistilBertConfig(vocab_size=vocab_size, dim=32, n_layers=2, n_heads=2, hidden_dim=64,
                              max_position_embeddings=128, pad_token_id=0)
    config.architectures = ["DistilBertModel"]
    DistilBertModel(config).save_pretrained(out)
    if "tensorflow" in frameworks:
        from transformers import TFDistilBertModel

        tf_model = TFDistilBertModel.from_pretrained(out, from_pt=True)
        tf_model.save_pretrained(out)
        # the TF demo's own folder: TF weights only, as a TF user's checkpoint has them (beside
        # PyTorch safetensors, transformers 4.57 tries those first and fails: a bug of the
        # stack, not of the course's script, so the demo does not show it)
        tf_out = out.parent / "model-tf"
        tf_out.mkdir(exist_ok=True)
        for item in out.iterdir():
            if item.is_file() and item.suffix not in (".safetensors", ".h5", ".bin"):
                shutil.copy2(item, tf_out / item.name)
        tf_model.save_pretrained(tf_out)
    return out


def build_dataset(out: Path) -> Path:
    from datasets import ClassLabel, Dataset, DatasetDict, Features, Value

    features = Features({"premise": Value("string"), "hypothesis": Value("string"),
                         "label": ClassLabel(names=LABEL_NAMES), "idx": Value("int32")})
    DatasetDict({
        "train": Dataset.from_dict(mnli_rows(300, seed=1), features=features),
        "validation": Dataset.from_dict(mnli_rows(60, seed=2), features=features),
    }).save_to_disk(str(out))
    return out


def build_fixtures(root: Path | None = None, frameworks: tuple[str, ...] | None = None) -> Path:
    """Build (once) and return the fixture folder with model/, dataset/ and case files."""
    import importlib.util

    root = Path(root) if root else default_cache_dir()
    if frameworks is None:
        frameworks = ("pytorch",) + (("tensorflow",) if importlib.util.find_spec("tensorflow") else ())
    marker = root / "fixtures.json"
    if fixtures_ready(root, frameworks):
        return root
    root.mkdir(parents=True, exist_ok=True)
    build_dataset(root / "dataset")
    rows = mnli_rows(300, seed=1)
    tok_dir = build_tokenizer(root / "model", rows["premise"] + rows["hypothesis"])
    from transformers import AutoTokenizer

    vocab = len(AutoTokenizer.from_pretrained(tok_dir))
    build_model(root / "model", vocab, tuple(frameworks))
    marker.write_text(json.dumps({"version": FIXTURE_VERSION, "frameworks": sorted(frameworks)}))
    return root


def fixtures_ready(root: Path, frameworks: tuple[str, ...]) -> bool:
    """Whether `root` already holds the fixtures, with weights for each framework."""
    marker = Path(root) / "fixtures.json"
    if not marker.exists():
        return False
    return set(frameworks) <= set(json.loads(marker.read_text()).get("frameworks", []))


def ensure_fixtures(root: Path, framework: str) -> Path:
    """The fixtures for `framework`, built once in a child process: the wizard's own process
    never imports a framework (the probes' worker does)."""
    if not fixtures_ready(root, (framework,)):
        proc = subprocess.run([sys.executable, "-m", "wizard.demo.fixtures", str(root), framework],
                              env=child_env(framework), capture_output=True, text=True)
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
            raise WizardError(f"The demo fixtures could not be built in {root}: {tail[0]}",
                              fix="Check the folder is writable, or set WIZARD_CACHE to another.")
    return Path(root)


if __name__ == "__main__":
    build_fixtures(Path(sys.argv[1]), frameworks=tuple(sys.argv[2:]) or None)
