"""The adapters of SMAC3, HEBO, Nevergrad, hyperopt and scikit-optimize (the ``peers`` extra):
each runs through ``nmthpo run``, gives the same rows with one and two workers, follows the one
rule of ``adapters.library`` and, without its library, is refused in one line naming the extra.
"""

from __future__ import annotations

import numpy as np
import pytest

import nmthpo
from nmthpo.errors import InputError, InputKeyError
from nmthpo.optimizers.registry import resolve
from tests.optimizers.libraries import REFUSAL, hide, installed

#: method -> the module its library is imported as
PEERS = {
    "smac:hpo": "smac",
    "smac:blackbox": "smac",
    "hebo": "hebo",
    "nevergrad:NGOpt": "nevergrad",
    "hyperopt:tpe": "hyperopt",
    "skopt:gp": "skopt",
}


@pytest.mark.parametrize("method", [m for m in PEERS if m != "hebo"])
def test_a_peer_runs_identically_with_one_and_two_workers(method):
    if not installed(PEERS[method]):
        pytest.skip(f"{PEERS[method]} is not installed (the peers extra)")
    a = nmthpo.run(method, "ja-en", trials=2, budget=12, stop="none", progress=False)
    b = nmthpo.run(method, "ja-en", trials=2, budget=12, stop="none", progress=False, jobs=2)
    assert a.frame.equals(b.frame)
    f = a.frame
    assert len(f) == 24 and f.groupby("trial")["row"].nunique().tolist() == [12, 12]
    assert set(f.loc[f["step"] <= 3, "asks"]) == {0} and set(f.loc[f["step"] > 3, "asks"]) == {1}


@pytest.mark.slow
def test_hebo_runs_and_keeps_the_process_global_state():
    if not installed("hebo"):
        pytest.skip("HEBO is not installed (the peers extra)")
    import torch

    threads = torch.get_num_threads()
    np.random.seed(5)  # noqa: NPY002 - the legacy global state that HEBO must not touch
    expect = np.random.random()  # noqa: NPY002
    np.random.seed(5)  # noqa: NPY002
    a = nmthpo.run("hebo", "ja-en", trials=1, budget=6, stop="none", progress=False)
    assert np.random.random() == expect  # noqa: NPY002
    assert torch.get_num_threads() == threads
    b = nmthpo.run("hebo", "ja-en", trials=1, budget=6, stop="none", progress=False)
    assert a.frame.equals(b.frame) and len(a.frame) == 6


@pytest.mark.parametrize("method", list(PEERS))
def test_without_its_library_a_peer_is_refused_before_any_work(method, monkeypatch):
    hide(monkeypatch, PEERS[method])
    with pytest.raises(InputError, match=REFUSAL):
        nmthpo.run(method, "ja-en", trials=1, budget=5, progress=False)


@pytest.mark.parametrize("name", ["smac:nope", "skopt:gbrt", "hyperopt:tp", "nevergrad:", "hebo:x"])
def test_unknown_names_of_an_adapter_are_refused(name):
    if name.startswith("nevergrad") and not installed("nevergrad"):
        pytest.skip("the name check of Nevergrad reads its registry")
    with pytest.raises(InputKeyError):
        resolve(name)


def test_the_names_resolve_without_importing_the_libraries():
    for method in PEERS:
        spec = resolve(method)
        assert spec.objectives == ("bleu",)
        assert spec.module.startswith("nmthpo.optimizers.adapters.")
