"""The one rule by which another library searches a table (``adapters.library``), checked with
a small library of our own, and the run context the runner hands such an optimiser."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import nmthpo
from nmthpo.errors import InputValueError
from nmthpo.optimizers.adapters.library import (
    LibraryOptimizer,
    quiet,
    require,
    swapped_global_rng,
)
from nmthpo.optimizers.base import RunContext


class Scripted(LibraryOptimizer):
    """A 'library' that proposes the ranks it is given, in turn, and records what it is told."""

    library = "scripted"
    script: list[list[float]] = []

    def __init__(self, X, rng, objective="bleu", run_context=None):
        super().__init__(X, rng, objective, run_context)
        self.queue = list(self.script)
        self.told: list[tuple[list[int], float, object]] = []

    def propose(self):
        print("a library that prints")  # kept out of the run's output
        codes = self.queue.pop(0)
        return np.array(codes, dtype=float), ("token", tuple(codes))

    def observe(self, codes, loss, token):
        self.told.append((list(map(int, codes)), loss, token))


X = np.array([[0.0, 0.0, 7.0], [0.0, 1.0, 7.0], [1.0, 0.0, 7.0], [1.0, 1.0, 7.0]])


def test_one_ask_per_row_snapping_and_what_the_library_is_told(capsys):
    Scripted.script = [[1, 1], [1, 1], [0.2, 0.9]]
    opt = Scripted(X, np.random.default_rng(0))
    assert list(opt.free) == [0, 1] and list(opt.sizes) == [2, 2]  # column 2 is constant
    opt.tell(0, 20.0)  # an initial row: told without asking
    assert opt.ask() == 3
    opt.tell(3, 30.0)
    assert opt.ask() == 1  # (1, 1) again: evaluated -> nearest unevaluated, lowest id of ties
    opt.tell(1, 25.0)
    assert opt.ask() == 2  # (0.2, 0.9) is nearest to row 1 (evaluated) ... then row 2
    opt.tell(2, 10.0)
    assert opt.told == [
        ([0, 0], -20.0, None),
        ([1, 1], -30.0, ("token", (1, 1))),
        ([0, 1], -25.0, None),  # the evaluated row, not the proposal
        ([1, 0], -10.0, None),
    ]
    assert opt.asks == [0, 1, 1, 1] and opt.snapped == [False, False, True, True]
    assert opt.n_snapped == 2
    assert capsys.readouterr().out == ""


def test_a_row_told_instead_of_the_proposal_is_told_as_evaluated():
    Scripted.script = [[1, 1]]
    opt = Scripted(X, np.random.default_rng(0))
    assert opt.ask() == 3
    opt.tell(2, 5.0)  # the runner told another row (e.g. an initial one)
    assert opt.told == [([1, 0], -5.0, None)] and opt.asks == [0]


def test_budget_comes_from_the_run_context_and_seed_from_the_generator():
    ctx = RunContext("ja-en", 20, 3, "bleu", ("a", "b", "c"), ("linear",) * 3, None)
    a = Scripted(X, np.random.default_rng(5), run_context=ctx)
    b = Scripted(X, np.random.default_rng(5))
    assert a.budget == 20 and b.budget == len(X)
    assert a.library_seed == b.library_seed != Scripted(X, np.random.default_rng(6)).library_seed


def test_require_names_the_extra_in_one_line():
    with pytest.raises(
        InputValueError, match=r"needs NoLib .*make peers \(pip install -e '\.\[peers\]'"
    ):
        require("no_such_module_xyz", "nolib:x", "NoLib")


def test_quiet_keeps_prints_and_warnings_out(capsys):
    import warnings

    with quiet():
        print("noise")
        print("noise", file=sys.stderr)
        warnings.warn("noise", UserWarning, stacklevel=1)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_swapped_global_rng_is_private_to_the_library():
    np.random.seed(123)  # noqa: NPY002 - the legacy global state under test
    before = np.random.get_state()[1].copy()  # noqa: NPY002
    state = {"numpy": np.random.RandomState(7).get_state()}
    with swapped_global_rng(state):
        first = np.random.random()  # noqa: NPY002
    with swapped_global_rng(state):
        second = np.random.random()  # noqa: NPY002
    assert (np.random.get_state()[1] == before).all()  # noqa: NPY002
    ref = np.random.RandomState(7)
    assert (first, second) == (ref.random(), ref.random())


def test_the_runner_passes_the_run_context_only_to_classes_that_want_it():
    from nmthpo.engine.runner import RunSpec, run_context, trial_optimizer

    spec = RunSpec.of("tests.optimizers.adapters.test_library:Spy", "sw-en", budget=12)
    opt, _ = trial_optimizer(spec, 0)
    ctx = opt.context
    assert (ctx.task, ctx.budget, ctx.n_init, ctx.objective) == ("sw-en", 12, 3, "bleu")
    assert ctx.columns == ("bpe", "layers", "embed", "hidden", "heads", "lr")
    assert ctx.scales == ("log2", "linear", "log2", "linear", "linear", "linear")
    assert len(ctx.configs) == len(opt.X)
    assert run_context(RunSpec.of("rs", "sw-en")).budget == len(opt.X)  # no budget: the rows
    rs, _ = trial_optimizer(RunSpec.of("rs", "sw-en"), 0)
    assert not hasattr(rs, "context")


class Spy(LibraryOptimizer):
    library = "spy"

    def propose(self):
        return np.zeros(len(self.sizes)), None

    def observe(self, codes, loss, token):
        pass


def test_a_library_method_runs_end_to_end_identically_with_two_workers():
    a = nmthpo.run(Spy, "ja-en", trials=2, budget=8, jobs=1)
    b = nmthpo.run(Spy, "ja-en", trials=2, budget=8, jobs=2)
    assert a.frame.equals(b.frame)
    f = a.frame
    assert set(f.loc[f["step"] <= 3, "asks"]) == {0} and set(f.loc[f["step"] > 3, "asks"]) == {1}


class NothingNew(Exception):
    """What a library raises when it has no configuration it has not proposed."""


class Exhausting(Scripted):
    exhausted_errors = ("NothingNew",)

    def propose(self):
        if not self.queue:
            raise NothingNew()
        return super().propose()


def test_a_library_that_gives_up_is_not_asked_again_and_rows_are_random():
    Exhausting.script = [[1, 1]]
    runs = []
    for _ in range(2):
        opt = Exhausting(X, np.random.default_rng(5))
        opt.tell(0, 20.0)
        rows = []
        for _ in range(3):
            r = opt.ask()
            opt.tell(r, 10.0)
            rows.append(r)
        runs.append(rows)
        assert rows[0] == 3 and sorted(rows) == [1, 2, 3]
        assert opt.exhausted == 3  # the library gave up on the third evaluation
        assert opt.asks == [0, 1, 1, 0] and opt.snapped == [False, False, True, False]
        assert [t[0] for t in opt.told] == [
            [0, 0],
            [1, 1],
            *[list(X[r, :2].astype(int)) for r in rows[1:]],
        ]
    assert runs[0] == runs[1]  # the fallback draws from the trial's generator


def test_another_error_of_the_library_is_not_taken_for_exhaustion():
    Scripted.script = []
    opt = Scripted(X, np.random.default_rng(0))
    with pytest.raises(IndexError):
        opt.ask()


def test_a_cached_run_reads_back_without_its_library(tmp_path, monkeypatch):
    """The library is checked only where trials are computed (the book's cached runs of the
    other libraries build without the ``peers`` extra), and before any of them is."""
    from nmthpo.engine.runner import RunSpec

    first = nmthpo.run("rs", "ja-en", trials=2, budget=8, cache_dir=tmp_path)

    def missing(self):
        raise InputValueError(f"method {self.method} needs its library")

    monkeypatch.setattr(RunSpec, "check_available", missing)
    again = nmthpo.run("rs", "ja-en", trials=2, budget=8, cache_dir=tmp_path)
    assert again.frame.equals(first.frame)
    with pytest.raises(InputValueError, match="needs its library"):
        nmthpo.run("rs", "ja-en", trials=3, budget=8, cache_dir=tmp_path)
    assert not (tmp_path / "partial").exists()
