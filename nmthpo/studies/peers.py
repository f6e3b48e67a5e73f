"""Chapter 9: today's HPO libraries on the NMT tables, beside the book's methods.

The runs are the grids ``peers``, ``peers_startup`` and ``peers_costly`` of
:mod:`nmthpo.studies.grids`: every method on the six NMTHPO tables, 100 evaluations per trial
(the same 3 initial rows for every method, Zhang & Duh 2020, Section 4), no early stop, the
wall-clock seconds of every suggestion recorded (:attr:`nmthpo.engine.runner.RunSpec.record_time`).
The libraries run through the adapters of :mod:`nmthpo.optimizers.adapters` (one rule from a
proposal to a row: :mod:`nmthpo.optimizers.adapters.library`).

What the chapter reads from here:

- :func:`peer_runs`: the runs, each with a short display name (:data:`SHORT_NAMES`);
- :func:`regret_frame` / :func:`pooled_regret`: the simple regret after ``B`` evaluations
  (:func:`nmthpo.engine.metrics.regret_at`) of every (task, trial), and its mean pooled over
  the tasks with a bootstrap interval (:func:`nmthpo.engine.stats.bootstrap_mean`);
- :func:`rankings`: :func:`nmthpo.engine.compare.compare_tasks` at each budget (average ranks of
  the per-task means, Friedman and Nemenyi's critical difference, pooled paired tests);
- :func:`leader_table`: for each budget the book's best method against the best library
  method, paired over the pooled (task, trial) pairs, with a verdict that follows from the
  Holm-corrected test (or *not testable* when the design cannot reach the level);
- :func:`paired_effect`: one planned comparison of two methods at each budget (paired
  interval of the difference, Wilcoxon with Holm over the budgets);
- :func:`cost_frame` / :func:`cost_table`: seconds per suggestion by the number of
  observations, their median at a few sizes, the ratio to Optuna's TPE and the exponent of a
  power law fitted to the median (:func:`cost_exponent`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from nmthpo.benchmark.tables import load_table
from nmthpo.engine.metrics import regret_at
from nmthpo.engine.runner import RunResult
from nmthpo.engine.stats import bootstrap_mean
from nmthpo.studies.grids import RUN_GRIDS

if TYPE_CHECKING:
    from nmthpo.engine.compare import TaskRanking

__all__ = [
    "BOOK_METHODS",
    "BUDGETS",
    "COST_SIZES",
    "GRIDS",
    "LIBRARIES",
    "SHORT_NAMES",
    "cost_exponent",
    "cost_frame",
    "cost_table",
    "display_name",
    "leader_table",
    "paired_effect",
    "library_versions",
    "peer_runs",
    "pooled_regret",
    "rankings",
    "regret_frame",
]

#: The budgets (evaluations, initial rows included) at which regret is read.
BUDGETS: tuple[int, ...] = (10, 25, 50, 100)
#: Numbers of observations at which the cost of a suggestion is tabulated.
COST_SIZES: tuple[int, ...] = (10, 50, 99)
#: Chapter 9's grids: the ranked ones (20 paired trials) and the costly ones (fewer trials).
GRIDS: dict[str, tuple[str, ...]] = {
    "ranked": ("peers", "peers_startup"),
    "costly": ("peers_costly",),
}
#: Short display names of the library methods (the tables and the diagrams show these).
SHORT_NAMES: dict[str, str] = {
    "optuna:TPESampler": "optuna-tpe",
    "optuna:GPSampler": "optuna-gp",
    "optuna:CmaEsSampler": "optuna-cmaes",
    "nevergrad:NGOpt": "nevergrad-ngopt",
    "hyperopt:tpe": "hyperopt-tpe",
    "smac:hpo": "smac-hpo",
    "smac:blackbox": "smac-bb",
    "skopt:gp": "skopt-gp",
    "hebo": "hebo",
}
#: Library of each prefix, as the lock file names its distribution.
LIBRARIES: dict[str, str] = {
    "optuna": "optuna",
    "nevergrad": "nevergrad",
    "hyperopt": "hyperopt",
    "smac": "smac",
    "skopt": "scikit-optimize",
    "hebo": "HEBO",
}


def display_name(method: str, settings: Mapping[str, Any] | None = None) -> str:
    """The short name of ``method`` with ``settings`` (``optuna-tpe``; with
    ``n_startup_trials=3``: ``optuna-tpe-3``; a book method keeps its registry name)."""
    name = SHORT_NAMES.get(method, method)
    extra = dict(settings or {})
    if set(extra) == {"n_startup_trials"}:
        return f"{name}-{extra['n_startup_trials']}"
    if extra:
        return name + "[" + ",".join(f"{k}={v}" for k, v in sorted(extra.items())) + "]"
    return name


def library_of(method: str) -> str:
    """The library a method of the grid comes from (``nmthpo`` for the book's)."""
    prefix = method.split(":", 1)[0]
    return LIBRARIES.get(prefix, "nmthpo")


#: The book's own methods in the grids (everything else is another library's).
BOOK_METHODS: tuple[str, ...] = tuple(
    dict.fromkeys(
        m
        for g in GRIDS["ranked"] + GRIDS["costly"]
        for m in RUN_GRIDS[g].methods
        if library_of(m) == "nmthpo"
    )
)


def library_versions(lock: str | Path | None = None) -> dict[str, str]:
    """The pinned version of each library of :data:`LIBRARIES`, read from the lock files
    (``requirements.lock`` holds Optuna, ``requirements-peers.lock`` the others)."""
    root = Path(__file__).resolve().parents[2]
    files = (
        [Path(lock)]
        if lock is not None
        else [
            root / "requirements.lock",
            root / "requirements-peers.lock",
        ]
    )
    pins: dict[str, str] = {}
    for f in files:
        if not f.exists():
            continue
        for line in f.read_text(encoding="utf-8").splitlines():
            m = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;#]+)", line.strip())
            if m:
                pins[m.group(1).lower()] = m.group(2)
    return {lib: pins.get(lib.lower(), "-") for lib in LIBRARIES.values()}


def peer_runs(
    kind: str = "ranked",
    tasks: Sequence[str] | None = None,
    trials: int | None = None,
    jobs: int = 1,
) -> list[RunResult]:
    """The runs of Chapter 9's grids of ``kind`` (:data:`GRIDS`), each named by
    :func:`display_name`; read from the book's cache, the rest computed into the user cache
    (:func:`nmthpo.studies.grids.run_one`; a library method needs the ``peers`` extra)."""
    from nmthpo.studies.grids import run_one

    if kind not in GRIDS:
        raise ValueError(f"unknown kind {kind!r}; valid: {', '.join(GRIDS)}")
    out = []
    for grid in GRIDS[kind]:
        g = RUN_GRIDS[grid]
        for settings in g.variants:
            for task in g.tasks if tasks is None else tasks:
                for method in g.methods:
                    r = run_one(grid, method, task, trials, settings=settings, jobs=jobs)
                    out.append(RunResult(r.spec, r.frame, display_name(method, settings)))
    return out


def regret_frame(
    runs: Sequence[RunResult], budgets: Sequence[int] = BUDGETS, trials: int | None = None
) -> pd.DataFrame:
    """Simple regret (oracle best BLEU minus the best found) after each budget: one row per
    (method, task, trial, budget); ``trials`` keeps the first trials of each run."""
    rows = []
    for r in runs:
        bleu = load_table(r.spec.task).bleu
        for t, seq in enumerate(r.sequences):
            if trials is not None and t >= trials:
                break
            for b in budgets:
                rows.append(
                    {
                        "method": r.label,
                        "task": r.spec.task,
                        "trial": t,
                        "budget": int(b),
                        "regret": regret_at(seq, bleu, int(b)),
                    }
                )
    return pd.DataFrame(rows)


def pooled_regret(regret: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Mean regret (BLEU points) pooled over the (task, trial) pairs of each method and
    budget, with a 95 % bootstrap interval: columns ``method, budget, mean, ci_low, ci_high,
    n`` (``n``: pairs pooled)."""
    out = []
    for (m, b), g in regret.groupby(["method", "budget"], sort=False):
        mean, lo, hi = bootstrap_mean(g["regret"].to_numpy(dtype=float), seed=seed)
        out.append(
            {"method": m, "budget": b, "mean": mean, "ci_low": lo, "ci_high": hi, "n": len(g)}
        )
    return pd.DataFrame(out)


def rankings(
    runs: Sequence[RunResult], metrics: Sequence[str] | None = None, seed: int = 0
) -> dict[str, TaskRanking]:
    """:func:`nmthpo.engine.compare.compare_tasks` of ``runs`` for each metric (default
    ``regret@B`` for each of :data:`BUDGETS`, then Chapter 2's ``ftb``, ``ftc`` and ``fb``),
    every pair tested, without other
    baselines than the runs themselves."""
    from nmthpo.engine.compare import compare_tasks

    wanted = (
        [f"regret@{b}" for b in BUDGETS] + ["ftb", "ftc", "fb"]
        if metrics is None
        else list(metrics)
    )
    return {m: compare_tasks(runs, baselines=[], metric=m, pairs="all", seed=seed) for m in wanted}


def _pooled_test(ranking: TaskRanking, a: str, b: str) -> dict[str, Any] | None:
    for t in ranking.pooled:
        if {t["a"], t["b"]} == {a, b}:
            return t
    return None


def _pooled_values(rk: TaskRanking, method: str) -> np.ndarray:
    """``method``'s metric over the pooled (task, trial) pairs of ``rk``, task by task."""
    return np.concatenate(
        [c.values[method][c.metric].to_numpy(dtype=float) for c in rk.comparisons.values()]
    )


def leader_table(
    ranked: Mapping[str, TaskRanking], book: Sequence[str] = BOOK_METHODS, seed: int = 0
) -> pd.DataFrame:
    """For each metric of ``ranked``: the best-ranked method of the book and of the libraries,
    their average ranks, the mean paired difference (book's minus library's, in the metric's
    units) over the pooled (task, trial) pairs with its 95 % paired bootstrap interval, and the
    verdict: ``leads`` / ``behind`` when the pooled Wilcoxon signed-rank test (Holm over every
    pair of methods) is below 0.05 *and* the interval excludes 0 on the same side, else ``no
    difference``; ``not testable`` when the pooled design cannot reach the level."""
    from nmthpo.engine.metric_names import HIGHER_IS_BETTER
    from nmthpo.engine.stats import INTERVAL_COLUMNS, paired_difference

    rows = []
    for metric, rk in ranked.items():
        ranks = rk.ranks
        ours = [m for m in ranks.index if m in book]
        theirs = [m for m in ranks.index if m not in book]
        a, b = ours[0], theirs[0]
        test = _pooled_test(rk, a, b)
        diff, lo, hi = paired_difference(_pooled_values(rk, a), _pooled_values(rk, b), seed=seed)
        sign = 1.0 if metric in HIGHER_IS_BETTER else -1.0  # > 0: the book's method is better
        design = rk.pooled_design
        if design is not None and not design.can_reach:
            verdict = "not testable"
        elif test is None:
            verdict = "not tested"
        elif test["better"] == a and min(sign * lo, sign * hi) > 0:
            verdict = "leads"
        elif test["better"] == b and max(sign * lo, sign * hi) < 0:
            verdict = "behind"
        else:
            verdict = "no difference"
        rows.append(
            {
                "metric": metric,
                "book's best": a,
                "rank": float(ranks[a]),
                "best library method": b,
                "its rank": float(ranks[b]),
                "first overall": str(ranks.index[0]),
                "critical difference": rk.cd,
                "difference": diff,
                INTERVAL_COLUMNS[0]: lo,
                INTERVAL_COLUMNS[1]: hi,
                "p (Holm)": np.nan if test is None else test["p_holm"],
                "verdict": verdict,
            }
        )
    return pd.DataFrame(rows)


def paired_effect(
    regret: pd.DataFrame, a: str, b: str, budgets: Sequence[int] = BUDGETS, seed: int = 0
) -> pd.DataFrame:
    """One planned comparison of ``a`` against ``b`` at each budget, over the pooled (task,
    trial) pairs of :func:`regret_frame`: the mean regret of each, the mean paired difference
    ``a - b`` with its 95 % paired bootstrap interval, Wilcoxon's signed-rank p and Holm's
    correction over the budgets. The verdict: ``a lower`` / ``b lower`` when the interval
    excludes 0 *and* the corrected p is below 0.05, else ``no difference``. (A leaderboard
    that tests every pair of 15 methods corrects over 105 pairs; a comparison chosen before
    looking at the data corrects over its budgets only.)"""
    from scipy import stats

    from nmthpo.engine.compare import holm
    from nmthpo.engine.stats import paired_difference

    rows = []
    for bud in budgets:
        sel = regret[regret["budget"] == bud].pivot_table(
            index=["task", "trial"], columns="method", values="regret"
        )
        if a not in sel or b not in sel:
            raise ValueError(f"regret has no runs of {a!r} and {b!r} at budget {bud}")
        pair = sel[[a, b]].dropna()
        x, y = pair[a].to_numpy(float), pair[b].to_numpy(float)
        diff, lo, hi = paired_difference(x, y, seed=seed)
        p = 1.0 if np.all(x == y) else float(stats.wilcoxon(x, y).pvalue)
        rows.append(
            {
                "budget": int(bud),
                f"regret {a}": float(x.mean()),
                f"regret {b}": float(y.mean()),
                "difference": diff,
                "ci_low": lo,
                "ci_high": hi,
                "p": p,
                "pairs": len(pair),
            }
        )
    out = pd.DataFrame(rows)
    out["p (Holm)"] = holm(out["p"].to_numpy())
    sig = out["p (Holm)"] < 0.05
    out["verdict"] = np.where(
        sig & (out["ci_high"] < 0),
        f"{a} lower",
        np.where(sig & (out["ci_low"] > 0), f"{b} lower", "no difference"),
    )
    return out


def cost_frame(runs: Sequence[RunResult]) -> pd.DataFrame:
    """Seconds of every suggestion: one row per (method, task, trial, observations), where
    ``observations`` is the number of evaluated rows when the suggestion was asked (the
    initial rows cost nothing and are left out)."""
    parts = []
    for r in runs:
        f = r.frame
        if "seconds" not in f:
            raise ValueError(f"{r.label} on {r.spec.task}: the run records no seconds")
        g = f.loc[f["step"] > r.spec.n_init, ["trial", "step", "seconds"]]
        parts.append(
            pd.DataFrame(
                {
                    "method": r.label,
                    "task": r.spec.task,
                    "trial": g["trial"].to_numpy(),
                    "observations": g["step"].to_numpy() - 1,
                    "seconds": g["seconds"].to_numpy(dtype=float),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def cost_exponent(cost: pd.DataFrame, low: int = 10) -> pd.Series:
    """Per method, the exponent ``b`` of ``seconds ~ a * observations**b`` fitted by least
    squares to the logarithms of the median seconds at each number of observations from
    ``low`` on (a constant cost gives 0, a cubic GP refit 3)."""
    out = {}
    for m, g in cost[cost["observations"] >= low].groupby("method", sort=False):
        med = g.groupby("observations")["seconds"].median()
        med = med[med > 0]
        if len(med) < 2:
            out[m] = np.nan
            continue
        out[m] = float(np.polyfit(np.log(med.index.to_numpy(float)), np.log(med.to_numpy()), 1)[0])
    return pd.Series(out, name="exponent")


def cost_table(
    cost: pd.DataFrame, reference: str = "optuna-tpe", sizes: Sequence[int] = COST_SIZES
) -> pd.DataFrame:
    """Median milliseconds per suggestion at ``sizes`` observations and over all suggestions,
    the ratio of that overall median to ``reference``'s, and the fitted exponent; sorted by
    the overall median."""
    cols: dict[str, pd.Series] = {}
    for n in sizes:
        at = cost[cost["observations"] == n]
        cols[f"ms at {n} obs."] = at.groupby("method", sort=False)["seconds"].median() * 1e3
    overall = cost.groupby("method", sort=False)["seconds"].median() * 1e3
    cols["ms (median)"] = overall
    if reference in overall.index:
        cols[f"x {reference}"] = overall / overall[reference]
    cols["exponent"] = cost_exponent(cost)
    return pd.DataFrame(cols).sort_values("ms (median)").rename_axis("method")
