"""Time how fast ``nmthpo`` refuses bad input: CPU seconds of one refused call (budget 1.0 s).

A refusal must come before any work starts (no table loaded for nothing, no SciPy or optimiser
imported, no trial run). tests/cli/test_cli_bad_input.py checks *what* a refusal does (status 2, one
line, no traceback, nothing written); this measures *how fast*, on a quiet machine, where a
time bound means something (under load it made the unit test flaky, issue 22).

Run: ``.venv/bin/python benchmarks/bench_refusals.py [--repeats 5]``. Each case runs as a real
process (``python -m nmthpo.cli``) in a temporary directory; prints the median and largest CPU
time (user + system of the child, interpreter start-up included) and the median wall time per
case, next to a bare ``python -c pass`` start-up. Exits with status 1 if a case is not refused
with status 2 or its median CPU time exceeds the budget.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: CPU seconds a refused call may use, interpreter start-up included (median of the repeats).
BUDGET_S = 1.0
R = ["run", "rs", "--task", "ja-en", "--out", "out", "--quiet"]
CASES: list[tuple[str, list[str]]] = [
    ("run: unknown method", ["run", "nope", "--task", "ja-en", "--out", "out"]),
    (
        "run: unknown setting",
        ["run", "gb-ei-m", "--task", "ja-en", "--out", "out", "--set", "foo=1"],
    ),
    (
        "run: setting of the wrong type",
        ["run", "gb-ei-m", "--task", "ja-en", "--out", "out", "--set", "k=abc"],
    ),
    (
        "run: objective",
        ["run", "bo-ei-m", "--task", "ja-en", "--out", "out", "--objective", "pareto"],
    ),
    ("run: trials", [*R, "--trials", str(10**12)]),
    ("run: budget", [*R, "--budget", "100000"]),
    ("evaluate: missing file", ["evaluate", "nope.ss", "--task", "ja-en"]),
    ("ga-study: initial population", ["ga-study", "--task", "ja-en", "--init-pop", "5,1000"]),
    ("score-spaces: seed size", ["score-spaces", "--task", "zh-en", "--seed-size", "100000"]),
    ("transfer: target", ["transfer", "rs", "--target", "xx-en", "--out", "out"]),
    ("compare: missing run", ["compare", "nope", "--task", "ja-en"]),
    ("compare: malformed spec.json", ["compare", "badspec", "--task", "ja-en"]),
    ("compare: garbage sequences", ["compare", "badseq", "--task", "ja-en"]),
    ("compare: damaged results.parquet", ["compare", "flipped", "--task", "ja-en"]),
    ("compare: empty --baselines", ["compare", "good", "--task", "ja-en", "--baselines", ""]),
    (
        "compare: metric of another objective",
        ["compare", "good", "--task", "ja-en", "--metric", "fto"],
    ),
    ("claims: verdict", ["claims", "--verdict", "maybe"]),
    (
        "run: setting out of range",
        ["run", "ga", "--task", "ja-en", "--out", "out", "--set", "population=151"],
    ),
    (
        "run: Optuna argument of the wrong type",
        [
            "run",
            "optuna:TPESampler",
            "--task",
            "ja-en",
            "--out",
            "out",
            "--set",
            "n_startup_trials=abc",
        ],
    ),
    ("run: empty --out", ["run", "rs", "--task", "ja-en", "--out", ""]),
    ("evaluate: a device", ["evaluate", "/dev/zero", "--task", "ja-en"]),
    (
        "score-spaces: huge random:N",
        ["score-spaces", "--task", "sw-en", "--spaces", "random:99999999"],
    ),
    ("data: mirror is a file", ["data", "fetch", "--mirror", "/etc/hostname"]),
]


def _run_dirs(cwd: Path) -> None:
    """A finished run directory ``good`` and broken copies for the compare cases."""
    import shutil

    from nmthpo.engine.runner import run

    run("rs", "ja-en", trials=3, progress=False).save(cwd / "good")
    for name in ("badspec", "badseq", "flipped"):
        shutil.copytree(cwd / "good", cwd / name)
    (cwd / "badspec" / "spec.json").write_text("[1]")
    (cwd / "badseq" / "sequences.ss").write_text("not row ids\n")
    pq = cwd / "flipped" / "results.parquet"
    data = pq.read_bytes()
    i = len(data) // 2
    pq.write_bytes(data[:i] + bytes([data[i] ^ 0x5A]) + data[i + 1 :])


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, float, float]:
    """Run ``argv``; return (exit status, CPU s of the child, wall s)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc.returncode, cpu, wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5, help="calls per case (median shown)")
    args = ap.parse_args()
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        env = dict(os.environ, PYTHONPATH=str(ROOT), NMTHPO_RESULTS=str(cwd / "cache"))
        _run_dirs(cwd)
        start = [timed([sys.executable, "-c", "pass"], cwd, env)[1] for _ in range(args.repeats)]
        print(f"refused calls, {args.repeats} each; budget {BUDGET_S:.1f} CPU s (median)")
        print(f"  {'python -c pass (start-up)':34s} cpu {statistics.median(start):5.2f} s")
        for name, argv in CASES:
            runs = [
                timed([sys.executable, "-m", "nmthpo.cli", *argv], cwd, env)
                for _ in range(args.repeats)
            ]
            cpu = [c for _, c, _ in runs]
            med = statistics.median(cpu)
            codes = sorted({code for code, _, _ in runs})
            problem = f"status {codes}" if codes != [2] else "over budget" if med > BUDGET_S else ""
            print(
                f"  {name:34s} cpu {med:5.2f} s (max {max(cpu):5.2f}), wall "
                f"{statistics.median(w for _, _, w in runs):5.2f} s"
                + (f"  <- {problem}" if problem else "")
            )
            if problem:
                failed.append(name)
    if failed:
        print(f"FAILED: {', '.join(failed)}")
        return 1
    print("all refused with status 2 within the budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
