"""Tests of nmthpo.studies.li_transbo.study: the Chapter 4 grid, its read-back, its tables and the
overhead experiment (the claims are tested in test_claims.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nmthpo.benchmark.tables import load_table
from nmthpo.engine import runner
from nmthpo.studies.li_transbo import designs
from nmthpo.studies.li_transbo import study as chapter
from nmthpo.studies.li_transbo.study import (
    CHAPTER_GRID,
    ChapterSetting,
    curve_fluctuation,
    dynamic_table,
    load_setting,
    missing_runs,
    paper_table1_shares,
    rank_table,
    setting_specs,
    weight_summary,
)


def _frame(curves, target="zh-en", weights=None):
    """curves: {method: [[bleu per step] per rep]} -> a tidy frame like the runner's."""
    parts = []
    for m, reps in curves.items():
        for r, vals in enumerate(reps):
            n = len(vals)
            w = np.full(n, np.nan) if weights is None else np.asarray(weights[m][r], float)
            parts.append(
                pd.DataFrame(
                    {
                        "method": m,
                        "target": target,
                        "rep": r,
                        "step": np.arange(1, n + 1),
                        "bleu": vals,
                        "target_weight": w,
                        "seconds": np.ones(n),
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)


@pytest.mark.parametrize("name", list(CHAPTER_GRID))
def test_setting_specs_are_the_runners_specs(name, monkeypatch):
    seen = []

    def fake(specs, repeats, jobs, cache_dir, progress):
        seen.extend(specs)
        return [runner.RunResult(s, _frame({s.method: [[1.0]]}, s.target)) for s in specs]

    monkeypatch.setattr(designs, "run_specs", fake)
    chapter._run(name, 1, None, 1, None, False)
    assert [s.stem() for s in seen] == [s.stem() for s in setting_specs(name)]


def test_grid_is_valid_and_shares_the_last_dynamic_task():
    for name in CHAPTER_GRID:
        for s in setting_specs(name):
            s.validate()  # budget and n_source fit every table
            assert s.budget == 50 and s.n_source == 50
    static = {s.stem() for s in setting_specs("static5")}
    dyn = setting_specs("dynamic")
    assert len(dyn) == 5 * 4  # positions 2..6, four methods
    assert {s.stem() for s in dyn if s.target == "so-en"} <= static
    assert all(len(s.sources) == 2 for s in setting_specs("static2"))
    assert [s.sources for s in setting_specs("nmtlc") if s.method == "rs"] == [
        ("lc-finetune-fr-en",),
        ("lc-finetune-zh-en",),
    ]
    with pytest.raises(KeyError, match="valid"):
        setting_specs("nope")


def test_load_setting_refuses_to_compute_a_missing_cache(tmp_path):
    assert len(missing_runs("ablation", cache_dir=tmp_path)) == 4 * 6
    with pytest.raises(FileNotFoundError, match="compute_chapter4"):
        load_setting("ablation", cache_dir=tmp_path)


@pytest.mark.slow
def test_compute_then_read_back(tmp_path, monkeypatch):
    tiny = {"ablation": ChapterSetting("static", ("tst-ms", "pogpe-ms"), ("zh-en",), None, 2)}
    monkeypatch.setattr(chapter, "CHAPTER_GRID", tiny)
    chapter.compute_chapter4(jobs=1, repeats=1, cache_dir=tmp_path)
    assert missing_runs("ablation", cache_dir=tmp_path) == []
    with pytest.raises(FileNotFoundError, match="2 repetitions"):
        load_setting("ablation", cache_dir=tmp_path)  # the setting's 2 > the 1 computed
    back = load_setting("ablation", repeats=1, cache_dir=tmp_path)
    fresh = load_setting("ablation", repeats=1, use_cache=False)
    pd.testing.assert_frame_equal(back.drop(columns="seconds"), fresh.drop(columns="seconds"))
    assert sorted(back["method"].unique()) == ["pogpe-ms", "tst-ms"]
    assert back.groupby("method")["step"].max().tolist() == [50, 50]


def test_rank_table_by_hand():
    f = pd.concat(
        [
            _frame({"a": [[5, 9]], "b": [[5, 7]], "c": [[4, 9]]}, "zh-en"),
            _frame({"a": [[1, 2]], "b": [[3, 3]], "c": [[1, 1]]}, "ru-en"),
        ]
    )
    t = rank_table(f, 2)
    # zh-en step 2: 9, 7, 9 -> 1.5, 3, 1.5; ru-en: 2, 3, 1 -> 2, 1, 3
    assert list(t.columns) == ["zh-en", "ru-en", "all"]
    assert t.loc["a", "all"] == pytest.approx(1.75)
    assert t.loc["b", "all"] == pytest.approx(2.0)
    assert t.loc["c", "all"] == pytest.approx(2.25)
    assert list(t.index) == ["a", "b", "c"]
    d = rank_table(f, 1, "adtm")
    hi, lo = load_table("zh-en").bleu.max(), load_table("zh-en").bleu.min()
    assert d.loc["c", "zh-en"] == pytest.approx((hi - 4) / (hi - lo))
    with pytest.raises(ValueError, match="step 7"):
        rank_table(f, 7)


def test_curve_fluctuation_is_total_variation():
    c = pd.DataFrame(
        {
            "method": ["a"] * 5 + ["b"] * 5,
            "step": list(range(1, 6)) * 2,
            "rank": [9, 3, 2, 1, 0, 9, 1, 3, 1, 3],
        }
    )
    fl = curve_fluctuation(c, start=2)
    assert fl["a"] == pytest.approx(3.0)  # 3 -> 2 -> 1 -> 0
    assert fl["b"] == pytest.approx(6.0)  # 1 -> 3 -> 1 -> 3


def test_weight_summary_by_hand():
    w = {"x": [[np.nan] * 3 + [0.2, 0.6, 0.4]], "y": [[np.nan] * 3 + [0.5] * 3]}
    f = _frame({"x": [[1.0] * 6], "y": [[1.0] * 6]}, weights=w)
    s = weight_summary(f, steps=(4, 6))
    assert s.loc["x", "p_T@4"] == pytest.approx(0.2)
    assert s.loc["x", "p_T@6"] == pytest.approx(0.4)
    assert s.loc["x", "mean |dp|"] == pytest.approx(0.3)
    assert s.loc["y", "mean |dp|"] == pytest.approx(0.0)
    w1 = {"x": [[np.nan, 1.0, 1.0], [np.nan, 0.5, 1.0]]}
    s1 = weight_summary(_frame({"x": [[1.0] * 3] * 2}, weights=w1), steps=(2, 3))
    assert s1.loc["x", "share p_T=1@2"] == pytest.approx(0.5)
    assert s1.loc["x", "share p_T=1@3"] == pytest.approx(1.0)


def test_paper_table1_sums():
    p = paper_table1_shares()
    assert p.loc["transbo", "paper 1st/120"] == 55
    assert p.loc["transbo", "paper 2nd/120"] == 34
    # the abstract's 22.25 of 30 tasks is the mean of TransBO's top-2 counts
    assert p.loc["transbo", "paper top2 share"] * 30 == pytest.approx(chapter.PAPER_TOP2_TRANSBO)


def test_dynamic_table_counts_places():
    f = pd.concat(
        [
            _frame({"a": [[1, 9]], "b": [[1, 8]], "c": [[2, 3]]}, "zh-en"),
            _frame({"a": [[1, 2]], "b": [[3, 3]], "c": [[3, 3]]}, "ru-en"),
        ]
    )
    t = dynamic_table(f, steps=(1, 2))
    # step 2: zh-en a 1st, b 2nd; ru-en b, c tie 1st, a 2nd
    assert t.loc["a", "1st@2"] == 1 and t.loc["a", "2nd@2"] == 1
    assert t.loc["b", "1st@2"] == 1 and t.loc["b", "2nd@2"] == 1
    assert t.loc["c", "top2 share@2"] == pytest.approx(0.5)
    assert np.isnan(t.loc["a", "paper top2 share"])


def test_top2_lead_counts_dense_places_with_ties():
    from nmthpo.studies.li_transbo.claims import place_counts, top2_lead

    methods = ["pogpe", "rgpe", "transbo", "tst"]
    # two targets; target 0: transbo 1st, rgpe and tst tie 2nd; target 1: rgpe 1st, transbo 2nd
    best = np.array([[[1.0, 2.0], [2.0, 5.0], [3.0, 4.0], [2.0, 1.0]]])  # (n=1, M, T)
    # top-2 counts: pogpe 0, rgpe 2, transbo 2, tst 1 -> lead 2 - 2 = 0
    assert top2_lead(best[None], methods).tolist() == [0.0]
    # first places: transbo 1, rgpe 1 -> lead 0
    assert top2_lead(best[None], methods, 0).tolist() == [0.0]
    first, top2 = place_counts(best[None])
    assert first.tolist() == [[0, 1, 1, 0]] and top2.tolist() == [[0, 2, 2, 1]]


def test_overhead_specs_are_the_grid_runs_with_variants():
    specs = chapter.overhead_specs()
    assert list(specs) == list(chapter.OVERHEAD_VARIANTS)
    static = {s.stem() for s in setting_specs("static5")}
    # the default variants time the very runs of the static grid (same key), in another folder
    for v in ("pogpe", "tst", "rgpe", "transbo", "scot", "igp"):
        assert specs[v].stem() in static
    assert specs["transbo, folds conditioned"].settings == {"cv_refit": False}
    assert specs["scot, refit every trial"].settings == {"refit_every": 1}
    assert specs["transbo"].stem() != specs["transbo, folds conditioned"].stem()


def _overhead_frame():
    rows = []
    for v, per_step in (("pogpe", 0.01), ("transbo", 0.05)):
        for rep in range(2):
            for st in range(1, 6):
                rows.append(
                    {
                        "variant": v,
                        "method": v,
                        "target": "zh-en",
                        "rep": rep,
                        "step": st,
                        "seconds": 0.0 if st <= 3 else per_step,
                    }
                )
    return pd.DataFrame(rows)


def test_overhead_table_and_curves_by_hand():
    f = _overhead_frame()
    t = chapter.overhead_table(f)
    assert list(t.index) == ["pogpe", "transbo"]
    assert t.loc["transbo", "seconds"] == pytest.approx(0.1)  # two suggestions of 0.05 s
    assert t.loc["transbo", "ms per suggestion"] == pytest.approx(50.0)
    assert t.loc["transbo", "/ POGPE"] == pytest.approx(5.0)
    c = chapter.overhead_variant_curves(f)
    assert list(c.columns) == ["method", "step", "cum_seconds"]
    last = c[c["step"] == 5].set_index("method")["cum_seconds"]
    assert last["pogpe"] == pytest.approx(0.02) and last["transbo"] == pytest.approx(0.1)


def test_load_overhead_reads_the_book_cache():
    from nmthpo.studies import grids

    book = grids.book_dir(chapter.OVERHEAD_FOLDER)
    if not book.is_dir():
        pytest.skip("the book's overhead experiment is not cached")
    f = chapter.load_overhead(2)
    assert set(f["variant"]) == set(chapter.OVERHEAD_VARIANTS)
    assert f.groupby("variant")["rep"].nunique().eq(2).all()
    assert (f["target"] == chapter.OVERHEAD_TARGET).all()
    assert f.groupby("variant")["step"].max().eq(chapter.BUDGET).all()
    # capped at the experiment's repetitions
    assert chapter.load_overhead(99)["rep"].nunique() == chapter.OVERHEAD_REPEATS


def test_claim_glue_and_names():
    t = pd.DataFrame(
        {
            "id": ["a.b"],
            "ours": ["1.00"],
            "95% CI low": ["0.50"],
            "95% CI high": ["1.50"],
            "verdict": ["reproduced"],
        },
        index=["s"],
    )
    g = chapter.claim_glue(t)
    assert g == {"ch4.ours.a.b": "1.00", "ch4.v.a.b": "reproduced", "ch4.ci.a.b": "[0.50, 1.50]"}
    assert chapter._ordinal(1) == "1st" and chapter._ordinal(12) == "12th"
    assert chapter._ordinal(22) == "22nd" and chapter._name("tst-ms") == "TST"
