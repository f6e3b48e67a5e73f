"""DEHB over the learning curves (``dehb``; Awad, Mallik & Hutter 2021, IJCAI).

DEHB runs Hyperband's brackets of successive halving (Li et al. 2018) and fills every rung
with differential evolution: a subpopulation per fidelity, mutants drawn from the rung below.
This adapter drives the ``dehb`` package's ``ask`` / ``tell`` (one worker, no Dask) over a
learning-curve table, under the rule of the table adapters
(:mod:`nmthpo.optimizers.adapters.library`):

* **Space.** DEHB works on the unit box, one dimension per column that is not constant; a
  vector is rounded to the nearest ranks of each column
  (:meth:`~nmthpo.optimizers.space.OrdinalSpace.from_unit`).
* **Configurations to rows.** A configuration DEHB asks for the first time becomes the
  *nearest configuration not started yet* (:meth:`~nmthpo.optimizers.space.OrdinalSpace.snap`:
  ties to the lowest row id; once every row is started, the nearest row not yet trained to
  the asked checkpoint, then the nearest row). DEHB is then told that row's vector, never a
  value for a point it did not get: the snapped vector replaces its proposal in its
  configuration repository and in the ``tell``, as DEHB's own replay does. A configuration
  DEHB promotes keeps its row.
* **Fidelity.** DEHB's fidelities (``max * eta**-i``, floats) are rounded to checkpoints (at
  least ``min_checkpoint``); a job resumes where the row stopped (the engine charges only new
  checkpoints). DEHB minimises: it is told ``-score``.
* **No warm start.** DEHB 0.1.2 refuses observations it did not ask for (``tell`` before
  ``ask`` raises), so the adapter never tells it anything it did not propose.
* **Seeding, quiet, files.** DEHB's seed is drawn from the trial's generator (DEHB uses only
  its own ``numpy.random.Generator``). DEHB configures :mod:`loguru`'s global handlers on
  construction (a sink on stdout and a log file in its ``output_path``): the adapter builds
  it inside a temporary directory that it removes, and removes loguru's handlers again, so a
  run leaves no file and prints nothing. Its state is never saved (``save_freq="end"``, and
  ``run`` is never called).

Installing: DEHB 0.1.2 declares ``numpy<2``; it runs on the project's NumPy 2 and is installed
without its declared dependencies by ``make peers`` (``requirements-peers.lock``).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nmthpo.errors import InputKeyError
from nmthpo.optimizers.adapters.library import quiet, require
from nmthpo.optimizers.multifidelity.base import FidelityOptimizer, Job
from nmthpo.optimizers.registry import MethodSpec
from nmthpo.optimizers.settings import setting
from nmthpo.optimizers.space import OrdinalSpace

__all__ = ["DEHB", "DEHBSettings", "from_name"]


def from_name(name: str) -> MethodSpec:
    """The registry entry of ``dehb`` (the registry's hook for the bare name)."""
    if name != "dehb":
        raise InputKeyError(f"unknown DEHB method {name!r}; valid: dehb")
    return MethodSpec(
        __name__,
        "DEHB",
        {},
        (),
        "DEHB (differential evolution in Hyperband's brackets) over the learning curves",
        fidelity=True,
    )


@dataclass(frozen=True)
class DEHBSettings:
    """Settings of :class:`DEHB` (see its parameters)."""

    eta: float = setting(3, "reduction factor", low=1.0, low_open=True, high=100.0)
    min_checkpoint: int = setting(1, "lowest fidelity", low=1, high=100_000)
    max_checkpoint: int | None = setting(
        None, "highest fidelity (None: the longest curve)", low=1, high=100_000
    )
    mutation_factor: float = setting(0.5, "DE mutation factor", low=0.0, high=2.0)
    crossover_prob: float = setting(0.5, "DE crossover probability", low=0.0, high=1.0)


class DEHB(FidelityOptimizer):
    """DEHB's ask/tell over a learning-curve table (module docstring: the rule).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    longest : int
    rng : numpy.random.Generator
        Draws DEHB's seed (and the configuration order of the base class).
    eta : float
        Reduction factor (default 3, DEHB's).
    min_checkpoint, max_checkpoint : int, optional
        Lowest and highest fidelity (defaults 1 and the longest curve).
    mutation_factor, crossover_prob : float
        DEHB's differential-evolution parameters (its defaults, 0.5 and 0.5).

    Attributes
    ----------
    snapped : int
        New configurations moved to another row (the table lacks DEHB's proposal).
    """

    Settings = DEHBSettings
    library: ClassVar[str] = "DEHB"
    module: ClassVar[str] = "dehb"

    @classmethod
    def check_available(cls, method: str) -> None:
        """Refuse the method before any work if DEHB is not installed (the runner's hook)."""
        require(cls.module, method, cls.library)

    def __init__(
        self,
        X: np.ndarray,
        longest: int,
        rng: np.random.Generator,
        eta: float = 3,
        min_checkpoint: int = 1,
        max_checkpoint: int | None = None,
        mutation_factor: float = 0.5,
        crossover_prob: float = 0.5,
    ) -> None:
        super().__init__(X, longest, rng)
        dehb = require(self.module, "dehb", self.library)
        self.min_checkpoint = self._check_checkpoint("min_checkpoint", min_checkpoint, 1)
        self.max_checkpoint = self._check_checkpoint("max_checkpoint", max_checkpoint, self.longest)
        if self.min_checkpoint > self.max_checkpoint:
            raise ValueError(
                f"min_checkpoint={self.min_checkpoint} exceeds max_checkpoint={self.max_checkpoint}"
            )
        self.space = OrdinalSpace(self.X)
        self.free = np.flatnonzero(self.space.sizes > 1)
        self.trained = np.zeros(self.n, dtype=np.int64)
        self.rows_of_config: dict[int, int] = {}
        self.snapped = 0
        self._pending: dict[int, dict[str, Any]] = {}
        seed = int(rng.integers(0, 2**31 - 1))
        with tempfile.TemporaryDirectory(prefix="nmthpo-dehb-") as tmp, quiet():
            self.dehb = dehb.DEHB(
                f=None,
                dimensions=max(len(self.free), 1),
                min_fidelity=self.min_checkpoint,
                max_fidelity=self.max_checkpoint,
                eta=eta,
                mutation_factor=mutation_factor,
                crossover_prob=crossover_prob,
                n_workers=1,
                seed=seed,
                output_path=tmp,
                save_freq="end",
                log_level="ERROR",
            )
            _silence_loguru()

    def _vector(self, row: int) -> np.ndarray:
        """The unit-box vector of ``row`` (DEHB's representation)."""
        if not self.free.size:
            return np.zeros(1)
        return np.asarray(self.space.unit(self.space.codes[row])[self.free], dtype=float)

    def _row_of(self, vector: np.ndarray, k: int) -> int:
        """The row a new configuration becomes (module docstring)."""
        codes = np.zeros(self.space.d)
        if self.free.size:
            codes[self.free] = self.space.from_unit(np.asarray(vector, dtype=float))
        for allowed in (~self.started, self.trained < k, np.ones(self.n, dtype=bool)):
            if allowed.any():
                row, exact = self.space.snap(codes, ~allowed)
                self.snapped += int(not exact)
                return row
        raise AssertionError("unreachable: the last mask allows every row")

    def ask(self) -> Job | None:
        if self._pending:  # one worker: the engine tells before it asks again
            return None
        with quiet():
            job = self.dehb.ask()
        k = max(self.min_checkpoint, min(self.longest, int(round(float(job["fidelity"])))))
        cid = int(job["config_id"])
        row = self.rows_of_config.get(cid)
        if row is None:
            row = self._row_of(job["config"], k)
            self.rows_of_config[cid] = row
            vector = self._vector(row)
            job["config"] = vector
            self.dehb.config_repository.configs[cid].config = vector.copy()
        self.started[row] = True
        self._pending[row] = job
        return row, k

    def tell(self, row: int, checkpoint: int, score: float, complete: bool) -> None:
        job = self._pending.pop(int(row))
        self.trained[row] = max(self.trained[row], int(checkpoint))
        with quiet():
            self.dehb.tell(job, {"fitness": -float(score), "cost": float(checkpoint)})


def _silence_loguru() -> None:
    """Remove the loguru handlers DEHB installed (a stdout sink and a file in its folder)."""
    from loguru import logger

    logger.remove()
