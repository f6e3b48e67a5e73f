"""Tests for nmthpo.benchmark.synthetic: Branin, Hartmann-6, random sub-boxes, dense samples."""

from __future__ import annotations

import numpy as np
import pytest

from nmthpo.benchmark.synthetic import (
    BRANIN,
    HARTMANN6,
    Box,
    branin,
    dense_sample,
    get_function,
    hartmann6,
    random_box,
    random_boxes,
)
from nmthpo.studies.ariafar.space_scores import synthetic_experiment


def test_branin_minimisers_give_the_known_maximum():
    # native minimisers (-pi, 12.275), (pi, 2.275), (9.42478, 2.475)
    native = np.array([[-np.pi, 12.275], [np.pi, 2.275], [9.42478, 2.475]])
    U = np.column_stack([(native[:, 0] + 5) / 15, native[:, 1] / 15])
    np.testing.assert_allclose(branin(U), BRANIN.maximum, atol=1e-5)
    # a hand value: x = (0, 0) -> (−6)^2 + 10 (1 - 1/(8 pi)) + 10
    u0 = np.array([[5 / 15, 0.0]])
    assert branin(u0)[0] == pytest.approx(-(36 + 10 * (1 - 1 / (8 * np.pi)) + 10))
    assert np.all(branin(np.random.default_rng(0).random((1000, 2))) <= BRANIN.maximum + 1e-9)


def test_hartmann6_optimum():
    x = np.array([[0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573]])
    assert hartmann6(x)[0] == pytest.approx(HARTMANN6.maximum, abs=1e-5)
    assert np.all(hartmann6(np.random.default_rng(0).random((500, 6))) < HARTMANN6.maximum)
    with pytest.raises(ValueError, match=r"shape \(n, 6\)"):
        hartmann6(np.zeros((2, 5)))


def test_random_box_volume_and_containment():
    rng = np.random.default_rng(1)
    for d in (2, 6):
        for v in (0.2, 0.6):
            box = random_box(d, v, rng)
            assert box.volume == pytest.approx(v)
            assert np.all(box.lower >= 0) and np.all(box.upper <= 1)
            pts = box.sample(100, rng)
            assert box.contains(pts).all()
    full = random_box(3, 1.0, rng)
    np.testing.assert_array_equal(full.lower, 0)
    np.testing.assert_array_equal(full.upper, 1)
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        random_box(2, 0.0, rng)
    boxes = random_boxes(2, (0.2, 1.0), 3, rng)
    assert [v for v, _ in boxes] == [0.2, 0.2, 0.2, 1.0]


def test_dense_sample_inside_box_power_of_two():
    box = Box(np.array([0.1, 0.5]), np.array([0.3, 1.0]))
    pts = dense_sample(box, 1000, np.random.default_rng(0))
    assert pts.shape == (1024, 2) and box.contains(pts).all()
    with pytest.raises(ValueError, match="lower < upper"):
        Box(np.array([0.5]), np.array([0.2]))
    with pytest.raises(KeyError, match="unknown synthetic function"):
        get_function("rosenbrock")


def test_synthetic_experiment_smoke():
    f = synthetic_experiment(
        "branin",
        fractions=(0.5, 1.0),
        boxes_per_fraction=2,
        repeats=1,
        seed_sizes=(6,),
        budgets=(1, 5),
        n_batches=8,
        n_samples=8,
        dense=256,
    )
    assert set(f["space"]) == {"box0", "box1", "box2"}
    assert len(f) == 3 * 2 * 5
    eb = f[f["score"] == "expected-best"]
    assert (eb["empirical"] <= BRANIN.maximum + 1e-9).all()
    emp = f[f["score"] == "mean-b-ei"].pivot(index="space", columns="budget", values="empirical")
    assert (emp[5] >= emp[1] - 1e-12).all()  # more budget never hurts
