"""Chapter 1's claims as records (nmthpo.studies.zhang_duh.benchmark_claims): well-formed, judged as
expected on the published run, and *not testable* (with the reason) on a reduced run."""

from __future__ import annotations

import os

import pandas as pd
import pytest

from nmthpo.engine.claims import Rule, Scope, evaluate, evaluate_findings
from nmthpo.studies.zhang_duh import benchmark_claims as bc
from tests.paths import INSTALLED, MIRROR

#: The verdicts of the published run (README of the issue: "Claims as data").
PUBLISHED = {
    "zd20.t2.oracle-best": "reproduced",
    "zd20.f4.rho-ja-en-so-en": "reproduced",
    "zd20.f4.rho-ja-en-en-ja": "reproduced",
    "zd20.f5.en-ja-embed": "not testable",  # inconclusive: #embed vs init lr
    "zd20.f5.en-ja-top-three": "not testable",  # inconclusive parts
    "zd20.f5.en-ja-embed-lr-pair": "not testable",  # inconclusive on the top-1% panel
    "zd20.f5.sw-en-bpe": "not reproduced",
}


@pytest.fixture
def with_data(monkeypatch: pytest.MonkeyPatch) -> None:
    if not os.environ.get("NMTHPO_DATA"):
        if not (INSTALLED / "datasets").is_dir():
            if not (MIRROR / "datasets").is_dir():
                pytest.skip("NMTHPO data not installed (make data)")
            monkeypatch.setenv("NMTHPO_DATA", str(MIRROR))


def test_records_are_well_formed() -> None:
    ids = [c.id for c in bc.CLAIMS] + [f.id for f in bc.FINDINGS]
    assert len(ids) == len(set(ids))
    for c in bc.CLAIMS:
        assert c.id.startswith("zd20.") and c.paper == "zhang-duh-2020"
        assert isinstance(c.rule, Rule) and c.yardstick and c.statement and c.where
        assert c.chapter == "01_benchmark" and c.statistic is not None
    assert set(PUBLISHED) == {c.id for c in bc.CLAIMS}
    # the sw-en difference is explained by the chapter's experiment, not left bare
    sw = next(c for c in bc.CLAIMS if c.id == "zd20.f5.sw-en-bpe")
    assert "top" in sw.explanation and not sw.explanation.startswith("unexplained")


def test_panel_needs_say_why() -> None:
    needs = bc.PanelNeeds(panel_task="sw-en", top=True)
    ok = bc.scope_for(["sw-en"], ["sw-en"], 0.01, 200)
    assert needs.missing(ok) is None
    why = needs.missing(bc.scope_for(["so-en"], ["so-en"], 0.05, 10))
    assert why is not None
    assert "panel of sw-en" in why and "top 5 %" in why and "bootstrap resamples" in why
    assert bc.PanelNeeds(panel_task="sw-en").missing(Scope()) == (
        "needs the Figure 5 panel of sw-en, the run analyses no task (fanova_tasks); needs at "
        "least 100 bootstrap resamples for a 95 % interval, the run has 0 (n_boot)"
    )


def test_reduced_run_is_not_testable_with_the_reason(with_data: None) -> None:
    ev = bc.compute_evidence(["ja-en"], ["ja-en"], 0.05, n_trees=4, max_depth=6, seed=0, n_boot=2)
    scope = bc.scope_for(["ja-en"], ["ja-en"], 0.05, 2)
    table = evaluate(bc.CLAIMS, ev, scope)
    assert (table["verdict"] == "not testable").all()
    notes = table.set_index("id")["note"]
    assert "needs 6 tasks" in notes["zd20.t2.oracle-best"]
    assert "so-en" in notes["zd20.f4.rho-ja-en-so-en"]
    assert "panel of sw-en" in notes["zd20.f5.sw-en-bpe"]
    assert "top 5 %" in notes["zd20.f5.en-ja-top-three"]
    assert (table["ours"] == "-").all()  # no statistic computed for an untestable claim
    found = evaluate_findings(bc.FINDINGS, ev, scope)
    assert (found["ours"] == "-").all()


@pytest.fixture(scope="module")
def published() -> tuple[pd.DataFrame, pd.DataFrame]:
    if not (
        os.environ.get("NMTHPO_DATA")
        or (MIRROR / "datasets").is_dir()
        or (INSTALLED / "datasets").is_dir()
    ):
        pytest.skip("NMTHPO data not installed (make data)")
    mp = pytest.MonkeyPatch()
    if not os.environ.get("NMTHPO_DATA") and (MIRROR / "datasets").is_dir():
        mp.setenv("NMTHPO_DATA", str(MIRROR))
    try:
        ev, scope = bc.published_evidence()
        return (evaluate(bc.CLAIMS, ev, scope), evaluate_findings(bc.FINDINGS, ev, scope))
    finally:
        mp.undo()


@pytest.mark.slow
def test_published_verdicts(published: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    table, found = published
    assert table.set_index("id")["verdict"].to_dict() == PUBLISHED
    # no verdict rests on an undefined interval
    judged = table[table["verdict"] != "not testable"]
    assert (judged["95% CI low"] != "-").all() and (judged["95% CI high"] != "-").all()
    inconclusive = table[table["verdict"] == "not testable"]
    assert inconclusive["note"].str.contains("inconclusive").all()
    # our findings carry an interval and no verdict
    assert "verdict" not in found.columns
    assert (found["95% CI"] != "no interval").all()
