"""The one runner: repeated HPO trials on lookup tables, with or without source tasks.

A run is one :class:`RunSpec`: a method, a task and everything that determines its results.
A spec *with source tasks* (``sources`` a tuple, possibly empty) is a transfer run (Li et al.
2022, Section 5.1); without (``sources=None``) a single-task run (Zhang & Duh 2020, Section
4.3). A trial ``t`` is fully determined by ``(spec, t)``:

* its initial rows are drawn from ``default_rng([seed, t, 0])`` -- independent of the method,
  so all methods start trial *t* from the same rows (common random numbers, paired
  comparisons);
* the optimiser's own generator is ``default_rng([seed, t, 1])``;
* a transfer trial's source samples and source GPs come from
  :func:`nmthpo.optimizers.transfer.sources.source_task` with ``(seed, t)`` -- the same for
  every method and target.

Hence results do not depend on the number of workers or on the scheduler (joblib processes or a
Dask cluster through joblib's ``dask`` backend): they are bit-identical. Every trial runs with
BLAS limited to one thread (threadpoolctl): on the 2-core machine a multi-threaded OpenBLAS
made a 300-point GP fit 50-100x slower under contention; workers are reused across trials.

Every trial is the one ask/tell loop of :mod:`nmthpo.engine.loop`. A trial stops when (a)
``stop="target"`` and the oracle target is reached -- for BLEU the *first argmax row* has been
evaluated, which implies the best value was reached as well, so both tie conventions of
:mod:`nmthpo.engine.metrics` can be scored; for Pareto, all Pareto-optimal rows are found -- or
(b) ``budget`` evaluations (initial rows included) were made, or (c) the table is exhausted.
Transfer runs default to ``stop="none"`` and ``budget`` ``N_T = 50`` (their metrics are curves).

The method is resolved once in the calling process
(:func:`nmthpo.optimizers.registry.resolve`: a registered name, ``module:Class``,
``prefix:Name``, a class or a :class:`~nmthpo.optimizers.registry.MethodSpec`) and the
resolved spec travels with every job (:attr:`RunSpec.resolved`), so a worker never looks a
name up in its own registry. Transfer optimisers get their context (fitted sources, target
name, kernel, meta-features computed here from the tables) through their constructor.

Cache: finished runs are stored as one tidy Parquet file per spec under ``cache_dir``
(:meth:`RunSpec.stem`) with a JSON sidecar of the spec and the machine fingerprint
(:func:`nmthpo.engine.cache.machine_fingerprint`); each finished trial is first written
atomically to a partial directory, so an interrupted run resumes where it stopped and a
finished one is read back, never recomputed. Asking for more trials than cached computes only
the missing ones. Keys: the SHA-256 of the spec's JSON (:func:`nmthpo.engine.cache.key`); a
single-task spec hashes the fields of the original ``RunSpec``, a transfer spec those of the
original ``TransferSpec``, so every cached file keeps its name.

Integrity (:func:`nmthpo.engine.cache.write_checked`): every partial trial and every finished
run has a sidecar with its spec and its seal: the SHA-256 of its bytes, and the SHA-256 of the
spec's JSON followed by the bytes, so a sidecar edited or copied from another spec fails even
with a recomputed file checksum. Before reuse, a cached file is checked against its sidecar
and its rows against the table (ids in the table, none repeated within a trial, BLEU equal to
the table's; a transfer run's ``method``, ``target``, ``n_sources`` and weight columns equal
the spec's); a damaged, foreign, unsealed or stale file is named in a warning, moved aside
(:func:`nmthpo.engine.cache.read_checked`: a finished run to ``NAME.bad-N`` beside it, a
partial trial to ``damaged/<stem>/``; never deleted) and recomputed. The book's committed
caches get no exception (``tools/seal_results.py`` sealed them): a bad file there is left in
place and not used, and the run is computed into the user cache instead
(:func:`nmthpo.engine.cache.write_target`; outside ``make results`` nothing is written under
``results/``). A trial's result is validated the same way before it is written.

Faults: a cache directory (or its ``partial`` sub-directory) that is a file is refused before
any work starts (:class:`~nmthpo.errors.InputValueError` naming it); a write that fails (a
full disk) raises :class:`~nmthpo.errors.FaultError` and leaves no temporary or half-written
file, and a rerun after the fault is fixed resumes from the trials saved before it.

The spec protocol: :func:`run_specs` runs any spec that has what :class:`RunSpec` has for it --
``method``, ``task``, ``resolved``, :meth:`~RunSpec.validate`, :meth:`~RunSpec.payload`,
:meth:`~RunSpec.stem`, ``trial_column``, :meth:`~RunSpec.run_trial`,
:meth:`~RunSpec.tidy`, :meth:`~RunSpec.trial_problem`, :meth:`~RunSpec.frame_problem` and
:meth:`~RunSpec.result`. The learning-curve runs of :mod:`nmthpo.engine.fidelity`
(:class:`~nmthpo.engine.fidelity.CurveRunSpec`) are such specs: they share the workers, the
progress bar, the cache with its checksummed sidecars, resume and the interrupt contract.

Outputs: :func:`output_problem` tells whether a directory holds the output of another run
(:meth:`RunResult.save` refuses to overwrite it unless ``force``), so an output directory is
never silently replaced by a run of another spec; the same spec writes over its own output.

User code: the optimiser is untrusted. Whatever its module's import, its constructor, ``ask``,
``tell`` or a recorded attribute raises, and an ``ask`` that returns no unevaluated row id,
ends the run with one :class:`~nmthpo.errors.UserCodeError` naming the method, the trial and
the exception (:func:`run_trial`, :mod:`nmthpo.engine.loop`), the same on 1 worker, joblib's
processes and Dask (it pickles with its text, method and trial). The trials saved before it
stay in the cache: after the fix, the same run resumes.

Interrupts: SIGINT (and SIGTERM, which the CLI turns into one) during :func:`run_specs` stops
the workers (joblib's processes are killed, a Dask client is closed, which cancels its tasks)
and raises :class:`RunInterrupted`, whose message says how many trials are saved in the cache
and how to resume; a resumed run logs how many trials it found.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nmthpo.benchmark.metafeatures import transfer_metafeatures
from nmthpo.benchmark.tables import (
    ENCODINGS,
    NMTHPO_TASKS,
    NMTLC_TASKS,
    check_task,
    load_table,
    task_family,
)
from nmthpo.engine.cache import (
    atomic_write,
    checked_source,
    key,
    machine_fingerprint,
    read_checked,
    sha256_file,
    write_checked,
    write_target,
    write_text,
)
from nmthpo.engine.loop import (
    OptimizerAsks,
    Recorder,
    SuggestTime,
    SurrogateMSE,
    TransferWeights,
    ask_tell,
)
from nmthpo.engine.metrics import validate_sequence, write_sequences
from nmthpo.errors import (
    LIMITS,
    FaultError,
    InputError,
    InputTypeError,
    InputValueError,
    check_choice,
    check_display_name,
    check_int,
    check_output_dir,
    fault_from_oserror,
)
from nmthpo.optimizers.base import RunContext, user_code
from nmthpo.optimizers.registry import (
    MethodSpec,
    build,
    check_available,
    check_settings,
    load_class,
    method_name,
    resolve,
)

__all__ = [
    "CACHE_VERSION",
    "OutputExists",
    "RunInterrupted",
    "RunResult",
    "RunSpec",
    "CHECKSUMS_FILE",
    "SCHEDULER_ENV",
    "OUTPUT_FILES",
    "all_or_nothing",
    "cached_runs",
    "check_output",
    "check_run_options",
    "default_sources",
    "initial_rows",
    "load_run",
    "output_problem",
    "prepare_output",
    "run",
    "run_machine",
    "run_specs",
    "run_transfer",
    "run_trial",
    "run_context",
    "trial_optimizer",
    "write_output_checksums",
]

#: Bump when a change to the runner would change results, to invalidate old caches.
CACHE_VERSION = 1
#: The address of a Dask scheduler that :func:`run_specs` uses when given none
#: (``make results SCHEDULER=...`` sets it).
SCHEDULER_ENV = "NMTHPO_SCHEDULER"
#: Messages about the cache (resumed runs, damaged files moved aside); the CLI prints them.
log = logging.getLogger("nmthpo.runner")
#: ``N_T`` of a transfer run when no budget is given (Li et al. 2022, Section 5.1).
TRANSFER_BUDGET = 50
#: Fields whose default differs between a transfer run and a single-task run.
_TRANSFER_DEFAULTS: dict[str, Any] = {
    "objective": "bleu",
    "stop": "none",
    "encoding": "shared",
    "record_mse": False,
}
#: Entries of a spec's JSON that are not fields of :class:`RunSpec`: where and how the file
#: was written (``machine``, ``checksum``), the method's ``revision`` (the registry gives it,
#: :meth:`RunSpec.payload` records it when not 0) and a run directory's display ``name``.
_NOT_FIELDS: tuple[str, ...] = ("machine", "checksum", "revision", "name")
_SINGLE_FIELDS = (
    "method",
    "task",
    "objective",
    "seed",
    "n_init",
    "budget",
    "stop",
    "encoding",
    "record_mse",
    "settings",
)
_TRANSFER_FIELDS = (
    "method",
    "target",
    "sources",
    "n_source",
    "budget",
    "n_init",
    "seed",
    "kernel",
    "settings",
)


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's results (the cache key), and the resolved method.

    Attributes
    ----------
    method : str
        A registered name, ``"module:Class"`` or ``"prefix:Name"`` (build a spec from a class
        or a :class:`~nmthpo.optimizers.registry.MethodSpec` with :meth:`of`).
    task : str
        The (target) task.
    objective : {"bleu", "pareto"}
    seed, n_init : int
    budget : int, optional
        Evaluations per trial, initial rows included (transfer default: 50).
    stop : {"target", "none"}, optional
        Default ``"target"``, for transfer runs ``"none"``.
    encoding : str, optional
        Default ``"scaled"``, for transfer runs ``"shared"`` (sources and target share it).
    record_mse : bool
        Record the surrogate's MSE after every evaluation (Figure 6).
    record_time : bool
        Record the wall-clock seconds of each suggestion (``ask`` and the ``tell`` of its row;
        0 for initial rows) in a ``seconds`` column: a measurement, so it differs between
        runs while the rows do not. In the key only when true (older keys are unchanged).
    settings : mapping
        Method settings overriding the registry's (e.g. ``{"k": 10}``).
    sources : tuple of str, optional
        Source tasks in order (SGPR stacks them in this order); ``None``: a single-task run.
    n_source : int
        ``N_S``: sampled evaluations per source (the paper: 50).
    kernel : str
        Kernel of the source GPs and of the transfer optimiser's GPs.
    resolved : MethodSpec, optional
        The resolved method (set by the runner; not part of the key). Sent to workers.
    """

    method: str
    task: str
    objective: str = "bleu"
    seed: int = 0
    n_init: int = 3
    budget: int | None = None
    stop: str | None = None
    encoding: str | None = None
    record_mse: bool = False
    settings: Mapping[str, Any] = field(default_factory=dict)
    sources: tuple[str, ...] | None = None
    record_time: bool = False
    n_source: int = 50
    kernel: str = "matern52"
    resolved: MethodSpec | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        transfer = self.sources is not None
        if transfer:
            if isinstance(self.sources, str):
                raise TypeError(f"sources must be a sequence of task names, got {self.sources!r}")
            object.__setattr__(self, "sources", tuple(self.sources))  # type: ignore[arg-type]
            if self.budget is None:
                object.__setattr__(self, "budget", TRANSFER_BUDGET)
        if self.stop is None:
            object.__setattr__(self, "stop", "none" if transfer else "target")
        if self.encoding is None:
            object.__setattr__(self, "encoding", "shared" if transfer else "scaled")
        object.__setattr__(self, "settings", dict(self.settings))

    @classmethod
    def of(cls, method: str | type | MethodSpec, task: str, **kwargs: Any) -> RunSpec:
        """A spec for any method form: a class or a MethodSpec becomes ``"module:Class"``
        (its fixed settings join ``settings``, so they enter the key)."""
        if isinstance(method, str):
            return cls(method_name(method), task, **kwargs)
        spec = resolve(method)
        settings = {**spec.settings, **dict(kwargs.pop("settings", None) or {})}
        return cls(
            spec.name, task, settings=settings, resolved=replace(spec, settings={}), **kwargs
        )

    @property
    def is_transfer(self) -> bool:
        """A run with source tasks."""
        return self.sources is not None

    @property
    def target(self) -> str:
        """The task (the transfer runs' name for it)."""
        return self.task

    @property
    def trial_column(self) -> str:
        """``"rep"`` for transfer runs, ``"trial"`` otherwise (the tidy frames' column)."""
        return "rep" if self.is_transfer else "trial"

    def method_spec(self) -> MethodSpec:
        """:attr:`resolved`, else the method resolved in this process."""
        return self.resolved if self.resolved is not None else resolve(self.method)

    def payload(self) -> dict[str, Any]:
        """The fields that determine the results (what the key hashes, without the version)."""
        settings = dict(sorted(dict(self.settings).items()))
        if self.sources is None:
            out = {f: getattr(self, f) for f in _SINGLE_FIELDS}
            out["settings"] = settings
            if self.record_time:  # in the key only when set: older keys stay valid
                out["record_time"] = True
        else:
            out = {f: getattr(self, "task" if f == "target" else f) for f in _TRANSFER_FIELDS}
            out["sources"] = list(self.sources)
            out["settings"] = settings
            for f, default in _TRANSFER_DEFAULTS.items():
                if getattr(self, f) != default:
                    out[f] = getattr(self, f)
        revision = self._revision()
        if revision:  # the method's defaults changed (MethodSpec.revision)
            out["revision"] = revision
        return out

    def _revision(self) -> int:
        """The method's :attr:`~nmthpo.optimizers.registry.MethodSpec.revision` (0 for a
        method this process cannot resolve: a key is computed before any check)."""
        try:
            return int(self.method_spec().revision)
        except InputError:  # an unknown name: validate() says so, the key stays defined
            return 0

    def check_available(self) -> None:
        """Raise an :class:`~nmthpo.errors.InputError` naming the extra to install when the
        method's library is missing (:func:`nmthpo.optimizers.registry.check_available`)."""
        check_available(self.method_spec(), self.method)

    def validate(self, *, available: bool = True) -> RunSpec:
        """Raise an :class:`~nmthpo.errors.InputError` with a clear message for nonsense
        settings (before any work: the same checks for the command line and the API).

        ``available=False`` leaves out :meth:`check_available`: :func:`run_specs` checks it
        only for a spec with trials to compute, so a cached run of another library's method
        reads back without that library (the book builds without the ``peers`` extra)."""
        check_task(self.task)
        m = self.method_spec()
        check_int("seed", self.seed, 0, LIMITS["seed"])
        check_int("n_init", self.n_init, 1, LIMITS["budget"])
        if self.budget is not None:
            check_int("budget", self.budget, 1, LIMITS["budget"])
        check_int("n_source", self.n_source, 1, LIMITS["budget"])
        check_choice("objective", self.objective, ("bleu", "pareto"))
        check_choice("encoding", self.encoding, ENCODINGS)
        check_choice("kernel", self.kernel, ("matern52", "rbf"))
        if self.sources is not None and not self.sources:
            raise InputValueError(
                "sources=[]: give at least one source task, or sources=None for a run "
                "without transfer"
            )
        if m.fidelity:
            raise InputValueError(
                f"method {self.method!r} is a multi-fidelity method: run it on a "
                "learning-curve task (nmthpo.run(METHOD, 'lc-...'))"
            )
        if self.objective not in m.objectives:
            raise InputValueError(
                f"method {self.method!r} does not support objective "
                f"{self.objective!r} (it supports {', '.join(m.objectives)})"
            )
        if self.stop not in ("target", "none"):
            raise InputValueError(f"unknown stop rule {self.stop!r}; valid: target, none")
        if self.seed < 0:
            raise InputValueError(f"seed must be >= 0, got {self.seed}")
        n = load_table(self.task).n_rows
        check_settings(m, self.settings, self.method, transfer=self.sources is not None, rows=n)
        if available:
            self.check_available()
        if not 1 <= self.n_init <= n:
            raise InputValueError(
                f"n_init={self.n_init}: must be between 1 and the {n} rows of {self.task}"
            )
        if self.budget is not None and not self.n_init <= self.budget <= n:
            raise InputValueError(
                f"budget={self.budget}: must be between n_init ({self.n_init}) and the {n} "
                f"rows of {self.task}"
            )
        if self.sources is None:
            if m.needs_sources:
                raise InputValueError(
                    f"method {self.method!r} needs source tasks: pass sources= "
                    "(e.g. nmthpo.engine.runner.default_sources(task))"
                )
            if self.n_source != 50 or self.kernel != "matern52":
                raise InputValueError(
                    "n_source and kernel apply to runs with source tasks only; "
                    "pass sources= or drop them"
                )
            return self
        if not m.accepts_sources():
            raise InputValueError(
                f"method {self.method!r} does not use source tasks; drop sources="
            )
        from nmthpo.optimizers.transfer.sources import check_sources  # GPs: transfer only

        check_sources(self.task, self.sources)
        if m.needs_sources and not self.sources:
            raise InputValueError(f"method {self.method!r} needs at least one source task")
        for s in self.sources:
            k = load_table(s).n_rows
            if not 2 <= self.n_source <= k:
                raise InputValueError(
                    f"n_source={self.n_source}: must be between 2 and the {k} rows of source {s}"
                )
        return self

    def key(self) -> str:
        """A stable hash of :meth:`payload` and :data:`CACHE_VERSION`."""
        return key({**self.payload(), "version": CACHE_VERSION})

    def to_json(self, name: str | None = None) -> str:
        """The spec as JSON (stored beside each cached run); with ``name``, also the run's
        display name (``nmthpo run --name``: in a run directory's ``spec.json``, not the key)."""
        side = self.payload() | ({"name": name} if name else {})
        return json.dumps(side, indent=2, sort_keys=True, default=str)

    @classmethod
    def from_json(cls, text: str) -> RunSpec:
        """Inverse of :meth:`to_json` (:meth:`from_payload` of the parsed text)."""
        return cls.from_payload(json.loads(text))

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> RunSpec:
        """The spec of a :meth:`payload` as a sidecar or a run directory's ``spec.json`` holds
        it: the entries of :data:`_NOT_FIELDS` are left out (a sidecar written under another
        ``revision`` gives a spec whose :meth:`key` is not the file's)."""
        d = {k: v for k, v in payload.items() if k not in _NOT_FIELDS}
        if "target" in d:
            d["task"] = d.pop("target")
            d["sources"] = tuple(d["sources"])
        return cls(**d)

    def stem(self) -> str:
        """File-name stem of the cached run."""
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", self.method)
        if self.sources is not None:
            return f"{name}__{self.task}__{self.key()}"
        return f"{name}__{self.task}__{self.objective}__s{self.seed}__{self.key()}"

    # -- the spec protocol of run_specs (module docstring) ---------------------------------
    def run_trial(self, trial: int) -> dict[str, np.ndarray]:
        """:func:`run_trial` of this spec."""
        return run_trial(self, trial)

    def tidy(self, trial: int, res: Mapping[str, np.ndarray]) -> pd.DataFrame:
        """One trial's arrays as the run's tidy frame (:class:`RunResult`)."""
        return _tidy(self, trial, res)

    def trial_problem(self, res: Mapping[str, np.ndarray]) -> str | None:
        """Why ``res`` cannot be one trial of this spec, or ``None``."""
        return _rows_problem(self, np.asarray(res.get("row", np.array([-1]))))

    def frame_problem(self, frame: pd.DataFrame) -> str | None:
        """Why a cached frame cannot be this spec's run, or ``None``."""
        return _frame_problem(self, frame)

    def result(self, frame: pd.DataFrame) -> RunResult:
        """The run's result object."""
        return RunResult(self, frame)


def default_sources(target: str) -> tuple[str, ...]:
    """Leave one out: every other task of the target's family (the static setting)."""
    family = NMTHPO_TASKS if task_family(target) == "nmthpo" else NMTLC_TASKS
    return tuple(t for t in family if t != target)


def initial_rows(n_rows: int, n_init: int, seed: int, trial: int) -> np.ndarray:
    """The initial rows of trial ``trial``: the same for every method."""
    rng = np.random.default_rng([seed, trial, 0])
    return rng.choice(n_rows, size=n_init, replace=False)


def run_trial(spec: RunSpec, trial: int) -> dict[str, np.ndarray]:
    """Run one trial; return its evaluated rows in order and the recorded by-products.

    Returns
    -------
    dict
        ``row``; with ``record_mse`` also ``mse`` (surrogate MSE after each evaluation); for a
        transfer run also ``target_weight`` (``NaN`` for initial rows and methods without one),
        ``source_weights`` (rows x sources) and ``seconds`` (wall time of each suggestion, 0
        for initial rows).

    Raises
    ------
    UserCodeError
        The optimiser (its module's import, its constructor, ``ask``, ``tell``, what a
        recorder reads) raised, or ``ask`` returned no unevaluated row id
        (:func:`nmthpo.engine.loop.ask_tell`): one line naming the method and the trial,
        raised from the original exception.
    """
    from threadpoolctl import threadpool_limits

    # load the optimiser's module and SciPy's BLAS (the optimisers import SciPy on first
    # use) before the limit is set: threadpoolctl limits only the libraries loaded by then
    cls = load_class(spec.method_spec(), transfer=spec.sources is not None)
    if getattr(cls, "uses_scipy", True) or spec.sources is not None:
        import scipy.linalg  # noqa: F401
    preload = getattr(cls, "preload", None)
    if preload is not None:  # another library's modules (and their thread pools)
        with user_code("preload()", spec.method, trial):
            preload()
    # a library's own OpenMP pool too (its sums change with the number of threads)
    apis = None if getattr(cls, "limit_all_threads", False) else "blas"
    with threadpool_limits(limits=1, user_api=apis):
        opt, recorders = trial_optimizer(spec, trial)
        table = load_table(spec.task)
        n = table.n_rows
        targets: set[int] | None = None
        if spec.stop == "target":
            targets = (
                {table.first_best_row}
                if spec.objective == "bleu"
                else set(table.pareto_rows.tolist())
            )
        rows = ask_tell(
            opt,
            table.objectives(spec.objective),
            initial_rows(n, spec.n_init, spec.seed, trial),
            n if spec.budget is None else spec.budget,
            targets,
            recorders,
            method=spec.method,
            trial=trial,
        )
    out = {"row": rows}
    for rec in recorders:
        with user_code(getattr(rec, "reads", type(rec).__name__), spec.method, trial):
            out.update(rec.values())
    return out


def run_context(spec: RunSpec) -> RunContext:
    """What an optimiser with ``wants_context = True`` is told about the run of ``spec``
    (:class:`~nmthpo.optimizers.base.RunContext`)."""
    from nmthpo.benchmark.space import column_scales

    table = load_table(spec.task)
    return RunContext(
        task=spec.task,
        budget=table.n_rows if spec.budget is None else int(spec.budget),
        n_init=int(spec.n_init),
        objective=spec.objective,
        columns=tuple(str(c) for c in table.configs.columns),
        scales=column_scales(table.configs),
        configs=table.configs,
    )


def trial_optimizer(spec: RunSpec, trial: int) -> tuple[Any, list[Recorder]]:
    """The optimiser of trial ``trial`` (generator ``default_rng([seed, trial, 1])``; for a
    transfer run with its context: fitted sources, target, kernel, meta-features) and the
    recorders of the run's by-products. Used by :func:`run_trial` and
    :func:`nmthpo.engine.replay.replay_trial`.

    Whatever the constructor raises becomes a :class:`~nmthpo.errors.UserCodeError`
    ``"method M, trial T: __init__() raised ..."`` (:func:`nmthpo.optimizers.base.user_code`;
    the settings were checked before, by :meth:`RunSpec.validate`).
    """
    m = spec.method_spec()
    table = load_table(spec.task)
    assert spec.encoding is not None
    X = table.encode(spec.encoding)
    recorders: list[Recorder] = [SurrogateMSE(table.bleu)] if spec.record_mse else []
    if spec.record_time and spec.sources is None:  # transfer runs always record the time
        recorders.append(SuggestTime())
    context = None
    if spec.sources is not None:
        # methods that ignore the sources (rs, igp) do not pay for fitting them
        from nmthpo.optimizers.transfer.sources import source_tasks  # SciPy: transfer only

        srcs = (
            source_tasks(
                spec.sources, spec.n_source, spec.seed, trial, spec.kernel, _search(m, spec)
            )
            if m.needs_sources
            else []
        )
        context = {
            "sources": srcs,
            "kernel": spec.kernel,
            "target_task": spec.task,
            "metafeatures": transfer_metafeatures(spec.task, srcs) if srcs else None,
        }
        recorders += [TransferWeights(len(spec.sources)), SuggestTime()]
    # only a class that asks for the run context gets it (no work for the others)
    wants_context = getattr(load_class(m, transfer=context is not None), "wants_context", False)
    with user_code("__init__()", spec.method, trial):
        opt = build(
            m,
            X,
            np.random.default_rng([spec.seed, trial, 1]),
            spec.objective,
            context,
            run_context=run_context(spec) if wants_context else None,
            **dict(spec.settings),
        )
    if hasattr(opt, "asks"):
        recorders.append(OptimizerAsks())
    return opt, recorders


def _search(m: MethodSpec, spec: RunSpec) -> str:
    """The ``search`` a transfer run's method fits with (the run's setting, else the registry
    entry's or its settings class's default, else ``"lattice"``): its source GPs are fitted
    the same way."""
    from nmthpo.optimizers.settings import describe

    if "search" in spec.settings:
        return str(spec.settings["search"])
    decl = m.settings_class(transfer=True)
    infos = describe(decl, m.settings) if decl is not None else []
    return next((str(i.default) for i in infos if i.name == "search"), "lattice")


def _tidy(spec: RunSpec, trial: int, res: Mapping[str, np.ndarray]) -> pd.DataFrame:
    table = load_table(spec.task)
    rows = np.asarray(res["row"])
    cols: dict[str, Any] = {}
    if spec.sources is not None:
        cols.update(
            {
                "method": spec.method,
                "target": spec.task,
                "n_sources": np.full(rows.size, len(spec.sources), dtype=np.int32),
                "rep": np.full(rows.size, trial, dtype=np.int32),
            }
        )
    else:
        cols["trial"] = np.full(rows.size, trial, dtype=np.int32)
    cols.update(
        {
            "step": np.arange(1, rows.size + 1, dtype=np.int32),
            "row": rows.astype(np.int32),
            "bleu": table.bleu[rows],
        }
    )
    if spec.objective == "pareto":
        cols["time"] = table.time[rows]
    if "mse" in res:
        cols["mse"] = res["mse"]
    if spec.sources is None and "seconds" in res:
        cols["seconds"] = np.asarray(res["seconds"], dtype=float)
    if "asks" in res and len(res["asks"]) == rows.size:
        cols["asks"] = np.asarray(res["asks"], dtype=np.int64)
    if spec.sources is not None:
        cols["target_weight"] = np.asarray(res["target_weight"], dtype=float)
        cols["seconds"] = np.asarray(res["seconds"], dtype=float)
        sw = np.asarray(res["source_weights"], dtype=float).reshape(rows.size, -1)
        for j, s in enumerate(spec.sources):
            cols[f"w_{s}"] = sw[:, j]
    return pd.DataFrame(cols)


def _write_parquet(frame: pd.DataFrame, path: Path) -> None:
    atomic_write(path, lambda p: frame.to_parquet(p, index=False))


def _write_npz(
    path: Path, arrays: Mapping[str, np.ndarray], record: Mapping[str, Any] | None = None
) -> None:
    def write(p: Path) -> None:
        with open(p, "wb") as fh:
            np.savez(fh, **dict(arrays))  # type: ignore[arg-type]

    if record is None:
        atomic_write(path, write)
    else:
        write_checked(path, write, record)


def _rows_problem(spec: RunSpec, rows: np.ndarray) -> str | None:
    """Why ``rows`` cannot be one trial of ``spec`` (ids outside the table, a repeated id,
    more evaluations than the budget), or ``None``.

    Repeats are a protocol error on the lookup tables (each row is evaluated at most once);
    on the learning-curve tasks (:data:`NMTLC_TASKS`) a multi-fidelity method may revisit a
    configuration, so only the ids are checked there.
    """
    n = load_table(spec.task).n_rows
    try:
        if spec.task in NMTLC_TASKS:
            validate_sequence(np.unique(rows), n)
        else:
            validate_sequence(rows, n)
    except ValueError as exc:
        return str(exc)
    if spec.budget is not None and rows.size > spec.budget:
        return f"{rows.size} evaluations, more than the budget of {spec.budget}"
    return None


def _frame_problem(spec: RunSpec, frame: pd.DataFrame) -> str | None:
    """Why a cached run's frame cannot be ``spec``'s (missing columns, invalid rows, BLEU that
    is not the table's), or ``None``."""
    col = spec.trial_column
    if not {col, "step", "row", "bleu"} <= set(frame.columns):
        return f"columns {sorted(frame.columns)} lack {col}, step, row or bleu"
    if spec.sources is not None:  # a transfer frame names its run: it must be this one
        for column, want in (
            ("method", spec.method),
            ("target", spec.task),
            ("n_sources", len(spec.sources)),
        ):
            have = frame[column].unique().tolist() if column in frame.columns else []
            if have != [want]:
                return f"column {column} holds {have[:3]}, the spec asks for {want!r}"
        weights = [c for c in frame.columns if c.startswith("w_")]
        if weights != [f"w_{s}" for s in spec.sources]:
            return f"its weight columns {weights} are not those of sources {list(spec.sources)}"
    bleu = load_table(spec.task).bleu
    for t, g in frame.groupby(col, sort=True):
        rows = g["row"].to_numpy()
        why = _rows_problem(spec, rows)
        if why is None and not np.array_equal(g["step"].to_numpy(), np.arange(1, rows.size + 1)):
            why = "steps are not 1, 2, ..."
        if why is None and not np.array_equal(g["bleu"].to_numpy(), bleu[rows]):
            why = "BLEU values differ from the table's"
        if why is not None:
            return f"{col} {t}: {why}"
    return None


def _read_final(spec: Any, path: Path) -> tuple[dict[int, pd.DataFrame], Path] | None:
    """The trials of a finished cached run and the file they were read from, or ``None``
    (missing, or failing a check: set aside, :func:`nmthpo.engine.cache.checked_source`).
    For a run of the book's cache the user cache's copy is read if the book's is not usable."""
    got = checked_source(path, spec.payload(), pd.read_parquet, spec.frame_problem)
    if got is None:
        return None
    frame, source = got
    trials = {
        int(t): g.reset_index(drop=True)  # type: ignore[call-overload]
        for t, g in frame.groupby(spec.trial_column, sort=True)
    }
    return trials, source


def _check_cache(cache: Path) -> Path:
    """Where a run with cache directory ``cache`` writes (:func:`~nmthpo.engine.cache.
    write_target`: the user cache's copy of a folder of the book's cache at run time); an
    :class:`~nmthpo.errors.InputValueError` naming the path if the directory or its
    ``partial`` sub-directory (unfinished trials) is a file -- before any work starts."""
    store = write_target(cache)
    for d in dict.fromkeys((cache, store, store / "partial")):
        if d.exists() and not d.is_dir():
            what = "its sub-directory of unfinished trials " if d.name == "partial" else ""
            raise InputValueError(
                f"cache directory {cache}: {what}{d} is a file, not a directory; move it away "
                "or choose another --cache / cache_dir"
            )
    return store


def _partial_record(spec: Any, trial: int) -> dict[str, Any]:
    return {"stem": spec.stem(), "trial": trial}


def _load_npz(f: Path) -> dict[str, np.ndarray]:
    with np.load(f) as z:
        return {k: z[k] for k in z.files}


def _read_partial(spec: Any, f: Path) -> tuple[int, pd.DataFrame] | None:
    """One finished trial of an interrupted run, or ``None`` (set aside) if it fails a check."""
    t = int(f.stem.split("-")[1])
    res = read_checked(  # a bad file goes out of partial/, which is removed when done
        f,
        _partial_record(spec, t),
        _load_npz,
        spec.trial_problem,
        into=f.parents[2] / "damaged" / spec.stem(),
    )
    return None if res is None else (t, spec.tidy(t, res))


@dataclass
class RunResult:
    """The outcome of a run: its spec and a tidy frame.

    Single-task runs: ``trial, step, row, bleu[, time][, mse][, seconds]``; transfer runs:
    ``method, target, n_sources, rep, step, row, bleu, target_weight, seconds, w_<source>...``.

    ``name`` is an optional short display name (``nmthpo run --name``): tables and diagrams of
    :mod:`nmthpo.engine.compare` show it instead of the method and its settings. It is not part
    of the spec (the cache key): naming a run does not change its results.
    """

    spec: RunSpec
    frame: pd.DataFrame
    name: str | None = None

    @property
    def label(self) -> str:
        """The display name: :attr:`name` if given, else the method."""
        return self.name or self.spec.method

    @property
    def sequences(self) -> list[list[int]]:
        """Sample sequences, one per trial, in trial order."""
        col = self.spec.trial_column
        return [g["row"].tolist() for _, g in self.frame.groupby(col, sort=True)]

    @property
    def trials(self) -> int:
        return int(self.frame[self.spec.trial_column].nunique())

    def save(self, out: str | Path, force: bool = False) -> None:
        """Write ``out/sequences.ss`` (upstream format), the frame and ``spec.json``.

        The frame goes to ``results.parquet`` (single-task runs) or ``trajectories.parquet``
        plus ``target_weights.csv`` (transfer runs). A directory holding the output of another
        run is refused (:class:`OutputExists`, :func:`output_problem`) unless ``force``.
        """
        files = (
            ("trajectories.parquet", "target_weights.csv")
            if self.spec.is_transfer
            else ("results.parquet",)
        )
        if self.name is not None:
            check_display_name(self.name)
        writes = ("sequences.ss", *files, CHECKSUMS_FILE)
        out = prepare_output(out, self.spec.payload(), writes, force)
        with all_or_nothing(out, writes):
            write_sequences(out / "sequences.ss", self.sequences)
            if self.spec.is_transfer:
                _write_parquet(self.frame, out / "trajectories.parquet")
                wcols = ["rep", "step", "target_weight"] + [
                    c for c in self.frame if c.startswith("w_")
                ]
                write_text(out / "target_weights.csv", self.frame[wcols].to_csv(index=False))
            else:
                _write_parquet(self.frame, out / "results.parquet")
            write_output_checksums(out, ("sequences.ss", *files))
            write_text(out / "spec.json", self.spec.to_json(name=self.name))


#: The checksums of a run's output files (``<sha256>  <name>`` lines, as ``sha256sum``
#: writes them), written before ``spec.json``; ``nmthpo compare`` verifies them.
CHECKSUMS_FILE = "SHA256SUMS"


def write_output_checksums(out: Path, names: Sequence[str]) -> None:
    """Write :data:`CHECKSUMS_FILE` of the output files ``names`` in ``out`` (atomically)."""
    lines = [f"{sha256_file(out / n)}  {n}\n" for n in names if n != CHECKSUMS_FILE]
    write_text(out / CHECKSUMS_FILE, "".join(lines))


#: The files :meth:`RunResult.save` and
#: :meth:`nmthpo.engine.fidelity.CurveRunResult.save` write into an output directory.
OUTPUT_FILES = (
    "spec.json",
    "sequences.ss",
    "results.parquet",
    "trajectories.parquet",
    "target_weights.csv",
    "evaluations.parquet",
    "recommendations.parquet",
    CHECKSUMS_FILE,
)


class OutputExists(ValueError):
    """An output directory holds the output of another run (nothing was written)."""


def output_problem(out: str | Path, payload: Mapping[str, Any]) -> str | None:
    """Why writing a run of spec ``payload`` into ``out`` would replace another run's output,
    or ``None`` (``out`` is missing, holds none of :data:`OUTPUT_FILES`, or holds the output
    of the same spec: a rerun writes the same files again)."""
    out = Path(out)
    if not out.is_dir():
        return None
    side = out / "spec.json"
    ours = [f for f in OUTPUT_FILES if (out / f).exists()]
    if not side.exists():
        if not ours:
            return None
        return f"{out} holds {', '.join(ours)} but no spec.json (not the output of this run)"
    try:
        found = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return f"{out} holds an unreadable spec.json"
    want = json.loads(json.dumps(dict(payload), sort_keys=True, default=str))
    if not isinstance(found, dict):
        return f"{out} holds a spec.json that is not a run's spec"
    # the display name (``--name``) is not part of the spec: renaming a run is not another run
    if {k: v for k, v in found.items() if k != "name"} == want:
        return None
    desc = ", ".join(
        f"{k}={found[k]}"
        for k in ("method", "task", "target", "seed", "budget")
        if found.get(k) is not None
    )
    return f"{out} holds the output of another run ({desc or 'another spec'})"


def check_output(out: str | Path, payload: Mapping[str, Any], force: bool = False) -> None:
    """Raise :class:`OutputExists` if ``out`` holds another run's output and not ``force``."""
    why = None if force else output_problem(out, payload)
    if why is not None:
        raise OutputExists(
            f"{why}; choose another --out, or pass --force (force=True) to replace it"
        )


def prepare_output(
    out: str | Path, payload: Mapping[str, Any], writes: Sequence[str], force: bool = False
) -> Path:
    """Make ``out`` ready for a run of spec ``payload`` that writes ``writes`` and then
    ``spec.json``: refuse another run's output unless ``force`` (:func:`check_output`), then
    remove ``spec.json`` (written last, so an interrupted save is never taken for a finished
    one) and the files of :data:`OUTPUT_FILES` this save will not write (an earlier run's
    leftovers would otherwise sit beside the new spec). Nothing else in ``out`` is touched."""
    out = Path(out)
    check_output(out, payload, force)
    out.mkdir(parents=True, exist_ok=True)
    for name in OUTPUT_FILES:
        if name not in writes and (out / name).is_file():
            (out / name).unlink()
    return out


@contextmanager
def all_or_nothing(out: Path, writes: Sequence[str]) -> Iterator[None]:
    """Write a run's output files ``writes`` (then ``spec.json``) into ``out`` as a whole: if
    any write fails (a full disk: :class:`~nmthpo.errors.FaultError`) or is interrupted, the
    files of ``writes`` and ``spec.json`` are removed again, so ``out`` never holds part of
    an output (which a rerun would take for another run's files); the rerun writes it whole.
    Other files in ``out`` are never touched."""
    try:
        yield
    except BaseException as exc:
        for name in (*writes, "spec.json"):
            try:
                (out / name).unlink(missing_ok=True)
            except OSError:  # pragma: no cover - the fault itself may forbid it
                pass
        if isinstance(exc, OSError) and not isinstance(exc, FaultError):
            raise fault_from_oserror(exc, f"--out {out}") from exc
        raise


def _job(i: int, spec: Any, trial: int) -> tuple[int, int, dict[str, np.ndarray]]:
    return i, trial, spec.run_trial(trial)


def _execute(
    specs: Sequence[Any], todo: list[tuple[int, int]], jobs: int, scheduler: str | None
) -> Iterator[tuple[int, int, dict[str, np.ndarray]]]:
    """Yield (index of the spec, trial, result) for ``todo``: serially, on joblib processes,
    or on Dask. Results are matched to the caller's specs by index, never by what a worker
    makes of its copy of the spec."""
    if not todo:
        return
    if jobs == 1 and scheduler is None:
        for i, t in todo:
            yield i, t, specs[i].run_trial(t)
        return
    import joblib

    calls = (joblib.delayed(_job)(i, specs[i], t) for i, t in todo)
    if scheduler is not None:
        from distributed import Client

        with Client(scheduler) as client, joblib.parallel_config(backend="dask"):
            del client
            yield from joblib.Parallel(n_jobs=-1, return_as="generator_unordered")(calls)
        return
    yield from joblib.Parallel(n_jobs=jobs, return_as="generator_unordered")(calls)


def _prepare(spec: Any) -> Any:
    if spec.resolved is None:
        spec = replace(spec, resolved=resolve(spec.method))
    if isinstance(spec, RunSpec):
        spec.validate(available=False)  # run_specs checks the library where it computes
    else:
        spec.validate()
    return spec


def _write_run(cache: Path, spec: Any, frame: pd.DataFrame, source: Path | None) -> None:
    """Write a finished run and its sidecar: the spec, the machine fingerprint (``mixed`` if
    the trials were computed on machines with different fingerprints: some read from the
    cached run ``source``) and the seal."""
    path = cache / f"{spec.stem()}.parquet"
    machine = machine_fingerprint()
    if source is not None and run_machine(source) != machine:
        machine = "mixed"
    write_checked(
        path, lambda p: frame.to_parquet(p, index=False), {**spec.payload(), "machine": machine}
    )


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by SIGINT/SIGTERM; the message says what was saved and how to resume."""

    def __init__(self, saved: int, total: int, cache: Path | None) -> None:
        where = (
            f"saved in {cache}; rerun the same command to resume"
            if cache is not None
            else "kept (no cache directory; pass --cache DIR / cache_dir= to make a run resumable)"
        )
        if cache is None:
            saved = 0
        super().__init__(f"interrupted: {saved} of {total} trials {where}")
        self.saved, self.total, self.cache = saved, total, cache


@contextmanager
def _uninterrupted() -> Iterator[None]:
    """Hold SIGINT/SIGTERM until the block ends (a trial's file, its sidecar and the count of
    saved trials are written together); POSIX, this thread only."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _stop_workers() -> None:
    """Kill joblib's reusable worker processes (an interrupted run leaves none behind)."""
    try:
        from joblib.externals.loky import get_reusable_executor

        get_reusable_executor().shutdown(wait=True, kill_workers=True)
    except Exception:  # pragma: no cover - no executor was started
        pass


def check_scheduler_address(address: Any) -> None:
    """A Dask scheduler ``address`` that answers the Dask protocol in time
    (:func:`nmthpo.engine.scheduler.check_scheduler`); an :class:`~nmthpo.errors.InputError`
    otherwise."""
    if not isinstance(address, str) or not address.strip():
        raise InputTypeError(f"scheduler={address!r}: expected an address such as tcp://HOST:PORT")
    try:
        from nmthpo.engine.scheduler import check_scheduler
    except ImportError:  # pragma: no cover - the module lands with the scheduler check
        return
    check_scheduler(address)


def check_run_options(
    trials: Any,
    jobs: Any,
    cache_dir: Any = None,
    progress: Any = False,
    name: str = "trials",
    settings: Any = None,
) -> None:
    """The options of a run that are not part of its spec, with the command line's limits
    (:data:`nmthpo.errors.LIMITS`); an :class:`~nmthpo.errors.InputError` otherwise."""
    check_int(name, trials, 1, LIMITS["trials"])
    check_int("jobs", jobs, 1, LIMITS["jobs"])
    if cache_dir is not None and not isinstance(cache_dir, (str, Path)):
        raise InputTypeError(
            f"cache_dir={cache_dir!r}: expected a path (str or pathlib.Path) or None"
        )
    if cache_dir is not None:
        check_output_dir(cache_dir, "cache_dir")
    if not isinstance(progress, bool):
        raise InputTypeError(f"progress={progress!r}: expected True or False")
    if settings is not None and not isinstance(settings, Mapping):
        raise InputTypeError(
            f"settings={settings!r}: expected a mapping of setting names to values "
            f"(e.g. {{'k': 10}}), got {type(settings).__name__}"
        )


def run_specs(
    specs: Sequence[Any],
    repeats: int = 30,
    jobs: int = 1,
    cache_dir: str | Path | None = None,
    progress: bool = False,
    scheduler: str | None = None,
) -> list[Any]:
    """Run (or read from the cache) ``repeats`` trials of every spec, in one worker pool.

    ``specs`` are :class:`RunSpec` or any spec of the protocol (module docstring), e.g. the
    learning-curve runs' :class:`~nmthpo.engine.fidelity.CurveRunSpec`. Missing trials of all
    specs are scheduled together, so a whole experiment grid keeps ``jobs`` workers busy.
    Returns one result per spec (``spec.result(frame)``: a :class:`RunResult` for a
    :class:`RunSpec`), in order.

    Without ``scheduler``, the address in the environment variable :data:`SCHEDULER_ENV`
    (``NMTHPO_SCHEDULER``), if set, is used: ``make results SCHEDULER=tcp://HOST:8786`` sends
    every experiment's trials to an existing Dask cluster that way (the rows are the same).
    """
    check_run_options(repeats, jobs, cache_dir, progress, name="repeats")
    if scheduler is None and os.environ.get(SCHEDULER_ENV):
        scheduler = os.environ[SCHEDULER_ENV]
        check_scheduler_address(scheduler)  # before any work, as for scheduler=...
    specs = [_prepare(s) for s in specs]
    frames: dict[str, dict[int, pd.DataFrame]] = {s.stem(): {} for s in specs}
    cache = Path(cache_dir) if cache_dir is not None else None
    # where this run writes: ``cache``, or at run time the user cache's copy of a book folder
    store = _check_cache(cache) if cache is not None else None
    had_cached: dict[str, Path] = {}  # stem -> the finished run its trials were read from
    for s in specs:
        if cache is None or store is None:
            continue
        col, got = s.trial_column, frames[s.stem()]
        final, partial = cache / f"{s.stem()}.parquet", store / "partial" / s.stem()
        finished = _read_final(s, final)
        if finished is not None:
            got.update(finished[0])
            had_cached[s.stem()] = finished[1]
        if partial.is_dir():
            for f in sorted(partial.glob(f"{col}-*.npz")):
                if int(f.stem.split("-")[1]) not in got:
                    item = _read_partial(s, f)
                    if item is not None:
                        got[item[0]] = item[1]
    unique = list({s.stem(): s for s in specs}.values())
    todo = [
        (i, t) for i, s in enumerate(unique) for t in range(repeats) if t not in frames[s.stem()]
    ]
    total = repeats * len(unique)
    found = total - len(todo)
    if found and cache is not None:
        log.info(
            "found %d of %d trials in %s%s",
            found,
            total,
            cache,
            "; computing the rest" if todo else "",
        )
    for i in sorted({i for i, _ in todo}):
        check = getattr(unique[i], "check_available", None)
        if check is not None:
            check()  # before any work: a missing library is named with its extra
    if todo:
        from tqdm.auto import tqdm

        desc = f"{specs[0].method} {specs[0].task}" if len(unique) == 1 else "runs"
        bar = tqdm(total=len(todo), desc=desc, disable=not progress, leave=False)
        saved = found
        try:
            for i, t, res in _execute(unique, todo, jobs, scheduler):
                s = unique[i]
                why = s.trial_problem(res)
                if why is not None:
                    raise RuntimeError(
                        f"internal error: trial {t} of {s.method} on {s.task} "
                        f"broke the protocol ({why}); nothing was written"
                    )
                if store is not None:
                    with _uninterrupted():
                        _write_npz(
                            store / "partial" / s.stem() / f"{s.trial_column}-{t:05d}.npz",
                            res,
                            _partial_record(s, t),
                        )
                        saved += 1
                frames[s.stem()][t] = s.tidy(t, res)
                bar.update()
        except KeyboardInterrupt:
            bar.close()
            if jobs > 1 and scheduler is None:
                _stop_workers()
            raise RunInterrupted(saved, total, cache) from None
        finally:
            bar.close()
    done = {unique[i].stem() for i, _ in todo}
    out = []
    for s in specs:
        got = frames[s.stem()]
        frame = pd.concat([got[t] for t in sorted(got)], ignore_index=True)
        if store is not None and (s.stem() in done or s.stem() not in had_cached):
            _write_run(store, s, frame, had_cached.get(s.stem()))
            shutil.rmtree(store / "partial" / s.stem(), ignore_errors=True)
            try:
                (store / "partial").rmdir()
            except OSError:
                pass
        col = s.trial_column
        out.append(s.result(frame[frame[col] < repeats].reset_index(drop=True)))
    return out


def run(
    method: str | type | MethodSpec,
    task: str,
    trials: int = 100,
    seed: int = 0,
    objective: str = "bleu",
    n_init: int = 3,
    budget: int | None = None,
    stop: str | None = None,
    encoding: str | None = None,
    record_mse: bool = False,
    settings: Mapping[str, Any] | None = None,
    jobs: int = 1,
    scheduler: str | None = None,
    cache_dir: str | Path | None = None,
    progress: bool = True,
    *,
    sources: Sequence[str] | None = None,
    n_source: int = 50,
    kernel: str = "matern52",
    curves: bool = False,
    record_time: bool = False,
) -> Any:
    """Run (or read back from the cache) ``trials`` trials of ``method`` on ``task``.

    A multi-fidelity method, a task with only learning curves (``lc-scratch-*``) or
    ``curves=True`` make it a learning-curve run (:func:`nmthpo.engine.fidelity.run_curves`,
    budget in checkpoints; returns a :class:`~nmthpo.engine.fidelity.CurveRunResult`);
    otherwise a lookup-table run (returns a :class:`RunResult`).

    Parameters
    ----------
    method : str, class or MethodSpec
        A registered name (:data:`nmthpo.optimizers.registry.METHODS`), ``"module:Class"``,
        ``"prefix:Name"``, an optimiser class or a ``MethodSpec``
        (:func:`nmthpo.optimizers.registry.resolve`).
    task : str
        A task of :data:`nmthpo.benchmark.tables.TASKS`.
    trials : int
        Number of repeated trials (the paper: 100).
    seed : int
        Base seed; trial *t* is seeded by ``(seed, t)``.
    objective : {"bleu", "pareto"}
    n_init : int
        Random initial rows per trial (the paper: 3).
    budget : int, optional
        Stop a trial after this many evaluations (initial rows included).
    stop : {"target", "none"}, optional
        ``"target"`` stops at the oracle target (see module docstring); default ``"target"``,
        ``"none"`` with sources.
    encoding : str, optional
        Row encoding the optimiser sees (default ``"scaled"``, ``"shared"`` with sources).
    settings : mapping, optional
        Method settings overriding the registry's (e.g. ``{"k": 10}``).
    jobs : int
        Worker processes (joblib); ``scheduler`` sends the trials to a Dask cluster instead.
    cache_dir : path, optional
        Where finished runs are cached; ``None`` disables caching.
    progress : bool
        Show a tqdm progress bar.
    sources : sequence of str, optional
        Source tasks: a transfer run (see :func:`run_transfer` for the leave-one-out default).
    n_source, kernel
        Transfer runs only: sampled rows per source and the GP kernel.
    curves : bool
        Run on the learning curves of ``task`` (e.g. ``rs`` on ``lc-finetune-fr-en``).
    record_time : bool
        Record the seconds of each suggestion (:attr:`RunSpec.record_time`; a lookup-table
        run without sources).
    """
    from nmthpo.engine import fidelity

    check_run_options(trials, jobs, cache_dir, progress, settings=settings)
    if not isinstance(task, str):
        raise InputTypeError(f"task={task!r}: expected a task name such as 'ja-en'")
    if isinstance(sources, str):
        raise InputTypeError(
            f"sources={sources!r}: expected a sequence of task names, e.g. [{sources!r}]"
        )
    if scheduler is not None:
        check_scheduler_address(scheduler)
    if fidelity.on_curves(method, task, curves):
        if sources is not None or objective != "bleu":
            raise InputValueError(
                "a learning-curve run takes neither sources nor objective='pareto'"
            )
        return fidelity.run_curves(
            method,
            task,
            trials=trials,
            budget=budget,
            seed=seed,
            settings=settings,
            jobs=jobs,
            cache_dir=cache_dir,
            progress=progress,
            scheduler=scheduler,
        )
    spec = RunSpec.of(
        method,
        task,
        objective=objective,
        seed=seed,
        n_init=n_init,
        budget=budget,
        stop=stop,
        encoding=encoding,
        record_mse=record_mse,
        settings=dict(settings or {}),
        sources=None if sources is None else tuple(sources),
        n_source=n_source,
        kernel=kernel,
        record_time=bool(record_time),
    )
    return run_specs([spec], trials, jobs, cache_dir, progress, scheduler)[0]


def run_transfer(
    method: str | type | MethodSpec,
    target: str,
    sources: Sequence[str] | None = None,
    n_source: int = 50,
    budget: int = TRANSFER_BUDGET,
    repeats: int = 30,
    seed: int = 0,
    n_init: int = 3,
    kernel: str = "matern52",
    settings: Mapping[str, Any] | None = None,
    jobs: int = 1,
    cache_dir: str | Path | None = None,
    progress: bool = False,
    scheduler: str | None = None,
) -> RunResult:
    """Run ``repeats`` repetitions of one transfer method on one target.

    ``sources=None`` means leave one out (:func:`default_sources`); ``budget`` is ``N_T``,
    the target evaluations per repetition including the ``n_init`` initial rows.
    """
    check_run_options(repeats, jobs, cache_dir, progress, name="repeats", settings=settings)
    if isinstance(sources, str):
        raise InputTypeError(
            f"sources={sources!r}: expected a sequence of task names, e.g. [{sources!r}]"
        )
    srcs = default_sources(target) if sources is None else tuple(sources)
    spec = RunSpec.of(
        method,
        target,
        seed=seed,
        n_init=n_init,
        budget=budget,
        settings=dict(settings or {}),
        sources=srcs,
        n_source=n_source,
        kernel=kernel,
    )
    return run_specs([spec], repeats, jobs, cache_dir, progress, scheduler)[0]


def cached_runs(cache_dir: str | Path) -> Iterator[tuple[RunSpec, Path]]:
    """The finished runs stored in ``cache_dir`` that have a spec sidecar: (spec, parquet)."""
    kinds = (set(_SINGLE_FIELDS), set(_TRANSFER_FIELDS))
    for js in sorted(Path(cache_dir).glob("*.json")):
        pq = js.with_suffix(".parquet")
        if not pq.exists():
            continue
        payload = json.loads(js.read_text())
        # other caches (e.g. a chapter's own tables) may share the directory: only run specs
        if not isinstance(payload, dict):
            continue
        names = set(payload) - set(_NOT_FIELDS)
        single = names - {"record_time"}  # in a lookup-table run's key only when set
        if single == kinds[0] or kinds[1] <= names <= kinds[1] | set(_TRANSFER_DEFAULTS):
            yield RunSpec.from_json(js.read_text()), pq


def run_machine(path: str | Path) -> str:
    """The machine fingerprint recorded beside a cached run (``"unknown"`` if none)."""
    side = Path(path).with_suffix(".json")
    if not side.exists():
        return "unknown"
    payload = json.loads(side.read_text())
    return str(payload.get("machine", "unknown")) if isinstance(payload, dict) else "unknown"


def load_run(spec: RunSpec, cache_dir: str | Path, trials: int | None = None) -> RunResult:
    """Read a cached run back without computing anything (``FileNotFoundError`` if absent).

    The file is verified first, as :func:`run_specs` does (sealed sidecar of this spec, rows
    valid for the table); a bad one is named in a warning and set aside, then counts as
    absent. ``trials`` keeps only the first trials (all by default).
    """
    path = Path(cache_dir) / f"{spec.stem()}.parquet"
    got = checked_source(path, spec.payload(), pd.read_parquet, spec.frame_problem)
    if got is None:
        state = "is not usable (see the warning)" if path.exists() else "is not"
        raise FileNotFoundError(
            f"cached run {path.name} {state} in {cache_dir}; compute it with `make results` "
            f"(or nmthpo.engine.runner.run(..., cache_dir=...))"
        )
    frame = got[0]
    if trials is not None:
        col = spec.trial_column
        have = frame[col].nunique()
        if have < trials:
            raise FileNotFoundError(f"{path.name} holds {have} trials, {trials} were asked for")
        frame = frame[frame[col] < trials].reset_index(drop=True)
    return RunResult(spec, frame)
