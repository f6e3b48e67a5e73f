"""GP-BO's default refit schedule against the papers' exact one, paired over Table 3's trials.

Zhang & Duh (2020, Section 5.1) fit the GP hyperparameters of BO-EI, and the book's runs before
issue 25 re-fitted them by L-BFGS-B at every step (``schedule="exact", search="lbfgsb",
tie_rtol=0``: :data:`nmthpo.studies.grids.EXACT_PROTOCOL`). The default since issue 25
(``schedule="fast"``, ``search="lattice"``, ``tie_rtol=1e-9``; :mod:`nmthpo.optimizers.bo`)
re-fits only at geometric checkpoints, by a lattice search whose result is the same on every
CPU, and keeps a cached posterior in between; it costs a fraction of the time (``make bench``).
Whether it finds the best row as quickly is an empirical question: :func:`refit_comparison`
answers it with the paired trials of the ``single`` grid (the default, "fast") and the
``refit`` grid (the papers' protocol, "exact") of :mod:`nmthpo.studies.grids` -- trial ``t`` of
both starts from the same initial rows -- and a 95 % paired bootstrap interval of the mean
difference per metric (:func:`nmthpo.engine.stats.paired_difference`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

__all__ = ["METRICS", "refit_comparison", "refit_values"]

#: Table 3's metrics (lower is better for all three: evaluations to the best row, to within
#: the tolerance, and the BLEU gap after 20 evaluations).
METRICS: tuple[str, ...] = ("ftb", "ftc", "fb")


def refit_comparison(
    methods: Sequence[str] = ("bo-ei-m", "bo-ei-r"),
    tasks: Sequence[str] | None = None,
    trials: int = 100,
    seed: int = 0,
    ties: str = "value",
) -> pd.DataFrame:
    """Table 3's metrics of the default (fast) schedule and the papers' protocol (exact), paired.

    Parameters
    ----------
    methods : sequence of str
        GP-BO methods (registered names accepting ``schedule``).
    tasks : sequence of str, optional
        Default: the ``refit`` grid's tasks (Table 3's six).
    trials, seed : int
        Table 3's trials (runs read from the book's cache, else computed into the user cache).
    ties : {"value", "row"}
        Tie convention of :func:`nmthpo.engine.metrics.evaluate_sequences`.

    Returns
    -------
    DataFrame
        One row per (method, task, metric): mean of the exact and the fast schedule, the mean
        difference fast - exact with its 95 % paired bootstrap interval, and ``finding``:
        ``"fast better"`` / ``"fast worse"`` when the interval lies below / above 0 (lower
        is better for every metric), else ``"no difference"``. Numbers are formatted by
        :func:`nmthpo.engine.numbers.fmt` (ftb, ftc: evaluations; fb: BLEU).
    """
    from nmthpo.engine.numbers import fmt
    from nmthpo.engine.stats import paired_difference
    from nmthpo.studies.grids import RUN_GRIDS, run_one
    from nmthpo.studies.zhang_duh.single_objective import per_trial_metrics

    grid = RUN_GRIDS["refit"]
    (exact,) = grid.variants
    rows = []
    for method in methods:
        for task in grid.tasks if tasks is None else tasks:
            runs = {
                ("exact", task): run_one("refit", method, task, trials, seed, settings=exact).frame,
                ("fast", task): run_one("single", method, task, trials, seed).frame,
            }
            m = per_trial_metrics(runs, ties=ties)
            wide = {s: g.set_index("trial").sort_index() for s, g in m.groupby("method")}
            for metric in METRICS:
                pair = pd.concat(
                    [wide["fast"][metric], wide["exact"][metric]], axis=1, keys=["fast", "exact"]
                ).dropna()
                est, lo, hi = paired_difference(
                    pair["fast"].to_numpy(dtype=float), pair["exact"].to_numpy(dtype=float)
                )
                if lo > 0 or hi < 0:  # every metric: lower is better
                    verdict = "fast better" if hi < 0 else "fast worse"
                else:
                    verdict = "no difference"
                q = "bleu" if metric == "fb" else "evaluations"
                rows.append(
                    {
                        "method": method,
                        "task": task,
                        "metric": metric,
                        "exact": fmt(pair["exact"].mean(), q),
                        "fast": fmt(pair["fast"].mean(), q),
                        "fast - exact": fmt(est, q),
                        "95% CI low": fmt(lo, q),
                        "95% CI high": fmt(hi, q),
                        "finding": verdict,
                        "trials": len(pair),
                    }
                )
    return pd.DataFrame(rows).set_index(["method", "task", "metric"])


def refit_values(table: pd.DataFrame | None, prefix: str = "ch2.refit") -> dict[str, str]:
    """What the prose quotes from :func:`refit_comparison`: cells compared, cells where the
    fast schedule is worse / better, the task with the most "fast worse" cells, and whether
    issue 25's condition for the default (nowhere worse beyond its interval) holds."""
    keys = ("cells", "worse", "better", "same", "worst_task", "condition")
    if table is None or table.empty:
        return {f"{prefix}.{k}": "n/a" for k in keys}
    worse = table[table["finding"] == "fast worse"]
    tasks = worse.index.get_level_values("task").value_counts()
    return {
        f"{prefix}.cells": str(len(table)),
        f"{prefix}.worse": str(len(worse)),
        f"{prefix}.better": str(int((table["finding"] == "fast better").sum())),
        f"{prefix}.same": str(int((table["finding"] == "no difference").sum())),
        f"{prefix}.worst_task": str(tasks.index[0]) if len(tasks) else "none",
        f"{prefix}.condition": (
            f"holds (no cell of {len(table)} is worse)"
            if worse.empty
            else f"does not hold to the letter: {len(worse)} of {len(table)} cells are worse"
        ),
    }
