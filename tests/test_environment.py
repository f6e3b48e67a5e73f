"""environment.yml (conda users) names the same dependencies as pyproject.toml."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _norm(req: str) -> str:
    return re.sub(r"\s+", "", req).lower()


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_norm(r) for r in project["dependencies"]}
    wanted |= {_norm(r) for r in project["optional-dependencies"]["dev"]}
    pip_lines = []
    for line in (ROOT / "environment.yml").read_text().splitlines():
        m = re.match(r"^\s{6}-\s+(.+?)\s*$", line)
        if m and not m.group(1).startswith("-e"):
            pip_lines.append(_norm(m.group(1)))
    assert set(pip_lines) == wanted
    assert len(pip_lines) == len(set(pip_lines))
    assert "python>=3.11" in (ROOT / "environment.yml").read_text()
    assert project["requires-python"] == ">=3.11"
