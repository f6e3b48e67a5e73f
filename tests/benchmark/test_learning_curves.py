"""Learning-curve tables: lookups agree with the records, the lookup tables and each other."""

from __future__ import annotations

import numpy as np
import pytest

from nmthpo.benchmark.learning_curves import LC_TASKS, check_lc_task, load_curves
from nmthpo.benchmark.tables import load_table
from nmthpo.data import load_nmtlc


@pytest.mark.parametrize("task", LC_TASKS)
def test_lookups_consistent(task: str) -> None:
    table = load_curves(task)
    rec = load_nmtlc()
    rec = rec[rec["task_name"] == task].reset_index(drop=True)
    assert table.n_rows == len(rec)
    col = "bleu_curve" if table.maximise else "perplexity_curve"
    opt = "bleu_optimal" if table.maximise else "perplexity_optimal"
    assert table.max_len == int(rec["max_len"].iloc[0]) == table.lengths.max()
    np.testing.assert_allclose(table.final, rec[opt].to_numpy())
    for row in range(0, table.n_rows, 7):
        raw = np.asarray(rec[col].iloc[row])
        n = raw.size
        np.testing.assert_array_equal(table.curve(row, raw=True), raw)
        best = table.curve(row)
        assert best.size == n
        np.testing.assert_allclose(
            best, (np.maximum if table.maximise else np.minimum).accumulate(raw)
        )
        for k in (1, n // 2 + 1, n):
            assert table.query(row, k, raw=True) == raw[k - 1]
            assert table.query(row, k) == best[k - 1]
        # a curve that ended is complete: later checkpoints give its last values
        assert table.query(row, table.max_len + 5) == table.final[row]
        assert table.query(row, table.max_len, raw=True) == raw[-1]
        assert table.reached(row, table.max_len) == n
    assert table.total_cost == int(rec[col].map(len).sum())
    assert np.all(table.regret(table.final) >= 0)
    assert np.all(table.regret(table.final[table.best_rows]) == 0)


@pytest.mark.parametrize("task", ["lc-finetune-fr-en", "lc-finetune-zh-en"])
def test_finetune_view_matches_lookup_table(task: str) -> None:
    """Same task name, two views: the lookup table's BLEU is the curves' final value."""
    table, curves = load_table(task), load_curves(task)
    np.testing.assert_allclose(curves.final, table.bleu)
    np.testing.assert_array_equal(curves.X, table.scaled)
    assert curves.best_final == table.best_bleu


def test_checks() -> None:
    with pytest.raises(KeyError, match="learning-curve tasks: lc-finetune-fr-en"):
        check_lc_task("ja-en")
    table = load_curves("lc-finetune-zh-en")
    with pytest.raises(ValueError, match="1-based"):
        table.query(0, 0)
    s = table.summary()
    assert s["configurations"] == 159 and s["longest"] == 28 and s["shortest"] == 7
