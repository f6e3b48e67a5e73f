"""Tests for nmthpo.optimizers.genetic_operators: the chromosomes and the GA's pure operators
(Ganapathy 2020, Section 3)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nmthpo.optimizers.genetic_operators import (
    GeneSpace,
    Wheel,
    fitter_first,
    gene_indices,
    mutate,
    mutation_candidates,
    one_point_crossover,
    one_point_crossover_unchecked,
    roulette,
    selection_probabilities,
    two_point_crossover,
    two_point_crossover_unchecked,
    weakest_index,
)


def test_selection_probabilities_papers_example():
    # Section 3.3: fitnesses 10, 25, 15, 5, 45 -> 10%, 25%, 15%, 5%, 45%
    np.testing.assert_allclose(
        selection_probabilities([10, 25, 15, 5, 45]), [0.10, 0.25, 0.15, 0.05, 0.45]
    )


def test_roulette_ranges_papers_example():
    # cumulative ranges [10, 35, 50, 55, 100]
    f = [10, 25, 15, 5, 45]
    assert roulette(f, 0.05) == 0
    assert roulette(f, 0.10) == 1
    assert roulette(f, 0.34) == 1
    assert roulette(f, 0.52) == 3
    assert roulette(f, 0.999) == 4


def test_roulette_frequencies_and_zero_fitness_never_picked():
    rng = np.random.default_rng(0)
    f = [0.0, 1.0, 0.0, 3.0]
    picks = np.array([roulette(f, u) for u in rng.random(20000)])
    assert not np.isin(picks, [0, 2]).any()
    assert abs((picks == 3).mean() - 0.75) < 0.015


def test_roulette_rejects_zero_total():
    with pytest.raises(ValueError, match="positive total"):
        roulette([0.0, 0.0], 0.5)


@given(
    st.lists(
        st.one_of(st.just(0.0), st.floats(1e-300, 1e6, allow_nan=False)), min_size=1, max_size=30
    ).filter(lambda f: sum(f) > 0),
    st.lists(st.floats(0.0, 1.0, exclude_max=True), min_size=1, max_size=20),
)
def test_wheel_picks_what_roulette_picks(fitness, us):
    # the generational GA spins one Wheel per generation; its picks must be roulette's exactly
    wheel = Wheel(fitness)
    for u in [*us, 0.0, np.nextafter(1.0, 0.0)]:
        assert wheel.spin(u) == roulette(fitness, u)


def test_wheel_rejects_zero_or_nan_total():
    for bad in ([0.0, 0.0], [float("nan"), 1.0]):
        with pytest.raises(ValueError, match="positive total"):
            Wheel(bad)


def test_one_point_crossover_by_hand():
    p1, p2 = (0, 0, 0, 0, 0, 0), (1, 2, 1, 1, 1, 2)
    assert one_point_crossover(p1, p2, 2) == (0, 0, 1, 1, 1, 2)
    assert one_point_crossover(p1, p2, 0) == p2
    assert one_point_crossover(p1, p2, 6) == p1
    with pytest.raises(ValueError):
        one_point_crossover(p1, p2, 7)


def test_two_point_crossover_by_hand():
    p1, p2 = (0, 0, 0, 0, 0, 0), (1, 1, 1, 1, 1, 1)
    assert two_point_crossover(p1, p2, 4, 1) == (0, 1, 1, 1, 0, 0)


@given(st.data(), st.integers(0, 8))
def test_unchecked_crossovers_breed_what_the_checked_ones_breed(data, d):
    # the simulation's inner loop calls the unchecked forms on tuple parents: same children
    genes = st.lists(st.integers(0, 5), min_size=d, max_size=d)
    p1, p2 = data.draw(genes), data.draw(genes)
    c, a, b = (data.draw(st.integers(0, d)) for _ in range(3))
    assert one_point_crossover_unchecked(tuple(p1), tuple(p2), c) == one_point_crossover(p1, p2, c)
    assert two_point_crossover_unchecked(tuple(p1), tuple(p2), a, b) == two_point_crossover(
        p1, p2, a, b
    )


def test_weakest_is_first_minimum():
    assert weakest_index([3.0, 1.0, 5.0, 1.0]) == 1


def test_gene_space_of_ja_en():
    from nmthpo.benchmark.tables import load_table

    t = load_table("ja-en")
    sp = GeneSpace.from_table(t.configs, t.bleu)
    assert sp.n_rows == 150 and sp.grid_size == 216
    assert sp.values[0] == (10000.0, 30000.0, 50000.0)
    assert sp.fitness[sp.chromosome(int(np.argmax(t.bleu)))] == pytest.approx(16.41)
    assert sp.decode(sp.chromosome(0)) == tuple(float(v) for v in t.configs.iloc[0])


def test_gene_indices_by_hand():
    values, genes = gene_indices([np.array([3.0, 1.0, 3.0]), np.array([7, 7, 8])])
    assert [v.tolist() for v in values] == [[1.0, 3.0], [7, 8]]
    assert genes.tolist() == [[1, 0], [0, 0], [1, 1]] and genes.dtype == np.int64
    with pytest.raises(ValueError, match="at least one gene"):
        gene_indices([])


def test_fitter_first_and_mutate():
    assert fitter_first(0, 1, [1.0, 2.0]) == (1, 0)
    assert fitter_first(0, 1, [2.0, 2.0]) == (0, 1)  # ties keep the first spin first
    assert mutate((0, 1, 2), 1, 5) == (0, 5, 2)
    assert mutation_candidates([3.0, 1.0, 2.0], 1) == [0, 2]
