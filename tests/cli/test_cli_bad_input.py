"""Bad input to every sub-command (issue 12): each call is refused before any work starts.

Every invocation runs ``nmthpo`` as a real process and must exit with status 2, print one
line ``nmthpo: error: ...`` naming the problem, show no traceback and leave no file behind
(the whole temporary tree, the user cache included, is compared before and after).

How fast a refusal is (refused before the work starts, no heavy import) is a speed question,
not a unit-test one: a CPU or wall-clock bound here failed under load (issue 22). It is
measured by ``benchmarks/bench_refusals.py`` (``make bench``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nmthpo.data import installed_path
from nmthpo.data.store import MIRROR_ENV
from tests.paths import ROOT, TESTS

EXAMPLE = str(installed_path("scripts/examples/example.ss"))


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")
    }


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    """A working tree: a regular file, a directory, a user's data directory, a run dir."""
    (tmp_path / "afile").write_text("user's file\n")
    (tmp_path / "adir").mkdir()
    (tmp_path / "seqs").mkdir()
    (tmp_path / "seqs" / "outside.ss").write_text("0 1 2\n3 4 99999\n")
    (tmp_path / "seqs" / "repeat.ss").write_text("0 1 2 1\n")
    (tmp_path / "seqs" / "words.ss").write_text("0 1 2\n\nthree four\n")
    (tmp_path / "seqs" / "empty.ss").write_text("\n\n")
    (tmp_path / "seqs" / "binary.ss").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe")
    (tmp_path / "userdata").mkdir()
    (tmp_path / "userdata" / "thesis.tex").write_text("\\section{Mine}\n")
    (tmp_path / "userdata" / "sub").mkdir()
    (tmp_path / "userdata" / "sub" / "notes.txt").write_text("do not delete\n")
    (tmp_path / "cache").mkdir()
    return tmp_path


def nmthpo(
    args: list[str],
    cwd: Path,
    env_extra: dict[str, str] | None = None,
) -> tuple[int, str, str]:
    """Run ``python -m nmthpo.cli ARGS``; return (code, stdout, stderr)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(TESTS)])
    env["NMTHPO_RESULTS"] = str(cwd / "cache")  # any user-cache write would show up
    env.update(env_extra or {})
    # the timeout only bounds a hang (a refusal that started the work instead), not speed
    proc = subprocess.run(
        [sys.executable, "-m", "nmthpo.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return proc.returncode, proc.stdout, proc.stderr


R = ["run", "rs", "--task", "ja-en", "--out", "out", "--quiet"]
T = ["transfer", "rs", "--target", "ja-en", "--out", "out", "--quiet"]
G = ["ga-study", "--task", "ja-en"]
S = ["score-spaces", "--task", "zh-en"]

CASES: list[tuple[str, list[str], str]] = [
    # tasks / data
    ("tasks-option", ["tasks", "--bogus"], "unrecognized arguments: --bogus"),
    ("methods-option", ["methods", "--bogus"], "unrecognized arguments: --bogus"),
    ("data-nothing", ["data"], "required: data_command"),
    (
        "data-mirror-missing",
        ["data", "fetch", "--mirror", "/nonexistent/mirror"],
        "--mirror /nonexistent/mirror: no such directory",
    ),
    (
        "data-user-dir",
        ["data", "fetch", "--mirror", "{mirror}", "--force"],
        "holds files that are not the NMTHPO dataset",
    ),
    (
        "data-file-target",
        ["data", "fetch", "--mirror", "{mirror}"],
        "exists and is not a directory",
    ),
    ("data-verify-empty", ["data", "verify"], "not installed"),
    # run: paths
    (
        "run-out-file",
        ["run", "rs", "--task", "ja-en", "--out", "afile"],
        "--out afile: is an existing file",
    ),
    (
        "run-out-below-file",
        ["run", "rs", "--task", "ja-en", "--out", "afile/sub"],
        "is a file, so no directory can be created",
    ),
    ("run-cache-file", [*R, "--cache", "afile"], "--cache afile: is an existing file"),
    (
        "run-out-unwritable",
        ["run", "rs", "--task", "ja-en", "--out", "/proc/1/nmthpo-out"],
        "not writable",
    ),
    # run: names and settings
    ("run-method", ["run", "nope", "--task", "ja-en", "--out", "out"], "valid methods"),
    ("run-task", ["run", "rs", "--task", "xx-en", "--out", "out"], "valid tasks"),
    (
        "run-module-class",
        ["run", "nosuchmod:Opt", "--task", "ja-en", "--out", "out"],
        "cannot import module 'nosuchmod'",
    ),
    (
        "run-set-unknown",
        ["run", "gb-ei-m", "--task", "ja-en", "--out", "out", "--set", "foo=1"],
        "has no setting 'foo'; valid settings of nmthpo.optimizers.graph:GraphSMBO: ",
    ),
    (
        "run-set-user-class",
        ["run", "userpkg.mymod:MyOptimizer", "--task", "ja-en", "--out", "out", "--set", "k=3"],
        "valid settings of userpkg.mymod:MyOptimizer: jitter",
    ),
    (
        "run-set-unknown-curves",
        ["run", "sh", "--task", "lc-scratch-ja-en", "--out", "out", "--set", "foo=1"],
        "has no setting 'foo'; valid settings of "
        "nmthpo.optimizers.multifidelity.halving:SuccessiveHalving: eta, min_checkpoint",
    ),
    (
        "run-set-unknown-transfer",
        [*R, "--sources", "zh-en", "--set", "foo=1"],
        "valid settings of nmthpo.optimizers.random:RandomSearch: restarts, restart_every, "
        "source_only",
    ),
    ("run-set-malformed", [*R, "--set", "k"], "--set expects KEY=VALUE"),
    (
        "run-set-type",
        ["run", "gb-ei-m", "--task", "ja-en", "--out", "out", "--set", "k=abc"],
        "setting k='abc': expected an integer, got str; method 'gb-ei-m' allows int | None",
    ),
    (
        "run-set-range",
        ["run", "ga", "--task", "ja-en", "--out", "out", "--set", "population=-1"],
        "setting population=-1: out of range; method 'ga' allows int: 2 to",
    ),
    (
        "run-objective",
        ["run", "bo-ei-m", "--task", "ja-en", "--out", "out", "--objective", "pareto"],
        "does not support objective 'pareto'",
    ),
    ("run-sources-task", [*R, "--sources", "zh-en,xx-en"], "unknown task 'xx-en'"),
    # run: sizes
    ("run-trials-huge", [*R, "--trials", str(10**12)], "must be at most 100,000"),
    ("run-trials-big", [*R, "--trials", str(10**7)], "must be at most 100,000"),
    ("run-trials-zero", [*R, "--trials", "0"], "must be >= 1"),
    ("run-trials-word", [*R, "--trials", "many"], "expected an integer"),
    ("run-budget-table", [*R, "--budget", "100000"], "--budget 100000: must be between"),
    ("run-n-init", [*R, "--n-init", "0"], "--n-init: must be >= 1"),
    ("run-jobs", [*R, "--jobs", "1000"], "must be at most 256"),
    ("run-seed", [*R, "--seed", "-1"], "--seed: must be >= 0"),
    # run: scheduler
    (
        "run-scheduler-refused",
        [*R, "--scheduler", "tcp://127.0.0.1:1"],
        "--scheduler tcp://127.0.0.1:1: no Dask scheduler there",
    ),
    (
        "run-scheduler-host",
        [*R, "--scheduler", "tcp://no-such-host.invalid:8786"],
        "cannot resolve host",
    ),
    (
        "run-scheduler-form",
        [*R, "--scheduler", "http://127.0.0.1:8786"],
        "unsupported protocol 'http'",
    ),
    ("run-scheduler-port", [*R, "--scheduler", "127.0.0.1"], "expected tcp://HOST:PORT"),
    # evaluate
    ("eval-dir", ["evaluate", "adir", "--task", "ja-en"], "sequence file adir: is a directory"),
    ("eval-missing", ["evaluate", "nope.ss", "--task", "ja-en"], "nope.ss: no such file"),
    (
        "eval-tolerance-inf",
        ["evaluate", EXAMPLE, "--task", "zh-en", "--tolerance", "inf"],
        "must be a finite number",
    ),
    (
        "eval-tolerance-nan",
        ["evaluate", EXAMPLE, "--task", "zh-en", "--tolerance", "nan"],
        "must be a finite number",
    ),
    (
        "eval-tolerance-neg",
        ["evaluate", EXAMPLE, "--task", "zh-en", "--tolerance", "-1"],
        "must be >= 0",
    ),
    (
        "eval-outside",
        ["evaluate", "seqs/outside.ss", "--task", "ja-en"],
        "seqs/outside.ss, line 2: row id 99999 is outside the table",
    ),
    (
        "eval-repeat",
        ["evaluate", "seqs/repeat.ss", "--task", "ja-en"],
        "seqs/repeat.ss, line 1: row id 1 appears more than once",
    ),
    (
        "eval-words",
        ["evaluate", "seqs/words.ss", "--task", "ja-en"],
        "seqs/words.ss, line 3: not a list of row ids",
    ),
    ("eval-empty", ["evaluate", "seqs/empty.ss", "--task", "ja-en"], "no sample sequences"),
    ("eval-binary", ["evaluate", "seqs/binary.ss", "--task", "ja-en"], "not a text file"),
    ("eval-other-task", ["evaluate", EXAMPLE, "--task", "xx-en"], "unknown task 'xx-en'"),
    ("eval-budget", ["evaluate", EXAMPLE, "--task", "zh-en", "--budget", "0"], "must be >= 1"),
    # ga-study
    ("ga-init-pop-table", [*G, "--init-pop", "5,1000"], "1000 is larger than the 150 rows"),
    ("ga-iterations", [*G, "--iterations", str(10**12)], "must be at most 100,000"),
    ("ga-init-pop-word", [*G, "--init-pop", "5,x"], "'x' in '5,x'"),
    ("ga-task", ["ga-study", "--task", "xx-en"], "unknown task 'xx-en'"),
    ("ga-target", [*G, "--target", "inf"], "--target inf: must be a finite BLEU score"),
    ("ga-trials", [*G, "--trials", "0"], "must be >= 1"),
    # score-spaces
    ("score-budgets-huge", [*S, "--budgets", "1000000000"], "must be at most 10,000"),
    ("score-budgets-zero", [*S, "--budgets", "0,1"], "must be >= 1"),
    ("score-seed-size", [*S, "--seed-size", "100000"], "more than the 118 rows of zh-en"),
    ("score-spaces-file", [*S, "--spaces", "@nope.txt"], "--spaces file nope.txt: no such file"),
    ("score-task", ["score-spaces", "--task", "xx-en"], "unknown task 'xx-en'"),
    # transfer
    ("transfer-out-file", [*T[:4], "--out", "afile"], "--out afile: is an existing file"),
    ("transfer-cache-file", [*T, "--cache", "afile"], "--cache afile: is an existing file"),
    (
        "transfer-target",
        ["transfer", "rs", "--target", "xx-en", "--out", "out"],
        "unknown task 'xx-en'",
    ),
    ("transfer-repeats", [*T, "--repeats", str(10**9)], "must be at most 100,000"),
    ("transfer-trials-table", [*T, "--trials", "100000"], "more than the"),
    # compare
    (
        "compare-missing",
        ["compare", "nope", "--task", "ja-en"],
        "run directory nope: no such directory",
    ),
    ("compare-file", ["compare", "afile", "--task", "ja-en"], "run directory afile: is a file"),
    (
        "compare-plot-dir",
        ["compare", "adir", "--task", "ja-en", "--plot", "adir"],
        "--plot adir: is a directory",
    ),
    (
        "compare-plot-type",
        ["compare", "adir", "--task", "ja-en", "--plot", "fig.txt"],
        "unsupported file type '.txt'",
    ),
    ("compare-task", ["compare", "adir", "--task", "xx-en"], "unknown task 'xx-en'"),
    # claims
    ("claims-paper", ["claims", "--paper", "nope"], "invalid choice: 'nope'"),
    ("claims-verdict", ["claims", "--verdict", "maybe"], "invalid choice: 'maybe'"),
    # check-method
    ("check-method-trials", ["check-method", "rs", "--task", "ja-en", "--trials", "1"], "--trials"),
    ("check-method-method", ["check-method", "nope", "--task", "ja-en"], "unknown method 'nope'"),
    ("check-method-task", ["check-method", "rs", "--task", "xx-en"], "unknown task 'xx-en'"),
    (
        "check-method-budget",
        ["check-method", "rs", "--task", "ja-en", "--budget", "100000"],
        "budget=100000",
    ),
]


def _env_for(name: str, sandbox: Path) -> dict[str, str]:
    if name == "data-user-dir":
        return {"NMTHPO_DATA": str(sandbox / "userdata")}
    if name == "data-file-target":
        return {"NMTHPO_DATA": str(sandbox / "afile")}
    if name == "data-verify-empty":
        return {"NMTHPO_DATA": str(sandbox / "adir")}
    return {}


@pytest.mark.parametrize(("name", "argv", "needle"), CASES, ids=[c[0] for c in CASES])
def test_bad_call_is_refused(sandbox: Path, name: str, argv: list[str], needle: str) -> None:
    if name == "run-out-unwritable" and os.access("/proc/1", os.W_OK):  # pragma: no cover
        pytest.skip("/proc/1 is writable here")
    mirror = os.environ.get(MIRROR_ENV, "")
    if "{mirror}" in argv and not mirror:
        pytest.skip(f"{MIRROR_ENV} is not set")
    argv = [a.replace("{mirror}", mirror) for a in argv]
    before = _snapshot(sandbox)
    code, out, err = nmthpo(argv, sandbox, _env_for(name, sandbox))
    assert code == 2, (code, out, err)
    assert "Traceback" not in err and "Traceback" not in out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nmthpo: error: "), err
    assert needle in lines[0], lines[0]
    assert _snapshot(sandbox) == before, "files were left behind or changed"


def test_matrix_covers_every_subcommand() -> None:
    from nmthpo.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    commands = set(sub.choices)  # type: ignore[arg-type]
    assert commands <= {argv[0] for _, argv, _ in CASES}
    assert len(CASES) >= 40


def test_data_fetch_never_deletes_user_files(sandbox: Path) -> None:
    """The issue's data-loss scenario: NMTHPO_DATA=DIR with the user's files + fetch."""
    mirror = os.environ.get(MIRROR_ENV)
    if not mirror:
        pytest.skip(f"{MIRROR_ENV} is not set")
    user = sandbox / "userdata"
    files = {p: p.read_bytes() for p in user.rglob("*") if p.is_file()}
    for extra in ([], ["--force"]):
        code, _, err = nmthpo(
            ["data", "fetch", "--mirror", mirror, *extra], sandbox, {"NMTHPO_DATA": str(user)}
        )
        assert code == 2 and str(user) in err and "NMTHPO_DATA" in err
        assert {p: p.read_bytes() for p in user.rglob("*") if p.is_file()} == files
    assert sorted(str(p) for p in sandbox.rglob("*.nmthpo-part")) == []  # no temporary file


def test_tampered_mirror_reports_every_bad_file(sandbox: Path) -> None:
    mirror = os.environ.get(MIRROR_ENV)
    if not mirror:
        pytest.skip(f"{MIRROR_ENV} is not set")
    copy = sandbox / "mirror"
    shutil.copytree(mirror, copy)
    bad = ["datasets/ja-en.evals", "datasets/zh-en.hyps"]
    for rel in bad:
        (copy / rel).write_bytes((copy / rel).read_bytes()[:-10])
    target = sandbox / "fresh"
    code, _, err = nmthpo(
        ["data", "fetch", "--mirror", str(copy)], sandbox, {"NMTHPO_DATA": str(target)}
    )
    assert code == 2 and "Traceback" not in err
    assert all(rel in err for rel in bad) and "2 of" in err
    assert not target.exists()
