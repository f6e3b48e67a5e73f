"""Chapter 4's experimental designs (Li et al. 2022, Section 5.1): which sources each target gets.

* the *static* setting (:func:`static_experiment`): every target in turn, the other tasks of its
  family as sources (leave one out), or a fixed random subset of them (:func:`subset_sources`,
  the paper's "few sources", Figure 3);
* the *dynamic* setting (:func:`dynamic_experiment`, Section 5.1 (b)): tasks arrive in an order
  and task ``i`` uses tasks ``1..i-1`` as sources.

Each design is a list of :class:`~nmthpo.engine.runner.RunSpec` with source tasks that the one
runner (:func:`~nmthpo.engine.runner.run_specs`) runs in one worker pool.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from nmthpo.benchmark.tables import NMTHPO_TASKS, TASKS, check_task
from nmthpo.engine.runner import TRANSFER_BUDGET, RunSpec, default_sources, run_specs

__all__ = ["dynamic_experiment", "static_experiment", "subset_sources"]


def subset_sources(target: str, n_sources: int, seed: int = 0) -> tuple[str, ...]:
    """A fixed random subset of ``n_sources`` of the other tasks (the few-sources setting).

    Drawn by ``default_rng([seed, 5, task_code(target)])`` and returned in registry order, so a
    target keeps its subset across methods and repetitions.
    """
    pool = default_sources(target)
    if not 1 <= n_sources <= len(pool):
        raise ValueError(
            f"n_sources must be between 1 and {len(pool)} for {target}, got {n_sources}"
        )
    rng = np.random.default_rng([seed, 5, TASKS.index(target)])
    pick = set(rng.choice(len(pool), size=n_sources, replace=False).tolist())
    return tuple(t for i, t in enumerate(pool) if i in pick)


def static_experiment(
    methods: Sequence[str],
    targets: Sequence[str] = NMTHPO_TASKS,
    n_sources: int | None = None,
    n_source: int = 50,
    budget: int = TRANSFER_BUDGET,
    repeats: int = 30,
    seed: int = 0,
    jobs: int = 1,
    cache_dir: str | Path | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """The static (leave-one-out) setting: every target in turn, the others as sources.

    ``n_sources`` restricts each target to a fixed random subset of that many sources
    (:func:`subset_sources`; the paper's N_task = 5 vs 29). Returns the concatenated tidy
    frames of every (method, target).
    """
    specs = []
    for t in targets:
        srcs = default_sources(t) if n_sources is None else subset_sources(t, n_sources, seed)
        specs += [
            RunSpec(m, t, seed=seed, budget=budget, sources=srcs, n_source=n_source)
            for m in methods
        ]
    res = run_specs(specs, repeats, jobs, cache_dir, progress)
    return pd.concat([r.frame for r in res], ignore_index=True)


def dynamic_experiment(
    methods: Sequence[str],
    order: Sequence[str] = NMTHPO_TASKS,
    n_source: int = 50,
    budget: int = TRANSFER_BUDGET,
    repeats: int = 30,
    seed: int = 0,
    jobs: int = 1,
    cache_dir: str | Path | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """The dynamic setting (Section 5.1 (b)): tasks arrive in ``order``; task ``i`` uses tasks
    ``1..i-1`` as sources. The first task has no source (every transfer method would be I-GP)
    and is skipped. Adds a column ``position`` (2 for the second task, ...).
    """
    order = tuple(order)
    for t in order:
        check_task(t)
    if len(set(order)) != len(order) or len(order) < 2:
        raise ValueError(f"order must list at least two distinct tasks; got {list(order)}")
    specs = [
        RunSpec(m, order[i], seed=seed, budget=budget, sources=order[:i], n_source=n_source)
        for i in range(1, len(order))
        for m in methods
    ]
    res = run_specs(specs, repeats, jobs, cache_dir, progress)
    frames = []
    for r in res:
        f = r.frame.copy()
        f["position"] = order.index(r.spec.task) + 1
        frames.append(f)
    return pd.concat(frames, ignore_index=True)
