"""Evaluation metrics of HPO runs on a lookup table (Zhang & Duh 2020, Section 4).

A run is a *sample sequence*: the row ids in the order they were evaluated, the initial rows
first. Runtime is the number of models trained, i.e. the 1-based position in the sequence, and
is floored at the number of initial rows ``n_init`` (the paper counts the three initial
evaluations, footnote 18, so no method can finish before them).

Single objective (maximise BLEU):

* ``ftb`` -- runtime to reach the oracle best. Ties: ``"value"`` (default, the paper's wording:
  any row with the best BLEU value) or ``"first-id"`` (wait for the first argmax row, as
  upstream's evaluation script does). On zh-en three rows tie at 14.66, so the two differ.
* ``ftc`` -- runtime to reach ``best - tolerance`` (default 0.5 BLEU).
* ``fb`` -- ``best - max(BLEU of the first budget rows)`` (default budget 20).
* ``regret@B`` -- the same gap at any budget ``B`` (``fb`` is ``regret@20``): the *simple
  regret* after ``B`` evaluations, the anytime view of a run (:func:`regret_at`,
  ``evaluate_sequences(regret_at=[10, 25, 50])``; :func:`regret_curve` gives every budget).

Multiobjective (Pareto set of max BLEU / min decoding time):

* ``fto`` -- runtime to find one Pareto-optimal row; ``fta`` -- to find all of them;
* ``fbp`` -- number of Pareto-optimal rows among the first ``budget`` (default 50).

A target never reached within a (truncated) sequence gives ``NaN``. Summary statistics use the
population standard deviation (``ddof=0``), as numpy's default and upstream's script do.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nmthpo.engine.cache import write_text
from nmthpo.engine.metric_names import REGRET_PREFIX
from nmthpo.errors import (
    InputTypeError,
    InputValueError,
    check_choice,
    check_float,
    check_int,
)

__all__ = [
    "OBJECTIVES",
    "PARETO_METRICS",
    "SINGLE_METRICS",
    "TIES",
    "best_so_far",
    "curve_quantiles",
    "evaluate_sequences",
    "expected_rs_ftb",
    "fb",
    "fbp",
    "fta",
    "ftb",
    "ftc",
    "fto",
    "hypervolume",
    "hypervolume_curve",
    "read_sequences",
    "regret_at",
    "reference_point",
    "regret_curve",
    "runtime_to",
    "summarise",
    "validate_sequence",
    "write_sequences",
]

#: A sample sequence: row ids in evaluation order (a list or an integer array).
SequenceLike = Sequence[int] | np.ndarray

TIES: tuple[str, ...] = ("value", "first-id")
OBJECTIVES: tuple[str, ...] = ("bleu", "pareto")

SINGLE_METRICS: tuple[str, ...] = ("ftb", "ftc", "fb")
PARETO_METRICS: tuple[str, ...] = ("fto", "fta", "fbp")


# -- sample sequences ---------------------------------------------------------------------------
def _values(name: str, values: Any) -> np.ndarray:
    """``values`` as a finite 1-d float array with at least one entry."""
    try:
        out = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputTypeError(f"{name}: expected numbers (one per row of the table)") from None
    if out.ndim != 1 or out.size == 0:
        raise InputValueError(f"{name}: expected one value per row, got shape {out.shape}")
    bad = np.flatnonzero(~np.isfinite(out))
    if bad.size:
        raise InputValueError(
            f"{name}: row {int(bad[0])} holds {out[bad[0]]} ({bad.size} such rows); every row "
            "needs a finite value"
        )
    return out


def validate_sequence(sequence: SequenceLike, n_rows: int) -> np.ndarray:
    """Check one sequence: integer ids in ``0..n_rows-1``, none repeated; return it as array."""
    seq = np.asarray(sequence)
    if seq.ndim != 1:
        raise ValueError("a sample sequence must be one-dimensional")
    if seq.size and not np.issubdtype(seq.dtype, np.integer):
        raise ValueError("row ids must be integers")
    seq = seq.astype(np.int64)
    bad = seq[(seq < 0) | (seq >= n_rows)]
    if bad.size:
        raise ValueError(f"row id {int(bad[0])} is outside the table (valid ids 0..{n_rows - 1})")
    uniq, counts = np.unique(seq, return_counts=True)
    if np.any(counts > 1):
        raise ValueError(
            f"row id {int(uniq[counts > 1][0])} appears more than once; "
            "a table search evaluates each row at most once"
        )
    return seq


def read_sequences(path: str | Path) -> list[list[int]]:
    """Read upstream's plain format: one trial a line, row ids space-separated."""
    out: list[list[int]] = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                out.append([int(tok) for tok in line.split()])
            except ValueError as exc:
                raise ValueError(f"{path}, line {lineno}: not a list of row ids ({exc})") from None
    if not out:
        raise ValueError(f"{path}: no sample sequences found")
    return out


def write_sequences(path: str | Path, sequences: Iterable[Sequence[int]]) -> None:
    """Write sequences in upstream's plain format, atomically, with the umask's permissions
    (:func:`nmthpo.engine.cache.write_text`)."""
    write_text(path, "".join(" ".join(str(int(r)) for r in seq) + "\n" for seq in sequences))


# -- single-trial metrics -----------------------------------------------------------------------
def runtime_to(hits: np.ndarray, n_init: int = 3) -> float:
    """1-based position of the first True in ``hits``, floored at ``n_init``; ``NaN`` if none."""
    idx = np.flatnonzero(np.asarray(hits, dtype=bool))
    if idx.size == 0:
        return float("nan")
    return float(max(idx[0] + 1, n_init))


def ftb(sequence: SequenceLike, bleu: np.ndarray, ties: str = "value", n_init: int = 3) -> float:
    """Fixed-target best: runtime until the oracle best BLEU is found (see module docstring)."""
    seq = np.asarray(sequence, dtype=np.int64)
    bleu = np.asarray(bleu, dtype=float)
    if ties == "value":
        hits = bleu[seq] >= bleu.max()
    elif ties == "first-id":
        hits = seq == int(np.argmax(bleu))
    else:
        raise ValueError(f"unknown ties convention {ties!r}; valid: {', '.join(TIES)}")
    return runtime_to(hits, n_init)


def ftc(sequence: SequenceLike, bleu: np.ndarray, tolerance: float = 0.5, n_init: int = 3) -> float:
    """Fixed-target close: runtime until a BLEU of at least ``best - tolerance`` is found."""
    if tolerance < 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance}")
    bleu = np.asarray(bleu, dtype=float)
    seq = np.asarray(sequence, dtype=np.int64)
    # Round the threshold to the data's two decimals so that 20.74 - 0.5 is not 20.239999...
    target = round(float(bleu.max()) - tolerance, 10)
    return runtime_to(bleu[seq] >= target, n_init)


def fb(sequence: SequenceLike, bleu: np.ndarray, budget: int = 20) -> float:
    """Fixed budget: oracle best minus the best BLEU among the first ``budget`` rows."""
    if budget < 1:
        raise ValueError(f"budget must be >= 1, got {budget}")
    seq = np.asarray(sequence, dtype=np.int64)
    bleu = np.asarray(bleu, dtype=float)
    best = bleu[seq[:budget]].max() if seq.size else -np.inf
    # A sequence stopped early at the oracle best is complete for this metric (fb = 0);
    # otherwise a sequence shorter than the budget cannot be scored.
    if seq.size < min(budget, len(bleu)) and best < bleu.max():
        return float("nan")
    return float(bleu.max() - best)


def regret_at(sequence: SequenceLike, bleu: np.ndarray, budget: int) -> float:
    """Simple regret after ``budget`` evaluations: oracle best minus the best BLEU among the
    first ``budget`` rows (:func:`fb` at any budget; ``NaN`` for a sequence that stops before
    ``budget`` rows without the best)."""
    return fb(sequence, bleu, budget)


def fto(sequence: SequenceLike, pareto: np.ndarray, n_init: int = 3) -> float:
    """Fixed-target one: runtime until one Pareto-optimal row is found."""
    seq = np.asarray(sequence, dtype=np.int64)
    return runtime_to(np.asarray(pareto, dtype=bool)[seq], n_init)


def fta(sequence: SequenceLike, pareto: np.ndarray, n_init: int = 3) -> float:
    """Fixed-target all: runtime until every Pareto-optimal row is found."""
    seq = np.asarray(sequence, dtype=np.int64)
    pareto = np.asarray(pareto, dtype=bool)
    found = np.cumsum(pareto[seq])
    return runtime_to(found >= pareto.sum(), n_init)


def fbp(sequence: SequenceLike, pareto: np.ndarray, budget: int = 50) -> float:
    """Fixed budget, Pareto: the number of Pareto-optimal rows among the first ``budget``."""
    if budget < 1:
        raise ValueError(f"budget must be >= 1, got {budget}")
    seq = np.asarray(sequence, dtype=np.int64)
    pareto = np.asarray(pareto, dtype=bool)
    found = pareto[seq[:budget]].sum()
    # A sequence stopped early with the whole Pareto set found is complete for this metric.
    if seq.size < min(budget, len(pareto)) and found < pareto.sum():
        return float("nan")
    return float(found)


# -- many trials --------------------------------------------------------------------------------
def evaluate_sequences(
    sequences: Sequence[SequenceLike],
    bleu: np.ndarray,
    pareto: np.ndarray | None = None,
    objective: str = "bleu",
    ties: str = "value",
    n_init: int = 3,
    budget: int | None = None,
    tolerance: float = 0.5,
    regret_at: Sequence[int] = (),
) -> pd.DataFrame:
    """Per-trial metrics of many sequences: a frame with one row per trial.

    ``budget`` defaults to 20 for ``objective="bleu"`` (fb) and 50 for ``"pareto"`` (fbp).
    ``regret_at`` adds a column ``regret@B`` per budget ``B`` (``objective="bleu"`` only).
    Sequences are validated (ids in range, no repeats) first.
    """
    check_choice("objective", objective, OBJECTIVES)
    check_choice("ties", ties, TIES)
    bleu = _values("bleu", bleu)
    n = len(bleu)
    check_int("n_init", n_init, 0, n, fix=f"at most the table's {n} rows")
    if budget is None:
        budget = 20 if objective == "bleu" else 50
    check_int("budget", budget, 1, n, fix=f"between 1 and the table's {n} rows")
    check_float("tolerance", tolerance, 0.0)
    if isinstance(regret_at, (str, bytes)) or not isinstance(regret_at, Iterable):
        raise InputTypeError(f"regret_at={regret_at!r}: expected a list of budgets, e.g. [10, 25]")
    regret_budgets = [
        check_int("regret_at", b, max(n_init, 1), n, fix=f"between n_init and the {n} rows")
        for b in regret_at
    ]
    if regret_budgets and objective != "bleu":
        raise InputValueError("regret_at applies to objective='bleu' only")
    if pareto is not None:
        pareto = np.asarray(pareto)
        if pareto.shape != (n,) or pareto.dtype != bool:
            raise InputValueError(
                f"pareto: expected {n} boolean flags (one per row of bleu), got shape "
                f"{pareto.shape} of {pareto.dtype}"
            )
    if isinstance(sequences, (str, bytes)) or not isinstance(sequences, Iterable):
        raise InputTypeError(
            f"sequences={str(sequences)[:40]!r}: expected a list of sequences of row ids"
        )
    if objective == "pareto" and pareto is None:
        raise InputValueError(
            "objective='pareto' needs pareto= (the table's Pareto flags, LookupTable.pareto)"
        )
    if budget < n_init:
        raise InputValueError(
            f"budget={budget}: less than n_init={n_init}, so fb/fbp would measure only the "
            "random initial rows; give a budget of at least n_init"
        )
    rows = []
    for i, s in enumerate(sequences):
        try:
            seq = validate_sequence(s, n)
        except ValueError as exc:
            raise InputValueError(f"sequences[{i}]: {exc}") from None
        if seq.size == 0:
            raise InputValueError(f"sequences[{i}]: empty; a trial evaluates at least one row")
        if objective == "bleu":
            rows.append(
                {
                    "trial": i,
                    "ftb": ftb(seq, bleu, ties, n_init),
                    "ftc": ftc(seq, bleu, tolerance, n_init),
                    "fb": fb(seq, bleu, budget),
                    **{f"{REGRET_PREFIX}{b}": fb(seq, bleu, b) for b in regret_budgets},
                }
            )
        else:
            assert pareto is not None  # checked above
            rows.append(
                {
                    "trial": i,
                    "fto": fto(seq, pareto, n_init),
                    "fta": fta(seq, pareto, n_init),
                    "fbp": fbp(seq, pareto, budget),
                }
            )
    if not rows:
        raise InputValueError("sequences=[]: no sequence to evaluate; give at least one")
    frame = pd.DataFrame(rows)
    frame.attrs.update(
        objective=objective, ties=ties, n_init=n_init, budget=budget, tolerance=tolerance
    )
    return frame


def summarise(values: pd.DataFrame | pd.Series | np.ndarray) -> pd.DataFrame:
    """Mean, std (ddof=0), median, quartiles and count over trials, NaNs excluded, per column."""
    frame = pd.DataFrame(values)
    frame = frame.drop(columns=[c for c in ("trial",) if c in frame.columns])
    stats = {
        "mean": frame.mean(),
        "std": frame.std(ddof=0),
        "median": frame.median(),
        "q25": frame.quantile(0.25),
        "q75": frame.quantile(0.75),
        "n": frame.count(),
    }
    return pd.DataFrame(stats)


# -- anytime curves -----------------------------------------------------------------------------
def best_so_far(sequence: SequenceLike, bleu: np.ndarray, length: int | None = None) -> np.ndarray:
    """Best BLEU after each evaluation; padded with the last value up to ``length``."""
    seq = np.asarray(sequence, dtype=np.int64)
    curve = np.maximum.accumulate(np.asarray(bleu, dtype=float)[seq])
    if length is not None and length > curve.size:
        curve = np.concatenate([curve, np.full(length - curve.size, curve[-1])])
    return curve[:length] if length is not None else curve


def regret_curve(sequence: SequenceLike, bleu: np.ndarray, length: int | None = None) -> np.ndarray:
    """Simple regret after each evaluation: oracle best minus best so far."""
    return float(np.max(bleu)) - best_so_far(sequence, bleu, length)


def curve_quantiles(curves: np.ndarray, qs: Sequence[float] = (0.25, 0.5, 0.75)) -> np.ndarray:
    """Quantiles over trials (axis 0) of a (trials, steps) array of curves; ``NaN``-aware."""
    return np.nanquantile(np.asarray(curves, dtype=float), qs, axis=0)


# -- hypervolume --------------------------------------------------------------------------------
def reference_point(bleu: np.ndarray, time: np.ndarray) -> np.ndarray:
    """The documented reference point for (max BLEU, min time) hypervolumes of a table.

    The table's worst BLEU and worst time, each moved beyond the worst by 1% of its range, so
    that every row (even the extreme ones) contributes positive volume. Returned in the
    minimisation frame used by :func:`hypervolume`: ``[-bleu_ref, time_ref]``.
    """
    bleu = np.asarray(bleu, dtype=float)
    time = np.asarray(time, dtype=float)
    b_ref = bleu.min() - 0.01 * (bleu.max() - bleu.min())
    t_ref = time.max() + 0.01 * (time.max() - time.min())
    return np.array([-b_ref, t_ref])


def hypervolume(bleu: np.ndarray, time: np.ndarray, ref: np.ndarray) -> float:
    """Hypervolume dominated by the points (BLEU maximised, time minimised) w.r.t. ``ref``.

    ``ref`` is in the minimisation frame ``[-bleu_ref, time_ref]`` (:func:`reference_point`).
    Points not strictly better than ``ref`` in both objectives contribute nothing.
    Computed by moocore.
    """
    import moocore

    pts = np.column_stack([-np.asarray(bleu, dtype=float), np.asarray(time, dtype=float)])
    if pts.shape[0] == 0:
        return 0.0
    return float(moocore.hypervolume(pts, ref=np.asarray(ref, dtype=float)))


def hypervolume_curve(
    sequence: SequenceLike, bleu: np.ndarray, time: np.ndarray, ref: np.ndarray
) -> np.ndarray:
    """Hypervolume of the rows found after each evaluation of ``sequence``."""
    seq = np.asarray(sequence, dtype=np.int64)
    b = np.asarray(bleu, dtype=float)[seq]
    t = np.asarray(time, dtype=float)[seq]
    return np.array([hypervolume(b[: i + 1], t[: i + 1], ref) for i in range(seq.size)])


def expected_rs_ftb(n_rows: int, n_init: int = 3, n_best: int = 1) -> float:
    """Exact E[max(K, n_init)] for random search's ftb, K the first best's position.

    With ``n_best`` tied best rows in a uniformly random permutation of ``n_rows`` rows,
    P(K > k) = C(n - k, b) / C(n, b). For ``n_best=1`` K is uniform on 1..n.
    """
    from math import comb

    total = 0.0
    # E[max(K, m)] = sum_{k>=0} P(max(K, m) > k) = m + sum_{k>=m} P(K > k)
    for k in range(n_init, n_rows):
        total += comb(n_rows - k, n_best) / comb(n_rows, n_best)
    return float(n_init + total)
