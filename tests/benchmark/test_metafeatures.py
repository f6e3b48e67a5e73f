"""Tests of nmthpo.benchmark.metafeatures by hand (Li et al. 2022, Section 4)."""

import numpy as np

from nmthpo.benchmark.metafeatures import (
    metafeature_distance,
    metafeatures,
)
from nmthpo.benchmark.tables import load_table


def test_metafeatures_by_hand():
    table = load_table("en-ja")
    rows = np.array([0, 1, 2])
    f = metafeatures("en-ja", rows)
    upd = table.metrics["num_updates"].to_numpy(float)[rows]
    b = table.bleu[rows]
    np.testing.assert_allclose(f, [0.0, np.mean(np.log10(upd)), b.mean(), b.std()])
    assert metafeatures("lc-finetune-fr-en", rows).size == 3
    d = metafeature_distance(np.array([[0.0, 0.0], [1.0, 2.0]]), np.array([0.0, 2.0]))
    np.testing.assert_allclose(d, [np.sqrt(1 / 2), np.sqrt(1 / 2)])
