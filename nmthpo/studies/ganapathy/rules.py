"""Which counting rule did the paper use? Rule fits against Ganapathy (2020), Tables 2 and 3.

The paper leaves its counting rules open (see :mod:`nmthpo.studies.ganapathy.simulation`).
:func:`baseline_rule_table` tests each candidate rule of the random baseline against Table 3
exactly (closed form, no simulation); :func:`ga_rule_table` simulates the GA under the pinned
rules and one change at a time and tests each against Table 2; :func:`long_rule_table` does the
same for :data:`LONG_RULES` with ten times the paper's trials (the m = 25 experiment).

Both the paper's averages and ours are simulation means. A cell's z is (paper - ours) / sigma
with sigma = sqrt(se_ours^2 + sd^2 / N_paper) (:func:`paper_sigma`): our standard error and the
one the paper's mean of ``N_paper`` = 3 x 1000 counts has under the same rules (``sqrt(2) se``
when we simulate as many counts as the paper).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import sqrt
from typing import Any

import pandas as pd

from nmthpo.studies.ganapathy.baseline import baseline_expectation
from nmthpo.studies.ganapathy.study import (
    PAPER_BASELINE,
    PAPER_BASELINE_TRIALS,
    PAPER_COUNTS,
    PAPER_GA,
    ga_studies,
)

__all__ = [
    "BASELINE_RULES",
    "GA_RULE_ALTERNATIVES",
    "LONG_FACTOR",
    "LONG_RULES",
    "baseline_rule_table",
    "ga_rule_table",
    "long_rule_table",
    "paper_sigma",
]


#: Candidate counting rules of the random baseline (Section 4.2): name -> (init_replacement,
#: baseline_replacement).
BASELINE_RULES: dict[str, tuple[bool, bool]] = {
    "draws with replacement (pinned)": (True, True),
    "distinct initial rows, draws with replacement": (False, True),
    "initial with replacement, draws without": (True, False),
    "distinct rows throughout (no re-draws)": (False, False),
}

#: GA counting rules tried against Table 2: the pinned setting and one change at a time.
GA_RULE_ALTERNATIVES: dict[str, dict[str, Any]] = {
    "pinned": {},
    "memory: current population only": {"memory": "population"},
    "mutants never counted": {"count_mutants": "none"},
    "every mutation counted": {"count_mutants": "all"},
    "mutation draws a row's value": {"mutation_draw": "row"},
    "distinct initial rows": {"init_replacement": False},
    "initial population tested first": {"check_initial": True},
    "every breeding cycle counted": {"count_duplicates": True},
    # further readings of the paper's text (see nmthpo.studies.ganapathy.simulation)
    "stop test only after an addition": {"stop_test": "addition"},
    "initial rows not in the history": {"memory": "introduced"},
    "integer roulette (0 to 100)": {"roulette_draw": "integer"},
    "distinct parents": {"distinct_parents": True},
    "stop after an addition, initial rows not in the history": {
        "stop_test": "addition",
        "memory": "introduced",
    },
}

#: The m = 25 experiment: the pinned rules and the two readings that raise the large
#: populations' counts together, simulated with :data:`LONG_FACTOR` times the paper's trials.
LONG_RULES: dict[str, dict[str, Any]] = {
    "pinned": {},
    "stop after an addition, initial rows not in the history": {
        "stop_test": "addition",
        "memory": "introduced",
    },
}

#: Trials of :func:`long_rule_table`, in multiples of the study's.
LONG_FACTOR = 10


def paper_sigma(se: float, n: int, paper_counts: int = PAPER_COUNTS) -> float:
    """Standard deviation of (paper's mean - our mean) under the same rules.

    ``se`` is our standard error over ``n`` counts; the paper's mean of ``paper_counts``
    counts has standard error ``sd / sqrt(paper_counts)`` with ``sd = se * sqrt(n)``.

    >>> round(paper_sigma(1.0, 3000), 4)  # as many counts as the paper: sqrt(2) se
    1.4142
    """
    return sqrt(se**2 + se**2 * n / paper_counts)


def _paper_sizes(init_pops: Sequence[int]) -> tuple[int, ...]:
    sizes = tuple(int(m) for m in init_pops)
    missing = [m for m in sizes if m not in PAPER_GA]
    if not sizes or missing:
        raise ValueError(
            f"the paper reports initial population sizes {sorted(PAPER_GA)} only; "
            f"got {list(sizes)} -- choose sizes among them"
        )
    return sizes


def baseline_rule_table(
    task: str = "ja-en",
    target: float = 16.0,
    init_pops: Sequence[int] = (5, 10, 15, 20, 25),
    iterations: int = 1000,
    rules: Mapping[str, tuple[bool, bool]] | None = None,
) -> pd.DataFrame:
    """Exact baseline mean under each candidate counting rule, against Table 3 (no simulation).

    For every rule of :data:`BASELINE_RULES` (or ``rules``: name -> (init_replacement,
    baseline_replacement)) and size ``m``, :func:`baseline_expectation` gives the exact mean
    ``mu`` and variance ``v`` of one iteration's count. Under that rule the paper's trial value
    is a mean of ``iterations`` counts (standard error ``sqrt(v / iterations)``) and its average
    one of ``3 * iterations``. Returned per rule: the exact means (columns ``"5"``, ``"10"``,
    ...), ``chi2`` = sum over sizes of ``((paper average - mu) / se)^2`` with its p-value
    (``dof`` = number of sizes), ``chi2_trials`` over the paper's per-trial cells with its
    p-value (``dof_trials`` = 3 per size), and ``max_abs_z`` of the averages. A rule the
    paper's numbers are compatible with has a p-value that is not small.
    """
    from scipy.stats import chi2 as chi2_dist

    from nmthpo.benchmark.tables import load_table

    sizes = _paper_sizes(init_pops)
    if iterations < 1:
        raise ValueError(f"iterations must be >= 1, got {iterations}")
    table = load_table(task)
    n, b = table.n_rows, int((table.bleu >= target).sum())
    rows = []
    for name, (init_rep, base_rep) in (BASELINE_RULES if rules is None else rules).items():
        row: dict[str, Any] = {
            "rule": name,
            "init_replacement": init_rep,
            "baseline_replacement": base_rep,
        }
        c2 = c2t = 0.0
        zmax = 0.0
        for m in sizes:
            mu, var = baseline_expectation(n, b, m, base_rep, init_rep)
            trials = PAPER_BASELINE_TRIALS[m]
            z = (PAPER_BASELINE[m] - mu) / sqrt(var / (len(trials) * iterations))
            c2 += z**2
            zmax = max(zmax, abs(z))
            c2t += sum(((v - mu) / sqrt(var / iterations)) ** 2 for v in trials)
            row[str(m)] = mu
        ntr = sum(len(PAPER_BASELINE_TRIALS[m]) for m in sizes)
        row.update(
            chi2=c2,
            dof=len(sizes),
            p=float(chi2_dist.sf(c2, len(sizes))),
            chi2_trials=c2t,
            dof_trials=ntr,
            p_trials=float(chi2_dist.sf(c2t, ntr)),
            max_abs_z=zmax,
        )
        rows.append(row)
    return pd.DataFrame(rows).set_index("rule")


def ga_rule_table(
    task: str = "ja-en",
    target: float = 16.0,
    init_pops: Sequence[int] = (5, 10, 15, 20, 25),
    iterations: int = 1000,
    trials: int = 3,
    seed: int = 0,
    alternatives: Mapping[str, Mapping[str, Any]] | None = None,
    jobs: int = 1,
) -> pd.DataFrame:
    """The GA's average count under each counting rule tried, against Table 2.

    Each entry of :data:`GA_RULE_ALTERNATIVES` (or ``alternatives``: name -> keyword overrides
    of :func:`ga_study`) is simulated (``iterations * trials`` counts per size, the study's
    seeds). Columns per size ``m``: the average (``"m"``) and ``"m z"`` = (paper - ours) /
    :func:`paper_sigma`, the difference of two independent simulations of the same rules (the
    paper's run and ours, assumed to have the same spread); then ``chi2`` (sum of squared z)
    with ``dof`` (number of sizes) and its p-value ``p``. ``jobs`` worker processes simulate
    the rules (:func:`nmthpo.studies.ganapathy.study.ga_studies`: the same table as one).
    """
    from scipy.stats import chi2 as chi2_dist

    sizes = _paper_sizes(init_pops)
    alts = GA_RULE_ALTERNATIVES if alternatives is None else alternatives
    studies = ga_studies(
        [dict(kw) for kw in alts.values()], task, target, sizes, iterations, trials, seed, jobs=jobs
    )
    rows = []
    for name, study in zip(alts, studies, strict=True):
        avg, se = study.average("ga"), study.std_error("ga")
        row: dict[str, Any] = {"rule": name}
        c2 = 0.0
        for m in sizes:
            z = (PAPER_GA[m] - avg[m]) / paper_sigma(se[m], study.ga_counts[m].size)
            row[str(m)] = float(avg[m])
            row[f"{m} z"] = float(z)
            c2 += z**2
        row.update(chi2=c2, dof=len(sizes), p=float(chi2_dist.sf(c2, len(sizes))))
        rows.append(row)
    return pd.DataFrame(rows).set_index("rule")


def long_rule_table(
    task: str = "ja-en",
    target: float = 16.0,
    init_pops: Sequence[int] = (5, 10, 15, 20, 25),
    iterations: int = 1000,
    trials: int = 3,
    seed: int = 0,
    factor: int = LONG_FACTOR,
    alternatives: Mapping[str, Mapping[str, Any]] | None = None,
    jobs: int = 1,
) -> pd.DataFrame:
    """:func:`ga_rule_table` of :data:`LONG_RULES` with ``factor`` times the trials.

    The first ``trials`` trials are the study's own (a cell depends only on seed, trial, size
    and rules); the others continue them. With many more counts than the paper's, a cell's z
    is dominated by the paper's own noise (:func:`paper_sigma`).
    """
    if isinstance(factor, bool) or int(factor) != factor or factor < 1:
        raise ValueError(f"factor must be an integer >= 1, got {factor!r}")
    return ga_rule_table(
        task,
        target,
        init_pops,
        iterations,
        trials * int(factor),
        seed,
        LONG_RULES if alternatives is None else alternatives,
        jobs,
    )
