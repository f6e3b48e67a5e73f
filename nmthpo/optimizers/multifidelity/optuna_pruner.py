"""Optuna's pruners driven over the learning curves (``optuna-pruner:<PrunerClass>``).

An external reference for the package's own methods: one Optuna trial per
configuration, configurations in the method's random order (:attr:`FidelityOptimizer.order`,
i.e. Optuna's ``RandomSampler`` without replacement); each job trains one more checkpoint,
reports the best-so-far score as the intermediate value of that step
(:meth:`optuna.trial.Trial.report`) and asks :meth:`~optuna.trial.Trial.should_prune`. A pruned
configuration is told ``PRUNED``; one whose curve ended is told ``COMPLETE`` with its final
score. The pruners compared: ``SuccessiveHalvingPruner`` (asynchronous successive halving, Li
et al. 2020), ``HyperbandPruner`` (Li et al. 2018) and ``MedianPruner`` (Golovin et al. 2017,
Google Vizier's median stopping rule), with Optuna's defaults unless settings say otherwise;
``HyperbandPruner`` gets ``max_resource`` = the longest curve. Optuna's quiet mode is the
sampler adapter's (:mod:`nmthpo.optimizers.adapters.optuna`).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nmthpo.optimizers.adapters.optuna import _quiet, class_of_name
from nmthpo.optimizers.multifidelity.base import FidelityOptimizer, Job
from nmthpo.optimizers.settings import setting

__all__ = ["PREFIX", "PRUNERS", "OptunaPruner", "OptunaPrunerSettings", "from_name"]

PREFIX = "optuna-pruner:"
#: The pruners this adapter is meant for (others of :mod:`optuna.pruners` work too).
PRUNERS: tuple[str, ...] = ("SuccessiveHalvingPruner", "HyperbandPruner", "MedianPruner")


def _pruner_names() -> list[str]:
    import optuna.pruners as pruners

    return sorted(
        n
        for n in dir(pruners)
        if isinstance(getattr(pruners, n), type)
        and issubclass(getattr(pruners, n), pruners.BasePruner)
        and not inspect.isabstract(getattr(pruners, n))
        and n not in ("BasePruner", "NopPruner", "WilcoxonPruner")
    )


def from_name(name: str) -> Any:
    """The registry entry of ``"optuna-pruner:<PrunerClass>"`` (the registry's prefix hook)."""
    from nmthpo.optimizers.registry import MethodSpec

    cls = class_of_name(name, PREFIX, _pruner_names(), "pruner", "HyperbandPruner")
    return MethodSpec(
        __name__,
        "OptunaPruner",
        {"pruner": cls},
        ("bleu",),
        f"Optuna's {cls} over the learning curves (one checkpoint a step)",
        fidelity=True,
    )


@dataclass(frozen=True)
class OptunaPrunerSettings:
    """Settings of :class:`OptunaPruner`; the pruner's own keyword arguments pass through."""

    more: ClassVar[str] = "keyword arguments of the Optuna pruner class"

    pruner: str = setting(
        "HyperbandPruner", "a class of optuna.pruners (set by the name optuna-pruner:<Class>)"
    )


class OptunaPruner(FidelityOptimizer):
    """One Optuna study with ``pruner`` deciding after every checkpoint.

    Parameters
    ----------
    pruner : str
        A class of :mod:`optuna.pruners`.
    **pruner_settings
        Its keyword arguments (e.g. ``n_startup_trials=5`` for ``MedianPruner``).
    """

    Settings = OptunaPrunerSettings

    @classmethod
    def check_library_settings(
        cls, values: dict[str, Any], settings: dict[str, Any], method: str
    ) -> None:
        """Check the pruner's own arguments ``values`` before any work
        (:func:`nmthpo.optimizers.adapters.optuna.check_library_settings`)."""
        import optuna

        from nmthpo.optimizers.adapters.optuna import check_library_settings

        pruner = getattr(optuna.pruners, str(settings.get("pruner", "HyperbandPruner")), None)
        if pruner is not None:
            check_library_settings(pruner, "pruner", values, method)

    def __init__(
        self,
        X: np.ndarray,
        longest: int,
        rng: np.random.Generator,
        pruner: str = "HyperbandPruner",
        **pruner_settings: Any,
    ) -> None:
        super().__init__(X, longest, rng)
        import optuna

        cls = getattr(optuna.pruners, pruner, None)
        if cls is None or pruner not in _pruner_names():
            raise ValueError(
                f"unknown Optuna pruner {pruner!r}; valid: {', '.join(_pruner_names())}"
            )
        kwargs = dict(pruner_settings)
        if pruner == "HyperbandPruner":
            kwargs.setdefault("max_resource", self.longest)
        try:
            self.pruner = cls(**kwargs)
        except TypeError as exc:
            raise ValueError(
                f"{PREFIX}{pruner}: bad setting(s) {sorted(pruner_settings)} "
                f"({exc}); see optuna.pruners.{pruner}"
            ) from None
        with _quiet():
            # a fixed study name: HyperbandPruner assigns brackets by hashing it
            self.study = optuna.create_study(
                study_name="nmthpo",
                direction="maximize",
                pruner=self.pruner,
                sampler=optuna.samplers.RandomSampler(seed=int(rng.integers(2**31 - 1))),
            )
        self._row: int | None = None
        self._trial: Any = None
        self._step = 0
        self.n_pruned = 0

    def ask(self) -> Job | None:
        if self._row is None:
            row = self.new_row()
            if row is None:
                return None
            with _quiet():
                self._trial = self.study.ask()
            self._row, self._step = row, 0
        return self._row, self._step + 1

    def tell(self, row: int, checkpoint: int, score: float, complete: bool) -> None:
        from optuna.trial import TrialState

        self._step = int(checkpoint)
        with _quiet():
            self._trial.report(float(score), self._step)
            if complete:
                self.study.tell(self._trial, float(score))
            elif self._trial.should_prune():
                self.study.tell(self._trial, state=TrialState.PRUNED)
                self.n_pruned += 1
            else:
                return
        self._row, self._trial = None, None
