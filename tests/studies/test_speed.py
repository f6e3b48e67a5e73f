"""The speed appendix reads the stored benchmark targets and the recorded grid times."""

from __future__ import annotations

import json

from nmthpo.studies import speed


def test_speed_targets_and_grid_totals(tmp_path, monkeypatch):
    import nmthpo.studies.grids as grids

    monkeypatch.setattr(grids, "results_dir", lambda: tmp_path)
    assert speed.speed_targets().empty and speed.grid_totals().empty
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "bench_speed.txt").write_text(
        "header\n== 1. x\nfast 1.0\n\n== targets\nitem,target,measured,ratio,met\n"
        '"a run, whole",">= 30x","fast / skl",41.5,yes\n"jobs","> 1","j2 / j1",0.8,no\n'
        "== end\n"
    )
    t = speed.speed_targets()
    assert t.loc["a run, whole", "ratio"] == 41.5 and t.loc["jobs", "met"] == "no"
    assert list(t.columns) == ["target", "measured", "ratio", "met"]
    (tmp_path / "timings.json").write_text(
        json.dumps(
            {
                "single": {"rs zh-en a": 60.0, "rs ja-en b": 30.0},
                speed.GRIDS_KEY: {"single --jobs 2": 600.0},
            }
        )
    )
    g = speed.grid_totals()
    assert g.loc["single"].iloc[0]["minutes"] == 1.5 and g.loc["single"].iloc[1]["minutes"] == 10
    assert "--jobs 2" in g.loc["single"].iloc[1]["how"]


def test_make_results_time_reads_the_whole_run(tmp_path, monkeypatch):
    import nmthpo.studies.grids as grids

    monkeypatch.setattr(grids, "results_dir", lambda: tmp_path)
    assert speed.make_results_time().empty
    (tmp_path / "timings.json").write_text(
        json.dumps(
            {
                "single": {"rs zh-en a": 60.0},
                speed.MAKE_RESULTS_KEY: {
                    "jobs": 2,
                    "total": 1800.0,
                    "from_scratch": True,
                    "experiments": {"ga": 600.0, "single": 1200.0},
                },
            }
        )
    )
    m = speed.make_results_time()
    assert list(m.index) == ["single", "ga", "total"]
    assert m.loc["total", "minutes"] == 30.0 and m.loc["single", "share"] == 66.7
    assert m.attrs == {
        "jobs": 2,
        "from_scratch": True,
        "target_minutes": speed.MAKE_RESULTS_TARGET_MIN,
    }
    # the whole-run record is not an experiment folder of grid_totals
    assert list(speed.grid_totals().index) == ["single"]
