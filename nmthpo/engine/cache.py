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

:func:`cache_for` picks the directory of one experiment: the book's when it is writable by
this process's role or already holds the file, else the user cache's.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "WRITE_RESULTS_ENV",
    "atomic_write",
    "cache_for",
    "key",
    "machine_fingerprint",
    "results_dir",
    "user_cache_dir",
    "write_text",
]

#: Set to 1 by ``make results``: the book's ``results/`` may be written.
WRITE_RESULTS_ENV = "NMTHPO_WRITE_RESULTS"
#: Overrides the user cache directory.
USER_CACHE_ENV = "NMTHPO_RESULTS"


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


def cache_for(experiment: str, filename: str | None = None) -> Path:
    """The cache directory of ``experiment`` (a sub-directory name such as ``"single"``).

    The book's ``results/<experiment>`` when ``make results`` is running
    (``NMTHPO_WRITE_RESULTS=1``) or when it already holds ``filename``; otherwise
    ``user_cache_dir() / experiment``, so that at run time nothing is written into the
    repository.
    """
    book = results_dir() / experiment
    if os.environ.get(WRITE_RESULTS_ENV) == "1":
        return book
    if filename is not None and (book / filename).exists():
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
