"""Rank your runs against the book's baselines: ``nmthpo compare`` (issue 13).

A run written by ``nmthpo run`` (a directory with ``spec.json`` and ``results.parquet``) is
compared with the book's methods on the same task, objective, seed and number of initial rows.
Trial *t* of a seed starts from the same initial rows in every method
(:func:`nmthpo.engine.runner.initial_rows`), so the first *N* trials of a cached 100-trial
baseline pair trial by trial with an *N*-trial run. Baselines are read from the book's cache
(``results/single``, ``results/pareto``); one that is not there (another seed, more trials,
another task) is computed into the user cache (``user_cache_dir() / "compare"``).

Per method and metric (Zhang & Duh 2020, Section 4: ftb, ftc, fb; or fto, fta, fbp):

* the mean over trials with a 95 % percentile bootstrap interval
  (:func:`nmthpo.engine.stats.bootstrap_mean`);
* ``rel_rs``: mean over random search's mean on the same trials
  (:func:`nmthpo.engine.stats.paired_ratio`, with its paired interval);
* ``mean_rank``: the method's rank among all compared methods within each trial (1 = best,
  ties averaged), averaged over trials.

Per pair of methods (on the primary metric): Wilcoxon's signed-rank test on the paired trials
(:func:`scipy.stats.wilcoxon`, zero differences dropped; all-zero differences give p = 1), the
p-values Holm-corrected over all pairs; ``better`` names the method favoured by the signed
ranks when the corrected p-value is below 0.05.

Over several tasks (:func:`compare_tasks`): the methods' mean of the primary metric per task,
average ranks, Friedman's test and the Nemenyi critical difference, all from ``autorank``.

A run with a budget (``--budget B``) cuts every method's sequences at ``B``; a target not
reached by then is scored ``B + 1`` (a lower bound, counted in ``censored``).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nmthpo.benchmark.tables import check_task, load_table
from nmthpo.engine.cache import results_dir, user_cache_dir
from nmthpo.engine.metrics import PARETO_METRICS, SINGLE_METRICS, TIES, evaluate_sequences
from nmthpo.engine.runner import RunResult, RunSpec, cached_runs, load_run, run
from nmthpo.engine.stats import bootstrap_mean, paired_ratio

__all__ = [
    "ALPHA",
    "BASELINES",
    "HIGHER_IS_BETTER",
    "MIN_TASKS",
    "Comparison",
    "TaskRanking",
    "baseline_run",
    "compare",
    "compare_tasks",
    "dumps",
    "holm",
    "load_run_dir",
    "method_names",
]

#: The book's methods, by objective: the default baselines.
BASELINES: dict[str, tuple[str, ...]] = {
    "bleu": ("rs", "bo-ei-m", "bo-ei-r", "gb-ei-m", "gb-ei-r", "gb-eif-m", "gb-eif-r", "ga"),
    "pareto": ("rs", "bo-m", "bo-r", "gb-m", "gb-r"),
}
#: Metrics where larger is better (every other metric is a runtime or a gap: smaller wins).
HIGHER_IS_BETTER: frozenset[str] = frozenset({"fbp"})
#: Level of the paired tests (after Holm's correction).
ALPHA: float = 0.05
#: Fewest tasks ``autorank`` ranks over.
MIN_TASKS: int = 5
_CACHE = {"bleu": "single", "pareto": "pareto"}


def load_run_dir(path: str | Path) -> RunResult:
    """Read a directory written by ``nmthpo run`` (``spec.json``, ``results.parquet``)."""
    path = Path(path)
    spec_file, frame_file = path / "spec.json", path / "results.parquet"
    if not spec_file.exists() or not frame_file.exists():
        raise FileNotFoundError(f"{path} is not a run directory (it needs spec.json and "
                                f"results.parquet, as `nmthpo run ... --out {path}` writes)")
    return RunResult(RunSpec.from_json(spec_file.read_text()), pd.read_parquet(frame_file))


def method_names(runs: Sequence[RunResult]) -> list[str]:
    """Display names: the method name, with its settings when two runs share a name."""
    base = [r.spec.method for r in runs]
    out = []
    for r, b in zip(runs, base, strict=True):
        if base.count(b) > 1 and r.spec.settings:
            b += "[" + ",".join(f"{k}={v}" for k, v in sorted(r.spec.settings.items())) + "]"
        out.append(b)
    dupes = {n for n in out if out.count(n) > 1}
    if dupes:
        raise ValueError(f"two runs of {sorted(dupes)} with the same settings on one task; "
                         "pass each run directory once")
    return out


def baseline_run(name: str, like: RunSpec, trials: int, progress: bool = False,
                 ) -> tuple[RunResult, str]:
    """The first ``trials`` trials of baseline ``name`` paired with ``like``, and their source.

    Read from the book's cache when it holds them, else computed (and cached) in
    ``user_cache_dir() / "compare"``.
    """
    book = results_dir() / _CACHE[like.objective]
    if book.exists():
        for spec, pq in cached_runs(book):
            if (spec.method == name and spec.task == like.task
                    and spec.objective == like.objective and spec.seed == like.seed
                    and spec.n_init == like.n_init and spec.budget is None
                    and spec.stop == "target" and not spec.settings):
                have = int(pd.read_parquet(pq, columns=["trial"])["trial"].nunique())
                if have >= trials:
                    rel = f"results/{_CACHE[like.objective]}/{pq.name}"
                    return load_run(spec, book, trials=trials), rel
    cache = user_cache_dir() / "compare"
    res = run(name, like.task, trials=trials, seed=like.seed, objective=like.objective,
              n_init=like.n_init, cache_dir=cache, progress=progress)
    return res, f"computed: {cache / res.spec.stem()}.parquet"


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979), in the input order."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj
    return out


def _wilcoxon(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Two-sided p-value and the signed-rank balance R+ - R- of ``a - b``."""
    from scipy import stats

    d = a - b
    nz = d[d != 0]
    if nz.size == 0:
        return 1.0, 0.0
    ranks = stats.rankdata(np.abs(nz))
    balance = float(ranks[nz > 0].sum() - ranks[nz < 0].sum())
    return float(stats.wilcoxon(a, b).pvalue), balance


def _scores(res: RunResult, limit: int | None, objective: str, ties: str, n_init: int,
            ) -> tuple[pd.DataFrame, int]:
    table = load_table(res.spec.task)
    seqs = [s[:limit] if limit is not None else s for s in res.sequences]
    default = 20 if objective == "bleu" else 50
    budget = default if limit is None else min(default, limit)
    frame = evaluate_sequences(seqs, table.bleu, table.pareto, objective=objective, ties=ties,
                               n_init=n_init, budget=budget).drop(columns="trial")
    censored = int(frame.isna().to_numpy().sum())
    if censored:
        if limit is None:
            raise ValueError(f"{res.spec.method}: some sequences stop before the target "
                             "without a budget; were they written by `nmthpo run`?")
        frame = frame.fillna(float(limit + 1))
    return frame, censored


@dataclass
class Comparison:
    """The outcome of :func:`compare` on one task (see :meth:`to_json` for its contract)."""

    task: str
    objective: str
    ties: str
    trials: int
    metric: str
    #: per-trial metric values: one frame per method (columns: the objective's metrics)
    values: dict[str, pd.DataFrame]
    #: metric -> method -> {"mean", "ci_low", "ci_high", "rel_rs", "rel_rs_low", ...}
    summary: dict[str, dict[str, dict[str, float]]]
    tests: list[dict[str, Any]]
    sources: dict[str, str]
    censored: dict[str, int] = field(default_factory=dict)

    def leaderboard(self, metric: str | None = None) -> pd.DataFrame:
        """One row per method, best mean rank first: mean, interval, ratio to RS, rank."""
        m = metric or self.metric
        frame = pd.DataFrame(self.summary[m]).T
        frame.index.name = "method"
        return frame.sort_values(["mean_rank", "mean"])

    def to_json(self) -> dict[str, Any]:
        """The ``nmthpo compare --json`` object.

        ``{"task", "objective", "ties", "trials", "metric", "methods": {NAME: {"mean",
        "ci_low", "ci_high", "rel_rs", "mean_rank"}}, "tests": [{"a", "b", "p_holm",
        "better"}], "metrics": {metric: {NAME: {...}}}, "sources": {NAME: where from}}``.
        """
        keys = ("mean", "ci_low", "ci_high", "rel_rs", "mean_rank")
        return {
            "task": self.task, "objective": self.objective, "ties": self.ties,
            "trials": self.trials, "metric": self.metric,
            "methods": {k: {f: v[f] for f in keys} for k, v in self.summary[self.metric].items()},
            "tests": self.tests,
            "metrics": self.summary,
            "sources": self.sources,
            "censored": self.censored,
        }


def compare(
    runs: Sequence[RunResult],
    task: str,
    baselines: Sequence[str] | None = None,
    ties: str = "value",
    metric: str | None = None,
    seed: int = 0,
    progress: bool = False,
) -> Comparison:
    """Compare ``runs`` on ``task`` with the book's ``baselines`` over paired trials.

    Parameters
    ----------
    runs : sequence of RunResult
        Runs of one task, objective, seed and ``n_init`` (e.g. :func:`load_run_dir`); runs on
        other tasks are ignored.
    task : str
    baselines : sequence of str, optional
        Registry names; default :data:`BASELINES` of the objective. Random search is always
        included (``rel_rs`` needs it).
    ties : {"value", "first-id"}
        ftb's tie convention (:mod:`nmthpo.engine.metrics`).
    metric : str, optional
        Primary metric of ``methods`` and ``tests``; default ``ftb`` (``fto`` for Pareto).
    seed : int
        Seed of the bootstrap draws.
    """
    check_task(task)
    if ties not in TIES:
        raise ValueError(f"unknown ties convention {ties!r}; valid: {', '.join(TIES)}")
    mine = [r for r in runs if r.spec.task == task]
    if not mine:
        have = sorted({r.spec.task for r in runs})
        raise ValueError(f"no run is on task {task!r} (the runs are on {', '.join(have)}); "
                         "pass --task with one of those")
    first = mine[0].spec
    for r in mine[1:]:
        for f in ("objective", "seed", "n_init"):
            if getattr(r.spec, f) != getattr(first, f):
                raise ValueError(f"runs differ in {f} ({getattr(first, f)!r} vs "
                                 f"{getattr(r.spec, f)!r}); only runs with one {f} pair up")
    objective = first.objective
    metrics = SINGLE_METRICS if objective == "bleu" else PARETO_METRICS
    metric = metric or metrics[0]
    if metric not in metrics:
        raise ValueError(f"metric {metric!r} does not apply to objective {objective!r}; "
                         f"valid: {', '.join(metrics)}")
    trials = min(r.trials for r in mine)
    for r in mine:
        if sorted(r.frame["trial"].unique())[:trials] != list(range(trials)):
            raise ValueError(f"{r.spec.method}: trials must be numbered 0..N-1 to pair up")
    budgets = [r.spec.budget for r in mine if r.spec.budget is not None]
    limit = min(budgets) if budgets else None
    names = method_names(mine)
    entries: dict[str, RunResult] = {}
    sources: dict[str, str] = {}
    for name, r in zip(names, mine, strict=True):
        entries[name] = RunResult(r.spec, r.frame[r.frame["trial"] < trials])
        sources[name] = "run directory"
    wanted = list(dict.fromkeys(["rs", *(BASELINES[objective] if baselines is None
                                         else baselines)]))
    for b in wanted:
        if b not in entries:
            entries[b], sources[b] = baseline_run(b, first, trials, progress)
    values: dict[str, pd.DataFrame] = {}
    censored: dict[str, int] = {}
    for name, r in entries.items():
        values[name], censored[name] = _scores(r, limit, objective, ties, first.n_init)
    order = list(entries)
    summary: dict[str, dict[str, dict[str, float]]] = {}
    for m in metrics:
        mat = np.column_stack([values[k][m].to_numpy(dtype=float) for k in order])
        from scipy import stats

        ranks = stats.rankdata(-mat if m in HIGHER_IS_BETTER else mat, axis=1).mean(axis=0)
        rs = values["rs"][m].to_numpy(dtype=float)
        summary[m] = {}
        for j, k in enumerate(order):
            v = mat[:, j]
            mean, lo, hi = bootstrap_mean(v, seed=seed)
            rel, rlo, rhi = paired_ratio(v, rs, seed=seed)
            summary[m][k] = {"mean": mean, "ci_low": lo, "ci_high": hi, "rel_rs": rel,
                             "rel_rs_low": rlo, "rel_rs_high": rhi,
                             "mean_rank": float(ranks[j])}
    tests = _pair_tests({k: values[k][metric].to_numpy(dtype=float) for k in order},
                        metric in HIGHER_IS_BETTER)
    return Comparison(task, objective, ties, trials, metric, values, summary, tests, sources,
                      censored)


def _pair_tests(values: dict[str, np.ndarray], higher: bool) -> list[dict[str, Any]]:
    pairs = list(itertools.combinations(values, 2))
    raw = [_wilcoxon(values[a], values[b]) for a, b in pairs]
    adj = holm([p for p, _ in raw]) if raw else np.array([])
    out = []
    for (a, b), (_, bal), p in zip(pairs, raw, adj, strict=True):
        better = None
        if p < ALPHA and bal != 0:
            a_wins = (bal > 0) == higher
            better = a if a_wins else b
        out.append({"a": a, "b": b, "p_holm": float(p), "better": better})
    return out


@dataclass
class TaskRanking:
    """The outcome of :func:`compare_tasks`: per-task comparisons and ``autorank``'s ranking."""

    comparisons: dict[str, Comparison]
    #: tasks x methods: mean of the primary metric
    means: pd.DataFrame
    #: methods -> average rank over tasks (1 = best), ascending
    ranks: pd.Series
    cd: float | None
    pvalue: float
    omnibus: str
    posthoc: str
    result: Any = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        """``{"task": "all", ..., "ranks", "cd", "pvalue", "omnibus", "posthoc", "tasks"}``."""
        first = next(iter(self.comparisons.values()))
        return {
            "task": "all", "objective": first.objective, "ties": first.ties,
            "trials": {t: c.trials for t, c in self.comparisons.items()},
            "metric": first.metric,
            "ranks": {k: float(v) for k, v in self.ranks.items()},
            "cd": self.cd, "pvalue": self.pvalue, "omnibus": self.omnibus,
            "posthoc": self.posthoc,
            "tasks": {t: c.to_json() for t, c in self.comparisons.items()},
        }


def compare_tasks(
    runs: Sequence[RunResult],
    tasks: Sequence[str] | None = None,
    baselines: Sequence[str] | None = None,
    ties: str = "value",
    metric: str | None = None,
    seed: int = 0,
    progress: bool = False,
) -> TaskRanking:
    """:func:`compare` on every task of ``runs`` (or ``tasks``), then rank across tasks.

    Average ranks, Friedman's test and the Nemenyi critical difference come from
    ``autorank`` (non-parametric mode forced: per-task means of runtimes are not normal).
    Only methods present on every task are ranked.
    """
    from autorank import autorank

    tasks = list(tasks) if tasks is not None else sorted({r.spec.task for r in runs})
    if len(tasks) < MIN_TASKS:
        raise ValueError(f"ranking across tasks needs runs on at least {MIN_TASKS} tasks "
                         f"(autorank's minimum), got {len(tasks)}; for one task pass "
                         "--task TASK")
    comps = {t: compare(runs, t, baselines, ties, metric, seed, progress) for t in tasks}
    common = set.intersection(*(set(c.summary[c.metric]) for c in comps.values()))
    if len(common) < 2:
        raise ValueError("fewer than two methods are on every task; run each method on "
                         "every task you pass")
    first = next(iter(comps.values()))
    cols = [k for k in first.summary[first.metric] if k in common]
    means = pd.DataFrame({k: [comps[t].summary[c.metric][k]["mean"]
                              for t, c in comps.items()] for k in cols}, index=tasks)
    order = "descending" if first.metric in HIGHER_IS_BETTER else "ascending"
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = autorank(means, alpha=ALPHA, order=order, force_mode="nonparametric",
                          verbose=False)
    ranks = result.rankdf["meanrank"].astype(float).sort_values()
    cd = None if result.cd is None else float(result.cd)
    return TaskRanking(comps, means, ranks, cd, float(result.pvalue), str(result.omnibus),
                       str(result.posthoc), result)


def dumps(obj: Any) -> str:
    """JSON text of a comparison (NaN as null)."""
    def clean(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, list):
            return [clean(v) for v in x]
        if isinstance(x, float) and not np.isfinite(x):
            return None
        return x

    return json.dumps(clean(obj), indent=2)
