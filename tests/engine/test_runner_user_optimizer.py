"""User optimisers anywhere: ``module:Class``, classes, specs and ``register()`` -- the same
results on 1 worker, 2 joblib workers, a Dask LocalCluster and through the CLI."""

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from userpkg.mymod import MyOptimizer, MyTransfer

from nmthpo.engine import runner
from nmthpo.engine.runner import RunSpec, run
from nmthpo.optimizers import registry
from nmthpo.optimizers.registry import METHODS, MethodSpec, resolve
from tests.paths import ROOT, TESTS

PATH = "userpkg.mymod:MyOptimizer"


def _run(method, **kw):
    return run(method, "ja-en", trials=6, seed=4, budget=12, progress=False, **kw)


def test_class_and_module_path_are_one_method_and_one_key():
    by_class, by_path = _run(MyOptimizer), _run(PATH)
    pd.testing.assert_frame_equal(by_class.frame, by_path.frame)
    assert by_class.spec.key() == by_path.spec.key() and by_class.spec.method == PATH
    assert by_class.trials == 6 and by_class.frame.groupby("trial").size().max() == 12
    # a spec with fixed settings: they enter the key
    jit = _run(MethodSpec("userpkg.mymod", "MyOptimizer", {"jitter": 1.0}))
    assert jit.spec.settings == {"jitter": 1.0} and jit.spec.key() != by_path.spec.key()


def test_user_optimizer_identical_on_one_and_two_workers():
    one, two = _run(PATH), _run(PATH, jobs=2)
    pd.testing.assert_frame_equal(one.frame, two.frame)


def test_registered_method_runs_on_two_workers(monkeypatch):
    """Workers never look a name up: the resolved spec travels with the job."""
    monkeypatch.setitem(
        METHODS, "my-nn", MethodSpec("userpkg.mymod", "MyOptimizer", {"jitter": 0.5})
    )
    one, two = _run("my-nn"), _run("my-nn", jobs=2)
    pd.testing.assert_frame_equal(one.frame, two.frame)
    assert one.spec.stem().startswith("my-nn__ja-en__bleu__s4__")


@pytest.mark.slow
def test_user_optimizer_identical_on_dask_local_cluster():
    from distributed import LocalCluster

    one = _run(PATH)
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        dask = _run(PATH, scheduler=cluster.scheduler_address)
    pd.testing.assert_frame_equal(one.frame, dask.frame)


def test_cli_runs_a_user_class_with_two_workers(tmp_path):
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "nmthpo.cli",
            "run",
            PATH,
            "--task",
            "ja-en",
            "--trials",
            "10",
            "--jobs",
            "2",
            "--out",
            str(out),
            "--quiet",
            "--budget",
            "12",
            "--seed",
            "4",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    lines = (out / "sequences.ss").read_text().splitlines()
    ref = run(PATH, "ja-en", trials=10, seed=4, budget=12, progress=False)
    assert [list(map(int, ln.split())) for ln in lines] == ref.sequences
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "nmthpo.cli",
            "run",
            "nosuchmod:X",
            "--task",
            "ja-en",
            "--out",
            str(out),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert bad.returncode == 2 and "cannot import module 'nosuchmod'" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_local_classes_are_refused_clearly_and_main_classes_run_on_workers():
    class Local(MyOptimizer):
        pass

    with pytest.raises(ValueError, match="define it at the top level of a module"):
        resolve(Local)
    # a class of __main__ (a script, a notebook cell) cannot be imported by workers: it
    # travels inside its spec, by value, and gives the rows of one worker
    Main = type("Main", (MyOptimizer,), {"__module__": "__main__"})
    one = run(Main, "ja-en", trials=3, jobs=1, progress=False)
    two = run(Main, "ja-en", trials=3, jobs=2, progress=False)
    assert one.spec.method == two.spec.method == "__main__:Main"
    assert one.sequences == two.sequences


def test_bad_method_paths_are_clear_errors():
    with pytest.raises(ValueError, match="cannot import module"):
        resolve("nosuchmodule:Opt")
    with pytest.raises(ValueError, match="has no 'Nope'"):
        resolve("userpkg.mymod:Nope")
    with pytest.raises(ValueError, match="is not an optimiser"):
        resolve("userpkg.mymod:NotAnOptimizer")
    with pytest.raises(ValueError, match="expected an optimiser class"):
        resolve("userpkg.mymod:from_name")
    with pytest.raises(KeyError, match="valid methods: rs"):
        resolve("nope")


def test_prefix_hook(monkeypatch):
    monkeypatch.setitem(registry.PREFIXES, "demo", "userpkg.mymod:from_name")
    spec = resolve("demo:abc")
    assert spec.path == PATH and spec.settings == {"jitter": float(len("demo:abc"))}
    res = _run("demo:abc", jobs=2)
    pd.testing.assert_frame_equal(res.frame, _run(spec).frame)


def test_user_transfer_optimizer_gets_its_context():
    kw = dict(sources=("ru-en",), n_source=10, budget=8)
    one = run(MyTransfer, "zh-en", trials=2, progress=False, **kw)
    two = run("userpkg.mymod:MyTransfer", "zh-en", trials=2, jobs=2, progress=False, **kw)
    cols = ["rep", "step", "row", "bleu", "target_weight", "w_ru-en"]
    pd.testing.assert_frame_equal(one.frame[cols], two.frame[cols])
    assert np.isnan(one.frame["target_weight"][:3]).all()
    assert (one.frame["target_weight"][3:8] == 0.5).all()
    with pytest.raises(ValueError, match="needs source tasks"):
        run(MyTransfer, "zh-en", trials=1, progress=False)
    with pytest.raises(ValueError, match="does not use source tasks"):
        run(MyOptimizer, "zh-en", trials=1, sources=("ru-en",), progress=False)


def test_spec_carries_the_resolved_method_to_workers():
    spec = runner._prepare(RunSpec(PATH, "ja-en"))
    assert spec.resolved == resolve(PATH) and spec == RunSpec(PATH, "ja-en")
