"""The data layer: locate, fetch and verify the pinned upstream files; safe unpickling; NMTLC.

Modules: :mod:`~nmthpo.data.store` (pinned commit, SHA-256 manifest, mirror or download,
an install that writes each file atomically and touches nothing but the dataset's own files,
:func:`installed_path`), :mod:`~nmthpo.data.safe_pickle` (an unpickler that admits plain
builtins only) and :mod:`~nmthpo.data.nmtlc` (the NMTLC learning-curve records). Nothing here
imports another layer of the package except :mod:`nmthpo.errors`, which sits under all of them:
:class:`DataError` is one of its :class:`~nmthpo.errors.NmthpoError` family (and a
:class:`RuntimeError`); a bad argument is an :class:`~nmthpo.errors.InputError`, a fault of the
disk a :class:`~nmthpo.errors.FaultError`.
"""

from nmthpo.data.nmtlc import NMTLC_COLUMNS, load_nmtlc, nmtlc_task_names, read_nmtlc
from nmthpo.data.store import (
    BASE_URL,
    DATA_ENV,
    MANIFEST_PATH,
    MIRROR_ENV,
    NMTLC_RELPATH,
    UPSTREAM_COMMIT,
    UPSTREAM_REPO,
    DataError,
    data_dir,
    fetch,
    installed_path,
    manifest,
    verify,
)

__all__ = [
    "BASE_URL",
    "DATA_ENV",
    "MANIFEST_PATH",
    "MIRROR_ENV",
    "NMTLC_COLUMNS",
    "NMTLC_RELPATH",
    "UPSTREAM_COMMIT",
    "UPSTREAM_REPO",
    "DataError",
    "data_dir",
    "fetch",
    "installed_path",
    "load_nmtlc",
    "manifest",
    "nmtlc_task_names",
    "read_nmtlc",
    "verify",
]
