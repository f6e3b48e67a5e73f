"""Li et al. (2022, KDD), TransBO, a two-phase transfer-learning surrogate for Bayesian
optimisation, and its baselines: Chapter 4 of the book (static and dynamic transfer, the
ablation and the overhead).

* :mod:`~nmthpo.studies.li_transbo.study` -- the chapter's experiment grid and the tables built
  from it (the methods are :mod:`nmthpo.optimizers.transfer`);
* :mod:`~nmthpo.studies.li_transbo.claims` -- the paper's claims as records, and the statistics
  that test them.

Nothing is imported here: import the module you need.
"""

__all__ = ["claims", "study"]
