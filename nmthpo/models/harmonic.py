"""Harmonic label propagation on a graph and its finite-set GP view (Zhang & Duh 2020, Eqs. 5-7).

Label propagation (Eqs. 5-7)
    ``Delta = D - W`` (combinatorial Laplacian), ``f_U = -Delta_UU^{-1} Delta_UL f_L`` (Eq. 7).
    We regularise with ``eps * I``: ``(Delta_UU + eps I) f_U = W_UL f_L + eps * m``, which is
    exact harmonic propagation on the graph augmented with one "ghost" node of value ``m``
    joined to every node by an edge of weight ``eps``. On a connected component that holds a
    labelled node the effect is of order ``eps`` (negligible for the default, 1e-6 times the
    mean weighted degree); on a component without any labelled node the prediction is exactly
    ``m``. For BLEU regression ``m`` is the mean of the observed labels; for the binary
    problems of the expected influence ``m = 0`` (the ghost is the absorbing "death" state of
    the random walk, so harmonic values stay probabilities of reaching a node labelled 1).

Finite-set GP view (Section 5.3 "BO vs. GB", footnotes 13 and 16)
    ``K = (2 beta (Delta + I / sigma^2))^{-1}`` with ``1 / sigma^2 = eps`` and prior mean ``m``.
    Conditioning on the (noise-free) labelled rows gives the posterior mean = the regularised
    harmonic solution above and covariance ``G / (2 beta)`` with ``G = (Delta_UU + eps I)^{-1}``.
    ``beta`` is set by maximum likelihood of the labelled values under this prior (closed form,
    the profile likelihood of the amplitude): ``1 / (2 beta) = E / l`` where ``E`` is the
    regularised energy ``(f - m)^T (Delta + eps I) (f - m)`` of the harmonic solution and ``l``
    the number of labelled rows. With fewer than two distinct labels ``E = 0`` and the posterior
    standard deviation is zero (EI then reduces to the predicted improvement).

The graph comes from :mod:`nmthpo.models.knn_graph`; the expected influence built on these
solutions is :mod:`nmthpo.models.influence`.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg
from scipy.sparse.csgraph import connected_components

from nmthpo.models.gp import inverse_from_cholesky
from nmthpo.models.knn_graph import energy, laplacian

__all__ = [
    "downdate_inverse",
    "grf_covariance",
    "grf_posterior",
    "harmonic_from_inverse",
    "harmonic_solution",
    "inverse_unlabelled",
    "regularised_system",
    "split_labelled",
    "submatrix",
]


def split_labelled(n: int, labelled: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The labelled indices (checked: in range, distinct) and the unlabelled ones, ascending."""
    L = np.asarray(labelled, dtype=np.int64).ravel()
    if L.size and (L.min() < 0 or L.max() >= n):
        raise IndexError(f"labelled indices must be in 0..{n - 1}")
    if np.unique(L).size != L.size:
        raise ValueError("labelled indices contain duplicates")
    mask = np.zeros(n, dtype=bool)
    mask[L] = True
    return L, np.flatnonzero(~mask)


def submatrix(W: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``W[np.ix_(rows, cols)]`` as a new C-ordered array, by two ``np.take`` calls.

    The same numbers in the same layout as the fancy index (so every product computed from it
    is unchanged), two to sixty times faster: NumPy's two-dimensional fancy indexing walks
    every element through the generic index machinery, while ``take`` copies along one axis
    at a time (the smaller index set first).
    """
    if len(rows) <= len(cols):
        return np.take(np.take(W, rows, axis=0), cols, axis=1)
    return np.take(np.take(W, cols, axis=1), rows, axis=0)


def regularised_system(
    W: np.ndarray, U: np.ndarray, L: np.ndarray, values: np.ndarray, eps: float, prior: float
) -> tuple[np.ndarray, np.ndarray]:
    """Matrix ``Delta_UU + eps I`` and right-hand side ``W_UL f_L + eps * prior``."""
    deg = W.sum(axis=1)
    A = -submatrix(W, U, U)
    A[np.diag_indices_from(A)] += deg[U] + eps
    rhs = submatrix(W, U, L) @ values + eps * prior
    return A, rhs


def _check_connected(W: np.ndarray, L: np.ndarray) -> None:
    ncomp, lab = connected_components(W > 0, directed=False)
    missing = np.setdiff1d(np.arange(ncomp), lab[L])
    if missing.size:
        raise ValueError(
            f"{missing.size} connected component(s) hold no labelled node, so Eq. 7 has no "
            "unique solution with eps=0; pass eps > 0 (predictions there become the prior)"
        )


def harmonic_solution(
    W: np.ndarray,
    labelled: np.ndarray,
    values: np.ndarray,
    eps: float = 0.0,
    prior: float = 0.0,
) -> np.ndarray:
    """Harmonic label propagation by a direct solve (Eq. 7, regularised by ``eps``).

    Parameters
    ----------
    W : ndarray of shape (n, n)
    labelled : int array of shape (l,)
    values : array of shape (l,)
        Labels of ``labelled``.
    eps : float
        Ghost-node weight (0 gives Eq. 7 exactly; then every component needs a label).
    prior : float
        Ghost-node value.

    Returns
    -------
    ndarray of shape (n,)
        ``values`` on the labelled rows, the propagated values elsewhere.
    """
    W = np.asarray(W, dtype=float)
    n = W.shape[0]
    L, U = split_labelled(n, labelled)
    vals = np.asarray(values, dtype=float).ravel()
    if vals.shape != L.shape:
        raise ValueError(f"values has {vals.size} entries for {L.size} labelled rows")
    f = np.empty(n)
    f[L] = vals
    if U.size == 0:
        return f
    if eps == 0.0:
        _check_connected(W, L)
    A, rhs = regularised_system(W, U, L, vals, eps, prior)
    f[U] = linalg.solve(A, rhs, assume_a="pos")
    return f


def inverse_unlabelled(W: np.ndarray, unlabelled: np.ndarray, eps: float) -> np.ndarray:
    """``G = (Delta_UU + eps I)^{-1}`` by a Cholesky factorisation and LAPACK ``dpotri``.

    The factor is inverted in place (:func:`nmthpo.models.gp.inverse_from_cholesky`), 2-3
    times faster than solving with the identity; the result is exactly symmetric.
    """
    W = np.asarray(W, dtype=float)
    U = np.asarray(unlabelled, dtype=np.int64)
    A, _ = regularised_system(W, U, U[:0], np.zeros(0), eps, 0.0)
    return inverse_from_cholesky(linalg.cholesky(A, lower=True, check_finite=False))


#: Rows per band of the in-place rank-one update of :func:`downdate_inverse` (a band of
#: ``_BAND x u`` doubles stays in cache).
_BAND = 64


def downdate_inverse(G: np.ndarray, pos: int) -> np.ndarray:
    """Inverse of a principal submatrix: drop index ``pos`` from ``A`` given ``G = A^{-1}``.

    ``(A_{-p,-p})^{-1} = G_{-p,-p} - G_{-p,p} G_{p,-p} / G_{p,p}`` (rank-one Schur update, O(u^2)).

    The submatrix is copied as four blocks and updated in place in bands of rows, so no
    ``u x u`` temporary is made; the arithmetic (``G_ij - (g_i / G_pp) g_j``, element by
    element) is the one of the plain expression, hence bitwise the same result, about four
    times faster at ``u = 760`` (``benchmarks/bench_graph.py``).
    """
    u = G.shape[0]
    out = np.empty((u - 1, u - 1))
    out[:pos, :pos] = G[:pos, :pos]
    out[:pos, pos:] = G[:pos, pos + 1 :]
    out[pos:, :pos] = G[pos + 1 :, :pos]
    out[pos:, pos:] = G[pos + 1 :, pos + 1 :]
    g = np.concatenate((G[:pos, pos], G[pos + 1 :, pos]))
    x = g / G[pos, pos]
    for a in range(0, u - 1, _BAND):
        out[a : a + _BAND] -= x[a : a + _BAND, None] * g
    return out


def harmonic_from_inverse(
    W: np.ndarray,
    G: np.ndarray,
    unlabelled: np.ndarray,
    labelled: np.ndarray,
    values: np.ndarray,
    eps: float,
    prior: float = 0.0,
    block: np.ndarray | None = None,
) -> np.ndarray:
    """Same as :func:`harmonic_solution` but with a precomputed ``G`` aligned to ``unlabelled``.

    ``block``, if given, is ``submatrix(W, unlabelled, labelled)`` already computed (the same
    numbers in the same layout, so the result is bitwise the same): a caller that solves for
    several label vectors on one labelling copies the block once
    (:meth:`nmthpo.models.graph.GraphSurrogate.block`).
    """
    W = np.asarray(W, dtype=float)
    U = np.asarray(unlabelled, dtype=np.int64)
    L = np.asarray(labelled, dtype=np.int64)
    vals = np.asarray(values, dtype=float)
    WUL = submatrix(W, U, L) if block is None else block
    f = np.empty(W.shape[0])
    f[L] = vals
    f[U] = G @ (WUL @ vals + eps * prior)
    return f


# ================================================================================================
# Finite-set GP posterior (for EI)
# ================================================================================================
def grf_posterior(
    W: np.ndarray,
    G: np.ndarray,
    unlabelled: np.ndarray,
    labelled: np.ndarray,
    values: np.ndarray,
    eps: float,
    block: np.ndarray | None = None,
    harmonic: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Posterior mean and standard deviation of the finite-set GP (Section 5.3, footnote 16).

    Prior ``N(m 1, (2 beta (Delta + eps I))^{-1})`` with ``m`` = mean of ``values`` and
    ``1 / (2 beta) = E / l`` (maximum likelihood, see the module docstring). ``block`` is
    :func:`harmonic_from_inverse`'s; ``harmonic``, if given, is that function's solution for
    these arguments with ``prior = m`` (the posterior mean), already computed.

    Returns
    -------
    mean, std : ndarrays of shape (n,)
        ``std`` is 0 on labelled rows (noise-free observations).
    """
    W = np.asarray(W, dtype=float)
    vals = np.asarray(values, dtype=float)
    if vals.size == 0:
        raise ValueError("the GRF posterior needs at least one labelled row")
    m = float(vals.mean())
    f = (
        harmonic_from_inverse(W, G, unlabelled, labelled, vals, eps, prior=m, block=block)
        if harmonic is None
        else harmonic
    )
    c = f - m
    scale = max((energy(W, c) + eps * float(c @ c)) / vals.size, 0.0)
    std = np.zeros(W.shape[0])
    std[np.asarray(unlabelled, dtype=np.int64)] = np.sqrt(scale * np.clip(np.diag(G), 0.0, None))
    return f, std


def grf_covariance(W: np.ndarray, eps: float, beta: float = 0.5) -> np.ndarray:
    """Prior covariance ``K = (2 beta (Delta + eps I))^{-1}`` over all rows (footnote 13)."""
    n = np.asarray(W).shape[0]
    return np.asarray(np.linalg.inv(2.0 * beta * (laplacian(W) + eps * np.eye(n))))
