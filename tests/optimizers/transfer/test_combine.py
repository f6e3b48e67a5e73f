"""Tests of nmthpo.optimizers.transfer.combine against hand-computed values (Li et al. 2022, Eqs.
2-8)."""

import numpy as np
import pytest

from nmthpo.optimizers.transfer.combine import (
    cv_folds,
    cv_target_weight,
    linear_combination,
    ordered_pairs,
    product_of_experts,
    ranking_loss,
    ranking_loss_grad,
    simplex_weights,
)

A3 = np.array([[0.0, 2.0], [1.0, 1.0], [2.0, 0.0]])
Y3 = np.array([0.0, 1.0, 2.0])


def test_ordered_pairs_skip_ties():
    lo, hi = ordered_pairs(np.array([1.0, 0.0, 1.0]))
    assert sorted(zip(lo.tolist(), hi.tolist(), strict=True)) == [(1, 0), (1, 2)]


def test_ranking_loss_by_hand():
    # w = [1, 0]: M = [0, 1, 2]; pairs (0,1), (0,2), (1,2) have z = 1, 2, 1
    want = (2 * np.log1p(np.exp(-1.0)) + np.log1p(np.exp(-2.0))) / 9
    assert ranking_loss(np.array([1.0, 0.0]), A3, Y3) == pytest.approx(want, rel=1e-12)
    # w = [0, 1]: every pair is inverted, z = -1, -2, -1
    want = (2 * np.log1p(np.exp(1.0)) + np.log1p(np.exp(2.0))) / 9
    assert ranking_loss(np.array([0.0, 1.0]), A3, Y3) == pytest.approx(want, rel=1e-12)


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    A, y, w = rng.normal(size=(7, 3)), rng.normal(size=7), rng.dirichlet(np.ones(3))
    g = ranking_loss_grad(w, A, y)
    eps = 1e-6
    num = [
        (ranking_loss(w + eps * e, A, y) - ranking_loss(w - eps * e, A, y)) / (2 * eps)
        for e in np.eye(3)
    ]
    np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-10)


def test_simplex_weights_recover_the_source_equal_to_the_target():
    rng = np.random.default_rng(1)
    y = rng.normal(size=20)
    A = np.column_stack([y, -y, rng.permutation(y), rng.normal(size=20)])
    w = simplex_weights(A, y)
    assert w.shape == (4,) and np.all(w >= 0) and w.sum() == pytest.approx(1.0)
    assert w[0] > 0.95
    assert ranking_loss(w, A, y) <= ranking_loss(np.full(4, 0.25), A, y)


def test_simplex_weights_degenerate_cases():
    A = np.ones((3, 2))
    np.testing.assert_array_equal(simplex_weights(A, np.zeros(3)), [0.5, 0.5])  # no pair
    np.testing.assert_array_equal(simplex_weights(A[:, :1], np.arange(3.0)), [1.0])
    with pytest.raises(ValueError, match="rows but y"):
        simplex_weights(A, np.zeros(4))


def test_cv_target_weight_in_unit_interval_and_follows_the_better_model():
    y = np.arange(10.0)
    p_good_target = cv_target_weight(-y, y, y)
    p_good_source = cv_target_weight(y, -y, y)
    assert 0.0 <= p_good_source <= p_good_target <= 1.0
    assert p_good_target > 0.95 and p_good_source < 0.05


def test_cv_folds_balanced():
    f = cv_folds(12, 5, np.random.default_rng(0))
    assert sorted(np.bincount(f).tolist()) == [2, 2, 2, 3, 3]
    with pytest.raises(ValueError, match="cannot fill"):
        cv_folds(3, 5, np.random.default_rng(0))


def test_linear_combination_formula():
    m, v = linear_combination(
        np.array([[1.0, 2.0], [3.0, 5.0]]),
        np.array([[4.0, 1.0], [2.0, 8.0]]),
        np.array([0.25, 0.75]),
    )
    np.testing.assert_allclose(m, [0.25 + 2.25, 0.5 + 3.75])
    np.testing.assert_allclose(v, [0.0625 * 4 + 0.5625 * 2, 0.0625 + 0.5625 * 8])


def test_product_of_experts_formula():
    m, v = product_of_experts(
        np.array([[0.0], [2.0]]), np.array([[1.0], [4.0]]), np.array([0.5, 0.5])
    )
    prec = 0.5 / 1 + 0.5 / 4
    assert v[0] == pytest.approx(1 / prec)
    assert m[0] == pytest.approx((0.5 * 2 / 4) / prec)
