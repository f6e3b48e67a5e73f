"""scikit-optimize's ``Optimizer`` as a table method: ``skopt:gp`` (also ``skopt:rf``,
``skopt:et``: its other surrogates).

scikit-optimize (Head et al., ``skopt.Optimizer``) is a sequential model-based optimiser with
ask/tell; its default surrogate is a Gaussian process (Matern kernel, hyperparameters fitted by
marginal likelihood) and its default acquisition ``gp_hedge`` (a softmax portfolio of EI, PI
and LCB). Each column of the table is an ``Integer(0, k-1)`` dimension over the ranks of its
values; everything else (one ask per evaluated row, snapping to the nearest unevaluated row,
telling the evaluated row, seeding, quiet calls) is :mod:`nmthpo.optimizers.adapters.library`.
The rows the runner tells before the first ask count among skopt's ``n_initial_points``
(skopt decrements them on every tell), so its model takes over after ``n_initial_points``
observations, as in a user's own skopt loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nmthpo.optimizers.adapters.library import LibraryOptimizer, named_spec, require
from nmthpo.optimizers.base import RunContext
from nmthpo.optimizers.registry import MethodSpec
from nmthpo.optimizers.settings import setting

__all__ = ["ESTIMATORS", "PREFIX", "SkoptOptimizer", "SkoptSettings", "from_name"]

#: Method names of this adapter: ``skopt:<surrogate>``.
PREFIX = "skopt:"
#: ``skopt:<name>`` -> skopt's ``base_estimator``.
#: (``GBRT`` is left out: scikit-optimize 0.10.2 refuses scikit-learn 1.9's gradient boosting.)
ESTIMATORS: dict[str, str] = {"gp": "GP", "rf": "RF", "et": "ET"}


def from_name(name: str) -> MethodSpec:
    """The registry entry of ``skopt:<surrogate>`` (the registry's hook for the prefix)."""
    return named_spec(
        name,
        PREFIX,
        ESTIMATORS,
        "scikit-optimize",
        __name__,
        "SkoptOptimizer",
        "base_estimator",
        "scikit-optimize's Optimizer with its {value} surrogate (ask/tell adapter)",
    )


@dataclass(frozen=True)
class SkoptSettings:
    """Settings of :class:`SkoptOptimizer` (scikit-optimize's own defaults)."""

    base_estimator: str = setting(
        "GP",
        "the surrogate: GP, RF, ET (set by the name skopt:<gp|rf|et>)",
        choices=("GP", "RF", "ET"),
    )
    n_initial_points: int = setting(
        10,
        "observations (initial rows included) before the model is used",
        low=1,
        high=100_000,
    )
    acq_func: str = setting(
        "gp_hedge",
        "acquisition: gp_hedge, EI, PI, LCB",
        choices=("gp_hedge", "EI", "PI", "LCB"),
    )


class SkoptOptimizer(LibraryOptimizer):
    """``skopt.Optimizer`` over the ranks of the table's columns (module docstring)."""

    library = "scikit-optimize"
    module = "skopt"
    Settings = SkoptSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        run_context: RunContext | None = None,
        base_estimator: str = "GP",
        n_initial_points: int = 10,
        acq_func: str = "gp_hedge",
    ) -> None:
        super().__init__(X, rng, objective, run_context)
        skopt = require("skopt", f"{PREFIX}{base_estimator.lower()}", self.library)
        from skopt.space import Integer

        dims = [Integer(0, int(k) - 1) for k in self.sizes]
        self.optimizer: Any = skopt.Optimizer(
            dims,
            base_estimator=base_estimator,
            n_initial_points=int(n_initial_points),
            acq_func=acq_func,
            random_state=self.library_seed,
        )

    def propose(self) -> tuple[np.ndarray, Any]:
        return np.asarray(self.optimizer.ask(), dtype=float), None

    def observe(self, codes: np.ndarray, loss: float, token: Any) -> None:
        self.optimizer.tell([int(c) for c in codes], float(loss))
