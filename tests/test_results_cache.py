"""The cached results the book reads cannot drift from the code: recompute a sample."""

import zlib
from pathlib import Path

import numpy as np
import pytest

from nmthpo.experiment import cached_runs, run_trial

RESULTS = Path(__file__).resolve().parents[1] / "results"
RUNS = [(d.name, spec, pq) for d in sorted(RESULTS.glob("*")) if d.is_dir()
        for spec, pq in cached_runs(d)]


def test_results_directory_is_compact():
    total = sum(p.stat().st_size for p in RESULTS.rglob("*") if p.is_file())
    assert total < 100 * 2**20


@pytest.mark.skipif(not RUNS, reason="no cached results yet")
@pytest.mark.parametrize(("exp", "spec", "path"), RUNS,
                         ids=[f"{e}-{s.method}-{s.task}" for e, s, _ in RUNS])
def test_cached_trials_recompute_identically(exp, spec, path):
    import pandas as pd

    frame = pd.read_parquet(path)
    trials = sorted(frame["trial"].unique())
    rng = np.random.default_rng(zlib.crc32(path.name.encode()))
    # one trial per run, chosen at random; cheap runs check three
    picks = rng.choice(trials, size=min(len(trials), 1 if spec.method != "rs" else 3),
                       replace=False)
    for t in picks:
        g = frame[frame["trial"] == t]
        fresh = run_trial(spec, int(t))
        np.testing.assert_array_equal(g["row"].to_numpy(), fresh["row"], err_msg=f"trial {t}")
        if "mse" in g:
            np.testing.assert_allclose(g["mse"].to_numpy(), fresh["mse"], rtol=1e-9)
