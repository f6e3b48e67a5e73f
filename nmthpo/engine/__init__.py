"""The engine layer: the ask/tell loop, the runner (specs, trials, workers, Dask), the cache,
the metrics and the statistics every chapter uses."""

__all__: list[str] = []
