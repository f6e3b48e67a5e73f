"""pyproject.toml, requirements.lock and environment.yml name one pinned environment."""

import re
import tomllib

from packaging.requirements import Requirement

from tests.paths import ROOT


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def _lock() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pins[_name(name)] = version.strip()
    return pins


def _direct() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [
        Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["dev"]
    ]


def test_lock_pins_every_dependency_within_pyproject_bounds():
    pins = _lock()
    for req in _direct():
        assert _name(req.name) in pins, f"{req.name} is not in requirements.lock"
        assert req.specifier.contains(pins[_name(req.name)], prereleases=True), (
            f"lock pins {req.name}=={pins[_name(req.name)]} outside pyproject's {req.specifier}"
        )


def test_lock_has_only_exact_pins():
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            assert re.fullmatch(r"[A-Za-z0-9_.\-\[\],]+==[A-Za-z0-9_.+!\-]+", line), line


def test_environment_yml_names_the_same_pins():
    pins = _lock()
    text = (ROOT / "environment.yml").read_text()
    listed = dict(re.findall(r"^\s{6}-\s+([A-Za-z0-9_.\-]+)==(\S+)\s*$", text, re.M))
    assert {_name(k) for k in listed} == {_name(r.name) for r in _direct()}
    for name, version in listed.items():
        assert pins[_name(name)] == version, f"environment.yml pins {name}=={version}"
    assert "- -r requirements.lock" in text
    assert "python=3.11" in text
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11"


def test_makefile_installs_from_the_lock():
    make = (ROOT / "Makefile").read_text()
    assert "-r requirements.lock" in make
    assert "--no-deps -e ." in make


def test_the_version_is_written_in_one_place():
    import importlib.metadata

    import nmthpo

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert importlib.metadata.version("nmthpo") == nmthpo.__version__
    assert f"## [{nmthpo.__version__}]" in (ROOT / "CHANGELOG.md").read_text()
