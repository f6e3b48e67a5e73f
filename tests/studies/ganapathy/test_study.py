"""Tests for nmthpo.studies.ganapathy.study and the chapter's variant and fair tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nmthpo.studies.ganapathy.tables as ga
from nmthpo.studies.ganapathy.baseline import baseline_expectation
from nmthpo.studies.ganapathy.study import ga_study


def test_study_deterministic_and_shaped():
    a = ga_study(init_pops=(5, 10), iterations=30, trials=2, seed=4)
    b = ga_study(init_pops=(5, 10), iterations=30, trials=2, seed=4)
    c = ga_study(init_pops=(5, 10), iterations=30, trials=2, seed=5)
    for m in (5, 10):
        np.testing.assert_array_equal(a.ga_counts[m], b.ga_counts[m])
        np.testing.assert_array_equal(a.baseline_counts[m], b.baseline_counts[m])
    assert any((a.ga_counts[m] != c.ga_counts[m]).any() for m in (5, 10))
    assert list(a.per_trial("ga").columns) == ["trial 1", "trial 2"]
    assert (a.ga_counts[5] >= 5).all() and (a.baseline_counts[10] >= 10).all()
    d = a.to_dict()
    assert set(d["ga"]) == {"5", "10"} and set(d["baseline"]) == {"5", "10"}


def test_study_shares_initial_populations():
    # an iteration whose initial population holds a target: the baseline counts exactly m
    s = ga_study(init_pops=(25,), iterations=200, trials=1, seed=0)
    base = s.baseline_counts[25][0]
    assert (base == 25).mean() == pytest.approx(1 - (143 / 150) ** 25, abs=0.1)
    # ... and the GA (which breeds one cycle first) counts at most 2 more there
    assert set(s.ga_counts[25][0][base == 25]) <= {25, 26, 27}  # offspring (+ mutant)


def test_study_errors():
    with pytest.raises(KeyError, match="unknown task"):
        ga_study("xx-en", iterations=2, trials=1)
    with pytest.raises(ValueError, match="never stop"):
        ga_study(target=16.5, iterations=2, trials=1)
    with pytest.raises(ValueError, match=">= 2"):
        ga_study(init_pops=(0,), iterations=2, trials=1)
    with pytest.raises(ValueError, match="iterations"):
        ga_study(iterations=0)


def test_variant_table_and_fair_comparison_shapes():
    v = ga.variant_table(init_pops=(5,), iterations=20, trials=1)
    assert list(v.index) == [*ga.VARIANTS, "baseline"]
    assert list(v.columns) == ["5"]
    rules = ga.ga_rule_table(init_pops=(5,), iterations=20, trials=1)
    pd.testing.assert_frame_equal(
        ga.ga_rule_table(init_pops=(5,), iterations=20, trials=1, jobs=2), rules
    )
    with pytest.raises(ValueError, match="jobs must be"):
        ga.ga_studies([{}], jobs=0)
    f = ga.fair_comparison(init_pops=(5,), iterations=20, trials=1)
    assert f.loc[5, "random_exact"] == pytest.approx(
        baseline_expectation(150, 7, 5, False, False)[0]
    )


@pytest.mark.slow
def test_reproduces_paper_baseline_and_small_population_ga():
    s = ga_study(seed=0)
    z = (pd.Series(ga.PAPER_BASELINE) - s.average("baseline")) / (
        np.sqrt(2) * s.std_error("baseline")
    )
    assert (z.abs() < 3).all()
    zg = (pd.Series(ga.PAPER_GA) - s.average("ga")) / (np.sqrt(2) * s.std_error("ga"))
    assert (zg.loc[[5, 10, 15]].abs() < 3).all()


def test_chapter_module_re_exports_the_split_modules():
    import nmthpo.optimizers.genetic_operators as ops
    import nmthpo.studies.ganapathy.simulation as sim

    assert ga.ga_study is ga_study and ga.GeneSpace is ops.GeneSpace
    assert ga.ga_count is sim.ga_count and ga.baseline_expectation is baseline_expectation
    assert set(ga.__all__) <= set(dir(ga))
