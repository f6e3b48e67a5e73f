"""Tests of nmthpo.engine.loop: the one ask/tell loop and its recorders."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nmthpo.engine.loop import SuggestTime, SurrogateMSE, TransferWeights, ask_tell
from nmthpo.errors import UserCodeError


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
    with pytest.raises(UserCodeError, match="gb: ask") as err:
        ask_tell(Scripted([1]), Y, [0, 1], limit=5, label="gb")
    assert str(err.value) == (
        "method gb: ask() returned 1, a row already evaluated in this trial; it must return "
        "the id of an unevaluated row (the search is without replacement)"
    )
    assert isinstance(err.value, RuntimeError)  # what the loop raised before: still caught


ALLOWED = "an integer (a Python int or a NumPy integer; not a bool, not a float even if integral"


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        (None, "None (NoneType)"),
        (3.5, "3.5 (float)"),
        (3.0, "3.0 (float)"),  # integral-valued floats too: a computation went wrong
        (np.float64(4.0), "np.float64(4.0) (float64)"),
        ("12", "'12' (str)"),
        (True, "True (bool)"),
        (np.True_, "np.True_ (bool)"),
        (np.array([3]), "array([3]) (ndarray)"),
        (np.array([2, 3]), "array([2, 3]) (ndarray)"),
        (np.array(3.0), "array(3.) (ndarray)"),
        (object(), "<object object at"),
        ([1], "[1] (list)"),
    ],
)
def test_ask_must_return_an_integer_row_id(value, quoted):
    opt = Scripted([value])
    with pytest.raises(UserCodeError) as err:
        ask_tell(opt, Y, [0, 1], limit=5, method="mymod:Bad", trial=3)
    msg = str(err.value)
    assert msg.startswith(f"method mymod:Bad, trial 3: ask() returned {quoted}")
    assert ALLOWED in msg and "in 0..9" in msg and "\n" not in msg
    assert err.value.method == "mymod:Bad" and err.value.trial == 3
    assert opt.told == [(0, 0.0), (1, 1.0)]  # nothing was told after the bad answer


@pytest.mark.parametrize("value", [np.int64(4), np.int32(4), np.uint8(4), np.array(4), 4])
def test_numpy_integers_and_0d_integer_arrays_are_row_ids(value):
    opt = Scripted([value])
    rows = ask_tell(opt, Y, [0], limit=2)
    assert rows.tolist() == [0, 4] and type(opt.told[-1][0]) is int


@pytest.mark.parametrize("value", [10, 11, -1, np.int64(-3), 2**70])
def test_ask_outside_the_table(value):
    with pytest.raises(UserCodeError) as err:
        ask_tell(Scripted([value]), Y, [0], limit=3, method="m:M", trial=0)
    assert str(err.value) == (
        f"method m:M, trial 0: ask() returned {value!r}, outside the table's rows 0..9; "
        "it must return the id of an unevaluated row"
    )


def test_a_long_value_is_quoted_cut():
    with pytest.raises(UserCodeError) as err:
        ask_tell(Scripted(["x" * 500]), Y, [0], limit=3, method="m:M", trial=1)
    quote = str(err.value).split("ask() returned ")[1].split(" (str)")[0]
    assert len(quote) == 60 and quote.endswith("...")


class Raising(Scripted):
    def __init__(self, where, exc, after=0):
        super().__init__([5, 6, 7])
        self.where, self.exc, self.after = where, exc, after

    def ask(self):
        if self.where == "ask" and len(self.told) > self.after:
            raise self.exc
        return super().ask()

    def tell(self, row, y):
        if self.where == "tell" and len(self.told) >= self.after:
            raise self.exc
        super().tell(row, y)

    def predict_mean(self):
        raise self.exc


@pytest.mark.parametrize("where", ["ask", "tell"])
def test_exceptions_of_the_optimiser_become_one_line(where):
    exc = ZeroDivisionError("division by zero")
    with pytest.raises(UserCodeError) as err:
        ask_tell(Raising(where, exc, after=2), Y, [0, 1], limit=5, method="mymod:Bad", trial=3)
    assert str(err.value) == (
        f"method mymod:Bad, trial 3: {where}() raised ZeroDivisionError: division by zero"
    )
    assert err.value.__cause__ is exc  # --traceback shows the original


def test_multi_line_and_empty_messages_stay_one_line():
    with pytest.raises(UserCodeError, match=r"ask\(\) raised ValueError: first$"):
        ask_tell(Raising("ask", ValueError("first\nsecond")), Y, [0], limit=3, method="m")
    with pytest.raises(UserCodeError, match=r"^method m: ask\(\) raised StopIteration$"):
        ask_tell(Raising("ask", StopIteration()), Y, [0], limit=3, method="m")


def test_a_recorder_reading_the_optimiser_names_what_it_read():
    opt = Raising("none", TypeError("bad shape"))
    with pytest.raises(UserCodeError) as err:
        ask_tell(opt, Y, [0], limit=3, recorders=[SurrogateMSE(Y)], method="m:M", trial=2)
    assert str(err.value) == "method m:M, trial 2: predict_mean() raised TypeError: bad shape"


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), MemoryError(), SystemExit(3)])
@pytest.mark.parametrize("where", ["ask", "tell"])
def test_interrupts_and_memory_errors_pass_through_unchanged(exc, where):
    with pytest.raises(type(exc)) as err:
        ask_tell(Raising(where, exc, after=1), Y, [0, 1], limit=5, method="m", trial=0)
    assert err.value is exc


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
