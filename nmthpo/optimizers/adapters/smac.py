"""SMAC3's facades as table methods: ``smac:hpo`` (random forest, ``HyperparameterOptimization
Facade``) and ``smac:blackbox`` (Gaussian process, ``BlackBoxFacade``).

SMAC3 (Lindauer et al. 2022) is asked and told through its ask/tell interface
(``smac.ask() -> TrialInfo``, ``smac.tell(info, TrialValue(cost=...))``) over a
``ConfigurationSpace`` of one ``UniformIntegerHyperparameter`` per column, the ranks of the
column's values. SMAC needs its budget up front: its ``Scenario`` gets ``n_trials`` = the
run's budget (:class:`~nmthpo.optimizers.base.RunContext`), ``deterministic=True`` (a table
row has one value) and the seed drawn from the trial's generator. A snapped proposal is told
as the configuration of the row that was evaluated (a new ``TrialInfo``), never as a crash:
SMAC's default ``crash_cost`` would otherwise enter its model. SMAC writes its run history to
a directory: the adapter gives it a temporary one, removed with the optimiser.

Reproducibility: SMAC's random forest draws from pyrfr's own generator and, by default, fits
with every core (``n_jobs=-1``); both are fixed here (one job; the forest's seed from the
trial's generator), so a trial's rows depend only on (task, settings, seed, trial), not on the
number of workers or on the trials run before it in the same process (checked by
``nmthpo check-method``, and by the tests with ``--jobs 1`` and ``--jobs 2``). The rest (one ask
per evaluated row, snapping, quiet calls) is :mod:`nmthpo.optimizers.adapters.library`.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nmthpo.errors import InputKeyError
from nmthpo.optimizers.adapters.library import LibraryOptimizer, require
from nmthpo.optimizers.base import RunContext
from nmthpo.optimizers.registry import MethodSpec
from nmthpo.optimizers.settings import setting

__all__ = ["FACADES", "PREFIX", "SmacOptimizer", "SmacSettings", "from_name"]

#: Method names of this adapter: ``smac:<facade>``.
PREFIX = "smac:"
#: ``smac:<name>`` -> the facade class of :mod:`smac`.
FACADES: dict[str, str] = {
    "hpo": "HyperparameterOptimizationFacade",
    "blackbox": "BlackBoxFacade",
}


def from_name(name: str) -> MethodSpec:
    """The registry entry of ``smac:<facade>`` (the registry's hook for the prefix)."""
    key = name.removeprefix(PREFIX)
    if not name.startswith(PREFIX) or key not in FACADES:
        raise InputKeyError(
            f"unknown SMAC3 method {name!r}; valid: " + ", ".join(PREFIX + k for k in FACADES)
        )
    return MethodSpec(
        __name__,
        "SmacOptimizer",
        {"facade": key},
        ("bleu",),
        f"SMAC3's {FACADES[key]} over the ranks of the table's columns (ask/tell adapter)",
    )


def _never_called(config: Any, seed: int = 0) -> float:  # pragma: no cover - ask/tell only
    raise RuntimeError("SMAC's target function is not called: the table is asked and told")


@dataclass(frozen=True)
class SmacSettings:
    """Settings of :class:`SmacOptimizer`."""

    facade: str = setting(
        "hpo",
        "SMAC3's facade: hpo (random forest), blackbox (GP) (set by smac:<name>)",
        choices=tuple(FACADES),
    )


class SmacOptimizer(LibraryOptimizer):
    """A SMAC3 facade over the ranks of the table's columns (module docstring)."""

    library = "SMAC3"
    module = "smac"
    Settings = SmacSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        run_context: RunContext | None = None,
        facade: str = "hpo",
    ) -> None:
        super().__init__(X, rng, objective, run_context)
        smac = require("smac", PREFIX + facade, self.library)
        from ConfigSpace import ConfigurationSpace, UniformIntegerHyperparameter
        from smac.runhistory.dataclasses import TrialInfo, TrialValue

        self._TrialInfo, self._TrialValue = TrialInfo, TrialValue
        cs = ConfigurationSpace(seed=self.library_seed)
        self.names = [f"x{j}" for j in range(len(self.sizes))]
        cs.add(
            [
                UniformIntegerHyperparameter(n, 0, int(k) - 1)
                for n, k in zip(self.names, self.sizes, strict=True)
            ]
        )
        self.cs = cs
        self._dir = tempfile.TemporaryDirectory(prefix="nmthpo-smac-")
        scenario = smac.Scenario(
            cs,
            deterministic=True,
            n_trials=max(self.budget, 1),
            seed=self.library_seed,
            output_directory=Path(self._dir.name) / "smac",
        )
        cls = getattr(smac, FACADES[facade])
        kwargs: dict[str, Any] = {
            "intensifier": cls.get_intensifier(scenario, max_config_calls=1),
            "overwrite": True,
            "logging_level": 40,
        }
        if facade == "hpo":  # the forest: one job, its own seed (module docstring)
            kwargs["model"] = (
                cls.get_model(scenario, n_jobs=1)
                if _takes(cls.get_model, "n_jobs")
                else cls.get_model(scenario)
            )
        self.smac: Any = cls(scenario, _never_called, **kwargs)

    def _config(self, codes: np.ndarray) -> Any:
        from ConfigSpace import Configuration

        return Configuration(
            self.cs, values={n: int(c) for n, c in zip(self.names, codes, strict=True)}
        )

    def propose(self) -> tuple[np.ndarray, Any]:
        info = self.smac.ask()
        values = (
            info.config.get_dictionary()
            if hasattr(info.config, "get_dictionary")
            else dict(info.config)
        )
        return np.array([float(values[n]) for n in self.names]), info

    def observe(self, codes: np.ndarray, loss: float, token: Any) -> None:
        info = (
            token
            if token is not None
            else self._TrialInfo(config=self._config(codes), seed=self.library_seed % (2**31 - 1))
        )
        self.smac.tell(info, self._TrialValue(cost=float(loss)), save=False)


def _takes(fn: Any, name: str) -> bool:
    import inspect

    return name in inspect.signature(fn).parameters
