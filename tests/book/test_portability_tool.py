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


def test_numpy_levels_switch_off_only_targets_this_numpy_runs(monkeypatch):
    """A NumPy level is checked only where the CPU runs a target it removes, and names only
    such targets (NumPy refuses others); the child's environment sets exactly one of the two
    variables, whatever the parent had set (nothing here runs a child)."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    tool = _tool()
    running = {f for f, on in __cpu_features__.items() if on} & set(__cpu_dispatch__)
    levels = tool.numpy_levels()
    assert set(levels) <= set(tool.NUMPY_LEVELS)
    for name, value in levels.items():
        assert value and set(value.split()) <= running & set(tool.NUMPY_LEVELS[name])
    for name, feats in tool.NUMPY_LEVELS.items():
        assert (name in levels) == bool(running & set(feats))
    monkeypatch.setenv("NPY_DISABLE_CPU_FEATURES", "X86_V4")  # (OPENBLAS_* is never touched)
    plain = tool._child_env(None)
    assert "OPENBLAS_CORETYPE" not in plain and "NPY_DISABLE_CPU_FEATURES" not in plain
    assert tool._child_env("Prescott")["OPENBLAS_CORETYPE"] == "Prescott"
    assert "NPY_DISABLE_CPU_FEATURES" not in tool._child_env("Prescott")
    for name, value in levels.items():
        env = tool._child_env(name)
        assert env["NPY_DISABLE_CPU_FEATURES"] == value and "OPENBLAS_CORETYPE" not in env


def test_the_make_target_is_not_part_of_make_test():
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    test_line = next(line for line in make.splitlines() if line.startswith("test:"))
    assert "portability" not in test_line and "\nportability:" in make


def test_results_comparison_counts_trials_with_other_rows(tmp_path):
    import pandas as pd

    tool = _tool()
    book, other = tmp_path / "book", tmp_path / "other"
    for root in (book, other):
        (root / "single").mkdir(parents=True)
        (root / "ga").mkdir()
        (root / "benchmarks").mkdir()
    run = pd.DataFrame({"trial": [0, 0, 1, 1, 2, 2], "step": [0, 1] * 3, "row": [1, 2, 3, 4, 5, 6]})
    run.to_parquet(book / "single" / "bo-ei-m-mcmc__ja-en__x.parquet")
    changed = run.copy()
    changed.loc[3, "row"] = 9  # trial 1 takes another row at its second step
    changed.to_parquet(other / "single" / "bo-ei-m-mcmc__ja-en__x.parquet")
    run.to_parquet(book / "single" / "rs__ja-en__y.parquet")  # not recomputed: missing
    table = pd.DataFrame({"5": [1.0, 2.0], "rule": ["a", "b"]})
    table.to_parquet(book / "ga" / "rules__k.parquet")
    (table + pd.DataFrame({"5": [1e-12, 0.0], "rule": ["", ""]})).to_parquet(
        other / "ga" / "rules__k.parquet"
    )
    run.to_parquet(book / "benchmarks" / "ignored.parquet")
    out = tool.compare_results(book, other)
    assert [
        (r["method"], r["trials"], r["differ"], r["machine"], r["exact"]) for r in out["runs"]
    ] == [
        ("bo-ei-m-mcmc", 3, 1, "unknown", False)
    ]  # no sidecar: the file's name; the registry's flag
    assert out["frames"] == [{"file": "ga/rules__k.parquet", "equal": True}]
    assert out["missing"] == ["single/rs__ja-en__y.parquet"]
    assert out["claims"] == []  # no ledger in either tree


def test_claims_comparison_names_changed_values_and_verdicts(tmp_path):
    import pandas as pd

    tool = _tool()
    cols = ["id", "chapter", "ours", "verdict", "ci_low", "ci_high"]
    book = pd.DataFrame(
        [
            ["a", "02", "9.6", "reproduced", 9.0, 10.0],
            ["b", "03", "1.2", "reproduced", 1.16, 1.25],
            ["c", "04", "0", "x", None, None],
        ],
        columns=cols,
    )
    other = book.copy()
    other.loc[0, "ours"] = "9.9"
    other.loc[1, ["ours", "verdict"]] = ["1.1", "not testable"]
    book.to_csv(tmp_path / "book.csv", index=False)
    other.to_csv(tmp_path / "other.csv", index=False)
    out = tool.compare_claims(tmp_path / "book.csv", tmp_path / "other.csv")
    assert [(c["id"], c["book"], c["other"], c["other_verdict"]) for c in out] == [
        ("a", "9.6", "9.9", "reproduced"),
        ("b", "1.2", "1.1", "not testable"),
    ]
    assert out[1]["book_ci"] == [1.16, 1.25]
