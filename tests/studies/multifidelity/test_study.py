"""Chapter 7: the book's cache holds exactly the grid's runs, and other parameters compute into
the user cache only (the notebook's published
parameters are checked against the grid in ``tests/studies/test_grids.py``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nmthpo.studies import grids
from nmthpo.studies.multifidelity import study as mf


def test_book_cache_holds_exactly_the_grid(monkeypatch) -> None:
    from nmthpo.engine import fidelity

    folder = grids.book_dir(mf.FOLDER)
    if not folder.exists():
        pytest.skip("results/multifidelity not computed")
    have = sorted(folder.glob("*.parquet"))
    p = grids.MULTIFIDELITY
    n_runs = len(p["finetune_tasks"]) * len(p["methods"]) + len(p["scratch_tasks"]) * len(
        p["scratch_methods"]
    )
    assert len(have) == n_runs and all(f.with_suffix(".json").exists() for f in have)
    assert {f.name for f in folder.iterdir()} == {f.name for f in have} | {
        f.with_suffix(".json").name for f in have
    }
    assert sum(f.stat().st_size for f in folder.iterdir()) < 6_000_000

    def no_work(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a trial was computed instead of read from the book's cache")

    monkeypatch.setattr(fidelity, "simulate_trial", no_work)
    frame = mf.grid_frame()
    assert len(frame) == n_runs * p["trials"]
    assert (frame["cost"] <= frame["budget"]).all() and (frame["regret"] >= 0).all()


def test_other_parameters_go_to_the_user_cache(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(grids, "results_dir", lambda: tmp_path / "book")
    monkeypatch.setenv("NMTHPO_RESULTS", str(tmp_path / "user"))
    monkeypatch.delenv("NMTHPO_WRITE_RESULTS", raising=False)
    a = mf.run_metrics("sh", "lc-finetune-zh-en", trials=3, seed=5)
    files = list((tmp_path / "user" / mf.FOLDER).glob("*.parquet"))
    assert len(files) == 1 and not (tmp_path / "book").exists()
    # the runner's cache: the run's trials with a checksummed sidecar holding the spec
    side = json.loads(files[0].with_suffix(".json").read_text())
    assert side["method"] == "sh" and side["seed"] == 5 and "sha256" in side["checksum"]
    b = mf.run_metrics("sh", "lc-finetune-zh-en", trials=3, seed=5)  # read back
    np.testing.assert_allclose(a["regret"], b["regret"])
    assert list(a.columns[:8]) == [
        "method",
        "task",
        "trial",
        "regret",
        "cost",
        "configs",
        "cost_within",
        "best_reached",
    ]


def test_study_tables() -> None:
    corr = mf.rank_correlation(["lc-finetune-fr-en", "lc-finetune-zh-en"], [1, 1000])
    assert len(corr) == 2  # checkpoint 1000 exceeds both curves
    rho = dict(zip(corr["task"], corr["spearman"], strict=True))
    assert rho["lc-finetune-fr-en"] > 0.8 > 0.6 > rho["lc-finetune-zh-en"] > 0.4
    up = mf.upstream_table(["lc-finetune-zh-en"])
    assert up.loc["lc-finetune-zh-en", "cuts (checkpoint)"] == "3, 6, 9, 12, 15, 18, 21"
    assert mf.method_label("optuna-pruner:MedianPruner") == "optuna Median"
    assert mf.tolerance("lc-finetune-fr-en") == 0.5
