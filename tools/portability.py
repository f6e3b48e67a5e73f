"""Do the book's methods choose the same rows under every BLAS kernel this CPU can run?

    python tools/portability.py                   # the sample below, every supported core type
    python tools/portability.py --trials 2 --methods bo-ei-m,gb-ei-m --tasks ja-en

Run by hand (``make portability``), never inside ``make test`` or CI: on some machines
``OPENBLAS_*`` variables are set to keep OpenBLAS working, and tests must not change them.

OpenBLAS picks its kernels by the CPU's SIMD level (``DYNAMIC_ARCH``); ``OPENBLAS_CORETYPE``
forces a level. The core types checked are read from the CPU's flags in ``/proc/cpuinfo``:
``Prescott`` (SSE3, every x86-64 CPU) always, ``Haswell`` with AVX2, ``SkylakeX`` with
AVX-512F, plus the default choice (the variable unset). For each core type a fresh process
runs every (method, task) of the sample (``nmthpo.run`` without a cache, ``stop="none"``) and
prints the SHA-256 of each trial's row sequence; a trial *diverges* when its hash under some
core type differs from the default's. The report (a table, and the hashes as JSON) goes to
``results/benchmarks/portability.txt`` and ``portability.json``: per method, the trials that
diverge and the divergence rate (issue 25's goal: none, or under 1 %).
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

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "benchmarks"

#: One or two methods of every family the book runs (lookup tables, one objective or two).
METHODS: tuple[str, ...] = (
    "rs",
    "bo-ei-m",
    "bo-ei-r",
    "bo-ei-map",
    "gb-ei-m",
    "gb-eif-m",
    "ga",
    "bo-m",
    "gb-m",
    "optuna:TPESampler",
    "optuna:GPSampler",
)
TASKS: tuple[str, ...] = ("ja-en", "ru-en", "en-ja", "sw-en")

_CHILD = """
import hashlib, json, sys
import nmthpo
from nmthpo.optimizers.registry import resolve
methods, tasks, trials, budget = json.loads(sys.argv[1])
out = {}
for m in methods:
    objective = resolve(m).objectives[0]  # bo-m, gb-m: pareto; the others: bleu
    for t in tasks:
        r = nmthpo.run(m, t, trials=trials, seed=0, budget=budget, stop="none",
                       objective=objective, progress=False)
        out[f"{m} {t}"] = [hashlib.sha256(",".join(map(str, map(int, s))).encode()).hexdigest()[:12]
                           for s in r.sequences]
print(json.dumps(out))
"""


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


def run_under(
    core: str | None, methods: list[str], tasks: list[str], trials: int, budget: int
) -> dict[str, list[str]]:
    """The trial hashes of the sample in a fresh process with ``OPENBLAS_CORETYPE=core``
    (``None``: the variable removed, OpenBLAS's own choice)."""
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    if core is not None:
        env["OPENBLAS_CORETYPE"] = core
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps([methods, tasks, trials, budget])],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(
            f"portability: the run under {core or 'default'} failed:\n{proc.stderr[-2000:]}"
        )
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--tasks", default=",".join(TASKS))
    p.add_argument("--trials", type=int, default=4)
    p.add_argument("--budget", type=int, default=40)
    args = p.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from nmthpo.engine.cache import machine_fingerprint

    methods = [m for m in args.methods.split(",") if m]
    tasks = [t for t in args.tasks.split(",") if t]
    cores: list[str | None] = [None, *core_types()]
    hashes: dict[str, dict[str, list[str]]] = {}
    seconds: dict[str, float] = {}
    for core in cores:
        name = core or "default"
        t0 = time.perf_counter()
        hashes[name] = run_under(core, methods, tasks, args.trials, args.budget)
        seconds[name] = round(time.perf_counter() - t0, 1)
        print(f"ran the sample under {name} in {seconds[name]} s", file=sys.stderr)
    lines = [
        f"portability of the row choices: {len(methods)} methods x {len(tasks)} tasks x "
        f"{args.trials} trials, budget {args.budget}; core types: "
        + ", ".join(c or "default" for c in cores),
        f"machine: {machine_fingerprint()}, Python {platform.python_version()}",
        "",
        f"{'method':<20} {'trials':>6} {'diverge':>8} {'rate':>6}  where",
    ]
    total = diverged = 0
    for m in methods:
        n = bad = 0
        where = []
        for t in tasks:
            key = f"{m} {t}"
            ref = hashes["default"][key]
            for i, h in enumerate(ref):
                n += 1
                others = [c for c in hashes if hashes[c][key][i] != h]
                if others:
                    bad += 1
                    where.append(f"{t}#{i} ({'/'.join(others)})")
        total, diverged = total + n, diverged + bad
        lines.append(f"{m:<20} {n:>6} {bad:>8} {bad / n:>6.1%}  {', '.join(where) or '-'}")
    lines += ["", f"all: {diverged} of {total} trials diverge ({diverged / total:.1%})"]
    OUT.mkdir(parents=True, exist_ok=True)
    text = "\n".join(lines) + "\n"
    (OUT / "portability.txt").write_text(text, encoding="utf-8")
    payload = {
        "cores": [c or "default" for c in cores],
        "seconds": seconds,
        "hashes": hashes,
        "trials": args.trials,
        "budget": args.budget,
    }
    (OUT / "portability.json").write_text(
        json.dumps(payload, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    print(text + f"(report {digest}: results/benchmarks/portability.txt)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
