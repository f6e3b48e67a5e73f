"""The NMTLC learning curves (Zhang & Duh, AMTA 2024) as a tidy frame.

The pickle ``lc_datasets/nmtlc.pkl`` is read only through
:func:`nmthpo.data.safe_pickle.safe_loads`, which admits plain builtins (list, dict, str, int,
float, bool, None) and refuses every global; each record is checked against the NMTLC layout
before it becomes a row.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from nmthpo.data.safe_pickle import UnsafePickleError, safe_loads
from nmthpo.data.store import _FIX, NMTLC_RELPATH, DataError, installed_path

__all__ = ["NMTLC_COLUMNS", "load_nmtlc", "nmtlc_task_names", "read_nmtlc"]

_PAIR_ORDER = ("zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en")
_TASK_ORDER = ("scratch", "finetune")
_HYPERPARAMS = (
    "dataset_size",
    "initial_lr",
    "model_size",
    "ff_num_hidden",
    "num_layers",
    "batch_size",
    "bpe",
    "r",
)
#: Columns of :func:`load_nmtlc`, in order.
NMTLC_COLUMNS: tuple[str, ...] = (
    "task",
    "dataset",
    "src",
    "trg",
    "basemodel",
    *_HYPERPARAMS,
    "perplexity_curve",
    "bleu_curve",
    "perplexity_optimal",
    "bleu_optimal",
    "max_len",
    "task_name",
)


def _is_number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _validate_record(rec: object, i: int, source: str) -> dict[str, Any]:
    def bad(field: str, why: str) -> DataError:
        return DataError(
            f"{source}: record {i}: field {field!r} {why}; the file does not have the NMTLC "
            f"layout — {_FIX}"
        )

    if not isinstance(rec, dict):
        raise bad("<record>", f"is a {type(rec).__name__}, expected a dict")
    for field in ("task", "dataset_name", "src", "trg", "basemodel"):
        if not isinstance(rec.get(field), str):
            raise bad(field, "is missing or not a string")
    if rec["task"] not in _TASK_ORDER:
        raise bad("task", f"is {rec['task']!r}, expected one of {_TASK_ORDER}")
    pair = f"{rec['src']}-{rec['trg']}"
    if not rec["dataset_name"].endswith(pair):
        raise bad("dataset_name", f"{rec['dataset_name']!r} does not end in src-trg {pair!r}")
    hp = rec.get("hyperparams")
    if not isinstance(hp, dict) or set(hp) != set(_HYPERPARAMS):
        raise bad("hyperparams", f"must be a dict with keys {_HYPERPARAMS}")
    for key in _HYPERPARAMS:
        if not _is_number(hp[key]):
            raise bad(f"hyperparams.{key}", "is not a number")
    curves: dict[str, list[float] | None] = {}
    for field, required in (("perplexity_curve", True), ("bleu_curve", False)):
        curve = rec.get(field)
        if curve is None and not required:
            curves[field] = None
            continue
        if not isinstance(curve, list) or not curve or not all(map(_is_number, curve)):
            raise bad(field, "must be a non-empty list of numbers")
        curves[field] = [float(v) for v in curve]
    if not _is_number(rec.get("perplexity_optimal")):
        raise bad("perplexity_optimal", "is missing or not a number")
    bleu_opt = rec.get("bleu_optimal")
    if (bleu_opt is None) != (curves["bleu_curve"] is None):
        raise bad("bleu_optimal", "must be present exactly when bleu_curve is")
    if bleu_opt is not None and not _is_number(bleu_opt):
        raise bad("bleu_optimal", "is not a number")
    max_len = rec.get("max_len")
    if not isinstance(max_len, int) or isinstance(max_len, bool):
        raise bad("max_len", "is missing or not an int")
    row: dict[str, Any] = {
        "task": rec["task"],
        "dataset": rec["dataset_name"],
        "src": rec["src"],
        "trg": rec["trg"],
        "basemodel": rec["basemodel"],
        **{key: hp[key] for key in _HYPERPARAMS},
        "perplexity_curve": curves["perplexity_curve"],
        "bleu_curve": curves["bleu_curve"],
        "perplexity_optimal": float(rec["perplexity_optimal"]),
        "bleu_optimal": math.nan if bleu_opt is None else float(bleu_opt),
        "max_len": max_len,
        "task_name": f"lc-{rec['task']}-{pair}",
    }
    return row


def _task_sort_key(name: str) -> tuple[int, int, str]:
    _, task, pair = name.split("-", 2)
    pair_rank = _PAIR_ORDER.index(pair) if pair in _PAIR_ORDER else len(_PAIR_ORDER)
    return (_TASK_ORDER.index(task), pair_rank, pair)


def read_nmtlc(path: str | Path) -> pd.DataFrame:
    """Read an NMTLC pickle through the restricted unpickler into a tidy frame.

    Parameters
    ----------
    path
        The pickle file (upstream ``lc_datasets/nmtlc.pkl`` or a file with its layout).
        Unlike :func:`load_nmtlc` no checksum is checked, but the file is still loaded only
        through :func:`nmthpo.data.safe_pickle.safe_loads`.

    Returns
    -------
    pandas.DataFrame
        See :func:`load_nmtlc`.

    Raises
    ------
    DataError
        If the pickle imports any global or uses a non-builtin opcode (message names the file
        and the refused global / opcode; nothing is executed), or a record lacks the layout.
    """
    path = Path(path)
    try:
        payload = safe_loads(path.read_bytes())
    except UnsafePickleError as exc:
        raise DataError(f"{path}: unsafe or malformed pickle refused: {exc}; {_FIX}") from exc
    except OSError as exc:
        raise DataError(f"{path}: cannot read the NMTLC pickle ({exc}); {_FIX}") from exc
    source = str(path)
    if not isinstance(payload, list):
        raise DataError(
            f"{source}: expected a list of records, got {type(payload).__name__}; {_FIX}"
        )
    rows = [_validate_record(rec, i, source) for i, rec in enumerate(payload)]
    datasets_of: dict[str, set[str]] = {}
    for row in rows:
        datasets_of.setdefault(row["task_name"], set()).add(row["dataset"])
    for name, dsets in datasets_of.items():
        if len(dsets) > 1:
            raise DataError(
                f"{source}: datasets {sorted(dsets)} would share the task name {name!r}; "
                "the (task, language pair) -> task_name mapping is no longer one-to-one"
            )
    frame = pd.DataFrame.from_records(rows, columns=list(NMTLC_COLUMNS))
    frame.index.name = "record"
    return frame


def load_nmtlc() -> pd.DataFrame:
    """Load the installed NMTLC learning curves (Zhang & Duh, AMTA 2024) as a tidy frame.

    Returns
    -------
    pandas.DataFrame
        One row per pickle record, in file order (index ``record`` = position in the file),
        columns :data:`NMTLC_COLUMNS`:

        * ``task`` ('scratch' or 'finetune'), ``dataset`` (upstream ``dataset_name`` as
          given), ``src``, ``trg``, ``basemodel`` ('scratch', 'bloomz' or 'xglm');
        * the hyperparameters flattened: ``dataset_size``, ``initial_lr``, ``model_size``,
          ``ff_num_hidden``, ``num_layers``, ``batch_size``, ``bpe`` (thousands of merges for
          scratch models, vocabulary size for LLMs), ``r`` (LoRA rank; 0 for scratch);
        * ``perplexity_curve`` (list of dev perplexities per checkpoint), ``bleu_curve``
          (list of dev BLEU per checkpoint, ``None`` where absent: scratch records have none),
          ``perplexity_optimal``, ``bleu_optimal`` (``NaN`` where absent), ``max_len`` (as given;
          upstream calls it the number of checkpoints, but in the file it is constant per
          dataset and equals the longest curve of that dataset);
        * ``task_name``: ``"lc-<task>-<src>-<trg>"``, one registry name per (task, language
          pair). Mapping for the pinned file: ted-zh-en -> lc-scratch-zh-en, ted-ru-en ->
          lc-scratch-ru-en, robust19-ja-en -> lc-scratch-ja-en, robust19-en-ja ->
          lc-scratch-en-ja, material-sw-en -> lc-scratch-sw-en, material-so-en ->
          lc-scratch-so-en, zh-en (finetune) -> lc-finetune-zh-en, fr-en (finetune) ->
          lc-finetune-fr-en. The mapping is checked to be one-to-one.

    Raises
    ------
    DataError
        If the data is not installed, the pickle fails its SHA-256, or it is unsafe.

    Notes
    -----
    The pinned file holds 2483 records (upstream's README says 2,469 and lists a fine-tuned
    de-en set that the file does not contain). Scratch records omit the attention-head count,
    so several records of a scratch dataset share identical hyperparameters.
    """
    return read_nmtlc(installed_path(NMTLC_RELPATH))


def nmtlc_task_names() -> list[str]:
    """Return the NMTLC registry names present in the installed data.

    Returns
    -------
    list of str
        Distinct ``task_name`` values of :func:`load_nmtlc`, ordered scratch before finetune
        and, within each, by the NMTHPO pair order (zh-en, ru-en, ja-en, en-ja, sw-en, so-en)
        with any other pair after those, alphabetically. For the pinned file: the six
        ``lc-scratch-*`` names, then ``lc-finetune-zh-en``, ``lc-finetune-fr-en``.
    """
    names = set(load_nmtlc()["task_name"])
    return sorted(names, key=_task_sort_key)
