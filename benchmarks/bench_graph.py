"""Benchmark: fast (rank-one) vs naive (re-solve) expected influence (Zhang & Duh 2020, Eq. 8).

Run: ``.venv/bin/python benchmarks/bench_graph.py [--naive-budget SECONDS]``

1. The graph of every table: k of footnote 12 (mean degree closest to n/7), mean degree,
   length scale (median heuristic), connected components.
2. Small tables (zh-en ru-en ja-en en-ja): for several random labelled sets and both EIF
   readings (``text``, ``gbopt``), asserts that fast and naive scores agree (allclose) and that
   the maximising rows are identical; prints both times.
3. sw-en (767 rows): median time of one fast EIF (and EI) suggestion in a running BO loop,
   the cold start (first inverse), and ONE naive suggestion. If the naive suggestion is
   predicted to exceed ``--naive-budget`` seconds, a random subset of candidates is timed and
   the total is extrapolated linearly in the number of candidates (printed as such).

Times are CPU seconds of this process (``time.process_time``) with BLAS limited to one thread
(``--threads``), so that both implementations are measured alike on a shared machine.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from nmthpo.benchmark.tables import NMTHPO_TASKS, load_table
from nmthpo.models import graph as g
from nmthpo.optimizers.graph import GraphSMBO, snap_ties

SMALL = ("zh-en", "ru-en", "ja-en", "en-ja")


def top_set(scores: np.ndarray) -> set[int]:
    s = snap_ties(scores, 1e-9)
    return set(np.flatnonzero(s == np.nanmax(s)).tolist())


def graph_summary() -> None:
    print("== graphs (k rule: mean degree of the symmetrised tie-inclusive kNN graph ~ n/7) ==")
    print(
        f"{'task':6} {'n':>4} {'n/7':>6} {'k':>4} {'mean deg':>9} {'lengthscale':>11} {'comp':>4}"
    )
    for task in NMTHPO_TASKS:
        X = load_table(task).encode("scaled")
        G = g.build_graph(X, kernel="matern52")
        print(
            f"{task:6} {G.n:4d} {G.n / 7:6.1f} {G.k:4d} {G.mean_degree:9.2f} "
            f"{G.lengthscale:11.4f} {G.n_components:4d}"
        )


def small_tables(rng: np.random.Generator) -> None:
    print("\n== small tables: fast vs naive EIF (same scores, same argmax) ==")
    print(
        f"{'task':6} {'mode':6} {'l':>3} {'naive s':>8} {'fast ms':>8} {'ratio':>7} "
        f"{'max|diff|':>10} argmax"
    )
    for task in SMALL:
        table = load_table(task)
        X, y = table.encode("scaled"), table.bleu
        W = g.build_graph(X, kernel="matern52").W
        for n_lab in (3, 10, 30):
            for rep in range(2):
                labelled = rng.choice(len(y), n_lab, replace=False)
                S = g.GraphSurrogate(W)
                for r in labelled:
                    S.add(int(r), float(y[r]))
                S.inverse()
                for mode in ("text", "gbopt"):
                    t0 = time.process_time()
                    naive = S.eif("naive", mode)
                    t1 = time.process_time()
                    reps = 20
                    for _ in range(reps):
                        fast = S.eif("fast", mode)
                    t2 = time.process_time()
                    tn, tf = t1 - t0, (t2 - t1) / reps
                    diff = float(np.nanmax(np.abs(fast - naive)))
                    assert np.allclose(fast, naive, rtol=1e-8, atol=1e-8, equal_nan=True), diff
                    tops = top_set(fast)
                    assert tops == top_set(naive), (task, mode, n_lab, rep)
                    if rep == 0:
                        print(
                            f"{task:6} {mode:6} {n_lab:3d} {tn:8.3f} {tf * 1e3:8.3f} "
                            f"{tn / tf:7.0f} {diff:10.1e} {sorted(tops)}"
                        )
    print("all small-table checks passed: identical choices")


def sw_en(rng: np.random.Generator, naive_budget: float) -> None:
    print("\n== sw-en (767 rows) ==")
    table = load_table("sw-en")
    X, y = table.encode("scaled"), table.bleu
    init = rng.choice(len(y), 3, replace=False)
    results: dict[str, float] = {}
    for acq in ("eif", "ei"):
        g.clear_graph_cache()  # time a build (trials of one process share the cached graph)
        t0 = time.process_time()
        opt = GraphSMBO(X, np.random.default_rng(0), acquisition=acq)
        t_build = time.process_time() - t0
        for r in init:
            opt.tell(int(r), float(y[r]))
        t0 = time.process_time()
        r = opt.ask()  # cold: includes the first O(u^3) inverse
        t_cold = time.process_time() - t0
        opt.tell(r, float(y[r]))
        asks, tells = [], []
        for _ in range(50):
            t0 = time.process_time()
            r = opt.ask()
            t1 = time.process_time()
            opt.tell(r, float(y[r]))
            asks.append(t1 - t0)
            tells.append(time.process_time() - t1)
        results[acq] = float(np.median(asks))
        print(
            f"{acq:4}: graph build {t_build * 1e3:.0f} ms; cold first ask {t_cold * 1e3:.1f} ms; "
            f"warm ask median {np.median(asks) * 1e3:.2f} ms (max {np.max(asks) * 1e3:.2f}); "
            f"tell (G downdate) median {np.median(tells) * 1e3:.2f} ms "
            f"[50 steps, l = 5..54]"
        )

    # one naive suggestion at l = 10 against the fast one in the same state
    W = g.build_graph(X, kernel="matern52").W
    S = g.GraphSurrogate(W)
    labelled = rng.choice(len(y), 10, replace=False)
    for r in labelled:
        S.add(int(r), float(y[r]))
    S.inverse()
    fast_times = []
    for _ in range(15):
        t0 = time.process_time()
        fast = S.eif("fast")
        fast_times.append(time.process_time() - t0)
    t_fast = float(np.median(fast_times))
    U = S.unlabelled
    L, vals = np.array(S.labelled), np.array(S.values)
    probe = rng.choice(U, 8, replace=False)
    t0 = time.process_time()
    g.eif_scores_naive(W, L, vals, S.eps, candidates=probe[:1])
    t_setup_plus_one = time.process_time() - t0
    t0 = time.process_time()
    part = g.eif_scores_naive(W, L, vals, S.eps, candidates=probe)
    t_probe = time.process_time() - t0
    per_cand = max((t_probe - t_setup_plus_one) / (probe.size - 1), 1e-9)
    predicted = t_setup_plus_one + per_cand * (U.size - 1)
    assert np.allclose(part[probe], fast[probe], rtol=1e-8, atol=1e-8)
    if predicted <= naive_budget:
        t0 = time.process_time()
        naive = g.eif_scores_naive(W, L, vals, S.eps)
        t_naive = time.process_time() - t0
        assert np.allclose(naive, fast, rtol=1e-8, atol=1e-8, equal_nan=True)
        assert top_set(naive) == top_set(fast)
        how = "measured (full naive suggestion, identical argmax)"
    else:
        m = min(U.size, 60)
        subset = rng.choice(U, m, replace=False)
        t0 = time.process_time()
        part = g.eif_scores_naive(W, L, vals, S.eps, candidates=subset)
        t_sub = time.process_time() - t0
        assert np.allclose(part[subset], fast[subset], rtol=1e-8, atol=1e-8)
        t_naive = t_sub * U.size / m
        how = (
            f"EXTRAPOLATED: {m} random candidates took {t_sub:.2f} s (incl. the per-"
            f"suggestion setup), x {U.size}/{m} candidates"
        )
    print(
        f"EIF at l = 10, u = {U.size}: fast {t_fast * 1e3:.2f} ms (median of 15); "
        f"naive {t_naive:.1f} s [{how}]"
    )
    print(f"speed-up naive / fast: {t_naive / t_fast:,.0f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--naive-budget",
        type=float,
        default=150.0,
        help="run the full naive sw-en suggestion only if predicted below this",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    with threadpool_limits(limits=args.threads):
        print(f"(CPU times, BLAS threads = {args.threads})")
        graph_summary()
        small_tables(rng)
        sw_en(rng, args.naive_budget)


if __name__ == "__main__":
    main()
