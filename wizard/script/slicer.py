"""Slice a training script down to the statements a failing line depends on (ast def-use).

The script is flattened first: the body of `if __name__ == "__main__":` and of a function the
script calls without arguments at module level (`def main(): ...` then `main()`) become module
level statements. From the statement that holds the failing line, walking backwards, a statement
is kept when it defines a name the kept code uses, or when it is a call on such a name (a call
like `model.save_pretrained(path)` changes the object or the files the failing line reads).
Everything after the failing statement goes. The result is a list of statements that
`ast.unparse` turns back into code; nothing is executed here.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass
class Slice:
    """The statements kept, in order, and the one that fails (the last)."""

    statements: list[ast.stmt]
    failing: ast.stmt
    total: int                          # statements in the flattened script

    @property
    def source(self) -> str:
        return unparse(self.statements)


def unparse(statements: list[ast.stmt]) -> str:
    """Code for the statements, one per line (a blank line around definitions)."""
    return "\n".join(ast.unparse(s) for s in statements) + "\n"


def _is_main_guard(node: ast.stmt) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and isinstance(test, ast.Compare) and \
        isinstance(test.left, ast.Name) and test.left.id == "__name__" and not node.orelse


def _called_entry(node: ast.stmt, functions: dict[str, ast.FunctionDef]) -> ast.FunctionDef | None:
    """`main()` (or `sys.exit(main())`) of an argument-free function defined in the script."""
    call = node.value if isinstance(node, ast.Expr) else None
    if isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Call) and \
            isinstance(call.func, ast.Attribute) and call.func.attr == "exit":
        call = call.args[0]
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and not call.args \
            and not call.keywords:
        fn = functions.get(call.func.id)
        if fn is not None and not fn.args.args and not fn.args.posonlyargs \
                and not fn.args.kwonlyargs and not fn.args.vararg and not fn.args.kwarg:
            return fn
    return None


def flatten(tree: ast.Module) -> list[ast.stmt]:
    """Module statements with the main guard and argument-free entry functions inlined."""
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    inlined: set[str] = set()

    def walk(body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for node in body:
            if _is_main_guard(node):
                out += walk(node.body)  # type: ignore[attr-defined]
                continue
            fn = _called_entry(node, functions)
            if fn is not None and fn.name not in inlined and not _returns_value(fn):
                inlined.add(fn.name)
                out += walk(fn.body)
                continue
            out.append(node)
        return out

    flat = walk(tree.body)
    return [n for n in flat if not (isinstance(n, ast.FunctionDef) and n.name in inlined)]


def _returns_value(fn: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(fn))


def defined_names(node: ast.stmt) -> set[str]:
    """Names a statement binds at its own level (assignments, imports, defs, loop targets)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    names: set[str] = set()
    targets: list[ast.AST] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        targets = [node.target]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
    for t in targets:
        names |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    if isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                names.add(inner.id)
    return names


def used_names(node: ast.AST) -> set[str]:
    """Every name read anywhere inside the node (function bodies included)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _call_on(node: ast.stmt, names: set[str]) -> bool:
    """An expression statement (or an augmented assignment) that calls or changes a needed
    object: `model.save_pretrained(p)`, `tokenizer.add_tokens([...])`, `x.y = 1`."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return bool(used_names(node.value) & names)
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, (ast.Attribute, ast.Subscript)) and used_names(t) & names
                   for t in targets)
    return False


def failing_statement(statements: list[ast.stmt], line: int) -> int | None:
    """Index of the top-level statement whose lines hold `line` (None inside a definition:
    a def or class statement does not run the line; the caller's line is the one to use)."""
    for i, node in enumerate(statements):
        end = getattr(node, "end_lineno", node.lineno) or node.lineno
        if node.lineno <= line <= end:
            defines = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            return None if defines else i
    return None


def slice_script(source: str, line: int) -> Slice | None:
    """The statements the statement at `line` depends on, itself last. None when the line is
    in no module-level statement after flattening (e.g. inside a function called with
    arguments): the caller then keeps the whole script."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    flat = flatten(tree)
    index = failing_statement(flat, line)
    if index is None:
        return None
    failing = flat[index]
    needed = used_names(failing)
    kept = [failing]
    for node in reversed(flat[:index]):
        defines = defined_names(node)
        if defines & needed or _call_on(node, needed):
            kept.append(node)
            needed |= used_names(node)
    kept.reverse()
    return Slice(kept, failing, len(flat))
