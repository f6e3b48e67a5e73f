import numpy as np
import pandas as pd
import pytest

from nmthpo.benchmark.tables import load_table
from nmthpo.engine.runner import run
from nmthpo.studies.zhang_duh.single_objective import (
    anytime_curves,
    average_rank,
    benchmark_report,
    best_gb_beats_best_bo,
    curve_summary,
    ecdf_summary,
    graph_settings,
    grid_wall_time,
    mean_table,
    per_trial_metrics,
    rs_expectation,
    rs_table_fraction,
    runtime_ecdf,
    table3,
    tolerance_for,
    weakest,
)


def _frame(seqs):
    rows = [(t, s + 1, r) for t, seq in enumerate(seqs) for s, r in enumerate(seq)]
    return pd.DataFrame(rows, columns=["trial", "step", "row"])


@pytest.fixture(scope="module")
def runs():
    return {
        (m, t): run(m, t, trials=6, seed=0, progress=False).frame
        for m in ("rs",)
        for t in ("zh-en", "en-ja")
    }


def test_tolerance_footnote_17():
    assert tolerance_for("en-ja") == 1.0 and tolerance_for("zh-en") == 0.5
    bleu = load_table("en-ja").bleu
    top2 = np.sort(bleu)[-2:]
    assert top2[1] - top2[0] > 0.5  # the footnote's reason


def test_table3_cells_and_attrs(runs):
    per = per_trial_metrics(runs, ties="value")
    t3 = table3(per)
    assert t3.shape == (6, 1) and t3.attrs["ties"] == "value"
    m = per[(per.task == "zh-en")]["ftb"]
    assert t3.loc[("zh-en", "ftb"), "rs"] == f"{m.mean():.1f} ± {m.std(ddof=0):.1f}"
    assert mean_table(per, "ftb").index.tolist() == ["zh-en", "en-ja"]


def test_anytime_curves_pad_and_quantiles():
    table = load_table("zh-en")
    best = int(table.first_best_row)
    other = [r for r in range(118) if r not in table.best_rows][:4]
    frame = _frame([[*other[:3], best], other[:4]])
    frame["mse"] = 1.0
    c = anytime_curves(frame, "zh-en", length=6)
    assert c["best_q50"].iloc[-1] <= table.best_bleu
    assert c["mse_trials"].tolist() == [2, 2, 2, 2, 0, 0]
    assert np.isnan(c["mse_q50"].iloc[-1])


def test_ecdf_and_rank_hand_example():
    table = load_table("zh-en")
    best = int(table.first_best_row)
    worst = int(np.argmin(table.bleu))
    rest = [r for r in range(118) if r not in (best, worst)][:2]
    fast = _frame([[best, worst, *rest]])
    slow = _frame([[worst, *rest, best]])
    runs = {("a", "zh-en"): fast, ("b", "zh-en"): slow}
    e = runtime_ecdf(runs, deltas=(0.0,), grid=np.array([3, 4]))
    got = e.set_index(["method", "budget"])["fraction"].to_dict()
    assert got == {("a", 3): 1.0, ("a", 4): 1.0, ("b", 3): 0.0, ("b", 4): 1.0}
    r = average_rank(runs, length=4)
    assert r["a"].tolist() == [1.0, 1.0, 1.0, 1.5] and r["b"].tolist() == [2.0, 2.0, 2.0, 1.5]


def test_table3_interval_cells(runs):
    per = per_trial_metrics(runs, ties="value")
    t3 = table3(per, cell="interval")
    cell = t3.loc[("zh-en", "ftb"), "rs"]
    m = per[(per.task == "zh-en")]["ftb"]
    assert cell.startswith(f"{m.mean():.1f} [") and cell.endswith("]")
    fb = per[per.task == "zh-en"].fb.mean()
    assert t3.loc[("zh-en", "fb"), "rs"].split(" ")[0] == f"{fb:.2f}"
    with pytest.raises(ValueError, match="cell"):
        table3(per, cell="nope")


def _hand_trials(values):
    """A per-trial frame from {(method, task): per-trial ftb}."""
    rows = [
        {"method": m, "task": t, "trial": i, "ftb": v, "ftc": v, "fb": 0.0}
        for (m, t), vs in values.items()
        for i, v in enumerate(vs)
    ]
    f = pd.DataFrame(rows)
    f.attrs.update(ties="value", budget=20, n_init=3)
    return f


def test_statistics_on_hand_made_trials():
    rng = np.random.default_rng(0)
    shared = rng.normal(0, 3, 40)  # a trial effect all methods share (initial rows)
    n = {t: load_table(t).n_rows for t in ("zh-en", "ja-en", "en-ja")}
    v = {("rs", t): n[t] / 2 + 5 * shared for t in n}
    v[("bo-ei-m", "en-ja")] = 60 + shared
    v[("gb-ei-m", "en-ja")] = 22 + shared  # a win on en-ja
    v[("bo-ei-m", "ja-en")] = 30 + shared
    v[("gb-ei-m", "ja-en")] = 35 + shared  # a loss on ja-en
    per = _hand_trials(v)
    frac = rs_table_fraction(per)
    assert set(frac.parts) == {"ja-en", "en-ja"}  # zh-en's tied best rows are left out
    assert all(abs(e.value - 0.5) < 0.05 for e in frac.parts.values())
    assert "left out (tied best rows): zh-en" in frac.note
    wins = best_gb_beats_best_bo(per[per.task != "zh-en"])
    assert wins.text == "1 of 2" and (wins.low, wins.high) == (1.0, 1.0)
    expectation = rs_expectation(per)
    assert set(expectation.parts) == set(n) and expectation.quantity == "ratio"


def test_weakest_part_is_shown():
    from nmthpo.engine.claims import Estimate

    parts = {
        "a": Estimate(1.0, 0.5, 1.5, quantity="ratio"),
        "b": Estimate(0.2, -0.1, 0.4, quantity="ratio"),
    }
    e = weakest(parts, lambda x: -x.low, "what")
    assert (e.value, e.low, e.high) == (0.2, -0.1, 0.4) and e.shown() == "0.20 (b)"
    assert "a: 1.00 [0.50, 1.50]" in e.note and e.parts == parts
    assert np.isnan(weakest({}, lambda x: 0.0).value)


def test_graph_settings_follow_footnote_12():
    g = graph_settings(["zh-en", "ja-en"])
    assert g.loc["zh-en", "k"] == 13 and g.loc["ja-en", "k"] == 16
    assert (abs(g["mean degree"] - g["n/7"]) < 5).all()


def test_curve_and_ecdf_summaries():
    c = pd.DataFrame({"step": [1, 2], "best_q50": [1.0, 2.0], "mse_q50": [0.5, 0.25]})
    s = curve_summary({"a": c}, steps=(2,))
    assert s.loc["a", "best@2"] == 2.0 and s.loc["a", "mse@2"] == 0.25
    e = pd.DataFrame({"method": ["a", "a"], "budget": [3, 10], "fraction": [0.5, 1.0]})
    assert ecdf_summary(e, budgets=(2, 5, 10)).loc["a"].tolist() == [0.0, 0.5, 1.0]


def test_stored_reports_and_timings(tmp_path, monkeypatch):
    import nmthpo.studies.grids as grids

    monkeypatch.setattr(grids, "results_dir", lambda: tmp_path)  # the book's results/
    assert "make bench" in benchmark_report("bench_gp")
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "bench_gp.txt").write_text("ratio 12x\n")
    assert benchmark_report("bench_gp") == "ratio 12x"
    assert grid_wall_time("single").empty
    (tmp_path / "timings.json").write_text('{"single": {"rs zh-en abc": 1.5, "rs ja-en d": 2}}')
    t = grid_wall_time("single")
    assert t.loc["total", "total"] == 4 and t.loc["rs", "zh-en"] == 2
