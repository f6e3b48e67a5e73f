"""Tests for nmthpo.studies.ganapathy.tables (and genetic_rules): rule fits, verdicts, the protocol
comparison, the cache."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import nmthpo.studies.ganapathy.tables as ga
from nmthpo.engine.cache import seal_sidecar
from nmthpo.engine.stats import check_claims_table
from nmthpo.studies.ganapathy.tables import (
    baseline_expectation,
    ga_study,
)


# -- Chapter 5 helpers: rule fits, verdicts, protocol comparison, cache -------------------------
def test_baseline_rule_table_by_hand():
    t = ga.baseline_rule_table(init_pops=(5,))
    mu, var = baseline_expectation(150, 7, 5)
    row = t.loc["draws with replacement (pinned)"]
    assert row["5"] == pytest.approx(mu) and mu == pytest.approx(21.874, abs=1e-3)
    assert row["chi2"] == pytest.approx((21.425 - mu) ** 2 / (var / 3000))
    trials = ga.PAPER_BASELINE_TRIALS[5]
    assert row["chi2_trials"] == pytest.approx(sum((v - mu) ** 2 / (var / 1000) for v in trials))
    assert row["dof"] == 1 and row["dof_trials"] == 3
    full = ga.baseline_rule_table()
    assert full.loc["draws with replacement (pinned)", "p"] > 0.5
    assert full.loc["distinct rows throughout (no re-draws)", "p"] < 1e-6
    assert full.loc["distinct rows throughout (no re-draws)", "5"] == pytest.approx(
        baseline_expectation(150, 7, 5, False, False)[0]
    )
    with pytest.raises(ValueError, match="sizes"):
        ga.baseline_rule_table(init_pops=(7,))


def test_ga_rule_table_matches_the_study():
    t = ga.ga_rule_table(
        init_pops=(5,),
        iterations=20,
        trials=1,
        alternatives={"pinned": {}, "no mutants": {"count_mutants": "none"}},
    )
    s = ga_study(init_pops=(5,), iterations=20, trials=1)
    assert t.loc["pinned", "5"] == pytest.approx(s.average("ga")[5])
    # sigma of (paper - ours): our se and that of the paper's 3000 counts (sqrt(2) se at 3000)
    z = (ga.PAPER_GA[5] - s.average("ga")[5]) / ga.paper_sigma(s.std_error("ga")[5], 20)
    assert t.loc["pinned", "5 z"] == pytest.approx(z)
    assert t.loc["pinned", "chi2"] == pytest.approx(z**2)
    assert list(t.index) == ["pinned", "no mutants"]


def test_paper_comparison_cells_and_verdicts():
    s = ga_study(init_pops=(5, 10), iterations=40, trials=2, seed=1)
    c = ga.paper_comparison(s, "ga", k=2.0)
    per = s.per_trial("ga")
    assert c.loc[5, "trial 2"] == pytest.approx(per.loc[5, "trial 2"])
    assert c.loc[10, "trial 1 paper"] == ga.PAPER_GA_TRIALS[10][0]
    assert c.loc[10, "paper sd trial"] == pytest.approx(np.std(ga.PAPER_GA_TRIALS[10], ddof=1))
    assert c.loc[5, "average"] == pytest.approx(s.average("ga")[5])
    sigma = ga.paper_sigma(s.std_error("ga")[5], 80)
    z = (ga.PAPER_GA[5] - s.average("ga")[5]) / sigma
    assert c.loc[5, "z"] == pytest.approx(z)
    assert c.loc[5, "verdict"] == ("reproduced" if abs(z) <= 2 else "not reproduced")
    assert c.loc[5, "95% CI low"] == pytest.approx(s.average("ga")[5] - 2 * sigma)
    assert c.loc[5, "95% CI high"] == pytest.approx(s.average("ga")[5] + 2 * sigma)
    check_claims_table(c)
    # the default k is the 95 % normal quantile; the verdict follows from the interval
    c95 = ga.paper_comparison(s, "baseline")
    check_claims_table(c95)
    for m in (5, 10):
        lo, hi = c95.loc[m, "95% CI low"], c95.loc[m, "95% CI high"]
        assert hi - lo == pytest.approx(2 * 1.96 * ga.paper_sigma(s.std_error("baseline")[m], 80))
        inside = lo <= ga.PAPER_BASELINE[m] <= hi
        assert c95.loc[m, "verdict"] == ("reproduced" if inside else "not reproduced")
    d = ga.paper_comparison(s, "difference")
    assert d.loc[10, "average"] == pytest.approx(s.difference()[10])
    assert d.loc[10, "se"] == pytest.approx(s.difference_se()[10])
    assert "trial 1" not in d.columns
    with pytest.raises(ValueError, match="which"):
        ga.paper_comparison(s, "table 5")


def test_protocol_comparison_paired_by_trial():
    per = pd.DataFrame(
        {
            "method": ["ga"] * 3 + ["rs"] * 3,
            "task": ["zh-en"] * 6,
            "trial": [0, 1, 2] * 2,
            "ftb": [10.0, 20.0, 30.0, 14.0, 22.0, 36.0],
        }
    )
    c = ga.protocol_comparison(per)
    row = c.loc[("zh-en", "rs")]
    d = np.array([4.0, 2.0, 6.0])
    assert row["ga"] == 20.0 and row["other"] == 24.0 and row["difference"] == 4.0
    assert row["se"] == pytest.approx(d.std(ddof=1) / np.sqrt(3))
    assert row["z"] == pytest.approx(4.0 / row["se"])
    with pytest.raises(ValueError, match="not in the frame"):
        ga.protocol_comparison(per, method="bo-ei-m")
    with pytest.raises(ValueError, match="lacks column"):
        ga.protocol_comparison(per, metric="fb")


def test_cached_table_recomputes_identically_and_reads_back(tmp_path):
    kw = dict(
        init_pops=(5,),
        iterations=15,
        trials=1,
        with_se=True,
        variants={"paper": {}, "two-point crossover": {"two_point": True}},
    )
    first = ga.cached_table("variants", cache_dir=tmp_path, **kw)
    direct = ga.variant_table(**kw)
    pd.testing.assert_frame_equal(first, direct)
    # two worker processes: the same table, and jobs is not part of the key (read back)
    pd.testing.assert_frame_equal(ga.variant_table(**kw, jobs=2), direct)
    pd.testing.assert_frame_equal(
        ga.cached_table("variants", cache_dir=tmp_path, jobs=2, **kw), direct
    )
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == 2 and files[0].endswith(".json") and files[1].endswith(".parquet")

    # a second call (defaults spelled out: the same key) reads the file back: poison it (and
    # record the poisoned file's checksum in its sidecar) to see
    parquet = tmp_path / files[1]
    (direct * 0).to_parquet(parquet)
    side = tmp_path / files[0]
    rec = json.loads(side.read_text())
    rec.pop("checksum")
    seal_sidecar(parquet, rec)  # a seal of the poisoned file, as a writer would make it
    again = ga.cached_table("variants", cache_dir=tmp_path, seed=0, target=16.0, **kw)
    pd.testing.assert_frame_equal(again, direct * 0)
    fresh = ga.cached_table("variants", cache_dir=tmp_path, use_cache=False, **kw)
    pd.testing.assert_frame_equal(fresh, direct)  # computed, the poisoned file ignored
    assert len(list(tmp_path.iterdir())) == 2
    with pytest.raises(ValueError, match="unknown kind"):
        ga.cached_table("tables", cache_dir=tmp_path)
    with pytest.raises(TypeError, match="bad parameters"):
        ga.cached_table("rules", cache_dir=tmp_path, nonsense=1)
