"""Chapter 3's figures: multiobjective HPO (Zhang & Duh 2020, Sections 5.4 and 6.2).

Each function returns a :class:`matplotlib.figure.Figure` built without pyplot.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from nmthpo.plots.style import (
    METHOD_STYLES,
    book_figure,
    grid_shape,
    hide_unused,
    method_styles,
    panel_width,
    shared_legend,
)

__all__ = [
    "plot_front_evolution",
    "plot_hypervolume",
    "hypervolume_grid",
    "PARETO_COLOURS",
    "REGRET_ZERO",
]


#: The colour of each multiobjective system (their styles are in
#: :data:`nmthpo.plots.style.METHOD_STYLES`, shared with Chapter 2's kernels).
PARETO_COLOURS: dict[str, str] = {
    m: METHOD_STYLES[m].colour for m in ("rs", "bo-m", "bo-r", "gb-m", "gb-r")
}


@book_figure
def plot_front_evolution(data: Mapping[str, pd.DataFrame], title: str | None = None) -> Figure:
    """Figure 7: one panel per method, dev BLEU (x) against decoding time (y); lower right wins.

    ``data`` maps a panel label (e.g. ``"BO-M"``) to the frame of
    :func:`nmthpo.studies.zhang_duh.multiobjective.front_evolution`. Gray open circles: the Pareto
    set of the initial rows; coloured staircases (viridis, early to late): the attainment boundary
    of the Pareto-front approximation after each requested step (through the points and the corners
    ``(BLEU_i, time_{i+1})``, so everything above-left of it is dominated); gold stars: the
    table's true Pareto set. Panels share both axes so that the methods' fronts are directly
    comparable; the legend sits below the panels.
    """
    from matplotlib import colormaps

    if not data:
        raise ValueError("data is empty; pass {label: multiobjective.front_evolution(...)}")
    ncols = len(data)
    fig = Figure(figsize=(panel_width(ncols, 4.2) * ncols, 4.2), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, ncols, squeeze=False, sharex=True, sharey=True))[0]
    for ax, (label, d) in zip(axes, data.items(), strict=True):
        missing = {"kind", "step", "bleu", "time"} - set(d.columns)
        if missing:
            raise ValueError(
                f"panel {label!r} lacks columns {sorted(missing)}; pass the frame of "
                "multiobjective.front_evolution"
            )
        approx = d[d["kind"] == "approximation"]
        steps = sorted(approx["step"].unique())
        colours = colormaps["viridis"](np.linspace(0.15, 0.85, max(len(steps), 1)))
        for c, step in zip(colours, steps, strict=False):
            g = approx[approx["step"] == step].sort_values("bleu")
            ax.step(
                g["bleu"],
                g["time"],
                where="pre",
                color=c,
                lw=1.2,
                marker="o",
                ms=3,
                label=f"step {int(step)}",
            )
        ini = d[d["kind"] == "initial"]
        ax.scatter(
            ini["bleu"],
            ini["time"],
            s=70,
            facecolors="none",
            edgecolors="gray",
            linewidths=1.2,
            label="initial Pareto set",
            zorder=3,
        )
        tru = d[d["kind"] == "true"]
        ax.scatter(
            tru["bleu"],
            tru["time"],
            marker="*",
            s=110,
            color="#E1A100",
            edgecolors="black",
            linewidths=0.5,
            label="true Pareto set",
            zorder=4,
        )
        ax.set_title(str(label))
        ax.set_xlabel("dev BLEU")
    axes[0].set_ylabel("decoding time (GPU s)")
    shared_legend(fig, axes)
    if title:
        fig.suptitle(title)
    return fig


#: Relative hypervolume regret below which a curve counts as having found the whole front.
REGRET_ZERO: float = 1e-9


def _hv_panel(ax: Axes, bands: Mapping[str, pd.DataFrame], regret: bool, relative: bool) -> None:
    key = "regret" if regret else "hv"
    styles = method_styles(str(m) for m in bands)
    for label, b in bands.items():
        cols = [f"{key}_q25", f"{key}_median", f"{key}_q75"]
        missing = {"step", *cols} - set(b.columns)
        if missing:
            raise ValueError(
                f"bands {label!r} lack columns {sorted(missing)}; pass the frame of "
                "multiobjective.hypervolume_bands"
            )
        true_hv = b.attrs.get("true_hv")
        if relative and not true_hv:
            raise ValueError(
                f"bands {label!r} have no attrs['true_hv']; pass the frame of "
                "multiobjective.hypervolume_bands, or relative=False"
            )
        scale = 1.0 / float(true_hv) if relative else 1.0
        lo, med, hi = (b[c].to_numpy(dtype=float) * scale for c in cols)
        if regret:
            # Zero regret (the whole front found) cannot be drawn on a log axis. The regret is
            # a difference of sums, so "zero" is a rounding residue of ~1e-16 x true HV: treat
            # anything below REGRET_ZERO x true HV as zero.
            tiny = REGRET_ZERO * (float(true_hv) * scale if true_hv else 0.0)
            lo, med, hi = (np.where(v > tiny, v, np.nan) for v in (lo, med, hi))
        st = styles[str(label)]
        ax.plot(b["step"], med, lw=1.3, label=str(label), **st.line())
        ax.fill_between(b["step"], lo, hi, color=st.colour, alpha=0.18, lw=0)
    if regret:
        ax.set_yscale("log")
    what = "hypervolume regret" if regret else "hypervolume"
    ax.set_ylabel(f"{what} / true HV" if relative else what)
    ax.set_xlabel("evaluations")


@book_figure
def plot_hypervolume(
    bands: Mapping[str, pd.DataFrame],
    regret: bool = True,
    relative: bool = False,
    title: str | None = None,
) -> Figure:
    """Hypervolume regret (or hypervolume) over evaluations of several methods on one task.

    ``bands`` maps a method to the frame of
    :func:`nmthpo.studies.zhang_duh.multiobjective.hypervolume_bands`;
    lines are medians over trials, bands the 25-75 % quantiles. Regret is drawn on a log axis,
    where zeros (every Pareto point found; below ``REGRET_ZERO`` x the true hypervolume, which
    absorbs rounding) are left out. ``relative`` divides by the true
    front's hypervolume (``attrs["true_hv"]``).
    """
    if not bands:
        raise ValueError("bands is empty; pass {method: multiobjective.hypervolume_bands(...)}")
    fig = Figure(figsize=(5.6, 4.0), layout="constrained")
    ax = fig.subplots()
    _hv_panel(ax, bands, regret, relative)
    shared_legend(fig, ax)
    if title:
        ax.set_title(title)
    return fig


@book_figure
def hypervolume_grid(
    bands: Mapping[tuple[str, str], pd.DataFrame], regret: bool = True, relative: bool = True
) -> Figure:
    """:func:`plot_hypervolume` for every task: one panel per task, one line per method.

    ``bands`` maps ``(method, task)`` to
    :func:`nmthpo.studies.zhang_duh.multiobjective.hypervolume_bands`' frame. ``relative``
    (default here) divides each task's curves by its true hypervolume, so that the panels share
    one scale of "fraction of the true front's volume still missing".
    """
    if not bands:
        raise ValueError("bands is empty; pass {(method, task): hypervolume_bands(...)}")
    tasks = list(dict.fromkeys(t for _, t in bands))
    nrows, ncols = grid_shape(len(tasks))
    fig = Figure(figsize=(panel_width(ncols, 3.9) * ncols, 2.6 * nrows + 0.4), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))
    for ax, task in zip(axes.ravel(), tasks, strict=False):
        _hv_panel(ax, {m: b for (m, t), b in bands.items() if t == task}, regret, relative)
        ax.set_title(task)
    hide_unused(axes, len(tasks))
    shared_legend(fig, axes)
    return fig
