"""``tools/portability.py`` (``make portability``, run by hand): the core types it checks come
from the CPU's flags. Its runs are never made here: tests must not change OPENBLAS_*."""

from __future__ import annotations

import importlib.util
import sys

from tests.paths import ROOT


def _tool():
    spec = importlib.util.spec_from_file_location("portability", ROOT / "tools" / "portability.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["portability"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_core_types_follow_the_cpu_flags():
    tool = _tool()
    assert tool.core_types("") == ["Prescott"]
    assert tool.core_types("flags\t\t: fpu sse3 avx2\n") == ["Prescott", "Haswell"]
    both = "processor: 0\nflags : sse3 avx2 avx512f\nprocessor: 1\nflags : sse3 avx2 avx512f\n"
    assert tool.core_types(both) == ["Prescott", "Haswell", "SkylakeX"]
    assert tool.core_types("flags : avx512fx avx2x\n") == ["Prescott"]  # whole flags only


def test_the_make_target_is_not_part_of_make_test():
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    test_line = next(line for line in make.splitlines() if line.startswith("test:"))
    assert "portability" not in test_line and "\nportability:" in make
