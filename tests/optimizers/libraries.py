"""Helpers for the tests of other libraries' adapters (the ``peers`` extra)."""

from __future__ import annotations

import importlib
import importlib.util

import pytest

#: What the one-line refusal of a method without its library says.
REFUSAL = r"install the peers extra: make peers \(pip install -e '\.\[peers\]'"


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (its library is installed)."""
    return importlib.util.find_spec(module) is not None


def hide(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    """Make ``importlib.import_module`` fail for ``module`` and its submodules, as if its
    library were not installed (the adapters import their library through it)."""
    real = importlib.import_module

    def missing(name, *args, **kwargs):
        if name.split(".")[0] == module:
            raise ModuleNotFoundError(f"No module named {name!r}")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(importlib, "import_module", missing)
