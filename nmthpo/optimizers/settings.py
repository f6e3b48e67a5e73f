"""Method settings, declared beside each optimiser class as a small frozen dataclass.

An optimiser class declares the keyword settings of its constructor in a frozen dataclass next
to it, attached as the class attribute ``Settings``; each field has a type, a default and a
one-line help (:func:`setting`)::

    @dataclass(frozen=True)
    class GraphSMBOSettings:
        kernel: str = setting("matern52", "edge-weight kernel of the graph: matern52, rbf")
        k: int | None = setting(None, "kNN neighbourhood size (None: the paper's rule)")

    class GraphSMBO(TableOptimizer):
        Settings = GraphSMBOSettings

        def __init__(self, X, rng, objective="bleu", *, kernel="matern52", k=None): ...

The constructor keeps its keyword parameters: the same names with the same defaults
(``tests/optimizers/test_settings.py`` checks every class of the package against its
declaration). The declaration is what reads a method's settings without building it:
``nmthpo run --set NAME=...`` refuses an unknown name before a table or a numerical library is
loaded (:mod:`nmthpo.commands.validate`), ``nmthpo methods`` lists names, types, defaults and
help. So that reading a declaration stays cheap, the optimiser modules import SciPy (through
:mod:`nmthpo.models`) and pandas inside the functions that use them, not at module level.

Rules:

* A class's declaration is the ``Settings`` in its *own* namespace (:func:`declared`): a
  subclass that adds settings declares its own dataclass; a subclass that declares none is
  introspected, as a user's class is (:func:`nmthpo.optimizers.registry.constructor_settings`).
* The declaration lists the settings in the constructor's order: a constructor that passes
  ``**kwargs`` on to its parent's (the transfer methods) has a dataclass that subclasses its
  parent's (:func:`describe` lists a dataclass's own fields first); one that names all its
  settings itself (BOHB) declares them all.
* ``context=True`` marks a keyword the runner passes rather than the user (the transfer
  context: ``sources``, ``kernel``, ``target_task``, ``metafeatures``).
* A class that hands unknown keywords on to another library (Optuna's samplers and pruners)
  says what they are in the class variable ``more`` of its dataclass; its declared list is
  then not the complete list (:func:`complete`), and such settings are checked by building
  the optimiser.

This module imports only the standard library.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

__all__ = ["SettingInfo", "complete", "declared", "describe", "more", "setting"]


def setting(default: Any, help: str, *, context: bool = False) -> Any:
    """A field of a settings dataclass: its ``default`` and a one-line ``help``.

    ``context=True``: the runner passes it (not a user setting; see the module docstring).
    """
    return dataclasses.field(default=default, metadata={"help": help, "context": context})


@dataclass(frozen=True)
class SettingInfo:
    """One declared setting, as ``nmthpo methods`` shows it.

    Attributes
    ----------
    name, type : str
        The keyword and its annotation as written (e.g. ``"int | None"``).
    default : object
        The constructor's default (or a registry entry's fixed value, see
        :func:`describe`).
    help : str
    context : bool
        Passed by the runner (the transfer context), not a user setting.
    fixed : bool
        ``default`` is the value the method's registry entry fixes, not the class's default.
    """

    name: str
    type: str
    default: Any
    help: str
    context: bool = False
    fixed: bool = False

    def as_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready except for a non-JSON default)."""
        return dataclasses.asdict(self)


def declared(cls: type) -> type | None:
    """The settings dataclass ``cls`` declares in its own namespace, or ``None``."""
    decl = vars(cls).get("Settings")
    return decl if isinstance(decl, type) and dataclasses.is_dataclass(decl) else None


def more(decl: type) -> str | None:
    """What else the class accepts besides its declared settings (``None``: nothing)."""
    extra = getattr(decl, "more", None)
    return extra if isinstance(extra, str) and extra else None


def complete(decl: type) -> bool:
    """Whether the declared settings are all the class accepts (no :func:`more`)."""
    return more(decl) is None


def _type_name(t: Any) -> str:
    return t if isinstance(t, str) else getattr(t, "__name__", str(t))


def _fields(decl: type) -> list[dataclasses.Field[Any]]:
    """The dataclass's fields, its own first (in declaration order), then its parents'."""
    by_name = {f.name: f for f in dataclasses.fields(decl)}
    order: list[str] = []
    for klass in decl.__mro__:
        order += [
            n for n in vars(klass).get("__annotations__", {}) if n in by_name and n not in order
        ]
    return [by_name[n] for n in order]


def describe(decl: type, fixed: dict[str, Any] | None = None) -> list[SettingInfo]:
    """The fields of the settings dataclass ``decl``: its own in declaration order, then those
    it inherits (e.g. TST's ``variant``, ``rho``, then every transfer method's); ``fixed`` (a
    registry entry's settings) replaces the defaults it names (their
    :attr:`SettingInfo.fixed` is True)."""
    fixed = fixed or {}
    out = []
    for f in _fields(decl):
        default = None if f.default is dataclasses.MISSING else f.default
        out.append(
            SettingInfo(
                f.name,
                _type_name(f.type),
                fixed.get(f.name, default),
                str(f.metadata.get("help", "")),
                bool(f.metadata.get("context", False)),
                f.name in fixed,
            )
        )
    return out
