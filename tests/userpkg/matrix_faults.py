"""Faulty user optimisers and HPO-B functions for the bad-input matrix (tests/cli).

Every class follows the ask/tell protocol without importing nmthpo (as ``mymod`` does), and
breaks it in one way: it raises (in ``__init__``, at the first ``ask``, in the middle of a
run, in ``tell``) or ``ask`` returns what the protocol refuses (``None``, a float, a string,
an array, a bool, a row id outside the table, a row already evaluated). The ``hpob_*``
functions do the same through HPO-B's ``observe_and_suggest``.

Importing this module raises when the environment variable :data:`IMPORT_FAULT_ENV` is set:
the "raises at import" case of the matrix.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

__all__ = [
    "IMPORT_FAULT_ENV",
    "AskFirstRaises",
    "AskMidRaises",
    "InitRaises",
    "ReturnsArray",
    "ReturnsBool",
    "ReturnsFloat",
    "ReturnsNegative",
    "ReturnsNone",
    "ReturnsOutOfRange",
    "ReturnsRepeated",
    "ReturnsString",
    "TellRaises",
    "hpob_float",
    "hpob_none",
    "hpob_out_of_range",
    "hpob_negative",
    "hpob_raises",
    "hpob_string",
]

#: Set this variable (to anything) and ``import tests.userpkg.matrix_faults`` raises.
IMPORT_FAULT_ENV = "NMTHPO_MATRIX_IMPORT_FAULT"

if os.environ.get(IMPORT_FAULT_ENV):
    raise RuntimeError("matrix-import-boom: this module refuses to be imported")


class _Base:
    """Random search over unevaluated rows (the well-behaved part every fault builds on)."""

    objectives = ("bleu",)

    def __init__(self, X: Any, rng: np.random.Generator, objective: str = "bleu") -> None:
        self.X = np.asarray(X, dtype=float)
        self.rng = rng
        self.seen = np.zeros(len(self.X), dtype=bool)
        self.told: list[int] = []
        self.asks = 0

    def ask(self) -> Any:
        self.asks += 1
        return int(self.rng.choice(np.flatnonzero(~self.seen)))

    def tell(self, row: int, y: Any) -> None:
        self.seen[row] = True
        self.told.append(int(row))


class InitRaises(_Base):
    """Raises while being built."""

    def __init__(self, X: Any, rng: np.random.Generator, objective: str = "bleu") -> None:
        raise ZeroDivisionError("matrix-init-boom")


class AskFirstRaises(_Base):
    """Raises at its first ``ask``."""

    def ask(self) -> Any:
        raise KeyError("matrix-ask-first-boom")


class AskMidRaises(_Base):
    """Answers four asks, then raises."""

    def ask(self) -> Any:
        if self.asks >= 4:
            raise ArithmeticError("matrix-ask-mid-boom")
        return super().ask()


class TellRaises(_Base):
    """Raises when told a result."""

    def tell(self, row: int, y: Any) -> None:
        raise LookupError("matrix-tell-boom")


def _returning(value: Any, name: str) -> type:
    def ask(self: _Base) -> Any:
        self.asks += 1
        return value() if callable(value) else value

    return type(name, (_Base,), {"ask": ask, "__doc__": f"``ask`` returns {value!r}."})


ReturnsNone = _returning(None, "ReturnsNone")
ReturnsFloat = _returning(3.5, "ReturnsFloat")
ReturnsString = _returning("12", "ReturnsString")
ReturnsArray = _returning(lambda: np.array([1, 2]), "ReturnsArray")
ReturnsBool = _returning(True, "ReturnsBool")
ReturnsOutOfRange = _returning(10**6, "ReturnsOutOfRange")
ReturnsNegative = _returning(-1, "ReturnsNegative")
for _cls in (
    ReturnsNone,
    ReturnsFloat,
    ReturnsString,
    ReturnsArray,
    ReturnsBool,
    ReturnsOutOfRange,
    ReturnsNegative,
):
    _cls.__module__ = __name__


class ReturnsRepeated(_Base):
    """Proposes a row it was already told (the first one), from its first ``ask`` on."""

    def ask(self) -> Any:
        self.asks += 1
        return self.told[0] if self.told else 0


# -- HPO-B functions: observe_and_suggest(X_obs, y_obs, X_pen) -> index into X_pen ---------------
def hpob_float(X_obs: Any, y_obs: Any, X_pen: Any) -> Any:
    """Returns a float."""
    return 0.5


def hpob_string(X_obs: Any, y_obs: Any, X_pen: Any) -> Any:
    """Returns a string."""
    return "1"


def hpob_none(X_obs: Any, y_obs: Any, X_pen: Any) -> Any:
    """Returns nothing."""
    return None


def hpob_out_of_range(X_obs: Any, y_obs: Any, X_pen: Any) -> Any:
    """Returns an index past the end of ``X_pen``."""
    return len(X_pen) + 10


def hpob_negative(X_obs: Any, y_obs: Any, X_pen: Any) -> Any:
    """Returns a negative index (Python would wrap it; the protocol does not)."""
    return -1


def hpob_raises(X_obs: Any, y_obs: Any, X_pen: Any) -> Any:
    """Raises."""
    raise FloatingPointError("matrix-hpob-boom")
