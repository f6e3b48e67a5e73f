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

The verdict rules, one per kind of statement:

* "the quantity lies below / above a bound": :func:`interval_verdict`;
* "the quantity lies in a band" (the paper's value with our tolerance): :func:`band_verdict`;
* "the quantity equals a value" (theory, or another simulation of the same rules):
  :func:`covers_verdict`;
* "a statement holds on every part" (task, method): :func:`count_verdict` or
  :func:`composite_verdict` over the parts' verdicts;
* "A beats B on k of n tasks": :func:`win_count` counts only wins whose paired interval
  excludes zero and reports the ties; the count then lies in ``[wins, wins + ties]`` and
  :meth:`WinCount.verdict` compares that range with the paper's count.

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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm

from nmthpo.engine.verdicts import VERDICTS

__all__ = [
    "CLAIMS_COLUMNS",
    "CONFIDENCE",
    "INTERVAL_COLUMNS",
    "N_BOOT",
    "VERDICTS",
    "Claim",
    "WinCount",
    "band_verdict",
    "bootstrap_mean",
    "check_claims_table",
    "claims_frame",
    "composite_verdict",
    "count_verdict",
    "covers_verdict",
    "interval_verdict",
    "normal_interval",
    "paired_bootstrap",
    "paired_difference",
    "paired_ratio",
    "win_count",
]

#: Coverage of every interval in the book.
CONFIDENCE: float = 0.95
#: Bootstrap resamples per interval.
N_BOOT: int = 2000
#: The interval columns of every claims table (:func:`claims_frame`).
INTERVAL_COLUMNS: tuple[str, str] = ("95% CI low", "95% CI high")
#: The columns of :func:`claims_frame`, in order (the claim itself is the index).
CLAIMS_COLUMNS: tuple[str, ...] = ("where in the paper", "paper", "ours", *INTERVAL_COLUMNS,
                                   "verdict", "note")

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
        ``low, high`` are NaN when no resample gives a finite statistic.

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
        raise ValueError("paired samples must share one non-zero length along their first "
                         f"axis; got shapes {[a.shape for a in arrays]}")
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    _check_level(level)
    est = float(np.asarray(statistic(*[a[None] for a in arrays]), dtype=float).reshape(-1)[0])
    idx = _rng(seed).integers(0, n, size=(n_boot, n))
    width = max(int(np.prod(a.shape)) for a in arrays)
    chunk = max(1, _CHUNK_VALUES // width)
    draws = np.concatenate([
        np.asarray(statistic(*[a[idx[i:i + chunk]] for a in arrays]), dtype=float).reshape(-1)
        for i in range(0, n_boot, chunk)])
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


def normal_interval(estimate: float, se: float, level: float = CONFIDENCE
                    ) -> tuple[float, float]:
    """``estimate -/+ z * se`` with ``z`` the normal quantile of ``level`` (1.96 at 95 %).

    For a mean of many independent draws whose standard error is known (Chapter 5's
    simulation means); NaN when ``se`` is not finite.

    >>> [round(v, 3) for v in normal_interval(10.0, 1.0)]
    [8.04, 11.96]
    """
    _check_level(level)
    if not (np.isfinite(estimate) and np.isfinite(se)) or se < 0:
        return float("nan"), float("nan")
    z = float(norm.ppf(0.5 + level / 2))
    return float(estimate - z * se), float(estimate + z * se)


def _undefined(low: float, high: float) -> bool:
    return not (np.isfinite(low) and np.isfinite(high))


def interval_verdict(low: float, high: float, bound: float, holds: str = "below") -> str:
    """The verdict on "the quantity lies ``holds`` ``bound``" given its interval.

    ``holds`` is ``"below"`` or ``"above"``: ``reproduced`` when the whole interval lies
    strictly on that side of ``bound``, ``not reproduced`` when it lies wholly on the other side
    or on the bound itself (a quantity of at most 0 is not above 0), ``partly`` when it
    straddles ``bound``; ``not testable`` when the interval is undefined.

    >>> interval_verdict(0.1, 0.3, 0.5), interval_verdict(0.4, 0.6, 0.5)
    ('reproduced', 'partly')
    >>> interval_verdict(0.0, 0.0, 0.0, "above")
    'not reproduced'
    """
    if holds not in ("below", "above"):
        raise ValueError(f"holds must be 'below' or 'above', got {holds!r}")
    if _undefined(low, high):
        return "not testable"
    if holds == "above":
        low, high, bound = -high, -low, -bound
    if high < bound:
        return "reproduced"
    if low >= bound:
        return "not reproduced"
    return "partly"


def band_verdict(low: float, high: float, lower: float, upper: float) -> str:
    """The verdict on "the quantity lies in ``[lower, upper]``" given its interval.

    ``reproduced`` when the interval lies inside the band, ``not reproduced`` when it misses
    the band entirely, ``partly`` when it overlaps the band without lying inside it;
    ``not testable`` when the interval is undefined.

    >>> band_verdict(0.08, 0.12, 0.05, 0.15), band_verdict(-9.0, -4.0, 28.0, 48.0)
    ('reproduced', 'not reproduced')
    """
    if not lower <= upper:
        raise ValueError(f"the band [{lower}, {upper}] is empty; give lower <= upper")
    if _undefined(low, high):
        return "not testable"
    if lower <= low and high <= upper:
        return "reproduced"
    if high < lower or low > upper:
        return "not reproduced"
    return "partly"


def covers_verdict(low: float, high: float, value: float) -> str:
    """The verdict on "the quantity equals ``value``" (up to sampling noise).

    ``reproduced`` when the interval covers ``value``, ``not reproduced`` when it excludes
    it; ``not testable`` when the interval is undefined. Use it for values that theory or
    another simulation of the same rules predicts exactly.

    >>> covers_verdict(19.5, 20.5, 20.0), covers_verdict(19.5, 20.5, 21.0)
    ('reproduced', 'not reproduced')
    """
    if _undefined(low, high) or not np.isfinite(value):
        return "not testable"
    return "reproduced" if low <= value <= high else "not reproduced"


def count_verdict(holds: int, refuted: int, parts: int) -> str:
    """Verdict on a composite statement of ``parts`` parts ("on every task").

    ``holds`` parts were confirmed by their intervals and ``refuted`` contradicted; the rest
    are ties (intervals that neither confirm nor refute). All confirmed: ``reproduced``; none
    confirmed and at least one refuted: ``not reproduced``; no parts: ``not testable``; else
    (some confirmed, or only ties) ``partly``.

    >>> count_verdict(6, 0, 6), count_verdict(4, 2, 6), count_verdict(0, 1, 6)
    ('reproduced', 'partly', 'not reproduced')
    """
    if min(holds, refuted, parts) < 0 or holds + refuted > parts:
        raise ValueError(f"holds + refuted must lie in [0, {parts}], got {holds} + {refuted}")
    if parts == 0:
        return "not testable"
    if holds == parts:
        return "reproduced"
    if holds == 0 and refuted > 0:
        return "not reproduced"
    return "partly"


def composite_verdict(verdicts: Iterable[str]) -> str:
    """:func:`count_verdict` over the verdicts of a statement's parts.

    Parts that are ``not testable`` are left out; ``partly`` parts count as ties.

    >>> composite_verdict(["reproduced", "not reproduced"])
    'partly'
    """
    vs = list(verdicts)
    bad = [v for v in vs if v not in VERDICTS]
    if bad:
        raise ValueError(f"verdicts {bad} are not in {VERDICTS}")
    testable = [v for v in vs if v != "not testable"]
    return count_verdict(testable.count("reproduced"), testable.count("not reproduced"),
                         len(testable))


@dataclass(frozen=True)
class WinCount:
    """How often A beats B over the parts of a comparison, counting only clear wins.

    A win (loss) is a part whose paired interval of the difference lies wholly on A's better
    (worse) side of zero; the rest are ties. The true number of wins therefore lies in
    ``[wins, wins + ties]`` (per-part 95 % intervals, not a simultaneous one).
    """

    wins: int
    ties: int
    losses: int

    @property
    def parts(self) -> int:
        """Number of parts compared."""
        return self.wins + self.ties + self.losses

    def __str__(self) -> str:
        return f"{self.wins} of {self.parts} ({self.ties} ties)"

    def verdict(self, lower: float, upper: float | None = None) -> str:
        """The verdict on "A wins on ``lower``..``upper`` of the parts" (``upper``: ``lower``).

        :func:`band_verdict` of the count range ``[wins, wins + ties]``: ``reproduced`` only if
        every part is decided and the count lies in the band.
        """
        return band_verdict(self.wins, self.wins + self.ties, lower,
                            lower if upper is None else upper)


def win_count(intervals: Iterable[tuple[float, float]], better: str = "below") -> WinCount:
    """Count wins, ties and losses from the paired intervals of ``A - B``, one per part.

    ``better`` says which side of zero favours A (``"below"`` when lower is better, as for
    runtimes and ranks). An interval that touches zero (``[0, 0]``: equal in every resample)
    or is undefined counts as a tie.

    >>> str(win_count([(-3.0, -1.0), (-1.0, 2.0), (1.0, 2.0), (0.0, 0.0)]))
    '1 of 4 (2 ties)'
    """
    if better not in ("below", "above"):
        raise ValueError(f"better must be 'below' or 'above', got {better!r}")
    sign = 1.0 if better == "below" else -1.0
    wins = ties = losses = 0
    for lo, hi in intervals:
        a, b = sorted((sign * lo, sign * hi))
        if _undefined(lo, hi):
            ties += 1
        elif b < 0:
            wins += 1
        elif a > 0:
            losses += 1
        else:
            ties += 1
    return WinCount(wins, ties, losses)


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
        if np.isfinite(self.low) and np.isfinite(self.high) and self.low > self.high:
            raise ValueError(f"interval [{self.low}, {self.high}] of {self.claim!r} is reversed")


def claims_frame(claims: Sequence[Claim], decimals: int = 3) -> pd.DataFrame:
    """The book's claims table: one row per claim, readable column names, rounded numbers.

    The index is the claim itself (named ``claim``); the columns are :data:`CLAIMS_COLUMNS`.
    Numbers are rounded to ``decimals`` places; a missing interval shows as NaN.
    """
    rows = []
    for c in claims:
        d = asdict(c)
        for k in ("ours", "low", "high"):
            if isinstance(d[k], float | np.floating):
                d[k] = round(float(d[k]), decimals)
        rows.append(d)
    frame = pd.DataFrame(rows, columns=["claim", "source", "paper", "ours", "low", "high",
                                        "verdict", "note"])
    frame = frame.rename(columns={"source": "where in the paper", "low": INTERVAL_COLUMNS[0],
                                  "high": INTERVAL_COLUMNS[1]})
    return frame.set_index("claim")


def check_claims_table(frame: pd.DataFrame) -> None:
    """Raise ``ValueError`` unless ``frame`` is a claims table of the book.

    It must have the interval columns :data:`INTERVAL_COLUMNS` and a ``verdict`` column whose
    words are all in :data:`VERDICTS` (the test every chapter's claims table passes).
    """
    missing = [c for c in (*INTERVAL_COLUMNS, "verdict") if c not in frame.columns]
    if missing:
        raise ValueError(f"the claims table lacks columns {missing}; build it with claims_frame")
    bad = sorted(set(frame["verdict"]) - set(VERDICTS))
    if bad:
        raise ValueError(f"verdicts {bad} are not in the book's vocabulary {VERDICTS}")
