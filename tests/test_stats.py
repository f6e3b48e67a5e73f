"""Tests of nmthpo.engine.stats: intervals, verdicts and the claims table."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nmthpo.engine.stats import (
    CLAIMS_COLUMNS,
    INTERVAL_COLUMNS,
    VERDICTS,
    Claim,
    WinCount,
    band_verdict,
    bootstrap_mean,
    check_claims_table,
    claims_frame,
    composite_verdict,
    count_verdict,
    covers_verdict,
    interval_verdict,
    normal_interval,
    paired_bootstrap,
    paired_difference,
    paired_ratio,
    win_count,
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
def test_interval_verdict_by_hand():
    assert interval_verdict(0.1, 0.3, 0.5) == "reproduced"
    assert interval_verdict(0.6, 0.7, 0.5) == "not reproduced"
    assert interval_verdict(0.4, 0.6, 0.5) == "partly"
    assert interval_verdict(0.4, 0.6, 0.3, "above") == "reproduced"
    assert interval_verdict(0.0, 0.0, 0.0, "above") == "not reproduced"  # at most 0: not above
    assert interval_verdict(0.5, 0.6, 0.5) == "not reproduced"
    assert interval_verdict(float("nan"), 1.0, 0.0) == "not testable"
    with pytest.raises(ValueError, match="holds"):
        interval_verdict(0, 1, 0, "inside")


@settings(max_examples=100, deadline=None)
@given(finite, finite, finite, finite, st.sampled_from(["below", "above"]))
def test_interval_verdict_is_monotone_in_the_bound(a, b, bound1, bound2, holds):
    lo, hi = min(a, b), max(a, b)
    b1, b2 = min(bound1, bound2), max(bound1, bound2)
    order = {"not reproduced": 0, "partly": 1, "reproduced": 2}
    v1, v2 = order[interval_verdict(lo, hi, b1, holds)], order[interval_verdict(lo, hi, b2, holds)]
    # "below" gets easier to satisfy as the bound rises, "above" harder
    assert (v1 <= v2) if holds == "below" else (v1 >= v2)


@settings(max_examples=100, deadline=None)
@given(finite, finite, finite, finite)
def test_band_verdict_agrees_with_the_two_one_sided_ones(a, b, c, d):
    lo, hi = min(a, b), max(a, b)
    lower, upper = min(c, d), max(c, d)
    v = band_verdict(lo, hi, lower, upper)
    if v == "reproduced":
        assert lower <= lo and hi <= upper
    elif v == "not reproduced":
        assert hi < lower or lo > upper
    else:
        assert v == "partly"


def test_band_and_covers_by_hand():
    assert band_verdict(0.08, 0.12, 0.05, 0.15) == "reproduced"
    assert band_verdict(0.1, 0.2, 0.05, 0.15) == "partly"
    assert band_verdict(-9, -4, 28, 48) == "not reproduced"
    assert band_verdict(np.nan, 1, 0, 2) == "not testable"
    with pytest.raises(ValueError, match="empty"):
        band_verdict(0, 1, 2, 1)
    assert covers_verdict(1.0, 2.0, 1.5) == "reproduced"
    assert covers_verdict(1.0, 2.0, 2.5) == "not reproduced"
    assert covers_verdict(1.0, 2.0, float("nan")) == "not testable"


def test_count_and_composite_verdicts():
    assert count_verdict(6, 0, 6) == "reproduced"
    assert count_verdict(0, 6, 6) == "not reproduced"
    assert count_verdict(0, 1, 6) == "not reproduced"
    assert count_verdict(0, 0, 6) == "partly"  # only ties: neither confirmed nor refuted
    assert count_verdict(3, 3, 6) == "partly"
    assert count_verdict(0, 0, 0) == "not testable"
    with pytest.raises(ValueError):
        count_verdict(4, 3, 6)
    assert composite_verdict(["reproduced", "not testable"]) == "reproduced"
    assert composite_verdict(["not testable"]) == "not testable"
    assert composite_verdict(["partly", "not reproduced"]) == "not reproduced"
    with pytest.raises(ValueError, match="holds"):
        composite_verdict(["holds"])


def test_win_count_counts_only_clear_wins():
    wc = win_count([(-3, -1), (-1, 2), (1, 2), (np.nan, np.nan), (-5, -4), (0, 0)])
    assert wc == WinCount(2, 3, 1)  # [0, 0] (equal in every resample) is a tie
    assert str(wc) == "2 of 6 (3 ties)"
    assert wc.verdict(2, 5) == "reproduced"  # the count range [2, 5] lies in the band
    assert wc.verdict(4) == "partly"  # 4 lies in [2, 5]
    assert wc.verdict(6) == "not reproduced"
    assert WinCount(4, 0, 2).verdict(4) == "reproduced"
    assert win_count([(1, 2)], better="above") == WinCount(1, 0, 0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(finite, finite), max_size=12))
def test_win_count_parts_add_up(pairs):
    wc = win_count([(min(a, b), max(a, b)) for a, b in pairs])
    assert wc.parts == len(pairs)


# -- the claims table ----------------------------------------------------------------------------
def _claim(**kw):
    base = dict(claim="RS needs half the table", source="Sec. 6.1", paper="roughly half",
                ours=0.4987654, low=0.41234, high=0.5555, verdict="reproduced", note="n")
    base.update(kw)
    return Claim(**base)


def test_claim_refuses_words_outside_the_vocabulary_and_reversed_intervals():
    with pytest.raises(ValueError, match="holds"):
        _claim(verdict="holds")
    with pytest.raises(ValueError, match="reversed"):
        _claim(low=2.0, high=1.0)
    _claim(low=float("nan"), high=float("nan"), verdict="not testable")


def test_claims_frame_is_readable():
    f = claims_frame([_claim(), _claim(claim="second", ours="1 of 6 (2 ties)", low=1.0,
                                       high=3.0, verdict="partly")])
    assert tuple(f.columns) == CLAIMS_COLUMNS
    assert f.index.name == "claim" and list(f.index) == ["RS needs half the table", "second"]
    assert f.loc["RS needs half the table", "ours"] == 0.499
    assert f.loc["RS needs half the table", INTERVAL_COLUMNS[0]] == 0.412
    check_claims_table(f)


def test_check_claims_table_catches_old_tables():
    with pytest.raises(ValueError, match="lacks"):
        check_claims_table(pd.DataFrame({"claim": ["x"], "verdict": ["holds"]}))
    f = claims_frame([_claim()])
    f.loc[:, "verdict"] = "agrees"
    with pytest.raises(ValueError, match="vocabulary"):
        check_claims_table(f)
    assert set(VERDICTS) == {"reproduced", "partly", "not reproduced", "not testable"}
