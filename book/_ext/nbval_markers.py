"""Sphinx extension of the nmthpo book: hide nbval's comment markers in rendered code cells.

The executed chapters keep comments such as ``# NBVAL_IGNORE_OUTPUT`` or ``# NBVAL_SKIP`` in
their code cells: nbval reads them when it re-checks a chapter, but they mean nothing to a
reader. On ``doctree-read`` this extension removes every line that is only such a comment
(``# NBVAL_NAME``, optionally followed by an explanation) from the source of each notebook
code cell (MyST-NB's ``cell_code_source`` containers). Literal blocks elsewhere (prose that
documents the markers) and the notebooks themselves are left alone.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes

#: A comment line that is an nbval marker, e.g. ``# NBVAL_IGNORE_OUTPUT: timings differ``.
MARKER_LINE = re.compile(r"^\s*#+\s*NBVAL_[A-Z_]+\b.*$")


def strip_markers(source: str) -> str:
    """``source`` without its nbval marker lines (other lines, and their order, unchanged)."""
    lines = source.splitlines(keepends=True)
    kept = [line for line in lines if not MARKER_LINE.match(line.rstrip("\r\n"))]
    return source if len(kept) == len(lines) else "".join(kept)


def _code_cell_sources(doctree: nodes.Node) -> list[nodes.literal_block]:
    blocks = []
    for container in doctree.findall(nodes.container):
        if container.get("nb_element") == "cell_code_source":
            blocks.extend(container.findall(nodes.literal_block))
    return blocks


def hide_nbval_markers(app: Any, doctree: nodes.document) -> None:
    """``doctree-read`` handler: strip nbval marker lines from every code cell's source."""
    for block in _code_cell_sources(doctree):
        text = block.astext()
        new = strip_markers(text)
        if new != text:
            block.children = []
            block += nodes.Text(new)
            block.rawsource = new


def setup(app: Any) -> dict[str, Any]:
    app.connect("doctree-read", hide_nbval_markers)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
