"""Scale-out: one grid on ``--jobs 2`` (joblib processes) and on a Dask ``LocalCluster`` of 4
workers, the same rows, with throughput and peak memory per worker.

The grid is a slice of Table 3's (``nmthpo.studies.grids.RUN_GRIDS["single"]``): four methods
(random search, both graph-based EIs and GP-EI) on two tables, ``--trials`` trials each, computed
from scratch into temporary caches by one :func:`nmthpo.engine.runner.run_specs` call per side
(nothing of ``results/`` is read or written). The Dask side starts ``LocalCluster(n_workers=4,
threads_per_worker=1)`` (worker processes, as a real cluster has) and passes its address as
``scheduler``, which is what ``make results SCHEDULER=tcp://HOST:8786`` does for a cluster
started by hand (``dask scheduler``, then ``dask worker tcp://HOST:8786`` on each machine).

Printed per side: wall seconds (cluster start-up apart), trials per second, and the peak
resident memory of each worker process (sampled every 0.1 s with psutil; the largest
processes below this one, as many as the side has workers), then whether every run's rows are
identical on both sides (they must be: a trial depends only on its spec and its number).

Usage: ``python benchmarks/bench_dask.py [--trials 10] [--workers 4] [--jobs 2]``
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

TASKS = ("zh-en", "ja-en")
METHODS = ("rs", "gb-ei-m", "gb-eif-m", "bo-ei-m")


class PeakRSS:
    """Peak resident memory of every process below this one, sampled in a thread."""

    def __init__(self, every: float = 0.1) -> None:
        import psutil

        self._me = psutil.Process()
        self.peak: dict[int, int] = {}
        self._stop = threading.Event()
        self._every = every
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psutil

        while not self._stop.is_set():
            for p in self._me.children(recursive=True):
                try:
                    rss = p.memory_info().rss
                except psutil.Error:
                    continue
                self.peak[p.pid] = max(self.peak.get(p.pid, 0), rss)
            self._stop.wait(self._every)

    def __enter__(self) -> PeakRSS:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def largest(self, k: int) -> list[float]:
        """The ``k`` largest peaks in MiB, largest first."""
        return [v / 2**20 for v in sorted(self.peak.values(), reverse=True)[:k]]


def timed(call: Callable[[], Any], workers: int) -> tuple[Any, float, list[float]]:
    with PeakRSS() as mem:
        t0 = time.perf_counter()
        out = call()
        wall = time.perf_counter() - t0
    return out, wall, mem.largest(workers)


def main() -> None:
    from distributed import Client, LocalCluster

    from nmthpo.engine.runner import RunSpec, run_specs
    from nmthpo.studies.grids import RUN_GRIDS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    g = RUN_GRIDS["single"]
    specs = [RunSpec(m, t, seed=g.seed, **g.options) for t in TASKS for m in METHODS]
    n = len(specs) * args.trials
    print(
        f"grid: {', '.join(METHODS)} on {', '.join(TASKS)}, {args.trials} trials each "
        f"({n} trials), Table 3's protocol"
    )
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        local, wall_a, mem_a = timed(lambda: run_specs(specs, args.trials, args.jobs, a), args.jobs)
        t0 = time.perf_counter()
        with (
            LocalCluster(
                n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            Client(cluster),
        ):
            start = time.perf_counter() - t0
            dask, wall_b, mem_b = timed(
                lambda: run_specs(specs, args.trials, 1, b, scheduler=cluster.scheduler_address),
                args.workers,
            )
    for name, wall, mem in (
        (f"joblib, --jobs {args.jobs}", wall_a, mem_a),
        (f"Dask LocalCluster, {args.workers} workers", wall_b, mem_b),
    ):
        peaks = ", ".join(f"{m:.0f}" for m in mem)
        print(f"{name:>32}: {wall:6.1f} s, {n / wall:5.2f} trials/s, peak MiB per worker: {peaks}")
    print(f"{'':>32}  (cluster start-up {start:.1f} s, not counted)")
    same = sum(x.frame.equals(y.frame) for x, y in zip(local, dask, strict=True))
    print(f"identical rows: {same} of {len(specs)} runs")
    if same != len(specs):
        raise SystemExit("the rows differ between joblib and Dask")


if __name__ == "__main__":
    main()
