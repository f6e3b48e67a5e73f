"""The seconds of each suggestion (``record_time``) and a run's display name."""

import numpy as np

import nmthpo
from nmthpo.engine.compare import load_run_dir, method_names
from nmthpo.engine.runner import RunResult


def _bo(cache, **kw):
    return nmthpo.run(
        "bo-ei-m", "ja-en", trials=2, budget=12, stop="none", cache_dir=cache, progress=False, **kw
    )


def test_record_time_adds_seconds_and_leaves_the_rows_alone(tmp_path):
    timed = _bo(tmp_path, record_time=True)
    plain = _bo(tmp_path)
    assert "seconds" in timed.frame and "seconds" not in plain.frame
    assert timed.sequences == plain.sequences
    s = timed.frame.set_index(["trial", "step"])["seconds"]
    assert (s.xs(1, level="step") == 0).all()  # initial rows cost nothing
    later = timed.frame.loc[timed.frame["step"] > 3, "seconds"].to_numpy()
    assert np.isfinite(later).all() and (later > 0).all()
    again = _bo(tmp_path, record_time=True)  # read back from the cache with its seconds
    assert np.array_equal(again.frame["seconds"], timed.frame["seconds"])


def test_a_timed_run_directory_is_compared(tmp_path):
    r = nmthpo.run(
        "rs", "ja-en", trials=2, budget=10, stop="none", record_time=True, progress=False
    )
    r.save(tmp_path / "out")
    back = load_run_dir(tmp_path / "out")
    assert back.spec.record_time and back.sequences == r.sequences


def test_display_name_replaces_the_method_in_tables():
    r = nmthpo.run("rs", "ja-en", trials=1, budget=5, stop="none", progress=False)
    a = RunResult(r.spec, r.frame, "mine")
    assert a.label == "mine" and RunResult(r.spec, r.frame).label == "rs"
    assert method_names([a, RunResult(r.spec, r.frame)]) == ["mine", "rs"]
