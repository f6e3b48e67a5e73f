"""Zhang & Duh (2020), *Reproducible and Efficient Benchmarks for Hyperparameter Optimization of
Neural Machine Translation Systems* (TACL 8): Chapters 1-3 of the book.

* Chapter 1, the NMTHPO tables (Section 3: Tables 1-2, Figures 4-5):
  :mod:`~nmthpo.studies.zhang_duh.benchmark_tables`, :mod:`~nmthpo.studies.zhang_duh.fanova`
  (Figure 5) and the claims :mod:`~nmthpo.studies.zhang_duh.benchmark_claims`;
* Chapter 2, single-objective HPO (Sections 4-6: Table 3, Figures 6 and 8):
  :mod:`~nmthpo.studies.zhang_duh.single_objective`,
  :mod:`~nmthpo.studies.zhang_duh.anytime_claims` (Figures 6 and 8),
  :mod:`~nmthpo.studies.zhang_duh.graph_discrepancy` (why GB does not beat BO here),
  :mod:`~nmthpo.studies.zhang_duh.refit_schedules` (GP-BO's fast refit schedule) and the claims
  :mod:`~nmthpo.studies.zhang_duh.single_objective_claims`;
* Chapter 3, multiobjective HPO (Sections 4.2, 5.4 and 6.2: Table 4, Figure 7):
  :mod:`~nmthpo.studies.zhang_duh.multiobjective`,
  :mod:`~nmthpo.studies.zhang_duh.multiobjective_tables` and the claims
  :mod:`~nmthpo.studies.zhang_duh.multiobjective_claims`;
* the paper's method lists, shared with the experiment registry
  (:mod:`nmthpo.studies.grids`): :mod:`~nmthpo.studies.zhang_duh.methods`.

Nothing is imported here: import the module you need.
"""

__all__ = [
    "anytime_claims",
    "benchmark_claims",
    "benchmark_tables",
    "fanova",
    "graph_discrepancy",
    "methods",
    "multiobjective",
    "multiobjective_claims",
    "multiobjective_tables",
    "refit_schedules",
    "single_objective",
    "single_objective_claims",
]
