"""The one result cache: keys, atomic writes, where caches live.

Every cached artefact of the package (a run's tidy frame, a chapter's table, a study's frame)
is a file named by a *key*: the first 16 hex digits of the SHA-256 of the JSON of what
determines it (its spec or parameters and a version number), so a change of any input is a
new file and an old file is never reused for new inputs. Files are written atomically (a
temporary file in the same directory, then :func:`os.replace`), so an interrupted write leaves
no half-written file behind, and they are created with the permissions the umask allows.

Two places hold caches:

* the repository's ``results/`` (:func:`results_dir`): the book's cache, committed, written
  only by ``make results`` (which sets ``NMTHPO_WRITE_RESULTS=1``); at run time it is only read;
* the user cache (:func:`user_cache_dir`): ``$NMTHPO_RESULTS`` if set, else
  ``$XDG_CACHE_HOME/nmthpo`` (``~/.cache/nmthpo``): where runs that are not in the book's cache
  go, e.g. a chapter re-executed with other parameters.

:func:`writing_results` tells whether this process writes the book's cache, and
:func:`cache_for` picks the directory of one experiment's file from it: the book's when
``make results`` runs or the book already holds the file, else the user cache's.

Integrity: an artefact written with :func:`write_checked` gets a JSON sidecar (same stem,
suffix ``.json`` unless the caller names another, e.g. Chapter 6's ``.params.txt``) recording
what determines it and the SHA-256 and size of its bytes (:data:`CHECKSUM_FIELD`).
:func:`artefact_problem` names what is wrong with an artefact before it is reused -- no sidecar
(stale: written before checksums, or the write was interrupted), a sidecar for another spec
(foreign), a checksum mismatch (damaged: flipped bytes, truncation); :func:`move_aside` renames
a bad artefact and its sidecar to ``NAME.bad-N`` (never deletes it: a cache directory may be
user-owned), so the caller recomputes it. :func:`read_checked` does the three steps for a
reader -- check the sidecar, read, validate the content -- and :func:`set_aside` names a bad
artefact in one warning (logger ``nmthpo.cache``; the CLI prints it on stderr) as it moves it.
The book's committed caches (:func:`in_book_cache`) were written before checksums: they are
read with ``require_checksum=False`` and reused only when their content validates.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import platform
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

__all__ = [
    "CHECKSUM_FIELD",
    "WRITE_RESULTS_ENV",
    "cache_for",
    "artefact_problem",
    "atomic_write",
    "in_book_cache",
    "key",
    "machine_fingerprint",
    "move_aside",
    "read_checked",
    "results_dir",
    "set_aside",
    "sha256_file",
    "sidecar_path",
    "user_cache_dir",
    "writing_results",
    "write_checked",
    "write_text",
]

#: Set to 1 by ``make results``: the book's ``results/`` may be written.
WRITE_RESULTS_ENV = "NMTHPO_WRITE_RESULTS"
#: Overrides the user cache directory.
USER_CACHE_ENV = "NMTHPO_RESULTS"

log = logging.getLogger("nmthpo.cache")
T = TypeVar("T")


def key(payload: Mapping[str, Any]) -> str:
    """The cache key of ``payload``: SHA-256 of its sorted JSON, first 16 hex digits.

    Every cache of the package uses this one function, so keys of files written before the
    engine existed are unchanged (they were computed the same way).
    """
    blob = json.dumps(payload, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: str | Path, write: Callable[[Path], object]) -> None:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it to ``path``.

    The file gets mode ``0o666 & ~umask`` (as :func:`open` would give it); the temporary file
    is removed if ``write`` fails or is interrupted, so ``path`` is either the old file or
    the complete new one.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    atomic_write(path, lambda p: p.write_text(text, encoding="utf-8"))


#: Sidecar entry holding an artefact's checksum: ``{"sha256": hex digest, "bytes": size}``.
CHECKSUM_FIELD = "checksum"


def sha256_file(path: str | Path) -> str:
    """The SHA-256 hex digest of a file's bytes (read in 1 MiB chunks)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def sidecar_path(path: str | Path, sidecar: str = ".json") -> Path:
    """The JSON sidecar of an artefact: the same name with suffix ``sidecar`` (``.json``)."""
    return Path(path).with_suffix(sidecar)


def write_checked(
    path: str | Path,
    write: Callable[[Path], object],
    record: Mapping[str, Any],
    sidecar: str = ".json",
) -> None:
    """Write an artefact atomically, then its sidecar: ``record`` plus its checksum.

    The sidecar (suffix ``sidecar``) is written last, so an artefact without one was not
    completely written (or predates checksums); :func:`artefact_problem` treats both as not
    reusable.
    """
    path = Path(path)
    atomic_write(path, write)
    check = {"sha256": sha256_file(path), "bytes": path.stat().st_size}
    write_text(
        sidecar_path(path, sidecar),
        json.dumps({**record, CHECKSUM_FIELD: check}, indent=2, sort_keys=True, default=str) + "\n",
    )


def artefact_problem(
    path: str | Path,
    expected: Mapping[str, Any],
    require_checksum: bool = True,
    sidecar: str = ".json",
) -> str | None:
    """What is wrong with the artefact ``path`` for reuse, or ``None`` if it may be reused.

    ``expected`` are sidecar entries that must match (e.g. the spec's fields): a mismatch
    means the file belongs to another spec. ``require_checksum=False`` accepts a missing
    sidecar or one without a checksum (caches written before checksums existed, e.g. the
    book's committed ``results/``; the caller must then validate the content). ``sidecar``
    is the sidecar's suffix (:func:`sidecar_path`).
    """
    path = Path(path)
    side = sidecar_path(path, sidecar)
    if not side.exists():
        if not require_checksum:
            return None
        return (
            f"it has no sidecar {side.name} recording its spec and checksum (stale or "
            "incompletely written)"
        )
    try:
        record = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return f"its sidecar {side.name} is unreadable ({exc})"
    if not isinstance(record, dict):
        return f"its sidecar {side.name} is not a JSON object"
    norm = json.loads(json.dumps(dict(expected), sort_keys=True, default=str))
    wrong = sorted(k for k, v in norm.items() if record.get(k) != v)
    if wrong:
        return f"its sidecar records another spec (differs in {', '.join(wrong)}: foreign or stale)"
    check = record.get(CHECKSUM_FIELD)
    if check is None:
        return "its sidecar records no checksum" if require_checksum else None
    if not isinstance(check, dict) or "sha256" not in check:
        return f"its sidecar's {CHECKSUM_FIELD} entry is malformed"
    size = path.stat().st_size
    if check.get("bytes") is not None and check["bytes"] != size:
        return f"it has {size} bytes, its sidecar records {check['bytes']} (truncated or altered)"
    got = sha256_file(path)
    if got != check["sha256"]:
        return (
            f"SHA-256 mismatch: expected {check['sha256'][:16]}..., got {got[:16]}... "
            "(damaged or altered)"
        )
    return None


def move_aside(path: str | Path, into: str | Path | None = None, sidecar: str = ".json") -> Path:
    """Rename a bad artefact (and its sidecar) to ``NAME.bad-N``, the first free ``N``.

    ``into`` is the directory to move them to (default: where they are; give another when
    that directory is removed later). Nothing is deleted: the files stay for inspection,
    under names no cache reader matches. Returns the artefact's new path.
    """
    path = Path(path)
    side = sidecar_path(path, sidecar)
    where = Path(into) if into is not None else path.parent
    where.mkdir(parents=True, exist_ok=True)
    n = 1
    while (where / f"{path.name}.bad-{n}").exists() or (where / f"{side.name}.bad-{n}").exists():
        n += 1
    dest = where / f"{path.name}.bad-{n}"
    if path.exists():
        os.replace(path, dest)
    if side.exists() and side != path:
        os.replace(side, where / f"{side.name}.bad-{n}")
    return dest


def set_aside(
    path: str | Path, why: str, into: str | Path | None = None, sidecar: str = ".json"
) -> None:
    """Name a bad cached artefact in one warning and move it aside (:func:`move_aside`).

    A cache that cannot be written (read-only) keeps the file; the warning says so, and the
    caller recomputes without reusing it.
    """
    try:
        where = f"moved to {move_aside(path, into, sidecar)}"
    except OSError as exc:  # a read-only cache: leave it, but never reuse it
        where = f"could not be moved aside ({exc})"
    log.warning("cached %s is not reused: %s; %s, recomputing it", path, why, where)


def read_checked(
    path: str | Path,
    expected: Mapping[str, Any],
    read: Callable[[Path], T],
    validate: Callable[[T], str | None] | None = None,
    *,
    require_checksum: bool = True,
    sidecar: str = ".json",
    into: str | Path | None = None,
) -> T | None:
    """The artefact ``path`` read by ``read``, or ``None`` if it is missing or bad.

    Before reuse the artefact is checked against its sidecar (:func:`artefact_problem` with
    ``expected``, ``require_checksum``, ``sidecar``), then read (any exception of ``read``
    means unreadable, e.g. a truncated file), then ``validate`` (returns what is wrong with
    the content, or ``None``). A bad artefact is named and moved aside (:func:`set_aside`,
    into ``into``), so the caller recomputes it.
    """
    path = Path(path)
    if not path.exists():
        return None
    why = artefact_problem(path, expected, require_checksum, sidecar)
    if why is None:
        try:
            value = read(path)
        except Exception as exc:  # readers (pyarrow, zipfile) raise many types on damage
            why = f"unreadable {path.suffix.lstrip('.') or 'file'} ({type(exc).__name__}: {exc})"
        else:
            why = validate(value) if validate is not None else None
            if why is None:
                return value
    set_aside(path, why, into, sidecar)
    return None


def in_book_cache(path: str | Path) -> bool:
    """Whether ``path`` lies in the book's committed cache (:func:`results_dir`).

    Those files were written by ``make results`` before checksums existed: a reader accepts
    them without a checksum (``require_checksum=False``) after validating their content,
    and never rewrites them at run time.
    """
    try:
        return Path(path).resolve().is_relative_to(results_dir().resolve())
    except OSError:
        return False


def results_dir() -> Path:
    """The repository's ``results/``: the book's cache (read-only except for ``make results``)."""
    return Path(__file__).resolve().parents[2] / "results"


def user_cache_dir() -> Path:
    """Where runs outside the book's cache go: ``$NMTHPO_RESULTS``, else ``~/.cache/nmthpo``."""
    env = os.environ.get(USER_CACHE_ENV)
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "nmthpo"


def writing_results() -> bool:
    """True while ``make results`` runs (``NMTHPO_WRITE_RESULTS=1``): ``results/`` is written."""
    return os.environ.get(WRITE_RESULTS_ENV) == "1"


def cache_for(experiment: str, filename: str | None = None) -> Path:
    """The cache directory of ``experiment`` (a sub-directory name such as ``"ga"``).

    The book's ``results/<experiment>`` when ``make results`` is running
    (:func:`writing_results`) or when it already holds ``filename``; otherwise
    ``user_cache_dir() / experiment``, so that at run time nothing is written into the
    repository.
    """
    book = results_dir() / experiment
    if writing_results() or (filename is not None and (book / filename).exists()):
        return book
    return user_cache_dir() / experiment


@functools.lru_cache(maxsize=1)
def machine_fingerprint() -> str:
    """What decides the last bits of this machine's floating-point results, as one string.

    ``<platform.machine()>/<BLAS>-<architecture>/numpy-<highest SIMD dispatch>``, e.g.
    ``x86_64/openblas-Haswell/numpy-X86_V3``: the BLAS architecture OpenBLAS picked at
    load time (``DYNAMIC_ARCH``, from :mod:`threadpoolctl`) and the highest SIMD target NumPy
    dispatches to on this CPU. Cached runs record it beside their spec; a run whose
    fingerprint equals this machine's must recompute bit for bit (see
    :mod:`nmthpo.engine.replay` for the others). Files written before it existed have none
    (``"unknown"``).
    """
    import numpy  # noqa: F401  (loads the BLAS that threadpoolctl inspects)

    blas = "blas-unknown"
    try:
        from threadpoolctl import threadpool_info

        for info in threadpool_info():
            if info.get("user_api") == "blas":
                blas = f"{info.get('internal_api')}-{info.get('architecture', 'unknown')}"
                break
    except Exception:  # pragma: no cover - threadpoolctl is a dependency
        pass
    simd = "unknown"
    try:
        from numpy._core._multiarray_umath import (  # type: ignore[attr-defined]
            __cpu_dispatch__,
            __cpu_features__,
        )

        enabled = [t for t in __cpu_dispatch__ if __cpu_features__.get(t)]
        simd = enabled[-1] if enabled else "baseline"
    except Exception:  # pragma: no cover - private NumPy API moved
        pass
    return f"{platform.machine()}/{blas}/numpy-{simd}"
