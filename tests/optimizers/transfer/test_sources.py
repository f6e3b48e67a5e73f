"""Tests of nmthpo.optimizers.transfer.sources: standardised, shared source tasks and the
checks of a source list."""

import numpy as np
import pytest

from nmthpo.optimizers.transfer.methods import make_transfer_optimizer
from nmthpo.optimizers.transfer.sources import check_sources, source_task

SMALL = dict(n_source=12, seed=0, repetition=0)


def test_sources_are_standardised_and_shared_across_methods():
    s = source_task("ru-en", **SMALL)
    assert s.rows.size == 12 and np.unique(s.rows).size == 12
    assert abs(s.y.mean()) < 1e-12 and s.y.std() == pytest.approx(1.0)
    assert source_task("ru-en", **SMALL) is s  # cached: fitted once per process


def test_source_validation_messages():
    with pytest.raises(ValueError, match="cannot also be a source"):
        check_sources("zh-en", ["zh-en"])
    with pytest.raises(ValueError, match="do not share the search space"):
        check_sources("zh-en", ["lc-finetune-zh-en"])
    with pytest.raises(KeyError, match="valid tasks"):
        check_sources("zh-en", ["xx-en"])
    with pytest.raises(ValueError, match="needs at least one source"):
        make_transfer_optimizer("transbo", np.zeros((4, 6)), np.random.default_rng(0), [])
    with pytest.raises(KeyError, match="valid methods"):
        make_transfer_optimizer("bogus", np.zeros((4, 6)), np.random.default_rng(0), [])


def test_the_runner_fits_the_sources_with_the_methods_search():
    """Issue 25: a transfer run's source GPs fit as the method's own GPs do (its ``search``)."""
    from dataclasses import replace

    from nmthpo.engine.runner import RunSpec, trial_optimizer

    spec = RunSpec("transbo", "zh-en", budget=5, sources=("ru-en",), n_source=8)
    opt, _ = trial_optimizer(spec, 0)
    assert opt.search == "lattice" and opt.sources[0].gp.search == "lattice"
    opt, _ = trial_optimizer(replace(spec, settings={"search": "lbfgsb"}), 0)
    assert opt.search == "lbfgsb" and opt.sources[0].gp.search == "lbfgsb"
