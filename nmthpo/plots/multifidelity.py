"""Chapter 7's figures: multi-fidelity HPO on the NMTLC learning curves.

Each function returns a :class:`matplotlib.figure.Figure` built without pyplot.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from nmthpo.benchmark.learning_curves import load_curves
from nmthpo.plots.style import (
    METHOD_STYLES,
    book_figure,
    grid_shape,
    hide_unused,
    method_styles,
    panel_width,
    require_columns,
    series_style,
    shared_legend,
)

__all__ = [
    "FIDELITY_COLOURS",
    "anytime_plot",
    "curves_plot",
    "rank_correlation_plot",
    "survival_plot",
]

#: The colour of each multi-fidelity method (labels of
#: :func:`nmthpo.studies.multifidelity.study.method_label`; styles:
#: :data:`nmthpo.plots.style.METHOD_STYLES`).
FIDELITY_COLOURS: dict[str, str] = {
    m: METHOD_STYLES[m].colour
    for m in (
        "rs",
        "sh",
        "hb",
        "asha",
        "bohb",
        "sh-upstream",
        "optuna SuccessiveHalving",
        "optuna Hyperband",
        "optuna Median",
    )
}


def _task_panels(n: int, width: float, height: float) -> tuple[Figure, np.ndarray]:
    """A figure with a grid of ``n`` panels, at most three a row, and room for a legend."""
    nrows, ncols = grid_shape(n, 3)
    fig = Figure(
        figsize=(panel_width(ncols, width) * ncols, height * nrows + 0.9), layout="constrained"
    )
    return fig, np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))


@book_figure
def curves_plot(
    tasks: Sequence[str], n_curves: int = 40, seed: int = 0, raw: bool = True
) -> Figure:
    """Raw learning curves of ``n_curves`` random configurations per task (one panel each);
    the true best configuration's curve in black. Perplexity axes are logarithmic and cut at
    three times the 99th percentile of the values shown."""
    fig, axes = _task_panels(len(tasks), 3.4, 2.4)
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
        ax.set_title(t)
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


@book_figure
def rank_correlation_plot(corr: pd.DataFrame) -> Figure:
    """Spearman correlation of checkpoint ``k`` with the final value against ``k``
    (:func:`nmthpo.studies.multifidelity.study.rank_correlation`), one line per task."""
    require_columns(
        corr,
        ("task", "checkpoint", "spearman"),
        "nmthpo.studies.multifidelity.study.rank_correlation",
    )
    fig = Figure(figsize=(6.5, 4.4), layout="constrained")
    ax = fig.subplots()
    for i, (t, g) in enumerate(corr.groupby("task", sort=False)):
        st = series_style(i)
        ls = "-" if "finetune" in str(t) else ":"
        ax.plot(
            g["checkpoint"],
            g["spearman"],
            ls,
            color=st.colour,
            marker=st.marker,
            ms=4,
            label=str(t),
        )
    ax.set_xscale("log")
    ax.set_xlabel("checkpoint k")
    ax.set_ylabel("Spearman's ρ (value at k, final)")
    ax.set_ylim(top=1.0)
    shared_legend(fig, ax)
    return fig


@book_figure
def anytime_plot(anytime: pd.DataFrame, log_y: bool = False) -> Figure:
    """Mean regret of the recommendation against checkpoints spent, 95 % bands, one panel per
    task (:func:`nmthpo.studies.multifidelity.study.anytime_table`)."""
    require_columns(
        anytime,
        ("task", "method", "checkpoints", "regret", "low", "high"),
        "nmthpo.studies.multifidelity.study.anytime_table",
    )
    tasks = list(dict.fromkeys(anytime["task"]))
    fig, axes = _task_panels(len(tasks), 3.6, 2.6)
    styles = method_styles(anytime["method"].astype(str))
    for ax, t in zip(axes.ravel(), tasks, strict=False):
        sub = anytime[anytime["task"] == t]
        for m, g in sub.groupby("method", sort=False):
            st = styles[str(m)]
            ax.plot(g["checkpoints"], g["regret"], lw=1.3, label=str(m), **st.line())
            ax.fill_between(
                g["checkpoints"], g["low"], g["high"], color=st.colour, alpha=0.15, lw=0
            )
        ax.set_title(t)
        ax.set_xlabel("checkpoints spent")
        ax.set_ylabel("regret (BLEU)" if "finetune" in t else "regret (perplexity)")
        if log_y:
            ax.set_yscale("symlog", linthresh=0.01)
    shared_legend(fig, axes)
    hide_unused(axes, len(tasks))
    return fig


@book_figure
def survival_plot(surv: pd.DataFrame) -> Figure:
    """Share of trials in which the true best reached each rung, one panel per task
    (:func:`nmthpo.studies.multifidelity.study.survival_table`)."""
    require_columns(
        surv, ("task", "method", "rungs"), "nmthpo.studies.multifidelity.study.survival_table"
    )
    tasks = list(dict.fromkeys(surv["task"]))
    fig, axes = _task_panels(len(tasks), 3.6, 2.5)
    styles = method_styles(surv["method"].astype(str))
    for ax, t in zip(axes.ravel(), tasks, strict=False):
        sub = surv[surv["task"] == t].dropna(axis=1, how="all")
        rungs = [c for c in sub.columns if c.startswith("rung ")]
        x = [int(v) for v in str(sub["rungs"].iloc[0]).split(",")][: len(rungs)]
        for _, row in sub.iterrows():
            ax.plot(
                x,
                [row[c] for c in rungs],
                label=row["method"],
                **styles[str(row["method"])].line(markevery=None),
            )
        ax.set_xscale("log")
        ax.set_xticks(x, [str(v) for v in x])
        ax.minorticks_off()
        ax.set_ylim(-5, 105)
        ax.set_title(t)
        ax.set_xlabel("rung (checkpoint)")
        ax.set_ylabel("best survived (%)")
    shared_legend(fig, axes)
    hide_unused(axes, len(tasks))
    return fig
