"""The genetic algorithm's representation and operators (Ganapathy 2020, Sections 3.1-3.5).

Pure functions of their arguments: the caller draws the random numbers (a uniform for a roulette
spin, a crossover point, a gene and its new value) and passes them in, so the same operators
serve the study's simulation (:mod:`nmthpo.studies.ganapathy.simulation`, one buffered uniform
stream) and the ask/tell optimiser (:class:`nmthpo.optimizers.ga.GAOptimizer`, a
``numpy.random.Generator``), and each is checked by hand against the paper's examples.

* :func:`gene_indices` / :class:`GeneSpace` -- a table's configurations as chromosomes of
  per-gene value indices (Section 3.1), and their fitness (BLEU, 0 for an absent combination);
* :func:`selection_probabilities`, :func:`roulette` (:class:`Wheel` for many spins),
  :func:`fitter_first` -- fitness-
  proportional (roulette-wheel) selection of two parents, the fitter one first (Section 3.3);
* :func:`one_point_crossover` (Section 3.4) and :func:`two_point_crossover` (Section 5), each
  checking its arguments and then calling its ``*_unchecked`` form, which the simulation's inner
  loop calls directly (the one definition of each operator);
* :func:`mutate`, :func:`mutation_candidates` -- one gene redrawn, never in the weakest
  individual (Section 3.5);
* :func:`weakest_index` -- the individual a steady-state offspring replaces (Section 2).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # annotations only: the GA optimiser's module stays free of pandas
    import pandas as pd

__all__ = [
    "GeneSpace",
    "Wheel",
    "fitter_first",
    "gene_indices",
    "mutate",
    "mutation_candidates",
    "one_point_crossover",
    "one_point_crossover_unchecked",
    "roulette",
    "selection_probabilities",
    "two_point_crossover",
    "two_point_crossover_unchecked",
    "weakest_index",
]


def gene_indices(columns: Sequence[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
    """Per-gene distinct values (ascending) and each row's chromosome as value indices.

    Parameters
    ----------
    columns : sequence of ndarray of shape (n,)
        One array per gene (hyperparameter), the values of the table's ``n`` rows.

    Returns
    -------
    values : list of ndarray
        ``values[g]`` holds gene ``g``'s distinct values (``numpy.unique``).
    genes : ndarray of shape (n, d), int64
        ``values[g][genes[i, g]]`` is row ``i``'s value of gene ``g`` (Section 3.1: a
        chromosome is the tuple of a configuration's hyperparameter values).
    """
    if len(columns) == 0:
        raise ValueError("a chromosome needs at least one gene (column)")
    cols = [np.unique(np.asarray(c), return_inverse=True) for c in columns]
    genes = np.column_stack([inv.reshape(-1) for _, inv in cols]).astype(np.int64)
    return [v for v, _ in cols], genes


# -- the gene space ----------------------------------------------------------------------------
@dataclass(frozen=True)
class GeneSpace:
    """The table seen as chromosomes: per-gene value lists and a chromosome -> BLEU lookup.

    Attributes
    ----------
    names : tuple of str
        Gene (hyperparameter) names.
    values : tuple of tuple of float
        The distinct values present in the table, ascending, one tuple per gene.
    genes : ndarray of shape (n, d), int
        Each row's chromosome as per-gene value indices.
    fitness : dict
        Chromosome (tuple of value indices) -> BLEU; absent chromosomes have fitness 0.
    """

    names: tuple[str, ...]
    values: tuple[tuple[float, ...], ...]
    genes: np.ndarray
    fitness: dict[tuple[int, ...], float] = field(repr=False)

    @classmethod
    def from_table(cls, configs: pd.DataFrame, bleu: np.ndarray) -> GeneSpace:
        """Build the space of a table's configurations (one column per gene) and BLEU."""
        bleu = np.asarray(bleu, dtype=float)
        if len(configs) != bleu.size:
            raise ValueError(f"{len(configs)} configurations but {bleu.size} BLEU values")
        if bleu.size == 0:
            raise ValueError("the table is empty")
        if np.any(bleu <= 0):
            raise ValueError("fitness-proportional selection needs positive BLEU in every row")
        names = tuple(str(c) for c in configs.columns)
        uniq, genes = gene_indices([configs[c].to_numpy() for c in configs.columns])
        values = tuple(tuple(float(v) for v in u) for u in uniq)
        keys = [tuple(int(v) for v in g) for g in genes]
        if len(set(keys)) != len(keys):
            raise ValueError("the table holds duplicate configurations; chromosomes must be unique")
        return cls(names, values, genes, dict(zip(keys, bleu.tolist(), strict=True)))

    @property
    def n_rows(self) -> int:
        return int(self.genes.shape[0])

    @property
    def n_genes(self) -> int:
        return int(self.genes.shape[1])

    @property
    def grid_size(self) -> int:
        """Number of chromosomes in the full grid of present values (216 for ja-en)."""
        return int(np.prod([len(v) for v in self.values]))

    def chromosome(self, row: int) -> tuple[int, ...]:
        """The chromosome (value indices) of table row ``row``."""
        return tuple(map(int, self.genes[row].tolist()))

    def decode(self, chrom: Sequence[int]) -> tuple[float, ...]:
        """Hyperparameter values of a chromosome, e.g. ``(10000.0, 4.0, 512.0, ...)``."""
        return tuple(self.values[g][i] for g, i in enumerate(chrom))


# -- operators ---------------------------------------------------------------------------------
def selection_probabilities(fitness: Sequence[float]) -> np.ndarray:
    """Roulette-wheel probabilities ``f_i / sum(f)`` (Ganapathy 2020, Section 3.3)."""
    f = np.asarray(fitness, dtype=float)
    if f.ndim != 1 or f.size == 0:
        raise ValueError("fitness must be a non-empty 1-d array")
    if np.any(f < 0) or f.sum() <= 0:
        raise ValueError("fitness-proportional selection needs fitness >= 0 with a positive sum")
    return f / f.sum()


class Wheel:
    """The roulette wheel of one set of fitnesses, spun many times (Section 3.3).

    ``Wheel(fitness).spin(u)`` equals :func:`roulette` ``(fitness, u)``: the cumulative fitnesses
    ``F_i`` (positive entries, added left to right) are formed once and each spin is a binary
    search (O(log m) instead of a scan), with the same floating-point sums and so the same
    picks. The generational GA spins one generation's wheel ``2 m`` times or more.
    """

    __slots__ = ("_acc", "_pick", "total")

    def __init__(self, fitness: Sequence[float]) -> None:
        total = float(sum(fitness))
        if not total > 0:  # also NaN
            raise ValueError("fitness-proportional selection needs a positive total fitness")
        self.total = total
        acc = 0.0
        self._acc: list[float] = []
        self._pick: list[int] = []
        for i, f in enumerate(fitness):
            if f > 0:
                acc += f
                self._acc.append(acc)
                self._pick.append(i)
        # a spin at or past the last sum (``u * F`` rounded up to ``F``) picks the last
        # individual of positive fitness, as roulette does: one more entry spares every spin
        # a bounds test
        self._pick.append(self._pick[-1])

    def spin(self, u: float) -> int:
        """Index picked for a uniform ``u`` in [0, 1): first ``i`` with ``u*F < F_i``."""
        return self._pick[bisect_right(self._acc, u * self.total)]


def roulette(fitness: Sequence[float], u: float) -> int:
    """Index picked by the wheel for a uniform ``u`` in [0, 1): first ``i`` with ``u*F < F_i``.

    ``F_i`` are the cumulative fitnesses (the paper's "range values", e.g. [10, 35, 50, 55, 100]
    for percentages 10, 25, 15, 5, 45: ``u = 0.3`` picks individual 2, index 1). Individuals of
    fitness 0 are never picked. A scan, cheapest for one spin; :class:`Wheel` gives the same
    picks for many spins of one set of fitnesses (tested).
    """
    total = float(sum(fitness))
    if not total > 0:  # also NaN
        raise ValueError("fitness-proportional selection needs a positive total fitness")
    x = u * total
    acc = 0.0
    last = 0
    for i, f in enumerate(fitness):
        if f > 0:
            acc += f
            last = i
            if x < acc:
                return i
    return last


def one_point_crossover(p1: Sequence[int], p2: Sequence[int], point: int) -> tuple[int, ...]:
    """Genes ``[:point]`` of ``p1`` (the fitter parent) and ``[point:]`` of ``p2`` (Section 3.4).

    Checks its arguments, then calls :func:`one_point_crossover_unchecked`.
    """
    if len(p1) != len(p2):
        raise ValueError("parents must have the same number of genes")
    if not 0 <= point <= len(p1):
        raise ValueError(f"crossover point must be in 0..{len(p1)}, got {point}")
    return one_point_crossover_unchecked(tuple(p1), tuple(p2), point)


def one_point_crossover_unchecked(
    p1: tuple[int, ...], p2: tuple[int, ...], point: int
) -> tuple[int, ...]:
    """:func:`one_point_crossover` of two tuples, the arguments not checked.

    For an inner loop whose parents are tuples of one length and whose point is in
    ``0..len(p1)`` by construction (the study's simulation breeds millions of children).
    """
    return p1[:point] + p2[point:]


def two_point_crossover(p1: Sequence[int], p2: Sequence[int], a: int, b: int) -> tuple[int, ...]:
    """Genes of ``p1`` with those in ``[min(a,b), max(a,b))`` taken from ``p2`` (Section 5).

    Checks its arguments, then calls :func:`two_point_crossover_unchecked`.
    """
    lo, hi = min(a, b), max(a, b)
    if len(p1) != len(p2) or not 0 <= lo <= hi <= len(p1):
        raise ValueError(f"cut points must be in 0..{len(p1)} for equal-length parents")
    return two_point_crossover_unchecked(tuple(p1), tuple(p2), a, b)


def two_point_crossover_unchecked(
    p1: tuple[int, ...], p2: tuple[int, ...], a: int, b: int
) -> tuple[int, ...]:
    """:func:`two_point_crossover` of two tuples, the arguments not checked.

    As :func:`one_point_crossover_unchecked`: the cut points must be in ``0..len(p1)``.
    """
    lo, hi = (a, b) if a <= b else (b, a)
    return p1[:lo] + p2[lo:hi] + p1[hi:]


def fitter_first(i: int, j: int, fitness: Sequence[float]) -> tuple[int, int]:
    """The two selected parents ``(i, j)`` ordered fitter first (ties keep ``i`` first).

    One-point crossover takes the leading genes from the fitter parent (Section 3.4).
    """
    return (i, j) if fitness[i] >= fitness[j] else (j, i)


def mutate(chrom: Sequence[int], gene: int, value: int) -> tuple[int, ...]:
    """``chrom`` with gene ``gene`` set to value index ``value`` (Section 3.5's mutation)."""
    genes = list(chrom)
    genes[gene] = value
    return tuple(genes)


def mutation_candidates(fitness: Sequence[float], weakest: int) -> list[int]:
    """Indices that may be mutated: every individual but ``weakest`` (Section 3.5)."""
    return [i for i in range(len(fitness)) if i != weakest]


def weakest_index(fitness: Sequence[float]) -> int:
    """The individual the offspring replaces: lowest fitness, first one on ties."""
    return int(np.argmin(np.asarray(fitness, dtype=float)))
