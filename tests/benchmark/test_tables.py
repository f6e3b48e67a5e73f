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

#: Table 2 of Zhang & Duh (2020) written out (not read from the package): rows and best BLEU;
#: and the rows reaching that BLEU in the data (only zh-en has a tie, of three rows).
TABLE2 = [
    ("zh-en", 118, 14.66, [75, 77, 105]),
    ("ru-en", 176, 20.23, [19]),
    ("ja-en", 150, 16.41, [89]),
    ("en-ja", 168, 20.74, [70]),
    ("sw-en", 767, 26.09, [230]),
    ("so-en", 604, 11.23, [332]),
]


def test_table2_lists_every_task_in_order():
    assert [t for t, *_ in TABLE2] == list(NMTHPO_TASKS)


@pytest.mark.parametrize(("task", "rows", "best", "best_rows"), TABLE2)
def test_rows_and_best_bleu_equal_paper_table2(task, rows, best, best_rows):
    table = load_table(task)
    assert table.n_rows == rows == table.bleu.size == len(table.configs) == len(table.metrics)
    assert not table.configs.duplicated().any()
    # BLEU is stored to two decimals, so the best is the paper's number exactly
    assert table.best_bleu == table.bleu.max() == best
    assert np.flatnonzero(table.bleu == best).tolist() == table.best_rows.tolist() == best_rows
    assert table.first_best_row == best_rows[0]
    assert PAPER_TABLE2[task] == (rows, best)


def test_paper_table2_values_are_the_papers():
    assert [PAPER_TABLE2[t] for t in NMTHPO_TASKS] == [
        (118, 14.66),
        (176, 20.23),
        (150, 16.41),
        (168, 20.74),
        (767, 26.09),
        (604, 11.23),
    ]


@pytest.mark.parametrize(
    ("task", "front"),
    [("zh-en", 3), ("ru-en", 4), ("ja-en", 5), ("en-ja", 8), ("sw-en", 14), ("so-en", 7)],
)
def test_pareto_flags_equal_upstream_fronts(task, front):
    table = load_table(task)
    assert table.upstream_fronts is not None
    np.testing.assert_array_equal(table.pareto, table.upstream_fronts)
    assert int(table.pareto.sum()) == front == table.pareto_rows.size
    # nothing has more BLEU: the fastest best-BLEU row is on the front
    assert table.pareto[table.best_rows].any()


def test_pareto_mask_brute_force():
    rng = np.random.default_rng(3)
    bleu = rng.integers(0, 6, 40).astype(float)
    time = rng.integers(0, 6, 40).astype(float)
    expected = np.array(
        [
            not any(
                (bleu[j] >= bleu[i])
                and (time[j] <= time[i])
                and ((bleu[j] > bleu[i]) or (time[j] < time[i]))
                for j in range(40)
            )
            for i in range(40)
        ]
    )
    np.testing.assert_array_equal(pareto_mask(bleu, time), expected)


def test_zh_en_has_three_tied_best_rows():
    table = load_table("zh-en")
    assert table.best_rows.tolist() == [75, 77, 105]
    assert table.first_best_row == 75
    assert np.all(table.bleu[table.best_rows] == 14.66)


def test_metrics_and_missing_gpu_memory():
    table = load_table("sw-en")
    assert tuple(table.metrics.columns) == METRICS
    assert int(table.metrics["gpu_memory"].isna().sum()) == 25  # of 767 rows
    assert (table.metrics["gpu_memory"].dropna() > 0).all()
    assert table.configs.columns.tolist() == ["bpe", "layers", "embed", "hidden", "heads", "lr"]
    assert table.objectives("pareto").shape == (767, 2)
    assert table.encode("raw").shape == (767, 6)


def test_unknown_task_lists_valid_ones():
    with pytest.raises(KeyError, match="valid tasks: zh-en, ru-en"):
        load_table("de-en")
    with pytest.raises(ValueError, match="not one of scaled, shared, raw"):
        load_table("zh-en").encode("onehot")
    with pytest.raises(ValueError, match="valid: bleu, pareto"):
        load_table("zh-en").objectives("ppl")


#: Rows of the fine-tuning learning-curve tables.
LC_ROWS = {"lc-finetune-zh-en": 159, "lc-finetune-fr-en": 162}


def test_lc_rows_lists_every_nmtlc_task():
    assert list(LC_ROWS) == list(NMTLC_TASKS)


@pytest.mark.parametrize(("task", "rows"), LC_ROWS.items())
def test_nmtlc_finetune_tables(task, rows):
    table = load_table(task)
    assert table.n_rows == rows
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
    code = (
        "import sys, nmthpo; heavy = [m for m in ('pandas', 'scipy', 'sklearn', "
        "'matplotlib') if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "[]"
