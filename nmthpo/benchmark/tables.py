"""Lookup tables: :class:`LookupTable` and its task names (Zhang & Duh 2020, Section 3).

A lookup table is a finite set of trained NMT models: one row per hyperparameter configuration,
with its recorded metrics. An HPO method "trains" a model by reading its row. The six NMTHPO
tables (``zh-en ru-en ja-en en-ja sw-en so-en``) come from the ``datasets/`` files; the NMTLC
fine-tuned LLM tables (Zhang & Duh 2024) are registered as ``lc-finetune-<pair>`` and built from
the learning-curve records (their BLEU is each configuration's best dev BLEU over its curve).
The task names are those of kind ``lookup`` in the one task registry
(:mod:`nmthpo.benchmark.tasks`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from nmthpo import data
from nmthpo.benchmark.space import HYPERPARAMETERS, shared_encoding
from nmthpo.benchmark.tasks import task_names
from nmthpo.errors import InputKeyError, InputValueError

__all__ = [
    "ENCODINGS",
    "METRICS",
    "NMTHPO_TASKS",
    "NMTLC_HYPERPARAMETERS",
    "NMTLC_TASKS",
    "PAPER_TABLE2",
    "TASKS",
    "LookupTable",
    "check_task",
    "load_table",
    "pareto_mask",
    "task_family",
]

#: Row encodings an optimiser may see (:meth:`LookupTable.encode`).
ENCODINGS: tuple[str, ...] = ("scaled", "shared", "raw")

#: The six NMTHPO tasks, in the paper's order (``zh-en ru-en ja-en en-ja sw-en so-en``).
NMTHPO_TASKS: tuple[str, ...] = task_names("lookup", "nmthpo")

#: NMTLC fine-tuned tasks (LLM search space: base LLM, LoRA rank, batch size, learning rate):
#: ``lc-finetune-zh-en``, ``lc-finetune-fr-en``.
NMTLC_TASKS: tuple[str, ...] = task_names("lookup", "nmtlc-finetune")

#: Every task name :func:`load_table` accepts (the tasks of kind ``lookup``), in this order:
#: a task's index seeds its source samples (:mod:`nmthpo.optimizers.transfer.sources`).
TASKS: tuple[str, ...] = task_names("lookup")

#: Metric columns of the ``.evals`` files, in order.
METRICS: tuple[str, ...] = (
    "dev_bleu",
    "dev_gpu_time",
    "dev_ppl",
    "num_updates",
    "gpu_memory",
    "num_param",
)

#: The paper's Table 2 (rows, best BLEU), for checks and for the book's side-by-side tables.
PAPER_TABLE2: dict[str, tuple[int, float]] = {
    "zh-en": (118, 14.66),
    "ru-en": (176, 20.23),
    "ja-en": (150, 16.41),
    "en-ja": (168, 20.74),
    "sw-en": (767, 26.09),
    "so-en": (604, 11.23),
}

NMTLC_HYPERPARAMETERS: tuple[str, ...] = ("llm", "llm_params", "lora_rank", "batch_size", "lr")


def pareto_mask(bleu: np.ndarray, time: np.ndarray) -> np.ndarray:
    """Pareto-optimal rows for (maximise BLEU, minimise decoding time).

    A row is dominated if another row is at least as good in both objectives and strictly
    better in one (Zhang & Duh 2020, Section 4.2). Rows with identical objective values do not
    dominate each other. Computed by moocore's non-dominated filter.
    """
    import moocore

    pts = np.column_stack([-np.asarray(bleu, dtype=float), np.asarray(time, dtype=float)])
    return np.asarray(moocore.is_nondominated(pts, maximise=False, keep_weakly=True), dtype=bool)


@dataclass(frozen=True, eq=False)
class LookupTable:
    """One task's table of trained models.

    Attributes
    ----------
    task : str
        Registry name.
    configs : DataFrame
        Raw hyperparameters, one named column each (Table 1 of the paper).
    metrics : DataFrame
        The recorded metrics (:data:`METRICS` for NMTHPO); ``gpu_memory`` is ``NaN`` where the
        data records 0 ("not recorded", per the dataset README).
    scaled : ndarray of shape (n, d)
        Upstream's per-dataset [0, 1] scaling as stored in ``.hyps_scaled`` (three decimals)
        -- exactly what the paper's methods saw; :func:`nmthpo.benchmark.space.upstream_scaling`
        recomputes it from the raw values (tested equal to 1e-3).
    shared : ndarray of shape (n, d)
        The cross-task encoding (:mod:`nmthpo.benchmark.space`).
    pareto : ndarray of bool
        Recomputed Pareto flags for (max BLEU, min ``dev_gpu_time``); all False for tables
        without a decoding time.
    """

    task: str
    configs: pd.DataFrame
    metrics: pd.DataFrame
    scaled: np.ndarray
    shared: np.ndarray
    pareto: np.ndarray
    upstream_fronts: np.ndarray | None = field(default=None, repr=False)

    # -- basic views --------------------------------------------------------------------------
    @property
    def n_rows(self) -> int:
        """Number of models (rows)."""
        return int(self.configs.shape[0])

    def __len__(self) -> int:
        return self.n_rows

    @property
    def bleu(self) -> np.ndarray:
        """Dev BLEU of every row (the single objective, maximised)."""
        return self.metrics["dev_bleu"].to_numpy(dtype=float)

    @property
    def time(self) -> np.ndarray:
        """Decoding time on the dev set (``dev_gpu_time``; the second objective, minimised)."""
        return self.metrics["dev_gpu_time"].to_numpy(dtype=float)

    def objectives(self, objective: str = "bleu") -> np.ndarray:
        """Values the optimiser is told: BLEU (n,), or [BLEU, time] (n, 2) for ``"pareto"``."""
        if objective == "bleu":
            return self.bleu
        if objective == "pareto":
            if "dev_gpu_time" not in self.metrics:
                raise ValueError(f"task {self.task!r} records no decoding time; use 'bleu'")
            return np.column_stack([self.bleu, self.time])
        raise ValueError(f"unknown objective {objective!r}; valid: bleu, pareto")

    def encode(self, encoding: str = "scaled") -> np.ndarray:
        """Encoded configurations: ``"scaled"`` (upstream), ``"shared"`` or ``"raw"``."""
        if encoding == "scaled":
            return self.scaled
        if encoding == "shared":
            return self.shared
        if encoding == "raw":
            return self.configs.to_numpy(dtype=float)
        raise InputValueError(f"encoding={encoding!r}: not one of {', '.join(ENCODINGS)}")

    # -- oracle -------------------------------------------------------------------------------
    @property
    def best_bleu(self) -> float:
        """The oracle best BLEU of the table."""
        return float(self.bleu.max())

    @property
    def best_rows(self) -> np.ndarray:
        """Every row that attains the best BLEU (ties included), ascending."""
        return np.flatnonzero(self.bleu == self.bleu.max())

    @property
    def first_best_row(self) -> int:
        """The first argmax row (what upstream's evaluation script waits for)."""
        return int(np.argmax(self.bleu))

    @property
    def pareto_rows(self) -> np.ndarray:
        """Rows of the true Pareto set, ascending."""
        return np.flatnonzero(self.pareto)

    def summary(self) -> dict[str, object]:
        """Rows, best BLEU, number of tied best rows and Pareto-set size."""
        return {
            "task": self.task,
            "rows": self.n_rows,
            "best_bleu": round(self.best_bleu, 2),
            "best_ties": int(self.best_rows.size),
            "pareto": int(self.pareto.sum()),
        }


def _read_matrix(relpath: str, ncols: int) -> np.ndarray:
    path = data.installed_path(relpath)
    try:
        arr = np.loadtxt(path, dtype=float, ndmin=2)
    except ValueError as exc:
        raise data.DataError(
            f"{path}: not a numeric table ({exc}); re-run `nmthpo data fetch`"
        ) from None
    if arr.shape[1] != ncols:
        raise data.DataError(
            f"{path}: expected {ncols} columns, found {arr.shape[1]}; re-run `nmthpo data fetch`"
        )
    return arr


def _load_nmthpo(task: str) -> LookupTable:
    hyps = _read_matrix(f"datasets/{task}.hyps", len(HYPERPARAMETERS))
    evals = _read_matrix(f"datasets/{task}.evals", len(METRICS))
    scaled = _read_matrix(f"datasets/{task}.hyps_scaled", len(HYPERPARAMETERS))
    fronts = _read_matrix(f"datasets/{task}.fronts", 1)[:, 0].astype(bool)
    if not (hyps.shape[0] == evals.shape[0] == fronts.shape[0] == scaled.shape[0]):
        raise data.DataError(
            f"task {task}: .hyps/.evals/.fronts have {hyps.shape[0]}/{evals.shape[0]}/"
            f"{fronts.shape[0]} rows; re-run `nmthpo data fetch`"
        )
    configs = pd.DataFrame(hyps, columns=list(HYPERPARAMETERS))
    for col in ("bpe", "layers", "embed", "hidden", "heads"):
        configs[col] = configs[col].astype(int)
    metrics = pd.DataFrame(evals, columns=list(METRICS))
    metrics["gpu_memory"] = metrics["gpu_memory"].where(metrics["gpu_memory"] != 0)
    for col in ("num_updates", "num_param"):
        metrics[col] = metrics[col].astype(int)
    pareto = pareto_mask(metrics["dev_bleu"].to_numpy(), metrics["dev_gpu_time"].to_numpy())
    return LookupTable(
        task=task,
        configs=configs,
        metrics=metrics,
        scaled=scaled,
        shared=shared_encoding(configs),
        pareto=pareto,
        upstream_fronts=fronts,
    )


def _nmtlc_shared(configs: pd.DataFrame) -> np.ndarray:
    """Encoding of the NMTLC LLM space: LLM family one-hot, log sizes, log rank/batch/lr."""

    def unit(x: np.ndarray) -> np.ndarray:
        lo, hi = x.min(), x.max()
        return np.zeros_like(x) if hi == lo else (x - lo) / (hi - lo)

    family = (configs["llm"].str.startswith("xglm")).to_numpy(dtype=float)
    cols = [family]
    for col in ("llm_params", "lora_rank", "batch_size", "lr"):
        cols.append(unit(np.log2(configs[col].to_numpy(dtype=float))))
    return np.column_stack(cols)


def _load_nmtlc_task(task: str) -> LookupTable:
    from nmthpo.benchmark.learning_curves import nmtlc_records

    frame = nmtlc_records()
    pair = task.removeprefix("lc-finetune-")
    sub = frame[(frame["task"] == "finetune") & (frame["src"] + "-" + frame["trg"] == pair)]
    if sub.empty:
        raise data.DataError(f"NMTLC holds no fine-tuned records for {pair}")
    sub = sub.reset_index(drop=True)
    # The LLM is identified by family, width (d_model) and depth; names and sizes per the NMTLC
    # README (XGLM 1.7B and 2.9B share d_model 2048 and differ in depth, 24 vs 48 layers).
    sizes = {
        ("bloomz", 1024, 24): ("bloomz-560m", 560e6),
        ("bloomz", 2048, 24): ("bloomz-1b7", 1.7e9),
        ("bloomz", 2560, 30): ("bloomz-3b", 3e9),
        ("xglm", 1024, 24): ("xglm-564m", 564e6),
        ("xglm", 2048, 24): ("xglm-1.7b", 1.7e9),
        ("xglm", 2048, 48): ("xglm-2.9b", 2.9e9),
    }
    llm = [
        sizes[(b, int(m), int(n))]
        for b, m, n in zip(sub["basemodel"], sub["model_size"], sub["num_layers"], strict=True)
    ]
    configs = pd.DataFrame(
        {
            "llm": [name for name, _ in llm],
            "llm_params": [p for _, p in llm],
            "lora_rank": sub["r"].astype(int),
            "batch_size": sub["batch_size"].astype(int),
            "lr": sub["initial_lr"].astype(float),
        }
    )
    metrics = pd.DataFrame(
        {
            "dev_bleu": sub["bleu_optimal"].astype(float),
            "dev_ppl": sub["perplexity_optimal"].astype(float),
            "max_len": sub["max_len"].astype(int),
        }
    )
    enc = _nmtlc_shared(configs)
    return LookupTable(
        task=task,
        configs=configs,
        metrics=metrics,
        scaled=enc,
        shared=enc,
        pareto=np.zeros(len(configs), dtype=bool),
    )


@functools.cache
def _load_cached(task: str, root: str) -> LookupTable:
    if task in NMTHPO_TASKS:
        return _load_nmthpo(task)
    return _load_nmtlc_task(task)


def check_task(task: str) -> str:
    """Return ``task`` if it is registered, else raise a ``KeyError`` listing the valid names."""
    if task not in TASKS:
        raise InputKeyError(f"unknown task {task!r}; valid tasks: {', '.join(TASKS)}")
    return task


def task_family(task: str) -> str:
    """``"nmthpo"`` or ``"nmtlc"``: lookup tasks of one family share a search space and
    encoding (so they can be each other's source tasks in transfer learning)."""
    check_task(task)
    return "nmthpo" if task in NMTHPO_TASKS else "nmtlc"


def load_table(task: str) -> LookupTable:
    """Load (and cache per process) the lookup table of ``task``.

    Raises
    ------
    KeyError
        For an unknown task; the message lists the valid ones.
    nmthpo.data.DataError
        If the data is not installed or a file fails its checksum.
    """
    check_task(task)
    return _load_cached(task, str(data.data_dir()))


def tasks(family: str | None = None) -> list[str]:
    """Names of the registered lookup tables: all, or one family (``"nmthpo"``, ``"nmtlc"``)."""
    families = {None: TASKS, "nmthpo": NMTHPO_TASKS, "nmtlc": NMTLC_TASKS}
    if family not in families:
        raise ValueError(f"unknown task family {family!r}; valid: nmthpo, nmtlc (or None: all)")
    return list(families[family])
