"""Tests of the graph-discrepancy study (nmthpo.studies.graph_discrepancy), the paper-era BO
(nmthpo.optimizers.bo_mcmc), the Figure 6/8 claims and Chapter 3's table helpers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nmthpo.engine.stats import VERDICTS, check_claims_table
from nmthpo.optimizers.bo_mcmc import MarginalGPBO, metropolis
from nmthpo.optimizers.registry import make_optimizer
from nmthpo.studies import anytime_claims as ac
from nmthpo.studies import graph_discrepancy as gd
from nmthpo.studies import grids

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


def test_tables_and_bo_claim_on_a_known_gap() -> None:
    ftb = _fake_ftb()
    table = gd.arm_table(ftb)
    assert list(table.index) == ["GB-EI-M", "BO-EI-M (ours)", "RS"]
    paired = gd.paired_table(ftb, "BO-EI-M (ours)")
    assert paired.loc["GB-EI-M", "a"] == "-8.0 [-8.0, -8.0]*"
    claims = gd.bo_claims(ftb, ["GB-EI-M"], {"ours": ["BO-EI-M (ours)"]})
    check_claims_table(claims)
    row = claims.iloc[0]
    assert row["ours"] == "3 of 3 (0 ties)" and row["verdict"] in VERDICTS
    assert row["paper"] == "4 of 6 (here 2 of 3)"


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


def test_figure6_claims_and_figure8() -> None:
    rng = np.random.default_rng(0)
    n = 150  # ja-en's rows
    frames = {}
    for m in ("rs", "bo-ei-m", "gb-eif-m"):
        frames[m] = pd.DataFrame([{"trial": t, "step": s + 1, "row": int(r)}
                                  for t in range(10)
                                  for s, r in enumerate(rng.permutation(n)[:60])])
    leaders = ac.figure6_leaders(frames, "ja-en", (5, 10))
    assert list(leaders.index) == [5, 10] and "best GB minus best BO" in leaders.columns
    claims = ac.figure6_claims(frames, "ja-en", (5, 10))
    check_claims_table(claims)
    assert ac.figure8_claim().verdict == "not testable"


def test_versus_random_search_words() -> None:
    from nmthpo.studies import multiobjective_tables as mt

    runs = grids.grid_runs("pareto", ["rs", "bo-m"], ["zh-en"], trials=20)
    cells, counts = mt.versus_random_search(runs, ["bo-m"])
    assert cells.loc[("bo-m", "zh-en"), mt.METRIC_NAMES["fta"]].endswith("better")
    assert counts.loc[("bo-m", "fta"), "clear wins over RS"] == 1
    from nmthpo.studies import multiobjective as mo

    wide = mt.table4_readable(mo.table4(runs))
    assert wide.index[0][0].startswith("zh-en (n=118,") and "±" in wide.iloc[0, 0]
    assert list(wide.columns) == ["rs", "bo-m"] and len(wide) == 3


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
