"""Do the book's methods choose the same rows under every BLAS kernel this CPU can run?

    python tools/portability.py                   # the sample below, every supported core type
    python tools/portability.py --trials 2 --methods bo-ei-m,gb-ei-m --tasks ja-en
    python tools/portability.py --methods "bo-ei-m[search=lattice;tie_rtol=1e-9]" \
        --name portability_lattice              # a method with settings; its own report
    python tools/portability.py --tables          # the book's GP runs of Tables 3 and 4, here

Run by hand (``make portability``), never inside ``make test`` or CI: on some machines
``OPENBLAS_*`` variables are set to keep OpenBLAS working, and tests must not change them.

OpenBLAS picks its kernels by the CPU's SIMD level (``DYNAMIC_ARCH``); ``OPENBLAS_CORETYPE``
forces a level. The core types checked are read from the CPU's flags in ``/proc/cpuinfo``:
``Prescott`` (SSE3, every x86-64 CPU) always, ``Haswell`` with AVX2, ``SkylakeX`` with
AVX-512F, plus the default choice (the variable unset). NumPy picks its own loops by the same
SIMD level, so the check also holds NumPy's loops below the CPU's (``NPY_DISABLE_CPU_FEATURES``;
:data:`NUMPY_LEVELS`: ``numpy-X86_V3`` without AVX-512, ``numpy-X86_V2`` without AVX), where the CPU
has more: on an AVX-512 machine this is what told the graph methods' ties apart (issue 25). For
each core type a fresh process
runs every (method, task) of the sample (``nmthpo.run`` without a cache, ``stop="none"``; a
transfer method in Chapter 4's static setting, a multi-fidelity method on Chapter 7's fine-tuned
learning curves with a budget of ten full runs, hashing its (row, checkpoint) sequence) and
prints the SHA-256 of each trial's row sequence; a trial *diverges* when its hash under some
core type differs from the default's. The report (a table, and the hashes as JSON) goes to
``results/benchmarks/portability.txt`` and ``portability.json``: per method, the trials that
diverge and the divergence rate (issue 25's goal: none, or under 1 %).

``--results DIR`` compares every cached run of the book with the same run in ``DIR``, a
``results/`` tree computed from scratch by ``make results`` on this machine (in a clone whose
experiment folders were removed first): per (folder, method), the trials whose row sequence
differs, and for the other cached frames (Chapter 5's GA tables, Chapter 6's scores) whether
they are equal (floats to 1e-7). Each run is labelled with the machine the book's copy was
computed on (its sidecar; ``unknown`` before fingerprints were recorded). The report goes to
``results/benchmarks/portability_results.json`` and ``.txt``, which the speed appendix reads
(:func:`nmthpo.studies.speed.portability_results`).

``--tables`` asks the question a reader on another laptop has: recomputed on this CPU (under
``--core``, default OpenBLAS's own choice), do the book's GP runs of Table 3 (``bo-ei-m``,
``bo-ei-r``: grid ``single``) and Table 4 (``bo-m``, ``bo-r``: grid ``pareto``) choose the same
rows, and where they do not, does the table's cell move beyond its interval? Every trial is
paired with the book's trial of the same seed (the same initial rows); the per-trial metric
(ftb, fta) of both goes to ``results/benchmarks/portability_tables.json``, which the speed
appendix reads (:func:`nmthpo.studies.speed.portability_tables`). The recomputed runs are
cached in the user cache (``portability/<core>``), so an interrupted check resumes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "benchmarks"

#: One or more methods of every family the book runs (lookup tables, one objective or two,
#: transfer).
METHODS: tuple[str, ...] = (
    "rs",
    "bo-ei-m",
    "bo-ei-r",
    "bo-ei-map",
    "gb-ei-m",
    "gb-eif-m",
    "ga",
    "bo-m",
    "bo-r",
    "gb-m",
    "optuna:TPESampler",
    "optuna:GPSampler",
    # transfer (Chapter 4's static setting: every other table a source)
    "igp",
    "transbo",
    "rgpe",
    "tst",
    "pogpe",
    "sgpr",
    "scot",
    # multi-fidelity (Chapter 7's fine-tuned learning curves)
    "hb",
    "asha",
    "bohb",
)
TASKS: tuple[str, ...] = ("ja-en", "ru-en", "en-ja", "sw-en")

_CHILD = """
import hashlib, json, sys, time
import nmthpo
from nmthpo.commands.validate import parse_settings
from nmthpo.optimizers.registry import resolve
from nmthpo.engine.runner import default_sources
from nmthpo.benchmark.learning_curves import LC_FINETUNE_TASKS as LC_TASKS, load_curves
methods, tasks, trials, budget = json.loads(sys.argv[1])
out, seconds = {}, {}
def digest(items):  # a trial's sequence (rows, or row:checkpoint pairs), 12 hex digits
    return hashlib.sha256(",".join(map(str, items)).encode()).hexdigest()[:12]
for m in methods:
    t0 = time.perf_counter()
    name, _, rest = m.partition("[")  # bo-ei-m[search=lattice;tie_rtol=1e-9]: settings
    settings = parse_settings([p for p in rest.rstrip("]").split(";") if p])
    spec = resolve(name)
    if spec.fidelity:  # multi-fidelity: Chapter 7's fine-tuned curves, 10 full runs of budget
        for t in LC_TASKS:
            f = nmthpo.run(name, t, trials=trials, seed=0, progress=False, settings=settings,
                           budget=10 * load_curves(t).max_len).frame
            out[f"{m} {t}"] = [digest(f"{int(r)}:{int(c)}" for r, c in zip(g.row, g.checkpoint))
                               for _, g in f.groupby("trial", sort=True)]
        seconds[m] = round(time.perf_counter() - t0, 2)
        continue
    objective = spec.objectives[0]  # bo-m, gb-m: pareto; the others: bleu
    for t in tasks:
        # transfer methods: Chapter 4's static setting (every other table a source)
        sources = default_sources(t) if spec.needs_sources else None
        r = nmthpo.run(name, t, trials=trials, seed=0, budget=budget, stop="none",
                       objective=objective, progress=False, settings=settings, sources=sources)
        out[f"{m} {t}"] = [digest(map(int, s)) for s in r.sequences]
    seconds[m] = round(time.perf_counter() - t0, 2)
print(json.dumps({"hashes": out, "seconds": seconds}))
"""


#: The book's GP runs the ``--tables`` check recomputes: grid -> (methods, metric).
TABLE_RUNS: dict[str, tuple[tuple[str, ...], str]] = {
    "single": (("bo-ei-m", "bo-ei-r"), "ftb"),
    "pareto": (("bo-m", "bo-r"), "fta"),
}
#: The table each grid of :data:`TABLE_RUNS` feeds.
TABLE_NAMES = {"single": "Table 3", "pareto": "Table 4"}

_TABLES_CHILD = """
import json, sys
import nmthpo
from nmthpo.studies.grids import RUN_GRIDS
jobs, cache, trials, runs, settings = json.loads(sys.argv[1])
for grid, method, task in runs:
    g = RUN_GRIDS[grid]
    nmthpo.run(method, task, trials=trials, seed=g.seed, jobs=jobs, progress=False,
               cache_dir=f"{cache}/{g.folder}", settings=settings, **g.options)
"""


def _store(name: str, payload: dict[str, Any], indent: int = 0) -> Path:
    """Write ``payload`` as ``results/benchmarks/<name>`` atomically; return the path."""
    from nmthpo.engine.cache import write_text

    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / name
    write_text(path, json.dumps(payload, indent=indent, sort_keys=indent > 0) + "\n")
    return path


def core_types(cpuinfo: str | None = None) -> list[str]:
    """The ``OPENBLAS_CORETYPE`` values this CPU supports (from its flags)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8")
        except OSError:
            cpuinfo = ""
    flags: set[str] = set()
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            flags |= set(line.split(":", 1)[1].split())
    types = ["Prescott"]
    if "avx2" in flags:
        types.append("Haswell")
    if "avx512f" in flags:
        types.append("SkylakeX")
    return types


#: NumPy's SIMD levels checked besides OpenBLAS's core types: name -> the dispatched CPU
#: targets NumPy's loops may not use (``NPY_DISABLE_CPU_FEATURES``; NumPy 2.4 dispatches by
#: x86-64 levels). ``numpy-X86_V3`` is a machine without AVX-512 (AVX2: where the book's runs
#: were computed until December 2026), ``numpy-X86_V2`` one without AVX; each is checked where
#: the CPU runs a target it removes.
NUMPY_LEVELS: dict[str, tuple[str, ...]] = {
    "numpy-X86_V3": ("X86_V4", "AVX512_ICL", "AVX512_SPR"),
    "numpy-X86_V2": ("X86_V3", "X86_V4", "AVX512_ICL", "AVX512_SPR"),
}


def numpy_levels() -> dict[str, str]:
    """The :data:`NUMPY_LEVELS` this CPU runs above: name -> the value of
    ``NPY_DISABLE_CPU_FEATURES`` (only features this NumPy dispatches and the CPU has; NumPy
    refuses others)."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    have = {f for f, on in __cpu_features__.items() if on} & set(__cpu_dispatch__)
    out = {}
    for name, feats in NUMPY_LEVELS.items():
        off = [f for f in feats if f in have]
        if off:
            out[name] = " ".join(off)
    return out


def run_under(
    core: str | None, methods: list[str], tasks: list[str], trials: int, budget: int
) -> tuple[dict[str, list[str]], dict[str, float]]:
    """The trial hashes of the sample in a fresh process with ``OPENBLAS_CORETYPE=core``, or
    for a name of :data:`NUMPY_LEVELS` with NumPy's loops held to that level (``None``: neither
    set, the libraries' own choices), and each method's seconds."""
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps([methods, tasks, trials, budget])],
        env=_child_env(core),
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(
            f"portability: the run under {core or 'default'} failed:\n{proc.stderr[-2000:]}"
        )
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return dict(out["hashes"]), dict(out["seconds"])


def _child_env(core: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    if core in NUMPY_LEVELS:
        env["NPY_DISABLE_CPU_FEATURES"] = numpy_levels()[core]
    elif core is not None:
        env["OPENBLAS_CORETYPE"] = core
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def tables(
    core: str | None,
    trials: int | None,
    jobs: int,
    tasks: list[str] | None,
    settings: dict[str, Any] | None = None,
    grids: list[str] | None = None,
    stem: str = "portability_tables",
) -> int:
    """``--tables``: the book's GP runs of Tables 3 and 4 recomputed here, trial by trial.

    ``settings`` (``--set``) are method settings of the recomputed runs (the book's runs keep
    theirs), e.g. ``search=lattice;tie_rtol=1e-9``: the comparison is then the setting's
    paired effect on the table as well as the CPU's; ``grids`` (``--grids``) picks grids of
    :data:`TABLE_RUNS`; ``stem`` (``--name``) names the report in ``results/benchmarks/``."""
    settings = dict(settings or {})
    table_runs = {g: TABLE_RUNS[g] for g in (grids or TABLE_RUNS)}
    import pandas as pd

    import nmthpo
    from nmthpo.engine.cache import machine_fingerprint, user_cache_dir
    from nmthpo.studies.grids import RUN_GRIDS, run_one
    from nmthpo.studies.speed import PORTABILITY_TABLES_FILE, portability_tables
    from nmthpo.studies.zhang_duh.multiobjective import pareto_metrics
    from nmthpo.studies.zhang_duh.single_objective import per_trial_metrics

    name = core or "default"
    cache = user_cache_dir() / "portability" / name
    runs = [
        (grid, m, t)
        for grid, (methods, _) in table_runs.items()
        for t in (tasks or RUN_GRIDS[grid].tasks)
        for m in methods
    ]
    n = {grid: min(trials or RUN_GRIDS[grid].trials, RUN_GRIDS[grid].trials) for grid in table_runs}
    t0 = time.perf_counter()
    for grid in table_runs:
        mine = [r for r in runs if r[0] == grid]
        arg = json.dumps([jobs, str(cache), n[grid], mine, settings])
        proc = subprocess.run(
            [sys.executable, "-c", _TABLES_CHILD, arg],
            env=_child_env(core),
            check=False,
        )
        if proc.returncode != 0:
            raise SystemExit(f"portability --tables: the runs of {grid} under {name} failed")
    print(f"computed the runs under {name} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    rows = []
    for grid, method, task in runs:
        g = RUN_GRIDS[grid]
        metric = TABLE_RUNS[grid][1]
        book = run_one(grid, method, task, trials=n[grid])  # the book's cache, read only
        here = nmthpo.run(
            method, task, trials=n[grid], seed=g.seed, progress=False,
            cache_dir=cache / g.folder, settings=settings, **g.options,
        )  # fmt: skip
        if grid == "pareto":  # Table 4's metrics, as Chapter 3 computes them
            values = [pareto_metrics(r.frame, task)[metric].to_numpy() for r in (book, here)]
        else:  # Table 3's, as Chapter 2 computes them
            m = per_trial_metrics({("book", task): book.frame, ("here", task): here.frame})
            values = [
                m[m["method"] == k].sort_values("trial")[metric].to_numpy()
                for k in ("book", "here")
            ]
        for i, (a, b) in enumerate(zip(book.sequences, here.sequences, strict=True)):
            rows.append(
                {
                    "table": TABLE_NAMES[grid], "method": method, "task": task,
                    "metric": metric, "trial": i, "same_rows": a == b,
                    "book": float(values[0][i]), "here": float(values[1][i]),
                }
            )  # fmt: skip
    kept = {grid: n[grid] for grid in table_runs}
    payload = {
        "machine": machine_fingerprint(), "core": name, "trials": kept, "rows": rows,
        "settings": settings,
    }  # fmt: skip
    if stem == "portability_tables":
        stem = Path(PORTABILITY_TABLES_FILE).stem
    frame = portability_tables(_store(f"{stem}.json", payload))
    same = sum(r["same_rows"] for r in rows)
    text = (
        f"the book's GP runs of Tables 3 and 4 recomputed on {machine_fingerprint()} "
        f"(OPENBLAS_CORETYPE {name}): {len(rows) - same} of {len(rows)} trials choose other "
        f"rows ({(len(rows) - same) / len(rows):.1%})\n\n"
    )
    with pd.option_context("display.width", 200, "display.max_rows", 100):
        text += frame.to_string(index=False) + "\n"
    if settings:
        text = f"settings of the recomputed runs: {settings}\n" + text
    (OUT / f"{stem}.txt").write_text(text, encoding="utf-8")
    print(text)
    return 0


#: Folders of ``results/`` that hold no experiment of ``make results``.
NOT_RUNS = ("benchmarks", "changes", "peers", "openbox")


def _frames_equal(a: Any, b: Any) -> bool:
    import numpy as np

    if a.shape != b.shape or not a.columns.equals(b.columns):
        return False
    for c in a.columns:
        x, y = a[c].to_numpy(), b[c].to_numpy()
        if x.dtype.kind == "f" and y.dtype.kind == "f":
            if not np.allclose(x, y, rtol=1e-7, atol=1e-9, equal_nan=True):
                return False
        elif not (a[c].astype(str).to_numpy() == b[c].astype(str).to_numpy()).all():
            return False
    return True


def _sidecar(path: Path) -> dict[str, Any]:
    """A cached run's sidecar (its spec's JSON; empty without one)."""
    side = path.with_suffix(".json")
    payload = json.loads(side.read_text(encoding="utf-8")) if side.exists() else {}
    return payload if isinstance(payload, dict) else {}


def _run_method(side: dict[str, Any], path: Path, frame: Any) -> str:
    """The method string of a cached run: its sidecar's, else the frame's or the file name's."""
    if isinstance(side.get("method"), str):
        return str(side["method"])
    return str(frame["method"].iloc[0]) if "method" in frame.columns else path.name.split("__")[0]


def _declared_exact(method: str, settings: dict[str, Any] | None = None) -> bool | None:
    """What the registry declares: does ``method`` with ``settings`` choose the same rows on
    any CPU (:meth:`~nmthpo.optimizers.registry.MethodSpec.exact_for`)?"""
    from nmthpo.optimizers.registry import resolve

    try:
        return bool(resolve(method).exact_for(settings or {}))
    except Exception:  # noqa: BLE001 - a method this install cannot build: not declared
        return None


def compare_results(book: Path, other: Path) -> dict[str, Any]:
    """Every cached file of ``book`` (``results/``) against its copy in ``other``."""
    import pandas as pd

    from nmthpo.engine.cache import machine_fingerprint
    from nmthpo.engine.runner import run_machine

    runs, frames, missing = [], [], []
    for f in sorted(book.rglob("*.parquet")):
        rel = f.relative_to(book)
        if rel.parts[0] in NOT_RUNS or len(rel.parts) < 2:
            continue
        g = other / rel
        if not g.exists():
            missing.append(str(rel))
            continue
        a, b = pd.read_parquet(f), pd.read_parquet(g)
        trial = next((c for c in ("trial", "rep") if c in a.columns), None)
        if trial is None or "row" not in a.columns:
            frames.append({"file": str(rel), "equal": _frames_equal(a, b)})
            continue
        ra, rb = a.groupby(trial)["row"].apply(list), b.groupby(trial)["row"].apply(list)
        differ = sum(1 for t in ra.index if t not in rb.index or ra[t] != rb[t])
        side = _sidecar(f)
        method = _run_method(side, f, a)
        settings = side["settings"] if isinstance(side.get("settings"), dict) else {}
        runs.append(
            {
                "folder": rel.parts[0], "method": method, "file": str(rel),
                "machine": run_machine(f), "exact": _declared_exact(method, settings),
                "trials": len(ra), "differ": differ,
            }
        )  # fmt: skip
    return {
        "machine": machine_fingerprint(),
        "runs": runs,
        "frames": frames,
        "missing": missing,
        "claims": compare_claims(book / "claims.csv", other / "claims.csv"),
    }


def _num(value: Any) -> float | None:
    """A ledger cell as a float (None where it is empty or not a number)."""
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if out == out else None  # NaN: no interval


def compare_claims(book: Path, other: Path) -> list[dict[str, Any]]:
    """The claims of the book's ledger whose value or verdict differs in ``other``'s."""
    import pandas as pd

    if not (book.exists() and other.exists()):
        return []
    a = pd.read_csv(book).set_index("id")
    b = pd.read_csv(other).set_index("id")
    out = []
    for cid in a.index.intersection(b.index):
        x, y = a.loc[cid], b.loc[cid]
        same_value = str(x["ours"]) == str(y["ours"])
        if same_value and x["verdict"] == y["verdict"]:
            continue
        out.append(
            {
                "id": cid, "chapter": str(x["chapter"]),
                "book": str(x["ours"]), "other": str(y["ours"]),
                "book_ci": [_num(x.get("ci_low")), _num(x.get("ci_high"))],
                "other_ci": [_num(y.get("ci_low")), _num(y.get("ci_high"))],
                "book_verdict": str(x["verdict"]), "other_verdict": str(y["verdict"]),
            }
        )  # fmt: skip
    return out


def results(other: Path) -> int:
    """``--results DIR``: the book's cached runs against a from-scratch tree made here."""
    import pandas as pd

    from nmthpo.studies.speed import PORTABILITY_RESULTS_FILE, portability_results

    if not other.is_dir():
        raise SystemExit(f"portability --results: {other} is not a directory; give a results/ tree")
    payload = compare_results(ROOT / "results", other)
    if not payload["runs"]:
        raise SystemExit(
            f"portability --results: no run of the book has a copy under {other}; give the "
            "results/ folder of a clone where `make results` ran from scratch"
        )
    frame = portability_results(_store(PORTABILITY_RESULTS_FILE, payload))
    trials = sum(r["trials"] for r in payload["runs"])
    differ = sum(r["differ"] for r in payload["runs"])
    equal = sum(f["equal"] for f in payload["frames"])
    text = (
        f"the book's cached runs recomputed from scratch on {payload['machine']}: {differ} of "
        f"{trials} trials choose other rows ({differ / trials:.1%}); other cached frames: "
        f"{equal} of {len(payload['frames'])} equal; {len(payload['missing'])} files missing; "
        f"claims of the ledger with another value: {len(payload['claims'])}, another verdict: "
        f"{sum(c['book_verdict'] != c['other_verdict'] for c in payload['claims'])}\n\n"
    )
    with pd.option_context("display.width", 200, "display.max_rows", 200):
        text += frame.to_string(index=False) + "\n"
    for f in payload["frames"]:
        if not f["equal"]:
            text += f"differs: {f['file']}\n"
    for c in payload["claims"]:
        if c["book_verdict"] != c["other_verdict"]:
            text += f"verdict: {c['id']}: {c['book_verdict']} -> {c['other_verdict']}\n"
    (OUT / "portability_results.txt").write_text(text, encoding="utf-8")
    print(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--tasks", default=None, help=f"default {','.join(TASKS)} (--tables: all)")
    p.add_argument("--trials", type=int, default=None, help="default 4 (--tables: the book's)")
    p.add_argument("--budget", type=int, default=40)
    p.add_argument(
        "--name",
        default="portability",
        help="stem of the sample's report in results/benchmarks/ (default portability: the "
        "one the speed appendix reads)",
    )
    p.add_argument(
        "--tables",
        action="store_true",
        help="recompute the book's GP runs of Tables 3 and 4 on this CPU and compare them with "
        "the book's, trial by trial (--trials: at most the book's; --tasks: default all)",
    )
    p.add_argument(
        "--results",
        type=Path,
        default=None,
        metavar="DIR",
        help="compare every cached run of the book with its copy in DIR, a results/ tree "
        "computed from scratch on this machine (make results in a clone)",
    )
    p.add_argument("--core", default=None, help="with --tables: an OPENBLAS_CORETYPE to force")
    p.add_argument(
        "--jobs",
        type=int,
        default=2,
        help="worker processes (--tables), or core types checked at a time (the sample)",
    )
    p.add_argument(
        "--set",
        default="",
        metavar="K=V;...",
        help="with --tables: method settings of the recomputed runs (e.g. "
        "'search=lattice;tie_rtol=1e-9')",
    )
    p.add_argument(
        "--grids",
        default=None,
        help=f"with --tables: comma-separated subset of {','.join(TABLE_RUNS)}",
    )
    args = p.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.results is not None:
        return results(args.results)
    if args.tables:
        tasks = [t for t in args.tasks.split(",") if t] if args.tasks else None
        from nmthpo.commands.validate import parse_settings

        settings = parse_settings([kv for kv in args.set.split(";") if kv])
        grids = [g for g in args.grids.split(",") if g] if args.grids else None
        stem = "portability_tables" if args.name == "portability" else args.name
        return tables(args.core, args.trials, args.jobs, tasks, settings, grids, stem)
    args.trials = 4 if args.trials is None else args.trials
    args.tasks = ",".join(TASKS) if args.tasks is None else args.tasks
    from nmthpo.engine.cache import machine_fingerprint

    methods = [m for m in args.methods.split(",") if m]
    tasks = [t for t in args.tasks.split(",") if t]
    cores: list[str | None] = [None, *core_types(), *numpy_levels()]
    hashes: dict[str, dict[str, list[str]]] = {}
    seconds: dict[str, float] = {}
    method_seconds: dict[str, dict[str, float]] = {}

    def one(core: str | None) -> None:
        name = core or "default"
        t0 = time.perf_counter()
        hashes[name], method_seconds[name] = run_under(
            core, methods, tasks, args.trials, args.budget
        )
        seconds[name] = round(time.perf_counter() - t0, 1)
        print(f"ran the sample under {name} in {seconds[name]} s", file=sys.stderr)

    # one process per core type, --jobs of them at a time (each runs single-threaded)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        list(pool.map(one, cores))
    from nmthpo.studies.speed import PORTABILITY_SAMPLE_FILE, portability_sample

    payload = {
        "cores": [c or "default" for c in cores],
        "seconds": seconds,
        "method_seconds": method_seconds,
        "hashes": hashes,
        "trials": args.trials,
        "budget": args.budget,
    }
    stem = Path(PORTABILITY_SAMPLE_FILE).stem if args.name == "portability" else args.name
    sample = portability_sample(_store(f"{stem}.json", payload, indent=1))
    lines = [
        f"portability of the row choices: {len(methods)} methods x {len(tasks)} tasks x "
        f"{args.trials} trials, budget {args.budget}; core types: "
        + ", ".join(c or "default" for c in cores),
        f"machine: {machine_fingerprint()}, Python {platform.python_version()}",
        "",
        f"{'method':<20} {'trials':>6} {'diverge':>8} {'rate':>6}  where",
    ]
    for m, r in sample.iterrows():
        lines.append(f"{m:<20} {r['trials']:>6} {r['diverge']:>8} {r['rate']:>6.1%}  {r['where']}")
    total, diverged = int(sample["trials"].sum()), int(sample["diverge"].sum())
    lines += ["", f"all: {diverged} of {total} trials diverge ({diverged / total:.1%})"]
    text = "\n".join(lines) + "\n"
    (OUT / f"{stem}.txt").write_text(text, encoding="utf-8")
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    print(text + f"(report {digest}: results/benchmarks/{stem}.txt)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
