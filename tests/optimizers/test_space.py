"""The ordinal grid of a table and the one snapping rule (``nmthpo.optimizers.space``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nmthpo.benchmark.tables import load_table
from nmthpo.optimizers.space import OrdinalSpace


def test_ranks_levels_and_rows_of_a_real_table():
    table = load_table("zh-en")
    space = OrdinalSpace(table.encode("scaled"))
    assert space.n == table.n_rows and space.d == 6
    for j, lv in enumerate(space.levels):
        raw = np.unique(table.configs.iloc[:, j].to_numpy(dtype=float))
        assert len(lv) == len(raw) == space.sizes[j]  # one level per raw value, order kept
    for row in (0, 17, table.n_rows - 1):
        assert row in space.rows_of(space.codes[row])
    assert space.rows_of([99] * 6) == []


def test_snap_takes_an_unevaluated_proposal_and_moves_any_other():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.5, 0.5]])
    space = OrdinalSpace(X)  # levels 0, .5, 1 -> ranks 0..2
    observed = np.zeros(5, dtype=bool)
    assert space.snap([2, 2], observed) == (3, True)
    observed[3] = True
    row, exact = space.snap([2, 2], observed)  # evaluated: the nearest unevaluated row
    assert not exact and row == 4  # the centre (1, 1) is nearest
    assert space.snap([0, 1], observed) == (0, False)  # (0, 1) is missing: rows 0, 1, 4 tie
    assert space.snap([1.4, 1.2], observed) == (4, False)  # not integer: nearest


def test_nearest_refuses_no_candidates():
    with pytest.raises(ValueError, match="no candidate"):
        OrdinalSpace(np.eye(2)).nearest([0, 0], np.array([], dtype=int))


def test_unit_box_round_trip_and_constant_columns():
    X = np.array([[1.0, 5.0, 3.0], [2.0, 5.0, 4.0], [3.0, 5.0, 3.0]])
    space = OrdinalSpace(X)
    assert list(space.sizes) == [3, 1, 2]
    u = space.unit(space.codes)
    assert u.min() == 0 and u.max() == 1 and (u[:, 1] == 0).all()
    for row in range(3):
        assert space.from_unit(u[row]) == tuple(space.codes[row])


@settings(max_examples=50, deadline=None)
@given(
    st.integers(1, 4),
    st.lists(st.integers(0, 3), min_size=8, max_size=8),
    st.data(),
)
def test_snap_returns_an_unevaluated_row_nearest_with_the_lowest_id_of_ties(d, seedlist, data):
    rng = np.random.default_rng(seedlist)
    X = rng.integers(0, 4, size=(12, d)).astype(float)
    space = OrdinalSpace(X)
    observed = rng.random(12) < 0.5
    if observed.all():
        observed[0] = False
    proposal = data.draw(st.lists(st.floats(-1, 5), min_size=d, max_size=d))
    row, _ = space.snap(proposal, observed)
    assert not observed[row]
    free = np.flatnonzero(~observed)
    dist = (((space.codes[free] - np.array(proposal)) / np.maximum(space.sizes - 1, 1)) ** 2).sum(1)
    best = free[np.isclose(dist, dist.min(), rtol=0, atol=1e-9)]
    exact = [r for r in space.rows_of(np.rint(proposal).astype(int)) if not observed[r]]
    if exact and np.array_equal(np.rint(proposal), proposal):
        assert row == exact[0]
    else:
        assert row == best.min()
