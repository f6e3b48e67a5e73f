"""SMAC3's facades as table methods: ``smac:hpo`` (a random forest, SMAC's
``HyperparameterOptimizationFacade``) and ``smac:blackbox`` (a Gaussian process,
``BlackBoxFacade``).

SMAC3 (Lindauer et al. 2022) is asked and told through its ask/tell interface
(``smac.ask() -> TrialInfo``, ``smac.tell(info, TrialValue(cost=...))``) over a
``ConfigurationSpace`` of one ``UniformIntegerHyperparameter`` per column, the ranks of the
column's values. SMAC needs its budget up front: its ``Scenario`` gets ``n_trials`` = the
run's budget (:class:`~nmthpo.optimizers.base.RunContext`), ``deterministic=True`` (a table
row has one value) and the seed drawn from the trial's generator. A snapped proposal is told
as the configuration of the row that was evaluated (a new ``TrialInfo``), never as a crash:
SMAC's default ``crash_cost`` would otherwise enter its model. SMAC writes its run history to
a directory: the adapter gives it a temporary one, removed with the optimiser.

Reproducibility. Used as it comes, SMAC3 gives a trial other rows in another process, found
with ``nmthpo check-method smac:hpo --task sw-en``: (1) its random forest predicts with every
core (``n_jobs=-1``) and sums the trees in the order the threads finish; (2) its local search
orders its start points by the configurations' hashes, which differ between processes
(``PYTHONHASHSEED``); (3) a thread pool loaded during the first trial of a process runs with
every core. The adapter predicts with one job, orders the start points
(:func:`_order_start_points`) and imports SMAC before the trial's thread limits
(:meth:`~nmthpo.optimizers.adapters.library.LibraryOptimizer.preload`): a trial's rows then
depend only on (task, settings, seed, trial), with one worker or many. The rest (one ask
per evaluated row, snapping, quiet calls) is :mod:`nmthpo.optimizers.adapters.library`.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nmthpo.optimizers.adapters.library import LibraryOptimizer, named_spec, require
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
    return named_spec(
        name,
        PREFIX,
        {k: k for k in FACADES},
        "SMAC3",
        __name__,
        "SmacOptimizer",
        "facade",
        "SMAC3's {value} facade over the ranks of the table's columns (ask/tell adapter)",
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
    #: SMAC3 never repeats a configuration; near the end of a small table its random
    #: sampling over the grid of ranks gives up (``ConfigurationSpaceExhaustedException``)
    exhausted_errors = ("ConfigurationSpaceExhaustedException",)
    preload_modules = ("sklearn.ensemble", "ConfigSpace")
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
            "logging_level": False,  # 40 or None would reconfigure the root logger
        }
        model = cls.get_model(scenario)
        opts = getattr(model, "_rf_opts", None)
        if isinstance(opts, dict) and "n_jobs" in opts:
            # the forest's trees are seeded, but its predictions are summed over threads in
            # the order they finish (n_jobs=-1): floating-point noise that changes rows
            opts["n_jobs"] = 1
        kwargs["model"] = model
        self.smac: Any = cls(scenario, _never_called, **kwargs)
        _order_start_points(self.smac)

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


def _order_start_points(smac: Any) -> None:
    """Make the local search's start points independent of Python's hash seed.

    SMAC's ``LocalSearch._get_initial_points`` de-duplicates its start points through a
    ``set`` of configurations and returns ``list(set)``: their order -- and so which local
    search consumes which random numbers -- follows the hashes of the configurations, which
    change from process to process (``PYTHONHASHSEED``), so the same trial chose other rows in
    another worker. The adapter wraps that method *of this optimiser's instance* (nothing global
    changes) to return the same points sorted by their vector; a library update that renames it
    leaves the wrapper out, and ``nmthpo check-method`` (and the tests) then fail.
    """
    search: Any = getattr(getattr(smac, "_acquisition_maximizer", None), "_local_search", None)
    original = getattr(search, "_get_initial_points", None)
    if original is None:
        return

    def ordered(*args: Any, **kwargs: Any) -> list[Any]:
        points = original(*args, **kwargs)
        return sorted(points, key=lambda c: tuple(np.asarray(c.get_array(), dtype=float)))

    search._get_initial_points = ordered
