"""Graph-based SMBO, GB-EI and GB-EIF (Zhang & Duh 2020, Section 5.3 and Section 6).

The surrogate is harmonic label propagation on a kNN graph over all rows of the table
(:mod:`nmthpo.models.graph`, Eqs. 4-7). Two acquisition functions:

* ``"ei"``: expected improvement (Eq. 3) with the posterior mean and standard deviation of the
  finite-set GP ``K = (2 beta (Delta + I / sigma^2))^{-1}`` (footnotes 13 and 16); ``beta`` by
  maximum likelihood, then divided by ``ei_scale ** 2`` (``ei_scale`` multiplies the standard
  deviation; 1: the maximum-likelihood ``beta``). The text leaves ``beta`` open; because the
  posterior mean is harmonic it never exceeds the best label (maximum principle), so EI's
  choices rest on the standard deviation, and ``beta`` sets how much;
* ``"eif"``: expected influence (Eq. 8) on binarised labels, computed by the O(u^2) rank-one
  identity (``eif_method="fast"``, default) or by re-solving label propagation for every
  candidate (``"naive"``, the reference; identical choices, far slower). ``eif_mode`` picks
  the reading: ``"text"`` (the paper's wording), ``"gbopt"`` (the authors' public code: one
  pivot labelled 1, the first evaluated of the rows tied at the best value), ``"gbopt-ties"``
  (every tied best row labelled 1) or ``"monotone"`` (pivot labels, a monotone rescaling of
  the prediction), see :mod:`nmthpo.models.influence`.

The graph depends only on ``X`` and is built once at construction; the inverse of the
unlabelled Laplacian block is downdated in O(u^2) per ``tell``.

Ties: scores within a relative ``tie_rtol`` (default
:data:`~nmthpo.optimizers.settings.GRAPH_TIE_RTOL`, 1e-8 since issue 25; 1e-9 before, below the
noise measured between CPUs) of the maximum are treated as equal before the random tie-break of
:meth:`TableOptimizer.argmax_candidate`, so that rounding noise (another CPU's SIMD loops, the
fast against the naive EIF, symmetric grid points) never decides.
Before any row is labelled every candidate scores 0, i.e. the choice is uniformly random.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nmthpo.optimizers.base import TableOptimizer, snap_ties
from nmthpo.optimizers.settings import GRAPH_TIE_RTOL, ROWS, setting

# SciPy comes in with nmthpo.models: imported where used, so that reading GraphSMBO.Settings
# (``nmthpo run --set`` checks, ``nmthpo methods``) stays cheap (nmthpo.optimizers.settings)

__all__ = [
    "ACQUISITIONS",
    "EIF_METHODS",
    "GraphSMBO",
    "GraphSMBOSettings",
    "KERNELS",
    "snap_ties",
]

KERNELS = ("matern52", "rbf")
ACQUISITIONS = ("ei", "eif")
EIF_METHODS = ("fast", "naive")


@dataclass(frozen=True)
class GraphSMBOSettings:
    """Settings of :class:`GraphSMBO` (see its parameters)."""

    kernel: str = setting(
        "matern52", "edge-weight kernel of the graph: matern52, rbf", choices=("matern52", "rbf")
    )
    acquisition: str = setting(
        "eif", "ei (expected improvement) or eif (expected influence)", choices=("ei", "eif")
    )
    k: int | None = setting(
        None, "kNN neighbourhood size (None: mean degree closest to n/7)", low=1, high=ROWS
    )
    lengthscale: float | None = setting(
        None, "kernel length scale (None: median pairwise distance)", low=0.0, low_open=True
    )
    eps: float | None = setting(
        None, "ghost-node weight 1/sigma^2 (None: 1e-6 x mean degree)", low=0.0, low_open=True
    )
    ei_scale: float = setting(1.0, "multiplier of the GRF posterior std in EI", low=0.0)
    eif_method: str = setting(
        "fast", "fast (rank-one updates) or naive (re-solve per row)", choices=("fast", "naive")
    )
    eif_mode: str = setting(
        "text",
        "reading of Eq. 8: text, gbopt, gbopt-ties, monotone",
        choices=("text", "gbopt", "gbopt-ties", "monotone"),
    )
    refresh_every: int = setting(
        200, "recompute the inverse after this many downdates (0: never)", low=0, high=1_000_000
    )
    tie_rtol: float = setting(
        GRAPH_TIE_RTOL, "relative tolerance for treating scores as tied", low=0.0, high=1.0
    )


class GraphSMBO(TableOptimizer):
    """Graph-based SMBO over the rows of a table (Zhang & Duh 2020, Section 5.3).

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Encoded configurations of every row.
    rng : numpy.random.Generator
        Used only for tie-breaking.
    objective : {"bleu"}
    kernel : {"matern52", "rbf"}
        Edge-weight kernel of the graph (footnote 16).
    acquisition : {"ei", "eif"}
    k : int, optional
        kNN neighbourhood size; ``None``: mean degree closest to ``n / 7`` (footnote 12).
    lengthscale : float, optional
        Kernel length scale; ``None``: median pairwise distance.
    eps : float, optional
        ``1 / sigma^2`` regularisation (ghost-node weight); ``None``: 1e-6 x mean degree.
    ei_scale : float
        Multiplier of the GRF posterior standard deviation in EI (``beta / ei_scale^2``).
    eif_method : {"fast", "naive"}
    eif_mode : {"text", "gbopt", "gbopt-ties", "monotone"}
        Reading of Eq. 8 (:mod:`nmthpo.models.influence`): the paper's text, the authors'
        code (tied pivot included), the earlier all-ties reading of that code, or pivot
        labels with a monotone probability.
    refresh_every : int
        Recompute the inverse from scratch after this many rank-one downdates (0: never).
    tie_rtol : float
        Relative tolerance for treating scores as tied.
    """

    objectives = ("bleu",)
    Settings = GraphSMBOSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        *,
        kernel: str = "matern52",
        acquisition: str = "eif",
        k: int | None = None,
        lengthscale: float | None = None,
        eps: float | None = None,
        ei_scale: float = 1.0,
        eif_method: str = "fast",
        eif_mode: str = "text",
        refresh_every: int = 200,
        tie_rtol: float = GRAPH_TIE_RTOL,
        **settings: Any,
    ) -> None:
        from nmthpo.models.graph import GraphSurrogate, build_graph
        from nmthpo.models.influence import EIF_MODES

        super().__init__(X, rng, objective, **settings)
        for name, value, valid in (
            ("kernel", kernel, KERNELS),
            ("acquisition", acquisition, ACQUISITIONS),
            ("eif_method", eif_method, EIF_METHODS),
            ("eif_mode", eif_mode, EIF_MODES),
        ):
            if value not in valid:
                raise ValueError(f"unknown {name} {value!r}; valid: {', '.join(valid)}")
        if not (np.isfinite(ei_scale) and ei_scale > 0):
            raise ValueError(f"ei_scale must be a positive number; got {ei_scale}")
        if not tie_rtol >= 0:
            raise ValueError(f"tie_rtol must be >= 0; got {tie_rtol}")
        self.acquisition = acquisition
        self.eif_method = eif_method
        self.eif_mode = eif_mode
        self.tie_rtol = float(tie_rtol)
        self.ei_scale = float(ei_scale)
        self.graph = build_graph(self.X, kernel=kernel, k=k, lengthscale=lengthscale)
        self.surrogate = GraphSurrogate(self.graph.W, eps=eps, refresh_every=refresh_every)

    @property
    def k(self) -> int:
        """The kNN neighbourhood size in use."""
        return self.graph.k

    def tell(self, row: int, y: float | np.ndarray) -> None:
        value = float(y)  # type: ignore[arg-type]
        if not np.isfinite(value):
            raise ValueError(f"observed value of row {row} is not finite: {y}")
        super().tell(row, value)
        self.surrogate.add(int(row), value)

    def scores(self) -> np.ndarray:
        """Acquisition value of every row (``NaN`` or meaningless on evaluated rows)."""
        if not self.rows:
            return np.zeros(self.n)
        if self.acquisition == "eif":
            return self.surrogate.eif(self.eif_method, self.eif_mode)
        from nmthpo.models.acquisition import expected_improvement

        mean, std = self.surrogate.posterior()
        return expected_improvement(mean, self.ei_scale * std, float(np.max(self.ys)))

    def ask(self) -> int:
        self.remaining()  # raises once every row has been evaluated
        s = self.scores()
        s[self.observed] = np.nan
        return self.argmax_candidate(s, self.tie_rtol)

    def predict_mean(self) -> np.ndarray:
        """Propagated BLEU for every row (labelled rows: their labels; none yet: zeros)."""
        if not self.rows:
            return np.zeros(self.n)
        return self.surrogate.predict()
