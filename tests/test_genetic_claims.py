"""Chapter 5's out-of-sample check of the counting rules (a statistic of its findings).

The records themselves are tested in tests/test_claims_genetic.py.
"""

from __future__ import annotations

import pandas as pd
import pytest

from nmthpo.engine.claims import evaluate_findings
from nmthpo.studies import genetic as ga
from nmthpo.studies import genetic_claims as gc
from nmthpo.studies.genetic_claims import out_of_sample

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
    # Table 2 alone predicts Table 3 by the closed form: the pinned baseline rule's chi2
    t2 = oos.loc["Table 2 alone"]
    assert t2["chi2"] == pytest.approx(baseline.loc["draws with replacement (pinned)", "chi2"])
    # a Table 2 fit that prefers distinct rows predicts Table 3 with distinct rows
    flipped = out_of_sample(baseline, _rule_fit(3.0, 1.0))
    assert flipped.loc["Table 2 alone", "initial population"] == "distinct rows"
    assert flipped.loc["Table 3 alone", "cells covered"] == 0


def test_out_of_sample_findings_show_the_worst_cell():
    oos = out_of_sample(ga.baseline_rule_table("ja-en", 16.0, SIZES), _rule_fit(1.0, 3.0))
    ev = gc.evidence_for(computed={"oos": oos})
    found = [f for f in gc.FINDINGS if f.id.startswith("ga20.oos")]
    table = evaluate_findings(found, ev, gc.scope_for(ev)).set_index("id")
    assert len(table) == 2
    assert table.loc["ga20.oos.table3-predicts-table2", "ours"].startswith("5 of 5 cells")
    assert (table["95% CI"] != "no interval").all()
