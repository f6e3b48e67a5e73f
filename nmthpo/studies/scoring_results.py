"""Chapter 6's experiments (Ariafar et al. 2022): cached frames, summaries and verdicts.

The experiments of :mod:`nmthpo.studies.space_scores` take minutes at the published parameters, too
long to
run inside the chapter. :func:`chapter6_results` computes every frame the chapter shows and
stores it as Parquet under the book's ``results/scoring`` (or, for other parameters, the user
cache: :mod:`nmthpo.studies.grids`), keyed by the
parameters that determine it (a second call with the same parameters reads the files back).
:func:`claims` sets each of the paper's claims beside our measurement with a verdict computed
by code.

Cache layout: one entry per experiment *part* (a synthetic function, a task's table
experiment, one selection budget, the space comparison), ``<kind>__<label>__<hash>.parquet``
with a sidecar ``.params.txt`` holding the JSON of the parameters (``hash`` is the first 16
hex digits of its SHA-256). The sidecar is written first and the Parquet file last, both
through a temporary file renamed into place, so an entry exists only once complete. The
sidecar is not called ``.json`` because :func:`nmthpo.engine.runner.cached_runs` reads every
``*.json`` of a results directory as a run specification.

Every part's rows for one (seed size, repeat) (or one trial) depend only on the seed and that
pair (the generators of :mod:`nmthpo.studies.space_scores` are ``default_rng([seed, 0, n, r])``),
so a
slice of an entry can be recomputed alone; ``tests/test_scoring_results.py`` does that to keep
the cache from drifting from the code.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from nmthpo.studies.grids import FOLDERS, book_dir, user_dir, writing_results
from nmthpo.studies.grids import SCORING as _PUBLISHED
from nmthpo.studies.space_scores import (
    ALL_SCORES,
    calibration,
    compare_spaces,
    faithfulness_table,
    preferred_spaces,
    prune_spaces,
    select_and_search,
    synthetic_experiment,
    table_experiment,
)

__all__ = [
    "CACHE_SUBDIR",
    "PAPER_CLAIMS",
    "as_list",
    "Chapter6Params",
    "cache_entries",
    "cached_frame",
    "chapter6_results",
    "claims",
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


def as_list(value: Any, kind: type, name: str) -> list[Any]:
    """A list parameter from a list, one value, ``"a,b"`` or a JSON list (papermill ``-p``)."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                items = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{name}={value!r} is not a JSON list ({exc})") from None
        else:
            items = [t for t in text.split(",") if t.strip()]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        items = [value]
    try:
        return [kind(v.strip()) if isinstance(v, str) else kind(v) for v in items]
    except (TypeError, ValueError):
        raise ValueError(
            f"{name}={value!r}: expected a list of {kind.__name__} such as [5, 10]"
        ) from None


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
    :data:`nmthpo.studies.space_scores.ALL_SCORES`),
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
        for name in ("boxes_per_fraction", "synthetic_repeats", "max_budget", "table_repeats",
                     "synthetic_batches", "synthetic_samples", "table_batches",
                     "table_samples", "select_trials", "compare_repeats"):
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
            "functions": str, "fractions": float, "synthetic_seed_sizes": int, "tasks": str,
            "table_seed_sizes": int, "table_budgets": int, "select_budgets": int,
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
    text = json.dumps({"kind": kind, "params": params, "version": CACHE_VERSION},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _atomic_write(path: Path, write: Callable[[Path], object]) -> None:
    fd, tmp_name = tempfile.mkstemp(prefix=f".tmp-{path.stem}-", suffix=path.suffix,
                                    dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600 files
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


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


def cached_frame(
    kind: str,
    label: str,
    params: Mapping[str, Any],
    compute: Callable[[], pd.DataFrame],
    cache_dir: str | Path | None = None,
) -> pd.DataFrame:
    """Read the entry ``(kind, params)`` from ``cache_dir``, or compute and store it.

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
    d.mkdir(parents=True, exist_ok=True)
    stem = _stem(kind, label, params)
    pq = d / f"{stem}.parquet"
    if pq.exists():
        return pd.read_parquet(pq)
    frame = compute()
    side = d / f"{stem}.params.txt"
    body = json.dumps({"kind": kind, "params": params, "version": CACHE_VERSION},
                      sort_keys=True, indent=1, default=str) + "\n"
    _atomic_write(side, lambda p: p.write_text(body))
    _atomic_write(pq, lambda p: frame.to_parquet(p, index=False))
    return pd.read_parquet(pq)


def cache_entries(cache_dir: str | Path | None = None) -> list[tuple[str, dict[str, Any], Path]]:
    """The complete entries of a cache: ``(kind, params, parquet path)``, in name order."""
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
    return {"function": function, "fractions": list(p.fractions),
            "boxes_per_fraction": p.boxes_per_fraction,
            "seed_sizes": list(p.synthetic_seed_sizes), "repeats": p.synthetic_repeats,
            "budgets": list(range(1, p.max_budget + 1)), "seed": p.seed,
            "n_batches": p.synthetic_batches, "n_samples": p.synthetic_samples}


def _table_params(p: Chapter6Params, task: str) -> dict[str, Any]:
    return {"task": task, "spaces": p.spaces, "seed_sizes": list(p.table_seed_sizes),
            "repeats": p.table_repeats, "budgets": list(p.table_budgets), "seed": p.seed,
            "n_batches": p.table_batches, "n_samples": p.table_samples}


def _select_params(p: Chapter6Params, budget: int) -> dict[str, Any]:
    return {"task": p.select_task, "spaces": p.spaces, "budget": int(budget),
            "seed_size": p.select_seed_size, "trials": p.select_trials, "score": p.score,
            "seed": p.seed, "n_batches": p.table_batches, "n_samples": p.table_samples}


def _compare_params(p: Chapter6Params) -> dict[str, Any]:
    return {"task": p.compare_task, "space_a": p.space_a, "space_b": p.space_b,
            "budgets": list(p.compare_budgets), "seed_size": p.compare_seed_size,
            "repeats": p.compare_repeats, "seed": p.seed}


def compute_entry(kind: str, params: Mapping[str, Any]) -> pd.DataFrame:
    """Compute the frame of one cache entry from its parameters (what the cache stores)."""
    q = dict(params)
    if kind == "synthetic":
        return synthetic_experiment(q.pop("function"), **q)
    if kind == "table":
        return table_experiment(q.pop("task"), q.pop("spaces"), **q)
    if kind == "select":
        budget = int(q.pop("budget"))
        f = select_and_search(q.pop("task"), q.pop("spaces"), budget, **q)
        f.insert(0, "budget", budget)
        return f
    if kind == "compare":
        return compare_spaces(q.pop("task"), q.pop("space_a"), q.pop("space_b"), **q)
    raise ValueError(f"unknown cache entry kind {kind!r}; valid: synthetic, table, select, "
                     "compare")


def chapter6_results(
    params: Chapter6Params | None = None, cache: bool = True,
    cache_dir: str | Path | None = None,
) -> dict[str, pd.DataFrame]:
    """Every experiment frame of Chapter 6, read from the cache or computed (and stored).

    ``chapter6_results()`` with the default (published) parameters reads (under
    ``make results``: fills) the book's ``results/scoring``; without ``cache_dir`` each entry
    the book's cache lacks is computed into the user cache
    (:func:`nmthpo.studies.grids.user_dir`). ``cache=False`` computes in memory.

    Returns
    -------
    dict
        ``"synthetic"`` (:func:`nmthpo.studies.space_scores.synthetic_experiment` of every function,
        concatenated), ``"table"`` (:func:`nmthpo.studies.space_scores.table_experiment` of every
        task),
        ``"select"`` (:func:`nmthpo.studies.space_scores.select_and_search` per budget, with a
        ``budget``
        column) and ``"compare"`` (:func:`nmthpo.studies.space_scores.compare_spaces`).
    """
    p = params or Chapter6Params()

    def get(kind: str, label: str, q: dict[str, Any]) -> pd.DataFrame:
        where = None if not cache else (
            Path(cache_dir) if cache_dir is not None else _entry_dir(kind, label, q))
        return cached_frame(kind, label, q, lambda: compute_entry(kind, q), where)

    return {
        "synthetic": pd.concat([get("synthetic", f, _synthetic_params(p, f))
                                for f in p.functions], ignore_index=True),
        "table": pd.concat([get("table", t, _table_params(p, t)) for t in p.tasks],
                           ignore_index=True),
        "select": pd.concat([get("select", f"{p.select_task}-b{b}", _select_params(p, b))
                             for b in p.select_budgets], ignore_index=True),
        "compare": get("compare", p.compare_task, _compare_params(p)),
    }


# ------------------------------------------------------------------------------------------
# Summaries
# ------------------------------------------------------------------------------------------
def _domain(frame: pd.DataFrame) -> str:
    return "task" if "task" in frame.columns else "function"


def faithfulness_summary(
    frame: pd.DataFrame, score: str = "mean-b-ei", empirical: str = "empirical"
) -> pd.DataFrame:
    """Mean Kendall tau, Spearman rho, top-1 hit rate and regret over repeats.

    Per (task or function, seed size, budget) of
    :func:`nmthpo.studies.space_scores.faithfulness_table`;
    a repeat whose correlation is undefined (constant scores) is left out of that mean and
    counted in ``n_undefined``.
    """
    f = faithfulness_table(frame, score, empirical)
    keys = [_domain(frame), "seed_size", "budget"]
    g = f.groupby(keys, sort=False)
    out = g.agg(kendall_tau=("kendall_tau", "mean"), spearman=("spearman", "mean"),
                top1=("top1", "mean"), regret=("regret", "mean"),
                repeats=("top1", "size")).reset_index()
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
    """Means over budgets of :func:`faithfulness_summary` per (task or function, seed size)."""
    dom = _domain(summary)
    return summary.groupby([dom, "seed_size"], sort=False)[
        ["kendall_tau", "spearman", "top1", "regret"]].mean().reset_index()


def prune_summary(
    frame: pd.DataFrame, budget: int, score: str = "mean-b-ei", fraction: float = 0.5
) -> pd.DataFrame:
    """:func:`nmthpo.studies.space_scores.prune_spaces` averaged over repeats per (task, seed size).

    ``best_kept`` becomes the share of repeats in which an empirical-best space survives;
    ``precision`` the mean share of pruned spaces in the empirical bottom ``fraction``.
    """
    pr = prune_spaces(frame, budget, score, fraction)
    keys = [_domain(frame), "seed_size"]
    return pr.groupby(keys, sort=False).agg(
        n_spaces=("n_spaces", "first"), n_pruned=("n_pruned", "first"),
        best_kept=("best_kept", "mean"), precision=("precision", "mean"),
        empirical_kept=("empirical_kept", "mean"),
        empirical_pruned=("empirical_pruned", "mean")).reset_index()


def selection_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Select-then-search (:func:`nmthpo.studies.space_scores.select_and_search`) per budget and
    method.

    Mean best BLEU of the search (``best``) and including the seed data (``final``) inside the
    selected space and in the full space; ``selected_wins``/``full_wins`` count trials where
    one search's own best is strictly higher than the paired other's.
    """
    w = frame.pivot_table(index=["budget", "method", "trial"], columns="where",
                          values=["best", "final"])
    d = w[("best", "selected")] - w[("best", "full")]
    out = pd.DataFrame({
        "best_selected": w[("best", "selected")], "best_full": w[("best", "full")],
        "final_selected": w[("final", "selected")], "final_full": w[("final", "full")],
        "selected_wins": (d > 0).astype(float), "full_wins": (d < 0).astype(float),
    }).groupby(level=["budget", "method"], sort=False).agg(
        {"best_selected": "mean", "best_full": "mean", "final_selected": "mean",
         "final_full": "mean", "selected_wins": "sum", "full_wins": "sum"})
    out["trials"] = frame.groupby(["budget", "method"], sort=False)["trial"].nunique()
    return out.reset_index()


def comparison_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """``space_a`` vs ``space_b`` (:func:`nmthpo.studies.space_scores.compare_spaces`) per budget.

    Means over repeats of the predicted and empirical (with replacement) expected best BLEU of
    both spaces, the share of repeats predicting A better, and the share agreeing with the
    empirical verdict; ``truth`` is the empirical verdict without replacement (a real search
    of the table), the same in every repeat.
    """
    g = frame.groupby("budget", sort=True)
    out = g.agg(predicted_a=("predicted_a", "mean"), predicted_b=("predicted_b", "mean"),
                empirical_a=("empirical_a", "mean"), empirical_b=("empirical_b", "mean"),
                a_better_predicted=("a_better_predicted", "mean"),
                agree=("agree", "mean")).reset_index()
    t = g.apply(lambda d: bool((d["empirical_norepl_a"] > d["empirical_norepl_b"]).all()),
                include_groups=False)
    out["truth"] = np.where(t.to_numpy(), "A better", "B better")
    return out


# ------------------------------------------------------------------------------------------
# Claims
# ------------------------------------------------------------------------------------------
#: The paper's claims as it states them (Ariafar et al. 2022; quoted or closely paraphrased).
PAPER_CLAIMS: dict[str, str] = {
    "faithful": "scores usually were rank preserving (Conclusion)",
    "overestimate": "they sometimes overestimated the magnitude of improvement (Conclusion)",
    "little_data": "they performed poorly when conditioned on little data (Conclusion)",
    "broader": "larger budgets tend to favor broader search spaces (Introduction)",
    "prune": "scores can help prune bad regions of an initial broad space (Section 3.1)",
    "select": "scores can select the most promising, budget-appropriate space to search next "
              "(Section 3.1)",
    "compare": "comparing the scores of two spaces answers 'is A better than B at budget b?' "
               "(Section 3.1)",
}


def _verdict(ok: bool, partly: bool = False) -> str:
    return "reproduced" if ok else ("partly" if partly else "not reproduced")


def claims(results: Mapping[str, pd.DataFrame], params: Chapter6Params | None = None
           ) -> pd.DataFrame:
    """Each claim of the paper beside our measurement, with a verdict computed here.

    The paper prints no numbers for these claims in the text we have, so the rules are ours:

    * ``faithful``: mean Spearman rho per task/function (over seed sizes, budgets, repeats)
      of the chosen score; *reproduced* if > 0.5 for every task/function and positive in
      >= 80% of the (domain, seed size, budget) cells, *partly* if the mean over
      tasks/functions is > 0.
    * ``overestimate``: share of (space, repeat, budget) cells with predicted > empirical;
      *reproduced* if it exceeds 0.5 in some (domain, seed size), i.e. the model
      over-estimates systematically somewhere, *partly* if it ever does (> 0).
    * ``little_data``: mean Spearman at the smallest vs the largest seed size; *reproduced*
      if the smallest is lower by more than 0.1 in every domain, *partly* in some.
    * ``broader``: Spearman correlation of budget with the mean size of the empirical-best
      space (and of the predicted-best), per (domain, seed size); *reproduced* if the median
      over cells is > 0 for both, *partly* if for the empirical one only.
    * ``prune``: at ``prune_budget``, the share of repeats in which an empirical-best space
      survives pruning and the precision (chance: ``prune_fraction`` of the worst);
      *reproduced* if best kept >= 0.8 and precision > 0.5, *partly* if either.
    * ``select``: mean best BLEU of searching the selected space minus searching the full
      space, per budget and method; *reproduced* if >= 0 for all, *partly* if for some.
    * ``compare``: share of (repeat, budget) whose predicted verdict agrees with the
      empirical one; *reproduced* if >= 0.8, *partly* if >= 0.5.

    Returns
    -------
    DataFrame with columns claim, paper, ours, verdict
    """
    p = params or Chapter6Params()
    rows = []
    frames = {k: results[k] for k in ("synthetic", "table") if k in results}

    faith = {k: faithfulness_summary(f, p.score) for k, f in frames.items()}
    per_name = pd.concat([f.groupby(_domain(frames[k]), sort=False)["spearman"].mean()
                          for k, f in faith.items()])
    cells = pd.concat([f["spearman"] for f in faith.values()]).dropna()
    parts = ", ".join(f"{k} {v:.2f}" for k, v in per_name.items())
    rows.append(("faithful", f"mean Spearman per domain: {parts}; positive in "
                 f"{(cells > 0).mean():.0%} of (domain, seed size, budget) cells",
                 _verdict(bool((per_name > 0.5).all()) and (cells > 0).mean() >= 0.8,
                          bool(per_name.mean() > 0))))

    over = []
    for k, f in frames.items():
        c = calibration(f, p.score)
        keys = [_domain(f), "seed_size"]
        over.append(c.groupby(keys)["overestimated"].mean().rename(k))
    ov = pd.concat(over)
    ratio = pd.concat([calibration(f, p.score)["ratio"] for f in frames.values()]).dropna()
    rows.append(("overestimate", f"predicted > empirical in {ov.min():.0%}-{ov.max():.0%} of "
                 f"cells per (domain, seed size); median ratio {ratio.median():.2f}",
                 _verdict(bool((ov > 0.5).any()), bool((ov > 0).any()))))

    drops, texts = [], []
    for k, f in faith.items():
        dom = _domain(frames[k])
        for name, g in f.groupby(dom, sort=False):
            m = g.groupby("seed_size")["spearman"].mean()
            drops.append(m.iloc[-1] - m.iloc[0])
            texts.append(f"{name} {m.iloc[0]:.2f} (n={m.index[0]}) vs {m.iloc[-1]:.2f} "
                         f"(n={m.index[-1]})")
    d = np.asarray(drops)
    rows.append(("little_data", "Spearman " + "; ".join(texts),
                 _verdict(bool(np.all(d > 0.1)), bool(np.any(d > 0.1)))))

    cors_e: list[float] = []
    cors_p: list[float] = []
    for f in frames.values():
        pref = preferred_summary(f, p.score)
        for _, g in pref.groupby([_domain(f), "seed_size"], sort=False):
            if g["budget"].nunique() > 1:
                for col, acc in (("empirical_size", cors_e), ("predicted_size", cors_p)):
                    r = stats.spearmanr(g["budget"], g[col]).statistic \
                        if np.ptp(g[col].to_numpy()) > 0 else 0.0
                    acc.append(float(r))
    me, mp = float(np.median(cors_e)), float(np.median(cors_p))
    rows.append(("broader", f"median Spearman(budget, size of best space): empirical "
                 f"{me:.2f}, predicted {mp:.2f}", _verdict(me > 0 and mp > 0, me > 0)))

    if "table" in frames:
        pr = prune_spaces(frames["table"], p.prune_budget, p.score, p.prune_fraction)
        kept, prec = float(pr["best_kept"].mean()), float(pr["precision"].mean())
        rows.append(("prune", f"b={p.prune_budget}: best space kept in {kept:.0%} of repeats; "
                     f"precision {prec:.2f} (chance 0.5)",
                     _verdict(kept >= 0.8 and prec > 0.5, kept >= 0.8 or prec > 0.5)))

    if "select" in results:
        s = selection_summary(results["select"])
        diff = s["best_selected"] - s["best_full"]
        txt = "; ".join(f"{r.method} b={r.budget}: {dv:+.2f}"
                        for r, dv in zip(s.itertuples(), diff, strict=True))
        rows.append(("select", f"BLEU(selected) - BLEU(full): {txt}",
                     _verdict(bool((diff >= 0).all()), bool((diff >= 0).any()))))

    if "compare" in results:
        c = results["compare"]
        agree = float(c["agree"].mean())
        rows.append(("compare", f"{c['space_a'].iloc[0]} vs {c['space_b'].iloc[0]}: verdicts "
                     f"agree in {agree:.0%} of (repeat, budget)",
                     _verdict(agree >= 0.8, agree >= 0.5)))

    return pd.DataFrame([{"claim": k, "paper": PAPER_CLAIMS[k], "ours": o, "verdict": v}
                         for k, o, v in rows])
