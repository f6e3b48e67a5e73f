"""What the book's reproducibility appendix reports: versions, chapter parameters, data, machine.

Every value is read at execution time (nothing typed): installed package versions, the parameters
papermill recorded in each executed chapter, the verified data manifest and the machine.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

__all__ = [
    "PACKAGES",
    "chapter_parameters",
    "data_manifest",
    "machine",
    "package_versions",
]

#: Packages whose versions the appendix lists.
PACKAGES: tuple[str, ...] = (
    "nmthpo",
    "numpy",
    "scipy",
    "pandas",
    "scikit-learn",
    "matplotlib",
    "optuna",
    "moocore",
    "joblib",
    "dask",
    "papermill",
    "nbval",
    "jupyter-book",
    "sphinx",
)


def package_versions(packages: Sequence[str] = PACKAGES) -> pd.DataFrame:
    """Installed versions of ``packages`` and of Python."""
    rows = [{"package": p, "version": md.version(p)} for p in packages]
    rows.append({"package": "python", "version": platform.python_version()})
    return pd.DataFrame(rows).set_index("package")


def chapter_parameters(chapters_dir: str | Path) -> pd.DataFrame:
    """The parameters each executed chapter ran with (defaults updated by injected values).

    Reads the ``parameters`` cell through papermill and the values papermill injected and
    recorded in the notebook's metadata; the appendix itself (``99_*``) is skipped. A value
    papermill cannot infer a type for (a string assigned from an expression) is kept as its
    source text, without papermill's warning.

    Returns
    -------
    DataFrame
        One row per (chapter, parameter) in the order of each ``parameters`` cell (index
        ``chapter``, ``parameter``); column ``value``: the value as the cell or papermill
        wrote it.
    """
    import logging

    import papermill

    rows: list[dict[str, str]] = []
    log = logging.getLogger("papermill")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        for path in sorted(Path(chapters_dir).glob("[0-9][0-9]_*.ipynb")):
            if path.name.startswith("99_"):
                continue
            defaults = papermill.inspect_notebook(str(path))
            injected = papermill.iorw.load_notebook_node(str(path)).metadata.get("papermill", {})
            params = {k: v["default"] for k, v in defaults.items()}
            params.update({k: repr(v) for k, v in injected.get("parameters", {}).items()})
            rows.extend(
                {"chapter": path.stem, "parameter": k, "value": str(v)} for k, v in params.items()
            )
    finally:
        log.setLevel(level)
    return pd.DataFrame(rows, columns=["chapter", "parameter", "value"]).set_index(
        ["chapter", "parameter"]
    )


def data_manifest() -> pd.DataFrame:
    """Verify the installed data (raises on a problem) and list the tables' checksums."""
    from nmthpo import data

    data.verify()
    return pd.DataFrame(
        [
            {"file": k, "sha256": v[:16] + "..."}
            for k, v in sorted(data.manifest().items())
            if k.startswith("datasets/")
        ]
    ).set_index("file")


def machine() -> pd.DataFrame:
    """Platform, processor, CPU count, Python and the BLAS thread setting."""
    return pd.Series(
        {
            "platform": platform.platform(),
            "processor": platform.machine(),
            "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
            "BLAS threads (OPENBLAS_NUM_THREADS)": os.environ.get("OPENBLAS_NUM_THREADS", "unset"),
        },
        name="value",
    ).to_frame()
