"""Candidate reproduction scripts written from the user's own script (the reprex way).

From the slice of the script the failing line depends on (wizard.script.slicer), each candidate
inlines what the script read from outside (`sys.argv[i]`, `os.environ[...]`, relative paths made
absolute), swaps the data it loads (`load_dataset`, `load_from_disk`) for a few rows of the same
columns, and, for the first candidate, swaps a model checkpoint for a tiny random model of the
same config class (`X.from_config(AutoConfig.for_model(model_type, <small sizes>))`). Candidates
go from the smallest (the slice with a tiny model, then with the real checkpoint) to the whole
script up to the failing line (tiny model, then the checkpoint). Nothing is executed here.
"""
from __future__ import annotations

import ast
import copy
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from wizard.evidence.repro import SIZE_KEYS, tiny_config
from wizard.script.slicer import flatten, failing_statement, slice_script, unparse

DATA_LOADERS = frozenset({"load_dataset", "load_from_disk"})
_MODEL_CLASS = re.compile(r"^(TF|Flax)?\w*(Model|For[A-Z]\w*|LMHead\w*)$")
_NOT_MODEL = ("Tokenizer", "Config", "Processor", "FeatureExtractor", "ImageProcessor", "Collator")
# from_pretrained kwargs that shape the config (kept); the others only say how to load weights
CONFIG_KWARGS = frozenset({"num_labels", "id2label", "label2id", "problem_type",
                           "output_hidden_states", "output_attentions", "pad_token_id"})
# the config keys a tiny stand-in keeps besides the sizes: token ids must stay valid
KEEP_KEYS = frozenset({"vocab_size", "type_vocab_size", "max_position_embeddings", "num_labels",
                       "pad_token_id", "problem_type", "n_positions", "is_decoder"})
ROWS = 2


@dataclass
class Candidate:
    """One candidate reproduction: its code and how it was made."""

    label: str                    # e.g. "slice, tiny model"
    source: str
    tiny: bool                    # a tiny random model replaced a checkpoint
    sliced: bool
    swapped_data: bool
    checkpoints: list[str] = field(default_factory=list)
    not_run: str = ""             # why it is not worth a run (it cannot fail the same way)


ConfigReader = Callable[[str], "dict[str, Any] | None"]


def local_config(checkpoint: str) -> dict[str, Any] | None:
    """config.json of a local save_pretrained folder (or of a Hub id already in the cache)."""
    path = Path(checkpoint).expanduser()
    if (path / "config.json").is_file():
        try:
            return json.loads((path / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
    try:
        from huggingface_hub import try_to_load_from_cache

        cached = try_to_load_from_cache(checkpoint, "config.json")
    except Exception:
        return None
    if isinstance(cached, str) and os.path.isfile(cached):
        return json.loads(Path(cached).read_text(encoding="utf-8"))
    return None


def is_model_class(name: str) -> bool:
    return bool(_MODEL_CLASS.match(name)) and not any(w in name for w in _NOT_MODEL)


def _literal(value: Any) -> ast.expr:
    return ast.parse(repr(value), mode="eval").body


class _Inline(ast.NodeTransformer):
    """sys.argv[i], os.environ / os.getenv and relative paths replaced by their values."""

    def __init__(self, argv: list[str], environ: Mapping[str, str], cwd: Path):
        self.argv, self.environ, self.cwd = argv, environ, cwd

    def _path(self, value: Any) -> Any:
        """A relative path that exists from the run's folder, made absolute."""
        if isinstance(value, list):
            return [self._path(v) for v in value]
        if isinstance(value, str) and value and not os.path.isabs(value) and "\n" not in value \
                and len(value) < 300 and ("/" in value or "." in value):
            candidate = self.cwd / value
            if candidate.exists():
                return str(candidate.resolve())
        return value

    def _value(self, value: Any, node: ast.AST) -> ast.expr:
        return ast.copy_location(_literal(self._path(value)), node)

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        if ast.unparse(node) == "sys.argv" and isinstance(node.ctx, ast.Load):
            return self._value(list(self.argv), node)
        return self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        target = ast.unparse(node.value)
        key = node.slice
        if target == "sys.argv" and isinstance(key, ast.Constant) and isinstance(key.value, int):
            if -len(self.argv) <= key.value < len(self.argv):
                return self._value(self.argv[key.value], node)
        if target == "sys.argv" and isinstance(key, ast.Slice) and all(
                v is None or (isinstance(v, ast.Constant) and isinstance(v.value, int))
                for v in (key.lower, key.upper, key.step)):
            bounds = [getattr(v, "value", None) for v in (key.lower, key.upper, key.step)]
            return self._value(self.argv[slice(*bounds)], node)
        self.generic_visit(node)
        if target == "os.environ" and isinstance(key, ast.Constant) and key.value in self.environ:
            return self._value(self.environ[key.value], node)
        return node

    def visit_Call(self, node: ast.Call) -> Any:
        self.generic_visit(node)
        func = ast.unparse(node.func)
        if func in ("os.environ.get", "os.getenv") and node.args and \
                isinstance(node.args[0], ast.Constant):
            name = node.args[0].value
            if name in self.environ:
                return self._value(self.environ[name], node)
            if len(node.args) > 1:
                return node.args[1]
        return node

    def visit_Constant(self, node: ast.Constant) -> Any:
        value = self._path(node.value)
        return node if value == node.value else self._value(value, node)


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


class _Swap(ast.NodeTransformer):
    """Data loads -> a few rows; model checkpoints -> a tiny random model (when asked)."""

    def __init__(self, data: list[dict[str, Any]], tiny: bool, read_config: ConfigReader,
                 constants: dict[str, str] | None = None):
        self.data, self.tiny, self.read_config = list(data), tiny, read_config
        self.constants = constants or {}
        self.loads_seen = 0
        self.swapped_data = False
        self.swapped_models: list[str] = []
        self.checkpoints: list[str] = []

    def visit_Call(self, node: ast.Call) -> Any:
        self.generic_visit(node)
        name = _call_name(node)
        if name in DATA_LOADERS:
            index, self.loads_seen = self.loads_seen, self.loads_seen + 1
            if index < len(self.data) and self.data[index]:
                self.swapped_data = True
                return ast.copy_location(_rows_expr(self.data[index]), node)
            return node
        if name == "from_pretrained" and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and is_model_class(node.func.value.id) \
                and node.args and self._string(node.args[0]) is not None:
            checkpoint = self._string(node.args[0])
            assert checkpoint is not None
            self.checkpoints.append(checkpoint)
            if self.tiny:
                tiny = self._tiny(node, checkpoint)
                if tiny is not None:
                    self.swapped_models.append(checkpoint)
                    return ast.copy_location(tiny, node)
        return node

    def _string(self, node: ast.expr) -> str | None:
        """A string constant, or a name the script binds once to one."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return self.constants.get(node.id)
        return None

    def _tiny(self, node: ast.Call, checkpoint: str) -> ast.expr | None:
        config = self.read_config(checkpoint)
        if not config or not config.get("model_type"):
            return None
        small = tiny_config(config)
        keep = {k: v for k, v in small.items()
                if k in KEEP_KEYS or k in SIZE_KEYS}
        for kw in node.keywords:
            if kw.arg in CONFIG_KWARGS and isinstance(kw.value, ast.Constant):
                keep[kw.arg] = kw.value.value
            elif kw.arg in CONFIG_KWARGS:
                return None            # a value known only at run time: keep the checkpoint
        cls = node.func.value.id  # type: ignore[attr-defined]
        text = f"{cls}.from_config(AutoConfig.for_model({config['model_type']!r}, **{keep!r}))"
        return ast.parse(text, mode="eval").body


def _rows_expr(rows: dict[str, Any]) -> ast.expr:
    """`Dataset.from_dict({...})` or `DatasetDict({"train": Dataset.from_dict({...})})`."""
    if rows.get("kind") == "dict":
        inner = ", ".join(f"{split!r}: Dataset.from_dict({cols!r})"
                          for split, cols in rows["splits"].items())
        return ast.parse(f"DatasetDict({{{inner}}})", mode="eval").body
    return ast.parse(f"Dataset.from_dict({rows['columns']!r})", mode="eval").body


def _imports(needs_config: bool, needs_data: bool) -> list[ast.stmt]:
    out = []
    if needs_data:
        out.append(ast.parse("from datasets import Dataset, DatasetDict").body[0])
    if needs_config:
        out.append(ast.parse("from transformers import AutoConfig").body[0])
    return out


def _unused_imports_dropped(statements: list[ast.stmt]) -> list[ast.stmt]:
    """Import statements trimmed to the names the code uses (others dropped)."""
    used: set[str] = set()
    for s in statements:
        if not isinstance(s, (ast.Import, ast.ImportFrom)):
            used |= {n.id for n in ast.walk(s) if isinstance(n, ast.Name)}
            used |= {n.value.id for n in ast.walk(s)
                     if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    out: list[ast.stmt] = []
    for s in statements:
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            names = [a for a in s.names if (a.asname or a.name).split(".")[0] in used]
            if not names:
                continue
            s = ast.Import(names=names) if isinstance(s, ast.Import) else \
                ast.ImportFrom(module=s.module, names=names, level=s.level)
        out.append(s)
    return out


def string_constants(statements: list[ast.stmt]) -> dict[str, str]:
    """Names bound exactly once, to a string constant, at module level."""
    values: dict[str, str] = {}
    count: dict[str, int] = {}
    for node in statements:
        for name in _bound(node):
            count[name] = count.get(name, 0) + 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            values[node.targets[0].id] = node.value.value
    return {k: v for k, v in values.items() if count.get(k) == 1}


def _bound(node: ast.stmt) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


TINY_NEVER_LOADS = ("the failing line is the model's loading itself, and a tiny random model "
                    "built from its config never runs that loading code")


def _model_loads(statement: ast.stmt, read_config: ConfigReader,
                 constants: dict[str, str]) -> bool:
    """Whether the statement loads a checkpoint that a tiny random model would replace."""
    probe = _Swap([], True, read_config, constants)
    probe.visit(copy.deepcopy(statement))
    return bool(probe.swapped_models)


def build_candidates(source: str, line: int, argv: list[str] | None = None,
                     environ: Mapping[str, str] | None = None, cwd: str | Path = ".",
                     data: list[dict[str, Any]] | None = None,
                     read_config: ConfigReader = local_config) -> list[Candidate]:
    """The candidates, smallest first (duplicates removed). `data`: for each data-loading call
    of the script, in order, the rows to inline ({"kind": "dict", "splits": {...}} or
    {"kind": "dataset", "columns": {...}}), or {} to keep that load."""
    tree = ast.parse(source)
    flat = flatten(tree)
    index = failing_statement(flat, line)
    if index is None:
        return []
    sliced = slice_script(source, line)
    bodies: list[tuple[str, list[ast.stmt]]] = []
    if sliced is not None and len(sliced.statements) < index + 1:
        bodies.append(("slice", sliced.statements))
    bodies.append(("script up to the failing line", flat[:index + 1]))
    out: list[Candidate] = []
    seen: set[str] = set()
    for label, body in bodies:
        for tiny in (True, False):
            module = ast.Module(body=[copy.deepcopy(s) for s in body], type_ignores=[])
            module = _Inline(list(argv or []), dict(environ or {}), Path(cwd)).visit(module)
            constants = string_constants(module.body)
            loads_model = bool(tiny and _model_loads(module.body[-1], read_config, constants))
            swap = _Swap(data or [], tiny, read_config, constants)
            module = swap.visit(module)
            if tiny and not swap.swapped_models:
                continue
            statements = _imports(bool(swap.swapped_models), swap.swapped_data) + module.body
            statements = _unused_imports_dropped(statements)
            ast.fix_missing_locations(ast.Module(body=statements, type_ignores=[]))
            code = unparse(statements)
            if code in seen:
                continue
            seen.add(code)
            what = "tiny model" if tiny else "your checkpoint" if swap.checkpoints else "as written"
            out.append(Candidate(f"{label}, {what}", code, tiny, label == "slice",
                                 swap.swapped_data, swap.checkpoints,
                                 not_run=TINY_NEVER_LOADS if loads_model else ""))
    return out




def statements_of(code: str) -> list[str]:
    """A script's top-level statements as code, in order (for shrinking)."""
    return [ast.unparse(s) for s in ast.parse(code).body]


_TF_CLASS = re.compile(r"\bTF((?:Auto)?[A-Z]\w*(?:Model|For[A-Z]\w*|LMHead\w*))\b")
_PT_CLASS = re.compile(r"(?<![\w.])((?:Auto)?[A-Z]\w*(?:Model|For[A-Z]\w*|LMHead\w*))\b")
_FRAMEWORK_CODE = re.compile(r"^\s*(import|from)\s+(torch|tensorflow|tf_keras|keras)\b|\btf\.|"
                             r"\btorch\.|from_pt=|from_tf=", re.M)


def other_framework(code: str) -> tuple[str, str] | None:
    """(framework, code) of the same reproduction with the other framework's transformers
    classes (TFAutoModelFor... <-> AutoModelFor...), or None when the script has code of its
    own framework that a class swap cannot translate."""
    if _FRAMEWORK_CODE.search(code):
        return None
    if _TF_CLASS.search(code):
        return "pytorch", _TF_CLASS.sub(r"\1", code)
    swapped = _PT_CLASS.sub(lambda m: "TF" + m.group(1) if is_model_class(m.group(1))
                            and not m.group(1).startswith("TF") else m.group(1), code)
    return ("tensorflow", swapped) if swapped != code else None
