"""Static evaluation for the script reader: imports, assignments and constant propagation over a
parsed script. Nothing is ever executed; what cannot be worked out becomes `Unresolved`."""
from __future__ import annotations

import ast
import operator
from dataclasses import dataclass, field
from typing import Any

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow,
           ast.Mod: operator.mod}
_MAX_DEPTH = 40


@dataclass(frozen=True)
class Unresolved:
    """A value known only at run time, with the reason in words."""

    node: ast.AST | None
    reason: str


def resolved(value: Any) -> bool:
    return not isinstance(value, Unresolved)


@dataclass
class Assignment:
    """One binding of a name: `x = value`, a loop variable, a parameter, an import ..."""

    name: str
    line: int
    value: ast.expr | None
    scope: ast.AST
    kind: str = "assign"           # assign | for | param | with | aug | import | def
    index: int | None = None       # position in a tuple unpacking: a, b = f()


@dataclass
class ArgDefault:
    """`parser.add_argument("--lr", default=5e-5)`: the value `args.lr` has unless overridden."""

    dest: str
    line: int
    default: ast.expr | None


@dataclass
class ScriptAST:
    """The parsed script with its imports, bindings and calls, indexed for look-ups."""

    tree: ast.Module
    source: str
    imports: dict[str, tuple[str, int]] = field(default_factory=dict)  # local -> (qualname, line)
    assignments: dict[str, list[Assignment]] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    calls: list[ast.Call] = field(default_factory=list)
    arg_defaults: dict[str, ArgDefault] = field(default_factory=dict)
    parsed_args: set[str] = field(default_factory=set)  # names bound to parser.parse_args()
    used_defaults: dict[str, ArgDefault] = field(default_factory=dict)
    cli_flags: set[str] = field(default_factory=set)  # every option the script's argparse declares

    @classmethod
    def parse(cls, source: str, filename: str = "<script>") -> "ScriptAST":
        tree = ast.parse(source, filename=filename)
        s = cls(tree, source)
        s._index(tree, tree)
        s.calls.sort(key=lambda c: (c.lineno, c.col_offset))
        return s

    # -- indexing ---------------------------------------------------------------------------
    def _bind(self, name: str, line: int, value: ast.expr | None, scope: ast.AST, kind: str,
              index: int | None = None) -> None:
        self.assignments.setdefault(name, []).append(Assignment(name, line, value, scope, kind, index))

    def _bind_target(self, target: ast.AST, value: ast.expr | None, scope: ast.AST, kind: str,
                     line: int, index: int | None = None) -> None:
        if isinstance(target, ast.Name):
            self._bind(target.id, line, value, scope, kind, index)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for i, elt in enumerate(target.elts):
                if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                    self._bind_target(elt, value.elts[i], scope, kind, line)
                else:
                    self._bind_target(elt, value, scope, kind if value is not None else "for",
                                      line, index=i)
        elif isinstance(target, ast.Starred):
            self._bind_target(target.value, None, scope, "for", line)

    def _index(self, node: ast.AST, scope: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            child._wizard_scope = scope  # type: ignore[attr-defined]
            inner = scope
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                self._import(child)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[child.name] = child
                self._bind(child.name, child.lineno, None, scope, "def")
                inner = child
                for a in [*child.args.posonlyargs, *child.args.args, *child.args.kwonlyargs,
                          *filter(None, [child.args.vararg, child.args.kwarg])]:
                    self._bind(a.arg, child.lineno, None, child, "param")
            elif isinstance(child, ast.Lambda):
                inner = child
                for a in child.args.args:
                    self._bind(a.arg, child.lineno, None, child, "param")
            elif isinstance(child, ast.Assign):
                for t in child.targets:
                    self._bind_target(t, child.value, scope, "assign", child.lineno)
                self._note_parse_args(child)
            elif isinstance(child, ast.AnnAssign) and child.value is not None:
                self._bind_target(child.target, child.value, scope, "assign", child.lineno)
            elif isinstance(child, ast.AugAssign):
                self._bind_target(child.target, None, scope, "aug", child.lineno)
            elif isinstance(child, (ast.For, ast.AsyncFor)):
                self._bind_target(child.target, None, scope, "for", child.lineno)
            elif isinstance(child, ast.withitem) and child.optional_vars is not None:
                self._bind_target(child.optional_vars, None, scope, "with",
                                  child.context_expr.lineno)
            elif isinstance(child, ast.NamedExpr):
                self._bind_target(child.target, child.value, scope, "assign", child.lineno)
            elif isinstance(child, ast.Call):
                self.calls.append(child)
                self._note_add_argument(child)
            elif isinstance(child, ast.ClassDef):
                self._note_dataclass_fields(child)
            self._index(child, inner)

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for a in node.names:
                local = a.asname or a.name.split(".")[0]
                self.imports[local] = (a.name if a.asname else local, getattr(a, "lineno", node.lineno))
        else:
            base = node.module or ""
            for a in node.names:
                self.imports[a.asname or a.name] = (f"{base}.{a.name}" if base else a.name,
                                                    getattr(a, "lineno", node.lineno))

    def _note_add_argument(self, call: ast.Call) -> None:
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == "add_argument"):
            return
        flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        self.cli_flags.update(f for f in flags if f.startswith("-"))
        dest_kw = kwarg(call, "dest")
        dest = dest_kw.value if isinstance(dest_kw, ast.Constant) else None
        if dest is None:
            longs = [f for f in flags if f.startswith("--")] or flags
            if not longs:
                return
            dest = longs[0].lstrip("-").replace("-", "_")
        self.arg_defaults[dest] = ArgDefault(dest, call.lineno, kwarg(call, "default"))

    def _note_dataclass_fields(self, node: ast.ClassDef) -> None:
        """HfArgumentParser dataclasses: `model_name_or_path: str = field(default="bert")`."""
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and \
                    stmt.value is not None:
                value = stmt.value
                if isinstance(value, ast.Call) and call_name(value) == "field":
                    value = kwarg(value, "default")
                if value is not None and stmt.target.id not in self.arg_defaults:
                    self.arg_defaults[stmt.target.id] = ArgDefault(stmt.target.id, stmt.lineno, value)

    def _note_parse_args(self, node: ast.Assign) -> None:
        v = node.value
        if not (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute)):
            return
        if v.func.attr in ("parse_args", "parse_known_args"):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    self.parsed_args.add(t.id)
                elif isinstance(t, ast.Tuple) and t.elts and isinstance(t.elts[0], ast.Name):
                    self.parsed_args.add(t.elts[0].id)
        elif v.func.attr in ("parse_args_into_dataclasses", "parse_json_file", "parse_yaml_file",
                             "parse_dict"):
            for t in node.targets:
                elts = t.elts if isinstance(t, ast.Tuple) else [t]
                self.parsed_args.update(e.id for e in elts if isinstance(e, ast.Name))

    # -- look-ups -----------------------------------------------------------------------------
    def code(self, node: ast.AST | None, limit: int = 160) -> str:
        if node is None:
            return ""
        text = ast.get_source_segment(self.source, node) or ast.unparse(node)
        text = " ".join(text.split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    def line_code(self, line: int) -> str:
        lines = self.source.splitlines()
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""

    def qualname(self, node: ast.AST | None) -> str | None:
        """`tf.keras.optimizers.Adam` -> tensorflow.keras.optimizers.Adam (through the imports)."""
        if isinstance(node, ast.Name):
            return self.imports[node.id][0] if node.id in self.imports else node.id
        if isinstance(node, ast.Attribute):
            base = self.qualname(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def scope(self, node: ast.AST) -> ast.AST:
        return getattr(node, "_wizard_scope", self.tree)

    def binding(self, name: str, at: ast.AST) -> Assignment | None:
        """The binding of `name` that is in effect where `at` is (last one before it)."""
        line = getattr(at, "lineno", 10**9)
        scope = self.scope(at)
        cands = self.assignments.get(name, [])
        while True:
            own = [a for a in cands if a.scope is scope]
            before = [a for a in own if a.line < line or (a.kind == "param")]
            if before:
                return before[-1]
            if scope is self.tree:
                return own[-1] if own else None
            if own and scope is not self.tree:
                return own[-1]
            scope = self.scope(scope)  # the enclosing scope sees every later binding at call time
            line = 10**9

    def definition(self, node: ast.AST | None) -> tuple[ast.expr | None, Assignment | None]:
        """Follow names back to the expression that produced them (x = y = call(...))."""
        seen = 0
        binding = None
        while isinstance(node, ast.Name) and seen < _MAX_DEPTH:
            seen += 1
            b = self.binding(node.id, node)
            if b is None or b.kind != "assign" or b.value is None:
                return (None, b)
            binding = b
            node = b.value
            if b.index is not None:
                return (node, b)
        return (node, binding)  # type: ignore[return-value]

    # -- values -------------------------------------------------------------------------------
    def value(self, node: ast.AST | None, depth: int = 0) -> Any:
        if node is None:
            return Unresolved(None, "not given")
        if depth > _MAX_DEPTH:
            return Unresolved(node, "too many indirections to follow")
        v = depth + 1
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.JoinedStr):
            parts = []
            for p in node.values:
                val = self.value(p.value, v) if isinstance(p, ast.FormattedValue) else self.value(p, v)
                if not resolved(val):
                    return Unresolved(node, f"part of the f-string is computed at run time "
                                            f"(`{self.code(getattr(p, 'value', p))}`)")
                if isinstance(p, ast.FormattedValue) and p.format_spec is not None:
                    spec = self.value(p.format_spec, v)
                    val = format(val, spec) if resolved(spec) else val
                parts.append(str(val))
            return "".join(parts)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = [self.value(e, v) for e in node.elts]
            bad = next((i for i in items if not resolved(i)), None)
            if bad is not None:
                return bad
            return tuple(items) if isinstance(node, ast.Tuple) else list(items)
        if isinstance(node, ast.Dict):
            out = {}
            for k, val in zip(node.keys, node.values):
                if k is None:
                    return Unresolved(node, "a dict built with ** at run time")
                kk, vv = self.value(k, v), self.value(val, v)
                if not resolved(kk):
                    return kk
                if not resolved(vv):
                    return vv
                out[kk] = vv
            return out
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
            x = self.value(node.operand, v)
            if not resolved(x):
                return x
            try:
                return -x if isinstance(node.op, ast.USub) else (+x if isinstance(node.op, ast.UAdd)
                                                                  else not x)
            except TypeError:
                return Unresolved(node, "not a number")
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            a, b = self.value(node.left, v), self.value(node.right, v)
            for x in (a, b):
                if not resolved(x):
                    return x
            try:
                return _BINOPS[type(node.op)](a, b)
            except Exception:
                return Unresolved(node, f"`{self.code(node)}` cannot be computed without running")
        if isinstance(node, ast.Name):
            return self._name_value(node, v)
        if isinstance(node, ast.Attribute):
            return self._attribute_value(node, v)
        if isinstance(node, ast.Subscript):
            container, index = self.value(node.value, v), self.value(node.slice, v)
            if resolved(container) and resolved(index):
                try:
                    return container[index]
                except Exception:
                    pass
            return Unresolved(node, f"`{self.code(node)}` is looked up at run time")
        if isinstance(node, ast.Call):
            return self._call_value(node, v)
        if isinstance(node, ast.IfExp):
            return Unresolved(node, f"chosen at run time (`{self.code(node)}`)")
        return Unresolved(node, f"computed at run time (`{self.code(node)}`)")

    def _name_value(self, node: ast.Name, depth: int) -> Any:
        if node.id in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.id]
        b = self.binding(node.id, node)
        if b is None:
            if node.id in self.imports:
                return Unresolved(node, f"`{node.id}` is imported ({self.imports[node.id][0]})")
            return Unresolved(node, f"`{node.id}` is not assigned in the script")
        if b.kind == "param":
            return Unresolved(node, f"`{node.id}` is a function parameter (line {b.line})")
        if b.kind == "for":
            return Unresolved(node, f"`{node.id}` changes in a loop (line {b.line})")
        if b.kind != "assign" or b.value is None:
            return Unresolved(node, f"`{node.id}` is set at run time (line {b.line})")
        val = self.value(b.value, depth)
        if b.index is not None:
            if resolved(val) and isinstance(val, (tuple, list)) and b.index < len(val):
                return val[b.index]
            return Unresolved(b.value, f"`{node.id}` is unpacked from `{self.code(b.value)}` "
                                       f"(line {b.line})")
        if not resolved(val) and val.node is b.value:
            return Unresolved(val.node, f"`{node.id}` = `{self.code(b.value)}` (line {b.line}) is "
                                        "computed at run time")
        return val

    def _attribute_value(self, node: ast.Attribute, depth: int) -> Any:
        if isinstance(node.value, ast.Name) and node.value.id in self.parsed_args:
            d = self.arg_defaults.get(node.attr)
            if d is not None:
                val = self.value(d.default, depth) if d.default is not None else None
                if resolved(val):
                    self.used_defaults[node.attr] = d
                    return val
            return Unresolved(node, f"`{self.code(node)}` comes from the command line (no default "
                                    "in the script)")
        return Unresolved(node, f"`{self.code(node)}` is read from an object at run time")

    def _call_value(self, node: ast.Call, depth: int) -> Any:
        q = self.qualname(node.func) or ""
        if q in ("os.environ.get", "os.getenv") or q.endswith("environ.get"):
            var = self.value(node.args[0], depth) if node.args else "?"
            return Unresolved(node, f"read from the environment variable {var} at run time")
        simple = {"int": int, "float": float, "str": str, "bool": bool, "len": len, "list": list,
                  "tuple": tuple, "abs": abs, "round": round, "min": min, "max": max,
                  "sorted": sorted}
        if q in simple and not node.keywords:
            args = [self.value(a, depth) for a in node.args]
            bad = next((a for a in args if not resolved(a)), None)
            if bad is not None:
                return bad
            try:
                return simple[q](*args)
            except Exception:
                pass
        if q == "dict" and not node.args:
            out = {}
            for kw in node.keywords:
                if kw.arg is None:
                    return Unresolved(node, "a dict built with ** at run time")
                val = self.value(kw.value, depth)
                if not resolved(val):
                    return val
                out[kw.arg] = val
            return out
        return Unresolved(node, f"`{self.code(node)}` is computed at run time")


# -- call helpers --------------------------------------------------------------------------------
def call_name(call: ast.Call) -> str:
    """The called function's last name: model.fit(...) -> fit, Adam(...) -> Adam."""
    f = call.func
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return ""


def kwarg(call: ast.Call, name: str, pos: int | None = None) -> ast.expr | None:
    """The argument node passed as `name=` (or at position `pos`), or None."""
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    if pos is not None and len(call.args) > pos and not isinstance(call.args[pos], ast.Starred):
        return call.args[pos]
    return None


def receiver(call: ast.Call) -> ast.expr | None:
    """`model` in model.fit(...)."""
    return call.func.value if isinstance(call.func, ast.Attribute) else None
