"""The ledger: every chapter's claim records, judged on the book's published runs, equal the
committed ``results/claims.csv``; the appendix and the intro quote its counts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nmthpo.engine.claims import LEDGER_COLUMNS, Claim, Rule
from nmthpo.engine.verdicts import VERDICTS
from nmthpo.studies import ledger
from tests.paths import ROOT

CSV = ROOT / "results" / ledger.LEDGER_FILE


@pytest.fixture(scope="module")
def computed() -> pd.DataFrame:
    """Every chapter's records judged on the published runs (about 35 s: its tests are slow)."""
    return ledger.ledger()


def test_records_are_complete_and_unique() -> None:
    claims = ledger.all_claims()
    assert len({c.id for c in claims}) == len(claims)
    for ch in ledger.SOURCES:
        mod = ledger._module(ch)
        assert callable(mod.published_evidence), ch
        for c in mod.CLAIMS:
            assert isinstance(c, Claim) and isinstance(c.rule, Rule)
            assert c.chapter == ch, (c.id, c.chapter)
            assert c.statement and c.where and c.paper_value, c.id
            assert c.yardstick, f"{c.id}: say why this yardstick"
            assert c.statistic is not None or c.needs.data, f"{c.id}: no statistic, no reason"
    assert {c.paper for c in claims} == set(ledger.PAPERS)


def test_findings_are_not_claims() -> None:
    ids = {c.id for c in ledger.all_claims()}
    assert not ids & {f.id for f in ledger.all_findings()}


@pytest.mark.slow
def test_no_verdict_rests_on_a_missing_interval(computed: pd.DataFrame) -> None:
    assert list(computed.columns) == list(LEDGER_COLUMNS)
    assert set(computed["verdict"]) <= set(VERDICTS)
    nan = computed["ci_low"].isna() | computed["ci_high"].isna()
    assert (computed.loc[nan, "verdict"] == "not testable").all()
    assert (computed["reason"].str.len() > 0).all()


@pytest.mark.slow
def test_the_committed_ledger_is_the_records_judged_now(computed: pd.DataFrame) -> None:
    assert CSV.is_file(), "write results/claims.csv with `make results` (--only claims)"
    stored = ledger.read_ledger(CSV)
    for col in ("id", "verdict", "ours", "paper_value", "statement", "reason"):
        assert list(stored[col]) == list(computed[col]), col
    for col in ("ci_low", "ci_high"):
        np.testing.assert_allclose(
            stored[col].to_numpy(float), computed[col].to_numpy(float), rtol=1e-9, equal_nan=True
        )


def _glued(chapter: Path) -> dict[str, str]:
    out = {}
    for cell in json.loads(chapter.read_text(encoding="utf-8"))["cells"]:
        for o in cell.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                out[name] = o["data"]["application/papermill.record/text/plain"]
    return out


def test_the_appendix_and_the_intro_quote_the_ledger() -> None:
    glued = _glued(ROOT / "book" / "chapters" / "97_claims.ipynb")
    expect = ledger.glue_counts(ledger.read_ledger(CSV))
    assert {k: glued.get(k) for k in expect} == expect
    intro = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    keys = re.findall(r"chapters/97_claims\.ipynb::([\w.]+)", intro)
    assert keys and set(keys) <= set(glued)
    assert "reproduced" not in re.sub(
        r"\{glue[:a-z]*\}`[^`]*`", "", intro.split("| chapter |")[1].split("\n\n")[0]
    ), "the intro's table types a verdict"
