"""A ready example: a small optimiser to run, read and copy.

Two ways to plug an optimiser of your own into the package, each shown by one short example:

* :class:`LocalSearch`, a subclass of :class:`nmthpo.TableOptimizer` (the package's own
  ask/tell protocol). Run it from the command line with no set-up::

      nmthpo run nmthpo.examples:LocalSearch --task ja-en --trials 20 --jobs 2 --out runs/mine

  or from Python: ``nmthpo.run(LocalSearch, "ja-en", trials=20, jobs=2)``.
* :func:`observe_and_suggest`, a plain function in the style of the HPO-B benchmark
  (Pineda Arango et al. 2021), turned into a method by
  :func:`nmthpo.optimizers.adapters.from_hpob`::

      from nmthpo.optimizers.adapters import from_hpob
      nmthpo.run(from_hpob(observe_and_suggest), "ja-en", trials=20, jobs=2)

To write your own, copy this file into a module of yours (say ``mymod.py`` in the directory you
run from, or any importable package), rename the class and change ``ask`` and ``tell``; then run
``nmthpo run mymod:MyOptimizer ...`` (``PYTHONPATH=.`` if the module is not installed).

The rules every optimiser follows (:mod:`nmthpo.optimizers.base`): ``ask`` returns the id of a
row not evaluated yet, ``tell`` receives its BLEU (larger is better); all randomness comes from
``self.rng`` (the trial's generator), so a trial's rows depend only on its seed, never on the
number of worker processes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from nmthpo.optimizers.base import TableOptimizer
from nmthpo.optimizers.settings import ROWS, setting

__all__ = ["LocalSearch", "LocalSearchSettings", "observe_and_suggest"]


@dataclass(frozen=True)
class LocalSearchSettings:
    """Settings of :class:`LocalSearch` (``nmthpo run ... --set neighbours=5``)."""

    neighbours: int = setting(
        3, "size of the neighbourhood: the unevaluated rows nearest the centre", low=1, high=ROWS
    )
    patience: int = setting(4, "failed moves in a row before a random restart", low=1)


class LocalSearch(TableOptimizer):
    """First-improvement local search over the rows of a table, with random restarts.

    The search keeps a *centre*: at first the best of the initial rows. Each ``ask`` draws one
    of the ``neighbours`` unevaluated rows nearest the centre (Euclidean distance between
    encoded configurations); if its BLEU beats the centre's, it becomes the centre (the first
    improvement is taken, not the best of the neighbourhood). After ``patience`` failed moves in
    a row the search restarts from a random unevaluated row. Zhang & Duh (2020, Section 6)
    compare their methods against random search; this is a baseline of the same simplicity
    that uses the neighbourhood structure of the search space.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Encoded configurations of every row of the table.
    rng : numpy.random.Generator
        The trial's generator: the only source of randomness.
    objective : {"bleu"}
        BLEU, maximised.
    neighbours : int
        Size of the neighbourhood (see :class:`LocalSearchSettings`).
    patience : int
        Failed moves in a row before a restart.

    Examples
    --------
    >>> import nmthpo
    >>> from nmthpo.examples import LocalSearch
    >>> result = nmthpo.run(LocalSearch, "ja-en", trials=2, progress=False)  # doctest: +SKIP
    >>> result.sequences[0][:5]  # doctest: +SKIP
    """

    objectives = ("bleu",)
    uses_scipy = False  # pure NumPy: the runner need not load SciPy for it
    Settings = LocalSearchSettings

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        *,
        neighbours: int = 3,
        patience: int = 4,
    ) -> None:
        super().__init__(X, rng, objective)
        self.neighbours = int(neighbours)
        self.patience = int(patience)
        self.centre: int | None = None  # the row the search moves from
        self.centre_y = -np.inf  # its BLEU
        self.failures = 0  # rows told since the centre last changed that did not beat it
        self.restart_row: int | None = None  # the row a restart asked for, until told

    def ask(self) -> int:
        if self.centre is None or self.failures >= self.patience:
            self.restart_row = self.random_candidate()  # start again somewhere else
            return self.restart_row
        cand = self.remaining()
        dist = np.linalg.norm(self.X[cand] - self.X[self.centre], axis=1)
        nearest = cand[np.argsort(dist, kind="stable")[: self.neighbours]]
        return int(self.rng.choice(nearest))

    def tell(self, row: int, y: Any) -> None:
        super().tell(row, y)  # the base class keeps the history (self.rows, self.ys)
        y = float(y)
        if row == self.restart_row:  # a restart: the new row is the centre, whatever its BLEU
            self.centre, self.centre_y, self.failures = row, y, 0
            self.restart_row = None
        elif y > self.centre_y:  # an improvement (or the first initial row): move there
            self.centre, self.centre_y, self.failures = row, y, 0
        else:  # a failed move (an initial row worse than the best one counts as one too)
            self.failures += 1


def observe_and_suggest(
    X_obs: np.ndarray,
    y_obs: np.ndarray,
    X_pen: np.ndarray,
    rng: np.random.Generator | None = None,
) -> int:
    """Suggest the pending configuration nearest the best one observed (HPO-B style).

    A greedy neighbourhood search in one function, without state between calls: the package
    calls it once per evaluation with everything observed so far. Turn it into a method with
    :func:`nmthpo.optimizers.adapters.from_hpob`.

    Parameters
    ----------
    X_obs : ndarray of shape (t, d)
        Encoded configurations evaluated so far, in evaluation order.
    y_obs : ndarray of shape (t, 1)
        Their BLEU (larger is better).
    X_pen : ndarray of shape (m, d)
        Encoded configurations not evaluated yet.
    rng : numpy.random.Generator, optional
        Breaks ties between equally near configurations; the package passes the trial's
        generator. Without it the first of the nearest is taken.

    Returns
    -------
    int
        An index into ``X_pen`` (not a row id of the table).

    Examples
    --------
    >>> import numpy as np
    >>> X_obs = np.array([[0.0, 0.0], [1.0, 1.0]])
    >>> y_obs = np.array([[10.0], [12.0]])
    >>> X_pen = np.array([[0.0, 1.0], [1.0, 0.5]])
    >>> observe_and_suggest(X_obs, y_obs, X_pen)
    1
    """
    if len(X_obs) == 0:  # nothing observed yet: any configuration is as good as another
        return 0 if rng is None else int(rng.integers(len(X_pen)))
    best = X_obs[int(np.argmax(np.asarray(y_obs, dtype=float).ravel()))]
    dist = np.linalg.norm(np.asarray(X_pen, dtype=float) - best, axis=1)
    nearest = np.flatnonzero(np.isclose(dist, dist.min()))
    return int(nearest[0] if rng is None else rng.choice(nearest))
