"""What a script for another task than sequence classification says beyond the common reading:
peft's LoraConfig (and a 4-bit base), TRL's SFTTrainer / SFTConfig, how a causal LM's labels are
made (the LM collator, labels copied from input_ids, completion-only loss, TRL's prompt/completion
rows), the pad token it sets, which end truncation cuts, and how a token classifier's word labels
are put on the subwords."""
from __future__ import annotations

import ast
from typing import Any

from wizard.core.tasks import CAUSAL_LM
from wizard.script.syntax import Unresolved, call_name, kwarg

SFT_TRAINERS = ("SFTTrainer",)
FOUR_BIT = ("load_in_4bit", "bnb_4bit_quant_type", "bnb_4bit_compute_dtype")


def read_llm(r: Any) -> None:
    """Fill the reader's case data from the script's LoRA, TRL and collator calls. `r` is the
    script reader (wizard.script.extract.Reader)."""
    s = r.s
    calls = list(s.calls)
    sft = next((c for c in calls if call_name(c) in SFT_TRAINERS), None)
    if sft is not None:
        r.set("task", CAUSAL_LM, sft)
        r.set("preprocessing.add_eos", True, sft)  # TRL appends the eos to each text
        _sft_model(r, sft)
    lora = next((c for c in calls if call_name(c) == "LoraConfig"), None)
    if lora is not None:
        four_bit = any(call_name(c) == "BitsAndBytesConfig" and any(
            kw.arg in FOUR_BIT and r.val(kw.value) not in (False, None) for kw in c.keywords)
            for c in calls) or r.data.get("load_args", {}).get("load_in_4bit") is True
        r.set("adapter.method", "qlora" if four_bit else "lora", lora)
        for name, dotted in (("r", "adapter.r"), ("lora_alpha", "adapter.alpha"),
                             ("lora_dropout", "adapter.dropout")):
            node = kwarg(lora, name)
            if node is not None:
                r.set(dotted, r.val(node), lora)
        targets = kwarg(lora, "target_modules")
        if targets is not None:
            value = r.val(targets)
            if isinstance(value, str):
                value = [value]
            if isinstance(value, (list, tuple, set)):
                r.set("adapter.target_modules", [str(v) for v in value], lora)
    _pad_token(r)
    _truncation_side(r, calls)
    if r.data.get("task") == "token-classification":
        _token_labels(r, calls)
    if r.data.get("task") != CAUSAL_LM:
        return
    _lm_labels(r, calls)
    _packing(r, calls)
    if sft is not None and r.facts.tokenize is None:
        _sft_text_column(r, calls)


def _sft_model(r: Any, sft: ast.Call) -> None:
    """SFTTrainer(model="org/name") loads the model itself."""
    node = kwarg(sft, "model", 0)
    value = r.val(node) if node is not None else None
    if isinstance(value, str) and "model" not in r.read:
        r.set("model", r.refs.get(value, value), sft)


def _lm_labels(r: Any, calls: list[ast.Call]) -> None:
    tokenize = r.facts.tokenize
    if tokenize is not None and tokenize.label_from == "input_ids":
        line = tokenize.line
        r.set("preprocessing.lm_labels", "copy", next((c for c in calls if c.lineno == line), None))
        return
    config = next((c for c in calls if call_name(c) == "SFTConfig"), None)
    if config is not None:
        node = kwarg(config, "completion_only_loss")
        value = r.val(node) if node is not None else None
        if value is True:
            r.set("preprocessing.lm_labels", "completion-only", config)
            return
        if node is None and any(c for c in calls if call_name(c) in SFT_TRAINERS):
            # TRL's default (None): completion-only on prompt/completion data
            built = _prompt_completion_rows(r.s.tree)
            if built is not None:
                r.set("preprocessing.lm_labels", "completion-only", built)
                return
            r.notes.append("SFTConfig leaves completion_only_loss at its default: on a "
                           "prompt/completion dataset TRL trains on the completion only.")
    collator = next((c for c in calls if call_name(c) == "DataCollatorForLanguageModeling"), None)
    sft = next((c for c in calls if call_name(c) in SFT_TRAINERS), None)
    if sft is not None and (collator is None or
                            (r.s.qualname(collator.func) or "").startswith("trl")):
        r.set("preprocessing.lm_labels", "sft", sft)   # TRL's own collator, by position
        return
    if collator is not None:
        mlm = kwarg(collator, "mlm")
        value = r.val(mlm) if mlm is not None else True
        if value is True and not isinstance(value, Unresolved):
            r.notes.append(f"DataCollatorForLanguageModeling at line {collator.lineno} masks "
                           "tokens for masked-LM training (mlm=True is its default); a causal "
                           "LM needs mlm=False.")
        r.set("preprocessing.lm_labels", "collator", collator)


def _prompt_completion_rows(tree: ast.AST) -> ast.Dict | None:
    """The dict the script builds its rows with, when its keys are TRL's prompt/completion
    columns (`return {"prompt": ..., "completion": ...}` in a map function)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
            if {"prompt", "completion"} <= keys:
                return node
    return None


def _packing(r: Any, calls: list[ast.Call]) -> None:
    """SFTConfig(packing=True, max_length=...), or the course's group_texts: a range() stepping
    by the block size."""
    config = next((c for c in calls if call_name(c) == "SFTConfig"), None)
    node = kwarg(config, "packing") if config is not None else None
    if node is not None and r.val(node) is True:
        r.set("preprocessing.packing", True, config)
        length = kwarg(config, "max_length")
        if length is not None:
            r.set("preprocessing.max_length", r.val(length), config)
        return
    for call in calls:
        if call_name(call) == "range" and len(call.args) == 3 and isinstance(call.args[2], ast.Name) \
                and "block" in call.args[2].id:
            r.set("preprocessing.packing", True, call)
            r.set("preprocessing.max_length", r.val(call.args[2]), call)
            return


def _sft_text_column(r: Any, calls: list[ast.Call]) -> None:
    """SFTTrainer tokenizes the dataset itself: its text column is SFTConfig's
    dataset_text_field ("text" by default)."""
    config = next((c for c in calls if call_name(c) == "SFTConfig"), None)
    node = kwarg(config, "dataset_text_field") if config is not None else None
    value = r.val(node) if node is not None else "text"
    if not isinstance(value, str):
        return
    r.questions[:] = [q for q in r.questions if q.field != "dataset.text_columns"]
    r.notes[:] = [n for n in r.notes if not n.startswith("No tokenizer call was found")]
    r.set("dataset.text_columns", [value], config if config is not None else None)


def _pad_token(r: Any) -> None:
    """`tokenizer.pad_token = tokenizer.eos_token` (or a literal token) as the script sets it."""
    for node in ast.walk(r.s.tree):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Attribute) and target.attr == "pad_token":
                value = node.value
                if isinstance(value, ast.Attribute) and value.attr.endswith("_token"):
                    r.set("preprocessing.pad_token", value.attr, node)
                elif isinstance(value, ast.Constant) and isinstance(value.value, str):
                    r.set("preprocessing.pad_token", value.value, node)


def _truncation_side(r: Any, calls: list[ast.Call]) -> None:
    """Which end truncation cuts: `tokenizer.truncation_side = "left"`, the same given to
    from_pretrained, or TRL's SFTConfig(truncation_mode="keep_end")."""
    for node in ast.walk(r.s.tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and any(
                isinstance(t, ast.Attribute) and t.attr == "truncation_side" for t in node.targets):
            if node.value.value in ("left", "right"):
                r.set("preprocessing.truncation_side", node.value.value, node)
                return
    for call in calls:
        side = kwarg(call, "truncation_side") if call_name(call) == "from_pretrained" else None
        mode = kwarg(call, "truncation_mode") if call_name(call) == "SFTConfig" else None
        value = r.val(side) if side is not None else None
        if mode is not None:
            value = {"keep_end": "left", "keep_start": "right"}.get(r.val(mode))
        if value in ("left", "right"):
            r.set("preprocessing.truncation_side", value, call)
            return


def _token_labels(r: Any, calls: list[ast.Call]) -> None:
    """word_ids() in the script: labels re-aligned (on every subword with label_all_tokens);
    without it, the word labels go in as they are."""
    word_ids = next((c for c in calls if call_name(c) == "word_ids"), None)
    if word_ids is None:
        tokenize = r.facts.tokenize
        if tokenize is not None and tokenize.label_from:
            r.set("preprocessing.token_labels", "none",
                  next((c for c in calls if c.lineno == tokenize.line), None))
        return
    all_tokens = any(isinstance(n, ast.Name) and n.id == "label_all_tokens"
                     for n in ast.walk(r.s.tree)) and any(
        isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "label_all_tokens"
                                          for t in n.targets)
        and isinstance(n.value, ast.Constant) and n.value.value is True
        for n in ast.walk(r.s.tree))
    r.set("preprocessing.token_labels", "all-subwords" if all_tokens else "first-subword",
          word_ids)
