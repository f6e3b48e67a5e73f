"""Lazy start-up (issue 15, item 2): ``nmthpo --help`` loads no numerical library, and
``run`` loads only what its method needs (checked in a fresh interpreter via sys.modules)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

HEAVY = ("pandas", "scipy", "sklearn", "matplotlib", "optuna", "dask", "distributed", "pyarrow")

PROBE = """
import json, sys
from nmthpo.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted({m.split(".")[0] for m in sys.modules})}))
"""


def _loaded(args: list[str], cwd: Path) -> tuple[int, set[str]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    return res["code"], set(res["modules"])


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["run", "--help"],
        ["evaluate", "--help"],
        ["ga-study", "--help"],
        ["transfer", "--help"],
        ["compare", "--help"],
        ["score-spaces", "--help"],
    ],
)
def test_help_loads_no_numerical_library(tmp_path: Path, args: list[str]) -> None:
    code, mods = _loaded(args, tmp_path)
    assert code == 0
    assert mods.isdisjoint(HEAVY), sorted(mods & set(HEAVY))
    assert "numpy" not in mods


def test_run_loads_only_what_the_method_needs(tmp_path: Path) -> None:
    code, mods = _loaded(
        [
            "run",
            "rs",
            "--task",
            "ja-en",
            "--trials",
            "2",
            "--quiet",
            "--out",
            str(tmp_path / "out"),
        ],
        tmp_path,
    )
    assert code == 0
    assert mods.isdisjoint({"scipy", "sklearn", "matplotlib", "optuna", "dask", "distributed"}), (
        sorted(mods)
    )


def test_unknown_setting_is_refused_before_any_numerical_library(tmp_path: Path) -> None:
    """``--set`` names of a registered method are checked against the registry alone: no
    optimiser module, no SciPy, scikit-learn or pandas, no table loaded (issue 12)."""
    out = tmp_path / "out"
    code, mods = _loaded(
        ["run", "gb-ei-m", "--task", "ja-en", "--set", "foo=1", "--trials", "2", "--out", str(out)],
        tmp_path,
    )
    assert code == 2
    assert mods.isdisjoint({"scipy", "sklearn", "pandas", "pyarrow", "matplotlib"}), sorted(
        mods & set(HEAVY)
    )
    assert not out.exists()
