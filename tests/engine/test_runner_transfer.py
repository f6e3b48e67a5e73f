"""Tests of the transfer runs of nmthpo.engine.runner and the ``nmthpo transfer`` command."""

import argparse

import numpy as np
import pandas as pd
import pytest

from nmthpo.commands import transfer as transfer_cmd
from nmthpo.engine.runner import (
    RunSpec,
    default_sources,
    run_specs,
    run_transfer,
)
from nmthpo.engine.runner import run_trial as run_transfer_trial
from nmthpo.studies.li_transbo.designs import (
    dynamic_experiment,
    static_experiment,
    subset_sources,
)

SPEC = RunSpec("transbo", "zh-en", sources=("ru-en", "ja-en"), n_source=10, budget=8)


def test_trial_rows_unique_deterministic_and_common_initial_rows():
    a, b = run_transfer_trial(SPEC, 0), run_transfer_trial(SPEC, 0)
    np.testing.assert_array_equal(a["row"], b["row"])
    np.testing.assert_array_equal(a["target_weight"], b["target_weight"])
    assert np.unique(a["row"]).size == 8
    rs = run_transfer_trial(RunSpec("rs", "zh-en", sources=SPEC.sources, n_source=10, budget=8), 0)
    np.testing.assert_array_equal(rs["row"][:3], a["row"][:3])
    assert np.isnan(a["target_weight"][:3]).all() and (a["seconds"][3:] > 0).all()


COLS = ["rep", "step", "row", "bleu", "target_weight", "w_ru-en"]


@pytest.mark.slow
def test_one_and_two_workers_identical():
    one = run_transfer("tst", "zh-en", ("ru-en",), n_source=10, budget=6, repeats=2)
    two = run_transfer("tst", "zh-en", ("ru-en",), n_source=10, budget=6, repeats=2, jobs=2)
    pd.testing.assert_frame_equal(one.frame[COLS], two.frame[COLS])


def test_cache_resumes_and_reads_back(tmp_path):
    cols = COLS
    two = run_transfer(
        "tst", "zh-en", ("ru-en",), n_source=10, budget=6, repeats=2, cache_dir=tmp_path
    )
    more = run_transfer(
        "tst", "zh-en", ("ru-en",), n_source=10, budget=6, repeats=3, cache_dir=tmp_path
    )
    assert more.frame["rep"].nunique() == 3
    pd.testing.assert_frame_equal(
        more.frame[more.frame["rep"] < 2][cols].reset_index(drop=True), two.frame[cols]
    )
    assert len(list(tmp_path.glob("*.parquet"))) == 1
    again = run_transfer(
        "tst", "zh-en", ("ru-en",), n_source=10, budget=6, repeats=3, cache_dir=tmp_path
    )
    pd.testing.assert_frame_equal(again.frame, more.frame)  # read back, seconds included


def test_static_and_dynamic_experiments_small():
    f = static_experiment(
        ["rs", "pogpe"], targets=("zh-en", "ja-en"), n_sources=2, n_source=10, budget=5, repeats=1
    )
    assert set(f["target"]) == {"zh-en", "ja-en"} and set(f["n_sources"]) == {2}
    d = dynamic_experiment(
        ["pogpe"], order=("ja-en", "zh-en", "ru-en"), n_source=10, budget=4, repeats=1
    )
    assert d.groupby("target")["n_sources"].first().to_dict() == {"zh-en": 1, "ru-en": 2}
    assert sorted(d["position"].unique()) == [2, 3]


def test_source_helpers_and_nmtlc():
    assert default_sources("zh-en") == ("ru-en", "ja-en", "en-ja", "sw-en", "so-en")
    assert default_sources("lc-finetune-zh-en") == ("lc-finetune-fr-en",)
    s = subset_sources("sw-en", 2, seed=0)
    assert len(s) == 2 and "sw-en" not in s and s == subset_sources("sw-en", 2, seed=0)
    res = run_specs(
        [
            RunSpec(
                "transbo",
                "lc-finetune-fr-en",
                sources=("lc-finetune-zh-en",),
                n_source=10,
                budget=6,
            )
        ],
        repeats=1,
    )[0]
    assert res.frame["row"].nunique() == 6


def test_validation_messages():
    with pytest.raises(KeyError, match="valid methods"):
        RunSpec("nope", "zh-en", sources=("ru-en",)).validate()
    with pytest.raises(KeyError, match="valid tasks"):
        RunSpec("rgpe", "xx-en", sources=("ru-en",)).validate()
    with pytest.raises(ValueError, match="budget"):
        RunSpec("rgpe", "zh-en", sources=("ru-en",), budget=1000).validate()
    with pytest.raises(ValueError, match="n_source"):
        RunSpec("rgpe", "zh-en", sources=("ru-en",), n_source=1000).validate()


def _parser():
    p = argparse.ArgumentParser()
    transfer_cmd.register(p.add_subparsers())
    return p


def test_cli_writes_trajectories_and_weights(tmp_path, capsys):
    args = _parser().parse_args(
        [
            "transfer",
            "pogpe",
            "--target",
            "zh-en",
            "--sources",
            "ru-en,ja-en",
            "--n-source",
            "10",
            "--trials",
            "5",
            "--repeats",
            "2",
            "--seed",
            "1",
            "--out",
            str(tmp_path),
            "--quiet",
        ]
    )
    assert args.func(args) == 0
    assert "2 repetitions of pogpe" in capsys.readouterr().out
    traj = pd.read_parquet(tmp_path / "trajectories.parquet")
    assert len(traj) == 10
    w = pd.read_csv(tmp_path / "target_weights.csv")
    assert list(w.columns[:3]) == ["rep", "step", "target_weight"]
    assert (tmp_path / "sequences.ss").read_text().count("\n") == 2
    bad = _parser().parse_args(
        [
            "transfer",
            "transbo",
            "--target",
            "zh-en",
            "--sources",
            "lc-finetune-zh-en",
            "--out",
            str(tmp_path),
        ]
    )
    with pytest.raises(ValueError, match="valid sources: ru-en"):
        bad.func(bad)


def test_cached_transfer_run_records_spec_and_machine(tmp_path):
    from nmthpo.engine.cache import machine_fingerprint
    from nmthpo.engine.runner import cached_runs, run_machine

    res = run_transfer(
        "igp", "zh-en", ("ru-en",), n_source=10, budget=5, repeats=2, cache_dir=tmp_path
    )
    ((spec, path),) = cached_runs(tmp_path)
    assert spec == res.spec and path.stem == res.spec.stem()
    assert run_machine(path) == machine_fingerprint() != "unknown"
    fresh = run_transfer_trial(spec, 1)
    np.testing.assert_array_equal(res.frame.query("rep == 1")["row"], fresh["row"])
