"""Tests of nmthpo.engine.stats: intervals and the check of a claims table (the rule set
itself: tests/engine/test_claims.py)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nmthpo.engine.stats import (
    INTERVAL_COLUMNS,
    VERDICTS,
    bootstrap_mean,
    check_claims_table,
    normal_interval,
    paired_bootstrap,
    paired_difference,
    paired_ratio,
)

finite = st.floats(-1e3, 1e3, allow_nan=False)


# -- bootstrap: hand-computed values ------------------------------------------------------------
def test_bootstrap_of_a_constant_is_a_point():
    assert bootstrap_mean(np.full(7, 2.5)) == (2.5, 2.5, 2.5)


def test_bootstrap_of_two_values_matches_the_binomial_quantiles():
    # mean of n=2 resampled from {0, 1}: 0, 0.5, 1 with probabilities 1/4, 1/2, 1/4
    est, lo, hi = bootstrap_mean(np.array([0.0, 1.0]), n_boot=4000)
    assert (est, lo, hi) == (0.5, 0.0, 1.0)


def test_paired_difference_and_ratio_estimates_are_the_plain_ones():
    a, b = np.array([2.0, 4.0, 6.0, 8.0]), np.array([1.0, 2.0, 3.0, 4.0])
    assert paired_difference(a, b)[0] == 2.5
    est, lo, hi = paired_ratio(a, b)
    # a = 2 b trial by trial: every resample has ratio exactly 2
    assert (est, lo, hi) == (2.0, 2.0, 2.0)


def test_pairing_removes_the_shared_trial_effect():
    rng = np.random.default_rng(1)
    shared = rng.normal(0, 10, 50)  # trial effect shared by both methods (initial rows)
    a, b = shared + 1.0, shared + rng.normal(0, 0.1, 50)
    _, lo, hi = paired_difference(a, b)
    assert 0.9 < lo < hi < 1.1  # unpaired, the interval would be about +-4 wide


def test_curves_ride_along_the_trial_axis():
    x = np.arange(12.0).reshape(4, 3)  # 4 trials x 3 steps
    est, lo, hi = paired_bootstrap([x], lambda c: c.mean(axis=1)[:, -1] - c.mean(axis=1)[:, 0])
    assert (est, lo, hi) == (2.0, 2.0, 2.0)


def test_chunking_does_not_change_the_interval(monkeypatch):
    import nmthpo.engine.stats as stats

    v = np.random.default_rng(2).exponential(size=40)
    whole = bootstrap_mean(v, seed=5)
    monkeypatch.setattr(stats, "_CHUNK_VALUES", 7)
    assert bootstrap_mean(v, seed=5) == whole


def test_bad_samples_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="one non-zero length"):
        paired_difference(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="NaN"):
        bootstrap_mean(np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="level"):
        bootstrap_mean(np.ones(3), level=1.5)
    with pytest.raises(ValueError, match="n_boot"):
        bootstrap_mean(np.ones(3), n_boot=0)


def test_normal_interval_by_hand():
    lo, hi = normal_interval(10.0, 2.0)
    assert lo == pytest.approx(10 - 1.959964 * 2, abs=1e-5)
    assert hi == pytest.approx(10 + 1.959964 * 2, abs=1e-5)
    assert all(math.isnan(v) for v in normal_interval(1.0, float("nan")))


# -- bootstrap: properties ------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(st.lists(finite, min_size=1, max_size=15))
def test_interval_contains_the_estimate_for_symmetric_samples(half):
    # a sample symmetric about c: the bootstrap distribution of the mean is symmetric about c
    c = 3.0
    v = np.array([c + h for h in half] + [c - h for h in half])
    est, lo, hi = bootstrap_mean(v, n_boot=400)
    assert lo - 1e-9 <= est <= hi + 1e-9


@settings(max_examples=40, deadline=None)
@given(st.lists(finite, min_size=1, max_size=20))
def test_paired_bootstrap_of_identical_samples_is_zero(values):
    v = np.array(values)
    assert paired_difference(v, v, n_boot=200) == (0.0, 0.0, 0.0)


@settings(max_examples=25, deadline=None)
@given(st.lists(finite, min_size=2, max_size=20), st.integers(0, 2**31 - 1))
def test_a_seed_gives_the_same_interval(values, seed):
    v = np.array(values)
    assert bootstrap_mean(v, n_boot=300, seed=seed) == bootstrap_mean(v, n_boot=300, seed=seed)
    g1, g2 = np.random.default_rng(seed), np.random.default_rng(seed)
    assert bootstrap_mean(v, n_boot=300, seed=g1) == bootstrap_mean(v, n_boot=300, seed=g2)


@settings(max_examples=25, deadline=None)
@given(st.lists(finite, min_size=2, max_size=20))
def test_wider_level_gives_a_wider_interval(values):
    v = np.array(values)
    _, lo90, hi90 = bootstrap_mean(v, n_boot=500, level=0.9)
    _, lo99, hi99 = bootstrap_mean(v, n_boot=500, level=0.99)
    assert lo99 <= lo90 and hi90 <= hi99


# -- verdicts ------------------------------------------------------------------------------------
def test_check_claims_table_catches_old_tables():
    with pytest.raises(ValueError, match="lacks"):
        check_claims_table(pd.DataFrame({"claim": ["x"], "verdict": ["holds"]}))
    f = pd.DataFrame(
        {INTERVAL_COLUMNS[0]: [1.0], INTERVAL_COLUMNS[1]: [2.0], "verdict": ["agrees"]}
    )
    with pytest.raises(ValueError, match="vocabulary"):
        check_claims_table(f)
    f["verdict"] = "reproduced"
    check_claims_table(f)
    assert set(VERDICTS) == {"reproduced", "partly", "not reproduced", "not testable"}
