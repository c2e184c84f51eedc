"""Where each library's issues live on GitHub, and a search of them for an error message."""
from __future__ import annotations

import re
from urllib.parse import quote

GITHUB = "https://github.com"

REPOSITORIES: dict[str, str] = {
    "transformers": "huggingface/transformers", "datasets": "huggingface/datasets",
    "accelerate": "huggingface/accelerate", "tokenizers": "huggingface/tokenizers",
    "peft": "huggingface/peft", "trl": "huggingface/trl", "safetensors": "huggingface/safetensors",
    "huggingface_hub": "huggingface/huggingface_hub", "diffusers": "huggingface/diffusers",
    "evaluate": "huggingface/evaluate", "sentence_transformers": "huggingface/sentence-transformers",
    "keras": "keras-team/keras", "tf_keras": "keras-team/tf-keras",
    "tensorflow": "tensorflow/tensorflow", "torch": "pytorch/pytorch",
    "bitsandbytes": "bitsandbytes-foundation/bitsandbytes", "deepspeed": "deepspeedai/DeepSpeed",
    "unsloth": "unslothai/unsloth",
}
DEFAULT_REPOSITORY = REPOSITORIES["transformers"]

# what varies between two reports of one error: paths, quoted names, numbers, addresses
_VARYING = re.compile(r"\S*[/\\]\S*|'[^'\n]{0,80}'|\"[^\"\n]{0,80}\"|`[^`\n]{0,80}`|0x[0-9a-f]+|"
                      r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?|[\[\](){}<>:,;=]", re.I)


def library_key(package: str | None) -> str:
    """A package or module name as the tables key it: "huggingface-hub" -> "huggingface_hub"."""
    return (package or "").split(".")[0].replace("-", "_").lower()


def issue_repository(package: str | None) -> str:
    """The GitHub repository where a bug in `package` is filed (transformers' when unknown)."""
    return REPOSITORIES.get(library_key(package), DEFAULT_REPOSITORY)


def issue_search_terms(package: str | None, exception: str | None,
                       message: str) -> tuple[str, str] | None:
    """(repository, query): the library's GitHub repository and a search for the words of an
    error message that stay the same from one report to the next; None when too few are left."""
    first = (message or "").strip().split("\n", 1)[0]
    words = " ".join(_VARYING.sub(" ", first).split())
    if len(first) > 120:
        words = words[:120].rsplit(" ", 1)[0]
    if len(words.split()) < 3:
        return None
    query = f'"{words}"' + (f" {exception.rsplit('.', 1)[-1]}" if exception else "")
    return issue_repository(package), query


def issue_search_url(package: str | None, exception: str | None, message: str) -> str | None:
    """The web page of that search (issue_search_terms), None when there is nothing to search."""
    terms = issue_search_terms(package, exception, message)
    if terms is None:
        return None
    return issue_page(*terms)


def issue_page(repository: str, query: str) -> str:
    """A search of `repository`'s issues on github.com."""
    return f"{GITHUB}/{repository}/issues?q={quote(query, safe='')}"
