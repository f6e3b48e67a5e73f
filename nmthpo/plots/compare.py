"""Figures of ``nmthpo compare`` and the chapter "Benchmark your own optimiser".

Every function returns a :class:`matplotlib.figure.Figure` built without pyplot (nothing shown
or saved), like the rest of :mod:`nmthpo.plots`.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from nmthpo.engine.compare import Comparison, TaskRanking
from nmthpo.plots.style import book_figure, method_styles, shared_legend

__all__ = ["cd_diagram", "leaderboard_plot", "runtime_ecdf", "save_comparison_figure"]

_LABELS = {
    "ftb": "runtime to the best (models trained)",
    "ftc": "runtime to within 0.5 BLEU of the best",
    "fb": "BLEU gap after 20 models",
    "fto": "runtime to one Pareto row",
    "fta": "runtime to every Pareto row",
    "fbp": "Pareto rows among the first 50",
}


def _mine(comp: Comparison, name: object) -> bool:
    return comp.sources.get(str(name), "") == "run directory"


def _leaderboard_ax(ax: Axes, comp: Comparison, m: str) -> None:
    """Mean and interval per method, in the method's colour and marker (those of the ECDF's
    legend); your runs' names in bold."""
    board = comp.leaderboard(m)
    styles = method_styles(str(n) for n in board.index)
    y = np.arange(len(board))[::-1]
    for yi, (name, row) in zip(y, board.iterrows(), strict=True):
        st = styles[str(name)]
        ax.errorbar(
            row["mean"],
            yi,
            xerr=[[row["mean"] - row["ci_low"]], [row["ci_high"] - row["mean"]]],
            fmt=st.marker,
            ms=7 if _mine(comp, name) else 5,
            color=st.colour,
            lw=2.2 if _mine(comp, name) else 1.2,
            capsize=3,
        )
    ax.set_yticks(y, [str(n) for n in board.index])
    for label, name in zip(ax.get_yticklabels(), board.index, strict=True):
        if _mine(comp, name):
            label.set_fontweight("bold")
    ax.set_xlabel(f"{m}: {_LABELS.get(m, m)}\n(mean, 95% CI)")
    ax.set_title(f"{comp.task}: {comp.trials} paired trials (bold: your runs)")
    ax.grid(axis="x", alpha=0.3)


def _ecdf_ax(ax: Axes, comp: Comparison, m: str) -> None:
    """One step curve per method in the method's style; your runs thick."""
    names = [str(n) for n in comp.leaderboard(m).index]
    styles = method_styles(names)
    for name in names:
        v = np.sort(comp.values[name][m].to_numpy(dtype=float))
        share = np.arange(1, v.size + 1) / v.size
        ax.step(
            v,
            share,
            where="post",
            label=name,
            lw=2.4 if _mine(comp, name) else 1.2,
            **styles[name].line(),
        )
    ax.set_xlabel(_LABELS.get(m, m))
    ax.set_ylabel("share of trials with a value ≤ x")
    ax.set_title(f"{comp.task}: runtime ECDF of {m} (thick: your runs)")
    ax.grid(alpha=0.3)


@book_figure
def leaderboard_plot(comp: Comparison, metric: str | None = None) -> Figure:
    """Mean of ``metric`` per method with its 95 % bootstrap interval, best first; each method
    in its colour and marker (:func:`nmthpo.plots.style.method_style`), your runs in bold."""
    fig = Figure(figsize=(6.0, 0.35 * len(comp.values) + 1.5), layout="constrained")
    _leaderboard_ax(fig.add_subplot(), comp, metric or comp.metric)
    return fig


@book_figure
def runtime_ecdf(comp: Comparison, metric: str | None = None) -> Figure:
    """Empirical CDF over trials of ``metric`` (for a runtime: share of trials done by *x*);
    your runs thick."""
    fig = Figure(figsize=(6.0, 4.2), layout="constrained")
    ax = fig.add_subplot()
    _ecdf_ax(ax, comp, metric or comp.metric)
    shared_legend(fig, ax)
    return fig


@book_figure
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


@book_figure
def _two_panels(comp: Comparison) -> Figure:
    fig = Figure(figsize=(12.5, max(4.2, 0.35 * len(comp.values) + 1.5)), layout="constrained")
    left, right = fig.subplots(1, 2)
    _leaderboard_ax(left, comp, comp.metric)
    _ecdf_ax(right, comp, comp.metric)
    shared_legend(fig, right)
    return fig
