"""One path for every run: learning-curve runs go through the one runner and its cache, a
method defined in ``__main__`` (a script or a notebook cell) runs on workers, and ``--out``
never replaces another run's output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nmthpo.engine import fidelity, runner
from nmthpo.engine.cache import sha256_file
from tests.paths import ROOT

LC = "lc-finetune-fr-en"


def _env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env["NMTHPO_RESULTS"] = str(tmp / "usercache")
    return env


def _cli(args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nmthpo.cli", *args],
        cwd=tmp,
        env=_env(tmp),
        capture_output=True,
        text=True,
        timeout=600,
    )


def _tree(path: Path) -> dict[str, str]:
    return {
        str(f.relative_to(path)): sha256_file(f) for f in sorted(path.rglob("*")) if f.is_file()
    }


# -- learning-curve runs through the one runner ----------------------------------------------
def test_learning_curve_run_writes_a_verified_cache_and_reads_it_back(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    args = ["run", "sh", "--task", LC, "--trials", "20", "--quiet", "--cache", str(cache)]
    first = _cli([*args, "--out", str(tmp_path / "a")], tmp_path)
    assert first.returncode == 0, first.stderr
    (pq,) = cache.glob("sh__*.parquet")
    side = json.loads(pq.with_suffix(".json").read_text())
    assert side["method"] == "sh" and side["task"] == LC and side["engine"] == "fidelity-1"
    assert side["checksum"]["sha256"] == sha256_file(pq)
    second = _cli([*args, "--out", str(tmp_path / "b"), "--jobs", "2"], tmp_path)
    assert second.returncode == 0, second.stderr
    assert f"found 20 of 20 trials in {cache}" in second.stderr
    for name in ("evaluations.parquet", "recommendations.parquet"):
        pd.testing.assert_frame_equal(
            pd.read_parquet(tmp_path / "a" / name), pd.read_parquet(tmp_path / "b" / name)
        )


def test_learning_curve_cache_is_verified_not_trusted(tmp_path: Path) -> None:
    ref = fidelity.run_curves("asha", LC, trials=3, seed=2, cache_dir=tmp_path)
    (pq,) = tmp_path.glob("asha__*.parquet")
    # a finished run without its sidecar is not reused (the sidecar is written last)
    pq.with_suffix(".json").unlink()
    again = fidelity.run_curves("asha", LC, trials=3, seed=2, cache_dir=tmp_path)
    pd.testing.assert_frame_equal(again.frame, ref.frame)
    assert list(tmp_path.glob("*.bad-1")), "the unverifiable file was not set aside"
    # a value that is not the curve's (checksum recomputed: a forged file) is refused too
    frame = pd.read_parquet(pq)
    frame.loc[0, "value"] += 1.0
    frame.to_parquet(pq, index=False)
    record = json.loads(pq.with_suffix(".json").read_text())
    record["checksum"] = {"sha256": sha256_file(pq), "bytes": pq.stat().st_size}
    pq.with_suffix(".json").write_text(json.dumps(record))
    third = fidelity.run_curves("asha", LC, trials=3, seed=2, cache_dir=tmp_path)
    pd.testing.assert_frame_equal(third.frame, ref.frame)
    assert list(tmp_path.glob("*.bad-2"))


def test_interrupted_learning_curve_run_resumes_to_the_same_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ref = fidelity.run_curves("bohb", LC, trials=5, seed=1)
    calls = {"n": 0}
    real = fidelity.simulate_trial

    def stop_after_two(spec: fidelity.CurveRunSpec, trial: int, table=None):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(spec, trial, table)

    monkeypatch.setattr(fidelity, "simulate_trial", stop_after_two)
    with pytest.raises(runner.RunInterrupted, match="2 of 5 trials saved"):
        fidelity.run_curves("bohb", LC, trials=5, seed=1, cache_dir=tmp_path)
    assert len(list(tmp_path.glob("partial/*/trial-*.npz"))) == 2
    monkeypatch.setattr(fidelity, "simulate_trial", real)
    resumed = fidelity.run_curves("bohb", LC, trials=5, seed=1, cache_dir=tmp_path)
    pd.testing.assert_frame_equal(resumed.frame, ref.frame)
    assert not (tmp_path / "partial").exists()


def test_front_door_runs_learning_curves() -> None:
    res = runner.run("hb", LC, trials=2, progress=False)
    assert isinstance(res, fidelity.CurveRunResult) and res.trials == 2
    with pytest.raises(ValueError, match="neither sources"):
        runner.run("sh", LC, trials=2, sources=["ja-en"])


# -- methods defined in __main__ run on workers ----------------------------------------------
MAIN = textwrap.dedent('''
    import json

    import numpy as np

    import nmthpo
    from nmthpo.optimizers.adapters import from_hpob

    def nearest_to_best(X_obs, y_obs, X_pen, rng=None):
        best = X_obs[int(np.argmax(y_obs[:, 0]))]
        d = ((X_pen - best) ** 2).sum(1) + 1e-9 * rng.random(len(X_pen))
        return int(np.argmin(d))

    class Mine(nmthpo.TableOptimizer):
        """Random rows, from the trial's generator."""
        def ask(self):
            rem = self.remaining()
            return int(rem[self.rng.integers(rem.size)])

    def main(dask=False):
        out = {}
        for name, method in (("hpob", from_hpob(nearest_to_best)), ("class", Mine)):
            one = nmthpo.run(method, "ja-en", trials=4, jobs=1, progress=False)
            two = nmthpo.run(method, "ja-en", trials=4, jobs=2, progress=False)
            ident = str(one.spec.settings.get("fn", one.spec.method))
            out[name] = [ident, one.sequences == two.sequences, one.sequences]
        print("RESULT", json.dumps(out))
        if dask:
            from distributed import LocalCluster

            with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cl:
                for name, method in (("hpob", from_hpob(nearest_to_best)), ("class", Mine)):
                    d = nmthpo.run(method, "ja-en", trials=4, scheduler=cl.scheduler_address,
                                   progress=False)
                    print("DASK", name, d.sequences == out[name][2])
''')


def _check_main_result(text: str) -> dict[str, list]:  # type: ignore[type-arg]
    line = next(x for x in text.splitlines() if x.startswith("RESULT "))
    out = json.loads(line[len("RESULT ") :])
    assert out["hpob"][0] == "hpob:__main__:nearest_to_best"
    assert out["class"][0] == "__main__:Mine"
    assert out["hpob"][1] and out["class"][1], "jobs=2 gave other rows than jobs=1"
    assert all(len(s) >= 3 for s in out["class"][2])
    return out


@pytest.mark.slow
def test_main_function_and_class_run_on_workers_and_dask_from_a_script(tmp_path: Path) -> None:
    script = tmp_path / "mine.py"
    script.write_text(MAIN + '\nif __name__ == "__main__":\n    main(dask=True)\n')
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    _check_main_result(proc.stdout)
    assert "DASK hpob True" in proc.stdout and "DASK class True" in proc.stdout


@pytest.mark.slow
def test_main_function_and_class_run_with_two_workers_from_a_notebook(tmp_path: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    papermill = pytest.importorskip("papermill")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(MAIN), nbformat.v4.new_code_cell("main()")]
    src, dest = tmp_path / "mine.ipynb", tmp_path / "mine.out.ipynb"
    nbformat.write(nb, src)
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(ROOT)
    try:
        papermill.execute_notebook(
            str(src), str(dest), kernel_name="python3", cwd=str(tmp_path), progress_bar=False
        )
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = old
    done = nbformat.read(dest, as_version=4)
    text = "".join(o.get("text", "") for o in done.cells[1].outputs)
    _check_main_result(text)


def test_hpob_function_name_is_what_it_is_called_not_its_code() -> None:
    from nmthpo.optimizers.adapters import from_hpob
    from nmthpo.optimizers.adapters.hpob import HPOBFunction

    def f(X_obs, y_obs, X_pen):  # type: ignore[no-untyped-def]
        return 0

    name = HPOBFunction(f).name
    assert name.startswith("hpob:") and name.endswith("f")
    assert HPOBFunction(f, key="v2").name == name + ":v2"
    assert from_hpob(f, key="v2").settings["fn"].name == name + ":v2"
    with pytest.raises(ValueError, match="key must be"):
        HPOBFunction(f, key="a b")


def test_user_key_joins_a_class_method_name() -> None:
    from nmthpo.optimizers.random import RandomSearch
    from nmthpo.optimizers.registry import resolve, spec_from_class

    spec = spec_from_class(RandomSearch, key="v2")
    assert spec.name == "nmthpo.optimizers.random:RandomSearch@v2"
    assert resolve(spec.name) == spec
    rs = runner.run(spec, "ja-en", trials=2, progress=False)
    assert rs.spec.method == spec.name and "RandomSearch-v2__" in rs.spec.stem()


# -- outputs never clobber ---------------------------------------------------------------------
def test_out_onto_another_run_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    base = ["--task", "ja-en", "--trials", "3", "--quiet", "--out", str(out)]
    assert _cli(["run", "rs", *base], tmp_path).returncode == 0
    before = _tree(out)
    other = _cli(["run", "gb-ei-m", *base], tmp_path)
    assert other.returncode == 2 and "Traceback" not in other.stderr
    assert "holds the output of another run (method=rs, task=ja-en" in other.stderr
    assert "--force" in other.stderr
    assert _tree(out) == before
    # a learning-curve run is refused the same way
    lc = _cli(["run", "sh", "--task", LC, "--trials", "2", "--quiet", "--out", str(out)], tmp_path)
    assert lc.returncode == 2 and _tree(out) == before
    # the same spec writes over its own output; --force replaces another's
    assert _cli(["run", "rs", *base], tmp_path).returncode == 0
    assert _tree(out) == before
    forced = _cli(["run", "gb-ei-m", *base, "--force"], tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert json.loads((out / "spec.json").read_text())["method"] == "gb-ei-m"


def test_out_holding_foreign_files_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "sequences.ss").write_text("my own notes\n")
    proc = _cli(
        ["run", "rs", "--task", "ja-en", "--trials", "2", "--quiet", "--out", str(out)], tmp_path
    )
    assert proc.returncode == 2 and "no spec.json" in proc.stderr
    assert (out / "sequences.ss").read_text() == "my own notes\n"


def test_save_refuses_another_runs_output_from_python(tmp_path: Path) -> None:
    a = runner.run("rs", "ja-en", trials=2, progress=False)
    b = runner.run("rs", "ja-en", trials=2, seed=1, progress=False)
    a.save(tmp_path)
    with pytest.raises(runner.OutputExists, match="seed=0"):
        b.save(tmp_path)
    b.save(tmp_path, force=True)
    assert json.loads((tmp_path / "spec.json").read_text())["seed"] == 1
    assert np.array_equal(pd.read_parquet(tmp_path / "results.parquet")["row"], b.frame["row"])


def test_a_module_class_string_and_the_class_name_one_method() -> None:
    from userpkg.mymod import MyOptimizer

    from nmthpo.optimizers.registry import method_name, spec_from_class

    keyed = type("Keyed", (MyOptimizer,), {"method_key": "v2", "__module__": "userpkg.mymod"})
    import userpkg.mymod as mod

    mod.Keyed = keyed  # type: ignore[attr-defined]
    try:
        assert method_name("userpkg.mymod:Keyed") == "userpkg.mymod:Keyed@v2"
        assert spec_from_class(keyed).name == "userpkg.mymod:Keyed@v2"
        a = runner.RunSpec.of("userpkg.mymod:Keyed", "zh-en")
        b = runner.RunSpec.of(keyed, "zh-en")
        assert a.key() == b.key() and a.method == b.method
        assert method_name("rs") == "rs" and method_name("optuna:TPESampler") == "optuna:TPESampler"
    finally:
        del mod.Keyed  # type: ignore[attr-defined]


def test_a_method_specs_fixed_settings_enter_a_learning_curve_runs_key(tmp_path: Path) -> None:
    from dataclasses import replace

    from nmthpo.optimizers.registry import METHODS

    a = fidelity.run_curves(
        replace(METHODS["sh"], settings={"eta": 2}), LC, trials=2, cache_dir=tmp_path
    )
    b = fidelity.run_curves(
        replace(METHODS["sh"], settings={"eta": 4}), LC, trials=2, cache_dir=tmp_path
    )
    assert a.spec.stem() != b.spec.stem() and dict(b.spec.settings) == {"eta": 4}
    fresh = fidelity.run_curves("sh", LC, trials=2, settings={"eta": 4})
    pd.testing.assert_frame_equal(b.frame, fresh.frame)


def test_an_hpob_callable_without_a_name_of_its_own_needs_a_key() -> None:
    import functools

    from nmthpo.optimizers.adapters import from_hpob

    def pick(X_obs, y_obs, X_pen, k=0):  # type: ignore[no-untyped-def]
        return k

    for fn in (lambda X_obs, y_obs, X_pen: 0, functools.partial(pick, k=1), pick):
        with pytest.raises(ValueError, match="key="):
            from_hpob(fn)
    assert (
        from_hpob(lambda X_obs, y_obs, X_pen: 0, key="first")
        .settings["fn"]
        .name.endswith("<lambda>:first")
    )


def test_force_leaves_no_file_of_the_replaced_run(tmp_path: Path) -> None:
    out = tmp_path / "out"
    base = ["--trials", "2", "--quiet", "--out", str(out)]
    assert _cli(["run", "rs", "--task", "zh-en", *base], tmp_path).returncode == 0
    forced = _cli(
        ["run", "rs", "--task", "zh-en", "--sources", "ru-en", *base, "--force"], tmp_path
    )
    assert forced.returncode == 0, forced.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "SHA256SUMS",
        "sequences.ss",
        "spec.json",
        "target_weights.csv",
        "trajectories.parquet",
    ]
    curves = _cli(["run", "sh", "--task", LC, *base, "--force"], tmp_path)
    assert curves.returncode == 0, curves.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "SHA256SUMS",
        "evaluations.parquet",
        "recommendations.parquet",
        "spec.json",
    ]
    comp = _cli(["compare", str(out), "--task", LC], tmp_path)
    assert comp.returncode != 0 and "Traceback" not in comp.stderr
