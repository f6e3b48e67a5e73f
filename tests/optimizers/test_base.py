"""Tests of nmthpo.optimizers.base's guards of the user's code: integer_like, quote_value,
user_code and user_code_error."""

from __future__ import annotations

import numpy as np
import pytest

from nmthpo.errors import FaultError, InputValueError, UserCodeError
from nmthpo.optimizers.base import QUOTE_CHARS, integer_like, quote_value, user_code


class Index:
    def __index__(self) -> int:
        return 7


class BadIndex:
    def __index__(self) -> int:
        raise ValueError("no")


@pytest.mark.parametrize(
    ("value", "want"),
    [
        (3, 3),
        (np.int64(3), 3),
        (np.uint16(3), 3),
        (np.array(3), 3),  # a 0-d integer array: an unambiguous integer
        (Index(), 7),
        (-2, -2),  # a range is the caller's check
        (True, None),
        (np.True_, None),
        (3.0, None),  # not even an integral float
        (np.float32(3), None),
        ("3", None),
        (None, None),
        (np.array([3]), None),
        (np.array(True), None),
        (np.array(3.0), None),
        (BadIndex(), None),
        ([3], None),
    ],
)
def test_integer_like(value, want):
    got = integer_like(value)
    assert got == want and (got is None or type(got) is int)


def test_quote_value_is_one_cut_line():
    assert quote_value("12") == "'12'"
    long = quote_value(list(range(1000)))
    assert len(long) == QUOTE_CHARS and long.endswith("...")
    assert "\n" not in quote_value(np.arange(100).reshape(10, 10))

    class NoRepr:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    assert quote_value(NoRepr()) == "<NoRepr object>"


def test_user_code_wraps_and_chains():
    exc = ZeroDivisionError("division by zero")
    with pytest.raises(UserCodeError) as err:
        with user_code("ask()", "mymod:Bad", 3):
            raise exc
    assert (
        str(err.value)
        == "method mymod:Bad, trial 3: ask() raised ZeroDivisionError: division by zero"
    )
    assert (err.value.method, err.value.trial, err.value.__cause__) == ("mymod:Bad", 3, exc)
    with pytest.raises(UserCodeError, match="^method m: __init__\\(\\) raised KeyError: 'k'$"):
        with user_code("__init__()", "m"):
            raise KeyError("k")


def test_user_code_wraps_a_stop_iteration():
    """A RuntimeError raised from a StopIteration is no PEP 479 conversion here."""
    with pytest.raises(UserCodeError, match="ask\\(\\) raised StopIteration$"):
        with user_code("ask()", "m", 0):
            raise StopIteration


@pytest.mark.parametrize(
    "exc",
    [
        KeyboardInterrupt(),
        MemoryError(),
        SystemExit(1),
        InputValueError("k=0: must be at least 1"),
        FaultError("disk full"),
        UserCodeError("method m, trial 1: ask() raised X", method="m", trial=1),
    ],
)
def test_user_code_passes_through(exc):
    with pytest.raises(type(exc)) as err:
        with user_code("ask()", "other", 2):
            raise exc
    assert err.value is exc


def test_an_inner_user_code_error_gets_the_method_and_the_trial():
    cause = ValueError("bad")
    with pytest.raises(UserCodeError) as err:
        with user_code("ask()", "m:M", 4):
            with user_code("the HPO-B function f"):
                raise cause
    assert str(err.value) == "method m:M, trial 4: the HPO-B function f raised ValueError: bad"
    assert err.value.__cause__ is cause and err.value.method == "m:M"
