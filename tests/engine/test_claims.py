"""The one rule set and the evaluator of nmthpo.engine.claims."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nmthpo.engine.claims import (
    LEDGER_COLUMNS,
    Above,
    AllOf,
    AtLeast,
    AtMost,
    Band,
    Below,
    Claim,
    Covers,
    Estimate,
    Every,
    Finding,
    Needs,
    Scope,
    by_id,
    combine_verdicts,
    evaluate,
    evaluate_findings,
    rules_table,
    win_count_interval,
)
from nmthpo.engine.stats import VERDICTS

NAN = float("nan")


def E(lo: float, hi: float, v: float | None = None) -> Estimate:  # noqa: N802
    return Estimate((lo + hi) / 2 if v is None else v, lo, hi)


def test_direction_rules() -> None:
    assert Below(0.2).judge(E(0.1, 0.15))[0] == "reproduced"
    assert Below(0.2).judge(E(0.2, 0.3))[0] == "not reproduced"
    v, why = Below(0.2).judge(E(0.1, 0.3))
    assert v == "not testable" and why.startswith("inconclusive")
    assert Above(0).judge(E(0.0, 0.0))[0] == "not reproduced"
    assert Above(0).judge(E(0.5, 2))[0] == "reproduced"


def test_a_value_is_judged_by_coverage_not_by_a_band() -> None:
    # Chapter 3's case: the paper's 8.6 outside our interval [9.79, 10.40] is not reproduced
    assert Covers(8.6).judge(E(9.79, 10.40))[0] == "not reproduced"
    assert Covers(10.0).judge(E(9.79, 10.40))[0] == "reproduced"


def test_band_and_counts() -> None:
    assert Band(0.35, 0.65, "roughly half").judge(E(0.4, 0.6))[0] == "reproduced"
    assert Band(0.35, 0.65).judge(E(0.7, 0.8))[0] == "not reproduced"
    assert Band(0.35, 0.65).judge(E(0.3, 0.5))[0] == "not testable"
    assert AtLeast(4, of=6).judge(E(4, 6))[0] == "reproduced"
    assert AtLeast(4, of=6).judge(E(0, 3))[0] == "not reproduced"
    assert AtLeast(4, of=6).judge(E(2, 5))[0] == "not testable"
    assert AtMost(1).judge(E(0, 1))[0] == "reproduced"
    with pytest.raises(ValueError, match="empty"):
        Band(2, 1)


@pytest.mark.parametrize(
    "rule", [Below(1), Above(1), Band(0, 1), Covers(1), AtLeast(1), AtMost(1), Every(Below(1))]
)
def test_no_verdict_rests_on_a_nan_interval(rule) -> None:
    est = Estimate(0.5, NAN, NAN, parts={"a": Estimate(0.5)})
    assert rule.judge(est)[0] == "not testable"


def test_composites_are_partly_only_when_parts_disagree() -> None:
    r, n, t = ("reproduced", ""), ("not reproduced", ""), ("not testable", "why")
    assert combine_verdicts({"a": r, "b": r})[0] == "reproduced"
    assert combine_verdicts({"a": r, "b": n})[0] == "partly"
    assert combine_verdicts({"a": n, "b": n})[0] == "not reproduced"
    assert combine_verdicts({"a": n, "b": t})[0] == "not reproduced"
    assert combine_verdicts({"a": r, "b": t})[0] == "not testable"
    assert combine_verdicts({})[0] == "not testable"
    every = Every(Below(0)).judge(Estimate(0, parts={"x": E(-2, -1), "y": E(1, 2)}))
    assert every[0] == "partly" and "x" in every[1] and "y" in every[1]
    both = AllOf({"fast": Below(0), "good": Above(0)})
    assert both.judge(Estimate(0, parts={"fast": E(-2, -1), "good": E(1, 2)}))[0] == "reproduced"
    assert both.judge(Estimate(0, parts={"fast": E(-2, -1)}))[0] == "not testable"


verdict = st.sampled_from(VERDICTS)


@given(st.dictionaries(st.text(min_size=1, max_size=3), verdict, max_size=6))
def test_combined_verdict_follows_the_rules(parts) -> None:
    v, _ = combine_verdicts({k: (x, "r") for k, x in parts.items()})
    vals = list(parts.values())
    assert v in VERDICTS
    assert (v == "reproduced") == (bool(vals) and all(x == "reproduced" for x in vals))
    if v == "partly":
        assert "reproduced" in vals or "partly" in vals
    if v == "not reproduced":
        assert "not reproduced" in vals and "reproduced" not in vals


@given(st.floats(-10, 10), st.floats(0, 5), st.floats(-10, 10))
def test_rules_never_reproduce_what_the_interval_contradicts(lo, width, bound) -> None:
    est = E(lo, lo + width)
    if Below(bound).judge(est)[0] == "reproduced":
        assert est.high < bound
    if Above(bound).judge(est)[0] == "reproduced":
        assert est.low > bound
    if Covers(bound).judge(est)[0] == "reproduced":
        assert est.low <= bound <= est.high


def test_needs_says_what_the_run_lacks() -> None:
    scope = Scope(tasks=("ja-en",), methods=("rs",), trials=20)
    assert Needs().missing(scope) is None
    assert "needs 6 tasks, the run has 1" in Needs(n_tasks=6).missing(scope)
    assert "sw-en" in Needs(tasks=("sw-en",)).missing(scope)
    assert "at least 100 trials" in Needs(trials=100).missing(scope)
    assert "bo-ei-m" in Needs(methods=("bo-ei-m",)).missing(scope)
    assert Needs(data="not released").missing(scope) == "not released"


def _claims() -> list[Claim]:
    calls = []

    def stat(ev):
        calls.append(1)
        return Estimate(ev["x"], ev["x"] - 1, ev["x"] + 1, note="bootstrap", quantity="ratio")

    return [
        Claim(
            "zd20.t3.a",
            "zhang-duh-2020",
            "Table 3",
            "x is below 5",
            "< 5",
            stat,
            Below(5),
            "the paper says 'below'",
            Needs(n_tasks=2),
            "02_single_objective",
        ),
        Claim(
            "zd20.f8.b",
            "zhang-duh-2020",
            "Figure 8",
            "retrained seeds vary little",
            "small",
            None,
            Below(1),
            needs=Needs(data="the retrained models are not released"),
        ),
    ]


def test_evaluate_judges_each_record_and_explains_untestable_ones() -> None:
    full = Scope(tasks=("a", "b"), trials=100)
    table = evaluate(_claims(), {"x": 2.0}, full)
    assert list(table["verdict"]) == ["reproduced", "not testable"]
    assert table.loc["x is below 5", "95% CI low"] == "1.00"
    assert "not released" in table.loc["retrained seeds vary little", "note"]
    one = evaluate(_claims(), {"x": 2.0}, Scope(tasks=("a",), trials=100))
    assert one["verdict"].iloc[0] == "not testable"
    assert "needs 2 tasks" in one["note"].iloc[0]
    led = evaluate(_claims(), {"x": 2.0}, full, ledger=True)
    assert list(led.columns) == list(LEDGER_COLUMNS)
    assert np.isnan(led["ci_low"].iloc[1]) and led["verdict"].iloc[1] == "not testable"


def test_findings_never_get_a_verdict() -> None:
    f = Finding("own.x", "ours is fast", lambda ev: Estimate(1.0, 0.5, 1.5))
    table = evaluate_findings([f], None, Scope(trials=100))
    assert "verdict" not in table.columns and table["95% CI"].iloc[0] == "[0.50, 1.50]"


def test_ids_are_unique() -> None:
    c = _claims()
    with pytest.raises(ValueError, match="used twice"):
        by_id([c[0], c[0]])


def test_win_count_interval_is_an_interval_of_the_count() -> None:
    rng = np.random.default_rng(0)
    clear = {f"t{i}": (rng.normal(0, 1, 50), rng.normal(5, 1, 50)) for i in range(4)}
    est = win_count_interval(clear)
    assert (est.value, est.low, est.high, est.text) == (4.0, 4.0, 4.0, "4 of 4")
    assert AtLeast(4, of=4).judge(est)[0] == "reproduced"
    close = {f"t{i}": (rng.normal(0, 1, 10), rng.normal(0, 1, 10)) for i in range(6)}
    est = win_count_interval(close)
    assert est.low < est.value < est.high or est.low < est.high
    assert est.high - est.low >= 2  # six coin flips: the count is uncertain
    assert win_count_interval(close, seed=1).value == est.value
    with pytest.raises(ValueError, match="better"):
        win_count_interval(clear, better="up")


def test_rules_table_states_every_verdict() -> None:
    table = rules_table()
    assert set(VERDICTS) <= set(table.index.get_level_values(1))


def test_a_composite_shows_the_interval_of_the_part_that_decides() -> None:
    from nmthpo.engine.claims import NoData, deciding_part

    rule = Every(Below(0))
    est = Estimate(0, parts={"x": E(-2, -1), "y": E(1, 2)})
    assert deciding_part(rule, est) == est.parts["y"]
    claim = Claim(
        "zd20.x.c",
        "zhang-duh-2020",
        "Table 3",
        "below 0 on every task",
        "< 0",
        lambda ev: est,
        rule,
        "the paper says 'every'",
    )
    table = evaluate([claim], None, Scope(trials=100))
    assert table["verdict"].iloc[0] == "partly"
    assert (table["95% CI low"].iloc[0], table["95% CI high"].iloc[0]) == ("1.00", "2.00")
    assert NoData("NAS-Bench-201").judge(est)[0] == "not testable"
