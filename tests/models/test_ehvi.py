import moocore
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nmthpo.engine.metrics import hypervolume_curve
from nmthpo.models.ehvi import (
    ehvi,
    ehvi_monte_carlo,
    hypervolume_2d,
    hypervolume_improvement,
    hypervolume_trace,
    nondominated_front,
    reference_from_observations,
    to_minimisation,
)

PHI0 = 1.0 / np.sqrt(2.0 * np.pi)


def test_hypervolume_hand_computed():
    # staircase of (1, 3), (2, 1) with ref (4, 4): 3 * 1 + 2 * 2 = 7 (sum of strips)
    assert hypervolume_2d(np.array([[1.0, 3.0], [2.0, 1.0]]), np.array([4.0, 4.0])) == 7.0
    # a dominated point and a point outside the box add nothing
    pts = np.array([[1.0, 3.0], [2.0, 1.0], [3.0, 3.5], [5.0, 0.0]])
    assert hypervolume_2d(pts, np.array([4.0, 4.0])) == 7.0
    assert hypervolume_2d(np.zeros((0, 2)), np.array([1.0, 1.0])) == 0.0


def test_nondominated_front_sorted_and_filtered():
    pts = np.array([[2.0, 1.0], [1.0, 3.0], [1.0, 3.0], [1.0, 4.0], [3.0, 3.0], [0.5, 9.0]])
    f = nondominated_front(pts, np.array([4.0, 5.0]))
    np.testing.assert_array_equal(f, [[1.0, 3.0], [2.0, 1.0]])
    f_all = nondominated_front(pts)
    np.testing.assert_array_equal(f_all, [[0.5, 9.0], [1.0, 3.0], [2.0, 1.0]])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 25))
def test_hypervolume_and_improvement_equal_moocore(seed, n):
    rng = np.random.default_rng(seed)
    pts = rng.uniform(size=(n, 2))
    ref = np.array([1.05, 1.1])
    assert hypervolume_2d(pts, ref) == pytest.approx(moocore.hypervolume(pts, ref=ref), abs=1e-12)
    cand = rng.uniform(-0.2, 1.2, size=(6, 2))
    base = moocore.hypervolume(pts, ref=ref)
    want = [moocore.hypervolume(np.vstack([pts, c]), ref=ref) - base for c in cand]
    np.testing.assert_allclose(hypervolume_improvement(cand, pts, ref), want, atol=1e-12)


def test_hypervolume_trace_equals_metrics_curve():
    rng = np.random.default_rng(3)
    bleu = rng.uniform(5, 25, size=30)
    time = rng.uniform(200, 900, size=30)
    ref = np.array([-4.0, 1000.0])
    got = hypervolume_trace(to_minimisation(bleu, time), ref)
    np.testing.assert_allclose(got, hypervolume_curve(np.arange(30), bleu, time, ref), rtol=1e-12)


def test_ehvi_hand_computed_empty_front():
    # empty front: EHVI = psi(r1) psi(r2); with the mean at the reference, psi = sigma phi(0)
    val = ehvi(
        np.array([[1.0, 2.0]]), np.array([[1.0, 2.0]]), np.zeros((0, 2)), np.array([1.0, 2.0])
    )
    assert val[0] == pytest.approx(PHI0 * 2.0 * PHI0, rel=1e-14)


def test_ehvi_deterministic_limit_is_moocore_improvement():
    rng = np.random.default_rng(0)
    for _ in range(5):
        front = rng.uniform(size=(7, 2))
        ref = np.array([1.2, 1.1])
        mean = rng.uniform(-0.1, 1.2, size=(20, 2))
        base = moocore.hypervolume(front, ref=ref)
        want = [moocore.hypervolume(np.vstack([front, m]), ref=ref) - base for m in mean]
        np.testing.assert_allclose(ehvi(mean, np.zeros_like(mean), front, ref), want, atol=1e-12)
        # continuity: a tiny sigma gives (almost) the same value
        np.testing.assert_allclose(
            ehvi(mean, np.full_like(mean, 1e-9), front, ref), want, atol=1e-8
        )


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_ehvi_matches_monte_carlo(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 9))
    front = nondominated_front(rng.uniform(size=(3 * k, 2)))
    ref = np.array([1.1, 1.15])
    mean = rng.uniform(0.0, 1.1, size=(5, 2))
    std = rng.uniform(0.02, 0.5, size=(5, 2))
    exact = ehvi(mean, std, front, ref)
    est, se = ehvi_monte_carlo(mean, std, front, ref, 200_000, rng)
    assert np.all(np.abs(exact - est) <= 5.0 * se + 1e-12)


def test_ehvi_is_nonnegative_and_monotone_in_mean():
    front = np.array([[0.2, 0.8], [0.5, 0.4], [0.8, 0.1]])
    ref = np.array([1.0, 1.0])
    xs = np.linspace(-0.5, 1.5, 41)
    vals = ehvi(np.column_stack([xs, np.full_like(xs, 0.3)]), np.full((41, 2), 0.1), front, ref)
    assert np.all(vals >= 0)
    assert np.all(np.diff(vals) <= 1e-15)  # a larger f1 (worse) never helps


def test_input_errors():
    with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
        ehvi(np.zeros((3, 3)), np.zeros((3, 3)), np.zeros((0, 2)), np.zeros(2))
    with pytest.raises(ValueError, match="std must have the shape"):
        ehvi(np.zeros((3, 2)), np.zeros((2, 2)), np.zeros((0, 2)), np.zeros(2))
    with pytest.raises(ValueError, match=">= 0"):
        ehvi(np.zeros((1, 2)), -np.ones((1, 2)), np.zeros((0, 2)), np.zeros(2))
    with pytest.raises(ValueError, match="ref must be"):
        hypervolume_2d(np.zeros((1, 2)), np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="NaN"):
        hypervolume_2d(np.array([[np.nan, 1.0]]), np.ones(2))
    with pytest.raises(ValueError, match="positive decoding times"):
        to_minimisation(np.ones(2), np.array([1.0, 0.0]), log_time=True)
    with pytest.raises(ValueError, match="at least one"):
        reference_from_observations(np.zeros((0, 2)))


def test_reference_from_observations():
    pts = np.array([[-20.0, 5.0], [-10.0, 6.0]])
    np.testing.assert_allclose(reference_from_observations(pts, 0.1), [-9.0, 6.1])
    # zero range: margin relative to max(|max|, 1)
    np.testing.assert_allclose(reference_from_observations(pts[:1], 0.1), [-18.0, 5.5])
    ref = reference_from_observations(pts)
    assert np.all(pts < ref)
