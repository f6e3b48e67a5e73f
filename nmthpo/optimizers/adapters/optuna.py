"""Optuna samplers as table optimisers: ``optuna:<SamplerClass>``.

:class:`OptunaSampler` drives any sampler class of :mod:`optuna.samplers` (``TPESampler``,
``GPSampler``, ``CmaEsSampler``, ``RandomSampler``, ``QMCSampler``, ``NSGAIISampler``, ...)
through Optuna's ask/tell interface over the finite set of rows of one lookup table
(Zhang & Duh 2020, Section 2: an HPO method "trains" a model by reading its row).

Search space
    One parameter ``x<j>`` per column of the encoded configurations ``X``; its values are the
    column's distinct values, i.e. the table's values of that hyperparameter.

    * ``space="ordered"`` (default): an integer parameter over the *rank* of the value among
      the column's distinct values (``IntDistribution(0, k - 1)``). Every hyperparameter of
      the NMTHPO and NMTLC tables is numeric and ordered (BPE merges, layers, sizes, heads,
      learning rate), and every sampler models integers: CMA-ES and QMC have no categorical
      model at all (Optuna samples categorical parameters of those samplers independently at
      random) and the GP sampler's kernel sees order only in numeric parameters.
    * ``space="categorical"``: a ``CategoricalDistribution`` over the column's values: no order
      is assumed (TPE and GP then use their categorical kernels).

    Both spaces are Cartesian products of the per-column values, so every grid point is
    equally likely under ``RandomSampler``.

Table semantics (how this differs from an Optuna user's own ``study.optimize`` loop)
    A table holds 55-100 % of its grid's combinations and every row can be evaluated once.

    * A proposed combination that is *not in the table* is told to Optuna as ``PRUNED``
      (TPE then counts it among the bad configurations; GP and CMA-ES ignore it) and is not
      charged: the sampler is asked again.
    * A proposed combination whose row was *already evaluated* is answered from memory
      (``COMPLETE`` with the stored value) and is not charged either.
    * The rows the runner tells without having asked for them -- the three common initial
      rows of every trial (:func:`nmthpo.engine.runner.initial_rows`) -- are enqueued
      (:meth:`optuna.study.Study.enqueue_trial`), asked and told before the first own ask.

    Hence the run is a sequence of *distinct* rows whose runtime counts only new rows, while in
    an Optuna user's own loop every ``trial`` costs a training run (a repeated configuration is
    trained again; a missing one fails). The number of Optuna asks behind each evaluated row is
    kept in :attr:`OptunaSampler.asks` (their sum in :attr:`OptunaSampler.n_asks`).
    A consequence that the tests check: with ``RandomSampler``, rejecting missing and repeated
    combinations leaves a uniform draw among the unevaluated rows, i.e. exactly random search.

    A sampler may keep proposing the same unusable combination: a GP's or CMA-ES's model is
    not changed by a pruned trial, so it proposes the same missing combination again. When one
    ask meets the same unusable combination ``patience`` times (default 2), or after
    ``max_asks`` asks in all, the adapter takes the row itself (``fallback``) and tells it to
    Optuna as an enqueued trial (counted in :attr:`OptunaSampler.n_fallbacks`):

    * ``fallback="nearest"`` (default for every sampler but ``RandomSampler``): the unevaluated
      row nearest to the last unusable proposal (Euclidean over ranks scaled to [0, 1] for
      ``ordered``, Hamming for ``categorical``; ties drawn with the trial's generator) -- what
      the sampler asked for, as close as the table allows;
    * ``fallback="random"`` (default for ``RandomSampler``): a uniform draw among the
      unevaluated rows, which keeps ``RandomSampler`` *exactly* random search.

Seeding
    The sampler's ``seed`` is drawn from the trial's generator, so a trial depends only on
    (method, task, settings, seed, trial) -- identical for 1 worker, many workers or Dask.
    ``GPSampler`` runs with one torch thread (restored afterwards) so that its floating point
    does not depend on the number of threads a worker is given.
"""

from __future__ import annotations

import contextlib
import inspect
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from nmthpo.errors import InputKeyError
from nmthpo.optimizers.base import TableOptimizer
from nmthpo.optimizers.registry import MethodSpec
from nmthpo.optimizers.settings import setting
from nmthpo.optimizers.space import OrdinalSpace

__all__ = [
    "FALLBACKS",
    "LIBRARY_RANGES",
    "PREFIX",
    "SPACES",
    "OptunaSampler",
    "check_library_settings",
    "from_name",
    "sampler_names",
]

#: Method names of this adapter start with this prefix: ``optuna:TPESampler``.
PREFIX = "optuna:"
#: The two encodings of a table's columns as Optuna distributions (the first is the default).
SPACES: tuple[str, ...] = ("ordered", "categorical")
#: How a row is chosen when the sampler is stuck on unusable combinations (module docstring).
FALLBACKS: tuple[str, ...] = ("nearest", "random")

#: Sampler classes that cannot be built from a table alone (abstract or wrapping another).
_NOT_SAMPLERS = frozenset({"BaseSampler", "BaseGASampler", "PartialFixedSampler"})
#: Single-objective-only samplers.
_SINGLE_ONLY = frozenset({"CmaEsSampler"})
#: Samplers whose choices involve no floating-point optimisation (same rows on any CPU).
_EXACT = frozenset({"RandomSampler", "QMCSampler", "GridSampler", "BruteForceSampler"})


def sampler_names() -> list[str]:
    """The sampler classes of :mod:`optuna.samplers` usable as ``optuna:<name>``."""
    import optuna.samplers as samplers

    out = []
    for name in dir(samplers):
        obj = getattr(samplers, name)
        if (
            isinstance(obj, type)
            and issubclass(obj, samplers.BaseSampler)
            and name not in _NOT_SAMPLERS
            and not inspect.isabstract(obj)
        ):
            out.append(name)
    return sorted(out)


def class_of_name(name: str, prefix: str, valid: list[str], kind: str, example: str) -> str:
    """The class name of ``"<prefix><Class>"``; a ``KeyError`` naming the valid ones otherwise
    (shared by the sampler and the pruner adapters)."""
    if not name.startswith(prefix):
        raise InputKeyError(
            f"{name!r} is not an Optuna {kind}; write {prefix}<{kind.title()}Class>, "
            f"e.g. {prefix}{example}"
        )
    cls = name[len(prefix) :]
    if cls not in valid:
        raise InputKeyError(
            f"unknown Optuna {kind} {cls!r}; valid: " + ", ".join(prefix + v for v in valid)
        )
    return cls


def from_name(name: str) -> MethodSpec:
    """The registry entry of ``"optuna:<SamplerClass>"`` (the registry's hook for the prefix).

    Parameters
    ----------
    name : str
        ``"optuna:"`` followed by a sampler class of :mod:`optuna.samplers`.

    Returns
    -------
    MethodSpec
        Picklable: this module, :class:`OptunaSampler`, ``{"sampler": <SamplerClass>}`` and
        the objectives the sampler supports (``CmaEsSampler``: ``bleu`` only).
    """
    cls = class_of_name(name, PREFIX, sampler_names(), "sampler", "TPESampler")
    objectives = ("bleu",) if cls in _SINGLE_ONLY else ("bleu", "pareto")
    return MethodSpec(
        __name__,
        "OptunaSampler",
        {"sampler": cls},
        objectives,
        f"Optuna's {cls} over the table's rows (ask/tell adapter)",
        exact_across_cpus=cls in _EXACT,
    )


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence Optuna's per-trial log lines and experimental-feature warnings."""
    import optuna

    level = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            yield
    finally:
        optuna.logging.set_verbosity(level)


@contextlib.contextmanager
def _one_torch_thread(active: bool) -> Iterator[None]:
    if not active:
        yield
        return
    import torch

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(n)


@dataclass(frozen=True)
class OptunaSamplerSettings:
    """Settings of :class:`OptunaSampler`; the sampler's own keyword arguments pass through."""

    more: ClassVar[str] = "keyword arguments of the Optuna sampler class (seed: from the trial)"

    sampler: str = setting(
        "TPESampler", "a class of optuna.samplers (set by the name optuna:<Class>)"
    )
    space: str = setting(
        "ordered",
        "a column as an Optuna distribution: ordered, categorical",
        choices=("ordered", "categorical"),
    )
    patience: int = setting(
        2, "stop asking after the same unusable proposal this often", low=1, high=100_000
    )
    max_asks: int = setting(
        1000, "stop asking for one row after this many asks", low=1, high=1_000_000
    )
    fallback: str | None = setting(
        None,
        "then choose the row: nearest, random (None: random for RandomSampler, else nearest)",
        choices=("nearest", "random"),
    )


class OptunaSampler(TableOptimizer):
    """An :mod:`optuna.samplers` class searching a table's rows without replacement.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Encoded configurations; each column's distinct values are the table's values.
    rng : numpy.random.Generator
        Seeds the sampler and draws the (rare) fallback rows.
    objective : {"bleu", "pareto"}
        ``"pareto"`` makes a two-objective study (maximise BLEU, minimise time).
    sampler : str
        Class name in :mod:`optuna.samplers`.
    space : {"ordered", "categorical"}
        How a column becomes an Optuna distribution (module docstring); default ordered.
    patience, max_asks : int
        When to stop asking for one row (module docstring).
    fallback : {"nearest", "random"}, optional
        How the row is then chosen; default ``"random"`` for ``RandomSampler``, else
        ``"nearest"`` (module docstring).
    **sampler_settings
        Keyword arguments of the sampler class (e.g. ``n_startup_trials=3``); ``seed`` is
        taken from ``rng`` unless given.

    Attributes
    ----------
    asks : list of int
        Optuna asks behind each evaluated row, in evaluation order (1 for told rows).
    n_asks : int
        Their sum: the Optuna trials this table trial created.
    n_fallbacks : int
        Rows drawn by the fallback rule.
    study : optuna.study.Study
        The in-memory study (readable after the run).
    """

    objectives = ("bleu", "pareto")
    Settings = OptunaSamplerSettings

    @classmethod
    def check_library_settings(
        cls, values: dict[str, Any], settings: dict[str, Any], method: str
    ) -> None:
        """Check the sampler's own arguments ``values`` (``settings``: all of the run's, which
        name the sampler) before any work (:func:`check_library_settings`)."""
        import optuna

        name = str(settings.get("sampler", "TPESampler"))
        sampler = getattr(optuna.samplers, name, None)
        if sampler is not None:
            check_library_settings(sampler, "sampler", values, method)

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        sampler: str = "TPESampler",
        space: str = "ordered",
        patience: int = 2,
        max_asks: int = 1000,
        fallback: str | None = None,
        **sampler_settings: Any,
    ) -> None:
        super().__init__(X, rng, objective)
        import optuna
        from optuna.distributions import CategoricalDistribution, IntDistribution

        spec = from_name(PREFIX + sampler)
        if objective not in spec.objectives:
            raise ValueError(
                f"{PREFIX}{sampler} supports objective(s) {list(spec.objectives)}, "
                f"not {objective!r}"
            )
        if space not in SPACES:
            raise ValueError(f"unknown space {space!r}; valid: {', '.join(SPACES)}")
        if patience < 1 or max_asks < 1:
            raise ValueError(f"patience and max_asks must be >= 1, got {patience}, {max_asks}")
        if fallback is None:
            fallback = "random" if sampler == "RandomSampler" else "nearest"
        if fallback not in FALLBACKS:
            raise ValueError(f"unknown fallback {fallback!r}; valid: {', '.join(FALLBACKS)}")
        self.fallback = fallback
        self.sampler_name = sampler
        self.space = space
        self.patience = int(patience)
        self.max_asks = int(max_asks)
        d = self.X.shape[1]
        self.names = [f"x{j}" for j in range(d)]
        self.grid = OrdinalSpace(self.X)  # ranks per column (nmthpo.optimizers.space)
        self.levels = self.grid.levels
        self.codes = self.grid.codes
        self.distributions: dict[str, Any] = {}
        for name, lv in zip(self.names, self.levels, strict=True):
            if space == "ordered":
                self.distributions[name] = IntDistribution(0, len(lv) - 1)
            else:
                self.distributions[name] = CategoricalDistribution(tuple(float(v) for v in lv))
        cls = getattr(optuna.samplers, sampler)
        kwargs = dict(sampler_settings)
        params = inspect.signature(cls).parameters
        if "seed" in params and "seed" not in kwargs:
            kwargs["seed"] = int(rng.integers(0, 2**31 - 1))
        if "search_space" in params and "search_space" not in kwargs:  # GridSampler
            kwargs["search_space"] = {name: self._choices(j) for j, name in enumerate(self.names)}
        try:
            with _quiet():
                self.sampler = cls(**kwargs)
        except TypeError as exc:
            raise ValueError(
                f"{PREFIX}{sampler}: bad sampler setting(s) {sorted(sampler_settings)}"
                f" ({exc}); see optuna.samplers.{sampler}"
            ) from None
        directions: list[Any] = ["maximize"] if objective == "bleu" else ["maximize", "minimize"]
        with _quiet():
            self.study = optuna.create_study(directions=directions, sampler=self.sampler)
        self._torch = sampler == "GPSampler"
        self._values: dict[int, list[float]] = {}
        self._pending: tuple[int, Any] | None = None
        self.asks: list[int] = []
        self.n_fallbacks = 0

    # -- encoding ----------------------------------------------------------------------------
    def _choices(self, j: int) -> list[Any]:
        lv = self.levels[j]
        return list(range(len(lv))) if self.space == "ordered" else [float(v) for v in lv]

    def params_of(self, row: int) -> dict[str, Any]:
        """Optuna parameters of ``row`` (ranks for ``ordered``, values for ``categorical``)."""
        c = self.codes[int(row)]
        if self.space == "ordered":
            return {name: int(k) for name, k in zip(self.names, c, strict=True)}
        return {
            name: float(self.levels[j][k])
            for j, (name, k) in enumerate(zip(self.names, c, strict=True))
        }

    def _codes_of(self, params: dict[str, Any]) -> tuple[int, ...]:
        if self.space == "ordered":
            return tuple(int(params[name]) for name in self.names)
        return tuple(
            int(np.searchsorted(self.levels[j], float(params[name])))
            for j, name in enumerate(self.names)
        )

    def _optuna_value(self, y: Any) -> list[float]:
        return [float(y)] if self.objective == "bleu" else [float(v) for v in np.ravel(y)]

    def _nearest(self, codes: tuple[int, ...]) -> int:
        """The unevaluated row nearest to ``codes``; ties drawn with ``self.rng``."""
        cand = self.remaining()
        c = self.codes[cand]
        target = np.asarray(codes)
        if self.space == "ordered":
            scale = np.array([max(len(lv) - 1, 1) for lv in self.levels], dtype=float)
            dist = (((c - target) / scale) ** 2).sum(axis=1)
        else:
            dist = (c != target).sum(axis=1).astype(float)
        top = np.flatnonzero(dist == dist.min())
        return int(cand[top[0] if top.size == 1 else self.rng.choice(top)])

    @property
    def n_asks(self) -> int:
        """Optuna asks made so far in this trial (told initial rows included)."""
        return int(sum(self.asks))

    # -- protocol ----------------------------------------------------------------------------
    def ask(self) -> int:
        """Ask the sampler until it proposes an unevaluated row (module docstring)."""
        from optuna.trial import TrialState

        self.remaining()
        if self._pending is not None:  # asked twice without a tell: drop the old proposal
            with _quiet():
                self.study.tell(self._pending[1], state=TrialState.FAIL)
            self._pending = None
        asks = 0
        seen: dict[tuple[int, ...], int] = {}
        codes: tuple[int, ...] | None = None
        with _quiet(), _one_torch_thread(self._torch):
            while asks < self.max_asks:
                trial = self.study.ask(self.distributions)
                asks += 1
                codes = self._codes_of(trial.params)
                rows = self.grid.rows_of(codes)
                if not rows:
                    self.study.tell(trial, state=TrialState.PRUNED)
                else:
                    fresh = [r for r in rows if not self.observed[r]]
                    if fresh:
                        self._pending = (fresh[0], trial)
                        self.asks.append(asks)
                        return fresh[0]
                    self.study.tell(trial, self._values[rows[0]])
                seen[codes] = seen.get(codes, 0) + 1
                if seen[codes] >= self.patience:
                    break
        self.n_fallbacks += 1
        if self.fallback == "random" or codes is None:
            row = self.random_candidate()
        else:
            row = self._nearest(codes)
        self._pending = (row, None)
        self.asks.append(asks)
        return row

    def tell(self, row: int, y: float | np.ndarray) -> None:
        """Record ``y`` and tell Optuna; a row not asked for is enqueued first."""
        super().tell(row, y)
        row = int(row)
        value = self._optuna_value(y)
        self._values[row] = value
        pending, self._pending = self._pending, None
        with _quiet(), _one_torch_thread(self._torch):
            if pending is not None and pending[0] == row and pending[1] is not None:
                self.study.tell(pending[1], value)  # its asks were recorded by ask()
                return
            if pending is not None and pending[1] is not None:  # asked for another row
                from optuna.trial import TrialState

                self.study.tell(pending[1], state=TrialState.FAIL)
            self.study.enqueue_trial(self.params_of(row))
            trial = self.study.ask(self.distributions)
            self.study.tell(trial, value)
        if pending is None:  # told without asking (the initial rows): one enqueued ask
            self.asks.append(1)
        else:  # a fallback row (or a row told instead of the proposed one): one ask more
            self.asks[-1] += 1


#: Ranges of Optuna's own sampler and pruner arguments that the package declares (their types
#: come from Optuna's signatures); :func:`check_library_settings` reads them.
LIBRARY_RANGES: dict[str, dict[str, Any]] = {
    "n_startup_trials": {"low": 0, "high": 100_000},
    "n_ei_candidates": {"low": 1, "high": 100_000},
    "prior_weight": {"low": 0.0, "low_open": True},
    "sigma0": {"low": 0.0, "low_open": True},
    "popsize": {"low": 1, "high": 100_000},
    "inc_popsize": {"low": 1, "high": 100},
    "population_size": {"low": 2, "high": 100_000},
    "mutation_prob": {"low": 0.0, "high": 1.0},
    "crossover_prob": {"low": 0.0, "high": 1.0},
    "swapping_prob": {"low": 0.0, "high": 1.0},
    "qmc_type": {"choices": ("sobol", "halton")},
    "restart_strategy": {"choices": ("ipop", "bipop")},
    "min_resource": {"low": 1, "high": 100_000},
    "reduction_factor": {"low": 2, "high": 100},
    "bootstrap_count": {"low": 0, "high": 100_000},
    "min_early_stopping_rate": {"low": 0, "high": 100},
    "n_warmup_steps": {"low": 0, "high": 100_000},
    "interval_steps": {"low": 1, "high": 100_000},
    "n_min_trials": {"low": 1, "high": 100_000},
    "percentile": {"low": 0.0, "high": 100.0},
}


def check_library_settings(cls: Any, kind: str, values: dict[str, Any], method: str) -> None:
    """Check keyword arguments for Optuna's class ``cls`` (a sampler or a pruner, ``kind``)
    before any work: every name is a parameter of ``cls`` (except ``seed``, taken from the
    trial's generator), every value has the type Optuna's signature annotates and lies in
    :data:`LIBRARY_RANGES`.

    Raises
    ------
    nmthpo.errors.InputError
    """
    from nmthpo.errors import InputKeyError
    from nmthpo.optimizers.settings import check_library_values

    params = inspect.signature(cls).parameters
    names = [n for n in params if n not in ("self", "seed")]
    unknown = sorted(set(values) - set(names))
    if unknown:
        raise InputKeyError(
            f"method {method!r} has no setting {', '.join(map(repr, unknown))}; the "
            f"{kind} optuna.{kind}s.{cls.__name__} takes: {', '.join(names) or 'none'}"
        )
    annotations = {
        n: p.annotation if isinstance(p.annotation, str) else getattr(p.annotation, "__name__", "")
        for n, p in params.items()
        if p.annotation is not inspect.Parameter.empty
    }
    check_library_values(values, annotations, method, LIBRARY_RANGES)
