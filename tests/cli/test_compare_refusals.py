"""``nmthpo compare`` refuses bad run directories and options in one line, before the
numerical stack loads (issue "Reliability, second round", items 6 and 7).

Each case runs the real command (``python -m nmthpo.cli``) on a copy of one good run directory
with one thing broken; it must exit with status 2, print one line ``nmthpo: error: ...`` naming
the file or option, show no traceback, and write nothing. Cases refused by the cheap checks
must not have loaded SciPy or autorank (checked through ``sys.modules`` in the process). How
fast is measured by ``benchmarks/bench_refusals.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from nmthpo.engine.runner import run
from tests.paths import ROOT

PROBE = """
import json, sys
from nmthpo.cli import main
code = main(sys.argv[1:])
sys.stderr.write("MODULES " + json.dumps(sorted({m.split(".")[0] for m in sys.modules})) + "\\n")
sys.exit(code)
"""


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "good"
    run("rs", "ja-en", trials=3, progress=False).save(out)
    return out


def _spec(edit: Callable[[dict], object]) -> Callable[[Path], None]:
    def apply(d: Path) -> None:
        spec = json.loads((d / "spec.json").read_text())
        edit(spec)
        (d / "spec.json").write_text(json.dumps(spec))

    return apply


def _flip(name: str, where: float = 0.5) -> Callable[[Path], None]:
    def apply(d: Path) -> None:
        b = bytearray((d / name).read_bytes())
        b[int(len(b) * where)] ^= 0xFF
        (d / name).write_bytes(bytes(b))

    return apply


def _write(name: str, text: str) -> Callable[[Path], None]:
    return lambda d: (d / name).write_text(text)


def _spec_dir(d: Path) -> None:
    (d / "spec.json").unlink()
    (d / "spec.json").mkdir()


#: (id, how the copy is broken, needle in the message, refused before SciPy loads)
BROKEN: list[tuple[str, Callable[[Path], None], str, bool]] = [
    (
        "spec-list",
        _write("spec.json", "[1, 2]"),
        "spec.json: a run's spec is a JSON object, this holds an array",
        True,
    ),
    ("spec-extra", _spec(lambda s: s.update(zz=1)), "unknown key(s) zz", True),
    ("spec-missing", _spec(lambda s: s.pop("seed")), "missing key(s) seed", True),
    ("spec-type", _spec(lambda s: s.update(seed="x")), "seed='x', must be an integer", True),
    ("spec-float", _spec(lambda s: s.update(n_init=3.0)), "n_init=3.0, must be an integer", True),
    ("spec-task", _spec(lambda s: s.update(task="xx-en")), "task 'xx-en' is not a lookup", True),
    ("spec-not-json", _write("spec.json", "garbage{"), "spec.json: not JSON", True),
    ("spec-empty", _write("spec.json", ""), "not JSON (the file is empty)", True),
    ("spec-dir", _spec_dir, "spec.json is a directory, not a file", True),
    ("spec-binary", lambda d: (d / "spec.json").write_bytes(b"\xff\xfe\x00"), "not text", True),
    ("no-sequences", lambda d: (d / "sequences.ss").unlink(), "lacks sequences.ss", True),
    ("no-parquet", lambda d: (d / "results.parquet").unlink(), "lacks results.parquet", True),
    ("seq-garbage", _write("sequences.ss", "hello world 1 2\n"), "'hello' is not a row id", True),
    ("seq-negative", _write("sequences.ss", "0 -1 2\n"), "'-1' is not a row id", True),
    ("seq-repeat", _write("sequences.ss", "0 1 2 1\n"), "row 1 appears twice", True),
    ("seq-empty", _write("sequences.ss", "\n\n"), "holds no trial", True),
    ("seq-outside", _write("sequences.ss", "0 1 99999\n"), "row id 99999 is outside", False),
    ("seq-disagree", _write("sequences.ss", "0 1 2\n"), "results.parquet: damaged", False),
    ("parquet-flip", _flip("results.parquet"), "results.parquet: damaged", False),
    ("parquet-cut", lambda d: (d / "results.parquet").write_bytes(b"PAR1"), "damaged", False),
]


def _nmthpo(argv: list[str], cwd: Path, env_extra: dict[str, str] | None = None):
    env = dict(os.environ, PYTHONPATH=str(ROOT), NMTHPO_RESULTS=str(cwd / "cache"))
    env.update(env_extra or {})
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = proc.stderr.strip().splitlines()
    mods = (
        set(json.loads(lines.pop()[len("MODULES ") :]))
        if lines[-1:] and lines[-1].startswith("MODULES ")
        else set()
    )
    return proc.returncode, proc.stdout, lines, mods


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")
    }


def _refused(code: int, out: str, lines: list[str], needle: str) -> None:
    assert code == 2, (code, out, lines)
    assert len(lines) == 1 and lines[0].startswith("nmthpo: error: "), lines
    assert "Traceback" not in lines[0] and needle in lines[0], lines[0]


@pytest.mark.parametrize(("name", "breaks", "needle", "cheap"), BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_run_directory_is_refused_in_one_line(
    good: Path, tmp_path: Path, name: str, breaks, needle: str, cheap: bool
) -> None:
    d = tmp_path / "run"
    shutil.copytree(good, d)
    breaks(d)
    before = _snapshot(tmp_path)
    code, out, lines, mods = _nmthpo(["compare", "run", "--task", "ja-en", "--quiet"], tmp_path)
    _refused(code, out, lines, needle)
    assert "run" in lines[0]  # names the directory or its file
    assert _snapshot(tmp_path) == before
    assert mods.isdisjoint({"scipy", "autorank", "matplotlib"}), sorted(mods)
    if cheap:
        assert mods.isdisjoint({"pandas", "pyarrow"}), sorted(mods)


OPTIONS: list[tuple[str, list[str], str]] = [
    ("baselines-empty", ["--baselines", ""], "--baselines '': empty"),
    ("baselines-blank", ["--baselines", " , "], "--baselines ' , ': empty"),
    ("baselines-hole", ["--baselines", "rs,,gb-ei-m"], "name 2 is empty"),
    ("baselines-unknown", ["--baselines", "nope"], "'nope' is not a baseline; valid: rs"),
    ("baselines-objective", ["--baselines", "gb-m"], "does not support objective 'bleu'"),
    ("baselines-transfer", ["--baselines", "sgpr"], "not a baseline"),
    ("metric-unknown", ["--metric", "zz"], "--metric 'zz': unknown metric"),
    ("metric-objective", ["--metric", "fto"], "not a metric of objective 'bleu'"),
    ("task-unknown", ["--task", "xx-en"], "unknown task 'xx-en'"),
    ("task-other", ["--task", "en-ja"], "(task ja-en) is a run of another task"),
    ("task-all", ["--task", "all"], "at least 5 tasks"),
    ("plot-dir", ["--plot", "."], "--plot .: is a directory"),
    ("twice", ["run"], "given twice"),
]


@pytest.mark.parametrize(("name", "extra", "needle"), OPTIONS, ids=[o[0] for o in OPTIONS])
def test_a_bad_option_is_refused_before_the_numerical_stack(
    good: Path, tmp_path: Path, name: str, extra: list[str], needle: str
) -> None:
    shutil.copytree(good, tmp_path / "run")
    argv = ["compare", "run", *extra] if extra == ["run"] else ["compare", "run", "--quiet", *extra]
    if "--task" not in extra:
        argv += ["--task", "ja-en"]
    before = _snapshot(tmp_path)
    code, out, lines, mods = _nmthpo(argv, tmp_path)
    _refused(code, out, lines, needle)
    assert _snapshot(tmp_path) == before
    assert mods.isdisjoint({"scipy", "autorank", "pandas", "pyarrow"}), sorted(mods)


def test_a_user_cache_that_is_a_file_is_refused(good: Path, tmp_path: Path) -> None:
    shutil.copytree(good, tmp_path / "run")
    (tmp_path / "afile").write_text("mine\n")
    code, out, lines, mods = _nmthpo(
        ["compare", "run", "--task", "ja-en", "--quiet", "--baselines", "gb-ei-m"],
        tmp_path,
        {"NMTHPO_RESULTS": str(tmp_path / "afile")},
    )
    _refused(code, out, lines, "NMTHPO_RESULTS=")
    assert "is a file, not a directory" in lines[0] and "set NMTHPO_RESULTS" in lines[0]
    assert (tmp_path / "afile").read_text() == "mine\n"
    assert mods.isdisjoint({"scipy", "pandas"}), sorted(mods)


def test_an_unwritable_user_cache_is_refused_when_a_baseline_must_be_computed(
    good: Path, tmp_path: Path
) -> None:
    if os.access("/proc/1", os.W_OK):  # pragma: no cover
        pytest.skip("/proc/1 is writable here")
    d = tmp_path / "run"
    run("rs", "ja-en", trials=3, seed=5, progress=False).save(d)  # seed 5: not in the book
    code, out, lines, _ = _nmthpo(
        ["compare", "run", "--task", "ja-en", "--quiet", "--baselines", "gb-ei-m"],
        tmp_path,
        {"NMTHPO_RESULTS": "/proc/1/nmthpo-cache"},
    )
    _refused(code, out, lines, "NMTHPO_RESULTS=/proc/1/nmthpo-cache: /proc/1 is not writable")
    assert "(gb-ei-m)" in lines[0] and out == ""
