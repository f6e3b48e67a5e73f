"""The page *Teaching with this book* (book/teaching.md) and its measured exercise times
(tools/teaching_times.py)."""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.paths import ROOT


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


tt = _load("teaching_times", ROOT / "tools" / "teaching_times.py")
PAGE = ROOT / "book" / "teaching.md"


def _md(src: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": src}


def _code(src: str, duration: float | None = None) -> dict:
    meta: dict = {"tags": ["hide-cell"]}
    if duration is not None:
        meta["papermill"] = {"duration": duration}
    return {"cell_type": "code", "metadata": meta, "source": src, "outputs": []}


def _chapter(solution_code: str = "x = 1") -> dict:
    cells = [
        _md("## Exercises (not the last)\n\n1. **Old.** no"),
        _code("setup()", 9.0),
        _md(
            "## Exercises\n\n1. **A `table` of your own.** Do it.\n"
            "2. **How wide is {glue:text}`ch.n` ?** Say.\n3. **Discussion.** Think."
        ),
        _md("```{admonition} Solution 1\n:class: dropdown\nBelow.\n```"),
        _code(solution_code, 0.25),
        _code("y = 2", 1.5),
        _md("```{admonition} Solution 2\n:class: dropdown\nBelow.\n```"),
        _code("z = 3", 12.0),
        _md("```{admonition} Solution 3\n:class: dropdown\nProse only.\n```"),
    ]
    return {
        "cells": cells,
        "metadata": {"papermill": {"duration": 42.0}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def test_exercises_and_their_solution_cells() -> None:
    exs = tt.exercises(_chapter())
    assert [(e.number, e.title, e.cells) for e in exs] == [
        (1, "A table of your own", [4, 5]),
        (2, "How wide is ch.n ?", [7]),
        (3, "Discussion", []),
    ]
    assert tt.exercises({"cells": [_md("# A chapter")]}) == []


def test_timed_chapter_sums_the_solution_cells() -> None:
    rec = tt.timed_chapter(_chapter(), "05_x")
    assert rec["chapter_seconds"] == 42.0
    assert [(e["number"], e["cells"], e["seconds"]) for e in rec["exercises"]] == [
        (1, 2, 1.75),
        (2, 1, 12.0),
        (3, 0, None),
    ]
    untimed = _chapter()
    del untimed["cells"][7]["metadata"]["papermill"]
    with pytest.raises(tt.TimesError, match="without a duration"):
        tt.timed_chapter(untimed, "05_x")


def test_digest_follows_the_solution_code() -> None:
    nb = _chapter()
    same = tt.digest(nb, tt.exercises(nb))
    assert tt.digest(copy.deepcopy(nb), tt.exercises(nb)) == same
    other = _chapter(solution_code="x = 2")
    assert tt.digest(other, tt.exercises(other)) != same


def test_render_and_check(tmp_path: Path) -> None:
    page = tmp_path / "teaching.md"
    page.write_text(f"# T\n\n{tt.START}\n{tt.END}\n\nafter\n", encoding="utf-8")
    chapters = tmp_path / "chapters"
    chapters.mkdir()
    nb = _chapter()
    (chapters / "05_x.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    assert tt.check(page, chapters) == [
        f"{page}: no timings yet; run python tools/teaching_times.py"
    ]
    data = {"machine": "a laptop", "chapters": [tt.timed_chapter(nb, "05_x")]}
    tt.write_page(data, page)
    text = page.read_text(encoding="utf-8")
    assert "| 5 | 1. A table of your own | 2 cells | 1.8 s |" in text
    assert "| 5 | 3. Discussion | none (discussion) | -- |" in text
    assert "| 5 | 3 | 14 s | 42 s |" in text
    assert text.endswith(f"{tt.END}\n\nafter\n")
    assert tt.check(page, chapters) == []
    # a changed solution must be re-timed; a hand edit of the table is caught
    changed = _chapter(solution_code="x = 2")
    (chapters / "05_x.ipynb").write_text(json.dumps(changed), encoding="utf-8")
    assert "--only 05" in tt.check(page, chapters)[0]
    (chapters / "05_x.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    page.write_text(text.replace("1.8 s", "1 s"), encoding="utf-8")
    assert "edited by hand" in tt.check(page, chapters)[0]


def test_times_in_the_page_are_current() -> None:
    """The page's table covers the exercises the executed chapters hold now."""
    assert tt.check() == []


def test_page_plans_a_course_and_is_linked() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert text.startswith("# Teaching with this book\n")
    for n, path in enumerate(sorted((ROOT / "book" / "chapters").glob("0[1-9]_*.ipynb")), 1):
        assert f"| {{doc}}`{n} <chapters/{path.stem}>` |" in text
    for needed in ("NMTHPO_MIRROR", "python -m http.server", "papermill", "NMTHPO_RESULTS"):
        assert needed in text
    assert "{doc}`teaching`" in (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
