"""Metrics of the transfer experiments (Li et al. 2022, Section 5.1 "Evaluation Metric", Table 1).

All functions take the tidy frames of :mod:`nmthpo.engine.runner` (columns ``method``,
``target``, ``rep``, ``step``, ``bleu``, ...). BLEU is maximised, so the paper's formulas for a
minimised error are applied to ``-BLEU``.

* :func:`best_so_far` -- the best BLEU among the first ``step`` evaluations;
* :func:`average_rank` -- at every step, methods are ranked by best-so-far BLEU within each
  (target, repetition) -- the repetitions of all methods share initial rows and source samples
  -- ties sharing the average rank (the paper's example: 1, 2.5, 2.5, 4), then averaged over
  repetitions (and targets);
* :func:`adtm` -- Eq. 9, ``(y_best - best_so_far) / (y_best - y_worst)`` with ``y_best`` and
  ``y_worst`` the best and worst BLEU of the target's whole table, averaged over targets;
* :func:`rank_counts` -- Table 1: per target, methods are ranked by their final best BLEU
  averaged over repetitions (dense ranking, so tied methods share a place and the sum of a
  column can exceed the number of tasks, as the paper notes); counts of 1st and 2nd places;
* :func:`weight_curve` and :func:`overhead_curve` -- Section 5.4's target-weight trend and
  optimisation overhead (mean cumulative seconds of suggestion).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from nmthpo.benchmark.tables import load_table

__all__ = ["adtm", "average_rank", "best_so_far", "overhead_curve", "rank_counts",
           "ranks_with_ties", "weight_curve"]

_KEYS = ["method", "target", "rep"]


def _check(frame: pd.DataFrame, cols: list[str]) -> None:
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks columns {missing}; pass the runner's tidy frame")


def ranks_with_ties(values: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Ranks 1..m of ``values`` with ties sharing the average rank (Section 5.1's example)."""
    from scipy.stats import rankdata

    v = np.asarray(values, dtype=float)
    return np.asarray(rankdata(-v if higher_is_better else v, method="average"), dtype=float)


def best_so_far(frame: pd.DataFrame) -> pd.DataFrame:
    """Add a column ``best``: the running maximum of ``bleu`` within each trial."""
    _check(frame, _KEYS + ["step", "bleu"])
    f = frame.sort_values(_KEYS + ["step"]).copy()
    f["best"] = f.groupby(_KEYS, sort=False)["bleu"].cummax()
    return f


def average_rank(frame: pd.DataFrame, per_target: bool = False) -> pd.DataFrame:
    """Average rank of every method at every step (ties share the average rank).

    Returns
    -------
    DataFrame
        Columns ``method``, ``step``, ``rank`` (and ``target`` if ``per_target``).
    """
    f = best_so_far(frame)
    f["rank"] = f.groupby(["target", "rep", "step"])["best"].rank(method="average",
                                                                   ascending=False)
    keys = ["target", "method", "step"] if per_target else ["method", "step"]
    if per_target:
        return f.groupby(keys, as_index=False)["rank"].mean()
    # average over repetitions within a target first, then over targets (equal target weight)
    per = f.groupby(["target", "method", "step"], as_index=False)["rank"].mean()
    return per.groupby(keys, as_index=False)["rank"].mean()


def adtm(frame: pd.DataFrame, per_target: bool = False) -> pd.DataFrame:
    """Average distance to the maximum (Eq. 9 for a maximised objective) at every step.

    Returns
    -------
    DataFrame
        Columns ``method``, ``step``, ``adtm`` (and ``target`` if ``per_target``).
    """
    f = best_so_far(frame)
    lo = {t: float(load_table(t).bleu.min()) for t in f["target"].unique()}
    hi = {t: float(load_table(t).bleu.max()) for t in f["target"].unique()}
    ymax = f["target"].map(hi)
    ymin = f["target"].map(lo)
    f["adtm"] = (ymax - f["best"]) / (ymax - ymin)
    per = f.groupby(["target", "method", "step"], as_index=False)["adtm"].mean()
    if per_target:
        return per
    return per.groupby(["method", "step"], as_index=False)["adtm"].mean()


def rank_counts(frame: pd.DataFrame, step: int | None = None) -> pd.DataFrame:
    """How often each method ranks first and second over the targets (Table 1).

    Parameters
    ----------
    frame : DataFrame
        The tidy frame of a (dynamic) experiment.
    step : int, optional
        Compare the best BLEU after this many evaluations (default: each trial's last step).

    Returns
    -------
    DataFrame
        Index ``method``; columns ``first``, ``second``.
    """
    f = best_so_far(frame)
    if step is not None:
        f = f[f["step"] == step]
    else:
        f = f[f["step"] == f.groupby(_KEYS)["step"].transform("max")]
    final = f.groupby(["target", "method"], as_index=False)["best"].mean()
    final["place"] = final.groupby("target")["best"].rank(method="dense", ascending=False)
    out = pd.DataFrame({
        "first": final[final["place"] == 1].groupby("method").size(),
        "second": final[final["place"] == 2].groupby("method").size(),
    }).reindex(sorted(final["method"].unique())).fillna(0).astype(int)
    out.index.name = "method"
    return out


def weight_curve(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean (and standard deviation) of the target weight by method and step."""
    _check(frame, ["method", "step", "target_weight"])
    g = frame.groupby(["method", "step"])["target_weight"]
    return g.agg(["mean", "std"]).reset_index()


def overhead_curve(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean cumulative optimisation overhead (seconds of suggestion) by method and step."""
    _check(frame, _KEYS + ["step", "seconds"])
    f = frame.sort_values(_KEYS + ["step"]).copy()
    f["cum_seconds"] = f.groupby(_KEYS, sort=False)["seconds"].cumsum()
    return f.groupby(["method", "step"], as_index=False)["cum_seconds"].mean()
