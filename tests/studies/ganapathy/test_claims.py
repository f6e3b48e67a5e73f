"""Chapter 5's claims as records (nmthpo.studies.ganapathy.claims) judged by the one evaluator,
and the out-of-sample check of the counting rules (a statistic of its findings)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nmthpo.engine.claims import CLAIM_TABLE_COLUMNS, Claim, evaluate, evaluate_findings
from nmthpo.engine.stats import INTERVAL_COLUMNS, VERDICTS
from nmthpo.studies.ganapathy import claims as gc
from nmthpo.studies.ganapathy import tables as ga
from nmthpo.studies.ganapathy.claims import out_of_sample
from nmthpo.studies.ganapathy.study import PAPER_BASELINE, PAPER_GA, GAStudy, StudyRules

SIZES = (5, 10, 15, 20, 25)


def test_records_are_well_formed():
    ids = [c.id for c in gc.CLAIMS] + [f.id for f in gc.FINDINGS]
    assert len(ids) == len(set(ids))
    for c in gc.CLAIMS:
        assert isinstance(c, Claim) and c.id.startswith("ga20.")
        assert c.paper == "ganapathy-2020" and c.chapter == gc.CHAPTER
        assert c.rule is not None and c.rule.describe() and c.yardstick
        assert c.statement and c.paper_value and c.where and c.statistic is not None
    for f in gc.FINDINGS:
        assert f.id.startswith("ga20.") and f.chapter == gc.CHAPTER


def _fake_study(shift: dict[int, float]) -> GAStudy:
    """Counts whose GA mean is the paper's (plus ``shift``) and baseline mean the paper's."""
    rng = np.random.default_rng(0)
    ga, base = {}, {}
    for m in SIZES:
        for out, paper, d in ((ga, PAPER_GA, shift.get(m, 0.0)), (base, PAPER_BASELINE, 0.0)):
            x = rng.normal(0.0, 10.0, (3, 1000))
            out[m] = x - x.mean() + paper[m] + d
    return GAStudy(StudyRules(), SIZES, ga, base)


def _verdicts(study: GAStudy) -> pd.Series:
    ev = gc.evidence_for(computed={"study": study})
    table = evaluate(gc.CLAIMS[:4], ev, gc.scope_for(ev))
    return table.set_index("id")["verdict"]


def test_cell_composites_are_partly_only_when_cells_disagree():
    assert _verdicts(_fake_study({}))["ga20.t2.ga-averages"] == "reproduced"
    partly = _verdicts(_fake_study({25: -3.0}))
    assert partly["ga20.t2.ga-averages"] == "partly"
    assert partly["ga20.t3.baseline-averages"] == "reproduced"
    off = _verdicts(_fake_study({m: 5.0 for m in SIZES}))
    assert off["ga20.t2.ga-averages"] == "not reproduced"


def test_a_small_run_is_not_testable_with_the_reason():
    ev = gc.evidence_for(iterations=40, trials=2, init_pops=[5, 10], use_cache=False)
    table = evaluate(gc.CLAIMS, ev, gc.scope_for(ev))
    assert list(table.columns) == list(CLAIM_TABLE_COLUMNS)
    rows = table.set_index("id")
    for cid in (
        "ga20.t2.ga-averages",
        "ga20.t3.baseline-averages",
        "ga20.t4.differences",
        "ga20.t4.ga-wins-every-size",
        "ga20.s4.mean-difference",
        "ga20.s5.plateau",
        "ga20.s5.invalid-not-counted",
    ):
        assert rows.loc[cid, "verdict"] == "not testable"
        assert "counts per cell" in rows.loc[cid, "note"]
        assert "initial population sizes of the paper" in rows.loc[cid, "note"]
    # the data set and the paper's arithmetic need no run
    assert rows.loc["ga20.s3.data-set", "verdict"] == "reproduced"
    assert rows.loc["ga20.s4.mean-is-table4-average", "verdict"] == "not reproduced"


def test_another_target_is_another_task():
    ev = gc.evidence_for(target=15.5, iterations=40, trials=2, use_cache=False)
    rows = evaluate(gc.CLAIMS, ev, gc.scope_for(ev)).set_index("id")
    assert rows.loc["ga20.s3.data-set", "verdict"] == "not testable"
    assert "needs task(s) ja-en" in rows.loc["ga20.s3.data-set", "note"]


def test_protocol_difference_is_paired_and_signed():
    per = pd.DataFrame(
        {
            "method": ["ga"] * 4 + ["gb-eif-m"] * 4,
            "task": ["zh-en"] * 8,
            "trial": [0, 1, 2, 3] * 2,
            "ftb": [10.0, 20.0, 30.0, 40.0, 12.0, 23.0, 31.0, 44.0],
        }
    )
    e = gc.protocol_difference(per, "zh-en", "gb-eif-m")
    assert e.value == pytest.approx(-2.5) and e.low <= e.value <= e.high < 0
    assert np.isnan(gc.protocol_difference(per, "ru-en", "gb-eif-m").value)


def _no_verdict_without_interval(table: pd.DataFrame) -> None:
    assert set(table["verdict"]) <= set(VERDICTS)
    judged = table["verdict"] != "not testable"
    for col in INTERVAL_COLUMNS:
        assert (table.loc[judged, col] != "-").all()
        assert (table.loc[judged, col] != "n/a").all()


@pytest.mark.slow
def test_published_verdicts():
    ev, scope = gc.published_evidence()
    table = evaluate(gc.CLAIMS, ev, scope)
    _no_verdict_without_interval(table)
    got = table.set_index("id")["verdict"].to_dict()
    assert got == {
        "ga20.s3.data-set": "reproduced",
        "ga20.t2.ga-averages": "partly",
        "ga20.t3.baseline-averages": "reproduced",
        "ga20.t4.differences": "reproduced",
        "ga20.t4.ga-wins-every-size": "reproduced",
        "ga20.s4.mean-difference": "reproduced",
        "ga20.s4.mean-is-table4-average": "not reproduced",
        "ga20.s5.plateau": "reproduced",
        "ga20.s5.invalid-not-counted": "reproduced",
    }
    rows = table.set_index("id")
    assert "contradicted on m = 25" in rows.loc["ga20.t2.ga-averages", "note"]
    # the findings that read only cached tables and the study
    quick = [f for f in gc.FINDINGS if f.id.startswith(("ga20.oos", "ga20.m25"))]
    found = evaluate_findings(quick, ev, scope).set_index("id")
    assert (found["95% CI"] != "no interval").all()
    assert found.loc["ga20.m25.paper-runs", "ours"] == "30 of 30"


@pytest.mark.slow
def test_moved_value_recomputes_the_published_one():
    from nmthpo.engine.cache import results_dir

    if not (results_dir() / "graph_discrepancy").is_dir():
        pytest.skip("the book's cache results/graph_discrepancy is absent")
    row = gc.moved_values().iloc[0]
    assert row["old recomputed [95% CI]"].startswith(row["old (published)"])
    assert row["new [95% CI]"].startswith("-")


# -- the out-of-sample check of the counting rules (a statistic of the findings) ----------
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
        (20.071 - 0.2 - 1.959964 * 0.2, 20.071 - 0.2 + 1.959964 * 0.2), abs=1e-5
    )
    # Table 2 alone predicts Table 3 by the closed form: the pinned baseline rule's chi2
    t2 = oos.loc["Table 2 alone"]
    assert t2["chi2"] == pytest.approx(baseline.loc["draws with replacement (pinned)", "chi2"])
    # a Table 2 fit that prefers distinct rows predicts Table 3 with distinct rows
    flipped = out_of_sample(baseline, _rule_fit(3.0, 1.0))
    f2, f3 = flipped.loc["Table 2 alone"], flipped.loc["Table 3 alone"]
    assert f2["initial population"] == "distinct rows"
    assert f2["chi2"] == pytest.approx(
        baseline.loc["distinct rows throughout (no re-draws)", "chi2"]
    )
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
    assert table.index.tolist() == [
        "ga20.oos.table3-predicts-table2",
        "ga20.oos.table2-predicts-table3",
    ]
    assert table.loc["ga20.oos.table3-predicts-table2", "ours"] == (
        "5 of 5 cells covered; worst m = 5: 19.9 (paper 20.071)"
    )
    # 19.871 -/+ 1.96 * 0.2 and the closed form's 21.874 -/+ 1.96 sigma, rounded
    assert table["95% CI"].tolist() == ["[19.5, 20.3]", "[21.1, 22.6]"]
    assert "chi2 5.00 on 5 cells" in table.loc["ga20.oos.table3-predicts-table2", "note"]
