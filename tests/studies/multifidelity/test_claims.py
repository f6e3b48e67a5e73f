"""Chapter 7's records (nmthpo.studies.multifidelity.claims): one statement of Zhang & Duh
(2024), the definition of the optimal fields of their data release, is a claim; every
comparison of methods is a finding of ours (an interval, no verdict, never counted); the
published run gives the expected values, and a reduced run says what it lacks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nmthpo.engine.claims import evaluate, evaluate_findings
from nmthpo.studies import grids
from nmthpo.studies.multifidelity import claims as mc


def test_records_are_well_formed() -> None:
    (claim,) = mc.CLAIMS  # the data release's definition; the comparisons are findings
    assert claim.paper == "zhang-duh-2024" and claim.id.startswith("zd24.")
    assert claim.yardstick and claim.statistic is not None
    ids = [f.id for f in mc.FINDINGS]
    assert len(ids) == len(set(ids)) and all(i.startswith("mf.") for i in ids)
    assert all(f.chapter == "07_multifidelity" and f.statement for f in mc.FINDINGS)


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for task in ("lc-finetune-zh-en", "lc-scratch-ru-en"):
        for m, shift in (("rs", 1.0), ("sh", 0.2), ("sh-upstream", 2.0)):
            for t in range(12):
                rows.append(
                    {
                        "method": m,
                        "task": task,
                        "trial": t,
                        "budget": 100,
                        "regret": shift + 0.1 * rng.random(),
                    }
                )
    return pd.DataFrame(rows)


def test_findings_on_a_planted_frame() -> None:
    ev = mc.evidence_for(_frame())
    scope = mc.scope_for(
        ["lc-finetune-zh-en"],
        ["lc-scratch-ru-en"],
        ["rs", "sh", "sh-upstream"],
        ["rs", "sh", "sh-upstream"],
        12,
    )
    f = evaluate_findings(mc.FINDINGS, ev, scope).reset_index().set_index("id")
    assert "verdict" not in f.columns
    assert f.loc["mf.sh-beats-rs.finetune", "ours"] == "1 of 1 tasks"
    assert f.loc["mf.upstream-budget", "ours"] == "2 of 2 tasks"
    diff = f.loc["mf.sh-vs-rs.finetune-zh-en"]
    lo, hi = (float(x) for x in diff["95% CI"].strip("[]").split(","))
    assert 0.6 < lo < hi < 1.0  # planted difference 0.8
    # tasks not in the run: the statistic is not computed, the reason is given
    assert f.loc["mf.sh-vs-rs.scratch-sw-en", "ours"] == "-"
    assert "lc-scratch-sw-en" in f.loc["mf.sh-vs-rs.scratch-sw-en", "note"]
    assert f.loc["mf.upstream-all", "95% CI"] == "no interval"  # upstream not run


def test_reduced_run_says_what_it_lacks() -> None:
    ev = mc.evidence_for(_frame())
    scope = mc.scope_for(["lc-finetune-zh-en"], [], ["rs"], [], 3)
    f = evaluate_findings(mc.FINDINGS, ev, scope).reset_index().set_index("id")
    note = f.loc["mf.sh-beats-rs.finetune", "note"]
    assert "needs method(s) sh" in note and "needs at least 10 trials, the run has 3" in note
    assert (f["ours"] == "-").sum() >= len(mc.FINDINGS) - 1


def test_published_findings() -> None:
    if not grids.book_dir("multifidelity").exists():
        pytest.skip("results/multifidelity not computed")
    ev, scope = mc.published_evidence()
    claims = evaluate(mc.CLAIMS, ev, scope, ledger=True)
    assert list(claims["verdict"]) == ["reproduced"]
    assert claims["ci_low"].iloc[0] == claims["ci_high"].iloc[0] == 1.0  # exact
    f = evaluate_findings(mc.FINDINGS, ev, scope).reset_index().set_index("id")
    assert f.loc["mf.sh-beats-rs.finetune", "ours"] == "2 of 2 tasks"
    assert f.loc["mf.sh-beats-rs.scratch", "ours"] == "6 of 6 tasks"
    assert f.loc["mf.upstream-all", "ours"] == "8 of 8 tasks"
    for task in ("finetune-fr-en", "finetune-zh-en", "scratch-sw-en"):
        ci = f.loc[f"mf.sh-vs-rs.{task}", "95% CI"]
        assert ci != "no interval" and float(ci.strip("[]").split(",")[0]) > 0
