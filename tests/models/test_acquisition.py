"""Tests of nmthpo.models.acquisition: EI and PI against hand values and Monte Carlo."""

from __future__ import annotations

import numpy as np
import pytest

from nmthpo.models.acquisition import expected_improvement, probability_of_improvement

PHI0 = 0.3989422804014327  # standard normal density at 0
PHI1 = 0.24197072451914337  # density at 1
CDF1 = 0.8413447460685429  # cdf at 1


def test_ei_hand_values() -> None:
    # u = 0: EI = std * phi(0)
    assert expected_improvement(1.0, 1.0, 1.0) == pytest.approx(PHI0, rel=1e-14)
    assert expected_improvement(5.0, 2.0, 5.0) == pytest.approx(2 * PHI0, rel=1e-14)
    # u = 1, std = 1: 1 * Phi(1) + phi(1)
    assert expected_improvement(2.0, 1.0, 1.0) == pytest.approx(CDF1 + PHI1, rel=1e-14)
    # u = -1, std = 1: -(1 - Phi(1)) + phi(1)
    assert expected_improvement(0.0, 1.0, 1.0) == pytest.approx(PHI1 - (1 - CDF1), rel=1e-12)
    # xi shifts the incumbent: EI(mean, std, best, xi) = EI(mean, std, best + xi)
    assert expected_improvement(2.0, 1.0, 0.5, xi=0.5) == pytest.approx(CDF1 + PHI1)


def test_ei_zero_std_is_exact_improvement() -> None:
    ei = expected_improvement(np.array([3.0, 1.0, 2.0]), np.zeros(3), 2.0)
    np.testing.assert_array_equal(ei, [1.0, 0.0, 0.0])
    mixed = expected_improvement(np.array([3.0, 2.0]), np.array([0.0, 1.0]), 2.0)
    np.testing.assert_allclose(mixed, [1.0, PHI0])


def test_ei_matches_monte_carlo() -> None:
    rng = np.random.default_rng(0)
    mean, std, best = np.array([0.3, -0.5, 1.2]), np.array([0.8, 1.5, 0.1]), 0.5
    draws = mean + std * rng.standard_normal((400_000, 3))
    imp = np.maximum(draws - best, 0.0)
    mc, se = imp.mean(axis=0), imp.std(axis=0) / np.sqrt(len(imp))
    assert np.all(np.abs(expected_improvement(mean, std, best) - mc) < 4 * se)
    pi_mc = (draws > best).mean(axis=0)
    np.testing.assert_allclose(probability_of_improvement(mean, std, best), pi_mc, atol=4e-3)


def test_ei_is_eq3_for_minimisation() -> None:
    # Eq. 3 (minimisation): EI = (f_min - mu) Phi(z) + s phi(z), z = (f_min - mu) / s
    mu, s, fmin = np.array([0.2, 0.7]), np.array([0.3, 0.1]), 0.5
    z = (fmin - mu) / s
    from scipy.stats import norm

    eq3 = (fmin - mu) * norm.cdf(z) + s * norm.pdf(z)
    np.testing.assert_allclose(expected_improvement(-mu, s, -fmin), eq3, rtol=1e-13)


def test_ei_properties_and_tails() -> None:
    mean = np.linspace(-3, 3, 61)
    ei = expected_improvement(mean, 1.0, 0.0)
    assert np.all(np.diff(ei) > 0)  # increasing in the mean
    assert np.all(ei >= np.maximum(mean, 0.0))  # at least the plug-in improvement
    far = expected_improvement(np.array([-1e3]), np.array([1e-3]), 0.0)
    assert far[0] == 0.0  # far lower tail: exactly 0, never negative
    assert expected_improvement(np.ones((2, 3)), 1.0, 0.0).shape == (2, 3)


def test_pi_hand_values() -> None:
    assert probability_of_improvement(1.0, 2.0, 1.0) == pytest.approx(0.5)
    assert probability_of_improvement(2.0, 1.0, 1.0) == pytest.approx(CDF1, rel=1e-14)
    assert probability_of_improvement(2.0, 1.0, 0.0, xi=1.0) == pytest.approx(CDF1, rel=1e-14)
    np.testing.assert_array_equal(
        probability_of_improvement(np.array([3.0, 2.0, 1.0]), 0.0, 2.0), [1.0, 0.0, 0.0]
    )


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="std must be >= 0"):
        expected_improvement(1.0, -1.0, 0.0)
    with pytest.raises(ValueError, match="broadcastable"):
        probability_of_improvement(np.ones(2), np.ones(3), 0.0)
    with pytest.raises(ValueError, match="best must be a finite"):
        expected_improvement(1.0, 1.0, float("nan"))
