"""Tables for reading (``nmthpo.plots.tables``): dashes, rounding, one interval column, and
HTML whose long names may wrap while the text stays the frame's."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from nmthpo.engine.claims import CLAIM_TABLE_COLUMNS
from nmthpo.plots.tables import DASH, ReadingTable, claims_table, readable


def test_readable_rounds_floats_and_writes_a_dash_for_what_does_not_exist():
    frame = pd.DataFrame(
        {"a": [1.23456, np.nan, -0.0001], "b": ["x", "-", ""], "n": pd.array([1, None, 3])}
    )
    out = readable(frame, {"a": 3}).frame
    assert list(out["a"]) == ["1.235", DASH, "0.000"]  # no "-0.000"
    assert list(out["b"]) == ["x", DASH, DASH]
    assert list(out["n"]) == [1, DASH, 3]
    assert "NaN" not in readable(frame)._repr_html_() and "<NA>" not in repr(readable(frame))


def _claims(low: str, high: str) -> pd.DataFrame:
    row = dict.fromkeys(CLAIM_TABLE_COLUMNS, "x")
    row.update({"95% CI low": low, "95% CI high": high, "id": "ar22.concl.overestimate"})
    return pd.DataFrame([row], index=pd.Index(["a claim"], name="claim"))


def test_claims_table_merges_the_interval_where_it_was():
    out = claims_table(_claims("0.31", "1.02")).frame
    cols = list(CLAIM_TABLE_COLUMNS)
    at = cols.index("95% CI low")
    assert list(out.columns) == cols[:at] + ["95% CI"] + cols[at + 2 :]
    assert out["95% CI"].iloc[0] == "[0.31, 1.02]"
    assert claims_table(_claims("-", "-")).frame["95% CI"].iloc[0] == DASH


def test_findings_table_keeps_its_columns():
    findings = pd.DataFrame({"id": ["f"], "ours": ["-"], "95% CI": ["[1, 2]"], "note": [""]})
    out = claims_table(findings).frame
    assert list(out.columns) == ["id", "ours", "95% CI", "note"]
    assert list(out.iloc[0]) == ["f", DASH, "[1, 2]", DASH]


def test_html_breaks_long_names_but_not_numbers_and_text_is_the_frame():
    table = claims_table(_claims("0.31", "1.02"))
    html = table._repr_html_()
    assert "ar22.<wbr>concl.<wbr>overestimate" in html
    assert "0.31" in html and "0.<wbr>" not in html
    assert "<style" in html and "<wbr>" not in html.split("</style>")[0]
    assert repr(table) == repr(table.frame)


@given(st.text(alphabet="ab._:/0 1-", max_size=30))
def test_the_break_opportunities_change_nothing_a_reader_sees(text):
    html = ReadingTable(pd.DataFrame({"c": [text]}))._repr_html_()
    plain = ReadingTable(pd.DataFrame({"c": [text]})).frame.to_html()
    cells = [c.replace("<wbr>", "") for c in pd.Series([html]).str.findall(r"<td>(.*?)</td>")[0]]
    assert cells == pd.Series([plain]).str.findall(r"<td>(.*?)</td>")[0]
