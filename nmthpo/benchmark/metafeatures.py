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
"""

from __future__ import annotations

import numpy as np

from nmthpo.benchmark.tables import load_table

__all__ = ["METAFEATURES", "metafeature_distance", "metafeatures"]

#: Names of the meta-features, in vector order (``log_updates`` only where recorded).
METAFEATURES: tuple[str, ...] = ("into_english", "log_updates", "bleu_mean", "bleu_std")


def metafeatures(task: str, rows: np.ndarray) -> np.ndarray:
    """Meta-feature vector of ``task`` from its evaluated ``rows`` (see the module docstring)."""
    rows = np.asarray(rows, dtype=int)
    if rows.size == 0:
        raise ValueError("meta-features need at least one evaluated row")
    table = load_table(task)
    pair = task.removeprefix("lc-finetune-")
    feats = [1.0 if pair.endswith("-en") else 0.0]
    if "num_updates" in table.metrics:
        upd = table.metrics["num_updates"].to_numpy(dtype=float)[rows]
        feats.append(float(np.mean(np.log10(np.maximum(upd, 1.0)))))
    bleu = table.bleu[rows]
    feats += [float(bleu.mean()), float(bleu.std())]
    return np.asarray(feats, dtype=float)


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
