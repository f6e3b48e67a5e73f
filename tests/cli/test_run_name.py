"""``nmthpo run --name``: a display name that compare shows, not part of the run's key."""

import json

import pytest

from nmthpo.cli import main
from nmthpo.engine.compare import compare, load_run_dir


def test_name_is_written_read_back_and_shown(tmp_path, capsys):
    out = tmp_path / "mine"
    args = ["run", "rs", "--task", "ja-en", "--trials", "3", "--quiet", "--out", str(out)]
    assert main([*args, "--name", "my-rs"]) == 0
    assert json.loads((out / "spec.json").read_text())["name"] == "my-rs"
    run = load_run_dir(out)
    assert run.name == "my-rs" and run.spec.method == "rs"
    # renaming the same run is not another run's output
    assert main([*args, "--name", "other"]) == 0
    assert load_run_dir(out).name == "other"
    board = compare([load_run_dir(out)], "ja-en", baselines=[]).leaderboard()
    assert "other" in board.index


@pytest.mark.parametrize("bad", ["", " x", "a" * 41, "tab\there"])
def test_bad_names_are_refused_in_one_line(tmp_path, capsys, bad):
    with pytest.raises(SystemExit) as exc:
        main(["run", "rs", "--task", "ja-en", "--out", str(tmp_path / "o"), "--name", bad])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--name" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()
