"""Ctrl-C / SIGTERM during ``nmthpo run`` (issue 12): one line, exit 130, no worker left
behind; the same command then resumes and gives output identical to an uninterrupted run."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest

ROOT = Path(__file__).resolve().parents[1]
RUN = ["run", "bo-ei-m", "--task", "sw-en", "--trials", "12", "--seed", "4", "--quiet"]

pytestmark = pytest.mark.slow


def _env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env["NMTHPO_RESULTS"] = str(tmp / "usercache")
    return env


def _cli(args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nmthpo.cli", *args], cwd=tmp, env=_env(tmp),
                          capture_output=True, text=True, timeout=600)


def _saved(cache: Path) -> int:
    return len(list(cache.glob("partial/*/trial-*.npz")))


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The uninterrupted run (no cache)."""
    tmp = tmp_path_factory.mktemp("reference")
    proc = _cli([*RUN, "--out", str(tmp / "out")], tmp)
    assert proc.returncode == 0, proc.stderr
    return tmp / "out"


@pytest.mark.parametrize(("sig", "jobs"), [(signal.SIGINT, "1"), (signal.SIGTERM, "2")])
def test_interrupt_then_resume(tmp_path: Path, reference: Path, sig: int, jobs: str) -> None:
    cache, out = tmp_path / "cache", tmp_path / "out"
    args = [*RUN, "--jobs", jobs, "--cache", str(cache), "--out", str(out)]
    proc = subprocess.Popen([sys.executable, "-m", "nmthpo.cli", *args], cwd=tmp_path,
                            env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 300
    while _saved(cache) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the run finished before it could be interrupted"
    workers = psutil.Process(proc.pid).children(recursive=True)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and stdout == ""
    last = stderr.strip().splitlines()[-1]
    m = re.fullmatch(r"interrupted: (\d+) of 12 trials saved in (.+); rerun the same command "
                     r"to resume", last)
    assert m is not None, stderr
    saved = int(m.group(1))
    assert 2 <= saved < 12 and m.group(2) == str(cache)
    assert saved == _saved(cache)
    assert not out.exists()
    _, alive = psutil.wait_procs(workers, timeout=10)
    assert alive == [], f"workers left behind: {alive}"

    again = _cli(args, tmp_path)
    assert again.returncode == 0, again.stderr
    assert f"found {saved} of 12 trials in {cache}" in again.stderr
    assert (out / "sequences.ss").read_text() == (reference / "sequences.ss").read_text()
    pd.testing.assert_frame_equal(pd.read_parquet(out / "results.parquet"),
                                  pd.read_parquet(reference / "results.parquet"))
    assert not (cache / "partial").exists()
    # a third call reads the finished run back and says so
    third = _cli(args, tmp_path)
    assert third.returncode == 0 and "found 12 of 12 trials" in third.stderr


def test_interrupt_on_dask_cancels_its_tasks(tmp_path: Path, reference: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        cache, out = tmp_path / "cache", tmp_path / "out"
        args = [*RUN, "--scheduler", cluster.scheduler_address, "--cache", str(cache),
                "--out", str(out)]
        proc = subprocess.Popen([sys.executable, "-m", "nmthpo.cli", *args], cwd=tmp_path,
                                env=_env(tmp_path), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 300
        while _saved(cache) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, "the run finished before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 130 and "Traceback" not in stderr
        assert re.search(r"interrupted: \d+ of 12 trials saved in ", stderr)
        deadline = time.monotonic() + 30
        while cluster.scheduler.tasks and time.monotonic() < deadline:  # released by the client
            time.sleep(0.1)
        assert not cluster.scheduler.tasks
        again = _cli(args, tmp_path)
        assert again.returncode == 0, again.stderr
        assert (out / "sequences.ss").read_text() == (reference / "sequences.ss").read_text()
