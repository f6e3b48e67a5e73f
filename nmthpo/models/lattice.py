"""Hyperparameter search on a lattice: a GP fit whose result does not depend on rounding.

Why not L-BFGS-B (issue 25, deliverable 2). Type-II maximum likelihood (Zhang & Duh 2020,
Section 5.1; R&W Section 5.4.1) is often flat along a ridge (length scales at a bound, signal
variance against noise). L-BFGS-B stops wherever its gradient tests first pass, so the end point
moves with the last bits of the likelihood: the bits that another BLAS kernel or SIMD level
changes. On this machine ``bo-ei-m`` on ja-en reaches log length scales -4.61 under one OpenBLAS
core type and -4.39 under another, and the rows chosen part at step 8.

A *lattice* search makes every decision a comparison of two objective values with a margin
(:func:`margin`: ``tol`` = 1e-6 relative to ``max(1, |f|)``) far above that noise (about 1e-10
nats on the book's tables at the values a fit reaches, more at the huge values of extreme
hyperparameters, which is why the margin is relative): the search moves only when a neighbour
is better by more than the margin, and among neighbours within it of each other it takes the
first in a fixed order. Its end point is then the same on every CPU unless a difference of two
values falls within the noise of the margin itself, a measure-zero event in practice, so the
fitted hyperparameters (and with them the rows a GP method chooses) are the same bit for bit up
to the noise of evaluating the posterior, which decides a row only at a near-tie of the
acquisition.

The search is a compass (coordinate pattern) search in the manner of Hooke and Jeeves (J. ACM
8, 1961) on the lattice ``h Z^p`` of log hyperparameters, ``h`` halving from ``steps[0]`` to
``steps[-1]`` (:func:`lattice_minimize` gives the moves). All ``2 p`` neighbours of a point are
evaluated in one call, so a GP evaluates them as one stack of kernel matrices
(:class:`nmthpo.models.gp.GaussianProcess` with ``search="lattice"``), and no gradient is
needed. The price is the search's reach: a compass search stalls in a narrow valley oblique to
the axes (where no single coordinate descends), so its log likelihood can end below the one
L-BFGS-B reaches: by 0.3-0.8 nats on 50-200 random synthetic training points, by 0.01-0.12 nats
on sw-en's rows (``benchmarks/bench_lattice.py``). Whether that moves a table is measured in the
speed appendix. No library provides a pattern search with this tolerance rule (SciPy's and
scikit-optimize's optimisers compare raw values), hence this module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "COARSE_STEPS",
    "COLD_STEPS",
    "FINE_STEPS",
    "LatticeResult",
    "WARM_STEPS",
    "lattice_minimize",
    "margin",
    "snap",
]

#: The coarse step sizes (in log units): 1, 1/2.
COARSE_STEPS: tuple[float, ...] = (1.0, 0.5)
#: The fine step sizes: 1/4, 1/8.
FINE_STEPS: tuple[float, ...] = (0.25, 0.125)
#: Step sizes of a whole search from a random start: 1, 1/2, 1/4, 1/8.
COLD_STEPS: tuple[float, ...] = COARSE_STEPS + FINE_STEPS
#: Step sizes of a search warm-started from the previous optimum (one more observation moves
#: the optimum little): the fine ones.
WARM_STEPS: tuple[float, ...] = FINE_STEPS


@dataclass(frozen=True)
class LatticeResult:
    """The end point of :func:`lattice_minimize`.

    Attributes
    ----------
    x : ndarray of shape (p,)
    fun : float
        The objective at ``x`` (``inf`` if it was never finite).
    evaluations : int
    """

    x: np.ndarray
    fun: float
    evaluations: int


def margin(value: float, tol: float) -> float:
    """The decision margin at an objective value: ``tol * max(1, |value|)`` (``tol`` where the
    value is not finite).

    The rounding noise of a negative log likelihood grows with its size (a sum of ``n`` log
    terms and a quadratic form): at 2.6e5 nats, reached by extreme hyperparameters on 22 rows
    of sw-en, two evaluations that differ only in the order of floating-point operations
    differ by 1e-5 nats, ten times an absolute margin of 1e-6. Relative to the value, the
    margin stays above that noise, and at the values of interest (tens to hundreds of nats)
    it is 1e-6 to 1e-4 nats, far below any difference a fit cares about.
    """
    return tol * max(1.0, abs(value)) if np.isfinite(value) else tol


def snap(x: np.ndarray, step: float, bounds: np.ndarray) -> np.ndarray:
    """``x`` rounded to the lattice ``step * Z^p`` (halves to even) and clipped to ``bounds``.

    Parameters
    ----------
    x : ndarray of shape (p,)
    step : float
        Lattice spacing, > 0.
    bounds : ndarray of shape (p, 2)
        Lower and upper bounds per coordinate.

    Returns
    -------
    ndarray of shape (p,)
    """
    if not step > 0:
        raise ValueError(f"step must be positive; got {step}")
    return np.clip(np.round(np.asarray(x, dtype=float) / step) * step, bounds[:, 0], bounds[:, 1])


def lattice_minimize(
    values: Callable[[np.ndarray], np.ndarray],
    x0: np.ndarray,
    bounds: np.ndarray,
    steps: Sequence[float] = COLD_STEPS,
    tol: float = 1e-6,
    max_evaluations: int = 2000,
) -> LatticeResult:
    """Minimise by compass search on halving lattices, deciding only by margins ``tol``.

    At each point all ``2 p`` neighbours ``x +- h e_j`` are evaluated in one call of
    ``values``. Every comparison is by the :func:`margin` ``tol * max(1, |f|)`` (below, "by
    more than ``tol``"). Each coordinate whose better neighbour improves on ``f(x)`` by more than
    ``tol`` contributes its step to a *combined* move; the combined point is taken if it beats
    the best single neighbour by more than ``tol``, else that neighbour (the first in the order
    ``+h e_0, -h e_0, +h e_1, ...`` among those within ``tol`` of the best). The move is then
    repeated while it keeps improving by more than ``tol``. When no neighbour improves, ``h``
    halves; the search ends after ``steps[-1]``.

    Parameters
    ----------
    values : callable
        ``values(points) -> ndarray``: the objective at each row of ``points`` (shape
        ``(m, p)``, returns shape ``(m,)``); a non-finite value is never an improvement.
    x0 : ndarray of shape (p,)
        Start; snapped to the finest lattice (:func:`snap` with ``steps[-1]``) first.
    bounds : ndarray of shape (p, 2)
    steps : sequence of float
        Decreasing lattice spacings.
    tol : float
        Decision margin (module docstring).
    max_evaluations : int
        Stop (at the best point so far) once this many points have been evaluated.

    Returns
    -------
    LatticeResult
    """
    bounds = np.asarray(bounds, dtype=float)
    if bounds.ndim != 2 or bounds.shape[1] != 2 or np.any(bounds[:, 0] > bounds[:, 1]):
        raise ValueError("bounds must have shape (p, 2) with low <= high")
    if not steps or any(not s > 0 for s in steps) or list(steps) != sorted(steps, reverse=True):
        raise ValueError(f"steps must be positive and decreasing; got {list(steps)}")
    if not tol > 0:
        raise ValueError(f"tol must be positive; got {tol}")
    lo, hi = bounds[:, 0], bounds[:, 1]
    count = 0

    def m(v: float) -> float:  # the margin at a value v
        return margin(v, tol)

    def f(points: np.ndarray) -> np.ndarray:
        nonlocal count
        count += len(points)
        v = np.asarray(values(points), dtype=float).reshape(len(points))
        return np.where(np.isfinite(v), v, np.inf)

    x = snap(np.asarray(x0, dtype=float).ravel(), steps[-1], bounds)
    if x.shape != (bounds.shape[0],):
        raise ValueError(f"x0 has {x.size} entries but bounds {bounds.shape[0]} rows")
    p = x.size
    fx = float(f(x[None, :])[0])
    for h in steps:
        while count < max_evaluations:
            # the 2p neighbours, in the order +h e_0, -h e_0, +h e_1, ... (clipped; a
            # neighbour the bounds fold onto x is left out)
            cand = np.repeat(x[None, :], 2 * p, axis=0)
            idx = np.arange(p)
            cand[2 * idx, idx] = np.minimum(x + h, hi)
            cand[2 * idx + 1, idx] = np.maximum(x - h, lo)
            keep = np.any(cand != x, axis=1)
            if not keep.any():
                break
            cand = cand[keep]
            fc = f(cand)
            better = fc < fx - m(fx)
            if not better.any():
                break  # nothing improves at this step: refine
            first = int(np.flatnonzero(fc <= fc.min() + m(float(fc.min())))[0])
            step_to, f_to = cand[first], float(fc[first])
            # the combined move: per coordinate, its better improving neighbour
            combined = x.copy()
            moved = 0
            for j in range(p):
                mine = np.flatnonzero(better & (cand[:, j] != x[j]))
                if mine.size:
                    k = (
                        mine[0]
                        if fc[mine].min() >= fc[mine[0]] - m(float(fc[mine[0]]))
                        else mine[1]
                    )
                    combined[j] = cand[k, j]
                    moved += 1
            if moved > 1 and count < max_evaluations:
                f_comb = float(f(combined[None, :])[0])
                if f_comb < f_to - m(f_to):
                    step_to, f_to = combined, f_comb
            disp = step_to - x
            x, fx = step_to.copy(), f_to
            # repeat the move while it pays
            while count < max_evaluations:
                y = np.clip(x + disp, lo, hi)
                if np.array_equal(y, x):
                    break
                fy = float(f(y[None, :])[0])
                if not fy < fx - m(fx):
                    break
                x, fx = y, fy
    return LatticeResult(x, fx, count)
