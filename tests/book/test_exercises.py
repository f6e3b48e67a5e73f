"""Chapters for a course: each ends with two or three exercises whose solutions are hidden by
default (a ``dropdown`` admonition, solution code cells tagged ``hide-cell``) and executed with
the chapter (their outputs are in the executed copy in book/chapters)."""

from __future__ import annotations

import json
import re

import pytest

from tests.paths import ROOT

CHAPTERS = ROOT / "book" / "chapters"
WITH_EXERCISES = (
    "01_benchmark",
    "04_transfer",
    "05_genetic_algorithm",
    "06_search_space_scoring",
    "08_own_optimizer",
)


@pytest.mark.parametrize("stem", WITH_EXERCISES)
def test_chapter_ends_with_exercises_and_hidden_executed_solutions(stem):
    cells = json.loads((CHAPTERS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    text = ["".join(c["source"]) for c in cells]
    start = max(i for i, t in enumerate(text) if t.startswith("## Exercises"))
    tail = cells[start:]
    n_ex = len(re.findall(r"^\d\. \*\*", text[start], flags=re.M))
    assert 2 <= n_ex <= 3, f"{stem}: {n_ex} exercises"
    sols = [
        i for i, c in enumerate(tail) if "".join(c["source"]).startswith("```{admonition} Solution")
    ]
    assert len(sols) == n_ex
    for i in sols:
        assert ":class: dropdown" in "".join(tail[i]["source"])
        nxt = tail[i + 1] if i + 1 < len(tail) else None
        if nxt is not None and nxt["cell_type"] == "code":
            assert "hide-cell" in nxt["metadata"].get("tags", []), f"{stem}: solution shown"
            assert nxt["execution_count"] is not None and nxt["outputs"], f"{stem}: not executed"
