"""Figures of ``nmthpo compare`` and the chapter "Benchmark your own optimiser".

Every function returns a :class:`matplotlib.figure.Figure` built without pyplot (nothing shown
or saved), like the rest of :mod:`nmthpo.plots`.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from nmthpo.engine.compare import Comparison, TaskRanking

__all__ = ["cd_diagram", "leaderboard_plot", "runtime_ecdf", "save_comparison_figure"]

_LABELS = {
    "ftb": "runtime to the best (models trained)",
    "ftc": "runtime to within 0.5 BLEU of the best",
    "fb": "BLEU gap after 20 models",
    "fto": "runtime to one Pareto row",
    "fta": "runtime to every Pareto row",
    "fbp": "Pareto rows among the first 50",
}


def _leaderboard_ax(ax: Axes, comp: Comparison, m: str) -> None:
    board = comp.leaderboard(m)
    y = np.arange(len(board))[::-1]
    for yi, (name, row) in zip(y, board.iterrows(), strict=True):
        mine = comp.sources.get(str(name), "") == "run directory"
        ax.errorbar(
            row["mean"],
            yi,
            xerr=[[row["mean"] - row["ci_low"]], [row["ci_high"] - row["mean"]]],
            fmt="o",
            color="#C44E52" if mine else "#4C4C4C",
            capsize=3,
        )
    ax.set_yticks(y, [str(n) for n in board.index])
    ax.set_xlabel(f"{m}: {_LABELS.get(m, m)} (mean, 95% CI)")
    ax.set_title(f"{comp.task}: {comp.trials} paired trials (red: your runs)")
    ax.grid(axis="x", alpha=0.3)


def _ecdf_ax(ax: Axes, comp: Comparison, m: str) -> None:
    cmap = matplotlib.colormaps["tab10"]
    for i, name in enumerate(comp.leaderboard(m).index):
        v = np.sort(comp.values[str(name)][m].to_numpy(dtype=float))
        share = np.arange(1, v.size + 1) / v.size
        mine = comp.sources.get(str(name), "") == "run directory"
        ax.step(
            v,
            share,
            where="post",
            label=str(name),
            color=cmap(i % 10),
            lw=2.2 if mine else 1.2,
            ls="-" if mine else "--",
        )
    ax.set_xlabel(_LABELS.get(m, m))
    ax.set_ylabel("share of trials with a value <= x")
    ax.set_title(f"{comp.task}: runtime ECDF ({m})")
    ax.legend(fontsize=7, ncols=2)
    ax.grid(alpha=0.3)


def leaderboard_plot(comp: Comparison, metric: str | None = None) -> Figure:
    """Mean of ``metric`` per method with its 95 % bootstrap interval, best first."""
    fig = Figure(figsize=(6.0, 0.35 * len(comp.values) + 1.2), layout="constrained")
    _leaderboard_ax(fig.add_subplot(), comp, metric or comp.metric)
    return fig


def runtime_ecdf(comp: Comparison, metric: str | None = None) -> Figure:
    """Empirical CDF over trials of ``metric`` (for a runtime: share of trials done by *x*)."""
    fig = Figure(figsize=(6.0, 3.6), layout="constrained")
    _ecdf_ax(fig.add_subplot(), comp, metric or comp.metric)
    return fig


def cd_diagram(ranking: TaskRanking) -> Figure:
    """Critical-difference diagram of the average ranks over tasks (``autorank``'s drawing)."""
    from autorank import plot_stats

    fig = Figure(figsize=(7.0, 0.25 * len(ranking.ranks) + 1.6), layout="constrained")
    ax = fig.add_subplot()
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plot_stats(ranking.result, allow_insignificant=True, ax=ax)
    return fig


def save_comparison_figure(obj: Comparison | TaskRanking, path: str | Path) -> Path:
    """Write the figure of ``nmthpo compare --plot FILE``.

    One task: the leaderboard and the runtime ECDF side by side; several tasks: the
    critical-difference diagram. The format follows the file's suffix (png, pdf, svg).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig = cd_diagram(obj) if isinstance(obj, TaskRanking) else _two_panels(obj)
    fig.savefig(path, dpi=150)
    return path


def _two_panels(comp: Comparison) -> Figure:
    fig = Figure(figsize=(12.5, max(3.8, 0.35 * len(comp.values) + 1.2)), layout="constrained")
    left, right = fig.subplots(1, 2)
    _leaderboard_ax(left, comp, comp.metric)
    _ecdf_ax(right, comp, comp.metric)
    return fig
