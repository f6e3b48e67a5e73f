"""Tests of nmthpo.plots.text: the banner of a chapter re-executed with other parameters,
glued text."""

from __future__ import annotations

import pytest

from nmthpo.plots.text import Glued, banner_text, glue_values
from nmthpo.studies.published import PUBLISHED


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
