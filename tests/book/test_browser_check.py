"""The browser check's rules (tools/browser_check.py) and the book's nbval-marker extension
(book/_ext/nbval_markers.py), without a browser or a build."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document

from tests.paths import ROOT


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


bc = _load("browser_check", ROOT / "tools" / "browser_check.py")
markers = _load("nbval_markers", ROOT / "book" / "_ext" / "nbval_markers.py")


@pytest.mark.parametrize(
    ("text", "hit"),
    [
        ("ftb 12.0 NaN 3.1", True),
        ("value: NaN", True),
        ("single <NA> 3.9", True),
        ("NaN.", True),
        ("NaNs are dropped", False),
        ("nan in lower case", False),
        ("BaNaNa and NaNa", False),
        ("no missing values here", False),
    ],
)
def test_missing_values_match_whole_words(text: str, hit: bool) -> None:
    assert bool(bc.missing_values(text)) is hit


def test_missing_values_report_lines_and_cap_them() -> None:
    text = "\n".join(["ok", *[f"row {i}  NaN" for i in range(8)]])
    hits = bc.missing_values(text, limit=3)
    assert hits[:3] == ["'row 0 NaN'", "'row 1 NaN'", "'row 2 NaN'"]
    assert hits[3] == "... and 5 more lines"


def test_chapters_need_learning_goals_and_exercises() -> None:
    page = "chapters/03_multiobjective.html"
    full = ["Multiobjective HPO", "Learning goals", "Prerequisites", "Summary", "Exercises"]
    assert bc.missing_headings(page, full) == []
    assert bc.missing_headings(page, ["Multiobjective HPO", "Exercises"]) == ["Learning goals"]
    assert bc.missing_headings(page, []) == ["Learning goals", "Exercises"]
    # appendices and other pages need neither
    assert bc.missing_headings("chapters/97_claims.html", []) == []
    assert bc.missing_headings("intro.html", []) == []
    assert bc.is_chapter("chapters/08_own_optimizer.html")
    assert not bc.is_chapter("chapters/99_reproducibility.html")


def test_book_pages_skip_assets_and_redirects(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text(
        '<meta http-equiv="Refresh" content="0; url=intro.html" />'
    )
    for page in ("intro.html", "chapters/01_a.html", "_static/x.html", "_sources/y.html"):
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / page).write_text("<html><body>x</body></html>")
    assert bc.book_pages(tmp_path) == ["chapters/01_a.html", "intro.html"]


def test_screenshot_paths_mirror_the_pages(tmp_path: Path) -> None:
    assert bc.screenshot_path("chapters/01_benchmark.html", 390, tmp_path) == (
        tmp_path / "chapters" / "01_benchmark-390.png"
    )
    assert bc.screenshot_path("intro.html", 1400, tmp_path) == tmp_path / "intro-1400.png"


def test_page_report_lists_every_failure() -> None:
    report = bc.PageReport(
        url="u",
        status=200,
        width=390,
        scroll_width=520,
        overflow_culprits=["<table> 500 px wide"],
        missing_values=["'a NaN'"],
        missing_headings=["Exercises"],
    )
    assert report.problems() == [
        "page overflows horizontally: 520 px wide in a 390 px viewport",
        "  sticks out: <table> 500 px wide",
        "visible missing value: 'a NaN'",
        "chapter has no 'Exercises' heading",
    ]
    # one pixel of rounding is not an overflow
    assert bc.PageReport(url="u", status=200, width=390, scroll_width=391).problems() == []
    failed = bc.PageReport(url="u", width=390, failure="page did not fire Page.loadEventFired")
    assert failed.problems() == ["page did not fire Page.loadEventFired"]


def test_default_widths_are_desktop_and_phone() -> None:
    assert bc.WIDTHS == (1400, 390)


# -- nbval markers in the rendered book -------------------------------------------------------
def test_strip_markers_removes_only_marker_lines() -> None:
    src = "# NBVAL_IGNORE_OUTPUT\nimport x\n  #NBVAL_SKIP\n# NBVAL_IGNORE_OUTPUT: timings\nx.f()\n"
    assert markers.strip_markers(src) == "import x\nx.f()\n"
    keep = "# a comment about NBVAL_SKIP\nprint('# NBVAL_SKIP')\n"
    assert markers.strip_markers(keep) == keep


def _doctree() -> nodes.document:
    doc = new_document("<test>", get_default_settings(Parser))
    cell = nodes.container(nb_element="cell_code_source", classes=["cell_input"])
    cell += nodes.literal_block("", "# NBVAL_IGNORE_OUTPUT\nprint(1)\n")
    doc += cell
    doc += nodes.literal_block("", "# NBVAL_SKIP\nprose example\n")
    return doc


def test_extension_strips_code_cells_only() -> None:
    doc = _doctree()
    markers.hide_nbval_markers(None, doc)
    blocks = list(doc.findall(nodes.literal_block))
    assert blocks[0].astext() == "print(1)\n"
    assert blocks[1].astext() == "# NBVAL_SKIP\nprose example\n"  # not a notebook cell


def test_extension_is_registered_in_the_book() -> None:
    config = (ROOT / "book" / "_config.yml").read_text(encoding="utf-8")
    assert "nbval_markers: _ext/" in config
    assert "      - nbval_markers" in config


def test_built_book_shows_no_nbval_markers() -> None:
    html = ROOT / "book" / "_build" / "html"
    if not (html / "index.html").is_file():
        pytest.skip("the book is not built (make html)")
    pages = [p for p in html.rglob("*.html") if "_static" not in p.parts]
    shown = [str(p.relative_to(html)) for p in pages if "NBVAL_" in p.read_text(encoding="utf-8")]
    assert shown == []
