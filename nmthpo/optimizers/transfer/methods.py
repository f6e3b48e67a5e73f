"""TransBO and its baselines as table optimisers (Li et al. 2022, Sections 4 and 5.1).

Every method follows the ask/tell protocol of :class:`nmthpo.optimizers.base.TableOptimizer`
over the *target* table's rows (the shared encoding), is given the fitted source tasks
(:mod:`nmthpo.optimizers.transfer.sources`) and scores every unevaluated row by expected improvement
(:func:`nmthpo.models.acquisition.expected_improvement`, maximisation) under its surrogate. The
table's finite rows replace Algorithm 1's "sample a large number of configurations" (line 6).

Common choices (the paper leaves them open):

* Target values are standardised with the mean and standard deviation (ddof 0) of the target
  observations at every step (Section 4: "we standardize the ys in each task"); all
  surrogates predict standardised values, ``best`` of EI is the largest standardised value.
* The target surrogate ``M^T`` is an exact GP (Matérn-5/2 ARD by default) whose
  hyperparameters are re-fitted by maximum likelihood at every step, warm-started from the
  previous step, with ``restarts`` random restarts at the first fit and then every
  ``restart_every`` observations (as :mod:`nmthpo.optimizers.bo`); restart generators derive
  from (the optimiser's seed, number of observations). This is the shared schedule of
  :mod:`nmthpo.models.refit`: ``RefitSchedule(every=1, restarts=restarts,
  restart_every=restart_every)``, ``ScheduledGP(..., between="condition")`` (the targets are
  re-standardised at every step).
* Every GP of a method (the target GP, TransBO's cross-validation GPs, SGPR's levels, SCoT's
  merged GP, and the source GPs the runner fits for it) searches its hyperparameters as the
  ``search`` setting says: ``"lattice"`` by default since issue 25 (:mod:`nmthpo.models.lattice`:
  the same fit on every CPU), ``"lbfgsb"`` as the book's runs did before; EI values within
  ``tie_rtol`` (1e-9, relative, widened in EI's tail: :func:`nmthpo.models.acquisition.tail_rtol`)
  of the largest are ties. With both defaults every method chooses the same rows under every
  BLAS kernel (the portability sample of the speed appendix).
* Every method records, at each ``ask``, the weight its surrogate gives the target model
  (:attr:`TransferOptimizer.target_weights`; ``NaN`` where the notion does not apply) and the
  source weights (:attr:`TransferOptimizer.source_weights`).
* ``source_only=True`` (TransBO, POGPE, TST, RGPE) searches with the source part of the
  surrogate alone, the ablation of Section 5.4 ("Source Knowledge Learning"); the source
  weights are those the method would use, renormalised to sum to one (uniform if all vanish).

Methods (:data:`TRANSFER_METHODS`): ``rs``, ``igp``, ``transbo``, ``pogpe``, ``tst`` (TST-R),
``tstm`` (TST-M), ``rgpe``, ``sgpr``, ``scot``; and the ablations ``transbo-ms``,
``pogpe-ms``, ``tst-ms``, ``rgpe-ms`` (``source_only=True``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from nmthpo.errors import InputKeyError
from nmthpo.optimizers.base import TableOptimizer
from nmthpo.optimizers.registry import METHODS, build
from nmthpo.optimizers.settings import search_setting, setting, tie_rtol_setting
from nmthpo.optimizers.transfer.combine import (
    cv_folds,
    cv_target_weight,
    linear_combination,
    ordered_pairs,
    product_of_experts,
    simplex_weights,
)

if TYPE_CHECKING:
    from nmthpo.models.gp import GaussianProcess
    from nmthpo.optimizers.transfer.sources import SourceTask

# SciPy (directly and through nmthpo.models) is imported where used, so that reading a
# method's Settings stays cheap (nmthpo.optimizers.settings)

__all__ = [
    "IGP",
    "POGPE",
    "RGPE",
    "SGPR",
    "TRANSFER_METHODS",
    "TST",
    "POGPESettings",
    "RGPESettings",
    "RandomTransfer",
    "SCoT",
    "SCoTSettings",
    "SGPRSettings",
    "TSTSettings",
    "TransBO",
    "TransBOSettings",
    "TransferOptimizer",
    "TransferSettings",
    "make_transfer_optimizer",
]


def _standardise(y: np.ndarray) -> np.ndarray:
    std = float(np.std(y))
    return (y - float(np.mean(y))) / (std if std > 0 else 1.0)


@dataclass(frozen=True)
class TransferSettings:
    """Settings of every :class:`TransferOptimizer` (see its parameters); the runner passes
    the transfer context (``context=True``)."""

    sources: Sequence[SourceTask] = setting((), "the fitted source tasks", context=True)
    kernel: str = setting("matern52", "kernel of the target GP (the run's)", context=True)
    restarts: int = setting(
        2, "random restarts of the target GP's hyperparameter fit", low=0, high=100
    )
    restart_every: int = setting(
        10, "use the restarts again after this many observations", low=1, high=100_000
    )
    source_only: bool = setting(
        False,
        "search with the source part of the surrogate only (ablation; TransBO, POGPE, TST, RGPE)",
    )
    target_task: str | None = setting(None, "name of the target task", context=True)
    metafeatures: Any = setting(None, "meta-features of target and sources (TST-M)", context=True)
    search: str = search_setting("lattice")
    tie_rtol: float = tie_rtol_setting("EI", 1e-9)


class TransferOptimizer(TableOptimizer):
    """Base class: source predictions at every target row, the target GP, EI, weight history.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Shared encoding of every row of the target table.
    rng : numpy.random.Generator
    objective : {"bleu"}
    sources : sequence of SourceTask
        Fitted source tasks (their encodings must have ``d`` columns).
    kernel : {"matern52", "rbf"}
        Kernel of the target GP (and of GPs the method fits itself).
    restarts, restart_every : int
        Random restarts of the target GP's hyperparameter fit and how often they are used.
    source_only : bool
        Search with the source part of the surrogate only (ablation), where supported.
    search : {"lattice", "lbfgsb"}
        How every hyperparameter fit of the method searches (target GP, cross-validation GPs,
        SGPR's levels, SCoT's merged GP; the runner fits the source GPs the same way):
        ``"lattice"`` (default since issue 25) ends at the same point on every CPU;
        ``"lbfgsb"`` (the book's runs before) moves with the BLAS kernel's rounding.
    tie_rtol : float
        EI values within ``tie_rtol * max(1, z^2)`` of the largest are ties
        (:func:`nmthpo.models.acquisition.tail_rtol`), broken uniformly at random; 0: exact
        ties only (the book's runs before issue 25).
    target_task : str, optional
        Name of the target task (informative; the optimiser never reads a table).
    metafeatures : object, optional
        The meta-features of the target and the sources, precomputed by the runner from the
        tables (:class:`nmthpo.benchmark.metafeatures.TransferMetaFeatures`): anything with
        ``distances(rows) -> ndarray (K,)``, the scaled distance of each source's features to
        the target's features from its evaluated ``rows``. Needed by TST-M only.
    """

    objectives = ("bleu",)
    needs_sources = True
    supports_source_only = False
    Settings = TransferSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        *,
        sources: Sequence[SourceTask] = (),
        kernel: str = "matern52",
        restarts: int = 2,
        restart_every: int = 10,
        source_only: bool = False,
        target_task: str | None = None,
        metafeatures: Any = None,
        search: str = "lattice",
        tie_rtol: float = 1e-9,
        **settings: Any,
    ) -> None:
        from nmthpo.models.gp import KERNELS
        from nmthpo.models.refit import RefitSchedule, ScheduledGP

        super().__init__(X, rng, objective, **settings)
        if kernel not in KERNELS:
            raise ValueError(f"unknown kernel {kernel!r}; valid kernels: {', '.join(KERNELS)}")
        if restarts < 0 or restart_every < 1:
            raise ValueError("restarts must be >= 0 and restart_every >= 1")
        if not (np.isfinite(tie_rtol) and tie_rtol >= 0):
            raise ValueError(f"tie_rtol must be a number >= 0; got {tie_rtol!r}")
        self.search = search  # its name is checked by the target GP's schedule below
        self.tie_rtol = float(tie_rtol)
        self.sources = list(sources)
        if self.needs_sources and not self.sources:
            raise ValueError(f"{type(self).__name__} needs at least one source task")
        for s in self.sources:
            if s.X.shape[1] != self.X.shape[1]:
                raise ValueError(
                    f"source {s.task!r} has {s.X.shape[1]} encoded columns, the target "
                    f"{self.X.shape[1]}; sources and target must share one search space"
                )
        if source_only and not self.supports_source_only:
            raise ValueError(f"{type(self).__name__} has no source-only variant")
        self.kernel = kernel
        self.restarts = int(restarts)
        self.restart_every = int(restart_every)
        self.source_only = bool(source_only)
        self.target_task = target_task
        self.metafeatures = metafeatures
        self._seed = int(rng.integers(2**63 - 1))
        K, n = len(self.sources), self.n
        self.S_mean = np.empty((K, n))
        self.S_var = np.empty((K, n))
        for i, s in enumerate(self.sources):
            self.S_mean[i], self.S_var[i] = s.predict(self.X)
        self._target = ScheduledGP(
            kernel,
            RefitSchedule(
                every=1,
                restarts=self.restarts,
                restart_rule="every",
                restart_every=self.restart_every,
            ),
            self._seed,
            between="condition",
            search=self.search,
        )
        self.target_weights: list[float] = []
        self.source_weights: list[np.ndarray] = []

    @property
    def K(self) -> int:
        """Number of source tasks."""
        return len(self.sources)

    # -- target surrogate -----------------------------------------------------------------------
    def _fit_target(self, values: np.ndarray) -> GaussianProcess:
        """The target GP re-fitted (warm start, scheduled restarts) on the observed rows.

        ``values`` are the (re-standardised) targets of the observed rows, in order.
        """
        return self._target.update(self.X[np.asarray(self.rows)], values)

    def _fixed_gp(self, X: np.ndarray, y: np.ndarray, optimize: bool = False) -> GaussianProcess:
        """A GP started at the current target hyperparameters and conditioned on ``(X, y)``.

        ``optimize=False`` keeps the hyperparameters; ``True`` re-fits them by maximum
        likelihood on ``(X, y)`` alone, warm-started from the current ones (no restarts; a
        lattice fit searches the fine steps from there, as the target GP's own warm fits do).
        """
        assert self._target.gp is not None
        return self._target.gp.copy().fit(X, y, optimize=optimize)

    # -- protocol -------------------------------------------------------------------------------
    def _surrogate(self, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        """(mean, variance) at every row, target weight, source weights."""
        raise NotImplementedError  # pragma: no cover

    def ask(self) -> int:
        """The unevaluated row with the largest EI under the method's surrogate."""
        from nmthpo.models.acquisition import expected_improvement, tail_rtol

        cand = self.candidates
        if cand.size == 0:
            raise RuntimeError("every row of the table has been evaluated")
        if not self.rows:
            self.target_weights.append(np.nan)
            self.source_weights.append(np.full(self.K, np.nan))
            return int(self.rng.choice(cand))
        ys = _standardise(self.y_array)
        mean, var, tw, sw = self._surrogate(ys)
        self.target_weights.append(float(tw))
        self.source_weights.append(np.asarray(sw, dtype=float))
        std = np.sqrt(np.maximum(var, 0.0))
        best = float(ys.max())
        scores = expected_improvement(mean, std, best)
        return self.argmax_candidate(scores, tail_rtol(self.tie_rtol, mean, std, best, 0.0, scores))


class RandomTransfer(TransferOptimizer):
    """Random search without replacement (Section 5.1, baseline 1); ignores the sources."""

    needs_sources = False
    Settings = TransferSettings

    def ask(self) -> int:
        cand = self.candidates
        if cand.size == 0:
            raise RuntimeError("every row of the table has been evaluated")
        self.target_weights.append(np.nan)
        self.source_weights.append(np.full(self.K, np.nan))
        return int(self.rng.choice(cand))


class IGP(TransferOptimizer):
    """I-GP: an independent GP on the target observations only (Section 5.1, baseline 2)."""

    needs_sources = False
    Settings = TransferSettings

    def _surrogate(self, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        m, v = self._fit_target(ys).predict(self.X)
        return m, v, 1.0, np.zeros(self.K)


@dataclass(frozen=True)
class TransBOSettings(TransferSettings):
    """Settings of :class:`TransBO` (see its parameters)."""

    n_cv: int = setting(5, "number of cross-validation folds N_cv (the paper: 5)", low=2, high=100)
    cv_min: int | None = setting(
        None, "observations needed before p is learned (None: n_cv)", low=1, high=100_000
    )
    cv_refit: bool = setting(True, "re-fit the partial target GPs' hyperparameters")


class TransBO(TransferOptimizer):
    """TransBO, the two-phase framework (Section 4, Algorithm 1).

    Phase 1: ``M^S = sum_i w_i M^i`` with ``w`` on the simplex minimising the ranking loss
    (Eq. 3) on all target observations (Eq. 4,
    :func:`~nmthpo.optimizers.transfer.combine.simplex_weights`).
    Phase 2: ``M^TL = p^S M^S + p^T M^T`` with ``p`` from ``n_cv``-fold cross-validation
    (Eqs. 6-8): each fold's partial source surrogate ``M^S_{-i}`` re-learns ``w`` on the other
    folds and the partial target surrogate ``M^T_{-i}`` is conditioned on them. Line 4:
    ``p^T_i = max(p^T_i, p^T_{i-1})``. Means combine linearly and variances with squared
    weights (Section 4.2).

    Choices the paper leaves open: ``w = 1/K`` until the observations contain a strictly
    ordered pair; ``p = [1, 0]`` while there are fewer than ``cv_min`` observations (default
    ``n_cv``: below it a fold would be empty); each partial target GP ``M^T_{-i}`` is fitted
    "on D^T_{-i} directly" -- hyperparameters re-fitted by maximum likelihood on the other
    folds, warm-started from the full target GP's (``cv_refit=True``; ``False`` only
    conditions with the full GP's hyperparameters, which leaks the held-out points into the
    hyperparameters but is cheaper); folds are a fresh random balanced split at every step
    (:func:`~nmthpo.optimizers.transfer.combine.cv_folds`).

    Parameters
    ----------
    n_cv : int
        Number of folds ``N_cv`` (the paper: 5).
    cv_min : int, optional
        Observations needed before ``p`` is learned (default ``n_cv``).
    cv_refit : bool
        Re-fit the partial target GPs' hyperparameters (see above).
    """

    supports_source_only = True
    Settings = TransBOSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        *,
        n_cv: int = 5,
        cv_min: int | None = None,
        cv_refit: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(X, rng, objective, **kwargs)
        if n_cv < 2:
            raise ValueError(f"n_cv must be >= 2, got {n_cv}")
        self.n_cv = int(n_cv)
        self.cv_min = self.n_cv if cv_min is None else int(cv_min)
        if self.cv_min < self.n_cv:
            raise ValueError(f"cv_min must be >= n_cv={self.n_cv}, got {cv_min}")
        self.cv_refit = bool(cv_refit)
        self._p_target = 0.0

    def _surrogate(self, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        rows = np.asarray(self.rows)
        A = self.S_mean[:, rows].T  # (t, K)
        w = simplex_weights(A, ys)
        mS, vS = linear_combination(self.S_mean, self.S_var, w)
        if self.source_only:
            return mS, vS, 0.0, w
        gp = self._fit_target(ys)
        t = rows.size
        p_t = 0.0
        if t >= self.cv_min:
            folds = cv_folds(t, self.n_cv, self.rng)
            cv_s, cv_t = np.empty(t), np.empty(t)
            Xo = self.X[rows]
            for i in range(self.n_cv):
                te = folds == i
                tr = ~te
                cv_s[te] = A[te] @ simplex_weights(A[tr], ys[tr])
                cv_t[te] = self._fixed_gp(Xo[tr], ys[tr], self.cv_refit).predict(Xo[te])[0]
            p_t = cv_target_weight(cv_s, cv_t, ys)
        self._p_target = max(p_t, self._p_target)
        p = self._p_target
        mT, vT = gp.predict(self.X)
        mean, var = linear_combination(
            np.vstack([mS, mT]), np.vstack([vS, vT]), np.array([1.0 - p, p])
        )
        return mean, var, p, (1.0 - p) * w


@dataclass(frozen=True)
class POGPESettings(TransferSettings):
    """Settings of :class:`POGPE`."""

    target_weight: float = setting(
        0.5, "weight of the target expert (Section 5.4: 0.5)", low=0.0, high=1.0
    )


class POGPE(TransferOptimizer):
    """POGPE: product of GP experts with constant weights (Schilling et al. 2016).

    The target expert has weight ``target_weight`` (0.5, the constant Li et al. report in
    Section 5.4) and the sources share the rest equally; the experts are combined by the
    generalised product of experts (:func:`~nmthpo.optimizers.transfer.combine.product_of_experts`).
    """

    supports_source_only = True
    Settings = POGPESettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        *,
        target_weight: float = 0.5,
        **kwargs: Any,
    ) -> None:
        super().__init__(X, rng, objective, **kwargs)
        if not 0.0 <= target_weight <= 1.0:
            raise ValueError(f"target_weight must lie in [0, 1], got {target_weight}")
        self.beta_target = float(target_weight)

    def _surrogate(self, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        if self.source_only:
            w = np.full(self.K, 1.0 / self.K)
            m, v = product_of_experts(self.S_mean, self.S_var, w)
            return m, v, 0.0, w
        mT, vT = self._fit_target(ys).predict(self.X)
        w = np.full(self.K, (1.0 - self.beta_target) / self.K)
        m, v = product_of_experts(
            np.vstack([self.S_mean, mT]),
            np.vstack([self.S_var, vT]),
            np.append(w, self.beta_target),
        )
        return m, v, self.beta_target, w


def _epanechnikov(d: np.ndarray, rho: float) -> np.ndarray:
    """Quadratic (Epanechnikov) kernel ``3/4 (1 - (d/rho)^2)`` for ``d < rho``, else 0."""
    t = np.asarray(d, dtype=float) / rho
    return np.where(t < 1.0, 0.75 * (1.0 - t**2), 0.0)


@dataclass(frozen=True)
class TSTSettings(TransferSettings):
    """Settings of :class:`TST`."""

    variant: str = setting(
        "r", "r (TST-R: rank distance) or m (TST-M: meta-features)", choices=("r", "m")
    )
    rho: float = setting(
        0.3,
        "bandwidth of the Epanechnikov kernel (Section 5.1: 0.3)",
        low=0.0,
        low_open=True,
        high=100.0,
    )


class TST(TransferOptimizer):
    """Two-stage transfer surrogate, TST-R or TST-M (Wistuba et al. 2016).

    Nadaraya-Watson weights ``w_i = k(d_i / rho)`` with the Epanechnikov kernel and bandwidth
    ``rho`` (0.3, Section 5.1); the target model has ``k(0) = 3/4``; weights are normalised.
    ``variant="r"`` (TST-R): ``d_i`` is the fraction of discordant pairs -- ordered target
    pairs ``y_j < y_k`` with ``M^i(x_j) >= M^i(x_k)`` (1 if there is no ordered pair).
    ``variant="m"`` (TST-M): ``d_i`` is the scaled meta-feature distance of
    :mod:`nmthpo.benchmark.metafeatures` (target features from the rows observed so far),
    given through the constructor (``metafeatures=``; the runner computes it from the tables).
    The combination is linear in means and in variances with squared weights (Section 4.2's
    rule, used for every ensemble here; Wistuba et al. use the target's variance).
    """

    supports_source_only = True
    Settings = TSTSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        *,
        variant: str = "r",
        rho: float = 0.3,
        **kwargs: Any,
    ) -> None:
        super().__init__(X, rng, objective, **kwargs)
        if variant not in ("r", "m"):
            raise ValueError(f"unknown TST variant {variant!r}; valid: r (ranks), m (meta)")
        if not rho > 0:
            raise ValueError(f"rho must be > 0, got {rho}")
        if variant == "m" and not callable(getattr(self.metafeatures, "distances", None)):
            raise ValueError(
                "TST-M needs metafeatures= (nmthpo.benchmark.metafeatures."
                "transfer_metafeatures(target, sources)); the runner passes it"
            )
        self.variant = variant
        self.rho = float(rho)

    def distances(self, ys: np.ndarray) -> np.ndarray:
        """``d_i`` of every source given the target observations so far."""
        rows = np.asarray(self.rows)
        if self.variant == "m":
            return np.asarray(self.metafeatures.distances(rows), dtype=float)
        lo, hi = ordered_pairs(ys)
        if lo.size == 0:
            return np.ones(self.K)
        M = self.S_mean[:, rows]
        return np.asarray(np.mean(M[:, lo] >= M[:, hi], axis=1), dtype=float)

    def _surrogate(self, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        k = _epanechnikov(self.distances(ys), self.rho)
        if self.source_only:
            w = k / k.sum() if k.sum() > 0 else np.full(self.K, 1.0 / self.K)
            m, v = linear_combination(self.S_mean, self.S_var, w)
            return m, v, 0.0, w
        mT, vT = self._fit_target(ys).predict(self.X)
        allw = np.append(k, 0.75)
        allw /= allw.sum()
        m, v = linear_combination(np.vstack([self.S_mean, mT]), np.vstack([self.S_var, vT]), allw)
        return m, v, float(allw[-1]), allw[:-1]


def _sampling_factor(cov: np.ndarray) -> np.ndarray:
    """A factor ``L`` with ``L L^T = cov + jitter I`` for joint posterior draws: the Cholesky
    factor, with jitter 1e-8 (times 10 until it factors). The factor is unique, so a draw
    moves only by rounding between BLAS kernels; an eigendecomposition's basis of a
    degenerate (near-zero) eigenspace is not unique and gave other draws, and other RGPE
    weights, under another OpenBLAS core type (issue 25)."""
    from scipy.linalg import LinAlgError, cholesky

    jitter = 1e-8
    for _ in range(8):
        try:
            return cholesky(cov + jitter * np.eye(len(cov)), lower=True)
        except LinAlgError:
            jitter *= 10
    raise LinAlgError("the posterior covariance does not factor even with jitter 1e-1")


@dataclass(frozen=True)
class RGPESettings(TransferSettings):
    """Settings of :class:`RGPE`."""

    n_samples: int = setting(
        100, "posterior draws S per weight estimate (Section 5.1: 100)", low=1, high=100_000
    )


class RGPE(TransferOptimizer):
    """Ranking-weighted GP ensemble (Feurer et al. 2018, Algorithm 1), ``S`` samples.

    For every base model, ``S`` (100, Section 5.1) draws of its predictions at the observed
    target rows are ranked against the observations: sources draw jointly from their posterior
    at those rows; the target model draws from its leave-one-out posteriors (closed form,
    Rasmussen & Williams 2006, Eq. 5.12, at the current hyperparameters). The loss of a draw is
    the number of misranked ordered pairs (``y_j < y_k`` but ``f_j >= f_k``). A model's weight is
    the fraction of draws in which it has the smallest loss (ties broken uniformly at random).
    Weight dilution: a source whose median loss exceeds the 95th percentile of the target
    model's losses does not compete (so the weights still sum to one). Linear combination.
    A source's joint draws go through the Cholesky factor of its posterior covariance
    (:func:`_sampling_factor`; issue 25: an eigenbasis gave other draws on another CPU).
    """

    supports_source_only = True
    Settings = RGPESettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        *,
        n_samples: int = 100,
        **kwargs: Any,
    ) -> None:
        super().__init__(X, rng, objective, **kwargs)
        if n_samples < 1:
            raise ValueError(f"n_samples must be >= 1, got {n_samples}")
        self.n_samples = int(n_samples)

    def _loo(
        self,
        gp: GaussianProcess,
        Xo: np.ndarray,
        ys: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        from scipy.linalg import LinAlgError, cho_factor, cho_solve

        from nmthpo.models.gp import get_kernel

        h = gp.hyperparameters
        Kmat = get_kernel(self.kernel)(Xo, None, h["lengthscales"], h["variance"])
        Kmat[np.diag_indices_from(Kmat)] += h["noise"]
        yy = _standardise(ys)
        jitter = 0.0
        for _ in range(6):
            try:
                cf = cho_factor(Kmat + jitter * np.eye(len(yy)), lower=True)
                break
            except LinAlgError:
                jitter = max(1e-10, 10 * jitter)
        Kinv = cho_solve(cf, np.eye(len(yy)))
        d = np.diag(Kinv)
        return yy - (Kinv @ yy) / d, 1.0 / d

    def weights(self, ys: np.ndarray, gp: GaussianProcess | None) -> np.ndarray:
        """RGPE weights of the K sources and (last) the target model."""
        rows = np.asarray(self.rows)
        t, S = rows.size, self.n_samples
        lo, hi = ordered_pairs(ys)
        Xo = self.X[rows]
        losses = np.zeros((self.K + 1, S))
        for i, s in enumerate(self.sources):
            mu, cov = s.gp.predict(Xo, full_cov=True)
            L = _sampling_factor(0.5 * (cov + cov.T))
            F = mu[None, :] + self.rng.standard_normal((S, t)) @ L.T
            losses[i] = np.sum(F[:, lo] >= F[:, hi], axis=1)
        compete = np.ones(self.K + 1, dtype=bool)
        if gp is not None:
            mu, var = self._loo(gp, Xo, ys)
            F = mu[None, :] + self.rng.standard_normal((S, t)) * np.sqrt(var)[None, :]
            losses[-1] = np.sum(F[:, lo] >= F[:, hi], axis=1)
            thr = np.percentile(losses[-1], 95)
            compete[:-1] = np.median(losses[:-1], axis=1) <= thr
        else:
            compete[-1] = False
        L = np.where(compete[:, None], losses, np.inf)
        wins = np.zeros(self.K + 1)
        best = L.min(axis=0)
        for j in range(S):
            top = np.flatnonzero(L[:, j] == best[j])
            wins[top[0] if top.size == 1 else self.rng.choice(top)] += 1
        return wins / S

    def _surrogate(self, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        if self.source_only:
            w = self.weights(ys, None)[:-1]
            w = w / w.sum() if w.sum() > 0 else np.full(self.K, 1.0 / self.K)
            m, v = linear_combination(self.S_mean, self.S_var, w)
            return m, v, 0.0, w
        gp = self._fit_target(ys)
        allw = self.weights(ys, gp)
        mT, vT = gp.predict(self.X)
        m, v = linear_combination(np.vstack([self.S_mean, mT]), np.vstack([self.S_var, vT]), allw)
        return m, v, float(allw[-1]), allw[:-1]


@dataclass(frozen=True)
class SGPRSettings(TransferSettings):
    """Settings of :class:`SGPR`."""

    alpha: float = setting(
        0.95, "weight of a level's own data in its std (Section 5.1: 0.95)", low=0.0, high=1.0
    )


class SGPR(TransferOptimizer):
    """Stacked GP regression, Google Vizier's transfer learning (Golovin et al. 2017, 3.3).

    The sources are stacked in the order given: each level's GP is fitted on its task's
    standardised values minus the mean of the stack below it, and the target GP on the
    residuals of the target's standardised values. The stacked mean is the sum of the levels'
    means; the standard deviation of level ``i`` is ``sigma_i^beta * sigma_below^(1 - beta)``
    with ``beta = alpha n_i / (alpha n_i + n_below)`` (``n_below`` the training size of the
    level below, 0 -- so ``beta = 1`` -- at the bottom) and ``alpha = 0.95`` (Section 5.1).
    Source levels are fitted once per trial with 1 restart from the optimiser's generator.
    """

    Settings = SGPRSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        *,
        alpha: float = 0.95,
        **kwargs: Any,
    ) -> None:
        from nmthpo.models.gp import GaussianProcess

        super().__init__(X, rng, objective, **kwargs)
        if not 0 < alpha <= 1:
            raise ValueError(f"alpha must lie in (0, 1], got {alpha}")
        self.alpha = float(alpha)
        levels: list[GaussianProcess] = []
        sizes: list[int] = []
        mu_rows = np.zeros(self.n)
        sd_rows = np.ones(self.n)
        for i, s in enumerate(self.sources):
            below = np.zeros(s.X.shape[0])
            for gp in levels:
                below += gp.predict(s.X)[0]
            gp = GaussianProcess(self.kernel, search=self.search).fit(
                s.X, s.y - below, rng=np.random.default_rng([self._seed, 10**6 + i]), restarts=1
            )
            n_i = s.X.shape[0]
            n_below = sizes[-1] if sizes else 0
            beta = self.alpha * n_i / (self.alpha * n_i + n_below)
            m, v = gp.predict(self.X)
            mu_rows += m
            sd_rows = np.sqrt(v) ** beta * sd_rows ** (1 - beta)
            levels.append(gp)
            sizes.append(n_i)
        self._levels = levels
        self._n_top_below = sizes[-1]
        self._stack_mean = mu_rows
        self._stack_sd = sd_rows

    def _surrogate(self, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        rows = np.asarray(self.rows)
        gp = self._fit_target(ys - self._stack_mean[rows])
        m, v = gp.predict(self.X)
        t = rows.size
        beta = self.alpha * t / (self.alpha * t + self._n_top_below)
        sd = np.sqrt(v) ** beta * self._stack_sd ** (1 - beta)
        return self._stack_mean + m, sd**2, np.nan, np.full(self.K, np.nan)


@dataclass(frozen=True)
class SCoTSettings(TransferSettings):
    """Settings of :class:`SCoT`."""

    refit_every: int = setting(
        10,
        "re-fit the merged GP's hyperparameters every this many target observations",
        low=1,
        high=100_000,
    )


class SCoT(TransferOptimizer):
    """SCoT: one GP on the merged, per-task scaled observations (Bardenet et al. 2013).

    Inputs are the configuration followed by a one-hot code of its task (K sources + target),
    so the GP's ARD length scales on the code learn how related the tasks are; outputs are the
    per-task standardised values (the source samples; the target's observations so far).
    Choices: Bardenet et al. describe tasks by dataset meta-features and rank with SVMRank; we
    use the task code (no meta-features needed; TST-M carries the meta-feature variant) and a
    GP on standardised values. The merged GP has ``K N_S + t`` points, so its hyperparameters
    are re-fitted every ``refit_every`` (10) target observations (warm start; ``restarts`` at
    the first fit) and only conditioned in between -- this is the method whose cost grows
    fastest (Section 5.4, "Scalability"). In terms of :mod:`nmthpo.models.refit`:
    ``RefitSchedule(every=refit_every, restarts=restarts, restart_rule="first")`` counting
    target observations only, ``ScheduledGP(..., between="condition")``.
    """

    Settings = SCoTSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        *,
        refit_every: int = 10,
        **kwargs: Any,
    ) -> None:
        from nmthpo.models.refit import RefitSchedule, ScheduledGP

        super().__init__(X, rng, objective, **kwargs)
        if refit_every < 1:
            raise ValueError(f"refit_every must be >= 1, got {refit_every}")
        self.refit_every = int(refit_every)
        code = np.eye(self.K + 1)
        self._src_X = np.vstack(
            [
                np.hstack([s.X, np.tile(code[i], (s.X.shape[0], 1))])
                for i, s in enumerate(self.sources)
            ]
        )
        self._src_y = np.concatenate([s.y for s in self.sources])
        self._tgt_code = code[-1]
        self._merged = ScheduledGP(
            self.kernel,
            RefitSchedule(every=self.refit_every, restarts=self.restarts, restart_rule="first"),
            self._seed,
            between="condition",
            search=self.search,
        )

    def _surrogate(self, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        rows = np.asarray(self.rows)
        Xt = np.hstack([self.X, np.tile(self._tgt_code, (self.n, 1))])
        Xm = np.vstack([self._src_X, Xt[rows]])
        ym = np.concatenate([self._src_y, ys])
        m, v = self._merged.update(Xm, ym, n=rows.size).predict(Xt)
        return m, v, np.nan, np.full(self.K, np.nan)


#: Method name -> (class, fixed settings): a view of the transfer entries of the one
#: registry (:data:`nmthpo.optimizers.registry.METHODS`, which is where methods are added).
TRANSFER_METHODS: dict[str, tuple[type[TransferOptimizer], dict[str, Any]]] = {
    name: (globals()[(spec.transfer_cls or spec.path).rsplit(":", 1)[1]], dict(spec.settings))
    for name, spec in METHODS.items()
    if (spec.transfer_cls or spec.path).startswith(f"{__name__}:")
}

#: The methods of the static comparison (Section 5.1: TransBO and its eight baselines).
STATIC_METHODS: tuple[str, ...] = (
    "rs",
    "igp",
    "scot",
    "sgpr",
    "pogpe",
    "tst",
    "tstm",
    "rgpe",
    "transbo",
)

#: The dynamic-transfer comparison of Table 1.
DYNAMIC_METHODS: tuple[str, ...] = ("pogpe", "tst", "rgpe", "transbo")

#: Source-only ablations of Section 5.4.
ABLATION_METHODS: tuple[str, ...] = ("transbo-ms", "pogpe-ms", "tst-ms", "rgpe-ms")


def check_method(name: str) -> str:
    """Return ``name`` if it is a registered method that accepts source tasks, else a
    ``KeyError`` listing the valid ones."""
    if name not in TRANSFER_METHODS:
        raise InputKeyError(
            f"unknown transfer method {name!r}; valid methods: {', '.join(TRANSFER_METHODS)}"
        )
    return name


def make_transfer_optimizer(
    name: str,
    X: np.ndarray,
    rng: np.random.Generator,
    sources: Sequence[SourceTask],
    **overrides: Any,
) -> TransferOptimizer:
    """Instantiate transfer method ``name`` on the target rows ``X`` with fitted ``sources``.

    ``overrides`` hold the rest of the transfer context (``kernel``, ``target_task``,
    ``metafeatures``) and method settings.
    """
    spec = METHODS[check_method(name)]
    return build(spec, X, rng, "bleu", {"sources": sources}, **overrides)  # type: ignore[no-any-return]
