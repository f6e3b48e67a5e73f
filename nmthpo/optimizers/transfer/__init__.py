"""Transfer-learning optimisers (Li et al. 2022): TransBO and its baselines, the weight
combination they share (:mod:`~nmthpo.optimizers.transfer.combine`) and the fitted source
tasks they are given (:mod:`~nmthpo.optimizers.transfer.sources`)."""

__all__: list[str] = []
