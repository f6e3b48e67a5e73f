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
  optimisation overhead (mean cumulative seconds of suggestion);
* :func:`step_intervals` -- the uncertainty of an average rank or ADTM at one step: a
  bootstrap over repetitions (resampled jointly for all methods and targets, which share
  initial rows and source samples within a repetition);
* :func:`clear_places` -- Table 1's first places counted only where a method's best BLEU beats
  every other method's with a paired interval that excludes zero; the rest are ties.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from nmthpo.benchmark.tables import load_table

__all__ = [
    "adtm",
    "average_rank",
    "best_so_far",
    "clear_places",
    "overhead_curve",
    "per_repetition",
    "rank_counts",
    "ranked",
    "ranks_with_ties",
    "step_intervals",
    "weight_curve",
]

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


def ranked(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`best_so_far` plus a column ``rank``: the rank of each method's best-so-far BLEU
    within its (target, repetition, step), ties sharing the average rank (1 = best)."""
    f = best_so_far(frame)
    f["rank"] = f.groupby(["target", "rep", "step"])["best"].rank(method="average", ascending=False)
    return f


def _with_adtm(f: pd.DataFrame) -> pd.DataFrame:
    """Add Eq. 9's per-trial ``adtm`` to a :func:`best_so_far` frame (the whole table's range)."""
    lo = {t: float(load_table(t).bleu.min()) for t in f["target"].unique()}
    hi = {t: float(load_table(t).bleu.max()) for t in f["target"].unique()}
    ymax, ymin = f["target"].map(hi), f["target"].map(lo)
    f["adtm"] = (ymax - f["best"]) / (ymax - ymin)
    return f


def average_rank(frame: pd.DataFrame, per_target: bool = False) -> pd.DataFrame:
    """Average rank of every method at every step (ties share the average rank).

    Returns
    -------
    DataFrame
        Columns ``method``, ``step``, ``rank`` (and ``target`` if ``per_target``).
    """
    f = ranked(frame)
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
    f = _with_adtm(best_so_far(frame))
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
    out = (
        pd.DataFrame(
            {
                "first": final[final["place"] == 1].groupby("method").size(),
                "second": final[final["place"] == 2].groupby("method").size(),
            }
        )
        .reindex(sorted(final["method"].unique()))
        .fillna(0)
        .astype(int)
    )
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


def per_repetition(frame: pd.DataFrame, step: int, value: str) -> pd.DataFrame:
    """Rank or ADTM at ``step`` averaged over targets: index repetition, one column per method.

    Ranks are those of :func:`average_rank` (within target, repetition and step); the ADTM is
    that of :func:`adtm` per trial. Repetitions lacking a (method, target) are dropped.
    """
    if value not in ("rank", "adtm"):
        raise ValueError(f"value must be 'rank' or 'adtm', got {value!r}")
    if step not in set(frame["step"]):
        raise ValueError(f"step {step} is not in the frame (steps 1..{frame['step'].max()})")
    f = ranked(frame) if value == "rank" else _with_adtm(best_so_far(frame))
    f = f[f["step"] == step]
    wide = f.pivot_table(index="rep", columns=["method", "target"], values=value).dropna()
    return wide.T.groupby(level="method").mean().T


def step_intervals(
    frame: pd.DataFrame, step: int, value: str = "rank", seed: int = 0
) -> pd.DataFrame:
    """Average rank (or ADTM) over targets at ``step`` with a 95 % bootstrap interval.

    Repetition ``r`` of every method and target shares its initial rows (and source samples),
    so one draw of repetition indices resamples all methods and targets together
    (:func:`nmthpo.engine.stats.paired_bootstrap`); the interval of each method's value is the
    percentile interval of its resampled mean. With every target holding every repetition the
    estimate equals the ``all`` column of the chapter's rank table (targets weighted equally).

    Returns
    -------
    DataFrame
        Index ``method``; columns ``value`` (``"rank"`` or ``"adtm"``) and
        :data:`nmthpo.engine.stats.INTERVAL_COLUMNS`.
    """
    from nmthpo.engine.stats import INTERVAL_COLUMNS, paired_bootstrap

    per = per_repetition(frame, step, value)
    arr = per.to_numpy()
    rows = {}
    for j, m in enumerate(per.columns):
        est, lo, hi = paired_bootstrap([arr], lambda a, j=j: a[..., j].mean(axis=1), seed=seed)
        rows[m] = {value: est, INTERVAL_COLUMNS[0]: lo, INTERVAL_COLUMNS[1]: hi}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "method"
    return out


def clear_places(frame: pd.DataFrame, step: int, seed: int = 0) -> pd.DataFrame:
    """Table 1's first places counted only where the interval decides them.

    Per target, the method with the highest mean best BLEU after ``step`` evaluations is
    *clearly first* when the paired bootstrap interval (over repetitions,
    :func:`nmthpo.engine.stats.paired_difference`) of its best BLEU minus each other method's
    lies above zero; otherwise the first place is a *tie* between it and every method whose
    interval with it touches zero.

    Returns
    -------
    DataFrame
        Index ``method``; columns ``clear 1st`` (targets it wins clearly) and ``tied 1st``
        (targets whose first place it shares with at least one method the interval cannot
        separate from it).
    """
    from nmthpo.engine.stats import paired_difference

    f = best_so_far(frame)
    f = f[f["step"] == step]
    methods = sorted(f["method"].unique())
    clear = dict.fromkeys(methods, 0)
    tied = dict.fromkeys(methods, 0)
    for _, g in f.groupby("target", sort=False):
        wide = g.pivot_table(index="rep", columns="method", values="best").dropna()
        if wide.empty:
            continue
        top = str(wide.mean().idxmax())
        group = [top]
        for m in wide.columns:
            if m == top:
                continue
            _, lo, _ = paired_difference(wide[top].to_numpy(), wide[m].to_numpy(), seed=seed)
            if not lo > 0:
                group.append(str(m))
        if len(group) == 1:
            clear[top] += 1
        else:
            for m in group:
                tied[m] += 1
    out = pd.DataFrame({"clear 1st": clear, "tied 1st": tied})
    out.index.name = "method"
    return out
