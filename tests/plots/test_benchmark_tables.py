"""Tests for nmthpo.plots.benchmark_tables (Chapter 1): every figure builds with its panels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from nmthpo import plots
from nmthpo.benchmark.tables import LookupTable


def _table(task: str = "toy", n: int = 12) -> LookupTable:
    rng = np.random.default_rng(0)
    configs = pd.DataFrame(
        {
            "bpe": rng.choice([1000, 2000], n),
            "layers": 2,
            "embed": 256,
            "hidden": 1024,
            "heads": 8,
            "lr": 3e-4,
        }
    )
    metrics = pd.DataFrame(
        {
            "dev_bleu": rng.uniform(5, 20, n),
            "dev_gpu_time": rng.uniform(100, 200, n),
            "dev_ppl": rng.uniform(5, 50, n),
            "num_updates": 1000,
            "gpu_memory": [np.nan] + [4000.0] * (n - 1),
            "num_param": 10**7,
        }
    )
    pareto = np.zeros(n, dtype=bool)
    pareto[int(np.argmax(metrics["dev_bleu"]))] = True
    return LookupTable(
        task=task,
        configs=configs,
        metrics=metrics,
        scaled=np.zeros((n, 6)),
        shared=np.zeros((n, 6)),
        pareto=pareto,
    )


def test_bleu_figures_one_panel_per_task() -> None:
    tables = [_table("a"), _table("b")]
    fig = plots.bleu_histograms(tables)
    assert isinstance(fig, Figure)
    assert sum(ax.get_visible() for ax in fig.axes) == 2
    fig = plots.bleu_vs_time(tables)
    stars = fig.axes[0].collections[1]
    assert len(stars.get_offsets()) == 1  # the Pareto-optimal model of the toy table


def test_metric_distributions_and_heatmap() -> None:
    fig = plots.metric_distributions([_table()])
    assert len([ax for ax in fig.axes if ax.get_visible()]) == 4
    rho = pd.DataFrame([[1.0, 0.5], [0.5, 1.0]], index=["a", "b"], columns=["a", "b"])
    n = pd.DataFrame([[3, 2], [2, 3]], index=["a", "b"], columns=["a", "b"])
    fig = plots.correlation_heatmap(rho, n, title="t")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "0.50\n(2)" in texts


def test_importance_bars_limits_pairs() -> None:
    singles = pd.Series({"bpe": 0.5, "#embed": 0.2})
    pairs = pd.Series({f"p{i}": i / 100 for i in range(10)})
    fig = plots.importance_bars({"x": (singles, pairs)}, n_pairs=8)
    assert len(fig.axes[1].patches) == 8
    with pytest.raises(ValueError, match="at least one"):
        plots.importance_bars({})
