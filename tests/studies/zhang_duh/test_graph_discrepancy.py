"""Tests of the graph-discrepancy study (nmthpo.studies.zhang_duh.graph_discrepancy); the paper-era
BO is tested in tests/optimizers/test_bo_mcmc.py, the Figure 6 statistics in
test_anytime_claims.py."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from nmthpo.benchmark.tables import load_table
from nmthpo.engine.claims import win_count_interval
from nmthpo.studies import grids
from nmthpo.studies.zhang_duh import graph_discrepancy as gd
from tests.paths import ROOT


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
    values = gd.discrepancy_values(
        ftb, ftb, {"ours": ["BO-EI-M (ours)"], "mcmc": ["BO-EI-M (ours)"]}, ["GB-EI-M"]
    )
    assert values["ch2.gd.lead.ours"] == "a, b and c"
    assert values["ch2.gd.clearwin.ours"] == "a, b and c"
    assert values["ch2.gd.ties_max"] == "n/a"  # the fake frame has no labelling arms


def test_loto_pairs_hold_out_each_task() -> None:
    rng = np.random.default_rng(1)
    per = {
        t: {5: rng.normal(10, 1, 8), 40: rng.normal(30, 1, 8), "rule": rng.normal(20, 1, 8)}
        for t in ("zh-en", "ja-en")
    }
    loto = gd.loto_pairs(per, ks=(5, 40))
    assert {t: k for t, (k, _, _) in loto.items()} == {"zh-en": 5, "ja-en": 5}
    assert gd.loto_pairs({"zh-en": per["zh-en"]}, ks=(5, 40)) == {}
    est = win_count_interval({t: (a, b) for t, (_, a, b) in loto.items()})
    assert est.text == "2 of 2"


def test_k_table_marks_the_rule() -> None:
    sweep = pd.DataFrame(
        {
            "method": ["m"] * 3,
            "task": ["t"] * 3,
            "k": [5, 10, 7],
            "rule": [False, False, True],
            "ftb": [10.0, 20.0, 15.0],
            "low": [9.0, 19.0, 14.0],
            "high": [11.0, 21.0, 16.0],
        }
    )
    out = gd.k_table(sweep)
    assert list(out.columns) == ["k=5", "k=10", "rule (footnote 12)"]
    assert out.loc[("m", "t"), "rule (footnote 12)"] == "k=7: 15.0 [14.0, 16.0]"


def test_needle_table_is_the_neighbour_mean() -> None:
    from nmthpo.engine.runner import RunSpec
    from nmthpo.models.graph import build_graph

    out = gd.needle_table(["ja-en"])
    table = load_table("ja-en")
    W = build_graph(table.encode(str(RunSpec("gb-ei-m", "ja-en").encoding))).W
    b = int(np.argmax(table.bleu))
    assert out.loc[("ja-en", b), "leave-one-out prediction"] == pytest.approx(
        float(W[b] @ table.bleu / W[b].sum()), abs=0.005
    )
