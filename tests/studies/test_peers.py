"""Chapter 9's tables (nmthpo.studies.peers) on small runs of the book's methods."""

import numpy as np
import pandas as pd
import pytest

import nmthpo
from nmthpo.benchmark.tables import load_table
from nmthpo.engine.runner import RunResult
from nmthpo.studies import grids, peers

TASKS = ("zh-en", "ru-en", "ja-en", "en-ja", "so-en")
METHODS = ("rs", "bo-ei-m", "gb-eif-m")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    cache = tmp_path_factory.mktemp("peers")
    out = []
    for t in TASKS:
        for m in METHODS:
            r = nmthpo.run(
                m,
                t,
                trials=4,
                budget=30,
                stop="none",
                record_time=True,
                cache_dir=cache,
                progress=False,
            )
            out.append(RunResult(r.spec, r.frame, peers.display_name(m)))
    return out


def test_display_names_are_short_and_distinct():
    assert peers.display_name("optuna:TPESampler") == "optuna-tpe"
    assert peers.display_name("optuna:TPESampler", {"n_startup_trials": 3}) == "optuna-tpe-3"
    assert peers.display_name("bo-ei-m") == "bo-ei-m"
    names = [
        peers.display_name(m, v)
        for n in ("peers", "peers_startup", "peers_costly")
        for v in grids.RUN_GRIDS[n].variants
        for m in grids.RUN_GRIDS[n].methods
    ]
    assert len(names) == len(set(names))
    assert all(len(n) <= 16 for n in names)


def test_the_grids_cover_every_library_and_the_book_methods():
    methods = {
        m for n in ("peers", "peers_startup", "peers_costly") for m in grids.RUN_GRIDS[n].methods
    }
    assert {peers.library_of(m) for m in methods} == {"nmthpo", *peers.LIBRARIES.values()}
    assert set(peers.BOOK_METHODS) <= methods
    for n in ("peers", "peers_startup", "peers_costly"):
        g = grids.RUN_GRIDS[n]
        assert g.options == grids.PEERS_OPTIONS and g.tasks == grids.NMTHPO_TASKS
        assert g.options["budget"] >= max(peers.BUDGETS)
    assert grids.RUN_GRIDS["peers"].trials >= 20


def test_library_versions_are_read_from_the_locks():
    v = peers.library_versions()
    assert set(v) == set(peers.LIBRARIES.values())
    assert all(x != "-" for x in v.values()), v


def test_regret_is_the_gap_to_the_oracle_best(runs):
    reg = peers.regret_frame(runs, budgets=(10, 30))
    assert len(reg) == len(runs) * 4 * 2
    r = runs[1]
    bleu = load_table(r.spec.task).bleu
    seq = r.sequences[2]
    got = reg.query("method == 'bo-ei-m' and task == @r.spec.task and trial == 2")
    want = [bleu.max() - bleu[seq[:b]].max() for b in (10, 30)]
    assert np.allclose(got.sort_values("budget")["regret"], want)
    # more evaluations never increase the regret
    wide = reg.pivot_table(index=["method", "task", "trial"], columns="budget", values="regret")
    assert (wide[30] <= wide[10]).all()
    pooled = peers.pooled_regret(reg)
    assert (pooled["ci_low"] <= pooled["mean"]).all() and (
        pooled["mean"] <= pooled["ci_high"]
    ).all()
    assert set(pooled["n"]) == {len(TASKS) * 4}


def test_rankings_and_the_leader_verdicts(runs):
    ranked = peers.rankings(runs, metrics=["regret@10", "ftb"])
    assert set(ranked) == {"regret@10", "ftb"}
    assert set(ranked["ftb"].ranks.index) == {peers.display_name(m) for m in METHODS}
    table = peers.leader_table(ranked, book=("rs", "bo-ei-m"))
    assert list(table["metric"]) == ["regret@10", "ftb"]
    assert set(table["best library method"]) == {"gb-eif-m"}  # the only non-book method here
    from nmthpo.engine.stats import INTERVAL_COLUMNS

    lo, hi = (table[c] for c in INTERVAL_COLUMNS)
    assert ((lo <= table["difference"]) & (table["difference"] <= hi)).all()
    # a verdict that leads or trails has its interval on that side of 0
    sided = table["verdict"].isin(["leads", "behind"])
    assert ((lo[sided] > 0) | (hi[sided] < 0)).all()
    assert set(table["verdict"]) <= {
        "leads",
        "behind",
        "no difference",
        "not testable",
        "not tested",
    }


def test_cost_per_suggestion(runs):
    cost = peers.cost_frame(runs)
    assert cost["observations"].min() == 3 and cost["observations"].max() == 29
    assert len(cost) == len(runs) * 4 * 27
    table = peers.cost_table(cost, reference="rs", sizes=(10, 29))
    assert list(table.columns) == [
        "ms at 10 obs.",
        "ms at 29 obs.",
        "ms (median)",
        "x rs",
        "exponent",
    ]
    assert table.loc["rs", "x rs"] == pytest.approx(1.0)


def test_cost_exponent_recovers_a_power_law():
    n = np.arange(10, 101)
    frame = pd.DataFrame({"method": "cubic", "observations": n, "seconds": 1e-6 * n**3.0})
    assert peers.cost_exponent(frame)["cubic"] == pytest.approx(3.0)
    flat = frame.assign(method="flat", seconds=0.01)
    assert peers.cost_exponent(flat)["flat"] == pytest.approx(0.0, abs=1e-12)


def test_a_run_without_seconds_is_refused(runs):
    r = runs[0]
    with pytest.raises(ValueError, match="records no seconds"):
        peers.cost_frame([RunResult(r.spec, r.frame.drop(columns="seconds"), "x")])


def test_paired_effect_of_one_planned_comparison(runs):
    reg = peers.regret_frame(runs, budgets=(10, 30))
    eff = peers.paired_effect(reg, "bo-ei-m", "rs", budgets=(10, 30))
    assert list(eff["budget"]) == [10, 30] and set(eff["pairs"]) == {len(TASKS) * 4}
    at30 = reg[reg["budget"] == 30].pivot_table(
        index=["task", "trial"], columns="method", values="regret"
    )
    assert eff["difference"].iloc[1] == pytest.approx((at30["bo-ei-m"] - at30["rs"]).mean())
    assert (eff["ci_low"] <= eff["difference"]).all() and (
        eff["difference"] <= eff["ci_high"]
    ).all()
    assert (eff["p (Holm)"] >= eff["p"]).all()
    assert set(eff["verdict"]) <= {"bo-ei-m lower", "rs lower", "no difference"}
    same = peers.paired_effect(reg, "rs", "rs", budgets=(10,))
    assert same["verdict"].iloc[0] == "no difference" and same["p"].iloc[0] == 1.0
    with pytest.raises(ValueError, match="no runs"):
        peers.paired_effect(reg, "bo-ei-m", "nope", budgets=(10,))
