"""Random search at full fidelity on a learning-curve table (``rs``).

Configurations are drawn uniformly without replacement and each is trained to its last
checkpoint (a job asks for the longest curve's length; a curve that ended early is complete
at its end). The engine stops the run when the next full curve would exceed the budget: a
partially trained configuration is never a result of random search.
"""

from __future__ import annotations

from dataclasses import dataclass

from nmthpo.optimizers.multifidelity.base import FidelityOptimizer, Job

__all__ = ["FullFidelityRandomSearch", "FullFidelityRandomSearchSettings"]


@dataclass(frozen=True)
class FullFidelityRandomSearchSettings:
    """Random search at full fidelity takes no settings."""


class FullFidelityRandomSearch(FidelityOptimizer):
    """Random search at full fidelity: every configuration of :attr:`order` trained to the end
    (Bergstra & Bengio 2012 as the multi-fidelity baseline of Li et al. 2018, Section 4)."""

    Settings = FullFidelityRandomSearchSettings

    def ask(self) -> Job | None:
        row = self.new_row()
        return None if row is None else (row, self.longest)
