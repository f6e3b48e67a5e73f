import numpy as np
import pytest

from nmthpo.benchmark.tables import (
    METRICS,
    NMTHPO_TASKS,
    NMTLC_TASKS,
    PAPER_TABLE2,
    TASKS,
    load_table,
    pareto_mask,
)


@pytest.mark.parametrize("task", NMTHPO_TASKS)
def test_rows_and_best_bleu_equal_paper_table2(task):
    table = load_table(task)
    rows, best = PAPER_TABLE2[task]
    assert table.n_rows == rows
    assert round(table.best_bleu, 2) == best


def test_paper_table2_values_are_the_papers():
    assert [PAPER_TABLE2[t] for t in NMTHPO_TASKS] == [
        (118, 14.66), (176, 20.23), (150, 16.41), (168, 20.74), (767, 26.09), (604, 11.23)
    ]


@pytest.mark.parametrize("task", NMTHPO_TASKS)
def test_pareto_flags_equal_upstream_fronts(task):
    table = load_table(task)
    assert table.upstream_fronts is not None
    np.testing.assert_array_equal(table.pareto, table.upstream_fronts)


def test_pareto_mask_brute_force():
    rng = np.random.default_rng(3)
    bleu = rng.integers(0, 6, 40).astype(float)
    time = rng.integers(0, 6, 40).astype(float)
    expected = np.array([
        not any((bleu[j] >= bleu[i]) and (time[j] <= time[i])
                and ((bleu[j] > bleu[i]) or (time[j] < time[i])) for j in range(40))
        for i in range(40)
    ])
    np.testing.assert_array_equal(pareto_mask(bleu, time), expected)


def test_zh_en_has_three_tied_best_rows():
    table = load_table("zh-en")
    assert table.best_rows.tolist() == [75, 77, 105]
    assert table.first_best_row == 75
    assert np.all(table.bleu[table.best_rows] == 14.66)


def test_metrics_and_missing_gpu_memory():
    table = load_table("sw-en")
    assert tuple(table.metrics.columns) == METRICS
    assert table.metrics["gpu_memory"].isna().any()
    assert (table.metrics["gpu_memory"].dropna() > 0).all()
    assert table.configs.columns.tolist() == ["bpe", "layers", "embed", "hidden", "heads", "lr"]
    assert table.objectives("pareto").shape == (767, 2)
    assert table.encode("raw").shape == (767, 6)


def test_unknown_task_lists_valid_ones():
    with pytest.raises(KeyError, match="valid tasks: zh-en, ru-en"):
        load_table("de-en")
    with pytest.raises(ValueError, match="valid: scaled, shared, raw"):
        load_table("zh-en").encode("onehot")
    with pytest.raises(ValueError, match="valid: bleu, pareto"):
        load_table("zh-en").objectives("ppl")


@pytest.mark.parametrize("task", NMTLC_TASKS)
def test_nmtlc_finetune_tables(task):
    table = load_table(task)
    assert table.n_rows in (159, 162)
    assert not table.configs.duplicated().any()
    assert set(table.configs["lora_rank"]) == {2, 16, 64}
    assert table.encode("shared").shape == (table.n_rows, 5)
    assert np.isfinite(table.bleu).all()
    assert task in TASKS


def test_front_door_lists_tasks_and_loads_lazily():
    import subprocess
    import sys

    import nmthpo

    assert nmthpo.tasks() == list(nmthpo.benchmark.tables.TASKS)
    assert nmthpo.tasks("nmthpo")[:2] == ["zh-en", "ru-en"]
    assert nmthpo.load_table("ja-en").n_rows == 150
    code = ("import sys, nmthpo; heavy = [m for m in ('pandas', 'scipy', 'sklearn', "
            "'matplotlib') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"
