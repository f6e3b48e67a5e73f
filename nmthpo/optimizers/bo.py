"""GP-based Bayesian optimisation over a table's rows (Zhang & Duh 2020, Sections 5.1-5.2).

Registered as ``bo-ei-m`` (Matérn-5/2 ARD kernel) and ``bo-ei-r`` (RBF ARD kernel). Each
``ask`` conditions an exact GP (:class:`nmthpo.models.gp.GaussianProcess`) on the BLEU of the
rows evaluated so far, scores every unevaluated row by expected improvement (Eq. 3, written for
maximisation, :func:`nmthpo.models.acquisition.expected_improvement`) and returns the argmax, ties
broken
uniformly at random. The search is over the finite grid, without replacement (Section 6).

Choices the paper leaves open (it used the George library and states none of these):

* Targets: BLEU, standardised inside the GP (zero prior mean on the standardised scale,
  footnote 11); predictions are in BLEU units.
* Hyperparameters: type-II maximum likelihood (L-BFGS-B with analytic gradients), re-optimised
  once ``refit_every`` new observations have arrived (default 1: every step), each time
  warm-started from the previous optimum. ``restarts`` extra screened random starts (default 2) are
  added at the first fit and then whenever ``restart_every`` observations (default 10) have
  arrived since the last fit with restarts; the warm start alone tracks the slowly moving
  optimum in between at a fraction of the cost. Between refits (``refit_every > 1``) the GP is
  extended with the new rows in O(n^2) keeping the hyperparameters. The restarts of the fit at
  ``t`` observations draw from a generator derived from (this optimiser's seed, ``t``), so the
  run does not depend on whether or how often :meth:`GPBO.predict_mean` is called.
* EI margin ``xi = 0`` (Eq. 3 has none); ``best`` is the largest BLEU observed so far.
* With no observation yet (if the runner asks before telling any initial row) the row is
  drawn uniformly at random; the paper's trials start from 3 random initial rows, which the
  runner provides.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nmthpo.models.acquisition import expected_improvement
from nmthpo.models.gp import KERNELS, GaussianProcess
from nmthpo.optimizers.base import TableOptimizer


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
        the last optimisation (1 = at every step); in between the GP is updated incrementally.
    restarts : int
        Random restarts of a hyperparameter optimisation, besides the warm start.
    restart_every : int
        Use the random restarts at the first fit and then once this many observations have
        arrived since the last fit that used them (1 = at every refit).
    xi : float
        Exploration margin of EI (Eq. 3 uses 0).
    """

    objectives = ("bleu",)

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
        **settings: Any,
    ) -> None:
        super().__init__(X, rng, objective, **settings)
        if kernel not in KERNELS:
            raise ValueError(f"unknown kernel {kernel!r}; valid kernels: {', '.join(KERNELS)}")
        if int(refit_every) != refit_every or refit_every < 1:
            raise ValueError(f"refit_every must be an integer >= 1; got {refit_every!r}")
        if int(restart_every) != restart_every or restart_every < 1:
            raise ValueError(f"restart_every must be an integer >= 1; got {restart_every!r}")
        if int(restarts) != restarts or restarts < 0:
            raise ValueError(f"restarts must be an integer >= 0; got {restarts!r}")
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
        self.gp: GaussianProcess | None = None  # committed surrogate (synced at ask time)
        self._gp_n = 0  # observations the committed GP is conditioned on
        self._last_opt_n = 0  # observations at the last hyperparameter optimisation
        self._last_restart_n = 0  # observations at the last optimisation with restarts
        self._pending: tuple[int, GaussianProcess, int, int] | None = None

    # -- surrogate schedule -------------------------------------------------------------------
    def _synced_gp(self) -> tuple[GaussianProcess, int, int]:
        """A GP conditioned on all observations, plus the schedule counters it implies.

        Returns ``(gp, n_at_last_optimisation, n_at_last_restarts)``. Derived from the
        committed GP only (never mutates it), so the same state gives the same GP however
        often it is computed; the result is cached until the next observation.
        """
        t = len(self.rows)
        if self._pending is not None and self._pending[0] == t:
            return self._pending[1], self._pending[2], self._pending[3]
        X_obs = self.X[np.asarray(self.rows, dtype=int)]
        y_obs = self.y_array
        opt_n, restart_n = self._last_opt_n, self._last_restart_n
        if self.gp is None or t - self._last_opt_n >= self.refit_every:
            with_restarts = self.gp is None or t - self._last_restart_n >= self.restart_every
            gp = GaussianProcess(self.kernel) if self.gp is None else self.gp.copy()
            gp.fit(
                X_obs,
                y_obs,
                optimize=True,
                rng=np.random.default_rng([self._seed, t]),
                restarts=self.restarts if with_restarts else 0,
            )
            opt_n = t
            restart_n = t if with_restarts else restart_n
        else:
            gp = self.gp.copy()
            for i in range(self._gp_n, t):
                gp.add(X_obs[i], float(y_obs[i]))
        self._pending = (t, gp, opt_n, restart_n)
        return gp, opt_n, restart_n

    def _commit(self) -> GaussianProcess:
        gp, self._last_opt_n, self._last_restart_n = self._synced_gp()
        self.gp, self._gp_n = gp, len(self.rows)
        self._pending = None
        return gp

    # -- protocol -----------------------------------------------------------------------------
    def ask(self) -> int:
        """The unevaluated row with the largest expected improvement (random tie-break)."""
        cand = self.remaining()
        if not self.rows:
            return self.random_candidate()
        gp = self._commit()
        mean, var = gp.predict(self.X[cand])
        scores = np.full(self.n, -np.inf)
        scores[cand] = expected_improvement(mean, np.sqrt(var), float(np.max(self.y_array)),
                                            self.xi)
        return self.argmax_candidate(scores)

    def predict_mean(self) -> np.ndarray:
        """Posterior mean BLEU of every row given all observations so far, shape (n,).

        Uses the GP the next ``ask`` will use (computed once and cached), so calling this does
        not change the optimiser's choices. All NaN before the first observation.
        """
        if not self.rows:
            return np.full(self.n, np.nan)
        gp = self._synced_gp()[0]
        return gp.predict(self.X)[0]
