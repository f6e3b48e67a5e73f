"""Source tasks of a transfer run: sampled evaluations and their GP surrogates (Li et al. 2022).

Section 5.1: "In each source task, only N_S instances (here N_S = 50) are used to extract
knowledge from this task". Section 4: "we standardize the ys in each task by removing the mean
and scaling to unit variance", and each source's base surrogate ``M^i`` is fitted offline.

Choices the paper leaves open:

* the N_S rows of a source are drawn uniformly without replacement from its lookup table by
  ``default_rng([seed, repetition, 2, task_code])`` (``task_code`` = the task's index in
  :data:`nmthpo.benchmark.tables.TASKS`): independent of the target and of the method, so every
  method
  of a repetition sees the same source data (common random numbers), and a task keeps its
  sample whichever other sources accompany it;
* targets are standardised with the sample mean and standard deviation (ddof 0);
* ``M^i`` is a :class:`nmthpo.models.gp.GaussianProcess` (Matérn-5/2 ARD by default),
  hyperparameters by maximum likelihood with 2 random restarts drawn from
  ``default_rng([seed, repetition, 3, task_code])``, searched as the method's own fits are
  (its ``search`` setting: ``"lattice"``, the same fit on every CPU, by default since issue 25;
  ``"lbfgsb"`` before);
* configurations are in the cross-task ``"shared"`` encoding of :mod:`nmthpo.benchmark.space` (the
  NMTLC tasks have their own shared 5-column encoding); sources and target must share it.

Fitted sources are cached per process (:func:`source_task`), so the methods of one repetition
do not refit them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nmthpo.benchmark.tables import (
    NMTHPO_TASKS,
    NMTLC_TASKS,
    TASKS,
    check_task,
    load_table,
    task_family,
)
from nmthpo.errors import InputKeyError, InputTypeError, InputValueError
from nmthpo.models.gp import GaussianProcess

__all__ = ["SourceTask", "check_sources", "source_task", "source_tasks"]

#: Random restarts of a source GP's hyperparameter fit.
SOURCE_RESTARTS = 2


@dataclass(frozen=True, eq=False)
class SourceTask:
    """One source task's sampled evaluations and fitted base surrogate ``M^i``.

    Attributes
    ----------
    task : str
    rows : ndarray of int, shape (N_S,)
        Sampled rows of the source table.
    X : ndarray of shape (N_S, d)
        Their shared encoding.
    bleu : ndarray of shape (N_S,)
        Their BLEU (original units).
    y : ndarray of shape (N_S,)
        Standardised BLEU (what ``gp`` was fitted on).
    gp : GaussianProcess
        The base surrogate, predicting standardised BLEU.
    """

    task: str
    rows: np.ndarray
    X: np.ndarray
    bleu: np.ndarray
    y: np.ndarray
    gp: GaussianProcess

    def predict(self, Xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Predictive mean and variance of standardised BLEU at ``Xs``."""
        return self.gp.predict(Xs)


def check_sources(target: str, sources: Sequence[str]) -> tuple[str, ...]:
    """Validate a target/sources combination; return the sources as a tuple.

    Raises ``KeyError`` for an unknown task (listing the valid ones) and ``ValueError`` if a
    source is the target, is repeated, or lives in another search space.
    """
    check_task(target)
    out = tuple(sources)
    for s in out:
        if not isinstance(s, str):
            raise InputTypeError(f"sources={list(out)!r}: {s!r} is not a task name")
        try:
            check_task(s)
        except KeyError as exc:
            raise InputKeyError(f"sources: {exc.args[0] if exc.args else exc}") from None
    if target in out:
        raise InputValueError(
            f"sources={list(out)!r}: the target {target!r} cannot also be a source; drop it"
        )
    if len(set(out)) != len(out):
        raise InputValueError(f"sources={list(out)!r}: sources must be distinct")
    fam = task_family(target)
    same = NMTHPO_TASKS if fam == "nmthpo" else NMTLC_TASKS
    bad = [s for s in out if task_family(s) != fam]
    if bad:
        raise InputValueError(
            f"sources {bad} do not share the search space of {target!r}; valid sources: "
            f"{', '.join(t for t in same if t != target)}"
        )
    return out


@functools.lru_cache(maxsize=256)
def source_task(
    task: str,
    n_source: int,
    seed: int,
    repetition: int,
    kernel: str = "matern52",
    search: str = "lattice",
) -> SourceTask:
    """Sample ``n_source`` evaluations of ``task`` and fit its base surrogate (cached);
    ``search`` is the fit's (:class:`~nmthpo.models.gp.GaussianProcess`)."""
    table = load_table(task)
    if not 2 <= n_source <= table.n_rows:
        raise ValueError(
            f"n_source must be between 2 and the {table.n_rows} rows of {task}, got {n_source}"
        )
    code = TASKS.index(task)
    rows = np.sort(
        np.random.default_rng([seed, repetition, 2, code]).choice(
            table.n_rows, size=n_source, replace=False
        )
    )
    X = table.encode("shared")[rows]
    bleu = table.bleu[rows]
    std = float(np.std(bleu))
    y = (bleu - bleu.mean()) / (std if std > 0 else 1.0)
    gp = GaussianProcess(kernel, search=search).fit(
        X, y, rng=np.random.default_rng([seed, repetition, 3, code]), restarts=SOURCE_RESTARTS
    )
    return SourceTask(task, rows, X, bleu, y, gp)


def source_tasks(
    sources: Sequence[str],
    n_source: int,
    seed: int,
    repetition: int,
    kernel: str = "matern52",
    search: str = "lattice",
) -> list[SourceTask]:
    """:func:`source_task` for each source, in order."""
    return [source_task(s, n_source, seed, repetition, kernel, search) for s in sources]
