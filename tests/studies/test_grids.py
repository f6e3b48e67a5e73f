"""The one place naming every experiment grid: it names exactly the book's cached files, the
notebooks' published parameters equal it, ``make results`` reads it, and runs outside the
book's cache go to the user cache."""

from __future__ import annotations

import importlib.util
import json
import os

import pandas as pd
import pytest

from nmthpo.engine.runner import RunSpec, cached_runs
from nmthpo.studies import grids
from nmthpo.studies.ariafar.results import (
    Chapter6Params,
    _compare_params,
    _entry_dir,
    _select_params,
    _synthetic_params,
    _table_params,
    cache_entries,
)
from nmthpo.studies.li_transbo import study as chapter4
from tests.paths import ROOT


def _published_stems(g: grids.RunGrid) -> set[str]:
    return {
        RunSpec(m, t, seed=g.seed, settings=dict(v), **g.options).stem()
        for v in g.variants
        for t in g.tasks
        for m in g.methods
    }


def _defaults(chapter: str) -> dict[str, object]:
    """The values of a notebook's ``parameters`` cell."""
    nb = json.loads((ROOT / "notebooks" / f"{chapter}.ipynb").read_text())
    cell = next(c for c in nb["cells"] if "parameters" in c["metadata"].get("tags", []))
    ns: dict[str, object] = {}
    exec("".join(cell["source"]), ns)  # literal assignments only
    ns.pop("__builtins__")
    return ns


# -- the grids name exactly the book's cache ------------------------------------------------------
#: Folders of the experiments computed only when named (they need the peers extra): until
#: `make results --only peers` has filled one, the book's cache does not hold it.
OPTIONAL_FOLDERS = {grids.FOLDERS[e] for e in grids.OPTIONAL_EXPERIMENTS}


def _not_computed(folder: str) -> bool:
    return folder in OPTIONAL_FOLDERS and not grids.book_dir(folder).exists()


def test_run_grids_name_exactly_the_cached_runs() -> None:
    by_folder: dict[str, set[str]] = {}
    for g in grids.RUN_GRIDS.values():
        by_folder.setdefault(g.folder, set()).update(_published_stems(g))
    for folder, stems in by_folder.items():
        if _not_computed(folder):
            continue  # once computed, the folder holds exactly its grids' runs
        have = {p.stem for _, p in cached_runs(grids.book_dir(folder))}
        assert have == stems, folder


def test_optional_experiments_are_not_computed_by_default() -> None:
    assert set(grids.OPTIONAL_EXPERIMENTS).isdisjoint(grids.EXPERIMENTS)
    assert OPTIONAL_FOLDERS.isdisjoint(grids.FOLDERS[e] for e in grids.EXPERIMENTS)


@pytest.mark.parametrize("name", list(grids.RUN_GRIDS))
def test_published_runs_are_read_from_the_book(name: str) -> None:
    g = grids.RUN_GRIDS[name]
    if _not_computed(g.folder):
        pytest.skip(f"results/{g.folder} is not computed (make results --only peers)")
    for v in g.variants:
        for t in g.tasks:
            for m in g.methods:
                spec = RunSpec(m, t, seed=g.seed, settings=dict(v), **g.options)
                assert grids.run_cache_dir(g.folder, spec, g.trials) == grids.book_dir(g.folder)


def test_transfer_grid_names_exactly_the_cached_runs() -> None:
    stems = {s.stem() for name in grids.CHAPTER_GRID for s in chapter4.setting_specs(name)}
    have = {p.stem for p in grids.book_dir("transfer").glob("*.parquet")}
    assert have == stems
    for name, s in grids.CHAPTER_GRID.items():
        assert chapter4.missing_runs(name, repeats=s.repeats) == [], name
    assert chapter4.CHAPTER_GRID is grids.CHAPTER_GRID  # re-exported, not copied


def test_scoring_grid_names_exactly_the_cached_entries() -> None:
    p = Chapter6Params()
    assert p == Chapter6Params(**dict(grids.SCORING))
    wanted = (
        [("synthetic", _synthetic_params(p, f)) for f in p.functions]
        + [("table", _table_params(p, t)) for t in p.tasks]
        + [("select", _select_params(p, b)) for b in p.select_budgets]
        + [("compare", _compare_params(p))]
    )
    have = [(kind, params) for kind, params, _ in cache_entries()]

    def dump(x: object) -> str:
        return json.dumps(x, sort_keys=True)

    assert sorted(map(dump, wanted)) == sorted(map(dump, have))
    labels = [
        *p.functions,
        *p.tasks,
        *[f"{p.select_task}-b{b}" for b in p.select_budgets],
        p.compare_task,
    ]
    for (kind, params), label in zip(wanted, labels, strict=True):
        assert _entry_dir(kind, label, params) == grids.book_dir("scoring")


def test_ga_tables_name_the_cached_tables(monkeypatch, tmp_path) -> None:
    import inspect

    from nmthpo.studies.ganapathy import tables as genetic

    for kind, extra in grids.GA_TABLES.kinds.items():
        real = genetic._CACHEABLE[kind]

        def fake(*args, _kind=kind, **kwargs):  # the book's table: it passes the checks
            (book,) = grids.book_dir("ga").glob(f"{_kind}__*.parquet")
            return pd.read_parquet(book)

        fake.__signature__ = inspect.signature(real)  # type: ignore[attr-defined]
        monkeypatch.setitem(genetic._CACHEABLE, kind, fake)
        out = tmp_path / kind
        genetic.cached_table(kind, cache_dir=out, **{**grids.GA_TABLES.params, **extra})
        (name,) = [p.name for p in out.glob("*.parquet")]
        assert (grids.book_dir("ga") / name).exists()
    assert grids.ga_tables_dir(**grids.GA_TABLES.params) == grids.book_dir("ga")
    assert grids.ga_tables_dir(
        **{**grids.GA_TABLES.params, "init_pops": [5, 10, 15, 20, 25]}
    ) == grids.book_dir("ga")
    monkeypatch.setenv("NMTHPO_RESULTS", str(tmp_path / "user"))
    assert grids.ga_tables_dir(iterations=10) == tmp_path / "user" / "ga"


def test_folders_cover_the_results_directory() -> None:
    # outputs of `make bench`, `make openbox-crosscheck` and tools/extract_changes.py
    tools = {"benchmarks", "openbox", "changes"}
    dirs = {p.name for p in (ROOT / "results").iterdir() if p.is_dir()}
    wanted = {f for f in grids.FOLDERS.values() if f and not _not_computed(f)}
    assert dirs - tools == wanted  # "": a file in results/


# -- the notebooks' published parameters are the grids ----------------------------------------
def test_chapter2_defaults_are_the_grids() -> None:
    d = _defaults("02_single_objective")
    single, fig6 = grids.RUN_GRIDS["single"], grids.RUN_GRIDS["figure6"]
    assert tuple(d["tasks"]) == single.tasks and tuple(d["methods"]) == single.methods
    assert d["trials"] == single.trials and d["seed"] == single.seed
    assert (d["figure6_task"],) == fig6.tasks and d["figure6_steps"] == fig6.options["budget"]
    assert fig6.methods == single.methods and fig6.trials == single.trials


def test_chapter3_defaults_are_the_grid() -> None:
    d = _defaults("03_multiobjective")
    g = grids.RUN_GRIDS["pareto"]
    assert tuple(d["tasks"]) == g.tasks and tuple(d["methods"]) == g.methods
    assert d["trials"] == g.trials and d["seed"] == g.seed


def test_chapter4_defaults_are_the_grid() -> None:
    d = _defaults("04_transfer")
    cg = grids.CHAPTER_GRID
    assert {s.repeats for s in cg.values()} == {d["repeats"]}
    assert tuple(d["static_targets"]) == cg["static5"].tasks == cg["static2"].tasks
    assert tuple(d["static_targets"]) == cg["ablation"].tasks
    assert tuple(d["dynamic_order"]) == cg["dynamic"].tasks == grids.DYNAMIC_ORDER
    assert tuple(d["nmtlc_targets"]) == cg["nmtlc"].tasks


def test_chapter5_defaults_are_the_grids() -> None:
    d = _defaults("05_genetic_algorithm")
    for k, v in grids.GA_TABLES.params.items():
        assert (list(v) if isinstance(v, tuple) else v) == d[k], k
    proto, single = grids.RUN_GRIDS["ga_protocol"], grids.RUN_GRIDS["single"]
    assert tuple(d["protocol_tasks"]) == proto.tasks and d["protocol_trials"] == proto.trials
    assert set(d["protocol_methods"]) <= set(proto.methods) | set(single.methods)
    assert proto.folder == single.folder and proto.options == single.options


def test_chapter6_defaults_are_the_grid() -> None:
    d = _defaults("06_search_space_scoring")
    for k, v in grids.SCORING.items():
        assert (list(v) if isinstance(v, tuple) else v) == d[k], k


def test_chapter7_defaults_are_the_grid() -> None:
    d = _defaults("07_multifidelity")
    for k, v in grids.MULTIFIDELITY.items():
        assert (list(v) if isinstance(v, tuple) else v) == d[k], k
    nb = json.loads((ROOT / "notebooks" / "07_multifidelity.ipynb").read_text())
    smoke = nb["metadata"]["nmthpo"]["smoke"]
    assert set(smoke) <= set(d) and smoke["trials"] < d["trials"]
    assert "multifidelity" in grids.EXPERIMENTS
    assert grids.FOLDERS["multifidelity"] == "multifidelity"


def test_chapter9_defaults_are_the_grids() -> None:
    d = _defaults("09_peers")
    ranked, costly = grids.RUN_GRIDS["peers"], grids.RUN_GRIDS["peers_costly"]
    assert d["tasks"] == list(ranked.tasks) == list(costly.tasks)
    assert d["trials"] == ranked.trials == grids.RUN_GRIDS["peers_startup"].trials
    assert d["costly_trials"] == costly.trials
    assert d["lc_trials"] == grids.MULTIFIDELITY["trials"]
    nb = json.loads((ROOT / "notebooks" / "09_peers.ipynb").read_text())
    smoke = nb["metadata"]["nmthpo"]["smoke"]
    assert set(smoke) <= set(d) and smoke["trials"] < d["trials"]
    assert grids.FOLDERS["peers"] == "peers" and "peers" in grids.OPTIONAL_EXPERIMENTS


# -- where runs are cached --------------------------------------------------------------------
def test_runs_outside_the_book_go_to_the_user_cache(monkeypatch, tmp_path) -> None:
    book, user = tmp_path / "book", tmp_path / "user"
    monkeypatch.setattr(grids, "results_dir", lambda: book)
    monkeypatch.setenv("NMTHPO_RESULTS", str(user))
    monkeypatch.delenv("NMTHPO_WRITE_RESULTS", raising=False)
    spec = RunSpec("rs", "zh-en", seed=3)
    assert grids.run_cache_dir("single", spec, 2) == user / "single"
    r = grids.run_one("single", "rs", "zh-en", trials=2, seed=3, record_mse=False)
    assert r.trials == 2 and (user / "single" / f"{spec.stem()}.parquet").exists()
    assert not book.exists()
    # make results writes the book's cache; then a smaller request reads it there
    monkeypatch.setenv("NMTHPO_WRITE_RESULTS", "1")
    grids.run_one("single", "rs", "zh-en", trials=3, seed=3, record_mse=False)
    monkeypatch.delenv("NMTHPO_WRITE_RESULTS")
    assert grids.run_cache_dir("single", spec, 3) == book / "single"
    assert grids.run_cache_dir("single", spec, 4) == user / "single"  # more trials than cached
    got = grids.grid_runs("single", ["rs"], ["zh-en"], trials=3, seed=3, record_mse=False)[
        ("rs", "zh-en")
    ]
    assert got["trial"].nunique() == 3
    pd.testing.assert_frame_equal(got[got["trial"] < 2].reset_index(drop=True), r.frame)


def test_bad_experiment_names_are_clear() -> None:
    with pytest.raises(KeyError, match="valid: single"):
        grids.run_one("nope", "rs", "zh-en")
    with pytest.raises(ValueError, match="at least one method"):
        grids.grid_runs("single", [], ["zh-en"])
    with pytest.raises(ValueError, match="trials"):
        grids.run_one("single", "rs", "zh-en", trials=0)


def test_seed_user_cache_copies_only_present_book_files(monkeypatch, tmp_path) -> None:
    book, user = tmp_path / "book", tmp_path / "user"
    monkeypatch.setattr(grids, "results_dir", lambda: book)
    monkeypatch.setenv("NMTHPO_RESULTS", str(user))
    (book / "transfer").mkdir(parents=True)
    (book / "transfer" / "a.parquet").write_text("A")
    out = grids.seed_user_cache("transfer", ["a", "b"])
    assert out == user / "transfer"
    assert sorted(p.name for p in out.iterdir()) == ["a.parquet"]
    assert (book / "transfer" / "a.parquet").read_text() == "A"


def test_load_setting_computes_what_the_book_lacks_into_the_user_cache(
    monkeypatch, tmp_path
) -> None:
    tiny = {"ablation": grids.ChapterSetting("static", ("tst-ms",), ("zh-en",), None, 1)}
    monkeypatch.setattr(chapter4, "CHAPTER_GRID", tiny)
    book, user = tmp_path / "book", tmp_path / "user"
    monkeypatch.setattr(grids, "results_dir", lambda: book)
    monkeypatch.setattr(chapter4, "book_dir", lambda folder: book / folder)
    monkeypatch.setenv("NMTHPO_RESULTS", str(user))
    monkeypatch.delenv("NMTHPO_WRITE_RESULTS", raising=False)
    f = chapter4.load_setting("ablation", repeats=1)
    assert f["rep"].nunique() == 1 and not book.exists()
    assert len(list((user / "transfer").glob("*.parquet"))) == 1


# -- make results reads the grids ------------------------------------------------------------
def test_make_results_computes_every_grid(monkeypatch) -> None:
    spec = importlib.util.spec_from_file_location(
        "make_results", ROOT / "tools" / "make_results.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    seen = []
    monkeypatch.setattr(mod, "run_grid", lambda name, trials, jobs: seen.append(name))
    for name in ("ga", "scoring", "transfer", "multifidelity", "claims"):
        monkeypatch.setattr(mod, name, lambda trials, jobs, _n=name: seen.append(_n))
    monkeypatch.setattr("sys.argv", ["make_results.py", "--trials", "1"])
    monkeypatch.delenv("NMTHPO_WRITE_RESULTS", raising=False)
    mod.main()
    assert os.environ.pop("NMTHPO_WRITE_RESULTS") == "1"
    assert seen == list(grids.EXPERIMENTS)
    optional = {n for n, g in grids.RUN_GRIDS.items() if g.folder in OPTIONAL_FOLDERS}
    assert set(grids.RUN_GRIDS) - {"ga_protocol"} - optional <= set(seen)
    # the optional experiment computes its grids only when named
    seen.clear()
    monkeypatch.setattr("sys.argv", ["make_results.py", "--trials", "1", "--only", "peers"])
    mod.main()
    os.environ.pop("NMTHPO_WRITE_RESULTS")
    assert seen == ["peers", "peers_startup", "peers_costly"] and set(seen) == optional
