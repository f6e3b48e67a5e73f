"""The multi-fidelity engine: trials of a method on a learning-curve task, budget in checkpoints.

:func:`run_curves` runs ``trials`` independent trials of a multi-fidelity method
(:mod:`nmthpo.optimizers.multifidelity`) on the learning-curve view of a task
(:func:`nmthpo.benchmark.learning_curves.load_curves`). The engine owns what the optimiser
must not: the budget, the simulated workers and their clock, the log and the recommendation.

Cost and time
    A job ``(row, k)`` trains ``row`` up to checkpoint ``k``; it reaches ``min(k, length)``
    (a curve that ended early is complete) and is charged only the checkpoints it adds to
    what ``row`` already trained (promotion resumes). A job that would take the trial's
    charged checkpoints beyond the budget is refused and the trial stops asking (running jobs
    finish): the budget is never exceeded, and random search never reports a partial curve.
    Simulated workers (``workers`` of the method, 1 unless it says otherwise, e.g. ASHA's 4)
    run jobs in parallel; a job's duration is its charged checkpoints.

Log
    One record per finished job, in order of completion: ``trial, step, row, checkpoint,
    value, cost`` (``checkpoint``: checkpoints trained, 1-based; ``value``: the best-so-far
    metric there, BLEU or perplexity; ``cost``: checkpoints charged by the trial's finished
    jobs so far, i.e. the sum over rows of the highest checkpoint reached).

Recommendation (one rule for every method)
    After every finished job the trial recommends, among the configurations trained
    *deepest*, the one with the best value; depth is the checkpoint a configuration was asked
    to reach, and a configuration whose curve has ended counts as fully trained (the longest
    curve's length). So random search recommends its best complete curve, successive halving
    the best of its last rung. The recommendation's *final* value (``bleu_optimal`` /
    ``perplexity_optimal``) is what the metrics score.

Seeding: trial ``t`` of seed ``s`` uses ``numpy.random.default_rng([s, t, 1])`` (the runner's
rule, :mod:`nmthpo.engine.runner`), so a trial depends only on (method, task, settings,
budget, seed, trial) and never on ``jobs``.

One runner: a :class:`CurveRunSpec` is a spec of :func:`nmthpo.engine.runner.run_specs`'s
protocol, so a learning-curve run has what every run has -- workers (joblib or Dask), a
progress bar, the cache (one Parquet file per run with a sidecar holding its spec and SHA-256;
each finished trial saved first, so an interrupted run resumes where it stopped) and Ctrl-C.
A cached learning-curve run is reused only with its checksummed sidecar, and only if every
job's value equals the curve's value at its checkpoint.
"""

from __future__ import annotations

import functools
import heapq
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nmthpo.benchmark.learning_curves import LearningCurveTable, load_curves
from nmthpo.engine.cache import atomic_write, key, write_text
from nmthpo.errors import LIMITS, InputValueError, check_int
from nmthpo.optimizers.base import integer_like, quote_value, user_code, user_code_error
from nmthpo.optimizers.registry import (
    MethodSpec,
    check_available,
    check_settings,
    load_class,
    method_name,
    resolve,
)

__all__ = [
    "BUDGET_CURVES",
    "EVALUATION_COLUMNS",
    "RECOMMENDATION_COLUMNS",
    "build_optimizer",
    "CurveRunSpec",
    "CurveRunResult",
    "default_budget",
    "on_curves",
    "run_curves",
    "simulate_trial",
]

#: Columns of ``evaluations.parquet``.
EVALUATION_COLUMNS: tuple[str, ...] = ("trial", "step", "row", "checkpoint", "value", "cost")
#: Columns of ``recommendations.parquet``.
RECOMMENDATION_COLUMNS: tuple[str, ...] = ("trial", "row", "final_value", "cost")
#: The default budget in units of the task's mean curve length (random search trains about
#: this many configurations to the end).
BUDGET_CURVES = 30


def default_budget(table: LearningCurveTable, curves: float = BUDGET_CURVES) -> int:
    """``curves`` mean curves of ``table`` in checkpoints (rounded): the default budget."""
    return int(round(curves * float(table.lengths.mean())))


@dataclass(frozen=True)
class CurveRunSpec:
    """What determines a multi-fidelity run: method, task, budget, seed and settings."""

    method: str
    task: str
    budget: int
    seed: int = 0
    settings: Mapping[str, Any] = field(default_factory=dict)
    resolved: MethodSpec | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(
        cls,
        method: str | type | MethodSpec,
        task: str,
        budget: int | None = None,
        seed: int = 0,
        settings: Mapping[str, Any] | None = None,
    ) -> CurveRunSpec:
        """The spec of a run of ``method`` (any form :func:`resolve` takes) on the curves of
        ``task``, named as :meth:`nmthpo.engine.runner.RunSpec.of` names table runs: a string
        by :func:`~nmthpo.optimizers.registry.method_name`; a class or a MethodSpec by its
        name, its fixed settings joining ``settings`` (so they enter the key). ``budget``
        defaults to :func:`default_budget`."""
        resolved = resolve(method)
        sets = dict(settings or {})
        if isinstance(method, str):
            name = method_name(method)
        else:
            name, sets = resolved.name, {**resolved.settings, **sets}
            resolved = replace(resolved, settings={})
        b = default_budget(load_curves(task)) if budget is None else budget
        return cls(name, task, b, seed, sets, resolved=resolved)

    def method_spec(self) -> MethodSpec:
        """The resolved method (resolved once, sent to workers)."""
        return self.resolved if self.resolved is not None else resolve(self.method)

    def payload(self) -> dict[str, Any]:
        """The fields the cache key hashes."""
        return {
            "method": self.method,
            "task": self.task,
            "budget": int(self.budget),
            "seed": int(self.seed),
            "settings": dict(sorted(dict(self.settings).items())),
            "engine": "fidelity-1",
        }

    def key(self) -> str:
        """A stable hash of :meth:`payload`."""
        return key(self.payload())

    def stem(self) -> str:
        """File-name stem of the cached run."""
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", self.method)
        return f"{name}__{self.task}__curves__b{int(self.budget)}__s{self.seed}__{self.key()}"

    # -- the spec protocol of nmthpo.engine.runner.run_specs --------------------------------
    trial_column = "trial"

    def run_trial(self, trial: int) -> dict[str, np.ndarray]:
        """:func:`simulate_trial` of this spec."""
        return simulate_trial(self, trial)

    def tidy(self, trial: int, res: Mapping[str, np.ndarray]) -> pd.DataFrame:
        """One trial's log as the run's tidy frame."""
        return _tidy(trial, res)

    def trial_problem(self, res: Mapping[str, np.ndarray]) -> str | None:
        """Why ``res`` cannot be one trial of this spec (rows outside the table, checkpoints
        below 1, values that are not the curves', a cost above the budget), or ``None``."""
        try:
            cols = {c: np.asarray(res[c]) for c in _LOG_COLUMNS}
        except KeyError as exc:
            return f"it lacks {exc}"
        return _log_problem(self, cols)

    def frame_problem(self, frame: pd.DataFrame) -> str | None:
        """Why a cached frame cannot be this spec's run, or ``None``."""
        if not {"trial", "step", *_LOG_COLUMNS} <= set(frame.columns):
            return f"columns {sorted(frame.columns)} lack trial, step or {', '.join(_LOG_COLUMNS)}"
        for t, g in frame.groupby("trial", sort=True):
            if not np.array_equal(g["step"].to_numpy(), np.arange(len(g))):
                return f"trial {t}: steps are not 0, 1, ..."
            why = _log_problem(self, {c: g[c].to_numpy() for c in _LOG_COLUMNS})
            if why is not None:
                return f"trial {t}: {why}"
        return None

    def result(self, frame: pd.DataFrame) -> CurveRunResult:
        """The run's result object."""
        return CurveRunResult(self, frame)

    def check_available(self) -> None:
        """Refuse the run before any work if the method's library is missing (DEHB, Syne
        Tune: :func:`nmthpo.optimizers.registry.check_available`); the runner calls it only
        for runs with trials to compute, so a cached run reads back without the library."""
        check_available(self.method_spec(), self.method)

    def validate(self) -> CurveRunSpec:
        """Raise an :class:`~nmthpo.errors.InputError` with a clear message for nonsense
        settings (before any work: the same checks for the command line and the API)."""
        m = self.method_spec()
        check_int("seed", self.seed, 0, LIMITS["seed"])
        check_int("budget", self.budget, 1, LIMITS["budget"])
        if not m.runs_on_curves():
            raise InputValueError(
                f"method {self.method!r} does not run on learning curves; "
                "multi-fidelity methods: rs, sh, hb, asha, bohb, sh-upstream, "
                "optuna-pruner:<PrunerClass>, dehb, syne-tune:<Scheduler>"
            )
        table = load_curves(self.task)
        check_settings(m, self.settings, self.method, fidelity=True)
        if not table.max_len <= self.budget:
            raise InputValueError(
                f"budget={self.budget}: must be at least the longest curve of {self.task} "
                f"({table.max_len} checkpoints: one full training run)"
            )
        return self


_LOG_COLUMNS = ("row", "checkpoint", "value", "cost", "recommended")


def _log_problem(spec: CurveRunSpec, cols: Mapping[str, np.ndarray]) -> str | None:
    table = load_curves(spec.task)
    rows, ks = cols["row"].astype(np.int64), cols["checkpoint"].astype(np.int64)
    if len({c.size for c in cols.values()}) != 1:
        return "its columns differ in length"
    if rows.size == 0:
        return None
    for name, r in (("row", rows), ("recommended", cols["recommended"].astype(np.int64))):
        if r.min() < 0 or r.max() >= table.n_rows:
            return f"{name} ids outside 0..{table.n_rows - 1}"
    if ks.min() < 1 or ks.max() > table.max_len:
        return f"checkpoints outside 1..{table.max_len}"
    cost = cols["cost"].astype(np.int64)
    if np.any(np.diff(cost) < 0) or cost[-1] > spec.budget:
        return f"its cost decreases or exceeds the budget of {spec.budget}"
    expected = table.best[rows, np.minimum(ks, table.lengths[rows]) - 1]  # table.query
    if not np.array_equal(expected, cols["value"].astype(float), equal_nan=True):
        return "values differ from the learning curves'"
    return None


def _build(
    spec: CurveRunSpec,
    table: LearningCurveTable,
    rng: np.random.Generator,
    trial: int,
) -> Any:
    m = spec.method_spec()
    cls = load_class(m, fidelity=True)
    settings = {**m.settings, **dict(spec.settings)}
    if "budget" in _init_params(cls) and "budget" not in settings:
        settings["budget"] = spec.budget
    with user_code("__init__()", spec.method, trial):
        return cls(table.X, table.max_len, rng, **settings)


def build_optimizer(spec: CurveRunSpec, table: LearningCurveTable, trial: int) -> Any:
    """The optimiser of trial ``trial`` of ``spec``, seeded as :func:`simulate_trial` seeds it.

    Whatever the constructor raises becomes a :class:`~nmthpo.errors.UserCodeError`
    ``"method M, trial T: __init__() raised ..."`` (the settings were checked before, by
    :meth:`CurveRunSpec.validate`).
    """
    return _build(spec, table, np.random.default_rng([spec.seed, trial, 1]), trial)


def _init_params(cls: type) -> set[str]:
    import inspect

    return set(inspect.signature(cls).parameters)


def simulate_trial(
    spec: CurveRunSpec, trial: int, table: LearningCurveTable | None = None
) -> dict[str, np.ndarray]:
    """Run trial ``trial`` of ``spec`` (see the module docstring); arrays of its log.

    Returns
    -------
    dict of arrays
        ``row, checkpoint, value, cost`` per finished job (completion order) and
        ``recommended``: the recommended row after that job.

    Raises
    ------
    UserCodeError
        The optimiser (the user's code, untrusted; the package's own are guarded alike) raised
        in its constructor, ``ask`` or ``tell``; ``ask`` returned neither ``None`` nor a job
        ``(row, checkpoint)`` of two integers (:func:`nmthpo.optimizers.base.integer_like`)
        with ``0 <= row < n`` and ``checkpoint >= 1``; its ``workers`` is not a positive
        integer; or it never stopped. One line naming the method and the trial.
    """
    table = load_curves(spec.task) if table is None else table
    opt = build_optimizer(spec, table, trial)
    method = spec.method
    with user_code("reading attribute workers", method, trial):
        got = getattr(opt, "workers", 1)
    workers = integer_like(got)
    if workers is None or workers < 1:
        raise user_code_error(
            f"attribute workers is {quote_value(got)}; it must be a positive integer (the "
            "simulated workers)",
            method,
            trial,
        )
    n, longest = table.n_rows, table.max_len
    trained = np.zeros(n, dtype=int)
    depth = np.zeros(n, dtype=int)
    reserved = charged = 0
    running: list[tuple[int, int, int, int, int]] = []  # (finish, seq, row, k, new)
    clock, seq, stopped = 0, 0, False
    log: dict[str, list[Any]] = {
        c: [] for c in ("row", "checkpoint", "value", "cost", "recommended")
    }
    rec, rec_depth, rec_score = -1, -1, -np.inf
    limit = n * (longest + 2) + 10
    while True:
        while not stopped and len(running) < workers:
            with user_code("ask()", method, trial):
                job = opt.ask()
            if job is None:
                break
            row, k = _job(job)
            if not 0 <= row < n or k < 1:
                raise user_code_error(
                    f"ask() returned {quote_value(job)}; it must return None or a job (row, "
                    f"checkpoint): two integers (not bools, floats or strings) with "
                    f"0 <= row < {n} and checkpoint >= 1",
                    method,
                    trial,
                )
            reach = table.reached(row, min(k, longest))
            new = max(reach - trained[row], 0)
            if reserved + new > spec.budget:
                stopped = True
                break
            reserved += new
            trained[row] = max(trained[row], reach)
            depth[row] = max(depth[row], min(k, longest))
            heapq.heappush(running, (clock + new, seq, row, reach, new))
            seq += 1
        if not running:
            break
        clock, _, row, reach, new = heapq.heappop(running)
        charged += new
        complete = trained[row] >= table.lengths[row]
        if complete:
            depth[row] = longest
        value = table.query(row, reach)
        score = float(table.score(value))
        with user_code("tell()", method, trial):
            opt.tell(row, reach, score, bool(complete))
        if depth[row] > rec_depth or (depth[row] == rec_depth and score > rec_score):
            rec, rec_depth, rec_score = row, int(depth[row]), score
        elif row == rec:
            rec_score = score
        for c, v in zip(log, (row, reach, value, charged, rec), strict=True):
            log[c].append(v)
        if len(log["row"]) > limit:
            raise user_code_error(
                f"ask() never stopped proposing jobs: more than {limit} finished jobs, more "
                f"than training each of the {n} configurations one checkpoint at a time takes",
                method,
                trial,
            )
    return {
        "row": np.asarray(log["row"], dtype=int),
        "checkpoint": np.asarray(log["checkpoint"], dtype=int),
        "value": np.asarray(log["value"], dtype=float),
        "cost": np.asarray(log["cost"], dtype=int),
        "recommended": np.asarray(log["recommended"], dtype=int),
    }


def _job(job: Any) -> tuple[int, int]:
    """``(row, checkpoint)`` of a job ``ask()`` returned, ``(-1, 0)`` if it is not a pair of
    integers."""
    if isinstance(job, (str, bytes)):
        return -1, 0
    try:
        a, b = job
    except Exception:  # not a pair (a number, a longer sequence, an object that raises)
        return -1, 0
    row, k = integer_like(a), integer_like(b)
    return (-1, 0) if row is None or k is None else (row, k)


def _tidy(trial: int, res: Mapping[str, np.ndarray]) -> pd.DataFrame:
    m = res["row"].size
    return pd.DataFrame(
        {
            "trial": np.full(m, trial, dtype=int),
            "step": np.arange(m),
            **{c: res[c] for c in ("row", "checkpoint", "value", "cost", "recommended")},
        }
    )


@dataclass(frozen=True)
class CurveRunResult:
    """Trials of a multi-fidelity run.

    ``frame`` holds :data:`EVALUATION_COLUMNS` and ``recommended`` (the row recommended after
    each finished job: the anytime curves).
    """

    spec: CurveRunSpec
    frame: pd.DataFrame

    @property
    def trials(self) -> int:
        """Number of trials."""
        return int(self.frame["trial"].nunique())

    @property
    def evaluations(self) -> pd.DataFrame:
        """``trial, step, row, checkpoint, value, cost``: one line per finished job."""
        return self.frame[list(EVALUATION_COLUMNS)].reset_index(drop=True)

    @property
    def recommendations(self) -> pd.DataFrame:
        """``trial, row, final_value, cost``: each trial's recommendation at its end, its
        final value (``bleu_optimal`` / ``perplexity_optimal``) and the trial's cost."""
        table = load_curves(self.spec.task)
        last = self.frame.groupby("trial", sort=True).tail(1)
        rows = last["recommended"].to_numpy(dtype=int)
        return pd.DataFrame(
            {
                "trial": last["trial"].to_numpy(dtype=int),
                "row": rows,
                "final_value": table.final[rows],
                "cost": last["cost"].to_numpy(dtype=int),
            }
        )

    def save(self, out: str | Path, force: bool = False) -> None:
        """Write ``out/evaluations.parquet``, ``out/recommendations.parquet`` and
        ``out/spec.json`` (atomically); a directory holding another run's output is refused
        unless ``force`` (:func:`nmthpo.engine.runner.check_output`)."""
        from nmthpo.engine.runner import (
            CHECKSUMS_FILE,
            all_or_nothing,
            prepare_output,
            write_output_checksums,
        )

        files = ("evaluations.parquet", "recommendations.parquet", CHECKSUMS_FILE)
        out = prepare_output(out, self.spec.payload(), files, force)
        with all_or_nothing(out, files):
            for name, frame in (
                ("evaluations", self.evaluations),
                ("recommendations", self.recommendations),
            ):
                atomic_write(out / f"{name}.parquet", functools.partial(_to_parquet, frame))
            write_output_checksums(out, files)
            write_text(
                out / "spec.json",
                json.dumps(self.spec.payload(), indent=2, sort_keys=True, default=str),
            )


def on_curves(method: str | type | MethodSpec, task: str, force: bool = False) -> bool:
    """Whether a run of ``method`` on ``task`` is a learning-curve run (this engine) rather
    than a lookup-table run (:mod:`nmthpo.engine.runner`): a multi-fidelity method, a task that
    has only learning curves (``lc-scratch-*``), or ``force`` (e.g. ``rs`` on
    ``lc-finetune-*``, whose table view keeps its lookup-table meaning otherwise)."""
    from nmthpo.benchmark.learning_curves import LC_TASKS
    from nmthpo.benchmark.tables import TASKS

    spec = resolve(method)
    return force or spec.fidelity or (task in LC_TASKS and task not in TASKS)


def _to_parquet(frame: pd.DataFrame, path: Path) -> None:
    frame.to_parquet(path, index=False)


def run_curves(
    method: str | type | MethodSpec,
    task: str,
    trials: int = 100,
    budget: int | None = None,
    seed: int = 0,
    settings: Mapping[str, Any] | None = None,
    jobs: int = 1,
    cache_dir: str | Path | None = None,
    progress: bool = False,
    scheduler: str | None = None,
) -> CurveRunResult:
    """Run (or read from the cache) ``trials`` trials of a multi-fidelity ``method`` on the
    learning curves of ``task``, through the one runner (:func:`nmthpo.engine.runner.run_specs`).

    Parameters
    ----------
    method
        A registered name (``rs``, ``sh``, ``hb``, ``asha``, ``bohb``, ``sh-upstream``),
        ``optuna-pruner:<PrunerClass>``, or a :class:`MethodSpec` with ``fidelity=True``.
    task
        A learning-curve task (:data:`nmthpo.benchmark.learning_curves.LC_TASKS`).
    trials, seed
        Trials ``0 .. trials-1`` of ``seed``.
    budget
        Checkpoints per trial (default :func:`default_budget`: 30 mean curves).
    settings
        Method settings (e.g. ``{"eta": 2}``).
    jobs, scheduler
        Worker processes, or a Dask scheduler's address (results do not depend on them).
    cache_dir
        Where finished trials and runs are kept (checksummed; resumable); ``None``: no cache.
    progress
        Show a progress bar.
    """
    from nmthpo.engine.runner import check_run_options, run_specs

    check_run_options(trials, jobs, cache_dir, progress)
    spec = CurveRunSpec.of(method, task, budget, seed, settings)
    result: CurveRunResult = run_specs([spec], trials, jobs, cache_dir, progress, scheduler)[0]
    return result
