"""Write ``book/api.md``: the API reference, one section per layer of the package.

    python tools/api_reference.py          # rewrite book/api.md
    python tools/api_reference.py --check  # exit 1 if book/api.md is not current

Every module of ``nmthpo`` is listed under its layer (the sub-package it lives in), in the order
of the layers; a package's ``__init__`` is listed only where it defines something of its own
(re-exports are documented where they are defined, so Sphinx sees each object once: every
module is documented with ``:ignore-module-all:``, which keeps the names a module imports out of
its entry even when its ``__all__`` re-exports them).
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "nmthpo"
OUT = ROOT / "book" / "api.md"

#: Layers in import order, with the heading the reference gives them.
LAYERS: tuple[tuple[str, str], ...] = (
    ("", "Front door"),
    ("data", "Data: fetch, verify, safe unpickling, NMTLC records"),
    ("benchmark", "Benchmark: lookup tables, search spaces, synthetic functions"),
    ("models", "Models: surrogates and acquisition functions"),
    ("optimizers", "Optimisers: the protocol, the registry, one method a module"),
    ("engine", "Engine: loop, runner, cache, metrics, statistics"),
    ("studies", "Studies: one package per paper"),
    ("plots", "Plots: one module per chapter, one style"),
    ("commands", "Command line"),
)


def _defines_something(path: Path) -> bool:
    """True if the module defines a function, class or assigned name besides ``__all__``."""
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return True
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if any(n not in ("__all__",) for n in names):
                return True
    return False


def modules(layer: str) -> list[str]:
    base = PACKAGE / layer if layer else PACKAGE
    if not layer:
        return ["nmthpo", "nmthpo.cli"]
    out = []
    for path in sorted(base.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        name = ".".join(rel.parts)
        if path.name == "__init__.py":
            if not _defines_something(path):
                continue
            name = name.removesuffix(".__init__")
        out.append(name)
    return out


def render() -> str:
    lines = [
        "# API reference",
        "",
        "Generated from the docstrings of the `nmthpo` package by `tools/api_reference.py`,",
        "one section per layer; each layer imports only the layers above it.",
        "",
    ]
    for layer, title in LAYERS:
        mods = modules(layer)
        if not mods:
            continue
        lines += [f"## {title}", "", "```{eval-rst}"]
        for m in mods:
            lines += [f".. automodule:: {m}", "   :members:", "   :ignore-module-all:", ""]
        lines[-1:] = ["```", ""]
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true")
    args = p.parse_args()
    text = render()
    if args.check:
        if OUT.read_text() != text:
            sys.exit("book/api.md is not current: run python tools/api_reference.py")
        return
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
