"""Transfer-learning trials: repetitions, cache, parallelism, static and dynamic experiments.

Li et al. (2022, Section 5.1): every method starts from three random configurations and then
proceeds sequentially to a total of ``N_T`` evaluations; each is repeated 30 times; each source
task contributes ``N_S = 50`` sampled evaluations. Here ``budget`` is ``N_T``, the total number
of target evaluations *including* the ``n_init`` initial rows (the paper's "total of N_T
evaluations"), and a trial always runs to its budget (no oracle stop: the metrics are curves).

A repetition ``r`` of a :class:`TransferSpec` depends only on (spec, r):

* initial rows: ``default_rng([seed, r, 0])`` -- the same for every method, so methods are
  compared on common random numbers (as :mod:`nmthpo.engine.runner` does);
* source samples and source GPs: :func:`nmthpo.optimizers.transfer.sources.source_task` with
  ``(seed, r)`` -- the same for every method and target;
* the optimiser's generator: ``default_rng([seed, r, 1])``.

Hence results are bit-identical for any number of joblib workers (the per-suggestion wall
time in column ``seconds`` is a measurement and naturally differs). Each trial runs with BLAS
limited to one thread (threadpoolctl): on the 2-core machine a multi-threaded OpenBLAS made a
300-point GP fit 50-100x slower under contention.

Cache: one Parquet file per spec (``<method>__<target>__<hash>.parquet``) in ``cache_dir``;
finished repetitions are first written atomically to ``partial/<stem>/rep-XXXXX.npz``, so an
interrupted run resumes and asking for more repetitions computes only the missing ones.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nmthpo.benchmark.tables import NMTHPO_TASKS, NMTLC_TASKS, TASKS, check_task, load_table
from nmthpo.engine.metrics import write_sequences
from nmthpo.engine.runner import _atomic_npz, _atomic_parquet, _atomic_text
from nmthpo.optimizers.transfer.methods import check_method, make_transfer_optimizer
from nmthpo.optimizers.transfer.sources import check_sources, source_tasks, task_family

__all__ = [
    "TransferResult",
    "TransferSpec",
    "default_sources",
    "dynamic_experiment",
    "run_specs",
    "run_transfer",
    "run_transfer_trial",
    "static_experiment",
    "subset_sources",
]

#: Bump when a change would alter results, to invalidate old caches.
CACHE_VERSION = 1


def default_sources(target: str) -> tuple[str, ...]:
    """Leave one out: every other task of the target's family (the static setting)."""
    check_task(target)
    family = NMTHPO_TASKS if task_family(target) == "nmthpo" else NMTLC_TASKS
    return tuple(t for t in family if t != target)


def subset_sources(target: str, n_sources: int, seed: int = 0) -> tuple[str, ...]:
    """A fixed random subset of ``n_sources`` of the other tasks (the few-sources setting).

    Drawn by ``default_rng([seed, 5, task_code(target)])`` and returned in registry order, so a
    target keeps its subset across methods and repetitions.
    """
    pool = default_sources(target)
    if not 1 <= n_sources <= len(pool):
        raise ValueError(f"n_sources must be between 1 and {len(pool)} for {target}, "
                         f"got {n_sources}")
    rng = np.random.default_rng([seed, 5, TASKS.index(target)])
    pick = set(rng.choice(len(pool), size=n_sources, replace=False).tolist())
    return tuple(t for i, t in enumerate(pool) if i in pick)


@dataclass(frozen=True)
class TransferSpec:
    """Everything that determines a transfer run (the cache key).

    Attributes
    ----------
    method : str
        A name of :data:`nmthpo.optimizers.transfer.methods.TRANSFER_METHODS`.
    target : str
    sources : tuple of str
        Source tasks, in order (SGPR stacks them in this order).
    n_source : int
        ``N_S``: sampled evaluations per source (the paper: 50).
    budget : int
        ``N_T``: target evaluations per trial, initial rows included (the paper: 50 or 75).
    n_init : int
        Random initial rows (the paper: 3).
    seed : int
    kernel : str
    settings : mapping
        Method settings overriding the defaults (e.g. ``{"rho": 0.5}``).
    """

    method: str
    target: str
    sources: tuple[str, ...]
    n_source: int = 50
    budget: int = 50
    n_init: int = 3
    seed: int = 0
    kernel: str = "matern52"
    settings: Mapping[str, Any] = field(default_factory=dict)

    def validate(self) -> TransferSpec:
        """Clear ``KeyError``/``ValueError`` for unknown names and impossible numbers."""
        check_method(self.method)
        check_sources(self.target, self.sources)
        if self.method not in ("rs", "igp") and not self.sources:
            raise ValueError(f"method {self.method!r} needs at least one source task")
        n = load_table(self.target).n_rows
        if self.seed < 0:
            raise ValueError(f"seed must be >= 0, got {self.seed}")
        if not 1 <= self.n_init <= n:
            raise ValueError(f"n_init must be between 1 and {n}, got {self.n_init}")
        if not self.n_init <= self.budget <= n:
            raise ValueError(f"budget (trials) must be between n_init={self.n_init} and the {n} "
                             f"rows of {self.target}, got {self.budget}")
        for s in self.sources:
            m = load_table(s).n_rows
            if not 2 <= self.n_source <= m:
                raise ValueError(f"n_source must be between 2 and the {m} rows of source {s}, "
                                 f"got {self.n_source}")
        return self

    def key(self) -> str:
        """Stable hash of the spec and :data:`CACHE_VERSION`."""
        payload = {**asdict(self), "settings": dict(sorted(self.settings.items())),
                   "version": CACHE_VERSION}
        return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()
                              ).hexdigest()[:16]

    def stem(self) -> str:
        """File-name stem of the cached run."""
        return f"{self.method}__{self.target}__{self.key()}"


def run_transfer_trial(spec: TransferSpec, rep: int) -> dict[str, np.ndarray]:
    """Run repetition ``rep`` of ``spec``.

    Returns
    -------
    dict
        ``row`` (budget,) evaluated rows in order; ``target_weight`` (budget,) the weight of the
        target model when the row was chosen (NaN for initial rows and methods without one);
        ``source_weights`` (budget, K); ``seconds`` (budget,) wall time of each suggestion
        (0 for initial rows).
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        table = load_table(spec.target)
        X = table.encode("shared")
        y = table.bleu
        # rs and igp ignore the sources: do not fit them
        srcs = source_tasks(spec.sources, spec.n_source, spec.seed, rep, spec.kernel) \
            if spec.method not in ("rs", "igp") else []
        opt = make_transfer_optimizer(spec.method, X, np.random.default_rng([spec.seed, rep, 1]),
                                      srcs, kernel=spec.kernel, target_task=spec.target,
                                      **dict(spec.settings))
        K = len(spec.sources)
        rows: list[int] = []
        tw = np.full(spec.budget, np.nan)
        sw = np.full((spec.budget, K), np.nan)
        secs = np.zeros(spec.budget)
        init = np.random.default_rng([spec.seed, rep, 0]).choice(table.n_rows, size=spec.n_init,
                                                                 replace=False)
        for r in init:
            opt.tell(int(r), y[r])
            rows.append(int(r))
        while len(rows) < spec.budget:
            t0 = time.perf_counter()
            r = int(opt.ask())
            secs[len(rows)] = time.perf_counter() - t0
            if r in rows:
                raise RuntimeError(f"{spec.method} proposed row {r} twice (repetition {rep})")
            tw[len(rows)] = opt.target_weights[-1]
            if opt.source_weights[-1].size == K:
                sw[len(rows)] = opt.source_weights[-1]
            opt.tell(r, y[r])
            rows.append(r)
    return {"row": np.asarray(rows, dtype=np.int64), "target_weight": tw,
            "source_weights": sw, "seconds": secs}


def _tidy(spec: TransferSpec, rep: int, res: Mapping[str, np.ndarray]) -> pd.DataFrame:
    bleu = load_table(spec.target).bleu
    rows = np.asarray(res["row"])
    cols: dict[str, Any] = {
        "method": spec.method,
        "target": spec.target,
        "n_sources": np.full(rows.size, len(spec.sources), dtype=np.int32),
        "rep": np.full(rows.size, rep, dtype=np.int32),
        "step": np.arange(1, rows.size + 1, dtype=np.int32),
        "row": rows.astype(np.int32),
        "bleu": bleu[rows],
        "target_weight": np.asarray(res["target_weight"], dtype=float),
        "seconds": np.asarray(res["seconds"], dtype=float),
    }
    sw = np.asarray(res["source_weights"], dtype=float).reshape(rows.size, -1)
    for j, s in enumerate(spec.sources):
        cols[f"w_{s}"] = sw[:, j]
    return pd.DataFrame(cols)


@dataclass
class TransferResult:
    """A run's spec and its tidy frame: one line per (rep, step)."""

    spec: TransferSpec
    frame: pd.DataFrame

    @property
    def sequences(self) -> list[list[int]]:
        """Evaluated rows, one list per repetition."""
        return [g["row"].tolist() for _, g in self.frame.groupby("rep", sort=True)]

    def save(self, out: str | Path) -> None:
        """Write ``trajectories.parquet``, ``sequences.ss``, ``target_weights.csv`` and
        ``spec.json`` to ``out``."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        _atomic_parquet(self.frame, out / "trajectories.parquet")
        write_sequences(out / "sequences.ss", self.sequences)
        wcols = ["rep", "step", "target_weight"] + [c for c in self.frame if c.startswith("w_")]
        _atomic_text(out / "target_weights.csv", self.frame[wcols].to_csv(index=False))
        _atomic_text(out / "spec.json", json.dumps(asdict(self.spec), indent=2, default=str))


def _pair(spec: TransferSpec, rep: int) -> tuple[TransferSpec, int, dict[str, np.ndarray]]:
    return spec, rep, run_transfer_trial(spec, rep)


def _execute(todo: list[tuple[TransferSpec, int]], jobs: int
             ) -> Iterator[tuple[TransferSpec, int, dict[str, np.ndarray]]]:
    if jobs == 1:
        for spec, rep in todo:
            yield _pair(spec, rep)
        return
    import joblib

    yield from joblib.Parallel(n_jobs=jobs, return_as="generator_unordered")(
        joblib.delayed(_pair)(spec, rep) for spec, rep in todo)


def run_specs(
    specs: Sequence[TransferSpec],
    repeats: int = 30,
    jobs: int = 1,
    cache_dir: str | Path | None = None,
    progress: bool = False,
) -> list[TransferResult]:
    """Run (or read from the cache) ``repeats`` repetitions of every spec, in one worker pool.

    Missing repetitions of all specs are scheduled together, so a whole experiment grid keeps
    ``jobs`` workers busy. Returns one :class:`TransferResult` per spec, in order.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    specs = [s.validate() for s in specs]
    frames: dict[str, dict[int, pd.DataFrame]] = {s.stem(): {} for s in specs}
    cache = Path(cache_dir) if cache_dir is not None else None
    for s in specs:
        if cache is None:
            continue
        final, partial = cache / f"{s.stem()}.parquet", cache / "partial" / s.stem()
        if final.exists():
            for r, g in pd.read_parquet(final).groupby("rep", sort=True):
                frames[s.stem()][int(r)] = g.reset_index(drop=True)  # type: ignore[arg-type]
        if partial.exists():
            for f in sorted(partial.glob("rep-*.npz")):
                r = int(f.stem.split("-")[1])
                if r not in frames[s.stem()]:
                    with np.load(f) as z:
                        frames[s.stem()][r] = _tidy(s, r, {k: z[k] for k in z.files})
    unique = list({s.stem(): s for s in specs}.values())
    todo = [(s, r) for s in unique for r in range(repeats) if r not in frames[s.stem()]]
    if todo:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(todo), desc="transfer", disable=not progress, leave=False)
        try:
            for s, r, res in _execute(todo, jobs):
                if cache is not None:
                    part = cache / "partial" / s.stem()
                    part.mkdir(parents=True, exist_ok=True)
                    _atomic_npz(part / f"rep-{r:05d}.npz", res)
                frames[s.stem()][r] = _tidy(s, r, res)
                bar.update()
        finally:
            bar.close()
    done_stems = {s.stem() for s, _ in todo}
    out = []
    for s in specs:
        got = frames[s.stem()]
        frame = pd.concat([got[r] for r in sorted(got)], ignore_index=True)
        if cache is not None and (s.stem() in done_stems
                                  or not (cache / f"{s.stem()}.parquet").exists()):
            _atomic_parquet(frame, cache / f"{s.stem()}.parquet")
            shutil.rmtree(cache / "partial" / s.stem(), ignore_errors=True)
        out.append(TransferResult(s, frame[frame["rep"] < repeats].reset_index(drop=True)))
    return out


def run_transfer(
    method: str,
    target: str,
    sources: Sequence[str] | None = None,
    n_source: int = 50,
    budget: int = 50,
    repeats: int = 30,
    seed: int = 0,
    n_init: int = 3,
    kernel: str = "matern52",
    settings: Mapping[str, Any] | None = None,
    jobs: int = 1,
    cache_dir: str | Path | None = None,
    progress: bool = False,
) -> TransferResult:
    """Run ``repeats`` repetitions of one transfer method on one target.

    ``sources=None`` means leave one out (:func:`default_sources`). See :class:`TransferSpec`
    for the other parameters.
    """
    srcs = default_sources(target) if sources is None else tuple(sources)
    spec = TransferSpec(method, target, srcs, n_source, budget, n_init, seed, kernel,
                        dict(settings or {}))
    return run_specs([spec], repeats, jobs, cache_dir, progress)[0]


def static_experiment(
    methods: Sequence[str],
    targets: Sequence[str] = NMTHPO_TASKS,
    n_sources: int | None = None,
    n_source: int = 50,
    budget: int = 50,
    repeats: int = 30,
    seed: int = 0,
    jobs: int = 1,
    cache_dir: str | Path | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """The static (leave-one-out) setting: every target in turn, the others as sources.

    ``n_sources`` restricts each target to a fixed random subset of that many sources
    (:func:`subset_sources`; the paper's N_task = 5 vs 29). Returns the concatenated tidy
    frames of every (method, target).
    """
    specs = []
    for t in targets:
        srcs = default_sources(t) if n_sources is None else subset_sources(t, n_sources, seed)
        specs += [TransferSpec(m, t, srcs, n_source, budget, 3, seed) for m in methods]
    res = run_specs(specs, repeats, jobs, cache_dir, progress)
    return pd.concat([r.frame for r in res], ignore_index=True)


def dynamic_experiment(
    methods: Sequence[str],
    order: Sequence[str] = NMTHPO_TASKS,
    n_source: int = 50,
    budget: int = 50,
    repeats: int = 30,
    seed: int = 0,
    jobs: int = 1,
    cache_dir: str | Path | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """The dynamic setting (Section 5.1 (b)): tasks arrive in ``order``; task ``i`` uses tasks
    ``1..i-1`` as sources. The first task has no source (every transfer method would be I-GP)
    and is skipped. Adds a column ``position`` (2 for the second task, ...).
    """
    order = tuple(order)
    for t in order:
        check_task(t)
    if len(set(order)) != len(order) or len(order) < 2:
        raise ValueError(f"order must list at least two distinct tasks; got {list(order)}")
    specs = [TransferSpec(m, order[i], order[:i], n_source, budget, 3, seed)
             for i in range(1, len(order)) for m in methods]
    res = run_specs(specs, repeats, jobs, cache_dir, progress)
    frames = []
    for r in res:
        f = r.frame.copy()
        f["position"] = order.index(r.spec.target) + 1
        frames.append(f)
    return pd.concat(frames, ignore_index=True)
