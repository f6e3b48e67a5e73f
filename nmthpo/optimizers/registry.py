"""Method names -> optimiser factories (the names ``nmthpo run`` accepts).

``gb-eif-m``/``gb-eif-r`` use ``eif_mode="gbopt"``: the binarised labels as the authors'
public implementation computes them (best labelled row 1, every other labelled row 0, the
candidate's probability from the rescaled BLEU prediction). The literal reading of the paper's
text (random-walk probabilities > 0.5 -> label 1) is kept as ``gb-eif-text-m``; it finds the best
row *last* on most tables, which contradicts the paper's "EIF often beats EI", so the paper's
numbers cannot have come from it (see :mod:`nmthpo.optimizers.graph` and Chapter 2).

Entries are resolved lazily (module path, class name, fixed settings), so importing the
registry stays cheap and an optional method's import error surfaces only when it is used.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nmthpo.optimizers.base import TableOptimizer


@dataclass(frozen=True)
class MethodSpec:
    """Where a method's class lives, its fixed settings, and the objectives it supports."""

    module: str
    cls: str
    settings: dict[str, Any] = field(default_factory=dict)
    objectives: tuple[str, ...] = ("bleu",)
    description: str = ""
    #: False for methods whose choices hinge on floating-point optimisation (GP
    #: hyperparameters by ML-II): OpenBLAS and NumPy pick their kernels by CPU model, so on
    #: another CPU such a method may take another path from some step on (rows stay identical
    #: on the CPU model that wrote a cache). See :mod:`nmthpo.engine.replay`.
    exact_across_cpus: bool = True


METHODS: dict[str, MethodSpec] = {
    "rs": MethodSpec("nmthpo.optimizers.random", "RandomSearch", {}, ("bleu", "pareto"),
                     "random search without replacement"),
    "bo-ei-m": MethodSpec("nmthpo.optimizers.bo", "GPBO", {"kernel": "matern52"}, ("bleu",),
                          "GP-BO, Matern-5/2 ARD kernel, expected improvement",
                          exact_across_cpus=False),
    "bo-ei-r": MethodSpec("nmthpo.optimizers.bo", "GPBO", {"kernel": "rbf"}, ("bleu",),
                          "GP-BO, RBF ARD kernel, expected improvement",
                          exact_across_cpus=False),
    "gb-ei-m": MethodSpec("nmthpo.optimizers.graph", "GraphSMBO",
                          {"kernel": "matern52", "acquisition": "ei"}, ("bleu",),
                          "graph-based SMBO, Matern kernel graph, expected improvement"),
    "gb-ei-r": MethodSpec("nmthpo.optimizers.graph", "GraphSMBO",
                          {"kernel": "rbf", "acquisition": "ei"}, ("bleu",),
                          "graph-based SMBO, RBF kernel graph, expected improvement"),
    "gb-eif-m": MethodSpec("nmthpo.optimizers.graph", "GraphSMBO",
                           {"kernel": "matern52", "acquisition": "eif", "eif_mode": "gbopt"},
                           ("bleu",),
                           "graph-based SMBO, Matern kernel graph, expected influence"),
    "gb-eif-r": MethodSpec("nmthpo.optimizers.graph", "GraphSMBO",
                           {"kernel": "rbf", "acquisition": "eif", "eif_mode": "gbopt"}, ("bleu",),
                           "graph-based SMBO, RBF kernel graph, expected influence"),
    "gb-eif-text-m": MethodSpec("nmthpo.optimizers.graph", "GraphSMBO",
                                {"kernel": "matern52", "acquisition": "eif", "eif_mode": "text"},
                                ("bleu",),
                                "graph-based SMBO, expected influence, literal reading of "
                                "the paper's text for the binarised labels"),
    "bo-m": MethodSpec("nmthpo.optimizers.mobo", "ParetoSMBO",
                       {"surrogate": "gp", "kernel": "matern52"}, ("pareto",),
                       "multiobjective SMBO, GP surrogates (Matern-5/2), EHVI",
                       exact_across_cpus=False),
    "bo-r": MethodSpec("nmthpo.optimizers.mobo", "ParetoSMBO",
                       {"surrogate": "gp", "kernel": "rbf"}, ("pareto",),
                       "multiobjective SMBO, GP surrogates (RBF), EHVI",
                       exact_across_cpus=False),
    "gb-m": MethodSpec("nmthpo.optimizers.mobo", "ParetoSMBO",
                       {"surrogate": "graph", "kernel": "matern52"}, ("pareto",),
                       "multiobjective SMBO, graph surrogates (Matern graph), EHVI"),
    "gb-r": MethodSpec("nmthpo.optimizers.mobo", "ParetoSMBO",
                       {"surrogate": "graph", "kernel": "rbf"}, ("pareto",),
                       "multiobjective SMBO, graph surrogates (RBF graph), EHVI"),
    "ga": MethodSpec("nmthpo.optimizers.ga", "GAOptimizer", {}, ("bleu",),
                     "steady-state genetic algorithm over the table's rows (Ganapathy 2020)"),
}


def register(name: str, spec: MethodSpec) -> None:
    """Add a method (e.g. a user's own optimiser) under ``name``."""
    if name in METHODS:
        raise ValueError(f"method {name!r} is already registered")
    METHODS[name] = spec


def available(objective: str | None = None) -> list[str]:
    """Registered method names, optionally only those supporting ``objective``."""
    return [k for k, v in METHODS.items() if objective is None or objective in v.objectives]


def get_spec(name: str, objective: str = "bleu") -> MethodSpec:
    """The spec of ``name``; a clear error lists the valid names."""
    if name not in METHODS:
        raise KeyError(
            f"unknown method {name!r}; valid methods: {', '.join(available())}"
        )
    spec = METHODS[name]
    if objective not in spec.objectives:
        raise KeyError(
            f"method {name!r} does not support objective {objective!r}; methods that do: "
            f"{', '.join(available(objective))}"
        )
    return spec


def make_optimizer(
    name: str,
    X: np.ndarray,
    rng: np.random.Generator,
    objective: str = "bleu",
    **overrides: Any,
) -> TableOptimizer:
    """Instantiate method ``name`` on encoded rows ``X`` with generator ``rng``.

    ``overrides`` update the method's fixed settings (e.g. ``k=10`` for a graph method).
    """
    spec = get_spec(name, objective)
    module = importlib.import_module(spec.module)
    cls = getattr(module, spec.cls)
    settings = {**spec.settings, **overrides}
    return cls(X, rng, objective=objective, **settings)  # type: ignore[no-any-return]
