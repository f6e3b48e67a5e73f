"""Cost per suggestion of nmthpo's model-based methods against Optuna's samplers, in one run.

For each method and each number of observations ``n`` (up to 700 of the 767 rows of sw-en,
the largest table) the trial's optimiser is built exactly as the runner builds it
(:func:`nmthpo.engine.runner.trial_optimizer`, one BLAS thread as in a run), told the same
``n`` rows (one fixed random permutation of the table, shared by every method), and then
timed over the next ``--repeats`` suggestions: one suggestion = its ``ask`` and the ``tell``
of the row it chose (what :attr:`nmthpo.engine.runner.RunSpec.record_time` times in a run).

Printed per method and ``n``: the median milliseconds per suggestion, the ratio to Optuna's
``TPESampler`` at the same ``n`` (measured in the same run, interleaved: methods are timed in
turn at each ``n``), and per method the exponent of a power law ``ms ~ n**b`` fitted by least
squares on the log-log medians for ``n >= 50``. ``--json`` writes the medians (the speed
appendix plots them).

``bo-m`` (multiobjective EHVI, the "mobo" of the issue) is told BLEU and decoding time; the
others BLEU.

A median over a few suggestions is the cost of a typical step: a method that re-fits its
hyperparameters only at checkpoints (``bo-m``'s geometric refit schedule, and ``bo-ei-m``'s
default fast schedule since issue 25) pays for a refit at few steps, which the median leaves
out; ``bo-ei-m`` in the papers' protocol (``schedule="exact"``) re-fits at every step.

Usage: ``python benchmarks/bench_cost.py [--sizes 10,25,50,100,200,400,700] [--repeats 5]
[--json FILE] [--plot results/benchmarks/bench_cost.png]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TASK = "sw-en"
METHODS: dict[str, str] = {
    "bo-ei-m": "bleu",
    "gb-eif-m": "bleu",
    "bo-m": "pareto",
    "optuna:TPESampler": "bleu",
    "optuna:GPSampler": "bleu",
}
BASELINE = "optuna:TPESampler"


def suggestion_ms(method: str, objective: str, n: int, repeats: int, order: np.ndarray) -> float:
    """Median ms of ``repeats`` suggestions after ``n`` observations (module docstring)."""
    from threadpoolctl import threadpool_limits

    from nmthpo.benchmark.tables import load_table
    from nmthpo.engine.runner import RunSpec, trial_optimizer

    table = load_table(TASK)
    y = table.objectives(objective)
    spec = RunSpec(method, TASK, objective=objective, budget=n + repeats, stop="none")
    with threadpool_limits(limits=1, user_api="blas"):
        opt, _ = trial_optimizer(spec, 0)
        for r in order[:n]:
            opt.tell(int(r), y[r])
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            row = int(opt.ask())
            opt.tell(row, y[row])
            times.append(1000 * (time.perf_counter() - t0))
    return statistics.median(times)


def exponent(sizes: list[int], ms: list[float], low: int = 50) -> float:
    """Least-squares slope of log(ms) on log(n) over ``n >= low``."""
    pts = [(np.log(n), np.log(m)) for n, m in zip(sizes, ms, strict=True) if n >= low and m > 0]
    if len(pts) < 2:
        return float("nan")
    x, z = np.array(pts).T
    return float(np.polyfit(x, z, 1)[0])


def plot(sizes: list[int], ms: dict[str, list[float]], path: str) -> None:
    """Log-log lines of ms per suggestion against n, one per method, the exponent in the
    legend (nmthpo's solid, Optuna's dashed)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.add_subplot()
    for m, v in ms.items():
        style = "--" if m.startswith("optuna:") else "-"
        ax.plot(sizes, v, style, marker="o", label=f"{m} (exponent {exponent(sizes, v):.2f})")
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="observations n",
        ylabel="ms per suggestion (median)",
        title=f"Cost per suggestion on {TASK}",
    )
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=100)


#: nmthpo's methods whose cost per suggestion is held against :data:`BASELINE`'s.
TARGETS: tuple[str, ...] = ("bo-ei-m", "gb-eif-m", "bo-m")


def targets(sizes: list[int], ms: dict[str, list[float]]) -> str:
    """The summary block the speed appendix reads (``nmthpo.studies.speed.speed_targets``):
    per nmthpo method, its largest ratio to :data:`BASELINE` over the sizes, target <= 1."""
    from nmthpo.studies.speed import targets_block

    rows = []
    for m in TARGETS:
        if m not in ms or BASELINE not in ms:
            continue
        ratios = [a / b for a, b in zip(ms[m], ms[BASELINE], strict=True)]
        worst = int(np.argmax(ratios))
        over = [str(n) for n, r in zip(sizes, ratios, strict=True) if r > 1]
        measured = f"{ms[m][worst]:.1f} / {ms[BASELINE][worst]:.1f} ms at n = {sizes[worst]}"
        if over:
            measured += f"; > 1 at n = {', '.join(over)}"
        rows.append(
            (
                f"{m} / TPE, ms per suggestion (largest ratio over n)",
                "<= 1",
                measured,
                ratios[worst],
                "yes" if ratios[worst] <= 1 else "no",
            )
        )
    return targets_block(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,25,50,100,200,400,700")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--json", default=None, help="write the medians to this file")
    ap.add_argument(
        "--plot",
        default=str(ROOT / "results" / "benchmarks" / "bench_cost.png"),
        help="the log-log figure of ms per suggestion against n ('' for none)",
    )
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    methods = [m for m in args.methods.split(",") if m]
    from nmthpo.benchmark.tables import load_table

    order = np.random.default_rng(0).permutation(load_table(TASK).n_rows)
    for m in methods:  # warm-up: imports and first-call caches are not a suggestion's cost
        suggestion_ms(m, METHODS[m], min(sizes), 1, order)
    ms: dict[str, list[float]] = {m: [] for m in methods}
    for n in sizes:  # interleaved: every method at one n before the next n
        for m in methods:
            ms[m].append(suggestion_ms(m, METHODS[m], n, args.repeats, order))
    print(
        f"cost per suggestion on {TASK} ({load_table(TASK).n_rows} rows): median ms of "
        f"{args.repeats} suggestions after n observations, and the ratio to {BASELINE}"
    )
    head = f"{'method':>20} " + " ".join(f"{'n=' + str(n):>16}" for n in sizes) + "  exponent"
    print(head)
    for m in methods:
        cells = []
        for i, _ in enumerate(sizes):
            ratio = ms[m][i] / ms[BASELINE][i] if BASELINE in ms else float("nan")
            cells.append(f"{ms[m][i]:8.1f} ({ratio:4.2f}x)")
        print(
            f"{m:>20} " + " ".join(f"{c:>16}" for c in cells) + f"  {exponent(sizes, ms[m]):8.2f}"
        )
    print(targets(sizes, ms))
    if args.plot:
        plot(sizes, ms, args.plot)
    if args.json:
        Path(args.json).write_text(
            json.dumps({"task": TASK, "sizes": sizes, "repeats": args.repeats, "ms": ms}, indent=1)
            + "\n"
        )


if __name__ == "__main__":
    main()
