"""Figure 6 (left and right) and Figure 8 of Zhang & Duh (2020, Section 6.1 and 6.3): the
statistics that test them, each an :class:`~nmthpo.engine.claims.Estimate` with its 95 %
interval (the records that judge them are in
:mod:`nmthpo.studies.zhang_duh.single_objective_claims`).

* Figure 6 left: "BO and GB converge much faster than RS, and GB is superior over time" --
  read at 5, 10, 20 and 50 evaluations from the Figure 6 runs (ja-en, no early stop): the
  best BLEU found so far per trial, and the paired 95 % interval of best GB minus best BO
  (best by mean at that step) and of both against RS (:func:`faster_than_rs`,
  :func:`gb_superior`; trials share their initial rows).
* Figure 6 right: "GB can already fit the data well in the beginning, while BO starts from a
  much larger MSE and decreases gradually" -- the surrogates' MSE over all rows, recorded by
  the Figure 6 runs (:func:`mse_claim_parts`, :func:`mse_ratio_at`).
* Figure 8: the variance of BLEU over *retrained random seeds* of five configurations on ja-en
  and sw-en. The released tables hold one BLEU per configuration (one training seed), and the
  retrained models are not released, so the claim is not testable; what the tables do allow is
  the variance over *HPO trials* (initial rows, tie-breaks), which :func:`trial_variance`
  reports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from nmthpo.benchmark.tables import load_table
from nmthpo.engine.claims import Estimate
from nmthpo.engine.metrics import best_so_far
from nmthpo.engine.numbers import fmt
from nmthpo.engine.stats import paired_bootstrap, paired_difference
from nmthpo.studies.zhang_duh.single_objective import sequences_of, weakest

__all__ = [
    "FIGURE6_STEPS",
    "MSE_LATE",
    "MSE_START",
    "best_at",
    "faster_than_rs",
    "figure6_leaders",
    "gb_superior",
    "mse_claim_parts",
    "mse_ratio_at",
    "trial_variance",
]

#: The numbers of evaluations at which Figure 6 (left) is read.
FIGURE6_STEPS: tuple[int, ...] = (5, 10, 20, 50)

#: Figure 6 (right) is read "in the beginning" after the three shared initial rows (the first
#: step at which every surrogate is fitted, on the same rows) and late at 50 evaluations.
MSE_START: int = 3
MSE_LATE: int = 50


def best_at(
    runs: Mapping[str, pd.DataFrame], task: str, steps: Sequence[int]
) -> dict[str, np.ndarray]:
    """Best BLEU so far per trial (rows) at each step (columns), per method."""
    bleu = load_table(task).bleu
    length = max(steps)
    out = {}
    for m, frame in runs.items():
        curves = np.array([best_so_far(s, bleu, length) for s in sequences_of(frame)])
        out[m] = curves[:, [s - 1 for s in steps]]
    return out


def _fmt(est: float, lo: float, hi: float) -> str:
    sign = "+" if est > 0 and fmt(est, "bleu") != "0.00" else ""
    return f"{sign}{fmt(est, 'bleu')} [{fmt(lo, 'bleu')}, {fmt(hi, 'bleu')}]"


def _best_of(best: Mapping[str, np.ndarray], prefix: str, j: int) -> str | None:
    ms = [m for m in best if m.startswith(prefix)]
    return max(ms, key=lambda m: best[m][:, j].mean()) if ms else None


def figure6_leaders(
    runs: Mapping[str, pd.DataFrame], task: str, steps: Sequence[int] = FIGURE6_STEPS
) -> pd.DataFrame:
    """Who leads Figure 6 (left) at each step, with paired intervals.

    Rows: steps. Columns: the leader and its mean best BLEU, the runner-up, the leader's
    margin, best GB minus best BO and best model-based method minus RS (BLEU, paired 95 %
    bootstrap intervals over trials).
    """
    best = best_at(runs, task, steps)
    rows = []
    for j, s in enumerate(steps):
        order = sorted(best, key=lambda m: -best[m][:, j].mean())
        lead, second = order[0], order[1]
        rec = {
            "evaluations": s,
            "leader": lead,
            "leader's best BLEU": fmt(float(best[lead][:, j].mean()), "bleu"),
            "runner-up": second,
            "leader minus runner-up": _fmt(
                *paired_difference(best[lead][:, j], best[second][:, j])
            ),
        }
        gb, bo = _best_of(best, "gb-", j), _best_of(best, "bo-", j)
        if gb and bo:
            rec["best GB minus best BO"] = f"{gb} vs {bo}: " + _fmt(
                *paired_difference(best[gb][:, j], best[bo][:, j])
            )
        rows.append(rec)
    return pd.DataFrame(rows).set_index("evaluations")


def faster_than_rs(
    runs: Mapping[str, pd.DataFrame], task: str, steps: Sequence[int] = FIGURE6_STEPS
) -> Estimate:
    """Best BO and best GB (best by mean at each step) minus RS in best BLEU so far, paired,
    at every step: one part per (family, step)."""
    best = best_at(runs, task, steps)
    parts = {}
    for j, s in enumerate(steps):
        for prefix, name in (("bo-", "best BO"), ("gb-", "best GB")):
            m = _best_of(best, prefix, j)
            if m is None or "rs" not in best:
                continue
            est, lo, hi = paired_difference(best[m][:, j], best["rs"][:, j])
            parts[f"{name} at {s}"] = Estimate(est, lo, hi, quantity="bleu", note=f"{m} minus rs")
    return weakest(
        parts, lambda e: -e.low, "best BLEU so far minus RS's (BLEU), paired bootstrap over trials"
    )


def gb_superior(
    runs: Mapping[str, pd.DataFrame], task: str, steps: Sequence[int] = FIGURE6_STEPS
) -> Estimate:
    """Best GB minus best BO (each best by mean at that step) in best BLEU so far, paired, at
    every step: one part per step."""
    best = best_at(runs, task, steps)
    parts = {}
    for j, s in enumerate(steps):
        gb, bo = _best_of(best, "gb-", j), _best_of(best, "bo-", j)
        if gb and bo:
            est, lo, hi = paired_difference(best[gb][:, j], best[bo][:, j])
            parts[f"{s} evaluations"] = Estimate(
                est, lo, hi, quantity="bleu", note=f"{gb} minus {bo}"
            )
    return weakest(
        parts,
        lambda e: -e.low,
        "best GB minus best BO in best BLEU so far (BLEU), paired bootstrap over trials",
    )


def _mse_at(runs: Mapping[str, pd.DataFrame], prefix: str, step: int) -> np.ndarray | None:
    """Per trial, the mean over the ``prefix`` methods of the surrogate MSE after ``step``
    evaluations (None when no such method recorded its MSE)."""
    cols = []
    for m, f in runs.items():
        if not m.startswith(prefix) or "mse" not in f:
            continue
        w = f.pivot(index="trial", columns="step", values="mse").sort_index()
        if step in w.columns:
            cols.append(w[step].to_numpy(dtype=float))
    if not cols:
        return None
    return np.mean(np.vstack(cols), axis=0)


def _ratio(a: np.ndarray, b: np.ndarray, note: str) -> Estimate:
    est, lo, hi = paired_bootstrap(
        [a, b], lambda x, y: np.nanmean(x, axis=1) / np.nanmean(y, axis=1)
    )
    return Estimate(est, lo, hi, quantity="ratio", note=note)


def mse_claim_parts(
    runs: Mapping[str, pd.DataFrame], task: str, start: int = MSE_START, late: int = MSE_LATE
) -> Estimate:
    """The three parts of Figure 6 (right)'s sentence, each a ratio with a paired interval.

    * ``GB fits well at the start``: GB's mean MSE after ``start`` evaluations over the
      variance of the table's BLEU (the MSE of the constant prediction at the table's mean):
      below 1 means the surrogate predicts better than that constant;
    * ``BO starts larger``: BO's mean MSE over GB's after ``start`` evaluations;
    * ``BO decreases``: BO's mean MSE after ``late`` evaluations over its MSE after ``start``.

    BO is the mean over the ``bo-*`` methods, GB over the ``gb-*`` methods of a trial; trials
    are resampled jointly (they share their initial rows).
    """
    bo0, gb0 = _mse_at(runs, "bo-", start), _mse_at(runs, "gb-", start)
    bo1 = _mse_at(runs, "bo-", late)
    parts: dict[str, Estimate] = {}
    if gb0 is not None:
        var = float(np.var(load_table(task).bleu))
        est, lo, hi = (
            float(x) / var for x in paired_bootstrap([gb0], lambda x: np.nanmean(x, axis=1))
        )
        parts["GB fits well at the start"] = Estimate(
            est,
            lo,
            hi,
            quantity="ratio",
            note=f"GB's MSE after {start} evaluations / the variance of {task}'s BLEU",
        )
    if bo0 is not None and gb0 is not None:
        parts["BO starts larger"] = _ratio(bo0, gb0, f"BO's MSE / GB's after {start} evaluations")
    if bo0 is not None and bo1 is not None:
        parts["BO decreases"] = _ratio(
            bo1, bo0, f"BO's MSE after {late} / after {start} evaluations"
        )
    shown = parts.get("GB fits well at the start")
    if shown is None:
        return Estimate(float("nan"), note="no surrogate MSE recorded in the run", parts=parts)
    listing = "; ".join(f"{k}: {p.shown()} {p.interval()}" for k, p in parts.items())
    return Estimate(
        shown.value,
        shown.low,
        shown.high,
        text=f"{shown.shown()} (GB's MSE / Var(BLEU) at the start)",
        note=f"every part: {listing}",
        parts=parts,
        quantity="ratio",
    )


def mse_ratio_at(runs: Mapping[str, pd.DataFrame], step: int) -> Estimate:
    """GB's mean surrogate MSE over BO's after ``step`` evaluations (paired ratio)."""
    bo, gb = _mse_at(runs, "bo-", step), _mse_at(runs, "gb-", step)
    if bo is None or gb is None:
        return Estimate(float("nan"), note=f"no BO or GB MSE after {step} evaluations")
    return _ratio(
        gb, bo, f"GB's mean MSE / BO's after {step} evaluations, paired bootstrap over trials"
    )


def trial_variance(
    per_trial: pd.DataFrame, tasks: Sequence[str] = ("ja-en", "sw-en")
) -> pd.DataFrame:
    """What the tables allow instead of Figure 8: the spread over HPO trials.

    Per task and method: the standard deviation over trials of ftb (evaluations) and of fb
    (BLEU regret after the fb budget), from
    :func:`nmthpo.studies.zhang_duh.single_objective.per_trial_metrics`, formatted by
    :func:`nmthpo.engine.numbers.fmt`.
    """
    sub = per_trial[per_trial.task.isin(tasks)]
    g = sub.groupby(["task", "method"], sort=False)
    return pd.DataFrame(
        {
            "sd of ftb (evals)": g["ftb"].std(ddof=1).map(lambda v: fmt(v, "evaluations")),
            "sd of fb (BLEU)": g["fb"].std(ddof=1).map(lambda v: fmt(v, "bleu")),
            "trials": g["ftb"].size(),
        }
    )
