"""Adapters: other people's optimisers as table optimisers.

* :mod:`nmthpo.optimizers.adapters.optuna` -- any :mod:`optuna.samplers` class, as the
  method ``optuna:<SamplerClass>`` (:func:`from_name` is the registry's hook);
* :mod:`nmthpo.optimizers.adapters.hpob` -- a function with HPO-B's
  ``observe_and_suggest(X_obs, y_obs, X_pen) -> int`` signature (:func:`from_hpob`).

Optuna is imported only when an Optuna method is built.
"""

from nmthpo.optimizers.adapters.hpob import HPOBFunction, HPOBOptimizer, from_hpob
from nmthpo.optimizers.adapters.optuna import OptunaSampler, from_name, sampler_names

__all__ = [
    "HPOBFunction",
    "HPOBOptimizer",
    "OptunaSampler",
    "from_hpob",
    "from_name",
    "sampler_names",
]
