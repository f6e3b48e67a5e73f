"""Intervals and paired comparisons: the statistics every claim of the book rests on.

The claims themselves (records, the one rule set, the evaluator) are
:mod:`nmthpo.engine.claims`; :func:`check_claims_table` checks a table that carries verdicts.

Intervals are percentile bootstraps over *trials*. Trials of different methods on one task
share their initial rows (:func:`nmthpo.engine.runner.initial_rows`), so two methods are
compared by resampling trial indices *jointly* (:func:`paired_bootstrap`): the interval of a
difference or a ratio then reflects the pairing, as the paper's "averaged over 100 trials"
comparisons do. The bootstrap is written here rather than taken from
:func:`scipy.stats.bootstrap` because the statistics of interest are ratios and differences of
means of several paired samples resampled with *one* index draw (``scipy.stats.bootstrap``'s
``paired=True`` covers this for one statistic but recomputes the statistic in Python per
resample; the vectorised index draw below is 20-50x faster for the chapters' thousands of
intervals) and because every interval must be reproducible from an explicit seed. Where a
chapter already has a standard error (Chapter 5's simulation means), :func:`normal_interval`
gives the matching normal interval.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy.stats import norm

from nmthpo.engine.verdicts import VERDICTS

__all__ = [
    "CONFIDENCE",
    "INTERVAL_COLUMNS",
    "N_BOOT",
    "VERDICTS",
    "bootstrap_mean",
    "check_claims_table",
    "normal_interval",
    "paired_bootstrap",
    "paired_difference",
    "paired_ratio",
]

#: Coverage of every interval in the book.
CONFIDENCE: float = 0.95
#: Bootstrap resamples per interval.
N_BOOT: int = 2000
#: The interval columns of every claims table (:func:`claims_frame`).
INTERVAL_COLUMNS: tuple[str, str] = ("95% CI low", "95% CI high")

#: Resampled values held in memory at once by :func:`paired_bootstrap` (per sample array).
_CHUNK_VALUES = 4_000_000


def _rng(seed: int | np.random.Generator) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")


def _quantiles(draws: np.ndarray, level: float) -> tuple[float, float]:
    _check_level(level)
    a = (1 - level) / 2
    finite = draws[np.isfinite(draws)]
    if finite.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(finite, [a, 1 - a])
    return float(lo), float(hi)


def paired_bootstrap(
    samples: Sequence[np.ndarray] | np.ndarray,
    statistic: Callable[..., np.ndarray],
    n_boot: int = N_BOOT,
    level: float = CONFIDENCE,
    seed: int | np.random.Generator = 0,
) -> tuple[float, float, float]:
    """Estimate and percentile interval of ``statistic`` over paired samples.

    One draw of ``n`` trial indices (with replacement) per resample is applied to *every*
    sample, so trials that belong together (the same trial index of two methods, which share
    their initial rows) stay together.

    Parameters
    ----------
    samples : sequence of arrays whose first axis has one length ``n``
        Paired observations: entry ``i`` (along the first axis) of every array belongs to
        trial ``i``. Further axes (steps of a curve, targets of a trial) are carried along.
    statistic : callable
        ``statistic(*arrays)`` where each array has shape ``(B, n, ...)`` (``B`` resamples of
        the trials) returns shape ``(B,)``; it is also called once on the original samples with
        shape ``(1, n, ...)``. Resamples whose statistic is not finite are dropped.
    n_boot, level, seed
        Resamples, coverage and the seed (or generator) of the index draws.

    Returns
    -------
    (estimate, low, high) : tuple of float
        ``low, high`` are ``NaN`` when no resample gives a finite statistic.

    Examples
    --------
    >>> a, b = np.array([3.0, 5.0, 4.0]), np.array([1.0, 2.0, 3.0])
    >>> est, lo, hi = paired_bootstrap([a, b], lambda x, y: (x - y).mean(axis=1))
    >>> est, lo <= est <= hi
    (2.0, True)
    """
    arrays = [np.asarray(s, dtype=float) for s in samples]
    if not arrays or any(a.ndim == 0 for a in arrays):
        raise ValueError("give at least one sample array with a trial axis")
    n = arrays[0].shape[0]
    if n == 0 or any(a.shape[0] != n for a in arrays):
        raise ValueError(
            "paired samples must share one non-zero length along their first "
            f"axis; got shapes {[a.shape for a in arrays]}"
        )
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    _check_level(level)
    est = float(np.asarray(statistic(*[a[None] for a in arrays]), dtype=float).reshape(-1)[0])
    idx = _rng(seed).integers(0, n, size=(n_boot, n))
    width = max(int(np.prod(a.shape)) for a in arrays)
    chunk = max(1, _CHUNK_VALUES // width)
    draws = np.concatenate(
        [
            np.asarray(statistic(*[a[idx[i : i + chunk]] for a in arrays]), dtype=float).reshape(-1)
            for i in range(0, n_boot, chunk)
        ]
    )
    lo, hi = _quantiles(draws, level)
    return est, lo, hi


def bootstrap_mean(
    values: np.ndarray,
    n_boot: int = N_BOOT,
    level: float = CONFIDENCE,
    seed: int | np.random.Generator = 0,
) -> tuple[float, float, float]:
    """Mean of ``values`` with a percentile bootstrap interval (NaNs are an error)."""
    v = np.asarray(values, dtype=float)
    if np.isnan(v).any():
        raise ValueError("values hold NaN; drop or count them before taking an interval")
    return paired_bootstrap([v], lambda a: a.mean(axis=1), n_boot, level, seed)


def paired_difference(
    a: np.ndarray,
    b: np.ndarray,
    n_boot: int = N_BOOT,
    level: float = CONFIDENCE,
    seed: int | np.random.Generator = 0,
) -> tuple[float, float, float]:
    """``mean(a) - mean(b)`` over paired trials, with its paired bootstrap interval."""
    return paired_bootstrap(
        [a, b], lambda x, y: x.mean(axis=1) - y.mean(axis=1), n_boot, level, seed
    )


def paired_ratio(
    a: np.ndarray,
    b: np.ndarray,
    n_boot: int = N_BOOT,
    level: float = CONFIDENCE,
    seed: int | np.random.Generator = 0,
) -> tuple[float, float, float]:
    """``mean(a) / mean(b)`` over paired trials, with its paired bootstrap interval."""

    def ratio(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return x.mean(axis=1) / y.mean(axis=1)

    return paired_bootstrap([a, b], ratio, n_boot, level, seed)


def normal_interval(estimate: float, se: float, level: float = CONFIDENCE) -> tuple[float, float]:
    """``estimate -/+ z * se`` with ``z`` the normal quantile of ``level`` (1.96 at 95 %).

    For a mean of many independent draws whose standard error is known (Chapter 5's
    simulation means); ``NaN`` when ``se`` is not finite.

    >>> [round(v, 3) for v in normal_interval(10.0, 1.0)]
    [8.04, 11.96]
    """
    _check_level(level)
    if not (np.isfinite(estimate) and np.isfinite(se)) or se < 0:
        return float("nan"), float("nan")
    z = float(norm.ppf(0.5 + level / 2))
    return float(estimate - z * se), float(estimate + z * se)


def check_claims_table(frame: pd.DataFrame) -> None:
    """Raise ``ValueError`` unless ``frame`` is a claims table of the book.

    It must have the interval columns :data:`INTERVAL_COLUMNS` and a ``verdict`` column whose
    words are all in :data:`VERDICTS` (the test every chapter's claims table passes).
    """
    missing = [c for c in (*INTERVAL_COLUMNS, "verdict") if c not in frame.columns]
    if missing:
        raise ValueError(
            f"the claims table lacks columns {missing}; build it with nmthpo.engine.claims.evaluate"
        )
    bad = sorted(set(frame["verdict"]) - set(VERDICTS))
    if bad:
        raise ValueError(f"verdicts {bad} are not in the book's vocabulary {VERDICTS}")
