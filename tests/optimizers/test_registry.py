import numpy as np
import pytest

from nmthpo.optimizers import METHODS, MethodSpec, available, make_optimizer, register
from nmthpo.optimizers.random import RandomSearch


def test_registry_names_and_errors():
    assert {"rs", "bo-ei-m", "bo-ei-r", "gb-ei-m", "gb-ei-r", "gb-eif-m", "gb-eif-r"} <= set(
        available("bleu")
    )
    with pytest.raises(KeyError, match="valid methods: rs, bo-ei-m"):
        make_optimizer("tpe", np.zeros((3, 2)), np.random.default_rng(0))
    with pytest.raises(ValueError, match="already registered"):
        register("rs", METHODS["rs"])


def test_user_method_can_be_registered(monkeypatch):
    monkeypatch.setitem(METHODS, "my-rs", MethodSpec("nmthpo.optimizers.random", "RandomSearch"))
    opt = make_optimizer("my-rs", np.zeros((4, 2)), np.random.default_rng(0))
    assert isinstance(opt, RandomSearch)


def test_registry_setting_names_are_the_declarations() -> None:
    """The names a method's class declares (its ``Settings``; checked by ``nmthpo run --set``
    without building the optimiser) are exactly what its constructor takes, in every role of
    every registered method (the defaults too: tests/optimizers/test_settings.py)."""
    from nmthpo.optimizers.registry import constructor_settings, load_class

    for name, spec in METHODS.items():
        roles = [(False, False)]
        if spec.transfer_cls is not None:
            roles.append((True, False))
        if spec.fidelity_cls is not None:
            roles.append((False, True))
        for transfer, fidelity in roles:
            recorded = spec.setting_names(transfer, fidelity)
            assert recorded is not None, (name, transfer, fidelity)
            names, _ = constructor_settings(load_class(spec, transfer, fidelity))
            assert list(recorded) == names, (name, transfer, fidelity)


def test_unrecorded_classes_have_no_setting_names() -> None:
    from nmthpo.optimizers.registry import constructor_settings, spec_from_class

    assert spec_from_class(RandomSearch).setting_names() == ()  # the package's class
    assert MethodSpec("userpkg.mod", "Opt").setting_names() is None  # a user's: introspected
    assert constructor_settings(RandomSearch) == ([], False)


def test_gp_methods_are_exact_across_cpus_only_with_their_lattice_settings() -> None:
    """Issue 25: the GP methods' defaults (lattice search, tie tolerance) make them exact across
    CPUs; a run that sets the papers' L-BFGS-B fit or exact ties is not; others as declared."""
    from nmthpo.optimizers.registry import resolve

    for name in ("bo-ei-m", "bo-ei-r", "bo-ei-map", "bo-m", "bo-r", "igp", "transbo", "rgpe-ms"):
        spec = resolve(name)
        assert spec.revision == 1
        assert spec.exact_for({}) and spec.exact_for({"refit_growth": 0.5})
        assert not spec.exact_for({"search": "lbfgsb"})
        assert not spec.exact_for({"tie_rtol": 0.0})
    assert resolve("bo-m").settings["search"] == "lattice"  # the registry's, not the class's
    assert not resolve("bo-ei-m-mcmc").exact_for({})


def test_graph_methods_are_exact_across_cpus_only_with_their_tie_tolerance() -> None:
    """Issue 25: the graph methods decide ties at GRAPH_TIE_RTOL (1e-8), above the noise
    between NumPy's SIMD levels; the earlier 1e-9 (or exact ties) is not exact across CPUs."""
    from nmthpo.optimizers.graph import GraphSMBO
    from nmthpo.optimizers.registry import resolve
    from nmthpo.optimizers.settings import GRAPH_TIE_RTOL

    assert GRAPH_TIE_RTOL == 1e-8 and GraphSMBO.Settings().tie_rtol == GRAPH_TIE_RTOL
    for name in ("gb-ei-m", "gb-ei-r", "gb-eif-m", "gb-eif-r", "gb-eif-text-m", "gb-m", "gb-r"):
        spec = resolve(name)
        assert spec.revision == 1
        assert spec.exact_for({}) and spec.exact_for({"k": 5})
        assert not spec.exact_for({"tie_rtol": 1e-9}) and not spec.exact_for({"tie_rtol": 0.0})
    # ParetoSMBO's class default stays exact ties: gb-m and gb-r set the tolerance themselves
    assert resolve("gb-m").settings["tie_rtol"] == GRAPH_TIE_RTOL
