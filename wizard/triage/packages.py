"""Package names and release numbers: the pip name of an import name, one key per package across
its spellings, and release numbers read and compared (stdlib only; the bottom of triage's
version reasoning, shared by versions.py and api_history.py)."""
from __future__ import annotations

import re

# import name (or a common spelling in prose) -> the name pip installs
_PIP = {
    "sklearn": "scikit-learn", "cv2": "opencv-python", "PIL": "Pillow", "yaml": "PyYAML",
    "tf_keras": "tf-keras", "bs4": "beautifulsoup4", "skimage": "scikit-image", "attr": "attrs",
    "google.protobuf": "protobuf", "sentence_transformers": "sentence-transformers",
    "dateutil": "python-dateutil", "dotenv": "python-dotenv", "faiss": "faiss-cpu",
    "fitz": "PyMuPDF", "docx": "python-docx", "jwt": "PyJWT", "huggingface_hub": "huggingface-hub",
    "pytorch_lightning": "pytorch-lightning", "flash_attn": "flash-attn",
    "llama_cpp": "llama-cpp-python", "Levenshtein": "python-Levenshtein", "sentencepiece":
    "sentencepiece", "google.colab": "google-colab", "tensorflow_datasets": "tensorflow-datasets",
    "tensorflow_hub": "tensorflow-hub", "tensorflow_text": "tensorflow-text", "torch": "torch",
    "pytorch": "torch", "tensorflow": "tensorflow", "tf": "tensorflow", "transformer": "transformers",
    "hf_transfer": "hf_transfer", "lm_eval": "lm-eval", "soundfile": "soundfile",
    "torchaudio": "torchaudio", "torchvision": "torchvision", "bitsandbytes": "bitsandbytes",
    "bnb": "bitsandbytes", "auto_gptq": "auto-gptq", "awq": "autoawq", "jieba": "jieba",
    "rouge_score": "rouge-score", "sacrebleu": "sacrebleu", "nltk": "nltk", "evaluate": "evaluate",
}


def pip_name(module: str) -> str:
    """The pip name that provides an import name ("sklearn" -> "scikit-learn")."""
    module = (module or "").strip()
    parts = module.split(".")
    for key in (".".join(parts[:n]) for n in range(len(parts), 0, -1)):   # longest prefix first
        listed = listed_pip_name(key)
        if listed:
            return listed
    return module.split(".", 1)[0].replace("_", "-")


def listed_pip_name(module: str) -> str | None:
    """The pip name the table lists for an import name, as written or in lower case (a
    reporter's capitals: "PyTorch", "Tensorflow"); none when the table has no entry."""
    return _PIP.get(module) or _PIP.get(module.lower())


def normal_name(name: str) -> str:
    """A name as pip compares it: lower case, '-' for runs of '_', '.' and '-'."""
    return re.sub(r"[-_.]+", "-", name).lower()


def dist_key(name: str) -> str:
    """A package compared across spellings: the normal form of its pip name."""
    return normal_name(pip_name(name))


def parse_version(text: str | None) -> tuple[int, ...] | None:
    """'4.28.0.dev0' -> (4, 28, 0); '3,3,1' -> (3, 3, 1); None when it is not a version."""
    m = re.match(r"\s*v?(\d{1,6}(?:[.,]\d{1,6}){0,3})", str(text or ""))
    if not m:
        return None
    return tuple(int(x) for x in re.split(r"[.,]", m.group(1)))


def version_lt(a: str | None, b: str | None) -> bool | None:
    """a < b, comparing release numbers (None when either is not a version)."""
    va, vb = parse_version(a), parse_version(b)
    if va is None or vb is None:
        return None
    n = max(len(va), len(vb))
    return va + (0,) * (n - len(va)) < vb + (0,) * (n - len(vb))
