"""Trainer hooks the script overrides (a subclass of Trainer, Seq2SeqTrainer, SFTTrainer, ...):
an override without an argument that later transformers releases pass to the hook."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from wizard.triage.env_arguments import HOOK_NEW_ARGUMENTS


@dataclass
class HookOverride:
    """An overridden hook that cannot take the argument transformers `added` passes."""

    line: int
    cls: str
    hook: str
    code: str                     # the def line as written
    argument: str                 # the argument it lacks
    added: str                    # the transformers release that passes it


def read_overrides(r: Any) -> None:
    """Fill `facts.hook_overrides` from every class deriving from a *Trainer. `r` is the script
    reader (wizard.script.extract.Reader)."""
    for node in ast.walk(r.s.tree):
        if not isinstance(node, ast.ClassDef) or not any(
                ast.unparse(b).split(".")[-1].endswith("Trainer") for b in node.bases):
            continue
        for fn in node.body:
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            spec = HOOK_NEW_ARGUMENTS.get(fn.name)
            if spec is None or fn.args.kwarg is not None:
                continue
            names = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
            if spec[0] not in names:
                code = r.s.line_code(fn.lineno) or f"def {fn.name}(...)"
                r.facts.hook_overrides.append(
                    HookOverride(fn.lineno, node.name, fn.name, code.strip(), *spec))
