"""Write the book's reference pages: the API (front door, one page per layer) and the CLI.

    python tools/api_reference.py          # rewrite book/api.md, book/api/*.md, book/cli.md
    python tools/api_reference.py --check  # exit 1 if any of them is not current

``book/api.md`` is the front door: what ``import nmthpo`` offers (a table of its names, each
linked to where it is defined), a short example, and the top-level modules (``nmthpo``,
``nmthpo.examples``, ``nmthpo.errors``). Then one page per layer, in import order
(``book/api/<layer>.md``), each opening with a short example that runs as it stands
(``tests/book/test_build_tools.py`` executes every one), then every module of the layer.
``book/cli.md`` documents the command line from its parser (``nmthpo.cli:build_parser``,
rendered by the sphinx-argparse extension).

A package's ``__init__`` is listed only where it defines something of its own (re-exports are
documented where they are defined, so Sphinx sees each object once: every module is documented
with ``:ignore-module-all:``, which keeps the names a module imports out of its entry even when
its ``__all__`` re-exports them).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "nmthpo"
BOOK = ROOT / "book"
OUT = BOOK / "api.md"
LAYER_DIR = BOOK / "api"
CLI_PAGE = BOOK / "cli.md"


@dataclass(frozen=True)
class Layer:
    """One page of the reference: a layer of the package."""

    slug: str  # the page (book/api/<slug>.md) and the sub-package (nmthpo/<slug>/)
    title: str
    intro: str
    example: str  # Python that runs as it stands (with the data installed)
    package: str = ""  # the sub-package, if it is not the slug


FRONT_EXAMPLE = """\
import nmthpo
from nmthpo.examples import LocalSearch  # the ready example optimiser

table = nmthpo.load_table("ja-en")  # configurations, metrics, encodings
print(table.n_rows, "rows; best BLEU", table.best_bleu)

result = nmthpo.run(LocalSearch, "ja-en", trials=5, jobs=1, progress=False)
metrics = nmthpo.evaluate_sequences(result.sequences, table.bleu)
print(metrics[["ftb", "ftc", "fb"]].mean().round(1))
"""

#: The front door's names in the order a newcomer meets them (others follow, by name).
FRONT_ORDER = (
    "load_table",
    "tasks",
    "run",
    "evaluate_sequences",
    "TableOptimizer",
    "register",
    "InputError",
    "UserCodeError",
)

#: The layers in import order: each imports only the layers before it.
LAYERS: tuple[Layer, ...] = (
    Layer(
        "data",
        "Data: fetch, verify, safe unpickling, NMTLC records",
        "Where the dataset lives, how it is fetched and verified (SHA-256), and the safe "
        "reading of the NMTLC learning curves.",
        """\
from nmthpo import data

print(data.data_dir())  # the installed copy: `make data` or `nmthpo data fetch`
data.verify()  # every file against its SHA-256 in data/SHA256SUMS
print(len(data.manifest()), "files verified")
""",
    ),
    Layer(
        "benchmark",
        "Benchmark: lookup tables, search spaces, synthetic functions",
        "The tasks, their lookup tables (configurations, metrics, encodings), the search "
        "spaces of Table 1, sub-spaces, learning curves and synthetic functions.",
        """\
from nmthpo.benchmark.tables import load_table
from nmthpo.benchmark.tasks import task_names

print(task_names())
table = load_table("zh-en")
print(table.configs.head(3))  # hyperparameters, one row per trained model
print(table.encode("scaled")[:3])  # what an optimiser sees
print(table.best_rows)  # every row tied at the best BLEU
""",
    ),
    Layer(
        "models",
        "Models: surrogates and acquisition functions",
        "Gaussian processes, graphs and label propagation, acquisition functions (EI, PI, "
        "EIF) and the expected hypervolume improvement: pure functions of arrays where "
        "possible.",
        """\
import numpy as np

from nmthpo.benchmark.tables import load_table
from nmthpo.models.acquisition import expected_improvement
from nmthpo.models.gp import GaussianProcess

table = load_table("ja-en")
X, y = table.encode(), table.bleu
seen = np.arange(10)  # pretend the first ten rows were evaluated
gp = GaussianProcess("matern52").fit(X[seen], y[seen])
mean, std = gp.predict(X)
ei = expected_improvement(mean, std, best=y[seen].max())
ei[seen] = -np.inf  # evaluated rows are not candidates
print("next row:", int(np.argmax(ei)))
""",
    ),
    Layer(
        "optimizers",
        "Optimisers: the protocol, the registry, one method a module",
        "The ask/tell protocol every optimiser follows, the registry of methods (names, "
        "settings, ``module:Class``), one method a module, transfer methods and adapters "
        "(Optuna, HPO-B).",
        """\
import numpy as np

from nmthpo.benchmark.tables import load_table
from nmthpo.optimizers import available, make_optimizer

print(available()[:8])
table = load_table("ja-en")
opt = make_optimizer("bo-ei-m", table.encode(), np.random.default_rng(0))
for row in (0, 1, 2):  # three initial rows
    opt.tell(row, table.bleu[row])
row = opt.ask()  # the row to evaluate next
print(row, table.bleu[row])
""",
    ),
    Layer(
        "engine",
        "Engine: loop, runner, cache, metrics, statistics",
        "The one ask/tell loop, the runner (trials, workers, Dask, resume), the cache, the "
        "paper's metrics and the statistics behind every verdict.",
        """\
from nmthpo.benchmark.tables import load_table
from nmthpo.engine.metrics import evaluate_sequences, summarise
from nmthpo.engine.runner import run

result = run("rs", "zh-en", trials=10, seed=0, progress=False)
print(result.frame.head())  # trial, step, row, bleu
frame = evaluate_sequences(result.sequences, load_table("zh-en").bleu)
print(summarise(frame).round(2))
""",
    ),
    Layer(
        "studies",
        "Studies: one package per paper",
        "The experiments of each paper: grids, tables and the claim records the ledger judges.",
        """\
from nmthpo.studies.zhang_duh.benchmark_tables import table2

print(table2(("zh-en", "ja-en")).T)  # Zhang & Duh (2020), Table 2, for two tasks
""",
    ),
    Layer(
        "plots",
        "Plots: one module per chapter, one style",
        "The book's figures: one module per chapter, one shared style (colours, markers, labels).",
        """\
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
from nmthpo.benchmark.tables import load_table
from nmthpo.plots import bleu_histograms

fig = bleu_histograms([load_table(t) for t in ("zh-en", "ja-en")])  # Chapter 1's figure
fig.savefig(Path(tempfile.gettempdir()) / "bleu_histograms.png")
""",
    ),
    Layer(
        "cli",
        "Command line: the parser and the commands",
        "The ``nmthpo`` command's Python side: its entry point, the argument checks and one "
        "module per chapter command. Every command and option is described in "
        "{doc}`../cli`.",
        """\
from nmthpo.cli import main

status = main(["tasks"])  # the same as `nmthpo tasks` in a shell
print("exit status", status)
""",
        package="commands",
    ),
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


def front_modules() -> list[str]:
    """``nmthpo`` and its top-level modules (``nmthpo.cli`` belongs to the cli page)."""
    return ["nmthpo"] + [
        f"nmthpo.{p.stem}"
        for p in sorted(PACKAGE.glob("*.py"))
        if p.name != "__init__.py" and p.stem != "cli"
    ]


def modules(layer: Layer) -> list[str]:
    """Every module of a layer's sub-package (``nmthpo.cli`` first on the cli page)."""
    base = PACKAGE / (layer.package or layer.slug)
    out = ["nmthpo.cli"] if layer.slug == "cli" else []
    for path in sorted(base.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        name = ".".join(rel.parts)
        if path.name == "__init__.py":
            if not _defines_something(path):
                continue
            name = name.removesuffix(".__init__")
        out.append(name)
    return out


def _automodules(mods: list[str]) -> list[str]:
    lines = ["```{eval-rst}"]
    for m in mods:
        lines += [f".. automodule:: {m}", "   :members:", "   :ignore-module-all:", ""]
    lines[-1:] = ["```", ""]
    return lines


def _module_path(module: str) -> Path:
    rel = Path(*module.split("."))
    path = ROOT / rel.with_suffix(".py")
    return path if path.is_file() else ROOT / rel / "__init__.py"


def _summary(module: str, name: str) -> str:
    """The first sentence of the docstring of ``module.name`` (read with ``ast``)."""
    for node in ast.parse(_module_path(module).read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            doc = ast.get_docstring(node) or ""
            first = " ".join(doc.split("\n\n")[0].split())
            return re.split(r"(?<=[.!?])\s+(?=[A-Z])", first)[0].rstrip(".") + "."
    return ""


def exports() -> list[tuple[str, str]]:
    """The front door's names and where each is defined (``nmthpo._EXPORTS``, read with
    ``ast`` so that the tool imports nothing)."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "_EXPORTS":
            value = ast.literal_eval(node.value)  # type: ignore[arg-type]
            rank = {name: i for i, name in enumerate(FRONT_ORDER)}
            return sorted(value.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0]))
    raise SystemExit("nmthpo/__init__.py has no _EXPORTS")


def render_front() -> str:
    lines = [
        "# API reference",
        "",
        "Generated from the docstrings of the `nmthpo` package by `tools/api_reference.py`.",
        "Start here: everything needed to benchmark an optimiser is importable from `nmthpo`",
        "itself. The pages after this one take the package layer by layer, each layer",
        "importing only the ones before it; the command line has its own page,",
        "{doc}`cli`.",
        "",
        "```python",
        FRONT_EXAMPLE.rstrip("\n"),
        "```",
        "",
        "## What `import nmthpo` offers",
        "",
        "| name | what it is |",
        "| --- | --- |",
    ]
    for name, target in exports():
        module, attr = target.split(":")
        lines.append(f"| {{py:obj}}`nmthpo.{name} <{module}.{attr}>` | {_summary(module, attr)} |")
    lines += [
        "| `nmthpo.__version__` | The package's version. |",
        "",
        "A ready example to run and copy: {py:class}`nmthpo.examples.LocalSearch` (an",
        "optimiser class) and {py:func}`nmthpo.examples.observe_and_suggest` (an HPO-B style",
        "function), documented below.",
        "",
        "## The layers",
        "",
    ]
    for layer in LAYERS:
        lines.append(f"- {{doc}}`api/{layer.slug}`: {layer.intro}")
    lines += ["", "## The front door and the top-level modules", ""]
    lines += _automodules(front_modules())
    return "\n".join(lines)


def render_layer(layer: Layer) -> str:
    lines = [
        f"# {layer.title}",
        "",
        layer.intro,
        "",
        "```python",
        layer.example.rstrip("\n"),
        "```",
        "",
        "## Modules",
        "",
    ]
    lines += _automodules(modules(layer))
    return "\n".join(lines)


def render_cli() -> str:
    return "\n".join(
        [
            "# Command-line reference",
            "",
            "Generated from the command's own parser (`nmthpo.cli.build_parser`) by the",
            "sphinx-argparse extension, so it lists exactly what `nmthpo --help` and",
            "`nmthpo COMMAND --help` print. Try it:",
            "",
            "```bash",
            "nmthpo tasks",
            "nmthpo run nmthpo.examples:LocalSearch --task ja-en --trials 20 --jobs 2 "
            "--out runs/mine",
            "nmthpo evaluate runs/mine/sequences.ss --task ja-en",
            "```",
            "",
            "```{eval-rst}",
            ".. argparse::",
            "   :module: nmthpo.cli",
            "   :func: build_parser",
            "   :prog: nmthpo",
            "```",
            "",
        ]
    )


def render() -> dict[Path, str]:
    """Every page this tool writes, by path."""
    pages = {OUT: render_front(), CLI_PAGE: render_cli()}
    for layer in LAYERS:
        pages[LAYER_DIR / f"{layer.slug}.md"] = render_layer(layer)
    return pages


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="exit 1 if a page is not current")
    args = p.parse_args()
    pages = render()
    if args.check:
        stale = [
            path.relative_to(ROOT).as_posix()
            for path, text in pages.items()
            if not path.is_file() or path.read_text() != text
        ]
        extra = sorted(
            q.relative_to(ROOT).as_posix() for q in LAYER_DIR.glob("*.md") if q not in pages
        )
        if stale or extra:
            sys.exit(f"not current: {', '.join(stale + extra)}: run python tools/api_reference.py")
        return
    LAYER_DIR.mkdir(exist_ok=True)
    for q in LAYER_DIR.glob("*.md"):
        if q not in pages:
            q.unlink()
    for path, text in pages.items():
        path.write_text(text)
        print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
