"""The ask/tell protocol shared by every optimiser (Zhang & Duh 2020, Section 2, Figure 2).

An optimiser searches the finite set of rows of one lookup table *without replacement*.
It is constructed with the encoded configurations of all rows (an ``(n, d)`` array), an
explicit :class:`numpy.random.Generator` and its own keyword settings. The runner
(:mod:`nmthpo.engine.runner`) owns the loop, the budget and the log; the optimiser only

* ``ask()``: proposes the index of one row it has not been told about yet;
* ``tell(row, y)``: learns the observed objective value(s) of a row.

Objectives: for ``objective="bleu"`` ``y`` is a float to be *maximised*; for
``objective="pareto"`` ``y`` is a length-2 array ``[bleu, decoding_time]`` (maximise BLEU,
minimise time). An optimiser never reads files, prints or plots.

Optionally an optimiser exposes ``predict_mean() -> ndarray`` of shape ``(n,)``: its surrogate's
current mean prediction of BLEU for every row (used for the surrogate-MSE curves of Figure 6).

Everything an optimiser uses comes through its constructor. A *transfer* optimiser (Li et al.
2022) says so with a class attribute ``needs_sources`` (``True``: a run must name source
tasks; ``False``: it accepts them, e.g. I-GP). In a run with source tasks the runner then
passes the *transfer context* as keyword arguments:

* ``sources``: the fitted source tasks
  (:class:`nmthpo.optimizers.transfer.sources.SourceTask`; empty for ``needs_sources=False``);
* ``target_task``: the target's name; ``kernel``: the run's GP kernel;
* ``metafeatures``: the target's and the sources' meta-features, precomputed from the tables
  (:class:`nmthpo.benchmark.metafeatures.TransferMetaFeatures`; ``None`` without sources).

An optimiser that needs to know the run it serves -- a library that must be told its budget up
front (SMAC3, Nevergrad) or wants the hyperparameters' names, raw values and scales -- says so
with the class attribute ``wants_context = True``; the runner then passes
``run_context=``:class:`RunContext` (the task, the budget of evaluations with the initial rows
included, ``n_init``, the objective and the search space). It is not a setting: it is not part
of a run's identity (the spec already holds the task and the budget) and cannot be set by a user.

Optimisers of other packages plug in without registration: ``"module:Class"`` names them
(:func:`nmthpo.optimizers.registry.resolve`). A transfer optimiser also exposes
``target_weights`` and ``source_weights`` (lists, one entry per ``ask``) if it has weights;
the runner records them.

The user's code is untrusted: every call the package makes into an optimiser (loading its
class, its constructor, ``ask``, ``tell``, an HPO-B function, ...) runs under
:func:`user_code`, which turns whatever it raises into one
:class:`~nmthpo.errors.UserCodeError` naming the method, the trial and the exception (chained,
``raise ... from exc``, so ``--traceback`` shows the original); :func:`integer_like` is the
one reading of "an integer" in the protocol's return values (:func:`quote_value` quotes them).
"""

from __future__ import annotations

import operator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nmthpo.errors import NmthpoError, UserCodeError

__all__ = [
    "QUOTE_CHARS",
    "RunContext",
    "TableOptimizer",
    "integer_like",
    "quote_value",
    "snap_ties",
    "user_code",
    "user_code_error",
]

#: Longest quote of a returned value in a message (``repr``, cut).
QUOTE_CHARS = 60


def integer_like(value: Any) -> int | None:
    """``value`` as an ``int`` if the protocol reads it as an integer, else ``None``.

    Integers are a Python ``int``, a NumPy integer (``np.int64``, ...) or a 0-d array of an
    integer dtype (what ``operator.index`` takes); never a ``bool`` (``True`` is no row id),
    a float (not even ``3.0``: an integral float usually means a computation went wrong), a
    string (``"12"``), ``None`` or an array with dimensions (``np.array([3])``).
    """
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, np.ndarray) and (value.ndim != 0 or value.dtype.kind not in "iu"):
        return None
    try:
        return operator.index(value)
    except Exception:  # TypeError, or a user's __index__ that raises
        return None


def quote_value(value: Any) -> str:
    """``repr(value)`` cut to :data:`QUOTE_CHARS` characters, on one line (for messages)."""
    try:
        text = repr(value)
    except Exception:  # a user's object whose __repr__ raises
        text = f"<{type(value).__name__} object>"
    text = " ".join(text.split())
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 3] + "..."


def _where(method: str, trial: int | None) -> str:
    if not method:
        return ""
    return f"method {method}" + ("" if trial is None else f", trial {trial}")


def user_code_error(text: str, method: str = "", trial: int | None = None) -> UserCodeError:
    """A :class:`~nmthpo.errors.UserCodeError` of one line: ``"method M, trial T: text"``
    (without the prefix when ``method`` is empty: an inner call that knows neither, whose
    error :func:`user_code` prefixes on its way out)."""
    where = _where(method, trial)
    return UserCodeError(f"{where}: {text}" if where else text, method=method, trial=trial)


def _exception_text(exc: BaseException) -> str:
    """``"Type: first line of the message"`` (``"Type"`` if it has none or cannot say it)."""
    try:
        lines = str(exc).strip().splitlines()
    except Exception:  # a user's exception whose __str__ raises
        lines = []
    first = lines[0].strip() if lines else ""
    return type(exc).__name__ + (f": {first}" if first else "")


def user_code(
    what: str, method: str = "", trial: int | None = None
) -> AbstractContextManager[None]:
    """A context manager: run the block as a call into the user's code ``what`` (``"ask()"``).

    An exception the block raises becomes a :class:`~nmthpo.errors.UserCodeError`
    ``"method M, trial T: ask() raised ZeroDivisionError: division by zero"`` raised ``from``
    it. Passed through unchanged: ``KeyboardInterrupt`` (the runner's Ctrl-C and resume depend
    on it) and every ``BaseException`` that is not an ``Exception``, ``MemoryError``, and the
    package's own errors (:class:`~nmthpo.errors.NmthpoError`: an ``InputError`` of a setting
    stays one), except that a ``UserCodeError`` raised without a method (an inner check, e.g.
    of an HPO-B function's return) gets this method and trial.
    """
    return _UserCode(what, method, trial)


class _UserCode(AbstractContextManager[None]):
    # a class, not @contextmanager: that one takes a RuntimeError (a UserCodeError) raised
    # from a StopIteration for PEP 479's conversion and re-raises the StopIteration
    def __init__(self, what: str, method: str, trial: int | None) -> None:
        self.what, self.method, self.trial = what, method, trial

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        if exc is None or not isinstance(exc, Exception) or isinstance(exc, MemoryError):
            return
        if isinstance(exc, UserCodeError):
            if exc.method or not self.method:
                return
            raise user_code_error(str(exc), self.method, self.trial) from (exc.__cause__ or exc)
        if isinstance(exc, NmthpoError):
            return
        text = f"{self.what} raised {_exception_text(exc)}"
        raise user_code_error(text, self.method, self.trial) from exc


@dataclass(frozen=True)
class RunContext:
    """What an optimiser with ``wants_context = True`` is told about the run (module docstring).

    Attributes
    ----------
    task : str
        The table's task name.
    budget : int
        Evaluations of the trial, the initial rows included (the table's rows when the run
        has no budget: it then stops at the target or when the table is exhausted).
    n_init : int
        Initial rows, told before the first ``ask``.
    objective : {"bleu", "pareto"}
    columns : tuple of str
        The hyperparameters' names, one per column of ``X``.
    scales : tuple of str
        Per column: ``"log2"`` (the encodings space its values on a log scale), ``"linear"``
        or ``"categorical"`` (:func:`nmthpo.benchmark.space.column_scales`).
    configs : pandas.DataFrame
        The raw hyperparameter values of every row (row ``i`` of ``X`` is row ``i`` here).
    """

    task: str
    budget: int
    n_init: int
    objective: str
    columns: tuple[str, ...]
    scales: tuple[str, ...]
    configs: Any = field(repr=False, compare=False)


def snap_ties(scores: np.ndarray, rtol: float) -> np.ndarray:
    """Set every finite score within ``rtol * |max|`` of the maximum to the maximum.

    Scores that close are ties for :meth:`TableOptimizer.argmax_candidate` (its random
    tie-break), so rounding noise (another BLAS kernel, another summation order) never decides
    between them: the graph methods' ``tie_rtol`` and GP-BO's ``tie_rtol``.
    """
    s = np.asarray(scores, dtype=float).copy()
    finite = np.isfinite(s)
    if not finite.any():
        return s
    top = s[finite].max()
    s[finite & (s >= top - rtol * abs(top))] = top
    return s


class TableOptimizer:
    """Base class: bookkeeping of labelled rows, the unevaluated mask and the history.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Encoded configurations of every row of the table.
    rng : numpy.random.Generator
        The only source of randomness the optimiser may use.
    objective : {"bleu", "pareto"}
        What ``tell`` receives, see the module docstring.
    """

    objectives: tuple[str, ...] = ("bleu",)
    #: Whether the optimiser computes with SciPy (its linear algebra): the runner then loads
    #: SciPy before it limits BLAS to one thread per trial (threadpoolctl limits only the
    #: libraries loaded by then). ``False`` for pure-NumPy methods keeps their runs light.
    uses_scipy: bool = True
    #: Whether the runner passes ``run_context=`` (a :class:`RunContext`) to the constructor.
    wants_context: bool = False

    def __init__(
        self, X: np.ndarray, rng: np.random.Generator, objective: str = "bleu", **settings: Any
    ) -> None:
        if objective not in self.objectives:
            raise ValueError(
                f"{type(self).__name__} supports objective(s) {list(self.objectives)}, "
                f"not {objective!r}"
            )
        if settings:
            raise TypeError(f"{type(self).__name__} got unknown settings {sorted(settings)}")
        self.X = np.asarray(X, dtype=float)
        self.rng = rng
        self.objective = objective
        self.n = self.X.shape[0]
        self.observed = np.zeros(self.n, dtype=bool)
        self.rows: list[int] = []
        self.ys: list[Any] = []

    # -- protocol -----------------------------------------------------------------------------
    def ask(self) -> int:  # pragma: no cover - abstract
        """Return the index of an unevaluated row to evaluate next."""
        raise NotImplementedError

    def tell(self, row: int, y: float | np.ndarray) -> None:
        """Record the observed objective value(s) ``y`` of ``row``."""
        row = int(row)
        if not 0 <= row < self.n:
            raise IndexError(f"row {row} is outside the table (0..{self.n - 1})")
        if self.observed[row]:
            raise ValueError(f"row {row} was already evaluated; the search is without replacement")
        self.observed[row] = True
        self.rows.append(row)
        self.ys.append(y if self.objective == "pareto" else float(y))  # type: ignore[arg-type]

    # -- helpers for subclasses ---------------------------------------------------------------
    @property
    def candidates(self) -> np.ndarray:
        """Indices of the rows not evaluated yet, ascending."""
        return np.flatnonzero(~self.observed)

    @property
    def y_array(self) -> np.ndarray:
        """Observed values in evaluation order: shape (t,) for BLEU, (t, 2) for Pareto."""
        return np.asarray(self.ys, dtype=float)

    def remaining(self) -> np.ndarray:
        """:attr:`candidates`, or a ``RuntimeError`` when every row has been evaluated."""
        cand = self.candidates
        if cand.size == 0:
            raise RuntimeError("every row of the table has been evaluated")
        return cand

    def random_candidate(self) -> int:
        """One unevaluated row drawn uniformly through ``self.rng`` (the cold-start choice)."""
        return int(self.rng.choice(self.remaining()))

    def argmax_candidate(self, scores: np.ndarray, rtol: float = 0.0) -> int:
        """Row of the candidate with the largest score; ties broken uniformly at random.

        ``scores`` has one entry per row of the table (entries of evaluated rows are ignored).
        Random tie-breaking (through ``self.rng``) avoids a bias towards low row ids, which
        matters on tables with many identical predictions (e.g. before any information).
        ``rtol > 0``: scores within ``rtol`` of the maximum of ``scores`` are ties too
        (:func:`snap_ties`, the methods' ``tie_rtol``); 0 keeps exact ties only.
        """
        if rtol:
            scores = snap_ties(scores, rtol)
        cand = self.remaining()
        s = np.asarray(scores, dtype=float)[cand]
        s = np.where(np.isnan(s), -np.inf, s)
        top = np.flatnonzero(s == s.max())
        return int(cand[top[0] if top.size == 1 else self.rng.choice(top)])
