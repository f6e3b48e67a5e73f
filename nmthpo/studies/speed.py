"""The book's speed appendix: the stored benchmark targets and the recorded grid wall times.

Two stored files are read, never recomputed here:

* ``results/benchmarks/bench_speed.txt`` (written by ``make bench`` from
  ``benchmarks/bench_speed.py``): its summary block -- CSV lines between ``== targets`` and
  ``== end`` -- holds, for every speed target, what was measured and the ratio against its
  baseline in the same run (:func:`speed_targets`);
* ``results/timings.json``: the wall time of every computed run, per experiment folder
  (written by ``make results``), and under ``"grids"`` the wall time of whole grids computed
  in one worker pool (:func:`grid_totals`).
"""

from __future__ import annotations

import io
import json

import pandas as pd

__all__ = [
    "GRIDS_KEY",
    "MAKE_RESULTS_KEY",
    "MAKE_RESULTS_TARGET_MIN",
    "grid_totals",
    "make_results_time",
    "speed_targets",
]

#: The key of ``results/timings.json`` that holds whole-grid wall times
#: (``"<experiment> --jobs <n>"`` -> seconds).
GRIDS_KEY = "grids"

#: The key of ``results/timings.json`` that holds the last whole ``make results``
#: (``{"jobs", "total", "from_scratch", "experiments": {name: seconds}}``, written by
#: ``tools/make_results.py``).
MAKE_RESULTS_KEY = "make_results"

#: The target for a whole ``make results`` on a 2-core machine, in minutes.
MAKE_RESULTS_TARGET_MIN = 45.0


def speed_targets(name: str = "bench_speed") -> pd.DataFrame:
    """The summary table of a stored benchmark output: target, measured, ratio, met.

    Parameters
    ----------
    name : str
        The benchmark (``results/benchmarks/<name>.txt``).

    Returns
    -------
    DataFrame
        Index ``item``; columns ``target``, ``measured``, ``ratio`` (baseline / nmthpo, or as
        the item says) and ``met``. Empty (with these columns) when the file or its summary
        block is missing.
    """
    from nmthpo.studies.grids import book_file

    cols = ["target", "measured", "ratio", "met"]
    path = book_file("benchmarks", f"{name}.txt")
    lines = path.read_text().splitlines() if path.exists() else []
    if "== targets" not in lines or "== end" not in lines:
        return pd.DataFrame(columns=cols).rename_axis("item")
    block = lines[lines.index("== targets") + 1 : lines.index("== end")]
    frame = pd.read_csv(io.StringIO("\n".join(block)), keep_default_na=False)
    return frame.set_index("item")[cols]


def grid_totals() -> pd.DataFrame:
    """Wall times from ``results/timings.json``: every experiment folder's summed runs and
    the whole grids computed in one pool (``GRIDS_KEY``), in minutes.

    Returns
    -------
    DataFrame
        Index ``experiment``; columns ``runs`` (computed runs recorded), ``minutes`` and
        ``how`` (``"sum of its runs"`` or ``"one pool"`` with the worker count).
    """
    from nmthpo.studies.grids import book_file

    path = book_file("timings.json")
    data = json.loads(path.read_text()) if path.exists() else {}
    rows = []
    for folder, runs in sorted(data.items()):
        if folder in (GRIDS_KEY, MAKE_RESULTS_KEY):
            continue
        rows.append(
            {
                "experiment": folder,
                "runs": len(runs),
                "minutes": round(sum(runs.values()) / 60, 1),
                "how": "sum of its runs (make results)",
            }
        )
    for label, seconds in sorted(data.get(GRIDS_KEY, {}).items()):
        name, _, how = label.partition(" ")
        rows.append(
            {
                "experiment": name,
                "runs": pd.NA,
                "minutes": round(seconds / 60, 1),
                "how": f"whole grid, one pool ({how})",
            }
        )
    if not rows:
        return pd.DataFrame(columns=["runs", "minutes", "how"]).rename_axis("experiment")
    return pd.DataFrame(rows).set_index("experiment")


def make_results_time() -> pd.DataFrame:
    """The last whole ``make results`` recorded in ``results/timings.json``, in minutes.

    Returns
    -------
    DataFrame
        Index ``experiment`` (each experiment of :data:`nmthpo.studies.grids.EXPERIMENTS` in
        the order computed, then ``"total"``); columns ``minutes`` and ``share`` (of the
        total, %). Its ``attrs`` hold ``jobs``, ``from_scratch`` and ``target_minutes``. Empty
        when no whole run was recorded.
    """
    from nmthpo.studies.grids import EXPERIMENTS, book_file

    path = book_file("timings.json")
    data = json.loads(path.read_text()) if path.exists() else {}
    record = data.get(MAKE_RESULTS_KEY)
    if not record:
        return pd.DataFrame(columns=["minutes", "share"]).rename_axis("experiment")
    total = float(record["total"])
    order = {name: i for i, name in enumerate(EXPERIMENTS)}
    walls = sorted(record["experiments"].items(), key=lambda kv: order.get(kv[0], len(order)))
    rows = [
        {"experiment": k, "minutes": round(v / 60, 1), "share": round(100 * v / total, 1)}
        for k, v in walls
    ]
    rows.append({"experiment": "total", "minutes": round(total / 60, 1), "share": 100.0})
    frame = pd.DataFrame(rows).set_index("experiment")
    frame.attrs.update(
        jobs=int(record["jobs"]),
        from_scratch=bool(record["from_scratch"]),
        target_minutes=MAKE_RESULTS_TARGET_MIN,
    )
    return frame
