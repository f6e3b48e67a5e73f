"""Figure 6 (left) and Figure 8 of Zhang & Duh (2020, Section 6.1) as claims with intervals.

* Figure 6 left: "BO and GB converge much faster than RS, and GB is superior over time" --
  read at 5, 10, 20 and 50 evaluations from the Figure 6 runs (ja-en, no early stop): the
  best BLEU found so far per trial, the leader by mean, and the paired 95 % interval of best
  GB minus best BO (best by mean at that step) and of both against RS
  (:mod:`nmthpo.engine.stats`; trials share their initial rows).
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
from nmthpo.engine.metrics import best_so_far
from nmthpo.engine.stats import Claim, claims_frame, paired_difference, win_count
from nmthpo.studies.single_objective import sequences_of

__all__ = ["FIGURE6_STEPS", "figure6_claims", "figure6_leaders", "figure8_claim",
           "trial_variance"]

#: The numbers of evaluations at which Figure 6 (left) is read.
FIGURE6_STEPS: tuple[int, ...] = (5, 10, 20, 50)


def _best_at(runs: Mapping[str, pd.DataFrame], task: str, steps: Sequence[int]
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
    return f"{est:+.2f} [{lo:.2f}, {hi:.2f}]"


def _best_of(best: Mapping[str, np.ndarray], prefix: str, j: int) -> str | None:
    ms = [m for m in best if m.startswith(prefix)]
    return max(ms, key=lambda m: best[m][:, j].mean()) if ms else None


def figure6_leaders(runs: Mapping[str, pd.DataFrame], task: str,
                    steps: Sequence[int] = FIGURE6_STEPS) -> pd.DataFrame:
    """Who leads Figure 6 (left) at each step, with paired intervals.

    Rows: steps. Columns: the leader and its mean best BLEU, the runner-up, the leader's
    margin, best GB minus best BO and best model-based method minus RS (BLEU, paired 95 %
    bootstrap intervals over trials).
    """
    best = _best_at(runs, task, steps)
    rows = []
    for j, s in enumerate(steps):
        order = sorted(best, key=lambda m: -best[m][:, j].mean())
        lead, second = order[0], order[1]
        rec = {"evaluations": s, "leader": lead,
               "leader's best BLEU": round(float(best[lead][:, j].mean()), 2),
               "runner-up": second,
               "leader minus runner-up": _fmt(*paired_difference(best[lead][:, j],
                                                                 best[second][:, j]))}
        gb, bo = _best_of(best, "gb-", j), _best_of(best, "bo-", j)
        if gb and bo:
            rec["best GB minus best BO"] = f"{gb} vs {bo}: " + _fmt(
                *paired_difference(best[gb][:, j], best[bo][:, j]))
        rows.append(rec)
    return pd.DataFrame(rows).set_index("evaluations")


def figure6_claims(runs: Mapping[str, pd.DataFrame], task: str,
                   steps: Sequence[int] = FIGURE6_STEPS) -> pd.DataFrame:
    """The two halves of Figure 6 (left)'s sentence as claims (a claims table)."""
    best = _best_at(runs, task, steps)
    out = []
    if "rs" in best:
        ivs, detail = [], []
        for j, s in enumerate(steps):
            for prefix in ("bo-", "gb-"):
                m = _best_of(best, prefix, j)
                if m is None:
                    continue
                est, lo, hi = paired_difference(best[m][:, j], best["rs"][:, j])
                ivs.append((lo, hi))
                detail.append(f"{s}: {m} {est:+.2f} [{lo:.2f}, {hi:.2f}]")
        wc = win_count(ivs, better="above")
        out.append(Claim(
            "BO and GB converge much faster than RS (best BLEU so far above RS's at "
            f"{', '.join(map(str, steps))} evaluations)", f"Fig. 6 left ({task})",
            "faster than RS", str(wc), float(wc.wins), float(wc.wins + wc.ties),
            wc.verdict(wc.parts), "best BO / best GB minus RS, BLEU: " + "; ".join(detail)))
    ivs, detail = [], []
    for j, s in enumerate(steps):
        gb, bo = _best_of(best, "gb-", j), _best_of(best, "bo-", j)
        if gb and bo:
            est, lo, hi = paired_difference(best[gb][:, j], best[bo][:, j])
            ivs.append((lo, hi))
            detail.append(f"{s}: {est:+.2f} [{lo:.2f}, {hi:.2f}]")
    if ivs:
        wc = win_count(ivs, better="above")
        out.append(Claim(
            "GB is superior over time (best GB's best BLEU so far above best BO's at "
            f"{', '.join(map(str, steps))} evaluations)", f"Fig. 6 left ({task})",
            "GB superior", str(wc), float(wc.wins), float(wc.wins + wc.ties),
            wc.verdict(wc.parts), "best GB minus best BO (by mean at each step), BLEU: "
            + "; ".join(detail)))
    return claims_frame(out, decimals=2)


def trial_variance(per_trial: pd.DataFrame, tasks: Sequence[str] = ("ja-en", "sw-en")
                   ) -> pd.DataFrame:
    """What the tables allow instead of Figure 8: the spread over HPO trials.

    Per task and method: the standard deviation over trials of ftb (evaluations) and of fb
    (BLEU regret after the fb budget), from
    :func:`nmthpo.studies.single_objective.per_trial_metrics`.
    """
    sub = per_trial[per_trial.task.isin(tasks)]
    g = sub.groupby(["task", "method"], sort=False)
    out = pd.DataFrame({"sd of ftb (evals)": g["ftb"].std(ddof=1),
                        "sd of fb (BLEU)": g["fb"].std(ddof=1),
                        "trials": g["ftb"].size()})
    return out.round(2)


def figure8_claim() -> Claim:
    """Figure 8 (variance over retrained seeds) as a claim: not testable from the tables."""
    return Claim(
        "BLEU varies little over retrained random seeds and the ranking of configurations "
        "stays about the same", "Sec. 6.3, Fig. 8 (ja-en, sw-en)", "small variance",
        "no data", float("nan"), float("nan"), "not testable",
        "the released tables hold one BLEU per configuration (one seed); the five "
        "configurations retrained with five more seeds are not released")
