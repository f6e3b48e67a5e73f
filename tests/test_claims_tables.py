"""Every chapter's claims table has a 95 % interval and speaks the one verdict vocabulary.

The chapters' claims are computed from the book's cache (``results/``) as the notebooks call
them (Chapters 1 and 5 with fewer resamples or iterations); a chapter whose cache is absent is
skipped. Chapter 5's per-cell comparison is checked on a small fresh study. Independently of the
functions, every table of the executed book that has a ``verdict`` column must show the
interval columns (chapters 2 and 3 included).
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


def _chapter1() -> pd.DataFrame:
    from nmthpo.studies import benchmark_tables as bt

    tasks = ["ja-en", "en-ja", "so-en", "sw-en"]
    boots, model = {}, {}
    for task in ("en-ja", "sw-en"):
        for frac in (0.01, None):
            boots[(task, frac)] = bt.importance_bootstrap(task, frac, n_boot=8, n_trees=4)
            singles, pairs = bt.importance_table(task, top_fraction=frac, n_trees=8)
            model[(task, frac)] = pd.concat([singles, pairs])
    rho, n = bt.spearman_matrix(tasks, common="all")
    return bt.claims(bt.table2(tasks), rho, n, boots, model)


def _chapter5() -> pd.DataFrame:
    from nmthpo.studies import genetic as ga
    from nmthpo.studies import genetic_claims, grids

    params = dict(task="ja-en", target=16.0, init_pops=[5, 10, 15, 20, 25], iterations=1000,
                  trials=3, seed=0)
    rule_fit = ga.cached_table("rules", use_cache=True,
                               cache_dir=grids.ga_tables_dir(**params), **params)
    baseline_rules = ga.baseline_rule_table("ja-en", 16.0, params["init_pops"])
    study = ga.ga_study("ja-en", 16.0, params["init_pops"], iterations=30, trials=2, seed=3)
    tabs = [ga.paper_comparison(study, w, 2.0) for w in ("ga", "baseline", "difference")]
    oos = genetic_claims.out_of_sample(baseline_rules, rule_fit)
    return genetic_claims.claims(*tabs, oos, (float(study.difference().mean()), 0.1))



CHAPTERS: dict[str, tuple[str, Callable[[], pd.DataFrame]]] = {
    "chapter 1": ("single", _chapter1),
    "chapter 2": ("single", _chapter2),
    "chapter 3": ("pareto", _chapter3),
    "chapter 4": ("transfer", _chapter4),
    "chapter 5": ("ga", _chapter5),
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


def test_every_claims_table_in_the_executed_book_has_an_interval():
    """Any table of an executed chapter with a ``verdict`` column also shows the 95 % interval.

    Reads the HTML outputs of every chapter in book/chapters (chapters 2 and 3 included), so a
    claims table built by hand, without :func:`~nmthpo.engine.stats.claims_frame`, fails here.
    """
    import json
    import re
    from pathlib import Path

    chapters = sorted((Path(__file__).resolve().parents[1] / "book" / "chapters")
                      .glob("[0-9][0-9]_*.ipynb"))
    assert chapters, "no executed chapters in book/chapters"
    found = 0
    for path in chapters:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            for out in cell.get("outputs", []):
                html = "".join(out.get("data", {}).get("text/html", ""))
                for table in re.findall(r"<table.*?</table>", html, flags=re.S):
                    heads = {re.sub(r"<.*?>", "", h).strip()
                             for h in re.findall(r"<th[^>]*>(.*?)</th>", table, flags=re.S)}
                    if "verdict" not in heads:
                        continue
                    found += 1
                    assert set(INTERVAL_COLUMNS) <= heads, (
                        f"{path.name}: a table with verdicts lacks the interval columns "
                        f"{INTERVAL_COLUMNS}; build it with nmthpo.engine.stats.claims_frame")
                    cells = {re.sub(r"<.*?>", "", c).strip()
                             for c in re.findall(r"<td[^>]*>(.*?)</td>", table, flags=re.S)}
                    bad = {c for c in cells if c.lower() in ("agrees", "disagrees", "yes", "no")}
                    assert not bad, f"{path.name}: verdict words outside {VERDICTS}: {bad}"
    assert found >= 6, f"only {found} tables with verdicts in the executed book"
