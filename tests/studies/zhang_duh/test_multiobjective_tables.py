"""Tests of nmthpo.studies.zhang_duh.multiobjective_tables: Chapter 3's table helpers."""

from __future__ import annotations

from nmthpo.studies import grids


def test_versus_random_search_words() -> None:
    from nmthpo.studies.zhang_duh import multiobjective_tables as mt

    runs = grids.grid_runs("pareto", ["rs", "bo-m"], ["zh-en"], trials=20)
    cells, counts = mt.versus_random_search(runs, ["bo-m"])
    assert cells.loc[("bo-m", "zh-en"), mt.METRIC_NAMES["fta"]].endswith("better")
    assert counts.loc[("bo-m", "fta"), "wins over RS (by mean)"] == "1 of 1"
    from nmthpo.studies.zhang_duh import multiobjective as mo

    wide = mt.table4_readable(mo.table4(runs))
    assert wide.index[0][0].startswith("zh-en (n=118,") and "[" in wide.iloc[0, 0]
    assert {"rs", "bo-m"} <= set(wide.columns) and len(wide) == 3
