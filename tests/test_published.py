"""The published parameters (nmthpo.studies.published) are each chapter's ``parameters`` cell,
and a chapter re-executed with other parameters gets a banner naming them."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from nmthpo.plots.text import Glued, banner_text, glue_values
from nmthpo.studies.published import PUBLISHED, differences

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


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
    assert differences("02_single_objective", {"tasks": ",".join(pub["tasks"]),
                                               "trials": "100"}) == {}
    diff = differences("02_single_objective", {"tasks": '["ja-en"]', "trials": 20})
    assert set(diff) == {"tasks", "trials"}
    with pytest.raises(KeyError, match="unknown chapter"):
        differences("00_nothing", {})


def test_the_banner_names_every_parameter_that_differs() -> None:
    assert banner_text("02_single_objective", PUBLISHED["02_single_objective"]) is None
    text = banner_text("02_single_objective", {"tasks": '["ja-en"]', "trials": 20})
    assert text is not None
    assert "Not the published parameters" in text and "`trials` = `20`" in text
    assert "published: `100`" in text and "not testable" in text


def test_glued_text_has_no_quotes_and_refuses_raw_numbers() -> None:
    assert repr(Glued("32.0")) == "32.0" and Glued("a")._repr_markdown_() == "a"
    with pytest.raises(TypeError, match="formatted string"):
        glue_values({"x": 3.14159})
