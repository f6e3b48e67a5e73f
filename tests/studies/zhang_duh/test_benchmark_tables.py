"""Tests for nmthpo.studies.zhang_duh.benchmark_tables: formatting, Tables 1-2, Spearman matrices,
fANOVA."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from nmthpo.studies.zhang_duh import benchmark_tables as analysis
from tests.paths import INSTALLED, MIRROR


@pytest.fixture
def with_data(monkeypatch: pytest.MonkeyPatch) -> None:
    if not os.environ.get("NMTHPO_DATA"):
        if not (INSTALLED / "datasets").is_dir():
            if not (MIRROR / "datasets").is_dir():
                pytest.skip("NMTHPO data not installed (make data)")
            monkeypatch.setenv("NMTHPO_DATA", str(MIRROR))


# -- pure functions -----------------------------------------------------------------------
def test_format_config_matches_paper_style() -> None:
    cfg = {"bpe": 30000, "layers": 4, "embed": 512, "hidden": 1024, "heads": 16, "lr": 0.0003}
    assert analysis.format_config(cfg) == "30k,4,512,1024,16,3e-4"
    assert analysis.format_value("lr", 0.001) == "1e-3"
    assert analysis.format_value("bpe", 1000) == "1k"


def test_common_keys_maps_30k_to_32k() -> None:
    configs = pd.DataFrame(
        {
            "bpe": [30000, 32000, 10000],
            "layers": [2, 2, 2],
            "embed": [256] * 3,
            "hidden": [1024] * 3,
            "heads": [8] * 3,
            "lr": [3e-4, 3e-4 + 1e-12, 3e-4],
        }
    )
    keys = analysis.common_keys(configs)
    assert keys[0] == keys[1]
    assert keys[2][0] == 10000


def test_spearman_matrix_validates_mode() -> None:
    with pytest.raises(ValueError, match="pairwise"):
        analysis.spearman_matrix(["zh-en"], common="some")


# -- on the data ----------------------------------------------------------------------------
def test_table2_reproduces_paper(with_data: None) -> None:
    t2 = analysis.table2()
    assert (t2["rows"] == t2["paper rows"]).all()
    assert (t2["best BLEU"] == t2["paper best BLEU"]).all()
    assert t2["config matches"].all()
    assert t2.loc["zh-en", "#tied best"] == 3


def test_table1_matches_paper(with_data: None) -> None:
    assert analysis.table1()["matches paper"].all()


def test_spearman_all_common_reproduces_0084(with_data: None) -> None:
    rho, n = analysis.spearman_matrix(common="all")
    assert round(float(rho.loc["ja-en", "so-en"]), 3) == analysis.PAPER_SPEARMAN[("ja-en", "so-en")]
    assert rho.loc["ja-en", "en-ja"] > 0.9
    assert (n.to_numpy() == n.iat[0, 0]).all()
    assert np.allclose(rho.to_numpy(), rho.to_numpy().T, equal_nan=True)


def test_metric_correlations_exclude_missing_memory(with_data: None) -> None:
    corr = analysis.metric_correlations(["sw-en"])
    assert corr.loc[("sw-en", "gpu_memory"), "n"] < corr.loc[("sw-en", "dev_ppl"), "n"]
    assert corr.loc[("sw-en", "dev_gpu_time"), "rho with time"] == pytest.approx(1.0)


def test_importance_table_constant_top_gives_nan(with_data: None) -> None:
    # zh-en: the 0.99 quantile equals the three tied best rows, so capped BLEU is constant
    singles, pairs = analysis.importance_table("zh-en", top_fraction=0.01, n_trees=2)
    assert singles.isna().all() and len(singles) == 6
    assert pairs.isna().all() and len(pairs) == 15
