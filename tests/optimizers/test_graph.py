"""Tests of nmthpo.optimizers.graph (graph-based SMBO, Zhang & Duh 2020, Section 5.3)."""

from __future__ import annotations

import numpy as np
import pytest

from nmthpo.optimizers.graph import GraphSMBO, snap_ties
from nmthpo.optimizers.registry import make_optimizer


def toy(n: int = 30, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    y = -((X - 0.6) ** 2).sum(axis=1)
    return X, y


def run(opt: GraphSMBO, y: np.ndarray, init: list[int], steps: int) -> list[int]:
    for r in init:
        opt.tell(r, y[r])
    rows = list(init)
    for _ in range(steps):
        r = opt.ask()
        rows.append(r)
        opt.tell(r, y[r])
    return rows


@pytest.mark.parametrize("name", ["gb-ei-m", "gb-ei-r", "gb-eif-m", "gb-eif-r"])
def test_registry_methods_never_repeat_and_are_deterministic(name: str) -> None:
    X, y = toy()
    a = make_optimizer(name, X, np.random.default_rng(3))
    b = make_optimizer(name, X, np.random.default_rng(3))
    assert isinstance(a, GraphSMBO)
    ra = run(a, y, [0, 1, 2], len(y) - 3)  # exhaust the table
    rb = run(b, y, [0, 1, 2], len(y) - 3)
    assert ra == rb
    assert sorted(ra) == list(range(len(y)))
    with pytest.raises(RuntimeError, match="every row"):
        a.ask()


def test_ask_before_any_tell_is_uniform_choice() -> None:
    X, _ = toy()
    picks = {GraphSMBO(X, np.random.default_rng(s)).ask() for s in range(20)}
    assert len(picks) > 5


def test_predict_mean_returns_labels_on_labelled_rows() -> None:
    X, y = toy()
    opt = GraphSMBO(X, np.random.default_rng(0), acquisition="ei")
    np.testing.assert_array_equal(opt.predict_mean(), np.zeros(len(y)))
    for r in [4, 8, 15]:
        opt.tell(r, y[r])
    pm = opt.predict_mean()
    assert pm.shape == (len(y),)
    np.testing.assert_array_equal(pm[[4, 8, 15]], y[[4, 8, 15]])
    assert np.all((pm >= y[[4, 8, 15]].min() - 1e-9) & (pm <= y[[4, 8, 15]].max() + 1e-9))


@pytest.mark.parametrize("mode", ["text", "gbopt"])
def test_naive_and_fast_make_identical_choices_on_zh_en(mode: str) -> None:
    from nmthpo.benchmark.tables import load_table

    table = load_table("zh-en")
    X, y = table.encode("scaled"), table.bleu
    init = [int(r) for r in np.random.default_rng(11).choice(len(y), 3, replace=False)]
    fast = GraphSMBO(X, np.random.default_rng(5), eif_method="fast", eif_mode=mode)
    naive = GraphSMBO(X, np.random.default_rng(5), eif_method="naive", eif_mode=mode)
    assert run(fast, y, init, 8) == run(naive, y, init, 8)


def test_paper_k_on_zh_en() -> None:
    from nmthpo.benchmark.tables import load_table

    opt = GraphSMBO(load_table("zh-en").encode("scaled"), np.random.default_rng(0))
    assert opt.k == 13  # mean degree 17.3, closest to 118 / 7 = 16.9
    assert opt.graph.n_components == 1


def test_settings_are_validated() -> None:
    X, _ = toy()
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="unknown acquisition"):
        GraphSMBO(X, rng, acquisition="pi")
    with pytest.raises(ValueError, match="unknown kernel"):
        GraphSMBO(X, rng, kernel="linear")
    with pytest.raises(ValueError, match="unknown eif_mode"):
        GraphSMBO(X, rng, eif_mode="other")
    with pytest.raises(TypeError, match="unknown settings"):
        GraphSMBO(X, rng, budget=3)
    with pytest.raises(ValueError, match="supports objective"):
        GraphSMBO(X, rng, objective="pareto")
    opt = GraphSMBO(X, rng)
    with pytest.raises(ValueError, match="not finite"):
        opt.tell(0, float("nan"))
    opt.tell(0, 1.0)
    with pytest.raises(ValueError, match="already evaluated"):
        opt.tell(0, 1.0)


def test_snap_ties() -> None:
    s = snap_ties(np.array([1.0, 1.0 - 1e-12, 0.5, np.nan]), 1e-9)
    np.testing.assert_array_equal(s[:3], [1.0, 1.0, 0.5])
    assert np.isnan(s[3])


def test_k_override_through_registry() -> None:
    X, _ = toy()
    opt = make_optimizer("gb-eif-m", X, np.random.default_rng(0), k=4)
    assert isinstance(opt, GraphSMBO) and opt.k == 4


def test_ei_scale_multiplies_the_grf_std() -> None:
    from nmthpo.models.acquisition import expected_improvement
    from nmthpo.optimizers.graph import GraphSMBO

    rng = np.random.default_rng(2)
    X = rng.random((30, 2))
    y = X.sum(axis=1)
    opt = GraphSMBO(X, rng, acquisition="ei", ei_scale=3.0)
    for r in (0, 5, 9, 14):
        opt.tell(r, y[r])
    mean, std = opt.surrogate.posterior()
    best = y[[0, 5, 9, 14]].max()
    np.testing.assert_allclose(opt.scores(), expected_improvement(mean, 3.0 * std, best))
    with pytest.raises(ValueError, match="ei_scale"):
        GraphSMBO(X, rng, ei_scale=0.0)
