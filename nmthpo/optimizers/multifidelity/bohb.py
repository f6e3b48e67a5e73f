"""Model-based halving: BOHB (``bohb``; Falkner, Klein & Hutter 2018, ICML, Section 4).

Hyperband's brackets (:class:`~nmthpo.optimizers.multifidelity.halving.Hyperband`) with new
configurations chosen by a tree-structured Parzen estimator (TPE) over the configuration
features instead of uniformly: the model is fitted on the results of the *highest* rung that
holds at least ``d + 2`` of them (Section 4.1); the best ``gamma`` of them (at least ``d +
1``) form the "good" density ``l(x)``, the others the "bad" density ``g(x)``, both product
Gaussian kernel densities with Scott's bandwidth (at least ``min_bandwidth``); the unstarted
configuration with the largest ``l(x) / g(x)`` is taken. A share ``random_fraction`` of new
configurations stays uniform (Section 4.2; default 1/3). On a finite table the acquisition
is evaluated on every unstarted row instead of on samples of ``l``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nmthpo.optimizers.multifidelity.halving import Hyperband
from nmthpo.optimizers.settings import setting

__all__ = ["BOHB", "BOHBSettings", "tpe_ratio"]


def _log_kde(points: np.ndarray, at: np.ndarray, min_bandwidth: float) -> np.ndarray:
    """Log of the product-Gaussian kernel density of ``points`` (m, d) at ``at`` (c, d)."""
    m, d = points.shape
    bw = (
        np.maximum(points.std(axis=0, ddof=1) * m ** (-1.0 / (d + 4)), min_bandwidth)
        if m > 1
        else np.full(d, max(min_bandwidth, 0.5))
    )
    z = (at[:, None, :] - points[None, :, :]) / bw
    log_k = -0.5 * (z**2).sum(axis=2) - np.log(bw).sum()
    peak = log_k.max(axis=1)
    return peak + np.log(np.exp(log_k - peak[:, None]).mean(axis=1))


def tpe_ratio(
    X_obs: np.ndarray,
    scores: np.ndarray,
    candidates: np.ndarray,
    gamma: float = 0.15,
    min_bandwidth: float = 1e-3,
) -> np.ndarray:
    """TPE's acquisition ``log l(x) - log g(x)`` at ``candidates`` from observed ``(X_obs,
    scores)`` (higher scores are better; Falkner et al. 2018, Section 4.1, Eq. 2-3)."""
    d = X_obs.shape[1]
    order = np.argsort(-scores, kind="stable")
    n_good = min(max(d + 1, int(np.ceil(gamma * len(scores)))), len(scores) - 1)
    good, bad = X_obs[order[:n_good]], X_obs[order[n_good:]]
    return _log_kde(good, candidates, min_bandwidth) - _log_kde(bad, candidates, min_bandwidth)


@dataclass(frozen=True)
class BOHBSettings:
    """Settings of :class:`BOHB`: Hyperband's and TPE's (see its parameters)."""

    eta: float = setting(3, "reduction factor", low=1.0, low_open=True, high=100.0)
    min_checkpoint: int = setting(1, "the smallest rung", low=1, high=100_000)
    gamma: float = setting(
        0.15,
        "share of a rung's results that are good",
        low=0.0,
        low_open=True,
        high=1.0,
        high_open=True,
    )
    random_fraction: float = setting(
        1 / 3, "share of new configurations drawn uniformly", low=0.0, high=1.0
    )
    min_bandwidth: float = setting(
        1e-3, "floor of the kernel bandwidths", low=0.0, low_open=True, high=100.0
    )


class BOHB(Hyperband):
    """BOHB: Hyperband's schedule, TPE's choice of new configurations.

    Parameters
    ----------
    eta, min_checkpoint
        As :class:`~nmthpo.optimizers.multifidelity.halving.Hyperband`.
    gamma : float
        Share of a rung's results that are "good" (default 0.15).
    random_fraction : float
        Share of new configurations drawn uniformly (default 1/3).
    min_bandwidth : float
        Floor of the kernel bandwidths (default 1e-3).
    """

    Settings = BOHBSettings

    def __init__(
        self,
        X: np.ndarray,
        longest: int,
        rng: np.random.Generator,
        eta: float = 3,
        min_checkpoint: int = 1,
        gamma: float = 0.15,
        random_fraction: float = 1 / 3,
        min_bandwidth: float = 1e-3,
    ) -> None:
        super().__init__(X, longest, rng, eta=eta, min_checkpoint=min_checkpoint)
        if not 0 < gamma < 1 or not 0 <= random_fraction <= 1:
            raise ValueError(
                f"need 0 < gamma < 1 and 0 <= random_fraction <= 1, got {gamma}, {random_fraction}"
            )
        self.gamma = float(gamma)
        self.random_fraction = float(random_fraction)
        self.min_bandwidth = float(min_bandwidth)
        self.observations: dict[int, dict[int, float]] = {}  # rung checkpoint -> row -> score
        self.n_model = 0

    def _model_rung(self) -> dict[int, float] | None:
        need = self.X.shape[1] + 2
        for level in sorted(self.observations, reverse=True):
            if len(self.observations[level]) >= need:
                return self.observations[level]
        return None

    def new_rows(self, k: int) -> list[int]:
        rows: list[int] = []
        for _ in range(k):
            obs = self._model_rung()
            uniform = self.rng.random() < self.random_fraction
            if obs is None or uniform:
                r = self.new_row()
            else:
                cand = np.flatnonzero(~self.started)
                if cand.size == 0:
                    r = None
                else:
                    seen = np.fromiter(obs, dtype=int)
                    ratio = tpe_ratio(
                        self.X[seen],
                        np.fromiter(obs.values(), dtype=float),
                        self.X[cand],
                        self.gamma,
                        self.min_bandwidth,
                    )
                    r = int(cand[int(np.argmax(ratio))])
                    self.started[r] = True
                    self.n_model += 1
            if r is None:
                break
            rows.append(r)
        return rows

    def tell(self, row: int, checkpoint: int, score: float, complete: bool) -> None:
        if self.bracket is not None:
            level = self.bracket.levels[self.bracket.rung]
            self.observations.setdefault(level, {})[int(row)] = float(score)
        super().tell(row, checkpoint, score, complete)
