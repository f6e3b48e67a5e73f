"""Tests of nmthpo.engine.fidelity (and fidelity_metrics) with the multi-fidelity methods: cost
accounting by hand, budgets, seeding, CLI (the schedules are tested in
tests/optimizers/multifidelity/test_halving.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nmthpo.benchmark.learning_curves import LearningCurveTable
from nmthpo.cli import main
from nmthpo.engine.fidelity import (
    EVALUATION_COLUMNS,
    RECOMMENDATION_COLUMNS,
    CurveRunSpec,
    on_curves,
    run_curves,
    simulate_trial,
)
from nmthpo.engine.fidelity_metrics import anytime_regret, best_reached, cost_to_within, survival
from nmthpo.optimizers.registry import METHODS, get_spec, resolve

MF_METHODS = [
    "rs",
    "sh",
    "hb",
    "asha",
    "bohb",
    "sh-upstream",
    "optuna-pruner:SuccessiveHalvingPruner",
    "optuna-pruner:HyperbandPruner",
    "optuna-pruner:MedianPruner",
]


def toy(curves: list[list[float]], maximise: bool = True) -> LearningCurveTable:
    """A learning-curve table from hand-written curves."""
    lengths = np.array([len(c) for c in curves])
    raw = np.full((len(curves), lengths.max()), np.nan)
    for i, c in enumerate(curves):
        raw[i, : len(c)] = c
    best = (np.fmax if maximise else np.fmin).accumulate(raw, axis=1)
    X = np.linspace(0, 1, len(curves))[:, None]
    return LearningCurveTable(
        "toy", "bleu", maximise, pd.DataFrame({"x": X[:, 0]}), X, raw, best, lengths
    )


#: r0 ends after 2 checkpoints (early stopping); r3 has the best final value.
TOY = [[5, 6], [2, 2, 5, 6], [4, 1, 1, 1], [0, 1, 7]]


def log_of(method: str, budget: int, table: LearningCurveTable = None, **settings):
    table = toy(TOY) if table is None else table
    spec = CurveRunSpec(method, "toy", budget, 0, settings)
    return simulate_trial(spec, 0, table), table


def test_successive_halving_by_hand() -> None:
    """eta=2, rungs 1, 2, 4, all four rows in one bracket (whatever their order):
    rung 1 costs 4 (scores 5, 2, 4, 0) -> r0, r2 promoted, each +1 checkpoint (cost 6);
    at 2: r0 6 (its curve ends), r2 4 -> r0 promoted to 4: nothing new to train (complete).
    Total 6 = 2 + 1 + 2 + 1, the sum of the highest checkpoints; recommendation r0 (final 6)."""
    log, table = log_of("sh", 100, eta=2, n_configs=4)
    assert log["cost"].tolist() == [1, 2, 3, 4, 5, 6, 6]
    assert log["checkpoint"].tolist()[4:] == [2, 2, 2]
    assert sorted(log["row"][4:6].tolist()) == [0, 2] and log["row"][6] == 0
    assert log["recommended"][-1] == 0
    assert table.regret(table.final[0]) == 1.0
    highest = pd.Series(log["checkpoint"]).groupby(log["row"]).max()
    assert highest.sum() == log["cost"][-1] == 6


def test_promotion_charges_only_new_checkpoints() -> None:
    """r2 best at rung 1 and 2: promoted 1 -> 2 -> 4 costs 1 + 1 + 2."""
    curves = [[1, 1, 1, 1], [2, 2, 2, 2], [4, 4, 4, 9], [0, 0, 0, 0]]
    log, _ = log_of("sh", 100, toy(curves), eta=2, n_configs=4)
    rows, cost = log["row"].tolist(), np.diff(np.r_[0, log["cost"]]).tolist()
    assert rows[-1] == 2 and cost[-1] == 2  # 2 -> 4
    assert cost[4:6] == [1, 1]  # two promotions 1 -> 2
    assert log["cost"][-1] == 4 + 2 + 2 and log["recommended"][-1] == 2


def test_budget_is_never_exceeded_and_refused_job_stops() -> None:
    """With 5 checkpoints: 4 at rung 1, the first promotion (+1 = 5) fits, the second
    (+1 = 6) is refused and the trial ends at 5."""
    log, _ = log_of("sh", 5, eta=2, n_configs=4)
    assert log["cost"][-1] == 5 and len(log["row"]) == 5


@pytest.mark.parametrize("method", MF_METHODS)
@pytest.mark.parametrize("budget", [4, 9, 13])
def test_every_method_respects_the_budget(method: str, budget: int) -> None:
    log, table = log_of(method, budget)
    assert log["cost"].size == 0 or log["cost"][-1] <= budget
    assert np.all(np.diff(log["cost"]) >= 0)
    assert np.all(log["checkpoint"] <= table.lengths[log["row"]])
    if log["row"].size:  # cost = sum over rows of the highest checkpoint reached so far
        highest = pd.Series(log["checkpoint"]).groupby(log["row"]).max()
        assert highest.sum() == log["cost"][-1]


def test_random_search_trains_full_curves_and_stops_before_a_partial_one() -> None:
    table = toy(TOY)
    order = np.random.default_rng([0, 0, 1]).permutation(4)
    log, _ = log_of("rs", 7)
    spent = 0
    for r in order:
        if spent + table.lengths[r] > 7:
            break
        spent += table.lengths[r]
    assert log["cost"][-1] == spent
    assert np.all(log["checkpoint"] == table.lengths[log["row"]])
    assert log["row"].tolist() == order[: len(log["row"])].tolist()


def test_asha_workers_run_in_checkpoint_time() -> None:
    """Four workers start four configurations at rung 1 (1 checkpoint each); results arrive
    in the order they were started; promotions need eta=3 results at a rung."""
    log, _ = log_of("asha", 100, workers=4)
    assert sorted(log["row"][:4].tolist()) == [0, 1, 2, 3]
    assert log["cost"][:4].tolist() == [1, 2, 3, 4]


def test_registry_one_rs_and_prefixes() -> None:
    rs = resolve("rs")
    assert rs.runs_on_curves() and not rs.fidelity and "bleu" in rs.objectives
    assert sum(1 for k in METHODS if k == "rs") == 1
    for m in MF_METHODS[1:]:
        assert resolve(m).fidelity
    with pytest.raises(KeyError, match="multi-fidelity method"):
        get_spec("sh")
    with pytest.raises(KeyError, match="unknown Optuna pruner"):
        resolve("optuna-pruner:Nope")
    assert on_curves("sh", "ja-en") and on_curves("rs", "lc-scratch-ru-en")
    assert not on_curves("rs", "lc-finetune-fr-en") and on_curves("rs", "lc-finetune-fr-en", True)


def test_seeding_and_worker_invariance() -> None:
    a = run_curves("bohb", "lc-finetune-zh-en", trials=4, seed=3, jobs=1)
    b = run_curves("bohb", "lc-finetune-zh-en", trials=4, seed=3, jobs=2)
    pd.testing.assert_frame_equal(a.frame, b.frame)
    c = run_curves("bohb", "lc-finetune-zh-en", trials=2, seed=3)
    pd.testing.assert_frame_equal(c.frame, a.frame[a.frame["trial"] < 2].reset_index(drop=True))
    # trials of different methods share their random order of configurations
    rs = run_curves("rs", "lc-finetune-zh-en", trials=1, seed=3).frame
    sh = run_curves("sh", "lc-finetune-zh-en", trials=1, seed=3).frame
    assert rs["row"].iloc[0] == sh["row"].iloc[0]


def test_errors() -> None:
    with pytest.raises(KeyError, match="has no learning curves"):
        run_curves("sh", "ja-en", trials=1)
    with pytest.raises(ValueError, match="at least the longest curve"):
        run_curves("sh", "lc-finetune-fr-en", trials=1, budget=10)
    with pytest.raises(ValueError, match="does not run on learning curves"):
        run_curves("bo-ei-m", "lc-finetune-fr-en", trials=1)
    with pytest.raises(ValueError, match="method 'sh' has no setting 'nope'; valid settings"):
        run_curves("sh", "lc-finetune-fr-en", trials=1, settings={"nope": 1})


def test_metrics_by_hand() -> None:
    log, table = log_of("sh", 100, eta=2, n_configs=4)
    frame = pd.DataFrame({"trial": 0, **log})
    # after rung 1 (4 checkpoints) the recommendation is r0 (score 5 at checkpoint 1, final 6:
    # regret 1); at 5 the first promoted row is the only one at depth 2 (r2: final 4, regret
    # 3; or r0); from 6 on r0 again; before any job there is none
    at5 = 3.0 if log["row"][4] == 2 else 1.0
    np.testing.assert_allclose(
        anytime_regret(frame, table, np.array([0, 4, 5, 6, 100])), [[np.nan, 1.0, at5, 1.0, 1.0]]
    )
    assert cost_to_within(frame, table, 1.0)[0] <= 4
    assert cost_to_within(frame, table, 0.5)[0] == (1.0 if log["row"][0] == 3 else np.inf)
    assert best_reached(frame, table).tolist() == [1]  # r3 cut at rung 1
    s = survival(best_reached(frame, table), table, [1, 2, 4])
    assert s["share"].tolist() == [1.0, 0.0, 0.0] and s["tried"].tolist() == [1, 1, 1]


def test_cli_outputs(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    assert (
        main(
            [
                "run",
                "sh",
                "--task",
                "lc-finetune-zh-en",
                "--budget",
                "200",
                "--trials",
                "3",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    ev = pd.read_parquet(out / "evaluations.parquet")
    rec = pd.read_parquet(out / "recommendations.parquet")
    assert tuple(ev.columns) == EVALUATION_COLUMNS
    assert tuple(rec.columns) == RECOMMENDATION_COLUMNS
    assert rec["cost"].max() <= 200 and sorted(rec["trial"]) == [0, 1, 2]
    assert (
        ev.groupby(["trial", "row"])["checkpoint"].max().groupby("trial").sum()
        == ev.groupby("trial")["cost"].max()
    ).all()
    assert main(["run", "sh", "--task", "ja-en", "--trials", "1", "--out", str(out)]) == 2
    assert "has no learning curves" in capsys.readouterr().err
    assert (
        main(
            [
                "run",
                "rs",
                "--task",
                "lc-finetune-zh-en",
                "--curves",
                "--trials",
                "1",
                "--out",
                str(tmp_path / "rs"),
            ]
        )
        == 0
    )
    assert (tmp_path / "rs" / "recommendations.parquet").exists()
