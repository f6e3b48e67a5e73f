"""HEBO as a table method: ``hebo``.

HEBO (Cowen-Rivers et al. 2022; winner of the NeurIPS 2020 black-box optimisation challenge) is
a GP-based optimiser with input and output warping and a multi-objective acquisition (an
ensemble of EI, PI and UCB optimised by an evolutionary algorithm). Its ``suggest`` /
``observe`` interface is driven over a ``DesignSpace`` of one continuous parameter on
``[0, 1]`` per non-constant column, the column's ranks scaled to the unit interval
(:meth:`~nmthpo.optimizers.space.OrdinalSpace.unit`); a proposal is rounded to the nearest
ranks (:meth:`~nmthpo.optimizers.space.OrdinalSpace.from_unit`) and then follows the common
rule. Why not HEBO's ``int`` parameters: on these tables (two to six values per column) they
made a suggestion cost 11-53 s, against 1.4-2.9 s on the unit box (measured on the six tables,
one torch thread), because HEBO's integer handling rounds inside its evolutionary acquisition
search and its GP then sees near-duplicate points.

HEBO reads and advances the process's *global* NumPy and torch random state, its
acquisition search (pymoo >= 0.6.1) seeds itself from the operating system, and ``import
hebo`` sets torch to one thread for the whole process and switches every warning off. The
adapter therefore keeps a random state of its own, seeded from the trial's generator, and
swaps it in around every call (:func:`~nmthpo.optimizers.adapters.library.swapped_global_rng`),
runs HEBO with one torch thread, passes pymoo a seed from that state (:func:`_seeded_pymoo`),
imports HEBO inside a warnings context (:func:`~nmthpo.optimizers.adapters.library.require`)
and restores the process's thread count after the import and after every call: a trial
depends only on (task, settings, seed, trial), and nothing else in the process changes. The
rest (one ask per evaluated row, snapping, quiet calls) is
:mod:`nmthpo.optimizers.adapters.library`.

Installing: HEBO 0.3.6 declares ``numpy<1.25`` and ``pymoo==0.6.0``, so ``pip install HEBO``
backtracks to 0.3.2, whose import fails; the ``peers`` extra installs HEBO without its declared
dependencies beside the ones it imports (``requirements-peers.lock``; see the README).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from nmthpo.errors import InputKeyError
from nmthpo.optimizers.adapters.library import LibraryOptimizer, require, swapped_global_rng
from nmthpo.optimizers.base import RunContext
from nmthpo.optimizers.registry import MethodSpec
from nmthpo.optimizers.settings import setting

__all__ = ["HeboOptimizer", "HeboSettings", "from_name"]


def from_name(name: str) -> MethodSpec:
    """The registry entry of ``hebo`` (the registry's hook for the bare name)."""
    if name != "hebo":
        raise InputKeyError(f"unknown HEBO method {name!r}; valid: hebo")
    return MethodSpec(
        __name__,
        "HeboOptimizer",
        {},
        ("bleu",),
        "HEBO over the ranks of the table's columns (suggest/observe adapter)",
    )


@contextlib.contextmanager
def _one_torch_thread() -> Iterator[None]:
    import torch

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(n)


@contextlib.contextmanager
def _seeded_pymoo() -> Iterator[None]:
    """Give pymoo's ``minimize`` a seed during one HEBO call.

    HEBO's acquisition search (``hebo.acq_optimizers.evolution_optimizer``) calls pymoo's
    ``minimize`` without a seed; pymoo 0.6.1 and later then seed the evolutionary search from
    the operating system, so the same trial proposed other rows on every run. During the call
    the module's ``minimize`` is replaced by one that passes a seed drawn from the (swapped-in,
    hence the trial's) global NumPy state; the original is put back afterwards.
    """
    import hebo.acq_optimizers.evolution_optimizer as evo

    original = evo.minimize

    def seeded(*args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("seed", int(np.random.randint(2**31 - 1)))  # noqa: NPY002
        return original(*args, **kwargs)

    evo.minimize = seeded
    try:
        yield
    finally:
        evo.minimize = original


@dataclass(frozen=True)
class HeboSettings:
    """Settings of :class:`HeboOptimizer` (HEBO's own defaults)."""

    rand_sample: int = setting(
        4, "observations before the model is used (HEBO's rand_sample)", low=1, high=100_000
    )


class HeboOptimizer(LibraryOptimizer):
    """HEBO over the ranks of the table's columns (module docstring)."""

    library = "HEBO"
    module = "hebo"
    uses_torch = True
    Settings = HeboSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        run_context: RunContext | None = None,
        rand_sample: int = 4,
    ) -> None:
        super().__init__(X, rng, objective, run_context)
        import torch

        require("hebo.optimizers.hebo", "hebo", self.library, torch_threads=True)
        from hebo.design_space.design_space import DesignSpace
        from hebo.optimizers.hebo import HEBO

        self.names = [f"x{j}" for j in range(len(self.sizes))]
        space = DesignSpace().parse(
            [{"name": n, "type": "num", "lb": 0.0, "ub": 1.0} for n in self.names]
        )
        # ranks <-> unit box of the free columns (a constant column has no parameter)
        self._span = np.maximum(self.sizes - 1, 1).astype(float)
        gen = torch.Generator().manual_seed(self.library_seed)
        self._state: dict[str, Any] = {
            "numpy": np.random.RandomState(self.library_seed).get_state(),
            "torch": gen.get_state(),
        }
        with self._library():
            self.hebo: Any = HEBO(
                space, rand_sample=int(rand_sample), scramble_seed=self.library_seed
            )

    @contextlib.contextmanager
    def _library(self) -> Iterator[None]:
        with _one_torch_thread(), swapped_global_rng(self._state, torch=True), _seeded_pymoo():
            yield

    def propose(self) -> tuple[np.ndarray, Any]:
        with self._library():
            rec = self.hebo.suggest(n_suggestions=1)
        u = np.clip([float(rec[n].iloc[0]) for n in self.names], 0.0, 1.0)
        return np.rint(u * self._span), None

    def observe(self, codes: np.ndarray, loss: float, token: Any) -> None:
        import pandas as pd

        unit = np.asarray(codes, dtype=float) / self._span
        frame = pd.DataFrame([dict(zip(self.names, unit.tolist(), strict=True))])
        with self._library():
            self.hebo.observe(frame, np.array([[float(loss)]]))
