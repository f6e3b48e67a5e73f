"""L-BFGS-B for the GP's likelihood fits, without ``scipy.optimize.minimize``'s per-call cost.

A Bayesian-optimisation run on a lookup table fits a GP's hyperparameters at every step, each
fit a few dozen evaluations of a likelihood that itself takes about 0.1 ms on the tables' small
training sets. ``scipy.optimize.minimize(method="L-BFGS-B")`` wraps every evaluation in its
``ScalarFunction`` machinery (argument conversion, memoisation, copies), measured at about
65 microseconds an evaluation: 30 % of a fit. :func:`minimize_lbfgsb` drives the compiled
routine SciPy itself drives (``scipy.optimize._lbfgsb.setulb``, the C port of Byrd, Lu, Nocedal
and Zhu's L-BFGS-B 3.0, SciPy >= 1.15) with the same arguments, defaults and stopping rules
as SciPy's ``_minimize_lbfgsb``, so it visits the same points and returns the same optimum bit
for bit (``tests/models/test_lbfgsb.py`` checks this against ``minimize`` on random
likelihoods). Where the routine is missing or its signature differs (another SciPy) the
function calls ``minimize`` instead: the same algorithm, only slower.

Why not a library: no maintained one exposes L-BFGS-B without a per-evaluation wrapper
(``fmin_l_bfgs_b`` calls ``minimize``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

__all__ = ["minimize_lbfgsb"]

#: SciPy's defaults for ``method="L-BFGS-B"`` (``maxcor``, ``ftol``, ``gtol``, ``maxls``,
#: ``maxfun``).
MAXCOR = 10
FTOL = 2.2204460492503131e-09
GTOL = 1e-5
MAXLS = 20
MAXFUN = 15000

#: task[0] codes of setulb (SciPy's ``_lbfgsb_py``): function and gradient wanted, new
#: iteration, stop (any other code ends the loop: converged or abnormal).
_FG, _NEW_X, _STOP = 3, 1, 5


@functools.cache
def _setulb() -> Callable[..., None] | None:
    """SciPy's compiled ``setulb``, imported at the first fit: ``scipy.optimize`` costs about
    0.1-0.4 s of a process's start-up, which a run whose fits are lattice searches (GP-BO's
    default) never needs."""
    try:
        from scipy.optimize import _lbfgsb

        return _lbfgsb.setulb  # type: ignore[no-any-return]
    except (ImportError, AttributeError):  # pragma: no cover - another SciPy
        return None


def _with_minimize(
    fun: Callable[[np.ndarray], tuple[float, np.ndarray]],
    x0: np.ndarray,
    bounds: np.ndarray,
    maxiter: int,
) -> tuple[np.ndarray, float]:
    from scipy.optimize import minimize

    res = minimize(
        fun, x0, jac=True, method="L-BFGS-B", bounds=bounds, options={"maxiter": maxiter}
    )
    return np.asarray(res.x, dtype=float), float(res.fun)


def minimize_lbfgsb(
    fun: Callable[[np.ndarray], tuple[float, np.ndarray]],
    x0: np.ndarray,
    bounds: np.ndarray,
    maxiter: int,
) -> tuple[np.ndarray, float]:
    """Minimise ``fun`` (value and gradient) inside finite box ``bounds`` from ``x0``.

    What ``scipy.optimize.minimize(fun, x0, jac=True, method="L-BFGS-B", bounds=bounds,
    options={"maxiter": maxiter})`` computes, with SciPy's defaults (10 corrections,
    ``ftol = 2.2e-9``, ``gtol = 1e-5``, 20 line-search steps, 15,000 evaluations).

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (f, g)`` with ``f`` a float and ``g`` an array of shape ``x.shape``.
    x0 : ndarray of shape (n,)
        Start; clipped into the bounds first.
    bounds : ndarray of shape (n, 2)
        Finite lower and upper bounds.
    maxiter : int
        Maximum number of iterations.

    Returns
    -------
    x : ndarray of shape (n,)
    f : float
        ``fun`` at ``x`` (as the routine last saw it).
    """
    b = np.asarray(bounds, dtype=float)
    setulb = _setulb()
    if setulb is None or not np.all(np.isfinite(b)) or np.any(b[:, 0] >= b[:, 1]):
        # another SciPy; or a bound minimize treats its own way (a fixed variable is removed)
        return _with_minimize(fun, x0, b, maxiter)
    lo = np.ascontiguousarray(b[:, 0])
    hi = np.ascontiguousarray(b[:, 1])
    x = np.clip(np.asarray(x0, dtype=float).ravel(), lo, hi)
    n = x.size
    # SciPy evaluates at the (clipped) start first and memoises the last point
    last_x = x.copy()
    f, g = fun(x.copy())
    f = float(f)
    g = np.asarray(g, dtype=np.float64)
    nfev = 1
    nbd = np.full(n, 2, np.int32)  # both bounds finite
    m = MAXCOR
    grad = np.zeros(n, dtype=np.float64)
    wa = np.zeros(2 * m * n + 5 * n + 11 * m * m + 8 * m, np.float64)
    iwa = np.zeros(3 * n, dtype=np.int32)
    task = np.zeros(2, dtype=np.int32)
    ln_task = np.zeros(2, dtype=np.int32)
    lsave = np.zeros(4, dtype=np.int32)
    isave = np.zeros(44, dtype=np.int32)
    dsave = np.zeros(29, dtype=np.float64)
    factr = FTOL / np.finfo(float).eps
    f_arg: float | np.ndarray = np.array(0.0, dtype=np.float64)  # what SciPy passes first
    iterations = 0
    while True:
        grad = grad.astype(np.float64)
        try:
            setulb(
                m, x, lo, hi, nbd, f_arg, grad, factr, GTOL, wa, iwa, task, lsave, isave, dsave,
                MAXLS, ln_task,
            )  # fmt: skip
        except TypeError:  # pragma: no cover - setulb of another SciPy: another signature
            return _with_minimize(fun, x0, b, maxiter)
        if task[0] == _FG:
            if not np.array_equal(x, last_x):
                last_x = x.copy()
                fx, gx = fun(x.copy())
                f, g = float(fx), np.asarray(gx, dtype=np.float64)
                nfev += 1
            f_arg, grad = f, g
        elif task[0] == _NEW_X:
            iterations += 1
            if iterations >= maxiter:
                task[0], task[1] = _STOP, 504
            elif nfev > MAXFUN:
                task[0], task[1] = _STOP, 502
        else:
            break
    return x, float(f_arg)
