"""Chapter 6's experiments (Ariafar et al. 2022): cached frames, summaries and verdicts.

The experiments of :mod:`nmthpo.studies.ariafar.space_scores` take minutes at the published
parameters, too long to run inside the chapter. :func:`chapter6_results` computes every frame
the chapter shows and stores it as Parquet under the book's ``results/scoring`` (or, for other
parameters, the user cache: :mod:`nmthpo.studies.grids`), keyed by the parameters that determine
it (a second call with the same parameters reads the files back).
The chapter's claims are records in :mod:`nmthpo.studies.ariafar.claims`.

Cache layout: one entry per experiment *part* (a synthetic function, a task's table
experiment, one selection budget, the space comparison), ``<kind>__<label>__<hash>.parquet``
with a sidecar ``.params.txt`` holding the JSON of the parameters and the Parquet file's
checksum (``hash`` is the first 16 hex digits of the parameters' SHA-256). The Parquet file is
written first and the sidecar last (:func:`nmthpo.engine.cache.write_checked`), both through a
temporary file renamed into place, so an entry is complete once its sidecar exists; an entry
is verified before reuse (:func:`cached_frame`). The
sidecar is not called ``.json`` because :func:`nmthpo.engine.runner.cached_runs` reads every
``*.json`` of a results directory as a run specification.

Every part's rows for one (seed size, repeat) (or one trial) depend only on the seed and that
pair (the generators of :mod:`nmthpo.studies.ariafar.space_scores` are
``default_rng([seed, 0, n, r])``), so a slice of an entry can be recomputed alone;
``tests/studies/ariafar/test_results.py`` does that to keep the cache from drifting from the code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nmthpo.engine.cache import key as cache_key
from nmthpo.engine.cache import read_checked, write_checked
from nmthpo.studies.ariafar.space_scores import (
    ALL_SCORES,
    SELECT_METHODS,
    compare_spaces,
    faithfulness_table,
    preferred_spaces,
    prune_spaces,
    select_and_search,
    synthetic_experiment,
    table_experiment,
)
from nmthpo.studies.grids import FOLDERS, book_dir, user_dir, writing_results
from nmthpo.studies.grids import SCORING as _PUBLISHED
from nmthpo.studies.params import as_list

__all__ = [
    "CACHE_SUBDIR",
    "as_list",
    "Chapter6Params",
    "Entry",
    "cache_entries",
    "cached_frame",
    "chapter6_entries",
    "chapter6_results",
    "comparison_summary",
    "faithfulness_summary",
    "preferred_summary",
    "prune_summary",
    "seed_size_summary",
    "selection_summary",
]

#: Subdirectory of ``results/`` (and of the user cache) holding the Chapter 6 cache.
CACHE_SUBDIR = FOLDERS["scoring"]
#: Bumped whenever a change of the code changes the cached numbers.
CACHE_VERSION = 1
#: Suffix of an entry's sidecar (not ``.json``: see the module docstring).
_SIDECAR = ".params.txt"

#: One cache entry: ``(kind, label, params)`` (see :func:`chapter6_entries`).
Entry = tuple[str, str, dict[str, Any]]


@dataclass(frozen=True)
class Chapter6Params:
    """Every parameter of Chapter 6 (defaults: the published book,
    :data:`nmthpo.studies.grids.SCORING`).

    Synthetic part (paper, "synthetic functions to build intuition"): ``functions`` (Branin,
    Hartmann-6), ``boxes_per_fraction`` random sub-boxes at each volume fraction in
    ``fractions`` (one full box), ``synthetic_seed_sizes`` random-search seed points,
    ``synthetic_repeats`` seed draws each, budgets ``1..max_budget``,
    ``synthetic_batches``/``synthetic_samples`` Monte-Carlo batches and posterior draws.

    NMT part: ``tasks``, candidate ``spaces`` (SPEC of :mod:`nmthpo.benchmark.subspaces`),
    ``table_seed_sizes`` random seed rows, ``table_repeats``, ``table_budgets``,
    ``table_batches``/``table_samples``.

    Applications: pruning at ``prune_budget`` (the predicted-worst ``prune_fraction``);
    select-then-search on ``select_task`` at each of ``select_budgets`` with ``select_trials``
    trials and ``select_seed_size`` seed rows; ``compare_task``: ``space_a`` vs ``space_b`` at
    ``compare_budgets`` from ``compare_seed_size`` seed rows, ``compare_repeats`` repeats.

    ``score`` is the score the chapter discusses (any of
    :data:`nmthpo.studies.ariafar.space_scores.ALL_SCORES`),
    ``seed`` the root seed of everything.
    """

    functions: tuple[str, ...] = _PUBLISHED["functions"]
    fractions: tuple[float, ...] = _PUBLISHED["fractions"]
    boxes_per_fraction: int = _PUBLISHED["boxes_per_fraction"]
    synthetic_seed_sizes: tuple[int, ...] = _PUBLISHED["synthetic_seed_sizes"]
    synthetic_repeats: int = _PUBLISHED["synthetic_repeats"]
    max_budget: int = _PUBLISHED["max_budget"]
    synthetic_batches: int = _PUBLISHED["synthetic_batches"]
    synthetic_samples: int = _PUBLISHED["synthetic_samples"]
    tasks: tuple[str, ...] = _PUBLISHED["tasks"]
    spaces: str = _PUBLISHED["spaces"]
    table_seed_sizes: tuple[int, ...] = _PUBLISHED["table_seed_sizes"]
    table_repeats: int = _PUBLISHED["table_repeats"]
    table_budgets: tuple[int, ...] = _PUBLISHED["table_budgets"]
    table_batches: int = _PUBLISHED["table_batches"]
    table_samples: int = _PUBLISHED["table_samples"]
    prune_budget: int = _PUBLISHED["prune_budget"]
    prune_fraction: float = _PUBLISHED["prune_fraction"]
    select_task: str = _PUBLISHED["select_task"]
    select_budgets: tuple[int, ...] = _PUBLISHED["select_budgets"]
    select_trials: int = _PUBLISHED["select_trials"]
    select_seed_size: int = _PUBLISHED["select_seed_size"]
    compare_task: str = _PUBLISHED["compare_task"]
    space_a: str = _PUBLISHED["space_a"]
    space_b: str = _PUBLISHED["space_b"]
    compare_budgets: tuple[int, ...] = _PUBLISHED["compare_budgets"]
    compare_seed_size: int = _PUBLISHED["compare_seed_size"]
    compare_repeats: int = _PUBLISHED["compare_repeats"]
    score: str = _PUBLISHED["score"]
    seed: int = _PUBLISHED["seed"]

    def __post_init__(self) -> None:
        if self.score not in ALL_SCORES:
            raise ValueError(f"unknown score {self.score!r}; valid: {', '.join(ALL_SCORES)}")
        for name in (
            "boxes_per_fraction",
            "synthetic_repeats",
            "max_budget",
            "table_repeats",
            "synthetic_batches",
            "synthetic_samples",
            "table_batches",
            "table_samples",
            "select_trials",
            "compare_repeats",
        ):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be >= 1; got {getattr(self, name)}")
        if self.prune_budget not in self.table_budgets:
            raise ValueError(
                f"prune_budget {self.prune_budget} must be one of table_budgets "
                f"{list(self.table_budgets)}"
            )

    @classmethod
    def from_values(cls, **values: Any) -> Chapter6Params:
        """Build from notebook parameters; list parameters may be strings (papermill ``-p``).

        Unknown names raise ``TypeError`` naming them.
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise TypeError(f"unknown Chapter 6 parameter(s) {unknown}; valid: {sorted(known)}")
        kinds: dict[str, type] = {
            "functions": str,
            "fractions": float,
            "synthetic_seed_sizes": int,
            "tasks": str,
            "table_seed_sizes": int,
            "table_budgets": int,
            "select_budgets": int,
            "compare_budgets": int,
        }
        out: dict[str, Any] = {}
        for name, v in values.items():
            if name in kinds:
                out[name] = tuple(as_list(v, kinds[name], name))
            else:
                out[name] = v
        return cls(**out)

    def as_dict(self) -> dict[str, Any]:
        """The parameters as plain JSON-ready values."""
        d = asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}


# ------------------------------------------------------------------------------------------
# The cache
# ------------------------------------------------------------------------------------------
def _key(kind: str, params: Mapping[str, Any]) -> str:
    return cache_key({"kind": kind, "params": params, "version": CACHE_VERSION})


def _stem(kind: str, label: str, params: Mapping[str, Any]) -> str:
    """File-name stem of a cache entry: ``<kind>__<label>__<key>``."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", label)
    return f"{kind}__{safe}__{_key(kind, params)}"


def _entry_dir(kind: str, label: str, params: Mapping[str, Any]) -> Path:
    """The book's ``results/scoring`` if it holds the entry (or under ``make results``), else
    the user cache: at run time the book's cache is only read."""
    book = book_dir(CACHE_SUBDIR)
    if writing_results() or (book / f"{_stem(kind, label, params)}.parquet").exists():
        return book
    return user_dir(CACHE_SUBDIR)


#: Columns of each part's frame (what :func:`compute_entry` returns), in order.
_COLUMNS: dict[str, tuple[str, ...]] = {
    "synthetic": (
        "function",
        "seed_size",
        "repeat",
        "space",
        "fraction",
        "budget",
        "score",
        "predicted",
        "empirical",
        "incumbent",
    ),
    "table": (
        "task",
        "seed_size",
        "repeat",
        "space",
        "n_rows",
        "budget",
        "score",
        "predicted",
        "empirical",
        "empirical_norepl",
        "incumbent",
    ),
    "select": (
        "budget",
        "trial",
        "method",
        "where",
        "space",
        "n_rows",
        "best",
        "incumbent",
        "final",
    ),
    "compare": (
        "space_a",
        "space_b",
        "repeat",
        "budget",
        "predicted_a",
        "predicted_b",
        "empirical_a",
        "empirical_b",
        "empirical_norepl_a",
        "empirical_norepl_b",
        "a_better_predicted",
        "a_better_empirical",
        "agree",
    ),
}


def _levels(kind: str, params: Mapping[str, Any]) -> dict[str, set[Any]]:
    """The values each identifying column of a ``kind`` frame must take exactly."""
    q = dict(params)
    out: dict[str, set[Any]] = {}
    for column, name in (("function", "function"), ("task", "task")):
        if name in q and column in _COLUMNS[kind]:
            out[column] = {q[name]}
    for column, name in (("seed_size", "seed_sizes"), ("budget", "budgets")):
        if name in q:
            out[column] = {int(v) for v in q[name]}
    for column, name in (("repeat", "repeats"), ("trial", "trials")):
        if name in q:
            out[column] = set(range(int(q[name])))
    if kind == "select" and "budget" in q:
        out["budget"] = {int(q["budget"])}
    return out


def _frame_problem(kind: str, params: Mapping[str, Any], frame: pd.DataFrame) -> str | None:
    """What is wrong with a cached ``kind`` frame for ``params``, or ``None``.

    Its columns must be those :func:`compute_entry` returns for the kind, and the
    identifying columns (function or task, seed sizes, repeats or trials, budgets) must take
    exactly the values the parameters ask for. A kind of no known part (a caller's own) must
    only be non-empty.
    """
    if frame.empty:
        return "it has no rows"
    if kind not in _COLUMNS:
        return None
    if tuple(frame.columns) != _COLUMNS[kind]:
        return f"its columns {list(frame.columns)} are not {list(_COLUMNS[kind])}"
    for column, values in _levels(kind, params).items():
        got = set(frame[column].tolist())
        if got != values:
            return (
                f"column {column} holds {sorted(got, key=str)[:8]}, the parameters ask "
                f"for {sorted(values, key=str)[:8]}"
            )
    return None


def cached_frame(
    kind: str,
    label: str,
    params: Mapping[str, Any],
    compute: Callable[[], pd.DataFrame],
    cache_dir: str | Path | None = None,
) -> pd.DataFrame:
    """Read the entry ``(kind, params)`` from ``cache_dir``, or compute and store it.

    An entry is reused only if its sidecar (``.params.txt``) records this kind and these
    parameters, its seal matches the file and that record
    (:func:`nmthpo.engine.cache.read_checked`; the book's ``results/scoring`` too) and its
    content has the kind's columns and the parameters' seed sizes, repeats and budgets; a
    damaged, foreign, unsealed or stale entry is named in a warning, moved aside
    (``NAME.bad-N``; one of the book's cache is left in place and the entry is computed into
    the user cache) and recomputed. A computed frame is checked the same way before it is
    written (:func:`nmthpo.engine.cache.write_checked`).

    Parameters
    ----------
    kind : str
        The experiment part (``synthetic``, ``table``, ``select``, ``compare``).
    label : str
        Readable part of the file name (e.g. the task).
    params : mapping
        JSON-serialisable arguments that determine the frame (the cache key).
    compute : callable
        Returns the frame when the entry is missing.
    cache_dir : path, optional
        ``None`` computes without caching.
    """
    if cache_dir is None:
        return compute()
    d = Path(cache_dir)
    pq = d / f"{_stem(kind, label, params)}.parquet"
    record = {"kind": kind, "params": params, "version": CACHE_VERSION}
    cached = read_checked(
        pq,
        record,
        pd.read_parquet,
        lambda f: _frame_problem(kind, params, f),
        sidecar=_SIDECAR,
    )
    if cached is not None:
        return cached
    frame = compute()
    why = _frame_problem(kind, params, frame)
    if why is not None:
        raise RuntimeError(f"the {kind} experiment computed a bad frame ({why}); not cached")
    # the book's results/scoring is only read at run time: write_checked then writes the
    # user cache's copy and returns where it wrote
    written = write_checked(
        pq, lambda p: frame.to_parquet(p, index=False), record, sidecar=_SIDECAR
    )
    return pd.read_parquet(written)


def cache_entries(cache_dir: str | Path | None = None) -> list[tuple[str, dict[str, Any], Path]]:
    """The complete entries of a cache: ``(kind, params, parquet path)``, in name order.

    The default is the book's cache (``results/scoring``).
    """
    d = Path(cache_dir) if cache_dir is not None else book_dir(CACHE_SUBDIR)
    out = []
    for side in sorted(d.glob("*.params.txt")):
        pq = side.with_name(side.name[: -len(".params.txt")] + ".parquet")
        if pq.exists():
            meta = json.loads(side.read_text())
            out.append((str(meta["kind"]), dict(meta["params"]), pq))
    return out


# ------------------------------------------------------------------------------------------
# The experiments
# ------------------------------------------------------------------------------------------
def _synthetic_params(p: Chapter6Params, function: str) -> dict[str, Any]:
    return {
        "function": function,
        "fractions": list(p.fractions),
        "boxes_per_fraction": p.boxes_per_fraction,
        "seed_sizes": list(p.synthetic_seed_sizes),
        "repeats": p.synthetic_repeats,
        "budgets": list(range(1, p.max_budget + 1)),
        "seed": p.seed,
        "n_batches": p.synthetic_batches,
        "n_samples": p.synthetic_samples,
    }


def _table_params(p: Chapter6Params, task: str) -> dict[str, Any]:
    return {
        "task": task,
        "spaces": p.spaces,
        "seed_sizes": list(p.table_seed_sizes),
        "repeats": p.table_repeats,
        "budgets": list(p.table_budgets),
        "seed": p.seed,
        "n_batches": p.table_batches,
        "n_samples": p.table_samples,
    }


def _select_params(p: Chapter6Params, budget: int) -> dict[str, Any]:
    from nmthpo.optimizers.registry import resolve

    out: dict[str, Any] = {
        "task": p.select_task,
        "spaces": p.spaces,
        "budget": int(budget),
        "seed_size": p.select_seed_size,
        "trials": p.select_trials,
        "score": p.score,
        "seed": p.seed,
        "n_batches": p.table_batches,
        "n_samples": p.table_samples,
    }
    # the searches' methods (select_and_search's default): a method whose defaults changed
    # (MethodSpec.revision, GP-BO since issue 25) keys a new entry, as it keys a new run
    revisions = {m: r for m in SELECT_METHODS if (r := resolve(m).revision)}
    if revisions:
        out["revisions"] = revisions
    return out


def _compare_params(p: Chapter6Params) -> dict[str, Any]:
    return {
        "task": p.compare_task,
        "space_a": p.space_a,
        "space_b": p.space_b,
        "budgets": list(p.compare_budgets),
        "seed_size": p.compare_seed_size,
        "repeats": p.compare_repeats,
        "seed": p.seed,
    }


def compute_entry(kind: str, params: Mapping[str, Any]) -> pd.DataFrame:
    """Compute the frame of one cache entry from its parameters (what the cache stores)."""
    q = dict(params)
    if kind == "synthetic":
        return synthetic_experiment(q.pop("function"), **q)
    if kind == "table":
        return table_experiment(q.pop("task"), q.pop("spaces"), **q)
    if kind == "select":
        q.pop("revisions", None)  # a key, not an argument
        budget = int(q.pop("budget"))
        f = select_and_search(q.pop("task"), q.pop("spaces"), budget, **q)
        f.insert(0, "budget", budget)
        return f
    if kind == "compare":
        return compare_spaces(q.pop("task"), q.pop("space_a"), q.pop("space_b"), **q)
    raise ValueError(f"unknown cache entry kind {kind!r}; valid: synthetic, table, select, compare")


def chapter6_entries(params: Chapter6Params | None = None) -> dict[str, list[Entry]]:
    """The cache entries of Chapter 6 per frame: ``(kind, label, params)`` in frame order.

    One entry is one cached frame (:func:`cached_frame`); :func:`chapter6_results`
    concatenates the entries of each frame.
    """
    p = params or Chapter6Params()
    return {
        "synthetic": [("synthetic", f, _synthetic_params(p, f)) for f in p.functions],
        "table": [("table", t, _table_params(p, t)) for t in p.tasks],
        "select": [
            ("select", f"{p.select_task}-b{b}", _select_params(p, b)) for b in p.select_budgets
        ],
        "compare": [("compare", p.compare_task, _compare_params(p))],
    }


def _entry_frame(entry: Entry, cache: bool, cache_dir: str | Path | None) -> pd.DataFrame:
    kind, label, q = entry
    where = (
        None
        if not cache
        else (Path(cache_dir) if cache_dir is not None else _entry_dir(kind, label, q))
    )
    return cached_frame(kind, label, q, lambda: compute_entry(kind, q), where)


def chapter6_results(
    params: Chapter6Params | None = None,
    cache: bool = True,
    cache_dir: str | Path | None = None,
    jobs: int = 1,
) -> dict[str, pd.DataFrame]:
    """Every experiment frame of Chapter 6, read from the cache or computed (and stored).

    ``chapter6_results()`` with the default (published) parameters reads (under
    ``make results``: fills) the book's ``results/scoring``; without ``cache_dir`` each entry
    the book's cache lacks is computed into the user cache
    (:func:`nmthpo.studies.grids.user_dir`). ``cache=False`` computes in memory. ``jobs > 1``
    computes the entries in that many worker processes (each entry is seeded by its own
    parameters, so the frames are the same as with one).

    Returns
    -------
    dict
        ``"synthetic"`` (:func:`nmthpo.studies.ariafar.space_scores.synthetic_experiment` of
        every function, concatenated), ``"table"``
        (:func:`nmthpo.studies.ariafar.space_scores.table_experiment` of every task), ``"select"``
        (:func:`nmthpo.studies.ariafar.space_scores.select_and_search` per budget, with a
        ``budget`` column) and ``"compare"``
        (:func:`nmthpo.studies.ariafar.space_scores.compare_spaces`).
    """
    entries = chapter6_entries(params)
    flat = [e for group in entries.values() for e in group]
    if jobs > 1:
        from joblib import Parallel, delayed

        frames = Parallel(n_jobs=jobs)(delayed(_entry_frame)(e, cache, cache_dir) for e in flat)
    else:
        frames = [_entry_frame(e, cache, cache_dir) for e in flat]
    out, i = {}, 0
    for name, group in entries.items():
        out[name] = pd.concat(frames[i : i + len(group)], ignore_index=True)
        i += len(group)
    return out


# ------------------------------------------------------------------------------------------
# Summaries
# ------------------------------------------------------------------------------------------
def _domain(frame: pd.DataFrame) -> str:
    return "task" if "task" in frame.columns else "function"


def faithfulness_summary(
    frame: pd.DataFrame, score: str = "mean-b-ei", empirical: str = "empirical"
) -> pd.DataFrame:
    """Mean Kendall tau, Spearman rho (with its spread), top-1 hit rate and regret over repeats.

    Per (task or function, seed size, budget) of
    :func:`nmthpo.studies.ariafar.space_scores.faithfulness_table`;
    a repeat whose correlation is undefined (constant scores) is left out of that mean and
    counted in ``n_undefined``. ``spearman_sd`` is the standard deviation of Spearman's rho
    over the repeats and ``spearman_low``/``spearman_high`` the 95 % Student-t interval of its
    mean (``mean -/+ t_{0.975, r-1} sd / sqrt(r)``, ``r`` defined repeats, clipped to
    [-1, 1] where a correlation lives; ``NaN`` when fewer than two): with 3-5 seed draws per cell a
    bootstrap over repeats would be too coarse.
    """
    from scipy.stats import t as student_t

    f = faithfulness_table(frame, score, empirical)
    keys = [_domain(frame), "seed_size", "budget"]
    g = f.groupby(keys, sort=False)
    out = g.agg(
        kendall_tau=("kendall_tau", "mean"),
        spearman=("spearman", "mean"),
        spearman_sd=("spearman", "std"),
        top1=("top1", "mean"),
        regret=("regret", "mean"),
        repeats=("top1", "size"),
    ).reset_index()
    n_def = g["spearman"].count().to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        half = np.where(
            n_def > 1,
            student_t.ppf(0.975, np.maximum(n_def - 1, 1))
            * out["spearman_sd"].to_numpy()
            / np.sqrt(n_def),
            np.nan,
        )
    out.insert(
        out.columns.get_loc("spearman_sd") + 1,
        "spearman_low",
        (out["spearman"] - half).clip(lower=-1.0),
    )
    out.insert(
        out.columns.get_loc("spearman_low") + 1,
        "spearman_high",
        (out["spearman"] + half).clip(upper=1.0),
    )
    out["n_undefined"] = g["kendall_tau"].apply(lambda s: int(s.isna().sum())).to_numpy()
    return out


def preferred_summary(frame: pd.DataFrame, score: str = "mean-b-ei") -> pd.DataFrame:
    """Size of the preferred space per budget, predicted and empirical, over repeats.

    Per (task or function, seed size, budget): the mean size (rows of a sub-grid, or volume
    fraction of a box) of the predicted-best and of the empirical-best space, the share of
    repeats in which the predicted-best space is the *full* space, and the most frequent
    predicted-best space label.
    """
    size = "n_rows" if "n_rows" in frame.columns else "fraction"
    pred = preferred_spaces(frame, score, "predicted")
    emp = preferred_spaces(frame, score, "empirical")
    keys = [_domain(frame), "seed_size", "budget"]
    full = frame[size].max()
    a = pred.groupby(keys, sort=False).agg(
        predicted_size=(size, "mean"),
        predicted_full=(size, lambda s: float(np.mean(s >= full))),
        predicted_mode=("space", lambda s: str(s.value_counts().index[0])),
    )
    b = emp.groupby(keys, sort=False).agg(empirical_size=(size, "mean"))
    return a.join(b).reset_index()


def seed_size_summary(summary: pd.DataFrame) -> pd.DataFrame:
    """Means over budgets of :func:`faithfulness_summary` per (task or function, seed size).

    ``spearman_sd`` (when the summary has it) is the mean over budgets of the spread of
    Spearman's rho between seed draws: how much one seed draw's ranking quality varies.
    """
    dom = _domain(summary)
    cols = [
        "kendall_tau",
        "spearman",
        *(["spearman_sd"] if "spearman_sd" in summary else []),
        "top1",
        "regret",
    ]
    return summary.groupby([dom, "seed_size"], sort=False)[cols].mean().reset_index()


def prune_summary(
    frame: pd.DataFrame, budget: int, score: str = "mean-b-ei", fraction: float = 0.5
) -> pd.DataFrame:
    """:func:`nmthpo.studies.ariafar.space_scores.prune_spaces` averaged over repeats per (task,
    seed size).

    ``best_kept`` becomes the share of repeats in which an empirical-best space survives;
    ``precision`` the mean share of pruned spaces in the empirical bottom ``fraction``.
    """
    pr = prune_spaces(frame, budget, score, fraction)
    keys = [_domain(frame), "seed_size"]
    return (
        pr.groupby(keys, sort=False)
        .agg(
            n_spaces=("n_spaces", "first"),
            n_pruned=("n_pruned", "first"),
            best_kept=("best_kept", "mean"),
            precision=("precision", "mean"),
            empirical_kept=("empirical_kept", "mean"),
            empirical_pruned=("empirical_pruned", "mean"),
        )
        .reset_index()
    )


def selection_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Select-then-search (:func:`nmthpo.studies.ariafar.space_scores.select_and_search`) per
    budget and method.

    Mean best BLEU of the search (``best``) and including the seed data (``final``) inside the
    selected space and in the full space; ``selected_wins``/``full_wins`` count trials where
    one search's own best is strictly higher than the paired other's.
    """
    w = frame.pivot_table(
        index=["budget", "method", "trial"], columns="where", values=["best", "final"]
    )
    d = w[("best", "selected")] - w[("best", "full")]
    out = (
        pd.DataFrame(
            {
                "best_selected": w[("best", "selected")],
                "best_full": w[("best", "full")],
                "final_selected": w[("final", "selected")],
                "final_full": w[("final", "full")],
                "selected_wins": (d > 0).astype(float),
                "full_wins": (d < 0).astype(float),
            }
        )
        .groupby(level=["budget", "method"], sort=False)
        .agg(
            {
                "best_selected": "mean",
                "best_full": "mean",
                "final_selected": "mean",
                "final_full": "mean",
                "selected_wins": "sum",
                "full_wins": "sum",
            }
        )
    )
    out["trials"] = frame.groupby(["budget", "method"], sort=False)["trial"].nunique()
    return out.reset_index()


def comparison_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """``space_a`` vs ``space_b`` (:func:`nmthpo.studies.ariafar.space_scores.compare_spaces`) per
    budget.

    Means over repeats of the predicted and empirical (with replacement) expected best BLEU of
    both spaces, the share of repeats predicting A better, and the share agreeing with the
    empirical verdict; ``truth`` is the empirical verdict without replacement (a real search
    of the table), the same in every repeat.
    """
    g = frame.groupby("budget", sort=True)
    out = g.agg(
        predicted_a=("predicted_a", "mean"),
        predicted_b=("predicted_b", "mean"),
        empirical_a=("empirical_a", "mean"),
        empirical_b=("empirical_b", "mean"),
        a_better_predicted=("a_better_predicted", "mean"),
        agree=("agree", "mean"),
    ).reset_index()
    t = g.apply(
        lambda d: bool((d["empirical_norepl_a"] > d["empirical_norepl_b"]).all()),
        include_groups=False,
    )
    out["truth"] = np.where(t.to_numpy(), "A better", "B better")
    return out
