"""Chapter 5: the genetic algorithm of Ganapathy (2020) against random search, on a table.

Ganapathy (2020) counts how many individuals a steady-state GA must add before one with BLEU
>= 16 is in its population, against a random baseline, on the ja-en table (Tables 2-4). The
chapter's pieces, one concept a module (all re-exported here, ``from nmthpo.studies.ganapathy
import tables as ga; ga.ga_study(...)``):

* :mod:`nmthpo.optimizers.genetic_operators` -- the chromosomes (:class:`GeneSpace`) and the
  pure operators: roulette selection, one- and two-point crossover, mutation (Section 3);
* :mod:`nmthpo.studies.ganapathy.simulation` -- one GA iteration (:func:`ga_count`) under the
  counting rules the paper leaves open (:class:`GARules`, documented there) and Section 5's
  variants;
* :mod:`nmthpo.studies.ganapathy.baseline` -- the random baseline: exact closed form
  (:func:`baseline_expectation`) and simulation (:func:`baseline_counts`);
* :mod:`nmthpo.studies.ganapathy.study` -- Tables 2-4 (:func:`ga_study`, :class:`GAStudy`) and
  the paper's values (:data:`PAPER_GA` ...);
* :mod:`nmthpo.studies.ganapathy.rules` -- which counting rule fits Tables 2 and 3
  (:func:`baseline_rule_table`, :func:`ga_rule_table`, and with ten times the trials
  :func:`long_rule_table`);
* this module -- Section 5's variants (:func:`variant_table`), the fair count
  (:func:`fair_comparison`), the cell-by-cell reading of the paper's tables
  (:func:`paper_comparison`), the GA in Table 3's protocol (:func:`protocol_comparison`),
  the cache of the slow tables (:func:`cached_table`) and the tables as the chapter prints
  them, every number through :func:`nmthpo.engine.numbers.fmt` (:func:`for_reading`,
  :func:`cells_for_reading`, :func:`trials_for_reading`, :func:`protocol_for_reading`).

The chapter's claims (records) are in :mod:`nmthpo.studies.ganapathy.claims`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from math import sqrt
from typing import Any

import numpy as np
import pandas as pd

from nmthpo.optimizers.genetic_operators import (
    GeneSpace,
    mutation_candidates,
    one_point_crossover,
    roulette,
    selection_probabilities,
    two_point_crossover,
    weakest_index,
)
from nmthpo.studies.ganapathy.baseline import baseline_counts, baseline_expectation
from nmthpo.studies.ganapathy.rules import (
    BASELINE_RULES,
    GA_RULE_ALTERNATIVES,
    LONG_FACTOR,
    LONG_RULES,
    baseline_rule_table,
    ga_rule_table,
    long_rule_table,
    paper_sigma,
)
from nmthpo.studies.ganapathy.simulation import MAX_CYCLES, GARules, Uniforms, ga_count
from nmthpo.studies.ganapathy.study import (
    FAIR_RULES,
    PAPER_BASELINE,
    PAPER_BASELINE_TRIALS,
    PAPER_COUNTS,
    PAPER_DIFFERENCE,
    PAPER_GA,
    PAPER_GA_TRIALS,
    PAPER_ITERATIONS,
    GAStudy,
    StudyRules,
    ga_studies,
    ga_study,
    initial_populations,
)

__all__ = [
    # the chapter's tables (this module)
    "GA_CACHE_VERSION",
    "VARIANTS",
    "cached_table",
    "cells_for_reading",
    "fair_comparison",
    "for_reading",
    "paper_comparison",
    "paper_text",
    "protocol_comparison",
    "protocol_for_reading",
    "trials_for_reading",
    "variant_table",
    # re-exported from the modules above
    "BASELINE_RULES",
    "FAIR_RULES",
    "GA_RULE_ALTERNATIVES",
    "LONG_FACTOR",
    "LONG_RULES",
    "MAX_CYCLES",
    "PAPER_BASELINE",
    "PAPER_BASELINE_TRIALS",
    "PAPER_COUNTS",
    "PAPER_DIFFERENCE",
    "PAPER_GA",
    "PAPER_GA_TRIALS",
    "PAPER_ITERATIONS",
    "GARules",
    "GAStudy",
    "GeneSpace",
    "StudyRules",
    "Uniforms",
    "baseline_counts",
    "baseline_expectation",
    "baseline_rule_table",
    "ga_count",
    "ga_rule_table",
    "ga_studies",
    "ga_study",
    "initial_populations",
    "long_rule_table",
    "paper_sigma",
    "mutation_candidates",
    "one_point_crossover",
    "roulette",
    "selection_probabilities",
    "two_point_crossover",
    "weakest_index",
]


#: Section 5's proposed variants, each as keyword overrides of :func:`ga_study`.
VARIANTS: dict[str, dict[str, Any]] = {
    "paper": {},
    "mutation before selection": {"mutation_before_selection": True},
    "fitness-weighted replacement": {"weighted_replacement": True},
    "two-point crossover": {"two_point": True},
    "generational": {"generational": True},
    "invalid not counted": {"count_invalid": False},
}


def variant_table(
    task: str = "ja-en",
    target: float = 16.0,
    init_pops: Sequence[int] = (5, 10, 15, 20, 25),
    iterations: int = 1000,
    trials: int = 3,
    seed: int = 0,
    variants: Mapping[str, Mapping[str, Any]] | None = None,
    with_se: bool = False,
    jobs: int = 1,
) -> pd.DataFrame:
    """GA average count of each variant: a row per variant, a column per initial size.

    A last row ``"baseline"`` holds the paper-rule random baseline on the same initial
    populations (common random numbers). With ``with_se`` each value is accompanied by a
    ``"<m> se"`` column (standard error over the ``trials * iterations`` counts). ``jobs``
    worker processes simulate the variants (:func:`ga_studies`: the same table as one).
    """
    variants = VARIANTS if variants is None else variants
    studies = ga_studies(
        [dict(kw) for kw in variants.values()],
        task,
        target,
        init_pops,
        iterations,
        trials,
        seed,
        baseline_first=True,
        jobs=jobs,
    )
    rows: dict[str, dict[str, float]] = {
        name: _row(study, "ga", with_se) for name, study in zip(variants, studies, strict=True)
    }
    if studies:
        rows["baseline"] = _row(studies[0], "baseline", with_se)
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "variant"
    return frame


def _row(study: GAStudy, which: str, with_se: bool) -> dict[str, float]:
    avg, se = study.average(which), study.std_error(which)
    out: dict[str, float] = {}
    for m in study.init_pops:
        out[str(m)] = float(avg[m])
        if with_se:
            out[f"{m} se"] = float(se[m])
    return out


def fair_comparison(
    task: str = "ja-en",
    target: float = 16.0,
    init_pops: Sequence[int] = (5, 10, 15, 20, 25),
    iterations: int = 1000,
    trials: int = 10,
    seed: int = 0,
) -> pd.DataFrame:
    """GA vs random search when only distinct table rows count (Section 5's open question).

    Both start from the same ``m`` *distinct* random rows. Random search draws unseen rows
    without replacement; the GA counts an individual only if it is a table row it has not
    evaluated before (offspring or mutant), so combinations absent from the table and
    re-visits are free -- the count is the number of models one would have had to train. The
    count is taken until a row with BLEU >= ``target`` is found. Returns per size: GA and
    random means with standard errors over ``trials * iterations`` counts, random search's
    exact expectation, the paired edge (random - GA) with its standard error and z-score.
    """
    study = ga_study(task, target, init_pops, iterations, trials, seed, **FAIR_RULES)
    from nmthpo.benchmark.tables import load_table

    table = load_table(task)
    n, b = table.n_rows, int((table.bleu >= target).sum())
    ga, rs = study.average("ga"), study.average("baseline")
    ga_se, rs_se = study.std_error("ga"), study.std_error("baseline")
    diff, diff_se = study.difference(), study.difference_se()
    rows = []
    for m in study.init_pops:
        exact = baseline_expectation(n, b, m, replacement=False, init_replacement=False)[0]
        rows.append(
            {
                "init_pop": m,
                "ga": ga[m],
                "ga_se": ga_se[m],
                "random": rs[m],
                "random_se": rs_se[m],
                "random_exact": exact,
                "edge": diff[m],
                "edge_se": diff_se[m],
                "edge_z": diff[m] / diff_se[m],
            }
        )
    return pd.DataFrame(rows).set_index("init_pop")


# -- reading the paper's numbers: verdicts, Table 3's protocol, caches (Chapter 5) ------------
def paper_comparison(study: GAStudy, which: str, k: float = 1.96) -> pd.DataFrame:
    """Tables 2, 3 or 4 cell by cell: ours beside the paper's, noise, z, interval and verdict.

    ``which`` is ``"ga"`` (Table 2), ``"baseline"`` (Table 3) or ``"difference"`` (Table 4,
    averages only: the paper gives no per-trial differences). Per initial size: each trial's
    average beside the paper's (``"trial t"``, ``"trial t paper"``), the standard error of a
    trial value (``se trial``: the spread trial values should have), the sample standard
    deviation of the paper's trial values (``paper sd trial``), the largest trial z
    (``max |z| trial``), the overall average
    beside the paper's with its standard error (``se``), ``z`` = (paper - ours) / sigma, the
    interval ``ours -/+ k sigma`` (columns ``"95% CI low"``, ``"95% CI high"``; the label
    is the interval's normal coverage ``2 Phi(k) - 1`` rounded to a percent: 95 % for the
    default ``k = 1.96`` and for ``k = 2``) and ``verdict``: the one rule of the book
    (:class:`nmthpo.engine.claims.Covers`): ``reproduced`` if the paper's value lies in the
    interval, ``not reproduced`` if not, ``not testable`` without a paper value. Because both
    the paper's value and ours are simulation means under (we assume) the same rules and
    spread, sigma is :func:`paper_sigma` (``sqrt(2) * se`` when we simulate as many counts as
    the paper): the interval is where a simulation of our rules as large as the paper's lands
    with that probability. For the difference the paired standard error is used (the GA and
    the baseline share initial populations).
    """
    if which not in ("ga", "baseline", "difference"):
        raise ValueError(f"which must be 'ga', 'baseline' or 'difference', got {which!r}")
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    paper_avg = {"ga": PAPER_GA, "baseline": PAPER_BASELINE, "difference": PAPER_DIFFERENCE}
    paper_trials = {"ga": PAPER_GA_TRIALS, "baseline": PAPER_BASELINE_TRIALS}
    rows = []
    for m in study.init_pops:
        row: dict[str, Any] = {"init_pop": m}
        if which == "difference":
            counts = study.baseline_counts[m] - study.ga_counts[m]
        else:
            counts = (study.ga_counts if which == "ga" else study.baseline_counts)[m]
        if which != "difference":
            ptr = paper_trials[which].get(m)
            per_trial_se = counts.std(ddof=1) / sqrt(counts.shape[1])
            sigma_t = paper_sigma(per_trial_se, counts.shape[1], PAPER_ITERATIONS)
            zt = []
            for t in range(counts.shape[0]):
                row[f"trial {t + 1}"] = float(counts[t].mean())
                pv = ptr[t] if ptr is not None and t < len(ptr) else np.nan
                row[f"trial {t + 1} paper"] = pv
                zt.append((pv - counts[t].mean()) / sigma_t)
            row["se trial"] = float(per_trial_se)
            row["paper sd trial"] = (
                float(np.std(ptr, ddof=1)) if ptr is not None and len(ptr) > 1 else np.nan
            )
            row["max |z| trial"] = float(np.nanmax(np.abs(zt))) if np.isfinite(zt).any() else np.nan
        avg = float(counts.mean())
        se = float(counts.std(ddof=1) / sqrt(counts.size))
        paper = paper_avg[which].get(m, np.nan)
        sigma = paper_sigma(se, counts.size)
        z = (paper - avg) / sigma
        row.update(
            {
                "average": avg,
                "paper": paper,
                "se": se,
                "z": z,
                **_ga_interval_verdict(avg, sigma, paper, k),
            }
        )
        rows.append(row)
    return pd.DataFrame(rows).set_index("init_pop")


def _ga_interval_verdict(ours: float, sigma: float, paper: float, k: float) -> dict[str, Any]:
    """``ours -/+ k sigma`` under its coverage label, and whether it covers the paper's value."""
    from scipy.stats import norm

    from nmthpo.engine.claims import Covers, Estimate

    label = f"{2 * norm.cdf(k) - 1:.0%} CI"
    lo, hi = ours - k * sigma, ours + k * sigma
    verdict = (
        "not testable"
        if not np.isfinite(paper)
        else Covers(float(paper)).judge(Estimate(ours, lo, hi, quantity="evaluations"))[0]
    )
    return {f"{label} low": lo, f"{label} high": hi, "verdict": verdict}


def protocol_comparison(
    per_trial: pd.DataFrame, method: str = "ga", metric: str = "ftb"
) -> pd.DataFrame:
    """``method`` against every other method of a Table-3 run, per task, paired by trial.

    ``per_trial`` is :func:`nmthpo.studies.zhang_duh.single_objective.per_trial_metrics`' frame.
    The runner gives trial ``t`` the same initial rows for every method, so the difference (other -
    ``method``) of ``metric`` is paired by trial. Returned rows: task x other method; columns
    ``method`` mean, other mean, mean difference, its standard error (sample std / sqrt(n),
    over the trials both have) and ``z``. For ftb/ftc a positive difference means ``method``
    needs fewer evaluations; for fb (BLEU after the budget) a negative one means it is better.
    """
    for col in ("method", "task", "trial", metric):
        if col not in per_trial.columns:
            raise ValueError(f"per_trial lacks column {col!r}; pass per_trial_metrics' frame")
    if method not in set(per_trial["method"]):
        raise ValueError(
            f"method {method!r} is not in the frame; it holds {sorted(set(per_trial['method']))}"
        )
    wide = per_trial.pivot_table(
        index=["task", "trial"], columns="method", values=metric, sort=False
    )
    rows = []
    for task in dict.fromkeys(per_trial["task"]):
        w = wide.loc[task]
        for other in dict.fromkeys(per_trial["method"]):
            if other == method:
                continue
            pair = w[[method, other]].dropna()
            d = pair[other] - pair[method]
            se = float(d.std(ddof=1) / sqrt(len(d))) if len(d) > 1 else np.nan
            rows.append(
                {
                    "task": task,
                    "vs": other,
                    method: float(pair[method].mean()),
                    "other": float(pair[other].mean()),
                    "difference": float(d.mean()),
                    "se": se,
                    "z": float(d.mean()) / se if se and se > 0 else np.nan,
                }
            )
    return pd.DataFrame(rows).set_index(["task", "vs"])


#: Bump when a change to the GA or the study would change a cached table.
GA_CACHE_VERSION = 1

_CACHEABLE: dict[str, Callable[..., pd.DataFrame]] = {
    "variants": variant_table,
    "rules": ga_rule_table,
    "long": long_rule_table,
}
#: The default set each kind enters its key with (by content, so editing it invalidates).
_DEFAULT_SETS: dict[str, tuple[str, Mapping[str, Any]]] = {
    "variants": ("variants", VARIANTS),
    "rules": ("alternatives", GA_RULE_ALTERNATIVES),
    "long": ("alternatives", LONG_RULES),
}


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def _table_problem(kind: str, args: Mapping[str, Any], frame: pd.DataFrame) -> str | None:
    """What is wrong with a cached ``kind`` table for the parameters ``args``, or ``None``.

    The rows must be the variants (plus ``baseline``) or the rules asked for, in order, the
    columns those of each initial size (:func:`variant_table`, :func:`ga_rule_table`,
    :func:`long_rule_table`), and every average a finite count >= 0.
    """
    sizes = [str(int(m)) for m in args["init_pops"]]
    if kind == "variants":
        index_name, rows = "variant", [*args["variants"], "baseline"]
        columns = [c for m in sizes for c in ((m, f"{m} se") if args["with_se"] else (m,))]
    else:
        index_name, rows = "rule", list(args["alternatives"])
        columns = [*(c for m in sizes for c in (m, f"{m} z")), "chi2", "dof", "p"]
    if frame.index.name != index_name or [str(r) for r in frame.index] != rows:
        return (
            f"its rows ({frame.index.name}: {list(frame.index)}) are not the {index_name}s {rows}"
        )
    if list(frame.columns) != columns:
        return f"its columns {list(frame.columns)} are not {columns}"
    averages = frame[sizes].to_numpy(dtype=float)
    if not (np.isfinite(averages).all() and (averages >= 0).all()):
        return "an average count is negative or not finite"
    return None


def cached_table(
    kind: str, cache_dir: Any = None, use_cache: bool = True, **params: Any
) -> pd.DataFrame:
    """:func:`variant_table` (``kind="variants"``), :func:`ga_rule_table` (``"rules"``) or
    :func:`long_rule_table` (``"long"``), cached.

    The frame is stored as Parquet in ``cache_dir`` (default
    :func:`nmthpo.engine.cache.cache_for` ``("ga", ...)``: the book's ``results/ga`` when it
    holds the file, else the user cache) under
    ``<kind>__<key>.parquet`` with a JSON sidecar of its parameters and checksum
    (:func:`nmthpo.engine.cache.write_checked`); the key hashes ``kind``,
    every parameter of the function (defaults filled in, so ``cached_table("variants")`` and
    ``cached_table("variants", iterations=1000)`` share a file; the default :data:`VARIANTS`,
    :data:`GA_RULE_ALTERNATIVES` and :data:`LONG_RULES` enter by content) and
    :data:`GA_CACHE_VERSION`.
    A missing file is computed and written atomically (temporary file, then rename); a present
    one is reused only if its sidecar records these parameters and its checksum matches (the
    book's ``results/ga``, written before checksums, is accepted without one) and its rows and
    columns are those the parameters ask for (:func:`nmthpo.engine.cache.read_checked`);
    otherwise it is named in a warning, moved aside (``NAME.bad-N``) and recomputed. A
    computed frame is checked the same way before it is written. ``use_cache=False`` computes
    the frame and neither reads nor writes a file (e.g. a notebook's smoke setting).
    ``jobs`` (worker processes, see :func:`ga_studies`) is not part of the key. The
    full-size variant table takes minutes (the generational variant dominates), the rule
    table one or two, the long table (two rules, ten times the trials) about as long.
    """
    import inspect
    from pathlib import Path

    from nmthpo.engine.cache import cache_for, key, read_checked, write_checked

    if kind not in _CACHEABLE:
        raise ValueError(f"unknown kind {kind!r}; valid: {', '.join(_CACHEABLE)}")
    func = _CACHEABLE[kind]
    if not use_cache:
        return func(**params)
    try:
        bound = inspect.signature(func).bind(**params)
    except TypeError as exc:
        raise TypeError(f"bad parameters for {func.__name__}: {exc}") from None
    bound.apply_defaults()
    # ``jobs`` says how to compute, not what: it is not part of the key
    args = _jsonable({k: v for k, v in bound.arguments.items() if k != "jobs"})
    # a default set of variants/rules enters the key by content, so editing it invalidates
    name, default = _DEFAULT_SETS[kind]
    if args.get(name) is None:
        args[name] = _jsonable(default)
    payload = {"kind": kind, "params": args, "version": GA_CACHE_VERSION}
    filename = f"{kind}__{key(payload)}.parquet"
    path = Path(cache_dir if cache_dir is not None else cache_for("ga", filename)) / filename
    cached = read_checked(
        path,
        payload,
        pd.read_parquet,
        lambda f: _table_problem(kind, args, f),
    )
    if cached is not None:
        return cached
    frame = func(**params)
    why = _table_problem(kind, args, frame)
    if why is not None:
        raise RuntimeError(f"{func.__name__} computed a bad table ({why}); not cached")
    write_checked(path, lambda p: frame.to_parquet(p), payload)
    return frame


# -- the tables as the chapter prints them (every number through the one formatter) ------------
def paper_text(value: float) -> str:
    """One of the paper's numbers as its tables print it (three decimals), ``-`` if absent."""
    return "-" if value is None or not np.isfinite(value) else f"{value:.3f}"


def for_reading(
    frame: pd.DataFrame, quantities: Mapping[str, str], default: str | None = None
) -> pd.DataFrame:
    """``frame`` with each column in ``quantities`` printed by :func:`fmt` as that quantity.

    Columns not named are formatted as ``default`` when it is given and they are numeric, and
    left as they are otherwise (text, verdicts).
    """
    from nmthpo.engine.numbers import fmt

    out = frame.copy().astype(object)
    for col in frame.columns:
        q = quantities.get(str(col), default)
        if q is None or not pd.api.types.is_numeric_dtype(frame[col]):
            continue
        out[col] = [fmt(v, q) for v in frame[col]]
    return out


def cells_for_reading(comparison: pd.DataFrame) -> pd.DataFrame:
    """:func:`paper_comparison` as the chapter prints it: one row per initial size.

    Columns: the paper's value (as printed), ours with the interval of the comparison
    (``mean [low, high]``), ``se``, ``z`` and the verdict of the cell.
    """
    from nmthpo.engine.numbers import fmt, fmt_interval

    lo_col, hi_col = [c for c in comparison.columns if str(c).endswith(("CI low", "CI high"))]
    label = lo_col[: -len(" low")]
    rows = {
        m: {
            "paper": paper_text(r["paper"]),
            f"ours [{label}]": fmt_interval(r["average"], r[lo_col], r[hi_col], "evaluations"),
            "se": fmt(r["se"]),
            "z": fmt(r["z"]),
            "verdict": r["verdict"],
        }
        for m, r in comparison.iterrows()
    }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "initial population"
    return out


def trials_for_reading(comparison: pd.DataFrame) -> pd.DataFrame:
    """The per-trial columns of :func:`paper_comparison` (Tables 2 and 3), printed.

    Per trial: ours and the paper's; then the standard error of one trial's value under our
    rules (``se trial``), the spread of the paper's trial values (``paper sd trial``) and the
    largest trial z.
    """
    from nmthpo.engine.numbers import fmt

    trials = [
        c
        for c in comparison.columns
        if str(c).startswith("trial ") and not str(c).endswith("paper")
    ]
    out = pd.DataFrame(index=comparison.index)
    for t in trials:
        out[f"{t} ours"] = [fmt(v, "evaluations") for v in comparison[t]]
        out[f"{t} paper"] = [paper_text(v) for v in comparison[f"{t} paper"]]
    for col in ("se trial", "paper sd trial", "max |z| trial"):
        out[col] = [fmt(v) for v in comparison[col]]
    out.index.name = "initial population"
    return out


def protocol_for_reading(
    per_trial: pd.DataFrame, method: str = "ga", metric: str = "ftb"
) -> pd.DataFrame:
    """:func:`protocol_comparison` printed, the difference with its paired 95 % interval.

    ``other - method`` (positive: ``method`` needs fewer evaluations) with the percentile
    bootstrap interval over paired trials (:func:`nmthpo.engine.stats.paired_difference`),
    beside both means and ``z``; every number through :func:`fmt` as evaluations.
    """
    from nmthpo.engine.numbers import fmt, fmt_interval
    from nmthpo.engine.stats import paired_difference

    comp = protocol_comparison(per_trial, method, metric)
    wide = per_trial.pivot_table(
        index=["task", "trial"], columns="method", values=metric, sort=False
    )
    rows = []
    for (task, other), r in comp.iterrows():
        pair = wide.loc[task][[method, other]].dropna()
        d = paired_difference(pair[other].to_numpy(float), pair[method].to_numpy(float))
        rows.append(
            {
                "task": task,
                "vs": other,
                method: fmt(r[method], "evaluations"),
                "other": fmt(r["other"], "evaluations"),
                f"other − {method} [95% CI]": fmt_interval(*d, "evaluations"),
                "z": fmt(r["z"]),
            }
        )
    return pd.DataFrame(rows).set_index(["task", "vs"])
