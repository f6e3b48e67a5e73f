"""One iteration of Ganapathy's (2020) steady-state genetic algorithm on a table, and its rules.

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
:func:`~nmthpo.studies.ganapathy.study.ga_study`; the defaults are the reproduced setting):

* ``init_replacement=True`` -- the initial population is ``m`` random row indices drawn *with*
  replacement (Section 4.2: "selected a random index value from 0 to one less than the size of
  the data set"), shared by GA and baseline;
* ``baseline_replacement=True`` -- the baseline draws rows with replacement and counts every
  draw: ``m`` if the initial population holds a target, else ``m + Geometric(7/150)``. Its exact
  mean (:func:`~nmthpo.studies.ganapathy.baseline.baseline_expectation`) is 21.874, 23.287,
  25.463, 28.239, 31.488 for m = 5..25; the paper's 21.425 ... 31.598 are within 1.2 standard
  errors, whereas drawing without replacement (19.3 ... 29.3) or distinct initial rows
  (21.8 ... 30.8) are not;
* ``count_invalid=True`` -- an offspring absent from the table enters the population with
  fitness 0 and is counted (Section 2); Section 5's proposal not to count it is ``False``
  (it is then discarded);
* ``memory="history"`` -- an individual that has *ever* been in the population is not added
  again (Section 2: "already been in the population"); ``"population"`` checks only the current
  population; ``"introduced"`` checks the current population and the individuals introduced
  by the GA (Section 3.3's "List of all the individuals that have been introduced to the
  population" read as not holding the initial population: an initial individual replaced
  earlier may be bred again and counts);
* ``count_mutants="new"`` -- a mutation that puts a never-seen individual into the population
  counts as an addition (``"none"``: mutations never count; ``"all"``: every mutation counts);
* ``mutation_draw="value"`` -- the new gene value is uniform over the values present in the
  data (``"row"``: the value of a uniformly random row, i.e. frequency-weighted);
* ``check_initial=False`` -- the GA tests the stop rule after each breeding cycle only, so an
  initial population that already holds a target still breeds (and counts) one offspring; the
  baseline does test its initial population (its closed form requires it);
* ``stop_test="cycle"`` -- the stop rule is tested after every breeding cycle; ``"addition"``
  tests it only after a cycle that added (counted) an individual, as the paper's flowchart
  draws it ("Add Individual" -> "Check if target is reached"; an invalid individual loops back
  to selection);
* ``roulette_draw="uniform"`` -- the roulette wheel is spun with a uniform number;
  ``"integer"`` spins it as Section 3.3 describes, with "a random integer value from 0 to 100"
  against the individuals' cumulative percentages (the first individual whose range the
  integer lies below; 100 itself falls to the last individual);
* ``distinct_parents=False`` -- the two spins are independent; ``True`` re-spins the second
  until it picks an individual other than the first.

These were chosen by the fit to Table 2 over the grid memory x count_mutants x mutation_draw x
init_replacement x check_initial (``count_duplicates=True``, counting every breeding cycle,
gives 127 individuals for m = 5 and was rejected at once). ``stop_test``, ``roulette_draw``,
``distinct_parents`` and ``memory="introduced"`` are further readings of the paper's text,
tried against Table 2's large populations (:data:`~nmthpo.studies.ganapathy.rules.LONG_RULES`).

Other choices the paper leaves open (documented, not parameters): the two roulette spins are
independent (the same individual may be drawn twice; the clone offspring is then a duplicate and
is not added); the crossover point ``c`` is uniform on ``0..5`` and the child takes genes
``[:c]`` from the fitter parent and ``[c:]`` from the other (``c = 0`` copies the second
parent); the weakest individual (first one on ties) is fixed at the start of a cycle, is
excluded from mutation, and is the one the offspring replaces; a mutation changes the individual
in place even when the result was seen before (it is then not counted); the stop test sees
mutants too (a mutant hitting the target stops the iteration at the end of its cycle).

Variants proposed in Section 5 (each a keyword of :func:`ga_count` /
:func:`~nmthpo.studies.ganapathy.study.ga_study`):
``mutation_before_selection``, ``weighted_replacement`` (the individual replaced is drawn with
probability proportional to ``1 / fitness``; a zero-fitness individual is replaced first),
``two_point`` crossover (the genes between two random cut points come from the second parent),
``generational`` replacement, and ``count_invalid=False``.

The operators themselves (selection, crossover, mutation) are the pure functions of
:mod:`nmthpo.optimizers.genetic_operators`, shared with the ask/tell optimiser.

Why the loops read as they do: a chapter's tables breed tens of millions of children, one uniform
at a time, in pure Python, so the cost is the interpreter's per-call overhead. The loops
therefore bind the uniform stream's builtin ``next`` (:attr:`Uniforms.next`) and the rules to
local names once per iteration, map a uniform to an index with :func:`_below` (the one
definition, also behind :meth:`Uniforms.integer`), and call the crossover operators'
``*_unchecked`` forms (the checked public functions validate, then call them); a generation's
roulette wheel is built once (:class:`~nmthpo.optimizers.genetic_operators.Wheel`). None of this
changes a number: the same uniforms are consumed in the same order and every pick and sum equals
the plainer code's, so the tables are byte-identical (the tests pin counts of every variant).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from nmthpo.optimizers.genetic_operators import (
    GeneSpace,
    Wheel,
    fitter_first,
    mutate,
    one_point_crossover_unchecked,
    roulette,
    two_point_crossover_unchecked,
)

__all__ = ["MAX_CYCLES", "GARules", "Uniforms", "ga_count"]

#: Guard against a breeding loop that cannot make progress (never hit on the NMTHPO tables).
MAX_CYCLES = 1_000_000


# -- the random stream -------------------------------------------------------------------------
class Uniforms:
    """Buffered uniforms from one Generator (fast scalar draws in the Python inner loop).

    The values are those of ``rng.random(block)`` blocks, in order; a block is drawn only when
    the previous one is used up (and the first at the first draw), so the Generator advances
    exactly as one ``rng.random(block)`` call per ``block`` values consumed.

    Parameters
    ----------
    rng : numpy.random.Generator
        The source; it is bound at construction (``rng`` and ``block`` are read-only in effect).
    block : int
        Uniforms drawn per call of ``rng.random`` (>= 1).

    Attributes
    ----------
    next : callable
        ``next()`` returns the next uniform in [0, 1): a bound builtin (an iterator's
        ``__next__``), the cheapest call Python has, which inner loops bind to a local name.
        Calling the instance, ``u()``, does the same.
    """

    def __init__(self, rng: np.random.Generator, block: int = 4096) -> None:
        if int(block) < 1:
            raise ValueError(f"block must be >= 1, got {block}")
        self.rng = rng
        self.block = int(block)
        self.next: Callable[[], float] = chain.from_iterable(_blocks(rng, self.block)).__next__

    def __call__(self) -> float:
        return self.next()

    def integer(self, n: int) -> int:
        """A uniform integer in ``0..n-1`` from the next uniform (:func:`_below`)."""
        return _below(self.next(), n)


def _blocks(rng: np.random.Generator, block: int) -> Iterator[list[float]]:
    """``rng.random(block)`` as lists, one drawn each time the consumer asks for the next."""
    while True:
        yield rng.random(block).tolist()


def _below(u: float, n: int) -> int:
    """The integer in ``0..n-1`` a uniform ``u`` in [0, 1) picks: ``int(u * n)``, at most n-1.

    (``u * n`` may round up to ``n`` for ``u`` just below 1.)
    """
    k = int(u * n)
    return k if k < n else n - 1


# -- one GA iteration --------------------------------------------------------------------------
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
    stop_test: str = "cycle"
    roulette_draw: str = "uniform"
    distinct_parents: bool = False

    def validate(self) -> GARules:
        """Return ``self`` if every rule has a valid value, else raise a ValueError naming it."""
        if not 0.0 <= self.mutation_rate <= 1.0:
            raise ValueError(f"mutation_rate must be in [0, 1], got {self.mutation_rate}")
        if self.count_mutants not in ("none", "new", "all"):
            raise ValueError(
                f"count_mutants must be 'none', 'new' or 'all', got {self.count_mutants!r}"
            )
        if self.mutation_draw not in ("row", "value"):
            raise ValueError(f"mutation_draw must be 'row' or 'value', got {self.mutation_draw!r}")
        if self.memory not in ("history", "population", "introduced"):
            raise ValueError(
                f"memory must be 'history', 'population' or 'introduced', got {self.memory!r}"
            )
        if self.stop_test not in ("cycle", "addition"):
            raise ValueError(f"stop_test must be 'cycle' or 'addition', got {self.stop_test!r}")
        if self.roulette_draw not in ("uniform", "integer"):
            raise ValueError(
                f"roulette_draw must be 'uniform' or 'integer', got {self.roulette_draw!r}"
            )
        return self


def _crossover(
    two_point: bool, draw: Callable[[], float], d: int
) -> Callable[[tuple[int, ...], tuple[int, ...]], tuple[int, ...]]:
    """The crossover of one iteration: ``child = cross(p1, p2)``, cut points drawn from ``draw``.

    One-point: the point is uniform on ``0..d-1``; two-point: two cuts uniform on ``0..d``, the
    left argument drawn first. Parents are the population's tuples, so the unchecked operators
    apply (every cut is in range by :func:`_below`).
    """
    if two_point:
        cuts = d + 1

        def cross(p1: tuple[int, ...], p2: tuple[int, ...]) -> tuple[int, ...]:
            return two_point_crossover_unchecked(p1, p2, _below(draw(), cuts), _below(draw(), cuts))

    else:

        def cross(p1: tuple[int, ...], p2: tuple[int, ...]) -> tuple[int, ...]:
            return one_point_crossover_unchecked(p1, p2, _below(draw(), d))

    return cross


def ga_count(
    space: GeneSpace,
    init_rows: Sequence[int],
    target: float,
    rng: np.random.Generator | Uniforms,
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
    u = rng if isinstance(rng, Uniforms) else Uniforms(rng)
    if len(init_rows) < 2:
        raise ValueError("the GA needs an initial population of at least 2 individuals")
    pop = [space.chromosome(int(r)) for r in init_rows]
    fit = [space.fitness[c] for c in pop]
    count = len(pop)
    if max(fit) >= target and (rules.check_initial or rules.generational):
        return count
    if rules.generational:
        return _generational(space, pop, fit, count, target, u, rules, trace)
    # the inner loop reads locals only (see the module docstring)
    draw = u.next
    fitness_of = space.fitness.get
    # the individuals an offspring must not repeat (besides, for "introduced", the population)
    seen = set() if rules.memory == "introduced" else set(pop)
    cross = _crossover(rules.two_point, draw, space.n_genes)
    cols = _mutation_pools(space, rules.mutation_draw)
    n = space.n_rows
    rate = rules.mutation_rate
    mutation_first = rules.mutation_before_selection
    weighted = rules.weighted_replacement
    distinct_parents = rules.distinct_parents
    count_invalid = rules.count_invalid
    count_duplicates = rules.count_duplicates
    history = rules.memory == "history"
    introduced = rules.memory == "introduced"
    after_addition = rules.stop_test == "addition"
    spin = _integer_roulette if rules.roulette_draw == "integer" else roulette
    for _ in range(MAX_CYCLES):
        before = count
        weakest = _replaced_index(fit, draw, weighted)
        if mutation_first and draw() < rate:
            count += _mutate(pop, fit, weakest, seen, space.fitness, cols, n, draw, rules)
        if sum(fit) <= 0:  # only possible if mutations zeroed every individual
            i, j = _below(draw(), len(pop)), _below(draw(), len(pop))
        else:
            i, j = spin(fit, draw()), spin(fit, draw())
            if distinct_parents and sum(f > 0 for f in fit) > 1:
                while j == i:
                    j = spin(fit, draw())
        i, j = fitter_first(i, j, fit)
        child = cross(pop[i], pop[j])
        if not mutation_first and draw() < rate:
            count += _mutate(pop, fit, weakest, seen, space.fitness, cols, n, draw, rules)
        if history:
            new = child not in seen
        elif introduced:
            new = child not in seen and child not in pop
        else:
            new = child not in pop
        if new:
            f = fitness_of(child, 0.0)
            if f > 0 or count_invalid:
                seen.add(child)
                pop[weakest] = child
                fit[weakest] = f
                count += 1
            else:
                seen.add(child)  # discarded, and never tried as "new" again
        elif count_duplicates:
            count += 1
        if trace is not None:
            trace.append(list(pop))
        if max(fit) >= target and (count > before or not after_addition):
            return count
    raise RuntimeError(f"the GA did not reach {target} within {MAX_CYCLES} breeding cycles")


def _integer_roulette(fit: Sequence[float], u: float) -> int:
    """Section 3.3's wheel: an integer ``r`` uniform on ``0..100`` against cumulative percentages.

    The first individual whose cumulative percentage exceeds ``r`` is picked (individuals of
    fitness 0 have an empty range); ``r = 100`` lies at or above the last range and picks the
    last individual of positive fitness.
    """
    total = float(sum(fit))
    r = min(int(u * 101), 100)
    acc = 0.0
    last = 0
    for i, f in enumerate(fit):
        if f > 0:
            acc += 100.0 * f / total
            last = i
            if r < acc:
                return i
    return last


def _replaced_index(fit: list[float], draw: Callable[[], float], weighted: bool) -> int:
    """The individual the offspring replaces (drawn from ``draw`` only if ``weighted``).

    Unweighted: the weakest, the first one on ties. Weighted: the first individual of fitness
    0, else one drawn with probability proportional to ``1 / fitness``.
    """
    if not weighted:
        return fit.index(min(fit))  # the first minimum, as min(range(m), key=fit.__getitem__)
    zeros = [i for i, f in enumerate(fit) if f <= 0]
    if zeros:
        return zeros[0]
    return roulette([1.0 / f for f in fit], draw())


def _mutate(
    pop: list[tuple[int, ...]],
    fit: list[float],
    weakest: int,
    seen: set[tuple[int, ...]],
    fitness_of: Mapping[tuple[int, ...], float],
    cols: list[list[int]],
    n: int,
    draw: Callable[[], float],
    rules: GARules,
) -> int:
    """Mutate one random non-weakest individual in place; return 1 if it counts as added.

    ``draw`` gives the uniforms (:attr:`Uniforms.next`, or a :class:`Uniforms`): the
    individual, the gene, then its new value.
    """
    k = _below(draw(), len(pop) - 1)
    k = k if k < weakest else k + 1
    g = _below(draw(), len(cols))
    child = mutate(pop[k], g, cols[g][_below(draw(), len(cols[g]))])
    new = child not in seen and (rules.memory != "introduced" or child not in pop)
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
    space: GeneSpace,
    pop: list[tuple[int, ...]],
    fit: list[float],
    count: int,
    target: float,
    u: Uniforms,
    rules: GARules,
    trace: list[list[tuple[int, ...]]] | None = None,
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
    # the inner loop reads locals only (see the module docstring)
    draw = u.next
    fitness_of = space.fitness.get
    cross = _crossover(rules.two_point, draw, d)
    rate = rules.mutation_rate
    count_invalid = rules.count_invalid
    cycles = 0
    while True:
        new_pop: list[tuple[int, ...]] = []
        new_fit: list[float] = []
        # one generation's parents: one wheel (None: zero total fitness, uniform parents)
        spin = Wheel(fit).spin if sum(fit) > 0 else None
        while len(new_pop) < m:
            cycles += 1
            if cycles > MAX_CYCLES:
                raise RuntimeError(f"the GA did not reach {target} within {MAX_CYCLES} cycles")
            if spin is not None:
                i, j = spin(draw()), spin(draw())
            else:
                i, j = _below(draw(), m), _below(draw(), m)
            i, j = fitter_first(i, j, fit)
            child = cross(pop[i], pop[j])
            if draw() < rate:
                g = _below(draw(), d)
                child = mutate(child, g, cols[g][_below(draw(), len(cols[g]))])
            f = fitness_of(child, 0.0)
            if child not in seen:
                if f <= 0 and not count_invalid:
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
