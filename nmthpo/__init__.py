"""nmthpo: hyperparameter optimisation for neural machine translation on lookup tables.

The front door. Everything a user needs to benchmark an optimiser is importable from here::

    import nmthpo

    table = nmthpo.load_table("ja-en")            # configurations, metrics, encodings
    result = nmthpo.run("bo-ei-m", "ja-en", trials=20, jobs=2)
    nmthpo.evaluate_sequences(result.sequences, table.bleu).mean()

    class MyOptimizer(nmthpo.TableOptimizer):      # ask/tell over the table's rows
        def ask(self) -> int:
            return self.random_candidate()

    nmthpo.run(MyOptimizer, "ja-en", trials=10, jobs=2)

Below the front door the package is layered, each layer importing only the ones before it:
``data`` (fetch, verify, safe unpickling) -> ``benchmark`` (lookup tables, spaces) -> ``models``
(GP, graph, acquisition, EHVI) -> ``optimizers`` (one method a module, the registry) ->
``engine`` (loop, runner, cache, metrics, statistics) -> ``studies`` (one package per paper) ->
``plots`` -> ``cli``. The names below are loaded on first use, so ``import nmthpo`` (and the
command line's start-up) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "InputError",
    "TableOptimizer",
    "UserCodeError",
    "__version__",
    "evaluate_sequences",
    "load_table",
    "register",
    "run",
    "tasks",
]

__version__ = "0.2.0"

#: Public name -> "module:attribute" it is loaded from on first use.
_EXPORTS: dict[str, str] = {
    "InputError": "nmthpo.errors:InputError",
    "UserCodeError": "nmthpo.errors:UserCodeError",
    "TableOptimizer": "nmthpo.optimizers.base:TableOptimizer",
    "evaluate_sequences": "nmthpo.engine.metrics:evaluate_sequences",
    "load_table": "nmthpo.benchmark.tables:load_table",
    "register": "nmthpo.optimizers.registry:register",
    "run": "nmthpo.engine.runner:run",
    "tasks": "nmthpo.benchmark.tables:tasks",
}


def __getattr__(name: str) -> Any:
    target = _EXPORTS.get(name)
    if target is None:
        raise AttributeError(f"module 'nmthpo' has no attribute {name!r}")
    module, attr = target.split(":")
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
