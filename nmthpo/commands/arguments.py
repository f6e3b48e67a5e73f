"""Argument types shared by every sub-command: numbers with a lower bound.

An argparse ``type=`` callable that raises :class:`argparse.ArgumentTypeError` makes argparse
print ``nmthpo <command>: error: argument --x: <message>`` and exit with status 2, before any
work starts.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

__all__ = ["at_least", "nonneg_float", "nonneg_int", "positive_int"]


def at_least(low: float, kind: type = int) -> Callable[[str], float]:
    """An argparse type: a finite ``kind`` (``int`` or ``float``) that is at least ``low``."""
    what = "an integer" if kind is int else "a number"

    def parse(text: str) -> float:
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not (math.isfinite(v) and v >= low):
            raise argparse.ArgumentTypeError(f"must be >= {low:g}, got {text}")
        return v

    parse.__name__ = f"{kind.__name__}>={low:g}"
    return parse


positive_int = at_least(1)
nonneg_int = at_least(0)
nonneg_float = at_least(0, float)
