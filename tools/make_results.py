"""Recompute the cached experiments the book reads (``make results``).

Every experiment is a grid of :func:`nmthpo.experiment.run` calls whose results land in a
subdirectory of ``results/``; runs already cached are read back, interrupted ones resume.
``--only`` picks experiments, ``--trials`` shrinks them (a smoke test of the pipeline).

    python tools/make_results.py                      # everything (long: see the README)
    python tools/make_results.py --only single --jobs 2
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"


def _grid(name: str, methods, tasks, trials: int, jobs: int, **kw) -> None:
    from nmthpo.experiment import run

    for task in tasks:
        for method in methods:
            t0 = time.perf_counter()
            run(method, task, trials=trials, jobs=jobs, cache_dir=RESULTS / name, **kw)
            print(f"[{name}] {method:>9} {task}: {time.perf_counter() - t0:7.1f} s", flush=True)


def single(trials: int, jobs: int) -> None:
    """Table 3: 7 methods x 6 tasks x 100 trials until the first argmax row (ftb target)."""
    from nmthpo.single_objective import METHODS
    from nmthpo.tables import NMTHPO_TASKS

    _grid("single", METHODS, NMTHPO_TASKS, trials, jobs, seed=0, record_mse=True)


EXPERIMENTS: dict[str, Callable[[int, int], None]] = {"single": single}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default=",".join(EXPERIMENTS),
                   help=f"comma-separated subset of: {', '.join(EXPERIMENTS)}")
    p.add_argument("--trials", type=int, default=100)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in EXPERIMENTS]
    if unknown:
        p.error(f"unknown experiment(s) {unknown}; valid: {', '.join(EXPERIMENTS)}")
    for n in names:
        t0 = time.perf_counter()
        EXPERIMENTS[n](args.trials, args.jobs)
        print(f"== {n}: {time.perf_counter() - t0:.1f} s wall", flush=True)


if __name__ == "__main__":
    main()
