"""Tests of the graph-discrepancy study (nmthpo.studies.zhang_duh.graph_discrepancy), the
paper-era BO (nmthpo.optimizers.bo_mcmc), the Figure 6 statistics
(nmthpo.studies.zhang_duh.anytime_claims) and Chapter 3's table helpers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nmthpo.benchmark.tables import load_table
from nmthpo.engine.claims import Above, AllOf, Below, Every, win_count_interval
from nmthpo.engine.stats import VERDICTS
from nmthpo.optimizers.bo_mcmc import MarginalGPBO, metropolis
from nmthpo.optimizers.registry import make_optimizer
from nmthpo.studies import grids
from nmthpo.studies.zhang_duh import anytime_claims as ac
from nmthpo.studies.zhang_duh import graph_discrepancy as gd

ROOT = Path(__file__).resolve().parents[1]


def test_metropolis_samples_a_gaussian() -> None:
    rng = np.random.default_rng(0)
    pos, acc = metropolis(lambda t: -0.5 * float(t @ t), np.zeros((200, 1)), 200, 1.0, rng)
    assert 0.3 < acc.mean() < 0.9
    assert abs(pos.mean()) < 0.2 and 0.8 < pos.std() < 1.2
    # outside the support nothing is accepted
    pos, acc = metropolis(lambda t: 0.0 if t[0] > 0 else -np.inf, np.ones((5, 1)), 50, 5.0, rng)
    assert (pos > 0).all()


def test_marginal_bo_is_registered_never_repeats_and_is_deterministic() -> None:
    rng = np.random.default_rng(1)
    X = rng.random((25, 2))
    y = -((X - 0.3) ** 2).sum(axis=1)

    def run(seed: int) -> list[int]:
        opt = make_optimizer("bo-ei-m-mcmc", X, np.random.default_rng(seed), burnin=20,
                             chain_length=5, n_hypers=3)
        assert isinstance(opt, MarginalGPBO)
        rows = [0, 1, 2]
        for r in rows:
            opt.tell(r, y[r])
        for _ in range(10):
            r = opt.ask()
            rows.append(r)
            opt.tell(r, y[r])
        assert np.isfinite(opt.predict_mean()).all() and 0 <= opt.acceptance <= 1
        return rows

    a = run(4)
    assert a == run(4) and len(set(a)) == len(a)
    with pytest.raises(ValueError, match="n_hypers"):
        MarginalGPBO(X, rng, n_hypers=0)


def test_every_arm_names_a_grid_run() -> None:
    for arm in gd.ARMS.values():
        g = grids.RUN_GRIDS[arm.experiment]
        assert arm.method in g.methods
        assert dict(arm.settings) in [dict(v) for v in g.variants], arm.label
    with pytest.raises(KeyError, match="unknown arms"):
        gd.arm_ftb(["nope"], ["zh-en"])


def test_chapter2_discrepancy_trials_are_the_grids() -> None:
    nb = json.loads((ROOT / "notebooks" / "02_single_objective.ipynb").read_text())
    cell = next(c for c in nb["cells"] if "parameters" in c["metadata"].get("tags", []))
    ns: dict[str, object] = {}
    exec("".join(cell["source"]), ns)
    for name in ("gd_labels", "gd_bo", "gd_bo_rare", "gd_gbei"):
        assert grids.RUN_GRIDS[name].trials == ns["discrepancy_trials"]
        assert set(grids.SMALL_TASKS) <= set(grids.RUN_GRIDS[name].tasks)


def _fake_ftb() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for task in ("a", "b", "c"):
        base = rng.integers(10, 50, size=30)
        for arm, shift in (("GB-EI-M", -8), ("BO-EI-M (ours)", 0), ("RS", 20)):
            for t in range(30):
                rows.append({"arm": arm, "task": task, "trial": t, "ftb": base[t] + shift})
    return pd.DataFrame(rows)


def test_tables_and_bo_recount_on_a_known_gap() -> None:
    ftb = _fake_ftb()
    table = gd.arm_table(ftb)
    assert list(table.index) == ["GB-EI-M", "BO-EI-M (ours)", "RS"]
    paired = gd.paired_table(ftb, "BO-EI-M (ours)")
    assert paired.loc["GB-EI-M", "a"] == "-8.0 [-8.0, -8.0]*"
    pairs = gd.best_pairs(ftb, ["GB-EI-M"], ["BO-EI-M (ours)"])
    assert list(pairs) == ["a", "b", "c"]
    est = win_count_interval(pairs)
    assert est.text == "3 of 3" and (est.low, est.high) == (3.0, 3.0)
    assert "a: -8.0 [-8.0, -8.0]" in gd.pairs_note(pairs, "GB - BO")
    # an arm the frame lacks is skipped, not an error
    assert gd.best_pairs(ftb, ["GB-EI-M", "nope"], ["BO-EI-M (ours)"]).keys() == pairs.keys()
    values = gd.discrepancy_values(ftb, ftb, {"ours": ["BO-EI-M (ours)"],
                                              "mcmc": ["BO-EI-M (ours)"]}, ["GB-EI-M"])
    assert values["ch2.gd.lead.ours"] == "a, b and c"
    assert values["ch2.gd.clearwin.ours"] == "a, b and c"
    assert values["ch2.gd.ties_max"] == "n/a"  # the fake frame has no labelling arms


def test_loto_pairs_hold_out_each_task() -> None:
    rng = np.random.default_rng(1)
    per = {t: {5: rng.normal(10, 1, 8), 40: rng.normal(30, 1, 8), "rule": rng.normal(20, 1, 8)}
           for t in ("zh-en", "ja-en")}
    loto = gd.loto_pairs(per, ks=(5, 40))
    assert {t: k for t, (k, _, _) in loto.items()} == {"zh-en": 5, "ja-en": 5}
    assert gd.loto_pairs({"zh-en": per["zh-en"]}, ks=(5, 40)) == {}
    est = win_count_interval({t: (a, b) for t, (_, a, b) in loto.items()})
    assert est.text == "2 of 2"


def test_k_table_marks_the_rule() -> None:
    sweep = pd.DataFrame({"method": ["m"] * 3, "task": ["t"] * 3, "k": [5, 10, 7],
                          "rule": [False, False, True], "ftb": [10.0, 20.0, 15.0],
                          "low": [9.0, 19.0, 14.0], "high": [11.0, 21.0, 16.0]})
    out = gd.k_table(sweep)
    assert list(out.columns) == ["k=5", "k=10", "rule (footnote 12)"]
    assert out.loc[("m", "t"), "rule (footnote 12)"] == "k=7: 15.0 [14.0, 16.0]"


def test_needle_table_is_the_neighbour_mean() -> None:
    from nmthpo.benchmark.tables import load_table
    from nmthpo.engine.runner import RunSpec
    from nmthpo.models.graph import build_graph

    out = gd.needle_table(["ja-en"])
    table = load_table("ja-en")
    W = build_graph(table.encode(str(RunSpec("gb-ei-m", "ja-en").encoding))).W
    b = int(np.argmax(table.bleu))
    assert out.loc[("ja-en", b), "leave-one-out prediction"] == pytest.approx(
        float(W[b] @ table.bleu / W[b].sum()), abs=0.005)


def _fig6_frames(n_trials: int = 10, steps: int = 60) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(0)
    n = 150  # ja-en's rows
    frames = {}
    for m in ("rs", "bo-ei-m", "gb-eif-m"):
        rows = []
        for t in range(n_trials):
            for s, r in enumerate(rng.permutation(n)[:steps]):
                mse = np.nan if m == "rs" else (2.0 if m.startswith("bo") else 1.0) / (s + 1)
                rows.append({"trial": t, "step": s + 1, "row": int(r), "mse": mse})
        frames[m] = pd.DataFrame(rows)
    return frames


def test_figure6_statistics() -> None:
    frames = _fig6_frames()
    leaders = ac.figure6_leaders(frames, "ja-en", (5, 10))
    assert list(leaders.index) == [5, 10] and "best GB minus best BO" in leaders.columns
    fast = ac.faster_than_rs(frames, "ja-en", (5, 10))
    assert set(fast.parts) == {"best BO at 5", "best GB at 5", "best BO at 10",
                               "best GB at 10"}
    assert fast.quantity == "bleu" and Every(Above(0.0)).judge(fast)[0] in VERDICTS
    sup = ac.gb_superior(frames, "ja-en", (5, 10))
    assert set(sup.parts) == {"5 evaluations", "10 evaluations"}
    # MSE: BO's is twice GB's at every step and falls as 1/step
    mse = ac.mse_claim_parts(frames, "ja-en", start=3, late=50)
    assert mse.parts["BO starts larger"].value == pytest.approx(2.0)
    assert mse.parts["BO decreases"].value == pytest.approx(3 / 50)
    var = float(np.var(load_table("ja-en").bleu))
    assert mse.parts["GB fits well at the start"].value == pytest.approx((1 / 3) / var)
    rule = AllOf({"GB fits well at the start": Below(1.0), "BO starts larger": Above(1.0),
                  "BO decreases": Below(1.0)})
    assert rule.judge(mse)[0] == "reproduced"
    assert ac.mse_ratio_at(frames, 20).value == pytest.approx(0.5)
    no_mse = {m: f.drop(columns="mse") for m, f in frames.items()}
    assert np.isnan(ac.mse_claim_parts(no_mse, "ja-en").value)
    assert np.isnan(ac.mse_ratio_at(no_mse, 20).value)


def test_versus_random_search_words() -> None:
    """Chapter 3's helpers (kept here since the graph-discrepancy experiments began there)."""
    from nmthpo.studies.zhang_duh import multiobjective_tables as mt

    runs = grids.grid_runs("pareto", ["rs", "bo-m"], ["zh-en"], trials=20)
    cells, counts = mt.versus_random_search(runs, ["bo-m"])
    assert cells.loc[("bo-m", "zh-en"), mt.METRIC_NAMES["fta"]].endswith("better")
    assert counts.loc[("bo-m", "fta"), "wins over RS (by mean)"] == "1 of 1"
    from nmthpo.studies.zhang_duh import multiobjective as mo

    wide = mt.table4_readable(mo.table4(runs))
    assert wide.index[0][0].startswith("zh-en (n=118,") and "[" in wide.iloc[0, 0]
    assert {"rs", "bo-m"} <= set(wide.columns) and len(wide) == 3


def test_ei_scale_multiplies_the_grf_std() -> None:
    from nmthpo.models.acquisition import expected_improvement
    from nmthpo.optimizers.graph import GraphSMBO

    rng = np.random.default_rng(2)
    X = rng.random((30, 2))
    y = X.sum(axis=1)
    opt = GraphSMBO(X, rng, acquisition="ei", ei_scale=3.0)
    for r in (0, 5, 9, 14):
        opt.tell(r, y[r])
    mean, std = opt.surrogate.posterior()
    best = y[[0, 5, 9, 14]].max()
    np.testing.assert_allclose(opt.scores(), expected_improvement(mean, 3.0 * std, best))
    with pytest.raises(ValueError, match="ei_scale"):
        GraphSMBO(X, rng, ei_scale=0.0)
