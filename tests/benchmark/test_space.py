import numpy as np
import pandas as pd
import pytest

from nmthpo.benchmark.space import (
    HYPERPARAMETERS,
    SHARED_SCALES,
    search_space,
    shared_encoding,
    upstream_scaling,
)
from nmthpo.benchmark.tables import NMTHPO_TASKS, load_table
from nmthpo.data import installed_path


@pytest.mark.parametrize("task", NMTHPO_TASKS)
def test_upstream_scaling_equals_hyps_scaled_files(task):
    table = load_table(task)
    stored = np.loadtxt(installed_path(f"datasets/{task}.hyps_scaled"))
    # The files print three decimals (0.429 for 3/7).
    np.testing.assert_allclose(upstream_scaling(task, table.configs), stored, atol=5e-4 + 1e-12)
    np.testing.assert_array_equal(table.scaled, stored)


def test_shared_encoding_means_the_same_in_every_task():
    codes: dict[tuple, tuple] = {}
    for task in NMTHPO_TASKS:
        table = load_table(task)
        for cfg, code in zip(table.configs.itertuples(index=False), table.shared, strict=True):
            key = tuple(cfg)
            if key in codes:
                assert codes[key] == tuple(code)
            codes[key] = tuple(code)
    enc = np.vstack([load_table(t).shared for t in NMTHPO_TASKS])
    assert enc.min() >= 0 and enc.max() <= 1
    # the same configuration in two tasks with different upstream scalings
    cfg = pd.DataFrame([[32000, 2, 512, 1024, 8, 3e-4]], columns=list(HYPERPARAMETERS))
    assert shared_encoding(cfg)[0, 0] == pytest.approx(np.log2(32) / np.log2(50))
    assert upstream_scaling("sw-en", cfg)[0, 1] == pytest.approx(0.2)
    assert upstream_scaling("so-en", cfg)[0, 1] == pytest.approx(1 / 3)


def test_scale_endpoints():
    for h, s in SHARED_SCALES.items():
        assert s(np.array([s.lo, s.hi])).tolist() == pytest.approx([0.0, 1.0]), h


def test_search_space_table1():
    space = search_space(load_table("so-en").configs)
    assert space["layers"] == [1, 2, 4]
    assert space["bpe"] == [1000, 2000, 4000, 8000, 16000, 32000]
    assert space["lr"] == pytest.approx([3e-4, 6e-4, 1e-3])


def test_upstream_scaling_unknown_task():
    with pytest.raises(KeyError, match="known: zh-en"):
        upstream_scaling("xx-en", load_table("zh-en").configs)
