import numpy as np
import pandas as pd
import pytest

from nmthpo.benchmark.tables import NMTHPO_TASKS, load_table
from nmthpo.engine.metrics import hypervolume, hypervolume_curve, reference_point
from nmthpo.studies import grids
from nmthpo.studies.zhang_duh import multiobjective as mo


def _frame(seqs):
    parts = [
        pd.DataFrame({"trial": t, "step": np.arange(1, len(s) + 1), "row": s})
        for t, s in enumerate(seqs)
    ]
    return pd.concat(parts, ignore_index=True)


def _pareto_at(task, position):
    """One sequence over the whole table with the Pareto rows starting at ``position``."""
    table = load_table(task)
    rest = [r for r in range(table.n_rows) if not table.pareto[r]]
    p = list(table.pareto_rows)
    return np.array(rest[:position] + p + rest[position:])


def test_budget_rule():
    assert [mo.budget_for(load_table(t).n_rows) for t in NMTHPO_TASKS] == [50, 50, 50, 50, 200, 150]
    assert mo.task_budget("sw-en") == 200
    assert mo.budget_for(30) == 30  # never more than the table
    with pytest.raises(ValueError, match="n_rows"):
        mo.budget_for(0)


def test_table4_and_competition_on_hand_made_sequences():
    table = load_table("ru-en")
    J = int(table.pareto.sum())
    runs = {
        ("bo-m", "ru-en"): _frame([_pareto_at("ru-en", 0)] * 2),
        ("rs", "ru-en"): _frame([_pareto_at("ru-en", 100)]),
    }
    t4 = mo.table4(runs)
    assert list(t4["method"]) == ["rs", "bo-m"]  # the paper's order
    bo = t4.set_index("method").loc["bo-m"]
    assert (bo["J"], bo["B"], bo["rows"], bo["trials"]) == (J, 50, 176, 2)
    assert (bo["fto_mean"], bo["fta_mean"], bo["fbp_mean"]) == (3.0, float(J), float(J))
    rs = t4.set_index("method").loc["rs"]
    assert (rs["fto_mean"], rs["fta_mean"], rs["fbp_mean"]) == (101.0, 100.0 + J, 0.0)
    comp = mo.competition_fbp(runs).set_index("method")
    assert comp.loc["rs", "budget"] == 176  # capped at the table's rows
    assert comp.loc["rs", "fbp_mean"] == J and comp.loc["bo-m", "runs"] == 2


def test_hypervolume_curves_and_bands():
    table = load_table("zh-en")
    rng = np.random.default_rng(0)
    seqs = [rng.permutation(table.n_rows)[:40], _pareto_at("zh-en", 5)[:10]]
    curves, true_hv = mo.hypervolume_curves(_frame(seqs), "zh-en")
    ref = reference_point(table.bleu, table.time)
    assert true_hv == pytest.approx(hypervolume(table.bleu, table.time, ref))
    np.testing.assert_allclose(
        curves[0], hypervolume_curve(seqs[0], table.bleu, table.time, ref), rtol=1e-12
    )
    assert curves.shape == (2, 40)
    assert curves[1, 7] == pytest.approx(true_hv) and np.all(curves[1, 10:] == curves[1, 9])
    bands = mo.hypervolume_bands(_frame(seqs), "zh-en", length=50)
    assert list(bands.columns[:4]) == ["step", "hv_q25", "hv_median", "hv_q75"]
    assert len(bands) == 50 and bands.attrs["true_hv"] == pytest.approx(true_hv)
    assert np.all(np.diff(bands["hv_median"]) >= 0)
    np.testing.assert_allclose(bands["regret_median"], true_hv - bands["hv_median"])


def test_front_evolution():
    table = load_table("ru-en")
    seq = _pareto_at("ru-en", 2)
    d = mo.front_evolution(_frame([seq[:30]]), "ru-en", steps=(3, 6, 100))
    assert set(d["kind"]) == {"initial", "approximation", "true"}
    assert set(d.loc[d["kind"] == "initial", "row"]) <= set(seq[:3])
    np.testing.assert_array_equal(d.loc[d["kind"] == "true", "row"], table.pareto_rows)
    final = d[(d["kind"] == "approximation") & (d["step"] == 100)]
    assert set(final["row"]) == set(table.pareto_rows)  # step past the end: final front
    with pytest.raises(ValueError, match="trial 7"):
        mo.front_evolution(_frame([seq]), "ru-en", trial=7)


def test_pareto_metrics_cache_pairs_and_best():
    runs = {
        ("bo-m", "ru-en"): _frame([_pareto_at("ru-en", 0), _pareto_at("ru-en", 4)]),
        ("rs", "ru-en"): _frame([_pareto_at("ru-en", 100), _pareto_at("ru-en", 50)]),
    }
    per = mo.ParetoMetrics(runs)
    a = per.metrics("bo-m", "ru-en")
    assert per.metrics("bo-m", "ru-en") is a  # computed once
    assert list(a.index) == [0, 1] and list(a["fto"]) == [3.0, 5.0]
    x, y = per.pair("bo-m", "rs", "ru-en", "fta")
    np.testing.assert_array_equal(x, [4.0, 8.0])
    np.testing.assert_array_equal(y, [104.0, 54.0])
    assert per.best(["rs", "bo-m"], "ru-en", "fta") == "bo-m"
    assert per.best(["rs", "bo-m", "gb-m"], "ru-en", "fbp") == "bo-m"  # highest fbp; gb-m not run
    assert per.mean("rs", "ru-en", "fbp", budget=60) == pytest.approx(2.0)
    with pytest.raises(KeyError, match="none of"):
        per.best(["gb-m"], "ru-en", "fta")


def test_table4_intervals_hold_the_mean():
    runs = {("rs", "zh-en"): _frame([_pareto_at("zh-en", k) for k in (0, 10, 40, 80)])}
    t4 = mo.table4(runs).iloc[0]
    for m in ("fto", "fta", "fbp"):
        assert t4[f"{m}_low"] <= t4[f"{m}_mean"] <= t4[f"{m}_high"]
    assert t4["fta_mean"] == pytest.approx(np.mean([3, 13, 43, 83]))


def _direct_posterior(Z, rows, y, noise=1e-3):
    """Zero-mean GP with unit-variance Matern-5/2 and unit length scales, by plain algebra."""
    d2 = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    r = np.sqrt(5 * d2)
    K = (1 + r + 5 * d2 / 3) * np.exp(-r)
    Koo = K[np.ix_(rows, rows)] + noise**2 * np.eye(len(rows))
    Kxo = K[:, rows]
    mean = Kxo @ np.linalg.solve(Koo, y)
    var = 1 - np.einsum("ij,ji->i", Kxo, np.linalg.solve(Koo, Kxo.T))
    return mean, np.sqrt(np.abs(var))


def test_authors_bomo_posterior_equals_the_plain_gp():
    table = load_table("ja-en")
    X = table.encode("raw")
    opt = mo.AuthorsBOMO(X, np.random.default_rng(0))
    rows = [5, 17, 42, 99, 120]
    for r in rows:
        opt.tell(r, [table.bleu[r], table.time[r]])
    mean, sd = opt.posterior()
    y = np.column_stack([-table.bleu[rows], table.time[rows]])
    for j in range(2):
        m, s = _direct_posterior(opt.Z, rows, y[:, j])
        np.testing.assert_allclose(mean[:, j], m, rtol=1e-7, atol=1e-7)
        np.testing.assert_allclose(sd[:, j], s, rtol=1e-6, atol=1e-6)
    # far from every evaluated row the prediction falls back to the prior: 0 with sd 1
    assert np.all(np.abs(mean) < 1.01 * np.abs(y).max())
    nxt = opt.ask()
    assert nxt not in rows and 0 <= nxt < table.n_rows
    with pytest.raises(ValueError, match="encoding='raw'"):
        mo.AuthorsBOMO(table.encode("scaled"), np.random.default_rng(0))
    with pytest.raises(ValueError, match="ties"):
        mo.AuthorsBOMO(X, np.random.default_rng(0), ties="last")


def test_authors_bomo_through_the_runner():
    from nmthpo.engine.runner import run

    res = run(
        mo.AUTHORS_BOMO,
        "zh-en",
        trials=2,
        seed=0,
        objective="pareto",
        encoding="raw",
        cache_dir=None,
        progress=False,
    )
    per = mo.pareto_metrics(res.frame, "zh-en")
    assert len(per) == 2 and (per["fta"] <= load_table("zh-en").n_rows).all()
    # the same initial rows as every other method's trials
    first = res.frame[res.frame["step"] <= 3].sort_values(["trial", "step"])
    rs = run(
        "rs", "zh-en", trials=2, seed=0, objective="pareto", cache_dir=None, progress=False
    ).frame
    rs_first = rs[rs["step"] <= 3].sort_values(["trial", "step"])
    np.testing.assert_array_equal(first["row"].to_numpy(), rs_first["row"].to_numpy())


def test_arms_are_known():
    assert {"RS", "BO-M (ours)", "GB-M (ours)"} <= set(mo.ARMS)
    arm = mo.ARMS["authors' BOMO (AutoML 2022 kit)"]
    assert grids.RUN_GRIDS[arm.experiment].options["encoding"] == "raw"
    # every arm is read through a grid that holds its method and settings
    for a in mo.ARMS.values():
        g = grids.RUN_GRIDS[a.experiment]
        assert a.method in g.methods and dict(a.settings) in [dict(v) for v in g.variants]
    with pytest.raises(KeyError, match="unknown arms"):
        mo.arm_metrics(["nope"], ["zh-en"], trials=1)


def test_errors():
    # the figures moved to nmthpo.plots (tests/plots/test_multiobjective.py)
    with pytest.raises(ValueError, match="lacks columns"):
        mo.sequences_of(pd.DataFrame({"row": [1]}))
    with pytest.raises(ValueError, match="objective='pareto'"):
        mo.run_grid(["rs"], ["zh-en"], trials=1, objective="bleu")
