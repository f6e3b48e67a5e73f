"""Meta-features of an NMT task for TST-M (Wistuba et al. 2016; Li et al. 2022, Section 5.1).

Li et al. take dataset meta-features from Auto-sklearn; an NMT lookup table has none, so we
define them, computed only from the *evaluated* rows of a task (for a source: its N_S sampled
rows; for the target: the rows observed so far) plus static facts about the language pair:

1. ``into_english``: 1 if the translation direction is into English (en-ja is the one NMTHPO
   task that is not), a language-pair feature;
2. ``log_updates``: mean log10 of ``num_updates`` of the evaluated rows -- training updates to
   convergence grow with the corpus, so this is a corpus-size proxy (NMTHPO only);
3. ``bleu_mean`` and 4. ``bleu_std``: mean and standard deviation (ddof 0) of the evaluated
   rows' BLEU, the level and spread of the task's response surface.

The NMTLC tables record no ``num_updates``; there features 1, 3 and 4 are used. Feature
vectors are compared by :func:`metafeature_distance`: every feature is min-max scaled over
the compared tasks (a constant feature contributes 0), then the Euclidean distance is divided
by ``sqrt(#features)`` so that it lies in ``[0, 1]``, the range of TST's bandwidth ``rho``.

An optimiser never reads a table: the runner builds a :class:`TransferMetaFeatures` (the
sources' vectors and the target's per-row ingredients, plain arrays) with
:func:`transfer_metafeatures` and passes it to the optimiser's constructor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from nmthpo.benchmark.tables import load_table

__all__ = [
    "METAFEATURES",
    "TaskRows",
    "TransferMetaFeatures",
    "metafeature_distance",
    "metafeatures",
    "task_rows",
    "transfer_metafeatures",
]

#: Names of the meta-features, in vector order (``log_updates`` only where recorded).
METAFEATURES: tuple[str, ...] = ("into_english", "log_updates", "bleu_mean", "bleu_std")


@dataclass(frozen=True, eq=False)
class TaskRows:
    """What the meta-features of one task need, per row of its table (plain arrays).

    Attributes
    ----------
    into_english : float
    log_updates : ndarray of shape (n,) or None
        ``log10(max(num_updates, 1))`` of every row (None where not recorded).
    bleu : ndarray of shape (n,)
    """

    into_english: float
    log_updates: np.ndarray | None
    bleu: np.ndarray

    def features(self, rows: np.ndarray) -> np.ndarray:
        """Meta-feature vector from the evaluated ``rows`` (see the module docstring)."""
        rows = np.asarray(rows, dtype=int)
        if rows.size == 0:
            raise ValueError("meta-features need at least one evaluated row")
        feats = [self.into_english]
        if self.log_updates is not None:
            feats.append(float(np.mean(self.log_updates[rows])))
        bleu = self.bleu[rows]
        feats += [float(bleu.mean()), float(bleu.std())]
        return np.asarray(feats, dtype=float)


def task_rows(task: str) -> TaskRows:
    """The :class:`TaskRows` of ``task``, read from its lookup table."""
    table = load_table(task)
    pair = task.removeprefix("lc-finetune-")
    upd = None
    if "num_updates" in table.metrics:
        upd = np.log10(np.maximum(table.metrics["num_updates"].to_numpy(dtype=float), 1.0))
    return TaskRows(1.0 if pair.endswith("-en") else 0.0, upd, np.asarray(table.bleu))


def metafeatures(task: str, rows: np.ndarray) -> np.ndarray:
    """Meta-feature vector of ``task`` from its evaluated ``rows`` (see the module docstring)."""
    return task_rows(task).features(np.asarray(rows, dtype=int))


def metafeature_distance(sources: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Scaled Euclidean distance of each source's meta-features to the target's, in [0, 1].

    Parameters
    ----------
    sources : ndarray of shape (K, F)
    target : ndarray of shape (F,)

    Returns
    -------
    ndarray of shape (K,)
    """
    S = np.atleast_2d(np.asarray(sources, dtype=float))
    t = np.asarray(target, dtype=float).ravel()
    if S.shape[1] != t.size:
        raise ValueError(f"sources have {S.shape[1]} meta-features, the target {t.size}")
    pool = np.vstack([S, t])
    lo, hi = pool.min(axis=0), pool.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    Z = (pool - lo) / span
    d = np.sqrt(np.sum((Z[:-1] - Z[-1]) ** 2, axis=1) / t.size)
    return np.asarray(d, dtype=float)


@dataclass(frozen=True, eq=False)
class TransferMetaFeatures:
    """The sources' meta-feature vectors and the target's per-row ingredients (for TST-M).

    Attributes
    ----------
    sources : ndarray of shape (K, F)
    target : TaskRows
    """

    sources: np.ndarray
    target: TaskRows

    def distances(self, rows: np.ndarray) -> np.ndarray:
        """:func:`metafeature_distance` of every source to the target's evaluated ``rows``."""
        return metafeature_distance(self.sources, self.target.features(rows))


class _Sampled(Protocol):
    @property
    def task(self) -> str: ...

    @property
    def rows(self) -> np.ndarray: ...


def transfer_metafeatures(target: str, sources: Sequence[_Sampled]) -> TransferMetaFeatures:
    """:class:`TransferMetaFeatures` of ``target`` and sampled ``sources`` (each with ``task``
    and its evaluated ``rows``, e.g. a :class:`~nmthpo.optimizers.transfer.sources.SourceTask`).
    """
    S = np.vstack([metafeatures(s.task, s.rows) for s in sources]) if sources else np.empty((0, 0))
    return TransferMetaFeatures(S, task_rows(target))
