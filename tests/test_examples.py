"""The ready example of ``nmthpo.examples``: the optimiser the README runs and its HPO-B twin."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import nmthpo
from nmthpo.examples import LocalSearch, LocalSearchSettings, observe_and_suggest
from nmthpo.optimizers.adapters import from_hpob
from nmthpo.optimizers.settings import describe


def _search(opt, y, initial, budget):
    for r in initial:
        opt.tell(r, y[r])
    while len(opt.rows) < budget:
        r = opt.ask()
        opt.tell(r, y[r])
    return opt.rows


def test_local_search_rows_valid_and_seeded():
    table = nmthpo.load_table("ja-en")
    X, y = table.encode(), table.bleu
    rows = _search(LocalSearch(X, np.random.default_rng(1)), y, [0, 1, 2], table.n_rows)
    assert sorted(rows) == list(range(table.n_rows))  # every row once, no repeats
    again = _search(LocalSearch(X, np.random.default_rng(1)), y, [0, 1, 2], 40)
    assert again == rows[:40]  # the generator alone decides


def test_local_search_moves_to_a_better_neighbour():
    X = np.array([[0.0], [1.0], [2.0], [10.0], [11.0]])
    y = np.array([1.0, 2.0, 3.0, 0.0, 0.0])
    opt = LocalSearch(X, np.random.default_rng(0), neighbours=1, patience=2)
    opt.tell(0, y[0])
    assert opt.ask() == 1  # the one nearest neighbour
    opt.tell(1, y[1])
    assert opt.centre == 1 and opt.ask() == 2
    opt.tell(2, y[2])
    assert opt.centre == 2
    opt.tell(opt.ask(), 0.0)  # row 3: worse
    assert opt.failures == 1 and opt.centre == 2


def test_local_search_restarts_after_patience():
    X = np.arange(6, dtype=float).reshape(-1, 1)
    opt = LocalSearch(X, np.random.default_rng(0), neighbours=1, patience=1)
    opt.tell(0, 5.0)
    r = opt.ask()
    opt.tell(r, 1.0)  # fails once: restart next
    restart = opt.ask()
    assert opt.restart_row == restart
    opt.tell(restart, -3.0)  # the restart becomes the centre whatever its value
    assert opt.centre == restart and opt.failures == 0


def test_settings_declared_and_checked():
    names = [s.name for s in describe(LocalSearchSettings)]
    assert names == ["neighbours", "patience"]
    with pytest.raises(nmthpo.InputError):
        nmthpo.run(LocalSearch, "ja-en", trials=1, settings={"neighbours": 0}, progress=False)


def test_jobs_do_not_change_rows():
    one = nmthpo.run(LocalSearch, "ja-en", trials=6, jobs=1, progress=False)
    two = nmthpo.run(LocalSearch, "ja-en", trials=6, jobs=2, progress=False)
    assert one.sequences == two.sequences
    assert one.frame.equals(two.frame)


def test_hpob_function_unit():
    X_obs = np.array([[0.0, 0.0], [1.0, 1.0]])
    y_obs = np.array([[10.0], [12.0]])
    X_pen = np.array([[0.0, 1.0], [1.0, 0.5], [1.0, 1.5]])
    assert observe_and_suggest(X_obs, y_obs, X_pen) == 1  # first of the two nearest
    picks = {
        observe_and_suggest(X_obs, y_obs, X_pen, rng=np.random.default_rng(s)) for s in range(20)
    }
    assert picks == {1, 2}  # ties broken by the generator
    assert observe_and_suggest(X_obs[:0], y_obs[:0], X_pen) == 0


def test_hpob_function_through_from_hpob():
    method = from_hpob(observe_and_suggest)
    one = nmthpo.run(method, "ja-en", trials=4, jobs=1, progress=False)
    two = nmthpo.run(method, "ja-en", trials=4, jobs=2, progress=False)
    assert one.sequences == two.sequences
    n = nmthpo.load_table("ja-en").n_rows
    for seq in one.sequences:
        assert len(set(seq)) == len(seq) and all(0 <= r < n for r in seq)


def test_cli_runs_the_readme_command(tmp_path: Path):
    """The README's command, from a directory outside the repository and without PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    exe = Path(sys.executable).with_name("nmthpo")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "nmthpo.cli"]
    out = {}
    for jobs in ("1", "2"):
        p = subprocess.run(
            [*cmd, "run", "nmthpo.examples:LocalSearch", "--task", "ja-en", "--trials", "20"]
            + ["--jobs", jobs, "--out", f"runs/mine{jobs}", "--quiet"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert p.returncode == 0, p.stderr
        out[jobs] = (tmp_path / f"runs/mine{jobs}" / "sequences.ss").read_text()
    assert out["1"] == out["2"]
    assert len(out["2"].splitlines()) == 20
