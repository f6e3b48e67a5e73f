"""Intervals, paired comparisons and the one claims type every chapter uses.

Every check of a paper's statement goes through :class:`Claim`: the statement, the paper's
value, ours with a 95 % interval where one can be computed, and a verdict from one vocabulary
(:data:`VERDICTS`) that follows from the interval, never from a mean alone:

``reproduced``
    the whole interval lies on the side of the statement (or inside its tolerance);
``not reproduced``
    the whole interval lies on the other side;
``partly``
    the interval straddles the boundary (the data neither confirm nor refute the statement at
    95 %), or a composite statement holds for some of its parts only;
``not testable``
    the released data cannot test it (say why in the claim's note).

Intervals are percentile bootstraps over *trials*. Trials of different methods on one task
share their initial rows (:func:`nmthpo.engine.runner.initial_rows`), so two methods are
compared by resampling trial indices *jointly* (:func:`paired_bootstrap`): the interval of a
difference or a ratio then reflects the pairing, as the paper's "averaged over 100 trials"
comparisons do. The bootstrap is written here rather than taken from
:func:`scipy.stats.bootstrap` because the statistics of interest are ratios and differences of
means of several paired samples resampled with *one* index draw (``scipy.stats.bootstrap``'s
``paired=True`` covers this for one statistic but recomputes the statistic in Python per
resample; the vectorised index draw below is 20-50x faster for the chapters' thousands of
intervals) and because every interval must be reproducible from an explicit seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

__all__ = [
    "CONFIDENCE",
    "N_BOOT",
    "VERDICTS",
    "Claim",
    "bootstrap_mean",
    "claims_frame",
    "count_verdict",
    "interval_verdict",
    "paired_bootstrap",
    "paired_difference",
    "paired_ratio",
]

#: The one verdict vocabulary of the book.
VERDICTS: tuple[str, ...] = ("reproduced", "partly", "not reproduced", "not testable")
#: Coverage of every interval in the book.
CONFIDENCE: float = 0.95
#: Bootstrap resamples per interval.
N_BOOT: int = 2000


def _rng(seed: int | np.random.Generator) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _quantiles(draws: np.ndarray, level: float) -> tuple[float, float]:
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
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

    Parameters
    ----------
    samples : sequence of arrays of equal length ``n``
        Paired observations: entry ``i`` of every array belongs to trial ``i``.
    statistic : callable
        ``statistic(*arrays)`` where each array has shape ``(B, n)`` (``B`` resamples of the
        trials) returns shape ``(B,)``; it is also called once on the original samples with
        shape ``(1, n)``.
    n_boot, level, seed
        Resamples, coverage and the seed (or generator) of the index draws.

    Returns
    -------
    (estimate, low, high) : tuple of float
    """
    arrays = [np.asarray(s, dtype=float) for s in samples]
    n = arrays[0].shape[0]
    if n == 0 or any(a.shape != (n,) for a in arrays):
        raise ValueError("paired samples must be 1-d arrays of one non-zero length")
    est = float(np.asarray(statistic(*[a[None, :] for a in arrays]))[0])
    idx = _rng(seed).integers(0, n, size=(n_boot, n))
    draws = np.asarray(statistic(*[a[idx] for a in arrays]), dtype=float)
    lo, hi = _quantiles(draws, level)
    return est, lo, hi


def bootstrap_mean(values: np.ndarray, n_boot: int = N_BOOT, level: float = CONFIDENCE,
                   seed: int | np.random.Generator = 0) -> tuple[float, float, float]:
    """Mean of ``values`` with a percentile bootstrap interval (NaNs are an error)."""
    v = np.asarray(values, dtype=float)
    if np.isnan(v).any():
        raise ValueError("values hold NaN; drop or count them before taking an interval")
    return paired_bootstrap([v], lambda a: a.mean(axis=1), n_boot, level, seed)


def paired_difference(a: np.ndarray, b: np.ndarray, n_boot: int = N_BOOT,
                      level: float = CONFIDENCE, seed: int | np.random.Generator = 0,
                      ) -> tuple[float, float, float]:
    """``mean(a) - mean(b)`` over paired trials, with its paired bootstrap interval."""
    return paired_bootstrap([a, b], lambda x, y: x.mean(axis=1) - y.mean(axis=1),
                            n_boot, level, seed)


def paired_ratio(a: np.ndarray, b: np.ndarray, n_boot: int = N_BOOT,
                 level: float = CONFIDENCE, seed: int | np.random.Generator = 0,
                 ) -> tuple[float, float, float]:
    """``mean(a) / mean(b)`` over paired trials, with its paired bootstrap interval."""
    def ratio(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return x.mean(axis=1) / y.mean(axis=1)

    return paired_bootstrap([a, b], ratio, n_boot, level, seed)


def interval_verdict(low: float, high: float, bound: float, holds: str = "below") -> str:
    """The verdict on "the quantity lies ``holds`` ``bound``" given its interval.

    ``holds`` is ``"below"`` or ``"above"``: ``reproduced`` when the whole interval lies on
    that side of ``bound``, ``not reproduced`` when it lies wholly on the other side,
    ``partly`` when it straddles ``bound``; ``not testable`` when the interval is undefined.
    """
    if holds not in ("below", "above"):
        raise ValueError(f"holds must be 'below' or 'above', got {holds!r}")
    if not (np.isfinite(low) and np.isfinite(high)):
        return "not testable"
    if holds == "above":
        low, high, bound = -high, -low, -bound
    if high < bound:
        return "reproduced"
    if low > bound:
        return "not reproduced"
    return "partly"


def count_verdict(holds: int, refuted: int, parts: int) -> str:
    """Verdict on a composite statement of ``parts`` parts ("k of 6 tasks").

    ``holds`` parts were confirmed by their intervals and ``refuted`` contradicted; the rest
    are ties. All confirmed: ``reproduced``; none confirmed: ``not reproduced``; else
    ``partly``.
    """
    if not 0 <= holds + refuted <= parts:
        raise ValueError(f"holds + refuted must lie in [0, {parts}], got {holds} + {refuted}")
    if parts == 0:
        return "not testable"
    if holds == parts:
        return "reproduced"
    if holds == 0:
        return "not reproduced"
    return "partly"


@dataclass(frozen=True)
class Claim:
    """One statement of a paper checked against our results.

    Attributes
    ----------
    claim : str
        The statement, in the paper's words where possible.
    source : str
        Where the paper makes it (section, table or figure).
    paper : str
        The paper's value as the paper states it ("4 of 6", "0.74", "beats RS").
    ours : float or str
        Our estimate (a number where one exists).
    low, high : float
        Our 95 % interval (NaN where none can be computed: say why in ``note``).
    verdict : str
        One of :data:`VERDICTS`, following from the interval.
    note : str
        How the interval was computed and anything the reader must know.
    """

    claim: str
    source: str
    paper: str
    ours: float | str
    low: float
    high: float
    verdict: str
    note: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {VERDICTS}")


def claims_frame(claims: Sequence[Claim], decimals: int = 3) -> pd.DataFrame:
    """The book's claims table: one row per claim, readable column names, rounded numbers."""
    rows = []
    for c in claims:
        d = asdict(c)
        for k in ("ours", "low", "high"):
            if isinstance(d[k], float):
                d[k] = round(d[k], decimals)
        rows.append(d)
    frame = pd.DataFrame(rows, columns=["claim", "source", "paper", "ours", "low", "high",
                                        "verdict", "note"])
    return frame.rename(columns={"claim": "claim", "source": "where in the paper",
                                 "paper": "paper", "ours": "ours", "low": "95% CI low",
                                 "high": "95% CI high", "verdict": "verdict", "note": "note"})
