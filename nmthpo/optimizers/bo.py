"""GP-based Bayesian optimisation over a table's rows (Zhang & Duh 2020, Sections 5.1-5.2).

Registered as ``bo-ei-m`` (Matérn-5/2 ARD kernel), ``bo-ei-r`` (RBF ARD kernel) and
``bo-ei-map`` (Matérn-5/2, MAP hyperparameters under weak priors, Chapter 9). Each
``ask`` conditions an exact GP (:class:`nmthpo.models.gp.GaussianProcess`) on the BLEU of the
rows evaluated so far, scores every unevaluated row by expected improvement (Eq. 3, written for
maximisation, :func:`nmthpo.models.acquisition.expected_improvement`) and returns the argmax,
ties broken uniformly at random. The search is over the finite grid, without replacement
(Section 6).

Choices the paper leaves open (it used the George library and states none of these):

* Targets: BLEU, standardised inside the GP (zero prior mean on the standardised scale,
  footnote 11); predictions are in BLEU units.
* Hyperparameters: type-II maximum likelihood, each fit warm-started from the previous optimum,
  with ``restarts`` extra screened random starts (default 2). *When* they are re-fitted is the
  ``schedule``:

  - ``"fast"`` (the default since issue 25): re-fitted only at the geometric checkpoints of
    :func:`nmthpo.models.refit.refit_checkpoints` (``first_fit = 3``, growth ``refit_growth`` =
    0.2, at least ``refit_every`` apart, no upper limit: 3, 4, 5, 6, 8, 10, 12, 15, ...), the
    restarts whenever ``n`` has doubled since the last fit with restarts; between checkpoints
    the cached O(t N) posterior over all rows of :class:`nmthpo.models.row_gp.RowGP` (no solve
    with the candidates). The shared schedule of :mod:`nmthpo.models.refit` with the settings
    ``RefitSchedule(every=refit_every, growth=refit_growth, first_fit=3, restarts=restarts,
    restart_rule="doubling")`` and ``ScheduledGP(..., between="keep", fused=True)``.
  - ``"exact"`` (the protocol of the book's runs before issue 25, and the reading of the
    paper's "at every step"): re-optimised once ``refit_every`` new observations have arrived
    (default 1: every step); restarts at the first fit and then whenever ``restart_every``
    observations (default 10) have arrived since the last fit with restarts; between refits
    (``refit_every > 1``) the GP is extended with the new rows in O(n^2) keeping the
    hyperparameters: ``RefitSchedule(every=refit_every, restarts=restarts,
    restart_rule="every", restart_every=restart_every)`` and ``ScheduledGP(...,
    between="add")``.

  Either way the restarts of the fit at ``t`` observations draw from a generator derived from
  (this optimiser's seed, ``t``), so the run does not depend on whether or how often
  :meth:`GPBO.predict_mean` is called. Chapter 2 compares the two schedules paired over Table
  3's trials.
* ``search``: ``"lattice"`` (the default since issue 25): every fit is the pattern search of
  :mod:`nmthpo.models.lattice`, whose end point is the same on every CPU; ``"lbfgsb"``:
  L-BFGS-B with analytic gradients (:mod:`nmthpo.models.lbfgsb`), whose end point moves with
  the BLAS kernel's rounding.
* ``tie_rtol`` (default 1e-9): EI values within that relative distance of the largest are ties
  (:meth:`~nmthpo.optimizers.base.TableOptimizer.argmax_candidate`), broken uniformly at
  random; far in EI's tail the distance grows with ``z^2``
  (:func:`nmthpo.models.acquisition.tail_rtol`). With the two defaults above a run chooses the
  same rows under every BLAS kernel (measured in the speed appendix);
  ``schedule="exact", search="lbfgsb", tie_rtol=0`` is the protocol of the book's runs before
  issue 25.
* ``prior``: ``"none"`` (the default: maximum likelihood, as above) or ``"gamma"``: the fits
  maximise the likelihood times weak priors on the length scales, signal and noise variance
  (:func:`nmthpo.models.gp.log_prior`). With the 3 initial rows and a few more, the likelihood
  alone often puts the length scales at a bound; Chapter 9 measures what the prior changes.
* EI margin ``xi = 0`` (Eq. 3 has none); ``best`` is the largest BLEU observed so far.
* With no observation yet (if the runner asks before telling any initial row) the row is
  drawn uniformly at random; the paper's trials start from 3 random initial rows, which the
  runner provides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from nmthpo.optimizers.base import TableOptimizer
from nmthpo.optimizers.settings import search_setting, setting, tie_rtol_setting

if TYPE_CHECKING:
    from nmthpo.models.gp import GaussianProcess
    from nmthpo.models.row_gp import RowGP

# SciPy comes in with nmthpo.models: imported where used, so that reading GPBO.Settings
# (``nmthpo run --set`` checks, ``nmthpo methods``) stays cheap (nmthpo.optimizers.settings)

__all__ = ["SCHEDULES", "GPBO", "GPBOSettings"]


#: Valid ``schedule`` settings of :class:`GPBO` (see the module docstring).
SCHEDULES: tuple[str, ...] = ("exact", "fast")


@dataclass(frozen=True)
class GPBOSettings:
    """Settings of :class:`GPBO` (see its parameters)."""

    kernel: str = setting(
        "matern52", "GP covariance function: matern52, rbf", choices=("matern52", "rbf")
    )
    refit_every: int = setting(
        1,
        "re-optimise the GP hyperparameters after this many new observations (1: every step)",
        low=1,
        high=100_000,
    )
    restarts: int = setting(
        2, "random restarts of a hyperparameter fit, besides the warm start", low=0, high=100
    )
    restart_every: int = setting(
        10, "use the restarts again after this many observations", low=1, high=100_000
    )
    xi: float = setting(0.0, "exploration margin of EI (Eq. 3: 0)", low=0.0)
    schedule: str = setting(
        "fast",
        "fast (geometric refit checkpoints, cached posterior) or exact (refit every "
        "refit_every steps, the papers' protocol)",
        choices=("exact", "fast"),
    )
    refit_growth: float = setting(
        0.2, "growth of the checkpoints of the fast schedule", low=0.0, low_open=True, high=10.0
    )
    prior: str = setting(
        "none",
        "hyperparameter prior: none (maximum likelihood, the paper) or gamma (MAP, weak priors)",
        choices=("none", "gamma"),
    )
    search: str = search_setting("lattice")
    tie_rtol: float = tie_rtol_setting("EI", 1e-9)


class GPBO(TableOptimizer):
    """Bayesian optimisation with an exact GP and expected improvement (Section 5.1).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Encoded configurations of every row (the ``scaled`` encoding puts them in [0, 1]).
    rng : numpy.random.Generator
        Source of all randomness (tie-breaks, restart seeds).
    objective : {"bleu"}
    kernel : {"matern52", "rbf"}
        GP covariance function (footnote 15).
    refit_every : int
        Re-optimise the GP hyperparameters once this many new observations have arrived since
        the last optimisation (1 = at every step; with the ``"fast"`` schedule, the least
        distance of two checkpoints); in between the GP is updated incrementally.
    restarts : int
        Random restarts of a hyperparameter optimisation, besides the warm start.
    restart_every : int
        Use the random restarts at the first fit and then once this many observations have
        arrived since the last fit that used them (1 = at every refit).
    xi : float
        Exploration margin of EI (Eq. 3 uses 0).
    schedule : {"fast", "exact"}
        ``"fast"`` (default): geometric refit checkpoints at least ``refit_every`` apart and a
        cached posterior; ``"exact"``: refit every ``refit_every`` steps, restarts every
        ``restart_every`` (module docstring).
    refit_growth : float
        Growth of the checkpoints of the ``"fast"`` schedule.
    prior : {"none", "gamma"}
        ``"none"``: the GP's hyperparameters maximise the likelihood (Section 5.1);
        ``"gamma"``: they maximise the likelihood times weak priors
        (:func:`nmthpo.models.gp.log_prior`), registered as ``bo-ei-map``.
    search : {"lattice", "lbfgsb"}
        How each hyperparameter fit searches (:class:`~nmthpo.models.gp.GaussianProcess`):
        ``"lattice"`` (default), whose fitted hyperparameters are the same on every CPU
        (:mod:`nmthpo.models.lattice`), or ``"lbfgsb"``.
    tie_rtol : float
        EI values within ``tie_rtol * |max|`` of the maximum are ties for the random
        tie-break (:func:`~nmthpo.optimizers.base.snap_ties`); 0: exact ties only. With
        ``search="lattice"`` and ``tie_rtol=1e-9`` (the defaults) a run chooses the same rows
        under every BLAS kernel (issue 25; measured in the speed appendix).
    """

    objectives = ("bleu",)
    Settings = GPBOSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        *,
        kernel: str = "matern52",
        refit_every: int = 1,
        restarts: int = 2,
        restart_every: int = 10,
        xi: float = 0.0,
        schedule: str = "fast",
        refit_growth: float = 0.2,
        prior: str = "none",
        search: str = "lattice",
        tie_rtol: float = 1e-9,
        **settings: Any,
    ) -> None:
        from nmthpo.models.gp import KERNELS
        from nmthpo.models.refit import RefitSchedule, ScheduledGP

        super().__init__(X, rng, objective, **settings)
        if kernel not in KERNELS:
            raise ValueError(f"unknown kernel {kernel!r}; valid kernels: {', '.join(KERNELS)}")
        if int(refit_every) != refit_every or refit_every < 1:
            raise ValueError(f"refit_every must be an integer >= 1; got {refit_every!r}")
        if int(restart_every) != restart_every or restart_every < 1:
            raise ValueError(f"restart_every must be an integer >= 1; got {restart_every!r}")
        if int(restarts) != restarts or restarts < 0:
            raise ValueError(f"restarts must be an integer >= 0; got {restarts!r}")
        if schedule not in SCHEDULES:
            raise ValueError(f"unknown schedule {schedule!r}; valid: {', '.join(SCHEDULES)}")
        if not (np.isfinite(refit_growth) and refit_growth > 0):
            raise ValueError(f"refit_growth must be a positive number; got {refit_growth!r}")
        if not (np.isfinite(tie_rtol) and tie_rtol >= 0):
            raise ValueError(f"tie_rtol must be a number >= 0; got {tie_rtol!r}")
        if not np.isfinite(xi):
            raise ValueError(f"xi must be a finite number; got {xi!r}")
        if self.X.ndim != 2 or not np.all(np.isfinite(self.X)):
            raise ValueError("X must be a finite 2-d array (n rows, d encoded hyperparameters)")
        self.kernel = kernel
        self.refit_every = int(refit_every)
        self.restarts = int(restarts)
        self.restart_every = int(restart_every)
        self.xi = float(xi)
        self._seed = int(rng.integers(2**63 - 1))
        self.schedule = RefitSchedule(
            every=self.refit_every,
            restarts=self.restarts,
            restart_rule="every",
            restart_every=self.restart_every,
        )
        self.prior = prior
        self.tie_rtol = float(tie_rtol)
        self.model = ScheduledGP(
            kernel, self.schedule, self._seed, between="add", prior=prior, search=search
        )
        self.schedule_name = schedule
        self.rowgp: RowGP | None = None
        if schedule == "fast":
            from nmthpo.models.row_gp import RowGP

            self.rowgp = RowGP(
                self.X,
                kernel,
                self._seed,
                refit_growth=float(refit_growth),
                refit_until=None,
                restarts=self.restarts,
                first_fit=3,
                refit_every=self.refit_every,
                fused=True,
                prior=prior,
                search=search,
            )

    @property
    def gp(self) -> GaussianProcess | None:
        """The GP the last ``ask`` used (``None`` before the first one; with the ``"fast"``
        schedule the GP of the last hyperparameter fit)."""
        return self.model.gp if self.rowgp is None else self.rowgp.gp

    def _posterior(self) -> tuple[np.ndarray, np.ndarray]:
        """The fast schedule's posterior mean and variance at every row (RowGP, O(t N))."""
        assert self.rowgp is not None
        if len(self.rowgp.rows) < len(self.rows):
            ys = self.y_array
            for i in range(len(self.rowgp.rows), len(self.rows)):
                self.rowgp.add(self.rows[i], float(ys[i]))
        return self.rowgp.predict()

    def _surrogate(self, commit: bool) -> GaussianProcess:
        """The GP conditioned on all observations, per :attr:`schedule` (see the module)."""
        X_obs = self.X[np.asarray(self.rows, dtype=int)]
        return self.model.update(X_obs, self.y_array, commit=commit)

    # -- protocol -----------------------------------------------------------------------------
    def ask(self) -> int:
        """The unevaluated row with the largest expected improvement (random tie-break)."""
        from nmthpo.models.acquisition import expected_improvement, tail_rtol

        cand = self.remaining()
        if not self.rows:
            return self.random_candidate()
        if self.rowgp is not None:
            mean, var = (a[cand] for a in self._posterior())
        else:
            mean, var = self._surrogate(commit=True).predict(self.X[cand])
        std = np.sqrt(var)
        best = float(np.max(self.y_array))
        ei = expected_improvement(mean, std, best, self.xi)
        scores = np.full(self.n, -np.inf)
        scores[cand] = ei
        return self.argmax_candidate(scores, tail_rtol(self.tie_rtol, mean, std, best, self.xi, ei))

    def predict_mean(self) -> np.ndarray:
        """Posterior mean BLEU of every row given all observations so far, shape (n,).

        Uses the GP the next ``ask`` will use (computed once and cached), so calling this does
        not change the optimiser's choices. All ``NaN`` before the first observation.
        """
        if not self.rows:
            return np.full(self.n, np.nan)
        if self.rowgp is not None:
            return self._posterior()[0]
        gp = self._surrogate(commit=False)
        return gp.predict(self.X)[0]
