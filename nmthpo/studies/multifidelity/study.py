"""Chapter 7: multi-fidelity HPO on the NMTLC learning curves.

The grid (:data:`nmthpo.studies.grids.MULTIFIDELITY`) runs every method on every
learning-curve task with the budget of 30 mean curves (random search then trains about 30
configurations to the end) and keeps, per trial, the metrics of
:func:`nmthpo.engine.fidelity_metrics.trial_metrics`. Runs go through the one runner and
are cached like every run (one Parquet file per run with its checksummed sidecar) in
``results/multifidelity`` (written only under ``make results``) or, for other parameters, in
the user cache. The chapter's tables:

* the data: curve lengths (:func:`data_summary`), how well checkpoint ``k`` ranks the finals
  (:func:`rank_correlation`), the scratch sets' sawtooth curves (:func:`sawtooth_table`);
* the results: final regret and cost per method and task with 95 % intervals
  (:func:`summary_table`), paired differences against full-fidelity random search
  (:func:`paired_table`; the chapter's findings are records in
  :mod:`nmthpo.studies.multifidelity.claims`), anytime curves (:func:`anytime_table`), survival
  of the true best (:func:`survival_table`);
* upstream's schedule on all configurations (:func:`upstream_table`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from nmthpo.benchmark.learning_curves import load_curves
from nmthpo.engine.fidelity import CurveRunSpec, default_budget, run_curves
from nmthpo.engine.fidelity_metrics import best_reached, survival, trial_metrics
from nmthpo.engine.stats import bootstrap_mean, paired_difference
from nmthpo.optimizers.multifidelity.base import rung_levels
from nmthpo.optimizers.multifidelity.halving import upstream_schedule
from nmthpo.studies.grids import MULTIFIDELITY, MULTIFIDELITY_PEERS, run_cache_dir, user_dir

__all__ = [
    "FOLDER",
    "anytime_table",
    "compute_grid",
    "data_summary",
    "grid_frame",
    "method_label",
    "paired_table",
    "peer_frame",
    "rank_correlation",
    "run_metrics",
    "sawtooth_table",
    "summary_table",
    "survival_table",
    "tolerance",
    "upstream_table",
]

FOLDER = "multifidelity"


def method_label(method: str) -> str:
    """A short label (``optuna-pruner:HyperbandPruner`` -> ``optuna Hyperband``)."""
    if method.startswith("optuna-pruner:"):
        return "optuna " + method.split(":", 1)[1].removesuffix("Pruner")
    if method.startswith("syne-tune:"):
        return "syne-tune " + method.split(":", 1)[1]
    return method


def tolerance(task: str, bleu_tolerance: float = 0.5, ppl_tolerance: float = 0.02) -> float:
    """ "Within reach of the best": ``bleu_tolerance`` BLEU on fine-tuned tasks,
    ``ppl_tolerance`` times the best perplexity on scratch sets."""
    table = load_curves(task)
    return bleu_tolerance if table.maximise else ppl_tolerance * table.best_final


def _significant(frame: pd.DataFrame, digits: int = 10) -> pd.DataFrame:
    """``frame`` with every float rounded to ``digits`` significant digits.

    The curves hold values with at most four decimals; what a metric carries beyond ten
    significant digits is floating-point noise of its arithmetic. Means over trials of such
    values can sit exactly on a rounding edge of the tables (a mean regret of 0.1955 exactly
    on fr-en), where that noise would decide the printed digit; rounded first, every table is
    the same whatever the summation order (and equal to the earlier cache's, which stored the
    metrics at ten significant digits).
    """
    out = frame.copy()
    for c in out.columns:
        if out[c].dtype.kind == "f":
            out[c] = [float(f"{v:.{digits}g}") for v in out[c].to_numpy()]
    return out


def run_metrics(
    method: str,
    task: str,
    trials: int = 100,
    seed: int = 0,
    budget_curves: float = 30,
    tol: float | None = None,
    jobs: int = 1,
    settings: Mapping[str, Any] | None = None,
    read_book: bool = True,
    cache: bool = True,
    folder: str = FOLDER,
) -> pd.DataFrame:
    """Per-trial metrics of one (method, task) run, computed from the run's trials.

    The trials come from the one runner (:func:`nmthpo.engine.fidelity.run_curves`) and its
    cache (one Parquet file per run with a checksummed sidecar, resumable): the book's
    ``results/multifidelity`` when it holds the run (unless ``read_book`` is False: the speed
    benchmark) or under ``make results`` (``NMTHPO_WRITE_RESULTS=1``); otherwise the user
    cache (:func:`nmthpo.studies.grids.run_cache_dir`). With ``cache=False`` the run is
    computed in memory and no cache is read or written (an exercise's variants, which take
    milliseconds and should leave nothing behind). ``folder``: the cache folder (Chapter 9's
    other libraries are cached in ``peers``).
    """
    table = load_curves(task)
    budget = default_budget(table, budget_curves)
    tol = tolerance(task) if tol is None else float(tol)
    spec = CurveRunSpec.of(method, task, budget, seed, settings)
    cache_dir = None
    if cache:
        cache_dir = run_cache_dir(folder, spec, trials) if read_book else user_dir(folder)
    res = run_curves(
        method,
        task,
        trials=trials,
        budget=budget,
        seed=seed,
        settings=settings,
        jobs=jobs,
        cache_dir=cache_dir,
    )
    frame = _significant(trial_metrics(res.frame, table, budget, tol))
    frame.insert(0, "task", task)
    frame.insert(0, "method", method)
    frame["budget"] = budget
    return frame


def _pairs(params: Mapping[str, Any]) -> list[tuple[str, str]]:
    out = [(m, t) for t in params["finetune_tasks"] for m in params["methods"]]
    out += [(m, t) for t in params["scratch_tasks"] for m in params["scratch_methods"]]
    return out


def grid_frame(jobs: int = 1, **overrides: Any) -> pd.DataFrame:
    """Per-trial metrics of every (method, task) of the grid (published parameters unless
    ``overrides`` say otherwise), one frame."""
    p = {**MULTIFIDELITY, **overrides}
    frames = []
    for m, t in _pairs(p):
        tol = tolerance(t, p["bleu_tolerance"], p["ppl_tolerance"])
        frames.append(run_metrics(m, t, p["trials"], p["seed"], p["budget_curves"], tol, jobs))
    return pd.concat(frames, ignore_index=True)


def peer_frame(
    jobs: int = 1,
    trials: int | None = None,
    methods: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Per-trial metrics of Chapter 9's multi-fidelity peers
    (:data:`~nmthpo.studies.grids.MULTIFIDELITY_PEERS`: other libraries' methods, cached in
    ``results/peers``) and of the book's methods they are compared with (Chapter 7's runs), on
    the fine-tuned tasks with Chapter 7's budget, trials and tolerances. ``methods``: a
    subset (default: both lists); a library method needs the ``peers`` extra unless cached."""
    p = MULTIFIDELITY
    n = p["trials"] if trials is None else int(trials)
    book = tuple(MULTIFIDELITY_PEERS["book_methods"])
    chosen = tuple(MULTIFIDELITY_PEERS["methods"]) + book if methods is None else tuple(methods)
    frames = []
    for t in MULTIFIDELITY_PEERS["tasks"] if tasks is None else tasks:
        tol = tolerance(t, p["bleu_tolerance"], p["ppl_tolerance"])
        for m in chosen:
            folder = FOLDER if m in p["methods"] else MULTIFIDELITY_PEERS["folder"]
            frames.append(
                run_metrics(m, t, n, p["seed"], p["budget_curves"], tol, jobs, folder=folder)
            )
    return pd.concat(frames, ignore_index=True)


def compute_grid(trials: int | None = None, jobs: int = 1) -> pd.DataFrame:
    """The published grid (``make results``; ``trials`` shrinks it for a smoke test)."""
    n = MULTIFIDELITY["trials"] if trials is None else min(int(trials), MULTIFIDELITY["trials"])
    return grid_frame(jobs=jobs, trials=n)


# -- the data ------------------------------------------------------------------------------------
def data_summary(tasks: Sequence[str]) -> pd.DataFrame:
    """Configurations, curve lengths, total checkpoints and the budget of each task."""
    rows = []
    for t in tasks:
        table = load_curves(t)
        s = table.summary()
        s["budget (30 mean curves)"] = default_budget(table)
        rows.append(s)
    return pd.DataFrame(rows).set_index("task")


def rank_correlation(
    tasks: Sequence[str], checkpoints: Sequence[int], raw: bool = False
) -> pd.DataFrame:
    """Spearman correlation of the value at checkpoint ``k`` with the final value, per task.

    The value at ``k`` is the best so far (``raw=False``) or the raw value; a curve that ended
    before ``k`` contributes its last value (it is complete).
    """
    rows = []
    for t in tasks:
        table = load_curves(t)
        final = table.final
        for k in checkpoints:
            if k > table.max_len:
                continue
            col = np.minimum(k, table.lengths) - 1
            at = (table.raw if raw else table.best)[np.arange(table.n_rows), col]
            rho = spearmanr(at, final).statistic
            rows.append(
                {
                    "task": t,
                    "checkpoint": int(k),
                    "spearman": float(rho),
                    "curves still running": int((table.lengths > k).sum()),
                }
            )
    return pd.DataFrame(rows)


def sawtooth_table(tasks: Sequence[str], jump: float = 1.2) -> pd.DataFrame:
    """Scratch sets' curve shapes: curves whose raw perplexity jumps up by more than ``jump``
    times the previous checkpoint (a restart), curves with two or more jumps (sawtooth),
    curves that ever exceed perplexity 1000, and curves whose minimum is their first
    checkpoint."""
    rows = []
    for t in tasks:
        table = load_curves(t)
        r = table.raw
        with np.errstate(invalid="ignore"):
            jumps = np.nansum(r[:, 1:] > jump * r[:, :-1], axis=1)
        rows.append(
            {
                "task": t,
                "curves": table.n_rows,
                "with a jump": int((jumps >= 1).sum()),
                "sawtooth (>= 2 jumps)": int((jumps >= 2).sum()),
                "above 1000": int((np.nanmax(r, axis=1) > 1000).sum()),
                "minimum at checkpoint 1": int((table.final == r[:, 0]).sum()),
            }
        )
    return pd.DataFrame(rows).set_index("task")


# -- the results ---------------------------------------------------------------------------------
def summary_table(frame: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Mean final regret with its 95 % interval, mean cost and configurations, and the share
    of trials that came within reach of the best (with the mean checkpoints it took them)."""
    rows = []
    for (t, m), g in frame.groupby(["task", "method"], sort=False):
        est, lo, hi = bootstrap_mean(g["regret"].to_numpy(), seed=seed)
        within = np.isfinite(g["cost_within"].to_numpy())
        rows.append(
            {
                "task": t,
                "method": method_label(m),
                "trials": len(g),
                "budget": int(g["budget"].iloc[0]),
                "regret": est,
                "95% CI low": lo,
                "95% CI high": hi,
                "cost": g["cost"].mean(),
                "configs": g["configs"].mean(),
                "within reach (%)": 100 * within.mean(),
                "checkpoints to reach": g["cost_within"][within].mean() if within.any() else np.nan,
            }
        )
    return pd.DataFrame(rows).round(3).set_index(["task", "method"])


def paired_table(frame: pd.DataFrame, baseline: str = "rs", seed: int = 0) -> pd.DataFrame:
    """``regret(baseline) - regret(method)`` over paired trials (same seed and trial: the same
    random order of configurations), with its 95 % paired-bootstrap interval; positive: the
    method beats ``baseline`` at equal budget; ``finding``: better / worse when the interval
    excludes 0, else tie (our comparison, not a paper claim: no verdict). Tasks run without
    ``baseline`` are left out."""
    rows = []
    for t, g in frame.groupby("task", sort=False):
        base = g[g["method"] == baseline].sort_values("trial")
        if base.empty:  # the task was not run with the baseline
            continue
        for m, h in g[g["method"] != baseline].groupby("method", sort=False):
            h = h.sort_values("trial")
            n = min(len(base), len(h))
            est, lo, hi = paired_difference(
                base["regret"].to_numpy()[:n], h["regret"].to_numpy()[:n], seed=seed
            )
            rows.append(
                {
                    "task": t,
                    "method": method_label(m),
                    "trials": n,
                    f"regret({baseline}) - regret": est,
                    "95% CI low": lo,
                    "95% CI high": hi,
                    "finding": (
                        "n/a"
                        if not (np.isfinite(lo) and np.isfinite(hi))
                        else "better"
                        if lo > 0
                        else "worse"
                        if hi < 0
                        else "tie"
                    ),
                }
            )
    cols = [
        "task",
        "method",
        "trials",
        f"regret({baseline}) - regret",
        "95% CI low",
        "95% CI high",
        "finding",
    ]
    return pd.DataFrame(rows, columns=cols).round(3).set_index(["task", "method"])


def anytime_table(frame: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Mean regret (95 % interval) at each share of the budget, per task and method (long)."""
    cols = [c for c in frame.columns if c.startswith("regret@")]
    rows = []
    for (t, m), g in frame.groupby(["task", "method"], sort=False):
        for c in cols:
            v = g[c].to_numpy()
            ok = np.isfinite(v)
            if ok.mean() < 1:  # some trials have no recommendation yet
                continue
            est, lo, hi = bootstrap_mean(v, seed=seed, n_boot=500)
            rows.append(
                {
                    "task": t,
                    "method": method_label(m),
                    "share of budget": float(c.split("@")[1]),
                    "checkpoints": float(c.split("@")[1]) * g["budget"].iloc[0],
                    "regret": est,
                    "low": lo,
                    "high": hi,
                }
            )
    return pd.DataFrame(rows)


def survival_table(frame: pd.DataFrame, eta: float = 3) -> pd.DataFrame:
    """Share of trials (%, among those that started it) in which the true best reached each
    rung of ``sh`` (eta = 3; :func:`rung_levels`), per task and method: columns ``rung 1``
    ... (the task's rung checkpoints in ``rungs``)."""
    rows = []
    for (t, m), g in frame.groupby(["task", "method"], sort=False):
        table = load_curves(t)
        levels = rung_levels(table.max_len, 1, eta)
        s = survival(g["best_reached"].to_numpy(), table, levels)
        row: dict[str, Any] = {
            "task": t,
            "method": method_label(m),
            "rungs": ", ".join(map(str, levels)),
            "best started": int(s["tried"].iloc[0]),
        }
        for i, share in enumerate(s["share"], start=1):
            row[f"rung {i}"] = round(100 * float(share), 1) if np.isfinite(share) else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def upstream_table(tasks: Sequence[str], fraction: float = 0.75) -> pd.DataFrame:
    """Upstream's schedule on *all* configurations of each task (deterministic but for the
    order of ties): its cuts, cost, the recommendation's regret and rank, and whether the
    true best survived every cut."""
    rows = []
    for t in tasks:
        table = load_curves(t)
        res = run_curves(
            "sh-upstream",
            t,
            trials=1,
            budget=table.total_cost,
            settings={"n_configs": table.n_rows, "fraction": fraction},
        )
        rec = res.recommendations.iloc[0]
        final = table.score(table.final)
        rank = int((final > table.score(rec["final_value"])).sum()) + 1
        levels, sizes = upstream_schedule(table.n_rows, table.max_len, fraction)
        reached = best_reached(res.frame, table)
        rows.append(
            {
                "task": t,
                "configs": table.n_rows,
                "cuts (checkpoint)": ", ".join(map(str, levels[:-1])),
                "survivors": sizes[-1],
                "cost (ckpts)": int(rec["cost"]),
                "share (%)": round(100 * rec["cost"] / table.total_cost, 1),
                "final of pick": round(float(rec["final_value"]), 2),
                "best final": round(table.best_final, 2),
                "regret": round(float(table.regret(rec["final_value"])), 3),
                "rank of pick": rank,
                "best kept": bool(reached[0] >= table.lengths[table.best_rows].max()),
            }
        )
    return pd.DataFrame(rows).set_index("task")
