"""Multi-fidelity methods over learning curves (Chapter 7): one ask/tell protocol
(:mod:`~nmthpo.optimizers.multifidelity.base`), one method a module, registered in the one
registry (:mod:`nmthpo.optimizers.registry`, ``fidelity=True`` / ``fidelity_cls``).

=========================  ================================================================
name                       method
=========================  ================================================================
``rs``                     random search at full fidelity (:mod:`.random`)
``sh``                     synchronous successive halving (:mod:`.halving`)
``hb``                     Hyperband (:mod:`.halving`)
``sh-upstream``            the NMTLC authors' halving schedule (:mod:`.halving`)
``asha``                   asynchronous successive halving, simulated workers (:mod:`.asha`)
``bohb``                   Hyperband with TPE's choice of configurations (:mod:`.bohb`)
``optuna-pruner:<Class>``  Optuna's pruners (:mod:`.optuna_pruner`)
``dehb``                   DEHB, differential evolution in Hyperband's brackets (:mod:`.dehb`)
``syne-tune:<Scheduler>``  Syne Tune's ASHA and BOHB schedulers (:mod:`.syne_tune`)
=========================  ================================================================
"""

__all__: list[str] = []
