"""The one rule by which another HPO library searches a table: :class:`LibraryOptimizer`.

The adapters of SMAC3, HEBO, Nevergrad, hyperopt and scikit-optimize (one module each in
:mod:`nmthpo.optimizers.adapters`) differ only in how they ask and tell their library; the rest
is this base class, so that every library is measured under the same rule:

* **Space.** Each column is an ordinal parameter over the ranks of its values
  (:class:`~nmthpo.optimizers.space.OrdinalSpace`); a library sees integers ``0 .. k-1`` per
  column (or their ``[0, 1]`` images where it works on a box).
* **One library ask per evaluated row.** ``ask()`` asks the library once. A proposal that is
  an unevaluated row is taken; any other (a combination the table lacks, or a row evaluated
  before) becomes the nearest unevaluated row (:meth:`OrdinalSpace.snap
  <nmthpo.optimizers.space.OrdinalSpace.snap>`: Euclidean over scaled ranks, ties to the lowest
  row id). The library is then told the row that was *evaluated* -- its ranks and its value --
  never a value for a point it did not get. ``asks`` counts the library's asks per evaluated
  row (1, or 0 for the initial rows the runner tells without asking) and ``snapped`` whether
  the proposal was moved; ``n_snapped`` is their sum.
* **Minimisation.** The libraries minimise: they are told ``-BLEU``.
* **Seeding.** The library's seed is drawn from the trial's generator, so a trial depends only
  on (method, task, settings, seed, trial): identical with 1 worker, many workers or Dask.
  An adapter whose library reads global random state (HEBO: NumPy's and torch's) keeps that
  state of its own and swaps it in around each call (:func:`swapped_global_rng`).
* **Threads.** The library is imported before a trial starts (:meth:`LibraryOptimizer.preload`)
  and every thread pool it brings (BLAS, OpenMP) runs with one thread during the trial, so that
  its floating point does not depend on the number of cores or on what ran before.
* **Quiet.** Whatever a library prints goes nowhere (stdout and stderr are captured around
  each call, :func:`quiet`), so a run's output is the package's own.
* **Budget.** ``run_context.budget`` (:class:`~nmthpo.optimizers.base.RunContext`) is the
  number of evaluations of the trial, the initial rows included; libraries that need it up
  front (SMAC3's ``n_trials``, Nevergrad's ``budget``) are given it.

A library that is not installed is refused before any work, in one line that names the extra
that installs it (:func:`require`).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nmthpo.errors import InputKeyError, InputValueError
from nmthpo.optimizers.base import RunContext, TableOptimizer
from nmthpo.optimizers.registry import MethodSpec
from nmthpo.optimizers.space import OrdinalSpace

__all__ = [
    "EXTRA",
    "LibraryOptimizer",
    "LibrarySettings",
    "named_spec",
    "quiet",
    "require",
    "swapped_global_rng",
]

#: The optional dependency group that installs every library adapter's library.
EXTRA = "peers"


def require(module: str, method: str, package: str, torch_threads: bool = False) -> Any:
    """Import ``module`` or refuse the method in one line naming the extra that installs it
    (``torch_threads``: the library imports torch; keep the process's thread count).

    Raises
    ------
    nmthpo.errors.InputValueError
        ``method smac:hpo needs SMAC3 (import smac failed: ...); install the extra:
        pip install -e '.[peers]'``.
    """
    try:
        return _import(module, torch_threads)
    except ImportError as exc:
        raise InputValueError(
            f"method {method} needs {package} (import {module} failed: {exc}); install the "
            f"{EXTRA} extra: make {EXTRA} (pip install -e '.[{EXTRA}]', and HEBO without its "
            "declared dependencies: README, 'Other HPO libraries')"
        ) from None


def named_spec(
    name: str,
    prefix: str,
    choices: Mapping[str, str],
    library: str,
    module: str,
    cls: str,
    setting: str,
    what: str,
) -> MethodSpec:
    """The registry entry of an adapter's method ``prefix + key`` (an adapter's ``from_name``).

    ``key`` must be one of ``choices``; the method's class ``module:cls`` gets the fixed setting
    ``setting = choices[key]``, and ``what`` (with ``{value}`` for that value) describes it.

    Raises
    ------
    nmthpo.errors.InputKeyError
        Naming the valid methods of the library.
    """
    key = name.removeprefix(prefix)
    if not name.startswith(prefix) or key not in choices:
        raise InputKeyError(
            f"unknown {library} method {name!r}; valid: " + ", ".join(prefix + k for k in choices)
        )
    value = choices[key]
    return MethodSpec(module, cls, {setting: value}, ("bleu",), what.format(value=value))


def _import(module: str, torch_threads: bool = False) -> Any:
    """Import ``module`` quietly; with ``torch_threads``, keep the process's torch thread count
    (``import hebo`` sets it to one for the whole process). Only a library that imports torch
    asks for this: the others do not pay for loading torch."""
    if not torch_threads:
        with quiet():
            return importlib.import_module(module)
    import torch

    threads = torch.get_num_threads()
    try:
        with quiet():
            return importlib.import_module(module)
    finally:
        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Run a library call with its prints and warnings kept out of the run's output."""
    with (
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(io.StringIO()),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        yield


@contextlib.contextmanager
def swapped_global_rng(state: dict[str, Any], torch: bool = False) -> Iterator[None]:
    """Swap the adapter's own global NumPy (and torch) random state in for one library call.

    ``state`` holds the adapter's states between calls (``"numpy"``, ``"torch"``); on exit the
    new states are stored in it and the process's previous states are restored, so that the
    library's use of global random state neither depends on nor changes anything else.
    """
    saved_np = np.random.get_state()  # noqa: NPY002 - the legacy global state a library reads
    np.random.set_state(state["numpy"])  # noqa: NPY002
    if torch:
        import torch as _torch

        saved_torch = _torch.get_rng_state()
        _torch.set_rng_state(state["torch"])
    try:
        yield
    finally:
        state["numpy"] = np.random.get_state()  # noqa: NPY002
        np.random.set_state(saved_np)  # noqa: NPY002
        if torch:
            state["torch"] = _torch.get_rng_state()
            _torch.set_rng_state(saved_torch)


@dataclass(frozen=True)
class LibrarySettings:
    """The base class takes no settings (each adapter declares its library's)."""


class LibraryOptimizer(TableOptimizer):
    """Base of the adapters of other HPO libraries (module docstring: the one rule).

    Subclasses implement :meth:`propose` (ask the library once; return the proposal in ranks
    of the :attr:`free` columns and a token the library needs to be told about it) and
    :meth:`observe` (tell the library the evaluated row's ranks and loss, with the token when
    the row is the proposal itself). The library's space is :attr:`sizes`: one integer
    dimension ``0 .. sizes[j] - 1`` per column that is not constant.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    rng : numpy.random.Generator
        Draws the library's seed (:attr:`library_seed`).
    objective : {"bleu"}
    run_context : RunContext, optional
        The run (budget, task, space); without it (an optimiser built by hand) the budget is
        the table's rows.

    Attributes
    ----------
    space : OrdinalSpace
    budget : int
    library_seed : int
    asks : list of int
        Library asks per evaluated row (1; 0 for a row told without asking).
    snapped : list of bool
        Per evaluated row, whether the library's proposal was moved to it.
    exhausted : int
        0, or the evaluation (1-based) at which the library answered an ask with one of
        :attr:`exhausted_errors` ("no new configuration"): that row and every later one is a
        uniformly random unevaluated row drawn from the trial's generator
        (:meth:`random_candidate`), told to the library like any other row; the library is not
        asked again (SMAC3's generator of configurations ends with the exception).
    """

    objectives = ("bleu",)
    wants_context = True
    Settings: ClassVar[type[Any]] = LibrarySettings
    #: Human name of the library (messages) and the module :func:`require` imports.
    library: ClassVar[str] = ""
    module: ClassVar[str] = ""

    #: The runner limits every thread pool of the process to one thread in a trial (BLAS and
    #: OpenMP), after :meth:`preload` loaded the library: a pool loaded later would run with
    #: every core, and its sums change with the number of threads.
    limit_all_threads: ClassVar[bool] = True
    #: Modules imported by :meth:`preload` besides :attr:`module`.
    preload_modules: ClassVar[tuple[str, ...]] = ()
    #: Whether the library imports torch (its import then keeps the torch thread count).
    uses_torch: ClassVar[bool] = False
    #: Names of the library's exceptions that mean "no new configuration to propose" (its
    #: space is the full grid of ranks, larger than the table's rows, so a library that never
    #: repeats a configuration may give up while unevaluated rows remain).
    exhausted_errors: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def preload(cls) -> None:
        """Import the library before the runner limits the thread pools (the runner's hook)."""
        for name in (cls.module, *cls.preload_modules):
            if name:
                _import(name, cls.uses_torch)

    @classmethod
    def check_available(cls, method: str) -> None:
        """Refuse ``method`` before any work if its library is not installed (:func:`require`;
        the runner's validation calls this hook)."""
        if cls.module:
            require(cls.module, method, cls.library, cls.uses_torch)

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        run_context: RunContext | None = None,
    ) -> None:
        super().__init__(X, rng, objective)
        self.space = OrdinalSpace(self.X)
        #: The columns with more than one value: the library's dimensions (a constant column
        #: is no choice; libraries refuse an empty range).
        self.free = np.flatnonzero(self.space.sizes > 1)
        self.sizes = self.space.sizes[self.free]
        self.context = run_context
        self.budget = self.n if run_context is None else int(run_context.budget)
        self.library_seed = int(rng.integers(0, 2**31 - 1))
        self.asks: list[int] = []
        self.snapped: list[bool] = []
        self.exhausted = 0
        self._pending: tuple[int, bool, Any] | None = None

    @property
    def n_snapped(self) -> int:
        """Proposals moved to the nearest unevaluated row so far."""
        return int(sum(self.snapped))

    # -- the library's side ----------------------------------------------------------------------
    def propose(self) -> tuple[np.ndarray, Any]:  # pragma: no cover - abstract
        """Ask the library once: the proposal in ranks (floats allowed) and a token."""
        raise NotImplementedError

    def observe(
        self, codes: np.ndarray, loss: float, token: Any
    ) -> None:  # pragma: no cover - abstract
        """Tell the library that the configuration of ranks ``codes`` has ``loss``; ``token``
        is :meth:`propose`'s when the row is its proposal unmoved, else ``None``."""
        raise NotImplementedError

    # -- protocol ----------------------------------------------------------------------------------
    def ask(self) -> int:
        """Ask the library once and snap its proposal to an unevaluated row."""
        self.remaining()
        if self.exhausted:  # the library said it has nothing new: random unevaluated rows
            row = self.random_candidate()
            self._pending = None
            return row
        try:
            with quiet():
                free, token = self.propose()
        except Exception as exc:
            if type(exc).__name__ not in self.exhausted_errors:
                raise
            self.exhausted = len(self.rows) + 1  # the evaluation at which it gave up
            row = self.random_candidate()
            self._pending = (row, False, None)
            return row
        codes = np.zeros(self.space.d)
        codes[self.free] = np.asarray(free, dtype=float)
        row, exact = self.space.snap(codes, self.observed)
        self._pending = (row, exact, token)
        return row

    def tell(self, row: int, y: float | np.ndarray) -> None:
        """Record ``y`` and tell the library the evaluated row (module docstring)."""
        super().tell(row, y)
        row = int(row)
        pending, self._pending = self._pending, None
        asked = pending is not None and pending[0] == row
        exact = asked and pending is not None and pending[1]
        token = pending[2] if asked and exact and pending is not None else None
        with quiet():
            self.observe(self.space.codes[row, self.free].copy(), -float(y), token)
        self.asks.append(1 if asked else 0)
        self.snapped.append(bool(asked and not exact))
