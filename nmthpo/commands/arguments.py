"""Argument types shared by every sub-command: bounded numbers, size limits, lists.

An argparse ``type=`` callable that raises :class:`argparse.ArgumentTypeError` makes argparse
print ``nmthpo: error: argument --x: <message>`` and exit with status 2, before any work
starts. Upper limits keep a run's memory bounded (a trial's arrays grow with its size); they
are stated in each option's ``--help`` (see :data:`LIMITS`).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

from nmthpo.errors import LIMITS as _LIMITS
from nmthpo.errors import InputError, check_display_name

__all__ = [
    "LIMITS",
    "at_least",
    "bounded",
    "display_name",
    "int_list",
    "limit_help",
    "nonneg_float",
    "nonneg_int",
    "positive_int",
]

#: Documented upper limits of sizes: the one table of :mod:`nmthpo.errors` (API and CLI alike).
LIMITS = _LIMITS


def limit_help(name: str) -> str:
    """``"at most N"`` for the limit ``name`` of :data:`LIMITS`, for an option's help."""
    return f"at most {LIMITS[name]:,}"


def display_name(text: str) -> str:
    """An argparse type: a run's display name (:func:`nmthpo.errors.check_display_name`)."""
    try:
        return check_display_name(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[-1]) from None


def bounded(low: float, high: float | None = None, kind: type = int) -> Callable[[str], float]:
    """An argparse type: a finite ``kind`` (``int`` or ``float``) in ``[low, high]``."""
    what = "an integer" if kind is int else "a number"

    def parse(text: str) -> float:
        try:
            v = kind(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
        if v < low:
            raise argparse.ArgumentTypeError(f"must be >= {low:g}, got {text}")
        if high is not None and v > high:
            raise argparse.ArgumentTypeError(
                f"must be at most {high:,} (a documented limit that keeps memory bounded), "
                f"got {text}"
            )
        return v

    parse.__name__ = f"{kind.__name__}>={low:g}"
    return parse


def at_least(low: float, kind: type = int) -> Callable[[str], float]:
    """An argparse type: a finite ``kind`` (``int`` or ``float``) that is at least ``low``."""
    return bounded(low, None, kind)


def int_list(
    low: int = 1, high: int | None = None, example: str = "1,2,5"
) -> Callable[[str], list[int]]:
    """An argparse type: comma-separated integers, each in ``[low, high]``, at least one."""
    one = bounded(low, high)

    def parse(text: str) -> list[int]:
        toks = [t.strip() for t in text.split(",") if t.strip()]
        if not toks:
            raise argparse.ArgumentTypeError(f"lists no number; give e.g. {example}")
        out = []
        for tok in toks:
            try:
                out.append(int(one(tok)))
            except argparse.ArgumentTypeError as exc:
                raise argparse.ArgumentTypeError(
                    f"{tok!r} in {text!r}: {exc}; give comma-separated integers such as {example}"
                ) from None
        return out

    parse.__name__ = "list of integers"
    return parse


positive_int = at_least(1)
nonneg_int = at_least(0)
nonneg_float = at_least(0, float)
