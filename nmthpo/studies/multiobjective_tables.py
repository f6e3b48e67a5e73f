"""Chapter 3's tables for reading: Table 4 formatted, and each system against random search.

:func:`nmthpo.studies.multiobjective.table4` returns the raw numbers (one row per task and
method, ``fto_mean``-style columns); :func:`table4_readable` lays them out for the book, and
:func:`versus_random_search` states the comparison Section 6.2 implies for the graph-based
systems -- "comparable to BO" -- against the simplest yardstick, random search, with paired
95 % intervals (trial ``t`` of every system starts from the same rows,
:mod:`nmthpo.engine.stats`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from nmthpo.engine.stats import paired_difference, win_count
from nmthpo.studies.multiobjective import pareto_metrics

__all__ = ["METRIC_NAMES", "table4_readable", "versus_random_search"]

#: Column titles of the three runtime metrics of Section 4.2.
METRIC_NAMES: dict[str, str] = {"fto": "fto (evals)", "fta": "fta (evals)", "fbp": "fbp (rows)"}


def table4_readable(t4: pd.DataFrame, methods: Sequence[str] | None = None,
                    decimals: int = 1) -> pd.DataFrame:
    """Table 4 as the book prints it: rows (task with rows, J, B; metric), columns methods.

    Cells read ``mean ± sd`` (sd over trials, ddof 0), rounded to ``decimals``.
    """
    need = {"task", "method", "rows", "J", "B"} | {f"{m}_{s}" for m in METRIC_NAMES
                                                    for s in ("mean", "std")}
    missing = sorted(need - set(t4.columns))
    if missing:
        raise ValueError(f"frame lacks columns {missing}; pass multiobjective.table4(runs)")
    ms = list(dict.fromkeys(t4.method)) if methods is None else list(methods)
    out = t4[t4.method.isin(ms)]
    records = []
    for r in out.itertuples():
        label = f"{r.task} (n={r.rows}, J={r.J}, B={r.B})"
        for m, title in METRIC_NAMES.items():
            mean, sd = getattr(r, f"{m}_mean"), getattr(r, f"{m}_std")
            records.append({"task": label, "metric": title, "method": r.method,
                            "cell": f"{mean:.{decimals}f} ± {sd:.{decimals}f}"})
    frame = pd.DataFrame(records)
    wide = frame.pivot(index=["task", "metric"], columns="method", values="cell")
    order = pd.MultiIndex.from_product([list(dict.fromkeys(frame.task)),
                                        list(METRIC_NAMES.values())], names=["task", "metric"])
    wide = wide.reindex(index=order, columns=[m for m in ms if m in wide.columns])
    wide.columns.name = "mean ± sd over trials"
    return wide


def versus_random_search(
    runs: Mapping[tuple[str, str], pd.DataFrame],
    systems: Sequence[str] = ("gb-m", "gb-r", "bo-m", "bo-r"),
    metrics: Sequence[str] = ("fto", "fta", "fbp"),
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each system minus random search, per task and metric, with paired 95 % intervals.

    Returns
    -------
    cells : DataFrame
        Rows (system, task), columns metrics; cells ``diff [low, high]`` with a verdict word:
        ``better`` / ``worse`` when the interval excludes zero (fto and fta: lower is better;
        fbp: higher), ``tie`` otherwise.
    counts : DataFrame
        Rows (system, metric): clear wins over RS, ties and losses across the tasks
        (:func:`~nmthpo.engine.stats.win_count`).
    """
    tasks = list(dict.fromkeys(t for (_, t) in runs))
    cells: dict[tuple[str, str], dict[str, str]] = {}
    counts = []
    for s in systems:
        for metric in metrics:
            ivs = []
            for t in tasks:
                rec = cells.setdefault((s, t), {})
                if (s, t) not in runs or ("rs", t) not in runs:
                    rec[metric] = "not run"
                    continue
                a = pareto_metrics(runs[(s, t)], t).set_index("trial")
                b = pareto_metrics(runs[("rs", t)], t).set_index("trial")
                both = np.intersect1d(a.index, b.index)
                est, lo, hi = paired_difference(a.loc[both, metric].to_numpy(dtype=float),
                                                b.loc[both, metric].to_numpy(dtype=float))
                ivs.append((lo, hi))
                sign = 1.0 if metric == "fbp" else -1.0  # the side of zero that is better
                if not (lo > 0 or hi < 0):
                    word = "tie"
                else:
                    word = "better" if sign * est > 0 else "worse"
                rec[metric] = f"{est:+.1f} [{lo:.1f}, {hi:.1f}] {word}"
            wc = win_count(ivs, better="below" if metric != "fbp" else "above")
            counts.append({"system": s, "metric": metric, "clear wins over RS": wc.wins,
                           "ties": wc.ties, "clear losses": wc.losses})
    out = pd.DataFrame.from_dict(cells, orient="index")
    out.index = out.index.set_names(["system", "task"])
    out.columns = [METRIC_NAMES.get(c, c) for c in out.columns]
    out.columns.name = "system minus RS, mean [95% CI]"
    return out, pd.DataFrame(counts).set_index(["system", "metric"])
