"""Errors of loading, setting up and training a tokenizer: a checkpoint's broken special tokens
that make the unknown-token lookup recurse, remote-code tokenizers whose pad token is read-only,
a fast tokenizer shared between threads, a class without the vocabulary file it reads, an id
given where a token string is expected, and the tokenizers library's own refusals (training
files that are not UTF-8, vocab and merges that disagree, custom components that cannot be
saved).
"""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.parse import ParsedError
from wizard.triage.signature import Signature, signature_maker

_t = signature_maker(14)


def refine_read_only(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A bare "can't set attribute" is the tokenizer's only beside a ChatGLM tokenizer."""
    if ev.get("token") or ev.get("prop") or re.search(r"chatglm", parsed.text, re.I):
        return None
    return {"reject": True}


# a None path is the tokenizer's only when the paste is about one
_ABOUT_TOKENIZER = r"tokeniz|unk_token|vocab_file|merges_file|\.tiktoken"


TOKENIZER_ERROR_SIGNATURES: list[Signature] = [
    _t("spm-vocab-size-too-large-for-corpus",
       r"\(trainer_spec_\.vocab_size\(\)\) == \(model_proto->pieces_size\(\)\)|Vocabulary size "
       r"too high \((?P<asked>\d+)\)\. Please set it to a value <= (?P<most>\d+)",
       "The SentencePiece training text holds too few distinct pieces for the vocab_size asked: "
       "the trainer enforces vocab_size as a hard limit and stops when it cannot reach it.",
       "SentencePiece builds exactly vocab_size pieces from the training text unless the limit "
       "is soft.", ["data.tokenizer-model-mismatch"],
       "spm.SentencePieceTrainer.train(input='corpus.txt', model_prefix='m', vocab_size=500)   "
       "# smaller, or: hard_vocab_limit=False (or more text)",
       title="vocab_size larger than the training text allows"),
    _t("spm-vocab-smaller-than-character-set",
       r"Vocabulary size is smaller than required_chars\. (?P<asked>\d+) vs (?P<chars>\d+)",
       "The SentencePiece vocab_size asked for is smaller than the number of distinct characters "
       "the training text needs covered (character_coverage of them): every such character is a "
       "piece of its own before any merge (CJK text holds tens of thousands).",
       "SentencePiece keeps each required character as a piece, so vocab_size must exceed them.",
       ["data.tokenizer-model-mismatch"],
       "spm.SentencePieceTrainer.train(input='corpus.txt', model_prefix='m', "
       "vocab_size=<more than the characters>, character_coverage=0.9995)   # or lower the "
       "coverage (rare characters become byte or unknown pieces)",
       title="vocab_size smaller than the characters to cover"),
    # transformers 4.x's lookup of the class tokenizer_config.json (or the fast default) names
    _t("fast-tokenizer-class-unavailable",
       r"'NoneType' object has no attribute '__name__'",
       "AutoTokenizer looked up a tokenizer class that does not exist here and found None: the "
       "model has only a slow (Python) tokenizer and AutoTokenizer asks for the fast one "
       "(use_fast=True is its default), or the slow class needs sentencepiece, which is not "
       "installed.", "AutoTokenizer maps a config's tokenizer class to the classes it can "
       "import; one it cannot is None.", ["data.tokenizer-model-mismatch"],
       "tokenizer = AutoTokenizer.from_pretrained(checkpoint, use_fast=False)\n"
       "pip install sentencepiece   # for the slow tokenizers of T5, XLNet, ALBERT, mBART...",
       title="No tokenizer class for this model",
       refine=lambda ev, parsed: None if re.search(
           r"tokenizer_class_from_name|tokenization_auto", parsed.text) else {"reject": True}),
    _t("tokenizer-special-tokens-empty",
       r"maximum recursion depth exceeded|\bRecursionError\b",
       "The checkpoint's tokenizer_config.json gives empty (or unknown) special tokens: looking "
       "up the unknown token's id falls back to the unknown token again, forever. The early "
       "LLaMA conversions on the Hub (decapoda-research/llama-7b-hf and its copies) ship such a "
       "config.", "A fast tokenizer maps a token it lacks to unk_token_id, which it looks up "
       "the same way.", ["data.tokenizer-model-mismatch"],
       '# a correctly converted checkpoint (e.g. huggyllama/llama-7b), or fix '
       'tokenizer_config.json:\n# {"bos_token": "<s>", "eos_token": "</s>", "unk_token": '
       '"<unk>"}', title="Empty special tokens in the tokenizer config",
       requires=r"unk_token_id|_convert_token_to_id|convert_tokens_to_ids"),
    _t("tokenizer-cannot-add-new-special-tokens",
       r"Adding unknown special tokens is not supported",
       "The tokenizer (Qwen's tiktoken-based QWenTokenizer, trust_remote_code) has a fixed set "
       "of special tokens and refuses new ones: add_special_tokens (or a pad/eos token set to a "
       "new string) asks for one it does not have.",
       "Its vocabulary reserves its special tokens up front (<|endoftext|>, <|im_start|>, "
       "<|extra_0|>...).", ["data.no-pad-token"],
       "tokenizer.pad_token_id = tokenizer.eod_id   # reuse a token it has, e.g. <|endoftext|>\n"
       "# new markers: one of its reserved <|extra_N|> tokens instead of a new string",
       title="This tokenizer cannot add special tokens"),
    _t("tokenizer-pad-token-read-only",
       r"can't set attribute '(?P<token>pad_token|pad_token_id|eos_token|unk_token)'|"
       r"property '(?P<prop>pad_token|pad_token_id|eos_token|eos_token_id|unk_token)' of "
       r"'\w{1,80}Tokenizer' object has no setter|can't set attribute\b",
       "The tokenizer's own code (trust_remote_code: ChatGLM2/3) makes pad_token and the other "
       "special tokens read-only properties, so `tokenizer.pad_token = ...` in the script "
       "fails; this tokenizer already has its pad token.",
       "Remote-code tokenizers define their special tokens from their SentencePiece model.",
       ["data.no-pad-token"],
       "if tokenizer.pad_token is None:   # ChatGLM's is set: skip the assignment\n"
       "    tokenizer.pad_token = tokenizer.eos_token",
       title="The tokenizer's pad token is read-only", refine=refine_read_only),
    _t("fast-tokenizer-shared-across-threads",
       r"\bAlready borrowed\b",
       "One fast (Rust) tokenizer is used by several threads at once: a call that changes its "
       "padding or truncation settings meets another thread still encoding with it.",
       "The Rust tokenizer refuses to be changed while borrowed.", ["data.batch-structure"],
       "import copy, threading\n_local = threading.local()\ndef tok():\n    if not "
       "hasattr(_local, 't'):\n        _local.t = copy.deepcopy(tokenizer)   # one per thread\n"
       "    return _local.t\n# or a threading.Lock around the calls",
       title="A fast tokenizer shared between threads"),
    _t("tokenizer-vocab-file-missing",
       r"expected str, bytes or os\.PathLike object, not NoneType|"
       r"stat: path should be string, bytes, os\.PathLike or integer, not NoneType",
       "A tokenizer class was built without the vocabulary file it reads (vocab_file or "
       "merges_file is None): the checkpoint has only tokenizer.json and a slow class was asked "
       "for, or a file of the repo (qwen.tiktoken, spiece.model) was not downloaded.",
       "Slow tokenizer classes read vocab.txt / vocab.json + merges.txt / *.model; fast ones "
       "read tokenizer.json.", ["data.tokenizer-model-mismatch"],
       "tokenizer = AutoTokenizer.from_pretrained(path)   # picks the fast class from "
       "tokenizer.json\n# or download the missing vocabulary file into the folder",
       title="The tokenizer's vocabulary file is missing", requires=_ABOUT_TOKENIZER),
    _t("tokenizer-id-as-pad-token",
       r"Cannot set a non-string value as the PAD token",
       "The code assigns an integer to tokenizer.pad_token; the token must be a string, its id "
       "goes to pad_token_id.", "Special tokens are strings (or AddedToken).",
       ["data.no-pad-token"],
       "tokenizer.pad_token_id = 0   # an id\n# or: tokenizer.pad_token = "
       "tokenizer.convert_ids_to_tokens(0)", title="An id given as the pad token"),
    _t("tokenizer-training-file-not-utf8",
       r"stream did not contain valid UTF-8",
       "A file given to the tokenizer trainer is not UTF-8 text (UTF-16, Latin-1, corrupted "
       "bytes, a binary file or one a glob matched by mistake).",
       "The tokenizers trainers read their files as UTF-8.", ["data.empty-text"],
       "iconv -f utf-8 -t utf-8 -c corpus.txt > clean.txt   # or: iconv -f utf-16 -t utf-8\n"
       "# and pass only the intended text files to tokenizer.train(files=...)",
       title="A training file that is not UTF-8"),
    _t("bpe-vocab-merges-mismatch",
       r"Error while initializing BPE: Token `?.{1,40}?`? out of vocabulary",
       "The BPE vocab.json and merges.txt disagree: a merge produces a token the vocabulary "
       "lacks (an edited or pruned vocabulary, a converted fairseq dictionary), and the fast "
       "tokenizer refuses to build.", "Every merge's result must be in the vocabulary.",
       ["data.tokenizer-model-mismatch"],
       "tokenizer = AutoTokenizer.from_pretrained(path, use_fast=False)   # works around it\n"
       "# the fix: add the merged tokens to vocab.json (or drop those merges), then save "
       "tokenizer.json", title="BPE vocabulary and merges disagree"),
    _t("custom-tokenizer-component-not-serializable",
       r"Custom (?:PreTokenizer|Normalizer|Decoder) cannot be serialized",
       "A tokenizer with a Python component (PreTokenizer.custom / Normalizer.custom) cannot be "
       "written to tokenizer.json: only the built-in components serialize.",
       "tokenizer.json describes the pipeline by the names of Rust components.",
       ["data.tokenizer-model-mismatch"],
       "tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()   # a built-in one before save\n"
       "tokenizer.save('tokenizer.json')\n# after loading: tok.pre_tokenizer = "
       "PreTokenizer.custom(MyPreTokenizer())", title="A custom tokenizer component in save"),
]
