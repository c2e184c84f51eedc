"""Pitfalls of building a tokenizer with the tokenizers library, read from the code in the paste:
documented behaviours that surprise people who train their own tokenizer. Each needs both the
code that sets the pitfall up and the symptom it produces, described or printed in the paste;
the code alone is no fault. A tokenizers object handed to transformers as its tokenizer is read
from the error it raises (or the reporter's words for it); a trainer's progress bar on a closed
stdout from its panic. A tokenizer whose pad (or eos) id is None is read from the None reaching
the line that pads.
"""
from __future__ import annotations

import re
from typing import Any

from wizard.triage.parse import ParsedError
from wizard.triage.signature import Signature

_DROPPED = re.compile(r"\b(?:ignor|dropp|skipp|disappear|vanish|miss|lost|los[et]s?|remov|"
                      r"silently|omitt)\w*\b|no \[?UNK\]?|not (?:in|show|appear)", re.I)
_CHANGED = re.compile(r"\b(?:chang|convert|turn|replac|become|different|lost|los[et]s?|strip|"
                      r"remov|wrong|encoded to|normaliz)\w*\b", re.I)
_REGEX_LIKE = re.compile(r"\\[sdwpSDWP]|\\p\{|\(\?[:=!<]|\[[^\]]+\][+*?]|[^\\]\|")


_TOKEN_ID_NAME = re.compile(r"\b(?:pad_val|pad_id|pad_token_id|pad_value|eos_token_id|eos_id)\b")


def refine_token_id_none(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """None where an int was needed, on a line that pads with the tokenizer's pad (or eos) id:
    the tokenizer defines no such token."""
    lines = [f.code or "" for f in parsed.frames[-4:]] or parsed.text.splitlines()[-15:]
    if ev.get("padding_value"):
        return None                   # the padding value itself is None
    if not any(_TOKEN_ID_NAME.search(line) for line in lines):
        return {"reject": True}
    return None


def refine_unk_not_set(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A model built without unk_token drops what its vocabulary lacks: only when the paste
    says characters went missing."""
    text = parsed.text
    call = re.search(r"\b(?:BPE|WordPiece|WordLevel)\((?P<args>[^()\n]*)\)", text)
    if not call or "unk_token" in call.group("args") or not _DROPPED.search(text):
        return {"reject": True}
    return None


def refine_split_str(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """Split(pattern=<str>) matches the string literally: only when the string is a regular
    expression and is not wrapped in tokenizers.Regex."""
    if not re.search(r"\btokenizers\b|pre_tokenizer", parsed.text):
        return {"reject": True}
    pattern = str(ev.get("pattern", ""))
    name = ev.get("name")
    if name:      # Split(pattern=NAME): the string that NAME holds
        m = re.search(rf"^\s*{re.escape(str(name))}\s*=\s*r?(?P<q>\"\"\"|'''|\"|')(?P<s>.*?)(?P=q)",
                      parsed.text, re.M | re.S)
        if not m or re.search(rf"{re.escape(str(name))}\s*=\s*Regex\(", parsed.text):
            return {"reject": True}
        pattern = m.group("s")
    return None if _REGEX_LIKE.search(pattern) else {"reject": True}


def refine_strip_accents(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """The BERT normalizer strips accents (with lowercase on): only when the paste has text with
    accents or marks and says characters changed."""
    text = parsed.text
    if re.search(r"strip_accents\s*=\s*False", text) or not _CHANGED.search(text):
        return {"reject": True}
    if not re.search(r"[\u00c0-\u024f\u0300-\u036f\u3040-\u30ff\u1e00-\u1eff]", text):
        return {"reject": True}
    return None


_RAW_CLASSES = (r"SentencePieceBPETokenizer|ByteLevelBPETokenizer|BertWordPieceTokenizer|"
                r"CharBPETokenizer|SentencePieceUnigramTokenizer")
# what transformers' Trainer, collators and pipelines call on a tokenizer
_HF_API = (r"pad|pad_token|pad_token_id|eos_token|eos_token_id|bos_token|bos_token_id|"
           r"model_max_length|padding_side|batch_encode_plus|encode_plus|save_pretrained|"
           r"convert_tokens_to_ids|convert_ids_to_tokens|apply_chat_template|"
           r"all_special_ids|vocab_size|model_input_names|decode|batch_decode|tokenize")


def refine_raw_tokenizer(ev: dict, parsed: ParsedError) -> dict[str, Any] | None:
    """A bare `Tokenizer` is the tokenizers library's unless the paste has another one (Keras'
    text Tokenizer, a class of the user's)."""
    if ev.get("cls") != "Tokenizer":
        return None
    other = re.search(r"\bpreprocessing\.text\b[^\n]*\bTokenizer\b|^\s*class Tokenizer\b",
                      parsed.text, re.M)
    return {"reject": True} if other else None


def _t(sig_id: str, pattern: str, cause: str, explanation: str, fix: str, refine: Any,
       title: str, family: str | None = None, priority: int = 9) -> Signature:
    """A pitfall; running the user's snippet (script.run) shows its symptom."""
    return Signature(sig_id, pattern, cause, explanation, ["script.run"], fix, title=title,
                     priority=priority, refine=refine, family=family)


TOKENIZER_SIGNATURES: list[Signature] = [
    Signature(
        "progress-bar-stdout-broken-pipe",
        r"failed printing to std(?:out|err): Broken pipe",
        "A progress bar written from Rust (the tokenizers trainer's) hit a stdout the notebook "
        "process had closed, and Rust's printing panics on a broken pipe.",
        "Rust's print! panics when its stream is closed; Python code would only raise.",
        ["script.run"],
        "trainer = WordPieceTrainer(..., show_progress=False)   # any tokenizers trainer takes it",
        title="The progress bar's stdout is a broken pipe", priority=13),
    Signature(
        "tokenizers-object-not-wrapped",
        rf"'(?P<cls>Tokenizer|{_RAW_CLASSES})' object (?:has no attribute '(?:{_HF_API})'|is not "
        rf"callable)|(?-i:\b(?P<cls2>{_RAW_CLASSES})\b)[^\n]{{0,300}}?\b(?:is )?(?:missing|lacks?|"
        r"has no|does(?:n't| not) have)\b[^\n]{0,80}?\b(?:attributes?|methods?|pad\w*)\b",
        "A tokenizer of the tokenizers library (a Tokenizer or one of its ready-made classes) "
        "was given where transformers expects its own tokenizer: it lacks pad, the special "
        "tokens and __call__ that the Trainer, collators and pipelines use.",
        "transformers wraps a tokenizers object in PreTrainedTokenizerFast, which adds that API.",
        ["script.run"],
        "from transformers import PreTrainedTokenizerFast\n"
        "tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token='<unk>', "
        "pad_token='<pad>')   # or tokenizer_file='tokenizer.json'",
        title="A tokenizers object where transformers needs its tokenizer", priority=12,
        refine=refine_raw_tokenizer),
    _t("add-prefix-space-passed-at-call",
       r"_(?:batch_)?encode_plus\(\) got an unexpected keyword argument 'add_prefix_space'",
       "add_prefix_space is a setting of the fast tokenizer, fixed when it is created: its "
       "pre-tokenizer is built with it, so a call cannot change it (the slow tokenizers took it "
       "per call).",
       "A fast (Rust) tokenizer's pre-tokenizer is configured once, at loading.",
       "tokenizer = AutoTokenizer.from_pretrained('roberta-base', add_prefix_space=True)\n"
       "inputs = tokenizer(words, is_split_into_words=True)", None,
       "add_prefix_space passed to the call", priority=14),
    _t("tokenizer-model-without-unk",
       r"(?-i:\bTokenizer\(\s*(?:models\.)?(?:BPE|WordPiece|WordLevel)\()",
       "The tokenizer's model was built without an unk_token, so text its vocabulary cannot "
       "cover is dropped instead of becoming [UNK]; listing [UNK] among the trainer's special "
       "tokens does not make it the model's unknown token.",
       "tokenizers maps an unknown piece to the model's unk_token when one is set, and skips it "
       "when none is.",
       'tokenizer = Tokenizer(BPE(unk_token="[UNK]"))   # and keep "[UNK]" in the trainer\'s '
       "special_tokens", refine_unk_not_set, "No unk_token on the tokenizer's model",
       family="tokenizer-unk-token-not-set"),
    _t("split-pattern-str-not-regex",
       r"(?-i:\bSplit)\(\s*(?:pattern\s*=\s*)?(?:r?(?P<q>\"\"\"|'''|\"|')(?P<pattern>.*?)(?P=q)|"
       r"(?P<name>[A-Za-z_]\w*)\s*,)",
       "pre_tokenizers.Split matches a str pattern literally, as a substring; a regular "
       "expression given as a str matches nothing, so the text is not split.",
       "Split takes a str (literal) or a tokenizers.Regex (regular expression).",
       "from tokenizers import Regex\n"
       "Split(pattern=Regex(PATTERN), behavior='isolated')", refine_split_str,
       "A regular expression given to Split as a str"),
    _t("tokenizer-strip-accents-default",
       r"(?-i:\bBert(?:WordPiece\w*|Normalizer))\((?![^)\n]*strip_accents\s*=\s*False)",
       "The BERT normalizer strips accents by default when it lowercases, which also removes "
       "the marks that tell characters apart in many scripts (é→e, バ→ハ).",
       "BertNormalizer(strip_accents=None) follows lowercase; lowercase is on by default.",
       "BertWordPieceTokenizer(strip_accents=False, lowercase=False)   # or "
       "normalizers.BertNormalizer(strip_accents=False)", refine_strip_accents,
       "The BERT normalizer strips accents"),
    Signature(
        "token-id-none",
        r"int\(\) argument must be [^\n]{0,80}not '?NoneType'?|'NoneType' object cannot be "
        r"interpreted as an integer|unsupported operand type\(s\) for [^\n]{1,4}: '(?:NoneType|int)' "
        r"and '(?:int|NoneType)'|"
        # torch's pad_sequence given the missing pad id
        r"argument '(?P<padding_value>padding_value)' \(position \d\) must be \w+, not NoneType",
        "The tokenizer defines no pad (or eos) token, so the id the code pads with is None.",
        "Decoder-only tokenizers (and some updated ones) ship without a pad token; code that pads "
        "with tokenizer.pad_token_id (or eos_token_id) then gets None.", ["data.no-pad-token"],
        "tokenizer.pad_token = tokenizer.eos_token   # or add one: tokenizer.add_special_tokens("
        "{'pad_token': '<|pad|>'})\nprint(tokenizer.pad_token_id, tokenizer.eos_token_id)",
        title="The pad token id is None", priority=12, family="no-pad-token",
        refine=refine_token_id_none),
]
