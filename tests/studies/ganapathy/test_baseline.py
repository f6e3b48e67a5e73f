"""Tests for nmthpo.studies.ganapathy.baseline: the random baseline's closed form and simulation."""

from __future__ import annotations

import numpy as np
import pytest

from nmthpo.studies.ganapathy.baseline import baseline_counts, baseline_expectation
from nmthpo.studies.ganapathy.study import initial_populations


def test_baseline_expectation_by_hand():
    # with replacement: m + (1 - p)^m / p, p = 7/150
    mean, _ = baseline_expectation(150, 7, 5)
    assert mean == pytest.approx(5 + (143 / 150) ** 5 * 150 / 7)
    # without replacement, distinct initial rows: m + P0 * (n - m + 1) / (b + 1)
    mean, _ = baseline_expectation(150, 7, 5, replacement=False, init_replacement=False)
    p0 = np.prod([(143 - i) / (150 - i) for i in range(5)])
    assert mean == pytest.approx(5 + p0 * 146 / 8)
    # the reproduced rule for ja-en, m = 5..25
    got = [baseline_expectation(150, 7, m)[0] for m in (5, 10, 15, 20, 25)]
    np.testing.assert_allclose(got, [21.874, 23.287, 25.463, 28.239, 31.488], atol=1e-3)


@pytest.mark.parametrize("replacement", [True, False])
@pytest.mark.parametrize("init_replacement", [True, False])
def test_baseline_closed_form_matches_simulation(replacement, init_replacement):
    n, m, iters = 150, 10, 40000
    is_hit = np.zeros(n, dtype=bool)
    is_hit[[3, 17, 40, 41, 99, 120, 149]] = True
    rng = np.random.default_rng(11)
    init = initial_populations(n, m, iters, rng, init_replacement)
    sim = baseline_counts(is_hit, init, rng, replacement)
    mean, var = baseline_expectation(n, 7, m, replacement, init_replacement)
    assert abs(sim.mean() - mean) < 4 * np.sqrt(var / iters)
    assert sim.var() == pytest.approx(var, rel=0.05)


def test_baseline_without_replacement_simulated_by_permutation():
    # the Beta/Binomial draw equals "first target in a random order of the unseen rows"
    n, b, m = 20, 3, 4
    is_hit = np.zeros(n, dtype=bool)
    is_hit[:b] = True
    rng = np.random.default_rng(2)
    init = np.tile(np.arange(10, 10 + m), (30000, 1))
    fast = baseline_counts(is_hit, init, rng, replacement=False)
    rest = np.setdiff1d(np.arange(n), init[0])
    perm = np.array([m + 1 + int(np.argmax(is_hit[rng.permutation(rest)])) for _ in range(30000)])
    assert abs(fast.mean() - perm.mean()) < 0.1
    assert fast.mean() == pytest.approx(m + (n - m + 1) / (b + 1), abs=0.1)
