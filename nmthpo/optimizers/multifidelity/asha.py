"""Asynchronous successive halving (``asha``; Li et al. 2020, MLSys, Algorithm 2).

Workers never wait for a rung to fill: a free worker promotes a configuration that lies in
the top ``1/eta`` of its rung's results and has not been promoted yet (searching the highest
rung first), and otherwise starts a new configuration at the first rung. The engine simulates
the workers (``workers`` of them, time measured in checkpoints trained: a job resuming at
checkpoint ``j`` to ``k`` takes ``k - j`` time units).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nmthpo.optimizers.multifidelity.base import FidelityOptimizer, Job, rung_levels
from nmthpo.optimizers.settings import setting

__all__ = ["ASHA", "ASHASettings"]


@dataclass(frozen=True)
class ASHASettings:
    """Settings of :class:`ASHA` (see its parameters)."""

    eta: float = setting(3, "reduction factor", low=1.0, low_open=True, high=100.0)
    min_checkpoint: int = setting(1, "first rung", low=1, high=100_000)
    max_checkpoint: int | None = setting(
        None, "last rung (None: the longest curve)", low=1, high=100_000
    )
    workers: int = setting(4, "simulated parallel workers (read by the engine)", low=1, high=256)


class ASHA(FidelityOptimizer):
    """Asynchronous successive halving over the rungs of :func:`rung_levels`.

    Parameters
    ----------
    eta : float
        Reduction factor (default 3).
    min_checkpoint, max_checkpoint : int, optional
        First and last rung (defaults 1 and the longest curve).
    workers : int
        Simulated parallel workers (read by the engine; default 4).
    """

    Settings = ASHASettings

    def __init__(
        self,
        X: np.ndarray,
        longest: int,
        rng: np.random.Generator,
        eta: float = 3,
        min_checkpoint: int = 1,
        max_checkpoint: int | None = None,
        workers: int = 4,
    ) -> None:
        super().__init__(X, longest, rng)
        if int(workers) < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.workers = int(workers)
        self.eta = float(eta)
        hi = self._check_checkpoint("max_checkpoint", max_checkpoint, self.longest)
        lo = self._check_checkpoint("min_checkpoint", min_checkpoint, 1)
        self.levels = rung_levels(hi, min(lo, hi), self.eta)
        # per rung: row -> score (in order of arrival), and rows promoted out of it
        self.results: list[dict[int, float]] = [{} for _ in self.levels]
        self.promoted: list[set[int]] = [set() for _ in self.levels]
        self.running: dict[int, int] = {}  # row -> rung of its running job

    def ask(self) -> Job | None:
        for i in range(len(self.levels) - 2, -1, -1):
            res = self.results[i]
            k = int(len(res) // self.eta)
            if k < 1:
                continue
            arrival = {r: j for j, r in enumerate(res)}
            top = sorted(res, key=lambda r: (-res[r], arrival[r]))[:k]
            for r in top:
                if r not in self.promoted[i]:
                    self.promoted[i].add(r)
                    self.running[r] = i + 1
                    return r, self.levels[i + 1]
        row = self.new_row()
        if row is None:
            return None
        self.running[row] = 0
        return row, self.levels[0]

    def tell(self, row: int, checkpoint: int, score: float, complete: bool) -> None:
        """Record the result at the rung the job asked for (a curve that ended early reports
        a smaller checkpoint but is complete, so its value is its value at that rung)."""
        self.results[self.running.pop(int(row))][int(row)] = float(score)
