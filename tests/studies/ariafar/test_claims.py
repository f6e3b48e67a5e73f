"""Chapter 6's claims as records (nmthpo.studies.ariafar.claims): well-formed, the "some" rule,
the published verdicts from the book's cache, and *not testable* with the reason on a small run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nmthpo.engine.claims import Above, Estimate, Rule, evaluate, evaluate_findings
from nmthpo.studies.ariafar import claims as sc
from nmthpo.studies.ariafar.results import Chapter6Params, cache_entries

PUBLISHED = {
    "ar22.concl.rank-preserving": "reproduced",
    "ar22.concl.overestimate": "reproduced",
    "ar22.concl.little-data": "not testable",  # inconclusive on both tasks
    "ar22.intro.broader": "not reproduced",
    "ar22.s3-1.prune": "not testable",  # sw-en above chance, ru-en inconclusive
    "ar22.s3-1.select": "not testable",  # inconclusive at both budgets
    "ar22.s3-1.compare": "not testable",  # inconclusive
}


def test_records_are_well_formed() -> None:
    ids = [c.id for c in sc.CLAIMS] + [f.id for f in sc.FINDINGS]
    assert len(ids) == len(set(ids))
    assert {c.id for c in sc.CLAIMS} == set(PUBLISHED)
    for c in sc.CLAIMS:
        assert c.paper == "ariafar-et-al-2022" and c.id.startswith("ar22.")
        assert isinstance(c.rule, Rule) and c.yardstick and c.statistic is not None
        assert c.chapter == "06_search_space_scoring"


def test_some_rule() -> None:
    rule = sc.Some(Above(0.5))
    part = {"a": Estimate(0.8, 0.6, 0.9), "b": Estimate(0.2, 0.1, 0.3)}
    assert rule.judge(Estimate(float("nan"), parts=part))[0] == "reproduced"
    none = {"a": Estimate(0.2, 0.1, 0.3), "b": Estimate(0.2, 0.1, 0.4)}
    assert rule.judge(Estimate(float("nan"), parts=none))[0] == "not reproduced"
    open_ = {"a": Estimate(0.5, 0.3, 0.7), "b": Estimate(0.2, 0.1, 0.4)}
    verdict, why = rule.judge(Estimate(float("nan"), parts=open_))
    assert verdict == "not testable" and "inconclusive" in why
    assert rule.judge(Estimate(float("nan")))[0] == "not testable"


def _frame(n_draws: int) -> pd.DataFrame:
    """A table frame whose predictions rank three spaces right in every draw."""
    rows = []
    for r in range(n_draws):
        for b in (1, 5):
            for s, (size, emp) in {"small": (10, 0.1), "mid": (20, 0.2), "full": (40, 0.3)}.items():
                rows.append(
                    {
                        "task": "t",
                        "seed_size": 5 + 5 * (r % 2),
                        "repeat": r // 2,
                        "space": s,
                        "n_rows": size,
                        "budget": b,
                        "score": "mean-b-ei",
                        "predicted": 2 * emp,
                        "empirical": emp,
                        "incumbent": 0.0,
                    }
                )
    return pd.DataFrame(rows)


def test_planted_table_and_the_scope() -> None:
    p = Chapter6Params.from_values(
        tasks=["zh-en"],
        table_seed_sizes=[5, 10],
        table_repeats=6,
        select_trials=2,
        compare_repeats=2,
        prune_budget=5,
    )
    ev = sc.evidence_for({"table": _frame(12)}, p)
    table = evaluate(sc.CLAIMS, ev, sc.scope_for(p)).set_index("id")
    assert table.loc["ar22.concl.rank-preserving", "verdict"] == "reproduced"  # tau = 1
    assert table.loc["ar22.concl.overestimate", "verdict"] == "reproduced"  # 2x predicted
    # too few selection trials and comparison repeats: not testable, with the reason
    assert "select trials" in table.loc["ar22.s3-1.select", "note"]
    assert table.loc["ar22.s3-1.compare", "verdict"] == "not testable"
    few = Chapter6Params.from_values(tasks=["zh-en"], table_seed_sizes=[5], table_repeats=2)
    small = evaluate(sc.CLAIMS, ev, sc.scope_for(few))
    assert (small["verdict"] == "not testable").all()
    lacking = small[small["note"].str.contains("seed draws per task")]
    assert len(lacking) == 5 and (lacking["ours"] == "-").all()  # not computed


def test_per_draw_rejects_unknown_statistics() -> None:
    ev = sc.evidence_for({"table": _frame(2)}, Chapter6Params())
    with pytest.raises(ValueError, match="unknown statistic"):
        sc.per_draw(ev, "table", "nonsense")
    assert sc.per_draw(ev, "synthetic", "tau").empty


def test_published_verdicts() -> None:
    if not cache_entries():
        pytest.skip("results/scoring not computed")
    ev, scope = sc.published_evidence()
    table = evaluate(sc.CLAIMS, ev, scope)
    assert table.set_index("id")["verdict"].to_dict() == PUBLISHED
    judged = table[table["verdict"].isin(["reproduced", "not reproduced"])]
    assert not judged.empty
    found = evaluate_findings(sc.FINDINGS, ev, scope).reset_index().set_index("id")
    hart = found.loc["ar22.syn.hartmann6.rank-preserving", "95% CI"]
    assert float(hart.strip("[]").split(",")[1]) < 0  # Hartmann-6: the ranking is inverted
    assert np.isfinite(float(found.loc["ar22.tab.best-kept", "ours"]))
