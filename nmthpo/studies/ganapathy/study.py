"""Ganapathy (2020) Tables 2-4: the GA and the random baseline on shared initial populations.

:func:`ga_study` runs, for each initial population size and trial, ``iterations`` GA iterations
(:func:`nmthpo.studies.ganapathy.simulation.ga_count`) and baseline draws
(:func:`nmthpo.studies.ganapathy.baseline.baseline_counts`) from the same initial populations;
:class:`GAStudy` holds the per-iteration counts and summarises them as the paper's tables,
beside the paper's values (:data:`PAPER_GA`, :data:`PAPER_BASELINE`, :data:`PAPER_DIFFERENCE`
and the per-trial :data:`PAPER_GA_TRIALS`, :data:`PAPER_BASELINE_TRIALS`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from math import sqrt
from typing import Any

import numpy as np
import pandas as pd

from nmthpo.optimizers.genetic_operators import GeneSpace
from nmthpo.studies.ganapathy.baseline import baseline_counts
from nmthpo.studies.ganapathy.simulation import GARules, Uniforms, ga_count

__all__ = [
    "FAIR_RULES",
    "PAPER_BASELINE",
    "PAPER_BASELINE_TRIALS",
    "PAPER_COUNTS",
    "PAPER_DIFFERENCE",
    "PAPER_GA",
    "PAPER_GA_TRIALS",
    "PAPER_ITERATIONS",
    "GAStudy",
    "StudyRules",
    "ga_studies",
    "ga_study",
    "initial_populations",
]

#: The paper's results (Ganapathy 2020, Tables 2-4): initial population size -> value.
PAPER_GA: dict[int, float] = {5: 20.071, 10: 20.714, 15: 23.794, 20: 27.614, 25: 31.463}
PAPER_BASELINE: dict[int, float] = {5: 21.425, 10: 23.116, 15: 25.671, 20: 28.330, 25: 31.598}
PAPER_DIFFERENCE: dict[int, float] = {5: 1.354, 10: 2.402, 15: 1.877, 20: 0.716, 25: 0.135}
#: Counts behind each of the paper's averages: 3 trials of 1000 iterations (Section 4).
PAPER_ITERATIONS = 1000
PAPER_COUNTS = 3 * PAPER_ITERATIONS
#: Per-trial values of Tables 2 and 3 (trials 1-3).
PAPER_GA_TRIALS: dict[int, tuple[float, float, float]] = {
    5: (20.056, 19.91, 20.247),
    10: (21.011, 20.739, 20.392),
    15: (23.91, 23.933, 23.54),
    20: (27.555, 28.019, 27.267),
    25: (31.475, 30.816, 32.099),
}
PAPER_BASELINE_TRIALS: dict[int, tuple[float, float, float]] = {
    5: (20.435, 21.949, 21.891),
    10: (23.513, 22.545, 23.29),
    15: (26.056, 25.611, 25.345),
    20: (28.332, 28.292, 28.365),
    25: (31.857, 30.819, 32.117),
}


@dataclass(frozen=True)
class StudyRules:
    """Every rule of the study (the reproduced paper setting by default)."""

    target: float = 16.0
    init_replacement: bool = True
    baseline_replacement: bool = True
    ga: GARules = field(default_factory=GARules)

    def as_dict(self) -> dict[str, Any]:
        return {**{k: v for k, v in asdict(self).items() if k != "ga"}, **asdict(self.ga)}


#: The fair count of Section 5's open question: only distinct table rows count (initial rows
#: distinct, no re-draws, offspring not in the table free, new existing mutants count).
FAIR_RULES: dict[str, Any] = {
    "init_replacement": False,
    "baseline_replacement": False,
    "count_invalid": False,
    "count_mutants": "new",
    "check_initial": True,
}


@dataclass
class GAStudy:
    """Per-iteration counts of one study and its summaries (Tables 2-4)."""

    rules: StudyRules
    init_pops: tuple[int, ...]
    ga_counts: dict[int, np.ndarray]  # m -> (trials, iterations)
    baseline_counts: dict[int, np.ndarray]

    def per_trial(self, which: str) -> pd.DataFrame:
        """Trial averages: a row per initial population size, a column per trial."""
        counts = self.ga_counts if which == "ga" else self.baseline_counts
        return pd.DataFrame(
            {
                f"trial {t + 1}": [counts[m][t].mean() for m in self.init_pops]
                for t in range(counts[self.init_pops[0]].shape[0])
            },
            index=pd.Index(self.init_pops, name="init_pop"),
        )

    def average(self, which: str) -> pd.Series:
        """Average over all trials and iterations, per initial population size."""
        counts = self.ga_counts if which == "ga" else self.baseline_counts
        return pd.Series({m: float(counts[m].mean()) for m in self.init_pops}, name=which)

    def std_error(self, which: str) -> pd.Series:
        """Standard error of :meth:`average` (sample std of the counts / sqrt(#counts))."""
        counts = self.ga_counts if which == "ga" else self.baseline_counts
        return pd.Series(
            {m: float(counts[m].std(ddof=1) / sqrt(counts[m].size)) for m in self.init_pops},
            name=which,
        )

    def difference(self) -> pd.Series:
        """Baseline minus GA average (Table 4; positive means the GA needs fewer)."""
        return (self.average("baseline") - self.average("ga")).rename("difference")

    def difference_se(self) -> pd.Series:
        """Standard error of the paired difference (shared initial populations)."""
        return pd.Series(
            {
                m: float(
                    (self.baseline_counts[m] - self.ga_counts[m]).std(ddof=1)
                    / sqrt(self.ga_counts[m].size)
                )
                for m in self.init_pops
            }
        )

    def table(self) -> pd.DataFrame:
        """Reproduced averages beside the paper's, with standard errors and z-scores."""
        rows = []
        for m in self.init_pops:
            row: dict[str, Any] = {"init_pop": m}
            for which, paper in (("ga", PAPER_GA), ("baseline", PAPER_BASELINE)):
                avg, se = self.average(which)[m], self.std_error(which)[m]
                row[which] = avg
                row[f"{which}_se"] = se
                row[f"{which}_paper"] = paper.get(m, np.nan)
                row[f"{which}_z"] = (paper.get(m, np.nan) - avg) / se
            row["difference"] = self.difference()[m]
            row["difference_se"] = self.difference_se()[m]
            row["difference_paper"] = PAPER_DIFFERENCE.get(m, np.nan)
            rows.append(row)
        return pd.DataFrame(rows).set_index("init_pop")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary: keys ``ga``, ``baseline`` (size as string -> average) and more."""

        def keyed(s: pd.Series) -> dict[str, float]:
            return {str(k): round(float(v), 4) for k, v in s.items()}

        return {
            "ga": keyed(self.average("ga")),
            "baseline": keyed(self.average("baseline")),
            "difference": keyed(self.difference()),
            "std_error": {
                "ga": keyed(self.std_error("ga")),
                "baseline": keyed(self.std_error("baseline")),
                "difference": keyed(self.difference_se()),
            },
            "per_trial": {
                w: {
                    str(m): [round(float(v), 4) for v in self.per_trial(w).loc[m]]
                    for m in self.init_pops
                }
                for w in ("ga", "baseline")
            },
            "paper": {
                "ga": {str(k): v for k, v in PAPER_GA.items()},
                "baseline": {str(k): v for k, v in PAPER_BASELINE.items()},
                "difference": {str(k): v for k, v in PAPER_DIFFERENCE.items()},
            },
            "rules": self.rules.as_dict(),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


def _check_sizes(init_pops: Sequence[int], n_rows: int, init_replacement: bool) -> tuple[int, ...]:
    sizes = tuple(int(m) for m in init_pops)
    if not sizes:
        raise ValueError("give at least one initial population size, e.g. 5,10,15,20,25")
    for m in sizes:
        if m < 2:
            raise ValueError(f"initial population sizes must be >= 2, got {m}")
        if not init_replacement and m > n_rows:
            raise ValueError(f"initial population {m} exceeds the table's {n_rows} rows")
    return sizes


def initial_populations(
    n_rows: int, m: int, iterations: int, rng: np.random.Generator, replacement: bool = True
) -> np.ndarray:
    """``(iterations, m)`` initial populations of row indices, shared by GA and baseline."""
    if replacement:
        return rng.integers(0, n_rows, size=(iterations, m))
    keys = rng.random((iterations, n_rows))
    return np.argsort(keys, axis=1)[:, :m]


def ga_study(
    task: str = "ja-en",
    target: float = 16.0,
    init_pops: Sequence[int] = (5, 10, 15, 20, 25),
    iterations: int = 1000,
    trials: int = 3,
    seed: int = 0,
    *,
    init_replacement: bool = True,
    baseline_replacement: bool = True,
    mutation_rate: float = 1 / 8,
    count_invalid: bool = True,
    count_mutants: str = "new",
    memory: str = "history",
    mutation_draw: str = "value",
    count_duplicates: bool = False,
    check_initial: bool = False,
    mutation_before_selection: bool = False,
    weighted_replacement: bool = False,
    two_point: bool = False,
    generational: bool = False,
    stop_test: str = "cycle",
    roulette_draw: str = "uniform",
    distinct_parents: bool = False,
    run_baseline: bool = True,
) -> GAStudy:
    """Ganapathy (2020) Tables 2-4: GA and random baseline counts on one table.

    Iteration ``i`` of trial ``t`` for initial size ``m`` starts GA and baseline from the same
    initial population, drawn from ``default_rng([seed, t, m, 0])``; the GA uses
    ``default_rng([seed, t, m, 1])`` and the baseline ``default_rng([seed, t, m, 2])``, so a
    cell depends only on (seed, trial, size, rules). Keyword flags: the counting rules and
    variants of :class:`~nmthpo.studies.ganapathy.simulation.GARules` (documented in
    :mod:`nmthpo.studies.ganapathy.simulation`).

    Raises
    ------
    KeyError
        For an unknown task.
    ValueError
        For a target no row reaches (the search would never stop), sizes below 2, or
        non-positive iterations/trials.
    """
    from nmthpo.benchmark.tables import load_table

    table = load_table(task)
    space = GeneSpace.from_table(table.configs, table.bleu)
    best = table.best_bleu
    if not target <= best:
        raise ValueError(
            f"target {target} is above the best BLEU {best:.2f} of {task}; the search would "
            f"never stop -- choose a target <= {best:.2f}"
        )
    if iterations < 1 or trials < 1:
        raise ValueError(f"iterations and trials must be >= 1, got {iterations}, {trials}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    sizes = _check_sizes(init_pops, table.n_rows, init_replacement)
    rules = StudyRules(
        target,
        init_replacement,
        baseline_replacement,
        GARules(
            mutation_rate=mutation_rate,
            count_invalid=count_invalid,
            count_mutants=count_mutants,
            memory=memory,
            mutation_draw=mutation_draw,
            count_duplicates=count_duplicates,
            check_initial=check_initial,
            mutation_before_selection=mutation_before_selection,
            weighted_replacement=weighted_replacement,
            two_point=two_point,
            generational=generational,
            stop_test=stop_test,
            roulette_draw=roulette_draw,
            distinct_parents=distinct_parents,
        ).validate(),
    )
    is_hit = table.bleu >= target
    ga: dict[int, np.ndarray] = {}
    base: dict[int, np.ndarray] = {}
    for m in sizes:
        ga[m] = np.empty((trials, iterations), dtype=np.int64)
        base[m] = np.empty((trials, iterations), dtype=np.int64)
        for t in range(trials):
            init = initial_populations(
                table.n_rows,
                m,
                iterations,
                np.random.default_rng([seed, t, m, 0]),
                init_replacement,
            )
            u = Uniforms(np.random.default_rng([seed, t, m, 1]))
            ga[m][t] = [ga_count(space, row, target, u, rules.ga) for row in init.tolist()]
            if run_baseline:
                base[m][t] = baseline_counts(
                    is_hit, init, np.random.default_rng([seed, t, m, 2]), baseline_replacement
                )
            else:
                base[m][t] = 0
    return GAStudy(rules, sizes, ga, base)


def ga_studies(
    rules: Sequence[Mapping[str, Any]],
    task: str = "ja-en",
    target: float = 16.0,
    init_pops: Sequence[int] = (5, 10, 15, 20, 25),
    iterations: int = 1000,
    trials: int = 3,
    seed: int = 0,
    *,
    baseline_first: bool = False,
    jobs: int = 1,
) -> list[GAStudy]:
    """:func:`ga_study` under each set of keyword rules, in ``jobs`` worker processes.

    Every study draws from generators seeded by ``(seed, trial, size, ...)`` alone (see
    :func:`ga_study`), so the studies are the same whether computed one after the other or in
    parallel. ``baseline_first`` runs the random baseline with the first rules only (the
    others skip it: it does not depend on the GA's rules).
    """
    if isinstance(jobs, bool) or int(jobs) != jobs or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1; got {jobs!r}")
    calls = [
        dict(
            task=task,
            target=target,
            init_pops=tuple(init_pops),
            iterations=iterations,
            trials=trials,
            seed=seed,
            run_baseline=baseline_first and i == 0,
            **kw,
        )
        for i, kw in enumerate(rules)
    ]
    if jobs == 1 or len(calls) < 2:
        return [ga_study(**c) for c in calls]
    from joblib import Parallel, delayed

    return list(Parallel(n_jobs=min(int(jobs), len(calls)))(delayed(ga_study)(**c) for c in calls))
