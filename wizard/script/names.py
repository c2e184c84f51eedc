"""The names a script gives its model, checkpoint, tokenizer, tokenized dataset and collator,
read from its assignments (the fixes are then written with them: see script.fixes)."""
from __future__ import annotations

import ast

from wizard.script.fixes import CodeNames
from wizard.script.syntax import ScriptAST, call_name, receiver
from wizard.script.types import is_model_class, is_tokenizer_call


def read_names(s: ScriptAST) -> CodeNames:
    """The target of the script's last assignment of each kind, in source order."""
    names = CodeNames()
    assigns = sorted((n for n in ast.walk(s.tree) if isinstance(n, ast.Assign)),
                     key=lambda n: n.lineno)
    for node in assigns:
        if not (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call)):
            continue
        target, call, name = node.targets[0].id, node.value, call_name(node.value) or ""
        owner = s.qualname(receiver(call)) or ""
        if name == "from_pretrained" and "Tokenizer" in owner:
            names.tokenizer = target
        elif name == "from_pretrained" and is_model_class(owner):
            names.model = target
            first = call.args[0] if call.args else None
            if isinstance(first, ast.Name):
                names.checkpoint = first.id
            elif isinstance(first, ast.Constant) and isinstance(first.value, str):
                names.checkpoint = repr(first.value)
        elif name == "map" and _maps_a_tokenizer(call, s, names.tokenizer):
            names.tokenized = target
        elif name.startswith("DataCollator") or name == "default_data_collator":
            names.collator = target
    return names


def _maps_a_tokenizer(call: ast.Call, s: ScriptAST, tokenizer: str | None) -> bool:
    """`ds.map(fn, ...)` whose function (or lambda) calls the tokenizer; a function that cannot
    be looked into counts (the usual map of a fine-tuning script tokenizes)."""
    fn = call.args[0] if call.args else None
    if fn is None:
        return False
    body = s.definition(fn)[0] if isinstance(fn, ast.Name) else fn
    if body is None or tokenizer is None:
        return True
    return any(isinstance(n, ast.Call) and (is_tokenizer_call(n, {tokenizer}) or (
        isinstance(n.func, ast.Name) and n.func.id == tokenizer)) for n in ast.walk(body))
