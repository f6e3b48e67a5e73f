"""Chapter 4's figures: transfer-learning HPO (Li et al. 2022, TransBO).

Each function returns a :class:`matplotlib.figure.Figure` built without pyplot.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from nmthpo.plots.style import grid_shape, hide_unused, require_columns, shared_legend

__all__ = [
    "transfer_curves_plot",
    "transfer_summary_plot",
    "target_weight_plot",
    "overhead_plot",
    "TRANSFER_COLOURS",
    "TRANSFER_VALUE_LABELS",
]


#: A fixed colour per transfer method; the ``-ms`` (source-only) ablations share their
#: method's colour and are drawn dashed.
TRANSFER_COLOURS: dict[str, str] = {
    "rs": "#7f7f7f",
    "igp": "#1f77b4",
    "scot": "#8c564b",
    "sgpr": "#e377c2",
    "pogpe": "#bcbd22",
    "tst": "#17becf",
    "tstm": "#9edae5",
    "rgpe": "#ff7f0e",
    "transbo": "#d62728",
}

#: Axis labels of the transfer curves.
TRANSFER_VALUE_LABELS: dict[str, str] = {
    "rank": "average rank (1 = best)",
    "adtm": "ADTM (Eq. 9)",
    "mean": "target weight p^T",
    "cum_seconds": "cumulative suggestion time (s)",
}


def _transfer_style(method: str) -> tuple[str, str]:
    """Colour and line style of a method: ``-ms`` ablations dashed, variants labelled
    ``"<method>, <what differs>"`` (the overhead experiment) dotted, in the method's colour."""
    base, sep, _ = method.partition(", ")
    if sep:
        return TRANSFER_COLOURS.get(base, "#333333"), ":"
    base = method.removesuffix("-ms")
    return TRANSFER_COLOURS.get(base, "#333333"), "--" if method.endswith("-ms") else "-"


def _transfer_panel(ax: Axes, curves: pd.DataFrame, value: str) -> None:
    for method, g in curves.groupby("method", sort=False):
        col, ls = _transfer_style(str(method))
        lw = 2.0 if str(method).startswith("transbo") else 1.2
        ax.plot(g["step"], g[value], ls, color=col, lw=lw, label=str(method))
    ax.set_xlabel("trials (target evaluations)")
    ax.set_ylabel(TRANSFER_VALUE_LABELS.get(value, value))
    if value == "rank":
        ax.invert_yaxis()


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
    fig = Figure(figsize=(3.9 * ncols, 2.9 * nrows), layout="constrained")
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


def transfer_summary_plot(
    ranks: pd.DataFrame, adtms: pd.DataFrame, title: str | None = None
) -> Figure:
    """Aggregated average rank (left) and ADTM (right, log scale) over trials."""
    require_columns(ranks, ("method", "step", "rank"), "nmthpo.engine.ranks.average_rank")
    require_columns(adtms, ("method", "step", "adtm"), "nmthpo.engine.ranks.adtm")
    fig = Figure(figsize=(10.0, 3.6), layout="constrained")
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


def target_weight_plot(weights: pd.DataFrame, title: str | None = None) -> Figure:
    """Mean target weight ``p^T`` (± one standard deviation over trials) against the trials.

    ``weights`` is :func:`nmthpo.engine.ranks.weight_curve`'s frame (``method``,
    ``step``, ``mean``, ``std``); methods without a target weight (all NaN) are skipped.
    """
    require_columns(weights, ("method", "step", "mean", "std"), "nmthpo.engine.ranks.weight_curve")
    fig = Figure(figsize=(6.4, 3.6), layout="constrained")
    ax = fig.subplots()
    for method, g in weights.groupby("method", sort=False):
        if not np.isfinite(g["mean"].to_numpy(dtype=float)).any():
            continue
        col, ls = _transfer_style(str(method))
        ax.plot(g["step"], g["mean"], ls, color=col, lw=1.6, label=str(method))
        ax.fill_between(
            g["step"], g["mean"] - g["std"], g["mean"] + g["std"], color=col, alpha=0.12
        )
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("trials (target evaluations)")
    ax.set_ylabel(TRANSFER_VALUE_LABELS["mean"])
    ax.legend(fontsize=7)
    if title is not None:
        ax.set_title(title)
    return fig


def overhead_plot(overhead: pd.DataFrame, title: str | None = None) -> Figure:
    """Mean cumulative optimisation overhead per trial (log scale), Figure 5(c)'s measure.

    ``overhead`` is :func:`nmthpo.engine.ranks.overhead_curve`'s frame (or
    :func:`nmthpo.studies.li_transbo.study.overhead_variant_curves`', whose variants are drawn
    dotted).
    """
    require_columns(
        overhead, ("method", "step", "cum_seconds"), "nmthpo.engine.ranks.overhead_curve"
    )
    fig = Figure(figsize=(6.0, 3.6), layout="constrained")
    ax = fig.subplots()
    pos = overhead[overhead["cum_seconds"] > 0]
    _transfer_panel(ax, pos, "cum_seconds")
    ax.set_yscale("log")
    ax.legend(fontsize=7, ncols=2)
    if title is not None:
        ax.set_title(title)
    return fig
