"""Tests for ``nmthpo score-spaces`` (nmthpo.commands.score_spaces)."""

from __future__ import annotations

import argparse
import json

import pytest

from nmthpo.benchmark.tables import load_table
from nmthpo.commands import score_spaces
from nmthpo.commands.score_spaces import parse_budgets


def _has_data() -> bool:
    try:
        load_table("zh-en")
    except Exception:
        return False
    return True


needs_data = pytest.mark.skipif(
    not _has_data(), reason="NMTHPO data not installed (set NMTHPO_DATA=../shared/data/hpo_nmt)"
)


def _parse(argv):
    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    score_spaces.register(sub)
    return p.parse_args(["score-spaces", *argv])


def test_parse_budgets():
    assert parse_budgets("1, 2,5") == [1, 2, 5]
    with pytest.raises(ValueError, match="'x' in '1,x'"):
        parse_budgets("1,x")
    with pytest.raises(ValueError, match=">= 1"):
        parse_budgets("0,2")
    with pytest.raises(ValueError, match="lists no number"):
        parse_budgets(",")


def test_register_sets_func_and_defaults():
    args = _parse(["--task", "zh-en"])
    assert args.func is score_spaces.run
    assert (args.spaces, args.seed_size, args.budgets, args.score, args.seed, args.json) == (
        "default",
        20,
        "1,2,5,10,20,50",
        "mean-b-ei",
        0,
        False,
    )


@needs_data
def test_json_shape(capsys):
    args = _parse(
        [
            "--task",
            "zh-en",
            "--spaces",
            "full,layers=2,layers=4,embed=256",
            "--seed-size",
            "10",
            "--budgets",
            "1,5",
            "--score",
            "mean-b-pi",
            "--json",
        ]
    )
    assert args.func(args) == 0
    res = json.loads(capsys.readouterr().out)
    assert set(res) == {
        "task",
        "seed_size",
        "seed",
        "score",
        "budgets",
        "incumbent",
        "spaces",
        "faithfulness",
        "preferred",
    }
    assert res["budgets"] == [1, 5] and res["score"] == "mean-b-pi"
    assert [s["space"] for s in res["spaces"]] == ["full", "layers=2", "layers=4", "embed=256"]
    for s in res["spaces"]:
        assert set(s) == {"space", "rows", "predicted", "empirical", "empirical_norepl"}
        assert len(s["predicted"]) == 2 and all(0 <= p <= 1 for p in s["predicted"])
    assert res["spaces"][0]["rows"] == 118
    assert [f["budget"] for f in res["faithfulness"]] == [1, 5]
    assert set(res["faithfulness"][0]) == {
        "budget",
        "n_spaces",
        "kendall_tau",
        "spearman",
        "top1",
        "regret",
    }
    assert [p["budget"] for p in res["preferred"]] == [1, 5]


@needs_data
def test_text_output(capsys):
    args = _parse(
        ["--task", "zh-en", "--spaces", "full,layers=2", "--seed-size", "10", "--budgets", "2"]
    )
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "faithfulness per budget" in out and "layers=2" in out and "b=2" in out


@pytest.mark.parametrize(
    "argv,exc,msg",
    [
        (["--task", "xx-en"], KeyError, "unknown task"),
        (["--task", "zh-en", "--spaces", "layers=3"], ValueError, "not a value of 'layers'"),
        (["--task", "zh-en", "--spaces", "layers=2;layers=4"], ValueError, "empty space"),
        (["--task", "zh-en", "--spaces", "depth=2"], KeyError, "depth"),
    ],
)
@needs_data
def test_bad_input_raises(argv, exc, msg):
    args = _parse(argv)
    with pytest.raises(exc, match=msg):
        args.func(args)


@pytest.mark.parametrize(
    "argv", [["--budgets", "0,1"], ["--budgets", "1000000000"], ["--seed-size", "0"]]
)
def test_bad_sizes_rejected_by_argparse(argv):
    with pytest.raises(SystemExit):
        _parse(["--task", "zh-en", *argv])
