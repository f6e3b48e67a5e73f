"""Syne Tune's multi-fidelity schedulers over the learning curves (``syne-tune:<Scheduler>``).

Syne Tune (Salinas et al. 2022, AutoML Conf) tunes by *stopping*: a scheduler suggests a
configuration, is told a result after every epoch and answers continue or stop. This adapter
drives that protocol over a learning-curve table with one simulated worker, one checkpoint per
job, as :mod:`.optuna_pruner` drives Optuna's pruners. The schedulers compared
(:data:`SCHEDULERS`, :mod:`syne_tune.optimizer.baselines`, their defaults):

* ``ASHA`` -- asynchronous successive halving, stopping variant (Li et al. 2020), random
  configurations;
* ``BOHB`` -- the same rungs with a kernel-density (TPE-like) searcher (Falkner et al. 2018).

Syne Tune's other rung-based baselines (``ASHABORE``, ``ASHACQR``) are left out: their
searchers need xgboost (228 MB), which the extra does not install.

The rung levels are Syne Tune's: ``grace_period`` 1, ``reduction_factor`` 3, ``max_t`` the
longest curve.

The rule from a proposal to a row is the table adapters' (:mod:`nmthpo.optimizers.adapters.
library`): one integer hyperparameter ``0 .. k-1`` (the ranks) per column that is not
constant; a suggestion becomes the *nearest configuration not started yet*
(:meth:`~nmthpo.optimizers.space.OrdinalSpace.snap`, ties to the lowest row id), and the
scheduler's trial carries that row's ranks, so it learns only from what was trained. A
configuration is told ``{metric: score, "epoch": checkpoint}`` (higher is better; a curve that
ends is reported complete). Syne Tune's seed is drawn from the trial's generator; the global
NumPy random state it reads (the choice of a bracket) is the adapter's own, swapped in around
every call (:func:`~nmthpo.optimizers.adapters.library.swapped_global_rng`); its prints and
warnings are kept out of the run (:func:`~nmthpo.optimizers.adapters.library.quiet`).

Installing: ``make peers`` installs Syne Tune without its declared dependencies (the ones it
imports are in ``requirements.lock`` and ``requirements-peers.lock``).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nmthpo.optimizers.adapters.library import named_spec, quiet, require, swapped_global_rng
from nmthpo.optimizers.multifidelity.base import FidelityOptimizer, Job
from nmthpo.optimizers.registry import MethodSpec
from nmthpo.optimizers.settings import setting
from nmthpo.optimizers.space import OrdinalSpace

__all__ = ["PREFIX", "SCHEDULERS", "SyneTuneScheduler", "SyneTuneSettings", "from_name"]

PREFIX = "syne-tune:"
#: The schedulers of :mod:`syne_tune.optimizer.baselines` this adapter drives.
SCHEDULERS: dict[str, str] = {s: s for s in ("ASHA", "BOHB")}
_METRIC, _EPOCH = "score", "epoch"
#: The creation time of every Syne Tune trial (only its bookkeeping reads it).
_EPOCH_START = datetime.datetime(2020, 1, 1)


def from_name(name: str) -> MethodSpec:
    """The registry entry of ``syne-tune:<Scheduler>`` (the registry's prefix hook)."""
    spec = named_spec(
        name,
        PREFIX,
        SCHEDULERS,
        "Syne Tune",
        __name__,
        "SyneTuneScheduler",
        "scheduler",
        "Syne Tune's {value} scheduler over the learning curves (one checkpoint a step)",
    )
    return MethodSpec(spec.module, spec.cls, spec.settings, (), spec.description, fidelity=True)


@dataclass(frozen=True)
class SyneTuneSettings:
    """Settings of :class:`SyneTuneScheduler`."""

    scheduler: str = setting(
        "ASHA", "a scheduler of syne_tune.optimizer.baselines (set by the name)"
    )
    grace_period: int = setting(1, "first rung (checkpoints)", low=1, high=100_000)
    reduction_factor: float = setting(3, "reduction factor", low=1.0, low_open=True, high=100.0)


class SyneTuneScheduler(FidelityOptimizer):
    """One Syne Tune scheduler deciding after every checkpoint (module docstring).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    longest : int
    rng : numpy.random.Generator
        Draws Syne Tune's seed and its global NumPy state.
    scheduler : str
        One of :data:`SCHEDULERS`.
    grace_period : int
        First rung (default 1).
    reduction_factor : float
        Default 3.

    Attributes
    ----------
    snapped : int
        Suggestions moved to another row (the table lacks them, or they were started).
    n_stopped : int
        Configurations the scheduler stopped before their curve ended.
    """

    Settings = SyneTuneSettings
    library: ClassVar[str] = "Syne Tune"
    module: ClassVar[str] = "syne_tune"

    @classmethod
    def check_available(cls, method: str) -> None:
        """Refuse the method before any work if Syne Tune is not installed (runner's hook)."""
        require(f"{cls.module}.optimizer.baselines", method, cls.library)

    def __init__(
        self,
        X: np.ndarray,
        longest: int,
        rng: np.random.Generator,
        scheduler: str = "ASHA",
        grace_period: int = 1,
        reduction_factor: float = 3,
    ) -> None:
        super().__init__(X, longest, rng)
        if scheduler not in SCHEDULERS:
            raise ValueError(
                f"unknown Syne Tune scheduler {scheduler!r}; valid: {', '.join(SCHEDULERS)}"
            )
        baselines = require(f"{self.module}.optimizer.baselines", PREFIX + scheduler, self.library)
        from syne_tune.config_space import randint

        self.space = OrdinalSpace(self.X)
        self.free = np.flatnonzero(self.space.sizes > 1)
        self._names = [f"x{j}" for j in self.free]
        config_space = {
            n: randint(0, int(self.space.sizes[j]) - 1)
            for n, j in zip(self._names, self.free, strict=True)
        }
        seed = int(rng.integers(0, 2**31 - 1))
        self._state: dict[str, Any] = {
            "numpy": np.random.RandomState(seed).get_state()  # noqa: NPY002 - Syne Tune's global
        }
        with self._call():
            self.scheduler = getattr(baselines, scheduler)(
                config_space,
                metric=_METRIC,
                time_attr=_EPOCH,
                max_t=self.longest,
                do_minimize=False,
                random_seed=seed,
                grace_period=self._check_checkpoint("grace_period", grace_period, 1),
                reduction_factor=reduction_factor,
            )
        self.snapped = 0
        self.n_stopped = 0
        self._trial: Any = None
        self._row = -1
        self._step = 0

    def _call(self) -> Any:
        """The context of every call into Syne Tune: quiet, with the adapter's global state."""
        from contextlib import ExitStack

        stack = ExitStack()
        stack.enter_context(quiet())
        stack.enter_context(swapped_global_rng(self._state))
        return stack

    def _start(self) -> bool:
        """Ask the scheduler for a configuration and start its row (False: none left)."""
        from syne_tune.backend.trial_status import Trial

        if self.started.all():
            return False
        with self._call():
            suggestion = self.scheduler.suggest()
        if suggestion is None:
            return False
        codes = np.zeros(self.space.d)
        for n, j in zip(self._names, self.free, strict=True):
            codes[j] = float(suggestion.config[n])
        row, exact = self.space.snap(codes, self.started)
        self.snapped += int(not exact)
        self.started[row] = True
        config = {
            n: int(self.space.codes[row, j]) for n, j in zip(self._names, self.free, strict=True)
        }
        trial = Trial(
            trial_id=int(self.started.sum()) - 1, config=config, creation_time=_EPOCH_START
        )
        with self._call():
            self.scheduler.on_trial_add(trial)
        self._trial, self._row, self._step = trial, int(row), 0
        return True

    def ask(self) -> Job | None:
        if self._trial is None and not self._start():
            return None
        return self._row, self._step + 1

    def tell(self, row: int, checkpoint: int, score: float, complete: bool) -> None:
        from syne_tune.optimizer.scheduler import SchedulerDecision

        self._step = int(checkpoint)
        result = {_METRIC: float(score), _EPOCH: self._step}
        with self._call():
            if complete:
                self.scheduler.on_trial_complete(self._trial, result)
                decision = SchedulerDecision.STOP
            else:
                decision = self.scheduler.on_trial_result(self._trial, result)
        if decision == SchedulerDecision.CONTINUE and not complete:
            return
        self.n_stopped += int(not complete)
        self._trial = None
