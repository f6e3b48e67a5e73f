"""Tests of the lattice pattern search (nmthpo.models.lattice) and the GP's ``search="lattice"``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nmthpo.models.gp import GaussianProcess
from nmthpo.models.lattice import COLD_STEPS, lattice_minimize, margin, snap

BOX = np.array([[-4.0, 4.0], [-4.0, 4.0], [-6.0, 1.0]])


def _quadratic(centre: np.ndarray, scale: np.ndarray):
    """The batched objective ``values(points)`` of a separable quadratic."""
    return lambda P: np.sum(scale * (np.asarray(P) - centre) ** 2, axis=1)


def test_snap_rounds_to_the_lattice_and_clips() -> None:
    got = snap(np.array([0.3, -0.07, 9.0]), 0.125, BOX)
    np.testing.assert_array_equal(got, [0.25, -0.125, 1.0])
    with pytest.raises(ValueError, match="step"):
        snap(np.zeros(3), 0.0, BOX)


def test_finds_the_lattice_point_nearest_a_quadratic_minimum() -> None:
    centre = np.array([1.3, -2.2, -3.05])
    res = lattice_minimize(_quadratic(centre, np.ones(3)), np.zeros(3), BOX)
    np.testing.assert_array_equal(res.x, snap(centre, COLD_STEPS[-1], BOX))
    assert res.evaluations > 0


def test_stops_at_a_bound() -> None:
    res = lattice_minimize(_quadratic(np.array([9.0, 0.0, 0.0]), np.ones(3)), np.zeros(3), BOX)
    assert res.x[0] == 4.0


def test_non_finite_values_are_never_an_improvement() -> None:
    def f(P: np.ndarray) -> np.ndarray:
        return np.where(P[:, 0] > 0.5, np.nan, np.sum((P - 2.0) ** 2, axis=1))

    res = lattice_minimize(f, np.zeros(3), BOX)
    assert res.x[0] <= 0.5 and np.isfinite(res.fun)


def test_the_margin_is_relative_to_the_value() -> None:
    assert margin(0.5, 1e-6) == 1e-6 and margin(5.0, 1e-6) == pytest.approx(5e-6)
    assert margin(-2.6e5, 1e-6) == pytest.approx(0.26)
    assert margin(np.inf, 1e-6) == 1e-6


def test_bad_arguments_are_refused() -> None:
    f = _quadratic(np.zeros(3), np.ones(3))
    with pytest.raises(ValueError, match="decreasing"):
        lattice_minimize(f, np.zeros(3), BOX, steps=(0.5, 1.0))
    with pytest.raises(ValueError, match="tol"):
        lattice_minimize(f, np.zeros(3), BOX, tol=0.0)
    with pytest.raises(ValueError, match="bounds"):
        lattice_minimize(f, np.zeros(3), BOX[:, ::-1])


@settings(max_examples=60, deadline=None)
@given(
    centre=st.lists(st.floats(-3.5, 0.5), min_size=3, max_size=3),
    scale=st.lists(st.floats(0.05, 20.0), min_size=3, max_size=3),
    flat=st.floats(0.0, 1e-7),
    offset=st.sampled_from([0.0, 1e3, 3e5]),
    seed=st.integers(0, 2**32 - 1),
)
def test_noise_far_below_the_tolerance_never_changes_the_end_point(
    centre: list[float], scale: list[float], flat: float, offset: float, seed: int
) -> None:
    """The property the module exists for: the same end point under relative evaluation
    noise of 1e-11 (a BLAS kernel's rounding), also on an almost flat direction (``flat``) and
    at large values (``offset``: a likelihood of 2.6e5 nats was seen to differ by 1e-5 nats
    between two orders of the same operations, more than an absolute margin of 1e-6)."""
    c, w = np.array(centre), np.array(scale)
    w[2] = flat  # a ridge: the last coordinate hardly matters
    quad = _quadratic(c, w)

    def f(P: np.ndarray) -> np.ndarray:
        return quad(P) + offset

    rng = np.random.default_rng(seed)

    def noisy(P: np.ndarray) -> np.ndarray:
        return f(P) * (1.0 + 1e-11 * rng.standard_normal(len(P)))

    a = lattice_minimize(f, np.zeros(3), BOX)
    b = lattice_minimize(noisy, np.zeros(3), BOX)
    np.testing.assert_array_equal(a.x, b.x)


def _data(n: int = 30, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 4))
    return X, np.sin(5 * X[:, 0]) + X[:, 1] + 0.05 * rng.standard_normal(n)


def test_gp_lattice_fit_ends_on_the_lattice_and_is_close_to_lbfgsb() -> None:
    X, y = _data()
    lat = GaussianProcess(search="lattice").fit(X, y, rng=np.random.default_rng(1), restarts=2)
    ref = GaussianProcess().fit(X, y, rng=np.random.default_rng(1), restarts=2)
    bounds = lat.log_bounds(X.shape[1])
    theta = lat.theta
    on = np.isclose(theta, snap(theta, COLD_STEPS[-1], bounds), rtol=0, atol=1e-12)
    assert on.all()
    # within a few nats of the L-BFGS-B optimum (the lattice is 1/8 in log units)
    assert lat.log_marginal_likelihood() > ref.log_marginal_likelihood() - 3.0


def test_gp_lattice_fit_is_unchanged_by_noise_in_the_targets_bits() -> None:
    """Targets that differ in their last bits (what another CPU's arithmetic gives) fit the
    same hyperparameters; L-BFGS-B need not."""
    X, y = _data(40, 3)
    y2 = y * (1.0 + 1e-14 * np.random.default_rng(9).standard_normal(y.size))
    a = GaussianProcess(search="lattice").fit(X, y, rng=np.random.default_rng(2), restarts=1)
    b = GaussianProcess(search="lattice").fit(X, y2, rng=np.random.default_rng(2), restarts=1)
    np.testing.assert_array_equal(a.theta, b.theta)


@pytest.mark.parametrize("kernel", ["matern52", "rbf"])
@pytest.mark.parametrize("prior", ["none", "gamma"])
def test_stacked_likelihood_equals_the_single_one(kernel: str, prior: str) -> None:
    from nmthpo.models.gp import sqdist_parts

    X, y = _data(25, 4)
    ys = (y - y.mean()) / y.std()
    gp = GaussianProcess(kernel, prior=prior)
    thetas = np.random.default_rng(5).normal(scale=0.7, size=(9, X.shape[1] + 2))
    thetas[0, -1] = np.log(1e-6)  # the smallest noise: the border term is largest
    got = gp._objective_values(thetas, X, ys, sqdist_parts(X))
    want = [gp._objective(t, X, ys, grad=False)[0] for t in thetas]
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-9)


@pytest.mark.parametrize("n", [5, 200])
def test_stacked_cholesky_is_the_lower_factor_or_none(n: int) -> None:
    """One matrix goes to LAPACK in place, several to NumPy: the same lower factor; ``None``
    for a matrix that is not positive definite."""
    from nmthpo.models.gp import _stacked_cholesky

    A = np.random.default_rng(n).standard_normal((3, n, n))
    A = A @ A.transpose(0, 2, 1) + n * np.eye(n)
    want = np.linalg.cholesky(A)
    for stack in (A[:1].copy(), A.copy()):
        got = _stacked_cholesky(stack)
        assert got is not None
        np.testing.assert_allclose(np.tril(got), want[: len(stack)], rtol=1e-12, atol=1e-12)
    bad = A[:1].copy()
    bad[0, 0, 0] = -1.0
    assert _stacked_cholesky(bad) is None and _stacked_cholesky(np.concatenate([A, bad])) is None


def test_gp_refuses_an_unknown_search() -> None:
    with pytest.raises(ValueError, match="unknown search"):
        GaussianProcess(search="newton")
