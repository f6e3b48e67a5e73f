"""Chapter 7's figures: multi-fidelity HPO on the NMTLC learning curves (issue 14).

Each function returns a :class:`matplotlib.figure.Figure` built without pyplot.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from nmthpo.benchmark.learning_curves import load_curves
from nmthpo.plots.style import grid_shape, hide_unused, require_columns, shared_legend

__all__ = [
    "FIDELITY_COLOURS",
    "anytime_plot",
    "curves_plot",
    "rank_correlation_plot",
    "survival_plot",
]

#: One colour per multi-fidelity method (labels of :func:`nmthpo.studies.multifidelity.study.
#: method_label`).
FIDELITY_COLOURS: dict[str, str] = {
    "rs": "#7f7f7f",
    "sh": "#d62728",
    "hb": "#1f77b4",
    "asha": "#ff7f0e",
    "bohb": "#2ca02c",
    "sh-upstream": "#9467bd",
    "optuna SuccessiveHalving": "#e377c2",
    "optuna Hyperband": "#17becf",
    "optuna Median": "#bcbd22",
}


def _colour(method: str) -> str:
    return FIDELITY_COLOURS.get(method, "#333333")


def _task_panels(n: int, width: float, height: float) -> tuple[Figure, np.ndarray]:
    """A figure with a grid of ``n`` panels, at most four a row."""
    nrows, ncols = grid_shape(n, 4)
    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    return fig, np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))


def curves_plot(
    tasks: Sequence[str], n_curves: int = 40, seed: int = 0, raw: bool = True
) -> Figure:
    """Raw learning curves of ``n_curves`` random configurations per task (one panel each);
    the true best configuration's curve in black. Perplexity axes are logarithmic and cut at
    three times the 99th percentile of the values shown."""
    fig, axes = _task_panels(len(tasks), 3.4, 2.6)
    rng = np.random.default_rng(seed)
    for ax, t in zip(axes.ravel(), tasks, strict=False):
        table = load_curves(t)
        pick = rng.choice(table.n_rows, size=min(n_curves, table.n_rows), replace=False)
        shown = []
        for r in pick:
            c = table.curve(int(r), raw=raw)
            shown.append(c)
            ax.plot(np.arange(1, c.size + 1), c, lw=0.6, alpha=0.5)
        b = int(table.best_rows[0])
        c = table.curve(b, raw=raw)
        ax.plot(np.arange(1, c.size + 1), c, color="black", lw=1.6, label="best final")
        ax.set_title(t, fontsize=9)
        ax.set_xlabel("checkpoint")
        ax.set_ylabel("dev BLEU" if table.maximise else "dev perplexity")
        if not table.maximise:
            ax.set_yscale("log")
            # a few diverged curves reach 1e13: cut the axis at 3x the 99th percentile
            values = np.concatenate(shown + [c])
            ax.set_ylim(0.8 * values.min(), 3 * np.percentile(values, 99))
    shared_legend(fig, axes)
    hide_unused(axes, len(tasks))
    return fig


def rank_correlation_plot(corr: pd.DataFrame) -> Figure:
    """Spearman correlation of checkpoint ``k`` with the final value against ``k``
    (:func:`nmthpo.studies.multifidelity.study.rank_correlation`), one line per task."""
    require_columns(
        corr,
        ("task", "checkpoint", "spearman"),
        "nmthpo.studies.multifidelity.study.rank_correlation",
    )
    fig = Figure(figsize=(6.5, 3.2), layout="constrained")
    ax = fig.subplots()
    for t, g in corr.groupby("task", sort=False):
        ls = "-" if "finetune" in str(t) else ":"
        ax.plot(g["checkpoint"], g["spearman"], ls, marker=".", label=str(t))
    ax.set_xscale("log")
    ax.set_xlabel("checkpoint k")
    ax.set_ylabel("Spearman(value at k, final)")
    ax.set_ylim(top=1.0)
    ax.legend(fontsize=7, ncols=2)
    return fig


def anytime_plot(anytime: pd.DataFrame, log_y: bool = False) -> Figure:
    """Mean regret of the recommendation against checkpoints spent, 95 % bands, one panel per
    task (:func:`nmthpo.studies.multifidelity.study.anytime_table`)."""
    require_columns(
        anytime,
        ("task", "method", "checkpoints", "regret", "low", "high"),
        "nmthpo.studies.multifidelity.study.anytime_table",
    )
    tasks = list(dict.fromkeys(anytime["task"]))
    fig, axes = _task_panels(len(tasks), 3.6, 2.8)
    for ax, t in zip(axes.ravel(), tasks, strict=False):
        sub = anytime[anytime["task"] == t]
        for m, g in sub.groupby("method", sort=False):
            col = _colour(str(m))
            ax.plot(g["checkpoints"], g["regret"], color=col, lw=1.3, label=str(m))
            ax.fill_between(g["checkpoints"], g["low"], g["high"], color=col, alpha=0.15, lw=0)
        ax.set_title(t, fontsize=9)
        ax.set_xlabel("checkpoints spent")
        ax.set_ylabel("regret (BLEU)" if "finetune" in t else "regret (perplexity)")
        if log_y:
            ax.set_yscale("symlog", linthresh=0.01)
    shared_legend(fig, axes)
    hide_unused(axes, len(tasks))
    return fig


def survival_plot(surv: pd.DataFrame) -> Figure:
    """Share of trials in which the true best reached each rung, one panel per task
    (:func:`nmthpo.studies.multifidelity.study.survival_table`)."""
    require_columns(
        surv, ("task", "method", "rungs"), "nmthpo.studies.multifidelity.study.survival_table"
    )
    tasks = list(dict.fromkeys(surv["task"]))
    fig, axes = _task_panels(len(tasks), 3.6, 2.6)
    for ax, t in zip(axes.ravel(), tasks, strict=False):
        sub = surv[surv["task"] == t].dropna(axis=1, how="all")
        rungs = [c for c in sub.columns if c.startswith("rung ")]
        x = [int(v) for v in str(sub["rungs"].iloc[0]).split(",")][: len(rungs)]
        for _, row in sub.iterrows():
            ax.plot(
                x,
                [row[c] for c in rungs],
                marker="o",
                ms=3,
                color=_colour(row["method"]),
                label=row["method"],
            )
        ax.set_xscale("log")
        ax.set_xticks(x, [str(v) for v in x])
        ax.minorticks_off()
        ax.set_ylim(-5, 105)
        ax.set_title(t, fontsize=9)
        ax.set_xlabel("rung (checkpoint)")
        ax.set_ylabel("best survived (%)")
    shared_legend(fig, axes)
    hide_unused(axes, len(tasks))
    return fig
