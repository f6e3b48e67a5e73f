"""Optimisers written against the ask/tell protocol without importing nmthpo.

``MyOptimizer`` is a plain class (no nmthpo base class): it proposes the unevaluated row nearest
to the best row so far, ties broken by its generator. ``MyTransfer`` is a transfer optimiser:
it declares ``needs_sources`` and takes the runner's transfer context.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MyOptimizer", "MyTransfer", "NotAnOptimizer", "from_name"]


class MyOptimizer:
    """Greedy nearest neighbour of the incumbent (a user's own method)."""

    objectives = ("bleu",)

    def __init__(self, X, rng, objective="bleu", jitter=0.0):
        self.X = np.asarray(X, dtype=float)
        self.rng = rng
        self.jitter = float(jitter)
        self.seen = np.zeros(len(self.X), dtype=bool)
        self.best = None
        self.best_y = -np.inf

    def ask(self):
        cand = np.flatnonzero(~self.seen)
        if self.best is None:
            return int(self.rng.choice(cand))
        d = np.linalg.norm(self.X[cand] - self.X[self.best], axis=1)
        d = d + self.jitter * self.rng.random(d.size)
        top = np.flatnonzero(d == d.min())
        return int(cand[top[self.rng.integers(top.size)]])

    def tell(self, row, y):
        self.seen[row] = True
        if y > self.best_y:
            self.best, self.best_y = int(row), float(y)


class MyTransfer(MyOptimizer):
    """Starts from the best sampled row of the first source (nearest target row)."""

    needs_sources = True

    def __init__(
        self,
        X,
        rng,
        objective="bleu",
        *,
        sources=(),
        target_task=None,
        kernel="matern52",
        metafeatures=None,
        jitter=0.0,
    ):
        super().__init__(X, rng, objective, jitter)
        if not sources:
            raise ValueError("MyTransfer needs sources")
        s = sources[0]
        start = s.X[int(np.argmax(s.bleu))]
        self.best = int(np.argmin(np.linalg.norm(self.X - start, axis=1)))
        self.target_weights: list[float] = []
        self.source_weights: list[np.ndarray] = []
        self.n_sources = len(sources)
        self.distances = metafeatures.distances

    def ask(self):
        self.target_weights.append(0.5)
        self.source_weights.append(np.full(self.n_sources, 0.5 / self.n_sources))
        if self.seen[self.best]:
            return super().ask()
        return self.best


class NotAnOptimizer:
    """Has no ask/tell."""


def from_name(name):
    """A ``prefix:Name`` adapter hook: MyOptimizer with ``jitter`` = len of ``prefix:Name``."""
    from nmthpo.optimizers.registry import MethodSpec

    return MethodSpec("userpkg.mymod", "MyOptimizer", {"jitter": float(len(name))})
