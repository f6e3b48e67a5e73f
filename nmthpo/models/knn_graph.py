"""The kNN graph over a lookup table's rows (Zhang & Duh 2020, Section 5.3, Eq. 4, footnote 12).

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

The Laplacian, its energy and the default regulariser ``eps`` live here too; propagation on the
graph is :mod:`nmthpo.models.harmonic`, the surrogate :class:`nmthpo.models.graph.GraphSurrogate`.
"""

from __future__ import annotations

import hashlib
import weakref
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from scipy.sparse.csgraph import connected_components
from scipy.spatial.distance import pdist, squareform

from nmthpo.models.gp import get_kernel

__all__ = [
    "EPS_REL",
    "GRAPH_CACHE_SIZE",
    "KNN_DIVISOR",
    "KNNGraph",
    "build_graph",
    "clear_graph_cache",
    "default_eps",
    "distance_matrix",
    "energy",
    "knn_adjacency",
    "laplacian",
    "mean_degrees",
    "median_lengthscale",
    "neighbour_ranks",
    "paper_k",
]

#: Relative regularisation: ``eps = EPS_REL * mean weighted degree`` unless given explicitly.
EPS_REL: float = 1e-6

#: Divisor of the paper's kNN rule (footnote 12): mean degree about ``n / KNN_DIVISOR``.
KNN_DIVISOR: float = 7.0

#: Graphs :func:`build_graph` keeps per process (least recently used dropped first).
GRAPH_CACHE_SIZE: int = 16

#: Laplacians of read-only weight matrices, by ``id`` (dropped when the matrix is collected).
_LAPLACIANS: dict[int, tuple[weakref.ref, np.ndarray]] = {}

_GRAPHS: OrderedDict[tuple[object, ...], KNNGraph] = OrderedDict()


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
        Cached per process by (the bytes of ``X``, ``kernel``, ``k``, ``lengthscale``): every
        trial of a run -- and every run on the same table in one worker -- shares one graph
        (its ``W`` is read-only), as building it costs 0.1-0.2 s on the largest tables.
    """
    X = _check_X(X)
    kern = get_kernel(kernel)
    ck = (
        hashlib.sha256(np.ascontiguousarray(X).tobytes()).hexdigest(),
        X.shape,
        kernel,
        None if k is None else int(k),
        None if lengthscale is None else float(lengthscale),
    )
    hit = _GRAPHS.get(ck)
    if hit is not None:
        _GRAPHS.move_to_end(ck)
        return hit
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
    W.setflags(write=False)  # shared by every trial on this table (see the cache above)
    graph = KNNGraph(W, int(k), kernel, ell, float(A.sum() / A.shape[0]), ncomp)
    _GRAPHS[ck] = graph
    while len(_GRAPHS) > GRAPH_CACHE_SIZE:
        _GRAPHS.popitem(last=False)
    return graph


def clear_graph_cache() -> None:
    """Forget the graphs :func:`build_graph` keeps (the next call rebuilds)."""
    _GRAPHS.clear()


def laplacian(W: np.ndarray) -> np.ndarray:
    """Combinatorial Laplacian ``Delta = D - W`` with ``D_ii = sum_j W_ij`` (Section 5.3).

    For a read-only ``W`` (the graphs :func:`build_graph` shares) the result is computed once
    and kept while ``W`` lives (read-only as well): the GRF posterior needs it at every step
    (:func:`energy`), and rebuilding the ``n x n`` matrix was a quarter of a multiobjective
    graph step on the largest tables.
    """
    W = np.asarray(W, dtype=float)
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"W must be a square matrix; got shape {W.shape}")
    if W.flags.writeable:
        return np.diag(W.sum(axis=1)) - W
    hit = _LAPLACIANS.get(id(W))
    if hit is not None and hit[0]() is W:
        return hit[1]
    out = np.diag(W.sum(axis=1)) - W
    out.setflags(write=False)
    key = id(W)
    _LAPLACIANS[key] = (weakref.ref(W, lambda _: _LAPLACIANS.pop(key, None)), out)
    return out


def energy(W: np.ndarray, f: np.ndarray) -> float:
    """Graph energy ``E(f) = 1/2 sum_ij w_ij (f_i - f_j)^2 = f^T Delta f`` (Eq. 5)."""
    f = np.asarray(f, dtype=float)
    return float(f @ laplacian(W) @ f)


def default_eps(W: np.ndarray, eps_rel: float = EPS_REL) -> float:
    """``eps_rel`` times the mean weighted degree of ``W`` (the ``1 / sigma^2`` of footnote 13)."""
    return float(eps_rel * np.asarray(W).sum(axis=1).mean())
