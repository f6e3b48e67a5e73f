"""Recompute the cached experiments the book reads (``make results``).

The experiments are the grids of :mod:`nmthpo.studies.grids` (the one place that names them);
their results land in the repository's ``results/<folder>``. This is the only program that
writes there: it sets ``NMTHPO_WRITE_RESULTS=1`` for itself. Runs already cached are read back,
interrupted ones resume. ``--only`` picks experiments, ``--trials`` shrinks them (a smoke test
of the pipeline).

    python tools/make_results.py                      # everything (long: see the README)
    python tools/make_results.py --only single --jobs 2
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"


def _update_timings(update: Callable[[dict], None]) -> None:
    """Apply ``update`` to the dict of ``results/timings.json`` and write it back atomically
    (:func:`nmthpo.engine.cache.write_text`)."""
    from nmthpo.engine.cache import write_text

    path = RESULTS / "timings.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    update(data)
    write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


def _record_time(name: str, key: str, seconds: float) -> None:
    """Keep the wall time of each computed run in results/timings.json (for the appendix)."""
    _update_timings(lambda d: d.setdefault(name, {}).__setitem__(key, round(seconds, 2)))


def run_grid(name: str, trials: int, jobs: int) -> None:
    """Every run of :data:`nmthpo.studies.grids.RUN_GRIDS` ``[name]`` (at most ``trials``)."""
    from nmthpo.engine.runner import RunSpec
    from nmthpo.studies.grids import RUN_GRIDS, book_dir, run_one

    g = RUN_GRIDS[name]
    n = min(trials, g.trials)
    for settings in g.variants:
        for task in g.tasks:
            for method in g.methods:
                spec = RunSpec(method, task, seed=g.seed, settings=dict(settings), **g.options)
                cached = (book_dir(g.folder) / f"{spec.stem()}.parquet").exists()
                t0 = time.perf_counter()
                run_one(name, method, task, n, g.seed, settings=settings, jobs=jobs)
                dt = time.perf_counter() - t0
                if not cached:
                    _record_time(g.folder, f"{method} {task} {spec.key()}", dt)
                print(f"[{name}] {method:>9} {task}: {dt:7.1f} s", flush=True)


def ga(trials: int, jobs: int) -> None:
    """The GA in Table 3's protocol (grid ``ga_protocol``, cached beside ``single``) and the
    Chapter 5 tables (:data:`nmthpo.studies.grids.GA_TABLES`): counting rules (about a
    minute) and variants (minutes)."""
    from nmthpo.studies.ganapathy import tables as ga_study
    from nmthpo.studies.grids import GA_TABLES, book_dir

    run_grid("ga_protocol", trials, jobs)
    for kind, extra in GA_TABLES.kinds.items():
        t0 = time.perf_counter()
        ga_study.cached_table(
            kind, cache_dir=book_dir(GA_TABLES.folder), jobs=jobs, **{**GA_TABLES.params, **extra}
        )
        print(f"[ga] {kind} table: {time.perf_counter() - t0:7.1f} s", flush=True)


def scoring(trials: int, jobs: int) -> None:
    """Chapter 6: search-space scores on synthetic functions and two tables (about 10 min)."""
    from nmthpo.studies.ariafar.results import chapter6_results

    t0 = time.perf_counter()
    chapter6_results(jobs=jobs)
    print(f"[scoring] chapter 6 frames: {time.perf_counter() - t0:7.1f} s", flush=True)


def transfer(trials: int, jobs: int) -> None:
    """Chapter 4: static (5 and 2 sources), dynamic, NMTLC and ablation grids (~25 min)."""
    from nmthpo.studies.li_transbo.study import compute_chapter4

    t0 = time.perf_counter()
    compute_chapter4(jobs=jobs)
    print(f"[transfer] chapter 4 grids: {time.perf_counter() - t0:7.1f} s", flush=True)


def multifidelity(trials: int, jobs: int) -> None:
    """Chapter 7: multi-fidelity methods on the learning curves (a few minutes)."""
    from nmthpo.studies.multifidelity.study import compute_grid

    t0 = time.perf_counter()
    compute_grid(trials=trials, jobs=jobs)
    print(f"[multifidelity] chapter 7 grid: {time.perf_counter() - t0:7.1f} s", flush=True)


def peers(trials: int, jobs: int) -> None:
    """Chapter 9: today's HPO libraries beside the book's methods (grids ``peers``,
    ``peers_startup``, ``peers_costly``, and the multi-fidelity peers on the learning curves;
    about 80 min with ``--jobs 2``). Needs the ``peers``
    extra (``make peers``): without it the first library method is refused in one line."""
    from nmthpo.studies.grids import MULTIFIDELITY_PEERS
    from nmthpo.studies.multifidelity.study import peer_frame

    for name in ("peers", "peers_startup", "peers_costly"):
        run_grid(name, trials, jobs)
    t0 = time.perf_counter()
    peer_frame(jobs=jobs, trials=trials, methods=MULTIFIDELITY_PEERS["methods"])
    print(f"[peers] multi-fidelity peers: {time.perf_counter() - t0:7.1f} s", flush=True)


def claims(trials: int, jobs: int) -> None:
    """The ledger: every claim's record judged on the runs above -> ``results/claims.csv``.

    Written only for the published sizes (``--trials 100``): a smaller run cannot carry the
    book's verdicts.
    """
    from nmthpo.engine.cache import seal_sidecar
    from nmthpo.studies.grids import book_file
    from nmthpo.studies.ledger import LEDGER_FILE, counts, write_ledger

    if trials != 100:
        print(
            "[claims] skipped: the ledger is judged on the published runs (--trials 100)",
            flush=True,
        )
        return
    t0 = time.perf_counter()
    frame = write_ledger(book_file(LEDGER_FILE))
    # sealed like every data file of results/ (tests/engine/test_results_sealed.py)
    seal_sidecar(book_file(LEDGER_FILE), {"kind": "ledger", "file": LEDGER_FILE})
    c = ", ".join(f"{n} {v}" for v, n in counts(frame).items())
    print(f"[claims] {len(frame)} claims ({c}): {time.perf_counter() - t0:7.1f} s", flush=True)


def experiment(name: str, trials: int, jobs: int) -> None:
    """Compute experiment ``name`` of :data:`nmthpo.studies.grids.EXPERIMENTS`."""
    special = {
        "ga": ga,
        "scoring": scoring,
        "transfer": transfer,
        "multifidelity": multifidelity,
        "peers": peers,
        "claims": claims,
    }
    if name in special:
        special[name](trials, jobs)
    else:
        run_grid(name, trials, jobs)


def main() -> None:
    from nmthpo.engine.cache import WRITE_RESULTS_ENV
    from nmthpo.studies.grids import EXPERIMENTS, FOLDERS, OPTIONAL_EXPERIMENTS, book_dir

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--only",
        default=",".join(EXPERIMENTS),
        help=f"comma-separated subset of: {', '.join(EXPERIMENTS)}; also (only when named, "
        f"they need the peers extra): {', '.join(OPTIONAL_EXPERIMENTS)}",
    )
    p.add_argument("--trials", type=int, default=100)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument(
        "--scheduler",
        default=None,
        help="address of a running Dask scheduler (tcp://HOST:8786): the runner's trials go to "
        "that cluster instead of --jobs local processes (the rows are the same; Chapter 5's GA "
        "tables and Chapter 6's scores keep their local processes)",
    )
    args = p.parse_args()
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    valid = EXPERIMENTS + OPTIONAL_EXPERIMENTS
    unknown = [n for n in names if n not in valid]
    if unknown:
        p.error(f"unknown experiment(s) {unknown}; valid: {', '.join(valid)}")
    if args.scheduler:
        from nmthpo.engine.runner import SCHEDULER_ENV, check_scheduler_address
        from nmthpo.errors import InputError

        try:
            check_scheduler_address(args.scheduler)
        except InputError as exc:
            p.error(str(exc))
        os.environ[SCHEDULER_ENV] = args.scheduler  # the one runner reads it (run_specs)
    os.environ[WRITE_RESULTS_ENV] = "1"  # this program, and only it, writes results/
    fresh = not any(book_dir(FOLDERS[n]).exists() for n in names if FOLDERS[n])
    walls: dict[str, float] = {}
    start = time.perf_counter()
    for n in names:
        t0 = time.perf_counter()
        experiment(n, args.trials, args.jobs)
        walls[n] = time.perf_counter() - t0
        print(f"== {n}: {walls[n]:.1f} s wall", flush=True)
    total = time.perf_counter() - start
    print(
        f"== make results: {total:.1f} s wall ({total / 60:.1f} min), --jobs {args.jobs}",
        flush=True,
    )
    if tuple(names) == EXPERIMENTS and args.trials == 100:
        _record_whole(walls, total, args.jobs, fresh)
    _report_unsealed()


def _report_unsealed() -> None:
    """Name every data file of ``results/`` without a valid seal (``tools/seal_results.py
    --check``): the runs' writers seal what they write, so any file named here was written by
    another tool (``tools/extract_changes.py``, ``tools/openbox_crosscheck.py``); seal it with
    ``python tools/seal_results.py`` after checking it."""
    import subprocess
    import sys

    check = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "seal_results.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    print(check.stdout.rstrip(), flush=True)


def _record_whole(walls: dict[str, float], total: float, jobs: int, fresh: bool) -> None:
    """Keep the wall time of a whole ``make results`` (every experiment, published sizes) in
    ``results/timings.json`` under :data:`nmthpo.studies.speed.MAKE_RESULTS_KEY` (read by the
    speed appendix). ``fresh``: no experiment folder existed at the start (a from-scratch time;
    cached experiments are read back in seconds)."""
    from nmthpo.studies.speed import MAKE_RESULTS_KEY

    record = {
        "jobs": jobs,
        "total": round(total, 1),
        "from_scratch": fresh,
        "experiments": {k: round(v, 1) for k, v in walls.items()},
    }
    _update_timings(lambda d: d.__setitem__(MAKE_RESULTS_KEY, record))


if __name__ == "__main__":
    main()
