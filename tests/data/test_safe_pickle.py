"""Tests for nmthpo.data.safe_pickle: only plain builtin data is admitted, nothing executes."""

from __future__ import annotations

import collections
import io
import os
import pickle
from pathlib import Path

import pytest

from nmthpo.data.safe_pickle import (
    RestrictedUnpickler,
    UnsafePickleError,
    check_opcodes,
    safe_loads,
)


class _Payload:
    """Unpickling this would run ``os.system('touch <marker>')``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("protocol", [0, 2, 4, 5])
def test_plain_builtins_round_trip(protocol: int) -> None:
    obj = [
        {"a": 1, "b": 2.5, "c": "x", "d": None, "e": True, "f": False, "g": [1, [2, 3]]},
        {"big": 2**80, "neg": -7, "empty": [], "nested": {"k": {}}},
    ]
    assert safe_loads(pickle.dumps(obj, protocol=protocol)) == obj


@pytest.mark.parametrize("protocol", [0, 2, 4])
def test_reduce_payload_refused_and_not_executed(tmp_path: Path, protocol: int) -> None:
    marker = tmp_path / "pwned"
    blob = pickle.dumps([{"ok": 1}, _Payload(marker)], protocol=protocol)
    with pytest.raises(UnsafePickleError, match=r"refused global (posix|os|nt)\.system"):
        safe_loads(blob)
    assert not marker.exists()


def test_find_class_refuses_every_global_even_without_opcode_check(tmp_path: Path) -> None:
    # Gate 2 alone (the opcode scan bypassed): find_class refuses before REDUCE runs.
    marker = tmp_path / "pwned"
    blob = pickle.dumps(_Payload(marker), protocol=4)
    with pytest.raises(UnsafePickleError, match=r"system"):
        RestrictedUnpickler(io.BytesIO(blob)).load()
    assert not marker.exists()
    od = pickle.dumps(collections.OrderedDict(a=1))
    with pytest.raises(UnsafePickleError, match=r"refused global collections\.OrderedDict"):
        RestrictedUnpickler(io.BytesIO(od)).load()


@pytest.mark.parametrize(
    "obj",
    [(1, 2), {1, 2}, b"bytes", frozenset({1}), collections.OrderedDict(a=1), 1j],
    ids=["tuple", "set", "bytes", "frozenset", "ordereddict", "complex"],
)
def test_non_plain_types_refused(obj: object) -> None:
    with pytest.raises(UnsafePickleError, match="refused"):
        safe_loads(pickle.dumps(obj, protocol=4))


def test_persistent_id_refused() -> None:
    class P(pickle.Pickler):
        def persistent_id(self, obj: object) -> str | None:
            return "ext" if obj == "x" else None

    buf = io.BytesIO()
    P(buf, protocol=4).dump(["x"])
    with pytest.raises(UnsafePickleError, match="BINPERSID"):
        safe_loads(buf.getvalue())
    with pytest.raises(UnsafePickleError, match="persistent id"):
        RestrictedUnpickler(io.BytesIO(buf.getvalue())).load()


def test_malformed_and_truncated_refused() -> None:
    blob = pickle.dumps([1.0, 2.0, "abc"], protocol=4)
    with pytest.raises(UnsafePickleError, match="malformed"):
        safe_loads(blob[:-5])
    with pytest.raises(UnsafePickleError, match="malformed"):
        safe_loads(b"not a pickle")
    check_opcodes(blob)  # the intact stream passes the scan
