"""Tests for nmthpo.studies.zhang_duh.fanova: Figure 5's importances (pure parts; the data-backed
importance table is tested in test_benchmark_tables.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nmthpo.studies.zhang_duh import fanova


def test_capped_bleu_is_max_with_quantile() -> None:
    y = np.arange(1.0, 101.0)  # quantile 0.99 (linear) = 99.01
    capped = fanova.capped_bleu(y, 0.01)
    assert capped.min() == pytest.approx(99.01)
    assert capped[-1] == 100.0
    np.testing.assert_array_equal(fanova.capped_bleu(y, None), y)
    with pytest.raises(ValueError, match="top_fraction"):
        fanova.capped_bleu(y, 1.5)


def test_grid_decomposition_hand_computed() -> None:
    # f(a, b) = a + 2 b + a*b on {0,1}^2: mean 1.75; marginals m_a = (1, 2.5), m_b = (0.5, 3)
    grid = np.array([[0.0, 2.0], [1.0, 4.0]])
    dec = fanova._grid_decomposition(grid)
    assert dec[(0,)] == pytest.approx(0.75**2)  # f_a = (-0.75, 0.75)
    assert dec[(1,)] == pytest.approx(1.25**2)  # f_b = (-1.25, 1.25)
    assert dec[(0, 1)] == pytest.approx(0.25**2)  # interaction +-0.25
    assert dec[(0,)] + dec[(1,)] + dec[(0, 1)] == pytest.approx(grid.var())


def test_grid_fanova_additive_function_has_no_interactions() -> None:
    levels = [(0, 1, 2), (0, 1)]
    rows = [(a, b) for a in levels[0] for b in levels[1]]
    configs = pd.DataFrame(
        {
            "bpe": [1000 * (a + 1) for a, _ in rows],
            "layers": [b + 1 for _, b in rows],
            "embed": 256,
            "hidden": 1024,
            "heads": 8,
            "lr": 3e-4,
        }
    )
    y = np.array([3.0 * a + 1.0 * b for a, b in rows])
    imp = fanova.grid_fanova(configs, y, n_trees=4, max_depth=8, seed=0)
    assert imp["bpe"] + imp["layers"] == pytest.approx(1.0, abs=0.1)
    assert imp["bpe"] > imp["layers"]
    assert imp["bpe x layers"] == pytest.approx(0.0, abs=0.05)
    single = fanova.fanova_importances(configs, y, n_trees=4, max_depth=8, seed=0)
    assert single.idxmax() == "bpe"
    assert single["embed"] == 0.0


def test_rank_gap_and_importance_bootstrap():
    from nmthpo.studies.zhang_duh.fanova import importance_bootstrap, rank_gap

    imp = pd.Series({"a": 0.5, "b": 0.3, "c": 0.1, "a x b": 0.05, "a x c": 0.02})
    assert rank_gap(imp, "a")[0] == pytest.approx(0.2)
    assert rank_gap(imp, "c", 2)[0] == pytest.approx(-0.2)
    assert rank_gap(imp, "a x c")[0] == pytest.approx(-0.03)  # pairs against pairs only
    with pytest.raises(ValueError, match="unknown term"):
        rank_gap(imp, "d")
    boots = importance_bootstrap("en-ja", n_boot=5, n_trees=4)
    assert len(boots) == 5 and "#embed" in boots.columns and "#embed x init lr" in boots.columns
    assert ((boots >= 0) & (boots <= 1)).all().all()
    # zh-en's top 1% is constant (three tied best rows): nothing to resample
    assert importance_bootstrap("zh-en", 0.01, n_boot=3, n_trees=2).empty


def test_spearman_interval_fisher_z():
    from nmthpo.studies.zhang_duh.benchmark_tables import spearman_interval

    lo, hi = spearman_interval(0.084, 28)
    assert lo < 0.084 < hi and hi - lo == pytest.approx(0.78, abs=0.02)
    assert np.isnan(spearman_interval(0.5, 3)[0])


def test_coding_weights_and_weighted_decomposition() -> None:
    configs = pd.DataFrame(
        {
            "bpe": [1000, 2000, 4000, 1000],
            "layers": [1, 2, 6, 6],
            "embed": 256,
            "hidden": 1024,
            "heads": 8,
            "lr": 3e-4,
        }
    )
    scaled = np.array(
        [
            [0.0, 0.0, 0, 0, 0, 0],
            [0.5, 0.2, 0, 0, 0, 0],
            [1.0, 1.0, 0, 0, 0, 0],
            [0.0, 1.0, 0, 0, 0, 0],
        ]
    )
    idx = fanova.coding_weights(configs, "index")
    np.testing.assert_allclose(idx[0], [1 / 3] * 3)
    raw = fanova.coding_weights(configs, "raw")
    # bpe 1000, 2000, 4000 on [1000, 4000]: midpoints 1500 and 3000
    np.testing.assert_allclose(raw[0], [500 / 3000, 1500 / 3000, 1000 / 3000])
    sc = fanova.coding_weights(configs, "scaled", scaled)
    np.testing.assert_allclose(sc[1], [0.1, 0.5, 0.4])  # layers 0, 0.2, 1 on [0, 1]
    assert all(w.sum() == pytest.approx(1.0) for w in sc)
    with pytest.raises(ValueError, match="coding"):
        fanova.coding_weights(configs, "log")
    # uniform weights reproduce the unweighted decomposition
    grid = np.random.default_rng(0).normal(size=(3, 2, 4))
    plain = fanova._grid_decomposition(grid)
    weighted = fanova._grid_decomposition(grid, [np.full(n, 1 / n) for n in grid.shape])
    assert plain.keys() == weighted.keys()
    for k in plain:
        assert weighted[k] == pytest.approx(plain[k])
    # a weight of 1 on one value leaves that axis no variance
    point = fanova._grid_decomposition(
        grid, [np.array([1.0, 0, 0]), np.full(2, 0.5), np.full(4, 0.25)]
    )
    assert point[(0,)] == pytest.approx(0.0)


def test_importance_readings_rank_bpe_on_sw_en() -> None:
    import os
    from pathlib import Path

    mirror = Path(os.environ.get("NMTHPO_MIRROR", "/nonexistent"))
    if not os.environ.get("NMTHPO_DATA") and not (mirror / "datasets").is_dir():
        pytest.skip("NMTHPO data not installed")
    mp = pytest.MonkeyPatch()
    if not os.environ.get("NMTHPO_DATA"):
        mp.setenv("NMTHPO_DATA", str(mirror))
    try:
        r = fanova.importance_readings("sw-en", fractions=(0.01,), n_trees=8)
    finally:
        mp.undo()
    assert list(r.columns) == ["models", "measure", "value", "rank", "first", "first's value"]
    assert r["rank"].between(1, 6).all()
    best = r[r["models"] == "best per value"].iloc[0]
    assert best["rank"] == 1 and best["first"] == "bpe"  # 26.09 (1k) vs 20.66 (32k) BLEU
    with pytest.raises(ValueError, match="unknown hyperparameter"):
        fanova.importance_readings("sw-en", term="dropout")
