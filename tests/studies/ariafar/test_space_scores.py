"""Tests for nmthpo.studies.ariafar.space_scores: score tables of candidate spaces and search in
them (the score mathematics is tested in tests/models/test_space_scores.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nmthpo.benchmark.subspaces import parse_spaces
from nmthpo.benchmark.tables import LookupTable
from nmthpo.studies.ariafar.space_scores import (
    ALL_SCORES,
    faithfulness_table,
    preferred_spaces,
    prune_spaces,
    score_table_spaces,
    search_in_rows,
)


# -- table experiment on a tiny fake table ------------------------------------------------------
def _tiny_table() -> LookupTable:
    configs = pd.DataFrame({"a": [1, 1, 2, 2, 3, 3], "b": [1, 2, 1, 2, 1, 2]})
    bleu = np.array([1.0, 2.0, 4.0, 3.0, 0.0, 5.0])
    scaled = np.column_stack([(configs["a"] - 1) / 2, configs["b"] - 1]).astype(float)
    return LookupTable(
        task="tiny",
        configs=configs,
        metrics=pd.DataFrame({"dev_bleu": bleu}),
        scaled=scaled,
        shared=scaled,
        pareto=np.zeros(6, dtype=bool),
    )


def test_score_table_spaces_frame_and_exact_empirical():
    table = _tiny_table()
    spaces = parse_spaces("full,a=2,a<=2;b=1", table.configs)
    rng = np.random.default_rng(0)
    f = score_table_spaces(
        table, spaces, np.array([0, 1]), [1, 2], rng, n_batches=16, n_samples=16, restarts=0
    )
    assert len(f) == 3 * 2 * len(ALL_SCORES)
    assert set(f["space"]) == {"full", "a=2", "a<=2;b=1"}
    assert (f["incumbent"] == 2.0).all()
    row = f[(f["space"] == "a=2") & (f["budget"] == 2) & (f["score"] == "mean-b-ei")].iloc[0]
    # space {4, 3}, y+ = 2, b = 2 iid: best is 4 w.p. 3/4 -> EI = 0.75*2 + 0.25*1
    assert row["empirical"] == pytest.approx(1.75)
    assert row["empirical_norepl"] == pytest.approx(2.0)
    assert row["n_rows"] == 2
    ft = faithfulness_table(f.assign(repeat=0), "mean-b-ei")
    assert list(ft["budget"]) == [1, 2]
    pref = preferred_spaces(f, "mean-b-ei", "empirical")
    assert list(pref["space"]) == ["a=2", "a=2"]
    pr = prune_spaces(f, 2, "mean-b-ei", fraction=0.4)
    assert pr.loc[0, "n_pruned"] == 1


def test_search_in_rows_random_search_curve():
    X = np.arange(10, dtype=float)[:, None] / 10
    y = np.arange(10, dtype=float)
    rows = np.array([1, 4, 7])
    curve = search_in_rows("rs", X, y, rows, 5, np.random.default_rng(0), n_init=2)
    assert curve.shape == (5,)
    assert np.all(np.diff(curve) >= 0) and curve[-1] == 7.0  # exhausts the 3-row sub-table
    with pytest.raises(ValueError, match="no rows"):
        search_in_rows("rs", X, y, np.array([], dtype=int), 3, np.random.default_rng(0))
