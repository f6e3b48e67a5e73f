"""The steady-state genetic algorithm of Ganapathy (2020) and its random baseline, on a table.

Ganapathy (2020), Sections 2-4, tunes the six Transformer hyperparameters of the ja-en table
(150 rows, 7 with BLEU >= 16) with a genetic algorithm (GA) and compares it with random search:

* an *individual* is the 6-gene chromosome of hyperparameter values (Section 3.1); its *fitness*
  is its BLEU, and 0 for a combination the table does not hold (Section 2);
* two parents are chosen by fitness-proportional (roulette-wheel) selection (Section 3.3);
* one-point crossover at a random gene: genes before the point from the fitter parent, the rest
  from the other (Section 3.4);
* with rate 1/8 one random gene of one random individual *other than the weakest* is redrawn
  from the values present in the data (Section 3.5);
* steady state: one offspring per breeding cycle replaces the weakest individual; an individual
  that has already been in the population, or whose genes are in it, is not added (Section 2);
* an iteration stops once an individual with BLEU >= 16 is in the population (Section 4).

The measure (Sections 2 and 4) is the number of individuals added until the target is in the
population, *plus* the initial population size, averaged over 1000 iterations; each of 3 trials
reports that average for initial populations of 5, 10, 15, 20 and 25 shared by GA and baseline.

Counting rules the paper leaves open, pinned down by its Tables 2-3 (every one is a keyword of
:func:`ga_study`; the defaults are the reproduced setting):

* ``init_replacement=True`` -- the initial population is ``m`` random row indices drawn *with*
  replacement (Section 4.2: "selected a random index value from 0 to one less than the size of
  the data set"), shared by GA and baseline;
* ``baseline_replacement=True`` -- the baseline draws rows with replacement and counts every
  draw: ``m`` if the initial population holds a target, else ``m + Geometric(7/150)``. Its exact
  mean (:func:`baseline_expectation`) is 21.874, 23.287, 25.463, 28.239, 31.488 for
  m = 5..25; the paper's 21.425 ... 31.598 are within 1.2 standard errors, whereas drawing
  without replacement (19.3 ... 29.3) or distinct initial rows (21.8 ... 30.8) are not;
* ``count_invalid=True`` -- an offspring absent from the table enters the population with
  fitness 0 and is counted (Section 2); Section 5's proposal not to count it is ``False``
  (it is then discarded);
* ``memory="history"`` -- an individual that has *ever* been in the population is not added
  again (Section 2: "already been in the population"); ``"population"`` checks only the current
  population;
* ``count_mutants="new"`` -- a mutation that puts a never-seen individual into the population
  counts as an addition (``"none"``: mutations never count; ``"all"``: every mutation counts);
* ``mutation_draw="value"`` -- the new gene value is uniform over the values present in the
  data (``"row"``: the value of a uniformly random row, i.e. frequency-weighted);
* ``check_initial=False`` -- the GA tests the stop rule after each breeding cycle only, so an
  initial population that already holds a target still breeds (and counts) one offspring; the
  baseline does test its initial population (its closed form requires it).

These were chosen by the fit to Table 2 over the grid memory x count_mutants x mutation_draw x
init_replacement x check_initial (``count_duplicates=True``, counting every breeding cycle,
gives 127 individuals for m = 5 and was rejected at once).

Other choices the paper leaves open (documented, not parameters): the two roulette spins are
independent (the same individual may be drawn twice; the clone offspring is then a duplicate and
is not added); the crossover point ``c`` is uniform on ``0..5`` and the child takes genes
``[:c]`` from the fitter parent and ``[c:]`` from the other (``c = 0`` copies the second
parent); the weakest individual (first one on ties) is fixed at the start of a cycle, is
excluded from mutation, and is the one the offspring replaces; a mutation changes the individual
in place even when the result was seen before (it is then not counted); the stop test sees
mutants too (a mutant hitting the target stops the iteration at the end of its cycle).

Variants proposed in Section 5 (each a keyword of :func:`ga_count` / :func:`ga_study`):
``mutation_before_selection``, ``weighted_replacement`` (the individual replaced is drawn with
probability proportional to ``1 / fitness``; a zero-fitness individual is replaced first),
``two_point`` crossover (the genes between two random cut points come from the second parent),
``generational`` replacement, and ``count_invalid=False``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from math import comb, sqrt
from typing import Any

import numpy as np
import pandas as pd

#: The paper's results (Ganapathy 2020, Tables 2-4): initial population size -> value.
PAPER_GA: dict[int, float] = {5: 20.071, 10: 20.714, 15: 23.794, 20: 27.614, 25: 31.463}
PAPER_BASELINE: dict[int, float] = {5: 21.425, 10: 23.116, 15: 25.671, 20: 28.330, 25: 31.598}
PAPER_DIFFERENCE: dict[int, float] = {5: 1.354, 10: 2.402, 15: 1.877, 20: 0.716, 25: 0.135}
#: Per-trial values of Tables 2 and 3 (trials 1-3).
PAPER_GA_TRIALS: dict[int, tuple[float, float, float]] = {
    5: (20.056, 19.91, 20.247), 10: (21.011, 20.739, 20.392), 15: (23.91, 23.933, 23.54),
    20: (27.555, 28.019, 27.267), 25: (31.475, 30.816, 32.099),
}
PAPER_BASELINE_TRIALS: dict[int, tuple[float, float, float]] = {
    5: (20.435, 21.949, 21.891), 10: (23.513, 22.545, 23.29), 15: (26.056, 25.611, 25.345),
    20: (28.332, 28.292, 28.365), 25: (31.857, 30.819, 32.117),
}

#: Guard against a breeding loop that cannot make progress (never hit on the NMTHPO tables).
MAX_CYCLES = 1_000_000


# -- the gene space ---------------------------------------------------------------------------
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
        values, cols = [], []
        for c in configs.columns:
            uniq, inv = np.unique(configs[c].to_numpy(), return_inverse=True)
            values.append(tuple(float(v) for v in uniq))
            cols.append(inv.astype(np.int64))
        genes = np.column_stack(cols)
        keys = [tuple(int(v) for v in g) for g in genes]
        if len(set(keys)) != len(keys):
            raise ValueError("the table holds duplicate configurations; chromosomes must be unique")
        return cls(names, tuple(values), genes, dict(zip(keys, bleu.tolist(), strict=True)))

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
        return tuple(int(v) for v in self.genes[row])

    def decode(self, chrom: Sequence[int]) -> tuple[float, ...]:
        """Hyperparameter values of a chromosome, e.g. ``(10000.0, 4.0, 512.0, ...)``."""
        return tuple(self.values[g][i] for g, i in enumerate(chrom))


# -- genetic operators (pure, hand-checkable) ---------------------------------------------------
def selection_probabilities(fitness: Sequence[float]) -> np.ndarray:
    """Roulette-wheel probabilities ``f_i / sum(f)`` (Ganapathy 2020, Section 3.3)."""
    f = np.asarray(fitness, dtype=float)
    if f.ndim != 1 or f.size == 0:
        raise ValueError("fitness must be a non-empty 1-d array")
    if np.any(f < 0) or f.sum() <= 0:
        raise ValueError("fitness-proportional selection needs fitness >= 0 with a positive sum")
    return f / f.sum()


def roulette(fitness: Sequence[float], u: float) -> int:
    """Index picked by the wheel for a uniform ``u`` in [0, 1): first ``i`` with ``u*F < F_i``.

    ``F_i`` are the cumulative fitnesses (the paper's "range values", e.g. [10, 35, 50, 55, 100]
    for percentages 10, 25, 15, 5, 45: ``u = 0.3`` picks individual 2, index 1). Individuals of
    fitness 0 are never picked.
    """
    total = float(sum(fitness))
    if total <= 0:
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
    """Genes ``[:point]`` of ``p1`` (the fitter parent) and ``[point:]`` of ``p2`` (Section 3.4)."""
    if len(p1) != len(p2):
        raise ValueError("parents must have the same number of genes")
    if not 0 <= point <= len(p1):
        raise ValueError(f"crossover point must be in 0..{len(p1)}, got {point}")
    return tuple(p1[:point]) + tuple(p2[point:])


def two_point_crossover(
    p1: Sequence[int], p2: Sequence[int], a: int, b: int
) -> tuple[int, ...]:
    """Genes of ``p1`` with those in ``[min(a,b), max(a,b))`` taken from ``p2`` (Section 5)."""
    lo, hi = min(a, b), max(a, b)
    if len(p1) != len(p2) or not 0 <= lo <= hi <= len(p1):
        raise ValueError(f"cut points must be in 0..{len(p1)} for equal-length parents")
    return tuple(p1[:lo]) + tuple(p2[lo:hi]) + tuple(p1[hi:])


def mutation_candidates(fitness: Sequence[float], weakest: int) -> list[int]:
    """Indices that may be mutated: every individual but ``weakest`` (Section 3.5)."""
    return [i for i in range(len(fitness)) if i != weakest]


def weakest_index(fitness: Sequence[float]) -> int:
    """The individual the offspring replaces: lowest fitness, first one on ties."""
    return int(np.argmin(np.asarray(fitness, dtype=float)))


# -- the random stream ---------------------------------------------------------------------------
class _Uniforms:
    """Buffered uniforms from one Generator (fast scalar draws in the Python inner loop)."""

    def __init__(self, rng: np.random.Generator, block: int = 4096) -> None:
        self.rng = rng
        self.block = block
        self.buf: list[float] = []
        self.i = 0

    def __call__(self) -> float:
        if self.i >= len(self.buf):
            self.buf = self.rng.random(self.block).tolist()
            self.i = 0
        u = self.buf[self.i]
        self.i += 1
        return u

    def integer(self, n: int) -> int:
        return min(int(self() * n), n - 1)


# -- one GA iteration ------------------------------------------------------------------------------
@dataclass(frozen=True)
class GARules:
    """The GA's counting rules and variants (see the module docstring for each)."""

    mutation_rate: float = 1 / 8
    count_invalid: bool = True
    count_mutants: str = "new"
    memory: str = "history"
    mutation_draw: str = "value"
    count_duplicates: bool = False
    check_initial: bool = False
    mutation_before_selection: bool = False
    weighted_replacement: bool = False
    two_point: bool = False
    generational: bool = False

    def validate(self) -> GARules:
        if not 0.0 <= self.mutation_rate <= 1.0:
            raise ValueError(f"mutation_rate must be in [0, 1], got {self.mutation_rate}")
        if self.count_mutants not in ("none", "new", "all"):
            raise ValueError(f"count_mutants must be 'none', 'new' or 'all', got "
                             f"{self.count_mutants!r}")
        if self.mutation_draw not in ("row", "value"):
            raise ValueError(f"mutation_draw must be 'row' or 'value', got {self.mutation_draw!r}")
        if self.memory not in ("history", "population"):
            raise ValueError(f"memory must be 'history' or 'population', got {self.memory!r}")
        return self


def ga_count(
    space: GeneSpace,
    init_rows: Sequence[int],
    target: float,
    rng: np.random.Generator | _Uniforms,
    rules: GARules | None = None,
    trace: list[list[tuple[int, ...]]] | None = None,
) -> int:
    """Run one GA iteration from the initial rows; return individuals added + initial size.

    Parameters
    ----------
    space : GeneSpace
    init_rows : sequence of int
        Table rows of the initial population (duplicates allowed, size >= 2).
    target : float
        Stop once an individual with fitness >= target is in the population.
    rng : numpy.random.Generator
        Source of randomness (a buffered stream of it is used internally).
    rules : GARules, optional
        Counting rules and variants; default: the reproduced paper setting.
    trace : list, optional
        If given, a copy of the population is appended after every breeding cycle
        (steady state) or generation (generational), for inspection and tests.
    """
    rules = (rules or GARules()).validate()
    u = rng if isinstance(rng, _Uniforms) else _Uniforms(rng)
    if len(init_rows) < 2:
        raise ValueError("the GA needs an initial population of at least 2 individuals")
    pop = [space.chromosome(int(r)) for r in init_rows]
    fit = [space.fitness[c] for c in pop]
    count = len(pop)
    if max(fit) >= target and (rules.check_initial or rules.generational):
        return count
    if rules.generational:
        return _generational(space, pop, fit, count, target, u, rules, trace)
    fitness_of = space.fitness
    seen = set(pop)
    d = space.n_genes
    cols = _mutation_pools(space, rules.mutation_draw)
    n = space.n_rows
    rate = rules.mutation_rate
    history = rules.memory == "history"
    for _ in range(MAX_CYCLES):
        weakest = _replaced_index(fit, u, rules.weighted_replacement)
        if rules.mutation_before_selection and u() < rate:
            count += _mutate(pop, fit, weakest, seen, fitness_of, cols, n, u, rules)
        if sum(fit) <= 0:  # only possible if mutations zeroed every individual
            i, j = u.integer(len(pop)), u.integer(len(pop))
        else:
            i, j = roulette(fit, u()), roulette(fit, u())
        p1, p2 = (pop[i], pop[j]) if fit[i] >= fit[j] else (pop[j], pop[i])
        if rules.two_point:
            child = two_point_crossover(p1, p2, u.integer(d + 1), u.integer(d + 1))
        else:
            child = one_point_crossover(p1, p2, u.integer(d))
        if not rules.mutation_before_selection and u() < rate:
            count += _mutate(pop, fit, weakest, seen, fitness_of, cols, n, u, rules)
        if history:
            new = child not in seen
        else:
            new = child not in pop
        if new:
            f = fitness_of.get(child, 0.0)
            if f > 0 or rules.count_invalid:
                seen.add(child)
                pop[weakest] = child
                fit[weakest] = f
                count += 1
            else:
                seen.add(child)  # discarded, and never tried as "new" again
        elif rules.count_duplicates:
            count += 1
        if trace is not None:
            trace.append(list(pop))
        if max(fit) >= target:
            return count
    raise RuntimeError(f"the GA did not reach {target} within {MAX_CYCLES} breeding cycles")


def _replaced_index(fit: list[float], u: _Uniforms, weighted: bool) -> int:
    if not weighted:
        return min(range(len(fit)), key=fit.__getitem__)
    zeros = [i for i, f in enumerate(fit) if f <= 0]
    if zeros:
        return zeros[0]
    return roulette([1.0 / f for f in fit], u())


def _mutate(
    pop: list[tuple[int, ...]], fit: list[float], weakest: int, seen: set[tuple[int, ...]],
    fitness_of: Mapping[tuple[int, ...], float], cols: list[list[int]], n: int, u: _Uniforms,
    rules: GARules,
) -> int:
    """Mutate one random non-weakest individual in place; return 1 if it counts as added."""
    k = u.integer(len(pop) - 1)
    k = k if k < weakest else k + 1
    g = u.integer(len(cols))
    genes = list(pop[k])
    genes[g] = cols[g][u.integer(len(cols[g]))]
    child = tuple(genes)
    new = child not in seen
    f = fitness_of.get(child, 0.0)
    pop[k] = child
    fit[k] = f
    seen.add(child)
    if rules.count_mutants == "all":
        return 1
    return int(rules.count_mutants == "new" and new and (f > 0 or rules.count_invalid))


def _mutation_pools(space: GeneSpace, draw: str) -> list[list[int]]:
    """Per gene, the value indices a mutation draws from uniformly (rows or distinct values)."""
    if draw == "row":
        return [space.genes[:, g].tolist() for g in range(space.n_genes)]
    return [list(range(len(v))) for v in space.values]


def _generational(
    space: GeneSpace, pop: list[tuple[int, ...]], fit: list[float], count: int, target: float,
    u: _Uniforms, rules: GARules, trace: list[list[tuple[int, ...]]] | None = None,
) -> int:
    """Generational variant: breed ``m`` new offspring, then replace the whole population.

    Offspring are bred from the current generation (roulette parents, crossover, then with the
    mutation rate one gene of the *offspring* redrawn). An offspring seen before joins the new
    generation but is not counted (its fitness is known; rejecting it, as the steady-state GA
    does, can leave a generation that cannot be filled). A new offspring not in the table takes
    a slot with fitness 0 and counts if ``count_invalid``; otherwise it is discarded and re-bred.
    The iteration stops as soon as a target offspring joins. If a generation has zero total
    fitness, parents are drawn uniformly. The initial population is always tested
    (``check_initial`` is ignored here).
    """
    m = len(pop)
    d = space.n_genes
    cols = _mutation_pools(space, rules.mutation_draw)
    seen = set(pop)
    cycles = 0
    while True:
        new_pop: list[tuple[int, ...]] = []
        new_fit: list[float] = []
        while len(new_pop) < m:
            cycles += 1
            if cycles > MAX_CYCLES:
                raise RuntimeError(f"the GA did not reach {target} within {MAX_CYCLES} cycles")
            if sum(fit) > 0:
                i, j = roulette(fit, u()), roulette(fit, u())
            else:
                i, j = u.integer(m), u.integer(m)
            p1, p2 = (pop[i], pop[j]) if fit[i] >= fit[j] else (pop[j], pop[i])
            if rules.two_point:
                child = two_point_crossover(p1, p2, u.integer(d + 1), u.integer(d + 1))
            else:
                child = one_point_crossover(p1, p2, u.integer(d))
            if u() < rules.mutation_rate:
                genes = list(child)
                g = u.integer(d)
                genes[g] = cols[g][u.integer(len(cols[g]))]
                child = tuple(genes)
            f = space.fitness.get(child, 0.0)
            if child not in seen:
                if f <= 0 and not rules.count_invalid:
                    seen.add(child)
                    continue
                seen.add(child)
                count += 1
            new_pop.append(child)
            new_fit.append(f)
            if f >= target:
                return count
        pop, fit = new_pop, new_fit
        if trace is not None:
            trace.append(list(pop))


# -- the baseline ----------------------------------------------------------------------------------
def baseline_expectation(
    n_rows: int, n_hits: int, m: int, replacement: bool = True, init_replacement: bool = True
) -> tuple[float, float]:
    """Exact mean and variance of the baseline's count (initial population included).

    The initial population is ``m`` rows drawn with (``init_replacement``) or without
    replacement; if it holds none of the ``n_hits`` target rows, further rows are drawn until a
    target is drawn: with replacement every draw counts (geometric, ``p = n_hits / n_rows``);
    without replacement (no re-draw of any row seen, initial ones included) the count of
    draws is the position of the first target among the unseen rows.

    For ja-en (150 rows, 7 >= 16) and ``m = 5, 10, 15, 20, 25`` the default rule gives
    21.874, 23.287, 25.463, 28.239, 31.488 -- the paper's 21.425, 23.116, 25.671, 28.330,
    31.598 lie within 1.2 of their standard errors (Table 3).
    """
    if not 0 < n_hits <= n_rows:
        raise ValueError(f"need 0 < n_hits <= n_rows, got {n_hits} of {n_rows}")
    if m < 1:
        raise ValueError(f"initial population size must be >= 1, got {m}")
    if not init_replacement and m > n_rows:
        raise ValueError(f"cannot draw {m} distinct rows from {n_rows}")
    p = n_hits / n_rows
    if replacement:
        p0 = (1 - p) ** m if init_replacement else comb(n_rows - n_hits, m) / comb(n_rows, m)
        eg, eg2 = 1 / p, (2 - p) / p**2
        return m + p0 * eg, p0 * eg2 - (p0 * eg) ** 2
    # without replacement: condition on the number k of distinct initial rows (all non-targets)
    dist = _distinct_init_distribution(n_rows, n_hits, m, init_replacement)
    mean = second = 0.0
    for k, prob in dist.items():
        r = n_rows - k  # unseen rows, n_hits of them targets
        # position K of the first target among r: E = (r+1)/(b+1), E[K^2] closed form
        b = n_hits
        ek = (r + 1) / (b + 1)
        var_k = b * (r + 1) * (r - b) / ((b + 1) ** 2 * (b + 2))
        mean += prob * ek
        second += prob * (var_k + ek**2)
    p0 = sum(dist.values())
    # count = m + K on the no-target event, m otherwise
    e = m + mean
    e2 = (1 - p0) * m**2 + p0 * m**2 + 2 * m * mean + second
    return e, e2 - e**2


def _distinct_init_distribution(
    n_rows: int, n_hits: int, m: int, init_replacement: bool
) -> dict[int, float]:
    """P(no target in the initial population and it has k distinct rows), by k."""
    good = n_rows - n_hits
    if not init_replacement:
        return {m: comb(good, m) / comb(n_rows, m)}
    # occupancy: m draws with replacement, all from the `good` rows, k distinct
    # P = C(good, k) * S(m, k) * k! / n^m with S the Stirling numbers of the second kind
    out: dict[int, float] = {}
    stirling = [[0] * (m + 1) for _ in range(m + 1)]
    stirling[0][0] = 1
    for i in range(1, m + 1):
        for k in range(1, i + 1):
            stirling[i][k] = k * stirling[i - 1][k] + stirling[i - 1][k - 1]
    fact = 1
    for k in range(1, m + 1):
        fact *= k
        if k <= good:
            out[k] = comb(good, k) * stirling[m][k] * fact / n_rows**m
    return out


def baseline_counts(
    is_hit: np.ndarray, init: np.ndarray, rng: np.random.Generator, replacement: bool = True
) -> np.ndarray:
    """Simulated baseline counts for each initial population (rows of ``init``), vectorised.

    ``is_hit`` flags the target rows. With replacement: ``m + Geometric(b / n)`` when the
    initial population holds no target; without replacement: ``m + K`` with ``K`` the position
    of the first target among the rows not seen, drawn as ``1 + Binomial(r - b, T)``,
    ``T ~ Beta(1, b)`` the earliest of the ``b`` targets' uniform keys.
    """
    is_hit = np.asarray(is_hit, dtype=bool)
    init = np.asarray(init, dtype=np.int64)
    n, b = is_hit.size, int(is_hit.sum())
    if b == 0:
        raise ValueError("no row reaches the target; the baseline would never stop")
    iters, m = init.shape
    found = is_hit[init].any(axis=1)
    if replacement:
        extra = rng.geometric(b / n, size=iters)
    else:
        srt = np.sort(init, axis=1)
        distinct = 1 + (np.diff(srt, axis=1) != 0).sum(axis=1)
        r = n - distinct
        t = rng.beta(1.0, b, size=iters)
        extra = 1 + rng.binomial(r - b, t)
    return np.where(found, m, m + extra).astype(np.int64)


# -- the study -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StudyRules:
    """Every rule of the study (the reproduced paper setting by default)."""

    target: float = 16.0
    init_replacement: bool = True
    baseline_replacement: bool = True
    ga: GARules = field(default_factory=GARules)

    def as_dict(self) -> dict[str, Any]:
        return {**{k: v for k, v in asdict(self).items() if k != "ga"}, **asdict(self.ga)}


#: The fair count of Section 5's open question: only distinct table rows count (initial rows
#: distinct, no re-draws, offspring not in the table free, new existing mutants count).
FAIR_RULES: dict[str, Any] = {
    "init_replacement": False, "baseline_replacement": False, "count_invalid": False,
    "count_mutants": "new", "check_initial": True,
}


@dataclass
class GAStudy:
    """Per-iteration counts of one study and its summaries (Tables 2-4)."""

    rules: StudyRules
    init_pops: tuple[int, ...]
    ga_counts: dict[int, np.ndarray]  # m -> (trials, iterations)
    baseline_counts: dict[int, np.ndarray]

    def per_trial(self, which: str) -> pd.DataFrame:
        """Trial averages: a row per initial population size, a column per trial."""
        counts = self.ga_counts if which == "ga" else self.baseline_counts
        return pd.DataFrame(
            {f"trial {t + 1}": [counts[m][t].mean() for m in self.init_pops]
             for t in range(counts[self.init_pops[0]].shape[0])},
            index=pd.Index(self.init_pops, name="init_pop"),
        )

    def average(self, which: str) -> pd.Series:
        """Average over all trials and iterations, per initial population size."""
        counts = self.ga_counts if which == "ga" else self.baseline_counts
        return pd.Series({m: float(counts[m].mean()) for m in self.init_pops}, name=which)

    def std_error(self, which: str) -> pd.Series:
        """Standard error of :meth:`average` (sample std of the counts / sqrt(#counts))."""
        counts = self.ga_counts if which == "ga" else self.baseline_counts
        return pd.Series({m: float(counts[m].std(ddof=1) / sqrt(counts[m].size))
                          for m in self.init_pops}, name=which)

    def difference(self) -> pd.Series:
        """Baseline minus GA average (Table 4; positive means the GA needs fewer)."""
        return (self.average("baseline") - self.average("ga")).rename("difference")

    def difference_se(self) -> pd.Series:
        """Standard error of the paired difference (shared initial populations)."""
        return pd.Series({m: float((self.baseline_counts[m] - self.ga_counts[m]).std(ddof=1)
                                   / sqrt(self.ga_counts[m].size)) for m in self.init_pops})

    def table(self) -> pd.DataFrame:
        """Reproduced averages beside the paper's, with standard errors and z-scores."""
        rows = []
        for m in self.init_pops:
            row: dict[str, Any] = {"init_pop": m}
            for which, paper in (("ga", PAPER_GA), ("baseline", PAPER_BASELINE)):
                avg, se = self.average(which)[m], self.std_error(which)[m]
                row[which] = avg
                row[f"{which}_se"] = se
                row[f"{which}_paper"] = paper.get(m, np.nan)
                row[f"{which}_z"] = (paper.get(m, np.nan) - avg) / se
            row["difference"] = self.difference()[m]
            row["difference_se"] = self.difference_se()[m]
            row["difference_paper"] = PAPER_DIFFERENCE.get(m, np.nan)
            rows.append(row)
        return pd.DataFrame(rows).set_index("init_pop")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary: keys ``ga``, ``baseline`` (size as string -> average) and more."""
        def keyed(s: pd.Series) -> dict[str, float]:
            return {str(k): round(float(v), 4) for k, v in s.items()}

        return {
            "ga": keyed(self.average("ga")),
            "baseline": keyed(self.average("baseline")),
            "difference": keyed(self.difference()),
            "std_error": {"ga": keyed(self.std_error("ga")),
                          "baseline": keyed(self.std_error("baseline")),
                          "difference": keyed(self.difference_se())},
            "per_trial": {w: {str(m): [round(float(v), 4) for v in self.per_trial(w).loc[m]]
                              for m in self.init_pops} for w in ("ga", "baseline")},
            "paper": {"ga": {str(k): v for k, v in PAPER_GA.items()},
                      "baseline": {str(k): v for k, v in PAPER_BASELINE.items()},
                      "difference": {str(k): v for k, v in PAPER_DIFFERENCE.items()}},
            "rules": self.rules.as_dict(),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


def _check_sizes(init_pops: Sequence[int], n_rows: int, init_replacement: bool) -> tuple[int, ...]:
    sizes = tuple(int(m) for m in init_pops)
    if not sizes:
        raise ValueError("give at least one initial population size, e.g. 5,10,15,20,25")
    for m in sizes:
        if m < 2:
            raise ValueError(f"initial population sizes must be >= 2, got {m}")
        if not init_replacement and m > n_rows:
            raise ValueError(f"initial population {m} exceeds the table's {n_rows} rows")
    return sizes


def initial_populations(
    n_rows: int, m: int, iterations: int, rng: np.random.Generator, replacement: bool = True
) -> np.ndarray:
    """``(iterations, m)`` initial populations of row indices, shared by GA and baseline."""
    if replacement:
        return rng.integers(0, n_rows, size=(iterations, m))
    keys = rng.random((iterations, n_rows))
    return np.argsort(keys, axis=1)[:, :m]


def ga_study(
    task: str = "ja-en",
    target: float = 16.0,
    init_pops: Sequence[int] = (5, 10, 15, 20, 25),
    iterations: int = 1000,
    trials: int = 3,
    seed: int = 0,
    *,
    init_replacement: bool = True,
    baseline_replacement: bool = True,
    mutation_rate: float = 1 / 8,
    count_invalid: bool = True,
    count_mutants: str = "new",
    memory: str = "history",
    mutation_draw: str = "value",
    count_duplicates: bool = False,
    check_initial: bool = False,
    mutation_before_selection: bool = False,
    weighted_replacement: bool = False,
    two_point: bool = False,
    generational: bool = False,
    run_baseline: bool = True,
) -> GAStudy:
    """Ganapathy (2020) Tables 2-4: GA and random baseline counts on one table.

    Iteration ``i`` of trial ``t`` for initial size ``m`` starts GA and baseline from the same
    initial population, drawn from ``default_rng([seed, t, m, 0])``; the GA uses
    ``default_rng([seed, t, m, 1])`` and the baseline ``default_rng([seed, t, m, 2])``, so a
    cell depends only on (seed, trial, size, rules). Keyword flags: see the module docstring.

    Raises
    ------
    KeyError
        For an unknown task.
    ValueError
        For a target no row reaches (the search would never stop), sizes below 2, or
        non-positive iterations/trials.
    """
    from nmthpo.benchmark.tables import load_table

    table = load_table(task)
    space = GeneSpace.from_table(table.configs, table.bleu)
    best = table.best_bleu
    if not target <= best:
        raise ValueError(
            f"target {target} is above the best BLEU {best:.2f} of {task}; the search would "
            f"never stop -- choose a target <= {best:.2f}"
        )
    if iterations < 1 or trials < 1:
        raise ValueError(f"iterations and trials must be >= 1, got {iterations}, {trials}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    sizes = _check_sizes(init_pops, table.n_rows, init_replacement)
    rules = StudyRules(
        target, init_replacement, baseline_replacement,
        GARules(mutation_rate=mutation_rate, count_invalid=count_invalid,
                count_mutants=count_mutants, memory=memory, mutation_draw=mutation_draw,
                count_duplicates=count_duplicates, check_initial=check_initial,
                mutation_before_selection=mutation_before_selection,
                weighted_replacement=weighted_replacement, two_point=two_point,
                generational=generational).validate(),
    )
    is_hit = table.bleu >= target
    ga: dict[int, np.ndarray] = {}
    base: dict[int, np.ndarray] = {}
    for m in sizes:
        ga[m] = np.empty((trials, iterations), dtype=np.int64)
        base[m] = np.empty((trials, iterations), dtype=np.int64)
        for t in range(trials):
            init = initial_populations(table.n_rows, m, iterations,
                                       np.random.default_rng([seed, t, m, 0]), init_replacement)
            u = _Uniforms(np.random.default_rng([seed, t, m, 1]))
            ga[m][t] = [ga_count(space, row, target, u, rules.ga) for row in init.tolist()]
            if run_baseline:
                base[m][t] = baseline_counts(is_hit, init, np.random.default_rng([seed, t, m, 2]),
                                             baseline_replacement)
            else:
                base[m][t] = 0
    return GAStudy(rules, sizes, ga, base)


#: Section 5's proposed variants, each as keyword overrides of :func:`ga_study`.
VARIANTS: dict[str, dict[str, Any]] = {
    "paper": {},
    "mutation before selection": {"mutation_before_selection": True},
    "fitness-weighted replacement": {"weighted_replacement": True},
    "two-point crossover": {"two_point": True},
    "generational": {"generational": True},
    "invalid not counted": {"count_invalid": False},
}


def variant_table(
    task: str = "ja-en",
    target: float = 16.0,
    init_pops: Sequence[int] = (5, 10, 15, 20, 25),
    iterations: int = 1000,
    trials: int = 3,
    seed: int = 0,
    variants: Mapping[str, Mapping[str, Any]] | None = None,
    with_se: bool = False,
) -> pd.DataFrame:
    """GA average count of each variant: a row per variant, a column per initial size.

    A last row ``"baseline"`` holds the paper-rule random baseline on the same initial
    populations (common random numbers). With ``with_se`` each value is accompanied by a
    ``"<m> se"`` column (standard error over the ``trials * iterations`` counts).
    """
    variants = VARIANTS if variants is None else variants
    rows: dict[str, dict[str, float]] = {}
    study = None
    for name, kw in variants.items():
        study = ga_study(task, target, init_pops, iterations, trials, seed,
                         run_baseline=study is None, **kw)
        if "baseline" not in rows:
            rows["baseline"] = _row(study, "baseline", with_se)
        rows[name] = _row(study, "ga", with_se)
    rows["baseline"] = rows.pop("baseline")
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "variant"
    return frame


def _row(study: GAStudy, which: str, with_se: bool) -> dict[str, float]:
    avg, se = study.average(which), study.std_error(which)
    out: dict[str, float] = {}
    for m in study.init_pops:
        out[str(m)] = float(avg[m])
        if with_se:
            out[f"{m} se"] = float(se[m])
    return out


def fair_comparison(
    task: str = "ja-en",
    target: float = 16.0,
    init_pops: Sequence[int] = (5, 10, 15, 20, 25),
    iterations: int = 1000,
    trials: int = 10,
    seed: int = 0,
) -> pd.DataFrame:
    """GA vs random search when only distinct table rows count (Section 5's open question).

    Both start from the same ``m`` *distinct* random rows. Random search draws unseen rows
    without replacement; the GA counts an individual only if it is a table row it has not
    evaluated before (offspring or mutant), so combinations absent from the table and
    re-visits are free -- the count is the number of models one would have had to train. The
    count is taken until a row with BLEU >= ``target`` is found. Returns per size: GA and
    random means with standard errors over ``trials * iterations`` counts, random search's
    exact expectation, the paired edge (random - GA) with its standard error and z-score.
    """
    study = ga_study(task, target, init_pops, iterations, trials, seed, **FAIR_RULES)
    from nmthpo.benchmark.tables import load_table

    table = load_table(task)
    n, b = table.n_rows, int((table.bleu >= target).sum())
    ga, rs = study.average("ga"), study.average("baseline")
    ga_se, rs_se = study.std_error("ga"), study.std_error("baseline")
    diff, diff_se = study.difference(), study.difference_se()
    rows = []
    for m in study.init_pops:
        exact = baseline_expectation(n, b, m, replacement=False, init_replacement=False)[0]
        rows.append({"init_pop": m, "ga": ga[m], "ga_se": ga_se[m], "random": rs[m],
                     "random_se": rs_se[m], "random_exact": exact, "edge": diff[m],
                     "edge_se": diff_se[m], "edge_z": diff[m] / diff_se[m]})
    return pd.DataFrame(rows).set_index("init_pop")


# -- reading the paper's numbers: rule fits, verdicts, caches (Chapter 5) ------------------------
#: Candidate counting rules of the random baseline (Section 4.2): name -> (init_replacement,
#: baseline_replacement).
BASELINE_RULES: dict[str, tuple[bool, bool]] = {
    "draws with replacement (pinned)": (True, True),
    "distinct initial rows, draws with replacement": (False, True),
    "initial with replacement, draws without": (True, False),
    "distinct rows throughout (no re-draws)": (False, False),
}

#: GA counting rules tried against Table 2: the pinned setting and one change at a time.
GA_RULE_ALTERNATIVES: dict[str, dict[str, Any]] = {
    "pinned": {},
    "memory: current population only": {"memory": "population"},
    "mutants never counted": {"count_mutants": "none"},
    "every mutation counted": {"count_mutants": "all"},
    "mutation draws a row's value": {"mutation_draw": "row"},
    "distinct initial rows": {"init_replacement": False},
    "initial population tested first": {"check_initial": True},
    "every breeding cycle counted": {"count_duplicates": True},
}


def _paper_sizes(init_pops: Sequence[int]) -> tuple[int, ...]:
    sizes = tuple(int(m) for m in init_pops)
    missing = [m for m in sizes if m not in PAPER_GA]
    if not sizes or missing:
        raise ValueError(f"the paper reports initial population sizes {sorted(PAPER_GA)} only; "
                         f"got {list(sizes)} -- choose sizes among them")
    return sizes


def baseline_rule_table(
    task: str = "ja-en",
    target: float = 16.0,
    init_pops: Sequence[int] = (5, 10, 15, 20, 25),
    iterations: int = 1000,
    rules: Mapping[str, tuple[bool, bool]] | None = None,
) -> pd.DataFrame:
    """Exact baseline mean under each candidate counting rule, against Table 3 (no simulation).

    For every rule of :data:`BASELINE_RULES` (or ``rules``: name -> (init_replacement,
    baseline_replacement)) and size ``m``, :func:`baseline_expectation` gives the exact mean
    ``mu`` and variance ``v`` of one iteration's count. Under that rule the paper's trial value
    is a mean of ``iterations`` counts (standard error ``sqrt(v / iterations)``) and its average
    one of ``3 * iterations``. Returned per rule: the exact means (columns ``"5"``, ``"10"``,
    ...), ``chi2`` = sum over sizes of ``((paper average - mu) / se)^2`` with its p-value
    (``dof`` = number of sizes), ``chi2_trials`` over the paper's per-trial cells with its
    p-value (``dof_trials`` = 3 per size), and ``max_abs_z`` of the averages. A rule the
    paper's numbers are compatible with has a p-value that is not small.
    """
    from scipy.stats import chi2 as chi2_dist

    from nmthpo.benchmark.tables import load_table

    sizes = _paper_sizes(init_pops)
    if iterations < 1:
        raise ValueError(f"iterations must be >= 1, got {iterations}")
    table = load_table(task)
    n, b = table.n_rows, int((table.bleu >= target).sum())
    rows = []
    for name, (init_rep, base_rep) in (BASELINE_RULES if rules is None else rules).items():
        row: dict[str, Any] = {"rule": name, "init_replacement": init_rep,
                               "baseline_replacement": base_rep}
        c2 = c2t = 0.0
        zmax = 0.0
        for m in sizes:
            mu, var = baseline_expectation(n, b, m, base_rep, init_rep)
            trials = PAPER_BASELINE_TRIALS[m]
            z = (PAPER_BASELINE[m] - mu) / sqrt(var / (len(trials) * iterations))
            c2 += z**2
            zmax = max(zmax, abs(z))
            c2t += sum(((v - mu) / sqrt(var / iterations)) ** 2 for v in trials)
            row[str(m)] = mu
        ntr = sum(len(PAPER_BASELINE_TRIALS[m]) for m in sizes)
        row.update(chi2=c2, dof=len(sizes), p=float(chi2_dist.sf(c2, len(sizes))),
                   chi2_trials=c2t, dof_trials=ntr, p_trials=float(chi2_dist.sf(c2t, ntr)),
                   max_abs_z=zmax)
        rows.append(row)
    return pd.DataFrame(rows).set_index("rule")


def ga_rule_table(
    task: str = "ja-en",
    target: float = 16.0,
    init_pops: Sequence[int] = (5, 10, 15, 20, 25),
    iterations: int = 1000,
    trials: int = 3,
    seed: int = 0,
    alternatives: Mapping[str, Mapping[str, Any]] | None = None,
) -> pd.DataFrame:
    """The GA's average count under each counting rule tried, against Table 2.

    Each entry of :data:`GA_RULE_ALTERNATIVES` (or ``alternatives``: name -> keyword overrides
    of :func:`ga_study`) is simulated (``iterations * trials`` counts per size, the study's
    seeds). Columns per size ``m``: the average (``"m"``) and ``"m z"`` = (paper - ours) /
    ``sqrt(2) * se``, the difference of two independent simulations of the same rules (the
    paper's run and ours, assumed to have the same spread); then ``chi2`` (sum of squared z)
    with ``dof`` (number of sizes) and its p-value ``p``.
    """
    from scipy.stats import chi2 as chi2_dist

    sizes = _paper_sizes(init_pops)
    alts = GA_RULE_ALTERNATIVES if alternatives is None else alternatives
    rows = []
    for name, kw in alts.items():
        study = ga_study(task, target, sizes, iterations, trials, seed, run_baseline=False,
                         **dict(kw))
        avg, se = study.average("ga"), study.std_error("ga")
        row: dict[str, Any] = {"rule": name}
        c2 = 0.0
        for m in sizes:
            z = (PAPER_GA[m] - avg[m]) / (sqrt(2) * se[m])
            row[str(m)] = float(avg[m])
            row[f"{m} z"] = float(z)
            c2 += z**2
        row.update(chi2=c2, dof=len(sizes), p=float(chi2_dist.sf(c2, len(sizes))))
        rows.append(row)
    return pd.DataFrame(rows).set_index("rule")


def paper_comparison(study: GAStudy, which: str, k: float = 2.0) -> pd.DataFrame:
    """Tables 2, 3 or 4 cell by cell: ours beside the paper's, noise, z and a verdict.

    ``which`` is ``"ga"`` (Table 2), ``"baseline"`` (Table 3) or ``"difference"`` (Table 4,
    averages only: the paper gives no per-trial differences). Per initial size: each trial's
    average beside the paper's (``"trial t"``, ``"trial t paper"``), the standard error of a
    trial value (``se trial``: the spread trial values should have), the sample standard
    deviation of the paper's trial values (``paper sd trial``), the largest trial z
    (``max |z| trial``), the overall average
    beside the paper's with its standard error (``se``), ``z`` = (paper - ours) / sigma and
    ``verdict`` ("within k sigma" or "off"). Because both the paper's value and ours are
    simulation means under (we assume) the same rules and spread, sigma is ``sqrt(2) * se``
    (``sqrt(2)`` times the trial standard error for trial cells). For the difference the
    paired standard error is used (the GA and the baseline share initial populations).
    """
    if which not in ("ga", "baseline", "difference"):
        raise ValueError(f"which must be 'ga', 'baseline' or 'difference', got {which!r}")
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    paper_avg = {"ga": PAPER_GA, "baseline": PAPER_BASELINE, "difference": PAPER_DIFFERENCE}
    paper_trials = {"ga": PAPER_GA_TRIALS, "baseline": PAPER_BASELINE_TRIALS}
    rows = []
    for m in study.init_pops:
        row: dict[str, Any] = {"init_pop": m}
        if which == "difference":
            counts = study.baseline_counts[m] - study.ga_counts[m]
        else:
            counts = (study.ga_counts if which == "ga" else study.baseline_counts)[m]
        if which != "difference":
            ptr = paper_trials[which].get(m)
            per_trial_se = counts.std(ddof=1) / sqrt(counts.shape[1])
            zt = []
            for t in range(counts.shape[0]):
                row[f"trial {t + 1}"] = float(counts[t].mean())
                pv = ptr[t] if ptr is not None and t < len(ptr) else np.nan
                row[f"trial {t + 1} paper"] = pv
                zt.append((pv - counts[t].mean()) / (sqrt(2) * per_trial_se))
            row["se trial"] = float(per_trial_se)
            row["paper sd trial"] = float(np.std(ptr, ddof=1)) if ptr is not None and \
                len(ptr) > 1 else np.nan
            row["max |z| trial"] = float(np.nanmax(np.abs(zt))) if np.isfinite(zt).any() \
                else np.nan
        avg = float(counts.mean())
        se = float(counts.std(ddof=1) / sqrt(counts.size))
        paper = paper_avg[which].get(m, np.nan)
        z = (paper - avg) / (sqrt(2) * se)
        row.update({"average": avg, "paper": paper, "se": se, "z": z,
                    "verdict": (f"within {k:g} sigma" if abs(z) <= k else "off")
                    if np.isfinite(z) else "no paper value"})
        rows.append(row)
    return pd.DataFrame(rows).set_index("init_pop")


def protocol_comparison(
    per_trial: pd.DataFrame, method: str = "ga", metric: str = "ftb"
) -> pd.DataFrame:
    """``method`` against every other method of a Table-3 run, per task, paired by trial.

    ``per_trial`` is :func:`nmthpo.studies.single_objective.per_trial_metrics`' frame. The runner
    gives trial ``t`` the same initial rows for every method, so the difference (other -
    ``method``) of ``metric`` is paired by trial. Returned rows: task x other method; columns
    ``method`` mean, other mean, mean difference, its standard error (sample std / sqrt(n),
    over the trials both have) and ``z``. For ftb/ftc a positive difference means ``method``
    needs fewer evaluations; for fb (BLEU after the budget) a negative one means it is better.
    """
    for col in ("method", "task", "trial", metric):
        if col not in per_trial.columns:
            raise ValueError(f"per_trial lacks column {col!r}; pass per_trial_metrics' frame")
    if method not in set(per_trial["method"]):
        raise ValueError(f"method {method!r} is not in the frame; it holds "
                         f"{sorted(set(per_trial['method']))}")
    wide = per_trial.pivot_table(index=["task", "trial"], columns="method", values=metric,
                                 sort=False)
    rows = []
    for task in dict.fromkeys(per_trial["task"]):
        w = wide.loc[task]
        for other in dict.fromkeys(per_trial["method"]):
            if other == method:
                continue
            pair = w[[method, other]].dropna()
            d = pair[other] - pair[method]
            se = float(d.std(ddof=1) / sqrt(len(d))) if len(d) > 1 else np.nan
            rows.append({"task": task, "vs": other, method: float(pair[method].mean()),
                         "other": float(pair[other].mean()), "difference": float(d.mean()),
                         "se": se, "z": float(d.mean()) / se if se and se > 0 else np.nan})
    return pd.DataFrame(rows).set_index(["task", "vs"])


#: Bump when a change to the GA or the study would change a cached table.
GA_CACHE_VERSION = 1

_CACHEABLE: dict[str, Callable[..., pd.DataFrame]] = {
    "variants": variant_table, "rules": ga_rule_table,
}


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def cached_table(
    kind: str, cache_dir: Any = None, use_cache: bool = True, **params: Any
) -> pd.DataFrame:
    """:func:`variant_table` (``kind="variants"``) or :func:`ga_rule_table` (``"rules"``), cached.

    The frame is stored as Parquet in ``cache_dir`` (default
    :func:`nmthpo.engine.cache.cache_for` ``("ga", ...)``: the book's ``results/ga`` when it
    holds the file, else the user cache) under
    ``<kind>__<key>.parquet`` with a JSON sidecar of its parameters; the key hashes ``kind``,
    every parameter of the function (defaults filled in, so ``cached_table("variants")`` and
    ``cached_table("variants", iterations=1000)`` share a file; the default :data:`VARIANTS` and
    :data:`GA_RULE_ALTERNATIVES` enter by content) and :data:`GA_CACHE_VERSION`.
    A missing file is computed and written atomically (temporary file, then rename); a present
    one is read back. ``use_cache=False`` computes the frame and neither reads nor writes a
    file (e.g. a notebook's smoke setting). The full-size variant table takes minutes (the
    generational variant dominates), the rule table about a minute.
    """
    import inspect
    from pathlib import Path

    from nmthpo.engine.cache import atomic_write, cache_for, key, write_text

    if kind not in _CACHEABLE:
        raise ValueError(f"unknown kind {kind!r}; valid: {', '.join(_CACHEABLE)}")
    func = _CACHEABLE[kind]
    if not use_cache:
        return func(**params)
    try:
        bound = inspect.signature(func).bind(**params)
    except TypeError as exc:
        raise TypeError(f"bad parameters for {func.__name__}: {exc}") from None
    bound.apply_defaults()
    args = _jsonable(dict(bound.arguments))
    # a default set of variants/rules enters the key by content, so editing it invalidates
    for name, default in (("variants", VARIANTS), ("alternatives", GA_RULE_ALTERNATIVES)):
        if name in args and args[name] is None:
            args[name] = _jsonable(default)
    payload = {"kind": kind, "params": args, "version": GA_CACHE_VERSION}
    filename = f"{kind}__{key(payload)}.parquet"
    path = Path(cache_dir if cache_dir is not None else cache_for("ga", filename)) / filename
    if path.exists():
        return pd.read_parquet(path)
    frame = func(**params)
    write_text(path.with_suffix(".json"),
               json.dumps(payload, sort_keys=True, default=str) + "\n")
    atomic_write(path, lambda p: frame.to_parquet(p))
    return frame
