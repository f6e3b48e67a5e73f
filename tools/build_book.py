"""Build the nmthpo book: execute the chapter notebooks, then render HTML with Jupyter Book 1.x.

Subcommands
-----------
``execute``
    Run every ``notebooks/NN_*.ipynb`` through papermill into ``book/chapters/NN_*.ipynb``
    with its *published* parameters (the defaults of its ``parameters`` cell; ``--smoke``
    applies the notebook's documented smoke overrides from ``metadata.nmthpo.smoke`` instead,
    and then writes to ``--out``, by default a temporary directory, so that the committed
    chapters are never replaced by a smoke run). Kernel ``python3``. The kernel's working
    directory is the *output* directory (``book/chapters``), the same directory nbval runs the
    executed chapter in, so that a notebook behaves identically under both; notebooks locate
    data and results through ``nmthpo``, never through relative paths. Each output is written
    to a temporary file beside its destination and renamed into place, so an interrupted or
    failed run leaves the previous chapter intact. Execution timestamps are removed so that
    re-executing an unchanged chapter changes nothing but its outputs.
``html``
    ``jupyter-book build book --all -W`` (Sphinx warnings are errors, ``--keep-going`` off;
    ``execute_notebooks: off`` in ``_config.yml``), then check that no page loads a remote
    script, stylesheet, image or font (the book must work offline).

Usage: ``python tools/build_book.py execute [--smoke] [--only NN] [--out DIR]`` and
``python tools/build_book.py html``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
BOOK = REPO / "book"
CHAPTERS = BOOK / "chapters"
KERNEL = "python3"

#: Source notebooks are named ``NN_slug.ipynb``.
CHAPTER_RE = re.compile(r"^\d{2}_[A-Za-z0-9_\-]+\.ipynb$")


class BuildError(RuntimeError):
    """A chapter or the book could not be built; the message says what to fix."""


# -- notebooks -------------------------------------------------------------------------------
def read_notebook(path: Path) -> dict[str, Any]:
    """Parse a notebook's JSON (no validation beyond being a notebook with cells)."""
    try:
        nb = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise BuildError(f"{path}: not a readable notebook ({exc})") from exc
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise BuildError(f"{path}: not a notebook (no 'cells' list)")
    return nb


def chapter_sources(directory: Path = NOTEBOOKS) -> list[Path]:
    """The chapter sources ``NN_slug.ipynb`` of ``directory``, in name order."""
    return sorted(p for p in Path(directory).glob("*.ipynb") if CHAPTER_RE.match(p.name))


def parameters_cell(nb: dict[str, Any]) -> int:
    """Index of the code cell tagged ``parameters`` (papermill's convention).

    Raises
    ------
    BuildError
        If there is none or more than one: papermill needs exactly one to inject parameters.
    """
    hits = [
        i
        for i, cell in enumerate(nb["cells"])
        if cell.get("cell_type") == "code"
        and "parameters" in cell.get("metadata", {}).get("tags", [])
    ]
    if len(hits) != 1:
        raise BuildError(
            f"expected exactly one code cell tagged 'parameters', found {len(hits)}; tag the "
            "cell holding the chapter's settings with 'parameters'"
        )
    return hits[0]


def smoke_parameters(nb: dict[str, Any]) -> dict[str, Any]:
    """The notebook's documented smoke overrides (``metadata.nmthpo.smoke``; may be empty)."""
    smoke = nb.get("metadata", {}).get("nmthpo", {}).get("smoke", {})
    if not isinstance(smoke, dict):
        raise BuildError("metadata.nmthpo.smoke must be a mapping of parameter -> value")
    return dict(smoke)


def check_source(path: Path) -> dict[str, Any]:
    """Check a chapter source: one ``parameters`` cell and no stored outputs. Return it."""
    nb = read_notebook(path)
    try:
        parameters_cell(nb)
    except BuildError as exc:
        raise BuildError(f"{path}: {exc}") from None
    dirty = [
        i
        for i, c in enumerate(nb["cells"])
        if c.get("cell_type") == "code" and (c.get("outputs") or c.get("execution_count"))
    ]
    if dirty:
        raise BuildError(
            f"{path}: cells {dirty} hold outputs; sources are committed with outputs cleared "
            f"(jupyter nbconvert --clear-output --inplace {path})"
        )
    return nb


def strip_timings(
    nb: dict[str, Any], input_path: str | None = None, output_path: str | None = None
) -> dict[str, Any]:
    """Remove execution timestamps (outputs are kept); record repo-relative paths if given."""
    pm = nb.get("metadata", {}).get("papermill")
    if isinstance(pm, dict):
        for key in ("start_time", "end_time", "duration", "exception"):
            pm.pop(key, None)
        if input_path is not None:
            pm["input_path"] = input_path
        if output_path is not None:
            pm["output_path"] = output_path
    for cell in nb["cells"]:
        meta = cell.get("metadata", {})
        meta.pop("execution", None)
        cmeta = meta.get("papermill")
        if isinstance(cmeta, dict):
            for key in ("start_time", "end_time", "duration", "exception", "status"):
                cmeta.pop(key, None)
    return nb


def _display_path(path: Path) -> str:
    path = Path(path).resolve()
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def execute_chapter(
    source: Path, dest: Path, parameters: dict[str, Any] | None = None, kernel: str = KERNEL
) -> float:
    """Execute ``source`` with papermill into ``dest`` atomically; return the seconds taken."""
    import papermill

    check_source(source)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".tmp-{dest.stem}-", suffix=".ipynb", dir=dest.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    start = time.perf_counter()
    try:
        papermill.execute_notebook(
            str(source),
            str(tmp),
            parameters=parameters or {},
            kernel_name=kernel,
            cwd=str(dest.parent),
            progress_bar=False,
            log_output=False,
        )
        nb = strip_timings(read_notebook(tmp), _display_path(source), _display_path(dest))
        tmp.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, dest)
    except Exception as exc:
        raise BuildError(f"{source}: execution failed: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)
    return time.perf_counter() - start


def execute(only: str | None = None, smoke: bool = False, out: Path | None = None) -> list[Path]:
    """Execute every chapter source (or those whose name starts with ``only``)."""
    sources = [p for p in chapter_sources() if only is None or p.name.startswith(only)]
    if not sources:
        raise BuildError(f"no chapter sources matching {only!r} in {NOTEBOOKS}")
    if out is None:
        out = Path(tempfile.mkdtemp(prefix="nmthpo-smoke-")) if smoke else CHAPTERS
    written = []
    for src in sources:
        params = smoke_parameters(read_notebook(src)) if smoke else {}
        dest = out / src.name
        secs = execute_chapter(src, dest, params)
        print(f"executed {src.relative_to(REPO)} -> {dest} in {secs:.1f} s", flush=True)
        written.append(dest)
    return written


# -- HTML ------------------------------------------------------------------------------------
class _AssetParser(HTMLParser):
    """Collect the URLs a page loads: script src, link href (stylesheets, icons, fonts), img."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag in ("script", "img", "iframe", "source") and a.get("src"):
            self.urls.append(str(a["src"]))
        if tag == "link" and a.get("href"):
            rel = (a.get("rel") or "").lower()
            kinds = ("stylesheet", "icon", "preload", "prefetch", "modulepreload")
            if any(r in rel for r in kinds):
                self.urls.append(str(a["href"]))


def remote_assets(html_dir: Path) -> list[tuple[str, str]]:
    """Every (page, URL) where a built page loads an asset from the network."""
    hits = []
    for page in sorted(Path(html_dir).rglob("*.html")):
        parser = _AssetParser()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        for url in parser.urls:
            if re.match(r"^(https?:)?//", url):
                hits.append((str(page.relative_to(html_dir)), url))
    return hits


def html() -> Path:
    """Build ``book/_build/html`` with warnings as errors and check it loads nothing remote."""
    exe = Path(sys.executable).parent / "jupyter-book"
    cmd = [str(exe), "build", str(BOOK), "--all", "--builder", "html", "--warningiserror"]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, check=False)
    if proc.returncode != 0:
        raise BuildError(f"jupyter-book build failed (exit {proc.returncode}); see the log above")
    index = BOOK / "_build" / "html" / "index.html"
    if not index.is_file():
        raise BuildError(f"{index} was not produced")
    remote = remote_assets(index.parent)
    if remote:
        listing = "\n".join(f"  {page}: {url}" for page, url in remote[:20])
        raise BuildError(f"the book loads remote assets (it must build offline):\n{listing}")
    print(f"built {index} in {time.perf_counter() - start:.1f} s; no remote assets", flush=True)
    return index


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("execute", help="execute the chapter notebooks with papermill")
    ex.add_argument("--only", help="only chapters whose file name starts with this (e.g. 01)")
    ex.add_argument("--smoke", action="store_true", help="use each notebook's smoke parameters")
    ex.add_argument("--out", type=Path, help="output directory (default book/chapters)")
    sub.add_parser("html", help="build the HTML book (warnings are errors)")
    args = parser.parse_args(argv)
    try:
        if args.command == "execute":
            execute(args.only, args.smoke, args.out)
        else:
            html()
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
