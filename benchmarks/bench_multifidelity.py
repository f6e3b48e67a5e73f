"""Wall time of Chapter 7's whole grid (issue 14: at most 10 minutes on two cores).

Computes every (method, task) run of :data:`nmthpo.studies.grids.MULTIFIDELITY` (published
trials, seed and budgets; the runs and their per-trial metrics, as ``make results`` does) with
``jobs`` worker processes into a temporary user cache (``results/`` is neither read nor
written), and prints the time per run, per
method and in total, against the 10-minute target.

Usage: ``python benchmarks/bench_multifidelity.py [--jobs 2] [--trials 100]``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import pandas as pd


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--trials", type=int, default=None)
    args = parser.parse_args()
    os.environ.pop("NMTHPO_WRITE_RESULTS", None)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["NMTHPO_RESULTS"] = tmp
        from nmthpo.studies.grids import MULTIFIDELITY as P
        from nmthpo.studies.multifidelity.study import run_metrics, tolerance

        trials = P["trials"] if args.trials is None else args.trials
        pairs = [(m, t) for t in P["finetune_tasks"] for m in P["methods"]]
        pairs += [(m, t) for t in P["scratch_tasks"] for m in P["scratch_methods"]]
        rows = []
        t_all = time.perf_counter()
        for m, t in pairs:
            t0 = time.perf_counter()
            run_metrics(
                m,
                t,
                trials,
                P["seed"],
                P["budget_curves"],
                tolerance(t, P["bleu_tolerance"], P["ppl_tolerance"]),
                jobs=args.jobs,
                read_book=False,
            )
            rows.append({"method": m, "task": t, "seconds": time.perf_counter() - t0})
        total = time.perf_counter() - t_all
    frame = pd.DataFrame(rows)
    print(
        f"Chapter 7 grid: {len(pairs)} runs x {trials} trials, jobs={args.jobs}, "
        f"{os.cpu_count()} CPUs"
    )
    print(frame.groupby("method", sort=False)["seconds"].sum().round(1).to_string())
    print(
        f"total: {total:.1f} s ({total / 60:.2f} min; target <= 10 min: "
        f"{'met' if total <= 600 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
