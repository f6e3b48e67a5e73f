"""Why graph-based SMBO does not beat BO on our tables: the four experiments of Chapter 2.

Zhang & Duh (2020, Section 6.1) report that the best graph-based method (GB) beats the best
GP-BO method on 4 of 6 tasks (ftb). Ours does not (Chapter 2's claims table). This module
tests the explanations, each on the four small tables with paired trials (trial ``t`` of every
arm starts from the same three rows), intervals from :mod:`nmthpo.engine.stats`:

1. **The EIF labelling** (Section 5.3): the authors' code labels one pivot 1 (``gb-eif-m``,
   ``eif_mode="gbopt"``), our earlier reading every tied best row (``"gbopt-ties"``), a
   monotone rescaling of the prediction (``"monotone"``), the paper's literal text
   (``gb-eif-text-m``).
2. **A paper-era BO**: the paper's BO ran through RoBO with George GPs; ``bo-ei-m-mcmc``
   (hyperparameters marginalised by MCMC, :mod:`nmthpo.optimizers.bo_mcmc`) and ``bo-ei-m``
   with rare refits and no restarts (``refit_every=10, restarts=0``) stand for it.
3. **GB-EI-M**: the posterior mean of the Gaussian random field is harmonic, so it never
   exceeds the best label (maximum principle) and EI's choice rests on the posterior standard
   deviation, whose scale ``beta`` the text leaves open; :func:`ei_diagnosis` measures this,
   the arms ``ei_scale`` (``beta / scale^2``) and ``eps`` (the text's ``1 / sigma^2``) vary it.
4. **The k rule** (footnote 12) against k chosen by "initial tuning" read as leave-one-task-out
   tuning (:func:`k_loto`), and the k sweep with intervals (:func:`k_sweep`).

These are our experiments, not claims of the paper: the chapter shows their counts
(:func:`best_pairs`, :func:`loto_pairs` with
:func:`nmthpo.engine.claims.win_count_interval`) as *findings*
(:mod:`nmthpo.studies.zhang_duh.single_objective_claims`), never as verdicts.

The runs are the grids ``gd_*`` of :mod:`nmthpo.studies.grids` (``results/graph_discrepancy``)
plus the Table 3 grid ``single``, ``graph_k`` and ``eif_text`` (their first trials).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from nmthpo.benchmark.tables import load_table
from nmthpo.engine.numbers import fmt, fmt_interval
from nmthpo.engine.stats import bootstrap_mean, paired_difference
from nmthpo.errors import InputKeyError
from nmthpo.studies.zhang_duh.single_objective import (
    GRAPH_K_VALUES,
    graph_settings,
    per_trial_metrics,
)

__all__ = [
    "ARMS",
    "Arm",
    "arm_ftb",
    "arm_intervals",
    "arm_table",
    "best_pairs",
    "ei_diagnosis",
    "k_loto",
    "k_runs",
    "k_sweep",
    "k_table",
    "diagnosis_table",
    "diagnosis_values",
    "discrepancy_values",
    "labelling_change",
    "labelling_values",
    "loto_pairs",
    "loto_values",
    "needle_values",
    "pairs_note",
    "needle_table",
    "paired_table",
]


@dataclass(frozen=True)
class Arm:
    """One arm of the experiments: a registered method with settings, read from a grid."""

    label: str
    experiment: str
    method: str
    settings: Mapping[str, Any] = field(default_factory=dict)
    group: str = ""


#: Every arm, by label (the ``experiment`` is the grid of :mod:`nmthpo.studies.grids`).
ARMS: dict[str, Arm] = {
    a.label: a
    for a in (
        Arm("RS", "single", "rs", group="reference"),
        Arm("BO-EI-M (ours)", "single", "bo-ei-m", group="BO"),
        Arm("BO-EI-R (ours)", "single", "bo-ei-r", group="BO"),
        Arm("BO-EI-M, MCMC (paper-era)", "gd_bo", "bo-ei-m-mcmc", group="BO"),
        Arm(
            "BO-EI-M, refit every 10, no restarts",
            "gd_bo_rare",
            "bo-ei-m",
            {"refit_every": 10, "restarts": 0},
            group="BO",
        ),
        Arm("GB-EI-M", "single", "gb-ei-m", group="GB"),
        Arm("GB-EI-R", "single", "gb-ei-r", group="GB"),
        Arm("GB-EIF-M (authors' code)", "single", "gb-eif-m", group="GB"),
        Arm("GB-EIF-R (authors' code)", "single", "gb-eif-r", group="GB"),
        Arm(
            "GB-EIF-M, all tied best rows 1",
            "gd_ties",
            "gb-eif-m",
            {"eif_mode": "gbopt-ties"},
            group="EIF labels",
        ),
        Arm(
            "GB-EIF-M, monotone scaling",
            "gd_labels",
            "gb-eif-m",
            {"eif_mode": "monotone"},
            group="EIF labels",
        ),
        Arm("GB-EIF-M, literal text", "eif_text", "gb-eif-text-m", group="EIF labels"),
        Arm("GB-EI-M, std x 0.1", "gd_gbei", "gb-ei-m", {"ei_scale": 0.1}, group="GB-EI"),
        Arm("GB-EI-M, std x 0.3", "gd_gbei", "gb-ei-m", {"ei_scale": 0.3}, group="GB-EI"),
        Arm("GB-EI-M, std x 3", "gd_gbei", "gb-ei-m", {"ei_scale": 3.0}, group="GB-EI"),
        Arm("GB-EI-M, 1/sigma^2 = 1", "gd_gbei", "gb-ei-m", {"eps": 1.0}, group="GB-EI"),
    )
}


def _check_arms(labels: Sequence[str]) -> None:
    bad = [a for a in labels if a not in ARMS]
    if bad:
        raise InputKeyError(f"unknown arms {bad}; valid: {', '.join(ARMS)}")


def arm_ftb(
    arms: Sequence[str],
    tasks: Sequence[str],
    trials: int = 20,
    seed: int = 0,
    ties: str = "value",
) -> pd.DataFrame:
    """ftb of every trial of every arm: a long frame (``arm``, ``task``, ``trial``, ``ftb``).

    Each arm's run is read through :func:`nmthpo.studies.grids.run_one` (the book's cache, or
    computed into the user cache), its first ``trials`` trials.
    """
    from nmthpo.studies.grids import run_one

    _check_arms(arms)
    runs = {}
    for label in arms:
        a = ARMS[label]
        for task in tasks:
            f = run_one(a.experiment, a.method, task, trials, seed, settings=dict(a.settings))
            runs[(label, task)] = f.frame[f.frame.trial < trials]
    m = per_trial_metrics(runs, ties=ties)
    return m.rename(columns={"method": "arm"})[["arm", "task", "trial", "ftb"]]


def labelling_change(
    tasks: Sequence[str], trials: int = 100, seed: int = 0, ties: str = "value"
) -> pd.DataFrame:
    """What the authors' tied pivot changed in Table 3: GB-EIF-M with one pivot labelled 1
    (``single``) against every tied best row labelled 1 (``gd_ties``, the earlier default).

    Rows: tasks. Columns: mean ftb and ftc of both (``ties``: all tied best rows 1), the paired
    95 % interval of the ftb difference (pivot minus ties) and the share of trials whose ftb is
    identical (``same ftb``; the two
    labellings differ only at steps where evaluated rows tie at the best BLEU).
    """
    from nmthpo.studies.grids import run_one

    rows, diffs = [], {}
    for task in tasks:
        runs = {
            ("pivot", task): run_one("single", "gb-eif-m", task, trials, seed).frame,
            ("ties", task): run_one(
                "gd_ties", "gb-eif-m", task, trials, seed, settings={"eif_mode": "gbopt-ties"}
            ).frame,
        }
        m = per_trial_metrics({k: v[v.trial < trials] for k, v in runs.items()}, ties=ties)
        a = m[m.method == "pivot"].sort_values("trial")
        b = m[m.method == "ties"].sort_values("trial")
        rec: dict[str, Any] = {"task": task}
        for metric in ("ftb", "ftc"):
            rec[f"{metric} ties"] = fmt(float(b[metric].mean()), "evaluations")
            rec[f"{metric} pivot"] = fmt(float(a[metric].mean()), "evaluations")
        diffs[task] = paired_difference(a["ftb"].to_numpy(float), b["ftb"].to_numpy(float))
        rec["ftb pivot - ties"] = _fmt(*diffs[task])
        rec["same ftb"] = fmt(
            float(np.mean(a["ftb"].to_numpy() == b["ftb"].to_numpy())), "fraction"
        )
        rows.append(rec)
    out = pd.DataFrame(rows).set_index("task")
    out.attrs["ftb pivot - ties"] = diffs
    return out


def labelling_values(change: pd.DataFrame, prefix: str = "ch2.pivot") -> dict[str, str]:
    """The prose's numbers from :func:`labelling_change`: the paired difference pivot - ties
    on zh-en and so-en (``[95% CI]``), and the largest absolute difference elsewhere."""
    diffs: dict[str, tuple[float, float, float]] = change.attrs.get("ftb pivot - ties", {})
    out = {}
    for t in ("zh-en", "so-en"):
        if t in diffs:
            est, lo, hi = diffs[t]
            out[f"{prefix}.{t}"] = fmt_interval(est, lo, hi, "evaluations")
        else:
            out[f"{prefix}.{t}"] = "n/a"
    rest = [abs(d[0]) for t, d in diffs.items() if t not in ("zh-en", "so-en")]
    out[f"{prefix}.others_max"] = fmt(max(rest) if rest else float("nan"), "evaluations")
    return out


def _values(ftb: pd.DataFrame, arm: str, task: str) -> np.ndarray:
    sel = ftb[(ftb.arm == arm) & (ftb.task == task)].sort_values("trial")
    return sel["ftb"].to_numpy(dtype=float)


def _fmt(est: float, lo: float, hi: float) -> str:
    q = "evaluations"
    return f"{fmt(est, q)} [{fmt(lo, q)}, {fmt(hi, q)}]"


def arm_intervals(ftb: pd.DataFrame) -> pd.DataFrame:
    """Mean ftb and its 95 % bootstrap interval per (arm, task): a long frame with the arm's
    ``group`` (reference, BO, GB, EIF labels, GB-EI)."""
    rows = []
    for a in dict.fromkeys(ftb.arm):
        for t in dict.fromkeys(ftb.task):
            est, lo, hi = bootstrap_mean(_values(ftb, a, t))
            rows.append(
                {
                    "arm": a,
                    "group": ARMS[a].group if a in ARMS else "",
                    "task": t,
                    "ftb": est,
                    "low": lo,
                    "high": hi,
                }
            )
    return pd.DataFrame(rows)


def arm_table(ftb: pd.DataFrame) -> pd.DataFrame:
    """Mean ftb with its 95 % bootstrap interval: rows arms, columns tasks (readable text)."""
    iv = arm_intervals(ftb)
    iv["cell"] = [_fmt(r.ftb, r.low, r.high) for r in iv.itertuples()]
    out = iv.pivot(index="arm", columns="task", values="cell")
    out = out.loc[list(dict.fromkeys(ftb.arm)), list(dict.fromkeys(ftb.task))]
    out.columns.name = "mean ftb [95% CI]"
    return out


def paired_table(ftb: pd.DataFrame, reference: str) -> pd.DataFrame:
    """Mean ftb difference to ``reference`` (paired bootstrap interval), rows arms, cols tasks.

    Negative: the arm needs fewer evaluations than the reference. Cells read
    ``diff [low, high]``; an interval that excludes zero is marked with ``*``.
    """
    arms = [a for a in dict.fromkeys(ftb.arm) if a != reference]
    tasks = list(dict.fromkeys(ftb.task))
    out = pd.DataFrame(index=pd.Index(arms, name="arm"), columns=tasks, dtype=object)
    for a in arms:
        for t in tasks:
            est, lo, hi = paired_difference(_values(ftb, a, t), _values(ftb, reference, t))
            star = "*" if lo > 0 or hi < 0 else ""
            out.loc[a, t] = _fmt(est, lo, hi) + star
    out.columns.name = f"ftb minus {reference}"
    return out


def _best(ftb: pd.DataFrame, arms: Sequence[str], task: str) -> str:
    means = {a: _values(ftb, a, task).mean() for a in arms}
    return min(means, key=lambda a: means[a])


def best_pairs(
    ftb: pd.DataFrame, gb_arms: Sequence[str], bo_arms: Sequence[str]
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per task, the paired ftb of the best GB arm and the best BO arm (each best by mean).

    The input of :func:`nmthpo.engine.claims.win_count_interval`: "the best GB beats the best
    BO on k of n tasks", re-counted against any set of BO arms (the paper-era BOs).
    """
    out = {}
    for t in dict.fromkeys(ftb.task):
        gb = [a for a in gb_arms if _values(ftb, a, t).size]
        bo = [a for a in bo_arms if _values(ftb, a, t).size]
        if gb and bo:
            out[str(t)] = (_values(ftb, _best(ftb, gb, t), t), _values(ftb, _best(ftb, bo, t), t))
    return out


def pairs_note(pairs: Mapping[str, tuple[np.ndarray, np.ndarray]], what: str) -> str:
    """``task: difference [95 % CI]`` of every pair (first minus second), for a note."""
    parts = [f"{t}: {_fmt(*paired_difference(a, b))}" for t, (a, b) in pairs.items()]
    return f"{what}, paired 95 % intervals: " + "; ".join(parts)


def ei_diagnosis(
    task: str, trials: int = 20, seed: int = 0, settings: Mapping[str, Any] | None = None
) -> pd.Series:
    """What drives GB-EI-M's choices: replay its cached trials and inspect every step.

    For each step after the initial rows the optimiser is given the recorded rows so far and
    its acquisition is inspected (teacher forcing; the optimiser's own choice is the recorded
    row). Returned shares over all steps of all trials:

    * ``mean above best``: a candidate's posterior mean exceeds the best label (the harmonic
      mean cannot, up to the ghost node's ``eps``);
    * ``pick = max std``: the chosen row is the one with the largest posterior std;
    * ``pick std rank``: mean percentile of the chosen row's std among the candidates;
    * ``pick mean rank``: mean percentile of the chosen row's posterior mean;
    * ``tied maximum``: several candidates share the maximal EI.
    """
    from nmthpo.engine.runner import RunSpec, trial_optimizer
    from nmthpo.optimizers.graph import snap_ties
    from nmthpo.studies.grids import run_one

    sets = dict(settings or {})
    frame = run_one(
        "single" if not sets else "gd_gbei", "gb-ei-m", task, trials, seed, settings=sets
    ).frame
    bleu = load_table(task).bleu
    above, is_max, std_rank, mean_rank, tied = [], [], [], [], []
    for trial in range(trials):
        rows = frame[frame.trial == trial].sort_values("step").row.to_numpy()
        opt, _ = trial_optimizer(RunSpec("gb-ei-m", task, seed=seed, settings=sets), trial)
        for i, r in enumerate(rows):
            if i >= 3:
                cand = ~opt.observed
                mean, std = opt.surrogate.posterior()
                best = float(np.max(opt.ys))
                s = opt.scores()
                s[opt.observed] = np.nan
                s = snap_ties(s, opt.tie_rtol)
                above.append(bool(np.any(mean[cand] > best + 1e-9)))
                is_max.append(bool(std[r] >= std[cand].max()))
                std_rank.append(float(np.mean(std[cand] <= std[r])))
                mean_rank.append(float(np.mean(mean[cand] <= mean[r])))
                tied.append(bool(np.sum(s[cand] == np.nanmax(s)) > 1))
            opt.tell(int(r), float(bleu[r]))
    return pd.Series(
        {
            "steps": len(above),
            "mean above best": np.mean(above),
            "pick = max std": np.mean(is_max),
            "pick std rank": np.mean(std_rank),
            "pick mean rank": np.mean(mean_rank),
            "tied maximum": np.mean(tied),
        },
        name=task,
    )


def needle_table(tasks: Sequence[str], kernel: str = "matern52") -> pd.DataFrame:
    """How well the graph can point at the best rows: their leave-one-out predictions.

    With every other row labelled, harmonic propagation (Eq. 7) predicts row ``i`` as the
    weighted mean of its neighbours' BLEU, ``sum_j W_ij y_j / D_ii`` (the ghost node's ``eps``
    aside). A best row whose neighbours are mediocre -- a *needle* -- is then predicted low,
    and a method that follows the propagated mean reaches it late whatever its acquisition.
    Per task: the best rows, their leave-one-out prediction, its rank among all rows' (1 = the
    highest), the best BLEU and the table's mean BLEU. Graph as in Table 3 (the paper's k rule).
    """
    from nmthpo.engine.runner import RunSpec
    from nmthpo.models.graph import build_graph

    rows = []
    for task in tasks:
        table = load_table(task)
        y = table.bleu
        X = table.encode(str(RunSpec("gb-ei-m", task).encoding))
        W = build_graph(X, kernel=kernel).W
        loo = (W @ y) / W.sum(axis=1)
        for b in np.flatnonzero(y == y.max()):
            rows.append(
                {
                    "task": task,
                    "best row": int(b),
                    "best BLEU": float(y[b]),
                    "leave-one-out prediction": round(float(loo[b]), 2),
                    "rank of that prediction": f"{int((loo > loo[b]).sum()) + 1} of {y.size}",
                    "table mean BLEU": round(float(y.mean()), 2),
                }
            )
    return pd.DataFrame(rows).set_index(["task", "best row"])


def k_runs(
    method: str,
    task: str,
    trials: int,
    seed: int,
    ties: str = "value",
    ks: Sequence[int] = GRAPH_K_VALUES,
) -> dict[int | str, np.ndarray]:
    """Per-trial ftb of ``method`` on ``task`` for every swept k and (key ``"rule"``) for the
    paper's rule (footnote 12): the ``graph_k`` grid and the Table 3 grid ``single``."""
    from nmthpo.studies.grids import run_one

    bleu_runs: dict[tuple[str, str], pd.DataFrame] = {}
    for k in ks:
        f = run_one("graph_k", method, task, trials, seed, settings={"k": k}).frame
        bleu_runs[(str(k), task)] = f[f.trial < trials]
    f = run_one("single", method, task, trials, seed).frame
    bleu_runs[("rule", task)] = f[f.trial < trials]
    m = per_trial_metrics(bleu_runs, ties=ties).sort_values(["method", "trial"])
    out: dict[int | str, np.ndarray] = {}
    for key, g in m.groupby("method", sort=False):
        out[int(key) if key != "rule" else "rule"] = g["ftb"].to_numpy(dtype=float)
    return out


def k_sweep(
    methods: Sequence[str],
    tasks: Sequence[str],
    trials: int = 30,
    seed: int = 0,
    ties: str = "value",
    ks: Sequence[int] = GRAPH_K_VALUES,
) -> pd.DataFrame:
    """Mean ftb with its 95 % interval for each k and for the paper's rule (footnote 12).

    Long frame: ``method``, ``task``, ``k`` (an int, or the rule's k), ``rule`` (bool),
    ``ftb``, ``low``, ``high``.
    """
    rows = []
    for task in tasks:
        rule_k = int(graph_settings([task]).loc[task, "k"])
        for method in methods:
            for key, v in k_runs(method, task, trials, seed, ties, ks).items():
                est, lo, hi = bootstrap_mean(v)
                rows.append(
                    {
                        "method": method,
                        "task": task,
                        "k": rule_k if key == "rule" else key,
                        "rule": key == "rule",
                        "ftb": est,
                        "low": lo,
                        "high": hi,
                    }
                )
    return pd.DataFrame(rows)


def k_table(sweep: pd.DataFrame) -> pd.DataFrame:
    """:func:`k_sweep` for reading: rows (method, task), columns the swept k and the paper's
    rule, cells ``ftb [low, high]`` (the rule's cell names its k)."""
    swept = sorted({int(k) for k, r in zip(sweep.k, sweep.rule, strict=True) if not r})
    cols = [f"k={k}" for k in swept] + ["rule (footnote 12)"]
    out = pd.DataFrame(
        index=pd.MultiIndex.from_frame(sweep[["method", "task"]].drop_duplicates()),
        columns=cols,
        dtype=object,
    )
    for r in sweep.itertuples():
        cell = _fmt(r.ftb, r.low, r.high)
        if r.rule:
            out.loc[(r.method, r.task), cols[-1]] = f"k={r.k}: {cell}"
        else:
            out.loc[(r.method, r.task), f"k={r.k}"] = cell
    out.columns.name = "mean ftb [95% CI]"
    return out.fillna("")


def loto_pairs(
    per: Mapping[str, Mapping[int | str, np.ndarray]], ks: Sequence[int] = GRAPH_K_VALUES
) -> dict[str, tuple[int, np.ndarray, np.ndarray]]:
    """k chosen by leave-one-task-out tuning: per held-out task, ``(k*, ftb with k*, ftb with
    the rule)``.

    ``per`` maps a task to :func:`k_runs`' output. For each held-out task, ``k*`` minimises the
    mean over the *other* tasks of mean ftb / rows (so that no table dominates). With fewer
    than two tasks nothing can be held out and the result is empty.
    """
    tasks = list(per)
    out: dict[str, tuple[int, np.ndarray, np.ndarray]] = {}
    if len(tasks) < 2:
        return out
    for held in tasks:
        others = [t for t in tasks if t != held]
        score = {
            k: float(np.mean([per[t][k].mean() / load_table(t).n_rows for t in others])) for k in ks
        }
        k_star = min(score, key=lambda k: score[k])
        out[held] = (int(k_star), per[held][k_star], per[held]["rule"])
    return out


def k_loto(
    methods: Sequence[str],
    tasks: Sequence[str],
    trials: int = 30,
    seed: int = 0,
    ties: str = "value",
    ks: Sequence[int] = GRAPH_K_VALUES,
) -> pd.DataFrame:
    """k chosen by "initial tuning" read as leave-one-task-out tuning, against the k rule.

    For each held-out task (:func:`loto_pairs`) the held-out task is run with ``k*`` and
    compared with the paper's rule by the paired interval of the ftb difference (negative:
    tuning helps). ``clear`` says on which side of zero the interval lies (``tie``: it
    contains zero). Empty with fewer than two tasks (nothing to tune on).
    """
    rows = []
    for method in methods:
        per = {t: k_runs(method, t, trials, seed, ties, ks) for t in tasks}
        for held, (k_star, tuned, rule) in loto_pairs(per, ks).items():
            est, lo, hi = paired_difference(tuned, rule)
            rows.append(
                {
                    "method": method,
                    "held-out task": held,
                    "tuned k": k_star,
                    "rule k": int(graph_settings([held]).loc[held, "k"]),
                    "ftb, tuned k": fmt(float(tuned.mean()), "evaluations"),
                    "ftb, rule": fmt(float(rule.mean()), "evaluations"),
                    "difference [95% CI]": _fmt(est, lo, hi),
                    "clear": "better" if hi < 0 else "worse" if lo > 0 else "tie",
                }
            )
    cols = [
        "method",
        "held-out task",
        "tuned k",
        "rule k",
        "ftb, tuned k",
        "ftb, rule",
        "difference [95% CI]",
        "clear",
    ]
    return pd.DataFrame(rows, columns=cols).set_index(["method", "held-out task"])


# -- values for the chapter's prose ------------------------------------------------------------
def _mean(ftb: pd.DataFrame, arm: str, task: str) -> float:
    v = _values(ftb, arm, task)
    return float(v.mean()) if v.size else float("nan")


def _tasks_text(tasks: Sequence[str]) -> str:
    from nmthpo.engine.numbers import join

    return join(list(tasks)) if tasks else "none"


def _sides(pairs: Mapping[str, tuple[np.ndarray, np.ndarray]]) -> dict[str, list[str]]:
    """Tasks where the first of each pair is lower by mean (``lead``), and where the paired
    interval of the difference lies below / above zero (``clear win`` / ``clear loss``)."""
    out: dict[str, list[str]] = {"lead": [], "clear win": [], "clear loss": [], "tie": []}
    for t, (a, b) in pairs.items():
        est, lo, hi = paired_difference(a, b)
        if est < 0:
            out["lead"].append(t)
        out["clear win" if hi < 0 else "clear loss" if lo > 0 else "tie"].append(t)
    return out


def discrepancy_values(
    ftb: pd.DataFrame,
    six: pd.DataFrame,
    bo_sets: Mapping[str, Sequence[str]],
    gb_arms: Sequence[str],
    prefix: str = "ch2.gd",
) -> dict[str, str]:
    """The numbers the chapter's prose quotes from the discrepancy arms, formatted by
    :func:`~nmthpo.engine.numbers.fmt` (``n/a`` where the run lacks them).

    ``ftb``: :func:`arm_ftb` on the small tables (every arm); ``six``: on every task (the GB
    arms and the BO arms of ``bo_sets["ours"]`` and ``bo_sets["mcmc"]``).
    """
    q = "evaluations"
    tasks = [str(t) for t in dict.fromkeys(ftb.task)]
    out: dict[str, str] = {}
    authors, ties = "GB-EIF-M (authors' code)", "GB-EIF-M, all tied best rows 1"
    diffs = [abs(_mean(ftb, ties, t) - _mean(ftb, authors, t)) for t in tasks]
    out[f"{prefix}.ties_max"] = fmt(max(diffs) if diffs else float("nan"), q)
    for t in ("zh-en", "ru-en", "ja-en", "en-ja"):
        out[f"{prefix}.authors.{t}"] = fmt(_mean(ftb, authors, t), q)
        for arm, key in (("RS", "rs"), ("GB-EI-M", "gbei"), ("BO-EI-M (ours)", "bo")):
            out[f"{prefix}.{key}.{t}"] = fmt(_mean(ftb, arm, t), q)
    for arm, key in (
        ("GB-EIF-M, monotone scaling", "monotone"),
        ("GB-EIF-M, literal text", "literal"),
    ):
        out[f"{prefix}.{key}_slower_than_rs"] = _tasks_text(
            [t for t in tasks if _mean(ftb, arm, t) > _mean(ftb, "RS", t)]
        )
    for name, bo in bo_sets.items():
        side = _sides(best_pairs(ftb, gb_arms, bo))
        out[f"{prefix}.lead.{name}"] = _tasks_text(side["lead"])
        out[f"{prefix}.clearwin.{name}"] = _tasks_text(side["clear win"])
        out[f"{prefix}.clearloss.{name}"] = _tasks_text(side["clear loss"])
    # the paper-era BO against ours, per small table
    mcmc, ours = "BO-EI-M, MCMC (paper-era)", "BO-EI-M (ours)"
    slower, clear = [], []
    for t in tasks:
        a, b = _values(ftb, mcmc, t), _values(ftb, ours, t)
        if a.size and b.size:
            est, lo, _ = paired_difference(a, b)
            if est > 0:
                slower.append((t, est))
            if lo > 0:
                clear.append(t)
    out[f"{prefix}.mcmc_slower_tasks"] = _tasks_text([t for t, _ in slower])
    out[f"{prefix}.mcmc_slower_min"] = fmt(min((d for _, d in slower), default=float("nan")), q)
    out[f"{prefix}.mcmc_slower_max"] = fmt(max((d for _, d in slower), default=float("nan")), q)
    out[f"{prefix}.mcmc_clearly_slower"] = _tasks_text(clear)
    # the six tables against the paper-era BO
    pairs6 = best_pairs(six, gb_arms, bo_sets["mcmc"]) if len(six) else {}
    side6 = _sides(pairs6)
    for k in ("clear win", "tie", "clear loss"):
        out[f"{prefix}.six.{k.replace(' ', '_')}"] = str(len(side6[k]))
        out[f"{prefix}.six.{k.replace(' ', '_')}_tasks"] = _tasks_text(side6[k])
    for t in ("sw-en", "so-en"):
        out[f"{prefix}.mcmc.{t}"] = fmt(_mean(six, mcmc, t), q)
        out[f"{prefix}.ours.{t}"] = fmt(_mean(six, ours, t), q)
        d = paired_difference(*pairs6[t])[0] if t in pairs6 else float("nan")
        out[f"{prefix}.gb_minus_mcmc.{t}"] = fmt(d, q)
    # GB-EI-M's variants on zh-en
    variants = [a for a, arm in ARMS.items() if arm.group == "GB-EI"]
    shifts = [abs(_mean(ftb, a, "zh-en") - _mean(ftb, "GB-EI-M", "zh-en")) for a in variants]
    out[f"{prefix}.gbei_max_shift_zhen"] = fmt(max(shifts) if shifts else float("nan"), q)
    out[f"{prefix}.gbei_variants_above_rs_zhen"] = str(
        all(_mean(ftb, a, "zh-en") > _mean(ftb, "RS", "zh-en") for a in variants)
    ).lower()
    # the exercise: fitted rarely against ours on ru-en
    rare = "BO-EI-M, refit every 10, no restarts"
    a, b = _values(ftb, rare, "ru-en"), _values(ftb, ours, "ru-en")
    out[f"{prefix}.rare.ru-en"] = fmt(_mean(ftb, rare, "ru-en"), q)
    out[f"{prefix}.rare_minus_ours.ru-en"] = (
        fmt_interval(*paired_difference(a, b), quantity=q) if a.size and b.size else "n/a"
    )
    return out


def diagnosis_table(diag: pd.DataFrame) -> pd.DataFrame:
    """:func:`ei_diagnosis` of several tasks (columns) for reading: steps as counts, shares
    by :func:`~nmthpo.engine.numbers.fmt`."""
    out = diag.astype(object).copy()
    for row in out.index:
        q = "count" if row == "steps" else "fraction"
        out.loc[row] = [fmt(float(v), q) for v in diag.loc[row]]
    return out


def diagnosis_values(diag: pd.DataFrame, prefix: str = "ch2.gd") -> dict[str, str]:
    """The range over tasks of the top share of candidates in which GB-EI-M's pick's posterior
    mean sits (``1 - pick mean rank``, as a percentage) and of ``pick = max std``."""
    if diag.empty:
        return {
            f"{prefix}.pick_top_min": "n/a",
            f"{prefix}.pick_top_max": "n/a",
            f"{prefix}.pick_maxstd_max": "n/a",
        }
    top = 100 * (1 - diag.loc["pick mean rank"].astype(float))
    return {
        f"{prefix}.pick_top_min": fmt(float(top.min()), "percent"),
        f"{prefix}.pick_top_max": fmt(float(top.max()), "percent"),
        f"{prefix}.pick_maxstd_max": fmt(100 * float(diag.loc["pick = max std"].max()), "percent"),
    }


def needle_values(needles: pd.DataFrame, prefix: str = "ch2.gd") -> dict[str, str]:
    """zh-en's best rows' leave-one-out predictions and ranks, and ja-en's best row's rank."""
    out = {
        f"{prefix}.zhen_best_bleu": "n/a",
        f"{prefix}.zhen_loo_min": "n/a",
        f"{prefix}.zhen_loo_max": "n/a",
        f"{prefix}.zhen_rank_min": "n/a",
        f"{prefix}.zhen_rank_max": "n/a",
        f"{prefix}.zhen_rows": "n/a",
        f"{prefix}.zhen_mean_bleu": "n/a",
        f"{prefix}.jaen_rank": "n/a",
    }
    tasks = needles.index.get_level_values("task")
    if "zh-en" in tasks:
        z = needles.loc["zh-en"]
        ranks = [int(str(r).split(" of ")[0]) for r in z["rank of that prediction"]]
        out.update(
            {
                f"{prefix}.zhen_best_bleu": fmt(float(z["best BLEU"].iloc[0]), "bleu"),
                f"{prefix}.zhen_loo_min": fmt(float(z["leave-one-out prediction"].min()), "bleu"),
                f"{prefix}.zhen_loo_max": fmt(float(z["leave-one-out prediction"].max()), "bleu"),
                f"{prefix}.zhen_rank_min": str(min(ranks)),
                f"{prefix}.zhen_rank_max": str(max(ranks)),
                f"{prefix}.zhen_rows": str(z["rank of that prediction"].iloc[0]).split(" of ")[1],
                f"{prefix}.zhen_mean_bleu": fmt(float(z["table mean BLEU"].iloc[0]), "bleu"),
            }
        )
    if "ja-en" in tasks:
        out[f"{prefix}.jaen_rank"] = str(
            needles.loc["ja-en"]["rank of that prediction"].iloc[0]
        ).split(" of ")[0]
    return out


def loto_values(
    loto: pd.DataFrame | None, sweep: pd.DataFrame | None, prefix: str = "ch2.k"
) -> dict[str, str]:
    """What the chapter quotes from the leave-one-task-out table and the k sweep."""
    out = {
        f"{prefix}.gbei_better": "n/a",
        f"{prefix}.gbei_worse_tasks": "n/a",
        f"{prefix}.gbei_common_k": "n/a",
        f"{prefix}.gbei_max_gain": "n/a",
        f"{prefix}.gbei_tuned_enja": "n/a",
        f"{prefix}.gbeif_better": "n/a",
        f"{prefix}.gbei_zhen_k40": "n/a",
        f"{prefix}.n_tables": "n/a",
    }
    if loto is None or loto.empty:
        return out
    methods = set(loto.index.get_level_values("method"))
    if "gb-ei-m" in methods:
        g = loto.loc["gb-ei-m"]
        gains = [float(s.split(" ")[0]) for s in g["difference [95% CI]"]]
        out.update(
            {
                f"{prefix}.gbei_better": str(int((g["clear"] == "better").sum())),
                f"{prefix}.gbei_worse_tasks": _tasks_text(list(g.index[g["clear"] == "worse"])),
                f"{prefix}.gbei_common_k": str(int(g["tuned k"].mode().iloc[0])),
                f"{prefix}.gbei_max_gain": fmt(-min(gains), "evaluations"),
                f"{prefix}.n_tables": str(len(g)),
            }
        )
        if "en-ja" in g.index:
            out[f"{prefix}.gbei_tuned_enja"] = str(g.loc["en-ja", "ftb, tuned k"])
    if "gb-eif-m" in methods:
        out[f"{prefix}.gbeif_better"] = str(int((loto.loc["gb-eif-m"]["clear"] == "better").sum()))
    if sweep is not None and len(sweep):
        sel = sweep[
            (sweep.method == "gb-ei-m") & (sweep.task == "zh-en") & (sweep.k == 40) & ~sweep.rule
        ]
        if len(sel):
            out[f"{prefix}.gbei_zhen_k40"] = fmt(float(sel["ftb"].iloc[0]), "evaluations")
    return out
