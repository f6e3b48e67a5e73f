"""Tests of nmthpo.engine.ranks by hand (Li et al. 2022, Section 5.1, Eq. 9, Table 1)."""

import numpy as np
import pandas as pd
import pytest

from nmthpo.benchmark.tables import load_table
from nmthpo.engine.ranks import (
    adtm,
    average_rank,
    best_so_far,
    overhead_curve,
    rank_counts,
    ranks_with_ties,
    weight_curve,
)


def _frame(curves, target="zh-en"):
    """curves: {method: [[bleu per step] per rep]}."""
    parts = []
    for m, reps in curves.items():
        for r, vals in enumerate(reps):
            n = len(vals)
            parts.append(
                pd.DataFrame(
                    {
                        "method": m,
                        "target": target,
                        "rep": r,
                        "step": np.arange(1, n + 1),
                        "bleu": vals,
                        "target_weight": np.linspace(0, 1, n),
                        "seconds": np.ones(n),
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)


def test_ranks_with_ties_paper_example():
    # "one method observes 0.2, another two 0.3, the last 0.45: ranks 1, 2.5, 2.5, 4"
    np.testing.assert_array_equal(
        ranks_with_ties(np.array([0.2, 0.3, 0.3, 0.45]), False), [1, 2.5, 2.5, 4]
    )


def test_average_rank_with_ties_over_steps_and_reps():
    f = _frame({"a": [[5, 9], [5, 5]], "b": [[5, 7], [6, 6]], "c": [[4, 9], [1, 8]]})
    r = average_rank(f).set_index(["method", "step"])["rank"]
    # step 1: rep0 bests 5,5,4 -> 1.5,1.5,3 ; rep1 5,6,1 -> 2,1,3
    assert r[("a", 1)] == pytest.approx((1.5 + 2) / 2)
    assert r[("b", 1)] == pytest.approx((1.5 + 1) / 2)
    assert r[("c", 1)] == pytest.approx(3.0)
    # step 2: rep0 bests 9,7,9 -> 1.5,3,1.5 ; rep1 5,6,8 -> 3,2,1
    assert r[("a", 2)] == pytest.approx(2.25)
    assert r[("c", 2)] == pytest.approx(1.25)


def test_adtm_by_hand():
    t = load_table("zh-en")
    hi, lo = t.bleu.max(), t.bleu.min()
    f = _frame({"a": [[lo, hi], [lo + 1.0, lo + 0.5]]})
    d = adtm(f).set_index("step")["adtm"]
    assert d[1] == pytest.approx((1.0 + (hi - lo - 1.0) / (hi - lo)) / 2)
    assert d[2] == pytest.approx((0.0 + (hi - lo - 1.0) / (hi - lo)) / 2)


def test_rank_counts_first_and_second_with_ties():
    parts = [
        _frame({"a": [[1, 9]], "b": [[1, 9]], "c": [[1, 3]]}, "zh-en"),
        _frame({"a": [[1, 2]], "b": [[1, 5]], "c": [[1, 4]]}, "ru-en"),
    ]
    c = rank_counts(pd.concat(parts, ignore_index=True))
    assert c.loc["a"].tolist() == [1, 0]  # tied first on zh-en, last on ru-en
    assert c.loc["b"].tolist() == [2, 0]
    assert c.loc["c"].tolist() == [0, 2]


def test_best_so_far_weight_and_overhead_curves():
    f = _frame({"a": [[3, 1, 4]]})
    assert best_so_far(f)["best"].tolist() == [3, 3, 4]
    assert weight_curve(f)["mean"].tolist() == [0.0, 0.5, 1.0]
    assert overhead_curve(f)["cum_seconds"].tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="lacks columns"):
        best_so_far(f.drop(columns="bleu"))


def test_step_intervals_match_the_rank_table_and_cover_it():
    from nmthpo.engine.ranks import step_intervals
    from nmthpo.engine.stats import INTERVAL_COLUMNS

    rng = np.random.default_rng(0)
    reps = 12
    f = pd.concat(
        [
            _frame(
                {
                    "a": (rng.normal(12, 1, (reps, 3)) + 1).tolist(),
                    "b": rng.normal(12, 1, (reps, 3)).tolist(),
                },
                t,
            )
            for t in ("zh-en", "ru-en")
        ],
        ignore_index=True,
    )
    ci = step_intervals(f, 3)
    agg = average_rank(f).set_index(["method", "step"])["rank"]
    for m in ("a", "b"):
        assert ci.loc[m, "rank"] == pytest.approx(agg[(m, 3)])
        lo, hi = ci.loc[m, list(INTERVAL_COLUMNS)]
        assert lo <= ci.loc[m, "rank"] <= hi and hi - lo > 0
    # ranks of two methods sum to 3 in every repetition: the intervals mirror each other
    assert ci.loc["a", INTERVAL_COLUMNS[0]] == pytest.approx(3 - ci.loc["b", INTERVAL_COLUMNS[1]])
    a = step_intervals(f, 3, "adtm")
    assert a.loc["a", "adtm"] == pytest.approx(
        adtm(f).set_index(["method", "step"]).loc[("a", 3), "adtm"]
    )
    with pytest.raises(ValueError, match="step 9"):
        step_intervals(f, 9)


def test_clear_places_count_only_decided_firsts():
    from nmthpo.engine.ranks import clear_places

    # zh-en: a beats b in every repetition (clear); ru-en: a and b equal on average (tie)
    clear = _frame({"a": [[5, 9]] * 6, "b": [[5, 7]] * 6}, "zh-en")
    tied = _frame({"a": [[5, 9], [5, 7]] * 3, "b": [[5, 7], [5, 9]] * 3}, "ru-en")
    cp = clear_places(pd.concat([clear, tied], ignore_index=True), 2)
    assert cp.loc["a", "clear 1st"] == 1 and cp.loc["b", "clear 1st"] == 0
    assert cp.loc["a", "tied 1st"] == 1 and cp.loc["b", "tied 1st"] == 1
