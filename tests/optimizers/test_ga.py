"""Tests for nmthpo.optimizers.ga: the GA as an ask/tell optimiser over table rows."""

from __future__ import annotations

import numpy as np
import pytest

from nmthpo.benchmark.tables import load_table
from nmthpo.optimizers.ga import GAOptimizer


def drive(opt: GAOptimizer, y: np.ndarray, init: list[int], steps: int) -> list[int]:
    for r in init:
        opt.tell(r, y[r])
    rows = list(init)
    for _ in range(steps):
        r = opt.ask()
        assert 0 <= r < y.size, "proposed a row outside the table"
        assert not opt.observed[r], "proposed an evaluated row"
        opt.tell(r, y[r])
        rows.append(r)
    return rows


def test_never_proposes_evaluated_or_missing_rows_until_exhausted():
    t = load_table("ja-en")
    X, y = t.encode("scaled"), t.bleu
    opt = GAOptimizer(X, np.random.default_rng(0), population=5)
    rows = drive(opt, y, [0, 1, 2], t.n_rows - 3)
    assert sorted(rows) == list(range(t.n_rows))
    with pytest.raises(RuntimeError, match="every row"):
        opt.ask()


def test_population_seeded_from_told_rows_then_steady_state():
    t = load_table("ja-en")
    X, y = t.encode("scaled"), t.bleu
    opt = GAOptimizer(X, np.random.default_rng(1), population=4)
    for r in (10, 20, 30):
        opt.tell(r, y[r])
    assert opt.pop == [10, 20, 30]
    opt.tell(40, y[40])
    assert opt.pop == [10, 20, 30, 40]
    weakest = opt.pop[int(np.argmin(opt.fit))]
    opt.tell(50, y[50])  # the new row replaces the weakest, whatever its fitness
    assert weakest not in opt.pop and 50 in opt.pop and len(opt.pop) == 4


def test_genes_are_per_column_distinct_values():
    X = np.array([[0.0, 0.5], [1.0, 0.5], [0.0, 1.0], [1.0, 1.0]])
    opt = GAOptimizer(X, np.random.default_rng(0), population=2)
    np.testing.assert_array_equal(opt.genes, [[0, 0], [1, 0], [0, 1], [1, 1]])
    assert opt.row_of[(1, 1)] == 3


def test_repair_picks_nearest_unevaluated_row():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    opt = GAOptimizer(X, np.random.default_rng(0), population=2)
    opt.tell(0, 1.0)
    opt.tell(3, 2.0)
    # (1, 1) is evaluated: its unevaluated neighbours at Hamming distance 1 are rows 1 and 2
    assert opt.repair(np.array([1, 1])) in (1, 2)
    opt.tell(1, 1.5)
    assert opt.repair(np.array([0, 1])) == 2


def test_deterministic_for_a_seed_and_random_until_two_individuals():
    t = load_table("ja-en")
    X, y = t.encode("scaled"), t.bleu
    a = drive(GAOptimizer(X, np.random.default_rng(3)), y, [5, 6, 7], 30)
    b = drive(GAOptimizer(X, np.random.default_rng(3)), y, [5, 6, 7], 30)
    assert a == b
    opt = GAOptimizer(X, np.random.default_rng(0))
    assert not opt.observed[opt.ask()]


def test_bad_settings():
    X = np.eye(3)
    with pytest.raises(ValueError, match="population"):
        GAOptimizer(X, np.random.default_rng(0), population=1)
    with pytest.raises(ValueError, match="mutation_rate"):
        GAOptimizer(X, np.random.default_rng(0), mutation_rate=1.5)
    with pytest.raises(TypeError, match="unknown settings"):
        GAOptimizer(X, np.random.default_rng(0), popsize=3)
    with pytest.raises(ValueError, match="objective"):
        GAOptimizer(X, np.random.default_rng(0), objective="pareto")
    with pytest.raises(ValueError, match="duplicate"):
        GAOptimizer(np.zeros((2, 2)), np.random.default_rng(0))


def test_runner_integration():
    from nmthpo.engine.runner import run

    res = run("ga", "ja-en", trials=3, seed=0, progress=False)
    for seq in res.sequences:
        assert len(set(seq)) == len(seq)
        assert load_table("ja-en").first_best_row in seq
