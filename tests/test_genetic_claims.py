"""Chapter 5's out-of-sample check of the counting rules (a statistic of its findings).

The records themselves are tested in tests/test_claims_genetic.py.
"""

from __future__ import annotations

import pandas as pd
import pytest

from nmthpo.engine.claims import evaluate_findings
from nmthpo.studies.ganapathy import claims as gc
from nmthpo.studies.ganapathy import tables as ga
from nmthpo.studies.ganapathy.claims import out_of_sample

SIZES = (5, 10, 15, 20, 25)


def _rule_fit(pinned_offset: float, distinct_offset: float) -> pd.DataFrame:
    """A Table 2 fit whose rows sit ``offset`` standard errors from the paper in every cell."""
    rows = {}
    for name, off in (("pinned", pinned_offset), ("distinct initial rows", distinct_offset)):
        row: dict[str, float] = {}
        for m in SIZES:
            se = 0.2  # sqrt(2) * se of the cell
            row[str(m)] = ga.PAPER_GA[m] - off * se
            row[f"{m} z"] = off
        row["chi2"] = len(SIZES) * off**2
        rows[name] = row
    return pd.DataFrame.from_dict(rows, orient="index")


def test_out_of_sample_both_directions():
    baseline = ga.baseline_rule_table("ja-en", 16.0, SIZES)
    oos = out_of_sample(baseline, _rule_fit(1.0, 3.0))
    assert list(oos.index) == ["Table 3 alone", "Table 2 alone"]
    # Table 3 picks draws with replacement; Table 2 (pinned fits better) picks the same
    assert (oos["initial population"] == "with replacement").all()
    t3 = oos.loc["Table 3 alone"]
    assert t3["cells covered"] == 5 and t3["chi2"] == pytest.approx(5.0)
    assert t3["other rule chi2"] == pytest.approx(45.0)
    # every cell sits 1 se (0.2) below the paper: the first size is the worst (ties keep the
    # first); its interval is ours -/+ 1.96 * 0.2
    assert t3["worst size"] == 5 and t3["worst paper"] == ga.PAPER_GA[5] == 20.071
    assert t3["worst ours"] == pytest.approx(20.071 - 0.2)
    assert (t3["worst low"], t3["worst high"]) == pytest.approx(
        (20.071 - 0.2 - 1.959964 * 0.2, 20.071 - 0.2 + 1.959964 * 0.2), abs=1e-5)
    # Table 2 alone predicts Table 3 by the closed form: the pinned baseline rule's chi2
    t2 = oos.loc["Table 2 alone"]
    assert t2["chi2"] == pytest.approx(baseline.loc["draws with replacement (pinned)", "chi2"])
    # a Table 2 fit that prefers distinct rows predicts Table 3 with distinct rows
    flipped = out_of_sample(baseline, _rule_fit(3.0, 1.0))
    f2, f3 = flipped.loc["Table 2 alone"], flipped.loc["Table 3 alone"]
    assert f2["initial population"] == "distinct rows"
    assert f2["chi2"] == pytest.approx(
        baseline.loc["distinct rows throughout (no re-draws)", "chi2"])
    # Table 3 still picks the pinned rule, which this fit puts 3 se off in all 5 cells
    assert f3["initial population"] == "with replacement"
    assert f3["chi2"] == pytest.approx(5 * 3.0**2) and f3["other rule chi2"] == pytest.approx(5.0)
    assert f3["cells covered"] == 0 and f3["cells"] == 5
    assert f3["worst ours"] == pytest.approx(20.071 - 3 * 0.2)


def test_out_of_sample_findings_show_the_worst_cell():
    oos = out_of_sample(ga.baseline_rule_table("ja-en", 16.0, SIZES), _rule_fit(1.0, 3.0))
    ev = gc.evidence_for(computed={"oos": oos})
    found = [f for f in gc.FINDINGS if f.id.startswith("ga20.oos")]
    table = evaluate_findings(found, ev, gc.scope_for(ev)).set_index("id")
    assert table.index.tolist() == ["ga20.oos.table3-predicts-table2",
                                    "ga20.oos.table2-predicts-table3"]
    assert table.loc["ga20.oos.table3-predicts-table2", "ours"] == (
        "5 of 5 cells covered; worst m = 5: 19.9 (paper 20.071)")
    # 19.871 -/+ 1.96 * 0.2 and the closed form's 21.874 -/+ 1.96 sigma, rounded
    assert table["95% CI"].tolist() == ["[19.5, 20.3]", "[21.1, 22.6]"]
    assert "chi2 5.00 on 5 cells" in table.loc["ga20.oos.table3-predicts-table2", "note"]
