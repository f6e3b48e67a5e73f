"""The figures' shared style: metric labels, the method palette and panel-grid helpers.

Every chapter's plot module (:mod:`nmthpo.plots.benchmark_tables` ...
:mod:`nmthpo.plots.space_scores`) draws with these, so a method has one colour in every figure.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure

__all__ = [
    "grid_shape",
    "hide_unused",
    "method_colour",
    "require_columns",
    "shared_legend",
    "LEGEND_FONTSIZE",
    "METRIC_LABELS",
    "METHOD_COLOURS",
]


#: Axis labels of the recorded metrics.
METRIC_LABELS: dict[str, str] = {
    "dev_bleu": "dev BLEU",
    "dev_gpu_time": "decoding time on dev (GPU s)",
    "dev_ppl": "dev perplexity",
    "num_updates": "updates to convergence",
    "gpu_memory": "training GPU memory (MiB)",
    "num_param": "parameters",
}


def grid_shape(n: int, ncols: int = 3) -> tuple[int, int]:
    """``(rows, columns)`` of a panel grid for ``n`` panels, at most ``ncols`` per row."""
    if n < 1:
        raise ValueError("nothing to plot: pass at least one table")
    ncols = min(ncols, n)
    return (n + ncols - 1) // ncols, ncols


def hide_unused(axes: np.ndarray, used: int) -> None:
    """Hide the panels of ``axes`` after the first ``used`` (row-major)."""
    for ax in axes.ravel()[used:]:
        ax.set_visible(False)


#: A fixed colour per method, shared by every single-objective figure (and Chapter 5's GA).
#: Each -M/-R pair has two clearly different hues (blue/orange, red/brown, green/olive), so
#: the kernels stay apart in print and for colour-blind readers.
METHOD_COLOURS: dict[str, str] = {
    "rs": "#7f7f7f",
    "bo-ei-m": "#1f77b4",
    "bo-ei-r": "#ff7f0e",
    "gb-ei-m": "#d62728",
    "gb-ei-r": "#8c564b",
    "gb-eif-m": "#2ca02c",
    "gb-eif-r": "#bcbd22",
    "ga": "#9467bd",
    "bo-ei-m-mcmc": "#17becf",
    "gb-eif-text-m": "#e377c2",
}


def method_colour(method: str) -> str:
    """The method's colour in :data:`METHOD_COLOURS`, dark grey for any other method."""
    return METHOD_COLOURS.get(method, "#333333")


def require_columns(frame: pd.DataFrame, cols: Sequence[str], source: str) -> None:
    """Raise a ValueError naming the missing ``cols`` and the function (``source``) to call."""
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks columns {missing}; pass the frame of {source}")


#: Font size of a figure-level legend (readable at the book's 1400 px page width).
LEGEND_FONTSIZE = 9


def shared_legend(
    fig: Figure, axes: Axes | np.ndarray, ncols: int | None = None, title: str | None = None
) -> None:
    """One legend for a whole panel grid, below the panels: the union of the labelled artists
    of ``axes`` (one panel or an array of panels), first occurrence of each label kept.

    Multi-panel figures draw the same methods in every panel; one figure-level legend at a
    readable size (:data:`LEGEND_FONTSIZE`) replaces a tiny legend inside the first panel.
    ``ncols`` defaults to one row of up to 8 entries. Needs ``layout="constrained"``.
    """
    seen: dict[str, Artist] = {}
    for ax in np.ravel(np.asarray(axes, dtype=object)):
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(lab, h)
    if not seen:
        return
    fig.legend(
        list(seen.values()),
        list(seen),
        loc="outside lower center",
        ncols=ncols or min(len(seen), 8),
        fontsize=LEGEND_FONTSIZE,
        frameon=False,
        title=title,
        title_fontsize=LEGEND_FONTSIZE,
    )
