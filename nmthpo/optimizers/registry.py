"""The one method registry: names, ``module:Class`` paths, ``prefix:Name`` adapters, classes.

A *method* is whatever :func:`resolve` turns into a :class:`MethodSpec` (module path, class
name, fixed settings and what the method supports):

* a registered name of :data:`METHODS` -- the single-task methods of Zhang & Duh (2020) and
  Ganapathy (2020), the transfer methods of Li et al. (2022, Section 5.1) and the
  multi-fidelity methods over the NMTLC learning curves (``fidelity=True``) (one
  ``rs``: random search works with and without source tasks, and on a learning-curve task it
  is random search at full fidelity, its ``fidelity_cls``);
* ``"module:Class"`` -- any optimiser class importable from ``module`` (e.g. a user's own, on
  ``PYTHONPATH``): a :class:`~nmthpo.optimizers.base.TableOptimizer` subclass or any class
  with ``ask()`` and ``tell(row, y)`` built as ``Class(X, rng, objective=..., **settings)``;
* ``"prefix:Name"`` with a prefix of :data:`PREFIXES` -- an adapter hook
  ``"module:function"`` called with ``Name`` that returns the :class:`MethodSpec` (e.g.
  ``optuna:TPESampler`` through ``nmthpo.optimizers.adapters.optuna:from_name``; the other
  libraries' adapters ``smac:hpo``, ``hebo``, ``nevergrad:NGOpt``, ``hyperopt:tpe``,
  ``skopt:gp``; on the learning curves ``optuna-pruner:<Pruner>``, ``dehb`` and
  ``syne-tune:<Scheduler>``); a prefix wins over a module of the same name. Other packages
  add prefixes through the entry-point group :data:`ENTRY_POINT_GROUP` (``nmthpo.methods``,
  :func:`prefixes`);
* in Python, a class or a :class:`MethodSpec`.

What a worker process needs to rebuild the method is the :class:`MethodSpec` itself (plain
strings and settings, picklable): the runner resolves the method once in the calling process
and sends the spec with every job, so methods added with :func:`register` or given as
``module:Class`` work with ``jobs=2`` and on a Dask cluster. A class given as an object (e.g.
defined in ``__main__``: a script or a notebook cell, which workers cannot import) travels
inside its spec (:attr:`MethodSpec.obj`; joblib and Dask pickle such a class by value with
cloudpickle), so it runs on any number of workers too.

A method is identified by what it is called, never by its code: ``"module:Class"`` (its
qualified name), plus ``"@key"`` when the user gives a key (a class attribute ``method_key``
or ``spec_from_class(cls, key=...)``), e.g. to keep two versions of a class apart in a cache.

``gb-eif-m``/``gb-eif-r`` use ``eif_mode="gbopt"``: the binarised labels as the authors'
public implementation computes them (one pivot labelled 1 -- the first evaluated of the rows
tied at the best BLEU -- every other labelled row 0, the candidate's probability from the
rescaled BLEU prediction; ``eif_mode="gbopt-ties"`` labels every tied best row 1).
The literal reading of the paper's text (random-walk probabilities > 0.5 -> label 1) is kept
as ``gb-eif-text-m``; it finds the best row *last* on most tables, which contradicts the paper's
"EIF often beats EI", so the paper's numbers cannot have come from it (see
:mod:`nmthpo.optimizers.graph` and Chapter 2). ``bo-ei-m-mcmc`` is a paper-era GP-BO (RoBO's
default stack: hyperparameters marginalised by MCMC, no type-II maximum likelihood, no
restarts; :mod:`nmthpo.optimizers.bo_mcmc`).

Entries are resolved lazily (module path, class name, fixed settings), so importing the
registry stays cheap and an optional method's import error surfaces only when it is used.

Each class declares its settings beside it (a frozen dataclass, its ``Settings``; see
:mod:`nmthpo.optimizers.settings`): :meth:`MethodSpec.settings_class` reads it (importing the
class's module, which the package keeps free of SciPy and pandas at import time), so ``nmthpo
run --set`` checks names and ``nmthpo methods`` lists every method's settings without building
an optimiser. :attr:`MethodSpec.kind` says what a method is (:data:`METHOD_KINDS`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nmthpo.errors import InputError, InputKeyError, InputTypeError, InputValueError
from nmthpo.optimizers.base import TableOptimizer, user_code
from nmthpo.optimizers.settings import GRAPH_TIE_RTOL

__all__ = [
    "CONTEXT_KEYS",
    "METHODS",
    "METHOD_KINDS",
    "ENTRY_POINT_GROUP",
    "PREFIXES",
    "prefixes",
    "MethodSpec",
    "available",
    "build",
    "check_key",
    "check_settings",
    "constructor_settings",
    "get_spec",
    "load_class",
    "make_optimizer",
    "method_name",
    "register",
    "resolve",
    "spec_from_class",
]


#: What a method is (:attr:`MethodSpec.kind`): a single-objective lookup-table method, a
#: Pareto (BLEU and decoding time) method, one that does both, a transfer method (it takes
#: source tasks) or a multi-fidelity method (it runs on learning curves).
METHOD_KINDS: tuple[str, ...] = ("table", "pareto", "table+pareto", "transfer", "multi-fidelity")


@dataclass(frozen=True)
class MethodSpec:
    """Where a method's class lives, its fixed settings, and what it supports.

    Attributes
    ----------
    module, cls : str
        Import path of the module and the (qualified) class name in it.
    settings : dict
        Fixed keyword settings of the constructor (a run's settings override them).
    objectives : tuple of str
        ``"bleu"`` and/or ``"pareto"``.
    description : str
    exact_across_cpus : bool
        False for methods whose choices hinge on floating-point optimisation (GP
        hyperparameters by ML-II): OpenBLAS and NumPy pick their kernels by CPU model, so on
        another CPU such a method may take another path from some step on (rows stay identical
        on the CPU model that wrote a cache). See :mod:`nmthpo.engine.replay`.
    exact_settings : dict
        Settings under which ``exact_across_cpus`` holds: a run that gives one of them another
        value is not exact (GP-BO: the lattice search and the tie tolerance that make its
        choices independent of rounding). :meth:`exact_for` applies it.
    needs_sources : bool
        A transfer method: a run must name at least one source task.
    takes_sources : bool
        In a run with source tasks the constructor receives the *transfer context*
        (``sources``, ``target_task``, ``kernel``, ``metafeatures``; see
        :mod:`nmthpo.optimizers.base`). Implied by ``needs_sources``.
    transfer_cls : str, optional
        ``"module:Class"`` that implements the method in a run with source tasks (it takes the
        transfer context); used by ``rs``, whose transfer form draws its generator as every
        transfer optimiser does (Chapter 4's cache).
    fidelity : bool
        A multi-fidelity method: it runs only on a learning-curve task
        (:mod:`nmthpo.engine.fidelity`; protocol :mod:`nmthpo.optimizers.multifidelity.base`).
    fidelity_cls : str, optional
        ``"module:Class"`` that implements the method on a learning-curve task (``rs``: random
        search at full fidelity). Implied by ``fidelity`` (then the spec's own class).
    key : str, optional
        A user's key that tells apart methods of the same qualified name (:attr:`name`).
    revision : int
        Bumped when the method's default settings change what it computes (0: as first
        cached). A run's cache key holds it when it is not 0
        (:meth:`nmthpo.engine.runner.RunSpec.payload`), so runs cached under the old defaults
        are never read back as the new method's.
    obj : type, optional
        The class itself, when the spec was made from a class object (not part of the
        identity; travels with the spec to workers, so a class they cannot import still runs).
    """

    module: str
    cls: str
    settings: dict[str, Any] = field(default_factory=dict)
    objectives: tuple[str, ...] = ("bleu",)
    description: str = ""
    exact_across_cpus: bool = True
    needs_sources: bool = False
    takes_sources: bool = False
    transfer_cls: str | None = None
    fidelity: bool = False
    fidelity_cls: str | None = None
    key: str | None = None
    exact_settings: dict[str, Any] = field(default_factory=dict)
    revision: int = 0
    obj: Any = field(default=None, compare=False, repr=False)

    @property
    def path(self) -> str:
        """``"module:Class"``."""
        return f"{self.module}:{self.cls}"

    def exact_for(self, settings: Mapping[str, Any]) -> bool:
        """Whether a run with ``settings`` chooses the same rows on every CPU
        (:attr:`exact_across_cpus`, unless ``settings`` change one of :attr:`exact_settings`)."""
        return self.exact_across_cpus and all(
            settings.get(k, v) == v for k, v in self.exact_settings.items()
        )

    @property
    def name(self) -> str:
        """The method's identity in runs and caches: :attr:`path`, plus ``"@key"``."""
        return self.path if self.key is None else f"{self.path}@{self.key}"

    def accepts_sources(self) -> bool:
        """Whether a run of this method may name source tasks."""
        return self.needs_sources or self.takes_sources or self.transfer_cls is not None

    def runs_on_curves(self) -> bool:
        """Whether the method runs on a learning-curve task (budget in checkpoints)."""
        return self.fidelity or self.fidelity_cls is not None

    def class_path(self, transfer: bool = False, fidelity: bool = False) -> str:
        """``"module:Class"`` of the class that runs the method: its ``fidelity_cls`` when
        ``fidelity`` and it has one, its ``transfer_cls`` when ``transfer`` and it has one,
        else :attr:`path`."""
        if fidelity and self.fidelity_cls is not None:
            return self.fidelity_cls
        if transfer and self.transfer_cls is not None:
            return self.transfer_cls
        return self.path

    @property
    def kind(self) -> str:
        """What the method is, one of :data:`METHOD_KINDS`: ``multi-fidelity`` (it runs on
        learning curves), ``transfer`` (it takes source tasks: the transfer methods, not ``rs``,
        which merely accepts them), else by its objectives: ``table`` (BLEU), ``pareto`` or
        ``table+pareto``."""
        if self.fidelity:
            return "multi-fidelity"
        if self.needs_sources or self.takes_sources:
            return "transfer"
        bleu, pareto = "bleu" in self.objectives, "pareto" in self.objectives
        return "table+pareto" if bleu and pareto else "pareto" if pareto else "table"

    def settings_class(self, transfer: bool = False, fidelity: bool = False) -> type | None:
        """The settings dataclass the class that runs the method declares (its ``Settings``,
        :mod:`nmthpo.optimizers.settings`), or ``None`` for a class that declares none (a
        user's own: introspected). Imports the class's module (cheap for the package's);
        raises ``ValueError`` if it cannot be imported."""
        from nmthpo.optimizers.settings import declared

        return declared(load_class(self, transfer, fidelity))

    def setting_names(
        self, transfer: bool = False, fidelity: bool = False
    ) -> tuple[str, ...] | None:
        """The keyword settings the method's class declares (:meth:`settings_class`, the
        transfer context included), or ``None`` for a class that declares none or cannot be
        imported (a user's own: introspected, or the import error reported when it is
        built)."""
        from nmthpo.optimizers.settings import describe

        try:
            decl = self.settings_class(transfer, fidelity)
        except ValueError:
            return None
        return None if decl is None else tuple(i.name for i in describe(decl))


_TM = "nmthpo.optimizers.transfer.methods"
_MF = "nmthpo.optimizers.multifidelity"


#: The GP methods (GP-BO, the Pareto GP methods ``bo-m``/``bo-r``, the transfer methods) choose
#: the same rows on every CPU with the lattice search and this tie tolerance (issue 25; the
#: portability sample of the speed appendix), not with ``search="lbfgsb"``. GP-BO and the
#: transfer methods have them as their class defaults; ``bo-m`` and ``bo-r`` as their registry
#: settings (``gb-m`` and ``gb-r`` have :data:`_GRAPH_EXACT`'s).
_GP_EXACT: dict[str, Any] = {"search": "lattice", "tie_rtol": 1e-9}

#: The graph methods choose the same rows on every CPU with this tie tolerance
#: (:data:`~nmthpo.optimizers.settings.GRAPH_TIE_RTOL`; issue 25: 1e-9 lay below the noise
#: between NumPy's SIMD levels): ``GraphSMBO``'s class default, ``gb-m``/``gb-r``'s registry
#: setting.
_GRAPH_EXACT: dict[str, Any] = {"tie_rtol": GRAPH_TIE_RTOL}


def _transfer(
    cls: str, settings: dict[str, Any], description: str, needs_sources: bool = True
) -> MethodSpec:
    return MethodSpec(
        _TM,
        cls,
        settings,
        ("bleu",),
        description,
        needs_sources=needs_sources,
        takes_sources=True,
        exact_settings=_GP_EXACT,
        revision=1,
    )


def _fidelity(module: str, cls: str, settings: dict[str, Any], description: str) -> MethodSpec:
    return MethodSpec(f"{_MF}.{module}", cls, settings, (), description, fidelity=True)


METHODS: dict[str, MethodSpec] = {
    "rs": MethodSpec(
        "nmthpo.optimizers.random",
        "RandomSearch",
        {},
        ("bleu", "pareto"),
        "random search without replacement (ignores source tasks; at full "
        "fidelity on a learning-curve task)",
        transfer_cls=f"{_TM}:RandomTransfer",
        fidelity_cls=f"{_MF}.random:FullFidelityRandomSearch",
    ),
    "bo-ei-m": MethodSpec(
        "nmthpo.optimizers.bo",
        "GPBO",
        {"kernel": "matern52"},
        ("bleu",),
        "GP-BO, Matern-5/2 ARD kernel, expected improvement",
        exact_settings=_GP_EXACT,
        revision=1,
    ),
    "bo-ei-map": MethodSpec(
        "nmthpo.optimizers.bo",
        "GPBO",
        {"kernel": "matern52", "prior": "gamma"},
        ("bleu",),
        "GP-BO, Matern-5/2 ARD kernel, expected improvement, MAP hyperparameters under weak "
        "priors (Chapter 9)",
        exact_settings=_GP_EXACT,
        revision=1,
    ),
    "bo-ei-r": MethodSpec(
        "nmthpo.optimizers.bo",
        "GPBO",
        {"kernel": "rbf"},
        ("bleu",),
        "GP-BO, RBF ARD kernel, expected improvement",
        exact_settings=_GP_EXACT,
        revision=1,
    ),
    "bo-ei-m-mcmc": MethodSpec(
        "nmthpo.optimizers.bo_mcmc",
        "MarginalGPBO",
        {"kernel": "matern52"},
        ("bleu",),
        "GP-BO as RoBO ran it: Matern-5/2 ARD kernel, hyperparameters "
        "marginalised by MCMC, EI averaged over the samples",
        exact_across_cpus=False,
    ),
    "gb-ei-m": MethodSpec(
        "nmthpo.optimizers.graph",
        "GraphSMBO",
        {"kernel": "matern52", "acquisition": "ei"},
        ("bleu",),
        "graph-based SMBO, Matern kernel graph, expected improvement",
        exact_settings=_GRAPH_EXACT,
        revision=1,
    ),
    "gb-ei-r": MethodSpec(
        "nmthpo.optimizers.graph",
        "GraphSMBO",
        {"kernel": "rbf", "acquisition": "ei"},
        ("bleu",),
        "graph-based SMBO, RBF kernel graph, expected improvement",
        exact_settings=_GRAPH_EXACT,
        revision=1,
    ),
    "gb-eif-m": MethodSpec(
        "nmthpo.optimizers.graph",
        "GraphSMBO",
        {"kernel": "matern52", "acquisition": "eif", "eif_mode": "gbopt"},
        ("bleu",),
        "graph-based SMBO, Matern kernel graph, expected influence",
        exact_settings=_GRAPH_EXACT,
        revision=1,
    ),
    "gb-eif-r": MethodSpec(
        "nmthpo.optimizers.graph",
        "GraphSMBO",
        {"kernel": "rbf", "acquisition": "eif", "eif_mode": "gbopt"},
        ("bleu",),
        "graph-based SMBO, RBF kernel graph, expected influence",
        exact_settings=_GRAPH_EXACT,
        revision=1,
    ),
    "gb-eif-text-m": MethodSpec(
        "nmthpo.optimizers.graph",
        "GraphSMBO",
        {"kernel": "matern52", "acquisition": "eif", "eif_mode": "text"},
        ("bleu",),
        "graph-based SMBO, expected influence, literal reading of "
        "the paper's text for the binarised labels",
        exact_settings=_GRAPH_EXACT,
        revision=1,
    ),
    "bo-m": MethodSpec(
        "nmthpo.optimizers.mobo",
        "ParetoSMBO",
        {"surrogate": "gp", "kernel": "matern52", **_GP_EXACT},
        ("pareto",),
        "multiobjective SMBO, GP surrogates (Matern-5/2), EHVI",
        exact_settings=_GP_EXACT,
        revision=1,
    ),
    "bo-r": MethodSpec(
        "nmthpo.optimizers.mobo",
        "ParetoSMBO",
        {"surrogate": "gp", "kernel": "rbf", **_GP_EXACT},
        ("pareto",),
        "multiobjective SMBO, GP surrogates (RBF), EHVI",
        exact_settings=_GP_EXACT,
        revision=1,
    ),
    "gb-m": MethodSpec(
        "nmthpo.optimizers.mobo",
        "ParetoSMBO",
        {"surrogate": "graph", "kernel": "matern52", **_GRAPH_EXACT},
        ("pareto",),
        "multiobjective SMBO, graph surrogates (Matern graph), EHVI",
        exact_settings=_GRAPH_EXACT,
        revision=1,
    ),
    "gb-r": MethodSpec(
        "nmthpo.optimizers.mobo",
        "ParetoSMBO",
        {"surrogate": "graph", "kernel": "rbf", **_GRAPH_EXACT},
        ("pareto",),
        "multiobjective SMBO, graph surrogates (RBF graph), EHVI",
        exact_settings=_GRAPH_EXACT,
        revision=1,
    ),
    "ga": MethodSpec(
        "nmthpo.optimizers.ga",
        "GAOptimizer",
        {},
        ("bleu",),
        "steady-state genetic algorithm over the table's rows (Ganapathy 2020)",
    ),
    # transfer learning (Li et al. 2022, Section 5.1; nmthpo.optimizers.transfer.methods)
    "igp": _transfer(
        "IGP", {}, "independent GP on the target only (ignores source tasks)", needs_sources=False
    ),
    "scot": _transfer("SCoT", {}, "SCoT: one GP on the merged, per-task scaled observations"),
    "sgpr": _transfer("SGPR", {}, "stacked GP regression (Google Vizier)"),
    "pogpe": _transfer("POGPE", {}, "product of GP experts, constant weights"),
    "tst": _transfer("TST", {"variant": "r"}, "two-stage transfer surrogate, rank distance"),
    "tstm": _transfer("TST", {"variant": "m"}, "two-stage transfer surrogate, meta-features"),
    "rgpe": _transfer("RGPE", {}, "ranking-weighted GP ensemble"),
    "transbo": _transfer("TransBO", {}, "TransBO: two-phase transfer (Algorithm 1)"),
    "transbo-ms": _transfer("TransBO", {"source_only": True}, "TransBO, source part only"),
    "pogpe-ms": _transfer("POGPE", {"source_only": True}, "POGPE, source part only"),
    "tst-ms": _transfer("TST", {"variant": "r", "source_only": True}, "TST-R, source part only"),
    "rgpe-ms": _transfer("RGPE", {"source_only": True}, "RGPE, source part only"),
    # multi-fidelity methods over the NMTLC learning curves (Chapter 7)
    "sh": _fidelity(
        "halving",
        "SuccessiveHalving",
        {},
        "synchronous successive halving (eta=3, checkpoints 1..longest curve)",
    ),
    "hb": _fidelity("halving", "Hyperband", {}, "Hyperband (eta=3)"),
    "sh-upstream": _fidelity(
        "halving",
        "UpstreamHalving",
        {},
        "upstream's schedule: floor(log2 N) halvings over the first 75% of max_len",
    ),
    "asha": _fidelity("asha", "ASHA", {}, "asynchronous successive halving, 4 simulated workers"),
    "bohb": _fidelity(
        "bohb", "BOHB", {}, "BOHB: Hyperband with TPE over the configuration features"
    ),
}

#: ``prefix`` of a ``"prefix:Name"`` method -> ``"module:function"``; the function takes the
#: whole ``"prefix:Name"`` and returns a :class:`MethodSpec`. Adapters of other libraries
#: hook in here.
PREFIXES: dict[str, str] = {
    "optuna": "nmthpo.optimizers.adapters.optuna:from_name",
    "optuna-pruner": f"{_MF}.optuna_pruner:from_name",
    "smac": "nmthpo.optimizers.adapters.smac:from_name",
    "hebo": "nmthpo.optimizers.adapters.hebo:from_name",
    "nevergrad": "nmthpo.optimizers.adapters.nevergrad:from_name",
    "hyperopt": "nmthpo.optimizers.adapters.hyperopt:from_name",
    "skopt": "nmthpo.optimizers.adapters.skopt:from_name",
    "dehb": f"{_MF}.dehb:from_name",
    "syne-tune": f"{_MF}.syne_tune:from_name",
}

#: The entry-point group through which another package adds adapter prefixes: an entry point
#: ``name = "module:function"`` makes ``name:Anything`` (and ``name`` alone) resolve through
#: ``function``, as :data:`PREFIXES` does; the package's own prefixes cannot be replaced.
ENTRY_POINT_GROUP = "nmthpo.methods"


def prefixes() -> dict[str, str]:
    """:data:`PREFIXES` and the prefixes other packages declare in :data:`ENTRY_POINT_GROUP`."""
    from importlib.metadata import entry_points

    out = dict(PREFIXES)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        out.setdefault(ep.name, ep.value)
    return out


def constructor_settings(cls: type) -> tuple[list[str], bool]:
    """The keyword settings an optimiser class's constructor takes, and whether the list is
    complete (introspection: for a class that declares no ``Settings``, e.g. a user's; the
    package's declarations are checked against it by ``tests/optimizers/test_registry.py``).

    The settings are the keyword parameters after the positional ``X, rng`` (a lookup-table
    optimiser) or ``X, longest, rng`` (a multi-fidelity one), except ``objective`` and
    ``run_context`` (:class:`~nmthpo.optimizers.base.RunContext`, the runner's). Follows
    ``**settings`` up the class hierarchy (an ``__init__`` may pass what it does not know to
    its parent) until an ``__init__`` without ``**`` or the base class
    (:class:`~nmthpo.optimizers.base.TableOptimizer`,
    :class:`~nmthpo.optimizers.multifidelity.base.FidelityOptimizer`), which refuses unknown
    settings. The list is complete only if no other ``__init__`` on the way takes ``**`` (it
    might consume them); otherwise only building the optimiser tells.
    """
    import inspect

    from nmthpo.optimizers.multifidelity.base import FidelityOptimizer

    names: list[str] = []
    complete = True
    for klass in cls.__mro__:
        init = vars(klass).get("__init__")
        if klass is object:
            break
        if init is None:
            continue
        params = list(inspect.signature(init).parameters.values())[1:]  # self
        lead = (
            [p.name for p in params].index("rng") + 1 if any(p.name == "rng" for p in params) else 2
        )  # X, rng or X, longest, rng
        names += [
            p.name
            for p in params[lead:]
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
            and p.name not in ("objective", "run_context")  # not settings: the runner's
            and p.name not in names
        ]
        if klass in (TableOptimizer, FidelityOptimizer) or not any(
            p.kind is p.VAR_KEYWORD for p in params
        ):
            break
        complete = False
    return names, complete


def register(name: str, spec: MethodSpec | type) -> None:
    """Add a method (e.g. a user's own optimiser) under ``name``.

    ``spec`` is a :class:`MethodSpec` or an optimiser class (:func:`spec_from_class`). The
    name is known in this process only; the runner sends the resolved spec to its workers,
    so a registered method also runs with ``jobs > 1`` or on Dask (a class object travels
    with its spec, wherever it is defined).
    """
    if not isinstance(name, str) or not name.strip() or name != name.strip():
        raise InputTypeError(
            f"name={name!r}: a method name is a non-empty string without surrounding spaces"
        )
    if ":" in name or "@" in name or any(c.isspace() for c in name):
        raise InputValueError(
            f"name={name!r}: a method name cannot contain ':', '@' or spaces (it would read "
            "as module:Class); e.g. 'my-method'"
        )
    if name in METHODS:
        raise InputValueError(f"name={name!r}: method {name!r} is already registered")
    if isinstance(spec, type):
        spec = spec_from_class(spec)
    if not isinstance(spec, MethodSpec):
        raise InputTypeError(
            f"spec={spec!r}: expected an optimiser class or a MethodSpec, got {type(spec).__name__}"
        )
    METHODS[name] = spec


def available(objective: str | None = None) -> list[str]:
    """Registered method names, optionally only those supporting ``objective``."""
    return [k for k, v in METHODS.items() if objective is None or objective in v.objectives]


def _import_attr(path: str, what: str) -> Any:
    """The object ``path`` (``"module:Name"``) names.

    A module or a name that does not exist is an :class:`~nmthpo.errors.InputValueError`
    (a ``ValueError``: the user's spelling or ``PYTHONPATH``); a module that exists but raises
    while it is imported -- anything, an ``ImportError`` of a dependency it lacks included --
    is a :class:`~nmthpo.errors.UserCodeError` naming the module and the exception, raised
    from it.
    """
    module, _, name = path.partition(":")
    if not module or not name:
        raise InputValueError(f"{what} {path!r} must read 'module:Name'")
    with user_code(f"importing module {module!r}", path):
        try:
            obj: Any = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            missing = exc.name or ""
            if missing and (module == missing or module.startswith(missing + ".")):
                raise InputValueError(
                    f"cannot import module {module!r} of {what} {path!r} ({exc}); is it on "
                    "PYTHONPATH?"
                ) from None
            raise  # the module exists and imports one that does not: the user's code
    for part in name.split("."):
        if not hasattr(obj, part):
            raise InputValueError(f"module {module!r} has no {name!r} ({what} {path!r})")
        obj = getattr(obj, part)
    return obj


def load_class(spec: MethodSpec, transfer: bool = False, fidelity: bool = False) -> type:
    """The optimiser class of ``spec`` (its ``transfer_cls`` when ``transfer`` and it has one,
    its ``fidelity_cls`` when ``fidelity`` and it has one)."""
    path = spec.class_path(transfer, fidelity)
    if spec.obj is not None and path == spec.path:
        return spec.obj  # type: ignore[no-any-return]
    what = (
        "method"
        if path == spec.path
        else "fidelity class"
        if path == spec.fidelity_cls
        else "transfer class"
    )
    return _import_attr(path, what)  # type: ignore[no-any-return]


def check_key(key: Any) -> str | None:
    """``key`` (a user's key of a method, :attr:`MethodSpec.key`) if it is valid, ``None``
    for ``None``; ``ValueError`` otherwise (it becomes part of file names)."""
    if key is None:
        return None
    if not isinstance(key, str) or not key or not all(c.isalnum() or c in "_.-" for c in key):
        raise InputValueError(
            f"a method key must be a non-empty string of letters, digits, '_', "
            f"'.' or '-' (it becomes part of file names), got {key!r}"
        )
    return key


def spec_from_class(cls: type, key: str | None = None) -> MethodSpec:
    """A :class:`MethodSpec` for an optimiser class, from its class attributes.

    ``objectives`` (default ``("bleu",)``), ``exact_across_cpus`` (default True) and
    ``needs_sources`` are read from the class; a class that defines ``needs_sources`` at all
    takes the transfer context (see :mod:`nmthpo.optimizers.base`). ``key`` (default: the
    class attribute ``method_key``, if any) joins the method's name (:attr:`MethodSpec.name`).
    The class object travels with the spec (:attr:`MethodSpec.obj`), so a class defined in a
    notebook or a script runs on worker processes too.
    """
    if not isinstance(cls, type):
        raise InputTypeError(f"expected an optimiser class, got {cls!r}")
    if not (
        issubclass(cls, TableOptimizer)
        or (callable(getattr(cls, "ask", None)) and callable(getattr(cls, "tell", None)))
    ):
        raise InputValueError(
            f"{cls.__qualname__} is not an optimiser: subclass "
            "nmthpo.TableOptimizer or define ask() and tell(row, y)"
        )
    if "<locals>" in cls.__qualname__:
        raise InputValueError(
            f"{cls.__qualname__} is defined inside a function, so it cannot be "
            "imported by name; define it at the top level of a module"
        )
    doc = (cls.__doc__ or "").strip().splitlines()
    return MethodSpec(
        cls.__module__,
        cls.__qualname__,
        {},
        tuple(getattr(cls, "objectives", ("bleu",))),
        doc[0] if doc else "",
        exact_across_cpus=bool(getattr(cls, "exact_across_cpus", True)),
        needs_sources=bool(getattr(cls, "needs_sources", False)),
        takes_sources=hasattr(cls, "needs_sources"),
        key=check_key(key if key is not None else getattr(cls, "method_key", None)),
        obj=cls,
    )


def method_name(method: str) -> str:
    """The name a run records for the method string ``method``: a registered name or a
    ``prefix:Name`` as given; a ``module:Class`` as :attr:`MethodSpec.name` of the class (with
    its ``method_key``, if it declares one), so the string and the class name one method."""
    if ":" not in method or method.partition(":")[0] in prefixes():
        return method
    return resolve(method).name


def resolve(method: str | type | MethodSpec) -> MethodSpec:
    """The :class:`MethodSpec` of a registered name, ``module:Class``, ``prefix:Name``, a
    class or a spec (see the module docstring); clear errors for anything else."""
    if isinstance(method, MethodSpec):
        return method
    if isinstance(method, type):
        return spec_from_class(method)
    if not isinstance(method, str):
        raise InputTypeError(
            f"method={method!r}: a method is a name, 'module:Class', a class or a MethodSpec"
        )
    if not method.strip():
        raise InputValueError(f"method={method!r}: empty; give e.g. 'rs' or 'module:Class'")
    if method in METHODS:  # a registered name wins, without an entry-point scan (~20 ms)
        return METHODS[method]
    table = prefixes()
    # a name without ":" is a library's bare name (hebo) for its adapter hook, or unknown
    if ":" not in method and method not in table:
        raise InputKeyError(
            f"unknown method {method!r}; valid methods: {', '.join(available())}"
            " (or 'module:Class' of your own optimiser)"
        )
    prefix = method.partition(":")[0]
    try:
        if prefix in table:
            hook = _import_attr(table[prefix], f"adapter of {prefix!r}")
            with user_code(f"adapter {table[prefix]}", method):
                out = hook(method)
            if not isinstance(out, MethodSpec):
                raise InputTypeError(f"adapter {table[prefix]} returned {out!r}, not a MethodSpec")
            return out
        path, _, key = method.partition("@")
        return spec_from_class(_import_attr(path, "method"), key or None)
    except InputError as exc:  # name what the user typed
        text = str(exc)
        if repr(method) in text or method in text:
            raise
        raise type(exc)(f"method {method!r}: {text}") from None


def get_spec(name: str | type | MethodSpec, objective: str = "bleu") -> MethodSpec:
    """:func:`resolve` and check that the method supports ``objective``."""
    spec = resolve(name)
    if spec.fidelity:
        raise InputKeyError(
            f"method {name!r} is a multi-fidelity method: it runs on a learning-curve "
            "task (nmthpo.run(METHOD, 'lc-...') or `nmthpo run METHOD --task "
            "lc-...`), not on a lookup table"
        )
    if objective not in spec.objectives:
        raise InputKeyError(
            f"method {name!r} does not support objective {objective!r}; methods that do: "
            f"{', '.join(available(objective))}"
        )
    return spec


def build(
    spec: MethodSpec,
    X: np.ndarray,
    rng: np.random.Generator,
    objective: str = "bleu",
    context: dict[str, Any] | None = None,
    run_context: Any = None,
    **overrides: Any,
) -> Any:
    """Instantiate ``spec`` on encoded rows ``X`` with generator ``rng``.

    ``context`` (a run with source tasks: ``sources``, ``target_task``, ``kernel``,
    ``metafeatures``) is passed to methods that take it and refused by the others;
    ``run_context`` (a :class:`~nmthpo.optimizers.base.RunContext`) to the classes that say
    ``wants_context = True``; ``overrides`` update the fixed settings.
    """
    if context is not None and not spec.accepts_sources():
        raise ValueError(
            f"method {spec.path} does not use source tasks; drop sources= (methods "
            "that do: " + ", ".join(k for k, v in METHODS.items() if v.accepts_sources()) + ")"
        )
    cls = load_class(spec, transfer=context is not None)
    settings = {**spec.settings, **(context or {}), **overrides}
    if run_context is not None and getattr(cls, "wants_context", False):
        settings["run_context"] = run_context
    return cls(X, rng, objective=objective, **settings)


def make_optimizer(
    name: str | type | MethodSpec,
    X: np.ndarray,
    rng: np.random.Generator,
    objective: str = "bleu",
    **overrides: Any,
) -> TableOptimizer:
    """Instantiate method ``name`` on encoded rows ``X`` with generator ``rng``.

    ``overrides`` update the method's fixed settings (e.g. ``k=10`` for a graph method).
    """
    return build(
        get_spec(name, objective),
        X,
        rng,
        objective,
        None,  # type: ignore[no-any-return]
        **overrides,
    )


#: Keyword arguments the runner passes to a transfer optimiser itself (not user settings).
CONTEXT_KEYS = frozenset({"sources", "kernel", "target_task", "metafeatures"})


def check_available(spec: MethodSpec, label: str | None = None) -> None:
    """Refuse a method whose library is not installed, before any work: the class's
    ``check_available(label)`` hook, if it has one (the adapters of other libraries,
    :class:`~nmthpo.optimizers.adapters.library.LibraryOptimizer`). Loading the class imports
    only the adapter's module, not the library."""
    if not spec.module.startswith(("nmthpo.optimizers.adapters.", f"{_MF}.")):
        return  # only the package's adapters have the hook (a user's module is not imported)
    cls = load_class(spec, fidelity=spec.fidelity)
    hook = getattr(cls, "check_available", None)
    if hook is not None:
        hook(label or spec.name)


def check_settings(
    spec: MethodSpec,
    settings: Mapping[str, Any],
    label: str | None = None,
    *,
    transfer: bool = False,
    fidelity: bool = False,
    rows: int | None = None,
) -> None:
    """Check the settings a user gives method ``spec`` before any work: every name is one the
    method's class declares (:mod:`nmthpo.optimizers.settings`), every value has the declared
    type and lies in the declared range (``rows``: the run's table rows, for bounds such as a
    graph's ``k``); settings a class hands on to a library (Optuna's sampler and pruner
    arguments) are checked by the class's ``check_library_settings``. A user's class that
    declares nothing: its keyword parameters are its settings (:func:`constructor_settings`),
    and their values are left to its constructor (user code, see :mod:`nmthpo.errors`).

    Raises
    ------
    nmthpo.errors.InputError
        Naming the method (``label``, default its :attr:`MethodSpec.name`), the setting, the
        value and what is allowed.
    """
    from nmthpo.errors import InputKeyError, InputTypeError, InputValueError
    from nmthpo.optimizers.settings import check_values, complete, declared, describe

    label = label or spec.name
    if not isinstance(settings, Mapping):
        raise InputTypeError(
            f"settings={settings!r}: expected a mapping of setting names to values "
            f"(e.g. {{'k': 10}}), got {type(settings).__name__}"
        )
    bad = [k for k in settings if not isinstance(k, str) or not k]
    if bad:
        raise InputTypeError(f"settings: names must be non-empty strings, got {bad[0]!r}")
    if transfer and set(settings) & CONTEXT_KEYS:
        raise InputValueError(
            f"setting {', '.join(sorted(set(settings) & CONTEXT_KEYS))}: set by the runner "
            "in a run with source tasks; give sources= / n_source= / kernel= instead"
        )
    if not settings:
        return
    try:
        cls = load_class(spec, transfer, fidelity)
    except ValueError as exc:
        raise InputValueError(str(exc)) from None
    decl = declared(cls)
    if decl is not None:
        names = [i.name for i in describe(decl) if not i.context]
        is_complete = complete(decl)
    else:  # a user's class: its keyword parameters; their values are its constructor's
        names, is_complete = constructor_settings(cls)
    if transfer:
        names = [n for n in names if n not in CONTEXT_KEYS]
    unknown = {k: v for k, v in settings.items() if k not in names}
    if unknown and is_complete:
        raise InputKeyError(
            f"method {label!r} has no setting {', '.join(map(repr, sorted(unknown)))}; "
            f"valid settings of {spec.path}: "
            f"{', '.join(names) or 'none (it takes no settings)'}"
        )
    if decl is None:
        return
    check_values(decl, {k: v for k, v in settings.items() if k in names}, label, rows)
    hook = getattr(cls, "check_library_settings", None)
    if unknown and hook is not None:
        hook(unknown, {**spec.settings, **settings}, label)
