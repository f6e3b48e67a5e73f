"""Tests of nmthpo.optimizers.bo_mcmc: the paper-era BO that marginalises the GP's
hyperparameters (Metropolis sampling)."""

from __future__ import annotations

import numpy as np
import pytest

from nmthpo.optimizers.bo_mcmc import MarginalGPBO, metropolis
from nmthpo.optimizers.registry import make_optimizer


def test_metropolis_samples_a_gaussian() -> None:
    rng = np.random.default_rng(0)
    pos, acc = metropolis(lambda t: -0.5 * float(t @ t), np.zeros((200, 1)), 200, 1.0, rng)
    assert 0.3 < acc.mean() < 0.9
    assert abs(pos.mean()) < 0.2 and 0.8 < pos.std() < 1.2
    # outside the support nothing is accepted
    pos, acc = metropolis(lambda t: 0.0 if t[0] > 0 else -np.inf, np.ones((5, 1)), 50, 5.0, rng)
    assert (pos > 0).all()


def test_marginal_bo_is_registered_never_repeats_and_is_deterministic() -> None:
    rng = np.random.default_rng(1)
    X = rng.random((25, 2))
    y = -((X - 0.3) ** 2).sum(axis=1)

    def run(seed: int) -> list[int]:
        opt = make_optimizer(
            "bo-ei-m-mcmc", X, np.random.default_rng(seed), burnin=20, chain_length=5, n_hypers=3
        )
        assert isinstance(opt, MarginalGPBO)
        rows = [0, 1, 2]
        for r in rows:
            opt.tell(r, y[r])
        for _ in range(10):
            r = opt.ask()
            rows.append(r)
            opt.tell(r, y[r])
        assert np.isfinite(opt.predict_mean()).all() and 0 <= opt.acceptance <= 1
        return rows

    a = run(4)
    assert a == run(4) and len(set(a)) == len(a)
    with pytest.raises(ValueError, match="n_hypers"):
        MarginalGPBO(X, rng, n_hypers=0)
