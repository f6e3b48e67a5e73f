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
           "from_name", "optuna_method", "register_optuna", "sampler_names"]


def optuna_method(sampler: str) -> MethodSpec:
    """The method of Optuna's ``sampler`` class (``"TPESampler"`` or ``"optuna:TPESampler"``)."""
    return from_name(sampler if sampler.startswith(PREFIX) else PREFIX + sampler)


def register_optuna(*samplers: str) -> list[str]:
    """Make ``optuna:<Sampler>`` names known to this process's registry; return the names.

    Idempotent. Needed only while the registry does not resolve the ``optuna:`` prefix by
    itself (:func:`from_name` is its hook); a name registered here is visible to this process
    only, so run such methods with ``jobs=1``.
    """
    from nmthpo.optimizers import registry

    names = []
    for s in samplers:
        name = s if s.startswith(PREFIX) else PREFIX + s
        try:
            registry.get_spec(name)
        except KeyError:
            registry.register(name, from_name(name))
        names.append(name)
    return names
