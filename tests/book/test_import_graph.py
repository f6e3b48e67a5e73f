"""The package's import graph: no cycle, and each layer imports only the layers before it.

Read from the source (``ast``), not by importing: every ``import`` at module level (function
bodies are lazy imports, made on first use, and ``if TYPE_CHECKING:`` blocks are for the type
checker only) is an edge from the importing module to the module it names (``from a.b import c``
names ``a.b.c`` when that is a module, else ``a.b``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import ROOT

PACKAGE = ROOT / "nmthpo"
#: The layers, first to last (``errors`` is the one module under them all; the front door
#: ``nmthpo/__init__.py`` loads lazily and is left out); a module may import its own layer and
#: the layers before it.
LAYERS = (
    "errors",
    "data",
    "benchmark",
    "models",
    "optimizers",
    "engine",
    "studies",
    "plots",
    "cli",
)


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _top_level_imports(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    body = list(tree.body)
    while body:
        node = body.pop(0)
        if isinstance(node, ast.If) and not _is_type_checking(node):
            body += node.body + node.orelse
        elif isinstance(node, ast.Try):
            body += node.body + node.orelse + node.finalbody
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "nmthpo"}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1]
                    + ([base] if base else [])
                )
            if base.split(".")[0] != "nmthpo":
                continue
            for a in node.names:
                sub = f"{base}.{a.name}"
                found.add(sub if sub in modules else base)
    return {m for m in found if m in modules and m != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _top_level_imports(path, name, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) < 2:
        return None  # the front door
    top = "cli" if parts[1] in ("cli", "commands", "__main__") else parts[1]
    return LAYERS.index(top) if top in LAYERS else None


def test_the_graph_is_read() -> None:
    graph = _graph()
    assert "nmthpo.optimizers.registry" in graph["nmthpo.engine.runner"]
    assert "nmthpo.engine.cache" in graph["nmthpo.engine.runner"]
    assert len(graph) > 100


def test_no_import_cycle() -> None:
    assert _cycles(_graph()) == []


def test_a_cycle_would_be_found() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_each_layer_imports_only_the_layers_before_it() -> None:
    wrong = []
    for module, imports in _graph().items():
        mine = _layer(module)
        if mine is None:
            continue
        for other in imports:
            theirs = _layer(other)
            if theirs is not None and theirs > mine:
                wrong.append(f"{module} -> {other}")
    assert wrong == []
