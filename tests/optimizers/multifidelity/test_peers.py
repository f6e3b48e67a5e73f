"""The multi-fidelity adapters of DEHB and Syne Tune (the ``peers`` extra): each runs over the
learning curves, gives the same jobs with one and two workers, tells its library only the rows
it trained, and without its library is refused in one line naming the extra."""

from __future__ import annotations

import numpy as np
import pytest

from nmthpo.benchmark.learning_curves import load_curves
from nmthpo.engine.fidelity import CurveRunSpec, run_curves
from nmthpo.errors import InputError, InputKeyError
from nmthpo.optimizers.registry import resolve
from tests.optimizers.libraries import REFUSAL, hide, installed

TASK = "lc-finetune-zh-en"
#: method -> the module its library is imported as
PEERS = {"dehb": "dehb", "syne-tune:ASHA": "syne_tune", "syne-tune:BOHB": "syne_tune"}


@pytest.mark.parametrize("method", list(PEERS))
def test_a_peer_runs_identically_with_one_and_two_workers(method):
    if not installed(PEERS[method]):
        pytest.skip(f"{PEERS[method]} is not installed (the peers extra)")
    a = run_curves(method, TASK, trials=2, progress=False)
    b = run_curves(method, TASK, trials=2, progress=False, jobs=2)
    assert a.frame.equals(b.frame)
    spec = CurveRunSpec.of(method, TASK)
    assert spec.frame_problem(a.frame) is None  # values are the curves', cost within budget
    assert a.frame.groupby("trial")["row"].nunique().min() > 10


def test_dehb_is_told_the_rows_it_trained_and_leaves_no_file(tmp_path, monkeypatch):
    if not installed("dehb"):
        pytest.skip("dehb is not installed (the peers extra)")
    from nmthpo.optimizers.multifidelity.dehb import DEHB

    monkeypatch.chdir(tmp_path)
    table = load_curves(TASK)
    opt = DEHB(table.X, table.max_len, np.random.default_rng(0))
    for _ in range(40):
        row, k = opt.ask()
        opt.tell(row, k, float(table.score(table.query(row, k))), False)
    repo = opt.dehb.config_repository.configs
    for cid, row in opt.rows_of_config.items():  # the repository holds the snapped rows
        np.testing.assert_array_equal(repo[cid].config, opt._vector(row))
    assert list(tmp_path.iterdir()) == []


def test_syne_tune_keeps_the_process_global_random_state():
    if not installed("syne_tune"):
        pytest.skip("syne_tune is not installed (the peers extra)")
    np.random.seed(3)  # noqa: NPY002 - the legacy global state Syne Tune must not touch
    expect = np.random.random()  # noqa: NPY002
    np.random.seed(3)  # noqa: NPY002
    run_curves("syne-tune:ASHA", TASK, trials=1, progress=False)
    assert np.random.random() == expect  # noqa: NPY002


@pytest.mark.parametrize("method", list(PEERS))
def test_without_its_library_a_peer_is_refused_before_any_work(method, monkeypatch):
    hide(monkeypatch, PEERS[method])
    with pytest.raises(InputError, match=REFUSAL):
        run_curves(method, TASK, trials=1, progress=False)


@pytest.mark.parametrize("name", ["dehb:x", "syne-tune:HB", "syne-tune:"])
def test_unknown_names_are_refused(name):
    with pytest.raises(InputKeyError, match="valid:"):
        resolve(name)


def test_the_names_resolve_to_multi_fidelity_methods_without_the_libraries():
    for method in PEERS:
        spec = resolve(method)
        assert spec.fidelity and spec.kind == "multi-fidelity"
