"""Tests of nmthpo.engine.loop: the one ask/tell loop and its recorders."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nmthpo.engine.loop import SuggestTime, SurrogateMSE, TransferWeights, ask_tell


class Scripted:
    """Proposes rows from a script; optionally has a surrogate and weights."""

    def __init__(self, script, n=10, weights=False, mean=None):
        self.script = list(script)
        self.told: list[tuple[int, float]] = []
        self.mean = mean
        if weights:
            self.target_weights: list[float] = []
            self.source_weights: list[np.ndarray] = []

    def ask(self):
        r = self.script.pop(0)
        if hasattr(self, "target_weights"):
            self.target_weights.append(0.25 * len(self.told))
            self.source_weights.append(np.array([1.0, 2.0]))
        return r

    def tell(self, row, y):
        self.told.append((row, float(y)))

    def predict_mean(self):
        return self.mean


Y = np.arange(10, dtype=float)


def test_initial_rows_then_asks_until_the_limit():
    opt = Scripted([5, 6, 7, 8])
    rows = ask_tell(opt, Y, [0, 1], limit=4)
    assert rows.tolist() == [0, 1, 5, 6] and rows.dtype == np.int64
    assert opt.told == [(0, 0.0), (1, 1.0), (5, 5.0), (6, 6.0)]


def test_stops_when_every_target_was_evaluated():
    rows = ask_tell(Scripted([5, 9, 7]), Y, [0, 1], limit=10, targets={9})
    assert rows.tolist() == [0, 1, 5, 9]
    # a target among the initial rows: no ask at all
    assert ask_tell(Scripted([]), Y, [9, 1], limit=10, targets=[9]).tolist() == [9, 1]


def test_repeated_proposal_breaks_the_protocol():
    with pytest.raises(RuntimeError, match="gb proposed row 1 twice"):
        ask_tell(Scripted([1]), Y, [0, 1], limit=5, label="gb")


def test_recorders():
    mean = np.full(10, 2.0)
    opt = Scripted([4, 5], weights=True, mean=mean)
    recs = [SurrogateMSE(Y), TransferWeights(2), SuggestTime()]
    ask_tell(opt, Y, [0, 1], limit=4, recorders=recs)
    mse = recs[0].values()["mse"]
    np.testing.assert_allclose(mse, np.mean((mean - Y) ** 2))
    assert mse.size == 4
    w = recs[1].values()
    np.testing.assert_array_equal(w["target_weight"], [np.nan, np.nan, 0.5, 0.75])
    assert np.isnan(w["source_weights"][:2]).all()
    np.testing.assert_array_equal(w["source_weights"][2:], [[1.0, 2.0]] * 2)
    s = recs[2].values()["seconds"]
    assert (s[:2] == 0).all() and (s[2:] >= 0).all()
    # optimisers without a surrogate or weights: NaN
    plain = Scripted([4])
    del plain.mean
    recs = [TransferWeights(3)]
    ask_tell(plain, Y, [0], limit=2, recorders=recs)
    assert np.isnan(recs[0].values()["target_weight"]).all()
    assert recs[0].values()["source_weights"].shape == (2, 3)


@settings(max_examples=50, deadline=None)
@given(
    n=st.integers(1, 30),
    n_init=st.integers(1, 5),
    limit=st.integers(1, 40),
    seed=st.integers(0, 2**16),
)
def test_random_permutation_invariants(n, n_init, limit, seed):
    """Rows are distinct, start with the initial rows and number min(limit, n) (at least the
    initial rows; the runner never sets a limit beyond the table)."""
    limit = min(limit, n)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n).tolist()
    k = min(n_init, n)
    init, rest = perm[:k], perm[k:]
    rows = ask_tell(Scripted(rest), np.zeros(n), init, limit=limit)
    assert rows[:k].tolist() == init
    assert len(set(rows.tolist())) == rows.size == max(k, min(limit, n))
