"""The cost of the lattice hyperparameter search (``search="lattice"``) against L-BFGS-B.

Two tables, both measured in this run with BLAS limited to one thread:

* one hyperparameter fit (2 screened random restarts, as a run's first fit; then a warm refit
  after one more observation) on the first ``n`` rows of sw-en (Matérn-5/2 ARD), by
  :class:`nmthpo.models.gp.GaussianProcess` with ``search="lbfgsb"`` and
  ``search="lattice"`` (:mod:`nmthpo.models.lattice`): milliseconds (minimum over
  ``--repeats``), likelihood evaluations, and the log marginal likelihood each reaches;
* whole ``bo-ei-m`` runs on sw-en (``--trials`` trials, ``stop="none"``) at budgets 40 and 100,
  with its default schedule, fitted by L-BFGS-B with exact ties (``search=lbfgsb,
  tie_rtol=0``) and by the lattice (``search=lattice, tie_rtol=1e-9``, the default since issue
  25): seconds, and the ratio.

The speed appendix prints this output beside the portability of the two searches.

Usage: ``python benchmarks/bench_lattice.py [--repeats 3] [--trials 4]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

import nmthpo
from nmthpo.benchmark.tables import load_table
from nmthpo.models.gp import GaussianProcess

TASK = "sw-en"
SIZES = (10, 25, 50, 100, 200)
BUDGETS = (40, 100)
LATTICE = {"search": "lattice", "tie_rtol": 1e-9}
#: The same runs fitted by L-BFGS-B with exact ties (the default schedule either way)
LBFGSB = {"search": "lbfgsb", "tie_rtol": 0.0}


def _fit(X: np.ndarray, y: np.ndarray, search: str) -> tuple[float, float, int, float]:
    """Cold fit on all but the last row, then a warm refit on all: (cold ms, warm ms, evals,
    log marginal likelihood after the warm refit)."""
    gp = GaussianProcess(search=search)
    t0 = time.perf_counter()
    gp.fit(X[:-1], y[:-1], rng=np.random.default_rng(0), restarts=2)
    t1 = time.perf_counter()
    evals = gp.n_evaluations
    gp.fit(X, y)
    t2 = time.perf_counter()
    return 1e3 * (t1 - t0), 1e3 * (t2 - t1), evals + gp.n_evaluations, gp.log_marginal_likelihood()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--trials", type=int, default=4)
    args = p.parse_args()
    table = load_table(TASK)
    X_all = np.asarray(table.encode("scaled"), dtype=float)
    y_all = np.asarray(table.bleu, dtype=float)
    order = np.random.default_rng(1).permutation(len(y_all))
    print(
        f"one hyperparameter fit on {TASK} (cold with 2 restarts, then warm), ms (min of "
        f"{args.repeats}); evals = likelihood evaluations; lml = log marginal likelihood"
    )
    print(
        f"{'n':>5} {'lbfgsb cold':>12} {'warm':>7} {'evals':>6} {'lml':>9} "
        f"{'lattice cold':>13} {'warm':>7} {'evals':>6} {'lml':>9} {'ratio':>6}"
    )
    with threadpool_limits(1):
        for n in SIZES:
            X, y = X_all[order[:n]], y_all[order[:n]]
            best = {}
            for search in ("lbfgsb", "lattice"):
                runs = [_fit(X, y, search) for _ in range(args.repeats)]
                best[search] = (
                    min(r[0] for r in runs),
                    min(r[1] for r in runs),
                    runs[0][2],
                    runs[0][3],
                )
            a, b = best["lbfgsb"], best["lattice"]
            ratio = (b[0] + b[1]) / (a[0] + a[1])
            print(
                f"{n:>5} {a[0]:>12.1f} {a[1]:>7.1f} {a[2]:>6} {a[3]:>9.2f} "
                f"{b[0]:>13.1f} {b[1]:>7.1f} {b[2]:>6} {b[3]:>9.2f} {ratio:>6.2f}"
            )
        print()
        print(f"whole bo-ei-m runs on {TASK}, {args.trials} trials, stop=none: seconds")
        print(f"{'budget':>6} {'lbfgsb':>8} {'lattice':>8} {'ratio':>6}")
        for budget in BUDGETS:
            secs = []
            for settings in (LBFGSB, LATTICE):
                t0 = time.perf_counter()
                nmthpo.run("bo-ei-m", TASK, trials=args.trials, seed=0, budget=budget,
                           stop="none", progress=False, settings=settings)  # fmt: skip
                secs.append(time.perf_counter() - t0)
            print(f"{budget:>6} {secs[0]:>8.1f} {secs[1]:>8.1f} {secs[1] / secs[0]:>6.2f}")


if __name__ == "__main__":
    main()
