"""Transfer-learning HPO across NMT tasks: TransBO and its baselines (Li et al. 2022).

Modules: :mod:`~nmthpo.transfer.combine` (ranking loss, simplex weights, CV target weight,
aggregation), :mod:`~nmthpo.transfer.sources` (sampled source tasks and their GPs),
:mod:`~nmthpo.transfer.metafeatures` (TST-M's task meta-features),
:mod:`~nmthpo.transfer.methods` (the optimisers), :mod:`~nmthpo.transfer.runner` (trials,
repetitions, cache, static/dynamic experiments) and :mod:`~nmthpo.transfer.evaluation`
(average rank, ADTM, first/second counts).
"""
