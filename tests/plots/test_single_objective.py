"""Tests for nmthpo.plots.single_objective (Chapter 2): every figure builds with its panels."""

from __future__ import annotations

import numpy as np
import pandas as pd

from nmthpo import plots
from nmthpo.plots.style import METHOD_COLOURS, method_colour


def curve(offset: float, mse: bool = True) -> pd.DataFrame:
    step = np.arange(1, 6)
    frame = pd.DataFrame(
        {
            "step": step,
            "best_q25": offset + step - 0.5,
            "best_q50": offset + step,
            "best_q75": offset + step + 0.5,
        }
    )
    if mse:
        frame = frame.assign(mse_q25=1.0 / step, mse_q50=2.0 / step, mse_q75=3.0 / step)
    return frame


def test_anytime_panels_bleu_and_mse() -> None:
    fig = plots.anytime_panels({"rs": curve(10, mse=False), "bo-ei-m": curve(11)}, "de-en")
    left, right = fig.axes
    assert [ln.get_label() for ln in left.get_lines()] == ["rs", "bo-ei-m"]
    assert [ln.get_label() for ln in right.get_lines()] == ["bo-ei-m"]  # rs has no surrogate
    assert right.get_yscale() == "log"
    assert left.get_lines()[1].get_color() == METHOD_COLOURS["bo-ei-m"]
    assert len(plots.anytime_panels({"rs": curve(10)}, "de-en", mse=False).axes) == 1


def test_best_found_grid_one_visible_panel_per_task() -> None:
    curves = {("rs", "zh-en"): curve(10), ("rs", "ru-en"): curve(12), ("ga", "zh-en"): curve(11)}
    fig = plots.best_found_grid(curves)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["zh-en", "ru-en"]
    assert len(visible[0].get_lines()) == 2


def test_ecdf_rank_and_k_plots() -> None:
    ecdf = pd.DataFrame(
        {
            "method": ["rs", "rs", "ga", "ga"],
            "budget": [1, 10, 1, 10],
            "fraction": [0.1, 0.5, 0.2, 0.9],
        }
    )
    ax = plots.runtime_ecdf_plot(ecdf).axes[0]
    assert ax.get_xscale() == "log" and len(ax.get_lines()) == 2
    ranks = pd.DataFrame({"step": [1, 2, 3], "rs": [2.0, 1.5, 1.5], "ga": [1.0, 1.5, 1.5]})
    ax = plots.average_rank_plot(ranks).axes[0]
    assert ax.yaxis_inverted()
    assert [ln.get_color() for ln in ax.get_lines()] == [method_colour("rs"), method_colour("ga")]
    k = pd.DataFrame(
        {
            "method": ["gb-ei-m"] * 3,
            "task": ["zh-en"] * 3,
            "k": [5, 10, 20],
            "ftb": [30.0, 25.0, 28.0],
            "paper_k": [False, True, False],
        }
    )
    ax = plots.k_sensitivity_plot(k).axes[0]
    assert len(ax.get_lines()) == 2  # the line and the paper's k


def test_unknown_method_has_a_fixed_palette_colour() -> None:
    from nmthpo.plots.style import OKABE_ITO

    assert method_colour("my-method") == method_colour("my-method")
    assert method_colour("my-method") in OKABE_ITO.values()
