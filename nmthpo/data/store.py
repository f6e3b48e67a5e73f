"""Locate, fetch, verify and load the upstream NMTHPO / NMTLC data files.

The lookup tables of Zhang & Duh (TACL 2020, Section 4 "Benchmark datasets") and the NMTLC
learning curves of Zhang & Duh (AMTA 2024) are published in the public repository
``Este1le/hpo_nmt`` (MIT licence). This module never ships those files; it installs a pinned,
checksummed copy:

* **What**: the 30 files listed in the committed manifest ``data/SHA256SUMS`` (relative path
  and SHA-256 of each, taken from upstream commit :data:`UPSTREAM_COMMIT`): the 24 tables
  ``datasets/<pair>.{hyps,hyps_scaled,evals,fronts}``, ``lc_datasets/nmtlc.pkl``, the example
  inputs ``scripts/examples/example.{ss,bleu,fronts}`` and upstream's ``LICENSE.md`` and
  ``README.md`` (kept next to the data they licence).
* **From where**: a mirror directory with upstream's layout (argument ``mirror`` or the
  environment variable ``NMTHPO_MIRROR``; a mirror, when given, wins over the network), else
  raw files under :data:`BASE_URL` (``http(s)://`` or ``file://``).
* **To where**: :func:`data_dir`, i.e. ``<repo>/data/hpo_nmt`` or ``$NMTHPO_DATA``.
* **How**: everything is written into a staging directory next to the target
  (``.staging-XXXX``), every SHA-256 is checked, and only then the staging directory is
  renamed into place (an old copy is renamed away first and removed afterwards). A failed or
  tampered transfer leaves neither a partial install nor the staging directory.

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
import shutil
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from functools import lru_cache
from pathlib import Path
from typing import IO

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

# path -> (sha256, (size, mtime_ns, inode)) of files hashed in this process
_VERIFIED: dict[str, tuple[str, tuple[int, int, int]]] = {}


class DataError(RuntimeError):
    """The data is not installed, incomplete, altered, or could not be fetched.

    Every message names the file, the check that failed and the command that fixes it.
    """


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


def _mismatch(path: Path, expected: str, got: str, what: str) -> DataError:
    return DataError(f"{path}: SHA-256 mismatch: expected {expected}, got {got} ({what}); {_FIX}")


def _check_file(path: Path, rel: str, expected: str) -> None:
    """Hash ``path`` unless it was hashed in this process and its stat is unchanged."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise DataError(f"{path}: missing (data file {rel!r}); {_FIX}") from None
    if not path.is_file():
        raise DataError(f"{path}: not a regular file (data file {rel!r}); {_FIX}")
    key = str(path)
    if _VERIFIED.get(key) == (expected, _stamp(st)):
        return
    got = _sha256_file(path)
    if got != expected:
        _VERIFIED.pop(key, None)
        raise _mismatch(path, expected, got, f"truncated or altered, {st.st_size} bytes")
    _VERIFIED[key] = (expected, _stamp(st))


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
        If the data is not installed, or listing every file that is missing or has a wrong
        SHA-256 ("SHA-256 mismatch: expected X, got Y"); each line names the file and the
        fix.

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
        try:
            _check_file(path, rel, expected)
        except DataError as exc:
            problems.append(str(exc))
    if len(problems) == 1:
        raise DataError(problems[0])
    if problems:
        raise DataError(
            f"{len(problems)} of {len(entries)} data files failed the check:\n  "
            + "\n  ".join(problems)
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
    except DataError:
        return False
    return True


# --------------------------------------------------------------------------- fetch


def _copy_stream(src: IO[bytes], out: Path, limit: int) -> str:
    """Copy ``src`` into ``out`` while hashing; refuse more than ``limit`` bytes."""
    h = hashlib.sha256()
    total = 0
    with out.open("wb") as fh:
        for chunk in iter(lambda: src.read(_CHUNK), b""):
            total += len(chunk)
            if total > limit:
                raise DataError(f"{out.name}: source exceeds {limit} bytes; refusing it")
            h.update(chunk)
            fh.write(chunk)
    return h.hexdigest()


def _from_mirror(mirror: Path, rel: str, out: Path) -> tuple[str, str]:
    src = mirror / rel
    try:
        with src.open("rb") as fh:
            return _copy_stream(fh, out, _MAX_BYTES), str(src)
    except FileNotFoundError:
        raise DataError(
            f"{src}: missing in mirror {mirror} (expected upstream's layout, file {rel!r}); "
            "point --mirror / NMTHPO_MIRROR at a complete copy of Este1le/hpo_nmt"
        ) from None
    except IsADirectoryError:
        raise DataError(f"{src}: is a directory in mirror {mirror}, expected a file") from None


def _file_url(base_url: str, rel: str) -> str:
    return base_url.rstrip("/") + "/" + urllib.parse.quote(rel)


def _from_url(base_url: str, rel: str, out: Path) -> tuple[str, str]:
    url = _file_url(base_url, rel)
    try:
        with urllib.request.urlopen(url, timeout=_TIMEOUT_S) as resp:
            return _copy_stream(resp, out, _MAX_BYTES), url
    except urllib.error.HTTPError as exc:
        raise DataError(
            f"{rel}: download failed: HTTP {exc.code} {exc.reason} for {url}; "
            "check the base URL, or use a local copy: `nmthpo data fetch --mirror DIR`"
        ) from exc
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        reason = getattr(exc, "reason", exc)
        raise DataError(
            f"{rel}: download failed for {url} ({reason}); without network access use a "
            "local copy: `nmthpo data fetch --mirror DIR` (or set NMTHPO_MIRROR)"
        ) from exc


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def _swap_into_place(staging: Path, target: Path) -> None:
    """Rename ``staging`` to ``target``, replacing an existing ``target``.

    POSIX cannot atomically replace a non-empty directory, so the old copy is renamed away
    (to ``<staging>-old``, a sibling), the new one renamed in, and the old one removed; if
    the second rename fails the old copy is renamed back.
    """
    old: Path | None = None
    if target.exists() or target.is_symlink():
        old = staging.with_name(staging.name + "-old")
        os.rename(target, old)
    try:
        os.rename(staging, target)
    except OSError:
        if old is not None:
            os.rename(old, target)
        raise
    if old is not None:
        _remove(old)


def _check_target(target: Path, entries: dict[str, str]) -> None:
    """Refuse an install directory that holds anything but this dataset.

    ``fetch`` may create ``target``, fill an empty directory, or replace a copy of this dataset
    (every file under it is a manifest file or the ``SHA256SUMS`` this function writes). A
    regular file, or a directory with any other file, belongs to the user: it is refused
    before anything is written, so nothing the command did not create is ever deleted.
    """
    if target.is_symlink() and not target.exists():
        raise DataError(f"{target}: is a broken symbolic link; point {DATA_ENV} at a directory")
    if not target.exists():
        return
    if not target.is_dir():
        raise DataError(
            f"{target}: exists and is not a directory; the data needs a directory of its own: "
            f"set {DATA_ENV} to a new or empty directory (nothing was changed)"
        )
    known = set(entries) | {"SHA256SUMS"}
    foreign = sorted(
        str(p.relative_to(target))
        for p in target.rglob("*")
        if not p.is_dir() and str(p.relative_to(target)) not in known
    )
    if foreign:
        shown = ", ".join(foreign[:5]) + (
            f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
        )
        raise DataError(
            f"{target}: holds files that are not the NMTHPO dataset ({shown}); refusing to "
            f"install over them (nothing was changed). Set {DATA_ENV} to a new or empty "
            "directory, or move those files away yourself"
        )


def fetch(
    mirror: str | Path | None = None,
    base_url: str = BASE_URL,
    dest: Path | None = None,
    force: bool = False,
) -> Path:
    """Install the manifest's files, SHA-256 verified, atomically.

    Parameters
    ----------
    mirror
        Directory with upstream's layout to copy from. If ``None``, ``$NMTHPO_MIRROR`` is used
        when set. A mirror, when given, wins over ``base_url``.
    base_url
        Root URL of the raw files (``https://``, ``http://`` or ``file://``); file ``rel`` is
        read from ``base_url + "/" + rel``. Default: :data:`BASE_URL` (the pinned commit).
    dest
        Install directory; default :func:`data_dir`. Its parent is created if needed.
    force
        Re-install even if an installed copy already verifies.

    Returns
    -------
    pathlib.Path
        The install directory (resolved).

    Raises
    ------
    DataError
        If a file cannot be obtained or its SHA-256 differs from the manifest. Nothing is
        installed in that case and the staging directory is removed; an existing install is
        left untouched.

    Notes
    -----
    Idempotent: if ``dest`` already verifies and ``force`` is false, this is a no-op that only
    re-hashes the installed files (about 1.6 MB). An existing but broken install is replaced.
    Safety: ``dest`` must be missing, empty, or a copy of this dataset (:func:`_check_target`);
    a regular file or a directory holding any other file is refused before anything is
    written, and every failed file of a mirror or download is reported at once.
    Files are streamed; no single source file may exceed 64 MiB.
    """
    target = _resolve_dest(dest)
    entries = manifest()
    if mirror is None:
        env = os.environ.get(MIRROR_ENV, "").strip()
        mirror = env or None
    mirror_dir: Path | None = None
    if mirror is not None:
        mirror_dir = Path(mirror).expanduser().resolve()
        if not mirror_dir.is_dir():
            raise DataError(
                f"{mirror_dir}: mirror directory does not exist; pass a directory with "
                "upstream's layout (datasets/, lc_datasets/, scripts/examples/) to "
                "`nmthpo data fetch --mirror DIR`"
            )
    else:
        scheme = urllib.parse.urlsplit(base_url).scheme
        if scheme not in ("https", "http", "file"):
            raise DataError(
                f"base URL {base_url!r}: unsupported scheme {scheme!r}; use https://, "
                "http:// or file://, or a mirror directory (`nmthpo data fetch --mirror DIR`)"
            )
    _check_target(target, entries)
    if not force and _is_installed(target):
        return target

    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=target.parent))
    try:
        problems: list[str] = []
        for rel, expected in entries.items():
            out = staging / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            try:
                if mirror_dir is not None:
                    got, origin = _from_mirror(mirror_dir, rel, out)
                else:
                    got, origin = _from_url(base_url, rel, out)
            except DataError as exc:
                problems.append(str(exc))
                continue
            if got != expected:
                problems.append(
                    f"{rel}: SHA-256 mismatch: expected {expected}, got {got} (from {origin}; "
                    "the source is truncated or altered)"
                )
        if problems:
            raise DataError(
                f"{len(problems)} of {len(entries)} files failed; nothing was installed:\n  "
                + "\n  ".join(problems)
                + "\nFetch from a trustworthy source: `nmthpo data fetch` or "
                "`nmthpo data fetch --mirror DIR`"
            )
        mask = os.umask(0)
        os.umask(mask)
        staging.chmod(0o777 & ~mask)  # mkdtemp creates 0700; follow the umask as mkdir does
        (staging / "SHA256SUMS").write_text(
            "".join(f"{sha}  {rel}\n" for rel, sha in entries.items()), encoding="utf-8"
        )
        try:
            _swap_into_place(staging, target)
        except OSError as exc:
            # A concurrent fetch may have installed a good copy first; accept it.
            if _is_installed(target):
                return target
            raise DataError(
                f"{target}: could not move the verified files into place: {exc}"
            ) from exc
    finally:
        if staging.exists():
            _remove(staging)
    for rel in entries:
        _VERIFIED.pop(str(target / rel), None)
    return target
