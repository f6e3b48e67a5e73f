"""Figure 5 of Zhang & Duh (2020): fANOVA importances of the hyperparameters, per table.

:func:`fanova_importances` and :func:`grid_fanova` -- functional ANOVA (Hutter et al. 2014)
importances of single hyperparameters (Optuna's ``FanovaImportanceEvaluator``) and of pairs
(our exact decomposition of the same random-forest model on the full grid);
:func:`importance_table` collects them for one task; :func:`capped_bleu` is the "good region"
transform of the top-quantile analyses; :func:`importance_bootstrap` and :func:`rank_gap` give
the uncertainty of an importance ranking (a bootstrap over the table's rows);
:func:`importance_readings` ranks one hyperparameter under other readings of "importance" (other
codings of the grid, other subsets of models, random-forest and model-free measures), the
experiment behind Chapter 1's discussion of bpe on sw-en. Choices the paper leaves open are
stated in each function's docstring.
"""

from __future__ import annotations

import functools
import itertools
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    import optuna

from nmthpo.benchmark.space import DISPLAY_NAMES, HYPERPARAMETERS
from nmthpo.benchmark.tables import load_table
from nmthpo.studies.params import check_tasks

__all__ = [
    "CODINGS",
    "capped_bleu",
    "coding_weights",
    "fanova_importances",
    "grid_codes",
    "grid_fanova",
    "importance_bootstrap",
    "importance_readings",
    "importance_study",
    "importance_table",
    "rank_gap",
]

#: Codings of a grid value for fANOVA's integration (:func:`coding_weights`).
CODINGS: tuple[str, ...] = ("index", "scaled", "raw")


def capped_bleu(bleu: np.ndarray, top_fraction: float | None = None) -> np.ndarray:
    """The performance fANOVA analyses: BLEU, or BLEU capped below at the top quantile.

    Hutter et al. (2014) measure importance "in good regions of the space" by decomposing the
    variance of performance with every value worse than a quantile set to that quantile, so
    that only differences among the good configurations (and between them and the rest)
    contribute variance. For BLEU (maximised) and ``top_fraction`` = 0.01 this is
    ``max(BLEU, q)`` with ``q`` the 0.99 quantile of the table's BLEU (``numpy.quantile``,
    linear interpolation). ``None`` returns BLEU unchanged (the "all models" analysis).
    """
    y = np.asarray(bleu, dtype=float)
    if top_fraction is None:
        return y.copy()
    if not 0.0 < top_fraction < 1.0:
        raise ValueError(f"top_fraction must be in (0, 1), got {top_fraction}")
    return np.maximum(y, np.quantile(y, 1.0 - top_fraction))


def grid_codes(configs: pd.DataFrame) -> tuple[np.ndarray, list[int]]:
    """Index of every row's value in each hyperparameter's sorted value set, and the set sizes.

    Returns
    -------
    codes : ndarray of int, shape (n, 6)
    sizes : list of int
        Number of distinct values of each hyperparameter (the grid's shape).
    """
    codes, sizes = [], []
    for h in HYPERPARAMETERS:
        values, inverse = np.unique(configs[h].to_numpy(dtype=float), return_inverse=True)
        codes.append(inverse)
        sizes.append(int(values.size))
    return np.column_stack(codes).astype(np.int64), sizes


def importance_study(configs: pd.DataFrame, y: np.ndarray) -> optuna.Study:
    """An in-memory Optuna study holding one completed trial per table row.

    Each hyperparameter enters as ``code + 0.5`` in ``FloatDistribution(0, k)``, where ``code``
    is the index of its value among the table's ``k`` sorted values (:func:`grid_codes`).
    Optuna's fANOVA integrates over the distribution's bounds, and the forest's splits fall
    halfway between codes, so each grid value owns a unit interval: the marginals are averages
    under the uniform distribution over Table 1's grid, as in a grid-based fANOVA.
    """
    import optuna

    codes, sizes = grid_codes(configs)
    y = np.asarray(y, dtype=float)
    if y.shape != (codes.shape[0],):
        raise ValueError(f"y has shape {y.shape}; expected ({codes.shape[0]},), one per row")
    dists: dict[str, optuna.distributions.BaseDistribution] = {
        h: optuna.distributions.FloatDistribution(0.0, float(k))
        for h, k in zip(HYPERPARAMETERS, sizes, strict=True)
    }
    study = optuna.create_study(direction="maximize", storage=None)
    study.add_trials(
        [
            optuna.trial.create_trial(
                params={h: float(c) + 0.5 for h, c in zip(HYPERPARAMETERS, row, strict=True)},
                distributions=dists,
                value=float(v),
            )
            for row, v in zip(codes, y, strict=True)
        ]
    )
    return study


def fanova_importances(
    configs: pd.DataFrame,
    y: np.ndarray,
    n_trees: int = 64,
    max_depth: int = 64,
    seed: int = 0,
) -> pd.Series:
    """Single-hyperparameter fANOVA importances by Optuna's ``FanovaImportanceEvaluator``.

    The evaluator fits a random forest (``n_trees`` trees of depth at most ``max_depth``,
    ``random_state=seed``) to the whole table (:func:`importance_study`) and returns, per
    hyperparameter, the mean over trees of the fraction of the tree's variance explained by
    that hyperparameter's marginal. We keep those raw fractions (``normalize=False``) so that
    they share one scale with the pair terms of :func:`grid_fanova`.

    Returns
    -------
    Series
        Index: hyperparameter names (:data:`nmthpo.benchmark.space.HYPERPARAMETERS` order); values:
        fraction of variance.
    """
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = importance_study(configs, y)
    evaluator = optuna.importance.FanovaImportanceEvaluator(
        n_trees=n_trees, max_depth=max_depth, seed=seed
    )
    with warnings.catch_warnings():
        # ``normalize`` is flagged experimental by Optuna; its meaning is documented above.
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        imp = optuna.importance.get_param_importances(
            study, evaluator=evaluator, params=list(HYPERPARAMETERS), normalize=False
        )
    return pd.Series({h: float(imp[h]) for h in HYPERPARAMETERS}, name="importance")


def coding_weights(
    configs: pd.DataFrame, coding: str = "index", scaled: np.ndarray | None = None
) -> list[np.ndarray]:
    """The measure each grid value gets when fANOVA integrates over a coded hyperparameter.

    fANOVA integrates a random forest's piecewise-constant prediction uniformly over each
    hyperparameter's range; the forest splits halfway between neighbouring values, so a value
    owns the interval from the midpoint with its lower neighbour to the midpoint with its upper
    one (the range's ends at the extremes). ``"index"`` codes value ``i`` as ``i + 0.5`` on
    ``[0, k]`` (:func:`importance_study`): every value weighs ``1/k``. ``"scaled"`` uses
    upstream's ``.hyps_scaled`` coding (``scaled``, the table's columns; log for sw/so bpe and
    #embed, linear for init lr and #layers) on ``[0, 1]``; ``"raw"`` the values themselves on
    ``[min, max]``.

    Returns
    -------
    list of ndarray
        Per hyperparameter (:data:`~nmthpo.benchmark.space.HYPERPARAMETERS` order), the weights
        of its sorted values (summing to 1).
    """
    if coding not in CODINGS:
        raise ValueError(f"unknown coding {coding!r}; valid: {', '.join(CODINGS)}")
    out = []
    for j, h in enumerate(HYPERPARAMETERS):
        raw = configs[h].to_numpy(dtype=float)
        values = np.unique(raw)
        if coding == "index" or values.size == 1:
            out.append(np.full(values.size, 1.0 / values.size))
            continue
        if coding == "raw":
            coded, lo, hi = values, values[0], values[-1]
        else:
            if scaled is None:
                raise ValueError("coding 'scaled' needs the table's scaled columns")
            col = np.asarray(scaled, dtype=float)[:, j]
            coded = np.array([col[raw == v].mean() for v in values])
            lo, hi = 0.0, 1.0
        edges = np.concatenate([[lo], (coded[1:] + coded[:-1]) / 2, [hi]])
        w = np.diff(edges)
        out.append(w / w.sum())
    return out


def _grid_decomposition(
    grid: np.ndarray, weights: list[np.ndarray] | None = None
) -> dict[tuple[int, ...], float]:
    """Main-effect and pairwise variances of a function tabulated on a full grid.

    The grid's values are weighted by ``weights`` (one vector per axis, each summing to 1): the
    product measure of fANOVA; the uniform distribution on the grid when None.
    """
    d = grid.ndim
    out: dict[tuple[int, ...], float] = {}
    main = {}
    if weights is None:
        mu = grid.mean()
        for i in range(d):
            main[i] = grid.mean(axis=tuple(a for a in range(d) if a != i)) - mu
            out[(i,)] = float(np.mean(main[i] ** 2))
        for i, j in itertools.combinations(range(d), 2):
            others = tuple(a for a in range(d) if a not in (i, j))
            pair = grid.mean(axis=others) - mu - main[i][:, None] - main[j][None, :]
            out[(i, j)] = float(np.mean(pair**2))
        return out
    w = weights

    def mean_over(arr: np.ndarray, keep: tuple[int, ...]) -> np.ndarray:
        for a in sorted((a for a in range(d) if a not in keep), reverse=True):
            arr = np.tensordot(arr, w[a], axes=([a], [0]))
        return arr

    mu = float(mean_over(grid, ()))
    for i in range(d):
        main[i] = mean_over(grid, (i,)) - mu
        out[(i,)] = float(np.sum(w[i] * main[i] ** 2))
    for i, j in itertools.combinations(range(d), 2):
        pair = mean_over(grid, (i, j)) - mu - main[i][:, None] - main[j][None, :]
        out[(i, j)] = float(np.sum(np.outer(w[i], w[j]) * pair**2))
    return out


def grid_fanova(
    configs: pd.DataFrame,
    y: np.ndarray,
    n_trees: int = 64,
    max_depth: int = 64,
    seed: int = 0,
) -> pd.Series:
    """Single and pairwise fANOVA importances, computed exactly on the full grid.

    Optuna's evaluator reports single hyperparameters only. For pairs we follow Hutter et al.
    (2014, Section 3) with the same model Optuna fits -- a
    ``sklearn.ensemble.RandomForestRegressor(n_trees, max_depth, min_samples_split=2,
    min_samples_leaf=1, random_state=seed)`` on the codes of :func:`importance_study` -- and
    decompose each tree's prediction exactly over the *complete* product grid of Table 1
    (every combination of the table's values, including those the table lacks), with the
    uniform distribution on the grid: ``V_i = Var(f_i)``, ``V_ij = Var(f_ij)`` with
    ``f_ij = m_ij - f_i - f_j - mu`` from the marginal means ``m``. Importance is
    ``V_U / Var(tree)`` averaged over trees (trees with zero variance skipped), as Optuna
    does. The single terms agree with :func:`fanova_importances` up to split positions where
    a bootstrap sample lacks a value.

    Returns
    -------
    Series
        Index: ``"bpe"`` for singles, ``"embed x lr"`` for pairs (order of
        :data:`~nmthpo.benchmark.space.HYPERPARAMETERS`); values: fraction of variance.
    """
    codes, sizes = grid_codes(configs)
    y = np.asarray(y, dtype=float)
    if y.shape != (codes.shape[0],):
        raise ValueError(f"y has shape {y.shape}; expected ({codes.shape[0]},), one per row")
    return _forest_terms(codes, sizes, y, n_trees, max_depth, seed)


def _fit_forest(codes: np.ndarray, y: np.ndarray, n_trees: int, max_depth: int, seed: int) -> Any:
    """The random forest of the fANOVA model (Optuna's settings) on the grid codes."""
    from sklearn.ensemble import RandomForestRegressor

    forest = RandomForestRegressor(
        n_estimators=n_trees,
        max_depth=max_depth,
        min_samples_split=2,
        min_samples_leaf=1,
        random_state=seed,
    )
    return forest.fit(codes + 0.5, y)


def _forest_terms(
    codes: np.ndarray, sizes: list[int], y: np.ndarray, n_trees: int, max_depth: int, seed: int
) -> pd.Series:
    """:func:`grid_fanova` on given grid codes (the grid's shape fixed by ``sizes``)."""
    return _terms(_fit_forest(codes, y, n_trees, max_depth, seed), sizes)


def _terms(forest: Any, sizes: list[int], weights: list[np.ndarray] | None = None) -> pd.Series:
    """Single and pair importances of a fitted forest on the full grid, the grid's values
    weighted by ``weights`` (:func:`coding_weights`; uniform when None)."""
    grid = np.array(list(itertools.product(*[range(k) for k in sizes])), dtype=float) + 0.5
    full = None if weights is None else functools.reduce(np.multiply.outer, weights)
    sums: dict[tuple[int, ...], list[float]] = {}
    for tree in forest.estimators_:
        pred = tree.predict(grid).reshape(sizes)
        # A tree fitted to a constant bootstrap sample predicts a constant up to rounding of
        # its leaf means; such trees carry no variance to decompose and are skipped.
        if np.ptp(pred) <= 1e-9 * max(1.0, float(np.abs(pred).max())):
            continue
        if full is None:
            dec, total = _grid_decomposition(pred), float(pred.var())
        else:
            dec = _grid_decomposition(pred, weights)
            total = float(np.sum(full * (pred - np.sum(full * pred)) ** 2))
        for key, v in dec.items():
            sums.setdefault(key, []).append(v / total)
    if not sums:
        raise ValueError("every tree is constant: y has no variance to decompose")
    names = {key: " x ".join(HYPERPARAMETERS[i] for i in key) for key in sums}
    return pd.Series({names[k]: float(np.mean(v)) for k, v in sums.items()}, name="importance")


def importance_table(
    task: str,
    top_fraction: float | None = None,
    n_trees: int = 64,
    max_depth: int = 64,
    seed: int = 0,
) -> tuple[pd.Series, pd.Series]:
    """Figure 5 for one task: single importances (Optuna) and the pairs ranked (grid fANOVA).

    Parameters
    ----------
    task : str
        NMTHPO task.
    top_fraction : float or None
        ``0.01`` for the paper's "top 1%" analysis (BLEU capped below at the 0.99 quantile,
        :func:`capped_bleu`); ``None`` for all models.
    n_trees, max_depth, seed : int
        Random-forest settings of the fANOVA model.

    Returns
    -------
    singles : Series
        Optuna's importance per hyperparameter, display names, descending.
    pairs : Series
        Every pair's importance from :func:`grid_fanova`, display names, descending.
        Both are all ``NaN`` when the analysed performance is constant -- e.g. zh-en's top 1%,
        where the 0.99 quantile equals the three tied best models' 14.66 BLEU -- since there
        is then no variance to decompose.
    """
    table = load_table(check_tasks([task])[0])
    y = capped_bleu(table.bleu, top_fraction)
    if np.ptp(y) == 0.0:
        names = [DISPLAY_NAMES[h] for h in HYPERPARAMETERS]
        pair_names = [f"{a} x {b}" for a, b in itertools.combinations(names, 2)]
        return (
            pd.Series(np.nan, index=names, name="importance"),
            pd.Series(np.nan, index=pair_names, name="importance"),
        )
    singles = fanova_importances(table.configs, y, n_trees, max_depth, seed)
    singles.index = [DISPLAY_NAMES[h] for h in singles.index]
    full = grid_fanova(table.configs, y, n_trees, max_depth, seed)
    pairs = full[[k for k in full.index if " x " in k]]
    pairs.index = [" x ".join(DISPLAY_NAMES[h] for h in k.split(" x ")) for k in pairs.index]
    return singles.sort_values(ascending=False), pairs.sort_values(ascending=False)


def importance_bootstrap(
    task: str,
    top_fraction: float | None = None,
    n_boot: int = 200,
    n_trees: int = 16,
    max_depth: int = 64,
    seed: int = 0,
) -> pd.DataFrame:
    """fANOVA importances of :func:`grid_fanova` on ``n_boot`` bootstrap resamples of a table.

    The rows of the table (configurations with their BLEU, capped as in
    :func:`capped_bleu` on the *whole* table) are drawn with replacement and the random-forest
    model refitted (``n_trees`` trees, seed ``seed + b`` for resample ``b``) on the complete
    grid of the table (its shape is fixed by the whole table, so a value missing from a
    resample is still integrated over). The spread of the resampled importances is the
    uncertainty of Figure 5's ranking due to which models the table happens to hold; fewer
    trees per resample than the chapter's model add Monte-Carlo noise, which widens the
    intervals (conservative).

    Returns
    -------
    DataFrame
        One row per resample; columns the single and pair terms with display names
        (``"#embed"``, ``"#embed x init lr"``), as :func:`importance_table`. Empty when the
        analysed BLEU is constant (nothing to decompose); resamples whose BLEU is constant
        are left out.
    """
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    table = load_table(check_tasks([task])[0])
    y = capped_bleu(table.bleu, top_fraction)
    if np.ptp(y) == 0.0:
        # nothing to decompose (e.g. zh-en's top 1%, see importance_table): no resamples
        return pd.DataFrame()
    codes, sizes = grid_codes(table.configs)
    rng = np.random.default_rng(seed)
    rows = []
    for b in range(n_boot):
        idx = rng.integers(0, len(y), size=len(y))
        if np.ptp(y[idx]) == 0.0:
            continue
        rows.append(_forest_terms(codes[idx], sizes, y[idx], n_trees, max_depth, seed + b))
    out = pd.DataFrame(rows).reset_index(drop=True)
    out.columns = [" x ".join(DISPLAY_NAMES[h] for h in k.split(" x ")) for k in out.columns]
    return out


def rank_gap(importances: pd.DataFrame | pd.Series, term: str, k: int = 1) -> np.ndarray:
    """How far ``term`` lies above the ``k``-th most important *other* term of its kind.

    Singles are compared with singles, pairs with pairs. Positive: ``term`` is among the top
    ``k``; negative: at least ``k`` other terms are more important. One value per row of
    ``importances`` (a Series is one row).
    """
    frame = importances.to_frame().T if isinstance(importances, pd.Series) else importances
    if term not in frame.columns:
        raise ValueError(f"unknown term {term!r}; choose among {list(frame.columns)}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    pair = " x " in term
    others = [c for c in frame.columns if c != term and (" x " in c) == pair]
    kth = -np.sort(-frame[others].to_numpy(dtype=float), axis=1)[:, k - 1]
    return np.asarray(frame[term].to_numpy(dtype=float) - kth)


def importance_readings(
    task: str,
    term: str = "bpe",
    fractions: tuple[float, ...] = (0.01, 0.05, 0.1, 0.25, 0.5),
    n_trees: int = 64,
    max_depth: int = 64,
    seed: int = 0,
) -> pd.DataFrame:
    """Where ``term`` (a hyperparameter) ranks under other readings of "importance".

    One random forest per subset of models (``n_trees``, ``max_depth``, ``seed``, as
    :func:`grid_fanova`); the readings:

    * fANOVA over all models with the grid coded by value index (the chapter's), by upstream's
      ``.hyps_scaled`` coding and by the raw values (:func:`coding_weights`: the coding decides
      how much of the integration range each value owns);
    * fANOVA of BLEU capped at the top ``f`` quantile (:func:`capped_bleu`) for every ``f`` of
      ``fractions``: the "top models" analyses;
    * the forest's impurity importance and the permutation importance (``sklearn``, 10
      repeats) over all models: random-forest importances instead of fANOVA;
    * two model-free spreads over the values of each hyperparameter: of the mean BLEU (all
      models) and of the best BLEU (what the *best* model with each value reaches).

    Returns
    -------
    DataFrame
        One row per reading: ``models`` (all / top f), ``measure``, ``term`` value, its
        ``rank`` among the six hyperparameters, and the ``first`` hyperparameter with its value.
    """
    from sklearn.inspection import permutation_importance

    if term not in HYPERPARAMETERS:
        raise ValueError(f"unknown hyperparameter {term!r}; valid: {', '.join(HYPERPARAMETERS)}")
    table = load_table(check_tasks([task])[0])
    codes, sizes = grid_codes(table.configs)
    y = table.bleu
    rows: list[tuple[str, str, pd.Series]] = []
    forest = _fit_forest(codes, y, n_trees, max_depth, seed)
    for coding in CODINGS:
        w = None if coding == "index" else coding_weights(table.configs, coding, table.scaled)
        terms = _terms(forest, sizes, w)
        rows.append(("all", f"fANOVA, {coding} coding", terms[list(HYPERPARAMETERS)]))
    for f in fractions:
        yc = capped_bleu(y, f)
        if np.ptp(yc) == 0.0:
            continue
        terms = _forest_terms(codes, sizes, yc, n_trees, max_depth, seed)
        rows.append((f"top {100 * f:g} %", "fANOVA, index coding", terms[list(HYPERPARAMETERS)]))
    rows.append(
        (
            "all",
            "random-forest impurity importance",
            pd.Series(forest.feature_importances_, index=list(HYPERPARAMETERS)),
        )
    )
    perm = permutation_importance(forest, codes + 0.5, y, n_repeats=10, random_state=seed)
    rows.append(
        (
            "all",
            "permutation importance (BLEU variance lost)",
            pd.Series(perm.importances_mean, index=list(HYPERPARAMETERS)),
        )
    )
    frame = table.configs.loc[:, list(HYPERPARAMETERS)].assign(bleu=y)
    for label, how in (("all", "mean"), ("best per value", "max")):
        spread = pd.Series(
            {
                h: float(np.ptp(frame.groupby(h)["bleu"].agg(how).to_numpy()))
                for h in HYPERPARAMETERS
            }
        )
        rows.append((label, f"spread of the {how} BLEU over the values (BLEU)", spread))
    out = []
    for models, measure, s in rows:
        order = list(s.sort_values(ascending=False).index)
        out.append(
            {
                "models": models,
                "measure": measure,
                "value": float(s[term]),
                "rank": order.index(term) + 1,
                "first": DISPLAY_NAMES[order[0]],
                "first's value": float(s[order[0]]),
            }
        )
    return pd.DataFrame(out)
