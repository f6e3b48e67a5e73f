"""Load untrusted pickles that may contain only plain builtin data.

The NMTLC learning-curve dataset (Zhang & Duh, AMTA 2024) is distributed as a Python pickle
(``lc_datasets/nmtlc.pkl``). Unpickling runs code chosen by whoever wrote the file: any global
(``os.system``, ``builtins.eval``, ...) can be imported and called through ``REDUCE``. This
module admits only pickles that describe a tree of ``list``, ``dict``, ``str``, ``int``,
``float``, ``bool`` and ``None`` and refuses everything else *before* anything is built.

Two independent gates (defence in depth):

1. :func:`check_opcodes` walks the opcode stream with :func:`pickletools.genops` (pure
   parsing, nothing is constructed or called) and refuses every opcode outside
   :data:`ALLOWED_OPCODES`. This also closes the paths that do not go through
   ``find_class``: persistent ids (``PERSID``/``BINPERSID``), out-of-band buffers and the
   ``copyreg`` extension cache (``EXT1/2/4``).
2. :class:`RestrictedUnpickler` overrides ``find_class`` to refuse *every* global and
   ``persistent_load`` to refuse every persistent id, so even a stream that slipped past
   gate 1 cannot import anything.

Choices left open by "plain builtins": tuples, sets, bytes and Python-2 byte strings are
refused too (the NMTLC file uses none of them); the admitted set is exactly the seven types
above. Integers of any size are admitted (``LONG*`` opcodes).
"""

from __future__ import annotations

import io
import pickle
import pickletools

__all__ = [
    "ALLOWED_OPCODES",
    "RestrictedUnpickler",
    "UnsafePickleError",
    "check_opcodes",
    "safe_loads",
]

#: Opcode names (as in :mod:`pickletools`) that build only list/dict/str/int/float/bool/None
#: or manipulate the stack, the mark or the memo.
ALLOWED_OPCODES: frozenset[str] = frozenset(
    {
        # framing and control
        "PROTO",
        "FRAME",
        "STOP",
        "MARK",
        "POP",
        "POP_MARK",
        "DUP",
        # memo
        "PUT",
        "BINPUT",
        "LONG_BINPUT",
        "MEMOIZE",
        "GET",
        "BINGET",
        "LONG_BINGET",
        # None and bool
        "NONE",
        "NEWTRUE",
        "NEWFALSE",
        # int (protocol-0 INT also encodes bool as "00"/"01")
        "INT",
        "BININT",
        "BININT1",
        "BININT2",
        "LONG",
        "LONG1",
        "LONG4",
        # float
        "FLOAT",
        "BINFLOAT",
        # str
        "UNICODE",
        "SHORT_BINUNICODE",
        "BINUNICODE",
        "BINUNICODE8",
        # list
        "EMPTY_LIST",
        "APPEND",
        "APPENDS",
        "LIST",
        # dict
        "EMPTY_DICT",
        "SETITEM",
        "SETITEMS",
        "DICT",
    }
)

_STRING_OPCODES = frozenset({"UNICODE", "SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8"})


class UnsafePickleError(pickle.UnpicklingError):
    """A pickle tried to import a global or used an opcode outside the admitted set."""


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler whose ``find_class`` refuses every global.

    Parameters
    ----------
    file
        Binary file-like object holding the pickle.

    Notes
    -----
    Use :func:`safe_loads`, which also runs :func:`check_opcodes` first; this class alone
    is the second gate.
    """

    def find_class(self, module: str, name: str) -> object:
        raise UnsafePickleError(
            f"refused global {module}.{name}: this pickle may contain only plain builtin "
            "data (list, dict, str, int, float, bool, None); it tried to import code"
        )

    def persistent_load(self, pid: object) -> object:
        raise UnsafePickleError(f"refused persistent id {pid!r}: not plain builtin data")


def check_opcodes(data: bytes) -> None:
    """Refuse a pickle whose opcode stream contains anything outside :data:`ALLOWED_OPCODES`.

    Parameters
    ----------
    data
        The complete pickle bytes.

    Raises
    ------
    UnsafePickleError
        On the first disallowed opcode (naming it, its byte offset and, for ``GLOBAL`` /
        ``STACK_GLOBAL``, the global it would import) or if the stream is malformed.

    Notes
    -----
    For ``STACK_GLOBAL`` the module and name come from the stack; the two most recent string
    literals are reported, which is what :mod:`pickle` itself writes.
    """
    recent: list[str] = []
    try:
        for opcode, arg, pos in pickletools.genops(data):
            name = opcode.name
            if name in ALLOWED_OPCODES:
                if name in _STRING_OPCODES and isinstance(arg, str):
                    recent = [*recent[-1:], arg]
                continue
            where = f"opcode {name} at byte {pos}"
            if name in ("GLOBAL", "INST") and isinstance(arg, str):
                module, _, attr = arg.partition(" ")
                raise UnsafePickleError(
                    f"refused global {module}.{attr} ({where}): this pickle may contain only "
                    "plain builtin data (list, dict, str, int, float, bool, None)"
                )
            if name == "STACK_GLOBAL":
                target = ".".join(recent) if len(recent) == 2 else "<unknown>"
                raise UnsafePickleError(
                    f"refused global {target} ({where}): this pickle may contain only "
                    "plain builtin data (list, dict, str, int, float, bool, None)"
                )
            raise UnsafePickleError(
                f"refused {where}: only plain builtin data (list, dict, str, int, float, "
                "bool, None) is admitted"
            )
    except UnsafePickleError:
        raise
    except Exception as exc:  # pickletools raises ValueError and friends on bad input
        raise UnsafePickleError(f"malformed pickle: {exc}") from exc


def safe_loads(data: bytes) -> object:
    """Unpickle ``data`` if and only if it describes plain builtin data.

    Parameters
    ----------
    data
        The complete pickle bytes.

    Returns
    -------
    object
        A tree of list, dict, str, int, float, bool and None.

    Raises
    ------
    UnsafePickleError
        If the stream is malformed, uses a disallowed opcode or tries to import a global.
        Nothing from the stream is executed in any of these cases.
    """
    check_opcodes(data)
    try:
        return RestrictedUnpickler(io.BytesIO(data)).load()
    except UnsafePickleError:
        raise
    except Exception as exc:
        raise UnsafePickleError(f"malformed pickle: {exc}") from exc
