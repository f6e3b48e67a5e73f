"""The book's figures, one function per figure, grouped by chapter.

Every function returns a :class:`matplotlib.figure.Figure` built without pyplot (no global
state, nothing shown or saved); notebooks display it, tests inspect it. Later chapters add
their own section below Chapter 1's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from nmthpo.benchmark.tables import LookupTable

#: Axis labels of the recorded metrics.
METRIC_LABELS: dict[str, str] = {
    "dev_bleu": "dev BLEU",
    "dev_gpu_time": "decoding time on dev (GPU s)",
    "dev_ppl": "dev perplexity",
    "num_updates": "updates to convergence",
    "gpu_memory": "training GPU memory (MiB)",
    "num_param": "parameters",
}


def _grid(n: int, ncols: int = 3) -> tuple[int, int]:
    if n < 1:
        raise ValueError("nothing to plot: pass at least one table")
    ncols = min(ncols, n)
    return (n + ncols - 1) // ncols, ncols


def _hide_unused(axes: np.ndarray, used: int) -> None:
    for ax in axes.ravel()[used:]:
        ax.set_visible(False)


# =============================================================================================
# Chapter 1 -- The NMTHPO benchmark (Zhang & Duh 2020, Section 3)
# =============================================================================================
def bleu_histograms(tables: Sequence[LookupTable], bins: int = 20) -> Figure:
    """Figure 1 (left): histogram of dev BLEU of every model, one panel per task."""
    nrows, ncols = _grid(len(tables))
    fig = Figure(figsize=(3.6 * ncols, 2.8 * nrows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))
    for ax, table in zip(axes.ravel(), tables, strict=False):
        ax.hist(table.bleu, bins=bins, color="#4C72B0", edgecolor="white")
        ax.axvline(table.best_bleu, color="#C44E52", lw=1, ls="--")
        ax.set_title(f"{table.task} ({table.n_rows} models)")
        ax.set_xlabel("dev BLEU")
        ax.set_ylabel("models")
    _hide_unused(axes, len(tables))
    return fig


def bleu_vs_time(tables: Sequence[LookupTable]) -> Figure:
    """Figure 1 (right): BLEU against decoding time; gold stars mark the Pareto-optimal models."""
    nrows, ncols = _grid(len(tables))
    fig = Figure(figsize=(3.6 * ncols, 2.9 * nrows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))
    for ax, table in zip(axes.ravel(), tables, strict=False):
        p = table.pareto
        ax.scatter(table.time[~p], table.bleu[~p], s=8, color="#8C8C8C", alpha=0.6,
                   label="model")
        ax.scatter(table.time[p], table.bleu[p], s=90, marker="*", color="#E1A100",
                   edgecolor="black", linewidth=0.5, label="Pareto-optimal", zorder=3)
        ax.set_title(f"{table.task} ({int(p.sum())} Pareto-optimal)")
        ax.set_xlabel(METRIC_LABELS["dev_gpu_time"])
        ax.set_ylabel("dev BLEU")
    axes.ravel()[0].legend(loc="lower right", fontsize="small")
    _hide_unused(axes, len(tables))
    return fig


def metric_distributions(
    tables: Sequence[LookupTable],
    metrics: Sequence[str] = ("dev_ppl", "num_updates", "gpu_memory", "num_param"),
) -> Figure:
    """Box plots of each metric across tasks (one panel per metric; missing values excluded).

    Perplexity and parameter counts span orders of magnitude and are drawn on a log axis.
    """
    if not tables:
        raise ValueError("nothing to plot: pass at least one table")
    nrows, ncols = _grid(len(metrics), ncols=2)
    fig = Figure(figsize=(5.2 * ncols, 3.0 * nrows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))
    for ax, metric in zip(axes.ravel(), metrics, strict=False):
        values = [t.metrics[metric].dropna().to_numpy(dtype=float) for t in tables]
        ax.boxplot(values, tick_labels=[t.task for t in tables], showfliers=True,
                   flierprops={"markersize": 2})
        ax.set_ylabel(METRIC_LABELS.get(metric, metric))
        if metric in ("dev_ppl", "num_param"):
            ax.set_yscale("log")
    _hide_unused(axes, len(metrics))
    return fig


def correlation_heatmap(
    rho: pd.DataFrame,
    counts: pd.DataFrame | None = None,
    title: str = "",
    vmin: float = -1.0,
    vmax: float = 1.0,
) -> Figure:
    """Figure 4: a matrix of correlations, annotated with rho (and the count it rests on)."""
    fig = Figure(figsize=(1.0 + 0.95 * rho.shape[1], 0.6 + 0.8 * rho.shape[0]),
                 layout="constrained")
    ax = fig.subplots()
    im = ax.imshow(rho.to_numpy(dtype=float), cmap="RdBu_r", vmin=vmin, vmax=vmax)
    ax.set_xticks(range(rho.shape[1]), list(rho.columns), rotation=45, ha="right")
    ax.set_yticks(range(rho.shape[0]), list(rho.index))
    for i in range(rho.shape[0]):
        for j in range(rho.shape[1]):
            v = rho.iat[i, j]
            text = "n/a" if pd.isna(v) else f"{v:.2f}"
            if counts is not None:
                text += f"\n({int(counts.iat[i, j])})"
            ax.text(j, i, text, ha="center", va="center", fontsize=7,
                    color="white" if not pd.isna(v) and abs(v) > 0.6 else "black")
    fig.colorbar(im, ax=ax, shrink=0.8, label="Spearman's rho")
    if title:
        ax.set_title(title)
    return fig


def importance_bars(
    panels: Mapping[str, tuple[pd.Series, pd.Series]], n_pairs: int = 8
) -> Figure:
    """Figure 5: single importances (top row) and the ``n_pairs`` largest pairs (bottom row).

    ``panels`` maps a panel title (e.g. ``"en-ja, top 1%"``) to ``(singles, pairs)`` as
    returned by :func:`nmthpo.studies.benchmark_tables.importance_table`.
    """
    if not panels:
        raise ValueError("nothing to plot: pass at least one panel")
    ncols = len(panels)
    fig = Figure(figsize=(3.4 * ncols, 6.4), layout="constrained")
    axes = fig.subplots(2, ncols, squeeze=False)
    for col, (title, (singles, pairs)) in enumerate(panels.items()):
        top, bottom = axes[0, col], axes[1, col]
        s = singles.sort_values()
        top.barh(list(s.index), s.to_numpy(), color="#4C72B0")
        top.set_title(title)
        top.set_xlabel("fraction of variance")
        p = pairs.sort_values(ascending=False).head(n_pairs).sort_values()
        bottom.barh(list(p.index), p.to_numpy(), color="#55A868")
        bottom.set_xlabel("fraction of variance")
        bottom.tick_params(axis="y", labelsize=7)
    return fig


# =============================================================================================
# Chapter 2 -- Single-objective HPO (Zhang & Duh 2020, Section 6.1)
# =============================================================================================
#: A fixed colour per method, shared by every single-objective figure.
METHOD_COLOURS: dict[str, str] = {
    "rs": "#7f7f7f", "bo-ei-m": "#1f77b4", "bo-ei-r": "#17becf", "gb-ei-m": "#d62728",
    "gb-ei-r": "#ff9896", "gb-eif-m": "#2ca02c", "gb-eif-r": "#98df8a", "ga": "#9467bd",
}


def _colour(method: str) -> str:
    return METHOD_COLOURS.get(method, "#333333")


def anytime_panels(
    curves: Mapping[str, pd.DataFrame], task: str, mse: bool = True, log_mse: bool = True
) -> Figure:
    """Figure 6: best BLEU found (left) and surrogate MSE (right) over evaluations.

    ``curves`` maps a method to :func:`nmthpo.studies.single_objective.anytime_curves`' frame;
    lines are medians, bands the 25-75% quantiles over trials.
    """
    ncols = 2 if mse else 1
    fig = Figure(figsize=(5.2 * ncols, 3.4), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, ncols, squeeze=False)).ravel()
    for method, c in curves.items():
        col = _colour(method)
        axes[0].plot(c["step"], c["best_q50"], color=col, label=method, lw=1.4)
        axes[0].fill_between(c["step"], c["best_q25"], c["best_q75"], color=col, alpha=0.15)
        if mse and "mse_q50" in c and np.isfinite(c["mse_q50"]).any():
            axes[1].plot(c["step"], c["mse_q50"], color=col, label=method, lw=1.4)
            axes[1].fill_between(c["step"], c["mse_q25"], c["mse_q75"], color=col, alpha=0.15)
    axes[0].set_title(f"{task}: best BLEU found")
    axes[0].set_xlabel("evaluations")
    axes[0].set_ylabel("dev BLEU")
    axes[0].legend(fontsize=7, ncols=2)
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
    nrows, ncols = _grid(len(tasks))
    fig = Figure(figsize=(3.8 * ncols, 2.9 * nrows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))
    for ax, task in zip(axes.ravel(), tasks, strict=False):
        for (method, t), c in curves.items():
            if t != task:
                continue
            col = _colour(method)
            ax.plot(c["step"], c["best_q50"], color=col, lw=1.2, label=method)
            ax.fill_between(c["step"], c["best_q25"], c["best_q75"], color=col, alpha=0.12)
        ax.set_title(task)
        ax.set_xscale("log")
        ax.set_xlabel("evaluations")
        ax.set_ylabel("best dev BLEU")
    axes.ravel()[0].legend(fontsize=6, ncols=2)
    _hide_unused(axes, len(tasks))
    return fig


def runtime_ecdf_plot(ecdf: pd.DataFrame) -> Figure:
    """COCO-style ECDF of runtimes: fraction of (task, target, trial) solved per budget."""
    fig = Figure(figsize=(6.0, 3.6), layout="constrained")
    ax = fig.subplots()
    for method, g in ecdf.groupby("method", sort=False):
        ax.step(g["budget"], g["fraction"], where="post", color=_colour(str(method)),
                label=str(method))
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
        ax.plot(ranks["step"], ranks[method], color=_colour(method), label=method, lw=1.3)
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


# =============================================================================================
# Chapter 3 -- Multiobjective HPO (Zhang & Duh 2020, Sections 5.4 and 6.2)
# =============================================================================================
#: A fixed colour per multiobjective system (the Chapter 2 palette's BO/GB hues).
PARETO_COLOURS: dict[str, str] = {
    "rs": "#7f7f7f", "bo-m": "#1f77b4", "bo-r": "#17becf", "gb-m": "#d62728", "gb-r": "#ff9896",
}


def plot_front_evolution(data: Mapping[str, pd.DataFrame], title: str | None = None) -> Figure:
    """Figure 7: one panel per method, dev BLEU (x) against decoding time (y); lower right wins.

    ``data`` maps a panel label (e.g. ``"BO-M"``) to the frame of
    :func:`nmthpo.studies.multiobjective.front_evolution`. Gray open circles: the Pareto set of the
    initial rows; coloured staircases (viridis, early to late): the attainment boundary of the
    Pareto-front approximation after each requested step (through the points and the corners
    ``(BLEU_i, time_{i+1})``, so everything above-left of it is dominated); gold stars: the
    table's true Pareto set. Panels share both axes so that the methods' fronts are directly
    comparable; the legend sits to the right of the last panel.
    """
    from matplotlib import colormaps

    if not data:
        raise ValueError("data is empty; pass {label: multiobjective.front_evolution(...)}")
    ncols = len(data)
    fig = Figure(figsize=(4.2 * ncols, 3.6), layout="constrained")
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
            ax.step(g["bleu"], g["time"], where="pre", color=c, lw=1.2, marker="o", ms=3,
                    label=f"step {int(step)}")
        ini = d[d["kind"] == "initial"]
        ax.scatter(ini["bleu"], ini["time"], s=70, facecolors="none", edgecolors="gray",
                   linewidths=1.2, label="initial Pareto set", zorder=3)
        tru = d[d["kind"] == "true"]
        ax.scatter(tru["bleu"], tru["time"], marker="*", s=110, color="#E1A100",
                   edgecolors="black", linewidths=0.5, label="true Pareto set", zorder=4)
        ax.set_title(str(label))
        ax.set_xlabel("dev BLEU")
    axes[0].set_ylabel(METRIC_LABELS["dev_gpu_time"])
    axes[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    if title:
        fig.suptitle(title)
    return fig


#: Relative hypervolume regret below which a curve counts as having found the whole front.
REGRET_ZERO: float = 1e-9


def _hv_panel(ax: Axes, bands: Mapping[str, pd.DataFrame], regret: bool,
              relative: bool) -> None:
    key = "regret" if regret else "hv"
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
        colour = PARETO_COLOURS.get(str(label), None)
        (line,) = ax.plot(b["step"], med, color=colour, lw=1.3, label=str(label))
        ax.fill_between(b["step"], lo, hi, color=line.get_color(), alpha=0.18, lw=0)
    if regret:
        ax.set_yscale("log")
    what = "hypervolume regret" if regret else "hypervolume"
    ax.set_ylabel(f"{what} / true HV" if relative else what)
    ax.set_xlabel("evaluations")


def plot_hypervolume(
    bands: Mapping[str, pd.DataFrame],
    regret: bool = True,
    relative: bool = False,
    title: str | None = None,
) -> Figure:
    """Hypervolume regret (or hypervolume) over evaluations of several methods on one task.

    ``bands`` maps a method to the frame of :func:`nmthpo.studies.multiobjective.hypervolume_bands`;
    lines are medians over trials, bands the 25-75 % quantiles. Regret is drawn on a log axis,
    where zeros (every Pareto point found; below ``REGRET_ZERO`` x the true hypervolume, which
    absorbs rounding) are left out. ``relative`` divides by the true
    front's hypervolume (``attrs["true_hv"]``).
    """
    if not bands:
        raise ValueError("bands is empty; pass {method: multiobjective.hypervolume_bands(...)}")
    fig = Figure(figsize=(5.6, 3.6), layout="constrained")
    ax = fig.subplots()
    _hv_panel(ax, bands, regret, relative)
    ax.legend(fontsize=7)
    if title:
        ax.set_title(title)
    return fig


def hypervolume_grid(
    bands: Mapping[tuple[str, str], pd.DataFrame], regret: bool = True, relative: bool = True
) -> Figure:
    """:func:`plot_hypervolume` for every task: one panel per task, one line per method.

    ``bands`` maps ``(method, task)`` to :func:`nmthpo.studies.multiobjective.hypervolume_bands`'
    frame. ``relative`` (default here) divides each task's curves by its true hypervolume, so
    that the panels share one scale of "fraction of the true front's volume still missing".
    """
    if not bands:
        raise ValueError("bands is empty; pass {(method, task): hypervolume_bands(...)}")
    tasks = list(dict.fromkeys(t for _, t in bands))
    nrows, ncols = _grid(len(tasks))
    fig = Figure(figsize=(3.9 * ncols, 3.0 * nrows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))
    for ax, task in zip(axes.ravel(), tasks, strict=False):
        _hv_panel(ax, {m: b for (m, t), b in bands.items() if t == task}, regret, relative)
        ax.set_title(task)
    axes.ravel()[0].legend(fontsize=7)
    _hide_unused(axes, len(tasks))
    return fig


# =============================================================================================
# Chapter 5 -- Genetic algorithms for NMT HPO (Ganapathy 2020)
# =============================================================================================
def _need(frame: pd.DataFrame, cols: Sequence[str], source: str) -> None:
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks columns {missing}; pass the frame of {source}")


def ga_tables_plot(
    ga: pd.DataFrame, baseline: pd.DataFrame, difference: pd.DataFrame, k: float = 2.0
) -> Figure:
    """Tables 2-4 as a figure: ours (dots, +-k standard errors) against the paper's (crosses).

    The three frames are :func:`nmthpo.studies.genetic.paper_comparison`'s for ``"ga"``,
    ``"baseline"`` and
    ``"difference"``. Left: average count of individuals against the initial population size;
    right: baseline minus GA (Table 4), the zero line meaning no edge.
    """
    for f in (ga, baseline, difference):
        _need(f, ("average", "paper", "se"), "nmthpo.studies.genetic.paper_comparison")
    fig = Figure(figsize=(9.6, 3.6), layout="constrained")
    left, right = fig.subplots(1, 2)
    for frame, label, col in ((ga, "GA", METHOD_COLOURS["ga"]),
                              (baseline, "random baseline", METHOD_COLOURS["rs"])):
        m = frame.index.to_numpy()
        left.errorbar(m, frame["average"], yerr=k * frame["se"], fmt="o-", color=col,
                      capsize=3, label=f"{label} (ours, ±{k:g} se)")
        left.plot(m, frame["paper"], "x--", color=col, ms=8, label=f"{label} (paper)")
    left.set_xlabel("initial population size")
    left.set_ylabel("individuals until BLEU ≥ target")
    left.set_title("Tables 2 and 3")
    left.legend(fontsize=7)
    m = difference.index.to_numpy()
    right.axhline(0.0, color="#999999", lw=0.8)
    right.errorbar(m, difference["average"], yerr=k * difference["se"], fmt="o-",
                   color="#333333", capsize=3, label=f"ours (±{k:g} se)")
    right.plot(m, difference["paper"], "x--", color="#C44E52", ms=8, label="paper")
    right.set_xlabel("initial population size")
    right.set_ylabel("baseline − GA")
    right.set_title("Table 4")
    right.legend(fontsize=7)
    return fig


def count_ecdf_plot(counts: Mapping[str, np.ndarray], title: str | None = None) -> Figure:
    """Empirical distribution of per-iteration counts (one step curve per label).

    ``counts`` maps a label (e.g. ``"GA"``) to an array of counts (any shape; flattened), such
    as ``GAStudy.ga_counts[m]``. The x axis is logarithmic: the counts are heavy-tailed.
    """
    if not counts:
        raise ValueError("counts is empty; pass {label: array of counts}")
    fig = Figure(figsize=(5.6, 3.6), layout="constrained")
    ax = fig.subplots()
    palette = {"GA": METHOD_COLOURS["ga"], "random baseline": METHOD_COLOURS["rs"]}
    for label, c in counts.items():
        x = np.sort(np.asarray(c, dtype=float).ravel())
        if x.size == 0:
            raise ValueError(f"no counts for {label!r}")
        y = np.arange(1, x.size + 1) / x.size
        ax.step(x, y, where="post", label=label, color=palette.get(label))
    ax.set_xscale("log")
    ax.set_ylim(0, 1.01)
    ax.set_xlabel("individuals until BLEU ≥ target (initial population included)")
    ax.set_ylabel("fraction of iterations")
    ax.legend(fontsize=7)
    if title:
        ax.set_title(title)
    return fig


def variant_plot(frame: pd.DataFrame, k: float = 2.0) -> Figure:
    """Average count of each GA variant against the initial population size.

    ``frame`` is :func:`nmthpo.studies.genetic.variant_table`'s (``with_se=True`` adds ±k se bars):
    a row per
    variant, a column per size (``"5"``, ...) and optionally ``"<m> se"`` columns. The
    ``"baseline"`` row is drawn dashed.
    """
    sizes = [c for c in frame.columns if not str(c).endswith(" se")]
    if not sizes or frame.empty:
        raise ValueError("frame has no size columns; pass "
                         "nmthpo.studies.genetic.variant_table's frame")
    m = np.array([int(c) for c in sizes])
    fig = Figure(figsize=(6.4, 3.8), layout="constrained")
    ax = fig.subplots()
    for name, row in frame.iterrows():
        y = row[sizes].to_numpy(dtype=float)
        se_cols = [f"{c} se" for c in sizes]
        err = k * row[se_cols].to_numpy(dtype=float) if all(
            c in frame.columns for c in se_cols) else None
        style = "s--" if name == "baseline" else "o-"
        colour = METHOD_COLOURS["rs"] if name == "baseline" else None
        ax.errorbar(m, y, yerr=err, fmt=style, capsize=2, ms=4, color=colour, label=str(name))
    ax.set_xlabel("initial population size")
    ax.set_ylabel("individuals until BLEU ≥ target")
    ax.legend(fontsize=7)
    return fig


def fair_edge_plot(
    fair: pd.DataFrame, paper_rule: pd.Series | None = None, k: float = 2.0
) -> Figure:
    """Random search minus GA under the fair count, against the initial population size.

    ``fair`` is :func:`nmthpo.studies.genetic.fair_comparison`'s frame (``edge``, ``edge_se``);
    ``paper_rule`` (optional) is the same difference under the paper's counting rules
    (``GAStudy.difference()``), drawn for reference.
    """
    _need(fair, ("edge", "edge_se"), "nmthpo.studies.genetic.fair_comparison")
    fig = Figure(figsize=(5.6, 3.6), layout="constrained")
    ax = fig.subplots()
    ax.axhline(0.0, color="#999999", lw=0.8)
    m = fair.index.to_numpy()
    ax.errorbar(m, fair["edge"], yerr=k * fair["edge_se"], fmt="o-", capsize=3,
                color=METHOD_COLOURS["ga"], label=f"fair count (±{k:g} se)")
    if paper_rule is not None:
        ax.plot(paper_rule.index.to_numpy(), paper_rule.to_numpy(dtype=float), "x--",
                color="#333333", label="paper's counting rules")
    ax.set_xlabel("initial population size")
    ax.set_ylabel("random − GA (models trained)")
    ax.legend(fontsize=7)
    return fig


# =============================================================================================
# Chapter 4 -- Transfer-learning HPO (Li et al. 2022, TransBO)
# =============================================================================================
#: A fixed colour per transfer method; the ``-ms`` (source-only) ablations share their
#: method's colour and are drawn dashed.
TRANSFER_COLOURS: dict[str, str] = {
    "rs": "#7f7f7f", "igp": "#1f77b4", "scot": "#8c564b", "sgpr": "#e377c2",
    "pogpe": "#bcbd22", "tst": "#17becf", "tstm": "#9edae5", "rgpe": "#ff7f0e",
    "transbo": "#d62728",
}

#: Axis labels of the transfer curves.
TRANSFER_VALUE_LABELS: dict[str, str] = {
    "rank": "average rank (1 = best)", "adtm": "ADTM (Eq. 9)",
    "mean": "target weight p^T", "cum_seconds": "cumulative suggestion time (s)",
}


def _transfer_style(method: str) -> tuple[str, str]:
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


def transfer_curves_plot(curves: pd.DataFrame, value: str = "rank", title: str | None = None,
                         log_y: bool = False) -> Figure:
    """Average rank or ADTM over trials: one panel per target (if ``curves`` has a ``target``
    column, e.g. ``average_rank(frame, per_target=True)``) or one aggregated panel.

    ``curves`` has columns ``method``, ``step`` and ``value``
    (:func:`nmthpo.engine.ranks.average_rank` or :func:`~nmthpo.engine.ranks.adtm`).
    Rank axes are inverted (better is up); TransBO is drawn thicker.
    """
    _need(curves, ("method", "step", value), "nmthpo.engine.ranks.average_rank/adtm")
    targets = list(dict.fromkeys(curves["target"])) if "target" in curves else [None]
    nrows, ncols = _grid(len(targets))
    fig = Figure(figsize=(3.9 * ncols, 2.9 * nrows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))
    for ax, t in zip(axes.ravel(), targets, strict=False):
        sub = curves if t is None else curves[curves["target"] == t]
        _transfer_panel(ax, sub, value)
        if log_y:
            ax.set_yscale("log")
        ax.set_title(str(t) if t is not None else (title or "all targets"))
    axes.ravel()[0].legend(fontsize=6, ncols=2)
    _hide_unused(axes, len(targets))
    if title is not None and targets != [None]:
        fig.suptitle(title)
    return fig


def transfer_summary_plot(ranks: pd.DataFrame, adtms: pd.DataFrame,
                          title: str | None = None) -> Figure:
    """Aggregated average rank (left) and ADTM (right, log scale) over trials."""
    _need(ranks, ("method", "step", "rank"), "nmthpo.engine.ranks.average_rank")
    _need(adtms, ("method", "step", "adtm"), "nmthpo.engine.ranks.adtm")
    fig = Figure(figsize=(10.0, 3.6), layout="constrained")
    left, right = fig.subplots(1, 2)
    _transfer_panel(left, ranks, "rank")
    _transfer_panel(right, adtms, "adtm")
    right.set_yscale("symlog", linthresh=1e-3)
    left.set_title("average rank")
    right.set_title("ADTM")
    left.legend(fontsize=6, ncols=2)
    if title is not None:
        fig.suptitle(title)
    return fig


def target_weight_plot(weights: pd.DataFrame, title: str | None = None) -> Figure:
    """Mean target weight ``p^T`` (± one standard deviation over trials) against the trials.

    ``weights`` is :func:`nmthpo.engine.ranks.weight_curve`'s frame (``method``,
    ``step``, ``mean``, ``std``); methods without a target weight (all NaN) are skipped.
    """
    _need(weights, ("method", "step", "mean", "std"), "nmthpo.engine.ranks.weight_curve")
    fig = Figure(figsize=(6.4, 3.6), layout="constrained")
    ax = fig.subplots()
    for method, g in weights.groupby("method", sort=False):
        if not np.isfinite(g["mean"].to_numpy(dtype=float)).any():
            continue
        col, ls = _transfer_style(str(method))
        ax.plot(g["step"], g["mean"], ls, color=col, lw=1.6, label=str(method))
        ax.fill_between(g["step"], g["mean"] - g["std"], g["mean"] + g["std"], color=col,
                        alpha=0.12)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("trials (target evaluations)")
    ax.set_ylabel(TRANSFER_VALUE_LABELS["mean"])
    ax.legend(fontsize=7)
    if title is not None:
        ax.set_title(title)
    return fig


def overhead_plot(overhead: pd.DataFrame, title: str | None = None) -> Figure:
    """Mean cumulative optimisation overhead per trial (log scale), Figure 5(c)'s measure.

    ``overhead`` is :func:`nmthpo.engine.ranks.overhead_curve`'s frame.
    """
    _need(overhead, ("method", "step", "cum_seconds"),
          "nmthpo.engine.ranks.overhead_curve")
    fig = Figure(figsize=(6.0, 3.6), layout="constrained")
    ax = fig.subplots()
    pos = overhead[overhead["cum_seconds"] > 0]
    _transfer_panel(ax, pos, "cum_seconds")
    ax.set_yscale("log")
    ax.legend(fontsize=7, ncols=2)
    if title is not None:
        ax.set_title(title)
    return fig


# =============================================================================================
# Chapter 6 -- Search-space scoring (Ariafar et al. 2022)
# =============================================================================================
def _domain_column(frame: pd.DataFrame) -> str:
    if "task" in frame.columns:
        return "task"
    if "function" in frame.columns:
        return "function"
    raise ValueError("the frame has neither a 'task' nor a 'function' column")


def _panels(n: int, ncols: int = 4, w: float = 3.4, h: float = 2.8) -> tuple[Figure, np.ndarray]:
    nrows, ncols = _grid(n, ncols)
    fig = Figure(figsize=(w * ncols, h * nrows), layout="constrained")
    return fig, np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False))


def score_scatter(
    frame: pd.DataFrame, budgets: Sequence[int], score: str = "mean-b-ei",
    seed_size: int | None = None, repeat: int = 0,
) -> Figure:
    """Predicted against empirical score of every candidate space, one panel per budget.

    ``frame`` is a :func:`nmthpo.studies.space_scores.table_experiment` or ``synthetic_experiment``
    frame;
    rows are the task/function, colour is the space's size (rows or volume fraction). One
    (seed size, repeat): the smallest seed size unless ``seed_size`` is given.
    """
    dom = _domain_column(frame)
    sub = frame[(frame["score"] == score) & (frame["repeat"] == repeat)]
    n = int(sub["seed_size"].min()) if seed_size is None else seed_size
    sub = sub[sub["seed_size"] == n]
    names = list(dict.fromkeys(sub[dom]))
    if sub.empty or not budgets:
        raise ValueError("nothing to plot: no rows for that score, seed size and repeat")
    size = "n_rows" if "n_rows" in sub.columns else "fraction"
    fig = Figure(figsize=(2.9 * len(budgets), 2.7 * len(names)), layout="constrained")
    axes = np.atleast_2d(fig.subplots(len(names), len(budgets), squeeze=False))
    sc = None
    for i, name in enumerate(names):
        for j, b in enumerate(budgets):
            ax = axes[i, j]
            g = sub[(sub[dom] == name) & (sub["budget"] == b)]
            sc = ax.scatter(g["empirical"], g["predicted"], c=g[size], s=14, cmap="viridis",
                            edgecolor="none")
            lo = float(min(g["empirical"].min(), g["predicted"].min()))
            hi = float(max(g["empirical"].max(), g["predicted"].max()))
            ax.plot([lo, hi], [lo, hi], color="#999999", lw=0.8, ls="--")
            ax.set_title(f"{name}, n={n}, b={b}", fontsize=9)
            ax.set_xlabel(f"empirical {score}", fontsize=8)
            ax.set_ylabel(f"predicted {score}", fontsize=8)
    if sc is not None:
        fig.colorbar(sc, ax=axes, label="rows" if size == "n_rows" else "volume fraction",
                     shrink=0.8)
    return fig


def faithfulness_curves(summary: pd.DataFrame, metrics: Sequence[str] = ("spearman",
                                                                         "kendall_tau")) -> Figure:
    """Rank correlation of predicted and empirical scores against the budget.

    ``summary`` is :func:`nmthpo.studies.scoring_results.faithfulness_summary`'s frame; one panel
    per
    task/function, one colour per seed size, solid Spearman, dashed Kendall.
    """
    dom = _domain_column(summary)
    names = list(dict.fromkeys(summary[dom]))
    fig, axes = _panels(len(names))
    styles = ["-", "--", ":"]
    for ax, name in zip(axes.ravel(), names, strict=False):
        g = summary[summary[dom] == name]
        for k, (n, h) in enumerate(g.groupby("seed_size", sort=True)):
            colour = f"C{k}"
            for m, ls in zip(metrics, styles, strict=False):
                ax.plot(h["budget"], h[m], ls, color=colour, lw=1.3,
                        label=f"n={n}" if m == metrics[0] else None)
        ax.axhline(0, color="#999999", lw=0.8)
        ax.set_xscale("log")
        ax.set_ylim(-1, 1)
        ax.set_title(str(name))
        ax.set_xlabel("budget b")
        ax.set_ylabel(" / ".join(metrics))
    axes.ravel()[0].legend(fontsize=7)
    _hide_unused(axes, len(names))
    return fig


def preferred_size_plot(summary: pd.DataFrame) -> Figure:
    """Size of the best space against the budget: predicted (solid) and empirical (dashed).

    ``summary`` is :func:`nmthpo.studies.scoring_results.preferred_summary`'s frame (means over
    repeats); one panel per task/function, one colour per seed size.
    """
    dom = _domain_column(summary)
    names = list(dict.fromkeys(summary[dom]))
    fig, axes = _panels(len(names))
    for ax, name in zip(axes.ravel(), names, strict=False):
        g = summary[summary[dom] == name]
        for k, (n, h) in enumerate(g.groupby("seed_size", sort=True)):
            ax.plot(h["budget"], h["predicted_size"], "-", color=f"C{k}", label=f"n={n}")
            ax.plot(h["budget"], h["empirical_size"], "--", color=f"C{k}")
        ax.set_xscale("log")
        ax.set_title(str(name))
        ax.set_xlabel("budget b")
        ax.set_ylabel("size of best space (rows)" if dom == "task" else "volume fraction")
    axes.ravel()[0].legend(fontsize=7, title="— predicted, -- empirical", title_fontsize=7)
    _hide_unused(axes, len(names))
    return fig


def calibration_plot(cal: pd.DataFrame) -> Figure:
    """Mean predicted over mean empirical score against the budget (1 = calibrated).

    ``cal`` is :func:`nmthpo.studies.space_scores.calibration`'s frame; one panel per
    task/function, one
    colour per seed size, log scale.
    """
    dom = _domain_column(cal)
    names = list(dict.fromkeys(cal[dom]))
    fig, axes = _panels(len(names))
    for ax, name in zip(axes.ravel(), names, strict=False):
        g = cal[cal[dom] == name]
        for k, (n, h) in enumerate(g.groupby("seed_size", sort=True)):
            ax.plot(h["budget"], h["ratio"], color=f"C{k}", label=f"n={n}")
        ax.axhline(1, color="#999999", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(str(name))
        ax.set_xlabel("budget b")
        ax.set_ylabel("predicted / empirical")
    axes.ravel()[0].legend(fontsize=7)
    _hide_unused(axes, len(names))
    return fig


def comparison_plot(summary: pd.DataFrame, label_a: str, label_b: str) -> Figure:
    """Expected best BLEU of two spaces against the budget, predicted and empirical.

    ``summary`` is :func:`nmthpo.studies.scoring_results.comparison_summary`'s frame.
    """
    fig = Figure(figsize=(5.4, 3.4), layout="constrained")
    ax = fig.subplots()
    for col, name, colour in (("a", label_a, "C0"), ("b", label_b, "C3")):
        ax.plot(summary["budget"], summary[f"predicted_{col}"], "-", marker="o", ms=3,
                color=colour, label=f"{name}, predicted")
        ax.plot(summary["budget"], summary[f"empirical_{col}"], "--", marker="s", ms=3,
                color=colour, label=f"{name}, empirical")
    ax.set_xscale("log")
    ax.set_xlabel("budget b")
    ax.set_ylabel("expected best dev BLEU")
    ax.legend(fontsize=7)
    return fig
