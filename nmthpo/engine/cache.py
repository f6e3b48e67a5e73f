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
what determines it (its *record*: the spec's payload or the parameters) and its checksum
(:data:`CHECKSUM_FIELD`): ``{"sha256": ..., "bytes": ..., "bound": ...}``. ``sha256`` and
``bytes`` are those of the file's bytes (damage: flipped bytes, truncation); ``bound`` is the
SHA-256 of the record's canonical JSON (sorted keys, no spaces, without the checksum entry), a
NUL byte and the file's bytes (:func:`bound_digest`). So the spec is inside the checksummed
bytes: a sidecar whose spec was edited, or copied beside another artefact, fails even when its
file checksum was recomputed -- only rewriting the whole seal with this package's rule passes,
which no copy or naive ``sha256sum`` does. (The seal guards against mix-ups, renames and stale
or forged sidecars made by hand, not against a deliberate forger: there is no secret.)

:func:`artefact_problem` names what is wrong with an artefact before it is reused -- no sidecar
(stale: written before seals, or the write was interrupted), a sidecar for another spec
(foreign), no checksum or no seal, a checksum or seal mismatch (damaged, forged or copied).
There is no lenient path: every artefact, the book's committed ones included, is reused only
with its sealed sidecar and after its content validates. :func:`read_checked` does the three
steps for a reader -- check the sidecar, read, validate the content -- and :func:`set_aside`
names a bad artefact in one warning (logger ``nmthpo.cache``; the CLI prints it on stderr):

* in a user cache it is renamed with its sidecar to ``NAME.bad-N`` (:func:`move_aside`; never
  deleted, a cache directory may be user-owned), and the caller recomputes it;
* in the book's ``results/`` (:func:`in_book_cache`) it is never moved, rewritten or deleted:
  it is just not used. Outside ``make results`` every write aimed at the book's cache goes to
  the same relative path in the user cache instead (:func:`write_target`), and
  :func:`read_checked` of a book path also looks there, so a recomputed entry is found again.

Faults: a write that fails (a full disk, a read-only or vanished directory) leaves neither its
temporary file nor a half-written artefact (an artefact whose sidecar could not be written is
removed again) and raises :class:`nmthpo.errors.FaultError`
(:func:`nmthpo.errors.fault_from_oserror`: one line naming the path and the fix); a rerun
after the fault is fixed resumes.

The committed ``results/`` were sealed by ``tools/seal_results.py`` after verifying each file
(see its docstring); ``tests/engine/test_results_sealed.py`` checks every seal.
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

from nmthpo.errors import FaultError, fault_from_oserror

__all__ = [
    "CHECKSUM_FIELD",
    "WRITE_RESULTS_ENV",
    "cache_for",
    "artefact_problem",
    "checked_source",
    "atomic_write",
    "bound_digest",
    "checksum_entry",
    "in_book_cache",
    "key",
    "machine_fingerprint",
    "move_aside",
    "read_checked",
    "results_dir",
    "set_aside",
    "seal_sidecar",
    "sha256_file",
    "sidecar_path",
    "user_cache_dir",
    "writing_results",
    "write_checked",
    "write_target",
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
    the complete new one. An :class:`OSError` (a full disk, a read-only directory, a path
    component that is a file) becomes a :class:`~nmthpo.errors.FaultError` naming ``path``.
    """
    path = Path(path)
    tmp: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.close(fd)
        tmp = Path(tmp_name)
        write(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except FaultError:
        raise
    except OSError as exc:
        raise fault_from_oserror(exc, f"cannot write {path}") from exc
    finally:
        if tmp is not None:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:  # pragma: no cover - the directory vanished meanwhile
                pass


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


def _canonical(record: Mapping[str, Any]) -> bytes:
    """The canonical JSON of a sidecar's record (its checksum entry left out)."""
    plain = json.loads(json.dumps(dict(record), default=str))  # tuples -> lists, as stored
    plain.pop(CHECKSUM_FIELD, None)
    return json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _digests(path: Path, record: Mapping[str, Any]) -> tuple[str, str]:
    """(SHA-256 of the file's bytes, :func:`bound_digest`) in one pass over the file."""
    plain, bound = hashlib.sha256(), hashlib.sha256(_canonical(record) + b"\0")
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            plain.update(chunk)
            bound.update(chunk)
    return plain.hexdigest(), bound.hexdigest()


def bound_digest(path: str | Path, record: Mapping[str, Any]) -> str:
    """The seal binding ``record`` to the file ``path``: the SHA-256 of the record's canonical
    JSON (sorted keys, no spaces, without :data:`CHECKSUM_FIELD`), a NUL byte and the bytes."""
    return _digests(Path(path), record)[1]


def checksum_entry(path: str | Path, record: Mapping[str, Any]) -> dict[str, Any]:
    """The :data:`CHECKSUM_FIELD` entry of ``path``'s sidecar recording ``record``:
    ``{"sha256": <file's SHA-256>, "bytes": <size>, "bound": <bound_digest>}``."""
    path = Path(path)
    sha, bound = _digests(path, record)
    return {"sha256": sha, "bytes": path.stat().st_size, "bound": bound}


def seal_sidecar(path: str | Path, record: Mapping[str, Any], sidecar: str = ".json") -> Path:
    """Write the sidecar of the existing artefact ``path``: ``record`` and its seal
    (:func:`checksum_entry`); atomically. Returns the sidecar's path.

    For writers of a file that already exists (e.g. ``tools/seal_results.py`` after verifying
    it); :func:`write_checked` writes an artefact and its sidecar together.
    """
    path = Path(path)
    rec = json.loads(json.dumps(dict(record), default=str))
    rec.pop(CHECKSUM_FIELD, None)
    rec[CHECKSUM_FIELD] = checksum_entry(path, rec)
    side = sidecar_path(path, sidecar)
    write_text(side, json.dumps(rec, indent=2, sort_keys=True) + "\n")
    return side


def write_target(path: str | Path) -> Path:
    """Where a cache write aimed at ``path`` goes: ``path`` itself, except for a path in the
    book's cache (:func:`in_book_cache`) outside ``make results`` (:func:`writing_results`):
    then the same relative path under :func:`user_cache_dir` -- at run time nothing is written
    into the repository."""
    path = Path(path)
    if writing_results() or not in_book_cache(path):
        return path
    return user_cache_dir() / path.resolve().relative_to(results_dir().resolve())


def write_checked(
    path: str | Path,
    write: Callable[[Path], object],
    record: Mapping[str, Any],
    sidecar: str = ".json",
) -> Path:
    """Write an artefact atomically, then its sidecar: ``record`` plus its seal
    (:func:`checksum_entry`). Returns the artefact's path (:func:`write_target` of ``path``).

    The sidecar (suffix ``sidecar``) is written last, so an artefact without one was not
    completely written (or predates seals); :func:`artefact_problem` treats both as not
    reusable. If the sidecar cannot be written the artefact is removed again, and a fault
    raises :class:`~nmthpo.errors.FaultError` (:func:`atomic_write`).
    """
    path = write_target(path)
    atomic_write(path, write)
    try:
        seal_sidecar(path, record, sidecar)
    except BaseException as exc:
        try:
            path.unlink(missing_ok=True)
        except OSError:  # pragma: no cover - the directory vanished meanwhile
            pass
        if isinstance(exc, OSError) and not isinstance(exc, FaultError):
            raise fault_from_oserror(exc, f"cannot write {sidecar_path(path, sidecar)}") from exc
        raise
    return path


def artefact_problem(
    path: str | Path,
    expected: Mapping[str, Any],
    sidecar: str = ".json",
) -> str | None:
    """What is wrong with the artefact ``path`` for reuse, or ``None`` if it may be reused.

    ``expected`` are sidecar entries that must match (e.g. the spec's fields): a mismatch
    means the file belongs to another spec. The sidecar must hold a seal matching the file
    and the whole record (:func:`checksum_entry`): no sidecar, no checksum or no seal is a
    problem, in the book's cache as anywhere. ``sidecar`` is the sidecar's suffix
    (:func:`sidecar_path`).
    """
    path = Path(path)
    side = sidecar_path(path, sidecar)
    if not side.exists():
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
        return "its sidecar records no checksum"
    if not isinstance(check, dict) or not isinstance(check.get("sha256"), str):
        return f"its sidecar's {CHECKSUM_FIELD} entry is malformed"
    try:
        size = path.stat().st_size
        if check.get("bytes") is not None and check["bytes"] != size:
            return (
                f"it has {size} bytes, its sidecar records {check['bytes']} (truncated or altered)"
            )
        got, bound = _digests(path, record)
    except OSError as exc:
        return f"it is unreadable ({exc.strerror or exc})"
    if got != check["sha256"]:
        return (
            f"SHA-256 mismatch: expected {check['sha256'][:16]}..., got {got[:16]}... "
            "(damaged or altered)"
        )
    if "bound" not in check:
        return (
            "its sidecar does not bind its spec to the file's bytes (no seal: written before "
            "seals, or its checksum was recomputed by hand)"
        )
    if check["bound"] != bound:
        return (
            "its sidecar's spec is not the one sealed with this file (seal mismatch: the "
            "sidecar was edited or copied from another artefact)"
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

    An artefact of the book's cache (:func:`in_book_cache`) is never moved: it is only not
    used (the recomputed one goes to the user cache, :func:`write_target`). A cache that
    cannot be written (read-only) keeps the file; the warning says so, and the caller
    recomputes without reusing it.
    """
    if in_book_cache(path):
        where = "left in place (the book's cache is never modified at run time)"
        if not writing_results():
            where += f", computing it into {write_target(path).parent}"
        log.warning("cached %s is not used: %s; %s", path, why, where)
        return
    try:
        where = f"moved to {move_aside(path, into, sidecar)}"
    except OSError as exc:  # a read-only cache: leave it, but never reuse it
        where = f"could not be moved aside ({exc})"
    log.warning("cached %s is not reused: %s; %s, recomputing it", path, why, where)


def checked_source(
    path: str | Path,
    expected: Mapping[str, Any],
    read: Callable[[Path], T],
    validate: Callable[[T], str | None] | None = None,
    *,
    sidecar: str = ".json",
    into: str | Path | None = None,
) -> tuple[T, Path] | None:
    """:func:`read_checked`, also returning the file the value was read from.

    A path of the book's cache outside ``make results`` is tried first, then its
    :func:`write_target` in the user cache (where a bad or missing book entry is recomputed).
    """
    path = Path(path)
    candidates = [path]
    target = write_target(path)
    if target != path:
        candidates.append(target)
    for cand in candidates:
        if not cand.exists():
            continue
        why = artefact_problem(cand, expected, sidecar=sidecar)
        if why is None:
            try:
                value = read(cand)
            except Exception as exc:  # readers (pyarrow, zipfile) raise many types on damage
                why = (
                    f"unreadable {cand.suffix.lstrip('.') or 'file'} ({type(exc).__name__}: {exc})"
                )
            else:
                why = validate(value) if validate is not None else None
                if why is None:
                    return value, cand
        set_aside(cand, why, into, sidecar)
    return None


def read_checked(
    path: str | Path,
    expected: Mapping[str, Any],
    read: Callable[[Path], T],
    validate: Callable[[T], str | None] | None = None,
    *,
    sidecar: str = ".json",
    into: str | Path | None = None,
) -> T | None:
    """The artefact ``path`` read by ``read``, or ``None`` if it is missing or bad.

    Before reuse the artefact is checked against its sealed sidecar (:func:`artefact_problem`
    with ``expected`` and ``sidecar``), then read (any exception of ``read`` means
    unreadable, e.g. a truncated file), then ``validate`` (returns what is wrong with the
    content, or ``None``). A bad artefact is named and set aside (:func:`set_aside`, into
    ``into``; one of the book's cache is left in place), so the caller recomputes it. For a
    path in the book's cache the user cache's copy is read when the book's is missing or bad
    (:func:`checked_source`).
    """
    got = checked_source(path, expected, read, validate, sidecar=sidecar, into=into)
    return None if got is None else got[0]


def in_book_cache(path: str | Path) -> bool:
    """Whether ``path`` lies in the book's committed cache (:func:`results_dir`).

    Those files are sealed like any other (``tools/seal_results.py``); a bad one is never
    moved or rewritten at run time, only not used (:func:`set_aside`, :func:`write_target`).
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
