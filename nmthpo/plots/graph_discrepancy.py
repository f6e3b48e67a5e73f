"""Chapter 2's figure of the graph-discrepancy experiments.

The data come from :mod:`nmthpo.studies.zhang_duh.graph_discrepancy`.

Each function returns a :class:`matplotlib.figure.Figure` built without pyplot.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from nmthpo.plots.style import (
    GREY,
    MAX_WIDTH_IN,
    OKABE_ITO,
    book_figure,
    grid_shape,
    hide_unused,
    require_columns,
)

__all__ = ["arm_forest"]

#: Marker colour and shape of each group of arms (the shared Okabe-Ito palette).
GROUP_COLOURS: dict[str, str] = {
    "reference": GREY,
    "BO": OKABE_ITO["blue"],
    "GB": OKABE_ITO["bluish green"],
    "EIF labels": OKABE_ITO["orange"],
    "GB-EI": OKABE_ITO["vermillion"],
}
GROUP_MARKERS: dict[str, str] = {
    "reference": "x",
    "BO": "o",
    "GB": "D",
    "EIF labels": "s",
    "GB-EI": "^",
}


@book_figure
def arm_forest(intervals: pd.DataFrame, reference: str = "RS") -> Figure:
    """Mean ftb with 95 % intervals of every arm, one panel per task (fewer is better).

    ``intervals`` is the frame of
    :func:`nmthpo.studies.zhang_duh.graph_discrepancy.arm_intervals`; the dashed line marks the
    ``reference`` arm's mean.
    """
    require_columns(
        intervals, ["arm", "group", "task", "ftb", "low", "high"], "graph_discrepancy.arm_intervals"
    )
    tasks = list(dict.fromkeys(intervals.task))
    arms = list(dict.fromkeys(intervals.arm))
    nrows, ncols = grid_shape(len(tasks), ncols=2)
    fig = Figure(
        figsize=(MAX_WIDTH_IN, 0.24 * len(arms) * nrows + 0.9 * nrows), layout="constrained"
    )
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False, sharey=True))
    y = np.arange(len(arms))[::-1]
    for ax, task in zip(axes.ravel(), tasks, strict=False):
        g = intervals[intervals.task == task].set_index("arm").loc[arms]
        for yi, (_arm, r) in zip(y, g.iterrows(), strict=True):
            col = GROUP_COLOURS.get(str(r["group"]), "#333333")
            ax.errorbar(
                r["ftb"],
                yi,
                xerr=[[r["ftb"] - r["low"]], [r["high"] - r["ftb"]]],
                fmt=GROUP_MARKERS.get(str(r["group"]), "o"),
                ms=4.5,
                color=col,
                capsize=2,
                lw=1.1,
            )
        if reference in g.index:
            ax.axvline(float(g.loc[reference, "ftb"]), color="#7f7f7f", ls="--", lw=0.9)
        ax.set_title(task)
        ax.set_xlabel("mean ftb (models trained), 95% CI")
        ax.set_yticks(y, arms)
        ax.grid(axis="x", alpha=0.3)
    hide_unused(axes, len(tasks))
    return fig
