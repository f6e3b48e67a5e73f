"""Tests for nmthpo.commands.ga_study: the ``ga-study`` subcommand."""

from __future__ import annotations

import argparse
import json
import re

import pytest

from nmthpo.commands import ga_study


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="nmthpo")
    sub = p.add_subparsers(dest="command", required=True)
    ga_study.register(sub)
    return p


ARGS = [
    "ga-study",
    "--task",
    "ja-en",
    "--target",
    "16",
    "--init-pop",
    "5,10",
    "--iterations",
    "20",
    "--trials",
    "2",
    "--seed",
    "1",
]


def test_json_keys(capsys):
    args = parser().parse_args([*ARGS, "--json"])
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"ga", "baseline", "per_trial", "difference", "rules"} <= set(out)
    assert set(out["ga"]) == {"5", "10"} and set(out["baseline"]) == {"5", "10"}
    # seeded: the numbers of this call (also in test_text_tables)
    assert out["ga"] == {"5": 21.925, "10": 20.8}
    assert out["baseline"] == {"5": 24.375, "10": 21.3}
    for side in ("ga", "baseline"):
        for m in ("5", "10"):
            trials = out["per_trial"][side][m]
            assert len(trials) == 2 and out[side][m] == pytest.approx(sum(trials) / 2, abs=1e-3)
            # each trial value is the mean of 20 (iterations) integer counts
            assert all(abs(t * 20 - round(t * 20)) < 1e-6 for t in trials), trials
    for m in ("5", "10"):
        assert out["difference"][m] == pytest.approx(out["baseline"][m] - out["ga"][m], abs=1e-3)
    assert out["rules"]["target"] == 16.0


def test_text_tables(capsys):
    args = parser().parse_args(ARGS)
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "Table 2" in out and "Table 3" in out and "Table 4" in out
    assert "trial 1" in out and "trial 2" in out and "20.071" in out  # the paper's m = 5
    # the rows of m = 5: trials, average, se, paper (GA; baseline; baseline - GA)
    for row in (
        "5 21.250 22.600 21.925 3.209 20.071",
        "5 18.700 30.050 24.375 3.465 21.425",
        "5 GA 2.450 3.878 1.354",
    ):
        assert re.search(
            r"^\s*" + r"\s+".join(map(re.escape, row.split())) + r"$", out, re.MULTILINE
        ), (row, out)


def test_defaults():
    args = parser().parse_args(["ga-study"])
    assert (args.task, args.target, args.init_pop, args.iterations, args.trials) == (
        "ja-en",
        16.0,
        [5, 10, 15, 20, 25],
        1000,
        3,
    )


@pytest.mark.parametrize(
    "extra, exc, msg",
    [
        (["--task", "xx-en"], KeyError, "unknown task"),
        (["--target", "17"], ValueError, "never stop"),
    ],
)
def test_errors(extra, exc, msg):
    args = parser().parse_args([*ARGS, *extra])
    with pytest.raises(exc, match=msg):
        args.func(args)


@pytest.mark.parametrize(
    "extra, msg",
    [
        (["--init-pop", "5,x"], "argument --init-pop: 'x' in '5,x': expected an integer, got 'x'"),
        (["--init-pop", "0,5"], "argument --init-pop: '0' in '0,5': must be >= 1, got 0"),
        (["--iterations", "0"], "argument --iterations: must be >= 1, got 0"),
        (["--iterations", str(10**12)], "argument --iterations: must be at most 100,000"),
    ],
)
def test_malformed_sizes_rejected_by_argparse(extra, msg, capsys):
    with pytest.raises(SystemExit) as exc:
        parser().parse_args(["ga-study", *extra])
    assert exc.value.code == 2  # a usage error, not --help's 0
    err = capsys.readouterr().err
    assert f"nmthpo ga-study: error: {msg}" in err, err
