"""The package's errors and the size limits every entry point shares.

Three kinds of failure reach a user, each with its exit status on the command line
(:func:`nmthpo.cli.main` prints one line ``nmthpo: error: ...`` and no traceback):

======================  ===========  ====================================================
error                   exit status  meaning
======================  ===========  ====================================================
:class:`InputError`     2            an argument, a file, a setting or a name is not
                                     valid; raised *before any work starts*, by the
                                     command line and the Python API alike, with the same
                                     text: it names the argument, the value, what is
                                     allowed and the fix
:class:`UserCodeError`  2            the user's own optimiser or function raised, or
                                     returned what the protocol does not allow; names the
                                     method, the trial and the exception (``--traceback``
                                     shows the rest)
:class:`FaultError`     1            the environment failed under a run: a full disk, a
                                     read-only or vanished directory; nothing half-written
                                     is left, and a rerun after the fault is fixed resumes
======================  ===========  ====================================================

An :class:`InputError` is also a :class:`ValueError` (:class:`InputValueError`; an unknown
name, :class:`InputKeyError`, is a ValueError and a :class:`KeyError`) or a :class:`TypeError`
(:class:`InputTypeError`), so code that catches the built-in kinds keeps
working. :data:`LIMITS` are the documented upper sizes (they keep memory bounded); the command
line's argument types and :func:`check_int` read the same table. The checks every entry point
shares live here too: numbers (:func:`check_int`, :func:`check_float`), names
(:func:`check_choice`) and paths (:func:`check_output_dir`, :func:`check_output_file`,
:func:`check_input_file`: an output directory that can be created and written, an input that
is a readable regular file of bounded size).

This module imports only the standard library (it sits below every layer).
"""

from __future__ import annotations

import errno
import math
import numbers
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "LIMITS",
    "NAME_MAX",
    "FaultError",
    "InputError",
    "InputKeyError",
    "InputTypeError",
    "InputValueError",
    "NmthpoError",
    "UserCodeError",
    "MAX_INPUT_BYTES",
    "check_choice",
    "check_display_name",
    "check_float",
    "check_input_file",
    "check_int",
    "check_output_dir",
    "check_output_file",
    "fault_from_oserror",
]

#: Documented upper limits of sizes (memory stays bounded; far above any study of the book).
LIMITS: dict[str, int] = {
    "trials": 100_000,  # repeated trials / repetitions of one run
    "iterations": 100_000,  # GA iterations per trial
    "budget": 100_000,  # evaluations per trial (also bounded by the table's rows)
    "population": 100_000,  # initial population (also bounded by the table's rows)
    "score_budget": 10_000,  # score-spaces budgets (batch sizes of the Monte Carlo scores)
    "spaces": 10_000,  # random sub-spaces drawn by score-spaces
    "jobs": 256,  # worker processes
    "seed": 2**63 - 1,  # numpy seeds are non-negative integers
}

_LIMIT_VALUES = frozenset(LIMITS.values())


class NmthpoError(Exception):
    """Base of the package's errors; :attr:`exit_status` is the command line's."""

    exit_status = 2


class InputError(NmthpoError):
    """A bad argument, file, name or setting, refused before any work starts (exit 2)."""


class InputValueError(InputError, ValueError):
    """An :class:`InputError` about a value: out of range, unknown name, malformed file."""


class InputTypeError(InputError, TypeError):
    """An :class:`InputError` about a type: a float where an integer is needed, ..."""


class InputKeyError(InputError, KeyError, ValueError):
    """An :class:`InputError` about a name (task, method, setting, chapter...) that is not
    known: a :class:`ValueError`, and a :class:`KeyError` for code that looks names up; its
    text is the message itself (a plain ``KeyError`` would quote it)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class UserCodeError(NmthpoError, RuntimeError):
    """The user's optimiser or function raised, or returned a value the protocol refuses.

    Attributes
    ----------
    method : str
        The method's name as the run knows it.
    trial : int or None
        The trial in which it happened (``None``: while loading or checking the method).
    """

    def __init__(self, message: str, *, method: str = "", trial: int | None = None) -> None:
        super().__init__(message)
        self.method = method
        self.trial = trial

    def __reduce__(self) -> tuple[Any, ...]:
        # keeps method and trial when a worker process sends the error back (joblib, Dask)
        return (_user_code_error, (str(self), self.method, self.trial))


def _user_code_error(message: str, method: str, trial: int | None) -> UserCodeError:
    return UserCodeError(message, method=method, trial=trial)


class FaultError(NmthpoError, OSError):
    """The environment failed under a run (disk full, read-only, vanished path): exit 1."""

    exit_status = 1


_FAULT_FIX = {
    errno.ENOSPC: "free some space (or point it elsewhere) and run the same command again",
    errno.EDQUOT: "free some space within your quota and run the same command again",
    errno.EROFS: "the file system is read-only; choose a writable place",
    errno.EACCES: "permission denied; choose a place you can write to or fix its permissions",
    errno.EPERM: "operation not permitted; choose a place you can write to",
    errno.ENOENT: "a directory vanished while the command ran; run it again",
    errno.ENOTDIR: "a path component is a file, not a directory; choose another path",
    errno.EISDIR: "a directory stands where a file is expected; choose another path",
}


def fault_from_oserror(exc: OSError, what: str = "") -> FaultError:
    """A :class:`FaultError` of one line for ``exc``: what failed, the reason, the fix."""
    where = f"{what}: " if what else ""
    path = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
    reason = exc.strerror or type(exc).__name__
    fix = _FAULT_FIX.get(exc.errno or 0, "check the path and run the same command again")
    out = FaultError(f"{where}{reason}{path}; {fix}")
    out.errno = exc.errno
    return out


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_int(
    name: str, value: Any, low: int | None = None, high: int | None = None, *, fix: str = ""
) -> int:
    """``value`` as an ``int`` in ``[low, high]``, else an :class:`InputError` naming ``name``.

    Integers of NumPy are accepted; a ``bool``, a float (even ``3.0``) or a string is not.
    """
    hint = f"; {fix}" if fix else ""
    if not _is_int(value):
        raise InputTypeError(
            f"{name}={value!r}: expected an integer, got {type(value).__name__}{hint}"
        )
    v = int(value)
    if low is not None and v < low:
        raise InputValueError(f"{name}={v}: must be at least {low:,}{hint}")
    if high is not None and v > high:
        why = " (a documented limit that keeps memory bounded)" if high in _LIMIT_VALUES else ""
        raise InputValueError(f"{name}={v}: must be at most {high:,}{why}{hint}")
    return v


def check_float(
    name: str,
    value: Any,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
    fix: str = "",
) -> float:
    """``value`` as a finite ``float`` in the given interval, else an :class:`InputError`."""
    hint = f"; {fix}" if fix else ""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputTypeError(
            f"{name}={value!r}: expected a number, got {type(value).__name__}{hint}"
        )
    v = float(value)
    if not math.isfinite(v):
        raise InputValueError(f"{name}={value!r}: must be a finite number{hint}")
    if low is not None and (v <= low if low_open else v < low):
        raise InputValueError(f"{name}={v:g}: must be {'>' if low_open else '>='} {low:g}{hint}")
    if high is not None and (v >= high if high_open else v > high):
        raise InputValueError(f"{name}={v:g}: must be {'<' if high_open else '<='} {high:g}{hint}")
    return v


#: The longest display name of a run (``nmthpo run --name``, ``RunResult.name``).
NAME_MAX = 40


def check_display_name(value: Any, what: str = "name") -> str:
    """``value`` if it is a run's display name: 1 to :data:`NAME_MAX` printable characters
    without surrounding spaces; else an :class:`InputValueError` (an :class:`InputTypeError`
    for a non-string) naming ``what``."""
    if not isinstance(value, str):
        raise InputTypeError(f"{what}={value!r}: expected a short display name (a string)")
    if not (0 < len(value) <= NAME_MAX and value.isprintable() and value.strip() == value):
        raise InputValueError(
            f"{what} {value!r}: a display name has 1-{NAME_MAX} printable characters and no "
            "surrounding spaces (e.g. 'my-tpe')"
        )
    return value


def check_choice(name: str, value: Any, choices: Any, *, fix: str = "") -> Any:
    """``value`` if it is one of ``choices``, else an :class:`InputError` listing them."""
    options = list(choices)
    if value not in options:
        hint = f"; {fix}" if fix else ""
        raise InputValueError(f"{name}={value!r}: not one of {', '.join(map(repr, options))}{hint}")
    return value


# -- paths ----------------------------------------------------------------------------------------
def _nearest_existing(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def check_output_dir(path: str | os.PathLike[str], option: str) -> Path:
    """An output directory: a directory, or a path where one can be created and written
    (not an empty path, not a dangling symbolic link)."""
    if not str(path).strip():
        raise InputValueError(
            f"{option} {path!r}: empty path; give a directory (it is created if missing)"
        )
    p = Path(path).expanduser()
    if p.is_symlink() and not p.exists():
        raise InputValueError(
            f"{option} {path}: a symbolic link to {os.readlink(p)}, which does not exist; "
            "give a directory, or create the link's target first"
        )
    if p.exists() and not p.is_dir():
        raise InputValueError(
            f"{option} {path}: is an existing file, not a directory; give a "
            "directory path (it is created if missing)"
        )
    base = _nearest_existing(p.absolute())
    if not base.is_dir():
        raise InputValueError(
            f"{option} {path}: {base} is a file, so no directory can be created "
            f"below it; give a directory path outside {base}"
        )
    if not os.access(base, os.W_OK | os.X_OK):
        what = "directory" if base == p.absolute() else "parent directory"
        raise InputValueError(
            f"{option} {path}: the {what} {base} is not writable; give a directory you can write to"
        )
    return p


def check_output_file(
    path: str | os.PathLike[str], option: str, suffixes: Sequence[str] = ()
) -> Path:
    """An output file: not a directory, its directory creatable and writable."""
    p = Path(path).expanduser()
    if p.is_dir():
        raise InputValueError(
            f"{option} {path}: is a directory; give a file name such as "
            f"{Path(path) / ('figure' + (suffixes[0] if suffixes else ''))}"
        )
    if suffixes and p.suffix.lower() not in suffixes:
        raise InputValueError(
            f"{option} {path}: unsupported file type {p.suffix or '(none)'!r}; "
            f"use one of {', '.join(suffixes)}"
        )
    check_output_dir(p.parent if str(p.parent) else Path("."), f"{option} {path}: directory")
    if p.exists() and not os.access(p, os.W_OK):
        raise InputValueError(f"{option} {path}: the file is not writable; give another name")
    return p


#: The largest input file a command reads (a sequence file of 100,000 trials is ~50 MB).
MAX_INPUT_BYTES = 256 * 2**20


def check_input_file(path: str | os.PathLike[str], what: str) -> Path:
    """An input file: exists, is a regular file (not a directory, a device such as
    ``/dev/zero`` or a FIFO, which would block or never end), is readable and at most
    :data:`MAX_INPUT_BYTES`."""
    if not str(path).strip():
        raise InputValueError(f"{what} {path!r}: empty path; give a file name")
    p = Path(path).expanduser()
    try:
        st = p.stat()
    except FileNotFoundError:
        broken = " (a dangling symbolic link)" if p.is_symlink() else ""
        raise InputValueError(f"{what} {path}: no such file{broken}; check the path") from None
    except OSError as exc:
        raise InputValueError(
            f"{what} {path}: cannot be read ({exc.strerror}); check the path"
        ) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputValueError(f"{what} {path}: is a directory; give the file itself")
    if not stat.S_ISREG(st.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device or socket"
        raise InputValueError(f"{what} {path}: is {kind}, not a regular file; give a file on disk")
    if st.st_size > MAX_INPUT_BYTES:
        raise InputValueError(
            f"{what} {path}: {st.st_size:,} bytes, more than the {MAX_INPUT_BYTES:,} a "
            "command reads; is this the right file?"
        )
    if not os.access(p, os.R_OK):
        raise InputValueError(f"{what} {path}: not readable; check its permissions")
    return p
