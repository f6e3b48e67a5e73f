"""Time one GP-BO suggestion on sw-en: nmthpo's GP versus scikit-learn refitted from scratch.

One *suggestion* = bring the surrogate up to date with the newest observation, then score
every unevaluated row by expected improvement and take the argmax. Timed at 20, 100 and 300
observations (random rows of sw-en, 767 rows in total), Matérn-5/2 ARD kernel.

Columns (ms per suggestion). ours, measured through :class:`nmthpo.optimizers.bo.GPBO`
itself in the papers' protocol (``schedule="exact"``, L-BFGS-B, exact ties:
:data:`nmthpo.studies.grids.EXACT_PROTOCOL`, GP-BO's default before issue 25; the default's
cost is ``bench_speed``'s and ``bench_cost``'s) -- the optimiser already holds a GP fitted on
``n - 1`` observations; one more is told and ``ask()`` is timed:

* ``warm``: hyperparameters re-optimised from the previous optimum, no random restart;
* ``restart``: warm start plus 2 screened random restarts;
* ``incr``: O(n^2) Cholesky extension, hyperparameters kept;
* ``default``: mean over 10 consecutive steps of the protocol's schedule (re-optimise every
  step, warm-started; restarts at one step in 10);
* ``re=5``: the same with ``refit_every=5`` (incremental updates in between).

The schedules are settings of GPBO's :class:`nmthpo.models.refit.RefitSchedule`
(``every=refit_every``, ``restart_every``; ``between="add"`` for the incremental updates).

scikit-learn: ``GaussianProcessRegressor(ConstantKernel * Matern(nu=2.5, ARD) + WhiteKernel,
normalize_y=True)`` with the same bounds and starting point, refitted from scratch with
``n_restarts_optimizer`` 0 (``skl r=0``) and 2 (``skl r=2``), then ``predict(return_std=True)``
on the unevaluated rows and EI; ``skl sch`` = 0.9 r=0 + 0.1 r=2 (the same restart schedule).
``ratio`` = skl sch / default, ``re=5`` = skl sch / re=5, ``warm/r0`` = single local fits.
Times are the minimum over ``--repeats`` runs (the machine is shared), with BLAS limited to
``--threads`` threads for both.

A second table times one hyperparameter fit (2 screened random restarts, as a run's first fit)
on the first ``n`` rows, by :func:`nmthpo.models.lbfgsb.minimize_lbfgsb` (SciPy's compiled
L-BFGS-B driven directly, what every fit uses) against ``scipy.optimize.minimize`` (the same
routine behind SciPy's wrapper, the fallback path), both in this run, and checks that the two
reach the same hyperparameters bit for bit.

Usage: ``python benchmarks/bench_gp.py [--repeats 3] [--threads 1]``
"""

from __future__ import annotations

import argparse
import copy
import os
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from nmthpo.models.acquisition import expected_improvement
from nmthpo.optimizers.bo import GPBO
from nmthpo.studies.grids import EXACT_PROTOCOL

TASK = "sw-en"
SIZES = (20, 100, 300)
RESTARTS = 2
RESTART_EVERY = 10


def load_sw_en() -> tuple[np.ndarray, np.ndarray]:
    """Scaled configurations and dev BLEU of sw-en (via nmthpo.benchmark.tables if it can load
    them)."""
    try:
        from nmthpo.benchmark.tables import load_table

        table = load_table(TASK)
        return np.asarray(table.encode("scaled"), dtype=float), np.asarray(table.bleu, float)
    except Exception:  # noqa: BLE001 - tables not installed: read the raw files
        pass
    roots = [os.environ.get("NMTHPO_DATA", "/work/main/data/hpo_nmt"), "/work/shared/data/hpo_nmt"]
    for root in roots:
        d = Path(root) / "datasets"
        if (d / f"{TASK}.hyps_scaled").is_file() and (d / f"{TASK}.evals").is_file():
            X = np.loadtxt(d / f"{TASK}.hyps_scaled", ndmin=2)
            bleu = np.loadtxt(d / f"{TASK}.evals", ndmin=2)[:, 0]
            return X, bleu
    raise FileNotFoundError(f"no {TASK} table under {roots}; set NMTHPO_DATA to the dataset")


def best_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def time_ours(
    X: np.ndarray,
    y: np.ndarray,
    order: np.ndarray,
    n: int,
    repeats: int,
    steps: int = 1,
    **settings: Any,
) -> float:
    """Mean ``ask()`` time of ``steps`` consecutive GPBO steps from ``n`` observations on.

    The optimiser is first told ``n - 1`` rows and asked once (so it holds a GP fitted on
    them); then, for each step, one more row is told and ``ask()`` is timed. The same start
    state is deep-copied (untimed) for every repeat.
    """
    opt = GPBO(
        X,
        np.random.default_rng(0),
        kernel="matern52",
        restarts=RESTARTS,
        **{**EXACT_PROTOCOL, **settings},
    )
    for r in order[: n - 1]:
        opt.tell(int(r), float(y[r]))
    opt.ask()
    best = np.inf
    for _ in range(repeats):
        run = copy.deepcopy(opt)
        total = 0.0
        for k in range(steps):
            r = int(order[n - 1 + k])
            run.tell(r, float(y[r]))
            t0 = time.perf_counter()
            run.ask()
            total += time.perf_counter() - t0
        best = min(best, total / steps)
    return best


def time_sklearn(
    X: np.ndarray, y: np.ndarray, order: np.ndarray, n: int, repeats: int, restarts: int
) -> float:
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

    obs, rest = order[:n], order[n:]
    d = X.shape[1]

    def step() -> None:
        kernel = ConstantKernel(1.0, (1e-2, 1e2)) * Matern(
            np.full(d, 0.5), (1e-2, 1e2), nu=2.5
        ) + WhiteKernel(1e-2, (1e-6, 1.0))
        gpr = GaussianProcessRegressor(
            kernel, normalize_y=True, n_restarts_optimizer=restarts, random_state=0
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gpr.fit(X[obs], y[obs])
        mean, std = gpr.predict(X[rest], return_std=True)
        int(np.argmax(expected_improvement(mean, std, float(y[obs].max()))))

    return best_time(step, repeats)


FIT_SIZES = (10, 25, 50, 100)


def time_fits(X: np.ndarray, y: np.ndarray, order: np.ndarray, repeats: int) -> None:
    """Print the fit table: the direct L-BFGS-B driver against scipy.optimize.minimize."""
    from nmthpo.models import lbfgsb
    from nmthpo.models.gp import GaussianProcess

    def fit(n: int) -> GaussianProcess:
        obs = order[:n]
        return GaussianProcess("matern52").fit(
            X[obs], y[obs], rng=np.random.default_rng(0), restarts=RESTARTS
        )

    print()
    print("one hyperparameter fit (2 restarts): direct L-BFGS-B driver vs scipy.optimize.minimize")
    head = f"{'n':>4} | {'evals':>5} | {'driver':>7} {'minimize':>8} | {'ratio':>6} | same optimum"
    print(head)
    print("-" * len(head))
    setulb = lbfgsb._setulb
    for n in FIT_SIZES:
        gp_d = fit(n)
        t_d = best_time(lambda n=n: fit(n), repeats)
        lbfgsb._setulb = lambda: None  # the fallback: scipy.optimize.minimize
        try:
            gp_m = fit(n)
            t_m = best_time(lambda n=n: fit(n), repeats)
        finally:
            lbfgsb._setulb = setulb
        same = "yes" if np.array_equal(gp_d.theta, gp_m.theta) else "NO"
        print(
            f"{n:>4} | {gp_d.n_evaluations:>5} | {t_d * 1e3:7.1f} {t_m * 1e3:8.1f} | "
            f"{t_d / t_m:5.2f}x | {same}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads for both (default 1)")
    args = ap.parse_args()
    X, y = load_sw_en()
    order = np.random.default_rng(2020).permutation(len(y))
    print(
        f"{TASK}: {X.shape[0]} rows x {X.shape[1]} features; Matern-5/2 ARD; EI over the "
        f"unevaluated rows; min of {args.repeats} runs; BLAS threads {args.threads}"
    )
    head = (
        f"{'n':>4} | {'warm':>6} {'restart':>7} {'incr':>5} | {'default':>7} {'re=5':>6} | "
        f"{'skl r=0':>7} {'skl r=2':>7} {'skl sch':>7} | {'ratio':>6} {'re=5':>6} "
        f"{'warm/r0':>7}"
    )
    print("times in ms per suggestion")
    print(head)
    print("-" * len(head))
    t_start = time.perf_counter()
    w = 1.0 / RESTART_EVERY
    with threadpool_limits(limits=args.threads):
        for n in SIZES:
            warm = time_ours(X, y, order, n, args.repeats, restart_every=10**9)
            rst = time_ours(X, y, order, n, args.repeats, restart_every=1)
            incr = time_ours(X, y, order, n, args.repeats, refit_every=10**9)
            sched = time_ours(
                X, y, order, n, args.repeats, steps=RESTART_EVERY, restart_every=RESTART_EVERY
            )
            sched5 = time_ours(
                X,
                y,
                order,
                n,
                args.repeats,
                steps=RESTART_EVERY,
                restart_every=RESTART_EVERY,
                refit_every=5,
            )
            s0 = time_sklearn(X, y, order, n, args.repeats, restarts=0)
            s2 = time_sklearn(X, y, order, n, args.repeats, restarts=RESTARTS)
            skl = (1 - w) * s0 + w * s2
            print(
                f"{n:>4} | {warm * 1e3:6.1f} {rst * 1e3:7.1f} {incr * 1e3:5.1f} | "
                f"{sched * 1e3:7.1f} {sched5 * 1e3:6.1f} | {s0 * 1e3:7.1f} {s2 * 1e3:7.1f} "
                f"{skl * 1e3:7.1f} | {skl / sched:5.1f}x {skl / sched5:5.1f}x "
                f"{s0 / warm:6.1f}x"
            )
        time_fits(X, y, order, args.repeats)
    print(f"total {time.perf_counter() - t_start:.1f} s")


if __name__ == "__main__":
    main()
