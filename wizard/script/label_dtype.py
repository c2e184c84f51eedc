"""Labels the script casts to floating point before they reach the model
(torch.tensor(labels, dtype=torch.float32), labels.float(), .astype(np.float32)): with a
classification head of two or more outputs transformers then takes the multi-label loss."""
from __future__ import annotations

import ast
import re
from typing import Any

from wizard.script.syntax import call_name, kwarg

_FLOAT = re.compile(r"\bfloat(?:16|32|64)?\b|\b(?:half|double|bfloat16)\b")
_CASTS = ("tensor", "as_tensor", "FloatTensor", "float", "astype", "to", "DoubleTensor")


def read_label_dtype(r: Any) -> None:
    """Set `training.float_labels` when a cast to float is applied to the labels: a name that
    says label, or an expression that reads the label column."""
    label = r.data.get("dataset", {}).get("label_column") or "label"
    in_loss = _inside_a_loss(r.s.tree)
    for call in r.s.calls:
        name = call_name(call)
        if name not in _CASTS or id(call) in in_loss:
            continue
        subject = _subject(call, name)
        if subject is None or not _is_float_cast(call, name):
            continue
        if _mentions_labels(r, subject, label):
            r.set("training.float_labels", True, call)
            return


def _inside_a_loss(tree: ast.AST) -> set[int]:
    """Nodes of a loss the script computes itself (compute_loss, a *loss* call's arguments):
    a cast there feeds that loss, not the model."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and "loss" in node.name:
            out.update(id(n) for n in ast.walk(node))
        elif isinstance(node, ast.Call) and "loss" in (call_name(node) or "").lower():
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                out.update(id(n) for n in ast.walk(arg))
    return out


def _subject(call: ast.Call, name: str) -> ast.AST | None:
    """What is cast: the first argument of a constructor, the receiver of a method."""
    if name in ("tensor", "as_tensor", "FloatTensor", "DoubleTensor"):
        return call.args[0] if call.args else None
    return call.func.value if isinstance(call.func, ast.Attribute) else None


def _is_float_cast(call: ast.Call, name: str) -> bool:
    """FloatTensor(x), x.float(), or a dtype= (astype/to: the first argument) that is a float."""
    if name in ("FloatTensor", "DoubleTensor"):
        return True
    if name == "float":                     # x.float(), not float(x) of a single number
        return not call.args and not call.keywords
    dtype = kwarg(call, "dtype")
    if dtype is None and name in ("astype", "to") and call.args:
        dtype = call.args[0]
    return dtype is not None and _FLOAT.search(ast.unparse(dtype)) is not None


def _mentions_labels(r: Any, node: ast.AST, label: str) -> bool:
    text = ast.unparse(node)
    if re.search(r"label", text, re.I):
        return True
    expr, _ = r.s.definition(node) if isinstance(node, ast.Name) else (node, None)
    return expr is not None and label in r.columns_in(expr)
