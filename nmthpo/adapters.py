"""Bring your own optimiser: Optuna samplers and HPO-B style functions (issue 13).

The public face of :mod:`nmthpo.optimizers.adapters`:

* :func:`from_hpob` -- ``observe_and_suggest(X_obs, y_obs, X_pen) -> int`` as a method;
* :func:`optuna_method` / :func:`from_name` -- the method ``optuna:<SamplerClass>``;
* :class:`OptunaSampler`, :class:`HPOBOptimizer` -- the optimiser classes themselves.
"""

from __future__ import annotations

from nmthpo.optimizers.adapters.hpob import HPOBFunction, HPOBOptimizer, from_hpob
from nmthpo.optimizers.adapters.optuna import (
    PREFIX,
    SPACES,
    OptunaSampler,
    from_name,
    sampler_names,
)
from nmthpo.optimizers.registry import MethodSpec

__all__ = ["PREFIX", "SPACES", "HPOBFunction", "HPOBOptimizer", "OptunaSampler", "from_hpob",
           "from_name", "optuna_method", "sampler_names"]


def optuna_method(sampler: str) -> MethodSpec:
    """The method of Optuna's ``sampler`` class (``"TPESampler"`` or ``"optuna:TPESampler"``)."""
    return from_name(sampler if sampler.startswith(PREFIX) else PREFIX + sampler)
