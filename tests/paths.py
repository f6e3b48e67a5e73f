"""Paths the tests share, wherever a test file sits under ``tests/``.

``tests/`` and each of its folders are packages (``__init__.py``), so test files of the same
name in different folders import as ``tests.<layer>.test_<module>``; pytest puts the
repository root on ``sys.path`` and ``pyproject.toml`` adds ``tests/`` (``pythonpath``) for
the user package ``userpkg``. A subprocess that imports a test module or ``userpkg`` gets
:data:`ROOT` or :data:`TESTS` on its ``PYTHONPATH``. (autorank installs a stray top-level
``tests`` package into site-packages; the root comes before site-packages on both paths, so
``tests`` is always this folder.)
"""

from __future__ import annotations

import os
from pathlib import Path

#: this folder, ``tests/`` (it holds the user package ``userpkg``)
TESTS = Path(__file__).resolve().parent
#: the repository root: the folder holding ``pyproject.toml``
ROOT = TESTS.parent
assert (ROOT / "pyproject.toml").is_file(), ROOT
#: the data mirror (``NMTHPO_MIRROR``; by default ``shared/data/hpo_nmt`` beside the root)
MIRROR = Path(os.environ.get("NMTHPO_MIRROR", str(ROOT.parent / "shared" / "data" / "hpo_nmt")))
#: the data ``make data`` installs in the repository
INSTALLED = ROOT / "data" / "hpo_nmt"
