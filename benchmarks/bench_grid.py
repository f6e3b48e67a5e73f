"""Wall time of a whole experiment grid computed from scratch, in one pool of workers.

Run: ``python benchmarks/bench_grid.py single --jobs 2 [--trials 100] [--record]``

Every run of ``nmthpo.studies.grids.RUN_GRIDS[<grid>]`` is computed into a temporary cache
(nothing is read from or written to the book's ``results/<folder>``) by one
:func:`nmthpo.engine.runner.run_specs` call, so that ``--jobs`` workers stay busy over the
whole grid and are reused across its trials. ``--record`` stores the wall time in
``results/timings.json`` under ``"grids"`` as ``"<grid> --jobs <n>"`` (read by the book's
speed appendix, :func:`nmthpo.studies.speed.grid_totals`). Long: Table 3's grid (``single``)
is 4200 trials. Not part of ``make bench``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    from nmthpo.engine.cache import write_text
    from nmthpo.engine.runner import RunSpec, run_specs
    from nmthpo.studies.grids import RUN_GRIDS
    from nmthpo.studies.speed import GRIDS_KEY

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("grid", choices=sorted(RUN_GRIDS))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--trials", type=int, default=None, help="default: the grid's")
    ap.add_argument("--record", action="store_true", help="write results/timings.json")
    args = ap.parse_args()
    g = RUN_GRIDS[args.grid]
    trials = g.trials if args.trials is None else args.trials
    specs = [
        RunSpec(m, t, seed=g.seed, settings=dict(v), **g.options)
        for v in g.variants
        for t in g.tasks
        for m in g.methods
    ]
    tmp = Path(tempfile.mkdtemp(prefix="nmthpo-grid-"))
    try:
        t0 = time.perf_counter()
        run_specs(specs, trials, args.jobs, cache_dir=tmp)
        wall = time.perf_counter() - t0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(
        f"{args.grid}: {len(specs)} runs x {trials} trials, --jobs {args.jobs}: "
        f"{wall:.1f} s wall ({wall / 60:.1f} min)"
    )
    if args.record and trials == g.trials:
        path = ROOT / "results" / "timings.json"
        data = json.loads(path.read_text()) if path.exists() else {}
        data.setdefault(GRIDS_KEY, {})[f"{args.grid} --jobs {args.jobs}"] = round(wall, 1)
        write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
        print(f"recorded in {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
