"""Chapter 6's figures: search-space scoring (Ariafar et al. 2022).

Each function returns a :class:`matplotlib.figure.Figure` built without pyplot.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from nmthpo.plots.style import (
    MAX_WIDTH_IN,
    OKABE_ITO,
    book_figure,
    grid_shape,
    hide_unused,
    panel_width,
    series_style,
    shared_legend,
)

#: Readable names of the rank correlations of :func:`faithfulness_curves`.
CORRELATION_LABELS: dict[str, str] = {"spearman": "Spearman's ρ", "kendall_tau": "Kendall's τ"}

__all__ = [
    "score_scatter",
    "faithfulness_curves",
    "preferred_size_plot",
    "calibration_plot",
    "comparison_plot",
]


def _domain_column(frame: pd.DataFrame) -> str:
    if "task" in frame.columns:
        return "task"
    if "function" in frame.columns:
        return "function"
    raise ValueError("the frame has neither a 'task' nor a 'function' column")


def _panels(n: int, ncols: int = 3, w: float = 3.4, h: float = 2.6) -> tuple[Figure, np.ndarray]:
    nrows, ncols = grid_shape(n, ncols)
    fig = Figure(figsize=(panel_width(ncols, w) * ncols, h * nrows + 0.8), layout="constrained")
    return fig, np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))


@book_figure
def score_scatter(
    frame: pd.DataFrame,
    budgets: Sequence[int],
    score: str = "mean-b-ei",
    seed_size: int | None = None,
    repeat: int = 0,
) -> Figure:
    """Predicted against empirical score of every candidate space, one panel per budget.

    ``frame`` is a :func:`nmthpo.studies.ariafar.space_scores.table_experiment` or
    ``synthetic_experiment`` frame; rows are the task/function, colour is the space's size (rows
    or volume fraction). One (seed size, repeat): the smallest seed size unless ``seed_size`` is
    given.
    """
    dom = _domain_column(frame)
    sub = frame[(frame["score"] == score) & (frame["repeat"] == repeat)]
    n = int(sub["seed_size"].min()) if seed_size is None else seed_size
    sub = sub[sub["seed_size"] == n]
    names = list(dict.fromkeys(sub[dom]))
    if sub.empty or not budgets:
        raise ValueError("nothing to plot: no rows for that score, seed size and repeat")
    size = "n_rows" if "n_rows" in sub.columns else "fraction"
    width = min(2.9 * len(budgets) + 0.9, MAX_WIDTH_IN)
    fig = Figure(figsize=(width, 2.5 * len(names)), layout="constrained")
    axes = np.atleast_2d(fig.subplots(len(names), len(budgets), squeeze=False))
    sc = None
    for i, name in enumerate(names):
        for j, b in enumerate(budgets):
            ax = axes[i, j]
            g = sub[(sub[dom] == name) & (sub["budget"] == b)]
            sc = ax.scatter(
                g["empirical"], g["predicted"], c=g[size], s=14, cmap="viridis", edgecolor="none"
            )
            lo = float(min(g["empirical"].min(), g["predicted"].min()))
            hi = float(max(g["empirical"].max(), g["predicted"].max()))
            ax.plot([lo, hi], [lo, hi], color="#999999", lw=0.8, ls="--")
            ax.set_title(f"{name}, n={n}, b={b}")
            ax.set_xlabel(f"empirical {score}")
            ax.set_ylabel(f"predicted {score}")
    if sc is not None:
        fig.colorbar(
            sc, ax=axes, label="rows" if size == "n_rows" else "volume fraction", shrink=0.8
        )
    return fig


@book_figure
def faithfulness_curves(
    summary: pd.DataFrame, metrics: Sequence[str] = ("spearman", "kendall_tau")
) -> Figure:
    """Rank correlation of predicted and empirical scores against the budget.

    ``summary`` is :func:`nmthpo.studies.ariafar.results.faithfulness_summary`'s frame; one panel
    per
    task/function, one colour and marker per seed size, solid Spearman, dashed Kendall.
    """
    dom = _domain_column(summary)
    names = list(dict.fromkeys(summary[dom]))
    fig, axes = _panels(len(names))
    styles = ["-", "--", ":"]
    for ax, name in zip(axes.ravel(), names, strict=False):
        g = summary[summary[dom] == name]
        for k, (n, h) in enumerate(g.groupby("seed_size", sort=True)):
            st = series_style(k)
            for m, ls in zip(metrics, styles, strict=False):
                ax.plot(
                    h["budget"],
                    h[m],
                    ls,
                    color=st.colour,
                    marker=st.marker,
                    ms=4,
                    lw=1.3,
                    label=f"n={n}" if m == metrics[0] else None,
                )
        ax.axhline(0, color="#999999", lw=0.8)
        ax.set_xscale("log")
        ax.set_ylim(-1, 1)
        ax.set_title(str(name))
        ax.set_xlabel("budget b")
        ax.set_ylabel(" / ".join(CORRELATION_LABELS.get(m, m) for m in metrics))
    kinds = ", ".join(
        f"{ls_name}: {CORRELATION_LABELS.get(m, m)}"
        for ls_name, m in zip(("solid", "dashed", "dotted"), metrics, strict=False)
    )
    shared_legend(fig, axes.ravel()[0], title=f"seed size ({kinds})")
    hide_unused(axes, len(names))
    return fig


@book_figure
def preferred_size_plot(summary: pd.DataFrame) -> Figure:
    """Size of the best space against the budget: predicted (solid) and empirical (dashed).

    ``summary`` is :func:`nmthpo.studies.ariafar.results.preferred_summary`'s frame (means over
    repeats); one panel per task/function, one colour per seed size.
    """
    dom = _domain_column(summary)
    names = list(dict.fromkeys(summary[dom]))
    fig, axes = _panels(len(names))
    for ax, name in zip(axes.ravel(), names, strict=False):
        g = summary[summary[dom] == name]
        for k, (n, h) in enumerate(g.groupby("seed_size", sort=True)):
            st = series_style(k)
            kw = {"color": st.colour, "marker": st.marker, "ms": 4}
            ax.plot(h["budget"], h["predicted_size"], "-", label=f"n={n}", **kw)
            ax.plot(h["budget"], h["empirical_size"], "--", **kw)
        ax.set_xscale("log")
        ax.set_title(str(name))
        ax.set_xlabel("budget b")
        ax.set_ylabel("size of best space (rows)" if dom == "task" else "volume fraction")
    shared_legend(fig, axes.ravel()[0], title="seed size (solid: predicted, dashed: empirical)")
    hide_unused(axes, len(names))
    return fig


@book_figure
def calibration_plot(cal: pd.DataFrame) -> Figure:
    """Mean predicted over mean empirical score against the budget (1 = calibrated).

    ``cal`` is :func:`nmthpo.studies.ariafar.space_scores.calibration`'s frame; one panel per
    task/function, one
    colour per seed size, log scale.
    """
    dom = _domain_column(cal)
    names = list(dict.fromkeys(cal[dom]))
    fig, axes = _panels(len(names))
    for ax, name in zip(axes.ravel(), names, strict=False):
        g = cal[cal[dom] == name]
        for k, (n, h) in enumerate(g.groupby("seed_size", sort=True)):
            st = series_style(k)
            ax.plot(h["budget"], h["ratio"], label=f"n={n}", **st.line(markevery=None))
        ax.axhline(1, color="#999999", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(str(name))
        ax.set_xlabel("budget b")
        ax.set_ylabel("predicted / empirical")
    shared_legend(fig, axes.ravel()[0], title="seed size")
    hide_unused(axes, len(names))
    return fig


@book_figure
def comparison_plot(summary: pd.DataFrame, label_a: str, label_b: str) -> Figure:
    """Expected best BLEU of two spaces against the budget, predicted and empirical.

    ``summary`` is :func:`nmthpo.studies.ariafar.results.comparison_summary`'s frame.
    """
    fig = Figure(figsize=(6.0, 4.0), layout="constrained")
    ax = fig.subplots()
    for col, name, colour in (
        ("a", label_a, OKABE_ITO["blue"]),
        ("b", label_b, OKABE_ITO["vermillion"]),
    ):
        ax.plot(
            summary["budget"],
            summary[f"predicted_{col}"],
            "-",
            marker="o",
            ms=4.5,
            color=colour,
            label=f"{name}, predicted",
        )
        ax.plot(
            summary["budget"],
            summary[f"empirical_{col}"],
            "--",
            marker="s",
            ms=4.5,
            color=colour,
            label=f"{name}, empirical",
        )
    ax.set_xscale("log")
    ax.set_xlabel("budget b")
    ax.set_ylabel("expected best dev BLEU")
    shared_legend(fig, ax, ncols=2)
    return fig
