"""Time ``optuna:TPESampler`` through nmthpo's adapter against Optuna's own ``study.optimize``.

One *trial* = one table search: the three common initial rows, then the sampler's proposals
until the oracle best row is found (the runner's ``stop="target"``). Both sides use the same
sampler class, settings and seed, and the same table semantics:

* ``adapter``: :class:`nmthpo.optimizers.adapters.optuna.OptunaSampler` driven by the
  runner's ask/tell loop (initial rows told, then ``ask``/``tell``);
* ``optuna``: ``study.enqueue_trial`` for the initial rows, then ``study.optimize`` with an
  objective that suggests one integer per column (the adapter's ``ordered`` space), raises
  ``TrialPruned`` for a combination missing from the table, answers a repeated row from
  memory, and a callback that stops the study when the best row has been evaluated.

Columns: trials, mean Optuna trials per table trial, seconds per table trial for each side,
``ratio`` = adapter / optuna (the issue's bound: at most 1.5), and how many table trials gave
the same row sequence on both sides. Times are the minimum over ``--repeats`` runs.

Usage: ``python benchmarks/bench_optuna.py [--tasks ja-en,sw-en] [--trials 5] [--repeats 2]``
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from nmthpo.benchmark.tables import load_table
from nmthpo.engine.runner import initial_rows
from nmthpo.optimizers.adapters.optuna import OptunaSampler


def adapter_trial(task: str, t: int, settings: dict[str, Any]) -> tuple[list[int], int]:
    tab = load_table(task)
    opt = OptunaSampler(
        tab.encode(), np.random.default_rng([0, t, 1]), sampler="TPESampler", **settings
    )
    for r in initial_rows(tab.n_rows, 3, 0, t):
        opt.tell(int(r), tab.bleu[r])
    while tab.first_best_row not in opt.rows:
        r = opt.ask()
        opt.tell(r, tab.bleu[r])
    return opt.rows, opt.n_asks


def optuna_trial(task: str, t: int, settings: dict[str, Any]) -> tuple[list[int], int]:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    tab = load_table(task)
    X = tab.encode()
    levels = [np.unique(X[:, j]) for j in range(X.shape[1])]
    codes = np.column_stack([np.searchsorted(lv, X[:, j]) for j, lv in enumerate(levels)])
    row_of = {tuple(c): i for i, c in enumerate(codes.tolist())}
    seed = int(np.random.default_rng([0, t, 1]).integers(0, 2**31 - 1))  # the adapter's seed
    study = optuna.create_study(
        direction="maximize", sampler=optuna.samplers.TPESampler(seed=seed, **settings)
    )
    for r in initial_rows(tab.n_rows, 3, 0, t):
        study.enqueue_trial({f"x{j}": int(k) for j, k in enumerate(codes[r])})
    rows: list[int] = []
    seen: dict[int, float] = {}

    def objective(trial: optuna.Trial) -> float:
        c = tuple(trial.suggest_int(f"x{j}", 0, len(lv) - 1) for j, lv in enumerate(levels))
        r = row_of.get(c)
        if r is None:
            raise optuna.TrialPruned()
        if r not in seen:
            seen[r] = float(tab.bleu[r])
            rows.append(r)
        return seen[r]

    def stop(study: optuna.Study, trial: Any) -> None:
        if tab.first_best_row in seen:
            study.stop()

    study.optimize(objective, callbacks=[stop])
    return rows, len(study.trials)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", default="ja-en,sw-en")
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    settings = {"n_startup_trials": 3}
    print(
        f"{'task':<8}{'trials':>7}{'asks':>8}{'adapter s':>11}{'optuna s':>10}"
        f"{'ratio':>7}{'same rows':>11}"
    )
    for task in args.tasks.split(","):
        best: dict[str, float] = {"adapter": np.inf, "optuna": np.inf}
        out: dict[str, list[tuple[list[int], int]]] = {}
        for _ in range(args.repeats):
            for name, fn in (("optuna", optuna_trial), ("adapter", adapter_trial)):
                t0 = time.perf_counter()
                out[name] = [fn(task, t, settings) for t in range(args.trials)]
                best[name] = min(best[name], time.perf_counter() - t0)
        same = sum(a[0] == b[0] for a, b in zip(out["adapter"], out["optuna"], strict=True))
        asks = np.mean([a[1] for a in out["adapter"]])
        ratio = best["adapter"] / best["optuna"]
        print(
            f"{task:<8}{args.trials:>7}{asks:>8.1f}{best['adapter'] / args.trials:>11.3f}"
            f"{best['optuna'] / args.trials:>10.3f}{ratio:>7.2f}{same:>8}/{args.trials}"
        )


if __name__ == "__main__":
    main()
