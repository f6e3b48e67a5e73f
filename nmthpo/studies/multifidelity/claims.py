"""Chapter 7's records: multi-fidelity HPO on the NMTLC learning curves (Zhang & Duh 2024).

The paper itself is not among the texts this book reproduces, and the chapter quotes no
result of it: it uses the NMTLC curves and the authors' halving schedule (``sh-upstream``) as
a benchmark and a method. The one statement of the authors the chapter relies on and checks is
the definition of the curves' optimal values in their data release (:data:`CLAIMS`:
``perplexity_optimal`` is "the lowest perplexity obtained on the development set",
``bleu_optimal`` the configuration's optimal BLEU): exact, counted over every record of the
run's tasks. The chapter's comparisons are our own :data:`FINDINGS` -- shown with their 95 %
interval, never given a verdict and never counted as reproductions:

* successive halving (``sh``) against full-fidelity random search (``rs``) at equal cost, per
  task (the paired difference of final regrets, trial ``t`` of both drawing the same random
  order of configurations) and as a count of tasks
  (:func:`~nmthpo.engine.claims.win_count_interval`,
  the bootstrap interval of the count);
* every halving method against ``rs`` (a count of (method, task) pairs);
* upstream's schedule at the chapter's budget against ``rs``, and on all configurations (does
  the best configuration survive every cut? exact: one deterministic run per task).

:func:`evidence_for` wraps what the notebook computed; :func:`published_evidence` reads the
book's cache (``results/multifidelity``) with the published parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from nmthpo.engine.claims import (
    AllOf,
    Claim,
    Covers,
    Estimate,
    Finding,
    Needs,
    Scope,
    win_count_interval,
)
from nmthpo.engine.stats import paired_difference
from nmthpo.studies.published import PUBLISHED

__all__ = [
    "CHAPTER",
    "CLAIMS",
    "FINDINGS",
    "HALVING",
    "Evidence",
    "evidence_for",
    "published_evidence",
    "scope_for",
]

CHAPTER = "07_multifidelity"
#: The methods that stop configurations early (all but ``rs`` and ``sh-upstream``).
HALVING: tuple[str, ...] = (
    "sh",
    "hb",
    "asha",
    "bohb",
    "optuna-pruner:SuccessiveHalvingPruner",
    "optuna-pruner:HyperbandPruner",
    "optuna-pruner:MedianPruner",
)


@dataclass(frozen=True)
class Evidence:
    """What Chapter 7's findings read: the per-trial frame of the grid
    (:func:`nmthpo.studies.multifidelity.study.grid_frame`) and, when computed,
    :func:`nmthpo.studies.multifidelity.study.upstream_table`."""

    frame: pd.DataFrame
    upstream: pd.DataFrame | None = None
    seed: int = 0
    tasks: tuple[str, ...] = ()


def _regrets(ev: Evidence, method: str, task: str) -> np.ndarray:
    g = ev.frame[(ev.frame["method"] == method) & (ev.frame["task"] == task)]
    return g.sort_values("trial")["regret"].to_numpy(dtype=float)


def _pairs(
    ev: Evidence, a: str, b: str, tasks: Sequence[str] | None = None
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``{task: (regret of a, regret of b)}`` over paired trials, for tasks that ran both."""
    out = {}
    for t in dict.fromkeys(ev.frame["task"]) if tasks is None else tasks:
        x, y = _regrets(ev, a, t), _regrets(ev, b, t)
        n = min(x.size, y.size)
        if n:
            out[str(t)] = (x[:n], y[:n])
    return out


def _difference(task: str) -> Callable[[Evidence], Estimate]:
    def stat(ev: Evidence) -> Estimate:
        pair = _pairs(ev, "rs", "sh", [task]).get(task)
        if pair is None:
            return Estimate(float("nan"), note=f"rs or sh was not run on {task}")
        est, lo, hi = paired_difference(pair[0], pair[1], seed=ev.seed)
        budget = int(ev.frame.loc[ev.frame["task"] == task, "budget"].iloc[0])
        unit = "BLEU" if task.startswith("lc-finetune") else "perplexity"
        return Estimate(
            est,
            lo,
            hi,
            quantity="auto",
            note=f"regret(rs) - regret(sh) in {unit}, {pair[0].size} paired trials, "
            f"{budget} checkpoints; paired bootstrap; above 0: sh is better",
        )

    return stat


def _sh_wins(kind: str) -> Callable[[Evidence], Estimate]:
    def stat(ev: Evidence) -> Estimate:
        tasks = [t for t in dict.fromkeys(ev.frame["task"]) if str(t).startswith(kind)]
        est = win_count_interval(_pairs(ev, "sh", "rs", tasks), seed=ev.seed)
        return Estimate(
            est.value,
            est.low,
            est.high,
            text=f"{est.text} tasks",
            note="tasks on which sh's mean final regret is below rs's; " + est.note,
            quantity="count",
        )

    return stat


def _halving_wins(ev: Evidence) -> Estimate:
    pairs = {}
    for m in HALVING:
        for t, p in _pairs(ev, m, "rs").items():
            pairs[f"{m} on {t}"] = p
    est = win_count_interval(pairs, seed=ev.seed)
    return Estimate(
        est.value,
        est.low,
        est.high,
        text=f"{est.text} (method, task) pairs",
        note="pairs in which the halving method's mean final regret is below rs's; " + est.note,
        quantity="count",
    )


def _upstream_loses(ev: Evidence) -> Estimate:
    est = win_count_interval(_pairs(ev, "rs", "sh-upstream"), seed=ev.seed)
    return Estimate(
        est.value,
        est.low,
        est.high,
        text=f"{est.text} tasks",
        note="tasks on which rs's mean final regret is below sh-upstream's at the "
        "chapter's budget; " + est.note,
        quantity="count",
    )


def _upstream_keeps_best(ev: Evidence) -> Estimate:
    if ev.upstream is None or ev.upstream.empty:
        return Estimate(float("nan"), note="upstream's schedule was not run on all configurations")
    kept = float(ev.upstream["best kept"].sum())
    share = ev.upstream["share (%)"]
    return Estimate(
        kept,
        kept,
        kept,
        text=f"{int(kept)} of {len(ev.upstream)} tasks",
        quantity="count",
        note=(
            "exact: one deterministic run per task, so the interval is the count; "
            f"cost {share.min():g}-{share.max():g} % of training every curve"
        ),
    )


def _optimal_fields(ev: Evidence) -> Estimate:
    """Share of the run's records whose optimal field equals the best of their curve."""
    from nmthpo.data.nmtlc import load_nmtlc

    recs = load_nmtlc()
    recs = recs[recs["task_name"].isin(ev.tasks or tuple(dict.fromkeys(ev.frame["task"])))]
    parts = {}
    for field, curve, best in (
        ("perplexity_optimal", "perplexity_curve", min),
        ("bleu_optimal", "bleu_curve", max),
    ):
        have = recs[recs[curve].notna()]
        if have.empty:
            continue
        ok = [
            bool(np.isclose(best(c), v, rtol=0.0, atol=1e-9))
            for c, v in zip(have[curve], have[field], strict=True)
        ]
        share = float(np.mean(ok))
        parts[field] = Estimate(
            share, share, share, quantity="fraction", text=f"{sum(ok)} of {len(ok)} records"
        )
    if not parts:
        return Estimate(float("nan"), note="no record of the run's tasks")
    worst = min(parts, key=lambda k: parts[k].value)
    w = parts[worst]
    return Estimate(
        w.value,
        w.low,
        w.high,
        parts=parts,
        quantity="fraction",
        text="; ".join(f"{k}: {e.text}" for k, e in parts.items()),
        note="exact: counted over every record of the run's tasks (no sampling), "
        f"so the interval is the share; interval columns: {worst}",
    )


CLAIMS: tuple[Claim, ...] = (
    Claim(
        id="zd24.data.optimal-fields",
        paper="zhang-duh-2024",
        where="NMTLC data release (README of the dataset)",
        statement="'perplexity_optimal': the lowest perplexity obtained on the development "
        "set; 'bleu_optimal': the optimal BLEU of the configuration",
        paper_value="every record",
        statistic=_optimal_fields,
        rule=AllOf({"perplexity_optimal": Covers(1.0), "bleu_optimal": Covers(1.0)}),
        yardstick="a definition holds for every record: the share of records whose field "
        "equals the minimum (maximum) of their curve must be 1; exact, counted",
        needs=Needs(n_tasks=1, trials=0),
        chapter=CHAPTER,
        explanation="Chapter 7, 'The data': the best-so-far value at the last checkpoint is "
        "each configuration's final result",
    ),
)

_TASKS = tuple(PUBLISHED[CHAPTER]["finetune_tasks"]) + tuple(PUBLISHED[CHAPTER]["scratch_tasks"])

FINDINGS: tuple[Finding, ...] = (
    Finding(
        id="mf.sh-beats-rs.finetune",
        chapter=CHAPTER,
        statement="successive halving has a lower final regret than full-fidelity random "
        "search at equal cost: fine-tuned tasks",
        statistic=_sh_wins("lc-finetune"),
        needs=Needs(methods=("rs", "sh")),
    ),
    Finding(
        id="mf.sh-beats-rs.scratch",
        chapter=CHAPTER,
        statement="successive halving has a lower final regret than full-fidelity random "
        "search at equal cost: scratch sets",
        statistic=_sh_wins("lc-scratch"),
        needs=Needs(methods=("rs", "sh")),
    ),
    *(
        Finding(
            id=f"mf.sh-vs-rs.{t.removeprefix('lc-')}",
            chapter=CHAPTER,
            statement=f"{t}: regret(rs) - regret(sh) at equal cost",
            statistic=_difference(t),
            needs=Needs(tasks=(t,), methods=("rs", "sh")),
        )
        for t in _TASKS
    ),
    Finding(
        id="mf.halving-beats-rs",
        chapter=CHAPTER,
        statement="every halving method (sh, hb, asha, bohb, Optuna's pruners) has a lower "
        "final regret than random search on every task",
        statistic=_halving_wins,
        needs=Needs(methods=("rs",)),
    ),
    Finding(
        id="mf.upstream-budget",
        chapter=CHAPTER,
        statement="at the budget of 30 curves, random search has a lower final regret "
        "than upstream's schedule",
        statistic=_upstream_loses,
        needs=Needs(methods=("rs", "sh-upstream")),
    ),
    Finding(
        id="mf.upstream-all",
        chapter=CHAPTER,
        statement="upstream's schedule on all configurations keeps the best configuration "
        "through every cut and recommends it",
        statistic=_upstream_keeps_best,
        needs=Needs(trials=0),
    ),
)


def evidence_for(
    frame: pd.DataFrame,
    upstream: pd.DataFrame | None = None,
    seed: int = 0,
    tasks: Sequence[str] = (),
) -> Evidence:
    """The chapter's evidence from what the notebook computed (``tasks``: the run's tasks;
    by default those of ``frame``)."""
    return Evidence(frame, upstream, int(seed), tuple(tasks))


def scope_for(
    finetune_tasks: Sequence[str],
    scratch_tasks: Sequence[str],
    methods: Sequence[str],
    scratch_methods: Sequence[str],
    trials: int,
) -> Scope:
    """What a run of the chapter holds (methods: those run on any of its tasks; a finding
    whose methods miss a task leaves that task out)."""
    run = (list(methods) if finetune_tasks else []) + (
        list(scratch_methods) if scratch_tasks else []
    )
    return Scope(
        tasks=tuple(finetune_tasks) + tuple(scratch_tasks),
        methods=tuple(dict.fromkeys(run)),
        trials=int(trials),
    )


def published_evidence() -> tuple[Evidence, Scope]:
    """The evidence and scope of the published chapter, from the book's cache."""
    from nmthpo.studies.multifidelity import study as mf

    p: dict[str, Any] = PUBLISHED[CHAPTER]
    frame = mf.grid_frame(
        **{
            k: p[k]
            for k in (
                "finetune_tasks",
                "scratch_tasks",
                "methods",
                "scratch_methods",
                "trials",
                "seed",
                "budget_curves",
                "bleu_tolerance",
                "ppl_tolerance",
            )
        }
    )
    upstream = mf.upstream_table(p["finetune_tasks"] + p["scratch_tasks"])
    return (
        evidence_for(frame, upstream, p["seed"], p["finetune_tasks"] + p["scratch_tasks"]),
        scope_for(
            p["finetune_tasks"], p["scratch_tasks"], p["methods"], p["scratch_methods"], p["trials"]
        ),
    )
