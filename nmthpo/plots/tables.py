"""Tables for reading: what a chapter shows instead of a raw DataFrame.

A table in the book has named columns, rounded numbers and a dash (–) where a value does not
exist (never ``NaN`` or ``<NA>``), and it fits the content column of the page at 1400 px
(``tools/browser_check.py`` notes any that does not). Two helpers, used by every chapter:

* :func:`readable` rounds the float columns and writes the dash;
* :func:`claims_table` shows a claims or findings table (:func:`nmthpo.engine.claims.evaluate`,
  :func:`~nmthpo.engine.claims.evaluate_findings`): the dash for "no value", the two interval
  columns as one ``95% CI`` column ``[low, high]``.

Both return a :class:`ReadingTable`: its plain text is the DataFrame's (what nbval compares),
and its HTML lets long names (``ar22.concl.overestimate``, ``perplexity_optimal``,
``optuna-pruner:MedianPruner``) break after a dot, underscore, colon or slash (``<wbr>``,
invisible and not copied), so that a column is no wider than its words. Written by hand
because pandas' ``to_html`` has no such option and its ``Styler`` would put random ids into
the stored outputs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import pandas as pd

from nmthpo.engine.stats import INTERVAL_COLUMNS

__all__ = ["DASH", "ReadingTable", "claims_table", "readable"]

#: What a table shows where a value does not exist.
DASH: str = "–"
#: The one interval column of a table for reading (:func:`claims_table`).
INTERVAL: str = "95% CI"

# the text of one table cell (pandas' HTML has no nested tags in a cell)
_CELL = re.compile(r"(<t[dh][^>]*>)([^<]*)(</t[dh]>)")
# a break opportunity after . _ : / when a letter follows (never inside a number such as 0.31)
_BREAK = re.compile(r"(?<=[A-Za-z0-9\)])([._:/])(?=[A-Za-z])")


def _breakable(text: str) -> str:
    return _BREAK.sub(r"\1<wbr>", text)


class ReadingTable:
    """A DataFrame for reading: the frame's text, and HTML whose long names can wrap.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table as it should be read (already rounded, dashes written).
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame

    def __repr__(self) -> str:
        return repr(self.frame)

    def _repr_html_(self) -> str:
        html = self.frame._repr_html_()
        if html is None:  # pandas' display.notebook_repr_html is off
            html = self.frame.to_html()
        return _CELL.sub(lambda m: m.group(1) + _breakable(m.group(2)) + m.group(3), html)


def readable(frame: pd.DataFrame, decimals: int | Mapping[str, int] = 2) -> ReadingTable:
    """``frame`` for reading: floats rounded and a dash where a value does not exist (a missing
    value, or a text cell that is only ``-`` or empty).

    Parameters
    ----------
    frame : pandas.DataFrame
        Any table.
    decimals : int or mapping
        Places of every float column, or per column name (2 for a column not named).
    """
    out = frame.astype(object)
    for col in frame.columns:
        if pd.api.types.is_float_dtype(frame[col]):
            d = decimals.get(col, 2) if isinstance(decimals, Mapping) else int(decimals)
            text = [f"{v:.{d}f}" for v in frame[col]]
            # "-0.00" reads as a sign that is not there
            out[col] = [t[1:] if t.startswith("-") and float(t) == 0 else t for t in text]
    out = out.where(frame.notna(), DASH)
    return ReadingTable(out.map(_dash))


def _dash(value: object) -> object:
    return DASH if isinstance(value, str) and value.strip() in ("", "-") else value


def claims_table(table: pd.DataFrame, decimals: int | Mapping[str, int] = 2) -> ReadingTable:
    """A claims or findings table for reading (floats rounded as :func:`readable` rounds them,
    to ``decimals``).

    The cells that say "no value" (``-``, empty or missing) show the dash, and the interval
    columns :data:`~nmthpo.engine.stats.INTERVAL_COLUMNS` become one column ``95% CI`` holding
    ``[low, high]`` (a dash where the interval is undefined), placed where they were. The
    values themselves are the table's, unchanged.
    """
    out = readable(table, decimals).frame
    low, high = INTERVAL_COLUMNS
    if low in out.columns and high in out.columns:
        pos = list(out.columns).index(low)
        both = [
            DASH if DASH in (lo, hi) else f"[{lo}, {hi}]"
            for lo, hi in zip(out[low], out[high], strict=True)
        ]
        out = out.drop(columns=[low, high])
        out.insert(pos, INTERVAL, both)
    return ReadingTable(out)
