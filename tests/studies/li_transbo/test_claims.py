"""Chapter 4's claims as records (nmthpo.studies.li_transbo.claims): well-formed, judged as
expected on the published run, and *not testable* (with the reason) on a reduced run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nmthpo.benchmark.tables import NMTHPO_TASKS
from nmthpo.engine.claims import (
    Above,
    AllOf,
    Below,
    Estimate,
    Every,
    Rule,
    Scope,
    evaluate,
    evaluate_findings,
)
from nmthpo.studies import grids
from nmthpo.studies.li_transbo import claims as tc

#: The verdicts of the published run.
PUBLISHED = {
    "li22.f2.static-many-best": "not reproduced",
    "li22.f3.static-few-well": "not testable",  # inconclusive: straddles 0
    "li22.s5-2.early-rank-drop": "not testable",  # a curve shape without values
    "li22.s5-2.stable-benchmarks": "not testable",  # one benchmark
    "li22.f2.rgpe-comparable": "not testable",  # inconclusive: the band's edge
    "li22.f3.rgpe-fluctuates": "not testable",  # inconclusive
    "li22.t1.dynamic-most-places": "not testable",  # inconclusive parts
    "li22.s1.dynamic-top2-share": "reproduced",
    "li22.s5-2.rgpe-unstable-dynamic": "not testable",  # one benchmark
    "li22.f6.nas-speedup": "not testable",  # no NAS data
    "li22.f4.phase1-best": "not testable",  # 5 of 6 parts clear, none contradicted
    "li22.f5.transbo-weight-rises": "reproduced",
    "li22.f5.tst-weight-low": "not reproduced",
    "li22.f5.rgpe-weight-fluctuates": "reproduced",
    "li22.f5c.overhead": "partly",  # TST, RGPE hold; SCoT, TransBO not
    "li22.s4-3.no-negative-transfer": "not testable",  # NMTLC holds; 5 and 2 sources straddle 0
    "li22.a2.feasibility": "not testable",  # the paper's datasets
}


def test_records_are_well_formed() -> None:
    ids = [c.id for c in tc.CLAIMS] + [f.id for f in tc.FINDINGS]
    assert len(ids) == len(set(ids))
    assert set(PUBLISHED) == {c.id for c in tc.CLAIMS}
    for c in tc.CLAIMS:
        assert c.id.startswith("li22.") and c.paper == "li-et-al-2022"
        assert isinstance(c.rule, Rule) and c.yardstick and c.statement and c.where
        assert c.paper_value and c.chapter == "04_transfer"
        assert c.statistic is not None or c.needs.data, c.id
    for f in tc.FINDINGS:
        assert f.id.startswith("li22.ours.") and f.chapter == "04_transfer"
    # the absent claims are records that say why they cannot be tested
    for cid, words in (
        ("li22.f6.nas-speedup", "NAS-Bench-201"),
        ("li22.s5-2.early-rank-drop", "sharply"),
    ):
        c = next(c for c in tc.CLAIMS if c.id == cid)
        assert c.statistic is None and words in (c.needs.data or "")
    # the overhead claim is explained by the chapter's experiment
    oh = next(c for c in tc.CLAIMS if c.id == "li22.f5c.overhead")
    assert "Why the overhead differs" in oh.explanation


def test_a_band_only_where_the_paper_approximates() -> None:
    from nmthpo.engine.claims import Band

    for c in tc.CLAIMS:
        rules = list(c.rule.rules.values()) if isinstance(c.rule, AllOf) else [c.rule]
        for r in rules:
            if isinstance(r, Band):
                assert r.why and any(w in r.why for w in ("comparable", "nearly")), c.id


def _frame(
    methods: list[str],
    targets: list[str],
    reps: int,
    steps: int,
    rng: np.random.Generator,
    weights: dict[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    from nmthpo.benchmark.tables import load_table

    parts = []
    for t in targets:
        bleu = load_table(t).bleu
        for m in methods:
            for r in range(reps):
                w = np.full(steps, np.nan) if weights is None or m not in weights else weights[m]
                parts.append(
                    pd.DataFrame(
                        {
                            "method": m,
                            "target": t,
                            "rep": r,
                            "step": np.arange(1, steps + 1),
                            "bleu": rng.choice(bleu, steps),
                            "target_weight": w,
                            "seconds": np.r_[np.zeros(3), np.full(steps - 3, 0.01)],
                        }
                    )
                )
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module")
def small() -> tuple[tc.TransferEvidence, Scope]:
    """A synthetic run of every setting on two targets, 12 repetitions, 20 trials."""
    rng = np.random.default_rng(0)
    static = ["rs", "igp", "scot", "sgpr", "pogpe", "tst", "tstm", "rgpe", "transbo"]
    rise = np.r_[np.full(3, np.nan), np.linspace(0.1, 1.0, 17)]
    w = {
        "transbo": rise,
        "tst": np.r_[np.full(3, np.nan), np.full(17, 0.2)],
        "pogpe": np.r_[np.full(3, np.nan), np.full(17, 0.5)],
        "rgpe": np.r_[np.full(3, np.nan), np.tile([0.1, 0.9], 9)[:17]],
    }
    tg = ["zh-en", "ru-en"]
    return tc.evidence_for(
        _frame(static, tg, 12, 20, rng, w),
        _frame(static, tg, 12, 20, rng, w),
        _frame(["pogpe", "tst", "rgpe", "transbo"], tg, 12, 20, rng),
        _frame(static, ["lc-finetune-zh-en"], 12, 20, rng),
        _frame(["transbo-ms", "pogpe-ms", "tst-ms", "rgpe-ms"], tg, 12, 20, rng),
        step=10,
    )


def test_a_reduced_run_is_not_testable_with_the_reason(small) -> None:
    ev, scope = small
    assert scope.trials == 12 and scope.tasks == ("zh-en", "ru-en")
    assert scope.extra["dynamic tasks"] == 2 and scope.extra["NMTLC targets"] == 1
    t = evaluate(tc.CLAIMS, ev, scope)
    assert (t["verdict"] == "not testable").all()
    notes = dict(zip(t["id"], t["note"], strict=True))
    assert "needs 6 tasks, the run has 2" in notes["li22.f2.static-many-best"]
    assert "dynamic tasks >= 5, the run has 2" in notes["li22.t1.dynamic-most-places"]
    assert "NAS-Bench-201" in notes["li22.f6.nas-speedup"]
    f = evaluate_findings(tc.FINDINGS, ev, scope)
    assert (f.loc[f["id"] == "li22.ours.overhead-transbo", "ours"] == "-").all()
    # too few repetitions: named as such
    few = Scope(
        tasks=tuple(NMTHPO_TASKS),
        methods=scope.methods,
        trials=3,
        extra={"dynamic tasks": 5, "NMTLC targets": 2, "overhead repetitions": 3},
    )
    t3 = evaluate(tc.CLAIMS, ev, few)
    assert (t3["verdict"] == "not testable").all()
    assert t3["note"].str.contains("needs at least 10 trials, the run has 3").sum() >= 10


def test_statistics_on_synthetic_evidence(small) -> None:
    """The statistics compute on any run; the weights were planted."""
    ev, _ = small
    by = {c.id: c for c in tc.CLAIMS}
    rises = by["li22.f5.transbo-weight-rises"]
    assert rises.statistic is not None
    est = rises.statistic(ev)
    assert est.parts and set(est.parts) == {"trials 6 to 10", "trials 10 to 20"}
    assert rises.rule.judge(est)[0] == "reproduced"  # a planted linear rise
    tst = by["li22.f5.tst-weight-low"]
    assert tst.statistic is not None
    e = tst.statistic(ev)
    assert (e.value, e.low, e.high) == pytest.approx((0.2, 0.2, 0.2))
    assert tst.rule.judge(e)[0] == "reproduced"
    jumps = by["li22.f5.rgpe-weight-fluctuates"]
    assert jumps.statistic is not None
    assert jumps.rule.judge(jumps.statistic(ev))[0] == "reproduced"  # 0.8 per step
    share = by["li22.s1.dynamic-top2-share"]
    assert share.statistic is not None
    s = share.statistic(ev)
    assert 0 <= s.low <= s.value <= s.high <= 1 and s.quantity == "fraction"


def test_a_composite_shows_its_weakest_part() -> None:
    parts = {
        "a": Estimate(1.0, 0.5, 1.5),
        "b": Estimate(-1.0, -1.5, -0.5),
        "c": Estimate(0.0, -0.5, 0.5),
    }
    rule = Every(Above(0.0))
    wrapped = tc.composite(lambda ev: Estimate(float("nan"), parts=parts, note="n"), rule)
    est = wrapped(None)  # type: ignore[arg-type]
    assert (est.low, est.high) == (-1.5, -0.5) and "'b' (not reproduced)" in est.note
    assert rule.judge(est)[0] == "partly"
    mixed = AllOf({"a": Above(0.0), "b": Below(0.0)})
    assert tc.composite(lambda ev: Estimate(float("nan"), parts=parts), mixed)(None).low == 0.5  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def published() -> pd.DataFrame:
    if not grids.book_dir("transfer").is_dir():
        pytest.skip("the book's transfer cache is absent")
    ev, scope = tc.published_evidence()
    assert scope.trials == 30 and len(scope.tasks) == 6
    return evaluate(tc.CLAIMS, ev, scope, ledger=True)


def test_published_verdicts(published: pd.DataFrame) -> None:
    assert dict(zip(published["id"], published["verdict"], strict=True)) == PUBLISHED


def test_no_verdict_rests_on_a_missing_interval(published: pd.DataFrame) -> None:
    nan = published["ci_low"].isna() | published["ci_high"].isna()
    assert (published.loc[nan, "verdict"] == "not testable").all()
    assert (published["reason"].str.len() > 0).all()
    judged = published[~nan]
    assert (judged["ci_low"] <= judged["ci_high"]).all()
