"""Tests of the successive-halving schedules (nmthpo.optimizers.multifidelity.base and
.halving): rung levels, the upstream schedule, a bracket."""

from __future__ import annotations

import numpy as np
import pytest

from nmthpo.optimizers.multifidelity.base import rung_levels
from nmthpo.optimizers.multifidelity.halving import Bracket, UpstreamHalving, upstream_schedule


def test_schedules() -> None:
    assert rung_levels(28, 1, 3) == [1, 3, 9, 28]
    assert rung_levels(74, 1, 3) == [3, 8, 25, 74]
    assert upstream_schedule(8, 20) == ([5, 10, 15, 20], [8, 4, 2, 1])
    assert upstream_schedule(162, 74)[0] == [8, 16, 24, 32, 40, 48, 56, 74]
    b = Bracket([1, 2], [2, 1])
    b.fill([5, 7])
    assert b.ask() == (5, 1) and b.ask() == (7, 1) and b.ask() is None  # waits for results
    b.tell(5, 0.0)
    b.tell(7, 1.0)
    assert b.ask() == (7, 2)
    opt = UpstreamHalving(np.zeros((10, 1)), 20, np.random.default_rng(0), budget=40)
    # N=2: one cut at 15: 2*15 + 1*5 = 35 <= 40; N=3: 3*15 + 5 = 50; N=4: cuts at 8, 15:
    # 4*8 + 2*7 + 1*5 = 51 (and larger N cost more)
    assert opt.n_configs == 2
    with pytest.raises(ValueError, match="eta must be > 1"):
        rung_levels(10, 1, 1)
