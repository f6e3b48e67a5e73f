"""Settings declared beside each optimiser class (issue 22): the declarations match the
constructors, are read without numerical libraries, and ``nmthpo methods`` lists them."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import os
import pkgutil
import subprocess
import sys
from typing import Any

import pytest

import nmthpo.optimizers
from nmthpo.cli import main
from nmthpo.optimizers.base import TableOptimizer
from nmthpo.optimizers.multifidelity.base import FidelityOptimizer
from nmthpo.optimizers.registry import METHOD_KINDS, METHODS, constructor_settings
from nmthpo.optimizers.settings import complete, declared, describe, more, setting
from tests.paths import ROOT

HEAVY = ("scipy", "sklearn", "pandas", "pyarrow", "matplotlib", "optuna", "torch")
ADAPTERS = (
    "nmthpo.optimizers.adapters.optuna:OptunaSampler",
    "nmthpo.optimizers.adapters.hpob:HPOBOptimizer",
    "nmthpo.optimizers.multifidelity.optuna_pruner:OptunaPruner",
)


def _roles(spec: Any) -> list[tuple[bool, bool]]:
    return (
        [(False, False)]
        + [(True, False)] * (spec.transfer_cls is not None)
        + [(False, True)] * (spec.fidelity_cls is not None)
    )


#: Every class the registry names (in any role) and the adapters' classes.
CLASSES = sorted(
    {spec.class_path(t, f) for spec in METHODS.values() for t, f in _roles(spec)} | set(ADAPTERS)
)


def _load(path: str) -> type:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


def _constructor_defaults(cls: type) -> dict[str, Any]:
    """Keyword settings of the constructor -> defaults (following ``**kwargs`` up the MRO)."""
    names, _ = constructor_settings(cls)
    out: dict[str, Any] = {}
    for klass in cls.__mro__:
        init = vars(klass).get("__init__")
        if init is None or klass is object:
            continue
        for p in inspect.signature(init).parameters.values():
            if p.name in names and p.name not in out:
                out[p.name] = p.default
    return out


@pytest.mark.parametrize("path", CLASSES)
def test_declaration_matches_the_constructor(path: str) -> None:
    """Names and defaults of every class's ``Settings`` equal its constructor's keyword
    settings (the one check that replaces a hand-mirrored list)."""
    cls = _load(path)
    decl = declared(cls)
    assert decl is not None, f"{path} declares no Settings"
    assert decl.__dataclass_params__.frozen, path  # type: ignore[attr-defined]
    fields = {f.name: f.default for f in dataclasses.fields(decl)}
    assert fields == _constructor_defaults(cls), path
    assert [i.name for i in describe(decl)] == constructor_settings(cls)[0], path  # order
    for f in dataclasses.fields(decl):
        assert f.metadata.get("help"), (path, f.name)
        assert "\n" not in f.metadata["help"], (path, f.name)
    for name, spec in METHODS.items():  # a registry entry fixes only declared settings
        if any(spec.class_path(t, f) == path for t, f in _roles(spec)):
            assert set(spec.settings) <= set(fields), (name, path)


def test_every_optimizer_class_of_the_package_declares_its_settings() -> None:
    found = set()
    for info in pkgutil.walk_packages(nmthpo.optimizers.__path__, "nmthpo.optimizers."):
        mod = importlib.import_module(info.name)
        for name, obj in vars(mod).items():
            if (
                isinstance(obj, type)
                and obj.__module__ == mod.__name__
                and not name.startswith("_")
                and issubclass(obj, (TableOptimizer, FidelityOptimizer))
                and obj not in (TableOptimizer, FidelityOptimizer)
            ):
                assert declared(obj) is not None, f"{mod.__name__}:{name}"
                found.add(f"{mod.__name__}:{name}")
    assert set(CLASSES) <= found


def test_declarations_say_what_else_they_accept() -> None:
    """Only the Optuna adapters pass unknown keywords on (their lists are not complete)."""
    for path in CLASSES:
        decl = declared(_load(path))
        assert decl is not None
        assert complete(decl) == ("optuna" not in path), path
    assert "sampler" in (more(declared(_load(ADAPTERS[0]))) or "")  # type: ignore[arg-type]


def test_transfer_context_is_declared_as_context() -> None:
    from nmthpo.optimizers.registry import CONTEXT_KEYS as _CONTEXT_KEYS
    from nmthpo.optimizers.transfer.methods import TransferSettings

    assert {i.name for i in describe(TransferSettings) if i.context} == set(_CONTEXT_KEYS)


def test_a_subclass_without_its_own_declaration_is_introspected() -> None:
    """A declaration is the class's own: a user's subclass that adds a setting is not checked
    against its parent's list."""
    from nmthpo.optimizers.random import RandomSearch

    class Mine(RandomSearch):
        def __init__(self, X: Any, rng: Any, objective: str = "bleu", *, extra: int = 1) -> None:
            super().__init__(X, rng, objective)

    assert declared(RandomSearch) is not None and declared(Mine) is None

    @dataclasses.dataclass(frozen=True)
    class MineSettings:
        extra: int = setting(1, "an extra setting")

    Mine.Settings = MineSettings  # type: ignore[attr-defined]
    assert declared(Mine) is MineSettings
    assert [i.name for i in describe(MineSettings, {"extra": 2})] == ["extra"]
    assert describe(MineSettings, {"extra": 2})[0].default == 2
    assert describe(MineSettings, {"extra": 2})[0].fixed


def test_method_kinds() -> None:
    kinds = {name: spec.kind for name, spec in METHODS.items()}
    assert set(kinds.values()) <= set(METHOD_KINDS)
    assert (
        kinds["rs"],
        kinds["bo-ei-m"],
        kinds["bo-m"],
        kinds["igp"],
        kinds["transbo"],
        kinds["sh"],
    ) == ("table+pareto", "table", "pareto", "transfer", "transfer", "multi-fidelity")


def _probe(code: str) -> set[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


def test_declarations_are_read_without_numerical_libraries() -> None:
    """Reading every declaration (and ``nmthpo methods``) loads NumPy at most: the optimiser
    modules import SciPy, pandas and Optuna where they use them."""
    mods = _probe(
        "import io, json, sys, contextlib\n"
        "from nmthpo.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['methods']) == 0 and main(['methods', '--json']) == 0\n"
        f"from nmthpo.optimizers.settings import declared\n"
        f"import importlib\n"
        f"for p in {CLASSES!r}:\n"
        "    m, _, c = p.partition(':')\n"
        "    assert declared(getattr(importlib.import_module(m), c)) is not None\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    assert mods.isdisjoint(HEAVY), sorted(mods & set(HEAVY))


def test_methods_json_lists_every_method_with_its_declared_settings(capsys: Any) -> None:
    assert main(["methods", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == list(METHODS)
    for r in rows:
        spec = METHODS[r["name"]]
        assert r["kind"] == spec.kind and r["description"] == spec.description
        for key, (transfer, fidelity) in (
            ("", (False, False)),
            ("with_sources", (True, False)),
            ("on_curves", (False, True)),
        ):
            info = r if not key else r[key]
            if key and info is None:
                assert spec.class_path(transfer, fidelity) == spec.path
                continue
            decl = declared(_load(spec.class_path(transfer, fidelity)))
            assert info["class"] == spec.class_path(transfer, fidelity) and info["declared"]
            expect = [i for i in describe(decl, spec.settings) if not i.context]  # type: ignore
            assert [s["name"] for s in info["settings"]] == [i.name for i in expect]
            for s, i in zip(info["settings"], expect, strict=True):
                assert (s["type"], s["default"], s["help"], s["fixed"]) == (
                    i.type,
                    i.default,
                    i.help,
                    i.fixed,
                ), (r["name"], i.name)
                assert s["default"] == spec.settings.get(i.name, i.default)
            assert info["context"] == [i.name for i in describe(decl) if i.context]
    by_name = {r["name"]: r for r in rows}
    kernel = next(s for s in by_name["bo-ei-r"]["settings"] if s["name"] == "kernel")
    assert kernel["default"] == "rbf" and kernel["fixed"]  # the entry's value, not matern52
    assert by_name["rs"]["with_sources"]["class"].endswith(":RandomTransfer")
    assert by_name["tst"]["context"] == ["sources", "kernel", "target_task", "metafeatures"]


def test_methods_text_fits_100_columns(capsys: Any) -> None:
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 100
    heads = {line.split()[0] for line in lines if line and not line.startswith(" ")}
    assert set(METHODS) <= heads
    for needle in (
        "optuna:<Sampler>",
        "optuna-pruner:<Pruner>",
        "module:Class",
        "kernel         str           rbf*",
    ):
        assert needle in out, needle


@pytest.mark.parametrize("command", ["methods", "tasks"])
def test_json_into_a_closed_pipe_is_quiet(command: str) -> None:
    """``nmthpo methods --json | head -1``: no BrokenPipeError traceback."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        f"'{sys.executable}' -m nmthpo.cli {command} --json | head -c 1 >/dev/null; "
        f"'{sys.executable}' -m nmthpo.cli {command} --json | true",
        shell=True,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.stderr == "", proc.stderr


# -- values: types and ranges declared beside each method ---------------------------------------
def _simple_fields(decl: type) -> list[dataclasses.Field[Any]]:
    kinds = {"int", "float", "bool", "str", "None"}
    return [
        f
        for f in dataclasses.fields(decl)
        if not f.metadata.get("context") and {p.strip() for p in str(f.type).split("|")} <= kinds
    ]


@pytest.mark.parametrize("path", CLASSES)
def test_every_default_is_allowed_by_its_declaration(path: str) -> None:
    """The declared default of every setting passes its own type and range check."""
    from nmthpo.optimizers.settings import check_values

    decl = declared(_load(path))
    assert decl is not None
    check_values(decl, {f.name: f.default for f in _simple_fields(decl)}, path, rows=118)


@pytest.mark.parametrize("path", CLASSES)
def test_every_number_has_a_declared_range(path: str) -> None:
    """Each int or float setting says what it allows (no silently accepted -1 or 10**12)."""
    decl = declared(_load(path))
    assert decl is not None
    for f in _simple_fields(decl):
        kinds = {p.strip() for p in str(f.type).split("|")}
        if kinds & {"int", "float"}:
            assert f.metadata.get("low") is not None, f"{path}.{f.name} has no lower bound"
        if "int" in kinds:
            assert f.metadata.get("high") is not None, f"{path}.{f.name} has no upper bound"


@pytest.mark.parametrize(
    ("method", "settings", "kind", "needle"),
    [
        ("gb-ei-m", {"k": 2.5}, TypeError, "setting k=2.5: expected an integer, got float"),
        ("gb-ei-m", {"k": True}, TypeError, "setting k=True: expected an integer, got bool"),
        ("gb-ei-m", {"k": 151}, ValueError, "1 to 150 (the table's rows)"),
        ("gb-ei-m", {"kernel": "cosine"}, ValueError, "one of matern52, rbf"),
        ("gb-ei-m", {"eps": -1.0}, ValueError, "setting eps=-1: must be > 0"),
        ("ga", {"population": 10**12}, ValueError, "2 to 150 (the table's rows)"),
        ("ga", {"population": 1e12}, TypeError, "expected an integer, got float"),
        ("bo-ei-m", {"restarts": 10**9}, ValueError, "allows int: 0 to 100"),
        ("bo-m", {"log_time": "abc"}, TypeError, "expected true or false, got str"),
        ("bo-ei-m", {"xi": float("nan")}, ValueError, "must be a finite number"),
        ("optuna:TPESampler", {"n_startup_trials": "abc"}, TypeError, "expected an integer"),
        ("optuna:CmaEsSampler", {"sigma0": -1}, ValueError, "setting sigma0=-1: must be > 0"),
        ("optuna:TPESampler", {"nope": 1}, KeyError, "TPESampler takes: consider_prior"),
        ("gb-ei-m", {"nope": 1}, KeyError, "valid settings of nmthpo.optimizers.graph"),
    ],
)
def test_check_settings_refuses_with_one_clear_message(
    method: str, settings: dict[str, Any], kind: type, needle: str
) -> None:
    from nmthpo.errors import InputError
    from nmthpo.optimizers.registry import check_settings, resolve

    with pytest.raises(InputError) as err:
        check_settings(resolve(method), settings, method, rows=150)
    assert isinstance(err.value, kind)
    assert needle in str(err.value) and method in str(err.value)


def test_check_settings_accepts_allowed_values() -> None:
    from nmthpo.optimizers.registry import check_settings, resolve

    check_settings(resolve("gb-ei-m"), {"k": 10, "eps": 1e-3, "kernel": "rbf"}, rows=150)
    check_settings(resolve("bo-ei-m"), {"xi": 0, "restarts": 0}, rows=150)  # an int as a float
    check_settings(resolve("optuna:TPESampler"), {"n_startup_trials": 3, "multivariate": True})
    check_settings(resolve("gb-ei-m"), {"k": None}, rows=150)


@pytest.mark.parametrize("value", [-(10**6), -1, 0, 1, 150, 151, 10**6])
def test_integer_bounds_are_exact(value: int) -> None:
    """``k`` of a graph method: 1 to the table's rows, nothing else."""
    from nmthpo.errors import InputValueError
    from nmthpo.optimizers.registry import check_settings, resolve

    if 1 <= value <= 150:
        check_settings(resolve("gb-ei-m"), {"k": value}, rows=150)
    else:
        with pytest.raises(InputValueError):
            check_settings(resolve("gb-ei-m"), {"k": value}, rows=150)
