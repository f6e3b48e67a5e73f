"""Tests of nmthpo.models.gp: kernels, exact posterior, likelihood, fitting, updates."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Matern, WhiteKernel
from threadpoolctl import threadpool_limits

from nmthpo.models.gp import GaussianProcess, get_kernel, matern52, rbf, scaled_sqdist

KERNEL_NAMES = ("matern52", "rbf")


def _data(n: int = 30, d: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))
    y = 10 + 3 * np.sin(5 * X[:, 0]) + 2 * X[:, 1] ** 2 + 0.1 * rng.normal(size=n)
    return X, y, rng.uniform(size=(17, d))


def _sk_kernel(name: str, ls: np.ndarray, var: float) -> object:
    base = Matern(length_scale=ls, nu=2.5) if name == "matern52" else RBF(length_scale=ls)
    return ConstantKernel(var) * base


# -- kernels ---------------------------------------------------------------------------------
def test_kernels_hand_values() -> None:
    X1 = np.array([[0.0, 0.0], [1.0, 0.0]])
    X2 = np.array([[0.0, 0.0], [0.0, 2.0]])
    ls, var = np.array([1.0, 2.0]), 2.0
    # scaled squared distances: [[0, 1], [1, 2]]
    np.testing.assert_allclose(scaled_sqdist(X1, X2, ls), [[0.0, 1.0], [1.0, 2.0]], atol=1e-15)
    s5, s10 = np.sqrt(5.0), np.sqrt(10.0)
    m1 = 2 * (1 + s5 + 5 / 3) * np.exp(-s5)
    m2 = 2 * (1 + s10 + 10 / 3) * np.exp(-s10)
    np.testing.assert_allclose(matern52(X1, X2, ls, var), [[2.0, m1], [m1, m2]], rtol=1e-14)
    e1, e2 = 2 * np.exp(-0.5), 2 * np.exp(-1.0)
    np.testing.assert_allclose(rbf(X1, X2, ls, var), [[2.0, e1], [e1, e2]], rtol=1e-14)
    # X2 omitted -> symmetric with the signal variance on the diagonal
    K = matern52(X1, lengthscales=0.5, variance=3.0)
    np.testing.assert_allclose(np.diag(K), [3.0, 3.0])
    np.testing.assert_allclose(K, K.T)


def test_kernels_agree_with_sklearn() -> None:
    X, _, Xs = _data(d=4)
    ls = np.array([0.2, 0.5, 1.0, 3.0])
    np.testing.assert_allclose(
        matern52(X, Xs, ls, 1.3), 1.3 * Matern(ls, nu=2.5)(X, Xs), rtol=1e-12, atol=1e-14
    )
    np.testing.assert_allclose(rbf(X, Xs, ls, 0.7), 0.7 * RBF(ls)(X, Xs), rtol=1e-12, atol=1e-14)


def test_get_kernel_and_bad_input() -> None:
    assert get_kernel("matern52") is matern52
    assert get_kernel("rbf") is rbf
    with pytest.raises(ValueError, match="valid kernels: matern52, rbf"):
        get_kernel("matern32")
    with pytest.raises(ValueError, match="one entry per input dimension"):
        matern52(np.zeros((2, 3)), lengthscales=np.ones(2))
    with pytest.raises(ValueError, match="same number of columns"):
        rbf(np.zeros((2, 3)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="positive"):
        rbf(np.zeros((2, 2)), lengthscales=0.0)


# -- exact posterior against scikit-learn ------------------------------------------------------
@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_posterior_matches_sklearn(name: str) -> None:
    X, y, Xs = _data()
    ls, var, noise = np.array([0.3, 0.7, 1.5]), 1.7, 0.05
    gp = GaussianProcess(name, lengthscales=ls, variance=var, noise=noise)
    gp.fit(X, y, optimize=False)
    sk = GaussianProcessRegressor(
        _sk_kernel(name, ls, var), alpha=noise, optimizer=None, normalize_y=True
    ).fit(X, y)
    m_sk, s_sk = sk.predict(Xs, return_std=True)
    _, c_sk = sk.predict(Xs, return_cov=True)
    mean, var_ = gp.predict(Xs)
    _, cov = gp.predict(Xs, full_cov=True)
    np.testing.assert_allclose(mean, m_sk, rtol=0, atol=1e-8)
    np.testing.assert_allclose(var_, s_sk**2, rtol=0, atol=1e-8)
    np.testing.assert_allclose(cov, c_sk, rtol=0, atol=1e-8)
    assert gp.log_marginal_likelihood() == pytest.approx(
        sk.log_marginal_likelihood_value_, abs=1e-8
    )
    # with the noise: sklearn's WhiteKernel adds it to the predictive variance
    sk_w = GaussianProcessRegressor(
        _sk_kernel(name, ls, var) + WhiteKernel(noise), optimizer=None, normalize_y=True
    ).fit(X, y)
    _, s_w = sk_w.predict(Xs, return_std=True)
    np.testing.assert_allclose(gp.predict(Xs, include_noise=True)[1], s_w**2, atol=1e-8)


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_incremental_add_equals_refit(name: str) -> None:
    X, y, Xs = _data(n=25)
    hp = {"lengthscales": np.array([0.4, 0.8, 2.0]), "variance": 1.2, "noise": 0.02}
    inc = GaussianProcess(name, **hp).fit(X[:10], y[:10], optimize=False)
    for i in range(10, 25):
        inc.add(X[i], y[i])
    full = GaussianProcess(name, **hp).fit(X, y, optimize=False)
    for a, b in zip(inc.predict(Xs, full_cov=True), full.predict(Xs, full_cov=True), strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-10)
    assert inc.log_marginal_likelihood() == pytest.approx(full.log_marginal_likelihood(), abs=1e-9)
    assert inc.hyperparameters["variance"] == 1.2


def test_add_duplicate_point_stays_finite() -> None:
    X, y, Xs = _data(n=8)
    gp = GaussianProcess(noise=1e-6, fixed=("noise",)).fit(X, y, optimize=False)
    gp.add(X[0], y[0] + 0.01)  # same configuration observed again
    mean, var = gp.predict(Xs)
    assert np.all(np.isfinite(mean)) and np.all(var >= 0)


# -- likelihood and fitting ------------------------------------------------------------------
@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_gradient_matches_finite_difference(name: str) -> None:
    X, y, _ = _data(n=20)
    gp = GaussianProcess(name).fit(X, y, optimize=False)
    theta = np.log([0.3, 0.9, 1.7, 1.4, 0.03])
    value, grad = gp.log_marginal_likelihood(theta, eval_gradient=True)
    h = 1e-6
    fd = np.array(
        [
            (gp.log_marginal_likelihood(theta + h * e) - gp.log_marginal_likelihood(theta - h * e))
            / (2 * h)
            for e in np.eye(theta.size)
        ]
    )
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-6)
    assert value == pytest.approx(gp.log_marginal_likelihood(theta))


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_fitted_likelihood_at_least_sklearn(name: str) -> None:
    X, y, _ = _data(n=40)
    gp = GaussianProcess(name).fit(X, y, rng=np.random.default_rng(0), restarts=2)
    base = (
        Matern(np.full(3, 0.5), (1e-2, 1e2), nu=2.5)
        if name == "matern52"
        else RBF(np.full(3, 0.5), (1e-2, 1e2))
    )
    kernel = ConstantKernel(1.0, (1e-2, 1e2)) * base + WhiteKernel(1e-2, (1e-6, 1.0))
    with warnings.catch_warnings(), threadpool_limits(1):
        warnings.simplefilter("ignore")
        sk = GaussianProcessRegressor(
            kernel, normalize_y=True, n_restarts_optimizer=2, random_state=0
        ).fit(X, y)
    assert gp.log_marginal_likelihood() >= sk.log_marginal_likelihood_value_ - 1e-4
    # and our likelihood evaluated at sklearn's optimum equals sklearn's value
    assert gp.log_marginal_likelihood(sk.kernel_.theta[[1, 2, 3, 0, 4]]) == pytest.approx(
        sk.log_marginal_likelihood_value_, abs=1e-8
    )


def test_fit_is_deterministic_given_rng_and_warm_starts() -> None:
    X, y, _ = _data(n=30)
    a = GaussianProcess().fit(X, y, rng=np.random.default_rng(5), restarts=2)
    b = GaussianProcess().fit(X, y, rng=np.random.default_rng(5), restarts=2)
    np.testing.assert_array_equal(a.theta, b.theta)
    # a warm-started refit on the same data stays at the optimum (likelihood cannot drop)
    before = a.log_marginal_likelihood()
    a.fit(X, y)
    assert a.log_marginal_likelihood() >= before - 1e-9


def test_fixed_hyperparameters_are_kept() -> None:
    X, y, _ = _data(n=20)
    gp = GaussianProcess(noise=0.3, variance=2.0, fixed=("noise", "variance")).fit(X, y)
    hp = gp.hyperparameters
    assert hp["noise"] == 0.3 and hp["variance"] == 2.0
    assert not np.allclose(hp["lengthscales"], 0.5)  # the free ones moved
    bounds = np.exp(gp.log_bounds(3))
    assert np.all(hp["lengthscales"] >= bounds[:3, 0] * (1 - 1e-12))
    assert np.all(hp["lengthscales"] <= bounds[:3, 1] * (1 + 1e-12))


def test_jitter_rescues_singular_kernel() -> None:
    X = np.repeat(np.array([[0.1, 0.2], [0.5, 0.5]]), 3, axis=0)
    y = np.array([1.0, 1.1, 0.9, 2.0, 2.1, 1.9])
    gp = GaussianProcess(lengthscales=50.0, noise=1e-300, noise_bounds=(1e-300, 1.0))
    gp.fit(X, y, optimize=False)
    assert gp._jitter > 0
    mean, var = gp.predict(X)
    assert np.all(np.isfinite(mean)) and np.all(var >= 0)


def test_single_observation_and_units() -> None:
    gp = GaussianProcess(noise=1e-6).fit(np.array([[0.5, 0.5]]), np.array([20.0]), optimize=False)
    mean, var = gp.predict(np.array([[0.5, 0.5], [0.9, 0.1]]))
    assert mean[0] == pytest.approx(20.0)
    assert var[0] == pytest.approx(0.0, abs=1e-5)
    # far from data: prior mean (= the observed mean) and prior variance (std taken as 1)
    far = gp.predict(np.array([[50.0, 50.0]]))
    assert far[0][0] == pytest.approx(20.0) and far[1][0] == pytest.approx(1.0)


def test_bad_input_messages() -> None:
    gp = GaussianProcess()
    with pytest.raises(RuntimeError, match="call fit"):
        gp.predict(np.zeros((1, 2)))
    with pytest.raises(ValueError, match="rng="):
        gp.fit(np.zeros((3, 2)), np.arange(3.0), restarts=1)
    with pytest.raises(ValueError, match="finite"):
        gp.fit(np.zeros((2, 2)), np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="rows"):
        gp.fit(np.zeros((3, 2)), np.arange(2.0))
    with pytest.raises(ValueError, match="fixed must name"):
        GaussianProcess(fixed=("lengthscale",))
    gp.fit(np.zeros((3, 2)) + np.arange(3.0)[:, None], np.arange(3.0), optimize=False)
    with pytest.raises(ValueError, match="columns"):
        gp.predict(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="entries"):
        gp.add(np.zeros(3), 1.0)


# -- fused likelihood (per-dimension squared distances computed once per fit) ------------------
@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_fused_likelihood_and_gradient_equal_the_default(name: str) -> None:
    from nmthpo.models.gp import sqdist_parts

    X, y, _ = _data(n=40, d=4)
    gp = GaussianProcess(name).fit(X, y, optimize=False)
    ys = (y - y.mean()) / y.std()
    parts = sqdist_parts(X)
    assert parts.shape == (4, 40, 40)
    np.testing.assert_array_equal(parts, parts.transpose(0, 2, 1))
    ls = np.array([0.3, 0.9, 1.7, 0.2])
    np.testing.assert_allclose(
        np.tensordot(1 / ls**2, parts, axes=1), scaled_sqdist(X, None, ls), rtol=0, atol=1e-12
    )
    for theta in (np.log([0.3, 0.9, 1.7, 0.2, 1.4, 0.03]), np.log([2.0, 0.1, 0.5, 5.0, 0.3, 1e-4])):
        f0, g0 = gp._nll(theta, X, ys)
        f1, g1 = gp._nll(theta, X, ys, parts=parts)
        assert abs(f1 - f0) <= 1e-10 * max(1.0, abs(f0))
        np.testing.assert_allclose(g1, g0, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_fused_fit_reaches_the_same_optimum(name: str) -> None:
    X, y, Xs = _data(n=40)
    a = GaussianProcess(name).fit(X, y, rng=np.random.default_rng(3), restarts=2)
    b = GaussianProcess(name, fused=True).fit(X, y, rng=np.random.default_rng(3), restarts=2)
    np.testing.assert_allclose(b.theta, a.theta, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(b.predict(Xs)[0], a.predict(Xs)[0], rtol=1e-6, atol=1e-6)


# -- the MAP fit (prior="gamma", bo-ei-map) ---------------------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from nmthpo.models.gp import log_prior  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-4.0, 4.0), min_size=4, max_size=4))
def test_log_prior_gradient_matches_finite_differences(theta):
    theta = np.array(theta)
    value, grad = log_prior(theta, 2)
    eps = 1e-6
    for j in range(4):
        step = np.zeros(4)
        step[j] = eps
        fd = (log_prior(theta + step, 2)[0] - log_prior(theta - step, 2)[0]) / (2 * eps)
        assert fd == pytest.approx(grad[j], rel=1e-5, abs=1e-5)
    assert log_prior(theta, 2, "none") == (0.0, pytest.approx(np.zeros(4)))


def test_the_length_scale_prior_peaks_at_one_and_the_map_fit_stays_off_the_bounds():
    values = [log_prior(np.array([np.log(ls), 0.0, -3.0]), 1)[0] for ls in (0.5, 1.0, 2.0)]
    assert values[1] > values[0] and values[1] > values[2]
    assert values[0] == pytest.approx(values[2])  # symmetric in log l
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(4, 6))  # a few observations cannot determine 6 length scales
    y = rng.normal(size=4)
    ml = GaussianProcess("matern52").fit(X, y, rng=np.random.default_rng(1), restarts=2)
    mp = GaussianProcess("matern52", prior="gamma").fit(
        X, y, rng=np.random.default_rng(1), restarts=2
    )
    low, high = 1e-2, 1e2
    on_bound = lambda ls: np.isclose(ls, low) | np.isclose(ls, high)  # noqa: E731
    assert on_bound(ml.hyperparameters["lengthscales"]).any()
    assert not on_bound(mp.hyperparameters["lengthscales"]).any()
    with pytest.raises(ValueError, match="unknown prior"):
        GaussianProcess("matern52", prior="flat")


@pytest.mark.parametrize("seed", range(12))
def test_likelihood_inner_loop_is_bit_for_bit_the_scipy_composition(seed):
    """_nll calls LAPACK directly and skips scaled_sqdist's checks: the same numbers, bit for
    bit, as the kernel, scipy.linalg.cholesky and cho_solve (the book's cached runs' path)."""
    from scipy.linalg import cho_solve, cholesky

    from nmthpo.models.gp import _LOG_2PI, _robust_cholesky

    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(1, 60)), int(rng.integers(1, 8))
    X = rng.uniform(size=(n, d))
    ys = rng.normal(size=n)
    theta = np.log(np.r_[rng.uniform(0.01, 10, d), rng.uniform(0.1, 10), rng.uniform(1e-6, 1)])
    gp = GaussianProcess("matern52" if seed % 2 else "rbf")
    gp._ensure_dim(d)
    nll, _ = gp._nll(theta, X, ys)
    ls, var, noise = np.exp(theta[:d]), np.exp(theta[d]), np.exp(theta[d + 1])
    K = get_kernel(gp.kernel)(X, None, ls, var)
    K[np.diag_indices(n)] += noise
    L = cholesky(K, lower=True, check_finite=False)
    alpha = cho_solve((L, True), ys, check_finite=False)
    ref = 0.5 * float(ys @ alpha) + float(np.sum(np.log(np.diag(L)))) + 0.5 * n * _LOG_2PI
    assert nll == ref
    L2, jitter = _robust_cholesky(K)
    assert jitter == 0.0
    np.testing.assert_array_equal(L2, L)
