"""The speed appendix reads the stored benchmark targets and the recorded grid times."""

from __future__ import annotations

import json

import pytest

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


def _trial(method, task, trial, same, book, here, table="Table 3", metric="ftb"):
    return {
        "table": table, "method": method, "task": task, "metric": metric,
        "trial": trial, "same_rows": same, "book": book, "here": here,
    }  # fmt: skip


def test_portability_tables_verdicts(tmp_path, monkeypatch):
    import nmthpo.studies.grids as grids

    monkeypatch.setattr(grids, "results_dir", lambda: tmp_path)
    assert speed.portability_tables().empty
    (tmp_path / "benchmarks").mkdir()
    rows = (
        # the same rows: identical, whatever the values
        [_trial("bo-ei-m", "ja-en", i, True, 10.0 + i, 10.0 + i) for i in range(20)]
        # other rows, differences of both signs: the paired interval covers 0
        + [_trial("bo-ei-r", "ja-en", i, i % 2 == 0, 10.0, 10.0 + (-1) ** i) for i in range(20)]
        # every trial 5 evaluations slower: the cell moves
        + [
            _trial("bo-m", "zh-en", i, False, 50.0 + i, 55.0 + i, "Table 4", "fta")
            for i in range(20)
        ]
    )
    (tmp_path / "benchmarks" / speed.PORTABILITY_TABLES_FILE).write_text(
        json.dumps({"machine": "m", "core": "Prescott", "trials": {"single": 20}, "rows": rows})
    )
    p = speed.portability_tables().set_index("method")
    assert p.loc["bo-ei-m", "verdict"] == "identical rows" and p.loc["bo-ei-m", "other rows"] == 0
    assert p.loc["bo-ei-r", "verdict"] == "no difference" and p.loc["bo-ei-r", "other rows"] == 10
    assert p.loc["bo-m", "verdict"] == "moves" and p.loc["bo-m", "difference [95% CI]"].startswith(
        "5"
    )
    assert p.loc["bo-m", "table"] == "Table 4" and p.loc["bo-m", "metric"] == "fta"
    assert p.loc["bo-ei-m", "vs the book's CI"] == "inside"
    assert p.loc["bo-m", "vs the book's CI"] == "outside"  # 5 above a mean of 59.5 +- ~2.6
    assert p.attrs["core"] == "Prescott" and p.attrs["trials"] == {"single": 20}
    assert p.attrs["higher"] == 1 and p.attrs["settings"] == {}  # bo-m's cell moves up


def test_portability_tables_of_the_book_are_stored():
    # the speed appendix reads them: written by hand (tools/portability.py --tables)
    p = speed.portability_tables()
    assert not p.empty and set(p["table"]) == {"Table 3", "Table 4"}
    assert set(p["verdict"]) <= {"identical rows", "no difference", "moves"}


def test_portability_sample_counts_diverging_trials(tmp_path, monkeypatch):
    import nmthpo.studies.grids as grids

    monkeypatch.setattr(grids, "results_dir", lambda: tmp_path)
    assert speed.portability_sample().empty
    (tmp_path / "benchmarks").mkdir()
    hashes = {
        "default": {"bo-ei-m ja-en": ["a", "b"], "rs ja-en": ["c", "d"]},
        "Prescott": {"bo-ei-m ja-en": ["a", "x"], "rs ja-en": ["c", "d"]},
        "Haswell": {"bo-ei-m ja-en": ["y", "x"], "rs ja-en": ["c", "d"]},
    }
    (tmp_path / "benchmarks" / speed.PORTABILITY_SAMPLE_FILE).write_text(
        json.dumps(
            {"cores": list(hashes), "hashes": hashes, "trials": 2, "budget": 40, "seconds": {}}
        )
    )
    s = speed.portability_sample()
    assert s.loc["bo-ei-m", "diverge"] == 2 and s.loc["bo-ei-m", "rate"] == 1.0
    assert s.loc["bo-ei-m", "where"] == "ja-en#0 (Haswell), ja-en#1 (Prescott/Haswell)"
    assert s.loc["rs", "diverge"] == 0 and s.loc["rs", "where"] == "-"
    assert s.attrs == {"cores": list(hashes), "trials": 2, "budget": 40, "seconds": {}}
    # a sample that recorded each method's seconds (tools/portability.py since issue 25)
    data = json.loads((tmp_path / "benchmarks" / speed.PORTABILITY_SAMPLE_FILE).read_text())
    data["method_seconds"] = {"default": {"bo-ei-m": 3.5, "rs": 0.1}, "Prescott": {}}
    (tmp_path / "benchmarks" / "other.json").write_text(json.dumps(data))
    other = speed.portability_sample(tmp_path / "benchmarks" / "other.json")
    assert other.attrs["seconds"] == {"bo-ei-m": 3.5, "rs": 0.1}


def test_portability_results_groups_runs_by_the_cpu_that_computed_the_book_copy(
    tmp_path, monkeypatch
):
    import nmthpo.studies.grids as grids

    monkeypatch.setattr(grids, "results_dir", lambda: tmp_path)
    assert speed.portability_results().empty and speed.portability_claims().empty
    (tmp_path / "benchmarks").mkdir()
    here, avx512 = "x86_64/openblas-Haswell/numpy-X86_V3", "x86_64/openblas-SkylakeX/numpy-AVX"
    runs = [
        {"folder": "single", "method": "bo-ei-m", "file": "a", "machine": avx512,
         "exact": False, "trials": 100, "differ": 40},
        {"folder": "single", "method": "bo-ei-m", "file": "b", "machine": "unknown",
         "exact": False, "trials": 100, "differ": 10},
        {"folder": "single", "method": "rs", "file": "c", "machine": "unknown",
         "exact": True, "trials": 100, "differ": 0},
        {"folder": "pareto_arms", "method": "bo-m", "file": "d", "machine": here,
         "trials": 20, "differ": 0},
    ]  # fmt: skip
    (tmp_path / "benchmarks" / speed.PORTABILITY_RESULTS_FILE).write_text(
        json.dumps(
            {
                "machine": here,
                "runs": runs,
                "frames": [{"file": "g", "equal": True}, {"file": "h", "equal": False}],
                "missing": ["x"],
                "claims": [
                    {
                        "id": "c1",
                        "chapter": "03",
                        "book": "1.2 [1.1, 1.3]",
                        "other": "1.1",
                        "book_ci": [1.152, 1.25],
                        "other_ci": [None, None],
                        "book_verdict": "reproduced",
                        "other_verdict": "not testable",
                    },
                    {
                        "id": "c2",
                        "chapter": "02",
                        "book": "9.6",
                        "other": "9.9",
                        "book_verdict": "reproduced",
                        "other_verdict": "reproduced",
                    },
                ],
            }
        )  # fmt: skip
    )
    c = speed.portability_claims()
    assert list(c.index) == ["c1"] and c.attrs["values"] == 2
    assert c.loc["c1", "verdict"] == "reproduced" and c.loc["c1", "its verdict"] == "not testable"
    assert c.loc["c1", "book [95% CI]"] == "[1.15, 1.25]"
    assert c.loc["c1", "other CPU [95% CI]"] == "-"
    p = speed.portability_results()
    assert list(p.columns) == [
        "folder", "method", "computed on", "exact", "runs", "trials", "other rows", "share"
    ]  # fmt: skip
    got = {(r.folder, r.method, r._3, r.exact): (r.runs, r._7, r.share) for r in p.itertuples()}
    assert got == {
        ("pareto_arms", "bo-m", "this CPU", "?"): (1, 0, "0.0 %"),  # no declaration stored
        ("single", "bo-ei-m", "not recorded", "no"): (1, 10, "10.0 %"),
        ("single", "bo-ei-m", "openblas-SkylakeX", "no"): (1, 40, "40.0 %"),
        ("single", "rs", "not recorded", "yes"): (1, 0, "0.0 %"),
    }
    by_exact = speed.portability_results(by=("exact",)).set_index("exact")
    assert by_exact.loc["no", "trials"] == 200 and by_exact.loc["no", "share"] == "25.0 %"
    with pytest.raises(ValueError, match="group by some of"):
        speed.portability_results(by=("task",))
    assert p.attrs == {
        "machine": here, "trials": 320, "other": 50, "frames": 2, "frames_equal": 1,
        "missing": 1,
    }  # fmt: skip


def test_benchmark_output_reads_the_stored_text(tmp_path, monkeypatch):
    import nmthpo.studies.grids as grids

    monkeypatch.setattr(grids, "results_dir", lambda: tmp_path)
    assert "not run" in speed.benchmark_output("bench_dask")
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "bench_dask.txt").write_text("identical rows: 8 of 8 runs\n\n")
    assert speed.benchmark_output("bench_dask") == "identical rows: 8 of 8 runs"


def test_bench_cost_targets_block_is_read_by_the_appendix(tmp_path, monkeypatch):
    import importlib.util

    import nmthpo.studies.grids as grids
    from tests.paths import ROOT

    spec = importlib.util.spec_from_file_location(
        "bench_cost", ROOT / "benchmarks" / "bench_cost.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    ms = {"bo-ei-m": [4.0, 30.0], "gb-eif-m": [2.0, 1.0], bench.BASELINE: [5.0, 10.0]}
    block = bench.targets([10, 700], ms)
    monkeypatch.setattr(grids, "results_dir", lambda: tmp_path)
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "bench_cost.txt").write_text("table\n" + block + "\n")
    t = speed.speed_targets("bench_cost")
    assert len(t) == 2  # bo-m was not timed: no row
    bo, gb = (
        t.loc[f"{m} / TPE, ms per suggestion (largest ratio over n)"]
        for m in ms
        if m != bench.BASELINE
    )
    assert bo["ratio"] == 3.0 and bo["met"] == "no" and "> 1 at n = 700" in bo["measured"]
    assert gb["ratio"] == 0.4 and gb["met"] == "yes" and ">" not in gb["measured"]


def test_targets_block_is_what_speed_targets_reads(tmp_path, monkeypatch):
    import nmthpo.studies.grids as grids

    monkeypatch.setattr(grids, "results_dir", lambda: tmp_path)
    (tmp_path / "benchmarks").mkdir()
    block = speed.targets_block([("a, b", ">= 30x", "1 s / 2 s", 2.0, "no")])
    assert block.splitlines()[:2] == ["", "== targets"] and block.endswith("== end")
    (tmp_path / "benchmarks" / "bench_x.txt").write_text("out\n" + block + "\n")
    t = speed.speed_targets("bench_x")
    assert t.loc["a, b"].tolist() == [">= 30x", "1 s / 2 s", 2.0, "no"]


def test_a_small_share_is_not_printed_as_zero():
    assert speed._share(3, 14060) == "0.02 %"
    assert speed._share(0, 10) == "0.0 %" and speed._share(1, 3) == "33.3 %"
    assert speed._share(0, 0) == "–"
