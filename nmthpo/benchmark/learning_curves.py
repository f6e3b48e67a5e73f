"""Learning-curve tables: the NMTLC curves as a multi-fidelity benchmark (Zhang & Duh 2024).

The NMTLC records (:func:`nmthpo.data.load_nmtlc`) hold, for every configuration, its dev
BLEU (fine-tuned LLMs) and dev perplexity per *checkpoint*. The fidelity axis is the checkpoint
index: the file records no updates, epochs or times per checkpoint, so training cost is counted
in checkpoints. A :class:`LearningCurveTable` is the *learning-curve view* of a task:

* ``lc-finetune-fr-en``, ``lc-finetune-zh-en``: BLEU per checkpoint, maximised. These names
  are also lookup tables of final BLEU (:data:`nmthpo.benchmark.tables.NMTLC_TASKS`): the
  same task, two views; the table's ``dev_bleu`` equals :attr:`LearningCurveTable.final`;
* ``lc-scratch-<pair>`` (six from-scratch Transformer sets): perplexity per checkpoint,
  minimised (those records have no BLEU curve).

Conventions:

* checkpoint ``k`` is 1-based: ``k`` checkpoints trained; training a configuration from
  checkpoint ``j`` to ``k`` costs ``k - j`` checkpoints (a promoted configuration resumes);
* a curve that ended early (upstream's early stopping) is *complete* at its last checkpoint:
  asking for a later checkpoint returns the last value and costs nothing more;
* the value at checkpoint ``k`` is the **best so far** (max BLEU / min perplexity over
  checkpoints ``1..k``). Why: with early stopping one keeps the best checkpoint, which is how
  upstream's ``bleu_optimal`` is defined (it equals the curve's maximum on every record), so
  the value at the last checkpoint is the configuration's final result; and the scratch
  curves' sawtooth restarts would otherwise rank a configuration by where in a restart a cut
  fell. The raw value is available with ``raw=True``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nmthpo import data
from nmthpo.benchmark.tasks import task_names
from nmthpo.errors import InputKeyError

__all__ = [
    "LC_FINETUNE_TASKS",
    "LC_SCRATCH_TASKS",
    "LC_TASKS",
    "LearningCurveTable",
    "check_lc_task",
    "load_curves",
    "nmtlc_records",
]

# The task names are those of kind ``learning-curve`` in the one task registry
# (nmthpo.benchmark.tasks).
#: Fine-tuned LLM tasks (BLEU curves, maximised), alphabetical: ``lc-finetune-fr-en``,
#: ``lc-finetune-zh-en``.
LC_FINETUNE_TASKS: tuple[str, ...] = tuple(sorted(task_names("learning-curve", "nmtlc-finetune")))
#: From-scratch Transformer tasks (perplexity curves, minimised), in the NMTHPO order of the
#: pairs: ``lc-scratch-zh-en`` ... ``lc-scratch-so-en``.
LC_SCRATCH_TASKS: tuple[str, ...] = task_names("learning-curve", "nmtlc-scratch")
#: Every learning-curve task.
LC_TASKS: tuple[str, ...] = LC_FINETUNE_TASKS + LC_SCRATCH_TASKS

_SCRATCH_FEATURES = (
    "dataset_size",
    "initial_lr",
    "model_size",
    "ff_num_hidden",
    "num_layers",
    "batch_size",
    "bpe",
)


def check_lc_task(task: str) -> str:
    """Return ``task`` if it has a learning-curve view, else raise a ``KeyError`` naming them."""
    if task not in LC_TASKS:
        raise InputKeyError(
            f"task {task!r} has no learning curves; learning-curve tasks: {', '.join(LC_TASKS)}"
        )
    return task


def _unit_log(frame: pd.DataFrame, cols: tuple[str, ...]) -> np.ndarray:
    out = []
    for c in cols:
        x = np.log2(np.maximum(frame[c].to_numpy(dtype=float), 1e-12))
        lo, hi = x.min(), x.max()
        out.append(np.zeros_like(x) if hi == lo else (x - lo) / (hi - lo))
    return np.column_stack(out)


@dataclass(frozen=True, eq=False)
class LearningCurveTable:
    """The learning-curve view of one NMTLC task.

    Attributes
    ----------
    task : str
    metric : {"bleu", "perplexity"}
    maximise : bool
        True for BLEU, False for perplexity.
    configs : DataFrame
        The hyperparameters, one row per configuration (row ``i`` is curve ``i``).
    X : ndarray of shape (n, d)
        Configuration features in [0, 1] (the lookup table's encoding for fine-tuned tasks;
        log-scaled hyperparameters for scratch sets), for model-based methods.
    raw : ndarray of shape (n, max_len)
        Raw values per checkpoint, ``NaN`` after a curve's end.
    best : ndarray of shape (n, max_len)
        Best-so-far values, carried flat after a curve's end (complete at its last checkpoint).
    lengths : ndarray of int, shape (n,)
        Checkpoints recorded per curve.
    """

    task: str
    metric: str
    maximise: bool
    configs: pd.DataFrame
    X: np.ndarray
    raw: np.ndarray
    best: np.ndarray
    lengths: np.ndarray

    @property
    def n_rows(self) -> int:
        """Number of configurations."""
        return int(self.lengths.size)

    def __len__(self) -> int:
        return self.n_rows

    @property
    def max_len(self) -> int:
        """The longest curve (upstream's ``max_len`` of the dataset)."""
        return int(self.best.shape[1])

    @property
    def final(self) -> np.ndarray:
        """Each configuration's final value: best over its whole curve (``bleu_optimal`` /
        ``perplexity_optimal``)."""
        return self.best[:, -1].copy()

    @property
    def total_cost(self) -> int:
        """Checkpoints needed to train every configuration to its end."""
        return int(self.lengths.sum())

    @property
    def best_final(self) -> float:
        """The oracle's final value (max BLEU or min perplexity)."""
        f = self.final
        return float(f.max() if self.maximise else f.min())

    @property
    def best_rows(self) -> np.ndarray:
        """Every row attaining :attr:`best_final` (ties included), ascending."""
        return np.flatnonzero(self.final == self.best_final)

    def score(self, values: np.ndarray | float) -> np.ndarray:
        """Values as *higher is better* (BLEU as is, perplexity negated)."""
        v = np.asarray(values, dtype=float)
        return v if self.maximise else -v

    def regret(self, values: np.ndarray | float) -> np.ndarray:
        """Distance of final values to the oracle's (>= 0, in the metric's units)."""
        return self.score(self.best_final) - self.score(values)

    def reached(self, row: int, checkpoint: int) -> int:
        """Checkpoints actually trained when ``row`` is trained to ``checkpoint``
        (``min(checkpoint, length)``: a curve that ended early is complete)."""
        if checkpoint < 1:
            raise ValueError(f"checkpoints are 1-based; got {checkpoint}")
        return int(min(checkpoint, self.lengths[row]))

    def query(self, row: int, checkpoint: int, raw: bool = False) -> float:
        """The value of ``row`` at ``checkpoint`` (1-based): best so far, or the raw value.

        Beyond a curve's end the curve is complete: the best-so-far value is its final
        value, the raw value its last recorded one.
        """
        k = self.reached(int(row), int(checkpoint))
        return float((self.raw if raw else self.best)[int(row), k - 1])

    def curve(self, row: int, raw: bool = False) -> np.ndarray:
        """The recorded curve of ``row`` (its ``lengths[row]`` checkpoints)."""
        n = int(self.lengths[int(row)])
        return (self.raw if raw else self.best)[int(row), :n].copy()

    def summary(self) -> dict[str, object]:
        """Configurations, curve lengths and the oracle's final value."""
        return {
            "task": self.task,
            "metric": self.metric,
            "configurations": self.n_rows,
            "shortest": int(self.lengths.min()),
            "median": float(np.median(self.lengths)),
            "longest": self.max_len,
            "checkpoints": self.total_cost,
            "best final": round(self.best_final, 2),
        }


@functools.cache
def _records(root: str) -> pd.DataFrame:
    return data.load_nmtlc()


def nmtlc_records() -> pd.DataFrame:
    """The NMTLC records (:func:`nmthpo.data.load_nmtlc`), read and verified once per process
    and data directory: every NMTLC lookup table and learning-curve table is built from them
    (``nmthpo tasks`` builds eight). Shared: select from it, never modify it in place."""
    return _records(str(data.data_dir()))


def _build(task: str) -> LearningCurveTable:
    frame = nmtlc_records()
    sub = frame[frame["task_name"] == task].reset_index(drop=True)
    if sub.empty:
        raise data.DataError(f"NMTLC holds no records for {task}")
    finetune = task in LC_FINETUNE_TASKS
    column = "bleu_curve" if finetune else "perplexity_curve"
    curves = [np.asarray(c, dtype=float) for c in sub[column]]
    lengths = np.array([c.size for c in curves], dtype=int)
    width = int(lengths.max())
    raw = np.full((len(curves), width), np.nan)
    for i, c in enumerate(curves):
        raw[i, : c.size] = c
    acc = np.fmax.accumulate if finetune else np.fmin.accumulate
    best = acc(raw, axis=1)  # NaN after the end: fmax/fmin carry the last best
    if finetune:
        from nmthpo.benchmark.tables import load_table

        table = load_table(task)
        configs, X = table.configs, table.scaled
    else:
        configs = sub[list(_SCRATCH_FEATURES)].copy()
        X = _unit_log(configs, _SCRATCH_FEATURES)
    return LearningCurveTable(
        task=task,
        metric="bleu" if finetune else "perplexity",
        maximise=finetune,
        configs=configs,
        X=np.asarray(X, float),
        raw=raw,
        best=best,
        lengths=lengths,
    )


@functools.cache
def _cached(task: str, root: str) -> LearningCurveTable:
    return _build(task)


def load_curves(task: str) -> LearningCurveTable:
    """Load (and cache per process) the learning-curve view of ``task``.

    Raises
    ------
    KeyError
        For a task without learning curves; the message lists the valid ones.
    nmthpo.data.DataError
        If the data is not installed or fails its checksum.
    """
    check_lc_task(task)
    return _cached(task, str(data.data_dir()))
