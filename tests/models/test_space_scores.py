"""Tests for nmthpo.models.space_scores: exact empirical scores, Monte-Carlo scores,
faithfulness (Ariafar et al. 2022, Eq. 1)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from nmthpo.models.acquisition import expected_improvement
from nmthpo.models.gp import GaussianProcess
from nmthpo.models.space_scores import (
    check_budgets,
    empirical_scores,
    exact_b1_scores,
    faithfulness,
    order_statistic_cdf,
    predicted_scores_finite,
    predicted_scores_sampler,
    sample_posterior,
    scores_from_joint_draws,
)


# -- exact empirical scores ----------------------------------------------------------------------
def test_empirical_scores_by_hand_with_replacement():
    # values 1, 2, 3; y+ = 1.5; b = 2 i.i.d.: P(K <= k) = (k/3)^2 -> weights 1/9, 3/9, 5/9
    s = empirical_scores(np.array([3.0, 1.0, 2.0]), 1.5, [2], replace=True)
    assert s["expected-best"][0] == pytest.approx(22 / 9)
    assert s["mean-b-ei"][0] == pytest.approx((3 * 0.5 + 5 * 1.5) / 9)
    assert s["mean-b-pi"][0] == pytest.approx(8 / 9)
    assert s["median-b-ei"][0] == pytest.approx(1.5)  # CDF 1/9, 4/9, 1 -> median 3 - 1.5
    assert s["median-b-pi"][0] == pytest.approx(1.0)


def test_empirical_scores_by_hand_without_replacement():
    # pairs {1,2}, {1,3}, {2,3}: best 2, 3, 3
    s = empirical_scores(np.array([1.0, 2.0, 3.0]), 1.5, [2], replace=False)
    assert s["expected-best"][0] == pytest.approx(8 / 3)
    assert s["mean-b-ei"][0] == pytest.approx(3.5 / 3)
    assert s["mean-b-pi"][0] == pytest.approx(1.0)
    assert s["median-b-ei"][0] == pytest.approx(1.5)


def test_empirical_b1_is_plain_average_and_median():
    v = np.array([0.0, 4.0, 1.0, 3.0])
    s = empirical_scores(v, 2.0, [1])
    assert s["mean-b-ei"][0] == pytest.approx(0.75)
    assert s["median-b-ei"][0] == pytest.approx(np.median(np.maximum(v - 2, 0)))  # midpoint 0.5
    assert s["median-b-pi"][0] == pytest.approx(0.5)


@pytest.mark.parametrize("replace", [True, False])
def test_empirical_scores_match_brute_force_enumeration(replace):
    rng = np.random.default_rng(0)
    v = rng.integers(0, 4, 5).astype(float)  # ties on purpose
    inc = 1.5
    for b in (1, 2, 3, 4):
        if replace:
            batches = list(itertools.product(range(5), repeat=b))
        else:
            batches = list(itertools.combinations(range(5), b))
        best = np.array([v[list(x)].max() for x in batches])
        imp, ind = np.maximum(best - inc, 0), (best > inc).astype(float)
        s = empirical_scores(v, inc, [b], replace=replace)
        assert s["expected-best"][0] == pytest.approx(best.mean())
        assert s["mean-b-ei"][0] == pytest.approx(imp.mean())
        assert s["mean-b-pi"][0] == pytest.approx(ind.mean())
        assert s["median-b-ei"][0] == pytest.approx(np.median(imp))
        assert s["median-b-pi"][0] == pytest.approx(np.median(ind))


def test_without_replacement_budget_beyond_size_exhausts_the_space():
    v = np.array([1.0, 5.0, 2.0])
    s = empirical_scores(v, 0.0, [3, 10], replace=False)
    np.testing.assert_allclose(s["expected-best"], [5.0, 5.0])
    cdf = order_statistic_cdf(3, [1, 2, 3], replace=False)
    np.testing.assert_allclose(cdf, [[1 / 3, 2 / 3, 1], [0, 1 / 3, 1], [0, 0, 1]])


def test_check_budgets_errors():
    with pytest.raises(ValueError, match=">= 1"):
        check_budgets([0, 2])
    with pytest.raises(ValueError, match="integers"):
        check_budgets([1.5])
    with pytest.raises(ValueError, match="at least one"):
        check_budgets([])


# -- Monte-Carlo scores ------------------------------------------------------------------------
def test_scores_from_joint_draws_by_hand():
    # 2 batches x 2 locations x 2 samples, y+ = 0
    d = np.array([[[1.0, -1.0], [2.0, -2.0]], [[0.0, 3.0], [-1.0, 1.0]]])
    s = scores_from_joint_draws(d, 0.0, [1, 2])
    # b=1: batch EIs (1+0)/2 = .5 and (0+3)/2 = 1.5; b=2: best (2,-1)->1.0, (0,3)->1.5
    np.testing.assert_allclose(s["mean-b-ei"], [1.0, 1.25])
    np.testing.assert_allclose(s["median-b-ei"], [1.0, 1.25])
    np.testing.assert_allclose(s["mean-b-pi"], [0.5, 0.5])
    np.testing.assert_allclose(s["expected-best"], [0.75, 1.0])


def _random_posterior(rng, n):
    A = rng.normal(size=(n, n))
    return rng.normal(size=n), A @ A.T / n + 0.1 * np.eye(n)


@pytest.mark.parametrize("noise", [0.0, 0.3])
def test_mc_b1_converges_to_closed_form_ei(noise):
    rng = np.random.default_rng(1)
    mean, cov = _random_posterior(rng, 7)
    space = np.array([0, 2, 3, 5, 6])
    s = predicted_scores_finite(
        mean, cov, [space], 0.2, [1], rng, n_batches=4000, n_samples=4000, noise_var=noise
    )
    exact = exact_b1_scores(mean[space], np.diag(cov)[space] + noise, 0.2)
    sd = np.sqrt(np.diag(cov)[space] + noise)
    assert exact["mean-b-ei"] == pytest.approx(expected_improvement(mean[space], sd, 0.2).mean())
    for k in ("mean-b-ei", "mean-b-pi", "median-b-ei", "median-b-pi", "expected-best"):
        assert s[k][0, 0] == pytest.approx(exact[k], rel=0.05, abs=0.01), k


def test_mc_without_uncertainty_equals_empirical_score():
    rng = np.random.default_rng(2)
    v = np.array([1.0, 2.0, 3.0, 0.5])
    s = predicted_scores_finite(
        v, np.zeros((4, 4)), [np.arange(4)], 1.5, [1, 2, 3], rng, n_batches=20000, n_samples=2
    )
    e = empirical_scores(v, 1.5, [1, 2, 3])
    for k in ("mean-b-ei", "mean-b-pi", "expected-best"):
        np.testing.assert_allclose(s[k][0], e[k], rtol=0.02)
    s2 = predicted_scores_finite(
        v,
        np.zeros((4, 4)),
        [np.arange(4)],
        1.5,
        [2, 9],
        rng,
        n_batches=64,
        n_samples=2,
        replace=False,
    )
    np.testing.assert_allclose(s2["expected-best"][0, 1], 3.0)  # b >= |S|: whole space


def test_batch_samples_are_joint():
    # perfectly correlated points: a batch's best is one N(0, 1) draw -> b-EI = phi(0)
    rng = np.random.default_rng(3)
    cov = np.ones((2, 2))
    s = predicted_scores_finite(
        np.zeros(2), cov, [np.arange(2)], 0.0, [2], rng, n_batches=200, n_samples=20000
    )
    assert s["mean-b-ei"][0, 0] == pytest.approx(1 / np.sqrt(2 * np.pi), rel=0.03)
    # independent points: E[max(Y1, Y2, 0)] is larger
    s_ind = predicted_scores_finite(
        np.zeros(2), np.eye(2), [np.array([0, 1])], 0.0, [2], rng, n_batches=200, n_samples=20000
    )
    assert s_ind["mean-b-ei"][0, 0] > 1.15 * s["mean-b-ei"][0, 0]


def test_sample_posterior_moments_and_singular_cov():
    rng = np.random.default_rng(4)
    mean, cov = _random_posterior(rng, 3)
    F = sample_posterior(mean, cov, 50000, rng)
    np.testing.assert_allclose(F.mean(axis=1), mean, atol=0.03)
    np.testing.assert_allclose(np.cov(F), cov, atol=0.03)
    F0 = sample_posterior(np.ones(2), np.array([[1.0, 1.0], [1.0, 1.0]]), 10, rng)
    np.testing.assert_allclose(F0[0], F0[1], atol=1e-4)


def test_sampler_b1_converges_to_average_closed_form_ei():
    rng = np.random.default_rng(5)
    X = rng.random((8, 2))
    y = np.sin(5 * X[:, 0]) + X[:, 1]
    gp = GaussianProcess("matern52").fit(X, y, optimize=False)
    inc = float(np.median(y))
    s = predicted_scores_sampler(
        gp,
        lambda n, r: r.random((n, 2)),
        inc,
        [1],
        rng,
        n_batches=1500,
        n_samples=400,
        include_noise=False,
        chunk=500,
    )
    U = rng.random((20000, 2))
    m, v = gp.predict(U)
    ref = expected_improvement(m, np.sqrt(v), inc).mean()
    assert s["mean-b-ei"][0] == pytest.approx(ref, rel=0.1)


# -- faithfulness ------------------------------------------------------------------------------
def test_faithfulness_perfect_reversed_and_constant():
    p = np.array([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0]])
    e = np.array([[10.0, 0.0], [20.0, 0.0], [30.0, 0.0]])
    f = faithfulness(p, e, [1, 5])
    assert f.loc[0, "kendall_tau"] == pytest.approx(1.0)
    assert f.loc[0, "spearman"] == pytest.approx(1.0)
    assert bool(f.loc[0, "top1"]) and f.loc[0, "regret"] == 0
    assert np.isnan(f.loc[1, "kendall_tau"])  # constant empirical score
    f2 = faithfulness(p[:, :1], -e[:, :1], [1])
    assert f2.loc[0, "kendall_tau"] == pytest.approx(-1.0)
    assert not f2.loc[0, "top1"] and f2.loc[0, "regret"] == pytest.approx(20.0)
    with pytest.raises(ValueError, match="n_spaces"):
        faithfulness(p, e[:, :1], [1, 5])
