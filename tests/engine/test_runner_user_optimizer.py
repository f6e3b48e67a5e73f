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
from nmthpo.errors import InputValueError, UserCodeError
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
    with pytest.raises(TypeError, match="expected an optimiser class"):
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


# -- the user's code is untrusted: one UserCodeError naming the method, the trial, the cause ----
FAULTY = "userpkg.faulty"


def test_user_code_error_survives_pickling():
    """Workers send exceptions back pickled (joblib's loky, Dask): type, text, method and
    trial survive the round trip."""
    import pickle

    err = UserCodeError("method m:M, trial 3: ask() raised X", method="m:M", trial=3)
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is UserCodeError and str(back) == str(err)
    assert (back.method, back.trial) == ("m:M", 3)


def test_a_module_that_raises_on_import_is_user_code_not_a_bad_name():
    with pytest.raises(UserCodeError) as err:
        run("userpkg.broken:Optimizer", "ja-en", trials=1, progress=False)
    assert str(err.value) == (
        "method userpkg.broken:Optimizer: importing module 'userpkg.broken' raised "
        "ZeroDivisionError: division by zero"
    )
    assert isinstance(err.value.__cause__, ZeroDivisionError) and err.value.trial is None
    # the module exists but imports a package that does not: the user's code as well
    with pytest.raises(UserCodeError, match="raised ModuleNotFoundError: No module named"):
        resolve("userpkg.needs_dependency:Optimizer")
    # a module or a class that does not exist is a bad name (an InputError, a ValueError)
    with pytest.raises(InputValueError, match="cannot import module 'userpkg.nosuch'"):
        resolve("userpkg.nosuch:Optimizer")
    with pytest.raises(InputValueError, match="has no 'Nope'"):
        resolve(f"{FAULTY}:Nope")


@pytest.mark.parametrize("jobs", [1, 2])
def test_constructor_that_raises(jobs):
    with pytest.raises(UserCodeError) as err:
        run(f"{FAULTY}:RaisesInInit", "ja-en", trials=2, jobs=jobs, progress=False)
    t = err.value.trial
    assert t in (0, 1) and err.value.method == f"{FAULTY}:RaisesInInit"
    assert str(err.value) == (
        f"method {FAULTY}:RaisesInInit, trial {t}: __init__() raised ZeroDivisionError: "
        "division by zero"
    )


def _partial_trials(cache):
    return sorted(int(p.stem.split("-")[1]) for p in cache.glob("partial/*/trial-*.npz"))


@pytest.mark.parametrize("jobs", [1, 2])
def test_ask_that_raises_mid_run_keeps_the_finished_trials(jobs, tmp_path, monkeypatch, caplog):
    """Trial 2 of 4 raises in ask(): one line names the method, the trial and the exception;
    the trials finished before it stay in the cache, and after the fix the run resumes."""
    from userpkg import faulty

    monkeypatch.delenv(faulty.FIXED, raising=False)
    method = f"{FAULTY}:RaisesInTrial"
    with pytest.raises(UserCodeError) as err:
        run(method, "ja-en", trials=4, jobs=jobs, cache_dir=tmp_path, progress=False)
    assert str(err.value) == (
        f"method {method}, trial 2: ask() raised ZeroDivisionError: division by zero"
    )
    assert (err.value.method, err.value.trial) == (method, 2)
    assert not list(tmp_path.glob("*.parquet"))  # no finished run was written
    kept = _partial_trials(tmp_path)
    if jobs == 1:
        assert kept == [0, 1]
        assert isinstance(err.value.__cause__, ZeroDivisionError)
    else:  # trials 0, 1 and 3 may have finished before trial 2's error came back
        assert set(kept) <= {0, 1, 3}
    assert not list(tmp_path.rglob("*.tmp*"))  # nothing half-written
    # the user fixes the code: the run resumes from the saved trials, in this process
    monkeypatch.setenv(faulty.FIXED, "1")
    with caplog.at_level("INFO", logger="nmthpo.runner"):
        res = run(method, "ja-en", trials=4, jobs=1, cache_dir=tmp_path, progress=False)
    if kept:
        assert f"found {len(kept)} of 4 trials" in caplog.text
    fresh = run(method, "ja-en", trials=4, progress=False)
    assert res.sequences == fresh.sequences and res.trials == 4


@pytest.mark.parametrize(
    ("cls", "tail"),
    [
        ("RaisesInTell", "tell() raised KeyError: 'no such row'"),
        (
            "ReturnsFloat",
            "ask() returned 133.0 (float); it must return the id of an unevaluated row: an "
            "integer (a Python int or a NumPy integer; not a bool, not a float even if "
            "integral, not a string, None or an array) in 0..149",
        ),
    ],
)
def test_tell_that_raises_and_ask_that_returns_a_float(cls, tail):
    with pytest.raises(UserCodeError) as err:
        run(f"{FAULTY}:{cls}", "ja-en", trials=1, progress=False)
    assert str(err.value) == f"method {FAULTY}:{cls}, trial 0: {tail}"


def test_a_main_class_that_raises_on_workers():
    """A class of __main__ travels by value to the workers: its error comes back the same."""

    def ask(self):
        raise ValueError(f"no row for you in trial {self.rng.integers(1)}")

    Main = type("Broken", (MyOptimizer,), {"__module__": "__main__", "ask": ask})
    with pytest.raises(UserCodeError) as err:
        run(Main, "ja-en", trials=2, jobs=2, progress=False)
    assert str(err.value) == (
        f"method __main__:Broken, trial {err.value.trial}: ask() raised ValueError: "
        "no row for you in trial 0"
    )


@pytest.mark.slow
def test_user_code_error_on_dask_local_cluster(tmp_path, monkeypatch):
    from distributed import LocalCluster
    from userpkg import faulty

    monkeypatch.delenv(faulty.FIXED, raising=False)
    method = f"{FAULTY}:RaisesInTrial"
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        with pytest.raises(UserCodeError) as err:
            run(
                method,
                "ja-en",
                trials=4,
                scheduler=cluster.scheduler_address,
                cache_dir=tmp_path,
                progress=False,
            )
    assert str(err.value) == (
        f"method {method}, trial 2: ask() raised ZeroDivisionError: division by zero"
    )
    assert set(_partial_trials(tmp_path)) <= {0, 1, 3}
    assert not list(tmp_path.glob("*.parquet"))


def _cli(*argv, cwd):
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(TESTS), str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        [sys.executable, "-m", "nmthpo.cli", *argv],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.parametrize(
    ("cls", "jobs", "tail"),
    [
        (
            "RaisesInAsk",
            "1",
            "trial 0: ask() raised ZeroDivisionError: integer division or modulo by zero",
        ),
        (
            "RaisesInAsk",
            "2",
            "trial [01]: ask\\(\\) raised ZeroDivisionError: integer division or modulo by zero",
        ),
        ("RaisesInInit", "1", "trial 0: __init__() raised ZeroDivisionError: division by zero"),
    ],
)
def test_cli_reports_user_code_errors_in_one_line(tmp_path, cls, jobs, tail):
    import re

    out = tmp_path / "out"
    proc = _cli(
        "run", f"{FAULTY}:{cls}", "--task", "ja-en", "--trials", "2", "--jobs", jobs,
        "--out", str(out), "--quiet", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    want = f"nmthpo: error: method {FAULTY}:{cls}, " + (tail if jobs == "2" else re.escape(tail))
    assert re.fullmatch(want, lines[0]), lines[0]
    assert not (out / "spec.json").exists()


CURVES = "lc-finetune-fr-en"
_ONE_JOB = (
    "it must return None or a job (row, checkpoint): two integers (not bools, floats or strings)"
)


@pytest.mark.parametrize(
    ("settings", "tail"),
    [
        ({"fail_at": "init"}, "__init__() raised ValueError: cannot start"),
        ({"fail_at": "ask"}, "ask() raised IndexError: list index out of range"),
        (
            {"fail_at": "tell"},
            "tell() raised AttributeError: 'NoneType' object has no attribute 'append'",
        ),
        ({"jobs": [(1.5, 2)]}, f"ask() returned (1.5, 2); {_ONE_JOB}"),
        ({"jobs": ["12"]}, f"ask() returned '12'; {_ONE_JOB}"),
        ({"jobs": [3]}, f"ask() returned 3; {_ONE_JOB}"),
        ({"jobs": [(0, 0)]}, f"ask() returned (0, 0); {_ONE_JOB}"),
        ({"jobs": [(True, 1)]}, f"ask() returned (True, 1); {_ONE_JOB}"),
        ({"jobs": [(10**6, 1)]}, f"ask() returned (1000000, 1); {_ONE_JOB}"),
        ({"workers": 0}, "attribute workers is 0; it must be a positive integer"),
        ({"workers": "2"}, "attribute workers is '2'; it must be a positive integer"),
    ],
)
def test_a_users_multi_fidelity_optimizer_is_guarded(settings, tail):
    """Users can run their own multi-fidelity class (a MethodSpec with ``fidelity=True``):
    its constructor, ask, tell, its jobs and its workers are checked like a table optimiser's."""
    from nmthpo.engine.fidelity import run_curves

    spec = MethodSpec(FAULTY, "CurveJobs", settings, (), fidelity=True)
    with pytest.raises(UserCodeError) as err:
        run_curves(spec, CURVES, trials=1, progress=False)
    msg = str(err.value)
    assert msg.startswith(f"method {FAULTY}:CurveJobs, trial 0: {tail}"), msg
    assert "\n" not in msg


def test_a_users_multi_fidelity_optimizer_that_behaves_runs():
    from nmthpo.engine.fidelity import run_curves

    jobs = [(0, 1), (np.int64(1), np.int64(2)), np.array([2, 1])]
    res = run_curves(MethodSpec(FAULTY, "CurveJobs", {"jobs": jobs}, (), fidelity=True),
                     CURVES, trials=1, progress=False)  # fmt: skip
    # one worker: the jobs in the order asked
    assert res.frame[["row", "checkpoint"]].values.tolist() == [[0, 1], [1, 2], [2, 1]]
