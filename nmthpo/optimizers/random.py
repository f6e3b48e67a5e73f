"""Random search over the rows of a table, without replacement (Zhang & Duh 2020, Section 6).

Each ``ask`` draws one of the unevaluated rows uniformly at random. Its ftb runtime is therefore
the position of the best row in a uniformly random permutation, floored at the number of initial
rows: E[max(K, 3)] with K uniform on 1..n.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nmthpo.optimizers.base import TableOptimizer

__all__ = [
    "RandomSearch",
    "RandomSearchSettings",
]


@dataclass(frozen=True)
class RandomSearchSettings:
    """Random search takes no settings."""


class RandomSearch(TableOptimizer):
    """Uniform sampling without replacement; works for either objective."""

    objectives = ("bleu", "pareto")
    uses_scipy = False
    Settings = RandomSearchSettings

    def __init__(
        self, X: np.ndarray, rng: np.random.Generator, objective: str = "bleu", **settings: Any
    ) -> None:
        super().__init__(X, rng, objective, **settings)

    def ask(self) -> int:
        return self.random_candidate()
