"""Tests for nmthpo.commands.ga_study: the ``ga-study`` subcommand."""

from __future__ import annotations

import argparse
import json

import pytest

from nmthpo.commands import ga_study


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="nmthpo")
    sub = p.add_subparsers(dest="command", required=True)
    ga_study.register(sub)
    return p


ARGS = ["ga-study", "--task", "ja-en", "--target", "16", "--init-pop", "5,10",
        "--iterations", "20", "--trials", "2", "--seed", "1"]


def test_json_keys(capsys):
    args = parser().parse_args([*ARGS, "--json"])
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"ga", "baseline", "per_trial", "difference", "rules"} <= set(out)
    assert set(out["ga"]) == {"5", "10"} and set(out["baseline"]) == {"5", "10"}
    assert len(out["per_trial"]["ga"]["5"]) == 2
    assert out["difference"]["5"] == pytest.approx(out["baseline"]["5"] - out["ga"]["5"],
                                                   abs=1e-3)


def test_text_tables(capsys):
    args = parser().parse_args(ARGS)
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "Table 2" in out and "Table 3" in out and "Table 4" in out
    assert "trial 1" in out and "trial 2" in out and "20.071" in out


def test_defaults():
    args = parser().parse_args(["ga-study"])
    assert (args.task, args.target, args.init_pop, args.iterations, args.trials) == (
        "ja-en", 16.0, [5, 10, 15, 20, 25], 1000, 3)


@pytest.mark.parametrize("extra, exc, msg", [
    (["--task", "xx-en"], KeyError, "unknown task"),
    (["--target", "17"], ValueError, "never stop"),
])
def test_errors(extra, exc, msg):
    args = parser().parse_args([*ARGS, *extra])
    with pytest.raises(exc, match=msg):
        args.func(args)


@pytest.mark.parametrize("extra", [["--init-pop", "5,x"], ["--init-pop", "0,5"],
                                   ["--iterations", "0"], ["--iterations", str(10**12)]])
def test_malformed_sizes_rejected_by_argparse(extra):
    with pytest.raises(SystemExit):
        parser().parse_args(["ga-study", *extra])
