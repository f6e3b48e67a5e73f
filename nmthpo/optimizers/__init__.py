"""Optimisers: one method a module, one ask/tell protocol over a table's rows, one registry
(names, ``module:Class``, ``prefix:Name``, classes; :mod:`nmthpo.optimizers.registry`)."""

from nmthpo.optimizers.base import TableOptimizer
from nmthpo.optimizers.registry import (
    METHODS,
    PREFIXES,
    MethodSpec,
    available,
    make_optimizer,
    register,
    resolve,
)

__all__ = [
    "METHODS",
    "PREFIXES",
    "MethodSpec",
    "TableOptimizer",
    "available",
    "make_optimizer",
    "register",
    "resolve",
]
