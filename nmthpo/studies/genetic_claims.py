"""Chapter 5's verdicts on Ganapathy (2020), and an out-of-sample check of the counting rules.

The paper leaves its counting rules open; the chapter chose them by fitting the paper's own
numbers (:mod:`nmthpo.studies.genetic_rules`): the random baseline's rule by Table 3, the GA's
rules by Table 2. Agreement with those tables is then partly by construction, and every
verdict of :func:`claims` says which numbers chose the rules it rests on.

Only one rule is shared by the two tables: how the initial population is drawn (with or
without replacement; the GA and the baseline start from the same populations). Each table can
therefore be fitted *alone* and the shared rule it selects used to predict the other table
(:func:`out_of_sample`):

* Table 3 alone -> the initial-population rule -> Table 2 (the GA's own rules cannot be seen by
  Table 3 and stay those chosen on Table 2; the prediction tests the shared rule only);
* Table 2 alone -> the initial-population rule -> Table 3, with the baseline drawing its rows
  the way the initial population is drawn (Table 2 cannot see the baseline's draws).
"""

from __future__ import annotations

from collections.abc import Mapping
from math import sqrt

import numpy as np
import pandas as pd

from nmthpo.studies.genetic_baseline import baseline_expectation
from nmthpo.studies.genetic_study import PAPER_BASELINE, PAPER_DIFFERENCE, PAPER_GA

__all__ = ["CI_COLUMNS", "claims", "out_of_sample"]

#: The interval columns of :func:`nmthpo.studies.genetic.paper_comparison` at ``k = 2``.
CI_COLUMNS: tuple[str, str] = ("95% CI low", "95% CI high")

_Z95 = 1.959964


def _cells_covered(ours: Mapping[int, float], sigma: Mapping[int, float],
                   paper: Mapping[int, float]) -> tuple[int, int, int, float, float]:
    """Cells whose interval ``ours -/+ 1.96 sigma`` covers the paper's value; the worst cell.

    Returns (covered, cells, worst size, worst low, worst high); worst = largest absolute z.
    """
    covered, worst, wz = 0, -1, -1.0
    for m in ours:
        z = abs(paper[m] - ours[m]) / sigma[m]
        covered += int(z <= _Z95)
        if z > wz:
            worst, wz = m, z
    return (covered, len(ours), worst, ours[worst] - _Z95 * sigma[worst],
            ours[worst] + _Z95 * sigma[worst])


def out_of_sample(
    baseline_rules: pd.DataFrame,
    rule_fit: pd.DataFrame,
    task: str = "ja-en",
    target: float = 16.0,
    iterations: int = 1000,
    trials: int = 3,
) -> pd.DataFrame:
    """Fit the shared initial-population rule on one table alone and predict the other.

    Parameters
    ----------
    baseline_rules : DataFrame
        :func:`nmthpo.studies.genetic_rules.baseline_rule_table` (the fit to Table 3).
    rule_fit : DataFrame
        :func:`nmthpo.studies.genetic_rules.ga_rule_table` (the fit to Table 2); rows
        ``"pinned"`` (initial population with replacement) and ``"distinct initial rows"``
        are used.
    task, target, iterations, trials
        Those of the paper (the baseline's closed form needs the table and the target; the
        paper's averages are means of ``trials * iterations`` counts).

    Returns
    -------
    DataFrame
        One row per direction (index ``fitted on``): the initial-population rule the fitting
        table selects (by its χ²), the predicted table, χ² and p of the prediction against the
        paper's averages, the cells whose 95 % interval covers the paper's value, and the
        interval of the worst cell (largest absolute z).
    """
    from scipy.stats import chi2 as chi2_dist

    from nmthpo.benchmark.tables import load_table

    sizes = [int(c) for c in rule_fit.columns if str(c).isdigit()]
    # Table 3 alone: the best baseline rule names the initial-population rule
    best3 = str(baseline_rules["chi2"].idxmin())
    init_rep3 = bool(baseline_rules.loc[best3, "init_replacement"])
    ga_row = "pinned" if init_rep3 else "distinct initial rows"
    ours2 = {m: float(rule_fit.loc[ga_row, str(m)]) for m in sizes}
    # the rule fit's z = (paper - ours) / (sqrt(2) se): recover sigma = sqrt(2) se per cell
    sig2 = {m: abs(PAPER_GA[m] - ours2[m]) / abs(float(rule_fit.loc[ga_row, f"{m} z"]))
            if float(rule_fit.loc[ga_row, f"{m} z"]) != 0 else float("nan") for m in sizes}
    cov2 = _cells_covered(ours2, sig2, PAPER_GA)
    c2 = float(rule_fit.loc[ga_row, "chi2"])
    # Table 2 alone: pinned vs distinct initial rows decides the initial-population rule
    init_rep2 = bool(rule_fit.loc["pinned", "chi2"] <= rule_fit.loc["distinct initial rows",
                                                                   "chi2"])
    table = load_table(task)
    n, b = table.n_rows, int((table.bleu >= target).sum())
    ours3, sig3 = {}, {}
    c3 = 0.0
    for m in sizes:
        mu, var = baseline_expectation(n, b, m, init_rep2, init_rep2)
        ours3[m] = mu
        sig3[m] = sqrt(var / (trials * iterations))
        c3 += ((PAPER_BASELINE[m] - mu) / sig3[m]) ** 2
    cov3 = _cells_covered(ours3, sig3, PAPER_BASELINE)

    def rule(rep: bool) -> str:
        return "with replacement" if rep else "distinct rows"

    rows = [
        {"fitted on": "Table 3 alone", "initial population": rule(init_rep3),
         "predicts": "Table 2 (GA rules as chosen on Table 2)", "chi2": c2, "dof": len(sizes),
         "p": float(chi2_dist.sf(c2, len(sizes))), "cells covered": cov2[0],
         "cells": cov2[1], "worst size": cov2[2], "worst low": cov2[3], "worst high": cov2[4],
         "worst paper": PAPER_GA[cov2[2]],
         "other rule chi2": float(rule_fit.loc["distinct initial rows" if init_rep3
                                              else "pinned", "chi2"])},
        {"fitted on": "Table 2 alone", "initial population": rule(init_rep2),
         "predicts": "Table 3 (baseline draws as the initial population)", "chi2": c3,
         "dof": len(sizes), "p": float(chi2_dist.sf(c3, len(sizes))),
         "cells covered": cov3[0], "cells": cov3[1], "worst size": cov3[2],
         "worst low": cov3[3], "worst high": cov3[4], "worst paper": PAPER_BASELINE[cov3[2]],
         "other rule chi2": float(np.nan)},
    ]
    return pd.DataFrame(rows).set_index("fitted on")


def claims(
    table2: pd.DataFrame,
    table3: pd.DataFrame,
    table4: pd.DataFrame,
    oos: pd.DataFrame,
    mean_difference: tuple[float, float],
) -> pd.DataFrame:
    """Chapter 5's verdicts on the paper's statements, each with its interval.

    A table's verdict is :func:`~nmthpo.engine.stats.composite_verdict` of its cells'; its
    interval is that of the worst cell (largest absolute z). "The GA needs fewer individuals at
    every size" counts sizes whose interval of the difference lies above 0
    (:func:`~nmthpo.engine.stats.win_count`). Every note says which of the paper's numbers chose
    the counting rules the verdict rests on.

    Parameters
    ----------
    table2, table3, table4 : DataFrame
        :func:`nmthpo.studies.genetic.paper_comparison` for ``"ga"``, ``"baseline"`` and
        ``"difference"`` (95 % intervals, ``k`` = 1.96 or 2).
    oos : DataFrame
        :func:`out_of_sample`.
    mean_difference : (float, float)
        Our mean of Table 4 over the sizes and its standard error (the text's "1.27 fewer").

    Returns
    -------
    DataFrame
        :func:`~nmthpo.engine.stats.claims_frame`.
    """
    from nmthpo.engine.stats import (
        Claim,
        claims_frame,
        composite_verdict,
        covers_verdict,
        normal_interval,
        win_count,
    )

    out: list[Claim] = []
    chosen = {
        "Table 2": "the GA's counting rules were chosen by fitting this table (in-sample: "
                   "agreement is partly by construction); the shared initial-population rule "
                   "is confirmed out of sample by Table 3 (below)",
        "Table 3": "the baseline's counting rule was chosen by fitting this table (in-sample); "
                   "Table 2 alone predicts it out of sample (below)",
        "Table 4": "Table 3 minus Table 2, so it inherits both fits (in-sample)",
    }
    for name, tab, what in [("Table 2", table2, "GA individuals until BLEU >= 16"),
                            ("Table 3", table3, "random-baseline individuals"),
                            ("Table 4", table4, "baseline minus GA")]:
        z = tab["z"].abs()
        worst = int(z.idxmax())
        lo, hi = float(tab.loc[worst, CI_COLUMNS[0]]), float(tab.loc[worst, CI_COLUMNS[1]])
        n_ok = int((tab["verdict"] == "reproduced").sum())
        out.append(Claim(
            f"{name}: {what}, averages per initial population", f"Sec. 4, {name}",
            f"{tab.loc[worst, 'paper']:.2f} at m = {worst} (worst cell)",
            f"{n_ok} of {len(tab)} cells; m = {worst}: {tab.loc[worst, 'average']:.2f}",
            lo, hi, composite_verdict(tab["verdict"]),
            f"interval of the worst cell (largest absolute z), ours -/+ 1.96 sqrt(2) se; "
            f"{chosen[name]}"))
    wins = win_count(zip(table4[CI_COLUMNS[0]], table4[CI_COLUMNS[1]], strict=True),
                     better="above")
    worst = int(table4[CI_COLUMNS[0]].idxmin())
    out.append(Claim(
        "the GA needs fewer individuals than random search at every initial population",
        "Sec. 4, Table 4", f"{len(table4)} of {len(table4)} sizes", str(wins),
        float(table4.loc[worst, CI_COLUMNS[0]]), float(table4.loc[worst, CI_COLUMNS[1]]),
        wins.verdict(len(table4)),
        f"a win is a size whose interval of the difference lies above 0; the interval shown is "
        f"that of m = {worst}, the least clear size; rules chosen on Tables 2 and 3"))
    mean, se = mean_difference
    lo, hi = normal_interval(mean, se)
    out.append(Claim(
        "the GA needs on average 1.27 individuals fewer", "Sec. 4 (text)",
        f"1.27 (the mean of its Table 4 is {np.mean(list(PAPER_DIFFERENCE.values())):.2f})",
        mean, lo, hi, covers_verdict(lo, hi, 1.27),
        "mean of Table 4 over the sizes, normal interval from the paired standard errors; "
        "rules chosen on Tables 2 and 3"))
    for fitted, row in oos.iterrows():
        lo, hi = float(row["worst low"]), float(row["worst high"])
        covered, cells = int(row["cells covered"]), int(row["cells"])
        verdict = ("reproduced" if covered == cells else
                   "not reproduced" if covered == 0 else "partly")
        out.append(Claim(
            f"out of sample: the rule fitted on {fitted} predicts {row['predicts']}",
            "(our check)", f"{row['worst paper']:.2f} at m = {int(row['worst size'])}",
            f"initial population {row['initial population']}: {covered} of {cells} cells "
            f"covered, chi2 {row['chi2']:.1f} (p {row['p']:.2f})", lo, hi, verdict,
            f"interval of the worst predicted cell (m = {int(row['worst size'])}); cells "
            "covered: the paper's value inside our 95 % interval"))
    return claims_frame(out)
