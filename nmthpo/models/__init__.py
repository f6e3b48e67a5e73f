"""The models layer: surrogates (exact GP and its one refit schedule, :mod:`~nmthpo.models.refit`;
graph-based label propagation) and acquisition functions (EI, PI, expected influence, 2-D EHVI,
search-space scores), pure functions of arrays where possible."""

__all__: list[str] = []
