"""Search-space scores at work (Ariafar et al. 2022, Sections 4-5): experiments and applications.

The score mathematics (Eq. 1: exact empirical scores from order statistics, Monte-Carlo
predicted scores, faithfulness) is :mod:`nmthpo.models.space_scores`, re-exported here. This
module runs it on the NMT tables and on synthetic functions, the functions the Chapter 6
notebook calls: :func:`fit_seed_gp`, :func:`score_table_spaces`, :func:`table_experiment`,
:func:`synthetic_experiment`, :func:`faithfulness_table`, :func:`preferred_spaces`,
:func:`calibration`, :func:`prune_spaces`, :func:`search_in_rows`, :func:`select_and_search`,
:func:`compare_spaces`.

Choices the paper leaves open are stated in :mod:`nmthpo.models.space_scores` and again where
they are made; the model is the exact GP of :mod:`nmthpo.models.gp` (Matérn-5/2 ARD by
default, type-II ML with 2 random restarts), fitted once on the seed data; tables use the
``scaled`` encoding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from nmthpo.benchmark.subspaces import DEFAULT_SPEC, SubGrid, parse_space, parse_spaces, space_rows
from nmthpo.benchmark.synthetic import dense_sample, get_function, random_boxes
from nmthpo.benchmark.tables import LookupTable, load_table
from nmthpo.models.gp import GaussianProcess
from nmthpo.models.space_scores import (
    ALL_SCORES,
    SCORES,
    check_budgets,
    empirical_scores,
    exact_b1_scores,
    faithfulness,
    order_statistic_cdf,
    predicted_scores_finite,
    predicted_scores_sampler,
    sample_posterior,
    scores_from_joint_draws,
)
from nmthpo.optimizers.registry import make_optimizer

__all__ = [
    "ALL_SCORES",
    "SCORES",
    "SELECT_METHODS",
    "calibration",
    "check_budgets",
    "compare_spaces",
    "empirical_scores",
    "exact_b1_scores",
    "faithfulness",
    "faithfulness_table",
    "fit_seed_gp",
    "order_statistic_cdf",
    "predicted_scores_finite",
    "predicted_scores_sampler",
    "preferred_spaces",
    "prune_spaces",
    "sample_posterior",
    "score_table_spaces",
    "scores_from_joint_draws",
    "search_in_rows",
    "select_and_search",
    "synthetic_experiment",
    "table_experiment",
]


# ================================================================================================
# 4. Experiments and applications
# ================================================================================================
def fit_seed_gp(
    X: np.ndarray,
    y: np.ndarray,
    rng: np.random.Generator,
    kernel: str = "matern52",
    restarts: int = 2,
) -> GaussianProcess:
    """The GP conditioned on the seed data: type-II ML with ``restarts`` random restarts."""
    return GaussianProcess(kernel).fit(X, y, rng=rng, restarts=restarts)


def _noise_var(gp: GaussianProcess, x: np.ndarray) -> float:
    """The GP's observation-noise variance in the units of ``y``."""
    _, v_noisy = gp.predict(x[:1], include_noise=True)
    _, v = gp.predict(x[:1])
    return float(max(v_noisy[0] - v[0], 0.0))


def _resolve_spaces(
    table: LookupTable, spaces: str | Sequence[SubGrid | str], rng: np.random.Generator
) -> list[SubGrid]:
    if isinstance(spaces, str):
        return parse_spaces(spaces, table.configs, rng)
    from nmthpo.benchmark.subspaces import grid_values

    grid = grid_values(table.configs)
    out = [s if isinstance(s, SubGrid) else parse_space(s, grid) for s in spaces]
    if not out:
        raise ValueError("give at least one candidate space")
    return out


def score_table_spaces(
    table: LookupTable,
    spaces: Sequence[SubGrid],
    seed_rows: np.ndarray,
    budgets: Sequence[int] | np.ndarray,
    rng: np.random.Generator,
    *,
    kernel: str = "matern52",
    restarts: int = 2,
    n_batches: int = 256,
    n_samples: int = 256,
    include_noise: bool = True,
    encoding: str = "scaled",
) -> pd.DataFrame:
    """Predicted and exact empirical scores of sub-grids of one table (Section 3 on a table).

    The GP is fitted once on the BLEU of ``seed_rows`` (incumbent ``y+`` = their best); the
    joint posterior of every row of the union of the spaces is sampled once and shared by all
    spaces (:func:`predicted_scores_finite`, batches with replacement as in the paper). A
    space contains all its rows, seed rows included.

    Returns
    -------
    DataFrame
        One row per (space, budget, score) with columns ``space`` (label), ``n_rows``,
        ``budget``, ``score``, ``predicted``, ``empirical`` (with replacement, the paper's
        definition), ``empirical_norepl`` (without replacement, a table search) and
        ``incumbent``.
    """
    b = check_budgets(budgets)
    seed_rows = np.asarray(seed_rows, dtype=np.int64)
    if seed_rows.size == 0:
        raise ValueError("seed data must contain at least one row")
    X = table.encode(encoding)
    y = table.bleu
    incumbent = float(y[seed_rows].max())
    gp = fit_seed_gp(X[seed_rows], y[seed_rows], rng, kernel, restarts)
    rows_per_space = [space_rows(s, table.configs) for s in spaces]
    union = np.unique(np.concatenate(rows_per_space))
    pos = np.full(table.n_rows, -1, dtype=np.int64)
    pos[union] = np.arange(union.size)
    mean, cov = gp.predict(X[union], full_cov=True)
    noise = _noise_var(gp, X) if include_noise else 0.0
    pred = predicted_scores_finite(
        mean,
        cov,
        [pos[r] for r in rows_per_space],
        incumbent,
        b,
        rng,
        n_batches=n_batches,
        n_samples=n_samples,
        replace=True,
        noise_var=noise,
    )
    records: list[dict[str, Any]] = []
    for i, (space, rows) in enumerate(zip(spaces, rows_per_space, strict=True)):
        emp = empirical_scores(y[rows], incumbent, b, replace=True)
        emp_wor = empirical_scores(y[rows], incumbent, b, replace=False)
        for j, bj in enumerate(b):
            for k in ALL_SCORES:
                records.append(
                    {
                        "space": space.label,
                        "n_rows": int(rows.size),
                        "budget": int(bj),
                        "score": k,
                        "predicted": float(pred[k][i, j]),
                        "empirical": float(emp[k][j]),
                        "empirical_norepl": float(emp_wor[k][j]),
                        "incumbent": incumbent,
                    }
                )
    return pd.DataFrame.from_records(records)


def table_experiment(
    task: str,
    spaces: str | Sequence[SubGrid | str] = DEFAULT_SPEC,
    *,
    seed_sizes: Sequence[int] = (10, 20, 50),
    repeats: int = 3,
    budgets: Sequence[int] = (1, 2, 5, 10, 20, 50),
    seed: int = 0,
    kernel: str = "matern52",
    n_batches: int = 256,
    n_samples: int = 256,
    include_noise: bool = True,
) -> pd.DataFrame:
    """Score candidate sub-grids of ``task``'s table for several seed-data sizes and repeats.

    Spaces (a SPEC string, see :mod:`nmthpo.benchmark.subspaces`, or a list of spaces/space SPECs)
    are
    expanded once with ``default_rng([seed, 1])``, so every repeat scores the same spaces.
    Repeat ``r`` at seed size ``n`` draws ``n`` distinct seed rows uniformly from the whole
    table (random search in the enclosing space) with ``default_rng([seed, 0, n, r])``,
    which also drives the GP restarts and the Monte Carlo.

    Returns
    -------
    DataFrame
        :func:`score_table_spaces`'s columns plus ``task``, ``seed_size``, ``repeat``.
    """
    table = load_table(task)
    b = check_budgets(budgets)
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1; got {repeats}")
    for n in seed_sizes:
        if not 1 <= int(n) <= table.n_rows:
            raise ValueError(f"seed size must be between 1 and {table.n_rows}; got {n}")
    cands = _resolve_spaces(table, spaces, np.random.default_rng([seed, 1]))
    frames = []
    for n in seed_sizes:
        for r in range(repeats):
            rng = np.random.default_rng([seed, 0, int(n), r])
            seed_rows = rng.choice(table.n_rows, size=int(n), replace=False)
            f = score_table_spaces(
                table,
                cands,
                seed_rows,
                b,
                rng,
                kernel=kernel,
                n_batches=n_batches,
                n_samples=n_samples,
                include_noise=include_noise,
            )
            f.insert(0, "repeat", r)
            f.insert(0, "seed_size", int(n))
            f.insert(0, "task", task)
            frames.append(f)
    return pd.concat(frames, ignore_index=True)


def synthetic_experiment(
    function: str = "branin",
    *,
    fractions: Sequence[float] = (0.2, 0.4, 0.6, 0.8, 1.0),
    boxes_per_fraction: int = 5,
    seed_sizes: Sequence[int] = (10,),
    repeats: int = 3,
    budgets: Sequence[int] = tuple(range(1, 101)),
    seed: int = 0,
    kernel: str = "matern52",
    n_batches: int = 128,
    n_samples: int = 128,
    dense: int = 2**14,
    include_noise: bool = True,
) -> pd.DataFrame:
    """Scores of random sub-boxes of a synthetic function's box (Branin, Hartmann-6).

    Candidate spaces: ``boxes_per_fraction`` random boxes per volume fraction (one full box),
    drawn once with ``default_rng([seed, 1])``. Seed data: ``n`` i.i.d. uniform points of the
    full box (random search), repeat ``r`` using ``default_rng([seed, 0, n, r])``. Predicted
    scores: :func:`predicted_scores_sampler` (fresh uniform batches, exact joint posterior).
    Empirical score: the order-statistics formula (with replacement) applied to the true
    values at a scrambled Sobol' sample of ``dense`` points of the box -- the exact expected
    utility of ``b`` i.i.d. draws from that dense point set, a quasi-exact estimate of the
    continuous expectation (``dense`` = 16384 by default; ``empirical_norepl`` equals it up to
    O(b^2 / dense)).

    Returns
    -------
    DataFrame
        Columns ``function, seed_size, repeat, space, fraction, budget, score, predicted,
        empirical, incumbent``.
    """
    fn = get_function(function)
    b = check_budgets(budgets)
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1; got {repeats}")
    boxes = random_boxes(
        fn.dim, tuple(fractions), boxes_per_fraction, np.random.default_rng([seed, 1])
    )
    dense_rng = np.random.default_rng([seed, 2])
    truth = [fn(dense_sample(box, dense, dense_rng)) for _, box in boxes]
    records: list[dict[str, Any]] = []
    for n in seed_sizes:
        if int(n) < 1:
            raise ValueError(f"seed size must be >= 1; got {n}")
        for r in range(repeats):
            rng = np.random.default_rng([seed, 0, int(n), r])
            Xs = rng.random((int(n), fn.dim))
            ys = fn(Xs)
            incumbent = float(ys.max())
            gp = fit_seed_gp(Xs, ys, rng, kernel)
            for i, ((v, box), vals) in enumerate(zip(boxes, truth, strict=True)):
                pred = predicted_scores_sampler(
                    gp,
                    box.sample,
                    incumbent,
                    b,
                    rng,
                    n_batches=n_batches,
                    n_samples=n_samples,
                    include_noise=include_noise,
                )
                emp = empirical_scores(vals, incumbent, b, replace=True)
                for j, bj in enumerate(b):
                    for k in ALL_SCORES:
                        records.append(
                            {
                                "function": function,
                                "seed_size": int(n),
                                "repeat": r,
                                "space": f"box{i}",
                                "fraction": v,
                                "budget": int(bj),
                                "score": k,
                                "predicted": float(pred[k][j]),
                                "empirical": float(emp[k][j]),
                                "incumbent": incumbent,
                            }
                        )
    return pd.DataFrame.from_records(records)


_GROUP_CANDIDATES = ("task", "function", "seed_size", "repeat")


def _groups(frame: pd.DataFrame) -> list[str]:
    return [c for c in _GROUP_CANDIDATES if c in frame.columns]


def _check_score(frame: pd.DataFrame, score: str) -> pd.DataFrame:
    if score not in ALL_SCORES:
        raise ValueError(f"unknown score {score!r}; valid: {', '.join(ALL_SCORES)}")
    sub = frame[frame["score"] == score]
    if sub.empty:
        raise ValueError(f"the frame holds no rows for score {score!r}")
    return sub


def faithfulness_table(
    frame: pd.DataFrame, score: str = "mean-b-ei", empirical: str = "empirical"
) -> pd.DataFrame:
    """:func:`faithfulness` for every (task/function, seed size, repeat) of an experiment frame.

    ``empirical`` names the column to compare with (``"empirical"`` or ``"empirical_norepl"``).
    """
    sub = _check_score(frame, score)
    if empirical not in sub.columns:
        raise ValueError(f"no column {empirical!r}; valid: empirical, empirical_norepl")
    keys = _groups(sub)
    out = []
    for key, g in sub.groupby(keys, sort=True) if keys else [((), sub)]:
        P = g.pivot(index="space", columns="budget", values="predicted")
        E = g.pivot(index="space", columns="budget", values=empirical).loc[P.index, P.columns]
        f = faithfulness(P.to_numpy(), E.to_numpy(), P.columns.to_numpy())
        key_t = key if isinstance(key, tuple) else (key,)
        for c, v in zip(keys, key_t, strict=True):
            f.insert(0, c, v)
        out.append(f)
    return pd.concat(out, ignore_index=True)


def preferred_spaces(
    frame: pd.DataFrame, score: str = "mean-b-ei", column: str = "predicted"
) -> pd.DataFrame:
    """The best space per (task/function, seed size, repeat, budget) by ``column``.

    Returns columns of the groups plus ``budget``, ``space``, ``n_rows`` (or ``fraction`` for
    synthetic frames) and the value.
    """
    sub = _check_score(frame, score)
    keys = [*_groups(sub), "budget"]
    idx = sub.groupby(keys, sort=True)[column].idxmax()
    size = "n_rows" if "n_rows" in sub.columns else "fraction"
    return sub.loc[idx, [*keys, "space", size, column]].reset_index(drop=True)


def calibration(frame: pd.DataFrame, score: str = "mean-b-ei") -> pd.DataFrame:
    """Magnitude of predicted vs empirical scores per (group, budget): over-estimation.

    Columns: ``predicted`` and ``empirical`` (means over spaces and repeats), ``ratio``
    (their quotient, ``NaN`` if the empirical mean is 0) and ``overestimated`` (fraction of
    (space, repeat) pairs with predicted > empirical).
    """
    sub = _check_score(frame, score).assign(
        over=lambda d: (d["predicted"] > d["empirical"]).astype(float)
    )
    keys = [c for c in ("task", "function", "seed_size") if c in sub.columns] + ["budget"]
    g = (
        sub.groupby(keys, sort=True)
        .agg(
            predicted=("predicted", "mean"),
            empirical=("empirical", "mean"),
            overestimated=("over", "mean"),
        )
        .reset_index()
    )
    g["ratio"] = g["predicted"] / g["empirical"].where(g["empirical"] != 0)
    return g


def prune_spaces(
    frame: pd.DataFrame,
    budget: int,
    score: str = "mean-b-ei",
    fraction: float = 0.5,
    empirical: str = "empirical",
) -> pd.DataFrame:
    """Prune the predicted-worst ``fraction`` of spaces at ``budget`` (paper, Section 3.1).

    Per (task/function, seed size, repeat): how many spaces were pruned, whether an
    empirical-best space survived (``best_kept``), the ``precision`` (share of pruned spaces
    that are in the empirical bottom ``fraction``) and the mean empirical score of kept and
    pruned spaces.
    """
    if not 0 < fraction < 1:
        raise ValueError(f"fraction must be in (0, 1); got {fraction}")
    sub = _check_score(frame, score)
    sub = sub[sub["budget"] == budget]
    if sub.empty:
        raise ValueError(f"budget {budget} is not in the frame")
    keys = _groups(sub)
    rows = []
    for key, g in sub.groupby(keys, sort=True) if keys else [((), sub)]:
        n = len(g)
        k = int(np.floor(fraction * n))
        pred_rank = g["predicted"].rank(method="first").to_numpy()
        emp_rank = g[empirical].rank(method="average").to_numpy()
        pruned = pred_rank <= k
        e = g[empirical].to_numpy()
        key_t = key if isinstance(key, tuple) else (key,)
        rows.append(
            {
                **dict(zip(keys, key_t, strict=True)),
                "budget": budget,
                "n_spaces": n,
                "n_pruned": k,
                "best_kept": bool(np.any(~pruned & (e >= e.max()))),
                "precision": float(np.mean(emp_rank[pruned] <= k)) if k else np.nan,
                "empirical_kept": float(e[~pruned].mean()),
                "empirical_pruned": float(e[pruned].mean()) if k else np.nan,
            }
        )
    return pd.DataFrame(rows)


def search_in_rows(
    method: str,
    X: np.ndarray,
    y: np.ndarray,
    rows: np.ndarray,
    budget: int,
    rng: np.random.Generator,
    *,
    n_init: int = 3,
    **settings: Any,
) -> np.ndarray:
    """Run optimiser ``method`` restricted to ``rows`` of a table; best-so-far per evaluation.

    The optimiser (:func:`nmthpo.optimizers.registry.make_optimizer`) sees only the sub-table
    ``X[rows]``; as in :mod:`nmthpo.engine.runner` it is first told ``n_init`` uniformly random
    rows (counted in the budget), then asked until ``budget`` evaluations. A budget beyond the
    sub-table's size exhausts it and the curve stays flat.

    Returns
    -------
    ndarray of shape (budget,)
        Best BLEU after each evaluation.
    """
    from nmthpo.engine.loop import ask_tell

    rows = np.asarray(rows, dtype=np.int64)
    if rows.size == 0:
        raise ValueError("the sub-table has no rows")
    if budget < 1:
        raise ValueError(f"budget must be >= 1; got {budget}")
    m = rows.size
    t_max = min(budget, m)
    opt = make_optimizer(method, np.asarray(X)[rows], rng, **settings)
    ys = np.asarray(y, dtype=float)[rows]
    init = rng.choice(m, size=min(n_init, t_max), replace=False)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):  # one BLAS thread per trial, as the runner
        seen = ask_tell(opt, ys, init, t_max, label=f"{method} (sub-table search)")
    curve = np.maximum.accumulate(ys[seen])
    return np.concatenate([curve, np.full(budget - t_max, curve[-1])])


#: The methods :func:`select_and_search` runs in the selected and the full space by default.
SELECT_METHODS: tuple[str, ...] = ("rs", "bo-ei-m")


def select_and_search(
    task: str,
    spaces: str | Sequence[SubGrid | str],
    budget: int,
    *,
    seed_size: int = 20,
    methods: Sequence[str] = SELECT_METHODS,
    trials: int = 10,
    score: str = "mean-b-ei",
    seed: int = 0,
    n_init: int = 3,
    n_batches: int = 256,
    n_samples: int = 256,
) -> pd.DataFrame:
    """Pick the best-scoring space for ``budget``, then search inside it vs the full space.

    Per trial: ``seed_size`` random seed rows, scores of all candidate spaces at ``budget``
    (:func:`score_table_spaces`), the predicted best space is selected; every method then
    runs :func:`search_in_rows` with ``budget`` evaluations inside the selected space and
    inside the full table, from the same generator seed (paired comparison). The seed rows
    are not re-used by the search (a fresh search with the full budget).

    Returns
    -------
    DataFrame
        Columns ``trial, method, where ("selected"/"full"), space, n_rows, best`` (best BLEU of
        the search), ``incumbent`` and ``final`` (best of seed data and search).
    """
    table = load_table(task)
    if score not in ALL_SCORES:
        raise ValueError(f"unknown score {score!r}; valid: {', '.join(ALL_SCORES)}")
    cands = _resolve_spaces(table, spaces, np.random.default_rng([seed, 1]))
    X = table.encode("scaled")
    y = table.bleu
    all_rows = np.arange(table.n_rows)
    records = []
    for t in range(trials):
        rng = np.random.default_rng([seed, 0, seed_size, t])
        seed_rows = rng.choice(table.n_rows, size=seed_size, replace=False)
        f = score_table_spaces(
            table, cands, seed_rows, [budget], rng, n_batches=n_batches, n_samples=n_samples
        )
        f = f[f["score"] == score]
        best = f.loc[f["predicted"].idxmax()]
        sel = cands[[c.label for c in cands].index(best["space"])]
        sel_rows = space_rows(sel, table.configs)
        for k, method in enumerate(methods):
            for where, rows, label in (
                ("selected", sel_rows, sel.label),
                ("full", all_rows, "full"),
            ):
                curve = search_in_rows(
                    method,
                    X,
                    y,
                    rows,
                    budget,
                    np.random.default_rng([seed, 3, t, k]),
                    n_init=n_init,
                )
                records.append(
                    {
                        "trial": t,
                        "method": method,
                        "where": where,
                        "space": label,
                        "n_rows": int(rows.size),
                        "best": float(curve[-1]),
                        "incumbent": float(best["incumbent"]),
                        "final": max(float(curve[-1]), float(best["incumbent"])),
                    }
                )
    return pd.DataFrame.from_records(records)


def compare_spaces(
    task: str,
    space_a: str,
    space_b: str,
    *,
    budgets: Sequence[int] = (1, 2, 5, 10, 20, 50),
    seed_size: int = 20,
    repeats: int = 5,
    score: str = "expected-best",
    seed: int = 0,
) -> pd.DataFrame:
    """Answer "is space A better than space B at budget b?" by comparing their scores.

    E.g. ``compare_spaces("sw-en", "layers=4", "layers=2")`` (paper, Section 3.1, second
    application). ``score`` defaults to the expected best BLEU (alpha): improvement-based
    scores are 0 for both spaces whenever the seed data already holds their best values.

    Returns
    -------
    DataFrame
        Per (repeat, budget): predicted and empirical scores of A and B (with replacement and
        without), and whether the predicted and empirical verdicts (A > B) agree.
    """
    frame = table_experiment(
        task,
        [space_a, space_b],
        seed_sizes=(seed_size,),
        repeats=repeats,
        budgets=budgets,
        seed=seed,
    )
    sub = _check_score(frame, score)
    labels = list(dict.fromkeys(sub["space"]))
    if len(labels) != 2:
        raise ValueError(f"spaces {space_a!r} and {space_b!r} are the same space")
    wide = sub.pivot_table(
        index=["repeat", "budget"],
        columns="space",
        values=["predicted", "empirical", "empirical_norepl"],
    )
    out = pd.DataFrame(index=wide.index)
    for col in ("predicted", "empirical", "empirical_norepl"):
        out[f"{col}_a"] = wide[(col, labels[0])]
        out[f"{col}_b"] = wide[(col, labels[1])]
    out["a_better_predicted"] = out["predicted_a"] > out["predicted_b"]
    out["a_better_empirical"] = out["empirical_a"] > out["empirical_b"]
    out["agree"] = out["a_better_predicted"] == out["a_better_empirical"]
    out = out.reset_index()
    out.insert(0, "space_b", labels[1])
    out.insert(0, "space_a", labels[0])
    return out
