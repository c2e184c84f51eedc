"""Batched generation with a decoder-only model: prompts padded on the right put pad tokens
between each shorter prompt and the tokens generated after it."""
from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from wizard.core.tasks import CAUSAL_LM
from wizard.script.syntax import call_name, kwarg


def read_generation(r: Any) -> None:
    """Set `facts.right_padded_generate` to (line, code) of a generate() fed by a padded
    tokenizer call, when nothing in the script (or the local tokenizer's config) pads left.
    `r` is the script reader (wizard.script.extract.Reader)."""
    if r.data.get("task") != CAUSAL_LM or _pads_left(r):
        return
    padded = {}
    for node in ast.walk(r.s.tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name):
            call = _tokenizer_call(node.value)
            if call is not None:
                padded[node.targets[0].id] = call
    for call in r.s.calls:
        if call_name(call) != "generate":
            continue
        used = {n.id for a in [*call.args, *(k.value for k in call.keywords)]
                for n in ast.walk(a) if isinstance(n, ast.Name)}
        fed = next((padded[n] for n in used if n in padded), None)
        if fed is not None:
            r.facts.right_padded_generate = (call.lineno, r.s.code(fed))
            return


def _tokenizer_call(value: ast.AST) -> ast.Call | None:
    """tokenizer(texts, padding=True, ...) (or the same followed by .to(device))."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
            value.func.attr == "to":
        value = value.func.value
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Name) or \
            "token" not in value.func.id.lower():
        return None
    pad = kwarg(value, "padding")
    if pad is None or (isinstance(pad, ast.Constant) and pad.value in (False, "do_not_pad")):
        return None
    return value


def _pads_left(r: Any) -> bool:
    for node in ast.walk(r.s.tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and \
                node.value.value == "left" and any(isinstance(t, ast.Attribute) and
                                                   t.attr == "padding_side" for t in node.targets):
            return True
        if isinstance(node, ast.keyword) and node.arg == "padding_side" and \
                isinstance(node.value, ast.Constant) and node.value.value == "left":
            return True
    model = r.data.get("model")
    config = Path(str(model)) / "tokenizer_config.json" if model else None
    try:
        return config is not None and config.is_file() and json.loads(
            config.read_text(encoding="utf-8")).get("padding_side") == "left"
    except (OSError, ValueError):
        return False
