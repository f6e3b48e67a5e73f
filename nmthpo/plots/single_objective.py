"""Chapter 2's figures: single-objective HPO (Zhang & Duh 2020, Section 6.1).

Each function returns a :class:`matplotlib.figure.Figure` built without pyplot.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from nmthpo.plots.style import grid_shape, hide_unused, method_colour, shared_legend

__all__ = [
    "anytime_panels",
    "best_found_grid",
    "runtime_ecdf_plot",
    "average_rank_plot",
    "k_sensitivity_plot",
]


def anytime_panels(
    curves: Mapping[str, pd.DataFrame], task: str, mse: bool = True, log_mse: bool = True
) -> Figure:
    """Figure 6: best BLEU found (left) and surrogate MSE (right) over evaluations.

    ``curves`` maps a method to
    :func:`nmthpo.studies.zhang_duh.single_objective.anytime_curves`' frame;
    lines are medians, bands the 25-75% quantiles over trials.
    """
    ncols = 2 if mse else 1
    fig = Figure(figsize=(5.2 * ncols, 3.4), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, ncols, squeeze=False)).ravel()
    for method, c in curves.items():
        col = method_colour(method)
        axes[0].plot(c["step"], c["best_q50"], color=col, label=method, lw=1.4)
        axes[0].fill_between(c["step"], c["best_q25"], c["best_q75"], color=col, alpha=0.15)
        if mse and "mse_q50" in c and np.isfinite(c["mse_q50"]).any():
            axes[1].plot(c["step"], c["mse_q50"], color=col, label=method, lw=1.4)
            axes[1].fill_between(c["step"], c["mse_q25"], c["mse_q75"], color=col, alpha=0.15)
    axes[0].set_title(f"{task}: best BLEU found")
    axes[0].set_xlabel("evaluations")
    axes[0].set_ylabel("dev BLEU")
    axes[0].legend(fontsize=8, ncols=2)
    if mse:
        axes[1].set_title(f"{task}: surrogate MSE over all rows")
        axes[1].set_xlabel("evaluations")
        axes[1].set_ylabel("MSE (BLEU²)")
        if log_mse:
            axes[1].set_yscale("log")
    return fig


def best_found_grid(curves: Mapping[tuple[str, str], pd.DataFrame]) -> Figure:
    """Best BLEU found over evaluations, one panel per task (median, 25-75% band)."""
    tasks = list(dict.fromkeys(t for _, t in curves))
    nrows, ncols = grid_shape(len(tasks))
    fig = Figure(figsize=(3.8 * ncols, 2.9 * nrows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))
    for ax, task in zip(axes.ravel(), tasks, strict=False):
        for (method, t), c in curves.items():
            if t != task:
                continue
            col = method_colour(method)
            ax.plot(c["step"], c["best_q50"], color=col, lw=1.2, label=method)
            ax.fill_between(c["step"], c["best_q25"], c["best_q75"], color=col, alpha=0.12)
        ax.set_title(task)
        ax.set_xscale("log")
        ax.set_xlabel("evaluations")
        ax.set_ylabel("best dev BLEU")
    hide_unused(axes, len(tasks))
    shared_legend(fig, axes)
    return fig


def runtime_ecdf_plot(ecdf: pd.DataFrame) -> Figure:
    """COCO-style ECDF of runtimes: fraction of (task, target, trial) solved per budget."""
    fig = Figure(figsize=(6.0, 3.6), layout="constrained")
    ax = fig.subplots()
    for method, g in ecdf.groupby("method", sort=False):
        ax.step(
            g["budget"],
            g["fraction"],
            where="post",
            color=method_colour(str(method)),
            label=str(method),
        )
    ax.set_xscale("log")
    ax.set_ylim(0, 1.01)
    ax.set_xlabel("evaluations")
    ax.set_ylabel("fraction of (task, target, trial) solved")
    ax.legend(fontsize=7, ncols=2)
    return fig


def average_rank_plot(ranks: pd.DataFrame) -> Figure:
    """Average rank of the best-so-far BLEU over evaluations (1 = best)."""
    fig = Figure(figsize=(6.0, 3.6), layout="constrained")
    ax = fig.subplots()
    for method in ranks.columns.drop("step"):
        ax.plot(ranks["step"], ranks[method], color=method_colour(method), label=method, lw=1.3)
    ax.set_xlabel("evaluations")
    ax.set_ylabel("average rank")
    ax.invert_yaxis()
    ax.legend(fontsize=7, ncols=2)
    return fig


def k_sensitivity_plot(frame: pd.DataFrame) -> Figure:
    """Mean ftb against the kNN graph's k, one line per (method, task); dots mark the paper's k."""
    fig = Figure(figsize=(6.4, 3.6), layout="constrained")
    ax = fig.subplots()
    for (method, task), g in frame.groupby(["method", "task"], sort=False):
        g = g.sort_values("k")
        style = "-" if str(method).startswith("gb-ei-") else "--"
        line = ax.plot(g["k"], g["ftb"], style, marker="o", ms=3, label=f"{method} {task}")[0]
        paper = g[g["paper_k"]]
        ax.plot(paper["k"], paper["ftb"], "*", ms=10, color=line.get_color())
    ax.set_xscale("log")
    ax.set_xlabel("k (kNN graph)")
    ax.set_ylabel("mean ftb")
    ax.legend(fontsize=6, ncols=2)
    return fig
