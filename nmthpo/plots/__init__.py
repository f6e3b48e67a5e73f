"""The book's figures, one function per figure, one module per chapter, one shared style.

Every function returns a :class:`matplotlib.figure.Figure` built without pyplot (no global
state, nothing shown or saved); notebooks display it, tests inspect it. The functions live in
:mod:`~nmthpo.plots.benchmark_tables` (Chapter 1), :mod:`~nmthpo.plots.single_objective` and
:mod:`~nmthpo.plots.graph_discrepancy` (2),
:mod:`~nmthpo.plots.multiobjective` (3), :mod:`~nmthpo.plots.transfer` (4),
:mod:`~nmthpo.plots.genetic` (5) and :mod:`~nmthpo.plots.space_scores` (6), with
:mod:`~nmthpo.plots.multifidelity` (7) and :mod:`~nmthpo.plots.compare` (8, ``nmthpo
compare``), drawn in the style of :mod:`~nmthpo.plots.style` (one colour-blind-safe palette,
one style per method, text readable at the book's width); the first six are re-exported
here (``plots.bleu_histograms(...)``).
"""

from __future__ import annotations

from nmthpo.plots.benchmark_tables import (
    bleu_histograms,
    bleu_vs_time,
    correlation_heatmap,
    importance_bars,
    metric_distributions,
)
from nmthpo.plots.genetic import (
    count_ecdf_plot,
    fair_edge_plot,
    ga_tables_plot,
    variant_plot,
)
from nmthpo.plots.graph_discrepancy import arm_forest
from nmthpo.plots.multiobjective import (
    PARETO_COLOURS,
    REGRET_ZERO,
    hypervolume_grid,
    plot_front_evolution,
    plot_hypervolume,
)
from nmthpo.plots.single_objective import (
    anytime_panels,
    average_rank_plot,
    best_found_grid,
    k_sensitivity_plot,
    runtime_ecdf_plot,
)
from nmthpo.plots.space_scores import (
    calibration_plot,
    comparison_plot,
    faithfulness_curves,
    preferred_size_plot,
    score_scatter,
)
from nmthpo.plots.style import METHOD_COLOURS, METHOD_STYLES, METRIC_LABELS, method_style
from nmthpo.plots.transfer import (
    TRANSFER_COLOURS,
    TRANSFER_VALUE_LABELS,
    overhead_plot,
    target_weight_plot,
    transfer_curves_plot,
    transfer_summary_plot,
)

__all__ = [
    "METHOD_COLOURS",
    "METHOD_STYLES",
    "METRIC_LABELS",
    "PARETO_COLOURS",
    "REGRET_ZERO",
    "TRANSFER_COLOURS",
    "TRANSFER_VALUE_LABELS",
    "anytime_panels",
    "arm_forest",
    "average_rank_plot",
    "best_found_grid",
    "bleu_histograms",
    "bleu_vs_time",
    "calibration_plot",
    "comparison_plot",
    "correlation_heatmap",
    "count_ecdf_plot",
    "fair_edge_plot",
    "faithfulness_curves",
    "ga_tables_plot",
    "hypervolume_grid",
    "importance_bars",
    "k_sensitivity_plot",
    "method_style",
    "metric_distributions",
    "overhead_plot",
    "plot_front_evolution",
    "plot_hypervolume",
    "preferred_size_plot",
    "runtime_ecdf_plot",
    "score_scatter",
    "target_weight_plot",
    "transfer_curves_plot",
    "transfer_summary_plot",
    "variant_plot",
]
