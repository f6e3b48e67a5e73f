"""HPO-B style functions as table optimisers: :func:`from_hpob`.

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

The function is the user's code, untrusted: whatever it raises becomes one
:class:`~nmthpo.errors.UserCodeError` (``"method M, trial T: the HPO-B function
hpob:mod:fn raised ZeroDivisionError: ..."``, raised from the original), and so does a return
value that is not an index into ``X_pen``: an integer
(:func:`nmthpo.optimizers.base.integer_like`: a Python int, a NumPy integer or a 0-d integer
array; not a bool, a float even if integral, a string, ``None`` or an array) with
``0 <= i < len(X_pen)``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from nmthpo.errors import InputTypeError, InputValueError
from nmthpo.optimizers.base import (
    TableOptimizer,
    integer_like,
    quote_value,
    user_code,
    user_code_error,
)
from nmthpo.optimizers.registry import MethodSpec, check_key
from nmthpo.optimizers.settings import setting

__all__ = ["HPOBFunction", "HPOBOptimizer", "HPOBOptimizerSettings", "from_hpob"]


class HPOBFunction:
    """A picklable wrapper of an ``observe_and_suggest`` callable with a stable name.

    The name (``hpob:<module>:<qualname>``, plus ``:<key>`` when the user passes one) is what
    a run's cache key sees. It is what the function *is called*, never a hash of its code: a
    function defined in a notebook or a script (module ``__main__``) is sent to worker
    processes by value (joblib and Dask pickle it with cloudpickle) and rebuilt there, and its
    name must be the same on both sides. Editing the function does not change the name: pass
    a new ``key`` (e.g. ``"v2"``) to keep the results of both versions apart in a cache.
    """

    def __init__(self, fn: Callable[..., Any], key: str | None = None) -> None:
        target = getattr(fn, "observe_and_suggest", fn)
        if not callable(target):
            raise InputTypeError(
                f"from_hpob expects a function observe_and_suggest(X_obs, y_obs, "
                f"X_pen) -> int (or an object with that method), got {fn!r}"
            )
        check_key(key)
        self.fn = fn
        self.key = key
        self._target = target
        try:
            self.takes_rng = "rng" in inspect.signature(target).parameters
        except (TypeError, ValueError):
            self.takes_rng = False
        qual = getattr(target, "__qualname__", type(target).__qualname__)
        module = getattr(target, "__module__", None) or type(target).__module__
        self.name = f"hpob:{module}:{qual}" + (f":{key}" if key else "")

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HPOBFunction) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __call__(
        self,
        X_obs: np.ndarray,
        y_obs: np.ndarray,
        X_pen: np.ndarray,
        rng: np.random.Generator | None = None,
    ) -> Any:
        if self.takes_rng:
            return self._target(X_obs, y_obs, X_pen, rng=rng)
        return self._target(X_obs, y_obs, X_pen)

    def __getstate__(self) -> dict[str, Any]:
        return {"fn": self.fn, "key": self.key}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["fn"], state.get("key"))  # type: ignore[misc]


@dataclass(frozen=True)
class HPOBOptimizerSettings:
    """Settings of :class:`HPOBOptimizer`."""

    fn: Callable[..., Any] | None = setting(
        None, "the observe_and_suggest function (set by from_hpob)"
    )


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
    Settings = HPOBOptimizerSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        fn: Callable[..., Any] | None = None,
    ) -> None:
        super().__init__(X, rng, objective)
        if fn is None:
            raise InputValueError(
                "HPOBOptimizer needs fn=observe_and_suggest; build the method "
                "with nmthpo.optimizers.adapters.from_hpob(fn)"
            )
        self.fn = fn if isinstance(fn, HPOBFunction) else HPOBFunction(fn)

    def ask(self) -> int:
        pending = self.remaining()
        X_obs = self.X[np.asarray(self.rows, dtype=np.int64)].reshape(len(self.rows), -1)
        y_obs = self.y_array.reshape(-1, 1)
        what = f"the HPO-B function {self.fn.name}"
        with user_code(what):
            choice = self.fn(X_obs, y_obs, self.X[pending], rng=self.rng)
        k = integer_like(choice)
        if k is None:
            raise user_code_error(
                f"{what} returned {quote_value(choice)} ({type(choice).__name__}); it must return "
                f"an index into X_pen: an integer (a Python int or a NumPy integer; not a bool, "
                f"not a float even if integral, not a string, None or an array) with "
                f"0 <= i < len(X_pen) = {pending.size}"
            )
        if not 0 <= k < pending.size:
            raise user_code_error(
                f"{what} returned {quote_value(choice)}, outside X_pen (0 <= i < len(X_pen) = "
                f"{pending.size}); return an index into X_pen, not a row id"
            )
        return int(pending[k])


def _named(target: Any) -> bool:
    """Whether ``target`` is a plain function whose qualified name tells it apart."""
    qual = getattr(target, "__qualname__", "")
    return inspect.isfunction(target) and "<" not in qual


def from_hpob(fn: Callable[..., Any], key: str | None = None) -> MethodSpec:
    """Turn an HPO-B style ``observe_and_suggest`` function into a method.

    Parameters
    ----------
    fn : callable
        ``observe_and_suggest(X_obs, y_obs, X_pen) -> int`` (an index into ``X_pen``), or an
        object with such a method. It may take ``rng=`` (module docstring).
    key : str, optional
        Added to the method's name (``hpob:<module>:<qualname>:<key>``), e.g. a version: the
        name, not the code, identifies a function in caches and results (:class:`HPOBFunction`).
        Required for a callable whose qualified name does not tell it apart (a lambda, a nested
        function, a ``functools.partial``, a method of a configured object): ``ValueError``.

    Returns
    -------
    MethodSpec
        A picklable spec (:class:`HPOBOptimizer` with ``fn`` as its setting) that
        :func:`nmthpo.optimizers.registry.register` accepts and the runner runs with any number
        of workers.
    """
    wrapped = (
        fn
        if isinstance(fn, HPOBFunction) and key is None
        else HPOBFunction(getattr(fn, "fn", fn) if isinstance(fn, HPOBFunction) else fn, key)
    )
    if wrapped.key is None and not _named(wrapped._target):
        raise InputValueError(
            f"{wrapped.name} does not name one function (a lambda, a function defined inside "
            "another, a functools.partial or a method of a configured object share their "
            "name with others), so its runs could not be told apart in a cache; pass "
            "from_hpob(fn, key='...') with a key that names it"
        )
    return MethodSpec(
        __name__,
        "HPOBOptimizer",
        {"fn": wrapped},
        ("bleu",),
        f"HPO-B style function {wrapped.name}",
    )
