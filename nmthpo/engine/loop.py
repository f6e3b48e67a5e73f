"""The one ask/tell loop (Zhang & Duh 2020, Section 2, Figure 2; Li et al. 2022, Algorithm 1).

Every search of the package runs through :func:`ask_tell`: the runner's trials, single-task
and transfer (:mod:`nmthpo.engine.runner`), and the searches inside sub-spaces of Chapter 6
(:func:`nmthpo.studies.ariafar.space_scores.search_in_rows`). The optimiser is first told the
``initial`` rows, then asked for one row at a time and told its value, until

* ``limit`` rows were evaluated (initial rows included), or
* every row of ``targets`` was evaluated (the oracle stop rule; ``None``: no such stop).

The optimiser is the user's code, untrusted: every ``ask``, ``tell`` and recorder call runs
under :func:`nmthpo.optimizers.base.user_code`, so an exception it raises becomes one
:class:`~nmthpo.errors.UserCodeError` naming the method, the trial and the exception
(``"method mymod:Bad, trial 3: ask() raised ZeroDivisionError: division by zero"``; raised
``from`` the original). The package's own optimisers go through the same guard: one path (a
package bug is reported in one line too, with its traceback kept as the cause).
``KeyboardInterrupt`` and ``MemoryError`` pass through unchanged.

What ``ask()`` returns must be the id of a row not evaluated yet in this trial: an integer
(:func:`nmthpo.optimizers.base.integer_like`: a Python ``int``, a NumPy integer or a 0-d
integer array; not a ``bool``, not a float even if integral, not a string, ``None`` or an
array) in ``0 .. n-1``. Anything else -- a repeated row included (the search is without
replacement) -- is a :class:`~nmthpo.errors.UserCodeError` quoting the value.

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

from nmthpo.errors import UserCodeError
from nmthpo.optimizers.base import integer_like, quote_value, user_code, user_code_error

__all__ = [
    "OptimizerAsks",
    "Recorder",
    "SuggestTime",
    "SurrogateMSE",
    "TransferWeights",
    "ask_tell",
]


class Recorder(Protocol):
    """Collects one value (or vector) per evaluated row.

    A recorder may name what it reads of the optimiser in a class attribute ``reads`` (e.g.
    ``"predict_mean()"``): an error raised there is reported as that call's.
    """

    def record(self, opt: Any, seconds: float | None) -> None:
        """Called after each ``tell``; ``seconds`` of the ``ask`` and that ``tell`` (None for
        initial rows)."""

    def values(self) -> dict[str, np.ndarray]:
        """The recorded columns, one entry per evaluated row."""


class SurrogateMSE:
    """Mean squared error of ``opt.predict_mean()`` against ``truth`` after every ``tell``
    (``NaN`` for optimisers without a surrogate): the curves of Figure 6 (Zhang & Duh 2020)."""

    reads = "predict_mean()"

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
    when it chose each row (``NaN`` for initial rows, for optimisers without weights and for
    source weights of another length)."""

    reads = "reading attributes target_weights, source_weights"

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
    """Wall-clock seconds of each suggestion: its ``ask`` and the ``tell`` of the row it
    chose (0 for initial rows); a measurement, so it differs between runs while the rows do
    not."""

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

    reads = "reading attribute asks"

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
    label: str = "",
    *,
    method: str = "",
    trial: int | None = None,
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
        Names the optimiser in errors when ``method`` is not given (e.g. ``"gb-ei-m
        (sub-table search)"``).
    method : str, optional
        The method's name (the runner's ``spec.method``): errors read ``"method M, trial T:
        ..."`` (without either: ``"ask() raised ..."``).
    trial : int, optional
        The trial, named in errors with ``method``.

    Returns
    -------
    ndarray of int64
        The evaluated rows in order.

    Raises
    ------
    UserCodeError
        The optimiser raised in ``ask``, ``tell`` or a recorder's call, or ``ask`` returned
        something other than an unevaluated row id (module docstring).
    """
    name = method or label
    n = len(y)
    rows: list[int] = []
    seen: set[int] = set()
    remaining = None if targets is None else {int(r) for r in targets}

    def fail(text: str) -> UserCodeError:
        return user_code_error(text, name, trial)

    def observe(r: int, seconds: float | None) -> None:
        t0 = time.perf_counter()
        with user_code("tell()", name, trial):
            opt.tell(r, y[r])
        if seconds is not None:  # a suggestion costs its ask and its tell
            seconds += time.perf_counter() - t0
        rows.append(r)
        seen.add(r)
        if remaining is not None:
            remaining.discard(r)
        for rec in recorders:
            with user_code(getattr(rec, "reads", type(rec).__name__), name, trial):
                rec.record(opt, seconds)

    for r in initial:
        observe(int(r), None)
    while len(rows) < limit and not (remaining is not None and not remaining):
        t0 = time.perf_counter()
        with user_code("ask()", name, trial):
            got = opt.ask()
        dt = time.perf_counter() - t0
        row = integer_like(got)
        if row is None:
            raise fail(
                f"ask() returned {quote_value(got)} ({type(got).__name__}); it must return the id "
                f"of an unevaluated row: an integer (a Python int or a NumPy integer; not a "
                f"bool, not a float even if integral, not a string, None or an array) in "
                f"0..{n - 1}"
            )
        if not 0 <= row < n:
            raise fail(
                f"ask() returned {quote_value(got)}, outside the table's rows 0..{n - 1}; it must "
                "return the id of an unevaluated row"
            )
        if row in seen:
            raise fail(
                f"ask() returned {quote_value(got)}, a row already evaluated in this trial; it "
                "must return the id of an unevaluated row (the search is without replacement)"
            )
        observe(row, dt)
    return np.asarray(rows, dtype=np.int64)
