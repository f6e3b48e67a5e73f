"""Tests for the Chapter 5 figures of nmthpo.plots (genetic algorithms, Ganapathy 2020)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from nmthpo import plots
from nmthpo.studies.ganapathy import tables as ga


def _close(data: object, expected: object) -> None:
    np.testing.assert_allclose(np.asarray(data, dtype=float), np.asarray(expected, dtype=float))


@pytest.fixture(scope="module")
def study() -> ga.GAStudy:
    return ga.ga_study(init_pops=(5, 10), iterations=30, trials=2, seed=3)


def test_ga_tables_plot_draws_ours_and_the_papers(study):
    frames = [ga.paper_comparison(study, w) for w in ("ga", "baseline", "difference")]
    fig = plots.ga_tables_plot(*frames, k=2.0)
    assert isinstance(fig, Figure)
    left, right = fig.axes
    assert [ax.get_title() for ax in fig.axes] == ["Tables 2 and 3", "Table 4"]
    # two error-bar series and two paper lines on the left; data are our averages
    ours = left.containers[0].lines[0]
    _close(ours.get_ydata(), frames[0]["average"])
    paper_lines = [ln for ln in left.lines if ln.get_label() == "GA (paper)"]
    _close(paper_lines[0].get_ydata(), [ga.PAPER_GA[5], ga.PAPER_GA[10]])
    diff = right.containers[0].lines[0]
    _close(diff.get_ydata(), study.difference().to_numpy())
    with pytest.raises(ValueError, match="paper_comparison"):
        plots.ga_tables_plot(pd.DataFrame({"x": [1]}), frames[1], frames[2])


def test_count_ecdf_plot_steps_reach_one(study):
    fig = plots.count_ecdf_plot(
        {"GA": study.ga_counts[5], "random baseline": study.baseline_counts[5]}, title="m = 5"
    )
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_title() == "m = 5"
    line = ax.lines[0]
    _close(line.get_xdata(), np.sort(study.ga_counts[5].ravel()))
    assert line.get_ydata()[-1] == pytest.approx(1.0)
    assert line.get_ydata()[0] == pytest.approx(1 / study.ga_counts[5].size)
    with pytest.raises(ValueError, match="empty"):
        plots.count_ecdf_plot({})


def test_variant_plot_one_series_per_row():
    frame = pd.DataFrame(
        {"5": [20.0, 22.0], "5 se": [0.5, 0.4], "10": [21.0, 23.0], "10 se": [0.3, 0.2]},
        index=pd.Index(["paper", "baseline"]),
    )
    fig = plots.variant_plot(frame, k=2.0)
    ax = fig.axes[0]
    assert len(ax.containers) == 2
    _close(ax.containers[1].lines[0].get_ydata(), [22.0, 23.0])
    _close(ax.containers[0].lines[0].get_xdata(), [5, 10])
    # without se columns there are no error bars
    bare = plots.variant_plot(frame[["5", "10"]])
    assert bare.axes[0].containers[0].has_yerr is False
    with pytest.raises(ValueError, match="variant_table"):
        plots.variant_plot(pd.DataFrame())


def test_fair_edge_plot_with_reference():
    fair = pd.DataFrame(
        {"edge": [2.0, 1.0], "edge_se": [0.3, 0.2]}, index=pd.Index([5, 10], name="init_pop")
    )
    ref = pd.Series({5: 1.5, 10: 0.5})
    fig = plots.fair_edge_plot(fair, ref)
    ax = fig.axes[0]
    _close(ax.containers[0].lines[0].get_ydata(), [2.0, 1.0])
    assert [ln.get_label() for ln in ax.lines][-1] == "paper's counting rules"
    with pytest.raises(ValueError, match="fair_comparison"):
        plots.fair_edge_plot(pd.DataFrame({"edge": [1.0]}))
