"""The models layer: surrogates (exact GP, graph-based label propagation) and acquisition
functions (EI, PI, expected influence, 2-D EHVI), pure functions of arrays where possible."""
