"""The ask/tell protocol shared by every optimiser (Zhang & Duh 2020, Section 2, Figure 2).

An optimiser searches the finite set of rows of one lookup table *without replacement*.
It is constructed with the encoded configurations of all rows (an ``(n, d)`` array), an
explicit :class:`numpy.random.Generator` and its own keyword settings. The runner
(:mod:`nmthpo.engine.runner`) owns the loop, the budget and the log; the optimiser only

* ``ask()``: proposes the index of one row it has not been told about yet;
* ``tell(row, y)``: learns the observed objective value(s) of a row.

Objectives: for ``objective="bleu"`` ``y`` is a float to be *maximised*; for
``objective="pareto"`` ``y`` is a length-2 array ``[bleu, decoding_time]`` (maximise BLEU,
minimise time). An optimiser never reads files, prints or plots.

Optionally an optimiser exposes ``predict_mean() -> ndarray`` of shape ``(n,)``: its surrogate's
current mean prediction of BLEU for every row (used for the surrogate-MSE curves of Figure 6).

Everything an optimiser uses comes through its constructor. A *transfer* optimiser (Li et al.
2022) says so with a class attribute ``needs_sources`` (``True``: a run must name source
tasks; ``False``: it accepts them, e.g. I-GP). In a run with source tasks the runner then
passes the *transfer context* as keyword arguments:

* ``sources``: the fitted source tasks
  (:class:`nmthpo.optimizers.transfer.sources.SourceTask`; empty for ``needs_sources=False``);
* ``target_task``: the target's name; ``kernel``: the run's GP kernel;
* ``metafeatures``: the target's and the sources' meta-features, precomputed from the tables
  (:class:`nmthpo.benchmark.metafeatures.TransferMetaFeatures`; ``None`` without sources).

Optimisers of other packages plug in without registration: ``"module:Class"`` names them
(:func:`nmthpo.optimizers.registry.resolve`). A transfer optimiser also exposes
``target_weights`` and ``source_weights`` (lists, one entry per ``ask``) if it has weights;
the runner records them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "TableOptimizer",
]


class TableOptimizer:
    """Base class: bookkeeping of labelled rows, the unevaluated mask and the history.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Encoded configurations of every row of the table.
    rng : numpy.random.Generator
        The only source of randomness the optimiser may use.
    objective : {"bleu", "pareto"}
        What ``tell`` receives, see the module docstring.
    """

    objectives: tuple[str, ...] = ("bleu",)
    #: Whether the optimiser computes with SciPy (its linear algebra): the runner then loads
    #: SciPy before it limits BLAS to one thread per trial (threadpoolctl limits only the
    #: libraries loaded by then). ``False`` for pure-NumPy methods keeps their runs light.
    uses_scipy: bool = True

    def __init__(
        self, X: np.ndarray, rng: np.random.Generator, objective: str = "bleu", **settings: Any
    ) -> None:
        if objective not in self.objectives:
            raise ValueError(
                f"{type(self).__name__} supports objective(s) {list(self.objectives)}, "
                f"not {objective!r}"
            )
        if settings:
            raise TypeError(f"{type(self).__name__} got unknown settings {sorted(settings)}")
        self.X = np.asarray(X, dtype=float)
        self.rng = rng
        self.objective = objective
        self.n = self.X.shape[0]
        self.observed = np.zeros(self.n, dtype=bool)
        self.rows: list[int] = []
        self.ys: list[Any] = []

    # -- protocol -----------------------------------------------------------------------------
    def ask(self) -> int:  # pragma: no cover - abstract
        """Return the index of an unevaluated row to evaluate next."""
        raise NotImplementedError

    def tell(self, row: int, y: float | np.ndarray) -> None:
        """Record the observed objective value(s) ``y`` of ``row``."""
        row = int(row)
        if not 0 <= row < self.n:
            raise IndexError(f"row {row} is outside the table (0..{self.n - 1})")
        if self.observed[row]:
            raise ValueError(f"row {row} was already evaluated; the search is without replacement")
        self.observed[row] = True
        self.rows.append(row)
        self.ys.append(y if self.objective == "pareto" else float(y))  # type: ignore[arg-type]

    # -- helpers for subclasses ---------------------------------------------------------------
    @property
    def candidates(self) -> np.ndarray:
        """Indices of the rows not evaluated yet, ascending."""
        return np.flatnonzero(~self.observed)

    @property
    def y_array(self) -> np.ndarray:
        """Observed values in evaluation order: shape (t,) for BLEU, (t, 2) for Pareto."""
        return np.asarray(self.ys, dtype=float)

    def remaining(self) -> np.ndarray:
        """:attr:`candidates`, or a ``RuntimeError`` when every row has been evaluated."""
        cand = self.candidates
        if cand.size == 0:
            raise RuntimeError("every row of the table has been evaluated")
        return cand

    def random_candidate(self) -> int:
        """One unevaluated row drawn uniformly through ``self.rng`` (the cold-start choice)."""
        return int(self.rng.choice(self.remaining()))

    def argmax_candidate(self, scores: np.ndarray) -> int:
        """Row of the candidate with the largest score; ties broken uniformly at random.

        ``scores`` has one entry per row of the table (entries of evaluated rows are ignored).
        Random tie-breaking (through ``self.rng``) avoids a bias towards low row ids, which
        matters on tables with many identical predictions (e.g. before any information).
        """
        cand = self.remaining()
        s = np.asarray(scores, dtype=float)[cand]
        s = np.where(np.isnan(s), -np.inf, s)
        top = np.flatnonzero(s == s.max())
        return int(cand[top[0] if top.size == 1 else self.rng.choice(top)])
