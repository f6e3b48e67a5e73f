"""Graph-based regression on a kNN graph (Zhang & Duh 2020, Section 5.3, Eqs. 4-8).

The surrogate of graph-based SMBO (GB) is harmonic label propagation (Zhu et al., 2003) on a
graph whose nodes are *all* rows of a lookup table. This module holds pure functions of arrays
and one small stateful class, :class:`GraphSurrogate`, that keeps the inverse of the unlabelled
block of the (regularised) Laplacian up to date while rows become labelled.

Graph (Eq. 4 and footnote 12)
    Edge weights are a kernel of the encoded configurations, ``w_ij = k(x_i, x_j)``: Matérn-5/2
    or RBF (footnote 16; the RBF of Eq. 4 with ``sigma`` = the length scale) with unit variance
    and **one isotropic length scale set by the median heuristic**: the median of the Euclidean
    distances over all distinct pairs of rows (the paper leaves the bandwidth open). The kernel
    functions are the shared ones of :mod:`nmthpo.models.gp`.
    The graph is a *symmetrised kNN graph*: ``i ~ j`` iff ``j`` is among the ``k`` nearest
    neighbours of ``i`` or vice versa. The grid tables have many equal distances, so the
    neighbourhood is **tie-inclusive** (every row at the ``k``-th smallest distance is a
    neighbour; distances are rounded to 10 decimals before comparison); the graph therefore
    does not depend on the order of the rows in the file.
    Footnote 12 ("we set kNN so that each point has on average n/7 neighbors", extracted as
    "n 7"): with ``k=None`` we pick the ``k`` whose symmetrised, tie-inclusive graph has a mean
    degree closest to ``n / 7`` (smallest such ``k`` on a tie), see :func:`paper_k`.

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

Expected influence (Eq. 8, our reading of the text)
    Binary labels: every labelled row whose value equals the best observed value gets 1. Every
    other labelled row ``j`` gets 1 iff ``p_j > 0.5``, where ``p_j`` is the probability that a
    random walk on the graph started at ``j`` reaches a best row before any other labelled row
    (and before the ghost), i.e. the harmonic value at ``j`` with the best rows clamped to 1, the
    other labelled rows clamped to 0 and ``j`` itself left free. (The text says "a random walk
    starting at 1 reaches it"; the hitting probability from ``j`` is the quantity label
    propagation computes, so we use it.)
    With these labels ``h`` is the binary harmonic solution. For a candidate ``k`` in the
    unlabelled set ``U``, ``f^{+(k,v)}`` is the solution after clamping ``k`` to ``v``, and

    .. math::

        \\mathrm{EIF}(k) = h_k \\sum_{i \\in U \\setminus k} f^{+(k,1)}(i)
        + (1 - h_k) \\sum_{i \\in U \\setminus k} \\bigl(1 - f^{+(k,0)}(i)\\bigr),

    the sum running over the *other unlabelled* rows (labelled rows and ``k`` itself would add
    terms that do not depend on the propagation). This is ``mode="text"``.
    ``mode="gbopt"`` reproduces the authors' public code (github.com/Este1le/gbopt, read for
    interpretation only): every labelled row except the best is labelled 0, and the
    probability ``f(k)`` is not the binary harmonic value but a rescaling of the BLEU
    prediction around the best label (:func:`gbopt_probability`). The two differ sharply:
    with mostly-0 labels the text's weights favour candidates far from the best row
    (``S0`` dominates where ``h_k`` is near 0), the gbopt weights favour candidates whose
    prediction is close to the best label.

Fast expected influence
    With ``G = (Delta_UU + eps I)^{-1}``, clamping ``k`` to ``v`` changes the solution on
    ``U \\ k`` by ``(v - h_k) G[:, k] / G[k, k]`` (Schur complement), so every candidate's score
    follows from ``h``, ``diag(G)`` and the column sums of ``G`` in O(u^2) in total
    (:func:`eif_scores_fast`), instead of two O(u^3) solves per candidate
    (:func:`eif_scores_naive`). When a row becomes labelled, ``G`` is downdated in O(u^2):
    the inverse of a principal submatrix is ``G_{-k,-k} - G_{-k,k} G_{k,-k} / G_{k,k}``
    (:func:`downdate_inverse`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg
from scipy.sparse.csgraph import connected_components
from scipy.spatial.distance import pdist, squareform

from nmthpo.models.gp import get_kernel

#: Relative regularisation: ``eps = EPS_REL * mean weighted degree`` unless given explicitly.
EPS_REL: float = 1e-6

#: Divisor of the paper's kNN rule (footnote 12): mean degree about ``n / KNN_DIVISOR``.
KNN_DIVISOR: float = 7.0


# ================================================================================================
# Graph construction
# ================================================================================================
def _check_X(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array (rows, features); got shape {X.shape}")
    if X.shape[0] < 2:
        raise ValueError(f"a graph needs at least 2 rows; X has {X.shape[0]}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values; encode the table first")
    return X


def distance_matrix(X: np.ndarray) -> np.ndarray:
    """Euclidean distances between all rows, rounded to 10 decimals (so grid ties are exact).

    Parameters
    ----------
    X : ndarray of shape (n, d)

    Returns
    -------
    ndarray of shape (n, n), zero diagonal.
    """
    X = _check_X(X)
    return np.round(squareform(pdist(X)), 10)


def median_lengthscale(X: np.ndarray) -> float:
    """Median heuristic: the median Euclidean distance over all distinct pairs of rows.

    Raises
    ------
    ValueError
        If all rows are identical (no positive distance).
    """
    d = pdist(_check_X(X))
    d = d[d > 0]
    if d.size == 0:
        raise ValueError("all rows of X are identical; the median heuristic needs distinct rows")
    return float(np.median(d))


def neighbour_ranks(dist: np.ndarray) -> np.ndarray:
    """Tie-inclusive rank of ``j`` among the neighbours of ``i``: 1 + #{l != i: d_il < d_ij}.

    ``j`` is in the tie-inclusive kNN of ``i`` iff ``rank[i, j] <= k``. The diagonal is 0
    (a node is not its own neighbour; it is excluded in :func:`knn_adjacency`).
    """
    dist = np.asarray(dist, dtype=float)
    n = dist.shape[0]
    off = dist.copy()
    np.fill_diagonal(off, np.inf)
    srt = np.sort(off, axis=1)
    ranks = np.empty((n, n), dtype=np.int64)
    for i in range(n):
        ranks[i] = np.searchsorted(srt[i], off[i], side="left") + 1
    np.fill_diagonal(ranks, 0)
    return ranks


def mean_degrees(dist: np.ndarray) -> np.ndarray:
    """Mean node degree of the symmetrised tie-inclusive kNN graph for every ``k = 1..n-1``.

    Returns
    -------
    ndarray of shape (n - 1,)
        Entry ``k - 1`` is the mean degree for ``k``. Edge ``i ~ j`` exists for ``k`` iff
        ``min(rank[i, j], rank[j, i]) <= k``.
    """
    ranks = neighbour_ranks(dist)
    n = ranks.shape[0]
    iu = np.triu_indices(n, 1)
    m = np.minimum(ranks, ranks.T)[iu]
    counts = np.bincount(m, minlength=n)[1:n]
    return 2.0 * np.cumsum(counts) / n


def paper_k(dist: np.ndarray, divisor: float = KNN_DIVISOR) -> int:
    """The ``k`` of footnote 12: mean degree of the symmetrised graph closest to ``n / divisor``.

    Ties go to the smaller ``k``.
    """
    deg = mean_degrees(dist)
    n = np.asarray(dist).shape[0]
    return int(np.argmin(np.abs(deg - n / divisor))) + 1


def knn_adjacency(dist: np.ndarray, k: int) -> np.ndarray:
    """Boolean adjacency of the symmetrised tie-inclusive kNN graph (no self loops).

    Raises
    ------
    ValueError
        Unless ``1 <= k <= n - 1``.
    """
    n = np.asarray(dist).shape[0]
    if not 1 <= int(k) <= n - 1:
        raise ValueError(f"k must be between 1 and n - 1 = {n - 1}; got {k}")
    ranks = neighbour_ranks(dist)
    A = (ranks >= 1) & (ranks <= int(k))
    return A | A.T


@dataclass(frozen=True)
class KNNGraph:
    """A weighted kNN graph over all rows.

    Attributes
    ----------
    W : ndarray of shape (n, n)
        Symmetric non-negative weights, zero diagonal, zero for non-edges.
    k : int
        The neighbourhood size used.
    kernel : str
    lengthscale : float
    mean_degree : float
        Mean number of neighbours per node.
    n_components : int
        Number of connected components.
    """

    W: np.ndarray
    k: int
    kernel: str
    lengthscale: float
    mean_degree: float
    n_components: int

    @property
    def n(self) -> int:
        return int(self.W.shape[0])


def build_graph(
    X: np.ndarray,
    kernel: str = "matern52",
    k: int | None = None,
    lengthscale: float | None = None,
) -> KNNGraph:
    """Build the GB graph over all rows (Section 5.3, Eq. 4, footnote 12).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Encoded configurations (the project uses the ``"scaled"`` encoding).
    kernel : {"matern52", "rbf"}
        Edge-weight kernel (unit variance).
    k : int, optional
        Neighbourhood size; ``None`` applies the paper's rule (:func:`paper_k`).
    lengthscale : float, optional
        Isotropic kernel length scale; ``None`` uses :func:`median_lengthscale`.

    Returns
    -------
    KNNGraph
    """
    X = _check_X(X)
    kern = get_kernel(kernel)
    dist = distance_matrix(X)
    if k is None:
        k = paper_k(dist)
    ell = median_lengthscale(X) if lengthscale is None else float(lengthscale)
    if not ell > 0:
        raise ValueError(f"lengthscale must be positive; got {lengthscale}")
    A = knn_adjacency(dist, int(k))
    W = np.where(A, kern(X, X, ell, 1.0), 0.0)
    W = 0.5 * (W + W.T)
    np.fill_diagonal(W, 0.0)
    ncomp = int(connected_components(A, directed=False)[0])
    return KNNGraph(W, int(k), kernel, ell, float(A.sum() / A.shape[0]), ncomp)


def laplacian(W: np.ndarray) -> np.ndarray:
    """Combinatorial Laplacian ``Delta = D - W`` with ``D_ii = sum_j W_ij`` (Section 5.3)."""
    W = np.asarray(W, dtype=float)
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"W must be a square matrix; got shape {W.shape}")
    return np.diag(W.sum(axis=1)) - W


def energy(W: np.ndarray, f: np.ndarray) -> float:
    """Graph energy ``E(f) = 1/2 sum_ij w_ij (f_i - f_j)^2 = f^T Delta f`` (Eq. 5)."""
    f = np.asarray(f, dtype=float)
    return float(f @ laplacian(W) @ f)


def default_eps(W: np.ndarray, eps_rel: float = EPS_REL) -> float:
    """``eps_rel`` times the mean weighted degree of ``W`` (the ``1 / sigma^2`` of footnote 13)."""
    return float(eps_rel * np.asarray(W).sum(axis=1).mean())


# ================================================================================================
# Harmonic solutions
# ================================================================================================
def _split(n: int, labelled: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    L = np.asarray(labelled, dtype=np.int64).ravel()
    if L.size and (L.min() < 0 or L.max() >= n):
        raise IndexError(f"labelled indices must be in 0..{n - 1}")
    if np.unique(L).size != L.size:
        raise ValueError("labelled indices contain duplicates")
    mask = np.zeros(n, dtype=bool)
    mask[L] = True
    return L, np.flatnonzero(~mask)


def _system(
    W: np.ndarray, U: np.ndarray, L: np.ndarray, values: np.ndarray, eps: float, prior: float
) -> tuple[np.ndarray, np.ndarray]:
    """Matrix ``Delta_UU + eps I`` and right-hand side ``W_UL f_L + eps * prior``."""
    deg = W.sum(axis=1)
    A = -W[np.ix_(U, U)]
    A[np.diag_indices_from(A)] += deg[U] + eps
    rhs = W[np.ix_(U, L)] @ values + eps * prior
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
    L, U = _split(n, labelled)
    vals = np.asarray(values, dtype=float).ravel()
    if vals.shape != L.shape:
        raise ValueError(f"values has {vals.size} entries for {L.size} labelled rows")
    f = np.empty(n)
    f[L] = vals
    if U.size == 0:
        return f
    if eps == 0.0:
        _check_connected(W, L)
    A, rhs = _system(W, U, L, vals, eps, prior)
    f[U] = linalg.solve(A, rhs, assume_a="pos")
    return f


def inverse_unlabelled(W: np.ndarray, unlabelled: np.ndarray, eps: float) -> np.ndarray:
    """``G = (Delta_UU + eps I)^{-1}`` by a Cholesky factorisation (symmetric result)."""
    W = np.asarray(W, dtype=float)
    U = np.asarray(unlabelled, dtype=np.int64)
    A, _ = _system(W, U, U[:0], np.zeros(0), eps, 0.0)
    c, low = linalg.cho_factor(A)
    G = linalg.cho_solve((c, low), np.eye(U.size))
    return 0.5 * (G + G.T)


def downdate_inverse(G: np.ndarray, pos: int) -> np.ndarray:
    """Inverse of a principal submatrix: drop index ``pos`` from ``A`` given ``G = A^{-1}``.

    ``(A_{-p,-p})^{-1} = G_{-p,-p} - G_{-p,p} G_{p,-p} / G_{p,p}`` (rank-one Schur update, O(u^2)).
    """
    keep = np.r_[0:pos, pos + 1 : G.shape[0]]
    g = G[keep, pos]
    return G[np.ix_(keep, keep)] - np.outer(g / G[pos, pos], g)


def harmonic_from_inverse(
    W: np.ndarray,
    G: np.ndarray,
    unlabelled: np.ndarray,
    labelled: np.ndarray,
    values: np.ndarray,
    eps: float,
    prior: float = 0.0,
) -> np.ndarray:
    """Same as :func:`harmonic_solution` but with a precomputed ``G`` aligned to ``unlabelled``."""
    W = np.asarray(W, dtype=float)
    U = np.asarray(unlabelled, dtype=np.int64)
    L = np.asarray(labelled, dtype=np.int64)
    vals = np.asarray(values, dtype=float)
    f = np.empty(W.shape[0])
    f[L] = vals
    f[U] = G @ (W[np.ix_(U, L)] @ vals + eps * prior)
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
) -> tuple[np.ndarray, np.ndarray]:
    """Posterior mean and standard deviation of the finite-set GP (Section 5.3, footnote 16).

    Prior ``N(m 1, (2 beta (Delta + eps I))^{-1})`` with ``m`` = mean of ``values`` and
    ``1 / (2 beta) = E / l`` (maximum likelihood, see the module docstring).

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
    f = harmonic_from_inverse(W, G, unlabelled, labelled, vals, eps, prior=m)
    c = f - m
    scale = max((energy(W, c) + eps * float(c @ c)) / vals.size, 0.0)
    std = np.zeros(W.shape[0])
    std[np.asarray(unlabelled, dtype=np.int64)] = np.sqrt(scale * np.clip(np.diag(G), 0.0, None))
    return f, std


def grf_covariance(W: np.ndarray, eps: float, beta: float = 0.5) -> np.ndarray:
    """Prior covariance ``K = (2 beta (Delta + eps I))^{-1}`` over all rows (footnote 13)."""
    n = np.asarray(W).shape[0]
    return np.asarray(np.linalg.inv(2.0 * beta * (laplacian(W) + eps * np.eye(n))))


# ================================================================================================
# Expected influence (Eq. 8)
# ================================================================================================
def _best_mask(values: np.ndarray) -> np.ndarray:
    vals = np.asarray(values, dtype=float)
    if vals.size == 0:
        raise ValueError("expected influence needs at least one labelled row")
    return np.asarray(vals == vals.max())


def binary_labels_naive(
    W: np.ndarray, labelled: np.ndarray, values: np.ndarray, eps: float
) -> np.ndarray:
    """Binarised labels of the labelled rows, one linear solve per non-best row (reference).

    Best rows get 1; row ``j`` gets 1 iff its hitting probability ``p_j > 0.5`` (module
    docstring). Returns an array of shape (l,) aligned with ``labelled``.
    """
    L = np.asarray(labelled, dtype=np.int64)
    best = _best_mask(values)
    z = best.astype(float)
    for a in np.flatnonzero(~best):
        others = np.delete(L, a)
        f = harmonic_solution(W, others, np.delete(best.astype(float), a), eps=eps, prior=0.0)
        z[a] = 1.0 if f[L[a]] > 0.5 else 0.0
    return z


def binary_labels_fast(
    W: np.ndarray,
    G: np.ndarray,
    unlabelled: np.ndarray,
    labelled: np.ndarray,
    values: np.ndarray,
    eps: float,
) -> np.ndarray:
    """Same as :func:`binary_labels_naive` from ``G`` (bordered-system Schur formula).

    With ``j`` freed, ``p_j = (W_jB 1 + W_jU h_B) / (D_j + eps - W_jU G W_Uj)`` where ``h_B`` is
    the solution on ``U`` with the best rows at 1 and the other labelled rows at 0.
    """
    W = np.asarray(W, dtype=float)
    U = np.asarray(unlabelled, dtype=np.int64)
    L = np.asarray(labelled, dtype=np.int64)
    best = _best_mask(values)
    z = best.astype(float)
    J = L[~best]
    if J.size == 0:
        return z
    B = L[best]
    hB = G @ W[np.ix_(U, B)].sum(axis=1)
    WJU = W[np.ix_(J, U)]
    num = W[np.ix_(J, B)].sum(axis=1) + WJU @ hB
    den = W[J].sum(axis=1) + eps - np.einsum("ju,ju->j", WJU @ G, WJU)
    z[~best] = (num / den > 0.5).astype(float)
    return z


EIF_MODES: tuple[str, ...] = ("text", "gbopt")


def _check_mode(mode: str) -> None:
    if mode not in EIF_MODES:
        raise ValueError(f"unknown EIF mode {mode!r}; valid: {', '.join(EIF_MODES)}")


def gbopt_probability(mean: np.ndarray, unlabelled: np.ndarray, best: float) -> np.ndarray:
    """The authors' code's ``f(k)`` for ``mode="gbopt"``: a rescaled BLEU prediction.

    With ``mu`` the propagated BLEU on the unlabelled rows and ``b`` the best label:
    ``0.5 + 0.5 (mu - b) / (max mu - b)`` where ``mu >= b`` and ``0.5 (b - mu) / (b - min mu)``
    where ``mu < b`` (as written in gbopt's ``EIF._normalize``: the smaller ``mu``, the closer
    to 0.5; predictions just below the best get about 0). Zero denominators give 0.5.

    Returns
    -------
    ndarray of shape (u,)
    """
    mu = np.asarray(mean, dtype=float)[np.asarray(unlabelled, dtype=np.int64)]
    out = np.full(mu.shape, 0.5)
    if mu.size == 0:
        return out
    hi, lo = mu >= best, mu < best
    top, bottom = mu.max() - best, best - mu.min()
    if top > 0:
        out[hi] = 0.5 + 0.5 * (mu[hi] - best) / top
    if bottom > 0:
        out[lo] = 0.5 * (best - mu[lo]) / bottom
    return out


def eif_scores_naive(
    W: np.ndarray,
    labelled: np.ndarray,
    values: np.ndarray,
    eps: float,
    mode: str = "text",
    candidates: np.ndarray | None = None,
) -> np.ndarray:
    """Expected influence (Eq. 8) by re-solving label propagation for every candidate.

    For each unlabelled ``k`` one system on ``U \\ k`` is solved with the two right-hand sides
    ``v = 0`` and ``v = 1``: O(u^4) in total. This is the reference for :func:`eif_scores_fast`.

    Parameters
    ----------
    W, labelled, values, eps
        Graph, labelled rows, their BLEU values, regularisation.
    mode : {"text", "gbopt"}
        ``"text"``: the paper's wording (binary labels by hitting probability, ``f(k)`` = the
        binary harmonic value). ``"gbopt"``: the authors' public code (best rows 1, all other
        labelled rows 0, ``f(k)`` = :func:`gbopt_probability` of the BLEU propagation).
    candidates : int array, optional
        Score only these unlabelled rows (the others stay NaN); default all (for timing a
        subset on large tables).

    Returns
    -------
    ndarray of shape (n,)
        Scores of the unlabelled rows; NaN on labelled rows.
    """
    _check_mode(mode)
    W = np.asarray(W, dtype=float)
    n = W.shape[0]
    L, U = _split(n, labelled)
    vals = np.asarray(values, dtype=float)
    if mode == "text":
        z = binary_labels_naive(W, L, vals, eps)
        h = harmonic_solution(W, L, z, eps=eps, prior=0.0)
    else:
        z = _best_mask(vals).astype(float)
        mu = harmonic_solution(W, L, vals, eps=eps, prior=float(vals.mean()))
        h = np.zeros(n)
        h[U] = gbopt_probability(mu, U, float(vals.max()))
    scores = np.full(n, np.nan)
    todo = U if candidates is None else np.asarray(candidates, dtype=np.int64)
    if np.isin(todo, L).any():
        raise ValueError("candidates must be unlabelled rows")
    for k in todo:
        Lk = np.r_[L, k]
        rest = np.setdiff1d(U, [k])
        if rest.size == 0:
            scores[k] = 0.0
            continue
        A, _ = _system(W, rest, Lk, np.r_[z, 0.0], eps, 0.0)
        base = W[np.ix_(rest, L)] @ z
        rhs = np.column_stack([base, base + W[rest, k]])  # v = 0, v = 1
        sol = linalg.solve(A, rhs, assume_a="pos")
        s1 = sol[:, 1].sum()
        s0 = (1.0 - sol[:, 0]).sum()
        scores[k] = h[k] * s1 + (1.0 - h[k]) * s0
    return scores


def eif_scores_fast(
    W: np.ndarray,
    G: np.ndarray,
    unlabelled: np.ndarray,
    labelled: np.ndarray,
    values: np.ndarray,
    eps: float,
    mode: str = "text",
) -> np.ndarray:
    """Expected influence (Eq. 8) of every candidate in O(u^2) from ``G`` (rank-one identity).

    With ``h`` the binary harmonic solution, ``f^{+(k,v)}(i) = h_i + (v - h_k) G_ik / G_kk`` for
    ``i`` in ``U \\ k``, hence with ``H = sum_U h`` and ``c_k = sum_i G_ik``:
    ``S1_k = H - h_k + (1 - h_k) (c_k - G_kk) / G_kk`` and
    ``S0_k = (u - 1) - (H - h_k) + h_k (c_k - G_kk) / G_kk``; the score is
    ``p_k S1_k + (1 - p_k) S0_k`` with ``p_k = h_k`` (``mode="text"``) or the gbopt rescaled
    prediction (``mode="gbopt"``), see :func:`eif_scores_naive`.

    Returns
    -------
    ndarray of shape (n,)
        Scores of the unlabelled rows; NaN on labelled rows.
    """
    _check_mode(mode)
    W = np.asarray(W, dtype=float)
    U = np.asarray(unlabelled, dtype=np.int64)
    L = np.asarray(labelled, dtype=np.int64)
    vals = np.asarray(values, dtype=float)
    if mode == "text":
        z = binary_labels_fast(W, G, U, L, vals, eps)
    else:
        z = _best_mask(vals).astype(float)
    hU = G @ (W[np.ix_(U, L)] @ z)
    if mode == "text":
        p = hU
    else:
        mu = harmonic_from_inverse(W, G, U, L, vals, eps, prior=float(vals.mean()))
        p = gbopt_probability(mu, U, float(vals.max()))
    g = np.diag(G)
    ratio = (G.sum(axis=0) - g) / g
    rest = hU.sum() - hU
    s1 = rest + (1.0 - hU) * ratio
    s0 = (U.size - 1) - rest + hU * ratio
    scores = np.full(W.shape[0], np.nan)
    scores[U] = p * s1 + (1.0 - p) * s0
    return scores


# ================================================================================================
# Stateful surrogate
# ================================================================================================
class GraphSurrogate:
    """Label propagation on a fixed graph with an incrementally maintained ``G`` (Section 5.3).

    ``G = (Delta_UU + eps I)^{-1}`` over the current unlabelled rows is computed once (Cholesky,
    O(u^3)) the first time it is needed and afterwards downdated in O(u^2) per newly labelled row
    (:func:`downdate_inverse`); every ``refresh_every`` downdates it is recomputed from scratch
    to bound the accumulation of rounding errors.

    Parameters
    ----------
    W : ndarray of shape (n, n)
        Graph weights (see :func:`build_graph`).
    eps : float, optional
        Ghost-node weight ``1 / sigma^2``; default :func:`default_eps`.
    refresh_every : int
        Downdates between fresh inversions (``0``: never refresh).
    """

    def __init__(self, W: np.ndarray, eps: float | None = None, refresh_every: int = 200) -> None:
        W = np.asarray(W, dtype=float)
        if W.ndim != 2 or W.shape[0] != W.shape[1] or not np.allclose(W, W.T):
            raise ValueError("W must be a symmetric square matrix (build it with build_graph)")
        if np.any(W < 0):
            raise ValueError("W must be non-negative")
        self.W = W
        self.n = W.shape[0]
        self.eps = default_eps(W) if eps is None else float(eps)
        if self.eps < 0:
            raise ValueError(f"eps must be >= 0; got {eps}")
        if refresh_every < 0:
            raise ValueError(f"refresh_every must be >= 0; got {refresh_every}")
        self.refresh_every = int(refresh_every)
        self.labelled: list[int] = []
        self.values: list[float] = []
        self._mask = np.zeros(self.n, dtype=bool)
        self._G: np.ndarray | None = None
        self._G_rows: np.ndarray | None = None
        self._downdates = 0

    @property
    def unlabelled(self) -> np.ndarray:
        """Indices of the unlabelled rows, ascending (the order of ``G``)."""
        return np.flatnonzero(~self._mask)

    def add(self, row: int, value: float) -> None:
        """Label ``row`` with ``value``; downdates ``G`` in O(u^2) if it exists."""
        row = int(row)
        if self._mask[row]:
            raise ValueError(f"row {row} is already labelled")
        if not np.isfinite(value):
            raise ValueError(f"label of row {row} is not finite: {value}")
        if self._G is not None and self._G_rows is not None:
            pos = int(np.searchsorted(self._G_rows, row))
            self._G = downdate_inverse(self._G, pos)
            self._G_rows = np.delete(self._G_rows, pos)
            self._downdates += 1
        self._mask[row] = True
        self.labelled.append(row)
        self.values.append(float(value))

    def inverse(self) -> np.ndarray:
        """Current ``G`` aligned with :attr:`unlabelled` (computed or refreshed if needed)."""
        if not self.labelled and self.eps == 0.0:
            raise RuntimeError("G is singular without a labelled row and eps = 0")
        stale = self.refresh_every and self._downdates >= self.refresh_every
        if self._G is None or stale:
            self._G_rows = self.unlabelled
            self._G = inverse_unlabelled(self.W, self._G_rows, self.eps)
            self._downdates = 0
        return self._G

    def _require_labels(self) -> tuple[np.ndarray, np.ndarray]:
        if not self.labelled:
            raise RuntimeError("no labelled rows yet; call add(row, value) first")
        return np.asarray(self.labelled), np.asarray(self.values)

    def predict(self) -> np.ndarray:
        """Propagated values for every row (labels on labelled rows), prior = label mean."""
        L, y = self._require_labels()
        return harmonic_from_inverse(
            self.W, self.inverse(), self.unlabelled, L, y, self.eps, prior=float(y.mean())
        )

    def posterior(self) -> tuple[np.ndarray, np.ndarray]:
        """Finite-set GP posterior mean and std for every row (:func:`grf_posterior`)."""
        L, y = self._require_labels()
        return grf_posterior(self.W, self.inverse(), self.unlabelled, L, y, self.eps)

    def eif(self, method: str = "fast", mode: str = "text") -> np.ndarray:
        """Expected influence of every unlabelled row (NaN on labelled rows).

        ``method`` is ``"fast"`` (:func:`eif_scores_fast`) or ``"naive"``
        (:func:`eif_scores_naive`); ``mode`` is ``"text"`` or ``"gbopt"``.
        """
        L, y = self._require_labels()
        if method == "fast":
            return eif_scores_fast(self.W, self.inverse(), self.unlabelled, L, y, self.eps, mode)
        if method == "naive":
            return eif_scores_naive(self.W, L, y, self.eps, mode)
        raise ValueError(f"unknown EIF method {method!r}; use 'fast' or 'naive'")
