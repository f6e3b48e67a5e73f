"""Tests for nmthpo.models.lbfgsb: the lean L-BFGS-B driver visits SciPy's points exactly."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from nmthpo.models import lbfgsb
from nmthpo.models.gp import GaussianProcess
from nmthpo.models.lbfgsb import minimize_lbfgsb


def _scipy(fun, x0, bounds, maxiter):
    res = minimize(
        fun, x0, jac=True, method="L-BFGS-B", bounds=bounds, options={"maxiter": maxiter}
    )
    return res.x, float(res.fun)


def _likelihood(seed: int):
    """A GP's negative log likelihood on random data, its start and bounds (as gp.py fits)."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(3, 40)), int(rng.integers(1, 7))
    X = rng.uniform(size=(n, d))
    y = np.sin(5 * X[:, 0]) + 0.3 * rng.normal(size=n)
    ys = (y - y.mean()) / y.std()
    gp = GaussianProcess("matern52" if seed % 2 else "rbf")
    gp._ensure_dim(d)
    bounds = gp.log_bounds(d)
    x0 = rng.uniform(bounds[:, 0], bounds[:, 1])
    return (lambda th: gp._objective(th, X, ys)), x0, bounds


@pytest.mark.parametrize("seed", range(40))
def test_same_optimum_bit_for_bit_as_scipy_minimize(seed):
    fun, x0, bounds = _likelihood(seed)
    for maxiter in (3, 200):
        x_ref, f_ref = _scipy(fun, x0, bounds, maxiter)
        x, f = minimize_lbfgsb(fun, x0, bounds, maxiter)
        assert f == f_ref
        np.testing.assert_array_equal(x, x_ref)


def test_active_bounds_and_start_outside_them():
    def fun(x):
        return float(np.sum((x - 3.0) ** 2)), 2.0 * (x - 3.0)

    bounds = np.array([[-1.0, 1.0], [0.0, 5.0]])
    x, f = minimize_lbfgsb(fun, np.array([-4.0, 9.0]), bounds, 200)
    x_ref, f_ref = _scipy(fun, np.array([-4.0, 9.0]), bounds, 200)
    np.testing.assert_array_equal(x, x_ref)
    assert f == f_ref
    np.testing.assert_allclose(x, [1.0, 3.0])


def test_a_fixed_variable_takes_scipys_own_path():
    # minimize removes a variable whose bounds coincide; the driver hands such a box to it
    def fun(x):
        return float(np.sum((x - 0.5) ** 2)), 2.0 * (x - 0.5)

    bounds = np.array([[0.2, 0.2], [0.0, 1.0]])
    x, f = minimize_lbfgsb(fun, np.array([0.2, 0.9]), bounds, 50)
    x_ref, f_ref = _scipy(fun, np.array([0.2, 0.9]), bounds, 50)
    np.testing.assert_array_equal(x, x_ref)


def test_without_the_compiled_routine_it_calls_minimize(monkeypatch):
    fun, x0, bounds = _likelihood(7)
    monkeypatch.setattr(lbfgsb, "_setulb", lambda: None)
    x, f = minimize_lbfgsb(fun, x0, bounds, 200)
    x_ref, f_ref = _scipy(fun, x0, bounds, 200)
    np.testing.assert_array_equal(x, x_ref)
    assert f == f_ref
