"""Per-suggestion cost of the transfer methods and an estimate of the full static experiment.

For every method and target, ``--reps`` real repetitions of the static leave-one-out setting
(5 sources, ``N_S = 50``, ``N_T = --budget`` evaluations, 3 initial rows) are run through
:func:`nmthpo.engine.runner.run_trial` (BLAS limited to one thread, as in every run).
Reported per (method, target): mean milliseconds per suggestion (the optimiser's
``ask``) and seconds per repetition (wall time of the whole trial, source fitting included
on first use -- the source GPs are cached per process, as in a real run).

The estimate of the full grid (``--methods`` x 6 targets x 30 repetitions) is
``sum over (method, target) of seconds per repetition x 30 / --workers``, i.e. perfect
packing of independent repetitions onto the worker processes, plus the measured one-off
source fitting per repetition.

Usage: ``python benchmarks/bench_transfer.py [--reps 1] [--budget 50] [--workers 2]
[--targets zh-en,sw-en] [--methods transbo,rgpe]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from nmthpo.benchmark.tables import NMTHPO_TASKS
from nmthpo.engine.runner import RunSpec, default_sources, run_trial
from nmthpo.optimizers.transfer.methods import STATIC_METHODS
from nmthpo.optimizers.transfer.sources import source_task


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--budget", type=int, default=50)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--full-repeats", type=int, default=30)
    ap.add_argument("--targets", default=",".join(NMTHPO_TASKS))
    ap.add_argument("--methods", default=",".join(STATIC_METHODS))
    args = ap.parse_args()
    targets = args.targets.split(",")
    methods = args.methods.split(",")
    # source fitting: timed separately (once per task and repetition in a real run)
    from threadpoolctl import threadpool_limits

    t_src = []
    with threadpool_limits(limits=1, user_api="blas"):
        for rep in range(args.reps):
            for t in NMTHPO_TASKS:
                t0 = time.perf_counter()
                source_task(t, 50, 0, rep)
                t_src.append(time.perf_counter() - t0)
    print(f"source GP fit (N_S=50): {1000 * np.mean(t_src):.0f} ms per task and repetition")
    lines = []
    for m in methods:
        for t in targets:
            spec = RunSpec(m, t, sources=default_sources(t), n_source=50, budget=args.budget)
            for rep in range(args.reps):
                t0 = time.perf_counter()
                res = run_trial(spec, rep)
                wall = time.perf_counter() - t0
                asks = res["seconds"][3:]
                lines.append(
                    {
                        "method": m,
                        "target": t,
                        "rep": rep,
                        "ms_per_ask": 1000 * asks.mean(),
                        "max_ms": 1000 * asks.max(),
                        "s_per_rep": wall,
                    }
                )
            print(f"{m:8s} {t:6s} {1000 * asks.mean():8.1f} ms/ask  {wall:6.2f} s/rep", flush=True)
    f = pd.DataFrame(lines)
    per = f.groupby(["method", "target"])["s_per_rep"].mean()
    table = f.groupby("method")[["ms_per_ask", "max_ms", "s_per_rep"]].mean()
    print("\nmean over targets:")
    print(table.round(1).to_string())
    scale = len(NMTHPO_TASKS) / len(targets)
    total = (per.sum() * scale + np.mean(t_src) * len(NMTHPO_TASKS)) * args.full_repeats
    print(
        f"\nestimated full static grid ({len(methods)} methods x 6 targets x "
        f"{args.full_repeats} repetitions, N_T={args.budget}) on {args.workers} workers: "
        f"{total / args.workers / 60:.1f} min"
    )


if __name__ == "__main__":
    main()
