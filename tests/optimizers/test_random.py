"""Tests of nmthpo.optimizers.random.RandomSearch: the ask/tell protocol."""

import numpy as np
import pytest

from nmthpo.optimizers.random import RandomSearch


def test_random_search_protocol():
    rng = np.random.default_rng(1)
    opt = RandomSearch(np.zeros((6, 2)), rng)
    seen = []
    for _ in range(6):
        r = opt.ask()
        assert r not in seen
        opt.tell(r, 1.0)
        seen.append(r)
    assert sorted(seen) == list(range(6))
    with pytest.raises(RuntimeError, match="every row"):
        opt.ask()
    with pytest.raises(ValueError, match="already evaluated"):
        opt.tell(0, 1.0)
    with pytest.raises(IndexError, match="outside the table"):
        opt.tell(9, 1.0)
    with pytest.raises(TypeError, match="unknown settings"):
        RandomSearch(np.zeros((2, 2)), rng, k=3)
