"""HPO-B style functions as table optimisers: :func:`from_hpob` (issue 13).

HPO-B (Pineda Arango et al. 2021) benchmarks an optimiser through one call,
``observe_and_suggest(X_obs, y_obs, X_pen) -> int``: the encoded configurations evaluated so
far, their results (a column, larger is better) and the encoded configurations still pending;
it returns the *index into* ``X_pen`` of the configuration to evaluate next. On a lookup table
(Zhang & Duh 2020, Section 2) ``X_pen`` is the set of unevaluated rows, so such a function is a
table optimiser as it stands: :class:`HPOBOptimizer` calls it once per ``ask``.

Arrays handed to the function: ``X_obs`` of shape ``(t, d)`` in evaluation order, ``y_obs`` of
shape ``(t, 1)`` (BLEU, maximised -- HPO-B's convention), ``X_pen`` of shape ``(n - t, d)``,
the unevaluated rows in ascending row order. The function must be deterministic given its
arguments; a function that draws random numbers should take a keyword argument ``rng`` and
draw from it: it then receives the trial's :class:`numpy.random.Generator`, so its runs are
identical with 1 worker, many workers or Dask.
"""

from __future__ import annotations

import hashlib
import inspect
import marshal
from collections.abc import Callable
from typing import Any

import numpy as np

from nmthpo.optimizers.base import TableOptimizer
from nmthpo.optimizers.registry import MethodSpec

__all__ = ["HPOBFunction", "HPOBOptimizer", "from_hpob"]


class HPOBFunction:
    """A picklable wrapper of an ``observe_and_suggest`` callable with a stable text form.

    The text form (``hpob:<module>:<qualname>:<hash of its code>``) is what a run's cache key
    sees, so the same function gives the same key in every session, and an edited function
    a new one. Functions defined in a notebook or script (module ``__main__``) are sent to
    worker processes by value (joblib and Dask pickle them with cloudpickle).
    """

    def __init__(self, fn: Callable[..., Any]) -> None:
        target = getattr(fn, "observe_and_suggest", fn)
        if not callable(target):
            raise TypeError(f"from_hpob expects a function observe_and_suggest(X_obs, y_obs, "
                            f"X_pen) -> int (or an object with that method), got {fn!r}")
        self.fn = fn
        self._target = target
        try:
            self.takes_rng = "rng" in inspect.signature(target).parameters
        except (TypeError, ValueError):
            self.takes_rng = False

    @property
    def name(self) -> str:
        """``hpob:<module>:<qualname>:<12 hex digits of the code's hash>``."""
        t = self._target
        code = getattr(getattr(t, "__func__", t), "__code__", None)
        digest = hashlib.sha256(marshal.dumps(code) if code is not None else repr(t).encode())
        qual = getattr(t, "__qualname__", type(t).__qualname__)
        return f"hpob:{getattr(t, '__module__', '?')}:{qual}:{digest.hexdigest()[:12]}"

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__

    def __call__(self, X_obs: np.ndarray, y_obs: np.ndarray, X_pen: np.ndarray,
                 rng: np.random.Generator | None = None) -> Any:
        if self.takes_rng:
            return self._target(X_obs, y_obs, X_pen, rng=rng)
        return self._target(X_obs, y_obs, X_pen)

    def __getstate__(self) -> dict[str, Any]:
        return {"fn": self.fn}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["fn"])  # type: ignore[misc]


class HPOBOptimizer(TableOptimizer):
    """Runs an HPO-B ``observe_and_suggest`` function over a table's rows (BLEU only).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Encoded configurations of every row.
    rng : numpy.random.Generator
        Passed to the function as ``rng=`` when it accepts one.
    objective : {"bleu"}
    fn : callable or HPOBFunction
        ``observe_and_suggest(X_obs, y_obs, X_pen) -> int`` (module docstring).
    """

    objectives = ("bleu",)

    def __init__(self, X: np.ndarray, rng: np.random.Generator, objective: str = "bleu",
                 fn: Callable[..., Any] | None = None) -> None:
        super().__init__(X, rng, objective)
        if fn is None:
            raise ValueError("HPOBOptimizer needs fn=observe_and_suggest; build the method "
                             "with nmthpo.adapters.from_hpob(fn)")
        self.fn = fn if isinstance(fn, HPOBFunction) else HPOBFunction(fn)

    def ask(self) -> int:
        pending = self.remaining()
        X_obs = self.X[np.asarray(self.rows, dtype=np.int64)].reshape(len(self.rows), -1)
        y_obs = self.y_array.reshape(-1, 1)
        choice = self.fn(X_obs, y_obs, self.X[pending], rng=self.rng)
        try:
            k = int(np.asarray(choice).item())
        except (TypeError, ValueError):
            raise ValueError(f"{self.fn.name} returned {choice!r}; observe_and_suggest must "
                             f"return an integer index into X_pen") from None
        if not 0 <= k < pending.size:
            raise ValueError(f"{self.fn.name} returned index {k}, outside X_pen "
                             f"(0..{pending.size - 1}); return an index into X_pen, not a row id")
        return int(pending[k])


def from_hpob(fn: Callable[..., Any]) -> MethodSpec:
    """Turn an HPO-B style ``observe_and_suggest`` function into a method.

    Parameters
    ----------
    fn : callable
        ``observe_and_suggest(X_obs, y_obs, X_pen) -> int`` (an index into ``X_pen``), or an
        object with such a method. It may take ``rng=`` (module docstring).

    Returns
    -------
    MethodSpec
        A picklable spec (:class:`HPOBOptimizer` with ``fn`` as its setting) that
        :func:`nmthpo.optimizers.registry.register` accepts and the runner runs with any number
        of workers.
    """
    wrapped = fn if isinstance(fn, HPOBFunction) else HPOBFunction(fn)
    return MethodSpec(__name__, "HPOBOptimizer", {"fn": wrapped}, ("bleu",),
                      f"HPO-B style function {wrapped.name}")
