"""The one ask/tell loop (Zhang & Duh 2020, Section 2, Figure 2; Li et al. 2022, Algorithm 1).

Every search of the package runs through :func:`ask_tell`: the runner's trials, single-task
and transfer (:mod:`nmthpo.engine.runner`), and the searches inside sub-spaces of Chapter 6
(:func:`nmthpo.studies.ariafar.space_scores.search_in_rows`). The optimiser is first told the
``initial`` rows, then asked for one row at a time and told its value, until

* ``limit`` rows were evaluated (initial rows included), or
* every row of ``targets`` was evaluated (the oracle stop rule; ``None``: no such stop).

A proposal of a row already evaluated breaks the protocol (the search is without
replacement) and raises ``RuntimeError``.

*Recorders* collect per-step by-products without entering the loop's logic: after each
``tell`` every recorder gets the optimiser and the wall time of the ``ask`` that chose the row
(``None`` for initial rows). :class:`SurrogateMSE` records the mean squared error of the
optimiser's ``predict_mean`` (Figure 6), :class:`TransferWeights` the target and source
weights of a transfer optimiser when it chose the row, :class:`SuggestTime` the seconds per
``ask``.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable, Sequence
from typing import Any, Protocol

import numpy as np

__all__ = [
    "OptimizerAsks",
    "Recorder",
    "SuggestTime",
    "SurrogateMSE",
    "TransferWeights",
    "ask_tell",
]


class Recorder(Protocol):
    """Collects one value (or vector) per evaluated row."""

    def record(self, opt: Any, seconds: float | None) -> None:
        """Called after each ``tell``; ``seconds`` of the ``ask`` (None for initial rows)."""

    def values(self) -> dict[str, np.ndarray]:
        """The recorded columns, one entry per evaluated row."""


class SurrogateMSE:
    """Mean squared error of ``opt.predict_mean()`` against ``truth`` after every ``tell``
    (NaN for optimisers without a surrogate): the curves of Figure 6 (Zhang & Duh 2020)."""

    def __init__(self, truth: np.ndarray) -> None:
        self.truth = np.asarray(truth, dtype=float)
        self._mse: list[float] = []

    def record(self, opt: Any, seconds: float | None) -> None:
        pm = getattr(opt, "predict_mean", None)
        self._mse.append(float(np.mean((pm() - self.truth) ** 2)) if pm is not None else np.nan)

    def values(self) -> dict[str, np.ndarray]:
        return {"mse": np.asarray(self._mse, dtype=float)}


class TransferWeights:
    """Target weight and the ``n_sources`` source weights of a transfer optimiser's surrogate
    when it chose each row (NaN for initial rows, for optimisers without weights and for
    source weights of another length)."""

    def __init__(self, n_sources: int) -> None:
        self.K = int(n_sources)
        self._tw: list[float] = []
        self._sw: list[np.ndarray] = []

    def record(self, opt: Any, seconds: float | None) -> None:
        tw, sw = np.nan, np.full(self.K, np.nan)
        tws, sws = getattr(opt, "target_weights", None), getattr(opt, "source_weights", None)
        if seconds is not None and tws:
            tw = float(tws[-1])
        if seconds is not None and sws and np.asarray(sws[-1]).size == self.K:
            sw = np.asarray(sws[-1], dtype=float)
        self._tw.append(tw)
        self._sw.append(sw)

    def values(self) -> dict[str, np.ndarray]:
        sw = np.vstack(self._sw) if self._sw else np.empty((0, self.K))
        return {
            "target_weight": np.asarray(self._tw, dtype=float),
            "source_weights": sw.reshape(len(self._sw), self.K),
        }


class SuggestTime:
    """Wall-clock seconds of each ``ask`` (0 for initial rows); a measurement, so it differs
    between runs while the rows do not."""

    def __init__(self) -> None:
        self._s: list[float] = []

    def record(self, opt: Any, seconds: float | None) -> None:
        self._s.append(0.0 if seconds is None else float(seconds))

    def values(self) -> dict[str, np.ndarray]:
        return {"seconds": np.asarray(self._s, dtype=float)}


class OptimizerAsks:
    """How many times an adapter asked its library for each row it evaluated (initial rows
    included), read from the optimiser's ``asks`` list at the end of the trial (e.g.
    :class:`nmthpo.optimizers.adapters.optuna.OptunaSampler`, whose sampler may propose a
    missing combination or an evaluated row, which is not charged)."""

    def __init__(self) -> None:
        self._opt: Any = None

    def record(self, opt: Any, seconds: float | None) -> None:
        self._opt = opt

    def values(self) -> dict[str, np.ndarray]:
        asks = getattr(self._opt, "asks", None)
        return {} if asks is None else {"asks": np.asarray(asks, dtype=np.int64)}


def ask_tell(
    opt: Any,
    y: np.ndarray,
    initial: Iterable[int],
    limit: int,
    targets: Collection[int] | None = None,
    recorders: Sequence[Recorder] = (),
    label: str = "the optimiser",
) -> np.ndarray:
    """Run the ask/tell loop of ``opt`` over rows with objective values ``y``.

    Parameters
    ----------
    opt : optimiser
        Anything with ``ask() -> int`` and ``tell(row, y)``.
    y : ndarray of shape (n,) or (n, 2)
        What ``tell`` receives for each row.
    initial : iterable of int
        Rows told first (they count towards ``limit``).
    limit : int
        Total number of evaluations (initial rows included).
    targets : collection of int, optional
        Stop as soon as all these rows were evaluated (after the initial rows).
    recorders : sequence of Recorder
        Per-step by-products (see the module docstring).
    label : str
        Names the optimiser in the error for a repeated proposal.

    Returns
    -------
    ndarray of int64
        The evaluated rows in order.
    """
    rows: list[int] = []
    seen: set[int] = set()
    remaining = None if targets is None else {int(r) for r in targets}

    def observe(r: int, seconds: float | None) -> None:
        opt.tell(r, y[r])
        rows.append(r)
        seen.add(r)
        if remaining is not None:
            remaining.discard(r)
        for rec in recorders:
            rec.record(opt, seconds)

    for r in initial:
        observe(int(r), None)
    while len(rows) < limit and not (remaining is not None and not remaining):
        t0 = time.perf_counter()
        r = int(opt.ask())
        dt = time.perf_counter() - t0
        if r in seen:
            raise RuntimeError(f"{label} proposed row {r} twice")
        observe(r, dt)
    return np.asarray(rows, dtype=np.int64)
