"""A user's package outside nmthpo: optimisers nmthpo knows only by ``module:Class``."""
