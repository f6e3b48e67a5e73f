"""Tests for the Chapter 3 figures of nmthpo.plots (multiobjective HPO)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from nmthpo import plots
from nmthpo.benchmark.tables import load_table
from nmthpo.studies.zhang_duh import multiobjective as mo


def _frame(seqs: list[np.ndarray]) -> pd.DataFrame:
    parts = [
        pd.DataFrame({"trial": t, "step": np.arange(1, len(s) + 1), "row": s})
        for t, s in enumerate(seqs)
    ]
    return pd.concat(parts, ignore_index=True)


def _pareto_at(task: str, position: int) -> np.ndarray:
    """The whole table as one sequence, the Pareto rows starting at ``position``."""
    table = load_table(task)
    rest = [r for r in range(table.n_rows) if not table.pareto[r]]
    return np.array(rest[:position] + list(table.pareto_rows) + rest[position:])


def test_front_evolution_panels_and_marks() -> None:
    table = load_table("ru-en")
    seq = _pareto_at("ru-en", 2)
    d = mo.front_evolution(_frame([seq]), "ru-en", steps=(5, 10, 40))
    fig = plots.plot_front_evolution({"BO-M": d, "GB-M": d}, title="ru-en")
    assert isinstance(fig, Figure)
    assert [ax.get_title() for ax in fig.axes] == ["BO-M", "GB-M"]
    ax = fig.axes[0]
    assert len(ax.lines) == 3  # one staircase per step
    assert ax.lines[0].get_label() == "step 5"
    # attainment boundary: from (b_i, t_i) up to t_{i+1}, then right to b_{i+1}
    assert ax.lines[0].get_drawstyle() == "steps-pre"
    stars = ax.collections[1]  # initial circles first, then the true front
    assert len(stars.get_offsets()) == int(table.pareto.sum())
    np.testing.assert_allclose(
        np.sort(stars.get_offsets()[:, 0]), np.sort(table.bleu[table.pareto])
    )
    # the staircase after 40 steps holds the Pareto set found by then: here the whole front
    np.testing.assert_allclose(np.sort(ax.lines[2].get_xdata()), np.sort(stars.get_offsets()[:, 0]))
    with pytest.raises(ValueError, match="empty"):
        plots.plot_front_evolution({})
    with pytest.raises(ValueError, match="front_evolution"):
        plots.plot_front_evolution({"x": pd.DataFrame({"row": [1]})})


def test_hypervolume_regret_log_axis_and_relative_scale() -> None:
    seq = _pareto_at("zh-en", 5)
    b = mo.hypervolume_bands(_frame([seq[:20], seq[:30]]), "zh-en")
    fig = plots.plot_hypervolume({"bo-m": b}, title="zh-en")
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and ax.get_title() == "zh-en"
    line = ax.lines[0]
    assert line.get_color() == plots.PARETO_COLOURS["bo-m"]
    y = np.asarray(line.get_ydata(), dtype=float)
    # regret is positive until the whole front is found, then left out (NaN) on the log axis
    J = int(load_table("zh-en").pareto.sum())
    assert np.all(y[: 5 + J - 1] > 0) and np.all(np.isnan(y[5 + J - 1 :]))
    rel = plots.plot_hypervolume({"bo-m": b}, relative=True).axes[0].lines[0]
    np.testing.assert_allclose(np.asarray(rel.get_ydata(), dtype=float), y / b.attrs["true_hv"])
    hv = plots.plot_hypervolume({"bo-m": b}, regret=False).axes[0]
    assert hv.get_yscale() == "linear" and hv.get_ylabel() == "hypervolume"
    # a rounding residue of the regret counts as zero (not drawn on the log axis)
    noisy = b.copy()
    noisy.attrs["true_hv"] = b.attrs["true_hv"]
    noisy.loc[noisy.index[-1], ["regret_q25", "regret_median", "regret_q75"]] = 1e-16
    y2 = plots.plot_hypervolume({"bo-m": noisy}).axes[0].lines[0].get_ydata()
    assert np.isnan(np.asarray(y2, dtype=float)[-1])
    bare = pd.DataFrame(b.to_dict("list"))  # same numbers, no attrs
    with pytest.raises(ValueError, match="true_hv"):
        plots.plot_hypervolume({"bo-m": bare}, relative=True)
    with pytest.raises(ValueError, match="hypervolume_bands"):
        plots.plot_hypervolume({"bo-m": pd.DataFrame({"step": [1]})})
    with pytest.raises(ValueError, match="empty"):
        plots.plot_hypervolume({})


def test_hypervolume_grid_one_panel_per_task() -> None:
    bands = {
        (m, t): mo.hypervolume_bands(_frame([_pareto_at(t, k)[:40]]), t)
        for t in ("zh-en", "ru-en")
        for m, k in (("rs", 30), ("bo-m", 0))
    }
    fig = plots.hypervolume_grid(bands)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["zh-en", "ru-en"]
    assert all(len(ax.lines) == 2 for ax in visible)
    assert visible[0].get_ylabel() == "hypervolume regret / true HV"
    with pytest.raises(ValueError, match="empty"):
        plots.hypervolume_grid({})
