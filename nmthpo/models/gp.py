"""Exact Gaussian-process regression (Zhang & Duh 2020, Section 5.1, Eqs. 1-2, footnote 11).

The posterior predictive of a zero-mean GP with kernel ``k`` and Gaussian noise is (Eqs. 1-2)

.. math::

    \\mu(\\lambda) = K_\\star^\\top (K + \\sigma_n^2 I)^{-1} y, \\qquad
    \\Sigma(\\lambda) = k(\\lambda, \\lambda) - K_\\star^\\top (K + \\sigma_n^2 I)^{-1} K_\\star .

Contents

* Kernels: :func:`matern52` (Matérn, nu = 5/2) and :func:`rbf` (squared exponential), both with
  ARD length scales and a signal variance, as pure functions returning kernel matrices, and
  :func:`get_kernel` to look one up by name (the paper's footnote 15 names the two).
* :class:`GaussianProcess`: exact GP with a zero prior mean on *standardised* targets
  (footnote 11 assumes a zero prior mean; we apply it after subtracting the targets' mean and
  dividing by their standard deviation, and return predictions in the original units),
  hyperparameters fitted by maximising the log marginal likelihood with analytic gradients.

When hyperparameters are re-optimised during a run (and with how many random restarts) is not
this module's business: :mod:`nmthpo.models.refit` holds the one schedule every optimiser uses.

Why hand-written and not scikit-learn's ``GaussianProcessRegressor``: a BO run on a lookup
table fits one GP per step on a training set that grows by one row. We (a) extend the Cholesky
factor by one row in O(n^2) when hyperparameters are kept (:meth:`GaussianProcess.add`) and
(b) warm-start the hyperparameter search from the previous step's optimum; scikit-learn refits
from scratch every time (O(n^3) per likelihood evaluation from its default starting point, plus
an (n, n, d) gradient tensor). The paper itself used the George library (Ambikasaran et al.,
2014); the numbers are the textbook exact-GP formulas (Rasmussen & Williams 2006, Alg. 2.1 and
Eq. 5.9), so any correct implementation gives the same posterior for the same hyperparameters
(the tests check this against scikit-learn to 1e-8).
"""

from __future__ import annotations

import contextlib
import copy
import functools
from collections.abc import Callable, Collection, Iterator
from typing import Any

import numpy as np
from scipy.linalg import LinAlgError, cholesky, lapack, solve_triangular

from nmthpo.models.lattice import COARSE_STEPS, FINE_STEPS, WARM_STEPS, lattice_minimize, margin
from nmthpo.models.lbfgsb import minimize_lbfgsb

__all__ = [
    "KERNELS",
    "PRIORS",
    "SEARCHES",
    "GaussianProcess",
    "get_kernel",
    "inverse_from_cholesky",
    "log_prior",
    "matern52",
    "rbf",
    "scaled_sqdist",
    "sqdist_parts",
]

_SQRT5 = float(np.sqrt(5.0))
_LOG_2PI = float(np.log(2.0 * np.pi))


# ================================================================================================
# Kernels
# ================================================================================================
def _as_2d(X: np.ndarray, name: str) -> np.ndarray:
    A = np.asarray(X, dtype=float)
    if A.ndim == 1:
        A = A[None, :]
    if A.ndim != 2:
        raise ValueError(f"{name} must be a 2-d array of shape (n, d); got shape {A.shape}")
    return A


def _lengthscale_vector(lengthscales: float | np.ndarray, d: int) -> np.ndarray:
    ls = np.asarray(lengthscales, dtype=float)
    if ls.ndim == 0:
        ls = np.full(d, float(ls))
    if ls.shape != (d,):
        raise ValueError(
            f"lengthscales must be a scalar or have one entry per input dimension ({d}); "
            f"got shape {ls.shape}"
        )
    if not np.all(ls > 0):
        raise ValueError(f"lengthscales must be positive; got {ls}")
    return ls


def scaled_sqdist(
    X1: np.ndarray, X2: np.ndarray | None, lengthscales: float | np.ndarray
) -> np.ndarray:
    """Squared Euclidean distances after dividing each input dimension by its length scale.

    Parameters
    ----------
    X1 : ndarray of shape (n1, d)
    X2 : ndarray of shape (n2, d) or None
        ``None`` means ``X2 = X1`` (the diagonal is then exactly zero).
    lengthscales : float or ndarray of shape (d,)
        ARD length scales (a scalar is shared by all dimensions).

    Returns
    -------
    ndarray of shape (n1, n2)
        ``r2[i, j] = sum_k ((X1[i, k] - X2[j, k]) / lengthscales[k]) ** 2``, clipped at 0.

    Notes
    -----
    Vectorised through ``|a|^2 + |b|^2 - 2 a.b`` (one matrix product), not an (n1, n2, d)
    broadcast; rounding can make tiny distances negative, hence the clip.
    """
    A = _as_2d(X1, "X1")
    same = X2 is None
    B = A if X2 is None else _as_2d(X2, "X2")
    if A.shape[1] != B.shape[1]:
        raise ValueError(
            f"X1 and X2 must have the same number of columns; got {A.shape[1]} and {B.shape[1]}"
        )
    ls = _lengthscale_vector(lengthscales, A.shape[1])
    if same:
        return _sqdist_self(A, ls)
    A = A / ls
    B = B / ls
    a2 = np.einsum("ij,ij->i", A, A)
    b2 = np.einsum("ij,ij->i", B, B)
    r2 = a2[:, None] + b2[None, :] - 2.0 * (A @ B.T)
    np.maximum(r2, 0.0, out=r2)
    return r2


def _sqdist_self(X: np.ndarray, ls: np.ndarray) -> np.ndarray:
    """``scaled_sqdist(X, None, ls)`` without its argument checks (which it calls after
    checking them): the likelihood's inner loop calls it directly."""
    A = X / ls
    a2 = np.einsum("ij,ij->i", A, A)
    r2 = a2[:, None] + a2[None, :] - 2.0 * (A @ A.T)
    np.maximum(r2, 0.0, out=r2)
    np.fill_diagonal(r2, 0.0)
    return r2


def sqdist_parts(X: np.ndarray) -> np.ndarray:
    """Per-dimension squared differences ``D[k, i, j] = (X[i, k] - X[j, k]) ** 2``.

    Computed once per hyperparameter fit by the fused likelihood (``GaussianProcess(...,
    fused=True)``): for any length scales ``r^2 = sum_k D_k / l_k^2`` is then one
    matrix-vector product, and so is the length-scale gradient ``tr(M D_k) / l_k^2`` of
    R&W Eq. 5.9 (``M = W * G``, see ``GaussianProcess._nll``).

    Parameters
    ----------
    X : ndarray of shape (n, d)

    Returns
    -------
    ndarray of shape (d, n, n)
        C-contiguous, exactly symmetric in the last two axes with a zero diagonal.
    """
    A = _as_2d(X, "X")
    T = np.ascontiguousarray(A.T)
    D = T[:, :, None] - T[:, None, :]
    D *= D
    return D


def _fused_r2(parts: np.ndarray, ls: np.ndarray) -> np.ndarray:
    """``r^2 = sum_k D_k / l_k^2`` from :func:`sqdist_parts` (one gemv over n^2 entries)."""
    d, n, _ = parts.shape
    return (1.0 / (ls * ls) @ parts.reshape(d, n * n)).reshape(n, n)


def _matern52_from_r2(r2: np.ndarray, variance: float) -> tuple[np.ndarray, np.ndarray]:
    """Matérn-5/2 values and the factor ``G`` with dK/dlog(l_k) = G * D_k (see ``_nll``)."""
    s = np.sqrt(r2)
    s *= _SQRT5  # sqrt(5) r
    e = np.negative(s)
    np.exp(e, out=e)
    e *= variance  # variance * exp(-sqrt5 r)
    s += 1.0
    s *= e  # (1 + sqrt5 r) * e
    K = r2 * e
    K *= 5.0 / 3.0
    K += s
    s *= 5.0 / 3.0
    return K, s


def _rbf_from_r2(r2: np.ndarray, variance: float) -> tuple[np.ndarray, np.ndarray]:
    """RBF values and the factor ``G`` with dK/dlog(l_k) = G * D_k (here G = K)."""
    K = variance * np.exp(-0.5 * r2)
    return K, K


def _matern52_into(r2: np.ndarray, variance: np.ndarray, out: np.ndarray) -> None:
    """Matérn-5/2 values ``variance (1 + s + s^2 / 3) exp(-s)``, ``s = sqrt(5 r^2)``, written to
    ``out`` (``r2`` is overwritten): the values alone, in fewer passes than
    :func:`_matern52_from_r2` (the lattice search needs no gradient factor)."""
    np.multiply(r2, 5.0, out=r2)
    np.sqrt(r2, out=r2)  # s
    e = np.negative(r2)
    np.exp(e, out=e)
    w = np.multiply(r2, r2)
    w *= 1.0 / 3.0
    w += r2
    w += 1.0
    w *= e
    np.multiply(w, variance, out=out)


def _rbf_into(r2: np.ndarray, variance: np.ndarray, out: np.ndarray) -> None:
    """RBF values ``variance exp(-r^2 / 2)`` written to ``out`` (``r2`` is overwritten)."""
    np.multiply(r2, -0.5, out=r2)
    np.exp(r2, out=r2)
    np.multiply(r2, variance, out=out)


#: Kernel values alone, into a given array (the lattice search's stacked evaluation).
_KERNEL_INTO: dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray], None]] = {
    "matern52": _matern52_into,
    "rbf": _rbf_into,
}

_FROM_R2: dict[str, Callable[[np.ndarray, float], tuple[np.ndarray, np.ndarray]]] = {
    "matern52": _matern52_from_r2,
    "rbf": _rbf_from_r2,
}


def matern52(
    X1: np.ndarray,
    X2: np.ndarray | None = None,
    lengthscales: float | np.ndarray = 1.0,
    variance: float = 1.0,
) -> np.ndarray:
    """Matérn kernel with nu = 5/2 and ARD length scales (Zhang & Duh 2020, footnote 15).

    ``k(x, x') = variance * (1 + sqrt(5) r + 5 r^2 / 3) * exp(-sqrt(5) r)`` with
    ``r^2 = sum_k (x_k - x'_k)^2 / l_k^2`` (Rasmussen & Williams 2006, Eq. 4.17).

    Parameters
    ----------
    X1 : ndarray of shape (n1, d)
    X2 : ndarray of shape (n2, d), optional
        Defaults to ``X1``.
    lengthscales : float or ndarray of shape (d,)
    variance : float
        Signal variance ``k(x, x)``.

    Returns
    -------
    ndarray of shape (n1, n2)
    """
    return _matern52_from_r2(scaled_sqdist(X1, X2, lengthscales), float(variance))[0]


def rbf(
    X1: np.ndarray,
    X2: np.ndarray | None = None,
    lengthscales: float | np.ndarray = 1.0,
    variance: float = 1.0,
) -> np.ndarray:
    """Squared-exponential (RBF) kernel with ARD length scales (Zhang & Duh 2020, footnote 15).

    ``k(x, x') = variance * exp(-r^2 / 2)`` with ``r^2 = sum_k (x_k - x'_k)^2 / l_k^2``.

    Parameters
    ----------
    X1 : ndarray of shape (n1, d)
    X2 : ndarray of shape (n2, d), optional
        Defaults to ``X1``.
    lengthscales : float or ndarray of shape (d,)
    variance : float
        Signal variance ``k(x, x)``.

    Returns
    -------
    ndarray of shape (n1, n2)
    """
    return _rbf_from_r2(scaled_sqdist(X1, X2, lengthscales), float(variance))[0]


KernelFunction = Callable[..., np.ndarray]

#: Kernel functions by name: ``KERNELS[name](X1, X2, lengthscales, variance)``.
KERNELS: dict[str, KernelFunction] = {"matern52": matern52, "rbf": rbf}


def get_kernel(name: str) -> KernelFunction:
    """The kernel function called ``name`` (``"matern52"`` or ``"rbf"``).

    Raises
    ------
    ValueError
        For an unknown name; the message lists the valid names.
    """
    if name not in KERNELS:
        raise ValueError(f"unknown kernel {name!r}; valid kernels: {', '.join(sorted(KERNELS))}")
    return KERNELS[name]


# ================================================================================================
# Numerical helpers
# ================================================================================================
_BLAS_CONTROLLER: Any = None


@contextlib.contextmanager
def _single_blas_thread() -> Iterator[None]:
    """Run the enclosed block with one BLAS thread (threadpoolctl), if available.

    The likelihood search makes hundreds of small factorisations; multithreaded OpenBLAS
    spin-waits between them and on a busy machine made a 40-point fit 20x slower in our
    measurements. Used by ``fit`` and ``predict`` (matrices of at most a few thousand rows
    here). The limit is process-wide while active (a performance effect only).
    """
    global _BLAS_CONTROLLER
    if _BLAS_CONTROLLER is None:
        try:
            from threadpoolctl import ThreadpoolController

            _BLAS_CONTROLLER = ThreadpoolController()
        except Exception:  # noqa: BLE001 - threadpoolctl missing or broken: no limit
            _BLAS_CONTROLLER = False
    if _BLAS_CONTROLLER is False:
        yield
        return
    with _BLAS_CONTROLLER.limit(limits=1, user_api="blas"):
        yield


_DPOTRF = lapack.dpotrf
_DPOTRS = lapack.dpotrs
_JITTERS = (0.0, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4)


def _robust_cholesky(K: np.ndarray) -> tuple[np.ndarray, float]:
    """Lower Cholesky factor of ``K + jitter * mean(diag K) * I`` with escalating jitter.

    Returns the factor and the absolute jitter added (0 when ``K`` itself factorises).
    """
    if K.size == 0:
        return cholesky(K, lower=True, check_finite=False), 0.0
    scale = 0.0
    for rel in _JITTERS:
        if rel and not scale:
            scale = float(np.mean(np.diag(K)))
        jitter = rel * scale
        Kj = K if jitter == 0.0 else K + jitter * np.eye(K.shape[0])
        # LAPACK dpotrf directly: the routine scipy.linalg.cholesky(lower=True) calls, the
        # same bits without its per-call checks (a likelihood fit makes thousands of calls)
        L, info = _DPOTRF(Kj, lower=1, clean=1)
        if info == 0:
            return L, jitter
        if info < 0:  # pragma: no cover - the arguments are fixed
            raise ValueError(f"dpotrf: illegal value in argument {-info}")
    raise LinAlgError(
        "kernel matrix is not positive definite even with jitter "
        f"{_JITTERS[-1]:g} x mean(diag); check the inputs for NaN/inf or raise the noise bound"
    )


def _cho_solve(L: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(L L^T)^{-1} b`` by LAPACK ``dpotrs`` (what ``cho_solve((L, True), b)`` calls)."""
    x, info = _DPOTRS(L, b, lower=1)
    if info != 0:  # pragma: no cover - the arguments are fixed
        raise ValueError(f"dpotrs: illegal value in argument {-info}")
    return x


def inverse_from_cholesky(L: np.ndarray) -> np.ndarray:
    """``(L L^T)^{-1}`` from a lower Cholesky factor ``L`` (LAPACK ``dpotri``).

    ``dpotri`` inverts the triangular factor and forms the product in place (about n^3 / 3 +
    n^3 / 3 flops), 2-3 times faster than ``cho_solve((L, True), I)``, which solves with n
    right-hand sides. Used for ``K^{-1}`` in the likelihood gradient and for the unlabelled
    block of the graph surrogates (:func:`nmthpo.models.harmonic.inverse_unlabelled`).

    Parameters
    ----------
    L : ndarray of shape (n, n)
        Lower-triangular Cholesky factor.

    Returns
    -------
    ndarray of shape (n, n)
        Exactly symmetric (the lower triangle mirrored).
    """
    inv, info = lapack.dpotri(L, lower=1)
    if info != 0:  # pragma: no cover - L comes from a successful factorisation
        raise LinAlgError(f"dpotri failed with info={info}")
    # potri fills the lower triangle; the strict upper one still holds L's zeros
    full = inv + inv.T
    full[np.diag_indices(full.shape[0])] *= 0.5
    return full


def _stacked_cholesky(aug: np.ndarray) -> np.ndarray | None:
    """Lower Cholesky factors of a stack of symmetric matrices (``None`` if one is not
    positive definite), overwriting ``aug``'s storage where it can.

    A stack of one matrix (the lattice search's stacks hold one from n = 181 observations on)
    goes to LAPACK's ``dpotrf`` on the Fortran-ordered view of its storage: NumPy's batched
    ``linalg.cholesky`` copies and, from about n = 220, takes 3.5 times as long (0.85 ms
    against 0.24 ms at n = 257, one BLAS thread). Only the lower triangle is returned clean;
    the callers read the factor's diagonal and last row."""
    if len(aug) == 1:
        c, info = lapack.dpotrf(aug[0].T, lower=1, overwrite_a=1, clean=0)
        return None if info != 0 else c[None]
    try:
        return np.linalg.cholesky(aug)
    except np.linalg.LinAlgError:
        return None


def _first_best(ends: list[tuple[float, np.ndarray]]) -> np.ndarray:
    """The first of ``(value, theta)`` ends whose value is within the lattice's margin
    (:func:`~nmthpo.models.lattice.margin` of ``_TOL``) of the smallest: a decision by margin,
    the same on every CPU."""
    best = min(f for f, _ in ends)
    return next(th for f, th in ends if f <= best + margin(best, _TOL))


def _standardise(y: np.ndarray) -> tuple[np.ndarray, float, float]:
    """``(y - mean) / std`` with ``np.std`` (ddof = 0); std 0 (e.g. one point) is taken as 1."""
    mean = float(np.mean(y))
    std = float(np.std(y))
    if not np.isfinite(std) or std <= 0.0:
        std = 1.0
    return (y - mean) / std, mean, std


# ================================================================================================
# Gaussian process
# ================================================================================================
_HYPER_NAMES = ("lengthscales", "variance", "noise")

#: Hyperparameter priors of :class:`GaussianProcess` (``"none"``: maximum likelihood).
PRIORS: tuple[str, ...] = ("none", "gamma")

#: How :class:`GaussianProcess` optimises each start (``"lbfgsb"``: the book's runs).
SEARCHES: tuple[str, ...] = ("lbfgsb", "lattice")

#: Decision margin of the lattice search, in nats of the negative log likelihood
#: (:mod:`nmthpo.models.lattice`: far above the noise of one evaluation, about 1e-10).
_TOL = 1e-6


def log_prior(theta: np.ndarray, d: int, prior: str = "gamma") -> tuple[float, np.ndarray]:
    """Log prior density (up to a constant) of the hyperparameters and its gradient in theta.

    ``theta = [log l_1, ..., log l_d, log variance, log noise]`` (:class:`GaussianProcess`).
    ``"gamma"`` is the family of weak priors Optuna's ``GPSampler`` documents for inputs in
    [0, 1] and standardised targets: for each inverse squared length scale ``u = l^-2`` the
    log density ``-(0.1 / u + 0.1 u)`` (its mode at ``l = 1``, symmetric in ``log l``), a
    Gamma(2, 1) signal variance and a Gamma(1.1, 30) noise variance (mean 0.037: the targets
    are nearly noise-free). Maximising the log likelihood plus this term is a MAP fit.
    ``"none"`` returns 0 and a zero gradient.
    """
    theta = np.asarray(theta, dtype=float)
    grad = np.zeros(d + 2)
    if prior == "none":
        return 0.0, grad
    if prior != "gamma":
        raise ValueError(f"unknown prior {prior!r}; valid: {', '.join(PRIORS)}")
    u = np.exp(-2.0 * theta[:d])
    var, noise = float(np.exp(theta[d])), float(np.exp(theta[d + 1]))
    value = -float(np.sum(0.1 / u + 0.1 * u))
    value += np.log(var) - var  # Gamma(2, 1)
    value += 0.1 * np.log(noise) - 30.0 * noise  # Gamma(1.1, 30)
    grad[:d] = 0.2 * u - 0.2 / u  # d/dlog l of -(0.1/u + 0.1 u), with du/dlog l = -2u
    grad[d] = 1.0 - var
    grad[d + 1] = 0.1 - 30.0 * noise
    return float(value), grad


class GaussianProcess:
    """Exact GP regression with ARD kernel, fitted by type-II maximum likelihood (or MAP).

    Implements Eqs. 1-2 of Zhang & Duh (2020, Section 5.1) with a zero prior mean (footnote 11)
    on standardised targets: ``fit`` subtracts ``mean(y)`` and divides by ``std(y)`` (ddof 0;
    scikit-learn's ``normalize_y=True`` does the same), and every prediction is mapped back to
    the original units. Signal and noise variance are therefore in *standardised* units.

    Hyperparameters ``theta = [log l_1, ..., log l_d, log variance, log noise]`` maximise the
    log marginal likelihood (Rasmussen & Williams 2006, Eq. 5.8) with its analytic gradient
    (Eq. 5.9) by L-BFGS-B inside box bounds. Choices the paper leaves open (it used George):

    * bounds: length scales in [1e-2, 1e2] (inputs scaled to [0, 1]), signal variance in
      [1e-2, 1e2], noise variance in [1e-6, 1] (standardised units);
    * starting point of the first fit: length scales 0.5, signal variance 1, noise 1e-2;
      later fits start from the previous optimum (warm start);
    * ``restarts`` extra starts: ``screen * restarts`` points are drawn log-uniformly from a
      central box (length scales in [0.1, 10], signal variance in [0.1, 10], noise in
      [1e-4, 1e-1]) with the passed generator, and L-BFGS-B starts from the ``restarts`` with
      the highest likelihood (screening by value only costs one Cholesky each; unscreened
      random starts often end in poor local optima); the best optimum over all starts is kept;
    * numerical robustness: if ``K + noise I`` does not factorise, a jitter of 1e-10 ... 1e-4 times
      its mean diagonal is added, escalating by factors of ten.

    Parameters
    ----------
    kernel : {"matern52", "rbf"}
    lengthscales : float or ndarray of shape (d,), optional
        Initial (or fixed) ARD length scales; default 0.5 in every dimension.
    variance : float
        Initial (or fixed) signal variance.
    noise : float
        Initial (or fixed) Gaussian noise variance.
    fixed : collection of {"lengthscales", "variance", "noise"}
        Hyperparameters held at their current values during optimisation.
    lengthscale_bounds, variance_bounds, noise_bounds : (float, float)
        Box bounds for the optimisation (in natural units).
    maxiter : int
        Maximum L-BFGS-B iterations per start.
    screen : int
        Random candidates screened per restart (see above).
    fused : bool
        Optimise with the fused likelihood: the per-dimension squared distances
        (:func:`sqdist_parts`) are computed once per fit and every evaluation builds ``r^2``
        and the length-scale gradient from them by one matrix-vector product each. Equal to
        the default evaluation up to rounding (tested to 1e-10); ``False`` (the default) keeps
        the evaluation bit for bit as the book's cached runs computed it.
    prior : {"none", "gamma"}
        ``"none"``: type-II maximum likelihood (the paper's fit). ``"gamma"``: maximum a
        posteriori under weak priors (:func:`log_prior`), which keep the length scales near the
        inputs' unit range when a handful of observations cannot determine them.
    search : {"lbfgsb", "lattice"}
        How each start is optimised. ``"lbfgsb"`` (the book's runs): L-BFGS-B with the analytic
        gradient. ``"lattice"``: the pattern search of :mod:`nmthpo.models.lattice`, whose end
        point does not depend on floating-point noise (the same hyperparameters on every CPU);
        a warm start searches the steps :data:`~nmthpo.models.lattice.WARM_STEPS`, a random
        restart or the first fit the coarse steps, and the best of those the fine ones
        (:meth:`_lattice`).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(20, 2)); y = np.sin(6 * X[:, 0]) + X[:, 1]
    >>> gp = GaussianProcess("matern52").fit(X, y, rng=rng, restarts=1)
    >>> mean, var = gp.predict(X[:3])
    """

    def __init__(
        self,
        kernel: str = "matern52",
        *,
        lengthscales: float | np.ndarray | None = None,
        variance: float = 1.0,
        noise: float = 1e-2,
        fixed: Collection[str] = (),
        lengthscale_bounds: tuple[float, float] = (1e-2, 1e2),
        variance_bounds: tuple[float, float] = (1e-2, 1e2),
        noise_bounds: tuple[float, float] = (1e-6, 1.0),
        maxiter: int = 200,
        screen: int = 8,
        fused: bool = False,
        prior: str = "none",
        search: str = "lbfgsb",
    ) -> None:
        get_kernel(kernel)  # validates the name
        if search not in SEARCHES:
            raise ValueError(f"unknown search {search!r}; valid: {', '.join(SEARCHES)}")
        self.search = search
        self._optimised = False  # a lattice fit warm-starts with fine steps once it has one
        if prior not in PRIORS:
            raise ValueError(f"unknown prior {prior!r}; valid: {', '.join(PRIORS)}")
        self.prior = prior
        self.fused = bool(fused)
        self.kernel = kernel
        self._from_r2 = _FROM_R2[kernel]
        bad = sorted(set(fixed) - set(_HYPER_NAMES))
        if bad:
            raise ValueError(f"fixed must name hyperparameters among {_HYPER_NAMES}; got {bad}")
        self.fixed = frozenset(fixed)
        for name, b in (
            ("lengthscale_bounds", lengthscale_bounds),
            ("variance_bounds", variance_bounds),
            ("noise_bounds", noise_bounds),
        ):
            if not (len(b) == 2 and 0 < b[0] <= b[1] < np.inf):
                raise ValueError(f"{name} must be (low, high) with 0 < low <= high; got {b}")
        if variance <= 0 or noise <= 0:
            raise ValueError(f"variance and noise must be positive; got {variance}, {noise}")
        if maxiter < 1:
            raise ValueError(f"maxiter must be >= 1; got {maxiter}")
        self._bounds_nat = {
            "lengthscales": tuple(map(float, lengthscale_bounds)),
            "variance": tuple(map(float, variance_bounds)),
            "noise": tuple(map(float, noise_bounds)),
        }
        if screen < 1:
            raise ValueError(f"screen must be >= 1; got {screen}")
        self.maxiter = int(maxiter)
        self.screen = int(screen)
        self._init_lengthscales = lengthscales
        self._lengthscales: np.ndarray | None = None
        if lengthscales is not None and np.ndim(lengthscales) == 1:
            self._lengthscales = _lengthscale_vector(lengthscales, len(np.atleast_1d(lengthscales)))
        self._variance = float(variance)
        self._noise = float(noise)
        # training state
        self.X_train: np.ndarray | None = None
        self.y_train: np.ndarray | None = None
        self._y_mean = 0.0
        self._y_std = 1.0
        self._L: np.ndarray | None = None
        self._alpha: np.ndarray | None = None
        self._jitter = 0.0
        self.n_evaluations = 0  # likelihood evaluations in the last fit (diagnostic)

    # -- hyperparameters ------------------------------------------------------------------------
    @property
    def hyperparameters(self) -> dict[str, Any]:
        """Current values: ``lengthscales`` (ndarray), ``variance`` and ``noise`` (floats)."""
        ls = None if self._lengthscales is None else self._lengthscales.copy()
        return {"lengthscales": ls, "variance": self._variance, "noise": self._noise}

    @property
    def theta(self) -> np.ndarray:
        """Log hyperparameters ``[log l_1..log l_d, log variance, log noise]`` (after a fit)."""
        if self._lengthscales is None:
            raise RuntimeError("theta is defined once the input dimension is known; call fit first")
        return np.concatenate(
            [np.log(self._lengthscales), [np.log(self._variance), np.log(self._noise)]]
        )

    def _set_theta(self, theta: np.ndarray) -> None:
        d = theta.size - 2
        self._lengthscales = np.exp(theta[:d])
        self._variance = float(np.exp(theta[d]))
        self._noise = float(np.exp(theta[d + 1]))

    def log_bounds(self, d: int) -> np.ndarray:
        """Bounds of ``theta`` as an array of shape (d + 2, 2)."""
        b = self._bounds_nat
        rows = [b["lengthscales"]] * d + [b["variance"], b["noise"]]
        return np.log(np.asarray(rows, dtype=float))

    def _ensure_dim(self, d: int) -> None:
        if self._lengthscales is None:
            init = 0.5 if self._init_lengthscales is None else self._init_lengthscales
            self._lengthscales = _lengthscale_vector(init, d)
        elif self._lengthscales.shape != (d,):
            raise ValueError(
                f"the GP has {self._lengthscales.size} length scales but X has {d} columns"
            )

    # -- marginal likelihood --------------------------------------------------------------------
    def _nll(
        self,
        theta: np.ndarray,
        X: np.ndarray,
        ys: np.ndarray,
        grad: bool = True,
        parts: np.ndarray | None = None,
    ) -> tuple[float, np.ndarray]:
        """Negative log marginal likelihood of standardised ``ys`` and its gradient in theta.

        With ``W = alpha alpha^T - K^{-1}``, ``dLML/dtheta_j = tr(W dK/dtheta_j) / 2`` (R&W
        Eq. 5.9). For a length scale ``l_k``: ``dK/dlog l_k = G * D_k`` elementwise, with
        ``D_k[i, j] = (x_ik - x_jk)^2 / l_k^2`` and ``G`` kernel-specific (Matérn-5/2:
        ``variance * 5/3 (1 + sqrt5 r) exp(-sqrt5 r)``; RBF: ``K``), so with ``M = W * G``
        ``tr(W dK/dlog l_k) = (2 sum_i M_i. x_ik^2 - 2 x_k^T M x_k) / l_k^2`` in O(n^2 d).
        With ``parts`` (:func:`sqdist_parts` of ``X``, the fused evaluation) ``r^2`` and
        ``tr(W dK/dlog l_k) = sum_ij M_ij D_k[i, j] / l_k^2`` are one product each.
        """
        n, d = X.shape
        ls = np.exp(theta[:d])
        var = float(np.exp(theta[d]))
        noise = float(np.exp(theta[d + 1]))
        r2 = _sqdist_self(X, ls) if parts is None else _fused_r2(parts, ls)
        K, G = self._from_r2(r2, var)
        del r2
        if G is K:  # RBF: G equals the noise-free kernel matrix, which K is about to stop being
            G = K.copy()
        K[np.diag_indices(n)] += noise
        L, jitter = _robust_cholesky(K)
        del K
        alpha = _cho_solve(L, ys)
        ya = float(ys @ alpha)
        nll = 0.5 * ya + float(np.sum(np.log(np.diag(L)))) + 0.5 * n * _LOG_2PI
        if not grad:
            return nll, np.empty(0)
        Kinv = inverse_from_cholesky(L)
        tr_kinv = float(np.trace(Kinv))
        aa = float(alpha @ alpha)
        g = np.empty(d + 2)
        # length scales: M = W * G with W = alpha alpha^T - K^{-1}
        M = np.multiply.outer(alpha, alpha)
        M -= Kinv
        M *= G
        if parts is None:
            rs = M.sum(axis=1)
            term = 2.0 * (rs @ (X * X)) - 2.0 * np.einsum("ik,ik->k", X, M @ X)
        else:
            term = parts.reshape(d, n * n) @ M.reshape(n * n)
        g[:d] = 0.5 * term / (ls * ls)
        # signal variance: tr(W Kf) with Kf = K - (noise + jitter) I, so that
        # alpha^T Kf alpha = ys.alpha - s aa and tr(K^{-1} Kf) = n - s tr(K^{-1})
        s_diag = noise + jitter
        g[d] = 0.5 * ((ya - s_diag * aa) - (n - s_diag * tr_kinv))
        # noise variance: dK/dlog noise = noise I
        g[d + 1] = 0.5 * noise * (aa - tr_kinv)
        return nll, -g

    def _objective(
        self,
        theta: np.ndarray,
        X: np.ndarray,
        ys: np.ndarray,
        grad: bool = True,
        parts: np.ndarray | None = None,
    ) -> tuple[float, np.ndarray]:
        """What a fit minimises: :meth:`_nll`, minus :func:`log_prior` for a MAP fit."""
        f, g = self._nll(theta, X, ys, grad, parts)
        if self.prior == "none":
            return f, g
        lp, dlp = log_prior(theta, X.shape[1], self.prior)
        return f - lp, (g - dlp if grad else g)

    def log_marginal_likelihood(
        self, theta: np.ndarray | None = None, eval_gradient: bool = False
    ) -> float | tuple[float, np.ndarray]:
        """Log marginal likelihood of the (standardised) training targets.

        Parameters
        ----------
        theta : ndarray of shape (d + 2,), optional
            Log hyperparameters (see :attr:`theta`); default the current ones.
        eval_gradient : bool
            Also return the gradient with respect to ``theta``.

        Returns
        -------
        float, or (float, ndarray of shape (d + 2,))
            Comparable to scikit-learn's ``log_marginal_likelihood`` with ``normalize_y=True``.
        """
        X, ys = self._require_fitted()
        th = self.theta if theta is None else np.asarray(theta, dtype=float)
        if th.shape != (X.shape[1] + 2,):
            raise ValueError(f"theta must have shape ({X.shape[1] + 2},); got {th.shape}")
        nll, g = self._nll(th, X, ys, grad=eval_gradient)
        return (-nll, -g) if eval_gradient else -nll

    # -- fitting --------------------------------------------------------------------------------
    def fit(
        self,
        X: np.ndarray,
        y: np.ndarray,
        optimize: bool = True,
        *,
        rng: np.random.Generator | None = None,
        restarts: int = 0,
    ) -> GaussianProcess:
        """Condition on ``(X, y)``, optionally re-optimising the hyperparameters first.

        Parameters
        ----------
        X : ndarray of shape (n, d)
        y : ndarray of shape (n,)
        optimize : bool
            ``False`` keeps the current hyperparameters (exact conditioning only).
        rng : numpy.random.Generator, optional
            Source of the random restarts; required when ``restarts > 0``.
        restarts : int
            Random starts in addition to the warm start from the current hyperparameters.

        Returns
        -------
        self
        """
        X = _as_2d(X, "X")
        y = np.asarray(y, dtype=float).ravel()
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} values")
        if X.shape[0] == 0:
            raise ValueError("cannot fit a GP on zero observations")
        if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
            raise ValueError("X and y must be finite (no NaN/inf)")
        if restarts < 0:
            raise ValueError(f"restarts must be >= 0; got {restarts}")
        if restarts > 0 and rng is None:
            raise ValueError(
                "random restarts need a generator: pass rng=np.random.default_rng(seed)"
            )
        self._ensure_dim(X.shape[1])
        ys, self._y_mean, self._y_std = _standardise(y)
        self.X_train, self.y_train = X.copy(), y.copy()
        free = self._free_mask(X.shape[1])
        self.n_evaluations = 0
        with _single_blas_thread():
            if optimize and free.any():
                self._optimize(X, ys, free, rng, restarts)
            self._condition(ys)
        return self

    def _free_mask(self, d: int) -> np.ndarray:
        free = np.ones(d + 2, dtype=bool)
        if "lengthscales" in self.fixed:
            free[:d] = False
        if "variance" in self.fixed:
            free[d] = False
        if "noise" in self.fixed:
            free[d + 1] = False
        return free

    def _optimize(
        self,
        X: np.ndarray,
        ys: np.ndarray,
        free: np.ndarray,
        rng: np.random.Generator | None,
        restarts: int,
    ) -> None:
        d = X.shape[1]
        bounds = self.log_bounds(d)
        theta0 = np.clip(self.theta, bounds[:, 0], bounds[:, 1])
        lattice = self.search == "lattice"
        parts = sqdist_parts(X) if self.fused or lattice else None
        starts = [theta0]
        if restarts:
            assert rng is not None
            box = np.log(np.array([[0.1, 10.0]] * d + [[0.1, 10.0], [1e-4, 1e-1]]))
            box[:, 0] = np.clip(box[:, 0], bounds[:, 0], bounds[:, 1])
            box[:, 1] = np.clip(box[:, 1], bounds[:, 0], bounds[:, 1])
            pool = np.tile(theta0, (restarts * self.screen, 1))
            pool[:, free] = rng.uniform(box[free, 0], box[free, 1], size=(len(pool), free.sum()))
            if lattice:  # one stack, as the lattice search evaluates its candidates
                assert parts is not None
                values = self._objective_values(pool, X, ys, parts)
            else:
                values = np.empty(len(pool))
                for i, cand in enumerate(pool):
                    try:
                        values[i] = self._objective(cand, X, ys, grad=False, parts=parts)[0]
                    except LinAlgError:
                        values[i] = np.inf
            self.n_evaluations += len(pool)
            starts.extend(pool[np.argsort(values, kind="stable")[:restarts]])

        if lattice:
            assert parts is not None
            self._set_theta(self._lattice(starts, X, ys, free, bounds, parts))
            return

        def fun(z: np.ndarray, base: np.ndarray) -> tuple[float, np.ndarray]:
            th = base.copy()
            th[free] = z
            self.n_evaluations += 1
            try:
                f, g = self._objective(th, X, ys, parts=parts)
            except LinAlgError:
                return 1e25, np.zeros(z.size)
            return f, g[free]

        best_f, best_th = np.inf, theta0
        for s in starts:
            x, f = minimize_lbfgsb(
                functools.partial(fun, base=s), s[free], bounds[free], self.maxiter
            )
            if np.isfinite(f) and f < best_f:
                best_f = f
                best_th = s.copy()
                best_th[free] = x
        self._set_theta(best_th)

    def _lattice(
        self,
        starts: list[np.ndarray],
        X: np.ndarray,
        ys: np.ndarray,
        free: np.ndarray,
        bounds: np.ndarray,
        parts: np.ndarray,
    ) -> np.ndarray:
        """The ``search="lattice"`` fit. The warm start (the previous optimum) searches the
        fine lattices :data:`~nmthpo.models.lattice.WARM_STEPS`; every cold start (a random
        restart, or the initial hyperparameters at the first fit) searches the coarse ones
        :data:`~nmthpo.models.lattice.COARSE_STEPS`, and only the best cold end goes on to the
        fine ones (a restart that is worse at step 1/2 rarely wins at 1/8, and the fine steps
        are most of a search's evaluations). Of the warm and the refined cold end, the first
        within the lattice's tolerance of the better wins (:func:`_first_best`)."""

        def values(points: np.ndarray, base: np.ndarray) -> np.ndarray:
            th = np.repeat(base[None, :], len(points), axis=0)
            th[:, free] = points
            self.n_evaluations += len(points)
            return self._objective_values(th, X, ys, parts)

        def search(s: np.ndarray, steps: tuple[float, ...]) -> tuple[float, np.ndarray]:
            res = lattice_minimize(
                functools.partial(values, base=s), s[free], bounds[free], steps=steps, tol=_TOL
            )
            th = s.copy()
            th[free] = res.x
            return res.fun, th

        warm = self._optimised
        cold = starts[1:] if warm else starts
        ends = [search(starts[0], WARM_STEPS)] if warm else []
        if cold:  # every cold start on the coarse lattices, the best of them on the fine ones
            ends.append(search(_first_best([search(s, COARSE_STEPS) for s in cold]), FINE_STEPS))
        self._optimised = True
        return _first_best(ends)

    def _objective_values(
        self, thetas: np.ndarray, X: np.ndarray, ys: np.ndarray, parts: np.ndarray
    ) -> np.ndarray:
        """:meth:`_objective` (its value) at every row of ``thetas``, as one stack.

        The kernel matrices of all rows are formed at once from ``parts``
        (:func:`sqdist_parts`) and factorised by one stacked Cholesky of the bordered matrix
        ``[[K, y], [y^T, c]]``: its last row is ``(L^{-1} y)^T``, so ``y^T K^{-1} y`` and
        ``log det K`` come from one factorisation (``c = y^T y / noise + 1`` keeps the border
        positive definite, as ``K >= noise I``). Where a matrix does not factorise the rows are
        evaluated one by one with :meth:`_objective`'s jitter (``inf`` where even that fails).
        Equal to :meth:`_objective` up to rounding (tested).
        """
        n, d = X.shape
        out = np.empty(len(thetas))
        # stacks of at most 2^15 entries (256 KB a temporary): larger ones leave the L2 cache
        # and the elementwise kernel slows 2-3x per entry (measured at n = 100)
        chunk = max(1, (1 << 15) // ((n + 1) * (n + 1)))
        for a in range(0, len(thetas), chunk):
            th = thetas[a : a + chunk]
            b = len(th)
            ls2 = np.exp(-2.0 * th[:, :d])
            var, noise = np.exp(th[:, d]), np.exp(th[:, d + 1])
            r2 = (ls2 @ parts.reshape(d, n * n)).reshape(b, n, n)
            aug = np.empty((b, n + 1, n + 1))
            _KERNEL_INTO[self.kernel](r2, var[:, None, None], aug[:, :n, :n])
            aug[:, np.arange(n), np.arange(n)] += noise[:, None]
            aug[:, n, :n] = ys
            aug[:, :n, n] = ys
            aug[:, n, n] = float(ys @ ys) / noise + 1.0
            L = _stacked_cholesky(aug)
            if L is None:
                for i, t in enumerate(th):
                    try:
                        out[a + i] = self._objective(t, X, ys, grad=False, parts=parts)[0]
                    except LinAlgError:
                        out[a + i] = np.inf
                continue
            quad = np.einsum("bi,bi->b", L[:, n, :n], L[:, n, :n])
            logdet = np.sum(np.log(np.diagonal(L[:, :n, :n], axis1=1, axis2=2)), axis=1)
            out[a : a + b] = 0.5 * quad + logdet + 0.5 * n * _LOG_2PI
            if self.prior != "none":
                out[a : a + b] -= [log_prior(t, d, self.prior)[0] for t in th]
        return out

    def _kernel(self, X1: np.ndarray, X2: np.ndarray | None = None) -> np.ndarray:
        assert self._lengthscales is not None
        return self._from_r2(scaled_sqdist(X1, X2, self._lengthscales), self._variance)[0]

    def _condition(self, ys: np.ndarray) -> None:
        """Cholesky factor of ``K + noise I`` and ``alpha`` for the current hyperparameters."""
        assert self.X_train is not None
        K = self._kernel(self.X_train)
        K[np.diag_indices(K.shape[0])] += self._noise
        self._L, self._jitter = _robust_cholesky(K)
        self._alpha = _cho_solve(self._L, ys)

    def _require_fitted(self) -> tuple[np.ndarray, np.ndarray]:
        if self.X_train is None or self.y_train is None:
            raise RuntimeError("the GP has no training data; call fit(X, y) first")
        return self.X_train, (self.y_train - self._y_mean) / self._y_std

    # -- incremental update ---------------------------------------------------------------------
    def add(self, x: np.ndarray, y: float) -> GaussianProcess:
        """Condition on one more observation, keeping the hyperparameters (O(n^2)).

        The Cholesky factor gains one row, ``l = L^{-1} k(X, x)`` and
        ``sqrt(k(x, x) + noise + jitter - l.l)``. The targets are re-standardised with the new
        mean and standard deviation (the factor does not depend on them), so the result equals
        ``fit(X + [x], y + [y], optimize=False)`` up to rounding.

        Parameters
        ----------
        x : ndarray of shape (d,) or (1, d)
        y : float

        Returns
        -------
        self
        """
        X, _ = self._require_fitted()
        assert self._L is not None and self.y_train is not None
        xr = np.asarray(x, dtype=float).reshape(1, -1)
        if xr.shape[1] != X.shape[1]:
            raise ValueError(f"x has {xr.shape[1]} entries but the GP has {X.shape[1]} inputs")
        if not (np.all(np.isfinite(xr)) and np.isfinite(y)):
            raise ValueError("x and y must be finite (no NaN/inf)")
        k = self._kernel(X, xr)[:, 0]
        l_row = solve_triangular(self._L, k, lower=True, check_finite=False)
        kxx = self._variance + self._noise + self._jitter
        d2 = kxx - float(l_row @ l_row)
        self.X_train = np.vstack([X, xr])
        self.y_train = np.append(self.y_train, float(y))
        ys, self._y_mean, self._y_std = _standardise(self.y_train)
        if d2 <= 1e-12 * kxx:
            # numerically singular extension: refactorise with jitter escalation
            self._condition(ys)
            return self
        n = X.shape[0]
        L = np.zeros((n + 1, n + 1))
        L[:n, :n] = self._L
        L[n, :n] = l_row
        L[n, n] = np.sqrt(d2)
        self._L = L
        self._alpha = _cho_solve(L, ys)
        return self

    # -- prediction -----------------------------------------------------------------------------
    def predict(
        self, Xs: np.ndarray, full_cov: bool = False, include_noise: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and variance (or covariance) of the latent function (Eqs. 1-2).

        Parameters
        ----------
        Xs : ndarray of shape (m, d)
        full_cov : bool
            Return the (m, m) covariance instead of the (m,) marginal variances.
        include_noise : bool
            Add the noise variance (predictive distribution of a new observation).

        Returns
        -------
        mean : ndarray of shape (m,)
            In the original units of ``y``.
        var_or_cov : ndarray of shape (m,) or (m, m)
            In squared original units; marginal variances are clipped at 0.
        """
        X, _ = self._require_fitted()
        assert self._L is not None and self._alpha is not None
        Xs = _as_2d(Xs, "Xs")
        if Xs.shape[1] != X.shape[1]:
            raise ValueError(f"Xs has {Xs.shape[1]} columns but the GP has {X.shape[1]} inputs")
        with _single_blas_thread():
            Ks = self._kernel(Xs, X)
            mean = Ks @ self._alpha * self._y_std + self._y_mean
            V = solve_triangular(self._L, Ks.T, lower=True, check_finite=False)
            s2 = self._y_std**2
            if full_cov:
                cov = self._kernel(Xs) - V.T @ V
                if include_noise:
                    cov[np.diag_indices(cov.shape[0])] += self._noise
                return mean, cov * s2
        var = self._variance - np.einsum("ij,ij->j", V, V)
        np.maximum(var, 0.0, out=var)
        if include_noise:
            var += self._noise
        return mean, var * s2

    def copy(self) -> GaussianProcess:
        """An independent deep copy (hyperparameters, training data and factor)."""
        return copy.deepcopy(self)

    def __repr__(self) -> str:
        n = 0 if self.X_train is None else self.X_train.shape[0]
        return (
            f"GaussianProcess(kernel={self.kernel!r}, n={n}, lengthscales="
            f"{self._lengthscales}, variance={self._variance:.4g}, noise={self._noise:.3g})"
        )
