"""Recompute the cached experiments the book reads (``make results``).

Every experiment is a grid of :func:`nmthpo.engine.runner.run` calls whose results land in a
subdirectory of ``results/``; runs already cached are read back, interrupted ones resume.
``--only`` picks experiments, ``--trials`` shrinks them (a smoke test of the pipeline).

    python tools/make_results.py                      # everything (long: see the README)
    python tools/make_results.py --only single --jobs 2
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"


def _record_time(name: str, key: str, seconds: float) -> None:
    """Keep the wall time of each computed run in results/timings.json (for the appendix)."""
    path = RESULTS / "timings.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data.setdefault(name, {})[key] = round(seconds, 2)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def _grid(name: str, methods, tasks, trials: int, jobs: int, **kw) -> None:
    from nmthpo.engine.runner import RunSpec, run

    cache = RESULTS / name
    for task in tasks:
        for method in methods:
            spec = RunSpec(method, task, seed=kw.get("seed", 0), **{
                k: v for k, v in kw.items() if k in ("objective", "n_init", "budget", "stop",
                                                     "record_mse", "settings")})
            cached = (cache / f"{spec.stem()}.parquet").exists()
            t0 = time.perf_counter()
            run(method, task, trials=trials, jobs=jobs, cache_dir=cache, progress=False, **kw)
            dt = time.perf_counter() - t0
            if not cached:
                _record_time(name, f"{method} {task} {spec.key()}", dt)
            print(f"[{name}] {method:>9} {task}: {dt:7.1f} s", flush=True)


def single(trials: int, jobs: int) -> None:
    """Table 3: 7 methods x 6 tasks x 100 trials until the first argmax row (ftb target)."""
    from nmthpo.benchmark.tables import NMTHPO_TASKS
    from nmthpo.studies.single_objective import METHODS

    _grid("single", METHODS, NMTHPO_TASKS, trials, jobs, seed=0, record_mse=True)


def figure6(trials: int, jobs: int) -> None:
    """Figure 6: ja-en, every method, 100 evaluations per trial (no early stop), surrogate MSE."""
    from nmthpo.studies.single_objective import METHODS

    _grid("figure6", METHODS, ["ja-en"], trials, jobs, seed=0, budget=100, stop="none",
          record_mse=True)


def graph_k(trials: int, jobs: int) -> None:
    """How graph-based SMBO moves with k (footnote 12): small tables, 30 trials per k."""
    from nmthpo.studies.single_objective import GRAPH_K_VALUES

    for k in GRAPH_K_VALUES:
        _grid("graph_k", ["gb-ei-m", "gb-eif-m"], ["zh-en", "ru-en", "ja-en", "en-ja"],
              min(trials, 30), jobs, seed=0, settings={"k": k})


def ga(trials: int, jobs: int) -> None:
    """The GA as an ask/tell optimiser, in Table 3's protocol (same cache as ``single``), and
    the Chapter 5 tables: counting rules tried (about a minute) and variants (minutes)."""
    from nmthpo.benchmark.tables import NMTHPO_TASKS
    from nmthpo.studies import genetic as ga_study

    _grid("single", ["ga"], NMTHPO_TASKS, trials, jobs, seed=0, record_mse=True)
    for kind, kw in (("rules", {}), ("variants", {"with_se": True})):
        t0 = time.perf_counter()
        ga_study.cached_table(kind, **kw)
        print(f"[ga] {kind} table: {time.perf_counter() - t0:7.1f} s", flush=True)


def eif_text(trials: int, jobs: int) -> None:
    """The literal reading of expected influence's labels on the small tables (30 trials)."""
    _grid("eif_text", ["gb-eif-text-m"], ["zh-en", "ru-en", "ja-en", "en-ja"], min(trials, 30),
          jobs, seed=0)


def pareto(trials: int, jobs: int) -> None:
    """Table 4: 5 methods x 6 tasks x 100 trials until the whole Pareto set is found."""
    from nmthpo.benchmark.tables import NMTHPO_TASKS

    _grid("pareto", ["rs", "bo-m", "bo-r", "gb-m", "gb-r"], NMTHPO_TASKS, trials, jobs,
          seed=0, objective="pareto")


def scoring(trials: int, jobs: int) -> None:
    """Chapter 6: search-space scores on synthetic functions and two tables (about 10 min)."""
    from nmthpo.studies.scoring_results import chapter6_results

    t0 = time.perf_counter()
    chapter6_results()
    print(f"[scoring] chapter 6 frames: {time.perf_counter() - t0:7.1f} s", flush=True)


def transfer(trials: int, jobs: int) -> None:
    """Chapter 4: static (5 and 2 sources), dynamic, NMTLC and ablation grids (~25 min)."""
    from nmthpo.studies.transfer import compute_chapter4

    t0 = time.perf_counter()
    compute_chapter4(jobs=jobs)
    print(f"[transfer] chapter 4 grids: {time.perf_counter() - t0:7.1f} s", flush=True)


EXPERIMENTS: dict[str, Callable[[int, int], None]] = {
    "single": single, "ga": ga, "figure6": figure6, "graph_k": graph_k, "eif_text": eif_text,
    "pareto": pareto, "scoring": scoring,
    "transfer": transfer,
}


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
