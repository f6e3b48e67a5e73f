"""Optimisers: one method a module, one ask/tell protocol over a table's rows."""

from nmthpo.optimizers.base import TableOptimizer
from nmthpo.optimizers.registry import METHODS, MethodSpec, available, make_optimizer, register

__all__ = ["METHODS", "MethodSpec", "TableOptimizer", "available", "make_optimizer", "register"]
