"""Weight learning of TransBO (Li et al. 2022, Section 4.2, Eqs. 2-8) and surrogate aggregation.

Pure functions of arrays:

* :func:`ranking_loss` / :func:`ranking_loss_grad` -- the pairwise logistic ranking loss of
  Eq. 3 of a linear combination ``A w`` of base predictions, and its gradient (Eq. 5);
* :func:`simplex_weights` -- Eq. 4: minimise that loss over the probability simplex with SLSQP
  (Kraft 1994, via :func:`scipy.optimize.minimize`), as the paper's Section 5.1 says;
* :func:`cv_folds`, :func:`cv_target_weight` -- Eqs. 6-8: out-of-fold predictions of the
  source surrogate and of the target surrogate, then the same simplex problem in two weights;
* :func:`linear_combination` -- Section 4.2's aggregation, ``mu = sum w_b mu_b`` and
  ``sigma^2 = sum w_b^2 sigma_b^2``;
* :func:`product_of_experts` -- the generalised product of GP experts used by POGPE.

Orientation. The paper minimises a validation error; we *maximise* BLEU. A pair ``(j, k)`` with
``y_j < y_k`` is penalised by ``phi(M(x_k) - M(x_j))``, ``phi(z) = log(1 + exp(-z))``: it costs
little when the better configuration ``k`` is predicted higher. This is Eq. 3 read for
maximisation (Eq. 3 with the pair order of a minimised objective gives the same loss).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "cv_folds",
    "cv_target_weight",
    "linear_combination",
    "ordered_pairs",
    "product_of_experts",
    "ranking_loss",
    "ranking_loss_grad",
    "simplex_weights",
]


def ordered_pairs(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index arrays ``(lo, hi)`` of every pair with ``y[lo] < y[hi]`` (ties give no pair)."""
    y = np.asarray(y, dtype=float).ravel()
    lo, hi = np.nonzero(y[:, None] < y[None, :])
    return lo, hi


def _check_A(A: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    A = np.asarray(A, dtype=float)
    y = np.asarray(y, dtype=float).ravel()
    if A.ndim != 2:
        raise ValueError(f"A must be 2-d (n observations, K base predictions); got {A.shape}")
    if A.shape[0] != y.size:
        raise ValueError(
            f"A has {A.shape[0]} rows but y has {y.size} values; pass one row "
            "of base-surrogate predictions per observation"
        )
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(y))):
        raise ValueError("A and y must be finite")
    return A, y


def ranking_loss(w: np.ndarray, A: np.ndarray, y: np.ndarray) -> float:
    """Pairwise ranking loss of Eq. 3 of the combination ``M(x_j) = A[j] @ w``.

    ``L = (1 / n^2) * sum_{y_j < y_k} log(1 + exp(-(M(x_k) - M(x_j))))``.

    Parameters
    ----------
    w : ndarray of shape (K,)
        Combination weights.
    A : ndarray of shape (n, K)
        ``A[j, i]`` is base surrogate ``i``'s predictive mean at observation ``j`` (the paper's
        matrix ``A`` transposed, one row per observation).
    y : ndarray of shape (n,)
        Observed values (maximised).
    """
    A, y = _check_A(A, y)
    lo, hi = ordered_pairs(y)
    m = A @ np.asarray(w, dtype=float)
    z = m[hi] - m[lo]
    return float(np.sum(np.logaddexp(0.0, -z)) / y.size**2)


def ranking_loss_grad(w: np.ndarray, A: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Gradient of :func:`ranking_loss` in ``w`` (Eq. 5, with its ``1/n^2`` factor).

    ``dL/dw = (1/n^2) sum_{y_j < y_k} e / (1 + e) * (A[j] - A[k])`` with
    ``e = exp(A[j] w - A[k] w)``; computed as ``sigmoid(-z)`` for stability.
    """
    A, y = _check_A(A, y)
    lo, hi = ordered_pairs(y)
    m = A @ np.asarray(w, dtype=float)
    z = m[hi] - m[lo]
    s = 0.5 * (1.0 - np.tanh(0.5 * z))  # = e^{-z} / (1 + e^{-z}), overflow-free
    return np.asarray(((A[lo] - A[hi]).T @ s) / y.size**2, dtype=float)


def simplex_weights(
    A: np.ndarray, y: np.ndarray, w0: np.ndarray | None = None, ftol: float = 1e-8
) -> np.ndarray:
    """Solve Eq. 4: ``argmin_w ranking_loss(w, A, y)`` s.t. ``1^T w = 1``, ``w >= 0``.

    SLSQP (SciPy's implementation of Kraft's SQP, Section 5.1) with the analytic gradient of
    Eq. 5, started from the uniform weights ``1/K`` (the paper's initial value; ``w0``
    overrides it). Choices the paper leaves open: the non-negativity is passed as bounds
    ``[0, 1]``; ``ftol = 1e-8``; at most 200 iterations; the solution is clipped to
    ``[0, 1]`` and renormalised (SLSQP satisfies the constraints only to its tolerance).
    With no ordered pair in ``y`` (fewer than two distinct values) the loss is constant and
    the starting weights are returned; if SLSQP returns a non-finite point the starting
    weights are returned as well.

    Returns
    -------
    ndarray of shape (K,)
        Non-negative weights summing to one.
    """
    from scipy.optimize import minimize  # here: the transfer methods' module stays light

    A, y = _check_A(A, y)
    K = A.shape[1]
    if K == 0:
        raise ValueError("simplex_weights needs at least one base surrogate (A has 0 columns)")
    start = np.full(K, 1.0 / K) if w0 is None else np.asarray(w0, dtype=float).copy()
    if start.shape != (K,) or np.any(start < 0) or not np.isclose(start.sum(), 1.0):
        raise ValueError(f"w0 must be a point of the {K}-simplex; got {w0}")
    if K == 1:
        return np.ones(1)
    lo, hi = ordered_pairs(y)
    if lo.size == 0:
        return start
    D = A[hi] - A[lo]  # (P, K): M(x_k) - M(x_j) = D @ w
    scale = 1.0 / y.size**2

    def fun(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = D @ w
        s = 0.5 * (1.0 - np.tanh(0.5 * z))
        return float(np.sum(np.logaddexp(0.0, -z)) * scale), -(D.T @ s) * scale

    res = minimize(
        fun,
        start,
        jac=True,
        method="SLSQP",
        bounds=[(0.0, 1.0)] * K,
        constraints=[
            {"type": "eq", "fun": lambda w: np.sum(w) - 1.0, "jac": lambda w: np.ones_like(w)}
        ],
        options={"ftol": ftol, "maxiter": 200},
    )
    w = np.asarray(res.x, dtype=float)
    if not np.all(np.isfinite(w)):
        return start
    w = np.clip(w, 0.0, 1.0)
    total = w.sum()
    return start if total <= 0 else w / total


def cv_folds(n: int, n_folds: int, rng: np.random.Generator) -> np.ndarray:
    """Fold id (``0..n_folds-1``) of each of ``n`` observations: a random balanced split.

    The paper (Eq. 6) splits ``D^T`` into ``N_cv = 5`` partitions without saying how; we
    shuffle with ``rng`` and deal the observations round-robin, so fold sizes differ by at
    most one. Requires ``n >= n_folds``.
    """
    if n_folds < 2:
        raise ValueError(f"n_folds must be >= 2, got {n_folds}")
    if n < n_folds:
        raise ValueError(f"{n} observations cannot fill {n_folds} folds; wait for more")
    folds = np.empty(n, dtype=np.int64)
    folds[rng.permutation(n)] = np.arange(n) % n_folds
    return folds


def cv_target_weight(cv_source: np.ndarray, cv_target: np.ndarray, y: np.ndarray) -> float:
    """Learn ``p = [p^S, p^T]`` by Eq. 8 from out-of-fold predictions; return ``p^T``.

    Eq. 7 scores the pair ``(j, k)``, ``k`` in fold ``i``, by
    ``phi(M^TL_{-i}(x_k) - M^TL_{-H(j)}(x_j))``: every observation is predicted by the partial
    surrogates that did *not* see it. Summed over the folds (Eq. 8) this is Eq. 3 over all
    ordered pairs with the matrix of out-of-fold predictions ``[cv_source, cv_target]``, so
    the same simplex solver applies.

    Parameters
    ----------
    cv_source, cv_target : ndarray of shape (n,)
        ``M^S_{-H(j)}(x_j)`` and ``M^T_{-H(j)}(x_j)`` for every observation ``j``.
    y : ndarray of shape (n,)
    """
    A = np.column_stack([np.asarray(cv_source, float), np.asarray(cv_target, float)])
    return float(simplex_weights(A, y)[1])


def linear_combination(
    means: np.ndarray, variances: np.ndarray, weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Combine Gaussian predictions linearly (Section 4.2, "Final TL Surrogate").

    ``mu_C = sum_b w_b mu_b`` and ``sigma_C^2 = sum_b w_b^2 sigma_b^2`` (Feurer et al. 2018's
    rule, which treats the base predictions as independent).

    Parameters
    ----------
    means, variances : ndarray of shape (B, m)
        One row per base surrogate, one column per configuration.
    weights : ndarray of shape (B,)
    """
    M = np.atleast_2d(np.asarray(means, dtype=float))
    V = np.atleast_2d(np.asarray(variances, dtype=float))
    w = np.asarray(weights, dtype=float).ravel()
    if M.shape != V.shape or M.shape[0] != w.size:
        raise ValueError(
            f"means {M.shape}, variances {V.shape} and weights {w.shape} must "
            "agree: (B, m), (B, m) and (B,)"
        )
    return w @ M, (w**2) @ V


def product_of_experts(
    means: np.ndarray, variances: np.ndarray, weights: np.ndarray, floor: float = 1e-12
) -> tuple[np.ndarray, np.ndarray]:
    """Generalised product of Gaussian experts (Schilling et al. 2016; Cao & Fleet 2014).

    ``1 / sigma^2 = sum_b beta_b / sigma_b^2`` and
    ``mu = sigma^2 * sum_b beta_b mu_b / sigma_b^2``; variances are floored at ``floor``
    (an expert that is certain at an observed point would otherwise divide by zero).
    """
    M = np.atleast_2d(np.asarray(means, dtype=float))
    V = np.maximum(np.atleast_2d(np.asarray(variances, dtype=float)), floor)
    b = np.asarray(weights, dtype=float).ravel()
    if M.shape != V.shape or M.shape[0] != b.size:
        raise ValueError(
            f"means {M.shape}, variances {V.shape} and weights {b.shape} must "
            "agree: (B, m), (B, m) and (B,)"
        )
    prec = b @ (1.0 / V)
    var = 1.0 / prec
    return var * (b @ (M / V)), var
