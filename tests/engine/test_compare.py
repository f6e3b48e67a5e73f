"""nmthpo.engine.compare, nmthpo.plots.compare and the ``compare`` command."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from nmthpo.engine.compare import (
    HIGHER_IS_BETTER,
    baseline_run,
    compare,
    compare_tasks,
    holm,
    load_run_dir,
    pairs_to_test,
    plan,
    plan_tasks,
)
from nmthpo.engine.runner import RunSpec, run
from nmthpo.optimizers import registry
from nmthpo.optimizers.registry import MethodSpec
from nmthpo.studies.grids import compare_baselines

pytest.importorskip("autorank")

#: the registry's baselines, as `nmthpo compare` passes them
BOOK = compare_baselines()


@pytest.fixture
def my_rs(monkeypatch):
    monkeypatch.setitem(
        registry.METHODS,
        "my-rs",
        MethodSpec("nmthpo.optimizers.random", "RandomSearch", {}, ("bleu", "pareto")),
    )
    monkeypatch.setitem(
        registry.METHODS,
        "my-gb",
        MethodSpec(
            "nmthpo.optimizers.graph",
            "GraphSMBO",
            {"kernel": "matern52", "acquisition": "eif", "eif_mode": "gbopt"},
        ),
    )
    return "my-rs"


def _run_dir(tmp_path, method, task, **kw):
    res = run(method, task, progress=False, **kw)
    out = tmp_path / f"{method}-{task}-{kw.get('seed', 0)}-{kw.get('budget')}"
    res.save(out)
    return out


def test_holm_by_hand():
    assert np.allclose(holm([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])
    assert np.allclose(holm([0.5, 0.9]), [1.0, 1.0])
    assert holm([]).size == 0


def test_first_cached_trials_pair_with_a_shorter_run():
    like = RunSpec("x", "ja-en")
    cached, source = baseline_run("rs", like, trials=7, folder=BOOK["bleu"].folder)
    assert source.startswith("results/single/rs__ja-en__bleu__s0__")
    fresh = run("rs", "ja-en", trials=7, progress=False)
    assert cached.sequences == fresh.sequences


def test_compare_contract(tmp_path, my_rs):
    d = _run_dir(tmp_path, my_rs, "ja-en", trials=12)
    comp = compare([load_run_dir(d)], "ja-en", baselines=["gb-eif-m"], book=BOOK)
    js = json.loads(json.dumps(comp.to_json()))
    assert {"task", "objective", "ties", "trials", "methods", "tests"} <= set(js)
    assert (js["task"], js["objective"], js["ties"], js["trials"]) == ("ja-en", "bleu", "value", 12)
    assert set(js["methods"]) == {"my-rs", "rs", "gb-eif-m"}
    for v in js["methods"].values():
        assert set(v) == {"mean", "ci_low", "ci_high", "rel_rs", "mean_rank"}
        assert v["ci_low"] <= v["mean"] <= v["ci_high"]
    assert js["methods"]["rs"]["rel_rs"] == 1.0
    # my-rs is random search with the same generators: the same rows, so no difference
    assert js["methods"]["my-rs"]["mean"] == js["methods"]["rs"]["mean"]
    # by default your run against each baseline, not the baselines among themselves
    assert [(t["a"], t["b"]) for t in js["tests"]] == [("my-rs", "rs"), ("my-rs", "gb-eif-m")]
    for t in js["tests"]:
        assert set(t) == {"a", "b", "p_holm", "better"} and 0 <= t["p_holm"] <= 1
    same = next(t for t in js["tests"] if {t["a"], t["b"]} == {"my-rs", "rs"})
    assert same["p_holm"] == 1.0 and same["better"] is None
    assert js["pairs"] == "mine" and js["mine"] == ["my-rs"]
    assert js["design"]["pairs"] == 2 and js["design"]["trials"] == 12
    every = compare([load_run_dir(d)], "ja-en", baselines=["gb-eif-m"], pairs="all", book=BOOK)
    assert len(every.tests) == 3 and every.design is not None and every.design.pairs == 3
    gb = next(t for t in every.tests if {t["a"], t["b"]} == {"rs", "gb-eif-m"})
    assert gb["better"] == "gb-eif-m"
    # mean ranks over paired trials: 3 methods -> ranks sum to 6
    assert sum(v["mean_rank"] for v in js["methods"].values()) == pytest.approx(6.0)
    assert comp.sources["gb-eif-m"].startswith("results/single/")
    assert set(comp.summary) == {"ftb", "ftc", "fb"}
    assert comp.leaderboard().index[0] == "gb-eif-m"


def test_missing_baseline_is_computed_into_the_user_cache(tmp_path, my_rs, monkeypatch):
    monkeypatch.setenv("NMTHPO_RESULTS", str(tmp_path / "cache"))
    d = _run_dir(tmp_path, my_rs, "zh-en", trials=5, seed=11)
    comp = compare([load_run_dir(d)], "zh-en", baselines=["rs"])
    assert comp.sources["rs"].startswith("computed: ")
    assert (tmp_path / "cache" / "compare").is_dir()
    assert comp.summary["ftb"]["my-rs"]["mean"] == comp.summary["ftb"]["rs"]["mean"]


def test_budget_cuts_every_sequence_and_censors(tmp_path, my_rs):
    d = _run_dir(tmp_path, my_rs, "sw-en", trials=6, budget=10)
    comp = compare([load_run_dir(d)], "sw-en", baselines=["rs"], book=BOOK)
    ftb = comp.values["rs"]["ftb"].to_numpy()
    assert ftb.max() <= 11 and comp.censored["rs"] > 0


def test_pareto_runs(tmp_path, my_rs):
    d = _run_dir(tmp_path, my_rs, "ja-en", trials=5, objective="pareto")
    comp = compare([load_run_dir(d)], "ja-en", baselines=["gb-m"], book=BOOK)
    assert comp.metric == "fto" and set(comp.summary) == {"fto", "fta", "fbp"}
    assert "fbp" in HIGHER_IS_BETTER
    assert comp.sources["gb-m"].startswith("results/pareto/")


def test_errors(tmp_path, my_rs):
    a = load_run_dir(_run_dir(tmp_path, my_rs, "ja-en", trials=3))
    b = load_run_dir(_run_dir(tmp_path, my_rs, "ja-en", trials=3, seed=1))
    with pytest.raises(ValueError, match=r"runs of another task than 'en-ja': my-rs \(task ja-en"):
        compare([a], "en-ja")
    with pytest.raises(ValueError, match="unknown pairs 'some'"):
        compare([a], "ja-en", pairs="some")
    with pytest.raises(ValueError, match="differ in seed"):
        compare([a, b], "ja-en")
    with pytest.raises(ValueError, match="metric 'fto': not a metric of objective 'bleu'"):
        compare([a], "ja-en", metric="fto")
    with pytest.raises(FileNotFoundError, match="not a run directory"):
        load_run_dir(tmp_path)
    with pytest.raises(ValueError, match="at least 5 tasks"):
        compare_tasks([a])


def test_baselines_come_from_the_caller(tmp_path, my_rs):
    """The engine knows no book: the registry (nmthpo.studies.grids) names the baselines of
    ``nmthpo compare`` and their cache folder; without either the engine asks for them."""
    assert {k: (v.methods, v.folder) for k, v in BOOK.items()} == {
        "bleu": (
            ("rs", "bo-ei-m", "bo-ei-r", "gb-ei-m", "gb-ei-r", "gb-eif-m", "gb-eif-r", "ga"),
            "single",
        ),
        "pareto": (("rs", "bo-m", "bo-r", "gb-m", "gb-r"), "pareto"),
    }
    a = load_run_dir(_run_dir(tmp_path, my_rs, "ja-en", trials=3))
    with pytest.raises(ValueError, match="no baselines for objective 'bleu'"):
        compare([a], "ja-en")
    assert plan([a], "ja-en", book=BOOK).pairs == 8
    assert plan([a], "ja-en", baselines=["gb-ei-m"]).pairs == 2


def test_pairs_to_test():
    assert pairs_to_test(["x", "y"], ["rs", "gb"]) == [
        ("x", "y"),
        ("x", "rs"),
        ("x", "gb"),
        ("y", "rs"),
        ("y", "gb"),
    ]
    assert pairs_to_test(["x"], ["rs", "gb"], "all") == [("x", "rs"), ("x", "gb"), ("rs", "gb")]
    assert pairs_to_test(["rs"], ["rs", "gb"]) == [("rs", "gb")]  # your rs replaces the baseline


def test_across_tasks_and_figures(tmp_path, my_rs):
    from nmthpo.plots.compare import (
        cd_diagram,
        leaderboard_plot,
        runtime_ecdf,
        save_comparison_figure,
    )

    runs = []
    tasks = ("zh-en", "ja-en", "en-ja", "ru-en", "so-en")
    runs = [load_run_dir(_run_dir(tmp_path, my_rs, task, trials=6)) for task in tasks]
    runs.append(load_run_dir(_run_dir(tmp_path, "my-gb", "ja-en", trials=6)))
    per_task, pooled = plan_tasks(runs, baselines=["gb-eif-m", "bo-ei-m"], book=BOOK)
    assert set(per_task) == set(tasks) and per_task["ja-en"].pairs == 2 * 3 + 1
    # pooled: my-rs (on every task) against rs, gb-eif-m and bo-ei-m over 5 x 6 pairs
    assert (pooled.trials, pooled.pairs) == (30, 3) and pooled.can_reach
    ranking = compare_tasks(runs, baselines=["gb-eif-m", "bo-ei-m"], book=BOOK)
    assert ranking.pooled_design == pooled
    assert [(t["a"], t["b"]) for t in ranking.pooled] == [
        ("my-rs", "rs"),
        ("my-rs", "gb-eif-m"),
        ("my-rs", "bo-ei-m"),
    ]
    # my-rs reads the rows of rs: equal normalised scores, no difference; gb-eif-m pooled
    # over 30 pairs is far better than random search
    assert ranking.pooled[0]["p_holm"] == 1.0 and ranking.pooled_scores["my-rs"] == 1.0
    assert ranking.pooled[1]["better"] == "gb-eif-m" and ranking.pooled[1]["p_holm"] < 0.01
    assert ranking.pooled_scores["gb-eif-m"] < 0.7
    with pytest.raises(ValueError, match=r"runs of tasks not compared .*my-gb \(task ja-en\)"):
        compare_tasks(runs, tasks=["zh-en", "en-ja", "ru-en", "so-en", "sw-en"])
    # my-gb is not on every task: only the methods on all five are ranked
    assert set(ranking.ranks.index) == {"my-rs", "rs", "gb-eif-m", "bo-ei-m"}
    assert ranking.ranks.sum() == pytest.approx(10.0)
    assert ranking.omnibus == "friedman" and ranking.cd is not None and ranking.cd > 0
    js = ranking.to_json()
    assert js["task"] == "all" and set(js["tasks"]) == set(tasks)
    assert set(js["pooled"]) == {"normalisation", "scores", "tests", "design"}
    assert js["pooled"]["design"]["unit"] == "pooled (task, trial) pairs"
    assert ranking.ranks["my-rs"] == ranking.ranks["rs"]  # the same rows under two names
    comp = ranking.comparisons["ja-en"]
    # my-gb is gb-eif-m under another name: identical rows, identical values
    assert comp.summary["ftb"]["my-gb"] == comp.summary["ftb"]["gb-eif-m"]
    assert len(leaderboard_plot(comp).axes) == 1
    assert len(runtime_ecdf(comp).axes) == 1
    assert len(cd_diagram(ranking).axes) >= 1
    assert save_comparison_figure(ranking, tmp_path / "cd.png").stat().st_size > 0
    assert save_comparison_figure(comp, tmp_path / "one.png").stat().st_size > 0


def test_command(tmp_path, my_rs, capsys):
    from nmthpo.commands import compare as cmd

    parser = argparse.ArgumentParser()
    cmd.register(parser.add_subparsers(dest="command"))
    d = _run_dir(tmp_path, my_rs, "ja-en", trials=4)
    args = parser.parse_args(
        ["compare", str(d), "--task", "ja-en", "--json", "--baselines", "gb-eif-m", "--quiet"]
    )
    assert args.func(args) == 0
    js = json.loads(capsys.readouterr().out)
    assert set(js["methods"]) == {"my-rs", "rs", "gb-eif-m"}
    args = parser.parse_args(
        [
            "compare",
            str(d),
            "--task",
            "ja-en",
            "--baselines",
            "rs",
            "--plot",
            str(tmp_path / "f.png"),
            "--quiet",
        ]
    )
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "paired trials" in out and "p_holm=" in out and (tmp_path / "f.png").exists()
    assert "design: 4 paired trials, 1 pairs tested" in out


def test_cheap_tables_agree_with_the_engine():
    """The names compare checks without pandas are those of the metrics and the runner."""
    from nmthpo.engine import compare as cmp
    from nmthpo.engine.metrics import PARETO_METRICS, SINGLE_METRICS

    assert cmp.METRICS == {"bleu": SINGLE_METRICS, "pareto": PARETO_METRICS}
    assert set(cmp._SPEC_FIELDS) == set(RunSpec("rs", "ja-en").payload())


def test_check_run_dir_reads_spec_and_sequences(tmp_path, my_rs):
    from nmthpo.engine.compare import NotARunDirectory, check_run_dir
    from nmthpo.errors import InputError

    d = _run_dir(tmp_path, my_rs, "ja-en", trials=3)
    rd = check_run_dir(d)
    assert rd.trials == 3 and rd.spec["task"] == "ja-en"
    assert [list(s) for s in rd.sequences] == load_run_dir(d).sequences
    with pytest.raises(NotARunDirectory, match="not a run directory: it lacks spec.json"):
        check_run_dir(tmp_path)
    with pytest.raises(FileNotFoundError, match="no such directory"):
        check_run_dir(tmp_path / "nope")
    spec = json.loads((d / "spec.json").read_text())
    for bad, needle in [
        ({**spec, "budget": 2}, "budget=2 is below n_init=3"),
        ({**spec, "record_mse": 1}, "record_mse=1, must be true or false"),
        ({**spec, "settings": []}, "settings=[], must be a JSON object"),
        ({**spec, "target": "ja-en", "sources": []}, "transfer run"),
        ("null", "holds null"),
    ]:
        (d / "spec.json").write_text(bad if isinstance(bad, str) else json.dumps(bad))
        with pytest.raises(InputError) as info:
            check_run_dir(d)
        assert needle in str(info.value) and "spec.json" in str(info.value)
    (d / "spec.json").write_text(json.dumps(spec))
    (d / "sequences.ss").write_text("0 1 2\n1 2 x\n")
    with pytest.raises(ValueError, match=r"sequences.ss, line 2: 'x' is not a row id"):
        load_run_dir(d)


def test_a_damaged_parquet_is_named(tmp_path, my_rs):
    from nmthpo.errors import InputError

    d = _run_dir(tmp_path, my_rs, "ja-en", trials=3)
    data = bytearray((d / "results.parquet").read_bytes())
    (d / "results.parquet").write_bytes(bytes(data[: len(data) // 2]))
    with pytest.raises(InputError, match=r"results.parquet: damaged"):
        load_run_dir(d)


def test_user_cache_checks(tmp_path, monkeypatch):
    from nmthpo.engine.compare import check_user_cache
    from nmthpo.errors import InputError

    monkeypatch.setenv("NMTHPO_RESULTS", str(tmp_path / "c"))
    assert check_user_cache(["rs"]) == tmp_path / "c" / "compare"
    (tmp_path / "f").write_text("x")
    monkeypatch.setenv("NMTHPO_RESULTS", str(tmp_path / "f" / "below"))
    with pytest.raises(InputError, match=r"NMTHPO_RESULTS=.*is a file, not a directory"):
        check_user_cache()
    monkeypatch.setenv("NMTHPO_RESULTS", str(tmp_path / "c"))
    monkeypatch.setattr("os.access", lambda *a, **k: False)
    with pytest.raises(InputError, match=r"is not writable; .*\(gb-m\)"):
        check_user_cache(["gb-m"])
    check_user_cache()  # nothing to compute: reading is enough


def test_a_baseline_the_book_cannot_give_is_computed(tmp_path, my_rs, monkeypatch, caplog):
    from nmthpo.engine import runner

    monkeypatch.setenv("NMTHPO_RESULTS", str(tmp_path / "cache"))

    def broken(*a, **k):
        raise FileNotFoundError("flipped bytes")

    monkeypatch.setattr(runner, "load_run", broken)
    like = RunSpec("x", "ja-en")
    res, source = baseline_run("rs", like, trials=2, folder=BOOK["bleu"].folder)
    assert source.startswith("computed: ") and res.trials == 2
    assert "computing rs instead" in caplog.text


def test_regret_at_a_budget_is_a_metric_of_compare(tmp_path, my_rs):
    d = _run_dir(tmp_path, my_rs, "ja-en", trials=4, budget=30)
    comp = compare([load_run_dir(d)], "ja-en", baselines=["rs"], book=BOOK, metric="regret@25")
    assert comp.metric == "regret@25" and "regret@25" in comp.summary
    from nmthpo.benchmark.tables import load_table
    from nmthpo.engine.metrics import regret_at

    table = load_table("ja-en")
    run_dir = load_run_dir(d)
    expect = [regret_at(s, table.bleu, 25) for s in run_dir.sequences[:4]]
    assert comp.values[my_rs]["regret@25"].tolist() == pytest.approx(expect)
    with pytest.raises(ValueError, match="stop after 30 evaluations, fewer than 40"):
        compare([load_run_dir(d)], "ja-en", baselines=["rs"], book=BOOK, metric="regret@40")
    with pytest.raises(ValueError, match="regret@B"):
        compare([load_run_dir(d)], "ja-en", baselines=["rs"], book=BOOK, metric="regret@0")
