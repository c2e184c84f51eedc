"""Tokens the script adds to the vocabulary while training a LoRA adapter: their embedding rows
are new (random or averaged) and train only when the adapter includes the embeddings."""
from __future__ import annotations

import ast
from typing import Any

from wizard.script.syntax import call_name, kwarg

ADDS = ("add_special_tokens", "add_tokens", "setup_chat_format")
EMBEDDINGS = ("embed", "lm_head", "wte", "shared", "word_embeddings")


def read_new_tokens(r: Any) -> None:
    """Set `facts.new_tokens_frozen` to (line, code) when tokens other than a pad token are
    added, the embeddings resized, and the LoraConfig trains neither the embeddings
    (modules_to_save) nor the new rows (trainable_token_indices). `r` is the script reader."""
    calls = list(r.s.calls)
    lora = next((c for c in calls if call_name(c) == "LoraConfig"), None)
    if lora is None or kwarg(lora, "trainable_token_indices") is not None:
        return
    saved = kwarg(lora, "modules_to_save")
    if saved is not None and any(e in ast.unparse(saved) for e in EMBEDDINGS):
        return
    added = next((c for c in calls if call_name(c) in ADDS and not _pad_only(c)), None)
    if added is None:
        return
    # TRL's setup_chat_format resizes the embeddings itself
    if call_name(added) == "setup_chat_format" or any(
            call_name(c) == "resize_token_embeddings" for c in calls):
        r.facts.new_tokens_frozen = (added.lineno, r.s.code(added))


def _pad_only(call: ast.Call) -> bool:
    """add_special_tokens({"pad_token": ...}): a pad row is masked out of the loss anyway."""
    if call_name(call) != "add_special_tokens" or not call.args:
        return False
    arg = call.args[0]
    return isinstance(arg, ast.Dict) and all(
        isinstance(k, ast.Constant) and k.value == "pad_token" for k in arg.keys)
