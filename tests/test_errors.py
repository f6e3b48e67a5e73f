"""The package's errors and shared limits (:mod:`nmthpo.errors`)."""

from __future__ import annotations

import errno
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

import nmthpo
from nmthpo.errors import (
    LIMITS,
    FaultError,
    InputError,
    InputKeyError,
    InputTypeError,
    InputValueError,
    NmthpoError,
    UserCodeError,
    check_choice,
    check_float,
    check_int,
    fault_from_oserror,
)


def test_the_kinds_are_the_built_in_ones_too() -> None:
    assert issubclass(InputValueError, ValueError) and issubclass(InputTypeError, TypeError)
    assert issubclass(InputKeyError, KeyError) and issubclass(InputKeyError, ValueError)
    assert issubclass(FaultError, OSError) and issubclass(UserCodeError, RuntimeError)
    assert {InputError.exit_status, UserCodeError.exit_status, FaultError.exit_status} == {2, 1}
    assert FaultError.exit_status == 1
    assert nmthpo.InputError is InputError and nmthpo.UserCodeError is UserCodeError


def test_an_unknown_name_reads_as_its_message() -> None:
    assert str(InputKeyError("unknown task 'x'")) == "unknown task 'x'"  # not quoted


@pytest.mark.parametrize(
    "exc",
    [
        InputValueError("a"),
        InputTypeError("b"),
        InputKeyError("c"),
        UserCodeError("d", method="m:C", trial=3),
        fault_from_oserror(OSError(errno.ENOSPC, "No space left on device", "/x")),
    ],
)
def test_errors_survive_a_trip_to_a_worker_process(exc: NmthpoError) -> None:
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is type(exc) and str(back) == str(exc)
    if isinstance(exc, UserCodeError):
        assert (back.method, back.trial) == ("m:C", 3)  # type: ignore[attr-defined]


def test_a_fault_names_the_reason_the_path_and_the_fix() -> None:
    f = fault_from_oserror(OSError(errno.ENOSPC, "No space left on device", "/d/f"), "--out d")
    assert str(f).startswith("--out d: No space left on device (/d/f); free some space")
    assert f.errno == errno.ENOSPC
    assert "read-only" in str(fault_from_oserror(OSError(errno.EROFS, "Read-only file system")))


@given(st.integers(-(10**20), 10**20))
def test_check_int_accepts_exactly_the_interval(v: int) -> None:
    if 1 <= v <= LIMITS["trials"]:
        assert check_int("trials", v, 1, LIMITS["trials"]) == v
    else:
        with pytest.raises(InputValueError, match=f"trials={v}: must be"):
            check_int("trials", v, 1, LIMITS["trials"])


@pytest.mark.parametrize("v", [2.0, 2.5, "2", True, None, float("nan"), [2]])
def test_check_int_refuses_what_is_not_an_integer(v: object) -> None:
    with pytest.raises(InputTypeError, match="trials=.*expected an integer"):
        check_int("trials", v, 1)


def test_check_int_accepts_numpy_integers_and_says_when_a_limit_is_documented() -> None:
    import numpy as np

    assert check_int("seed", np.int64(3), 0) == 3
    with pytest.raises(InputValueError, match="documented limit"):
        check_int("trials", 10**12, 1, LIMITS["trials"])
    with pytest.raises(InputValueError) as err:
        check_int("n_init", 151, 0, 150)
    assert "documented" not in str(err.value)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_check_float_open_and_closed_bounds(v: float) -> None:
    ok = v == v and abs(v) != float("inf") and 0.0 < v <= 1.0
    if ok:
        assert check_float("rate", v, 0.0, 1.0, low_open=True) == v
    else:
        with pytest.raises(InputValueError, match="rate="):
            check_float("rate", v, 0.0, 1.0, low_open=True)


def test_check_choice_lists_the_choices() -> None:
    assert check_choice("objective", "bleu", ("bleu", "pareto")) == "bleu"
    with pytest.raises(InputValueError, match="objective='x': not one of 'bleu', 'pareto'"):
        check_choice("objective", "x", ("bleu", "pareto"))
