"""Nevergrad's optimisers as table methods: ``nevergrad:<Optimizer>`` (``nevergrad:NGOpt``, its
algorithm selector, ``nevergrad:TwoPointsDE``, ``nevergrad:CMA``, ...).

Nevergrad (Rapin & Teytaud 2018) is a library of derivative-free optimisers with ask/tell; any
name of ``nevergrad.optimizers.registry`` is a method. Its parametrisation here is one integer
array, entry ``j`` in ``0 .. k_j - 1`` (the ranks of column ``j``'s values,
``ng.p.Array(...).set_integer_casting()``), seeded through the parametrisation's
``random_state`` from the trial's generator. Nevergrad is told the run's budget (its optimisers,
NGOpt first, choose their algorithm by it). The rows the runner tells before the first ask are
told as points it did not ask for; an optimiser that refuses such points
(``TellNotAskedNotSupportedError``) is instead *suggested* the point, asked for it and told.
The rest (one ask per evaluated row, snapping, quiet calls) is
:mod:`nmthpo.optimizers.adapters.library`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nmthpo.errors import InputKeyError
from nmthpo.optimizers.adapters.library import LibraryOptimizer, quiet, require
from nmthpo.optimizers.base import RunContext
from nmthpo.optimizers.registry import MethodSpec
from nmthpo.optimizers.settings import setting

__all__ = ["PREFIX", "NevergradOptimizer", "NevergradSettings", "from_name", "optimizer_names"]

#: Method names of this adapter: ``nevergrad:<Optimizer>``.
PREFIX = "nevergrad:"


def optimizer_names() -> list[str]:
    """The names of ``nevergrad.optimizers.registry`` (empty without Nevergrad)."""
    try:
        with quiet():
            import nevergrad as ng
    except ImportError:
        return []
    return sorted(ng.optimizers.registry)


def from_name(name: str) -> MethodSpec:
    """The registry entry of ``nevergrad:<Optimizer>`` (the registry's hook for the prefix)."""
    opt = name.removeprefix(PREFIX)
    if not name.startswith(PREFIX) or not opt:
        raise InputKeyError(f"{name!r}: write {PREFIX}<Optimizer>, e.g. {PREFIX}NGOpt")
    names = optimizer_names()
    if names and opt not in names:
        near = [n for n in names if n.lower() == opt.lower()]
        hint = f"; did you mean {PREFIX}{near[0]}?" if near else f" (see {PREFIX}NGOpt)"
        raise InputKeyError(f"unknown Nevergrad optimizer {opt!r}{hint}")
    return MethodSpec(
        __name__,
        "NevergradOptimizer",
        {"optimizer": opt},
        ("bleu",),
        f"Nevergrad's {opt} over the ranks of the table's columns (ask/tell adapter)",
    )


@dataclass(frozen=True)
class NevergradSettings:
    """Settings of :class:`NevergradOptimizer`."""

    optimizer: str = setting(
        "NGOpt", "a name of nevergrad.optimizers.registry (set by nevergrad:<Optimizer>)"
    )


class NevergradOptimizer(LibraryOptimizer):
    """A Nevergrad optimiser over the ranks of the table's columns (module docstring)."""

    library = "Nevergrad"
    module = "nevergrad"
    Settings = NevergradSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        run_context: RunContext | None = None,
        optimizer: str = "NGOpt",
    ) -> None:
        super().__init__(X, rng, objective, run_context)
        ng = require("nevergrad", PREFIX + optimizer, self.library)
        upper = (self.sizes - 1).astype(float)
        param = ng.p.Array(init=np.floor(upper / 2), lower=np.zeros_like(upper), upper=upper)
        param.set_integer_casting()
        param.random_state = np.random.RandomState(self.library_seed)
        self.param = param
        self._errors = ng.errors
        with quiet():
            self.optimizer: Any = ng.optimizers.registry[optimizer](
                parametrization=param, budget=max(self.budget, 1), num_workers=1
            )

    def propose(self) -> tuple[np.ndarray, Any]:
        cand = self.optimizer.ask()
        return np.asarray(cand.value, dtype=float), cand

    def observe(self, codes: np.ndarray, loss: float, token: Any) -> None:
        if token is not None:
            self.optimizer.tell(token, float(loss))
            return
        value = codes.astype(float)
        try:
            self.optimizer.tell(self.param.spawn_child(new_value=value), float(loss))
        except self._errors.TellNotAskedNotSupportedError:
            self.optimizer.suggest(value)
            self.optimizer.tell(self.optimizer.ask(), float(loss))
