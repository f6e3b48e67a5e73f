"""Chapter 3's tables for reading: Table 4 beside the paper, and each system against RS.

:func:`nmthpo.studies.zhang_duh.multiobjective.table4` returns the raw numbers (one row per task and
method, ``fto_mean``-style columns); :func:`table4_readable` lays them out for the book as
mean [95 % interval] beside the paper's values, and :func:`versus_random_search` states the
comparison Section 6.2 implies for every model-based system against the simplest yardstick,
random search, with paired 95 % intervals (trial ``t`` of every system starts from the same
rows, :mod:`nmthpo.engine.stats`) and counts of wins with a bootstrap interval of the count
(:func:`nmthpo.engine.claims.win_count_interval`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from nmthpo.engine.claims import win_count_interval
from nmthpo.engine.numbers import fmt, fmt_interval
from nmthpo.engine.stats import paired_difference
from nmthpo.studies.zhang_duh.multiobjective import ParetoMetrics

__all__ = ["METRIC_NAMES", "table4_readable", "versus_random_search"]

#: Column titles of the three runtime metrics of Section 4.2.
METRIC_NAMES: dict[str, str] = {"fto": "fto (evals)", "fta": "fta (evals)", "fbp": "fbp (rows)"}
_QUANTITY: dict[str, str] = {"fto": "evaluations", "fta": "evaluations", "fbp": "points"}

#: The column holding the paper's values.
PAPER_COLUMN = "paper (text)"


def table4_readable(
    t4: pd.DataFrame,
    methods: Sequence[str] | None = None,
    paper: Mapping[tuple[str, str], str] | None = None,
) -> pd.DataFrame:
    """Table 4 as the book prints it: rows (task with rows, J, B; metric), columns methods.

    Cells read ``mean [95 % CI]`` (percentile bootstrap of the mean over trials), in the one
    precision of :func:`nmthpo.engine.numbers.fmt` (evaluations and Pareto rows: one decimal).
    ``paper`` maps ``(task, metric)`` to the paper's values for that row (a last column;
    ``-`` where the paper gives none).
    """
    need = {"task", "method", "rows", "J", "B"} | {
        f"{m}_{s}" for m in METRIC_NAMES for s in ("mean", "low", "high")
    }
    missing = sorted(need - set(t4.columns))
    if missing:
        raise ValueError(f"frame lacks columns {missing}; pass multiobjective.table4(runs)")
    ms = list(dict.fromkeys(t4.method)) if methods is None else list(methods)
    out = t4[t4.method.isin(ms)]
    paper = dict(paper or {})
    records = []
    labels: dict[str, str] = {}
    for r in out.itertuples():
        label = f"{r.task} (n={r.rows}, J={r.J}, B={r.B})"
        labels[label] = str(r.task)
        for m, title in METRIC_NAMES.items():
            cell = fmt_interval(
                getattr(r, f"{m}_mean"),
                getattr(r, f"{m}_low"),
                getattr(r, f"{m}_high"),
                _QUANTITY[m],
            )
            records.append({"task": label, "metric": title, "method": r.method, "cell": cell})
    frame = pd.DataFrame(records)
    wide = frame.pivot(index=["task", "metric"], columns="method", values="cell")
    order = pd.MultiIndex.from_product(
        [list(dict.fromkeys(frame.task)), list(METRIC_NAMES.values())], names=["task", "metric"]
    )
    wide = wide.reindex(index=order, columns=[m for m in ms if m in wide.columns])
    by_title = {v: k for k, v in METRIC_NAMES.items()}
    wide[PAPER_COLUMN] = [paper.get((labels[t], by_title[m]), "-") for t, m in wide.index]
    wide.columns.name = "mean [95% CI] over trials"
    return wide


def versus_random_search(
    runs: Mapping[tuple[str, str], pd.DataFrame],
    systems: Sequence[str] = ("gb-m", "gb-r", "bo-m", "bo-r"),
    metrics: Sequence[str] = ("fto", "fta", "fbp"),
    per: ParetoMetrics | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each system minus random search, per task and metric, with paired 95 % intervals.

    Returns
    -------
    cells : DataFrame
        Rows (system, task), columns metrics; cells ``diff [low, high]`` with a word:
        ``better`` / ``worse`` when the interval excludes zero (fto and fta: lower is better;
        fbp: higher), ``tie`` otherwise.
    counts : DataFrame
        Rows (system, metric): tasks on which the system beats RS by mean, with the percentile
        bootstrap interval of that count (:func:`~nmthpo.engine.claims.win_count_interval`).
    """
    per = per or ParetoMetrics(runs)
    tasks = list(dict.fromkeys(t for (_, t) in runs))
    cells: dict[tuple[str, str], dict[str, str]] = {}
    counts = []
    for s in systems:
        for metric in metrics:
            pairs = {}
            for t in tasks:
                rec = cells.setdefault((s, t), {})
                if (s, t) not in runs or ("rs", t) not in runs:
                    rec[metric] = "not run"
                    continue
                a, b = per.pair(s, "rs", t, metric)
                pairs[t] = (a, b)
                est, lo, hi = paired_difference(a, b)
                sign = 1.0 if metric == "fbp" else -1.0  # the side of zero that is better
                word = "tie" if lo <= 0 <= hi else ("better" if sign * est > 0 else "worse")
                q = _QUANTITY[metric]
                rec[metric] = f"{'+' if est > 0 else ''}{fmt_interval(est, lo, hi, q)} {word}"
            if not pairs:
                continue
            wc = win_count_interval(pairs, better="below" if metric != "fbp" else "above")
            counts.append(
                {
                    "system": s,
                    "metric": metric,
                    "wins over RS (by mean)": wc.text,
                    "95% CI of the count": f"[{fmt(wc.low, 'count')}, {fmt(wc.high, 'count')}]",
                }
            )
    out = pd.DataFrame.from_dict(cells, orient="index")
    out.index = out.index.set_names(["system", "task"])
    out.columns = [METRIC_NAMES.get(c, c) for c in out.columns]
    out.columns.name = "system minus RS, mean [95% CI]"
    cols = ["system", "metric", "wins over RS (by mean)", "95% CI of the count"]
    return out, pd.DataFrame(counts, columns=cols).set_index(["system", "metric"])
