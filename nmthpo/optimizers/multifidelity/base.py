"""The ask/tell protocol of multi-fidelity methods over learning curves.

A multi-fidelity optimiser searches the configurations of a learning-curve table
(:class:`nmthpo.benchmark.learning_curves.LearningCurveTable`) and decides how long to train
each. It is built as ``Class(X, longest, rng, **settings)`` (``longest``: the table's longest
curve, full fidelity) and only

* ``ask()`` proposes a *job* ``(row, checkpoint)``: train configuration ``row`` up to
  ``checkpoint`` (1-based), resuming where it stopped; or ``None``: nothing to do until a
  running job returns (a synchronous rung waiting for its last results);
* ``tell(row, checkpoint, score, complete)`` reports the job's result: ``score`` is the value
  at the checkpoint reached, *higher is better* (BLEU, or minus perplexity); ``checkpoint``
  is the checkpoint actually reached (a curve that ended early stops at its end) and
  ``complete`` says the curve has ended.

The engine (:mod:`nmthpo.engine.fidelity`) owns the budget (in checkpoints), the simulated
workers, the clock, the log and the recommendation; the optimiser never reads the curves.
Every method draws one permutation of the rows from its generator first
(:attr:`FidelityOptimizer.order`) and takes new configurations in that order, so methods run
with one seed and trial see the same configurations in the same order (paired comparisons);
model-based methods replace some draws by their model's choice.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["FidelityOptimizer", "Job", "rung_levels"]

#: A job: train ``row`` up to ``checkpoint``.
Job = tuple[int, int]


def rung_levels(max_checkpoint: int, min_checkpoint: int, eta: float) -> list[int]:
    """Checkpoints of the rungs of successive halving (Jamieson & Talwalkar 2016; Li et al.
    2018, Hyperband, Algorithm 1): ``r_i = max * eta**(i - s)``, ``s = floor(log_eta(max /
    min))``, rounded, increasing, the last one ``max_checkpoint``.

    >>> rung_levels(28, 1, 3)
    [1, 3, 9, 28]
    """
    if eta <= 1:
        raise ValueError(f"eta must be > 1, got {eta}")
    if not 1 <= min_checkpoint <= max_checkpoint:
        raise ValueError(
            f"need 1 <= min_checkpoint <= max_checkpoint, got {min_checkpoint}, {max_checkpoint}"
        )
    s = int(math.floor(math.log(max_checkpoint / min_checkpoint) / math.log(eta) + 1e-9))
    levels = [max(min_checkpoint, round(max_checkpoint * eta ** (i - s))) for i in range(s + 1)]
    out: list[int] = []
    for r in levels:
        if not out or r > out[-1]:
            out.append(int(r))
    out[-1] = int(max_checkpoint)
    return out


class FidelityOptimizer:
    """Base class: the configuration order, what has been told, and the protocol.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Configuration features (for model-based methods).
    longest : int
        The longest curve of the table (full fidelity).
    rng : numpy.random.Generator
        The only source of randomness.
    """

    def __init__(
        self, X: np.ndarray, longest: int, rng: np.random.Generator, **settings: Any
    ) -> None:
        if settings:
            raise TypeError(f"{type(self).__name__} got unknown settings {sorted(settings)}")
        self.X = np.asarray(X, dtype=float)
        self.n = int(self.X.shape[0])
        self.longest = int(longest)
        if self.longest < 1:
            raise ValueError(f"longest must be >= 1, got {longest}")
        self.rng = rng
        self.order = rng.permutation(self.n)
        self._next = 0
        self.started = np.zeros(self.n, dtype=bool)

    def _check_checkpoint(self, name: str, value: int | None, default: int) -> int:
        v = default if value is None else int(value)
        if not 1 <= v <= self.longest:
            raise ValueError(
                f"{name} must lie in 1..{self.longest} (the longest curve), got {value}"
            )
        return v

    def new_row(self) -> int | None:
        """The next configuration not started yet, in :attr:`order` (None: all started)."""
        while self._next < self.n and self.started[self.order[self._next]]:
            self._next += 1
        if self._next >= self.n:
            return None
        row = int(self.order[self._next])
        self.started[row] = True
        return row

    def ask(self) -> Job | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def tell(self, row: int, checkpoint: int, score: float, complete: bool) -> None:
        """Learn a job's result (default: nothing to learn)."""
