"""Graph-based regression on a kNN graph (Zhang & Duh 2020, Section 5.3, Eqs. 4-8).

The surrogate of graph-based SMBO (GB) is harmonic label propagation (Zhu et al., 2003) on a
graph whose nodes are *all* rows of a lookup table. The pure functions of arrays are, one
concept a module, :mod:`nmthpo.models.knn_graph` (the graph, Eq. 4 and footnote 12),
:mod:`nmthpo.models.harmonic` (propagation, Eqs. 5-7, and the finite-set GP view) and
:mod:`nmthpo.models.influence` (the expected influence, Eq. 8, naive and by rank-one updates);
all are re-exported here. This module adds one small stateful class, :class:`GraphSurrogate`,
that keeps the inverse of the unlabelled block of the (regularised) Laplacian up to date while
rows become labelled.
"""

from __future__ import annotations

import numpy as np

from nmthpo.models.harmonic import (
    downdate_inverse,
    grf_covariance,
    grf_posterior,
    harmonic_from_inverse,
    harmonic_solution,
    inverse_unlabelled,
    submatrix,
)
from nmthpo.models.influence import (
    EIF_MODES,
    binary_labels_fast,
    binary_labels_naive,
    eif_scores_fast,
    eif_scores_naive,
    gbopt_probability,
)
from nmthpo.models.knn_graph import (
    EPS_REL,
    GRAPH_CACHE_SIZE,
    KNN_DIVISOR,
    KNNGraph,
    build_graph,
    clear_graph_cache,
    default_eps,
    distance_matrix,
    energy,
    knn_adjacency,
    laplacian,
    mean_degrees,
    median_lengthscale,
    neighbour_ranks,
    paper_k,
)

__all__ = [
    "GraphSurrogate",
    # re-exported from knn_graph, harmonic and influence
    "EIF_MODES",
    "EPS_REL",
    "GRAPH_CACHE_SIZE",
    "KNN_DIVISOR",
    "KNNGraph",
    "binary_labels_fast",
    "binary_labels_naive",
    "build_graph",
    "clear_graph_cache",
    "default_eps",
    "distance_matrix",
    "downdate_inverse",
    "eif_scores_fast",
    "eif_scores_naive",
    "energy",
    "gbopt_probability",
    "grf_covariance",
    "grf_posterior",
    "harmonic_from_inverse",
    "harmonic_solution",
    "inverse_unlabelled",
    "knn_adjacency",
    "laplacian",
    "mean_degrees",
    "median_lengthscale",
    "neighbour_ranks",
    "paper_k",
]


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
        # per labelling (cleared by add): W[U, L] and the harmonic solution with prior = the
        # label mean, which predict(), posterior() and eif() would otherwise each recompute
        self._block: np.ndarray | None = None
        self._harmonic: np.ndarray | None = None

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
        self._block = self._harmonic = None

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

    def block(self) -> np.ndarray:
        """``W[U, L]`` (unlabelled rows ascending, labelled in the order labelled), copied once
        per labelling: every solve on this labelling reuses it (bitwise the same results,
        :func:`harmonic_from_inverse`)."""
        if self._block is None:
            self._block = submatrix(self.W, self.unlabelled, np.asarray(self.labelled))
        return self._block

    def predict(self) -> np.ndarray:
        """Propagated values for every row (labels on labelled rows), prior = label mean
        (computed once per labelling; a copy is returned)."""
        L, y = self._require_labels()
        if self._harmonic is None:
            self._harmonic = harmonic_from_inverse(
                self.W,
                self.inverse(),
                self.unlabelled,
                L,
                y,
                self.eps,
                prior=float(y.mean()),
                block=self.block(),
            )
        return self._harmonic.copy()

    def posterior(self) -> tuple[np.ndarray, np.ndarray]:
        """Finite-set GP posterior mean and std for every row (:func:`grf_posterior`)."""
        L, y = self._require_labels()
        f = self.predict()
        return grf_posterior(
            self.W, self.inverse(), self.unlabelled, L, y, self.eps, block=self.block(), harmonic=f
        )

    def eif(self, method: str = "fast", mode: str = "text") -> np.ndarray:
        """Expected influence of every unlabelled row (``NaN`` on labelled rows).

        ``method`` is ``"fast"`` (:func:`eif_scores_fast`) or ``"naive"``
        (:func:`eif_scores_naive`); ``mode`` is ``"text"`` or ``"gbopt"``.
        """
        L, y = self._require_labels()
        if method == "fast":
            return eif_scores_fast(
                self.W, self.inverse(), self.unlabelled, L, y, self.eps, mode, block=self.block()
            )
        if method == "naive":
            return eif_scores_naive(self.W, L, y, self.eps, mode)
        raise ValueError(f"unknown EIF method {method!r}; use 'fast' or 'naive'")
