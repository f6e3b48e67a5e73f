"""The one number formatter of the book: tables, claims and prose print numbers through it.

Each kind of quantity has one precision (:data:`DECIMALS`), so that the same number reads
the same everywhere (a BLEU score always with two decimals, an ftb always with one). Written
by hand because it is a few lines of policy, not an algorithm.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["DECIMALS", "fmt", "fmt_interval", "fmt_pair", "fmt_percent", "join"]

#: Decimal places per quantity; ``None`` means three significant digits.
DECIMALS: dict[str, int | None] = {
    "bleu": 2,  # BLEU scores and BLEU regrets (the tables' precision)
    "evaluations": 1,  # ftb, ftc, fta, fto: models trained
    "count": 0,  # counts of tasks, wins, rows
    "ratio": 2,  # ratios of runtimes, speed-ups
    "fraction": 2,  # shares in [0, 1]
    "percent": 1,  # percentages
    "correlation": 2,  # Spearman, Kendall
    "rank": 2,  # average ranks
    "adtm": 4,  # average distance to the maximum (Eq. 9 of Li et al.: a share of the BLEU range)
    "hypervolume": 3,  # normalised hypervolume and its differences
    "points": 1,  # Pareto points found
    "seconds": 1,
    "p": None,  # p-values: three significant digits
    "auto": None,
}


def _auto_decimals(scale: float) -> int:
    """Decimals that give three significant digits at ``scale`` (at most 0 from 1000 on)."""
    if not math.isfinite(scale) or scale == 0:
        return 2
    if scale >= 1000:
        return 0
    return max(0, 2 - math.floor(math.log10(scale)))


def fmt(value: float | int | None, quantity: str = "auto", scale: float | None = None) -> str:
    """``value`` as the book prints it for ``quantity`` (:data:`DECIMALS`).

    ``NaN`` and None print as ``n/a``; ``-0.0`` prints without its sign. ``scale`` (``auto``
    only): format as a number of that magnitude would be, so that the ends of an interval share
    one precision.

    >>> fmt(14.6612, "bleu"), fmt(31.96, "evaluations"), fmt(0.000123, "p"), fmt(4, "count")
    ('14.66', '32.0', '0.000123', '4')
    >>> fmt(1234.5), fmt(38.04), fmt(0.01234), fmt(float("nan"))
    ('1234', '38.0', '0.0123', 'n/a')
    """
    if quantity not in DECIMALS:
        raise ValueError(f"unknown quantity {quantity!r}; known: {', '.join(DECIMALS)}")
    if value is None:
        return "n/a"
    v = float(value)
    if math.isnan(v):
        return "n/a"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    d = DECIMALS[quantity]
    if d is None and quantity == "auto" and (scale is not None or abs(v) >= 1):
        d = _auto_decimals(abs(v) if scale is None else abs(scale))
    if d is None:
        text = f"{v:.3g}"
    else:
        text = f"{v:.{d}f}"
    if text.startswith("-") and float(text) == 0:
        text = text[1:]
    return text


def fmt_interval(value: float, low: float, high: float, quantity: str = "auto") -> str:
    """``value [low, high]`` in one precision (``value`` alone when the interval is undefined).

    >>> fmt_interval(32.04, 29.13, 35.28, "evaluations")
    '32.0 [29.1, 35.3]'
    """
    if any(x is None or not math.isfinite(float(x)) for x in (low, high)):
        return fmt(value, quantity)
    a, b = fmt_pair(low, high, quantity)
    scale = _scale(low, high)
    return f"{fmt(value, quantity, scale)} [{a}, {b}]"


def _scale(*values: float) -> float | None:
    finite = [abs(float(v)) for v in values if v is not None and math.isfinite(float(v))]
    return max(finite) if finite else None


def fmt_pair(low: float, high: float, quantity: str = "auto") -> tuple[str, str]:
    """The two ends of an interval in one precision.

    >>> fmt_pair(0.5, 1.5), fmt_pair(0.0123, 0.05)
    (('0.50', '1.50'), ('0.0123', '0.0500'))
    """
    scale = _scale(low, high) if quantity == "auto" else None
    return fmt(low, quantity, scale), fmt(high, quantity, scale)


def fmt_percent(value: float) -> str:
    """A share in [0, 1] as a percentage.

    >>> fmt_percent(0.1234)
    '12.3 %'
    """
    return f"{fmt(100 * value, 'percent')} %"


def join(items: Sequence[str]) -> str:
    """``a, b and c``."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
