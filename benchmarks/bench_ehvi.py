"""Timing of EHVI suggestions and an estimate of the full multiobjective grid's wall time.

Measures, on sw-en (767 rows), the cost of one ``ParetoSMBO.ask`` split into the surrogate
update (posterior of both objectives for every row) and the exact EHVI over all candidates,
along a real trajectory; then runs a few real trials per task and method through
``nmthpo.engine.runner.run(..., objective="pareto")`` and extrapolates to the grid of
5 methods x 6 tasks x 100 trials with 2 jobs (RS costs nothing measurable).

Usage: ``python benchmarks/bench_ehvi.py [--trials 2]``. Takes a few minutes.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from nmthpo.benchmark.tables import NMTHPO_TASKS, load_table
from nmthpo.engine.metrics import evaluate_sequences
from nmthpo.engine.runner import initial_rows, run
from nmthpo.models.ehvi import ehvi, nondominated_front, reference_from_observations
from nmthpo.optimizers import make_optimizer
from nmthpo.studies.zhang_duh.multiobjective import budget_for


def suggestion_times(method: str, task: str = "sw-en", steps: int = 300) -> dict[str, float]:
    table = load_table(task)
    Y = table.objectives("pareto")
    opt = make_optimizer(method, table.scaled, np.random.default_rng(0), "pareto")
    for r in initial_rows(table.n_rows, 3, 0, 0):
        opt.tell(int(r), Y[r])
    post, acq, total, tell = [], [], [], []
    for _ in range(steps):
        t0 = time.perf_counter()
        mean, std = opt.posterior()  # type: ignore[attr-defined]
        t1 = time.perf_counter()
        pts = opt.observed_points()  # type: ignore[attr-defined]
        ref = reference_from_observations(pts, 0.1)
        cand = opt.candidates
        ehvi(mean[cand], std[cand], nondominated_front(pts, ref), ref)
        t2 = time.perf_counter()
        r = opt.ask()  # cached surrogate state: measures ask() on top of the update above
        t3 = time.perf_counter()
        opt.tell(r, Y[r])
        t4 = time.perf_counter()
        post.append(t1 - t0)
        acq.append(t2 - t1)
        total.append(t3 - t2)
        tell.append(t4 - t3)
    return {
        "posterior_ms": 1e3 * float(np.median(post)),
        "posterior_max_ms": 1e3 * float(np.max(post)),
        "ehvi_ms": 1e3 * float(np.median(acq)),
        "ask_ms": 1e3 * float(np.median(total)),
        "tell_ms": 1e3 * float(np.median(tell)),
        "per_step_mean_ms": 1e3 * float(np.mean(np.add(post, tell)) + np.mean(acq)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()

    print(f"== one EHVI suggestion on sw-en (median over {args.steps} steps of a trajectory)")
    for method in ("bo-m", "gb-m"):
        t = suggestion_times(method, steps=args.steps)
        print(
            f"{method}: surrogate update/posterior {t['posterior_ms']:.2f} ms "
            f"(max {t['posterior_max_ms']:.0f} ms, incl. hyperparameter refits), "
            f"EHVI over all candidates {t['ehvi_ms']:.2f} ms, full ask {t['ask_ms']:.2f} ms, "
            f"tell {t['tell_ms']:.2f} ms; mean per step {t['per_step_mean_ms']:.2f} ms"
        )

    print(f"\n== {args.trials} real trials per task and method (objective='pareto', stop at fta)")
    total = 0.0
    for task in NMTHPO_TASKS:
        table = load_table(task)
        for method in ("bo-m", "bo-r", "gb-m", "gb-r"):
            t0 = time.perf_counter()
            res = run(method, task, trials=args.trials, objective="pareto", progress=False)
            dt = (time.perf_counter() - t0) / args.trials
            total += dt * 100
            ev = evaluate_sequences(
                res.sequences,
                table.bleu,
                table.pareto,
                objective="pareto",
                budget=budget_for(table.n_rows),
            )
            print(
                f"{task} {method}: {dt:6.2f} s/trial; fto {ev['fto'].tolist()} "
                f"fta {ev['fta'].tolist()} fbp@{budget_for(table.n_rows)} "
                f"{ev['fbp'].tolist()}"
            )
    print(
        f"\nestimated full grid (4 model-based methods x 6 tasks x 100 trials; RS ~0): "
        f"{total / 60:.1f} CPU-min, {total / 120:.1f} min wall with 2 jobs"
    )


if __name__ == "__main__":
    main()
