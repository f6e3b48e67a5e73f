"""Optimisers that break the ask/tell protocol on purpose (for
tests/engine/test_runner_user_optimizer.py and the command line): each fails in one place, so a
test can check that the error names the method, the trial and the exception, and that the
trials finished before it stay cached.

``RaisesInTrial`` fails in one trial only (``fail_trial``, default 2) unless the environment
variable :data:`FIXED` is set: the user "fixes the code" and reruns, and the run resumes from
the cached trials.
"""

from __future__ import annotations

import os

import numpy as np

__all__ = [
    "FIXED",
    "CurveJobs",
    "RaisesInAsk",
    "RaisesInInit",
    "RaisesInTell",
    "RaisesInTrial",
    "ReturnsFloat",
    "trial_of",
]

#: Set (to anything) to make :class:`RaisesInTrial` behave (the user's fix).
FIXED = "NMTHPO_TEST_FAULTY_FIXED"


def trial_of(rng: np.random.Generator) -> int:
    """The runner's trial of a generator ``default_rng([seed, trial, 1])`` (-1 for others)."""
    entropy = getattr(getattr(rng.bit_generator, "seed_seq", None), "entropy", None)
    if isinstance(entropy, (list, tuple)) and len(entropy) == 3:
        return int(entropy[1])
    return -1


class _Plain:
    """Random search without replacement, as a plain class (no nmthpo base class)."""

    def __init__(self, X, rng, objective="bleu"):
        self.n = len(X)
        self.rng = rng
        self.trial = trial_of(rng)
        self.seen = np.zeros(self.n, dtype=bool)

    def ask(self):
        return int(self.rng.choice(np.flatnonzero(~self.seen)))

    def tell(self, row, y):
        self.seen[row] = True


class RaisesInInit(_Plain):
    """Its constructor divides by zero."""

    def __init__(self, X, rng, objective="bleu"):
        super().__init__(X, rng, objective)
        self.scale = 1 / 0


class RaisesInAsk(_Plain):
    """Its first ``ask`` (after the initial rows) divides by zero, in every trial."""

    def ask(self):
        return 1 // 0


class RaisesInTell(_Plain):
    """``tell`` raises a ``KeyError`` at the fourth row told (the first asked one)."""

    def tell(self, row, y):
        super().tell(row, y)
        if self.seen.sum() == 4:
            raise KeyError("no such row")


class ReturnsFloat(_Plain):
    """``ask`` returns a float (an integral one: still refused)."""

    def ask(self):
        return float(super().ask())


class RaisesInTrial(_Plain):
    """Random search that raises ``ZeroDivisionError`` in ``ask`` of trial ``fail_trial``,
    unless the environment variable :data:`FIXED` is set."""

    def __init__(self, X, rng, objective="bleu", fail_trial=2):
        super().__init__(X, rng, objective)
        self.fail_trial = int(fail_trial)

    def ask(self):
        if self.trial == self.fail_trial and not os.environ.get(FIXED):
            raise ZeroDivisionError("division by zero")
        return super().ask()


class CurveJobs:
    """A multi-fidelity optimiser (the protocol of :mod:`nmthpo.optimizers.multifidelity.base`)
    that returns ``jobs`` from ``ask`` one after the other (``None`` when they run out), raises
    ``fail`` at ``fail_at`` (``"init"``, ``"ask"`` or ``"tell"``) and has ``workers`` workers."""

    def __init__(self, X, longest, rng, jobs=((0, 1),), fail_at="", workers=1):
        if fail_at == "init":
            raise ValueError("cannot start")
        self.jobs = list(jobs)
        self.fail_at = fail_at
        self.workers = workers

    def ask(self):
        if self.fail_at == "ask":
            raise IndexError("list index out of range")
        return self.jobs.pop(0) if self.jobs else None

    def tell(self, row, checkpoint, score, complete):
        if self.fail_at == "tell":
            raise AttributeError("'NoneType' object has no attribute 'append'")
