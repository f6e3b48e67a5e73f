"""A paper-era GP-BO: GP hyperparameters marginalised by MCMC, EI averaged over the samples.

Zhang & Duh (2020, Appendix) ran their BO through a fork of RoBO with George GPs. RoBO's
``bayesian_optimization`` defaults to a GP whose hyperparameters are *marginalised* by an
ensemble MCMC sampler (``GaussianProcessMCMC``: emcee walkers, a burn-in at the first fit, a
short continuation of the same chains at every later step, the walkers' final positions used
as hyperparameter samples) and an acquisition integrated over those samples (Snoek et al.
2012, Section 3.2). :class:`MarginalGPBO` is that stack on :mod:`nmthpo.models.gp`, with
choices we had to make (RoBO's exact priors and chain lengths are far too costly for 80
trials, and the fork's settings are not published):

* ``n_hypers`` (default 8) independent random-walk Metropolis walkers over
  ``theta = [log l_1..log l_d, log variance, log noise]`` (the same parameters and box as
  :class:`~nmthpo.models.gp.GaussianProcess`); the prior is flat in ``theta`` inside that box
  (RoBO's top-hat prior on the log length scales, applied to all of ``theta``);
* burn-in ``burnin`` steps (default 100) at the first fit, then ``chain_length`` steps
  (default 20) per ask from the walkers' previous positions (RoBO: 2000 and 2000 steps);
* Gaussian proposals of standard deviation ``step`` (default 0.3) in ``theta``;
* no type-II maximum likelihood and no restarts at all: the GP of each sample is conditioned
  on the observations with that sample's hyperparameters (exact, standardised targets as in
  :class:`~nmthpo.optimizers.bo.GPBO`);
* expected improvement (Eq. 3, ``xi = 0``) averaged over the samples, over every unevaluated
  row of the grid (RoBO's default ``log_ei`` has the same maximiser for one model, not for the
  average; the average of EI is the marginal EI).

Walkers start log-uniformly in the central box of :class:`~nmthpo.models.gp.GaussianProcess`'s
restarts (length scales and signal variance in [0.1, 10], noise in [1e-4, 1e-1]), drawn from
the optimiser's generator, which also drives the chains and the tie-breaks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from nmthpo.optimizers.base import TableOptimizer
from nmthpo.optimizers.settings import setting

if TYPE_CHECKING:
    from nmthpo.models.gp import GaussianProcess

# SciPy comes in with nmthpo.models: imported where used, so that reading
# MarginalGPBO.Settings stays cheap (nmthpo.optimizers.settings)

__all__ = ["MarginalGPBO", "MarginalGPBOSettings", "metropolis"]


def metropolis(
    log_density: Any,
    start: np.ndarray,
    steps: int,
    step: float,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Random-walk Metropolis for each row of ``start`` (independent walkers).

    Parameters
    ----------
    log_density : callable
        ``theta -> float`` (``-inf`` outside the support).
    start : ndarray of shape (w, p)
        The walkers' current positions.
    steps : int
        Metropolis steps per walker.
    step : float
        Standard deviation of the Gaussian proposals.
    rng : numpy.random.Generator

    Returns
    -------
    positions : ndarray of shape (w, p)
        The walkers' final positions.
    accept : ndarray of shape (w,)
        Acceptance rate of each walker.
    """
    pos = np.array(start, dtype=float, copy=True)
    logp = np.array([log_density(t) for t in pos])
    acc = np.zeros(pos.shape[0])
    for _ in range(int(steps)):
        prop = pos + step * rng.standard_normal(pos.shape)
        u = np.log(rng.random(pos.shape[0]))
        for w in range(pos.shape[0]):
            lp = log_density(prop[w])
            if u[w] < lp - logp[w]:
                pos[w], logp[w] = prop[w], lp
                acc[w] += 1
    return pos, acc / max(int(steps), 1)


@dataclass(frozen=True)
class MarginalGPBOSettings:
    """Settings of :class:`MarginalGPBO` (see its parameters)."""

    kernel: str = setting(
        "matern52", "GP covariance function: matern52, rbf", choices=("matern52", "rbf")
    )
    n_hypers: int = setting(8, "walkers, i.e. hyperparameter samples per step", low=1, high=1_000)
    burnin: int = setting(100, "Metropolis steps at the first fit", low=0, high=100_000)
    chain_length: int = setting(20, "Metropolis steps at every later ask", low=1, high=100_000)
    step: float = setting(
        0.3, "proposal std in log-hyperparameter space", low=0.0, low_open=True, high=10.0
    )
    xi: float = setting(0.0, "EI margin (Eq. 3: 0)", low=0.0)


class MarginalGPBO(TableOptimizer):
    """GP-BO with MCMC-marginalised hyperparameters (RoBO's default stack; see the module).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    rng : numpy.random.Generator
        Drives the walkers' starts, the chains and the tie-breaks.
    objective : {"bleu"}
    kernel : {"matern52", "rbf"}
    n_hypers : int
        Walkers, i.e. hyperparameter samples per step.
    burnin : int
        Metropolis steps at the first fit.
    chain_length : int
        Metropolis steps at every later ask.
    step : float
        Proposal standard deviation in log-hyperparameter space.
    xi : float
        EI margin (Eq. 3: 0).
    """

    objectives = ("bleu",)
    Settings = MarginalGPBOSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        *,
        kernel: str = "matern52",
        n_hypers: int = 8,
        burnin: int = 100,
        chain_length: int = 20,
        step: float = 0.3,
        xi: float = 0.0,
        **settings: Any,
    ) -> None:
        from nmthpo.models.gp import KERNELS, GaussianProcess

        super().__init__(X, rng, objective, **settings)
        if kernel not in KERNELS:
            raise ValueError(f"unknown kernel {kernel!r}; valid kernels: {', '.join(KERNELS)}")
        for name, value in (
            ("n_hypers", n_hypers),
            ("burnin", burnin),
            ("chain_length", chain_length),
        ):
            if int(value) != value or value < 1:
                raise ValueError(f"{name} must be an integer >= 1; got {value!r}")
        if not (np.isfinite(step) and step > 0):
            raise ValueError(f"step must be a positive number; got {step!r}")
        self.kernel = kernel
        self.n_hypers = int(n_hypers)
        self.burnin = int(burnin)
        self.chain_length = int(chain_length)
        self.step = float(step)
        self.xi = float(xi)
        d = self.X.shape[1]
        self._bounds = GaussianProcess(kernel).log_bounds(d)
        lo = np.log([0.1] * (d + 1) + [1e-4])
        hi = np.log([10.0] * (d + 1) + [1e-1])
        self.walkers = rng.uniform(lo, hi, size=(self.n_hypers, d + 2))
        self.acceptance = np.nan
        self._burned = False

    def _log_density(self, gp: GaussianProcess) -> Any:
        lo, hi = self._bounds[:, 0], self._bounds[:, 1]

        def logp(theta: np.ndarray) -> float:
            if np.any(theta < lo) or np.any(theta > hi):
                return -np.inf
            value = gp.log_marginal_likelihood(theta)
            return float(value) if np.isfinite(value) else -np.inf  # type: ignore[arg-type]

        return logp

    def samples(self) -> np.ndarray:
        """Advance the chains on the current observations; the walkers' positions, (w, p)."""
        from nmthpo.models.gp import GaussianProcess

        X_obs = self.X[np.asarray(self.rows, dtype=int)]
        gp = GaussianProcess(self.kernel).fit(X_obs, self.y_array, optimize=False)
        steps = self.chain_length if self._burned else self.burnin
        self.walkers, acc = metropolis(
            self._log_density(gp), self.walkers, steps, self.step, self.rng
        )
        self._burned = True
        self.acceptance = float(acc.mean())
        return self.walkers.copy()

    def _posteriors(
        self, thetas: np.ndarray, rows: np.ndarray
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        from nmthpo.models.gp import GaussianProcess

        X_obs = self.X[np.asarray(self.rows, dtype=int)]
        d = self.X.shape[1]
        out: list[tuple[np.ndarray, np.ndarray]] = []
        for th in thetas:
            gp = GaussianProcess(
                self.kernel,
                lengthscales=np.exp(th[:d]),
                variance=float(np.exp(th[d])),
                noise=float(np.exp(th[d + 1])),
            )
            gp.fit(X_obs, self.y_array, optimize=False)
            out.append(gp.predict(self.X[rows]))
        return out

    def ask(self) -> int:
        """The unevaluated row with the largest EI averaged over the hyperparameter samples."""
        from nmthpo.models.acquisition import expected_improvement

        cand = self.remaining()
        if not self.rows:
            return self.random_candidate()
        best = float(np.max(self.y_array))
        ei = np.zeros(cand.size)
        for mean, var in self._posteriors(self.samples(), cand):
            ei += expected_improvement(mean, np.sqrt(var), best, self.xi)
        scores = np.full(self.n, -np.inf)
        scores[cand] = ei / self.n_hypers
        return self.argmax_candidate(scores)

    def predict_mean(self) -> np.ndarray:
        """Posterior mean BLEU averaged over the current walkers (chains not advanced)."""
        if not self.rows:
            return np.full(self.n, np.nan)
        rows = np.arange(self.n)
        return np.mean([m for m, _ in self._posteriors(self.walkers, rows)], axis=0)
