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

Values: each field declares what it allows (:func:`setting`'s ``low``, ``high``, ``choices``;
its annotation gives the type), and :func:`check_values` refuses a value of the wrong type or
range with an :class:`~nmthpo.errors.InputError` that names the setting, the value and what is
allowed -- the same check for ``nmthpo run --set`` and ``nmthpo.run(settings=...)``, before any
work (:meth:`nmthpo.engine.runner.RunSpec.validate`).

This module imports only the standard library (and :mod:`nmthpo.errors`).
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass
from typing import Any

__all__ = [
    "GRAPH_TIE_RTOL",
    "ROWS",
    "SettingInfo",
    "allowed",
    "check_library_values",
    "check_values",
    "complete",
    "declared",
    "describe",
    "more",
    "search_setting",
    "setting",
    "tie_rtol_setting",
]


#: ``high=ROWS``: at most the number of rows of the run's table (checked where it is known).
ROWS = "rows"


def setting(
    default: Any,
    help: str,
    *,
    low: float | None = None,
    high: float | str | None = None,
    low_open: bool = False,
    high_open: bool = False,
    choices: tuple[Any, ...] | None = None,
    context: bool = False,
) -> Any:
    """A field of a settings dataclass: its ``default``, a one-line ``help`` and what values
    are allowed.

    The type is the field's annotation (``int``, ``float``, ``bool``, ``str``, each optionally
    ``| None``; other annotations are not checked). ``low``/``high`` bound a number
    (``low_open``/``high_open``: the bound itself is excluded; ``high=ROWS``: at most the rows
    of the run's table); ``choices`` lists the allowed strings. :func:`check_values` reads them.
    ``context=True``: the runner passes it (not a user setting; see the module docstring).
    """
    return dataclasses.field(
        default=default,
        metadata={
            "help": help,
            "context": context,
            "low": low,
            "high": high,
            "low_open": low_open,
            "high_open": high_open,
            "choices": choices,
        },
    )


def search_setting(default: str = "lbfgsb") -> Any:
    """The ``search`` setting of the GP methods (:class:`~nmthpo.models.gp.GaussianProcess`):
    ``"lbfgsb"`` (L-BFGS-B with gradients) or ``"lattice"`` (the same fit on every CPU)."""
    return setting(
        default,
        "GP hyperparameter search: lbfgsb (L-BFGS-B, the papers' kind of fit) or lattice "
        "(the same on every CPU)",
        choices=("lbfgsb", "lattice"),
    )


#: The graph methods' tie tolerance (``gb-*``: :class:`~nmthpo.optimizers.graph.GraphSMBO`'s
#: default and ``gb-m``/``gb-r``'s registry setting). Their scores come from the inverse of the
#: regularised Laplacian block (``eps`` = 1e-6 of the mean degree), whose conditioning turns the
#: rounding of one CPU into relative differences of up to about 3e-9 between near-equal scores
#: on another (measured between NumPy's AVX-512 and AVX2 loops, issue 25); the earlier 1e-9 lay
#: below that, so a CPU decided some ties. The window is narrow: on sparse graphs (k = 3, 5)
#: scores that differ by 2e-8 already steer the search (a tolerance of 2e-8 to 1e-6 moves many
#: trials and makes k = 5 runs worse), while 1e-8 moves almost none and no sampled trial
#: diverges under any OpenBLAS core type or NumPy SIMD level (``make portability``).
GRAPH_TIE_RTOL: float = 1e-8


def tie_rtol_setting(score: str, default: float = 0.0) -> Any:
    """The ``tie_rtol`` setting of a GP method whose acquisition is ``score`` (``"EI"``,
    ``"EHVI"``): values that close to the best are ties
    (:func:`nmthpo.optimizers.base.snap_ties`); 0 keeps exact ties only."""
    return setting(
        default,
        f"{score} values within this relative distance of the best are ties (0: exact ties only)",
        low=0.0,
        high=1e-3,
    )


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
    allowed : str
        The values allowed, in words (``"1 to the table's rows"``, ``"one of exact, fast"``;
        ``""``: any value of the type).
    """

    name: str
    type: str
    default: Any
    help: str
    context: bool = False
    fixed: bool = False
    allowed: str = ""

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
                allowed(f),
            )
        )
    return out


# -- values ---------------------------------------------------------------------------------------
_SIMPLE = {"int", "float", "bool", "str", "None"}


def _kinds(f: dataclasses.Field[Any]) -> set[str] | None:
    """The simple types of a field's annotation (``{"int", "None"}``), or ``None`` when it
    names another type (a callable, a sequence: not checked here)."""
    parts = {p.strip() for p in _type_name(f.type).split("|")}
    return parts if parts <= _SIMPLE else None


def _bound(value: Any, rows: int | None) -> float | None:
    if value == ROWS:
        return rows
    return value  # type: ignore[no-any-return]


def allowed(f: dataclasses.Field[Any], rows: int | None = None) -> str:
    """What values field ``f`` allows, in words (``""``: any value of its type)."""
    return _allowed_text(f.metadata, _kinds(f), rows)


def _allowed_text(md: Any, kinds: set[str] | None, rows: int | None) -> str:
    text = ""
    if md.get("choices"):
        text = "one of " + ", ".join(map(str, md["choices"]))
    else:
        lo, hi = md.get("low"), md.get("high")
        hi_text: str | None
        if hi == ROWS:
            hi_text = "the table's rows" if rows is None else f"{rows:,} (the table's rows)"
        else:
            hi_text = None if hi is None else f"{hi:,}" if isinstance(hi, int) else f"{hi:g}"
        lo_text = None if lo is None else f"{lo:,}" if isinstance(lo, int) else f"{lo:g}"
        if lo_text is not None and hi_text is not None:
            text = f"{lo_text} {'(excluded) ' if md.get('low_open') else ''}to {hi_text}"
            text += " (excluded)" if md.get("high_open") else ""
        elif lo_text is not None:
            text = f"{'>' if md.get('low_open') else '>='} {lo_text}"
        elif hi_text is not None:
            text = f"{'<' if md.get('high_open') else '<='} {hi_text}"
    if text and kinds is not None and "None" in kinds:
        text += ", or None"
    return text


def check_values(decl: type, values: dict[str, Any], method: str, rows: int | None = None) -> None:
    """Check ``values`` (settings by name) against the declaration ``decl``: each value of a
    declared field has the field's type and lies in its range or choices. Names ``decl``
    does not declare are left to the caller (a class with :func:`more` passes them on, and
    checks them with :func:`check_library_values`).

    Raises
    ------
    nmthpo.errors.InputTypeError, nmthpo.errors.InputValueError
        Naming the method, the setting, the value, what is allowed and the fix.
    """
    fields = {f.name: f for f in dataclasses.fields(decl)}
    for name, value in values.items():
        f = fields.get(name)
        if f is None or f.metadata.get("context"):
            continue
        kinds = _kinds(f)
        if kinds is not None:
            _check_one(
                name, value, kinds, f.metadata, method, _type_name(f.type), allowed(f, rows), rows
            )


def _kinds_of(annotation: str) -> set[str] | None:
    parts = {p.strip() for p in annotation.replace("Optional[", "").rstrip("]").split("|")}
    return parts if parts <= _SIMPLE else None


def check_library_values(
    values: dict[str, Any],
    annotations: dict[str, str],
    method: str,
    ranges: dict[str, dict[str, Any]] | None = None,
) -> None:
    """Check settings a class hands on to another library (:func:`more`): each value has the
    type the library's own signature annotates (``annotations``: name -> annotation text;
    names with other than simple types are not checked) and lies in ``ranges`` (name ->
    :func:`setting`'s ``low``/``high``/``choices`` keywords), where the package declares one.

    Raises
    ------
    nmthpo.errors.InputTypeError, nmthpo.errors.InputValueError
    """
    for name, value in values.items():
        ann = annotations.get(name)
        kinds = None if ann is None else _kinds_of(ann)
        if kinds is None:
            continue
        md = (ranges or {}).get(name, {})
        _check_one(name, value, kinds, md, method, str(ann), _allowed_text(md, kinds, None), None)


def _check_one(
    name: str,
    value: Any,
    kinds: set[str],
    md: Any,
    method: str,
    type_text: str,
    what: str,
    rows: int | None,
) -> None:
    from nmthpo.errors import InputTypeError, InputValueError, check_float, check_int

    fix = f"method {method!r} allows {type_text}" + (f": {what}" if what else "")
    label = f"setting {name}"
    if value is None:
        if "None" not in kinds:
            raise InputTypeError(f"{label}=None: not allowed; {fix}")
        return
    lo, hi = md.get("low"), _bound(md.get("high"), rows)
    expected = " or ".join(
        {"int": "an integer", "float": "a number", "bool": "true or false", "str": "a string"}[k]
        for k in ("int", "float", "bool", "str")
        if k in kinds
    )
    wrong = InputTypeError(
        f"{label}={value!r}: expected {expected}, got {type(value).__name__}; {fix}"
    )
    if isinstance(value, bool):
        if "bool" not in kinds:
            raise wrong
    elif isinstance(value, str):
        if "str" not in kinds:
            raise wrong
        if md.get("choices") and value not in md["choices"]:
            raise InputValueError(f"{label}={value!r}: unknown; {fix}")
    elif "int" in kinds and not ("float" in kinds and not isinstance(value, numbers.Integral)):
        v = check_int(label, value, fix=fix)
        if (lo is not None and (v <= lo if md.get("low_open") else v < lo)) or (
            hi is not None and (v >= hi if md.get("high_open") else v > hi)
        ):
            raise InputValueError(f"{label}={v}: out of range; {fix}")
    elif "float" in kinds and isinstance(value, numbers.Real):
        check_float(
            label,
            value,
            lo,
            hi,
            low_open=bool(md.get("low_open")),
            high_open=bool(md.get("high_open")),
            fix=fix,
        )
    else:
        raise wrong
