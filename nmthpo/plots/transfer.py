"""Chapter 4's figures: transfer-learning HPO (Li et al. 2022, TransBO).

Each function returns a :class:`matplotlib.figure.Figure` built without pyplot.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from nmthpo.plots.style import (
    MAX_WIDTH_IN,
    METHOD_STYLES,
    MethodStyle,
    book_figure,
    grid_shape,
    hide_unused,
    method_styles,
    panel_width,
    require_columns,
    shared_legend,
)

__all__ = [
    "transfer_curves_plot",
    "transfer_summary_plot",
    "target_weight_plot",
    "overhead_plot",
    "TRANSFER_COLOURS",
    "TRANSFER_VALUE_LABELS",
]


#: The colour of each transfer method (styles: :data:`nmthpo.plots.style.METHOD_STYLES`); the
#: ``-ms`` (source-only) ablations share their method's colour and are drawn dashed.
TRANSFER_COLOURS: dict[str, str] = {
    m: METHOD_STYLES[m].colour
    for m in ("rs", "igp", "scot", "sgpr", "pogpe", "tst", "tstm", "rgpe", "transbo")
}

#: Axis labels of the transfer curves.
TRANSFER_VALUE_LABELS: dict[str, str] = {
    "rank": "average rank (1 = best)",
    "adtm": "ADTM (Eq. 9)",
    "mean": "target weight $p^T$",
    "cum_seconds": "cumulative suggestion time (s)",
}


def _styles(curves: pd.DataFrame) -> dict[str, MethodStyle]:
    """Every method's style: ``-ms`` ablations dashed, variants labelled
    ``"<method>, <what differs>"`` (the overhead experiment) dotted, in the method's colour
    (:func:`nmthpo.plots.style.method_style`)."""
    return method_styles(curves["method"].astype(str))


def _transfer_panel(ax: Axes, curves: pd.DataFrame, value: str) -> None:
    styles = _styles(curves)
    for method, g in curves.groupby("method", sort=False):
        lw = 2.0 if str(method).startswith("transbo") else 1.2
        ax.plot(g["step"], g[value], lw=lw, label=str(method), **styles[str(method)].line())
    ax.set_xlabel("trials (target evaluations)")
    ax.set_ylabel(TRANSFER_VALUE_LABELS.get(value, value))
    if value == "rank":
        ax.invert_yaxis()


@book_figure
def transfer_curves_plot(
    curves: pd.DataFrame, value: str = "rank", title: str | None = None, log_y: bool = False
) -> Figure:
    """Average rank or ADTM over trials: one panel per target (if ``curves`` has a ``target``
    column, e.g. ``average_rank(frame, per_target=True)``) or one aggregated panel.

    ``curves`` has columns ``method``, ``step`` and ``value``
    (:func:`nmthpo.engine.ranks.average_rank` or :func:`~nmthpo.engine.ranks.adtm`).
    Rank axes are inverted (better is up); TransBO is drawn thicker.
    """
    require_columns(curves, ("method", "step", value), "nmthpo.engine.ranks.average_rank/adtm")
    targets = list(dict.fromkeys(curves["target"])) if "target" in curves else [None]
    nrows, ncols = grid_shape(len(targets))
    fig = Figure(figsize=(panel_width(ncols, 3.9) * ncols, 2.5 * nrows + 0.7), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))
    for ax, t in zip(axes.ravel(), targets, strict=False):
        sub = curves if t is None else curves[curves["target"] == t]
        _transfer_panel(ax, sub, value)
        if log_y:
            ax.set_yscale("log")
        ax.set_title(str(t) if t is not None else (title or "all targets"))
    shared_legend(fig, axes.ravel()[0])
    hide_unused(axes, len(targets))
    if title is not None and targets != [None]:
        fig.suptitle(title)
    return fig


@book_figure
def transfer_summary_plot(
    ranks: pd.DataFrame, adtms: pd.DataFrame, title: str | None = None
) -> Figure:
    """Aggregated average rank (left) and ADTM (right, log scale) over trials."""
    require_columns(ranks, ("method", "step", "rank"), "nmthpo.engine.ranks.average_rank")
    require_columns(adtms, ("method", "step", "adtm"), "nmthpo.engine.ranks.adtm")
    fig = Figure(figsize=(MAX_WIDTH_IN, 3.9), layout="constrained")
    left, right = fig.subplots(1, 2)
    _transfer_panel(left, ranks, "rank")
    _transfer_panel(right, adtms, "adtm")
    right.set_yscale("symlog", linthresh=1e-3)
    left.set_title("average rank")
    right.set_title("ADTM")
    shared_legend(fig, left)
    if title is not None:
        fig.suptitle(title)
    return fig


@book_figure
def target_weight_plot(weights: pd.DataFrame, title: str | None = None) -> Figure:
    """Mean target weight ``p^T`` (± one standard deviation over trials) against the trials.

    ``weights`` is :func:`nmthpo.engine.ranks.weight_curve`'s frame (``method``,
    ``step``, ``mean``, ``std``); methods without a target weight (all ``NaN``) are skipped.
    """
    require_columns(weights, ("method", "step", "mean", "std"), "nmthpo.engine.ranks.weight_curve")
    fig = Figure(figsize=(6.4, 4.0), layout="constrained")
    ax = fig.subplots()
    styles = _styles(weights)
    for method, g in weights.groupby("method", sort=False):
        if not np.isfinite(g["mean"].to_numpy(dtype=float)).any():
            continue
        st = styles[str(method)]
        ax.plot(g["step"], g["mean"], lw=1.6, label=str(method), **st.line())
        ax.fill_between(
            g["step"], g["mean"] - g["std"], g["mean"] + g["std"], color=st.colour, alpha=0.12
        )
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("trials (target evaluations)")
    ax.set_ylabel(TRANSFER_VALUE_LABELS["mean"])
    shared_legend(fig, ax)
    if title is not None:
        ax.set_title(title)
    return fig


@book_figure
def overhead_plot(overhead: pd.DataFrame, title: str | None = None) -> Figure:
    """Mean cumulative optimisation overhead per trial (log scale), Figure 5(c)'s measure.

    ``overhead`` is :func:`nmthpo.engine.ranks.overhead_curve`'s frame (or
    :func:`nmthpo.studies.li_transbo.study.overhead_variant_curves`', whose variants are drawn
    dotted).
    """
    require_columns(
        overhead, ("method", "step", "cum_seconds"), "nmthpo.engine.ranks.overhead_curve"
    )
    fig = Figure(figsize=(6.4, 4.2), layout="constrained")
    ax = fig.subplots()
    pos = overhead[overhead["cum_seconds"] > 0]
    _transfer_panel(ax, pos, "cum_seconds")
    ax.set_yscale("log")
    shared_legend(fig, ax)
    if title is not None:
        ax.set_title(title)
    return fig
