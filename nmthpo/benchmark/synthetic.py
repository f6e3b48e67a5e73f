"""Synthetic test functions and random sub-boxes (Ariafar et al. 2022, synthetic experiments).

The paper builds intuition on synthetic functions before the neural-network tuning problems;
we use the two classical Bayesian-optimisation benchmarks, Branin (2-D) and Hartmann-6, with
candidate search spaces that are random axis-aligned sub-boxes of the full box at given
volume fractions.

Conventions (choices the paper's text leaves open):

* Every function is written on the unit cube ``[0, 1]^d`` (inputs are mapped affinely to the
  function's native box) and is to be **maximised**, like BLEU: we return ``-branin`` and the
  positive Hartmann-6 sum, so the scores' "improvement" has one meaning in the whole package.
* A sub-box of volume fraction ``v`` has side lengths ``s_i = v ** w_i`` with ``w`` drawn from
  a flat Dirichlet distribution (so ``prod s_i = v`` and every side lies in ``[v, 1]``), and a
  lower corner uniform in ``[0, 1 - s_i]``; ``v = 1`` is the full box.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from nmthpo.errors import InputKeyError

__all__ = [
    "BRANIN",
    "FUNCTIONS",
    "HARTMANN6",
    "Box",
    "SyntheticFunction",
    "branin",
    "dense_sample",
    "get_function",
    "hartmann6",
    "random_box",
    "random_boxes",
]


def _unit(X: np.ndarray, d: int) -> np.ndarray:
    U = np.asarray(X, dtype=float)
    if U.ndim == 1:
        U = U[None, :]
    if U.ndim != 2 or U.shape[1] != d:
        raise ValueError(f"expected points of shape (n, {d}) in [0, 1]^{d}; got {U.shape}")
    return U


def branin(X: np.ndarray) -> np.ndarray:
    """Negated Branin-Hoo function on ``[0, 1]^2`` (to be maximised).

    ``x1 = -5 + 15 u1``, ``x2 = 15 u2``;
    ``f = a (x2 - b x1^2 + c x1 - r)^2 + s (1 - t) cos(x1) + s`` with ``a = 1``,
    ``b = 5.1 / (4 pi^2)``, ``c = 5 / pi``, ``r = 6``, ``s = 10``, ``t = 1 / (8 pi)``;
    returns ``-f``, whose maximum is ``-0.397887`` (at three points).
    """
    U = _unit(X, 2)
    x1 = -5.0 + 15.0 * U[:, 0]
    x2 = 15.0 * U[:, 1]
    b = 5.1 / (4.0 * np.pi**2)
    c = 5.0 / np.pi
    t = 1.0 / (8.0 * np.pi)
    f = (x2 - b * x1**2 + c * x1 - 6.0) ** 2 + 10.0 * (1.0 - t) * np.cos(x1) + 10.0
    return np.asarray(-f)


_H6_ALPHA = np.array([1.0, 1.2, 3.0, 3.2])
_H6_A = np.array(
    [
        [10.0, 3.0, 17.0, 3.5, 1.7, 8.0],
        [0.05, 10.0, 17.0, 0.1, 8.0, 14.0],
        [3.0, 3.5, 1.7, 10.0, 17.0, 8.0],
        [17.0, 8.0, 0.05, 10.0, 0.1, 14.0],
    ]
)
_H6_P = 1e-4 * np.array(
    [
        [1312, 1696, 5569, 124, 8283, 5886],
        [2329, 4135, 8307, 3736, 1004, 9991],
        [2348, 1451, 3522, 2883, 3047, 6650],
        [4047, 8828, 8732, 5743, 1091, 381],
    ]
)


def hartmann6(X: np.ndarray) -> np.ndarray:
    """Hartmann-6 on ``[0, 1]^6``, sign chosen for maximisation.

    ``f(x) = sum_i alpha_i exp(-sum_j A_ij (x_j - P_ij)^2)``; maximum ``3.32237`` at
    ``(0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573)``.
    """
    U = _unit(X, 6)
    inner = np.einsum("ij,nij->ni", _H6_A, (U[:, None, :] - _H6_P[None, :, :]) ** 2)
    return np.asarray(np.exp(-inner) @ _H6_ALPHA)


@dataclass(frozen=True)
class SyntheticFunction:
    """A test function on the unit cube, to be maximised, with its known maximum."""

    name: str
    dim: int
    func: Callable[[np.ndarray], np.ndarray]
    maximum: float

    def __call__(self, X: np.ndarray) -> np.ndarray:
        return self.func(X)


BRANIN = SyntheticFunction("branin", 2, branin, -0.397887357729738)
HARTMANN6 = SyntheticFunction("hartmann6", 6, hartmann6, 3.322368011391339)

#: Registered synthetic functions by name.
FUNCTIONS: dict[str, SyntheticFunction] = {"branin": BRANIN, "hartmann6": HARTMANN6}


def get_function(name: str) -> SyntheticFunction:
    """The synthetic function called ``name``; unknown names raise ``KeyError``."""
    if name not in FUNCTIONS:
        raise InputKeyError(f"unknown synthetic function {name!r}; valid: {', '.join(FUNCTIONS)}")
    return FUNCTIONS[name]


@dataclass(frozen=True)
class Box:
    """An axis-aligned box ``[lower, upper]`` inside the unit cube."""

    lower: np.ndarray
    upper: np.ndarray

    def __post_init__(self) -> None:
        lo, hi = np.asarray(self.lower, float), np.asarray(self.upper, float)
        if lo.shape != hi.shape or lo.ndim != 1:
            raise ValueError(f"lower and upper must be 1-d of equal length; {lo.shape}, {hi.shape}")
        if np.any(lo < 0) or np.any(hi > 1) or np.any(hi <= lo):
            raise ValueError("a box needs 0 <= lower < upper <= 1 in every dimension")
        object.__setattr__(self, "lower", lo)
        object.__setattr__(self, "upper", hi)

    @property
    def dim(self) -> int:
        """Dimension of the box."""
        return int(self.lower.size)

    @property
    def volume(self) -> float:
        """Volume (= fraction of the unit cube)."""
        return float(np.prod(self.upper - self.lower))

    def contains(self, X: np.ndarray) -> np.ndarray:
        """Boolean mask of the points of ``X`` inside the box."""
        X = np.asarray(X, dtype=float)
        return np.all((X >= self.lower) & (X <= self.upper), axis=1)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` i.i.d. uniform points of the box, shape ``(n, d)``."""
        return self.lower + (self.upper - self.lower) * rng.random((n, self.dim))

    def from_unit(self, U: np.ndarray) -> np.ndarray:
        """Map points of the unit cube affinely onto the box."""
        return self.lower + (self.upper - self.lower) * np.asarray(U, dtype=float)


def random_box(dim: int, fraction: float, rng: np.random.Generator) -> Box:
    """A random sub-box of ``[0, 1]^dim`` with volume ``fraction`` (module docstring)."""
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"volume fraction must be in (0, 1]; got {fraction}")
    if dim < 1:
        raise ValueError(f"dim must be >= 1; got {dim}")
    if fraction == 1.0:
        return Box(np.zeros(dim), np.ones(dim))
    w = rng.dirichlet(np.ones(dim))
    side = fraction**w
    lower = (1.0 - side) * rng.random(dim)
    return Box(lower, np.minimum(lower + side, 1.0))


def random_boxes(
    dim: int,
    fractions: tuple[float, ...] | list[float],
    per_fraction: int,
    rng: np.random.Generator,
) -> list[tuple[float, Box]]:
    """``per_fraction`` random boxes at every fraction (one box for fraction 1, the full box)."""
    if per_fraction < 1:
        raise ValueError(f"per_fraction must be >= 1; got {per_fraction}")
    out: list[tuple[float, Box]] = []
    for v in fractions:
        k = 1 if v == 1.0 else per_fraction
        out.extend((float(v), random_box(dim, float(v), rng)) for _ in range(k))
    return out


def dense_sample(box: Box, m: int, rng: np.random.Generator) -> np.ndarray:
    """A scrambled Sobol' sample of ``m`` points of ``box`` (for quasi-exact empirical scores).

    ``m`` is rounded up to a power of two (Sobol' balance properties).
    """
    if m < 1:
        raise ValueError(f"m must be >= 1; got {m}")
    k = int(np.ceil(np.log2(m)))
    from scipy.stats import qmc  # here: listing the functions needs no SciPy

    sobol = qmc.Sobol(d=box.dim, scramble=True, seed=rng)
    return box.from_unit(sobol.random_base2(k))
