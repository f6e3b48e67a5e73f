"""Budget-conditional search-space scores (Ariafar et al. 2022, Section 3).

Given seed data ``D`` from a broad enclosing space, a probabilistic model ``p(y | x, D)`` and an
incumbent ``y+`` (the best seed value), the *score* of a search space ``S`` at budget ``b`` is
the expected utility of a batch of ``b`` points drawn uniformly from ``S`` (the paper's Eq. 1):

.. math::

    \\hat\\alpha(S, b) = \\mathbb{E}_{\\mathbf{x} \\sim U_b(S)}
        \\Big[\\mathbb{E}_{\\hat{\\mathbf{y}} \\sim p(\\mathbf{y} | \\mathbf{x}, D)}
        \\, u(y^+, \\hat{\\mathbf{y}})\\Big],

with ``u`` the improvement of the batch's best over ``y+`` (*mean-b-EI*, the mean over batches
of the multi-point EI) or the binarised improvement (*mean-b-PI*); *median-b-EI* and
*median-b-PI* replace the outer mean by the median over batches. Everything is written for
**maximisation** (BLEU): ``u = max(max_i y_i - y+, 0)``, PI ``= 1[max_i y_i > y+]``.

Contents

1. Exact empirical scores on a finite set of true values (:func:`empirical_scores`): the
   *empirical score* of the paper, ``E_x[u(y+, f(x))]``, computed in closed form from order
   statistics instead of by sampling, for batches drawn with replacement (the paper's
   i.i.d. ``U_b``) or without (what a search over a lookup table does).
2. Monte-Carlo predicted scores (:func:`scores_from_joint_draws`,
   :func:`predicted_scores_finite`, :func:`predicted_scores_sampler`, :func:`exact_b1_scores`).
3. Faithfulness (:func:`faithfulness`): rank agreement of predicted and empirical scores.

The experiments and applications on the NMT tables and synthetic functions (Chapter 6) are in
:mod:`nmthpo.studies.ariafar.space_scores`; this module holds the pure score mathematics.

Choices the paper leaves open (all stated again where they are made):

* Model: the exact GP of :mod:`nmthpo.models.gp` (Matérn-5/2 ARD by default, type-II ML
  with 2 random restarts), fitted once on the seed data; tables use the ``scaled`` encoding.
* The batch's ``y`` is the model of *noisy* observations (the paper's ``y = f + eps``): the
  joint posterior of the latent ``f`` plus independent Gaussian noise with the GP's fitted
  noise variance per distinct point (``include_noise=False`` drops it). On a table a row
  drawn twice into one batch keeps one value, as re-reading a table row does.
* Monte Carlo: ``n_batches`` batches of locations and ``n_samples`` joint posterior draws per
  batch. On a finite space (a table) the joint posterior of *all* candidate rows is sampled
  once (``n_samples`` draws) and every batch of every space reads its values from those draws
  (exactly joint samples with the correct correlations; common random numbers across spaces,
  which reduces the variance of score *differences*). A batch of size ``b`` is the first ``b``
  locations of a batch of size ``max(budgets)`` (prefixes of i.i.d. sequences are i.i.d.),
  so all budgets come from one set of batches.
* Median convention: the median of a discrete distribution is the midpoint of its median
  interval (the same value ``numpy.median`` gives for equally weighted samples).
* Budgets larger than a space's size: with replacement nothing changes; without replacement
  the search exhausts the space, so the score is that of budget ``|S|``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import gammaln

from nmthpo.models.acquisition import expected_improvement, probability_of_improvement
from nmthpo.models.gp import GaussianProcess

__all__ = [
    "ALL_SCORES",
    "SCORES",
    "check_budgets",
    "empirical_scores",
    "exact_b1_scores",
    "faithfulness",
    "order_statistic_cdf",
    "predicted_scores_finite",
    "predicted_scores_sampler",
    "sample_posterior",
    "scores_from_joint_draws",
]

#: The paper's four scores (names as on the command line).
SCORES: tuple[str, ...] = ("mean-b-ei", "median-b-ei", "mean-b-pi", "median-b-pi")
#: The four scores plus the expected best value of the batch (the paper's criterion alpha).
ALL_SCORES: tuple[str, ...] = (*SCORES, "expected-best")

_MEDIAN_TOL = 1e-12


def check_budgets(budgets: Sequence[int] | np.ndarray | int) -> np.ndarray:
    """Budgets as a 1-d int array; raises ``ValueError`` unless all are integers >= 1."""
    b = np.atleast_1d(np.asarray(budgets))
    if b.size == 0:
        raise ValueError("give at least one budget, e.g. budgets=(1, 2, 5)")
    if b.ndim != 1 or not np.all(np.equal(np.mod(b.astype(float), 1), 0)):
        raise ValueError(f"budgets must be integers; got {b.tolist()}")
    b = b.astype(np.int64)
    if np.any(b < 1):
        raise ValueError(
            f"budgets must be >= 1 (a budget is a number of evaluations); got {b.tolist()}"
        )
    return b


# ================================================================================================
# 1. Exact empirical scores (order statistics)
# ================================================================================================
def order_statistic_cdf(m: int, budgets: Sequence[int] | np.ndarray, replace: bool) -> np.ndarray:
    """CDF of the rank of the best of a batch: ``P(K <= k)``, ``k = 1..m``.

    Sort the ``m`` values of a space ascending, ``v_(1) <= ... <= v_(m)``, and draw a batch of
    ``b`` positions uniformly; ``K`` is the largest drawn position, so the batch's best value is
    ``v_(K)`` (ties included). Then

    * with replacement (i.i.d., the paper's ``U_b``): ``P(K <= k) = (k / m)^b``;
    * without replacement: ``P(K <= k) = C(k, b) / C(m, b)`` (``b > m`` is taken as ``b = m``).

    Returns
    -------
    ndarray of shape (n_budgets, m)
    """
    b = check_budgets(budgets)
    if m < 1:
        raise ValueError("a space needs at least one point")
    k = np.arange(1, m + 1, dtype=float)
    if replace:
        return np.asarray((k[None, :] / m) ** b[:, None].astype(float))
    be = np.minimum(b, m).astype(float)[:, None]
    kk = k[None, :]
    with np.errstate(invalid="ignore"):
        logc = (gammaln(kk + 1) - gammaln(kk - be + 1)) - (gammaln(m + 1) - gammaln(m - be + 1))
    return np.asarray(np.where(kk >= be, np.exp(np.where(kk >= be, logc, 0.0)), 0.0))


def _weights_from_cdf(cdf: np.ndarray) -> np.ndarray:
    return np.diff(cdf, axis=1, prepend=0.0)


def _median_from_cdf(sorted_values: np.ndarray, cdf: np.ndarray) -> np.ndarray:
    """Midpoint median of distributions over ``sorted_values`` with CDFs ``cdf`` (rows)."""
    lo = np.argmax(cdf >= 0.5 - _MEDIAN_TOL, axis=1)
    hi = np.argmax(cdf > 0.5 + _MEDIAN_TOL, axis=1)
    return np.asarray(0.5 * (sorted_values[lo] + sorted_values[hi]))


def empirical_scores(
    values: np.ndarray,
    incumbent: float,
    budgets: Sequence[int] | np.ndarray,
    replace: bool = True,
) -> dict[str, np.ndarray]:
    """Exact empirical scores of a finite space from its true values (paper, Section 3).

    The empirical score is ``E_{x ~ U_b(S)}[u(y+, f(x))]``. Since both utilities are
    non-decreasing functions ``g`` of the batch's best value, ``g(best) = g(v_(K))`` with the
    rank ``K`` of :func:`order_statistic_cdf`, so every expectation and median is a weighted
    sum over the sorted values -- no sampling.

    Parameters
    ----------
    values : ndarray of shape (m,)
        True objective values of every point of the space (maximised).
    incumbent : float
        ``y+``, the best seed value.
    budgets : sequence of int
    replace : bool
        Batches drawn with replacement (paper) or without (a table search).

    Returns
    -------
    dict
        ``"expected-best"`` (E[best of b], the paper's alpha for maximisation),
        ``"mean-b-ei"`` (E[max(best - y+, 0)]), ``"median-b-ei"`` (its median over batches),
        ``"mean-b-pi"`` (P(best > y+)), ``"median-b-pi"`` (median of the indicator), each an
        array over ``budgets``.
    """
    v = np.sort(np.asarray(values, dtype=float).ravel())
    if v.size == 0:
        raise ValueError("empirical scores need a non-empty space")
    if not np.all(np.isfinite(v)):
        raise ValueError("values must be finite")
    cdf = order_statistic_cdf(v.size, budgets, replace)
    w = _weights_from_cdf(cdf)
    imp = np.maximum(v - incumbent, 0.0)
    ind = (v > incumbent).astype(float)
    return {
        "expected-best": w @ v,
        "mean-b-ei": w @ imp,
        "median-b-ei": _median_from_cdf(imp, cdf),
        "mean-b-pi": w @ ind,
        "median-b-pi": _median_from_cdf(ind, cdf),
    }


# ================================================================================================
# 2. Predicted scores (Monte Carlo under the GP posterior)
# ================================================================================================
def scores_from_joint_draws(
    draws: np.ndarray, incumbent: float, budgets: Sequence[int] | np.ndarray
) -> dict[str, np.ndarray]:
    """Scores from joint posterior draws of ordered batches.

    Parameters
    ----------
    draws : ndarray of shape (n_batches, L, n_samples)
        ``draws[j, i, s]``: the ``s``-th joint sample of ``y`` at the ``i``-th location of
        batch ``j``. The batch of budget ``b`` is the first ``min(b, L)`` locations.
    incumbent : float
    budgets : sequence of int

    Returns
    -------
    dict
        For each of :data:`ALL_SCORES` an array over budgets. ``b-EI`` and ``b-PI`` of a
        batch are the means over its samples; mean/median scores aggregate them over batches;
        ``expected-best`` is the mean best value.
    """
    d = np.asarray(draws, dtype=float)
    if d.ndim != 3 or 0 in d.shape:
        raise ValueError(f"draws must have shape (n_batches, L, n_samples); got {d.shape}")
    return _aggregate([_batch_utilities(d, incumbent, check_budgets(budgets))])


def sample_posterior(
    mean: np.ndarray, cov: np.ndarray, n_samples: int, rng: np.random.Generator
) -> np.ndarray:
    """Joint Gaussian draws of shape ``(N, n_samples)``.

    ``mean + L z`` with ``L`` the Cholesky factor of ``cov + jitter I``, the jitter escalating
    from 0 through 1e-10 ... 1e-6 times the mean diagonal (a posterior covariance at the seed
    points is nearly singular); if even that fails, a symmetric eigendecomposition with
    negative eigenvalues clipped to 0 is used.
    """
    mu = np.asarray(mean, dtype=float).ravel()
    C = np.asarray(cov, dtype=float)
    if C.shape != (mu.size, mu.size):
        raise ValueError(f"cov must have shape ({mu.size}, {mu.size}); got {C.shape}")
    C = 0.5 * (C + C.T)
    scale = float(np.mean(np.diag(C))) if mu.size else 1.0
    A: np.ndarray | None = None
    for rel in (0.0, 1e-10, 1e-8, 1e-6):
        try:
            A = np.linalg.cholesky(C + rel * max(scale, 1e-300) * np.eye(mu.size))
            break
        except np.linalg.LinAlgError:
            continue
    if A is None:
        lam, Q = np.linalg.eigh(C)
        A = Q * np.sqrt(np.maximum(lam, 0.0))
    return np.asarray(mu[:, None] + A @ rng.standard_normal((mu.size, n_samples)))


def predicted_scores_finite(
    mean: np.ndarray,
    cov: np.ndarray,
    spaces: Sequence[np.ndarray],
    incumbent: float,
    budgets: Sequence[int] | np.ndarray,
    rng: np.random.Generator,
    *,
    n_batches: int = 256,
    n_samples: int = 256,
    replace: bool = True,
    noise_var: float = 0.0,
    chunk: int = 64,
) -> dict[str, np.ndarray]:
    """Predicted scores of many finite spaces sharing one joint posterior.

    Parameters
    ----------
    mean, cov : ndarray of shapes (N,), (N, N)
        Joint posterior of the latent function at the union of all candidate points.
    spaces : sequence of int arrays
        Each space as indices into the union.
    incumbent : float
        ``y+``.
    budgets : sequence of int
    rng : numpy.random.Generator
    n_batches, n_samples : int
        Batches of locations per space; joint posterior draws (shared by all spaces).
    replace : bool
        Batches i.i.d. uniform (the paper's ``U_b``) or uniform without replacement (prefixes
        of random permutations; a batch longer than the space is the whole space).
    noise_var : float
        Observation-noise variance: independent Gaussian noise is added to every row of every
        joint draw once, so a row drawn twice into one batch has one value (as re-reading a
        table row does); a batch's distinct rows get the exact joint law of noisy ``y``.
    chunk : int
        Batches processed at once (bounds memory at ``chunk * max(b) * n_samples`` floats).

    Returns
    -------
    dict
        For each of :data:`ALL_SCORES` an array of shape ``(n_spaces, n_budgets)``.
    """
    b = check_budgets(budgets)
    if n_batches < 1 or n_samples < 1:
        raise ValueError("n_batches and n_samples must be >= 1")
    if noise_var < 0:
        raise ValueError(f"noise_var must be >= 0; got {noise_var}")
    F = sample_posterior(mean, cov, n_samples, rng)
    if noise_var > 0:
        F += np.sqrt(noise_var) * rng.standard_normal(F.shape)
    b_max = int(b.max())
    out = {k: np.empty((len(spaces), b.size)) for k in ALL_SCORES}
    for s, rows in enumerate(spaces):
        r = np.asarray(rows, dtype=np.int64).ravel()
        m = r.size
        if m == 0:
            raise ValueError(f"space {s} is empty")
        if replace:
            idx = r[rng.integers(0, m, size=(n_batches, b_max))]
        else:
            perm = rng.permuted(np.tile(np.arange(m), (n_batches, 1)), axis=1)
            idx = r[perm[:, : min(m, b_max)]]
        parts: list[dict[str, np.ndarray]] = []
        for start in range(0, n_batches, chunk):
            draws = F[idx[start : start + chunk]]  # (c, L, S)
            parts.append(_batch_utilities(draws, incumbent, b))
        agg = _aggregate(parts)
        for k in ALL_SCORES:
            out[k][s] = agg[k]
    return out


def _batch_utilities(draws: np.ndarray, incumbent: float, b: np.ndarray) -> dict[str, np.ndarray]:
    """Per-batch b-EI, b-PI and mean best at every budget from ordered joint draws (B, L, S).

    The running maximum over the batch's locations is kept in one (B, S) buffer (faster than
    ``maximum.accumulate`` over a middle axis) and read at the budgets' positions.
    """
    L = draws.shape[1]
    pos = np.minimum(b, L) - 1
    order = np.argsort(pos, kind="stable")
    nb = b.size
    ei = np.empty((draws.shape[0], nb))
    pi = np.empty_like(ei)
    mb = np.empty_like(ei)
    best = draws[:, 0, :].copy()
    i = 0
    for j in order:
        while i < pos[j]:
            i += 1
            np.maximum(best, draws[:, i, :], out=best)
        ei[:, j] = np.maximum(best - incumbent, 0.0).mean(axis=1)
        pi[:, j] = (best > incumbent).mean(axis=1)
        mb[:, j] = best.mean(axis=1)
    return {"ei": ei, "pi": pi, "best": mb}


def _aggregate(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    ei = np.concatenate([p["ei"] for p in parts])
    pi = np.concatenate([p["pi"] for p in parts])
    best = np.concatenate([p["best"] for p in parts])
    return {
        "mean-b-ei": ei.mean(axis=0),
        "median-b-ei": np.median(ei, axis=0),
        "mean-b-pi": pi.mean(axis=0),
        "median-b-pi": np.median(pi, axis=0),
        "expected-best": best.mean(axis=0),
    }


def predicted_scores_sampler(
    gp: GaussianProcess,
    sample: Callable[[int, np.random.Generator], np.ndarray],
    incumbent: float,
    budgets: Sequence[int] | np.ndarray,
    rng: np.random.Generator,
    *,
    n_batches: int = 128,
    n_samples: int = 128,
    include_noise: bool = True,
    chunk: int = 32,
) -> dict[str, np.ndarray]:
    """Predicted scores of a continuous space, literally as in the paper (Section 3).

    For each of ``n_batches`` batches: draw ``max(budgets)`` i.i.d. locations with
    ``sample(n, rng)``, form the joint GP posterior at them (``include_noise`` adds the noise
    variance on the diagonal), draw ``n_samples`` joint samples (Cholesky factor with a
    1e-10 relative jitter; an eigendecomposition if that fails); budgets use prefixes.

    Returns
    -------
    dict
        For each of :data:`ALL_SCORES` an array over ``budgets``.
    """
    b = check_budgets(budgets)
    b_max = int(b.max())
    parts = []
    for start in range(0, n_batches, chunk):
        c = min(chunk, n_batches - start)
        mus = np.empty((c, b_max))
        covs = np.empty((c, b_max, b_max))
        for j in range(c):
            X = sample(b_max, rng)
            mus[j], covs[j] = gp.predict(X, full_cov=True, include_noise=include_noise)
        covs = 0.5 * (covs + np.swapaxes(covs, 1, 2))
        try:  # fast path; a noisy-y covariance is positive definite
            A = np.linalg.cholesky(covs + 1e-10 * np.eye(b_max) * covs.diagonal(0, 1, 2).mean())
        except np.linalg.LinAlgError:
            lam, Q = np.linalg.eigh(covs)
            A = Q * np.sqrt(np.maximum(lam, 0.0))[:, None, :]
        draws = mus[:, :, None] + A @ rng.standard_normal((c, b_max, n_samples))
        parts.append(_batch_utilities(draws, incumbent, b))
    return _aggregate(parts)


def exact_b1_scores(mean: np.ndarray, var: np.ndarray, incumbent: float) -> dict[str, float]:
    """Closed-form scores at budget 1 of a finite space with posterior marginals ``mean, var``.

    With ``b = 1`` the batch is one uniform point, so mean-b-EI is the average of the
    closed-form EI over the space's points, median-b-EI their median, and likewise for PI
    (the Monte-Carlo estimates converge to these; used by the tests).
    """
    sd = np.sqrt(np.maximum(np.asarray(var, dtype=float), 0.0))
    ei = expected_improvement(mean, sd, incumbent)
    pi = probability_of_improvement(mean, sd, incumbent)
    return {
        "mean-b-ei": float(np.mean(ei)),
        "median-b-ei": float(np.median(ei)),
        "mean-b-pi": float(np.mean(pi)),
        "median-b-pi": float(np.median(pi)),
        "expected-best": float(np.mean(mean)),
    }


# ================================================================================================
# 3. Faithfulness
# ================================================================================================
def faithfulness(
    predicted: np.ndarray, empirical: np.ndarray, budgets: Sequence[int] | np.ndarray
) -> pd.DataFrame:
    """Rank agreement of predicted and empirical scores over candidate spaces, per budget.

    The paper calls a score faithful if it preserves the ranking the empirical criterion
    induces. Per budget (column) we report Kendall's tau-b and Spearman's rho
    (:mod:`scipy.stats`; ``NaN`` when either score is constant over the spaces), ``top1`` --
    whether the predicted best space (first argmax) is an empirical best (ties count) -- and
    ``regret``, the empirical best minus the empirical score of the predicted best.

    Parameters
    ----------
    predicted, empirical : ndarray of shape (n_spaces, n_budgets)
    budgets : sequence of int

    Returns
    -------
    DataFrame with columns budget, n_spaces, kendall_tau, spearman, top1, regret
    """
    P = np.asarray(predicted, dtype=float)
    E = np.asarray(empirical, dtype=float)
    b = check_budgets(budgets)
    if P.shape != E.shape or P.ndim != 2 or P.shape[1] != b.size:
        raise ValueError(
            f"predicted {P.shape} and empirical {E.shape} must both be (n_spaces, {b.size})"
        )
    rows = []
    for j, bj in enumerate(b):
        p, e = P[:, j], E[:, j]
        if np.ptp(p) == 0 or np.ptp(e) == 0 or p.size < 2:
            tau = rho = np.nan
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tau = float(stats.kendalltau(p, e).statistic)
                rho = float(stats.spearmanr(p, e).statistic)
        pick = int(np.argmax(p))
        emax = float(e.max())
        rows.append(
            {
                "budget": int(bj),
                "n_spaces": int(p.size),
                "kendall_tau": tau,
                "spearman": rho,
                "top1": bool(e[pick] >= emax - 1e-12 * max(1.0, abs(emax))),
                "regret": emax - float(e[pick]),
            }
        )
    return pd.DataFrame(rows)
