"""An exact GP posterior over the fixed rows of a lookup table, updated in O(t N) per observation.

The surrogate of the GP-based methods that condition on one new row at a time between
hyperparameter refits: the multiobjective SMBO's GP surrogates (Zhang & Duh 2020, Section 5.4;
:class:`nmthpo.optimizers.mobo.ParetoSMBO`) and GP-BO's ``schedule="fast"`` (Section 5.1;
:class:`nmthpo.optimizers.bo.GPBO`). Written by hand because no library keeps the posterior over a
fixed finite candidate set and extends it by one Cholesky row per observation, which is what
makes a suggestion O(t N) instead of a solve with every candidate.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.linalg import LinAlgError, cholesky, solve_triangular

from nmthpo.models.gp import GaussianProcess, get_kernel
from nmthpo.models.refit import RefitSchedule, ScheduledGP

__all__ = ["RowGP"]


_JITTERS = (0.0, 1e-10, 1e-8, 1e-6, 1e-4)


class RowGP:
    """Exact GP posterior over the fixed rows of a table, updated in O(t N) per observation.

    Conditions a zero-mean GP on standardised targets (as :class:`GaussianProcess` does, Eqs.
    1-2 of Section 5.1) and keeps, for the current hyperparameters, the Cholesky factor ``L`` of
    ``K(X_o, X_o) + noise I`` (t observed rows) and ``V = L^{-1} K(X_o, X)`` over *all* N rows.
    A new observed row ``r`` appends one row to both: ``l = V[:, r]``, ``d = sqrt(k(r, r) +
    noise - l.l)``, ``v = (K(r, X) - l^T V) / d`` -- no solve with the candidates at all. Then
    ``mean = m_y + s_y V^T L^{-1} (y - m_y) / s_y`` and ``var = s_y^2 (k(x, x) - colsum(V^2))``,
    identical to ``GaussianProcess.fit(..., optimize=False).predict(X)`` (tested).

    Hyperparameters are re-fitted (warm-started ``GaussianProcess.fit``) exactly at the
    :func:`refit_checkpoints`, in order, whatever the calling pattern, so results depend only on
    the observations (never on how often :meth:`predict` is called): the shared schedule of
    :mod:`nmthpo.models.refit` with the settings ``RefitSchedule(growth=refit_growth,
    until=refit_until, first_fit=first_fit, restarts=restarts, restart_rule="doubling")`` and
    ``ScheduledGP(..., between="keep")``; this class keeps its own O(t N) posterior over the
    rows between checkpoints.

    Parameters
    ----------
    X : ndarray of shape (N, d)
        Encoded rows of the table.
    kernel : {"matern52", "rbf"}
    seed : int
        Seeds the restart generator of the fit at checkpoint ``s``: ``default_rng([seed, s])``.
    refit_growth, refit_until, restarts, first_fit : see :class:`ParetoSMBO`.
    refit_every : int
        The checkpoints are at least this many observations apart (:func:`refit_checkpoints`).
    fused : bool
        Fit with the fused likelihood (see :class:`~nmthpo.models.gp.GaussianProcess`).
    prior : {"none", "gamma"}
        Hyperparameter prior of every fit (:class:`~nmthpo.models.gp.GaussianProcess`).
    search : {"lbfgsb", "lattice"}
        How every fit searches (:class:`~nmthpo.models.gp.GaussianProcess`).
    """

    def __init__(
        self,
        X: np.ndarray,
        kernel: str,
        seed: int,
        *,
        refit_growth: float = 0.2,
        refit_until: int | None = 200,
        restarts: int = 2,
        first_fit: int = 3,
        refit_every: int = 1,
        fused: bool = False,
        prior: str = "none",
        search: str = "lbfgsb",
    ) -> None:

        self.X = np.asarray(X, dtype=float)
        self.N = self.X.shape[0]
        self.kernel_name = kernel
        self._kern = get_kernel(kernel)
        self.seed = int(seed)
        self.restarts = int(restarts)
        self.schedule = RefitSchedule(
            every=refit_every,
            growth=refit_growth,
            until=refit_until,
            first_fit=first_fit,
            restarts=restarts,
            restart_rule="doubling",
        )
        self.model = ScheduledGP(
            kernel,
            self.schedule,
            self.seed,
            between="keep",
            fused=fused,
            prior=prior,
            search=search,
        )
        self.rows: list[int] = []
        self.values: list[float] = []
        self._hyp: dict[str, Any] | None = None
        self._t = 0  # rows in the factor
        self._jitter = 0.0
        self._L = np.zeros((0, 0))
        self._V = np.zeros((0, self.N))
        self._q = np.zeros(self.N)

    # -- data ---------------------------------------------------------------------------------
    def add(self, row: int, value: float) -> None:
        """Record one observation (conditioning happens lazily in :meth:`predict`)."""
        self.rows.append(int(row))
        self.values.append(float(value))

    @property
    def gp(self) -> GaussianProcess | None:
        """The GP of the last hyperparameter fit (``None`` before the first :meth:`predict`)."""
        return self.model.gp

    @property
    def hyperparameters(self) -> dict[str, Any]:
        """Hyperparameters in use (standardised units), see :class:`GaussianProcess`."""
        self._sync()
        assert self._hyp is not None
        return dict(self._hyp)

    # -- internals ----------------------------------------------------------------------------
    def _k(self, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        assert self._hyp is not None
        return self._kern(A, B, self._hyp["lengthscales"], self._hyp["variance"])

    def _factor(self, t: int) -> None:
        """Rebuild ``L``, ``V`` and ``colsum(V^2)`` from scratch on the first ``t`` rows."""

        assert self._hyp is not None
        Xo = self.X[np.asarray(self.rows[:t], dtype=int)]
        K = self._k(Xo, Xo)
        scale = float(self._hyp["variance"])
        for rel in _JITTERS:
            jitter = rel * scale
            try:
                Kj = K + (self._hyp["noise"] + jitter) * np.eye(t)
                L = cholesky(Kj, lower=True, check_finite=False)
                break
            except LinAlgError:
                continue
        else:  # pragma: no cover - noise >= 1e-6 keeps K + noise I positive definite
            raise LinAlgError("GP kernel matrix is not positive definite even with jitter")
        self._jitter = jitter
        cap = self.N
        self._L = np.zeros((cap, cap))
        self._L[:t, :t] = L
        self._V = np.zeros((cap, self.N))
        self._V[:t] = solve_triangular(L, self._k(Xo, self.X), lower=True, check_finite=False)
        self._q = np.einsum("ij,ij->j", self._V[:t], self._V[:t])
        self._t = t

    def _extend(self, i: int) -> None:
        """Append observation ``i`` (its row ``rows[i]``) to the factor, O(t N)."""
        assert self._hyp is not None
        t = self._t
        r = self.rows[i]
        l_row = self._V[:t, r]
        kxx = float(self._hyp["variance"]) + float(self._hyp["noise"]) + self._jitter
        d2 = kxx - float(l_row @ l_row)
        if d2 <= 1e-10 * kxx:  # numerically singular: refactorise (with jitter escalation)
            self._factor(i + 1)
            return
        d = np.sqrt(d2)
        krow = self._k(self.X[r : r + 1], self.X)[0]
        v = (krow - l_row @ self._V[:t]) / d
        self._L[t, :t] = l_row
        self._L[t, t] = d
        self._V[t] = v
        self._q += v * v
        self._t = t + 1

    def _sync(self) -> None:
        n = len(self.rows)
        if n == 0:
            raise RuntimeError("RowGP has no observations; call add(row, value) first")
        before = self.model.history.last_fit_n
        gp = self.model.update(self.X[np.asarray(self.rows, dtype=int)], np.asarray(self.values))
        refit_at = self.model.history.last_fit_n
        if refit_at is not None and refit_at != before:  # new hyperparameters at a checkpoint
            self._hyp = gp.hyperparameters
            self._factor(refit_at)
        elif self._hyp is None:  # fewer observations than the first checkpoint: initial values
            self._hyp = gp.hyperparameters
            self._factor(n)
        for i in range(self._t, n):
            self._extend(i)

    # -- prediction ---------------------------------------------------------------------------
    def predict(self) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and variance of the latent function at every row, shapes (N,)."""

        self._sync()
        assert self._hyp is not None
        y = np.asarray(self.values)
        m = float(y.mean())
        s = float(y.std())
        if not np.isfinite(s) or s <= 0:
            s = 1.0
        t = self._t
        w = solve_triangular(self._L[:t, :t], (y - m) / s, lower=True, check_finite=False)
        mean = m + s * (w @ self._V[:t])
        var = s * s * np.maximum(float(self._hyp["variance"]) - self._q, 0.0)
        return mean, var
