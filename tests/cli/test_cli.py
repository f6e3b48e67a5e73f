import json

import pytest

from nmthpo.cli import main
from nmthpo.data import installed_path
from tests.paths import ROOT

EXAMPLE = str(installed_path("scripts/examples/example.ss"))


def run_cli(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse errors
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_tasks_json(capsys):
    code, out, _ = run_cli(capsys, "tasks", "--json")
    assert code == 0
    rows = {r["task"]: r for r in json.loads(out)}
    assert rows["sw-en"] == {
        "task": "sw-en",
        "kind": "lookup",
        "rows": 767,
        "metric": "bleu",
        "best": 26.09,
        "best_bleu": 26.09,
        "best_ties": 1,
        "pareto": 14,
    }


def test_evaluate_upstream_example(capsys):
    code, out, _ = run_cli(
        capsys, "evaluate", EXAMPLE, "--task", "zh-en", "--ties", "first-id", "--json"
    )
    res = json.loads(out)
    assert code == 0 and res["ties"] == "first-id"
    assert round(res["metrics"]["ftb"]["mean"], 2) == 38.52
    assert round(res["metrics"]["ftc"]["mean"], 2) == 10.11
    assert round(res["metrics"]["fb"]["mean"], 4) == 0.1404
    code, out, _ = run_cli(
        capsys, "evaluate", EXAMPLE, "--task", "zh-en", "--objective", "pareto", "--json"
    )
    res = json.loads(out)
    assert [round(res["metrics"][m]["mean"], 2) for m in ("fto", "fta", "fbp")] == [
        24.35,
        112.2,
        1.05,
    ]
    code, out, _ = run_cli(capsys, "evaluate", EXAMPLE, "--task", "zh-en")
    assert "ties=value" in out and "ftb: 20.15" in out


def test_run_then_evaluate(capsys, tmp_path):
    code, out, _ = run_cli(
        capsys,
        "run",
        "rs",
        "--task",
        "ja-en",
        "--trials",
        "4",
        "--seed",
        "3",
        "--out",
        str(tmp_path),
        "--quiet",
    )
    assert code == 0
    lines = (tmp_path / "sequences.ss").read_text().splitlines()
    assert len(lines) == 4 and (tmp_path / "results.parquet").exists()
    code, out, _ = run_cli(capsys, "evaluate", str(tmp_path / "sequences.ss"), "--task", "ja-en")
    assert code == 0 and "ftb" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["run", "nope", "--task", "zh-en", "--out", "x"], "valid methods"),
        (["run", "rs", "--task", "xx", "--out", "x"], "valid tasks"),
        (["run", "rs", "--task", "zh-en", "--trials", "-3", "--out", "x"], "must be >= 1"),
        (
            ["run", "rs", "--task", "zh-en", "--budget", "500", "--out", "x"],
            "--budget 500: must be between",
        ),
        (["evaluate", EXAMPLE, "--task", "zh-en", "--tolerance", "-1"], "must be >= 0"),
        (
            ["evaluate", EXAMPLE, "--task", "zh-en", "--budget", "1000"],
            "--budget 1000: must be between",
        ),
        (["evaluate", "/nonexistent.ss", "--task", "zh-en"], "no such file"),
    ],
)
def test_nonsense_is_exit_2_without_traceback(capsys, argv, needle):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    assert needle in err and "Traceback" not in err


def test_id_outside_table_is_an_error(capsys, tmp_path):
    (tmp_path / "bad.ss").write_text("0 1 2 118\n")
    code, _, err = run_cli(capsys, "evaluate", str(tmp_path / "bad.ss"), "--task", "zh-en")
    assert code == 2 and "outside the table" in err


def test_repeated_id_is_an_error(capsys, tmp_path):
    (tmp_path / "bad.ss").write_text("0 1 2 1\n")
    code, _, err = run_cli(capsys, "evaluate", str(tmp_path / "bad.ss"), "--task", "zh-en")
    assert code == 2 and "more than once" in err


def test_data_verify(capsys):
    code, out, _ = run_cli(capsys, "data", "verify")
    assert code == 0 and "verified" in out


def test_evaluate_says_how_many_trials_missed_the_target(capsys):
    code, out, _ = run_cli(capsys, "evaluate", EXAMPLE, "--task", "sw-en")
    assert code == 0
    assert "note: 100 of 100 trials never reached the target of ftb" in out
    assert "check --task" in out
    code, out, _ = run_cli(capsys, "evaluate", EXAMPLE, "--task", "zh-en", "--json")
    assert json.loads(out)["missed_target"] == {"ftb": 0, "ftc": 0}


def test_every_file_the_cli_writes_follows_the_umask(tmp_path):
    """Issue 12: outputs, caches and the data install get 0o666/0o777 & ~umask, not 0600."""
    import os
    import stat
    import subprocess
    import sys

    mirror = os.environ.get("NMTHPO_MIRROR")
    if not mirror:
        pytest.skip("NMTHPO_MIRROR is not set")
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        NMTHPO_DATA=str(tmp_path / "data"),
        NMTHPO_RESULTS=str(tmp_path / "usercache"),
    )
    calls = [
        ["data", "fetch", "--mirror", mirror],
        [
            "run",
            "rs",
            "--task",
            "ja-en",
            "--trials",
            "3",
            "--quiet",
            "--out",
            str(tmp_path / "out"),
            "--cache",
            str(tmp_path / "cache"),
        ],
    ]
    for argv in calls:
        proc = subprocess.run(
            [sys.executable, "-m", "nmthpo.cli", *argv],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            preexec_fn=lambda: os.umask(0o027),
        )
        assert proc.returncode == 0, proc.stderr
    paths = [p for p in tmp_path.rglob("*")]
    assert sum(p.is_file() for p in paths) > 30
    for p in paths:
        want = 0o750 if p.is_dir() else 0o640
        assert stat.S_IMODE(p.stat().st_mode) == want, (p, oct(p.stat().st_mode))
