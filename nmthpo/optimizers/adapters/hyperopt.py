"""hyperopt's TPE as a table method: ``hyperopt:tpe`` (and ``hyperopt:rand``, ``hyperopt:atpe``
where installed).

hyperopt (Bergstra et al. 2013) has no public ask/tell: its ``fmin`` loop calls the objective
itself. The adapter drives the same pieces ``fmin`` does: a ``Trials`` store, a ``Domain``
over the search space, and the algorithm's ``suggest(new_ids, domain, trials, seed)``, which
returns the next trial's document; telling a value inserts the finished document
(``Trials.insert_trial_docs``), whether or not hyperopt proposed it (the initial rows and
snapped proposals are inserted as what was evaluated). The space is one ``hp.quniform`` per
column over its ranks, ``[-0.5, k - 0.5]`` in steps of 1, so that every rank has the same prior
mass; each suggest is seeded from the trial's generator. The rest (one ask per evaluated row,
snapping, quiet calls) is :mod:`nmthpo.optimizers.adapters.library`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nmthpo.optimizers.adapters.library import LibraryOptimizer, named_spec, require
from nmthpo.optimizers.base import RunContext
from nmthpo.optimizers.registry import MethodSpec
from nmthpo.optimizers.settings import setting

__all__ = ["ALGORITHMS", "PREFIX", "HyperoptOptimizer", "HyperoptSettings", "from_name"]

#: Method names of this adapter: ``hyperopt:<algorithm>``.
PREFIX = "hyperopt:"
#: ``hyperopt:<name>`` -> the module of hyperopt whose ``suggest`` it is.
ALGORITHMS: tuple[str, ...] = ("tpe", "rand", "anneal")


def from_name(name: str) -> MethodSpec:
    """The registry entry of ``hyperopt:<algorithm>`` (the registry's hook for the prefix)."""
    return named_spec(
        name,
        PREFIX,
        {a: a for a in ALGORITHMS},
        "hyperopt",
        __name__,
        "HyperoptOptimizer",
        "algorithm",
        "hyperopt's {value}.suggest over the ranks of the table's columns (adapter)",
    )


@dataclass(frozen=True)
class HyperoptSettings:
    """Settings of :class:`HyperoptOptimizer`."""

    algorithm: str = setting(
        "tpe",
        "hyperopt's algorithm: tpe, rand, anneal (set by hyperopt:<name>)",
        choices=ALGORITHMS,
    )
    n_startup_jobs: int = setting(
        20,
        "TPE: observations (initial rows included) before the model is used",
        low=1,
        high=100_000,
    )


class HyperoptOptimizer(LibraryOptimizer):
    """hyperopt's ``suggest`` over the ranks of the table's columns (module docstring)."""

    library = "hyperopt"
    module = "hyperopt"
    Settings = HyperoptSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        run_context: RunContext | None = None,
        algorithm: str = "tpe",
        n_startup_jobs: int = 20,
    ) -> None:
        super().__init__(X, rng, objective, run_context)
        hyperopt = require("hyperopt", PREFIX + algorithm, self.library)
        import functools
        import importlib

        hp = hyperopt.hp
        self.labels = [f"x{j}" for j in range(len(self.sizes))]
        space = {
            lab: hp.quniform(lab, -0.5, int(k) - 0.5, 1)
            for lab, k in zip(self.labels, self.sizes, strict=True)
        }
        self.domain = hyperopt.base.Domain(lambda _: 0.0, space)
        self.trials = hyperopt.Trials()
        suggest = importlib.import_module(f"hyperopt.{algorithm}").suggest
        if algorithm == "tpe":
            suggest = functools.partial(suggest, n_startup_jobs=int(n_startup_jobs))
        self._suggest = suggest
        self._hyperopt = hyperopt
        self._seeds = np.random.default_rng(self.library_seed)

    def _doc(self, tid: int, codes: np.ndarray, loss: float) -> dict[str, Any]:
        h = self._hyperopt
        vals = {lab: [float(c)] for lab, c in zip(self.labels, codes, strict=True)}
        idxs = {lab: [tid] for lab in self.labels}
        misc = {"tid": tid, "cmd": self.domain.cmd, "workdir": None, "idxs": idxs, "vals": vals}
        (doc,) = self.trials.new_trial_docs(
            [tid], [None], [{"loss": float(loss), "status": h.STATUS_OK}], [misc]
        )
        doc["state"] = h.JOB_STATE_DONE
        return dict(doc)

    def propose(self) -> tuple[np.ndarray, Any]:
        tid = self.trials.new_trial_ids(1)
        seed = int(self._seeds.integers(0, 2**31 - 1))
        (doc,) = self._suggest(tid, self.domain, self.trials, seed)
        vals = doc["misc"]["vals"]
        return np.array([float(vals[lab][0]) for lab in self.labels]), None

    def observe(self, codes: np.ndarray, loss: float, token: Any) -> None:
        (tid,) = self.trials.new_trial_ids(1)
        self.trials.insert_trial_docs([self._doc(tid, codes, loss)])
        self.trials.refresh()
