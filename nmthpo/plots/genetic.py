"""Chapter 5's figures: genetic algorithms for NMT HPO (Ganapathy 2020).

Each function returns a :class:`matplotlib.figure.Figure` built without pyplot.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from nmthpo.plots.style import (
    MAX_WIDTH_IN,
    METHOD_STYLES,
    OKABE_ITO,
    book_figure,
    require_columns,
    series_style,
    shared_legend,
)

__all__ = ["ga_tables_plot", "count_ecdf_plot", "variant_plot", "fair_edge_plot"]


@book_figure
def ga_tables_plot(
    ga: pd.DataFrame, baseline: pd.DataFrame, difference: pd.DataFrame, k: float = 2.0
) -> Figure:
    """Tables 2-4 as a figure: ours (dots, +-k standard errors) against the paper's (crosses).

    The three frames are :func:`nmthpo.studies.ganapathy.tables.paper_comparison`'s for ``"ga"``,
    ``"baseline"`` and
    ``"difference"``. Left: average count of individuals against the initial population size;
    right: baseline minus GA (Table 4), the zero line meaning no edge.
    """
    for f in (ga, baseline, difference):
        require_columns(
            f, ("average", "paper", "se"), "nmthpo.studies.ganapathy.tables.paper_comparison"
        )
    fig = Figure(figsize=(MAX_WIDTH_IN, 4.6), layout="constrained")
    left, right = fig.subplots(1, 2)
    for frame, label, col in (
        (ga, "GA", METHOD_STYLES["ga"].colour),
        (baseline, "random baseline", METHOD_STYLES["rs"].colour),
    ):
        m = frame.index.to_numpy()
        left.errorbar(
            m,
            frame["average"],
            yerr=k * frame["se"],
            fmt="o-",
            color=col,
            capsize=3,
            label=f"{label} (ours, ±{k:g} se)",
        )
        left.plot(m, frame["paper"], "x--", color=col, ms=8, label=f"{label} (paper)")
    left.set_xlabel("initial population size")
    left.set_ylabel("individuals until BLEU ≥ target")
    left.set_title("Tables 2 and 3")
    m = difference.index.to_numpy()
    right.axhline(0.0, color="#999999", lw=0.8)
    right.errorbar(
        m,
        difference["average"],
        yerr=k * difference["se"],
        fmt="o-",
        color=OKABE_ITO["black"],
        capsize=3,
        label=f"baseline − GA (ours, ±{k:g} se)",
    )
    right.plot(
        m,
        difference["paper"],
        "x--",
        color=OKABE_ITO["vermillion"],
        ms=8,
        label="baseline − GA (paper)",
    )
    right.set_xlabel("initial population size")
    right.set_ylabel("baseline − GA (individuals)")
    right.set_title("Table 4")
    shared_legend(fig, [left, right])
    return fig


@book_figure
def count_ecdf_plot(counts: Mapping[str, np.ndarray], title: str | None = None) -> Figure:
    """Empirical distribution of per-iteration counts (one step curve per label).

    ``counts`` maps a label (e.g. ``"GA"``) to an array of counts (any shape; flattened), such
    as ``GAStudy.ga_counts[m]``. The x axis is logarithmic: the counts are heavy-tailed.
    """
    if not counts:
        raise ValueError("counts is empty; pass {label: array of counts}")
    fig = Figure(figsize=(6.0, 3.8), layout="constrained")
    ax = fig.subplots()
    known = {"GA": METHOD_STYLES["ga"], "random baseline": METHOD_STYLES["rs"]}
    for i, (label, c) in enumerate(counts.items()):
        x = np.sort(np.asarray(c, dtype=float).ravel())
        if x.size == 0:
            raise ValueError(f"no counts for {label!r}")
        y = np.arange(1, x.size + 1) / x.size
        st = known.get(label, series_style(i))
        ax.step(x, y, where="post", label=label, lw=1.4, color=st.colour, ls=st.linestyle)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.01)
    ax.set_xlabel("individuals until BLEU ≥ target\n(initial population included)")
    ax.set_ylabel("fraction of iterations")
    ax.legend()
    if title:
        ax.set_title(title)
    return fig


@book_figure
def variant_plot(frame: pd.DataFrame, k: float = 2.0) -> Figure:
    """Average count of each GA variant against the initial population size.

    ``frame`` is :func:`nmthpo.studies.ganapathy.tables.variant_table`'s (``with_se=True`` adds
    ±k se bars): a row per variant, a column per size (``"5"``, ...) and optionally ``"<m> se"``
    columns. The ``"baseline"`` row is drawn dashed.
    """
    sizes = [c for c in frame.columns if not str(c).endswith(" se")]
    if not sizes or frame.empty:
        raise ValueError(
            "frame has no size columns; pass nmthpo.studies.ganapathy.tables.variant_table's frame"
        )
    m = np.array([int(c) for c in sizes])
    fig = Figure(figsize=(6.4, 4.6), layout="constrained")
    ax = fig.subplots()
    for i, (name, row) in enumerate(frame.iterrows()):
        y = row[sizes].to_numpy(dtype=float)
        se_cols = [f"{c} se" for c in sizes]
        err = (
            k * row[se_cols].to_numpy(dtype=float)
            if all(c in frame.columns for c in se_cols)
            else None
        )
        st = METHOD_STYLES["rs"] if name == "baseline" else series_style(i)
        ax.errorbar(
            m,
            y,
            yerr=err,
            fmt=st.marker,
            ls=st.linestyle,
            capsize=2,
            ms=5,
            color=st.colour,
            label=str(name),
        )
    ax.set_xlabel("initial population size")
    ax.set_ylabel("individuals until BLEU ≥ target")
    shared_legend(fig, ax)
    return fig


@book_figure
def fair_edge_plot(
    fair: pd.DataFrame, paper_rule: pd.Series | None = None, k: float = 2.0
) -> Figure:
    """Random search minus GA under the fair count, against the initial population size.

    ``fair`` is :func:`nmthpo.studies.ganapathy.tables.fair_comparison`'s frame (``edge``,
    ``edge_se``);
    ``paper_rule`` (optional) is the same difference under the paper's counting rules
    (``GAStudy.difference()``), drawn for reference.
    """
    require_columns(fair, ("edge", "edge_se"), "nmthpo.studies.ganapathy.tables.fair_comparison")
    fig = Figure(figsize=(6.0, 3.8), layout="constrained")
    ax = fig.subplots()
    ax.axhline(0.0, color="#999999", lw=0.8)
    m = fair.index.to_numpy()
    ax.errorbar(
        m,
        fair["edge"],
        yerr=k * fair["edge_se"],
        fmt="o-",
        capsize=3,
        color=METHOD_STYLES["ga"].colour,
        label=f"fair count (±{k:g} se)",
    )
    if paper_rule is not None:
        ax.plot(
            paper_rule.index.to_numpy(),
            paper_rule.to_numpy(dtype=float),
            "x--",
            color=OKABE_ITO["vermillion"],
            label="paper's counting rules",
        )
    ax.set_xlabel("initial population size")
    ax.set_ylabel("random − GA (models trained)")
    ax.legend()
    return fig
