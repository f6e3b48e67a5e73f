"""Metrics of multi-fidelity runs, from a run's log.

Every function takes the frame of :class:`nmthpo.engine.fidelity.CurveRunResult` (one line per
finished job, with the ``recommended`` row after it) and the learning-curve table, and returns
one value per trial (or per trial and cost), so means and paired comparisons go through
:mod:`nmthpo.engine.stats` (trials of different methods with one seed share their random
order of configurations, :class:`nmthpo.optimizers.multifidelity.base.FidelityOptimizer`).

* :func:`anytime_regret`: regret of the recommendation's *final* value (``bleu_optimal`` or
  ``perplexity_optimal``) after the checkpoints spent (Li et al. 2018, Section 4: test error
  of the incumbent against total resources);
* :func:`cost_to_within`: the checkpoints after which the recommendation first comes within
  ``tolerance`` of the best final value (``inf`` if it never does within the budget);
* :func:`best_reached` and :func:`survival`: how far the true best configuration got, and how
  often it survives to each rung among the trials that tried it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from nmthpo.benchmark.learning_curves import LearningCurveTable

__all__ = ["anytime_regret", "best_reached", "cost_to_within", "survival", "trial_metrics"]


def _trials(frame: pd.DataFrame) -> list[pd.DataFrame]:
    return [g for _, g in frame.groupby("trial", sort=True)]


def anytime_regret(frame: pd.DataFrame, table: LearningCurveTable, costs: np.ndarray) -> np.ndarray:
    """Regret of the recommendation after ``costs`` checkpoints, shape ``(trials, costs)``.

    The recommendation at cost ``c`` is the one after the last job whose cumulative cost is
    at most ``c``; ``NaN`` where no job had finished yet.
    """
    regret = table.regret(table.final)
    c = np.asarray(costs, dtype=float)
    out = []
    for g in _trials(frame):
        idx = np.searchsorted(g["cost"].to_numpy(), c, side="right") - 1
        rec = g["recommended"].to_numpy()
        out.append(np.where(idx >= 0, regret[rec[np.maximum(idx, 0)]], np.nan))
    return np.asarray(out, dtype=float)


def cost_to_within(frame: pd.DataFrame, table: LearningCurveTable, tolerance: float) -> np.ndarray:
    """Checkpoints spent when the recommendation first comes within ``tolerance`` of the best
    final value (in the metric's units), per trial; ``inf`` if never within the budget."""
    regret = table.regret(table.final)
    out = []
    for g in _trials(frame):
        ok = np.flatnonzero(regret[g["recommended"].to_numpy()] <= tolerance)
        out.append(float(g["cost"].to_numpy()[ok[0]]) if ok.size else np.inf)
    return np.asarray(out)


def best_reached(frame: pd.DataFrame, table: LearningCurveTable) -> np.ndarray:
    """The highest checkpoint any best configuration (ties included) reached, per trial
    (0: never tried)."""
    best = table.best_rows
    out = []
    for g in _trials(frame):
        hit = g["checkpoint"].to_numpy()[g["row"].isin(best).to_numpy()]
        out.append(int(hit.max()) if hit.size else 0)
    return np.asarray(out, dtype=int)


def survival(reached: np.ndarray, table: LearningCurveTable, levels: list[int]) -> pd.DataFrame:
    """How often the true best survives to each rung.

    For each checkpoint ``level``: among the trials in which a best configuration was started
    (``reached > 0``, from :func:`best_reached`), the share in which it reached
    ``min(level, L)``, ``L`` the (longest) curve length of the best configurations (a curve
    that ended early is complete).

    Returns
    -------
    DataFrame
        ``checkpoint, tried, survived, share`` (one line per level).
    """
    r = np.asarray(reached, dtype=int)
    length = int(table.lengths[table.best_rows].max())
    tried = int((r > 0).sum())
    rows = []
    for level in levels:
        ok = int(((r > 0) & (r >= min(int(level), length))).sum())
        rows.append(
            {
                "checkpoint": int(level),
                "tried": tried,
                "survived": ok,
                "share": ok / tried if tried else np.nan,
            }
        )
    return pd.DataFrame(rows)


def trial_metrics(
    frame: pd.DataFrame, table: LearningCurveTable, budget: int, tolerance: float, points: int = 20
) -> pd.DataFrame:
    """Per-trial summary: final regret, cost, configurations started, cost to come within
    ``tolerance``, the checkpoint the true best reached (:func:`best_reached`), and the
    anytime regret at ``points`` equal shares of the budget (``regret@0.05`` ...
    ``regret@1``)."""
    shares = np.arange(1, points + 1) / points
    any_r = anytime_regret(frame, table, shares * budget)
    g = frame.groupby("trial", sort=True)
    last = g.tail(1)
    out = pd.DataFrame(
        {
            "trial": last["trial"].to_numpy(dtype=int),
            "regret": table.regret(table.final[last["recommended"].to_numpy(dtype=int)]),
            "cost": last["cost"].to_numpy(dtype=int),
            "configs": g["row"].nunique().to_numpy(dtype=int),
            "cost_within": cost_to_within(frame, table, tolerance),
            "best_reached": best_reached(frame, table),
        }
    )
    for j, s in enumerate(shares):
        out[f"regret@{s:g}"] = any_r[:, j]
    return out
