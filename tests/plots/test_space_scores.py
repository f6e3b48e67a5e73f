"""Tests for the Chapter 6 figures of nmthpo.plots (search-space scoring)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from nmthpo import plots


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for task in ("a", "b"):
        for n in (5, 10):
            for s in range(4):
                for b in (1, 10):
                    rows.append(
                        {
                            "task": task,
                            "seed_size": n,
                            "repeat": 0,
                            "space": f"s{s}",
                            "n_rows": 10 * (s + 1),
                            "budget": b,
                            "score": "mean-b-ei",
                            "predicted": rng.random(),
                            "empirical": rng.random(),
                        }
                    )
    return pd.DataFrame(rows)


def test_score_scatter_one_panel_per_task_and_budget() -> None:
    fig = plots.score_scatter(_frame(), budgets=[1, 10])
    assert isinstance(fig, Figure)
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert len(panels) == 4
    assert len(panels[0].collections[0].get_offsets()) == 4  # four spaces
    assert panels[0].get_title() == "a, n=5, b=1"
    with pytest.raises(ValueError, match="nothing to plot"):
        plots.score_scatter(_frame(), budgets=[1], seed_size=99)


def test_curves_have_one_line_per_seed_size() -> None:
    summ = pd.DataFrame(
        {
            "function": ["f"] * 4,
            "seed_size": [5, 5, 10, 10],
            "budget": [1, 2, 1, 2],
            "spearman": [0.1, 0.2, 0.5, 0.6],
            "kendall_tau": [0.1, 0.1, 0.4, 0.4],
        }
    )
    fig = plots.faithfulness_curves(summ)
    ax = fig.axes[0]
    assert len(ax.get_lines()) == 2 * 2 + 1  # two metrics x two seed sizes + zero line
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), [0.1, 0.2])
    pref = summ.assign(predicted_size=[1, 2, 3, 4], empirical_size=[4, 3, 2, 1])
    assert len(plots.preferred_size_plot(pref).axes[0].get_lines()) == 4
    cal = summ.assign(ratio=[2.0, 3.0, 1.0, 1.5])
    fig = plots.calibration_plot(cal)
    assert fig.axes[0].get_yscale() == "log"
    with pytest.raises(ValueError, match="task"):
        plots.calibration_plot(pd.DataFrame({"x": [1]}))


def test_comparison_plot_four_lines() -> None:
    s = pd.DataFrame(
        {
            "budget": [1, 5],
            "predicted_a": [1, 2],
            "predicted_b": [1, 3],
            "empirical_a": [0, 1],
            "empirical_b": [2, 2],
        }
    )
    fig = plots.comparison_plot(s, "layers=4", "layers=2")
    labels = [ln.get_label() for ln in fig.axes[0].get_lines()]
    assert labels == [
        "layers=4, predicted",
        "layers=4, empirical",
        "layers=2, predicted",
        "layers=2, empirical",
    ]
