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
4. Experiments and applications on the NMT tables and synthetic functions (the functions the
   Chapter 6 notebook calls): :func:`table_experiment`, :func:`synthetic_experiment`,
   :func:`faithfulness_table`, :func:`preferred_spaces`, :func:`calibration`,
   :func:`prune_spaces`, :func:`search_in_rows`, :func:`select_and_search`,
   :func:`compare_spaces`.

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
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import gammaln

from nmthpo.benchmark.subspaces import DEFAULT_SPEC, SubGrid, parse_space, parse_spaces, space_rows
from nmthpo.benchmark.synthetic import dense_sample, get_function, random_boxes
from nmthpo.benchmark.tables import LookupTable, load_table
from nmthpo.models.acquisition import expected_improvement, probability_of_improvement
from nmthpo.models.gp import GaussianProcess
from nmthpo.optimizers.registry import make_optimizer

__all__ = [
    "ALL_SCORES",
    "SCORES",
    "calibration",
    "check_budgets",
    "compare_spaces",
    "empirical_scores",
    "exact_b1_scores",
    "faithfulness",
    "faithfulness_table",
    "fit_seed_gp",
    "order_statistic_cdf",
    "predicted_scores_finite",
    "predicted_scores_sampler",
    "preferred_spaces",
    "prune_spaces",
    "sample_posterior",
    "score_table_spaces",
    "scores_from_joint_draws",
    "search_in_rows",
    "select_and_search",
    "synthetic_experiment",
    "table_experiment",
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
        raise ValueError(f"budgets must be >= 1 (a budget is a number of evaluations); got "
                         f"{b.tolist()}")
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
            draws = F[idx[start:start + chunk]]  # (c, L, S)
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


def exact_b1_scores(
    mean: np.ndarray, var: np.ndarray, incumbent: float
) -> dict[str, float]:
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
    (:mod:`scipy.stats`; NaN when either score is constant over the spaces), ``top1`` --
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
        rows.append({
            "budget": int(bj),
            "n_spaces": int(p.size),
            "kendall_tau": tau,
            "spearman": rho,
            "top1": bool(e[pick] >= emax - 1e-12 * max(1.0, abs(emax))),
            "regret": emax - float(e[pick]),
        })
    return pd.DataFrame(rows)


# ================================================================================================
# 4. Experiments and applications
# ================================================================================================
def fit_seed_gp(
    X: np.ndarray,
    y: np.ndarray,
    rng: np.random.Generator,
    kernel: str = "matern52",
    restarts: int = 2,
) -> GaussianProcess:
    """The GP conditioned on the seed data: type-II ML with ``restarts`` random restarts."""
    return GaussianProcess(kernel).fit(X, y, rng=rng, restarts=restarts)


def _noise_var(gp: GaussianProcess, x: np.ndarray) -> float:
    """The GP's observation-noise variance in the units of ``y``."""
    _, v_noisy = gp.predict(x[:1], include_noise=True)
    _, v = gp.predict(x[:1])
    return float(max(v_noisy[0] - v[0], 0.0))


def _resolve_spaces(
    table: LookupTable, spaces: str | Sequence[SubGrid | str], rng: np.random.Generator
) -> list[SubGrid]:
    if isinstance(spaces, str):
        return parse_spaces(spaces, table.configs, rng)
    from nmthpo.benchmark.subspaces import grid_values

    grid = grid_values(table.configs)
    out = [s if isinstance(s, SubGrid) else parse_space(s, grid) for s in spaces]
    if not out:
        raise ValueError("give at least one candidate space")
    return out


def score_table_spaces(
    table: LookupTable,
    spaces: Sequence[SubGrid],
    seed_rows: np.ndarray,
    budgets: Sequence[int] | np.ndarray,
    rng: np.random.Generator,
    *,
    kernel: str = "matern52",
    restarts: int = 2,
    n_batches: int = 256,
    n_samples: int = 256,
    include_noise: bool = True,
    encoding: str = "scaled",
) -> pd.DataFrame:
    """Predicted and exact empirical scores of sub-grids of one table (Section 3 on a table).

    The GP is fitted once on the BLEU of ``seed_rows`` (incumbent ``y+`` = their best); the
    joint posterior of every row of the union of the spaces is sampled once and shared by all
    spaces (:func:`predicted_scores_finite`, batches with replacement as in the paper). A
    space contains all its rows, seed rows included.

    Returns
    -------
    DataFrame
        One row per (space, budget, score) with columns ``space`` (label), ``n_rows``,
        ``budget``, ``score``, ``predicted``, ``empirical`` (with replacement, the paper's
        definition), ``empirical_norepl`` (without replacement, a table search) and
        ``incumbent``.
    """
    b = check_budgets(budgets)
    seed_rows = np.asarray(seed_rows, dtype=np.int64)
    if seed_rows.size == 0:
        raise ValueError("seed data must contain at least one row")
    X = table.encode(encoding)
    y = table.bleu
    incumbent = float(y[seed_rows].max())
    gp = fit_seed_gp(X[seed_rows], y[seed_rows], rng, kernel, restarts)
    rows_per_space = [space_rows(s, table.configs) for s in spaces]
    union = np.unique(np.concatenate(rows_per_space))
    pos = np.full(table.n_rows, -1, dtype=np.int64)
    pos[union] = np.arange(union.size)
    mean, cov = gp.predict(X[union], full_cov=True)
    noise = _noise_var(gp, X) if include_noise else 0.0
    pred = predicted_scores_finite(
        mean, cov, [pos[r] for r in rows_per_space], incumbent, b, rng,
        n_batches=n_batches, n_samples=n_samples, replace=True, noise_var=noise,
    )
    records: list[dict[str, Any]] = []
    for i, (space, rows) in enumerate(zip(spaces, rows_per_space, strict=True)):
        emp = empirical_scores(y[rows], incumbent, b, replace=True)
        emp_wor = empirical_scores(y[rows], incumbent, b, replace=False)
        for j, bj in enumerate(b):
            for k in ALL_SCORES:
                records.append({
                    "space": space.label, "n_rows": int(rows.size), "budget": int(bj),
                    "score": k, "predicted": float(pred[k][i, j]),
                    "empirical": float(emp[k][j]), "empirical_norepl": float(emp_wor[k][j]),
                    "incumbent": incumbent,
                })
    return pd.DataFrame.from_records(records)


def table_experiment(
    task: str,
    spaces: str | Sequence[SubGrid | str] = DEFAULT_SPEC,
    *,
    seed_sizes: Sequence[int] = (10, 20, 50),
    repeats: int = 3,
    budgets: Sequence[int] = (1, 2, 5, 10, 20, 50),
    seed: int = 0,
    kernel: str = "matern52",
    n_batches: int = 256,
    n_samples: int = 256,
    include_noise: bool = True,
) -> pd.DataFrame:
    """Score candidate sub-grids of ``task``'s table for several seed-data sizes and repeats.

    Spaces (a SPEC string, see :mod:`nmthpo.benchmark.subspaces`, or a list of spaces/space SPECs)
    are
    expanded once with ``default_rng([seed, 1])``, so every repeat scores the same spaces.
    Repeat ``r`` at seed size ``n`` draws ``n`` distinct seed rows uniformly from the whole
    table (random search in the enclosing space) with ``default_rng([seed, 0, n, r])``,
    which also drives the GP restarts and the Monte Carlo.

    Returns
    -------
    DataFrame
        :func:`score_table_spaces`'s columns plus ``task``, ``seed_size``, ``repeat``.
    """
    table = load_table(task)
    b = check_budgets(budgets)
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1; got {repeats}")
    for n in seed_sizes:
        if not 1 <= int(n) <= table.n_rows:
            raise ValueError(f"seed size must be between 1 and {table.n_rows}; got {n}")
    cands = _resolve_spaces(table, spaces, np.random.default_rng([seed, 1]))
    frames = []
    for n in seed_sizes:
        for r in range(repeats):
            rng = np.random.default_rng([seed, 0, int(n), r])
            seed_rows = rng.choice(table.n_rows, size=int(n), replace=False)
            f = score_table_spaces(table, cands, seed_rows, b, rng, kernel=kernel,
                                   n_batches=n_batches, n_samples=n_samples,
                                   include_noise=include_noise)
            f.insert(0, "repeat", r)
            f.insert(0, "seed_size", int(n))
            f.insert(0, "task", task)
            frames.append(f)
    return pd.concat(frames, ignore_index=True)


def synthetic_experiment(
    function: str = "branin",
    *,
    fractions: Sequence[float] = (0.2, 0.4, 0.6, 0.8, 1.0),
    boxes_per_fraction: int = 5,
    seed_sizes: Sequence[int] = (10,),
    repeats: int = 3,
    budgets: Sequence[int] = tuple(range(1, 101)),
    seed: int = 0,
    kernel: str = "matern52",
    n_batches: int = 128,
    n_samples: int = 128,
    dense: int = 2**14,
    include_noise: bool = True,
) -> pd.DataFrame:
    """Scores of random sub-boxes of a synthetic function's box (Branin, Hartmann-6).

    Candidate spaces: ``boxes_per_fraction`` random boxes per volume fraction (one full box),
    drawn once with ``default_rng([seed, 1])``. Seed data: ``n`` i.i.d. uniform points of the
    full box (random search), repeat ``r`` using ``default_rng([seed, 0, n, r])``. Predicted
    scores: :func:`predicted_scores_sampler` (fresh uniform batches, exact joint posterior).
    Empirical score: the order-statistics formula (with replacement) applied to the true
    values at a scrambled Sobol' sample of ``dense`` points of the box -- the exact expected
    utility of ``b`` i.i.d. draws from that dense point set, a quasi-exact estimate of the
    continuous expectation (``dense`` = 16384 by default; ``empirical_norepl`` equals it up to
    O(b^2 / dense)).

    Returns
    -------
    DataFrame
        Columns ``function, seed_size, repeat, space, fraction, budget, score, predicted,
        empirical, incumbent``.
    """
    fn = get_function(function)
    b = check_budgets(budgets)
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1; got {repeats}")
    boxes = random_boxes(fn.dim, tuple(fractions), boxes_per_fraction,
                         np.random.default_rng([seed, 1]))
    dense_rng = np.random.default_rng([seed, 2])
    truth = [fn(dense_sample(box, dense, dense_rng)) for _, box in boxes]
    records: list[dict[str, Any]] = []
    for n in seed_sizes:
        if int(n) < 1:
            raise ValueError(f"seed size must be >= 1; got {n}")
        for r in range(repeats):
            rng = np.random.default_rng([seed, 0, int(n), r])
            Xs = rng.random((int(n), fn.dim))
            ys = fn(Xs)
            incumbent = float(ys.max())
            gp = fit_seed_gp(Xs, ys, rng, kernel)
            for i, ((v, box), vals) in enumerate(zip(boxes, truth, strict=True)):
                pred = predicted_scores_sampler(
                    gp, box.sample, incumbent, b, rng, n_batches=n_batches,
                    n_samples=n_samples, include_noise=include_noise,
                )
                emp = empirical_scores(vals, incumbent, b, replace=True)
                for j, bj in enumerate(b):
                    for k in ALL_SCORES:
                        records.append({
                            "function": function, "seed_size": int(n), "repeat": r,
                            "space": f"box{i}", "fraction": v, "budget": int(bj), "score": k,
                            "predicted": float(pred[k][j]), "empirical": float(emp[k][j]),
                            "incumbent": incumbent,
                        })
    return pd.DataFrame.from_records(records)


_GROUP_CANDIDATES = ("task", "function", "seed_size", "repeat")


def _groups(frame: pd.DataFrame) -> list[str]:
    return [c for c in _GROUP_CANDIDATES if c in frame.columns]


def _check_score(frame: pd.DataFrame, score: str) -> pd.DataFrame:
    if score not in ALL_SCORES:
        raise ValueError(f"unknown score {score!r}; valid: {', '.join(ALL_SCORES)}")
    sub = frame[frame["score"] == score]
    if sub.empty:
        raise ValueError(f"the frame holds no rows for score {score!r}")
    return sub


def faithfulness_table(
    frame: pd.DataFrame, score: str = "mean-b-ei", empirical: str = "empirical"
) -> pd.DataFrame:
    """:func:`faithfulness` for every (task/function, seed size, repeat) of an experiment frame.

    ``empirical`` names the column to compare with (``"empirical"`` or ``"empirical_norepl"``).
    """
    sub = _check_score(frame, score)
    if empirical not in sub.columns:
        raise ValueError(f"no column {empirical!r}; valid: empirical, empirical_norepl")
    keys = _groups(sub)
    out = []
    for key, g in sub.groupby(keys, sort=True) if keys else [((), sub)]:
        P = g.pivot(index="space", columns="budget", values="predicted")
        E = g.pivot(index="space", columns="budget", values=empirical).loc[P.index, P.columns]
        f = faithfulness(P.to_numpy(), E.to_numpy(), P.columns.to_numpy())
        key_t = key if isinstance(key, tuple) else (key,)
        for c, v in zip(keys, key_t, strict=True):
            f.insert(0, c, v)
        out.append(f)
    return pd.concat(out, ignore_index=True)


def preferred_spaces(
    frame: pd.DataFrame, score: str = "mean-b-ei", column: str = "predicted"
) -> pd.DataFrame:
    """The best space per (task/function, seed size, repeat, budget) by ``column``.

    Returns columns of the groups plus ``budget``, ``space``, ``n_rows`` (or ``fraction`` for
    synthetic frames) and the value.
    """
    sub = _check_score(frame, score)
    keys = [*_groups(sub), "budget"]
    idx = sub.groupby(keys, sort=True)[column].idxmax()
    size = "n_rows" if "n_rows" in sub.columns else "fraction"
    return sub.loc[idx, [*keys, "space", size, column]].reset_index(drop=True)


def calibration(frame: pd.DataFrame, score: str = "mean-b-ei") -> pd.DataFrame:
    """Magnitude of predicted vs empirical scores per (group, budget): over-estimation.

    Columns: ``predicted`` and ``empirical`` (means over spaces and repeats), ``ratio``
    (their quotient, NaN if the empirical mean is 0) and ``overestimated`` (fraction of
    (space, repeat) pairs with predicted > empirical).
    """
    sub = _check_score(frame, score).assign(
        over=lambda d: (d["predicted"] > d["empirical"]).astype(float)
    )
    keys = [c for c in ("task", "function", "seed_size") if c in sub.columns] + ["budget"]
    g = sub.groupby(keys, sort=True).agg(
        predicted=("predicted", "mean"), empirical=("empirical", "mean"),
        overestimated=("over", "mean"),
    ).reset_index()
    g["ratio"] = g["predicted"] / g["empirical"].where(g["empirical"] != 0)
    return g


def prune_spaces(
    frame: pd.DataFrame, budget: int, score: str = "mean-b-ei", fraction: float = 0.5,
    empirical: str = "empirical",
) -> pd.DataFrame:
    """Prune the predicted-worst ``fraction`` of spaces at ``budget`` (paper, Section 3.1).

    Per (task/function, seed size, repeat): how many spaces were pruned, whether an
    empirical-best space survived (``best_kept``), the ``precision`` (share of pruned spaces
    that are in the empirical bottom ``fraction``) and the mean empirical score of kept and
    pruned spaces.
    """
    if not 0 < fraction < 1:
        raise ValueError(f"fraction must be in (0, 1); got {fraction}")
    sub = _check_score(frame, score)
    sub = sub[sub["budget"] == budget]
    if sub.empty:
        raise ValueError(f"budget {budget} is not in the frame")
    keys = _groups(sub)
    rows = []
    for key, g in sub.groupby(keys, sort=True) if keys else [((), sub)]:
        n = len(g)
        k = int(np.floor(fraction * n))
        pred_rank = g["predicted"].rank(method="first").to_numpy()
        emp_rank = g[empirical].rank(method="average").to_numpy()
        pruned = pred_rank <= k
        e = g[empirical].to_numpy()
        key_t = key if isinstance(key, tuple) else (key,)
        rows.append({
            **dict(zip(keys, key_t, strict=True)), "budget": budget, "n_spaces": n,
            "n_pruned": k,
            "best_kept": bool(np.any(~pruned & (e >= e.max()))),
            "precision": float(np.mean(emp_rank[pruned] <= k)) if k else np.nan,
            "empirical_kept": float(e[~pruned].mean()),
            "empirical_pruned": float(e[pruned].mean()) if k else np.nan,
        })
    return pd.DataFrame(rows)


def search_in_rows(
    method: str,
    X: np.ndarray,
    y: np.ndarray,
    rows: np.ndarray,
    budget: int,
    rng: np.random.Generator,
    *,
    n_init: int = 3,
    **settings: Any,
) -> np.ndarray:
    """Run optimiser ``method`` restricted to ``rows`` of a table; best-so-far per evaluation.

    The optimiser (:func:`nmthpo.optimizers.registry.make_optimizer`) sees only the sub-table
    ``X[rows]``; as in :mod:`nmthpo.engine.runner` it is first told ``n_init`` uniformly random
    rows (counted in the budget), then asked until ``budget`` evaluations. A budget beyond the
    sub-table's size exhausts it and the curve stays flat.

    Returns
    -------
    ndarray of shape (budget,)
        Best BLEU after each evaluation.
    """
    from nmthpo.engine.loop import ask_tell

    rows = np.asarray(rows, dtype=np.int64)
    if rows.size == 0:
        raise ValueError("the sub-table has no rows")
    if budget < 1:
        raise ValueError(f"budget must be >= 1; got {budget}")
    m = rows.size
    t_max = min(budget, m)
    opt = make_optimizer(method, np.asarray(X)[rows], rng, **settings)
    ys = np.asarray(y, dtype=float)[rows]
    init = rng.choice(m, size=min(n_init, t_max), replace=False)
    seen = ask_tell(opt, ys, init, t_max, label=f"{method} (sub-table search)")
    curve = np.maximum.accumulate(ys[seen])
    return np.concatenate([curve, np.full(budget - t_max, curve[-1])])


def select_and_search(
    task: str,
    spaces: str | Sequence[SubGrid | str],
    budget: int,
    *,
    seed_size: int = 20,
    methods: Sequence[str] = ("rs", "bo-ei-m"),
    trials: int = 10,
    score: str = "mean-b-ei",
    seed: int = 0,
    n_init: int = 3,
    n_batches: int = 256,
    n_samples: int = 256,
) -> pd.DataFrame:
    """Pick the best-scoring space for ``budget``, then search inside it vs the full space.

    Per trial: ``seed_size`` random seed rows, scores of all candidate spaces at ``budget``
    (:func:`score_table_spaces`), the predicted best space is selected; every method then
    runs :func:`search_in_rows` with ``budget`` evaluations inside the selected space and
    inside the full table, from the same generator seed (paired comparison). The seed rows
    are not re-used by the search (a fresh search with the full budget).

    Returns
    -------
    DataFrame
        Columns ``trial, method, where ("selected"/"full"), space, n_rows, best`` (best BLEU of
        the search), ``incumbent`` and ``final`` (best of seed data and search).
    """
    table = load_table(task)
    if score not in ALL_SCORES:
        raise ValueError(f"unknown score {score!r}; valid: {', '.join(ALL_SCORES)}")
    cands = _resolve_spaces(table, spaces, np.random.default_rng([seed, 1]))
    X = table.encode("scaled")
    y = table.bleu
    all_rows = np.arange(table.n_rows)
    records = []
    for t in range(trials):
        rng = np.random.default_rng([seed, 0, seed_size, t])
        seed_rows = rng.choice(table.n_rows, size=seed_size, replace=False)
        f = score_table_spaces(table, cands, seed_rows, [budget], rng,
                               n_batches=n_batches, n_samples=n_samples)
        f = f[f["score"] == score]
        best = f.loc[f["predicted"].idxmax()]
        sel = cands[[c.label for c in cands].index(best["space"])]
        sel_rows = space_rows(sel, table.configs)
        for k, method in enumerate(methods):
            for where, rows, label in (("selected", sel_rows, sel.label),
                                       ("full", all_rows, "full")):
                curve = search_in_rows(method, X, y, rows, budget,
                                       np.random.default_rng([seed, 3, t, k]), n_init=n_init)
                records.append({
                    "trial": t, "method": method, "where": where, "space": label,
                    "n_rows": int(rows.size), "best": float(curve[-1]),
                    "incumbent": float(best["incumbent"]),
                    "final": max(float(curve[-1]), float(best["incumbent"])),
                })
    return pd.DataFrame.from_records(records)


def compare_spaces(
    task: str,
    space_a: str,
    space_b: str,
    *,
    budgets: Sequence[int] = (1, 2, 5, 10, 20, 50),
    seed_size: int = 20,
    repeats: int = 5,
    score: str = "expected-best",
    seed: int = 0,
) -> pd.DataFrame:
    """Answer "is space A better than space B at budget b?" by comparing their scores.

    E.g. ``compare_spaces("sw-en", "layers=4", "layers=2")`` (paper, Section 3.1, second
    application). ``score`` defaults to the expected best BLEU (alpha): improvement-based
    scores are 0 for both spaces whenever the seed data already holds their best values.

    Returns
    -------
    DataFrame
        Per (repeat, budget): predicted and empirical scores of A and B (with replacement and
        without), and whether the predicted and empirical verdicts (A > B) agree.
    """
    frame = table_experiment(task, [space_a, space_b], seed_sizes=(seed_size,),
                             repeats=repeats, budgets=budgets, seed=seed)
    sub = _check_score(frame, score)
    labels = list(dict.fromkeys(sub["space"]))
    if len(labels) != 2:
        raise ValueError(f"spaces {space_a!r} and {space_b!r} are the same space")
    wide = sub.pivot_table(index=["repeat", "budget"], columns="space",
                           values=["predicted", "empirical", "empirical_norepl"])
    out = pd.DataFrame(index=wide.index)
    for col in ("predicted", "empirical", "empirical_norepl"):
        out[f"{col}_a"] = wide[(col, labels[0])]
        out[f"{col}_b"] = wide[(col, labels[1])]
    out["a_better_predicted"] = out["predicted_a"] > out["predicted_b"]
    out["a_better_empirical"] = out["empirical_a"] > out["empirical_b"]
    out["agree"] = out["a_better_predicted"] == out["a_better_empirical"]
    out = out.reset_index()
    out.insert(0, "space_b", labels[1])
    out.insert(0, "space_a", labels[0])
    return out
