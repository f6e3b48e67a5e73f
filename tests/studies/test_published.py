"""The published parameters (nmthpo.studies.published) are each chapter's ``parameters`` cell
(the banner of a chapter re-executed with other parameters: tests/plots/test_text.py)."""

from __future__ import annotations

import ast
import json

import pytest

from nmthpo.studies.published import PUBLISHED, differences
from tests.paths import ROOT

NOTEBOOKS = ROOT / "notebooks"


def _parameters(stem: str) -> dict:
    cells = json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
    (cell,) = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    out = {}
    for node in ast.parse("".join(cell["source"])).body:
        assert isinstance(node, ast.Assign), f"{stem}: parameters cell holds only assignments"
        out[node.targets[0].id] = ast.literal_eval(node.value)
    return out


def test_every_chapter_has_its_published_parameters() -> None:
    assert sorted(PUBLISHED) == sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("stem", sorted(PUBLISHED))
def test_published_parameters_are_the_notebooks_defaults(stem: str) -> None:
    assert _parameters(stem) == PUBLISHED[stem]
    assert differences(stem, _parameters(stem)) == {}


def test_papermill_strings_are_compared_as_values() -> None:
    pub = PUBLISHED["02_single_objective"]
    assert (
        differences("02_single_objective", {"tasks": ",".join(pub["tasks"]), "trials": "100"}) == {}
    )
    diff = differences("02_single_objective", {"tasks": '["ja-en"]', "trials": 20})
    assert set(diff) == {"tasks", "trials"}
    with pytest.raises(KeyError, match="unknown chapter"):
        differences("00_nothing", {})
