"""The house's rules, checked on the source: imports point down the layers, sit at module level,
form no cycle; the parent process never imports a framework."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "wizard"

# Top to bottom. A module may import from its own layer or any layer below, never above.
LAYERS: list[tuple[str, ...]] = [
    ("wizard.__main__", "wizard.frontends", "wizard.api", "wizard.callbacks"),
    ("wizard.demo",),
    ("wizard.live",),
    ("wizard.script",),
    ("wizard.engine",),
    ("wizard.checks",),
    ("wizard.context",),
    ("wizard.backends",),
    ("wizard.hub", "wizard.estimate", "wizard.evidence", "wizard.reports"),
    ("wizard.triage",),
    ("wizard.core", "wizard.errors", "wizard.settings", "wizard.frameworks", "wizard"),
]
FRAMEWORKS = ("torch", "tensorflow", "tf_keras", "keras", "jax")


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def layer(name: str) -> int:
    best, rank = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), index
    assert rank >= 0, f"{name} is in no layer: add it to LAYERS"
    return rank


def imports(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, bool, int]]:
    """(imported wizard module, at module level?, line) for each import in the file."""
    tree = ast.parse(path.read_text())
    top = {id(node) for node in tree.body}
    for node in tree.body:  # `if TYPE_CHECKING:` / try blocks at module level count as top
        if isinstance(node, (ast.If, ast.Try)):
            top |= {id(n) for n in ast.walk(node)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                pkg = pkg[: len(pkg) - node.level + 1]
                base = ".".join(pkg + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            continue
        for target in targets:
            if target == "wizard" or target.startswith("wizard."):
                out.append((target, id(node) in top, node.lineno))
    return out


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: {t for t, _, _ in imports(name, path, known) if t in known and t != name}
            for name, path in known.items()}


def test_every_internal_import_sits_at_module_level() -> None:
    known = modules()
    inner = [f"{path.relative_to(ROOT)}:{line} imports {target}"
             for name, path in known.items()
             for target, at_top, line in imports(name, path, known) if not at_top]
    assert not inner, "imports inside functions:\n" + "\n".join(sorted(inner))


def upward(edges: dict[str, set[str]]) -> list[str]:
    return sorted(f"{src} (layer {layer(src)}) imports {dst} (layer {layer(dst)})"
                  for src, targets in edges.items() for dst in targets
                  if layer(dst) < layer(src) and dst != "wizard")


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    state: dict[str, int] = {}
    found: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    return found


def test_no_import_points_up_a_layer() -> None:
    assert not upward(graph()), "\n".join(upward(graph()))


def test_the_import_graph_has_no_cycle() -> None:
    assert not cycles(graph()), "\n".join(" -> ".join(c) for c in cycles(graph()))


def test_the_rules_catch_a_cycle_and_an_upward_import() -> None:
    """The checks above can fail: a core module importing the engine is both."""
    fake = {"wizard.core.case": {"wizard.engine.session"},
            "wizard.engine.session": {"wizard.core.case"}}
    assert upward(fake) == ["wizard.core.case (layer 10) imports wizard.engine.session (layer 4)"]
    assert cycles(fake) == [["wizard.core.case", "wizard.engine.session", "wizard.core.case"]]


def test_the_parent_process_imports_no_framework() -> None:
    """The terminal, the engine and the app's modules load without torch or TensorFlow."""
    code = ("import sys, json; import wizard.frontends.terminal.cli, wizard.engine.session, "
            "wizard.frontends.terminal.interactive, wizard.live.run, wizard.script.reader, "
            "wizard.api, wizard.callbacks; "
            f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_no_private_name_is_imported_across_modules() -> None:
    """Another module's underscore names are its own: a shared one is made public."""
    known = modules()
    private = []
    for name, path in known.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("wizard"):
                private += [f"{path.relative_to(ROOT)} imports {node.module}.{a.name}"
                            for a in node.names
                            if a.name.startswith("_") and not a.name.startswith("__")]
    assert not private, "\n".join(private)


def test_only_the_context_reaches_into_its_own_dict() -> None:
    """Probes use Context.loaded/is_loaded/put/scratch, never ctx.__dict__."""
    offenders = [f"{path.relative_to(ROOT)}:{i}"
                 for name, path in modules().items() if name != "wizard.context"
                 for i, line in enumerate(path.read_text().splitlines(), 1)
                 if "ctx.__dict__" in line]
    assert not offenders, offenders
