"""Every chapter's claims table has a 95 % interval and speaks the one verdict vocabulary.

The chapters' claims are computed from the book's cache (``results/``) exactly as the notebooks
call them; a chapter whose cache is absent is skipped. Chapter 5's per-cell comparison is
checked on a small fresh study.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import pytest

from nmthpo.engine.cache import results_dir
from nmthpo.engine.stats import INTERVAL_COLUMNS, VERDICTS, check_claims_table


def _chapter2() -> pd.DataFrame:
    from nmthpo.engine.runner import run
    from nmthpo.studies import single_objective as so

    runs = {(m, t): run(m, t, trials=100, seed=0, record_mse=True,
                        cache_dir=results_dir() / "single", progress=False).frame
            for t in ("zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en")
            for m in so.METHODS}
    return so.claims(so.per_trial_metrics(runs, ties="value", budget=20))


def _chapter3() -> pd.DataFrame:
    from nmthpo.studies import multiobjective as mo

    return mo.claims(mo.run_grid(trials=100, seed=0, cache_dir=results_dir() / "pareto",
                                 progress=False))


def _chapter4() -> pd.DataFrame:
    from nmthpo.engine.ranks import overhead_curve
    from nmthpo.studies import transfer as ch

    f = {n: ch.load_setting(n) for n in ("static5", "static2", "dynamic", "nmtlc", "ablation")}
    return ch.claims(f["static5"], f["static2"], f["dynamic"], f["nmtlc"], f["ablation"],
                     step=20, overhead=overhead_curve(f["static5"]))


def _chapter6() -> pd.DataFrame:
    from nmthpo.studies import scoring_results as sr

    p = sr.Chapter6Params()
    return sr.claims(sr.chapter6_results(p, cache=True), p)


CHAPTERS: dict[str, tuple[str, Callable[[], pd.DataFrame]]] = {
    "chapter 2": ("single", _chapter2),
    "chapter 3": ("pareto", _chapter3),
    "chapter 4": ("transfer", _chapter4),
    "chapter 6": ("scoring", _chapter6),
}


@pytest.mark.slow
@pytest.mark.parametrize("chapter", list(CHAPTERS))
def test_every_chapter_claims_table_has_intervals_and_the_vocabulary(chapter):
    sub, compute = CHAPTERS[chapter]
    if not (results_dir() / sub).is_dir():
        pytest.skip(f"the book's cache results/{sub} is absent")
    table = compute()
    check_claims_table(table)
    assert set(INTERVAL_COLUMNS) <= set(table.columns)
    assert set(table["verdict"]) <= set(VERDICTS)
    assert table.index.name == "claim" and table.index.is_unique
    lo, hi = (table[c].astype(float) for c in INTERVAL_COLUMNS)
    assert ((lo <= hi) | lo.isna() | hi.isna()).all()
    # where no interval could be computed the verdict is "not testable" or the note says why
    no_interval = lo.isna() | hi.isna()
    assert (table.loc[no_interval, "note"].str.len() > 0).all()


def test_chapter5_cells_have_intervals_and_the_vocabulary():
    from nmthpo.studies import genetic as ga

    study = ga.ga_study(init_pops=(5, 10), iterations=30, trials=2, seed=3)
    for which in ("ga", "baseline", "difference"):
        cells = ga.paper_comparison(study, which, 2.0)
        check_claims_table(cells)
