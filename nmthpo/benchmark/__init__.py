"""The benchmark layer: lookup tables and their task registry, search spaces, sub-spaces,
task meta-features and synthetic functions. Imports only :mod:`nmthpo.data`."""

__all__: list[str] = []
