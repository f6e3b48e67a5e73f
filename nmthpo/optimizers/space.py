"""A lookup table's rows as points of an ordinal grid: the one rule from a proposal to a row.

An HPO library proposes *configurations*; a table can evaluate only its *rows* (Zhang & Duh
2020, Section 2: a method "trains" a model by reading its row), each at most once. Every
adapter of another library (:mod:`nmthpo.optimizers.adapters`) and every user's optimiser that
wraps one meets the same two questions, answered here once:

* **Encoding.** Each column of the encoded configurations ``X`` becomes an *ordinal* parameter:
  the rank ``0 .. k-1`` of its value among the column's ``k`` distinct values
  (:attr:`OrdinalSpace.levels`). Every hyperparameter of the NMTHPO and NMTLC tables is
  numeric and ordered, and ranks keep the order while making the grid's steps equal (a library
  that models integers or a ``[0, 1]`` box sees the grid the table was built on).
  :meth:`OrdinalSpace.unit` maps ranks to ``[0, 1]`` (``rank / (k - 1)``; 0 for a constant
  column) for libraries that work on a box.
* **Snapping.** A proposal that is not an unevaluated row (a combination the table lacks, or a
  row already evaluated) becomes the unevaluated row *nearest* to it:
  Euclidean distance over the ranks scaled to ``[0, 1]`` per column
  (:meth:`OrdinalSpace.nearest`), ties broken by the **lowest row id** -- deterministic, so
  the choice does not depend on a random stream or on floating-point noise (distances of
  scaled integer ranks are compared after rounding to 12 decimals).

Written by hand: it is a few lines of NumPy over at most a few thousand rows, and no library
offers a "nearest unevaluated grid point" rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["Codes", "OrdinalSpace"]

#: A point in ranks: a sequence or a 1-d array of numbers.
Codes = Sequence[float] | np.ndarray

#: Decimals to which squared distances are rounded before they are compared (well above the
#: floating-point noise of a sum of at most a few dozen squared fractions).
DISTANCE_DECIMALS = 12


class OrdinalSpace:
    """The rows of a table as integer ranks per column, with the nearest-row rule.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Encoded configurations of every row (any monotone encoding gives the same ranks).

    Attributes
    ----------
    levels : list of ndarray
        Per column, its distinct values, ascending.
    codes : ndarray of int, shape (n, d)
        Per row, the rank of each value in its column's levels.
    sizes : ndarray of int, shape (d,)
        Number of levels per column.
    """

    def __init__(self, X: np.ndarray) -> None:
        X = np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise ValueError(f"X must be a 2-d array of encoded rows, got shape {X.shape}")
        self.n, self.d = X.shape
        self.levels = [np.unique(X[:, j]) for j in range(self.d)]
        self.codes = (
            np.column_stack([np.searchsorted(lv, X[:, j]) for j, lv in enumerate(self.levels)])
            if self.d
            else np.zeros((self.n, 0))
        ).astype(np.int64)
        self.sizes = np.array([len(lv) for lv in self.levels], dtype=np.int64)
        self._scale = np.maximum(self.sizes - 1, 1).astype(float)
        self._rows_of: dict[tuple[int, ...], list[int]] = {}
        for i, c in enumerate(map(tuple, self.codes.tolist())):
            self._rows_of.setdefault(c, []).append(i)

    def rows_of(self, codes: Codes) -> list[int]:
        """The rows whose ranks are ``codes`` (ascending; empty if the table lacks them)."""
        return list(self._rows_of.get(tuple(int(c) for c in codes), []))

    def unit(self, codes: np.ndarray) -> np.ndarray:
        """Ranks scaled to ``[0, 1]`` per column (``rank / (k - 1)``; 0 for a constant column)."""
        return np.asarray(codes, dtype=float) / self._scale

    def from_unit(self, u: Codes) -> tuple[int, ...]:
        """The ranks nearest to a point ``u`` of the unit box (clipped to it)."""
        u = np.clip(np.asarray(u, dtype=float), 0.0, 1.0)
        return tuple(int(k) for k in np.rint(u * (self.sizes - 1)).astype(np.int64))

    def nearest(self, codes: Codes, candidates: np.ndarray) -> int:
        """The row among ``candidates`` nearest to ``codes`` (module docstring: Euclidean over
        ranks scaled to ``[0, 1]``, ties to the lowest row id).

        Parameters
        ----------
        codes : sequence of float
            A proposal in ranks (need not be integers or inside the grid).
        candidates : ndarray of int
            The rows allowed (the unevaluated ones); must not be empty.
        """
        cand = np.sort(np.asarray(candidates, dtype=np.int64))
        if cand.size == 0:
            raise ValueError("no candidate row left")
        diff = (self.codes[cand] - np.asarray(codes, dtype=float)) / self._scale
        dist = np.round((diff**2).sum(axis=1), DISTANCE_DECIMALS)
        return int(cand[int(np.argmin(dist))])  # argmin: the first, i.e. lowest id, of ties

    def snap(self, codes: Codes, observed: np.ndarray) -> tuple[int, bool]:
        """The row a proposal ``codes`` becomes, and whether it is the proposal itself.

        An unevaluated row with exactly these ranks is taken as it is (the lowest id if the
        table holds several); otherwise the nearest unevaluated row (:meth:`nearest`).
        ``observed`` is the boolean mask of evaluated rows.
        """
        rounded = np.rint(np.asarray(codes, dtype=float))
        if np.array_equal(rounded, np.asarray(codes, dtype=float)):
            fresh = [r for r in self.rows_of(rounded.astype(np.int64)) if not observed[r]]
            if fresh:
                return fresh[0], True
        return self.nearest(codes, np.flatnonzero(~np.asarray(observed, dtype=bool))), False
