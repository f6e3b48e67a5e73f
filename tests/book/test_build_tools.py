"""Tests for tools/build_book.py and tools/browser_check.py helpers (no build, no browser)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.paths import ROOT

TOOLS = ROOT / "tools"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


build_book = _load("build_book")
browser_check = _load("browser_check")


def _nb(cells: list[dict]) -> dict:
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _code(src: str, tags: list[str] | None = None, outputs: list | None = None) -> dict:
    return {
        "cell_type": "code",
        "source": src,
        "metadata": {"tags": tags or []},
        "outputs": outputs or [],
        "execution_count": None,
    }


def test_parameters_cell_detection() -> None:
    nb = _nb(
        [
            {"cell_type": "markdown", "source": "x", "metadata": {"tags": ["parameters"]}},
            _code("a = 1"),
            _code("b = 2", ["parameters"]),
        ]
    )
    assert build_book.parameters_cell(nb) == 2
    with pytest.raises(build_book.BuildError, match="found 0"):
        build_book.parameters_cell(_nb([_code("a = 1")]))
    two = _nb([_code("a = 1", ["parameters"]), _code("b = 1", ["parameters"])])
    with pytest.raises(build_book.BuildError, match="found 2"):
        build_book.parameters_cell(two)


def test_check_source_rejects_outputs(tmp_path: Path) -> None:
    path = tmp_path / "01_x.ipynb"
    nb = _nb([_code("a = 1", ["parameters"], outputs=[{"output_type": "stream"}])])
    path.write_text(json.dumps(nb))
    with pytest.raises(build_book.BuildError, match="clear-output"):
        build_book.check_source(path)


def test_chapter_sources_and_smoke(tmp_path: Path) -> None:
    for name in ("02_b.ipynb", "01_a.ipynb", "scratch.ipynb", "1_bad.ipynb"):
        (tmp_path / name).write_text("{}")
    assert [p.name for p in build_book.chapter_sources(tmp_path)] == ["01_a.ipynb", "02_b.ipynb"]
    nb = _nb([])
    nb["metadata"]["nmthpo"] = {"smoke": {"n_trees": 8}}
    assert build_book.smoke_parameters(nb) == {"n_trees": 8}
    assert build_book.smoke_parameters(_nb([])) == {}


def test_strip_timings() -> None:
    nb = _nb([_code("a")])
    nb["metadata"]["papermill"] = {"start_time": "t", "duration": 1.0, "parameters": {"x": 1}}
    nb["cells"][0]["metadata"]["papermill"] = {"start_time": "t", "status": "completed"}
    nb["cells"][0]["metadata"]["execution"] = {"iopub.status.busy": "t"}
    out = build_book.strip_timings(nb, "notebooks/a.ipynb", "book/chapters/a.ipynb")
    assert out["metadata"]["papermill"] == {
        "parameters": {"x": 1},
        "input_path": "notebooks/a.ipynb",
        "output_path": "book/chapters/a.ipynb",
    }
    assert out["cells"][0]["metadata"] == {"tags": [], "papermill": {}}


def test_remote_assets(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(
        '<script src="_static/x.js"></script><script src="https://cdn.example/x.js"></script>'
        '<link rel="stylesheet" href="//fonts.example/css"><a href="https://ok.example">x</a>'
    )
    assert build_book.remote_assets(tmp_path) == [
        ("a.html", "https://cdn.example/x.js"),
        ("a.html", "//fonts.example/css"),
    ]


def test_page_report_problems() -> None:
    report = browser_check.PageReport(
        url="u",
        status=200,
        images=[
            {"src": "a.png", "complete": True, "width": 10},
            {"src": "b.png", "complete": True, "width": 0},
        ],
    )
    assert report.problems() == ["image did not load: b.png"]
    events = [
        {
            "sessionId": "s",
            "method": "Runtime.exceptionThrown",
            "params": {"exceptionDetails": {"exception": {"description": "TypeError: x"}}},
        },
        {
            "sessionId": "s",
            "method": "Network.requestWillBeSent",
            "params": {"request": {"url": "https://cdn.example/a.js"}},
        },
        {
            "sessionId": "s",
            "method": "Log.entryAdded",
            "params": {"entry": {"level": "error", "url": "http://127.0.0.1:1/favicon.ico"}},
        },
        {"sessionId": "other", "method": "Runtime.exceptionThrown", "params": {}},
    ]
    fresh = browser_check.PageReport(url="u", status=200)
    browser_check._collect(fresh, events, "s", "127.0.0.1")
    assert fresh.js_errors == ["TypeError: x"]
    assert fresh.remote_requests == ["https://cdn.example/a.js"]


def test_serve_requires_built_book(tmp_path: Path) -> None:
    with pytest.raises(browser_check.CheckError, match="build the book"):
        browser_check.serve(tmp_path)


def test_api_reference_lists_every_module():
    """The reference pages (book/api.md, book/api/*.md, book/cli.md) are generated from the
    package tree; a new module must appear in them."""
    import subprocess
    import sys

    res = subprocess.run(
        [sys.executable, str(TOOLS / "api_reference.py"), "--check"], capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr


api_reference = _load("api_reference")


def test_api_reference_front_door_first_and_every_page_in_the_toc():
    pages = api_reference.render()
    front = pages[api_reference.OUT]
    assert front.startswith("# API reference")
    # the front door's names come before any module entry
    assert front.index("nmthpo.load_table") < front.index(".. automodule::")
    toc = (ROOT / "book" / "_toc.yml").read_text()
    for path in pages:
        entry = path.relative_to(ROOT / "book").with_suffix("").as_posix()
        assert f"- file: {entry}\n" in toc, f"{entry} is not in book/_toc.yml"
    assert toc.index("- file: api\n") < toc.index("- file: api/data\n")
    covered = {m for layer in api_reference.LAYERS for m in api_reference.modules(layer)}
    covered |= set(api_reference.front_modules())
    for path in (ROOT / "nmthpo").rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        assert name in covered or path.name == "__init__.py", f"{name} is in no reference page"


def test_cli_reference_uses_the_parser():
    text = api_reference.render()[api_reference.CLI_PAGE]
    assert ".. argparse::" in text and ":func: build_parser" in text and ":prog: nmthpo" in text


@pytest.mark.parametrize(
    "example",
    [api_reference.FRONT_EXAMPLE] + [layer.example for layer in api_reference.LAYERS],
    ids=["front"] + [layer.slug for layer in api_reference.LAYERS],
)
def test_api_reference_examples_run(example: str, capsys) -> None:
    """The example at the top of each reference page runs as printed."""
    exec(compile(example, "<example>", "exec"), {"__name__": "__example__"})
    assert capsys.readouterr().out or "savefig" in example


@pytest.mark.parametrize(
    "tool",
    ["make_results", "build_book", "api_reference", "lock", "prose_check", "extract_changes"],
)
def test_tools_run_as_scripts(tool: str) -> None:
    """Each tool is a program: ``python tools/X.py --help`` prints its usage (a lost
    ``__main__`` guard would print nothing and exit 0)."""
    import subprocess

    out = subprocess.run(
        [sys.executable, str(TOOLS / f"{tool}.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0 and "usage:" in out.stdout, out.stderr


def test_make_results_records_a_whole_run(tmp_path: Path, monkeypatch) -> None:
    from nmthpo.studies import speed

    make_results = _load("make_results")
    monkeypatch.setattr(make_results, "RESULTS", tmp_path)
    make_results._record_time("single", "rs ja-en k", 1.234)
    make_results._record_whole({"single": 60.0}, 90.0, 2, True)
    data = json.loads((tmp_path / "timings.json").read_text())
    assert data["single"] == {"rs ja-en k": 1.23}
    assert data[speed.MAKE_RESULTS_KEY] == {
        "jobs": 2,
        "total": 90.0,
        "from_scratch": True,
        "experiments": {"single": 60.0},
    }
