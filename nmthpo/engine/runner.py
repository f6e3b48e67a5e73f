"""Repeated HPO trials on lookup tables: the runner, its cache, resumption and parallelism.

Zhang & Duh (2020, Section 4.3) average every result over 100 trials, "each trial seeded with a
different set of 3 random initial hyperparameter settings". A trial here is fully determined by
``(method, task, settings, seed, trial index)``:

* its initial rows are drawn from ``default_rng([seed, trial, 0])`` -- independent of the method,
  so all methods start trial *t* from the same rows (common random numbers, paired comparisons);
* the optimiser's own generator is ``default_rng([seed, trial, 1])``.

Hence results do not depend on the number of workers or on the scheduler (joblib processes or a
Dask cluster through joblib's ``dask`` backend): they are bit-identical.

A run stops a trial when (a) ``stop="target"`` and the oracle target is reached -- for BLEU the
*first argmax row* has been evaluated, which implies the best value was reached as well, so both
tie conventions of :mod:`nmthpo.engine.metrics` can be scored; for Pareto, all Pareto-optimal rows
are
found -- or (b) ``budget`` evaluations (initial rows included) were made, or (c) the table is
exhausted.

Cache: finished runs are stored as one tidy Parquet file per (method, task, settings, seed) under
``cache_dir``; each finished trial is first written atomically to a partial directory, so an
interrupted run resumes where it stopped and a finished one is read back, never recomputed.
Asking for more trials than cached computes only the missing ones.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nmthpo.benchmark.tables import check_task, load_table
from nmthpo.engine.metrics import write_sequences
from nmthpo.optimizers.registry import get_spec, make_optimizer

#: Bump when a change to the runner would change results, to invalidate old caches.
CACHE_VERSION = 1


def results_dir() -> Path:
    """The repository's ``results/`` directory (``NMTHPO_RESULTS`` overrides it).

    The book's chapters read their cached experiments from here (see ``make results``).
    """
    env = os.environ.get("NMTHPO_RESULTS")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "results"


@dataclass(frozen=True)
class RunSpec:
    """Everything that determines a run's results (the cache key)."""

    method: str
    task: str
    objective: str = "bleu"
    seed: int = 0
    n_init: int = 3
    budget: int | None = None
    stop: str = "target"
    encoding: str = "scaled"
    record_mse: bool = False
    settings: Mapping[str, Any] = field(default_factory=dict)

    def validate(self) -> RunSpec:
        """Raise ``ValueError``/``KeyError`` with a clear message for nonsense settings."""
        check_task(self.task)
        get_spec(self.method, self.objective)
        if self.stop not in ("target", "none"):
            raise ValueError(f"unknown stop rule {self.stop!r}; valid: target, none")
        if self.seed < 0:
            raise ValueError(f"seed must be >= 0, got {self.seed}")
        n = load_table(self.task).n_rows
        if not 1 <= self.n_init <= n:
            raise ValueError(f"n_init must be between 1 and {n}, got {self.n_init}")
        if self.budget is not None and not self.n_init <= self.budget <= n:
            raise ValueError(
                f"budget must be between n_init={self.n_init} and the {n} rows of "
                f"{self.task}, got {self.budget}"
            )
        return self

    def key(self) -> str:
        """A stable hash of the spec (and :data:`CACHE_VERSION`)."""
        payload = {**asdict(self), "settings": dict(sorted(self.settings.items())),
                   "version": CACHE_VERSION}
        blob = json.dumps(payload, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def to_json(self) -> str:
        """The spec as JSON (stored beside each cached run)."""
        return json.dumps(asdict(self), indent=2, sort_keys=True, default=str)

    @classmethod
    def from_json(cls, text: str) -> RunSpec:
        """Inverse of :meth:`to_json`."""
        return cls(**json.loads(text))

    def stem(self) -> str:
        """File-name stem of the cached run."""
        return f"{self.method}__{self.task}__{self.objective}__s{self.seed}__{self.key()}"


def initial_rows(n_rows: int, n_init: int, seed: int, trial: int) -> np.ndarray:
    """The initial rows of trial ``trial``: the same for every method."""
    rng = np.random.default_rng([seed, trial, 0])
    return rng.choice(n_rows, size=n_init, replace=False)


def run_trial(spec: RunSpec, trial: int) -> dict[str, np.ndarray]:
    """Run one trial; return its evaluated rows in order (and surrogate MSE per step)."""
    table = load_table(spec.task)
    n = table.n_rows
    y_all = table.objectives(spec.objective)
    X = table.encode(spec.encoding)
    opt = make_optimizer(
        spec.method, X, np.random.default_rng([spec.seed, trial, 1]), spec.objective,
        **dict(spec.settings),
    )
    limit = n if spec.budget is None else spec.budget
    if spec.objective == "bleu":
        target_rows = {table.first_best_row}
    else:
        target_rows = set(table.pareto_rows.tolist())
    rows: list[int] = []
    mse: list[float] = []
    bleu = table.bleu
    remaining = set(target_rows)

    def observe(r: int) -> None:
        opt.tell(r, y_all[r])
        rows.append(r)
        remaining.discard(r)
        if spec.record_mse:
            pm = getattr(opt, "predict_mean", None)
            mse.append(float(np.mean((pm() - bleu) ** 2)) if pm is not None else np.nan)

    for r in initial_rows(n, spec.n_init, spec.seed, trial):
        observe(int(r))
    while len(rows) < limit and not (spec.stop == "target" and not remaining):
        r = int(opt.ask())
        if r in rows:  # guard against an optimiser breaking the protocol
            raise RuntimeError(f"{spec.method} proposed row {r} twice in trial {trial}")
        observe(r)
    out = {"row": np.asarray(rows, dtype=np.int64)}
    if spec.record_mse:
        out["mse"] = np.asarray(mse, dtype=float)
    return out


@dataclass
class RunResult:
    """The outcome of a run: its spec and a tidy frame (trial, step, row, bleu[, time][, mse])."""

    spec: RunSpec
    frame: pd.DataFrame

    @property
    def sequences(self) -> list[list[int]]:
        """Sample sequences, one per trial, in trial order."""
        return [g["row"].tolist() for _, g in self.frame.groupby("trial", sort=True)]

    @property
    def trials(self) -> int:
        return int(self.frame["trial"].nunique())

    def save(self, out: str | Path) -> None:
        """Write ``out/sequences.ss`` (upstream format), ``out/results.parquet`` and a spec."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        write_sequences(out / "sequences.ss", self.sequences)
        _atomic_parquet(self.frame, out / "results.parquet")
        _atomic_text(out / "spec.json", self.spec.to_json())


def _tidy(spec: RunSpec, trial: int, res: Mapping[str, np.ndarray]) -> pd.DataFrame:
    table = load_table(spec.task)
    rows = res["row"]
    cols: dict[str, Any] = {
        "trial": np.full(rows.size, trial, dtype=np.int32),
        "step": np.arange(1, rows.size + 1, dtype=np.int32),
        "row": rows.astype(np.int32),
        "bleu": table.bleu[rows],
    }
    if spec.objective == "pareto":
        cols["time"] = table.time[rows]
    if "mse" in res:
        cols["mse"] = res["mse"]
    return pd.DataFrame(cols)


def _atomic_parquet(frame: pd.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    os.close(fd)
    try:
        frame.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _atomic_text(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _atomic_npz(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **dict(arrays))  # type: ignore[arg-type]
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _execute(spec: RunSpec, trials: list[int], jobs: int, scheduler: str | None,
             ) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
    """Yield (trial, result) for ``trials``, serially, with joblib processes, or on Dask."""
    if not trials:
        return
    if jobs == 1 and scheduler is None:
        for t in trials:
            yield t, run_trial(spec, t)
        return
    import joblib

    def calls() -> Iterator[Any]:
        return (joblib.delayed(_trial_pair)(spec, t) for t in trials)

    if scheduler is not None:
        from distributed import Client

        with Client(scheduler) as client, joblib.parallel_config(backend="dask"):
            del client
            yield from joblib.Parallel(n_jobs=-1, return_as="generator_unordered")(calls())
        return
    yield from joblib.Parallel(n_jobs=jobs, return_as="generator_unordered")(calls())


def _trial_pair(spec: RunSpec, trial: int) -> tuple[int, dict[str, np.ndarray]]:
    return trial, run_trial(spec, trial)


def run(
    method: str,
    task: str,
    trials: int = 100,
    seed: int = 0,
    objective: str = "bleu",
    n_init: int = 3,
    budget: int | None = None,
    stop: str = "target",
    encoding: str = "scaled",
    record_mse: bool = False,
    settings: Mapping[str, Any] | None = None,
    jobs: int = 1,
    scheduler: str | None = None,
    cache_dir: str | Path | None = None,
    progress: bool = True,
) -> RunResult:
    """Run (or read back from the cache) ``trials`` trials of ``method`` on ``task``.

    Parameters
    ----------
    method, task : str
        Registered names (:data:`nmthpo.optimizers.METHODS`, :data:`nmthpo.benchmark.tables.TASKS`).
    trials : int
        Number of repeated trials (the paper: 100).
    seed : int
        Base seed; trial *t* is seeded by ``(seed, t)``.
    objective : {"bleu", "pareto"}
    n_init : int
        Random initial rows per trial (the paper: 3).
    budget : int, optional
        Stop a trial after this many evaluations (initial rows included).
    stop : {"target", "none"}
        ``"target"`` stops at the oracle target (see module docstring).
    settings : mapping, optional
        Method settings overriding the registry's (e.g. ``{"k": 10}``).
    jobs : int
        Worker processes (joblib); ``scheduler`` sends the trials to a Dask cluster instead.
    cache_dir : path, optional
        Where finished runs are cached; ``None`` disables caching.
    progress : bool
        Show a tqdm progress bar.
    """
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    spec = RunSpec(method, task, objective, seed, n_init, budget, stop, encoding, record_mse,
                   dict(settings or {})).validate()
    wanted = list(range(trials))
    frames: dict[int, pd.DataFrame] = {}
    final = partial = None
    if cache_dir is not None:
        cache_dir = Path(cache_dir)
        final = cache_dir / f"{spec.stem()}.parquet"
        partial = cache_dir / "partial" / spec.stem()
        if final.exists():
            cached = pd.read_parquet(final)
            for t, g in cached.groupby("trial", sort=True):
                frames[int(t)] = g.reset_index(drop=True)  # type: ignore[arg-type]
        if partial.exists():
            for f in sorted(partial.glob("trial-*.npz")):
                t = int(f.stem.split("-")[1])
                if t not in frames:
                    with np.load(f) as z:
                        frames[t] = _tidy(spec, t, {k: z[k] for k in z.files})
    todo = [t for t in wanted if t not in frames]
    if todo:
        from tqdm.auto import tqdm

        if partial is not None:
            partial.mkdir(parents=True, exist_ok=True)
        bar = tqdm(total=len(todo), desc=f"{method} {task}", disable=not progress, leave=False)
        try:
            for t, res in _execute(spec, todo, jobs, scheduler):
                if partial is not None:
                    _atomic_npz(partial / f"trial-{t:05d}.npz", res)
                frames[t] = _tidy(spec, t, res)
                bar.update()
        finally:
            bar.close()
    all_trials = sorted(frames)
    frame = pd.concat([frames[t] for t in all_trials], ignore_index=True)
    if final is not None and partial is not None and (todo or not final.exists()):
        _atomic_text(final.with_suffix(".json"), spec.to_json())
        _atomic_parquet(frame, final)
        shutil.rmtree(partial, ignore_errors=True)
        try:
            partial.parent.rmdir()
        except OSError:
            pass
    sub = frame[frame["trial"].isin(wanted)].reset_index(drop=True)
    return RunResult(spec, sub)


def cached_runs(cache_dir: str | Path) -> Iterator[tuple[RunSpec, Path]]:
    """The finished runs stored in ``cache_dir``: (spec, parquet path) pairs."""
    from dataclasses import fields

    names = {f.name for f in fields(RunSpec)}
    for js in sorted(Path(cache_dir).glob("*.json")):
        pq = js.with_suffix(".parquet")
        if not pq.exists():
            continue
        payload = json.loads(js.read_text())
        # other caches (e.g. a chapter's own tables) may share the directory: only run specs
        if isinstance(payload, dict) and set(payload) == names:
            yield RunSpec(**payload), pq


def load_run(spec: RunSpec, cache_dir: str | Path, trials: int | None = None) -> RunResult:
    """Read a cached run back without computing anything (``FileNotFoundError`` if absent).

    ``trials`` keeps only the first trials (all by default).
    """
    path = Path(cache_dir) / f"{spec.stem()}.parquet"
    if not path.exists():
        raise FileNotFoundError(
            f"no cached run {path.name} in {cache_dir}; compute it with `make results` "
            f"(or nmthpo.engine.runner.run(..., cache_dir=...))"
        )
    frame = pd.read_parquet(path)
    if trials is not None:
        have = frame["trial"].nunique()
        if have < trials:
            raise FileNotFoundError(f"{path.name} holds {have} trials, {trials} were asked for")
        frame = frame[frame["trial"] < trials].reset_index(drop=True)
    return RunResult(spec, frame)
