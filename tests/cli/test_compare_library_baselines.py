"""``nmthpo compare --baselines`` with another library's methods (issue 24, deliverable 5):
computed into the user cache like any baseline the book has not cached."""

from __future__ import annotations

import importlib.util
import json

import pytest

from nmthpo.cli import main


@pytest.fixture
def mine(tmp_path, monkeypatch):
    monkeypatch.setenv("NMTHPO_RESULTS", str(tmp_path / "cache"))
    monkeypatch.delenv("NMTHPO_WRITE_RESULTS", raising=False)
    out = tmp_path / "mine"
    args = ["run", "rs", "--task", "ja-en", "--trials", "4", "--quiet", "--out", str(out)]
    assert main([*args, "--name", "my-rs"]) == 0
    return out


def test_a_library_method_is_a_baseline_computed_into_the_user_cache(mine, tmp_path, capsys):
    capsys.readouterr()
    argv = ["compare", str(mine), "--task", "ja-en", "--quiet", "--json"]
    assert main([*argv, "--baselines", "optuna:TPESampler"]) == 0
    methods = json.loads(capsys.readouterr().out)["methods"]
    assert set(methods) == {"my-rs", "rs", "optuna:TPESampler"}
    cached = list((tmp_path / "cache").rglob("optuna-TPESampler__ja-en__*.parquet"))
    assert len(cached) == 1
    # a library's method named alone (hebo) is accepted as a name; without the extra it is
    # refused in one line naming the extra, before any work
    if importlib.util.find_spec("hebo") is None:
        assert main([*argv, "--baselines", "hebo"]) == 2
        err = capsys.readouterr().err
        assert "peers extra" in err and "Traceback" not in err
