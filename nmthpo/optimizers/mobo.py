"""Multiobjective SMBO with exact EHVI over a table's rows (Zhang & Duh 2020, Section 5.4).

Algorithm 1 of the paper: from the initial rows, repeat (3) compute the Pareto front of the
observations, (4) fit one surrogate per objective, (5) select the unevaluated row maximising the
infill criterion, (6) evaluate it. Registered as ``bo-m`` / ``bo-r`` (exact GPs, Matérn-5/2 /
RBF ARD kernels) and ``gb-m`` / ``gb-r`` (graph-based surrogates on a Matérn / RBF kNN graph).
The criterion is the exact two-objective expected hypervolume improvement of
:func:`nmthpo.models.ehvi.ehvi` (Emmerich et al. 2011), evaluated for *every* unevaluated row.

Choices the paper leaves open, and ours:

* Objectives: maximise BLEU, minimise decoding time (``dev_gpu_time``); the EHVI works in the
  minimisation frame ``(-BLEU, g(time))``.
* Time on a log scale (``log_time=True``, default): ``g = log``. Decoding times are positive and
  right-skewed (skewness 0.3-1.0 on the six tables, 0.0-0.3 after the log) and vary
  multiplicatively with model size, so a Gaussian surrogate fits log time better and never
  predicts a negative time. A monotone transform leaves the Pareto set unchanged; EHVI is then
  the improvement of the hypervolume in ``(-BLEU, log time)`` -- relative rather than absolute
  time savings count. ``log_time=False`` models raw seconds.
* Independent Gaussian predictive marginals per objective (as in the paper's BO): the two
  surrogates are fitted separately and their posterior means and standard deviations (latent
  function, no observation noise: a table lookup is deterministic) enter the closed form.
* Reference point: the optimiser knows only what it was told, so the reference point is the
  nadir of the *observed* points plus ``ref_margin`` (default 10 %) of their observed range in
  each objective (:func:`nmthpo.models.ehvi.reference_from_observations`), recomputed at every step.
  It is strictly worse than every observation, so every observed front point and every
  candidate that could extend the front at either end has positive volume.
* GP surrogates (``surrogate="gp"``): :class:`~nmthpo.models.row_gp.RowGP` per objective.
  Hyperparameters by type-II maximum likelihood (:class:`nmthpo.models.gp.GaussianProcess`,
  targets standardised) at *checkpoints* ``n = 3, 4, ...`` growing geometrically by
  ``refit_growth`` (default 20 %: 3, 4, 5, 6, 8, 10, 12, 15, 18, 22, ...) up to ``refit_until``
  observations (default 200), each warm-started from the previous optimum, with ``restarts``
  random restarts at the first checkpoint and whenever the number of observations has doubled
  since the last restarts. Between checkpoints (and after ``refit_until``) the posterior is
  conditioned exactly on every new observation with the hyperparameters kept, in O(t N) per step
  for all N rows. The checkpoints and restarts are settings of the shared
  :class:`nmthpo.models.refit.RefitSchedule` (:func:`nmthpo.models.refit.refit_checkpoints`).
* Graph surrogates (``surrogate="graph"``): one kNN graph over all rows
  (:func:`nmthpo.models.graph.build_graph`, paper's k rule and median length scale unless
  given) and the finite-set GP view of label propagation (footnotes 13, 16) for each objective:
  BLEU and (log) time share the graph and the inverse ``G`` of the unlabelled Laplacian block,
  which is downdated in O(u^2) per observation
  (:class:`nmthpo.models.graph.GraphSurrogate`, :func:`~nmthpo.models.graph.grf_posterior`).
* Ties (e.g. identical EHVI) are broken uniformly at random through the optimiser's generator;
  before any observation the row is drawn uniformly at random.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nmthpo.optimizers.base import TableOptimizer
from nmthpo.optimizers.settings import ROWS, search_setting, setting, tie_rtol_setting

# SciPy (directly and through nmthpo.models) is imported where used, so that reading
# ParetoSMBO.Settings stays cheap (nmthpo.optimizers.settings)

__all__ = ["SURROGATES", "ParetoSMBO", "ParetoSMBOSettings"]

SURROGATES: tuple[str, ...] = ("gp", "graph")


@dataclass(frozen=True)
class ParetoSMBOSettings:
    """Settings of :class:`ParetoSMBO` (see its parameters)."""

    surrogate: str = setting(
        "gp", "gp (exact GPs) or graph (graph-based finite-set GPs)", choices=("gp", "graph")
    )
    kernel: str = setting(
        "matern52",
        "GP covariance / graph edge-weight kernel: matern52, rbf",
        choices=("matern52", "rbf"),
    )
    log_time: bool = setting(True, "model (and measure EHVI in) log decoding time")
    ref_margin: float = setting(
        0.1, "reference point: observed nadir + margin x observed range", low=0.0, high=100.0
    )
    refit_growth: float = setting(
        0.2, "GP: growth of the hyperparameter-fit checkpoints", low=0.0, low_open=True, high=10.0
    )
    refit_until: int = setting(
        200, "GP: no hyperparameter fits after this many observations", low=0, high=100_000
    )
    restarts: int = setting(
        2, "GP: random restarts (first checkpoint, then at each doubling)", low=0, high=100
    )
    k: int | None = setting(
        None, "graph: kNN neighbourhood size (None: the paper's rule)", low=1, high=ROWS
    )
    lengthscale: float | None = setting(
        None, "graph: kernel length scale (None: median pairwise distance)", low=0.0, low_open=True
    )
    eps: float | None = setting(
        None, "graph: ghost-node weight (None: 1e-6 x mean degree)", low=0.0, low_open=True
    )
    refresh_every: int = setting(
        200, "graph: recompute the inverse after this many downdates", low=0, high=1_000_000
    )
    search: str = search_setting()
    tie_rtol: float = tie_rtol_setting("EHVI")


class ParetoSMBO(TableOptimizer):
    """Multiobjective SMBO with exact EHVI (Zhang & Duh 2020, Section 5.4, Algorithm 1).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Encoded configurations of every row.
    rng : numpy.random.Generator
        Tie-breaks and the seeds of the GP restarts.
    objective : {"pareto"}
        ``tell`` receives ``[bleu, decoding_time]``.
    surrogate : {"gp", "graph"}
        Exact GPs (``bo-m``/``bo-r``) or graph-based finite-set GPs (``gb-m``/``gb-r``).
    kernel : {"matern52", "rbf"}
        GP covariance / graph edge-weight kernel.
    log_time : bool
        Model (and measure EHVI in) log decoding time; see the module docstring.
    ref_margin : float
        Reference point = observed nadir + ``ref_margin`` x observed range.
    refit_growth, refit_until, restarts : GP only
        Hyperparameter checkpoints grow by ``refit_growth`` up to ``refit_until``
        observations; ``restarts`` random restarts (first checkpoint, then at each doubling).
    k, lengthscale, eps, refresh_every : graph only
        See :class:`nmthpo.optimizers.graph.GraphSMBO` (``None``: the paper's rules).
    search : {"lbfgsb", "lattice"}
        GP only: how each hyperparameter fit searches (:class:`~nmthpo.models.gp.GaussianProcess`;
        ``"lattice"``: the same fitted hyperparameters on every CPU).
    tie_rtol : float
        EHVI values within ``tie_rtol * |max|`` of the maximum are ties for the random
        tie-break (:func:`~nmthpo.optimizers.base.snap_ties`); 0 (the class default, and the
        graph methods ``gb-m``, ``gb-r``): exact ties. The registered ``bo-m`` and ``bo-r`` run
        with ``search="lattice"`` and ``tie_rtol=1e-9`` since issue 25: the same rows on every
        CPU (the speed appendix).
    """

    objectives = ("pareto",)
    Settings = ParetoSMBOSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "pareto",
        *,
        surrogate: str = "gp",
        kernel: str = "matern52",
        log_time: bool = True,
        ref_margin: float = 0.1,
        refit_growth: float = 0.2,
        refit_until: int = 200,
        restarts: int = 2,
        k: int | None = None,
        lengthscale: float | None = None,
        eps: float | None = None,
        refresh_every: int = 200,
        search: str = "lbfgsb",
        tie_rtol: float = 0.0,
        **settings: Any,
    ) -> None:
        from nmthpo.models.gp import KERNELS

        super().__init__(X, rng, objective, **settings)
        if surrogate not in SURROGATES:
            raise ValueError(f"unknown surrogate {surrogate!r}; valid: {', '.join(SURROGATES)}")
        if kernel not in KERNELS:
            raise ValueError(f"unknown kernel {kernel!r}; valid kernels: {', '.join(KERNELS)}")
        if not ref_margin > 0:
            raise ValueError(f"ref_margin must be > 0; got {ref_margin}")
        if not (np.isfinite(tie_rtol) and tie_rtol >= 0):
            raise ValueError(f"tie_rtol must be a number >= 0; got {tie_rtol!r}")
        self.tie_rtol = float(tie_rtol)
        if self.X.ndim != 2 or not np.all(np.isfinite(self.X)):
            raise ValueError("X must be a finite 2-d array (n rows, d encoded hyperparameters)")
        graph_only = {"k": k, "lengthscale": lengthscale, "eps": eps}
        if surrogate == "gp" and any(v is not None for v in graph_only.values()):
            bad = sorted(name for name, v in graph_only.items() if v is not None)
            raise ValueError(f"settings {bad} apply to surrogate='graph' only")
        self.surrogate = surrogate
        self.kernel = kernel
        self.log_time = bool(log_time)
        self.ref_margin = float(ref_margin)
        self._times: list[float] = []
        if surrogate == "gp":
            from nmthpo.models.row_gp import RowGP

            seed = int(rng.integers(2**63 - 1))
            self.models = [
                RowGP(
                    self.X,
                    kernel,
                    seed + j,
                    refit_growth=refit_growth,
                    refit_until=refit_until,
                    restarts=restarts,
                    search=search,
                )
                for j in range(2)
            ]
        else:
            from nmthpo.models.graph import GraphSurrogate, build_graph

            self.graph = build_graph(self.X, kernel=kernel, k=k, lengthscale=lengthscale)
            self.graph_surrogate = GraphSurrogate(
                self.graph.W, eps=eps, refresh_every=refresh_every
            )

    # -- protocol -----------------------------------------------------------------------------
    def tell(self, row: int, y: float | np.ndarray) -> None:
        v = np.asarray(y, dtype=float).ravel()
        if v.shape != (2,) or not np.all(np.isfinite(v)):
            raise ValueError(
                f"ParetoSMBO expects y = [bleu, decoding_time] (two finite numbers); got {y!r}"
            )
        if self.log_time and v[1] <= 0:
            raise ValueError(f"decoding time of row {row} is {v[1]} <= 0; use log_time=False")
        super().tell(row, v)
        t = float(np.log(v[1])) if self.log_time else float(v[1])
        self._times.append(t)
        if self.surrogate == "gp":
            self.models[0].add(int(row), float(v[0]))
            self.models[1].add(int(row), t)
        else:
            self.graph_surrogate.add(int(row), float(v[0]))

    def posterior(self) -> tuple[np.ndarray, np.ndarray]:
        """Predictive means and standard deviations of every row, minimisation frame.

        Returns
        -------
        mean, std : ndarrays of shape (n, 2)
            Columns ``-BLEU`` and (log) time.
        """
        if not self.rows:
            raise RuntimeError("no observations yet; tell the initial rows first")
        if self.surrogate == "gp":
            mb, vb = self.models[0].predict()
            mt, vt = self.models[1].predict()
            sb, st = np.sqrt(vb), np.sqrt(vt)
        else:
            from nmthpo.models.graph import grf_posterior

            gs = self.graph_surrogate
            mb, sb = gs.posterior()
            mt, st = grf_posterior(
                gs.W,
                gs.inverse(),
                gs.unlabelled,
                np.asarray(gs.labelled),
                np.asarray(self._times),
                gs.eps,
                block=gs.block(),
            )
        return np.column_stack([-mb, mt]), np.column_stack([sb, st])

    def observed_points(self) -> np.ndarray:
        """Observations in the minimisation frame ``(-BLEU, g(time))``, shape (t, 2)."""
        ya = self.y_array
        return np.column_stack([-ya[:, 0], np.asarray(self._times)])

    def reference(self) -> np.ndarray:
        """The current reference point (minimisation frame)."""
        from nmthpo.models.ehvi import reference_from_observations

        return reference_from_observations(self.observed_points(), self.ref_margin)

    def scores(self) -> np.ndarray:
        """EHVI of every row (evaluated rows: ``-inf``)."""
        from nmthpo.models.ehvi import ehvi, nondominated_front, reference_from_observations

        pts = self.observed_points()
        ref = reference_from_observations(pts, self.ref_margin)
        front = nondominated_front(pts, ref)
        mean, std = self.posterior()
        out = np.full(self.n, -np.inf)
        cand = self.candidates
        out[cand] = ehvi(mean[cand], std[cand], front, ref)
        return out

    def ask(self) -> int:
        """The unevaluated row with the largest exact EHVI (random tie-break)."""
        self.remaining()  # raises once every row has been evaluated
        if not self.rows:
            return self.random_candidate()
        return self.argmax_candidate(self.scores(), self.tie_rtol)

    def predict_mean(self) -> np.ndarray:
        """The BLEU surrogate's posterior mean for every row, shape (n,) (``NaN`` before data)."""
        if not self.rows:
            return np.full(self.n, np.nan)
        if self.surrogate == "gp":
            return self.models[0].predict()[0]
        return self.graph_surrogate.predict()
