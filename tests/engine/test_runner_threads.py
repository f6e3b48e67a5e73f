"""One BLAS thread inside every trial (threadpoolctl): parallelism comes from workers."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from nmthpo.engine import runner
from nmthpo.engine.runner import RunSpec, run_specs


def _blas_threads() -> list[int]:
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def _record(monkeypatch, module, seen: list[list[int]]) -> None:
    real = module.ask_tell

    def spy(*args, **kwargs):
        seen.append(_blas_threads())
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "ask_tell", spy)


def test_every_trial_runs_with_one_blas_thread(monkeypatch) -> None:
    seen: list[list[int]] = []
    run_specs([RunSpec("gb-ei-m", "zh-en", budget=4)], repeats=1)  # load every BLAS first
    _record(monkeypatch, runner, seen)
    with threadpool_limits(limits=2, user_api="blas"):
        outside = _blas_threads()
        run_specs([RunSpec("gb-ei-m", "zh-en", budget=5)], repeats=2)
        assert _blas_threads() == outside  # restored after the trials
    assert len(seen) == 2 and all(t and set(t) == {1} for t in seen)
    # the job function the worker pool calls goes through the same trial function
    spec = runner._prepare(RunSpec("rs", "zh-en", budget=4))
    assert runner._job(0, spec, 0)[2]["row"].size == 4 and set(seen[-1]) == {1}


def test_parallel_results_equal_serial_ones() -> None:
    specs = [RunSpec("gb-ei-m", "zh-en", budget=8), RunSpec("rs", "ru-en", budget=8)]
    serial = run_specs(specs, repeats=3, jobs=1)
    parallel = run_specs(specs, repeats=3, jobs=2)
    for a, b in zip(serial, parallel, strict=True):
        np.testing.assert_array_equal(a.frame["row"], b.frame["row"])


def test_studies_that_loop_trials_use_one_blas_thread(monkeypatch) -> None:
    from nmthpo.engine import loop
    from nmthpo.studies.ariafar import space_scores

    seen: list[list[int]] = []
    real = loop.ask_tell

    def spy(*args, **kwargs):
        seen.append(_blas_threads())
        return real(*args, **kwargs)

    monkeypatch.setattr(loop, "ask_tell", spy)
    X = np.random.default_rng(0).uniform(size=(30, 3))
    y = X.sum(axis=1)
    with threadpool_limits(limits=2, user_api="blas"):
        curve = space_scores.search_in_rows("rs", X, y, np.arange(20), 6, np.random.default_rng(1))
    assert curve.shape == (6,) and seen and set(seen[0]) == {1}


def test_the_command_runs_on_one_blas_thread(tmp_path) -> None:
    """``nmthpo`` from the shell: BLAS starts with one thread in the parent (and so in the
    workers, which inherit the environment); a value the user set is kept."""
    import os
    import subprocess
    import sys

    code = (
        "import sys; from nmthpo.cli import main; rc = main(sys.argv[1:]); "
        "from threadpoolctl import threadpool_info; "
        "print(max(i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas'))"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    args = [
        sys.executable,
        "-c",
        code,
        "run",
        "rs",
        "--task",
        "ja-en",
        "--trials",
        "1",
        "--quiet",
        "--out",
    ]
    out = subprocess.run(
        [*args, str(tmp_path / "a")], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0 and out.stdout.split()[-1] == "1", out.stderr
    if (os.cpu_count() or 1) > 1:
        env["OPENBLAS_NUM_THREADS"] = "2"
        out = subprocess.run(
            [*args, str(tmp_path / "b")], capture_output=True, text=True, env=env, timeout=120
        )
        assert out.returncode == 0 and out.stdout.split()[-1] == "2", out.stderr
