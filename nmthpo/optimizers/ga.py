"""The steady-state genetic algorithm of Ganapathy (2020) as an ask/tell table optimiser.

The study version (:mod:`nmthpo.studies.ganapathy.tables`) lets the GA breed chromosomes that are
not in the table and counts them; an optimiser of the shared protocol must instead propose an
*unevaluated row*. This class uses the study's operators
(:mod:`nmthpo.optimizers.genetic_operators`: gene indices, selection probabilities, parent
order, one-point crossover, mutation, weakest individual) with its own draws, and adapts them:

* genes are the per-column *distinct encoded values* of ``X`` (the encoding is a bijection of
  the configurations, so value indices per column identify a configuration exactly);
* the population is seeded from the rows told so far: every told row joins it until it holds
  ``population`` individuals (the runner's initial rows first, then the GA's own proposals);
  from then on each told row is the offspring and replaces the weakest individual (steady
  state, first one on ties) -- whatever its fitness, as in the paper;
* ``ask`` breeds an offspring: two parents by fitness-proportional (roulette) selection, one-
  point crossover at a uniform point ``c in 1..d-1`` (genes ``[:c]`` from the fitter parent),
  then with probability ``mutation_rate`` one uniformly chosen gene of the *offspring* is
  redrawn uniformly from that column's distinct values (the paper mutates a population member;
  here that would be an evaluation the runner did not ask for, so the offspring is mutated);
* an offspring that is not a row of the table, or a row already evaluated, is rejected and
  re-bred, up to ``max_tries`` times; if all fail, the last offspring is *repaired* to the
  unevaluated row nearest to it in Hamming distance over gene values (ties at random);
* with fewer than two individuals (no parents yet) ``ask`` draws an unevaluated row uniformly.

Fitness is the told BLEU; if every individual has fitness <= 0, parents are drawn uniformly
(BLEU is positive on the NMTHPO tables).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from nmthpo.optimizers.base import TableOptimizer
from nmthpo.optimizers.genetic_operators import (
    fitter_first,
    gene_indices,
    mutate,
    one_point_crossover,
    selection_probabilities,
    weakest_index,
)
from nmthpo.optimizers.settings import ROWS, setting

__all__ = ["GAOptimizer", "GAOptimizerSettings"]


@dataclass(frozen=True)
class GAOptimizerSettings:
    """Settings of :class:`GAOptimizer` (see its parameters)."""

    population: int = setting(10, "population size (>= 2; the paper uses 5-25)", low=2, high=ROWS)
    mutation_rate: float = setting(
        1 / 8, "probability of mutating the offspring (paper: 1/8)", low=0.0, high=1.0
    )
    max_tries: int = setting(
        100,
        "breeding attempts per ask before repairing to the nearest unevaluated row",
        low=1,
        high=100_000,
    )


class GAOptimizer(TableOptimizer):
    """Steady-state GA over table rows (Ganapathy 2020), see the module docstring.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Encoded configurations (any encoding that is one-to-one per column).
    rng : numpy.random.Generator
    objective : {"bleu"}
    population : int
        Population size (>= 2); the paper uses 5-25. Default 10.
    mutation_rate : float
        Probability of mutating the offspring (the paper: 1/8).
    max_tries : int
        Breeding attempts per ``ask`` before repairing to the nearest unevaluated row.
    """

    objectives = ("bleu",)
    uses_scipy = False
    Settings = GAOptimizerSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        population: int = 10,
        mutation_rate: float = 1 / 8,
        max_tries: int = 100,
        **settings: Any,
    ) -> None:
        super().__init__(X, rng, objective, **settings)
        if int(population) < 2:
            raise ValueError(f"population must be >= 2 (two parents), got {population}")
        if not 0.0 <= float(mutation_rate) <= 1.0:
            raise ValueError(f"mutation_rate must be in [0, 1], got {mutation_rate}")
        if int(max_tries) < 1:
            raise ValueError(f"max_tries must be >= 1, got {max_tries}")
        self.population = int(population)
        self.mutation_rate = float(mutation_rate)
        self.max_tries = int(max_tries)
        values, self.genes = gene_indices([self.X[:, j] for j in range(self.X.shape[1])])
        self.n_values = [int(v.size) for v in values]
        keys = [tuple(int(v) for v in g) for g in self.genes]
        self.row_of = {k: i for i, k in enumerate(keys)}
        if len(self.row_of) != self.n:
            raise ValueError("X holds duplicate rows; the GA needs one configuration per row")
        self.pop: list[int] = []  # table rows of the current population
        self.fit: list[float] = []

    # -- protocol -----------------------------------------------------------------------------
    def tell(self, row: int, y: float | np.ndarray) -> None:
        super().tell(row, y)
        f = float(y)  # type: ignore[arg-type]
        if len(self.pop) < self.population:
            self.pop.append(int(row))
            self.fit.append(f)
        else:
            w = weakest_index(self.fit)
            self.pop[w] = int(row)
            self.fit[w] = f

    def ask(self) -> int:
        self.remaining()  # raises once every row has been evaluated
        if len(self.pop) < 2:
            return self.random_candidate()
        child: tuple[int, ...] = tuple(int(v) for v in self.genes[self.pop[0]])
        for _ in range(self.max_tries):
            child = self.breed()
            r = self.row_of.get(child)
            if r is not None and not self.observed[r]:
                return r
        return self.repair(child)

    # -- operators ----------------------------------------------------------------------------
    def parents(self) -> tuple[int, int]:
        """Two population indices by independent roulette spins, the fitter one first."""
        f = np.maximum(np.asarray(self.fit, dtype=float), 0.0)
        k = len(self.pop)
        if f.sum() > 0:
            i, j = self.rng.choice(k, size=2, p=selection_probabilities(f))
        else:
            i, j = self.rng.integers(0, k, size=2)
        return fitter_first(int(i), int(j), f.tolist())

    def breed(self) -> tuple[int, ...]:
        """One offspring's gene-value indices (crossover, then maybe mutation)."""
        i, j = self.parents()
        p1 = [int(v) for v in self.genes[self.pop[i]]]
        p2 = [int(v) for v in self.genes[self.pop[j]]]
        d = len(p1)
        c = int(self.rng.integers(1, d)) if d > 1 else 0
        child = one_point_crossover(p1, p2, c)
        if self.rng.random() < self.mutation_rate:
            g = int(self.rng.integers(0, d))
            child = mutate(child, g, int(self.rng.integers(0, self.n_values[g])))
        return child

    def repair(self, child: Sequence[int]) -> int:
        """The unevaluated row nearest to ``child`` in Hamming distance (ties at random)."""
        dist = (self.genes != np.asarray(child)[None, :]).sum(axis=1)
        return self.argmax_candidate(-dist.astype(float))
