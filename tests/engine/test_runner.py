from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from nmthpo.benchmark.tables import load_table
from nmthpo.engine import runner as experiment
from nmthpo.engine.metrics import evaluate_sequences, expected_rs_ftb
from nmthpo.engine.runner import RunSpec, initial_rows, run, run_trial


def test_trial_depends_only_on_seed_and_index():
    spec = RunSpec("rs", "zh-en", seed=5)
    a, b = run_trial(spec, 3), run_trial(spec, 3)
    np.testing.assert_array_equal(a["row"], b["row"])
    assert not np.array_equal(run_trial(spec, 4)["row"], a["row"])
    # every method starts trial t from the same rows
    np.testing.assert_array_equal(a["row"][:3], initial_rows(118, 3, 5, 3))


def test_stops_at_first_argmax_row_and_covers_both_tie_rules():
    table = load_table("zh-en")
    res = run("rs", "zh-en", trials=20, seed=1, progress=False)
    for seq in res.sequences:
        assert seq[-1] == table.first_best_row or len(seq) == 3 and table.first_best_row in seq
        assert len(set(seq)) == len(seq)
    f = evaluate_sequences(res.sequences, table.bleu, ties="first-id")
    assert f["ftb"].notna().all() and f["fb"].notna().all()


def test_budget_and_pareto_stop():
    res = run("rs", "ja-en", trials=4, budget=10, stop="none", progress=False)
    assert res.frame.groupby("trial").size().tolist() == [10] * 4
    table = load_table("ja-en")
    par = run("rs", "ja-en", trials=3, objective="pareto", progress=False)
    for seq in par.sequences:
        assert set(table.pareto_rows) <= set(seq)
        assert table.pareto[seq[-1]]
    assert "time" in par.frame.columns


def test_bit_identical_for_1_and_2_workers():
    one = run("rs", "ru-en", trials=12, seed=7, jobs=1, progress=False)
    two = run("rs", "ru-en", trials=12, seed=7, jobs=2, progress=False)
    pd.testing.assert_frame_equal(one.frame, two.frame)


@pytest.mark.slow
def test_bit_identical_on_dask_local_cluster():
    from distributed import LocalCluster

    one = run("rs", "ru-en", trials=8, seed=7, progress=False)
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        dask = run(
            "rs", "ru-en", trials=8, seed=7, scheduler=cluster.scheduler_address, progress=False
        )
    pd.testing.assert_frame_equal(one.frame, dask.frame)


@pytest.mark.slow
def test_the_scheduler_environment_variable_sends_trials_to_dask(monkeypatch):
    from distributed import LocalCluster

    one = run("rs", "ru-en", trials=4, seed=7, progress=False)
    with LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None) as cluster:
        monkeypatch.setenv(experiment.SCHEDULER_ENV, cluster.scheduler_address)
        seen = []
        real = experiment._execute
        monkeypatch.setattr(
            experiment,
            "_execute",
            lambda sp, todo, j, sch: seen.append(sch) or real(sp, todo, j, sch),
        )
        dask = run("rs", "ru-en", trials=4, seed=7, progress=False)
    assert seen == [cluster.scheduler_address]
    pd.testing.assert_frame_equal(one.frame, dask.frame)


def test_a_dead_scheduler_in_the_environment_is_refused_before_any_work(monkeypatch):
    from nmthpo.errors import InputError

    monkeypatch.setenv(experiment.SCHEDULER_ENV, "tcp://127.0.0.1:9")  # discard port: closed
    calls = []
    monkeypatch.setattr(experiment, "_execute", lambda *a: calls.append(a) or iter(()))
    with pytest.raises(InputError, match="127.0.0.1:9"):
        run("rs", "ru-en", trials=2, seed=7, progress=False)
    assert calls == []


def test_cache_resume_and_extension(tmp_path, monkeypatch):
    first = run("rs", "en-ja", trials=5, seed=2, cache_dir=tmp_path, progress=False)
    files = list(tmp_path.glob("*.parquet"))
    assert len(files) == 1 and not (tmp_path / "partial").exists()

    calls = []
    real = experiment.run_trial
    monkeypatch.setattr(experiment, "run_trial", lambda s, t: calls.append(t) or real(s, t))
    again = run("rs", "en-ja", trials=5, seed=2, cache_dir=tmp_path, progress=False)
    assert calls == []  # read back, not recomputed
    pd.testing.assert_frame_equal(first.frame, again.frame)
    more = run("rs", "en-ja", trials=8, seed=2, cache_dir=tmp_path, progress=False)
    assert calls == [5, 6, 7]
    pd.testing.assert_frame_equal(
        more.frame[more.frame.trial < 5].reset_index(drop=True), first.frame
    )


def test_interrupted_run_resumes(tmp_path, monkeypatch):
    real = experiment.run_trial
    done = []

    def flaky(spec, t):
        if t == 3:
            raise KeyboardInterrupt
        done.append(t)
        return real(spec, t)

    monkeypatch.setattr(experiment, "run_trial", flaky)
    with pytest.raises(KeyboardInterrupt):
        run("rs", "zh-en", trials=6, seed=0, cache_dir=tmp_path, progress=False)
    assert not list(tmp_path.glob("*.parquet"))
    partial = list((tmp_path / "partial").rglob("trial-*.npz"))
    assert len(partial) == 3 and not list(tmp_path.rglob("*.tmp"))
    monkeypatch.setattr(experiment, "run_trial", lambda s, t: done.append(t) or real(s, t))
    res = run("rs", "zh-en", trials=6, seed=0, cache_dir=tmp_path, progress=False)
    assert done == [0, 1, 2, 3, 4, 5]
    fresh = run("rs", "zh-en", trials=6, seed=0, progress=False)
    pd.testing.assert_frame_equal(res.frame, fresh.frame)


def test_bad_settings_are_clear_errors():
    with pytest.raises(KeyError, match="valid methods: rs"):
        run("sa", "zh-en", trials=1)
    with pytest.raises(KeyError, match="valid tasks"):
        run("rs", "xx-yy", trials=1)
    with pytest.raises(ValueError, match="trials=0: must be at least 1"):
        run("rs", "zh-en", trials=0)
    with pytest.raises(ValueError, match="budget=119: must be between n_init"):
        run("rs", "zh-en", trials=1, budget=119)


def test_save_writes_sequences_and_results(tmp_path):
    res = run("rs", "zh-en", trials=3, progress=False)
    res.save(tmp_path / "out")
    lines = (tmp_path / "out" / "sequences.ss").read_text().splitlines()
    assert [list(map(int, ln.split())) for ln in lines] == res.sequences
    assert pd.read_parquet(tmp_path / "out" / "results.parquet").equals(res.frame)


@pytest.mark.slow
def test_random_search_sw_en_matches_exact_expectation():
    table = load_table("sw-en")
    res = run("rs", "sw-en", trials=1000, seed=0, jobs=2, progress=False)
    f = evaluate_sequences(res.sequences, table.bleu)
    exact = expected_rs_ftb(767, 3)
    assert round(exact, 2) == 384.00
    assert abs(f["ftb"].mean() - exact) / exact < 0.03


# -- the API has the command line's limits and checks, before any work ------------------------
@pytest.mark.parametrize(
    ("kwargs", "kind", "needle"),
    [
        ({"trials": 10**12}, ValueError, "trials=1000000000000: must be at most 100,000"),
        ({"trials": 2.5}, TypeError, "trials=2.5: expected an integer, got float"),
        ({"trials": True}, TypeError, "expected an integer, got bool"),
        ({"jobs": 0}, ValueError, "jobs=0: must be at least 1"),
        ({"jobs": 10**6}, ValueError, "jobs=1000000: must be at most 256"),
        ({"seed": -1}, ValueError, "seed=-1: must be at least 0"),
        ({"budget": 2.5}, TypeError, "budget=2.5: expected an integer"),
        ({"n_init": "3"}, TypeError, "n_init='3': expected an integer, got str"),
        ({"objective": "time"}, ValueError, "objective='time': not one of 'bleu', 'pareto'"),
        ({"settings": [("k", 1)]}, TypeError, "settings=[('k', 1)]: expected a mapping"),
        ({"settings": {"k": 2.5}}, TypeError, "setting k=2.5: expected an integer"),
        ({"settings": {"k": 10**12}}, ValueError, "1 to 150 (the table's rows)"),
        ({"settings": {"nope": 1}}, KeyError, "has no setting 'nope'"),
        ({"sources": "zh-en"}, TypeError, "sources='zh-en': expected a sequence"),
        ({"cache_dir": ""}, ValueError, "cache_dir '': empty path; give a directory"),
        ({"cache_dir": 3}, TypeError, "cache_dir=3: expected a path"),
        ({"progress": "no"}, TypeError, "progress='no': expected True or False"),
    ],
)
def test_run_refuses_bad_arguments_before_any_work(
    kwargs: dict[str, Any], kind: type, needle: str, tmp_path: Path
) -> None:
    from nmthpo.errors import InputError

    with pytest.raises(InputError) as err:
        run("gb-ei-m", "ja-en", **{"trials": 1, **kwargs})
    assert isinstance(err.value, kind), type(err.value)
    assert needle in str(err.value)


def test_run_of_learning_curves_has_the_same_limits() -> None:
    from nmthpo.errors import InputError

    with pytest.raises(InputError, match="trials=1000000000000: must be at most"):
        run("sh", "lc-finetune-fr-en", trials=10**12)
    with pytest.raises(InputError, match="setting eta=1: must be > 1; method 'sh'"):
        run("sh", "lc-finetune-fr-en", trials=1, settings={"eta": 1})
    with pytest.raises(InputError, match="budget=2.5: expected an integer"):
        run("sh", "lc-finetune-fr-en", trials=1, budget=2.5)


def test_a_full_disk_leaves_no_part_of_an_output_and_a_rerun_writes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSPC while saving: one FaultError naming --out, no output file left (a rerun would
    otherwise take them for another run's), the user's own file untouched."""
    import errno

    from nmthpo.engine import runner as R
    from nmthpo.errors import FaultError

    res = run("rs", "zh-en", trials=2, budget=5, progress=False)
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    real = R._write_parquet

    def full(frame: pd.DataFrame, path: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(R, "_write_parquet", full)
    with pytest.raises(FaultError, match="No space left on device.*free some space"):
        res.save(out)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    monkeypatch.setattr(R, "_write_parquet", real)
    res.save(out)
    assert {"spec.json", "sequences.ss", "results.parquet", "notes.txt"} <= {
        p.name for p in out.iterdir()
    }
