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
    "02_single_objective",
    "03_multiobjective",
    "04_transfer",
    "05_genetic_algorithm",
    "06_search_space_scoring",
    "07_multifidelity",
    "08_own_optimizer",
    "09_peers",
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


COURSE_CHAPTERS = (
    "01_benchmark",
    "02_single_objective",
    "03_multiobjective",
    "04_transfer",
    "05_genetic_algorithm",
    "06_search_space_scoring",
    "07_multifidelity",
    "08_own_optimizer",
    "09_peers",
)


@pytest.mark.parametrize("stem", COURSE_CHAPTERS)
def test_chapter_states_goals_and_prerequisites_and_ends_with_summary_and_exercises(stem):
    """Goals and prerequisites come first (before any other section), the summary and the
    exercises last (the summary before the exercises)."""
    cells = json.loads((CHAPTERS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    heads = [
        line.strip()
        for c in cells
        if c["cell_type"] == "markdown"
        for line in "".join(c["source"]).splitlines()
        if re.match(r"^##? ", line)
    ]
    for name in ("Learning goals", "Prerequisites", "Summary", "Exercises"):
        assert f"## {name}" in heads, f"{stem}: no '## {name}' section"
    assert heads[0].startswith("# "), f"{stem}: does not start with its title"
    assert heads[1:3] == ["## Learning goals", "## Prerequisites"], f"{stem}: {heads[1:3]}"
    assert heads.index("## Summary") < heads.index("## Exercises"), (
        f"{stem}: summary after exercises"
    )
