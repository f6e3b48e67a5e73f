"""``nmthpo compare`` finds a planted difference, and only that (issue 21, item 6).

Two user optimisers, defined here and named by ``module:Class`` as a user's own package would
be (this module is importable as ``tests.engine.test_compare_planted``: pytest puts the
repository root on ``sys.path``, the CLI subprocess gets it through ``PYTHONPATH``):

* :class:`WorstFirst` evaluates the worst rows first (an oracle reading the ja-en table: a
  planted difference, far slower than random search to find the best row);
* :class:`OwnRandom` picks uniformly at random through its own generator spawned from the
  trial's, so it reads other rows than ``rs`` but is no better or worse.

As in the README: 10 trials of each on ja-en against the book's 8 baselines (from the book's
cache in ``results/single``): 2 x 8 + 1 = 17 pairs, smallest attainable Holm p 17 x 2/1024.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from nmthpo import cli
from nmthpo.benchmark.tables import load_table
from nmthpo.engine.compare import (
    ALPHA,
    Design,
    compare,
    load_run_dir,
    min_p_holm,
    plan,
    trials_needed,
)
from nmthpo.engine.runner import run
from nmthpo.optimizers.base import TableOptimizer
from nmthpo.studies.grids import compare_baselines
from tests.paths import ROOT, TESTS

pytest.importorskip("autorank")

#: the registry's baselines, as `nmthpo compare` passes them
BOOK = compare_baselines()

TASK = "ja-en"
WORST = f"{__name__}:WorstFirst"
RANDOM = f"{__name__}:OwnRandom"


class WorstFirst(TableOptimizer):
    """Evaluates the unevaluated row of lowest BLEU first (an oracle on ja-en's table)."""

    def __init__(self, X: np.ndarray, rng: np.random.Generator, objective: str = "bleu"):
        super().__init__(X, rng, objective)
        bleu = load_table(TASK).bleu
        if len(bleu) != self.n:
            raise ValueError(f"WorstFirst knows only {TASK}'s table")
        self.order = np.argsort(np.asarray(bleu, dtype=float), kind="stable")

    def ask(self) -> int:
        return int(self.order[~self.observed[self.order]][0])


class OwnRandom(TableOptimizer):
    """Uniform random search through a generator spawned from the trial's (not ``rs``'s rows)."""

    def __init__(self, X: np.ndarray, rng: np.random.Generator, objective: str = "bleu"):
        super().__init__(X, rng, objective)
        self.own = rng.spawn(1)[0]

    def ask(self) -> int:
        return int(self.own.choice(self.remaining()))


@pytest.fixture(scope="module")
def run_dirs(tmp_path_factory):
    """The README's two runs: the worst-first one through the CLI (a subprocess with two
    workers, as a user would), the random one through :func:`nmthpo.run`."""
    out = tmp_path_factory.mktemp("planted")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "nmthpo.cli",
            "run",
            WORST,
            "--task",
            TASK,
            "--trials",
            "10",
            "--jobs",
            "2",
            "--out",
            str(out / "worst"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    run(RANDOM, TASK, trials=10, progress=False).save(out / "random")
    return out / "worst", out / "random"


def _compare_json(capsys, *argv: str) -> tuple[dict, str]:
    assert cli.main(["compare", *argv, "--task", TASK, "--json", "--quiet"]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


def _test(js: dict, a: str, b: str) -> dict:
    return next(t for t in js["tests"] if {t["a"], t["b"]} == {a, b})


def test_planted_difference_is_found_and_no_other(run_dirs, capsys):
    js, err = _compare_json(capsys, *map(str, run_dirs))
    assert js["trials"] == 10 and js["pairs"] == "mine" and set(js["mine"]) == {WORST, RANDOM}
    # your runs against each of the 8 baselines, and against each other; no baseline pairs
    assert len(js["tests"]) == 2 * 8 + 1
    assert all(t["a"] in js["mine"] for t in js["tests"])
    for t in js["tests"]:
        assert set(t) == {"a", "b", "p_holm", "better"}
    d = js["design"]
    assert (d["trials"], d["pairs"], d["can_reach"], d["trials_needed"]) == (10, 17, True, 10)
    assert d["min_p_holm"] == pytest.approx(17 * 2 / 1024)
    assert "warning" not in err
    worst = _test(js, WORST, "rs")
    assert worst["p_holm"] < ALPHA and worst["better"] == "rs"
    # worse than every baseline, since every one finds the best row before the last rows
    assert all(_test(js, WORST, b)["better"] == b for b in js["methods"] if b not in js["mine"])
    rand = _test(js, RANDOM, "rs")
    assert rand["p_holm"] >= ALPHA and rand["better"] is None
    assert js["methods"][RANDOM]["mean"] != js["methods"]["rs"]["mean"]  # other rows than rs


def test_longer_runs_pair_on_the_common_trials(run_dirs, tmp_path, capsys):
    longer = tmp_path / "random20"
    run(RANDOM, TASK, trials=20, progress=False).save(longer)
    js, err = _compare_json(capsys, str(run_dirs[0]), str(longer), "--baselines", "rs")
    assert js["trials"] == 10 and js["design"]["longer"] == {RANDOM: 20}
    assert f"nmthpo: note: {RANDOM} has 20 trials: only the first 10" in err


def test_design_warning_before_the_work(run_dirs, tmp_path, capsys):
    short = tmp_path / "short"
    run(RANDOM, TASK, trials=6, progress=False).save(short)
    js, err = _compare_json(capsys, str(short))
    line = (
        "nmthpo: warning: 6 paired trials: the smallest attainable corrected p is 0.25 "
        "(Wilcoxon signed-rank, Holm over 8 pairs)"
    )
    assert line in err and "use at least 9 paired trials" in err
    assert js["design"] == {
        "trials": 6,
        "pairs": 8,
        "alpha": ALPHA,
        "min_p_holm": 0.25,
        "can_reach": False,
        "trials_needed": 9,
        "unit": "paired trials",
        "longer": {},
    }
    assert plan([load_run_dir(short)], TASK, book=BOOK) == Design(6, 8)


def test_design_arithmetic():
    assert min_p_holm(10, 1) == 2 / 1024
    assert min_p_holm(10, 36) == pytest.approx(0.0703125)  # all pairs of 9 methods: hopeless
    assert min_p_holm(3, 8) == 1.0 and min_p_holm(0, 3) == 1.0
    assert [trials_needed(m) for m in (1, 8, 17, 36)] == [6, 9, 10, 11]
    assert not Design(10, 36).can_reach and Design(10, 17).can_reach
    assert Design(10, 0).warning() == "no pair of methods to test"


def test_a_run_of_another_task_is_an_error_naming_it(run_dirs, tmp_path, capsys):
    other = tmp_path / "en-ja-run"
    run("rs", "en-ja", trials=2, progress=False).save(other)
    assert cli.main(["compare", str(run_dirs[1]), str(other), "--task", TASK, "--quiet"]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("nmthpo: error: --task ja-en: ")
    assert f"{other} (task en-ja)" in err[0] and "Traceback" not in captured.err
    assert captured.out == ""
    with pytest.raises(ValueError, match=r"runs of another task than 'ja-en': rs \(task en-ja"):
        compare([load_run_dir(run_dirs[1]), load_run_dir(other)], TASK)
