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

# what varies between two reports of one error: paths, quoted names, whole numbers, addresses
_VARYING = re.compile(r"\S*[/\\]\S*|'[^'\n]{0,80}'|\"[^\"\n]{0,80}\"|`[^`\n]{0,80}`|0x[0-9a-f]+|"
                      r"(?<![\w.])[-+]?\d+(?:\.\d+)*(?:e[-+]?\d+)?(?![\w.])|"
                      # a class or checkpoint named in the words (PhiForCausalLM, gemma-7b)
                      r"(?-i:\b[A-Z][a-z0-9]+[A-Z]\w*)|\b[\w.]+-[\w.-]*\d[\w.-]*", re.I)
_WORD = re.compile(r"[A-Za-z0-9_]+")
_QUOTED_NAME = re.compile(r"['`\"]([A-Za-z_][\w.]{2,59})['`\"]")
_INDEXED = re.compile(r"\.\d|\d\.")      # model.layers.3: one of many, not the error's subject
PHRASES, PHRASE_WORDS, QUERY_WORDS, QUERY_NAMES = 3, 6, 10, 2  # GitHub ANDs a query's parts


def library_key(package: str | None) -> str:
    """A package or module name as the tables key it: "huggingface-hub" -> "huggingface_hub"."""
    return (package or "").split(".")[0].replace("-", "_").lower()


def issue_repository(package: str | None) -> str:
    """The GitHub repository where a bug in `package` is filed (transformers' when unknown)."""
    return REPOSITORIES.get(library_key(package), DEFAULT_REPOSITORY)


def package_of(repository: str) -> str:
    """The package whose issues live in `repository` (its pip name): "huggingface/peft" -> "peft"."""
    found = next((k for k, v in REPOSITORIES.items() if v == repository), None)
    return (found or repository.rsplit("/", 1)[-1]).replace("_", "-")


def issue_search_terms(package: str | None, exception: str | None,
                       message: str) -> tuple[str, str] | None:
    """(repository, query): the library's GitHub repository and a search for the words of an
    error message that stay the same from one report to the next, as quoted phrases cut where
    the message varies (a phrase must not join the words around a number or a name); None when
    too few are left."""
    first = (message or "").strip().split("\n", 1)[0]
    phrases, total = [], 0
    # a quoted name is what the message is about (No module named 'flash_attn', no attribute
    # 'vllm_engine'), unless it is the object's type ('LlamaForCausalLM' object has no ...)
    names = [m.group(1) for m in _QUOTED_NAME.finditer(first)
             if not first[m.end():].lstrip().startswith("object")
             and not _INDEXED.search(m.group(1))]
    for part in _VARYING.split(first):
        found = _WORD.findall(part)[:PHRASE_WORDS]
        if len(found) < 2 or len(phrases) == PHRASES:
            continue
        found = found[:QUERY_WORDS - total]
        if len(found) >= 2:
            phrases.append(" ".join(found))
            total += len(found)
    names = [n for n in dict.fromkeys(names) if n not in " ".join(phrases)][:QUERY_NAMES]
    if total + 2 * len(names) + bool(exception) < 3:
        return None
    query = " ".join([*(f'"{p}"' for p in phrases), *names]) \
        + (f" {exception.rsplit('.', 1)[-1]}" if exception else "")
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
