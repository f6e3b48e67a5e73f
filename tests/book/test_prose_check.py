"""The book's prose types no result: every decimal in a Markdown cell or page is glued from the
computation or a paper's quotation in the one allow-list ``book/quotations.tsv``
(``tools/prose_check.py``)."""

from __future__ import annotations

import importlib.util
import sys

from tests.paths import ROOT

TOOL = ROOT / "tools" / "prose_check.py"


def _tool():
    spec = importlib.util.spec_from_file_location("prose_check", TOOL)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["prose_check"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_no_typed_number_in_the_prose():
    problems = _tool().problems()
    assert not problems, "\n".join(problems)


def test_the_check_finds_a_typed_number_and_skips_references_code_and_glue():
    pc = _tool()
    text = (
        "Our ftb is 32.0 on zh-en (Section 6.1, Table 3.2), `0.5` in code, "
        "{glue:text}`zd.ftb` glued, $x = 1$; the paper's 38.52."
    )
    assert [n for n, _ in pc.decimals(text)] == ["32.0", "38.52"]


def test_the_text_of_a_directive_is_prose_but_fenced_code_is_not():
    pc = _tool()
    text = (
        "```{admonition} Solution\n:class: dropdown\nabout 84.5 models\n```\n\n"
        "```python\nx = 0.5\n```\n"
    )
    assert [n for n, _ in pc.decimals(text)] == ["84.5"]


def test_a_block_written_by_an_existing_tool_is_skipped_but_not_a_forged_one():
    pc = _tool()
    block = (
        "<!-- times:start (written by tools/{tool}; do not edit by hand) -->\n"
        '| 1 | 1.2 s |\n<!-- times-data {{"s": 35.4}} -->\n<!-- times:end -->\n'
        "typed 2.5 after it"
    )
    assert [n for n, _ in pc.decimals(block.format(tool="teaching_times.py"))] == ["2.5"]
    assert [n for n, _ in pc.decimals(block.format(tool="no_such_tool.py"))] == ["1.2", "2.5"]
