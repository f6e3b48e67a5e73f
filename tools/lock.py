"""Write ``requirements.lock`` (exact versions of every package) and the pins of environment.yml.

    python tools/lock.py --from-venv .venv   # freeze the environment that made the book's outputs
    python tools/lock.py                     # resolve pyproject.toml afresh in a temporary venv

The lock pins every distribution, direct and transitive, to the version that produced the
committed outputs, so a newcomer's ``make`` installs exactly that environment and nbval sees the
same numbers. ``environment.yml`` names the direct dependencies with the same ``==`` pins and
includes the lock for the rest; ``tests/book/test_environment.py`` checks that the three files
agree.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"
ENV = ROOT / "environment.yml"

HEADER = """\
# Exact versions of every package of the project's environment (direct and transitive).
# `make` installs from this file; `make lock` re-resolves pyproject.toml and rewrites it.
# Written by tools/lock.py; tests/book/test_environment.py checks it against pyproject.toml and
# environment.yml.
"""


def _name(req: str) -> str:
    return re.split(r"[<>=!~\[; ]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")


def freeze(python: Path) -> list[str]:
    """``pip freeze`` of an environment, without the project itself, sorted by name."""
    out = subprocess.run(
        [str(python), "-m", "pip", "freeze", "--exclude-editable", "--all"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    pins = [
        ln.strip()
        for ln in out.splitlines()
        if ln.strip()
        and not ln.startswith("#")
        and "==" in ln
        and _name(ln) not in ("nmthpo", "pip", "setuptools", "wheel")
    ]
    return sorted(pins, key=_name)


def fresh_freeze() -> list[str]:
    """Resolve ``.[dev]`` in a temporary virtual environment and freeze it."""
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        py = venv / "bin" / "python"
        subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "--quiet", f"{ROOT}[dev]"], check=True)
        return freeze(py)


def direct_requirements() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return list(project["dependencies"]) + list(project["optional-dependencies"]["dev"])


def environment_yml(pins: dict[str, str]) -> str:
    lines = [
        "# Conda environment with the same pins as requirements.lock (written by tools/lock.py;",
        "# tests/book/test_environment.py checks that it, the lock and pyproject.toml agree).",
        "name: nmthpo",
        "channels:",
        "  - conda-forge",
        "dependencies:",
        "  - python=3.11",
        "  - pip",
        "  - pip:",
    ]
    for req in direct_requirements():
        name = _name(req)
        lines.append(f"      - {name}=={pins[name]}")
    lines += ["      - -r requirements.lock", "      - -e ."]
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--from-venv", type=Path, help="freeze this virtual environment instead")
    args = p.parse_args()
    pins = freeze(args.from_venv / "bin" / "python") if args.from_venv else fresh_freeze()
    by_name = {_name(x): x.split("==", 1)[1] for x in pins}
    missing = [r for r in direct_requirements() if _name(r) not in by_name]
    if missing:
        sys.exit(f"lock: the environment lacks {missing}; install '.[dev]' into it first")
    LOCK.write_text(HEADER + "\n".join(pins) + "\n")
    ENV.write_text(environment_yml(by_name))
    print(f"wrote {LOCK.name} ({len(pins)} packages) and {ENV.name}")


if __name__ == "__main__":
    main()
