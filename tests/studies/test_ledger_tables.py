"""Every chapter's claims table has a 95 % interval and speaks the one verdict vocabulary.

The chapters' claim records are judged on the book's cache (``results/``) with their published
evidence, as the ledger does. Chapter 5's per-cell comparison is checked on a small fresh study.
Independently of the records, every table of the executed book that has a ``verdict`` column
must show the interval columns (chapters 2 and 3 included).
"""

from __future__ import annotations

import pytest

from nmthpo.engine.claims import CLAIM_TABLE_COLUMNS, evaluate
from nmthpo.engine.stats import INTERVAL_COLUMNS, VERDICTS, check_claims_table
from nmthpo.studies import ledger
from tests.paths import ROOT


@pytest.mark.slow
@pytest.mark.parametrize("chapter", list(ledger.SOURCES))
def test_every_chapter_claims_table_has_intervals_and_the_vocabulary(chapter):
    mod = ledger._module(chapter)
    evidence, scope = mod.published_evidence()
    table = evaluate(mod.CLAIMS, evidence, scope)
    assert list(table.columns) == list(CLAIM_TABLE_COLUMNS)
    assert set(table["verdict"]) <= set(VERDICTS)
    assert table.index.name == "claim" and table["id"].is_unique
    # where no interval could be computed the verdict is "not testable" and the note says why
    no_interval = table[INTERVAL_COLUMNS[0]] == "-"
    assert (table.loc[no_interval, "verdict"] == "not testable").all()
    assert (table["note"].str.len() > 0).all()


def test_chapter5_cells_have_intervals_and_the_vocabulary():
    from nmthpo.studies.ganapathy import tables as ga

    study = ga.ga_study(init_pops=(5, 10), iterations=30, trials=2, seed=3)
    for which in ("ga", "baseline", "difference"):
        cells = ga.paper_comparison(study, which, 2.0)
        check_claims_table(cells)


def test_every_claims_table_in_the_executed_book_has_an_interval():
    """Any table of an executed chapter with a ``verdict`` column also shows the 95 % interval.

    Reads the HTML outputs of every chapter in book/chapters (chapters 2 and 3 included), so a
    claims table built by hand, without :func:`~nmthpo.engine.claims.evaluate`, fails here.
    """
    import json
    import re

    chapters = sorted((ROOT / "book" / "chapters").glob("[0-9][0-9]_*.ipynb"))
    assert chapters, "no executed chapters in book/chapters"
    found = 0
    for path in chapters:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            for out in cell.get("outputs", []):
                html = "".join(out.get("data", {}).get("text/html", ""))
                for table in re.findall(r"<table.*?</table>", html, flags=re.S):
                    heads = {
                        re.sub(r"<.*?>", "", h).strip()
                        for h in re.findall(r"<th[^>]*>(.*?)</th>", table, flags=re.S)
                    }
                    if "verdict" not in heads:
                        continue
                    found += 1
                    assert set(INTERVAL_COLUMNS) <= heads or any("95% CI" in h for h in heads), (
                        f"{path.name}: a table with verdicts lacks the interval columns "
                        f"{INTERVAL_COLUMNS}; build it with nmthpo.engine.claims.evaluate"
                    )
                    cells = {
                        re.sub(r"<.*?>", "", c).strip()
                        for c in re.findall(r"<td[^>]*>(.*?)</td>", table, flags=re.S)
                    }
                    bad = {c for c in cells if c.lower() in ("agrees", "disagrees", "yes", "no")}
                    assert not bad, f"{path.name}: verdict words outside {VERDICTS}: {bad}"
    assert found >= 6, f"only {found} tables with verdicts in the executed book"
