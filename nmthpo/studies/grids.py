"""Every chapter's experiment grid, in one place, and where each run's cache lives.

The book's chapters read long experiments from the repository's ``results/`` (the book's cache,
:func:`nmthpo.engine.cache.results_dir`). This module names, once, every grid that fills it:
``make results`` (``tools/make_results.py``) computes exactly these grids, the notebooks'
published parameters equal them (``tests/studies/test_grids.py`` checks it) and the notebooks read
their runs through :func:`run_one` / :func:`grid_runs`.

=================  =======  ====================================================================
experiment         chapter  what (paper section)
=================  =======  ====================================================================
``single``         2        Zhang & Duh (2020), Section 6.1, Table 3: 7 methods x 6 tasks x 100
                            trials, each stopped at the first argmax row, surrogate MSE recorded
``figure6``        2        Figure 6: ja-en, every method, 100 evaluations (no early stop)
``graph_k``        2        footnote 12: graph methods on the four small tables for several k
``eif_text``       2        the literal reading of expected influence's labels (Section 5.3)
``refit``          2        BO-EI's fast refit schedule (``schedule="fast"``) over Table 3's
                            trials, compared paired with ``single``'s exact schedule
``gd_*``           2        why GB does not beat BO
                            (:mod:`nmthpo.studies.zhang_duh.graph_discrepancy`): EIF labellings,
                            a paper-era BO, GB-EI's beta and sigma, 20 trials
``pareto``         3        Table 4: 5 methods x 6 tasks x 100 trials until the Pareto set is found
``ga``             5        the GA in Table 3's protocol (cached beside ``single``), and the
                            Chapter 5 tables of Ganapathy (2020), :data:`GA_TABLES`
``transfer``       4        Li et al. (2022), Section 5.1: :data:`CHAPTER_GRID`
``scoring``        6        Ariafar et al. (2022): :data:`SCORING` (the defaults of
                            :class:`nmthpo.studies.ariafar.results.Chapter6Params`)
``own_optimizer``  8        the tutorial: Optuna's TPE and GP samplers, 6 tasks x 20 trials
``multifidelity``  7        multi-fidelity methods on the NMTLC learning curves,
                            :data:`MULTIFIDELITY` (:mod:`nmthpo.studies.multifidelity.study`)
``peers``          9        today's HPO libraries beside the book's methods: 6 tasks, budget
                            100, every suggestion timed (grids ``peers``, ``peers_startup``,
                            ``peers_costly``; :data:`OPTIONAL_EXPERIMENTS`: needs the extra)
=================  =======  ====================================================================

The baselines ``nmthpo compare`` ranks a user's runs against are runs of these grids too:
:data:`COMPARE_EXPERIMENTS` names, per objective, the experiments that serve as baselines, and
:func:`compare_baselines` gives their methods and cache folder to
:mod:`nmthpo.engine.compare` (as :class:`~nmthpo.engine.compare.BaselineSet` records).

Where a run is cached (:func:`run_cache_dir`): the book's ``results/<folder>`` when it already
holds the run with enough trials, or when ``make results`` is running (it sets
``NMTHPO_WRITE_RESULTS=1``); otherwise the user cache ``$NMTHPO_RESULTS/<folder>`` (default
``~/.cache/nmthpo/<folder>``, :func:`nmthpo.engine.cache.user_cache_dir`). So a chapter
re-executed with other parameters reads what the book's cache has and computes the rest into
the user cache: at run time nothing is written into the repository.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from nmthpo.benchmark.learning_curves import LC_FINETUNE_TASKS, LC_SCRATCH_TASKS
from nmthpo.benchmark.tables import NMTHPO_TASKS, NMTLC_TASKS
from nmthpo.engine.cache import results_dir, user_cache_dir, writing_results
from nmthpo.engine.runner import RunResult, RunSpec, run
from nmthpo.errors import InputKeyError
from nmthpo.optimizers.transfer.methods import ABLATION_METHODS, DYNAMIC_METHODS, STATIC_METHODS
from nmthpo.studies.zhang_duh.methods import AUTHORS_BOMO, GRAPH_K_VALUES, METHODS, PAPER_METHODS

if TYPE_CHECKING:  # the statistics stack is imported where a comparison needs it
    from nmthpo.engine.compare import BaselineSet

__all__ = [
    "BUDGET",
    "CHAPTER_GRID",
    "COMPARE_EXPERIMENTS",
    "DYNAMIC_ORDER",
    "EXACT_PROTOCOL",
    "EXPERIMENTS",
    "FOLDERS",
    "GA_TABLES",
    "MULTIFIDELITY",
    "MULTIFIDELITY_PEERS",
    "N_SOURCE",
    "RUN_GRIDS",
    "SCORING",
    "SEED",
    "SMALL_TASKS",
    "OPTIONAL_EXPERIMENTS",
    "PEERS_OPTIONS",
    "ChapterSetting",
    "GATables",
    "RunGrid",
    "book_dir",
    "book_file",
    "compare_baselines",
    "ga_tables_dir",
    "grid_runs",
    "run_cache_dir",
    "run_one",
    "seed_user_cache",
    "user_dir",
    "writing_results",
]

#: The four small NMTHPO tables (the k-sensitivity and EIF-text grids use them).
SMALL_TASKS: tuple[str, ...] = ("zh-en", "ru-en", "ja-en", "en-ja")


@dataclass(frozen=True)
class RunGrid:
    """A grid of :func:`nmthpo.engine.runner.run` calls: methods x tasks x variants.

    Attributes
    ----------
    chapter : int
        The book's chapter that reads it.
    folder : str
        Its sub-directory of ``results/`` (and of the user cache).
    methods, tasks : tuple of str
        The published grid (a chapter may ask for any subset, or other names).
    trials : int
        Trials per run in the published grid.
    seed : int
    options : mapping
        Runner settings of every run (``objective``, ``budget``, ``stop``, ``record_mse``...).
    variants : tuple of mapping
        Method settings; one run of each (method, task) per entry (``({},)``: one run).
    """

    chapter: int
    folder: str
    methods: tuple[str, ...]
    tasks: tuple[str, ...]
    trials: int
    seed: int = 0
    options: Mapping[str, Any] = field(default_factory=dict)
    variants: tuple[Mapping[str, Any], ...] = ({},)


#: Runner options of Chapter 9's grids: 100 evaluations (the 3 initial rows included), no
#: early stop at the best row (regret is read at 10, 25, 50 and 100), each suggestion timed.
PEERS_OPTIONS: Mapping[str, Any] = {"budget": 100, "stop": "none", "record_time": True}

#: Every grid of runner calls the book reads (see the module docstring).
#: GP-BO's settings in the papers' protocol, the book's default before issue 25: the
#: hyperparameters re-fitted by L-BFGS-B at every step, exact ties of EI
#: (:mod:`nmthpo.optimizers.bo`); the ``refit`` grid runs it beside the default.
EXACT_PROTOCOL: Mapping[str, Any] = {"schedule": "exact", "search": "lbfgsb", "tie_rtol": 0.0}

RUN_GRIDS: dict[str, RunGrid] = {
    "single": RunGrid(2, "single", METHODS, NMTHPO_TASKS, 100, options={"record_mse": True}),
    "figure6": RunGrid(
        2,
        "figure6",
        METHODS,
        ("ja-en",),
        100,
        options={"budget": 100, "stop": "none", "record_mse": True},
    ),
    "graph_k": RunGrid(
        2,
        "graph_k",
        ("gb-ei-m", "gb-eif-m"),
        SMALL_TASKS,
        30,
        variants=tuple({"k": k} for k in GRAPH_K_VALUES),
    ),
    "eif_text": RunGrid(2, "eif_text", ("gb-eif-text-m",), SMALL_TASKS, 30),
    # GP-BO in the papers' protocol (the book's default before issue 25: a fit by L-BFGS-B at
    # every step, exact ties) on Table 3's trials (same seed, trials and options as
    # ``single``, which holds the default, fast schedule: paired by trial)
    "refit": RunGrid(
        2,
        "refit",
        ("bo-ei-m", "bo-ei-r"),
        NMTHPO_TASKS,
        100,
        options={"record_mse": True},
        variants=(EXACT_PROTOCOL,),
    ),
    # Chapter 2's graph-discrepancy experiments (nmthpo.studies.zhang_duh.graph_discrepancy),
    # 20 trials
    # the earlier all-ties labelling in Table 3's protocol (what Table 3's GB-EIF-M was before)
    "gd_ties": RunGrid(
        2,
        "graph_discrepancy",
        ("gb-eif-m",),
        NMTHPO_TASKS,
        100,
        options={"record_mse": True},
        variants=({"eif_mode": "gbopt-ties"},),
    ),
    "gd_labels": RunGrid(
        2, "graph_discrepancy", ("gb-eif-m",), SMALL_TASKS, 20, variants=({"eif_mode": "monotone"},)
    ),
    # the paper-era BO also on the two large tables, so that "4 of 6" can be counted on six
    "gd_bo": RunGrid(2, "graph_discrepancy", ("bo-ei-m-mcmc",), NMTHPO_TASKS, 20),
    "gd_bo_rare": RunGrid(
        2,
        "graph_discrepancy",
        ("bo-ei-m",),
        SMALL_TASKS,
        20,
        variants=({"refit_every": 10, "restarts": 0},),
    ),
    "gd_gbei": RunGrid(
        2,
        "graph_discrepancy",
        ("gb-ei-m",),
        SMALL_TASKS,
        20,
        variants=({"ei_scale": 0.1}, {"ei_scale": 0.3}, {"ei_scale": 3.0}, {"eps": 1.0}),
    ),
    "pareto": RunGrid(
        3, "pareto", PAPER_METHODS, NMTHPO_TASKS, 100, options={"objective": "pareto"}
    ),
    # Chapter 3's experiment arms (nmthpo.studies.zhang_duh.multiobjective.ARMS), 20 trials on
    # sw-en and the four small tables, in a folder of their own (Table 4's wall time stays
    # Table 4's): in the book's cache, so that the chapter reads the same rows on any CPU (a
    # GP's rows depend on the BLAS kernels)
    "pareto_bo_raw": RunGrid(
        3,
        "pareto_arms",
        ("bo-m",),
        ("sw-en",),
        20,
        options={"objective": "pareto"},
        variants=({"log_time": False},),
    ),
    "pareto_bo_once": RunGrid(
        3,
        "pareto_arms",
        ("bo-m",),
        ("sw-en", *SMALL_TASKS),
        20,
        options={"objective": "pareto"},
        variants=({"refit_until": 3, "restarts": 0},),
    ),
    "pareto_authors": RunGrid(
        3,
        "pareto_arms",
        (AUTHORS_BOMO,),
        ("sw-en", *SMALL_TASKS),
        20,
        options={"objective": "pareto", "encoding": "raw"},
    ),
    "pareto_gb_k": RunGrid(
        3,
        "pareto_arms",
        ("gb-m",),
        SMALL_TASKS,
        20,
        options={"objective": "pareto"},
        variants=({"k": 3}, {"k": 40}),
    ),
    # the GA as an ask/tell optimiser in Table 3's protocol: the same cache as ``single``
    "ga_protocol": RunGrid(5, "single", ("ga",), NMTHPO_TASKS, 100, options={"record_mse": True}),
    # Chapter 2's third exercise: BO-EI-M with its hyperparameters fitted once, 10 trials on
    # ru-en in Table 3's protocol (paired with the first 10 trials of ``single``), in a folder
    # of its own (Table 3's wall time stays Table 3's)
    "exercise_once": RunGrid(
        2,
        "exercises",
        ("bo-ei-m",),
        ("ru-en",),
        10,
        options={"record_mse": True},
        variants=({"refit_every": 1000, "restarts": 0},),
    ),
    # the tutorial: two of Optuna's samplers through the adapter, 20 paired trials
    "own_optimizer": RunGrid(
        8,
        "own_optimizer",
        ("optuna:TPESampler", "optuna:GPSampler"),
        NMTHPO_TASKS,
        20,
        variants=({"n_startup_trials": 3},),
    ),
    # Chapter 9: today's HPO libraries beside the book's methods, budget 100, no early stop,
    # the seconds of every suggestion recorded (needs the peers extra: OPTIONAL_EXPERIMENTS)
    "peers": RunGrid(
        9,
        "peers",
        (
            "rs",
            "bo-ei-m",
            "bo-ei-map",
            "bo-ei-r",
            "gb-ei-m",
            "gb-eif-m",
            "ga",
            "optuna:TPESampler",
            "optuna:GPSampler",
            "optuna:CmaEsSampler",
            "nevergrad:NGOpt",
            "hyperopt:tpe",
            "smac:hpo",
        ),
        NMTHPO_TASKS,
        20,
        options=PEERS_OPTIONS,
    ),
    # Optuna's two samplers with 3 start-up trials (the book's n_init), as in Chapter 8
    "peers_startup": RunGrid(
        9,
        "peers",
        ("optuna:TPESampler", "optuna:GPSampler"),
        NMTHPO_TASKS,
        20,
        options=PEERS_OPTIONS,
        variants=({"n_startup_trials": 3},),
    ),
    # the libraries that cost 10-40 s per trial of 100 evaluations (1.5-2 s per suggestion
    # for HEBO): fewer trials, reported without a ranking verdict
    "peers_costly": RunGrid(
        9,
        "peers",
        ("skopt:gp", "smac:blackbox", "hebo"),
        NMTHPO_TASKS,
        3,
        options=PEERS_OPTIONS,
    ),
}


#: The experiments whose runs ``nmthpo compare`` uses as baselines, per objective: Table 3's
#: methods and the GA in Table 3's protocol (one cache folder), and Table 4's systems.
COMPARE_EXPERIMENTS: dict[str, tuple[str, ...]] = {
    "bleu": ("single", "ga_protocol"),
    "pareto": ("pareto",),
}


def compare_baselines() -> dict[str, BaselineSet]:
    """``nmthpo compare``'s baselines per objective (:func:`nmthpo.engine.compare.compare`'s
    ``book``): the methods of the experiments :data:`COMPARE_EXPERIMENTS` names (in grid order)
    and the folder of ``results/`` that holds their runs."""
    from nmthpo.engine.compare import BaselineSet

    out = {}
    for objective, names in COMPARE_EXPERIMENTS.items():
        grids = [RUN_GRIDS[n] for n in names]
        folders = {g.folder for g in grids}
        objectives = {g.options.get("objective", "bleu") for g in grids}
        if len(folders) != 1 or objectives != {objective}:
            raise ValueError(
                f"compare baselines of {objective!r}: experiments {list(names)} "
                f"must share one folder and the objective (folders "
                f"{sorted(folders)}, objectives {sorted(objectives)})"
            )
        methods = tuple(dict.fromkeys(m for g in grids for m in g.methods))
        out[objective] = BaselineSet(methods, folders.pop())
    return out


@dataclass(frozen=True)
class GATables:
    """Chapter 5's cached tables (:func:`nmthpo.studies.ganapathy.tables.cached_table`).

    ``params`` are the study's published parameters (Ganapathy 2020, Section 4: ja-en, BLEU
    target 16, initial populations 5-25, 1000 iterations, 3 trials); ``kinds`` maps each table
    to its extra arguments.
    """

    folder: str
    params: Mapping[str, Any]
    kinds: Mapping[str, Mapping[str, Any]]


GA_TABLES = GATables(
    folder="ga",
    params={
        "task": "ja-en",
        "target": 16.0,
        "init_pops": (5, 10, 15, 20, 25),
        "iterations": 1000,
        "trials": 3,
        "seed": 0,
    },
    kinds={"rules": {}, "variants": {"with_se": True}, "long": {}},
)


# -- Chapter 4 (Li et al. 2022, Section 5.1) -----------------------------------------------------
#: Target evaluations per trial (initial rows included) and sampled rows per source.
BUDGET = 50
N_SOURCE = 50
SEED = 0

#: Arrival order of the dynamic setting: the task registry's order (the paper's order of its
#: 30 OpenML datasets is not given).
DYNAMIC_ORDER: tuple[str, ...] = NMTHPO_TASKS


@dataclass(frozen=True)
class ChapterSetting:
    """One transfer experiment of Chapter 4.

    Attributes
    ----------
    kind : {"static", "dynamic"}
        Which runner function computes it.
    methods : tuple of str
    tasks : tuple of str
        Targets (static) or the arrival order (dynamic).
    n_sources : int, optional
        Static only: a fixed random subset of that many sources (None: leave one out).
    repeats : int
        Repetitions of the published chapter.
    """

    kind: str
    methods: tuple[str, ...]
    tasks: tuple[str, ...]
    n_sources: int | None
    repeats: int


#: Every transfer experiment Chapter 4 reads (see :mod:`nmthpo.studies.li_transbo.study`).
CHAPTER_GRID: dict[str, ChapterSetting] = {
    "static5": ChapterSetting("static", STATIC_METHODS, NMTHPO_TASKS, None, 30),
    "static2": ChapterSetting("static", STATIC_METHODS, NMTHPO_TASKS, 2, 30),
    "dynamic": ChapterSetting("dynamic", DYNAMIC_METHODS, DYNAMIC_ORDER, None, 30),
    "nmtlc": ChapterSetting("static", STATIC_METHODS, NMTLC_TASKS, None, 30),
    "ablation": ChapterSetting("static", ABLATION_METHODS, NMTHPO_TASKS, None, 30),
}

# -- Chapter 6 (Ariafar et al. 2022) -------------------------------------------------------------
#: The published parameters of Chapter 6 (the defaults of ``Chapter6Params``).
SCORING: Mapping[str, Any] = {
    "functions": ("branin", "hartmann6"),
    "fractions": (0.2, 0.4, 0.6, 0.8, 1.0),
    "boxes_per_fraction": 5,
    "synthetic_seed_sizes": (5, 10, 30),
    "synthetic_repeats": 3,
    "max_budget": 100,
    "synthetic_batches": 64,
    "synthetic_samples": 128,
    "tasks": ("sw-en", "ru-en"),
    "spaces": "default",
    "table_seed_sizes": (5, 10, 20, 50),
    "table_repeats": 5,
    "table_budgets": (1, 2, 5, 10, 20, 50, 100),
    "table_batches": 256,
    "table_samples": 256,
    "prune_budget": 10,
    "prune_fraction": 0.5,
    "select_task": "sw-en",
    "select_budgets": (10, 50),
    "select_trials": 10,
    "select_seed_size": 20,
    "compare_task": "sw-en",
    "space_a": "layers=4",
    "space_b": "layers=2",
    "compare_budgets": (1, 2, 5, 10, 20, 50),
    "compare_seed_size": 20,
    "compare_repeats": 10,
    "score": "mean-b-ei",
    "seed": 0,
}

# -- Chapter 7 (multi-fidelity HPO on the NMTLC learning curves) -----------------------------
#: The published parameters of Chapter 7: methods on the fine-tuned tasks (all, Optuna's
#: pruners as the external reference) and on the scratch sets (the package's own: Optuna's
#: per-checkpoint pruning is too slow for their 600-7000-checkpoint budgets in the 10-minute
#: grid), trials, the budget in mean curves, and the tolerances of "within reach of the best"
#: (BLEU points; perplexity relative to the best).
MULTIFIDELITY: Mapping[str, Any] = {
    "finetune_tasks": LC_FINETUNE_TASKS,
    "scratch_tasks": LC_SCRATCH_TASKS,
    "methods": (
        "rs",
        "sh",
        "hb",
        "asha",
        "bohb",
        "sh-upstream",
        "optuna-pruner:SuccessiveHalvingPruner",
        "optuna-pruner:HyperbandPruner",
        "optuna-pruner:MedianPruner",
    ),
    "scratch_methods": ("rs", "sh", "hb", "asha", "bohb", "sh-upstream"),
    "trials": 100,
    "seed": 0,
    "budget_curves": 30,
    "bleu_tolerance": 0.5,
    "ppl_tolerance": 0.02,
}

#: Chapter 9's multi-fidelity peers: other libraries' schedulers on Chapter 7's fine-tuned
#: learning-curve tasks, with Chapter 7's budget, trials and tolerances
#: (:data:`MULTIFIDELITY`); cached in ``results/peers`` (they need the peers extra). The
#: book's methods are read from Chapter 7's runs.
MULTIFIDELITY_PEERS: Mapping[str, Any] = {
    "methods": ("dehb", "syne-tune:ASHA", "syne-tune:BOHB"),
    "book_methods": ("rs", "sh", "hb", "asha", "bohb", "optuna-pruner:HyperbandPruner"),
    "tasks": LC_FINETUNE_TASKS,
    "folder": "peers",
}

#: Every cache folder of ``results/`` an experiment writes: experiment -> folder.
FOLDERS: dict[str, str] = {
    **{name: g.folder for name, g in RUN_GRIDS.items()},
    "ga": GA_TABLES.folder,
    "transfer": "transfer",
    "scoring": "scoring",
    "multifidelity": "multifidelity",
    "peers": "peers",
    "claims": "",  # results/claims.csv: the ledger, judged on every experiment above
}

#: The experiments of ``make results``, in the order it computes them.
EXPERIMENTS: tuple[str, ...] = (
    "single",
    "ga",
    "figure6",
    "graph_k",
    "eif_text",
    "refit",
    "gd_ties",
    "gd_labels",
    "gd_bo",
    "gd_bo_rare",
    "gd_gbei",
    "pareto",
    "pareto_bo_raw",
    "pareto_bo_once",
    "pareto_authors",
    "pareto_gb_k",
    "exercise_once",
    "scoring",
    "transfer",
    "own_optimizer",
    "multifidelity",
    "claims",
)

#: Experiments ``make results`` computes only when named (``--only peers``): they need the
#: ``peers`` extra (``make peers``); the book reads their cached runs without it.
OPTIONAL_EXPERIMENTS: tuple[str, ...] = ("peers",)


# -- where caches live ---------------------------------------------------------------------------
def book_dir(folder: str) -> Path:
    """The book's cache folder ``results/<folder>`` (read-only outside ``make results``)."""
    return results_dir() / folder


def user_dir(folder: str) -> Path:
    """The user cache's folder for runs outside the book's cache (``$NMTHPO_RESULTS``)."""
    return user_cache_dir() / folder


def book_file(*parts: str) -> Path:
    """A file of the book's cache written by a tool (e.g. ``book_file("openbox", "x.txt")``)."""
    return results_dir().joinpath(*parts)


def _holds(path: Path, column: str, count: int) -> bool:
    """Whether the Parquet file ``path`` holds ``column`` values ``0 .. count-1``."""
    if not path.exists():
        return False
    have = set(pd.read_parquet(path, columns=[column])[column].unique().tolist())
    return set(range(count)) <= have


def run_cache_dir(folder: str, spec: Any, trials: int) -> Path:
    """Where the run ``spec`` (any spec of the runner: a :class:`RunSpec`, a learning-curve
    run's spec) with ``trials`` trials is read from and, if new, written to.

    The book's ``results/<folder>`` if ``make results`` is running or if it already holds
    the run with at least ``trials`` trials (then nothing is written); else the user cache.
    """
    book = book_dir(folder)
    if writing_results() or _holds(book / f"{spec.stem()}.parquet", spec.trial_column, trials):
        return book
    return user_dir(folder)


def _grid(experiment: str) -> RunGrid:
    if experiment not in RUN_GRIDS:
        raise InputKeyError(f"unknown experiment {experiment!r}; valid: {', '.join(RUN_GRIDS)}")
    return RUN_GRIDS[experiment]


def run_one(
    experiment: str,
    method: str,
    task: str,
    trials: int | None = None,
    seed: int | None = None,
    settings: Mapping[str, Any] | None = None,
    jobs: int = 1,
    progress: bool = False,
    **options: Any,
) -> RunResult:
    """One run of ``experiment``'s grid, read from the cache or computed into it.

    ``trials`` and ``seed`` default to the grid's; ``options`` override the grid's runner
    settings (e.g. ``budget``); ``settings`` are method settings (e.g. ``{"k": 10}``). The
    cache directory is :func:`run_cache_dir` of the grid's folder.
    """
    g = _grid(experiment)
    trials = g.trials if trials is None else int(trials)
    seed = g.seed if seed is None else int(seed)
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")
    kw = {**g.options, **options}
    sets = dict(settings or {})
    spec = RunSpec(method, task, seed=seed, settings=sets, **kw)
    return run(
        method,
        task,
        trials=trials,
        seed=seed,
        settings=sets,
        jobs=jobs,
        cache_dir=run_cache_dir(g.folder, spec, trials),
        progress=progress,
        **kw,
    )


def grid_runs(
    experiment: str,
    methods: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    trials: int | None = None,
    seed: int | None = None,
    jobs: int = 1,
    progress: bool = False,
    **options: Any,
) -> dict[tuple[str, str], pd.DataFrame]:
    """The tidy frames of ``experiment``'s runs: ``{(method, task): frame}``.

    ``methods``/``tasks``/``trials``/``seed`` default to the published grid; any subset (or
    other registered names) works: runs the book's cache lacks go to the user cache.
    """
    g = _grid(experiment)
    ms = g.methods if methods is None else tuple(methods)
    ts = g.tasks if tasks is None else tuple(tasks)
    if not ms or not ts:
        raise ValueError(
            f"{experiment}: name at least one method and one task "
            f"(got methods={list(ms)}, tasks={list(ts)})"
        )
    return {
        (m, t): run_one(
            experiment, m, t, trials, seed, jobs=jobs, progress=progress, **options
        ).frame
        for t in ts
        for m in ms
    }


def ga_tables_dir(**params: Any) -> Path:
    """Cache folder of a Chapter 5 table computed with ``params``.

    The book's ``results/ga`` for the published parameters (:data:`GA_TABLES`) or under
    ``make results``; the user cache for any other parameters.
    """
    published = {k: list(v) if isinstance(v, tuple) else v for k, v in GA_TABLES.params.items()}
    given = {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}
    same = {k: given.get(k, published[k]) for k in published} == published and set(given) <= set(
        published
    )
    if writing_results() or same:
        return book_dir(GA_TABLES.folder)
    return user_dir(GA_TABLES.folder)


def seed_user_cache(folder: str, stems: Sequence[str]) -> Path:
    """Copy the book's files ``<stem>.parquet`` (and ``.json``) of ``folder`` that exist into
    the user cache (files already there are kept); return the user cache's folder.

    Used when a chapter needs some runs the book's cache holds and some it lacks: the runner
    then works in the user cache only, and the book's files are only read.
    """
    user = user_dir(folder)
    book = book_dir(folder)
    for stem in stems:
        for suffix in (".json", ".parquet"):
            src, dst = book / f"{stem}{suffix}", user / f"{stem}{suffix}"
            if src.exists() and not dst.exists():
                user.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dst)
    return user
