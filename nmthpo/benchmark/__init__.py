"""The benchmark layer: the one task registry (:mod:`~nmthpo.benchmark.tasks`: every task
with its kind), lookup tables, learning-curve tables, search spaces, sub-spaces, task
meta-features and synthetic functions. Imports only :mod:`nmthpo.data`."""

__all__: list[str] = []
