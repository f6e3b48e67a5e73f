"""Chapter 2's figures: single-objective HPO (Zhang & Duh 2020, Section 6.1).

Each function returns a :class:`matplotlib.figure.Figure` built without pyplot, in the shared
style of :mod:`nmthpo.plots.style` (one colour, line style and marker per method).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from nmthpo.plots.style import (
    book_figure,
    grid_shape,
    hide_unused,
    method_styles,
    panel_width,
    series_style,
    shared_legend,
)

__all__ = [
    "anytime_panels",
    "best_found_grid",
    "runtime_ecdf_plot",
    "average_rank_plot",
    "k_sensitivity_plot",
]


@book_figure
def anytime_panels(
    curves: Mapping[str, pd.DataFrame], task: str, mse: bool = True, log_mse: bool = True
) -> Figure:
    """Figure 6: best BLEU found (left) and surrogate MSE (right) over evaluations.

    ``curves`` maps a method to
    :func:`nmthpo.studies.zhang_duh.single_objective.anytime_curves`' frame;
    lines are medians, bands the 25-75% quantiles over trials.
    """
    ncols = 2 if mse else 1
    fig = Figure(figsize=(panel_width(ncols, 5.2) * ncols, 3.9), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, ncols, squeeze=False)).ravel()
    styles = method_styles(curves)
    for method, c in curves.items():
        st = styles[method]
        axes[0].plot(c["step"], c["best_q50"], label=method, lw=1.4, **st.line())
        axes[0].fill_between(c["step"], c["best_q25"], c["best_q75"], color=st.colour, alpha=0.15)
        if mse and "mse_q50" in c and np.isfinite(c["mse_q50"]).any():
            axes[1].plot(c["step"], c["mse_q50"], label=method, lw=1.4, **st.line())
            axes[1].fill_between(c["step"], c["mse_q25"], c["mse_q75"], color=st.colour, alpha=0.15)
    axes[0].set_title(f"{task}: best BLEU found")
    axes[0].set_xlabel("evaluations")
    axes[0].set_ylabel("dev BLEU")
    if mse:
        axes[1].set_title(f"{task}: surrogate MSE (all rows)")
        axes[1].set_xlabel("evaluations")
        axes[1].set_ylabel("MSE (BLEU²)")
        if log_mse:
            axes[1].set_yscale("log")
    shared_legend(fig, axes)
    return fig


@book_figure
def best_found_grid(curves: Mapping[tuple[str, str], pd.DataFrame]) -> Figure:
    """Best BLEU found over evaluations, one panel per task (median, 25-75% band)."""
    tasks = list(dict.fromkeys(t for _, t in curves))
    nrows, ncols = grid_shape(len(tasks))
    fig = Figure(figsize=(panel_width(ncols, 3.8) * ncols, 2.5 * nrows + 0.5), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))
    styles = method_styles(m for m, _ in curves)
    for ax, task in zip(axes.ravel(), tasks, strict=False):
        for (method, t), c in curves.items():
            if t != task:
                continue
            st = styles[method]
            ax.plot(c["step"], c["best_q50"], lw=1.2, label=method, **st.line())
            ax.fill_between(c["step"], c["best_q25"], c["best_q75"], color=st.colour, alpha=0.12)
        ax.set_title(task)
        ax.set_xscale("log")
        ax.set_xlabel("evaluations")
        ax.set_ylabel("best dev BLEU")
    hide_unused(axes, len(tasks))
    shared_legend(fig, axes)
    return fig


@book_figure
def runtime_ecdf_plot(ecdf: pd.DataFrame) -> Figure:
    """COCO-style ECDF of runtimes: fraction of (task, target, trial) solved per budget."""
    fig = Figure(figsize=(6.0, 4.2), layout="constrained")
    ax = fig.subplots()
    styles = method_styles(ecdf["method"].astype(str))
    for method, g in ecdf.groupby("method", sort=False):
        ax.step(
            g["budget"],
            g["fraction"],
            where="post",
            label=str(method),
            **styles[str(method)].line(),
        )
    ax.set_xscale("log")
    ax.set_ylim(0, 1.01)
    ax.set_xlabel("evaluations")
    ax.set_ylabel("share of (task, target, trial) solved")
    shared_legend(fig, ax)
    return fig


@book_figure
def average_rank_plot(ranks: pd.DataFrame) -> Figure:
    """Average rank of the best-so-far BLEU over evaluations (1 = best)."""
    fig = Figure(figsize=(6.0, 4.2), layout="constrained")
    ax = fig.subplots()
    methods = [str(m) for m in ranks.columns.drop("step")]
    styles = method_styles(methods)
    for method in methods:
        ax.plot(ranks["step"], ranks[method], label=method, lw=1.3, **styles[method].line())
    ax.set_xlabel("evaluations")
    ax.set_ylabel("average rank (1 = best)")
    ax.invert_yaxis()
    shared_legend(fig, ax)
    return fig


@book_figure
def k_sensitivity_plot(frame: pd.DataFrame) -> Figure:
    """Mean ftb against the kNN graph's k, one line per (method, task); stars mark the paper's
    k. Solid lines: GB-EI; dashed: the other method; one colour and marker per task."""
    fig = Figure(figsize=(6.4, 4.6), layout="constrained")
    ax = fig.subplots()
    tasks = list(dict.fromkeys(frame["task"]))
    for (method, task), g in frame.groupby(["method", "task"], sort=False):
        g = g.sort_values("k")
        st = series_style(tasks.index(task))
        ls = "-" if str(method).startswith("gb-ei-") else "--"
        ax.plot(
            g["k"],
            g["ftb"],
            ls,
            color=st.colour,
            marker=st.marker,
            ms=4,
            label=f"{method} {task}",
        )
        paper = g[g["paper_k"]]
        ax.plot(paper["k"], paper["ftb"], "*", ms=11, color=st.colour, mec="black", mew=0.5)
    ax.set_xscale("log")
    ax.set_xlabel("k (neighbours in the kNN graph)")
    ax.set_ylabel("mean ftb (models trained)")
    shared_legend(fig, ax)
    return fig
