"""Exact two-objective expected hypervolume improvement (Zhang & Duh 2020, Section 5.4).

Pure functions of arrays. Everything here is written in the *minimisation frame*: a point is
``(f1, f2)``, both objectives are minimised, and the reference point ``r = (r1, r2)`` bounds the
dominated region from above (the convention of :func:`nmthpo.engine.metrics.hypervolume` and of
moocore). For the NMT task ``f1 = -BLEU`` and ``f2`` = decoding time (or its logarithm), see
:func:`to_minimisation`.

Hypervolume improvement as a sum over the strips of a sorted front
    Let ``P`` be a non-dominated front inside the reference box, sorted by ``f1`` ascending
    (so ``f2`` descends): ``p_1, ..., p_k``. Add the sentinels ``a_0 = -inf``, ``a_{k+1} = r1``
    for ``f1`` and ``b_0 = r2`` for ``f2``, with ``a_i = p_i[0]``, ``b_i = p_i[1]``. On the strip
    ``a_i <= x < a_{i+1}`` (``i = 0..k``) the region dominated by ``P`` starts at height ``b_i``,
    so a new point ``y`` adds the volume

    .. math::

        \\mathrm{HVI}(y) = \\sum_{i=0}^{k}
        \\bigl[(a_{i+1} - y_1)^+ - (a_i - y_1)^+\\bigr]\\,(b_i - y_2)^+ ,

    using ``(a_{i+1} - \\max(y_1, a_i))^+ = (a_{i+1} - y_1)^+ - (a_i - y_1)^+``
    for ``a_i < a_{i+1}``.

Exact EHVI with independent Gaussian marginals (Emmerich et al. 2011; the sorted-front form)
    Each term is a product of a function of ``y_1`` and a function of ``y_2``. With independent
    ``y_j ~ N(mu_j, sigma_j^2)`` the expectation factorises, and with the one-dimensional
    "expected shortfall" ``psi(c; mu, sigma) = E[(c - y)^+] = (c - mu) Phi(z) + sigma phi(z)``,
    ``z = (c - mu) / sigma`` (``psi(-inf) = 0``, ``psi(c) = (c - mu)^+`` for ``sigma = 0``):

    .. math::

        \\mathrm{EHVI} = \\sum_{i=0}^{k}
        \\bigl[\\psi_1(a_{i+1}) - \\psi_1(a_i)\\bigr]\\,\\psi_2(b_i) .

    This is exact (no grid, no sampling) and costs O(k) per candidate; :func:`ehvi` evaluates it
    for ``m`` candidates at once in O(m k) with numpy broadcasting. The paper (which used the
    formula of Emmerich et al. 2011 through its code base) leaves the reference point and the
    marginals open; :class:`nmthpo.optimizers.mobo.ParetoSMBO` documents its choices.

Contents: :func:`to_minimisation`, :func:`nondominated_front`, :func:`hypervolume_2d`,
:func:`hypervolume_improvement`, :func:`hypervolume_trace`, :func:`ehvi`,
:func:`ehvi_monte_carlo`, :func:`reference_from_observations`.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

__all__ = [
    "ehvi",
    "ehvi_monte_carlo",
    "hypervolume_2d",
    "hypervolume_improvement",
    "hypervolume_trace",
    "nondominated_front",
    "reference_from_observations",
    "to_minimisation",
]

_INV_SQRT_2PI = 1.0 / np.sqrt(2.0 * np.pi)


# ================================================================================================
# Input checks and frames
# ================================================================================================
def _points(a: np.ndarray, name: str) -> np.ndarray:
    p = np.asarray(a, dtype=float)
    if p.ndim == 1 and p.size == 2:
        p = p[None, :]
    if p.ndim == 1 and p.size == 0:
        p = p.reshape(0, 2)
    if p.ndim != 2 or p.shape[1] != 2:
        raise ValueError(
            f"{name} must have shape (n, 2) (two objectives, minimisation frame); got {p.shape}"
        )
    if not np.all(np.isfinite(p)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return p


def _ref(ref: np.ndarray) -> np.ndarray:
    r = np.asarray(ref, dtype=float).ravel()
    if r.shape != (2,) or not np.all(np.isfinite(r)):
        raise ValueError(f"ref must be two finite numbers [r1, r2]; got {ref!r}")
    return r


def to_minimisation(bleu: np.ndarray, time: np.ndarray, log_time: bool = False) -> np.ndarray:
    """Points ``(-BLEU, time)`` (or ``(-BLEU, log time)``) of the minimisation frame, shape (n, 2).

    Raises
    ------
    ValueError
        If ``log_time`` and a time is not positive.
    """
    b = np.asarray(bleu, dtype=float).ravel()
    t = np.asarray(time, dtype=float).ravel()
    if b.shape != t.shape:
        raise ValueError(f"bleu and time must have the same length; got {b.size} and {t.size}")
    if log_time:
        if np.any(t <= 0):
            raise ValueError("log_time needs positive decoding times; pass log_time=False")
        t = np.log(t)
    return np.column_stack([-b, t])


def nondominated_front(points: np.ndarray, ref: np.ndarray | None = None) -> np.ndarray:
    """The strictly non-dominated points, sorted by ``f1`` ascending (``f2`` then descends).

    Duplicates are kept once and weakly dominated points are dropped (they add no volume).
    With ``ref`` given, points not strictly better than ``ref`` in both objectives are dropped
    first (they dominate nothing inside the reference box).

    Parameters
    ----------
    points : ndarray of shape (n, 2)
    ref : ndarray of shape (2,), optional

    Returns
    -------
    ndarray of shape (k, 2)
    """
    p = _points(points, "points")
    if ref is not None:
        r = _ref(ref)
        p = p[(p[:, 0] < r[0]) & (p[:, 1] < r[1])]
    if p.shape[0] == 0:
        return p.reshape(0, 2)
    order = np.lexsort((p[:, 1], p[:, 0]))  # by f1, then f2
    p = p[order]
    prev_min = np.concatenate([[np.inf], np.minimum.accumulate(p[:-1, 1])])
    return p[p[:, 1] < prev_min]


def _strips(front: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Strip bounds ``a`` (length k + 2, ``a_0 = -inf``) and heights ``b`` (length k + 1)."""
    f = nondominated_front(front, ref)
    r = _ref(ref)
    a = np.concatenate([[-np.inf], f[:, 0], [r[0]]])
    b = np.concatenate([[r[1]], f[:, 1]])
    return a, b


# ================================================================================================
# Deterministic hypervolume
# ================================================================================================
def hypervolume_2d(points: np.ndarray, ref: np.ndarray) -> float:
    """Hypervolume dominated by ``points`` inside the box bounded by ``ref`` (exact, 2-D).

    ``sum_i (a_{i+1} - a_i) (r2 - b_i)`` over the sorted front (module docstring); equals
    ``moocore.hypervolume(points, ref=ref)`` (tested).
    """
    r = _ref(ref)
    f = nondominated_front(points, r)
    if f.shape[0] == 0:
        return 0.0
    widths = np.diff(np.concatenate([f[:, 0], [r[0]]]))
    return float(np.sum(widths * (r[1] - f[:, 1])))


def hypervolume_improvement(
    candidates: np.ndarray, front: np.ndarray, ref: np.ndarray
) -> np.ndarray:
    """Exact hypervolume improvement of each candidate added alone to ``front``, shape (m,).

    ``HV(front + {y}) - HV(front)`` by the strip sum of the module docstring, vectorised
    over candidates (O(m k)). ``front`` need not be filtered: it is reduced to its
    non-dominated part inside the reference box first.
    """
    y = _points(candidates, "candidates")
    a, b = _strips(front, ref)
    y1 = y[:, :1]
    y2 = y[:, 1:]
    with np.errstate(invalid="ignore"):
        s1 = np.maximum(a[None, :] - y1, 0.0)  # (m, k + 2); a_0 = -inf gives 0
    width = s1[:, 1:] - s1[:, :-1]
    height = np.maximum(b[None, :] - y2, 0.0)
    return np.asarray(np.maximum(np.sum(width * height, axis=1), 0.0))


def hypervolume_trace(points: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Hypervolume of the first ``t`` points for ``t = 1..n`` (incremental, exact), shape (n,).

    The same numbers as :func:`nmthpo.engine.metrics.hypervolume_curve` (which calls moocore once
    per
    prefix), but O(n k) in total: each step adds the improvement of the new point to the
    previous value.
    """
    p = _points(points, "points")
    r = _ref(ref)
    out = np.empty(p.shape[0])
    hv = 0.0
    front = p[:0]
    for i in range(p.shape[0]):
        y = p[i]
        # A point weakly dominated by the front (or not better than the reference point in both
        # objectives) adds nothing: skip the update, which is most steps of a long run.
        inside = y[0] < r[0] and y[1] < r[1]
        if inside and not np.any((front[:, 0] <= y[0]) & (front[:, 1] <= y[1])):
            hv += float(hypervolume_improvement(p[i : i + 1], front, r)[0])
            front = nondominated_front(np.vstack([front, p[i : i + 1]]), r)
        out[i] = hv
    return out


# ================================================================================================
# Expected hypervolume improvement
# ================================================================================================
def _psi(c: np.ndarray, mu: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """``E[(c - y)^+]`` for ``y ~ N(mu, sigma^2)``, broadcast; 0 at ``c = -inf``."""
    pos = sigma > 0
    safe = np.where(pos, sigma, 1.0)
    finite = np.isfinite(c)
    u = np.where(finite, c - mu, 0.0)
    z = u / safe
    val = u * ndtr(z) + safe * _INV_SQRT_2PI * np.exp(-0.5 * z * z)
    val = np.where(pos, val, np.maximum(u, 0.0))
    return np.where(finite, np.maximum(val, 0.0), 0.0)


def ehvi(mean: np.ndarray, std: np.ndarray, front: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Exact expected hypervolume improvement of independent Gaussian candidates, shape (m,).

    Implements the closed form of the module docstring (Emmerich et al. 2011, two objectives,
    sorted-front strip decomposition): ``sum_i [psi1(a_{i+1}) - psi1(a_i)] psi2(b_i)``.

    Parameters
    ----------
    mean : ndarray of shape (m, 2)
        Predictive means of the two objectives (minimisation frame).
    std : ndarray of shape (m, 2)
        Predictive standard deviations (>= 0); a zero gives the deterministic limit, i.e.
        :func:`hypervolume_improvement` of the mean.
    front : ndarray of shape (k, 2)
        Observed points (any; reduced to the non-dominated part inside the box).
    ref : ndarray of shape (2,)
        Reference point (minimisation frame).

    Returns
    -------
    ndarray of shape (m,)
        Non-negative EHVI values.
    """
    mu = _points(mean, "mean")
    sd = np.asarray(std, dtype=float)
    if sd.ndim == 1 and sd.size == 2:
        sd = sd[None, :]
    if sd.shape != mu.shape:
        raise ValueError(f"std must have the shape of mean {mu.shape}; got {sd.shape}")
    if not np.all(np.isfinite(sd)) or np.any(sd < 0):
        raise ValueError("std must be finite and >= 0 (pass sqrt of the predictive variance)")
    a, b = _strips(front, ref)
    psi1 = _psi(a[None, :], mu[:, :1], sd[:, :1])  # (m, k + 2)
    psi2 = _psi(b[None, :], mu[:, 1:], sd[:, 1:])  # (m, k + 1)
    val = np.sum((psi1[:, 1:] - psi1[:, :-1]) * psi2, axis=1)
    return np.asarray(np.maximum(val, 0.0))


def ehvi_monte_carlo(
    mean: np.ndarray,
    std: np.ndarray,
    front: np.ndarray,
    ref: np.ndarray,
    n_samples: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Monte-Carlo estimate of EHVI and its standard error (the reference for :func:`ehvi`).

    Draws ``n_samples`` independent Gaussian vectors per candidate and averages their exact
    :func:`hypervolume_improvement`.

    Returns
    -------
    estimate, stderr : ndarrays of shape (m,)
    """
    if n_samples < 2:
        raise ValueError(f"n_samples must be >= 2; got {n_samples}")
    mu = _points(mean, "mean")
    sd = np.broadcast_to(np.asarray(std, dtype=float), mu.shape)
    est = np.empty(mu.shape[0])
    se = np.empty(mu.shape[0])
    for j in range(mu.shape[0]):
        y = mu[j] + sd[j] * rng.standard_normal((n_samples, 2))
        h = hypervolume_improvement(y, front, ref)
        est[j] = h.mean()
        se[j] = h.std(ddof=1) / np.sqrt(n_samples)
    return est, se


# ================================================================================================
# Reference point of an optimiser
# ================================================================================================
def reference_from_observations(points: np.ndarray, margin: float = 0.1) -> np.ndarray:
    """Reference point from observed points only: their nadir plus ``margin`` x their range.

    ``r_j = max_i f_ij + margin * (max_i f_ij - min_i f_ij)``; when an objective's observed
    range is zero (e.g. one observation) the margin is taken relative to ``max(|max f_j|, 1)``
    instead, so that the reference is always strictly worse than every observed point and
    even the worst observed point has positive volume.

    Parameters
    ----------
    points : ndarray of shape (n, 2), n >= 1
        Observed points in the minimisation frame.
    margin : float
        Relative margin, > 0.
    """
    p = _points(points, "points")
    if p.shape[0] == 0:
        raise ValueError("the reference point needs at least one observed point")
    if not margin > 0:
        raise ValueError(f"margin must be > 0; got {margin}")
    hi = p.max(axis=0)
    span = hi - p.min(axis=0)
    span = np.where(span > 0, span, np.maximum(np.abs(hi), 1.0))
    return np.asarray(hi + margin * span)
