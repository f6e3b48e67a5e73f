"""Search spaces of the NMTHPO tables (Zhang & Duh 2020, Table 1) and their encodings.

Two encodings of a configuration into ``[0, 1]^6``:

* ``"scaled"`` -- upstream's per-dataset scaling (the dataset README's table), which the
  ``*.hyps_scaled`` files store rounded to three decimals. Because its ranges differ between
  datasets (bpe 10k-50k linear for zh/ru/ja/en, 1k-32k on a log scale for sw/so; layers 2-4,
  1-6 or 1-4), the same number means different configurations in different tasks.
* ``"shared"`` -- a cross-task encoding in which one configuration has one code in every task,
  as transfer learning needs (Li et al. 2022 assume a common search space). Every hyperparameter
  is mapped over the union of the ranges of all six datasets, on the scale the upstream scaling
  uses for it: bpe log2 over 1k..50k, layers linear over 1..6, embed log2 over 256..1024, hidden
  linear over 1024..2048, heads linear over 8..16, lr linear over 3e-4..1e-3.

Both are exact functions of the raw values (no rounding); :func:`upstream_scaling` reproduces
the files' numbers to their printed precision.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from nmthpo.errors import InputKeyError

__all__ = [
    "DISPLAY_NAMES",
    "HYPERPARAMETERS",
    "SHARED_SCALES",
    "UPSTREAM_SCALES",
    "NMTLC_SCALES",
    "Scale",
    "column_scales",
    "search_space",
    "shared_encoding",
    "upstream_scaling",
]

#: Hyperparameter column names, in the order of the ``.hyps`` files.
HYPERPARAMETERS: tuple[str, ...] = ("bpe", "layers", "embed", "hidden", "heads", "lr")

#: Display names used in the paper's tables.
DISPLAY_NAMES: dict[str, str] = {
    "bpe": "bpe",
    "layers": "#layers",
    "embed": "#embed",
    "hidden": "#hidden",
    "heads": "#att heads",
    "lr": "init lr",
}


@dataclass(frozen=True)
class Scale:
    """One affine map ``(t(x) - lo) / (hi - lo)`` with ``t`` the identity or log2."""

    lo: float
    hi: float
    log2: bool = False

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        t = np.log2(x) if self.log2 else x
        lo = np.log2(self.lo) if self.log2 else self.lo
        hi = np.log2(self.hi) if self.log2 else self.hi
        return (t - lo) / (hi - lo)


_BPE_WMT = Scale(10_000, 50_000)
_BPE_MATERIAL = Scale(1_000, 32_000, log2=True)
_COMMON = {
    "embed": Scale(256, 1024, log2=True),
    "hidden": Scale(1024, 2048),
    "heads": Scale(8, 16),
    "lr": Scale(3e-4, 1e-3),
}

#: Upstream's per-dataset scaling (hpo_nmt README), keyed by NMTHPO task.
UPSTREAM_SCALES: dict[str, dict[str, Scale]] = {
    **{
        t: {"bpe": _BPE_WMT, "layers": Scale(2, 4), **_COMMON}
        for t in ("zh-en", "ru-en", "ja-en", "en-ja")
    },
    "sw-en": {"bpe": _BPE_MATERIAL, "layers": Scale(1, 6), **_COMMON},
    "so-en": {"bpe": _BPE_MATERIAL, "layers": Scale(1, 4), **_COMMON},
}

#: The cross-task encoding over the union of all ranges.
SHARED_SCALES: dict[str, Scale] = {
    "bpe": Scale(1_000, 50_000, log2=True),
    "layers": Scale(1, 6),
    **_COMMON,
}


def upstream_scaling(task: str, configs: pd.DataFrame) -> np.ndarray:
    """Upstream's [0, 1] scaling of ``configs`` for ``task`` (equals ``.hyps_scaled`` to 1e-3).

    Parameters
    ----------
    task : str
        One of the six NMTHPO tasks.
    configs : DataFrame
        Raw hyperparameters with the columns of :data:`HYPERPARAMETERS`.
    """
    if task not in UPSTREAM_SCALES:
        raise InputKeyError(
            f"no upstream scaling for {task!r}; known: {', '.join(UPSTREAM_SCALES)}"
        )
    scales = UPSTREAM_SCALES[task]
    return np.column_stack([scales[h](configs[h].to_numpy()) for h in HYPERPARAMETERS])


def shared_encoding(configs: pd.DataFrame) -> np.ndarray:
    """The cross-task encoding: one code per configuration, whatever the task."""
    return np.column_stack([SHARED_SCALES[h](configs[h].to_numpy()) for h in HYPERPARAMETERS])


def search_space(configs: pd.DataFrame) -> dict[str, list[float]]:
    """The set of values each hyperparameter takes in a table (a row of Table 1)."""
    return {h: sorted(float(v) for v in configs[h].unique()) for h in configs.columns}


#: Scales of the NMTLC fine-tuning space (the encoding of ``nmthpo.benchmark.tables``: LLM
#: family one-hot, log2 of sizes, LoRA rank, batch size and learning rate).
NMTLC_SCALES: dict[str, str] = {
    "llm": "categorical",
    "llm_params": "log2",
    "lora_rank": "log2",
    "batch_size": "log2",
    "lr": "log2",
}


def column_scales(configs: pd.DataFrame) -> tuple[str, ...]:
    """Per column of ``configs``: ``"log2"``, ``"linear"`` or ``"categorical"``, the scale on
    which the package's encodings space its values (:data:`SHARED_SCALES` for the NMTHPO
    hyperparameters, :data:`NMTLC_SCALES` for the NMTLC space; a column of text that neither
    names is categorical, any other numeric column linear)."""
    out = []
    for name in configs.columns:
        if name in NMTLC_SCALES and not (name == "lr" and "bpe" in configs.columns):
            out.append(NMTLC_SCALES[name])
        elif name in SHARED_SCALES:
            out.append("log2" if SHARED_SCALES[name].log2 else "linear")
        elif not pd.api.types.is_numeric_dtype(configs[name]):
            out.append("categorical")
        else:
            out.append("linear")
    return tuple(out)
