"""Locate, fetch, verify and load the upstream NMTHPO / NMTLC data files.

The lookup tables of Zhang & Duh (TACL 2020, Section 4 "Benchmark datasets") and the NMTLC
learning curves of Zhang & Duh (AMTA 2024) are published in the public repository
``Este1le/hpo_nmt`` (MIT licence). This module never ships those files; it installs a pinned,
checksummed copy:

* **What**: the 30 files listed in the committed manifest ``data/SHA256SUMS`` (relative path
  and SHA-256 of each, taken from upstream commit :data:`UPSTREAM_COMMIT`): the 24 tables
  ``datasets/<pair>.{hyps,hyps_scaled,evals,fronts}``, ``lc_datasets/nmtlc.pkl``, the example
  inputs ``scripts/examples/example.{ss,bleu,fronts}`` and upstream's ``LICENSE.md`` and
  ``README.md`` (kept next to the data they licence), plus a copy of the manifest,
  ``SHA256SUMS``, which marks the directory as a copy of this dataset.
* **From where**: a mirror directory with upstream's layout (argument ``mirror`` or the
  environment variable ``NMTHPO_MIRROR``; a mirror, when given, wins over the network), else
  raw files under :data:`BASE_URL` (``http(s)://`` or ``file://``).
* **To where**: :func:`data_dir`, i.e. ``<repo>/data/hpo_nmt`` or ``$NMTHPO_DATA``.
* **How**: every file is first written to a hidden temporary name in the directory it belongs
  to (``.<name>.XXXXXXXX.nmthpo-part``), flushed to disk and its SHA-256 checked; only when all
  30 match is each one renamed over its final name (``os.replace``, atomic). So a failed,
  interrupted or tampered transfer leaves each file either as the old verified copy or as the
  new one, never half-written, and no temporary file is left behind. Only the manifest's files
  and ``SHA256SUMS`` are ever written: anything else in the data directory (the user's own
  files, sub-directories, symbolic links) is neither removed, replaced nor followed.

Failures are one line each: a bad argument (a data directory that is a file, a mirror that is
missing or lacks a file) is an :class:`~nmthpo.errors.InputError` raised before anything is
written; a fault of the environment under the copy (disk full, read-only or vanished
directory) is a :class:`~nmthpo.errors.FaultError`; a source that cannot be read or does not
match the manifest is a :class:`DataError`.

Readers (:mod:`nmthpo.benchmark.tables`, the NMTLC loader) call :func:`installed_path`, which checks
that a file exists and hashes it the first time it is used in a process (re-hashing if its
size or modification time changes).

The NMTLC pickle is read through :func:`nmthpo.data.safe_pickle.safe_loads`, which admits only
list/dict/str/int/float/bool/None; see :func:`load_nmtlc` for the tidy frame and the
``task_name`` mapping.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from functools import lru_cache, partial
from pathlib import Path
from typing import IO

from nmthpo.errors import FaultError, InputValueError, NmthpoError, fault_from_oserror

__all__ = [
    "BASE_URL",
    "DATA_ENV",
    "MANIFEST_PATH",
    "MIRROR_ENV",
    "NMTLC_RELPATH",
    "UPSTREAM_COMMIT",
    "UPSTREAM_REPO",
    "DataError",
    "data_dir",
    "fetch",
    "installed_path",
    "manifest",
    "verify",
]

#: Upstream repository (owner/name on GitHub).
UPSTREAM_REPO = "Este1le/hpo_nmt"
#: Pinned upstream commit ("Add citations in README.").
UPSTREAM_COMMIT = "7bd0a402b332a6fdea8bdfeabb0271afa5c5be1f"
#: Raw-file root of the pinned commit; a file's URL is ``BASE_URL + "/" + relpath``.
BASE_URL = f"https://raw.githubusercontent.com/{UPSTREAM_REPO}/{UPSTREAM_COMMIT}"
#: Environment variable overriding the install location.
DATA_ENV = "NMTHPO_DATA"
#: Environment variable naming a mirror directory (upstream layout).
MIRROR_ENV = "NMTHPO_MIRROR"
#: Repository root: the parent of the package directory.
_REPO_ROOT = Path(__file__).resolve().parents[2]
#: The committed manifest, ``<sha256>  <relpath>`` per line.
MANIFEST_PATH = _REPO_ROOT / "data" / "SHA256SUMS"
#: Manifest entry of the NMTLC pickle.
NMTLC_RELPATH = "lc_datasets/nmtlc.pkl"

_FIX = "run `nmthpo data fetch` (or `nmthpo data fetch --mirror DIR` with a local copy)"
_CHUNK = 1 << 20
#: Refuse any single download larger than this (the largest upstream file is ~1.5 MB).
_MAX_BYTES = 64 << 20
_TIMEOUT_S = 60.0
_SHA_RE = re.compile(r"[0-9a-f]{64}")
#: The installed copy of the manifest; it marks a directory as a copy of this dataset.
_MARKER = "SHA256SUMS"
#: Suffix of the temporary files a fetch writes next to their final names.
_TMP_SUFFIX = ".nmthpo-part"
#: How many problems a one-line message lists before "and N more".
_SHOWN = 5

# path -> (sha256, (size, mtime_ns, inode)) of files hashed in this process
_VERIFIED: dict[str, tuple[str, tuple[int, int, int]]] = {}


class DataError(NmthpoError, RuntimeError):
    """The data is not installed, incomplete, altered, or could not be fetched (exit 2).

    Every message is one line naming the file, the check that failed and the command that
    fixes it. Part of the package's family of errors (:class:`nmthpo.errors.NmthpoError`) and
    a :class:`RuntimeError`, so code catching either keeps working.
    """


class _SinkError(Exception):
    """Writing a fetched file failed: carries the :class:`OSError` past the source handlers.

    (Those handlers turn *reading* errors into :class:`DataError`; a full disk is a fault of
    the destination, not of the source.)
    """

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


class _Unreachable(DataError):
    """The network source cannot be reached at all: trying the other files is pointless."""


def _listing(items: list[str], sep: str = "; ") -> str:
    """The first :data:`_SHOWN` of ``items`` joined by ``sep``, then ``and N more``."""
    shown = sep.join(items[:_SHOWN])
    return shown + (f"{sep}and {len(items) - _SHOWN} more" if len(items) > _SHOWN else "")


# --------------------------------------------------------------------------- locations


def data_dir() -> Path:
    """Return the install location of the data files.

    Returns
    -------
    pathlib.Path
        ``$NMTHPO_DATA`` if set and non-empty, else ``<repo>/data/hpo_nmt`` where ``<repo>``
        is the parent of the ``nmthpo`` package directory. The directory need not exist.
    """
    env = os.environ.get(DATA_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    return _REPO_ROOT / "data" / "hpo_nmt"


def manifest() -> dict[str, str]:
    """Return the committed manifest: relative path -> lower-case SHA-256 hex digest.

    Returns
    -------
    dict of str to str
        One entry per data file, in the manifest's order.

    Raises
    ------
    DataError
        If ``data/SHA256SUMS`` is missing or malformed.
    """
    return dict(_load_manifest(MANIFEST_PATH))


@lru_cache(maxsize=4)
def _load_manifest(path: Path) -> tuple[tuple[str, str], ...]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataError(
            f"{path}: cannot read the data manifest ({exc}); it is part of the nmthpo source "
            "tree (data/SHA256SUMS) — restore it from version control"
        ) from exc
    return tuple(_parse_manifest(text, str(path)).items())


def _parse_manifest(text: str, source: str) -> dict[str, str]:
    """Parse ``<sha256>  <relpath>`` lines (sha256sum text format); reject unsafe paths."""
    entries: dict[str, str] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        digest, sep, rel = line.partition("  ")
        if not sep or not _SHA_RE.fullmatch(digest):
            raise DataError(
                f"{source}:{lineno}: malformed manifest line {raw!r}; expected "
                "'<64 lower-case hex digits>  <relative path>'"
            )
        rel = rel.strip()
        parts = rel.split("/")
        if (
            not rel
            or rel.startswith("/")
            or "\\" in rel
            or any(p in ("", ".", "..") for p in parts)
        ):
            raise DataError(
                f"{source}:{lineno}: unsafe or non-normalised path {rel!r} in manifest; "
                "paths must be relative, '/'-separated, without '.', '..' or './'"
            )
        if rel in entries:
            raise DataError(f"{source}:{lineno}: duplicate manifest entry {rel!r}")
        entries[rel] = digest
    if not entries:
        raise DataError(f"{source}: the data manifest lists no files")
    return entries


# --------------------------------------------------------------------------- hashing


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def _stamp(st: os.stat_result) -> tuple[int, int, int]:
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def _file_problem(path: Path, rel: str, expected: str) -> tuple[str, os.stat_result | None]:
    """``("", stat)`` if ``path`` holds the right bytes, else a short reason (no fix).

    Uses the per-process cache: a file hashed before with an unchanged stat is not re-read.
    Reading errors other than a missing file are faults (:class:`~nmthpo.errors.FaultError`).
    """
    try:
        st = path.stat()
    except FileNotFoundError:
        return f"{path}: missing (data file {rel!r})", None
    except OSError as exc:
        raise fault_from_oserror(exc, f"cannot read data file {rel!r}") from exc
    if not path.is_file():
        return f"{path}: not a regular file (data file {rel!r})", None
    key = str(path)
    if _VERIFIED.get(key) == (expected, _stamp(st)):
        return "", st
    try:
        got = _sha256_file(path)
    except OSError as exc:
        raise fault_from_oserror(exc, f"cannot read data file {rel!r}") from exc
    if got != expected:
        _VERIFIED.pop(key, None)
        return (
            f"{path}: SHA-256 mismatch: expected {expected}, got {got} (truncated or altered, "
            f"{st.st_size} bytes)"
        ), None
    return "", st


def _check_file(path: Path, rel: str, expected: str) -> None:
    """Hash ``path`` unless it was hashed in this process and its stat is unchanged."""
    problem, st = _file_problem(path, rel, expected)
    if problem:
        raise DataError(f"{problem}; {_FIX}")
    assert st is not None
    _VERIFIED[str(path)] = (expected, _stamp(st))


# --------------------------------------------------------------------------- verify / query


def _resolve_dest(dest: Path | str | None) -> Path:
    return (Path(dest).expanduser() if dest is not None else data_dir()).resolve()


def verify(dest: Path | None = None) -> None:
    """Check that every manifest file is installed with the right SHA-256.

    Parameters
    ----------
    dest
        Install directory; default :func:`data_dir`.

    Raises
    ------
    DataError
        If the data is not installed, or naming (on one line) every file that is missing or
        has a wrong SHA-256 ("SHA-256 mismatch: expected X, got Y"), and the fix.
    nmthpo.errors.FaultError
        If a file exists but cannot be read (permissions, I/O error).

    Notes
    -----
    Always re-hashes every file (about 1.6 MB), ignoring the per-process cache, and refreshes
    that cache.
    """
    root = _resolve_dest(dest)
    entries = manifest()
    if not root.is_dir() or not any((root / rel).exists() for rel in entries):
        raise DataError(f"{root}: the NMTHPO data is not installed there; {_FIX}")
    problems = []
    for rel, expected in entries.items():
        path = root / rel
        _VERIFIED.pop(str(path), None)
        problem, st = _file_problem(path, rel, expected)
        if problem:
            problems.append(problem)
        elif st is not None:
            _VERIFIED[str(path)] = (expected, _stamp(st))
    if len(problems) == 1:
        raise DataError(f"{problems[0]}; {_FIX}")
    if problems:
        raise DataError(
            f"{len(problems)} of {len(entries)} data files failed the check: "
            f"{_listing(problems)}; {_FIX}"
        )


def installed_path(relpath: str) -> Path:
    """Return the path of an installed data file, verified once per process.

    Parameters
    ----------
    relpath
        Upstream-relative path as in the manifest, e.g. ``"datasets/zh-en.evals"``.

    Returns
    -------
    pathlib.Path
        ``data_dir() / relpath``.

    Raises
    ------
    DataError
        If ``relpath`` is not in the manifest, the data is not installed, the file is missing,
        or (first use in this process, or after the file changed) its SHA-256 is wrong.
    """
    entries = manifest()
    if relpath not in entries:
        known = ", ".join(sorted(entries))
        raise DataError(f"unknown data file {relpath!r}; the manifest lists: {known}")
    root = data_dir()
    if not root.is_dir():
        raise DataError(
            f"{root}: the NMTHPO data is not installed (needed: {relpath}); {_FIX}; "
            f"or set {DATA_ENV} to an installed copy"
        )
    path = root / relpath
    _check_file(path, relpath, entries[relpath])
    return path


def _is_installed(root: Path) -> bool:
    try:
        verify(root)
    except (DataError, FaultError):  # an unreadable file is replaced like an altered one
        return False
    return True


# --------------------------------------------------------------------------- sources


def _write_chunk(fd: int, chunk: bytes) -> None:
    """Write all of ``chunk`` to the file descriptor ``fd`` (the one writing function)."""
    view = memoryview(chunk)
    while view:
        view = view[os.write(fd, view) :]


def _copy_stream(src: IO[bytes], fd: int, limit: int, name: str) -> str:
    """Copy ``src`` into ``fd`` while hashing; refuse more than ``limit`` bytes.

    Reading errors propagate as they are (the caller names the source); writing errors are
    wrapped in :class:`_SinkError`.
    """
    h = hashlib.sha256()
    total = 0
    for chunk in iter(lambda: src.read(_CHUNK), b""):
        total += len(chunk)
        if total > limit:
            raise DataError(f"{name}: source exceeds {limit} bytes; refusing it")
        h.update(chunk)
        try:
            _write_chunk(fd, chunk)
        except OSError as exc:
            raise _SinkError(exc) from exc
    return h.hexdigest()


def _mirror_fix() -> str:
    return (
        f"point --mirror / ${MIRROR_ENV} at a complete, readable copy of {UPSTREAM_REPO} "
        "(upstream's layout: datasets/, lc_datasets/, scripts/examples/), or omit it to download"
    )


def _from_mirror(mirror: Path, rel: str, fd: int) -> tuple[str, str]:
    src = mirror / rel
    try:
        with src.open("rb") as fh:
            return _copy_stream(fh, fd, _MAX_BYTES, rel), str(src)
    except FileNotFoundError:
        raise DataError(
            f"{src}: missing in mirror {mirror} (file {rel!r}); {_mirror_fix()}"
        ) from None
    except IsADirectoryError:
        raise DataError(f"{src}: is a directory in mirror {mirror}, expected a file") from None
    except OSError as exc:
        raise DataError(
            f"{src}: cannot read from mirror ({exc.strerror or exc}); {_mirror_fix()}"
        ) from exc


def _file_url(base_url: str, rel: str) -> str:
    return base_url.rstrip("/") + "/" + urllib.parse.quote(rel)


def _from_url(base_url: str, rel: str, fd: int) -> tuple[str, str]:
    url = _file_url(base_url, rel)
    try:
        with urllib.request.urlopen(url, timeout=_TIMEOUT_S) as resp:
            return _copy_stream(resp, fd, _MAX_BYTES, rel), url
    except urllib.error.HTTPError as exc:
        raise DataError(
            f"{rel}: download failed: HTTP {exc.code} {exc.reason} for {url}; "
            "check the base URL, or use a local copy: `nmthpo data fetch --mirror DIR`"
        ) from exc
    except urllib.error.URLError as exc:
        reason = exc.reason
        # file:// reports a missing file as a URLError around an OSError; only a network
        # failure means the other files cannot be reached either
        kind = DataError if isinstance(reason, FileNotFoundError) else _Unreachable
        raise kind(
            f"{rel}: download failed for {url} ({reason}); without network access use a "
            f"local copy: `nmthpo data fetch --mirror DIR` (or set {MIRROR_ENV})"
        ) from exc
    except (OSError, TimeoutError) as exc:
        raise DataError(
            f"{rel}: download failed for {url} ({exc}); without network access use a "
            f"local copy: `nmthpo data fetch --mirror DIR` (or set {MIRROR_ENV})"
        ) from exc


# --------------------------------------------------------------------------- checks


def _locate(dest: Path | str | None) -> tuple[Path, str]:
    """The data directory as given (unresolved) and how it was chosen, for messages."""
    if dest is not None:
        return Path(dest).expanduser(), "dest="
    if os.environ.get(DATA_ENV, "").strip():
        return data_dir(), f"${DATA_ENV}"
    return data_dir(), "the default location"


def _dest_fix(origin: str) -> str:
    if origin == "dest=":
        return "pass dest= a new or empty directory (nothing was changed)"
    return f"set {DATA_ENV} to a new or empty directory (nothing was changed)"


def _has_marker(target: Path, entries: dict[str, str]) -> bool:
    """Does ``target`` hold this dataset's ``SHA256SUMS`` (a regular file listing its paths)?"""
    path = target / _MARKER
    if path.is_symlink() or not path.is_file():
        return False
    try:
        listed = _parse_manifest(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError, DataError):
        return False
    return set(listed) == set(entries)


def _raise(exc: OSError) -> None:
    raise exc


def _foreign_entries(target: Path, entries: dict[str, str]) -> list[str]:
    """What in ``target`` (no ``SHA256SUMS`` marker) is not a verified file of this dataset.

    Symbolic links are never followed; a file at a manifest path counts as the dataset's only
    if its SHA-256 matches (a user's own ``README.md`` is foreign). Empty directories and the
    temporary files of an interrupted fetch are not foreign.
    """
    foreign: list[str] = []
    for dirpath, dirnames, filenames in os.walk(target, onerror=_raise):
        base = Path(dirpath)
        for name in dirnames:
            if (base / name).is_symlink():  # os.walk does not descend into it
                foreign.append((base / name).relative_to(target).as_posix())
        for name in filenames:
            path = base / name
            rel = path.relative_to(target).as_posix()
            if name.endswith(_TMP_SUFFIX) and not path.is_symlink():
                continue
            if (
                path.is_symlink()
                or rel not in entries
                or not path.is_file()
                or _sha256_file(path) != entries[rel]
            ):
                foreign.append(rel)
    return sorted(foreign)


def _check_location(raw: Path, target: Path, origin: str, entries: dict[str, str]) -> None:
    """Refuse (:class:`~nmthpo.errors.InputError`) a data directory fetch must not write to.

    ``target`` may be missing, empty, or a copy of this dataset (it holds ``SHA256SUMS``
    listing the manifest's paths, or only verified files of the dataset) next to anything else
    of the user's. A regular file, a broken link, a path under a file, or a directory holding
    other files without the marker is refused before anything is written.
    """
    where = f"{target} (the data directory, from {origin})"
    fix = _dest_fix(origin)
    if raw.is_symlink() and not raw.exists():
        raise InputValueError(
            f"{raw} (the data directory, from {origin}): a broken symbolic "
            f"link; point it at a directory, or {fix}"
        )
    if target.exists():
        if not target.is_dir():
            raise InputValueError(
                f"{where}: exists and is not a directory; the data needs a directory of its "
                f"own: {fix}"
            )
    else:
        for parent in target.parents:
            if parent.exists():
                if not parent.is_dir():
                    raise InputValueError(f"{where}: {parent} is a file, not a directory; {fix}")
                break
        return
    if _has_marker(target, entries):
        return
    foreign = _foreign_entries(target, entries)
    if foreign:
        raise InputValueError(
            f"{where}: holds files that are not the NMTHPO dataset ({_listing(foreign, ', ')}) "
            f"and no {_MARKER} of a copy of it; refusing to install there: {fix}, or move those "
            "files away yourself"
        )


def _check_install_paths(target: Path, entries: dict[str, str]) -> None:
    """Refuse a link, a file or a directory standing where a dataset file or directory goes.

    Called only when files are about to be written: fetch replaces the dataset's own regular
    files and never writes through, removes or replaces a symbolic link.
    """
    fix = (
        "nmthpo replaces only its own regular files and never follows, removes or replaces a "
        "symbolic link: move it away yourself (nothing was changed)"
    )
    seen: set[str] = set()
    for rel in (*entries, _MARKER):
        parts = rel.split("/")
        for i in range(1, len(parts)):
            sub = "/".join(parts[:i])
            if sub in seen:
                continue
            seen.add(sub)
            path = target / sub
            if path.is_symlink():
                raise InputValueError(
                    f"{path}: a symbolic link stands where the data directory {sub!r} goes; {fix}"
                )
            if path.exists() and not path.is_dir():
                raise InputValueError(
                    f"{path}: a file stands where the data directory {sub!r} goes; {fix}"
                )
        path = target / rel
        if path.is_symlink():
            raise InputValueError(
                f"{path}: a symbolic link stands where the data file {rel!r} goes; {fix}"
            )
        if path.exists() and not path.is_file():
            raise InputValueError(
                f"{path}: not a regular file (a directory?) where the data file {rel!r} goes; {fix}"
            )


def _check_mirror(mirror: str | Path, from_env: bool, entries: dict[str, str]) -> Path:
    """The resolved mirror directory, or an :class:`~nmthpo.errors.InputError`."""
    label = f"${MIRROR_ENV}={mirror}" if from_env else f"--mirror {mirror}"
    path = Path(mirror).expanduser().resolve()
    if not path.exists():
        raise InputValueError(f"{label}: no such directory; {_mirror_fix()}")
    if not path.is_dir():
        raise InputValueError(f"{label}: is a file, not a directory; {_mirror_fix()}")
    missing = [rel for rel in entries if not (path / rel).is_file()]
    if missing:
        raise InputValueError(
            f"{label}: the mirror lacks {len(missing)} of the {len(entries)} dataset files "
            f"({_listing(missing, ', ')}); {_mirror_fix()}"
        )
    return path


# --------------------------------------------------------------------------- install


def _open_temp(final: Path) -> tuple[int, Path]:
    """Create a hidden temporary file next to ``final`` (same directory, so same file system)."""
    try:
        fd, name = tempfile.mkstemp(prefix=f".{final.name}.", suffix=_TMP_SUFFIX, dir=final.parent)
    except OSError as exc:  # name the directory, not the random name it tried
        raise OSError(exc.errno, exc.strerror or str(exc), str(final.parent)) from exc
    return fd, Path(name)


def _make_dirs(path: Path, created: list[Path]) -> None:
    """``mkdir -p path``, appending each directory this call created to ``created``."""
    missing = []
    p = path
    while not p.exists() and not p.is_symlink():
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            d.mkdir()
        except FileExistsError:  # a concurrent fetch made it
            if not d.is_dir():
                raise
            continue
        created.append(d)


def _fsync_dir(path: Path) -> None:
    """Make the renames in ``path`` durable where the platform allows (best effort)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fault(exc: OSError, path: Path, what: str) -> FaultError:
    """:func:`~nmthpo.errors.fault_from_oserror`, naming ``path`` if ``exc`` names none."""
    if not getattr(exc, "filename", None):
        exc = OSError(exc.errno, exc.strerror or str(exc), str(path))
    return fault_from_oserror(exc, what)


def _install(
    target: Path,
    entries: dict[str, str],
    read: Callable[[str, int], tuple[str, str]],
    what: str,
) -> None:
    """Write every file to a temporary name, verify all, then ``os.replace`` each into place.

    ``read(rel, fd)`` copies the source of ``rel`` into ``fd`` and returns its SHA-256 and the
    source's name. On any failure every temporary file is removed, as is every directory this
    call created (if still empty); files already in place stay as they were.
    """
    mode = 0o666 & ~_umask()  # mkstemp creates 0600; follow the umask as open() does
    created: list[Path] = []
    temps: dict[str, Path] = {}
    done = False
    final = target
    try:
        for rel in (*entries, _MARKER):
            _make_dirs((target / rel).parent, created)
        problems: list[str] = []
        for index, (rel, expected) in enumerate(entries.items()):
            final = target / rel
            fd, temps[rel] = _open_temp(final)
            try:
                got, origin = read(rel, fd)
                os.fchmod(fd, mode)
                os.fsync(fd)
            except _SinkError as exc:
                raise _fault(exc.error, final, what) from exc.error
            except _Unreachable as exc:
                skipped = len(entries) - index - 1
                problems.append(
                    str(exc) + (f" ({skipped} more files not tried)" if skipped else "")
                )
                break
            except DataError as exc:
                problems.append(str(exc))
                continue
            finally:
                os.close(fd)
            if got != expected:
                problems.append(
                    f"{rel}: SHA-256 mismatch: expected {expected}, got {got} (from {origin}; "
                    "the source is truncated or altered)"
                )
        if problems:
            raise DataError(
                f"{len(problems)} of {len(entries)} files failed, nothing was changed in "
                f"{target}: {_listing(problems)}; fetch from a trustworthy source: "
                "`nmthpo data fetch` or `nmthpo data fetch --mirror DIR`"
            )
        final = target / _MARKER
        fd, temps[_MARKER] = _open_temp(final)
        try:
            _write_chunk(fd, "".join(f"{sha}  {rel}\n" for rel, sha in entries.items()).encode())
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        # the marker first: a copy interrupted from here on is recognised as one on a rerun
        for rel in (_MARKER, *entries):
            final = target / rel
            os.replace(temps[rel], final)
            del temps[rel]
        for d in sorted({(target / rel).parent for rel in entries} | {target}):
            _fsync_dir(d)
        done = True
    except FaultError:
        raise
    except OSError as exc:
        raise _fault(exc, final, what) from exc
    finally:
        for tmp in temps.values():
            try:
                tmp.unlink()
            except OSError:
                pass
        if not done:
            for d in reversed(created):
                try:
                    d.rmdir()
                except OSError:
                    pass


def fetch(
    mirror: str | Path | None = None,
    base_url: str = BASE_URL,
    dest: Path | None = None,
    force: bool = False,
) -> Path:
    """Install the manifest's files, SHA-256 verified, each atomically.

    Parameters
    ----------
    mirror
        Directory with upstream's layout to copy from. If ``None``, ``$NMTHPO_MIRROR`` is used
        when set. A mirror, when given, wins over ``base_url``.
    base_url
        Root URL of the raw files (``https://``, ``http://`` or ``file://``); file ``rel`` is
        read from ``base_url + "/" + rel``. Default: :data:`BASE_URL` (the pinned commit).
    dest
        Install directory; default :func:`data_dir`. Missing directories are created.
    force
        Re-install even if an installed copy already verifies.

    Returns
    -------
    pathlib.Path
        The install directory (resolved).

    Raises
    ------
    nmthpo.errors.InputError
        Before anything is written, if ``dest`` (or ``$NMTHPO_DATA``) is a file, a broken link,
        lies under a file, or is a directory holding other files and no copy of this dataset;
        if a symbolic link, file or directory stands where a dataset file or directory goes;
        if the mirror is missing, is a file or lacks a dataset file (each named); or if
        ``base_url`` has an unsupported scheme.
    DataError
        If a file cannot be obtained or its SHA-256 differs from the manifest (every failed
        file is named, on one line). Nothing is changed in that case.
    nmthpo.errors.FaultError
        If writing fails (full disk, read-only or vanished directory, permissions). Every file
        is then the old verified copy or the new one, and no temporary file is left; running
        the same command again after the fault is fixed completes the install.

    Notes
    -----
    Idempotent: if ``dest`` already verifies and ``force`` is false, this is a no-op that only
    re-hashes the installed files (about 1.6 MB). An existing but broken install is repaired.
    Only the manifest's files and ``SHA256SUMS`` are written (each to a temporary name in its
    own directory, flushed, then renamed over the old one); the user's other files,
    sub-directories and symbolic links in ``dest`` are never removed, replaced or followed.
    Files are streamed; no single source file may exceed 64 MiB. A network source that cannot
    be reached at all is not tried again for the remaining files.
    """
    entries = manifest()
    raw, origin = _locate(dest)
    what = f"cannot install the data in {raw} (from {origin})"
    try:
        target = raw.resolve()
        what = f"cannot install the data in {target} (from {origin})"
        read: Callable[[str, int], tuple[str, str]]
        from_env = mirror is None
        if mirror is None:
            mirror = os.environ.get(MIRROR_ENV, "").strip() or None
        if mirror is not None:
            read = partial(_from_mirror, _check_mirror(mirror, from_env, entries))
        else:
            scheme = urllib.parse.urlsplit(base_url).scheme
            if scheme not in ("https", "http", "file"):
                raise InputValueError(
                    f"base URL {base_url!r}: unsupported scheme {scheme!r}; use https://, "
                    "http:// or file://, or a mirror directory (`nmthpo data fetch --mirror DIR`)"
                )
            read = partial(_from_url, base_url)
        _check_location(raw, target, origin, entries)
        if not force and _is_installed(target):
            return target
        _check_install_paths(target, entries)
        _install(target, entries, read, what)
    except FaultError:
        raise
    except OSError as exc:  # inspecting the mirror or the data directory failed
        raise fault_from_oserror(exc, what) from exc
    for rel in (*entries, _MARKER):
        _VERIFIED.pop(str(target / rel), None)
    return target
