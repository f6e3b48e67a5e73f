"""Dataset analyses of the NMTHPO tables (Zhang & Duh 2020, Section 3: Tables 1-2, Figures 4-5).

* :func:`table1`, :func:`table2` -- the search space and the oracle best model of every task,
  generated from the data and set beside the paper's values (:data:`PAPER_TABLE1`,
  :data:`PAPER_BEST_CONFIGS`, :data:`nmthpo.benchmark.tables.PAPER_TABLE2`).
* :func:`metric_summary`, :func:`metric_correlations` -- the other recorded metrics and their
  Spearman correlation with BLEU and with decoding time.
* :func:`spearman_matrix` -- Figure 4: rank correlation of BLEU between two tasks over the
  configurations they share, with 30k BPE (zh/ru/ja/en) identified with 32k BPE (sw/so) as the
  paper's footnote 8 says. The footnote computes the ranking on the configurations common to
  *all* six tables; ``common="all"`` does that, ``common="pairwise"`` uses every configuration
  the two tables share.
* :func:`fanova_importances`, :func:`grid_fanova` -- Figure 5: functional ANOVA (Hutter et al.
  2014) importances of single hyperparameters (Optuna's ``FanovaImportanceEvaluator``) and of
  pairs (our exact decomposition of the same random-forest model on the full grid).

Choices the paper leaves open are stated in each function's docstring.
"""

from __future__ import annotations

import itertools
import json
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats

if TYPE_CHECKING:
    import optuna

from nmthpo.benchmark.space import DISPLAY_NAMES, HYPERPARAMETERS, search_space
from nmthpo.benchmark.tables import NMTHPO_TASKS, PAPER_TABLE2, LookupTable, load_table

#: The best configuration of every task as printed in the paper's Table 2 (bpe, #layers,
#: #embed, #hidden, #att heads, init lr), transcribed from the paper.
PAPER_BEST_CONFIGS: dict[str, dict[str, float]] = {
    "zh-en": {"bpe": 30_000, "layers": 4, "embed": 512, "hidden": 1024, "heads": 16, "lr": 3e-4},
    "ru-en": {"bpe": 10_000, "layers": 4, "embed": 256, "hidden": 2048, "heads": 8, "lr": 3e-4},
    "ja-en": {"bpe": 30_000, "layers": 4, "embed": 512, "hidden": 2048, "heads": 8, "lr": 3e-4},
    "en-ja": {"bpe": 10_000, "layers": 4, "embed": 1024, "hidden": 2048, "heads": 8, "lr": 3e-4},
    "sw-en": {"bpe": 1_000, "layers": 2, "embed": 256, "hidden": 1024, "heads": 8, "lr": 6e-4},
    "so-en": {"bpe": 8_000, "layers": 2, "embed": 512, "hidden": 1024, "heads": 8, "lr": 3e-4},
}

_WMT_TED_SPACE: dict[str, tuple[float, ...]] = {
    "bpe": (10_000, 30_000, 50_000),
    "layers": (2, 4),
    "embed": (256, 512, 1024),
    "hidden": (1024, 2048),
    "heads": (8, 16),
    "lr": (3e-4, 6e-4, 1e-3),
}
_MATERIAL_BPE: tuple[float, ...] = (1_000, 2_000, 4_000, 8_000, 16_000, 32_000)

#: The paper's Table 1 (search space per dataset), transcribed from the paper, keyed by task.
PAPER_TABLE1: dict[str, dict[str, tuple[float, ...]]] = {
    **{t: dict(_WMT_TED_SPACE) for t in ("zh-en", "ru-en", "ja-en", "en-ja")},
    "sw-en": {**_WMT_TED_SPACE, "bpe": _MATERIAL_BPE, "layers": (1, 2, 4, 6)},
    "so-en": {**_WMT_TED_SPACE, "bpe": _MATERIAL_BPE, "layers": (1, 2, 4)},
}

#: Figure 4 values the paper's text quotes (Section 3.4): Spearman of ja-en vs so-en.
PAPER_SPEARMAN: dict[tuple[str, str], float] = {("ja-en", "so-en"): 0.084}

#: Metrics other than BLEU that Chapter 1 describes (``gpu_memory`` NaN = not recorded).
OTHER_METRICS: tuple[str, ...] = ("dev_ppl", "num_updates", "gpu_memory", "num_param")

#: BPE sizes identified across tasks for cross-task comparisons (paper, footnote 8).
BPE_EQUIVALENCE: dict[int, int] = {30_000: 32_000}


def as_task_list(tasks: str | Sequence[str]) -> list[str]:
    """Normalise a task parameter to a list of task names.

    Accepts a sequence of names, one name (``"zh-en"``), a comma-separated string
    (``"zh-en,sw-en"``) or a JSON list (``'["zh-en", "sw-en"]'``) -- papermill's ``-p`` passes
    list values as strings, so ``papermill ... -p tasks '["zh-en"]'`` works as expected.
    """
    if isinstance(tasks, str):
        text = tasks.strip()
        if text.startswith("["):
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(
                    f"tasks {tasks!r} is not a JSON list ({exc}); write e.g. '[\"zh-en\"]'"
                ) from None
            if not isinstance(parsed, list) or not all(isinstance(t, str) for t in parsed):
                raise ValueError(f"tasks {tasks!r} must be a JSON list of task names")
            return [t.strip() for t in parsed]
        return [t.strip() for t in text.split(",") if t.strip()]
    return [str(t) for t in tasks]


def _check_tasks(tasks: str | Sequence[str]) -> list[str]:
    tasks = as_task_list(tasks)
    if not tasks:
        raise ValueError("no tasks given; pass e.g. ['zh-en', 'en-ja']")
    unknown = [t for t in tasks if t not in NMTHPO_TASKS]
    if unknown:
        raise KeyError(f"unknown task(s) {unknown}; valid: {', '.join(NMTHPO_TASKS)}")
    return tasks


# -- formatting -----------------------------------------------------------------------------
def format_value(name: str, value: float) -> str:
    """Format one hyperparameter value as the paper prints it (``30k``, ``3e-4``, ``512``)."""
    if name == "bpe":
        return f"{value / 1000:g}k"
    if name == "lr":
        mantissa, exponent = f"{value:.0e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return f"{int(value)}"


def format_config(config: dict[str, float] | pd.Series) -> str:
    """A configuration as the paper's Table 2 row: ``30k,4,512,1024,16,3e-4``."""
    return ",".join(format_value(h, float(config[h])) for h in HYPERPARAMETERS)


# -- Table 1 and Table 2 --------------------------------------------------------------------
def table1(tasks: Sequence[str] = NMTHPO_TASKS) -> pd.DataFrame:
    """Table 1: the values each hyperparameter takes in each table, beside the paper's.

    Returns
    -------
    DataFrame
        One row per task; one column per hyperparameter (paper's display names, values as
        the paper prints them: bpe in thousands, init lr in 1e-4) and ``matches paper`` (True
        when every hyperparameter's value set equals :data:`PAPER_TABLE1`).
    """
    rows = []
    for task in _check_tasks(tasks):
        space = search_space(load_table(task).configs)
        row: dict[str, object] = {"task": task}
        for h in HYPERPARAMETERS:
            if h == "bpe":
                row[DISPLAY_NAMES[h] + " (1k)"] = ", ".join(f"{v / 1000:g}" for v in space[h])
            elif h == "lr":
                row[DISPLAY_NAMES[h] + " (1e-4)"] = ", ".join(f"{v * 1e4:g}" for v in space[h])
            else:
                row[DISPLAY_NAMES[h]] = ", ".join(f"{int(v)}" for v in space[h])
        row["matches paper"] = all(
            np.allclose(space[h], PAPER_TABLE1[task][h]) for h in HYPERPARAMETERS
        )
        rows.append(row)
    return pd.DataFrame(rows).set_index("task")


def best_configs(table: LookupTable) -> list[str]:
    """Every best-BLEU configuration of a table (ties included), formatted, in row order."""
    return [format_config(table.configs.iloc[r]) for r in table.best_rows]


def table2(tasks: Sequence[str] = NMTHPO_TASKS) -> pd.DataFrame:
    """Table 2: number of models, oracle best BLEU and best configuration, beside the paper's.

    Ties are shown, not broken: zh-en has three rows at 14.66 BLEU (bpe 10k, 30k and 50k); the
    paper prints one of them (30k). ``config matches`` is True when the paper's configuration
    is among the tied best rows.

    Returns
    -------
    DataFrame
        Index ``task``; columns ``rows``, ``paper rows``, ``best BLEU``, ``paper best BLEU``,
        ``#tied best``, ``best configuration(s)``, ``paper configuration``, ``config matches``.
    """
    rows = []
    for task in _check_tasks(tasks):
        table = load_table(task)
        ours = best_configs(table)
        paper_rows, paper_bleu = PAPER_TABLE2[task]
        paper_cfg = format_config(PAPER_BEST_CONFIGS[task])
        rows.append({
            "task": task,
            "rows": table.n_rows,
            "paper rows": paper_rows,
            "best BLEU": round(table.best_bleu, 2),
            "paper best BLEU": paper_bleu,
            "#tied best": len(ours),
            "best configuration(s)": " | ".join(ours),
            "paper configuration": paper_cfg,
            "config matches": paper_cfg in ours,
        })
    return pd.DataFrame(rows).set_index("task")


# -- other metrics ---------------------------------------------------------------------------
def metric_summary(tasks: Sequence[str] = NMTHPO_TASKS) -> pd.DataFrame:
    """Count of recorded values, median, minimum and maximum of every metric per task.

    ``gpu_memory`` 0 in the data means "not recorded" and is excluded (NaN in the table).
    """
    frames = []
    for task in _check_tasks(tasks):
        m = load_table(task).metrics
        desc = pd.DataFrame({
            "recorded": m.notna().sum(),
            "median": m.median(),
            "min": m.min(),
            "max": m.max(),
        })
        desc.index.name = "metric"
        frames.append(desc.assign(task=task).reset_index())
    return pd.concat(frames).set_index(["task", "metric"])


def metric_correlations(tasks: Sequence[str] = NMTHPO_TASKS) -> pd.DataFrame:
    """Spearman correlation of each metric with dev BLEU and with decoding time, per task.

    Rows where a metric is not recorded (``gpu_memory`` NaN) are left out of that metric's
    correlations; ``n`` is the number of rows used.
    """
    rows = []
    for task in _check_tasks(tasks):
        m = load_table(task).metrics
        for metric in ("dev_gpu_time", *OTHER_METRICS):
            ok = m[metric].notna().to_numpy()
            x = m[metric].to_numpy(dtype=float)[ok]
            rows.append({
                "task": task,
                "metric": metric,
                "n": int(ok.sum()),
                "rho with BLEU": float(stats.spearmanr(x, m["dev_bleu"].to_numpy()[ok])[0]),
                "rho with time": float(stats.spearmanr(x, m["dev_gpu_time"].to_numpy()[ok])[0]),
            })
    return pd.DataFrame(rows).set_index(["task", "metric"])


# -- Figure 4: cross-task rank correlation -----------------------------------------------------
def common_keys(configs: pd.DataFrame) -> pd.MultiIndex:
    """Cross-task identity of every row: its configuration with 30k BPE mapped to 32k.

    Footnote 8 of the paper: "we consider 30k bpe (for zh, ru, ja, en) to be equivalent to 32k
    bpe (for sw, so)". Learning rates are rounded to 1e-6 so that float noise cannot split
    equal values.
    """
    frame = configs.loc[:, list(HYPERPARAMETERS)].copy()
    frame["bpe"] = frame["bpe"].map(lambda b: BPE_EQUIVALENCE.get(int(b), int(b)))
    frame["lr"] = frame["lr"].round(6)
    return pd.MultiIndex.from_frame(frame)


def bleu_by_config(tasks: Sequence[str] = NMTHPO_TASKS) -> pd.DataFrame:
    """BLEU of every task (columns) by cross-task configuration key (rows; NaN = absent)."""
    cols = {}
    for task in _check_tasks(tasks):
        table = load_table(task)
        keys = common_keys(table.configs)
        if keys.has_duplicates:
            raise ValueError(f"task {task}: two rows share one configuration key")
        cols[task] = pd.Series(table.bleu, index=keys)
    return pd.DataFrame(cols)


def spearman_matrix(
    tasks: Sequence[str] = NMTHPO_TASKS, common: str = "pairwise"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Figure 4: Spearman rank correlation of BLEU between every pair of tasks.

    Parameters
    ----------
    tasks : sequence of str
        Tasks to compare (at least one).
    common : {"pairwise", "all"}
        ``"pairwise"``: each pair is ranked on the configurations both tables contain.
        ``"all"``: every pair is ranked on the configurations contained in *all* the given
        tables (footnote 8 of the paper).

    Returns
    -------
    rho : DataFrame
        Symmetric task x task matrix of Spearman's rho (NaN where fewer than 3 configurations
        are shared); ties get average ranks (``scipy.stats.spearmanr``).
    n : DataFrame
        Number of shared configurations each coefficient is computed on.
    """
    if common not in ("pairwise", "all"):
        raise ValueError(f"common must be 'pairwise' or 'all', got {common!r}")
    wide = bleu_by_config(tasks)
    if common == "all":
        wide = wide.dropna()
    names = list(wide.columns)
    rho = pd.DataFrame(np.nan, index=names, columns=names)
    n = pd.DataFrame(0, index=names, columns=names)
    for a, b in itertools.product(names, repeat=2):
        ok = wide[a].notna().to_numpy() & wide[b].notna().to_numpy()
        n.loc[a, b] = int(ok.sum())
        if ok.sum() >= 3:
            rho.loc[a, b] = float(
                stats.spearmanr(wide[a].to_numpy()[ok], wide[b].to_numpy()[ok])[0]
            )
    return rho, n


# -- Figure 5: fANOVA --------------------------------------------------------------------------
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
    study.add_trials([
        optuna.trial.create_trial(
            params={h: float(c) + 0.5 for h, c in zip(HYPERPARAMETERS, row, strict=True)},
            distributions=dists,
            value=float(v),
        )
        for row, v in zip(codes, y, strict=True)
    ])
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


def _grid_decomposition(grid: np.ndarray) -> dict[tuple[int, ...], float]:
    """Main-effect and pairwise variances of a function tabulated on a full grid (uniform)."""
    d = grid.ndim
    mu = grid.mean()
    main = {}
    out: dict[tuple[int, ...], float] = {}
    for i in range(d):
        others = tuple(a for a in range(d) if a != i)
        main[i] = grid.mean(axis=others) - mu
        out[(i,)] = float(np.mean(main[i] ** 2))
    for i, j in itertools.combinations(range(d), 2):
        others = tuple(a for a in range(d) if a not in (i, j))
        pair = grid.mean(axis=others) - mu - main[i][:, None] - main[j][None, :]
        out[(i, j)] = float(np.mean(pair**2))
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
    from sklearn.ensemble import RandomForestRegressor

    codes, sizes = grid_codes(configs)
    y = np.asarray(y, dtype=float)
    if y.shape != (codes.shape[0],):
        raise ValueError(f"y has shape {y.shape}; expected ({codes.shape[0]},), one per row")
    forest = RandomForestRegressor(
        n_estimators=n_trees, max_depth=max_depth, min_samples_split=2, min_samples_leaf=1,
        random_state=seed,
    )
    forest.fit(codes + 0.5, y)
    grid = np.array(list(itertools.product(*[range(k) for k in sizes])), dtype=float) + 0.5
    sums: dict[tuple[int, ...], list[float]] = {}
    for tree in forest.estimators_:
        pred = tree.predict(grid).reshape(sizes)
        # A tree fitted to a constant bootstrap sample predicts a constant up to rounding of
        # its leaf means; such trees carry no variance to decompose and are skipped.
        if np.ptp(pred) <= 1e-9 * max(1.0, float(np.abs(pred).max())):
            continue
        total = float(pred.var())
        for key, v in _grid_decomposition(pred).items():
            sums.setdefault(key, []).append(v / total)
    if not sums:
        raise ValueError("every tree is constant: y has no variance to decompose")
    names = {
        key: " x ".join(HYPERPARAMETERS[i] for i in key) for key in sums
    }
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
        Both are all NaN when the analysed performance is constant -- e.g. zh-en's top 1%,
        where the 0.99 quantile equals the three tied best models' 14.66 BLEU -- since there
        is then no variance to decompose.
    """
    table = load_table(_check_tasks([task])[0])
    y = capped_bleu(table.bleu, top_fraction)
    if np.ptp(y) == 0.0:
        names = [DISPLAY_NAMES[h] for h in HYPERPARAMETERS]
        pair_names = [f"{a} x {b}" for a, b in itertools.combinations(names, 2)]
        return (pd.Series(np.nan, index=names, name="importance"),
                pd.Series(np.nan, index=pair_names, name="importance"))
    singles = fanova_importances(table.configs, y, n_trees, max_depth, seed)
    singles.index = [DISPLAY_NAMES[h] for h in singles.index]
    full = grid_fanova(table.configs, y, n_trees, max_depth, seed)
    pairs = full[[k for k in full.index if " x " in k]]
    pairs.index = [
        " x ".join(DISPLAY_NAMES[h] for h in k.split(" x ")) for k in pairs.index
    ]
    return singles.sort_values(ascending=False), pairs.sort_values(ascending=False)
