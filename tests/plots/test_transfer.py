"""Tests for the Chapter 4 figures of nmthpo.plots (transfer-learning HPO, Li et al. 2022)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from nmthpo import plots


def _curves(value, targets=None, methods=("rs", "transbo", "rgpe-ms")):
    rows = []
    for t in targets or [None]:
        for i, m in enumerate(methods):
            for s in range(1, 6):
                row = {"method": m, "step": s, value: float(i + s)}
                if t is not None:
                    row["target"] = t
                rows.append(row)
    return pd.DataFrame(rows)


def test_transfer_curves_plot_one_panel_per_target():
    c = _curves("rank", ["zh-en", "ru-en", "ja-en", "en-ja"])
    fig = plots.transfer_curves_plot(c, "rank", title="static")
    assert isinstance(fig, Figure)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["zh-en", "ru-en", "ja-en", "en-ja"]
    ax = visible[0]
    assert ax.yaxis_inverted()  # rank: better is up
    lines = {ln.get_label(): ln for ln in ax.lines}
    np.testing.assert_allclose(lines["transbo"].get_ydata(), [2, 3, 4, 5, 6])
    assert lines["transbo"].get_linewidth() > lines["rs"].get_linewidth()
    assert lines["rgpe-ms"].get_linestyle() == "--"
    assert lines["rgpe-ms"].get_color() == plots.TRANSFER_COLOURS["rgpe"]


def test_transfer_curves_plot_aggregated_and_bad_input():
    fig = plots.transfer_curves_plot(_curves("adtm"), "adtm", log_y=True)
    (ax,) = fig.axes
    assert ax.get_yscale() == "log" and not ax.yaxis_inverted()
    assert ax.get_title() == "all targets"
    with pytest.raises(ValueError, match="average_rank"):
        plots.transfer_curves_plot(_curves("adtm"), "rank")


def test_transfer_summary_plot_two_panels():
    fig = plots.transfer_summary_plot(_curves("rank"), _curves("adtm"), title="x")
    left, right = fig.axes
    assert (left.get_title(), right.get_title()) == ("average rank", "ADTM")
    assert len(left.lines) == 3 and len(right.lines) == 3
    assert right.get_yscale() == "symlog"


def test_target_weight_plot_skips_methods_without_weight():
    w = pd.DataFrame(
        {
            "method": ["transbo"] * 3 + ["rs"] * 3,
            "step": [1, 2, 3] * 2,
            "mean": [0.0, 0.5, 1.0, np.nan, np.nan, np.nan],
            "std": [0.0, 0.1, 0.0, np.nan, np.nan, np.nan],
        }
    )
    fig = plots.target_weight_plot(w, title="p")
    (ax,) = fig.axes
    assert [ln.get_label() for ln in ax.lines] == ["transbo"]
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [0.0, 0.5, 1.0])
    assert ax.get_ylim() == pytest.approx((-0.02, 1.02))


def test_overhead_plot_log_scale_drops_zero():
    o = pd.DataFrame({"method": ["scot"] * 3, "step": [1, 2, 3], "cum_seconds": [0.0, 0.1, 0.3]})
    fig = plots.overhead_plot(o)
    (ax,) = fig.axes
    assert ax.get_yscale() == "log"
    np.testing.assert_allclose(ax.lines[0].get_xdata(), [2, 3])


def test_overhead_plot_draws_variants_dotted_in_their_method_colour():
    o = pd.DataFrame(
        {
            "method": ["transbo"] * 2 + ["transbo, folds conditioned"] * 2,
            "step": [4, 5] * 2,
            "cum_seconds": [0.1, 0.2, 0.05, 0.1],
        }
    )
    (ax,) = plots.overhead_plot(o).axes
    lines = {ln.get_label(): ln for ln in ax.lines}
    assert lines["transbo"].get_linestyle() == "-"
    assert lines["transbo, folds conditioned"].get_linestyle() == ":"
    assert lines["transbo, folds conditioned"].get_color() == plots.TRANSFER_COLOURS["transbo"]


def test_multi_panel_figures_have_one_readable_legend():
    from nmthpo.plots.style import LEGEND_FONTSIZE

    curves = pd.DataFrame(
        {
            "method": ["a", "a", "b", "b"] * 2,
            "step": [1, 2, 1, 2] * 2,
            "rank": [1.0, 1.5, 2.0, 1.5] * 2,
            "target": ["zh-en"] * 4 + ["ru-en"] * 4,
        }
    )
    fig = plots.transfer_curves_plot(curves)
    assert len(fig.legends) == 1 and not any(ax.get_legend() for ax in fig.axes)
    texts = fig.legends[0].get_texts()
    assert [t.get_text() for t in texts] == ["a", "b"]
    assert all(t.get_fontsize() >= LEGEND_FONTSIZE for t in texts)
