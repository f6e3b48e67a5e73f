"""Time search-space scoring on sw-en: 100 spaces x 6 budgets (target: under a minute).

Run: ``NMTHPO_DATA=../shared/data/hpo_nmt .venv/bin/python benchmarks/bench_scoring.py``.
Prints the wall time of each stage (space sampling, GP fit + joint posterior + Monte Carlo +
exact empirical scores) and the total; settings are the defaults of
:func:`nmthpo.studies.ariafar.space_scores.table_experiment` (256 batches x 256 joint draws).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from nmthpo.benchmark.subspaces import parse_spaces
from nmthpo.benchmark.tables import load_table
from nmthpo.studies.ariafar.space_scores import faithfulness_table, table_experiment


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--task", default="sw-en")
    ap.add_argument("--spaces", type=int, default=100)
    ap.add_argument("--seed-size", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3, help="timed repetitions (best is shown)")
    args = ap.parse_args()
    table = load_table(args.task)
    budgets = (1, 2, 5, 10, 20, 50)
    t0 = time.perf_counter()
    spaces = parse_spaces(f"full,random:{args.spaces - 1}", table.configs, np.random.default_rng(1))
    t_spaces = time.perf_counter() - t0
    times = []
    for r in range(args.repeats):
        t0 = time.perf_counter()
        frame = table_experiment(
            args.task, spaces, seed_sizes=(args.seed_size,), repeats=1, budgets=budgets, seed=r
        )
        times.append(time.perf_counter() - t0)
    ft = faithfulness_table(frame, "mean-b-ei")
    print(
        f"task {args.task}: {len(spaces)} spaces x {len(budgets)} budgets, "
        f"seed size {args.seed_size}"
    )
    print(f"  sampling the spaces: {t_spaces:.2f} s")
    print(
        f"  scoring (GP fit, joint posterior, MC, exact empirical): "
        f"best {min(times):.2f} s, all {', '.join(f'{t:.2f}' for t in times)} s"
    )
    taus = zip(ft["budget"], ft["kendall_tau"], strict=True)
    print(
        f"  mean-b-ei Kendall tau per budget (last run): "
        f"{', '.join(f'{b}:{t:.2f}' for b, t in taus)}"
    )


if __name__ == "__main__":
    main()
