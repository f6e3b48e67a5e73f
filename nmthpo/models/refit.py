"""One refit schedule for every GP surrogate: when hyperparameters are re-optimised.

A BO run on a lookup table conditions a GP on a training set that grows by one row per step.
Re-optimising the hyperparameters (type-II maximum likelihood, Zhang & Duh 2020, Section 5.1;
Li et al. 2022, Section 4 for the transfer surrogates) dominates the cost of a step, and the
papers do not say how often it is done. :class:`RefitSchedule` states that choice as settings
and answers, for the number of observations ``n`` and the history of earlier fits, "optimise
now? with random restarts? with which generator?"; :class:`ScheduledGP` applies it to one
:class:`~nmthpo.models.gp.GaussianProcess` and owns the warm start, the update between refits
and the caching that keeps a run independent of how often its posterior is looked at.

Settings (each optimiser's defaults are a setting of this one schedule):

* ``every`` (with ``growth=None``): re-optimise once ``every`` observations have arrived since
  the last fit, counted at the calls (relative to the previous fit);
* ``growth`` (a float): re-optimise at the absolute *checkpoints* of :func:`refit_checkpoints`
  (``first_fit``, then growing geometrically by ``growth``, at least ``every`` apart); a call
  that passes several checkpoints fits at each of them in order, on the first ``s``
  observations, so the result depends only on the observations, never on the call pattern;
* ``first_fit``: no optimisation before this many observations (initial hyperparameters);
* ``until``: no optimisation after this many observations (``None``: no limit);
* ``restarts``, ``restart_rule``, ``restart_every``: ``restarts`` screened random starts
  besides the warm start at the first fit and then ``"every"`` ``restart_every`` observations
  since the last fit with restarts, ``"doubling"`` whenever ``n`` has at least doubled since
  then, or ``"first"`` never again;
* the generator of the fit at ``n`` observations is ``default_rng([seed, n])``.

Every optimisation is warm-started from the previous optimum. Between optimisations the GP keeps
its hyperparameters and is conditioned on the new observations (``between``): ``"add"`` extends
the Cholesky factor row by row in O(n^2) (the targets must not change), ``"condition"``
re-factorises on the data passed (targets that are re-standardised at every step), ``"keep"``
leaves the GP as last fitted (the caller keeps its own posterior, e.g.
:class:`nmthpo.models.row_gp.RowGP`).

Defaults of the optimisers (the settings that reproduce each one's behaviour):

* ``GPBO`` (``bo-ei-m``, ``bo-ei-r``; Zhang & Duh 2020, Sections 5.1-5.2):
  ``RefitSchedule(every=1, restarts=2, restart_rule="every", restart_every=10)`` with
  ``between="add"`` (``refit_every``, ``restarts``, ``restart_every`` are its settings);
* ``RowGP`` of ``ParetoSMBO`` (``bo-m``, ``bo-r``; Section 5.4):
  ``RefitSchedule(growth=0.2, first_fit=3, until=200, restarts=2, restart_rule="doubling")``
  with ``between="keep"`` (``refit_growth``, ``refit_until``, ``restarts``);
* the target GP of every transfer method (Li et al. 2022, Section 4):
  ``RefitSchedule(every=1, restarts=2, restart_rule="every", restart_every=10)`` with
  ``between="condition"`` (``restarts``, ``restart_every``);
* SCoT's merged GP (Li et al. 2022, Section 5.1; Bardenet et al. 2013):
  ``RefitSchedule(every=10, restarts=2, restart_rule="first")`` counting target observations
  only, with ``between="condition"`` (``refit_every``, ``restarts``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np

from nmthpo.models.gp import GaussianProcess

__all__ = [
    "BETWEEN",
    "RESTART_RULES",
    "FitHistory",
    "PlannedFit",
    "RefitSchedule",
    "ScheduledGP",
    "refit_checkpoints",
]

#: Valid ``restart_rule`` values of :class:`RefitSchedule`.
RESTART_RULES: tuple[str, ...] = ("every", "doubling", "first")

#: Valid ``between`` values of :class:`ScheduledGP`.
BETWEEN: tuple[str, ...] = ("add", "condition", "keep")


def _check_geometric(start: int, growth: float, until: int | None, every: int) -> None:
    if start < 1 or (until is not None and until < start - 1):
        raise ValueError(
            f"need 1 <= start and until >= start - 1; got start={start}, until={until}"
        )
    if not growth >= 0:
        raise ValueError(f"growth must be >= 0; got {growth}")
    if isinstance(every, bool) or int(every) != every or every < 1:
        raise ValueError(f"every must be an integer >= 1; got {every!r}")


def _geometric(start: int, growth: float, every: int, stop: int) -> list[int]:
    """Checkpoints ``<= stop`` (arguments already checked)."""
    out = []
    s = int(start)
    while s <= stop:
        out.append(s)
        s = max(s + int(every), int(np.ceil(s * (1.0 + growth) - 1e-9)))
    return out


def refit_checkpoints(start: int, growth: float, until: int, every: int = 1) -> list[int]:
    """Observation counts at which a geometric schedule re-fits the hyperparameters.

    ``s_0 = start``, ``s_{j+1} = max(s_j + every, ceil(s_j (1 + growth)))``, all ``<= until``.

    >>> refit_checkpoints(3, 0.2, 30)
    [3, 4, 5, 6, 8, 10, 12, 15, 18, 22, 27]
    """
    _check_geometric(start, growth, until, every)
    return _geometric(start, growth, every, until)


class PlannedFit(NamedTuple):
    """One hyperparameter optimisation the schedule asks for.

    Attributes
    ----------
    n : int
        Observations to fit on (the first ``n``) and the seed word of its generator.
    restart : bool
        Whether this fit counts as the schedule's "fit with restarts" (``restarts`` may be 0).
    restarts : int
        Random restarts besides the warm start (``schedule.restarts`` if ``restart``, else 0).
    """

    n: int
    restart: bool
    restarts: int

    def rng(self, seed: int) -> np.random.Generator:
        """The generator of the restarts: ``default_rng([seed, n])``."""
        return np.random.default_rng([int(seed), self.n])


@dataclass(frozen=True)
class FitHistory:
    """What the schedule remembers: observations at the last fit and the last restarts.

    ``None`` means "never" (before the first fit).
    """

    last_fit_n: int | None = None
    last_restart_n: int | None = None

    def after(self, fit: PlannedFit) -> FitHistory:
        """The history once ``fit`` has been done."""
        return FitHistory(fit.n, fit.n if fit.restart else self.last_restart_n)


@dataclass(frozen=True)
class RefitSchedule:
    """When to re-optimise GP hyperparameters, with or without random restarts.

    See the module docstring for the meaning of every setting and the defaults of each
    optimiser. The default instance is GP-BO's (Zhang & Duh 2020, Sections 5.1-5.2): refit at
    every step, 2 restarts at the first fit and every 10 observations.

    Parameters
    ----------
    every : int
        Minimum number of new observations between two fits.
    growth : float, optional
        Geometric checkpoints (absolute) instead of the relative ``every`` rule.
    first_fit : int
        Observations needed for the first fit.
    until : int, optional
        No fit after this many observations.
    restarts : int
        Random restarts of a fit "with restarts".
    restart_rule : {"every", "doubling", "first"}
    restart_every : int
        For ``restart_rule="every"``.
    """

    every: int = 1
    growth: float | None = None
    first_fit: int = 1
    until: int | None = None
    restarts: int = 2
    restart_rule: Literal["every", "doubling", "first"] = "every"
    restart_every: int = 10

    def __post_init__(self) -> None:
        for name in ("every", "first_fit", "restart_every"):
            v = getattr(self, name)
            if isinstance(v, bool) or int(v) != v or v < 1:
                raise ValueError(f"{name} must be an integer >= 1; got {v!r}")
        if (
            isinstance(self.restarts, bool)
            or int(self.restarts) != self.restarts
            or self.restarts < 0
        ):
            raise ValueError(f"restarts must be an integer >= 0; got {self.restarts!r}")
        if self.restart_rule not in RESTART_RULES:
            raise ValueError(
                f"unknown restart_rule {self.restart_rule!r}; valid: {', '.join(RESTART_RULES)}"
            )
        if self.until is not None and int(self.until) != self.until:
            raise ValueError(f"until must be an integer or None; got {self.until!r}")
        if self.growth is not None:
            _check_geometric(self.first_fit, self.growth, self.until, self.every)

    def checkpoints(self, n: int) -> list[int]:
        """The checkpoints ``<= n`` of a geometric schedule (empty for the ``every`` rule)."""
        if self.growth is None:
            return []
        stop = n if self.until is None else min(n, int(self.until))
        return _geometric(self.first_fit, self.growth, self.every, stop)

    def restart_due(self, n: int, history: FitHistory) -> bool:
        """Whether a fit at ``n`` observations uses the random restarts."""
        last = history.last_restart_n
        if history.last_fit_n is None or last is None:
            return True
        if self.restart_rule == "every":
            return n - last >= self.restart_every
        if self.restart_rule == "doubling":
            return n >= 2 * last
        return False

    def plan(self, n: int, history: FitHistory = FitHistory()) -> list[PlannedFit]:
        """The fits due at ``n`` observations given ``history``, in order (often none).

        The ``every`` rule gives at most one fit, at ``n``; a geometric schedule gives one fit
        per checkpoint passed since the last fit.
        """
        fits: list[PlannedFit] = []
        if self.growth is None:
            due = (
                n >= self.first_fit
                and (self.until is None or n <= self.until)
                and (history.last_fit_n is None or n - history.last_fit_n >= self.every)
            )
            points = [n] if due else []
        else:
            last = 0 if history.last_fit_n is None else history.last_fit_n
            points = [s for s in self.checkpoints(n) if s > last]
        for s in points:
            restart = self.restart_due(s, history)
            fit = PlannedFit(s, restart, self.restarts if restart else 0)
            fits.append(fit)
            history = history.after(fit)
        return fits


class ScheduledGP:
    """A GP whose hyperparameters follow a :class:`RefitSchedule`, updated as data arrive.

    :meth:`update` brings the GP up to date with all observations: the fits the schedule plans
    (warm-started from the previous optimum, restarts from ``default_rng([seed, n])``), then
    the conditioning on the rest (``between``, see the module docstring). Before the first fit
    the GP is conditioned with its initial hyperparameters.

    ``update(..., commit=False)`` computes the same GP without advancing the state (a look at
    the posterior, e.g. for a surrogate-error curve); the result is cached and adopted by the
    next committing update at the same ``n``, so looking never changes a run.

    Parameters
    ----------
    kernel : {"matern52", "rbf"}
    schedule : RefitSchedule
    seed : int
        Seeds the restart generators.
    between : {"add", "condition", "keep"}
    fused : bool
        Fit with the fused likelihood (``GaussianProcess(kernel, fused=True)``): equal up to
        rounding, faster; ``False`` keeps the book's cached runs reproducible bit for bit.
    prior : {"none", "gamma"}
        Hyperparameter prior of every fit (:class:`~nmthpo.models.gp.GaussianProcess`).
    search : {"lbfgsb", "lattice"}
        How every fit searches (:class:`~nmthpo.models.gp.GaussianProcess`).
    """

    def __init__(
        self,
        kernel: str,
        schedule: RefitSchedule,
        seed: int,
        *,
        between: Literal["add", "condition", "keep"] = "add",
        fused: bool = False,
        prior: str = "none",
        search: str = "lbfgsb",
    ) -> None:
        if between not in BETWEEN:
            raise ValueError(f"unknown between {between!r}; valid: {', '.join(BETWEEN)}")
        GaussianProcess(kernel, prior=prior, search=search)  # validates the names
        self.kernel = kernel
        self.prior = prior
        self.search = search
        self.schedule = schedule
        self.seed = int(seed)
        self.between = between
        self.fused = bool(fused)
        self.gp: GaussianProcess | None = None  # committed GP
        self.history = FitHistory()
        self._rows = 0  # data rows the committed GP is conditioned on
        self._pending: tuple[int, int, GaussianProcess, FitHistory] | None = None

    def update(
        self, X: np.ndarray, y: np.ndarray, *, n: int | None = None, commit: bool = True
    ) -> GaussianProcess:
        """The GP conditioned on ``(X, y)`` with hyperparameters as the schedule says.

        Parameters
        ----------
        X : ndarray of shape (m, d)
        y : ndarray of shape (m,)
        n : int, optional
            Observations the schedule counts (default ``m``): the *last* ``n`` rows; leading
            rows (SCoT's source samples) are always included. A fit at ``s < n`` uses the
            first ``m - n + s`` rows.
        commit : bool
            ``False``: do not advance the state (see the class docstring).

        Returns
        -------
        GaussianProcess
            Owned by this object: do not mutate it.
        """
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float)
        m = y.shape[0]
        n = m if n is None else int(n)
        if not 0 <= n <= m:
            raise ValueError(f"n must lie in [0, {m}] (rows of y); got {n}")
        pending = self._pending
        if pending is not None and pending[0] == n and pending[1] == m:
            gp, history = pending[2], pending[3]
        else:
            gp, history = self._advance(X, y, n, copy=not commit)
            if not commit:
                self._pending = (n, m, gp, history)
        if commit:
            self.gp, self.history, self._rows = gp, history, m
            self._pending = None
        return gp

    def _advance(
        self, X: np.ndarray, y: np.ndarray, n: int, copy: bool
    ) -> tuple[GaussianProcess, FitHistory]:
        m = y.shape[0]
        offset = m - n
        history = self.history
        fits = self.schedule.plan(n, history)
        gp = self.gp
        if gp is not None and copy:
            gp = gp.copy()
        if fits:
            if gp is None:
                gp = GaussianProcess(
                    self.kernel, fused=self.fused, prior=self.prior, search=self.search
                )
            for fit in fits:
                k = offset + fit.n
                gp.fit(X[:k], y[:k], optimize=True, rng=fit.rng(self.seed), restarts=fit.restarts)
                history = history.after(fit)
            done = offset + fits[-1].n
        elif gp is None:  # before the first fit: initial hyperparameters
            gp = GaussianProcess(
                self.kernel, fused=self.fused, prior=self.prior, search=self.search
            ).fit(X, y, optimize=False)
            return gp, history
        else:
            done = self._rows
        if done < m and self.between == "add":
            for i in range(done, m):
                gp.add(X[i], float(y[i]))
        elif self.between == "condition" and not (fits and done == m):
            gp.fit(X, y, optimize=False)
        return gp, history
