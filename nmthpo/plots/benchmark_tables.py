"""Chapter 1's figures: the NMTHPO benchmark tables (Zhang & Duh 2020, Section 3).

Each function returns a :class:`matplotlib.figure.Figure` built without pyplot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from nmthpo.benchmark.tables import LookupTable
from nmthpo.plots.style import (
    GREY,
    MAX_WIDTH_IN,
    OKABE_ITO,
    book_figure,
    display_label,
    grid_shape,
    hide_unused,
    panel_width,
    shared_legend,
)

__all__ = [
    "bleu_histograms",
    "bleu_vs_time",
    "metric_distributions",
    "correlation_heatmap",
    "importance_bars",
]


@book_figure
def bleu_histograms(tables: Sequence[LookupTable], bins: int = 20) -> Figure:
    """Figure 1 (left): histogram of dev BLEU of every model, one panel per task; the dashed
    line marks the best model."""
    nrows, ncols = grid_shape(len(tables))
    fig = Figure(figsize=(panel_width(ncols, 3.6) * ncols, 2.5 * nrows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))
    for ax, table in zip(axes.ravel(), tables, strict=False):
        ax.hist(table.bleu, bins=bins, color=OKABE_ITO["blue"], edgecolor="white")
        ax.axvline(table.best_bleu, color=OKABE_ITO["vermillion"], lw=1.2, ls="--")
        ax.set_title(f"{table.task} ({table.n_rows} models)")
        ax.set_xlabel("dev BLEU")
        ax.set_ylabel("models")
    hide_unused(axes, len(tables))
    return fig


@book_figure
def bleu_vs_time(tables: Sequence[LookupTable]) -> Figure:
    """Figure 1 (right): BLEU against decoding time; gold stars mark the Pareto-optimal models."""
    nrows, ncols = grid_shape(len(tables))
    fig = Figure(figsize=(panel_width(ncols, 3.6) * ncols, 2.6 * nrows + 0.4), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))
    for ax, table in zip(axes.ravel(), tables, strict=False):
        p = table.pareto
        ax.scatter(table.time[~p], table.bleu[~p], s=8, color=GREY, alpha=0.6, label="model")
        ax.scatter(
            table.time[p],
            table.bleu[p],
            s=90,
            marker="*",
            color="#E1A100",
            edgecolor="black",
            linewidth=0.5,
            label="Pareto-optimal",
            zorder=3,
        )
        ax.set_title(f"{table.task} ({int(p.sum())} Pareto-optimal)")
        ax.set_xlabel("decoding time (GPU s)")
        ax.set_ylabel("dev BLEU")
    shared_legend(fig, axes.ravel()[0])
    hide_unused(axes, len(tables))
    return fig


@book_figure
def metric_distributions(
    tables: Sequence[LookupTable],
    metrics: Sequence[str] = ("dev_ppl", "num_updates", "gpu_memory", "num_param"),
) -> Figure:
    """Box plots of each metric across tasks (one panel per metric; missing values excluded).

    Perplexity and parameter counts span orders of magnitude and are drawn on a log axis.
    """
    if not tables:
        raise ValueError("nothing to plot: pass at least one table")
    nrows, ncols = grid_shape(len(metrics), ncols=2)
    fig = Figure(figsize=(panel_width(ncols, 5.2) * ncols, 2.9 * nrows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))
    for ax, metric in zip(axes.ravel(), metrics, strict=False):
        values = [t.metrics[metric].dropna().to_numpy(dtype=float) for t in tables]
        ax.boxplot(
            values,
            tick_labels=[t.task for t in tables],
            showfliers=True,
            flierprops={"markersize": 2},
        )
        ax.tick_params(axis="x", labelrotation=30)
        ax.set_ylabel(display_label(metric))
        if metric in ("dev_ppl", "num_param"):
            ax.set_yscale("log")
    hide_unused(axes, len(metrics))
    return fig


@book_figure
def correlation_heatmap(
    rho: pd.DataFrame,
    counts: pd.DataFrame | None = None,
    title: str = "",
    vmin: float = -1.0,
    vmax: float = 1.0,
) -> Figure:
    """Figure 4: a matrix of correlations, annotated with rho (and the count it rests on).

    Row and column names are shown as readers know them (:func:`~nmthpo.plots.style.
    display_label`: metrics with their units, hyperparameters by the paper's names).
    """
    labelled = any(display_label(c) != str(c) for c in rho.columns)
    fig = Figure(
        figsize=(
            min(1.6 + 1.0 * rho.shape[1], MAX_WIDTH_IN),
            0.8 + 0.8 * rho.shape[0] + (1.2 if labelled else 0.0),
        ),
        layout="constrained",
    )
    ax = fig.subplots()
    im = ax.imshow(rho.to_numpy(dtype=float), cmap="RdBu_r", vmin=vmin, vmax=vmax)
    cols = [display_label(c) for c in rho.columns]
    ax.set_xticks(range(rho.shape[1]), cols, rotation=35, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(rho.shape[0]), [display_label(r) for r in rho.index])
    for i in range(rho.shape[0]):
        for j in range(rho.shape[1]):
            v = rho.iat[i, j]
            text = "n/a" if pd.isna(v) else f"{v:.2f}"
            if counts is not None:
                text += f"\n({int(counts.iat[i, j])})"
            ax.text(
                j,
                i,
                text,
                ha="center",
                va="center",
                fontsize=9,
                color="white" if not pd.isna(v) and abs(v) > 0.6 else "black",
            )
    fig.colorbar(im, ax=ax, shrink=0.8, label="Spearman's rho")
    if title:
        ax.set_title(title)
    return fig


@book_figure
def importance_bars(panels: Mapping[str, tuple[pd.Series, pd.Series]], n_pairs: int = 8) -> Figure:
    """Figure 5: single importances (upper panel) and the ``n_pairs`` largest pairs (lower panel)
    of each setting, two settings a row.

    ``panels`` maps a panel title (e.g. ``"en-ja, top 1%"``) to ``(singles, pairs)`` as
    returned by :func:`nmthpo.studies.zhang_duh.benchmark_tables.importance_table`.
    """
    if not panels:
        raise ValueError("nothing to plot: pass at least one panel")
    nrows, ncols = grid_shape(len(panels), ncols=2)
    n_single = max(len(s) for s, _ in panels.values())
    n_pair = max(min(len(p), n_pairs) for _, p in panels.values())
    h_single, h_pair = 0.6 + 0.22 * n_single, 0.6 + 0.22 * n_pair
    fig = Figure(
        figsize=(panel_width(ncols, 4.0) * ncols, (h_single + h_pair) * nrows),
        layout="constrained",
    )
    axes = fig.subplots(2 * nrows, ncols, squeeze=False, height_ratios=[h_single, h_pair] * nrows)
    for i, (title, (singles, pairs)) in enumerate(panels.items()):
        row, col = divmod(i, ncols)
        top, bottom = axes[2 * row, col], axes[2 * row + 1, col]
        s = singles.sort_values()
        top.barh(list(s.index), s.to_numpy(), color=OKABE_ITO["blue"])
        top.set_title(title)
        top.set_xlabel("fraction of variance")
        p = pairs.sort_values(ascending=False).head(n_pairs).sort_values()
        bottom.barh(list(p.index), p.to_numpy(), color=OKABE_ITO["bluish green"])
        bottom.set_xlabel("fraction of variance (pairs)")
    for i in range(len(panels), nrows * ncols):
        row, col = divmod(i, ncols)
        axes[2 * row, col].set_visible(False)
        axes[2 * row + 1, col].set_visible(False)
    return fig
