"""The book's speed appendix: the stored benchmark targets and the recorded grid wall times.

Two stored files are read, never recomputed here:

* ``results/benchmarks/bench_speed.txt`` (written by ``make bench`` from
  ``benchmarks/bench_speed.py``): its summary block -- CSV lines between ``== targets`` and
  ``== end`` -- holds, for every speed target, what was measured and the ratio against its
  baseline in the same run (:func:`speed_targets`);
* ``results/timings.json``: the wall time of every computed run, per experiment folder
  (written by ``make results``), and under ``"grids"`` the wall time of whole grids computed
  in one worker pool (:func:`grid_totals`);
* ``results/benchmarks/portability.json`` and ``portability_tables.json`` (written by hand with
  ``tools/portability.py``, never in CI): a sample of every method family's trials under each
  OpenBLAS core type of one CPU (:func:`portability_sample`), and the book's GP runs of Tables 3
  and 4 recomputed on another CPU, trial by trial (:func:`portability_tables`).
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

__all__ = [
    "GRIDS_KEY",
    "MAKE_RESULTS_KEY",
    "MAKE_RESULTS_TARGET_MIN",
    "benchmark_output",
    "PORTABILITY_KEYS",
    "PORTABILITY_RESULTS_FILE",
    "PORTABILITY_SAMPLE_FILE",
    "PORTABILITY_TABLES_FILE",
    "grid_totals",
    "make_results_time",
    "portability_claims",
    "portability_results",
    "portability_sample",
    "portability_tables",
    "speed_targets",
    "targets_block",
]

#: The key of ``results/timings.json`` that holds whole-grid wall times
#: (``"<experiment> --jobs <n>"`` -> seconds).
GRIDS_KEY = "grids"

#: The key of ``results/timings.json`` that holds the last whole ``make results``
#: (``{"jobs", "total", "from_scratch", "experiments": {name: seconds}}``, written by
#: ``tools/make_results.py``).
MAKE_RESULTS_KEY = "make_results"

#: The target for a whole ``make results`` from scratch with ``--jobs 2`` on a 2-core machine,
#: in minutes (the stretch goal is 12).
MAKE_RESULTS_TARGET_MIN = 20.0

#: ``results/benchmarks/<this>``: the sample's trial hashes under each core type
#: (``tools/portability.py``): ``{"cores", "seconds", "trials", "budget", "hashes": {core:
#: {"<method> <task>": [hash of trial 0, ...]}}}``.
PORTABILITY_SAMPLE_FILE = "portability.json"

#: ``results/benchmarks/<this>``: the book's GP runs recomputed on another CPU
#: (``tools/portability.py --tables``): ``{"machine", "core", "trials", "rows": [{"table",
#: "method", "task", "metric", "trial", "same_rows", "book", "here"}, ...]}``.
PORTABILITY_TABLES_FILE = "portability_tables.json"

#: ``results/benchmarks/<this>``: every cached run of the book against the same run computed
#: from scratch on another machine (``tools/portability.py --results DIR``): ``{"machine",
#: "runs": [{"folder", "method", "file", "machine", "exact", "trials", "differ"}, ...] (``exact``:
#: the registry's ``exact_across_cpus`` of the method, null if unknown), "frames":
#: [{"file", "equal"}, ...], "missing": [...], "claims": [{"id", "chapter", "book", "other",
#: "book_verdict", "other_verdict"}, ...]}`` (the ledger's claims whose value or verdict differs).
PORTABILITY_RESULTS_FILE = "portability_results.json"


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


def targets_block(rows: Sequence[tuple[str, str, str, float, str]]) -> str:
    """The summary block a benchmark prints last, which :func:`speed_targets` reads back.

    Parameters
    ----------
    rows : sequence of (item, target, measured, ratio, met)
        One per target; ``met`` is ``"yes"`` or ``"no"``.

    Returns
    -------
    str
        A blank line, ``== targets``, the CSV header and rows, ``== end``.
    """
    lines = ["", "== targets", "item,target,measured,ratio,met"]
    lines += [
        f'"{item}","{target}","{what}",{ratio:.2f},{met}' for item, target, what, ratio, met in rows
    ]
    return "\n".join([*lines, "== end"])


def benchmark_output(name: str) -> str:
    """The stored output of benchmark ``name`` (``results/benchmarks/<name>.txt``), or a line
    saying it was not run."""
    from nmthpo.studies.grids import book_file

    path = book_file("benchmarks", f"{name}.txt")
    if not path.exists():
        return f"{name}: not run (make bench writes results/benchmarks/{name}.txt)"
    return path.read_text(encoding="utf-8").rstrip("\n")


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


def _cpu(machine: str, here: str) -> str:
    """A run's machine fingerprint as the speed appendix names it."""
    if machine == here:
        return "this CPU"
    if machine == "unknown":
        return "not recorded"
    return next((p for p in machine.split("/") if p.startswith("openblas-")), machine)


def _share(part: int, whole: int) -> str:
    """``part / whole`` in percent, one decimal (two below 0.1 %, so that 3 in 14,060 is not
    printed as 0)."""
    if not whole:
        return "–"
    pct = 100 * part / whole
    return f"{pct:.2f} %" if 0 < pct < 0.1 else f"{pct:.1f} %"


#: What :func:`portability_results` can group the runs by.
PORTABILITY_KEYS = ("folder", "method", "computed on", "exact")


def portability_results(
    path: Path | None = None, by: Sequence[str] = PORTABILITY_KEYS
) -> pd.DataFrame:
    """Every cached run of the book against the same run recomputed from scratch elsewhere.

    One row per group of runs (default: experiment folder, method, CPU the book's copy was
    computed on, and whether the registry declares the method exact across CPUs,
    ``MethodSpec.exact_across_cpus``): runs, trials, trials whose row sequence differs, and
    their share. ``computed on`` is the book's run's OpenBLAS kernel family from its sidecar
    (``this CPU`` when it is the machine that recomputed it, ``not recorded`` for runs cached
    before fingerprints were kept).

    Parameters
    ----------
    path : Path, optional
        The stored comparison; default ``results/benchmarks/`` :data:`PORTABILITY_RESULTS_FILE`.
    by : sequence of str
        The grouping, a subset of :data:`PORTABILITY_KEYS` (e.g. ``("method", "exact")``).

    Returns
    -------
    DataFrame
        Columns ``*by, runs, trials, other rows, share`` (``exact``: ``yes``, ``no`` or ``?``
        where the method cannot be resolved); ``attrs``
        hold ``machine``, ``trials``, ``other`` (totals), ``frames`` and ``frames_equal``
        (the other cached frames and how many are equal), ``missing``. Empty (with these
        columns) when nothing is stored.
    """
    from nmthpo.studies.grids import book_file

    keys = list(by)
    bad = [k for k in keys if k not in PORTABILITY_KEYS]
    if bad or not keys:
        raise ValueError(f"by={keys!r}: group by some of {', '.join(PORTABILITY_KEYS)}")
    cols = [*keys, "runs", "trials", "other rows", "share"]
    path = book_file("benchmarks", PORTABILITY_RESULTS_FILE) if path is None else Path(path)
    if not path.exists():
        return pd.DataFrame(columns=cols)
    data = json.loads(path.read_text(encoding="utf-8"))
    runs = pd.DataFrame(data["runs"])
    runs["computed on"] = [_cpu(m, data["machine"]) for m in runs["machine"]]
    declared = runs["exact"] if "exact" in runs.columns else pd.Series([None] * len(runs))
    runs["exact"] = [{True: "yes", False: "no"}.get(e, "?") for e in declared]
    out = (
        runs.groupby(keys, sort=True)
        .agg(runs=("file", "size"), trials=("trials", "sum"), other=("differ", "sum"))
        .reset_index()
        .rename(columns={"other": "other rows"})
    )
    out["share"] = [_share(o, t) for o, t in zip(out["other rows"], out["trials"], strict=True)]
    out = out[cols]
    out.attrs.update(
        machine=data["machine"],
        trials=int(runs["trials"].sum()),
        other=int(runs["differ"].sum()),
        frames=len(data["frames"]),
        frames_equal=sum(bool(f["equal"]) for f in data["frames"]),
        missing=len(data["missing"]),
    )
    return out


def portability_claims(path: Path | None = None) -> pd.DataFrame:
    """The ledger's claims whose verdict differs when every run is recomputed on another CPU.

    Read from the comparison :func:`portability_results` reads (``tools/portability.py
    --results``): one row per claim whose verdict changed, with the book's value and verdict
    and the other CPU's. ``attrs["values"]``: how many claims changed value at all.

    Returns
    -------
    DataFrame
        Index ``claim``; columns ``chapter, book, book [95% CI], verdict, other CPU, other CPU
        [95% CI], its verdict`` (the ledger's interval of the part that decides each verdict).
        Empty (with these columns) when nothing is stored.
    """
    from nmthpo.engine.numbers import fmt
    from nmthpo.studies.grids import book_file

    def interval(ci: Sequence[float | None] | None) -> str:
        if not ci or ci[0] is None or ci[1] is None:
            return "-"
        return f"[{fmt(ci[0])}, {fmt(ci[1])}]"

    cols = [
        "chapter", "book", "book [95% CI]", "verdict", "other CPU", "other CPU [95% CI]",
        "its verdict",
    ]  # fmt: skip
    path = book_file("benchmarks", PORTABILITY_RESULTS_FILE) if path is None else Path(path)
    claims = json.loads(path.read_text(encoding="utf-8")).get("claims", []) if path.exists() else []
    rows = [
        {
            "claim": c["id"], "chapter": c["chapter"], "book": c["book"],
            "book [95% CI]": interval(c.get("book_ci")), "verdict": c["book_verdict"],
            "other CPU": c["other"], "other CPU [95% CI]": interval(c.get("other_ci")),
            "its verdict": c["other_verdict"],
        }
        for c in claims
        if c["book_verdict"] != c["other_verdict"]
    ]  # fmt: skip
    out = pd.DataFrame(rows, columns=["claim", *cols]).set_index("claim")
    out.attrs["values"] = len(claims)
    return out


def portability_sample(path: Path | None = None) -> pd.DataFrame:
    """Per method of the stored sample: trials, how many diverge, the rate, and where.

    A trial *diverges* when its row sequence under some core type differs from the one under
    the default core type (OpenBLAS's own choice).

    Parameters
    ----------
    path : Path, optional
        Default ``results/benchmarks/`` :data:`PORTABILITY_SAMPLE_FILE`.

    Returns
    -------
    DataFrame
        Index ``method`` (sorted by name); columns ``trials``, ``diverge``, ``rate``
        (a fraction) and ``where`` (``task#trial (core types)``, or ``-``). Empty (with these
        columns) when nothing is stored; ``attrs`` hold ``cores``, ``trials``, ``budget`` and
        ``seconds`` (each method's seconds under the default core type, summed over the tasks;
        empty for a sample stored before they were recorded).
    """
    from nmthpo.studies.grids import book_file

    cols = ["trials", "diverge", "rate", "where"]
    path = book_file("benchmarks", PORTABILITY_SAMPLE_FILE) if path is None else Path(path)
    if not path.exists():
        return pd.DataFrame(columns=cols).rename_axis("method")
    data = json.loads(path.read_text(encoding="utf-8"))
    hashes: dict[str, dict[str, list[str]]] = data["hashes"]
    trials: dict[str, int] = {}
    where: dict[str, list[str]] = {}
    for key, ref in hashes["default"].items():
        method, task = key.rsplit(" ", 1)
        trials[method] = trials.get(method, 0) + len(ref)
        spots = where.setdefault(method, [])
        for i, h in enumerate(ref):
            others = [c for c in data["cores"] if hashes[c][key][i] != h]
            if others:
                spots.append(f"{task}#{i} ({'/'.join(others)})")
    rows = [
        {
            "method": m,
            "trials": n,
            "diverge": len(where[m]),
            "rate": len(where[m]) / n,
            "where": ", ".join(where[m]) or "-",
        }
        for m, n in trials.items()
    ]
    frame = pd.DataFrame(rows, columns=["method", *cols]).set_index("method")
    frame.attrs.update(
        cores=list(data["cores"]),
        trials=data["trials"],
        budget=data["budget"],
        seconds=dict(data.get("method_seconds", {}).get("default", {})),
    )
    return frame


def portability_tables(path: Path | None = None) -> pd.DataFrame:
    """The book's GP runs of Tables 3 and 4 against the same runs on another CPU.

    One row per (table, method, task): how many of the paired trials chose other rows, the
    book's mean of the table's metric (ftb for Table 3, fta for Table 4) with its 95 %
    bootstrap interval, the other CPU's mean, their paired difference (other CPU minus book)
    with its interval, and a verdict: ``identical rows``; ``no difference`` when the paired
    interval covers 0 (the table's cell does not move beyond what its trials can tell);
    ``moves`` otherwise. ``vs the book's CI``: whether the other CPU's mean lies ``inside`` or
    ``outside`` the book's 95 % interval (the unpaired question a reader comparing the two
    tables asks).

    Parameters
    ----------
    path : Path, optional
        The stored comparison; default ``results/benchmarks/`` :data:`PORTABILITY_TABLES_FILE`.

    Returns
    -------
    DataFrame
        Columns ``table, method, task, metric, trials, other rows, book [95% CI], other CPU,
        vs the book's CI, difference [95% CI], verdict`` (numbers formatted as the book prints);
        ``attrs`` hold ``machine``, ``core``, ``trials``, ``settings`` (the recomputed runs'
        method settings, ``tools/portability.py --tables --set``) and ``higher`` (the cells
        that move up: with a lower-is-better metric, worse). Empty (with these columns) when
        nothing is stored.
    """
    from nmthpo.engine.numbers import fmt, fmt_interval
    from nmthpo.engine.stats import bootstrap_mean, paired_difference
    from nmthpo.studies.grids import book_file

    cols = [
        "table", "method", "task", "metric", "trials", "other rows",
        "book [95% CI]", "other CPU", "vs the book's CI", "difference [95% CI]", "verdict",
    ]  # fmt: skip
    path = book_file("benchmarks", PORTABILITY_TABLES_FILE) if path is None else Path(path)
    if not path.exists():
        return pd.DataFrame(columns=cols)
    data = json.loads(path.read_text(encoding="utf-8"))
    trials = pd.DataFrame(data["rows"])
    out = []
    keys = ["table", "method", "task", "metric"]
    higher = 0  # cells that move up (the recomputed runs' metric higher)
    for (table, method, task, metric), g in trials.groupby(keys, sort=False):
        g = g.sort_values("trial")
        book, here = g["book"].to_numpy(float), g["here"].to_numpy(float)
        other = int((~g["same_rows"].astype(bool)).sum())
        mean, low, high = bootstrap_mean(book)
        diff, dlow, dhigh = paired_difference(here, book)
        if other == 0:
            verdict = "identical rows"
        elif dlow <= 0.0 <= dhigh:
            verdict = "no difference"
        else:
            verdict = "moves"
            higher += int(dlow > 0.0)
        out.append(
            {
                "table": table,
                "method": method,
                "task": task,
                "metric": metric,
                "trials": len(g),
                "other rows": other,
                "book [95% CI]": fmt_interval(mean, low, high, "evaluations"),
                "other CPU": fmt(float(here.mean()), "evaluations"),
                "vs the book's CI": "inside" if low <= here.mean() <= high else "outside",
                "difference [95% CI]": fmt_interval(diff, dlow, dhigh, "evaluations"),
                "verdict": verdict,
            }
        )
    frame = pd.DataFrame(out, columns=cols)
    frame.attrs.update(
        machine=data.get("machine", "unknown"),
        core=data.get("core", "default"),
        trials=dict(data.get("trials", {})),
        settings=dict(data.get("settings", {})),
        higher=higher,
    )
    return frame
