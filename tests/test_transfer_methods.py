"""Tests of nmthpo.optimizers.transfer.methods, sources and metafeatures (Li et al. 2022, Sections
4-5)."""

import numpy as np
import pytest

from nmthpo.benchmark.metafeatures import (
    metafeature_distance,
    metafeatures,
    transfer_metafeatures,
)
from nmthpo.benchmark.tables import load_table
from nmthpo.optimizers.transfer.methods import TRANSFER_METHODS, make_transfer_optimizer
from nmthpo.optimizers.transfer.sources import check_sources, source_task, source_tasks

SMALL = dict(n_source=12, seed=0, repetition=0)


def _run(name, target="zh-en", sources=("ru-en", "ja-en"), steps=6, seed=3, n_source=12):
    table = load_table(target)
    X, y = table.encode("shared"), table.bleu
    srcs = source_tasks(sources, n_source, 0, 0)
    opt = make_transfer_optimizer(name, X, np.random.default_rng(seed), srcs,
                                  target_task=target, restarts=0,
                                  metafeatures=transfer_metafeatures(target, srcs))
    for r in np.random.default_rng(seed).choice(table.n_rows, 3, replace=False):
        opt.tell(int(r), y[r])
    for _ in range(steps):
        r = opt.ask()
        opt.tell(r, y[r])
    return opt


@pytest.mark.parametrize("name", sorted(TRANSFER_METHODS))
def test_every_method_runs_without_repeats_and_is_deterministic(name):
    a, b = _run(name), _run(name)
    assert len(set(a.rows)) == len(a.rows) == 9
    assert a.rows == b.rows
    np.testing.assert_array_equal(a.target_weights, b.target_weights)


def test_transbo_target_weight_in_unit_interval_and_non_decreasing():
    opt = _run("transbo", steps=14)
    tw = np.asarray(opt.target_weights)
    assert np.all((tw >= 0) & (tw <= 1))
    assert np.all(np.diff(tw) >= 0)
    assert tw[0] == 0.0  # p = [1, 0] while there are fewer than 5 observations
    w = opt.source_weights[-1]
    assert np.all(w >= 0) and w.sum() == pytest.approx(1 - tw[-1])


def test_transbo_phase1_prefers_a_source_that_is_the_target_task():
    # a source surrogate fitted on the target task itself ranks the target's rows best
    table = load_table("zh-en")
    srcs = [source_task("zh-en", 50, 0, 0), source_task("so-en", 50, 0, 0),
            source_task("en-ja", 50, 0, 0)]
    opt = make_transfer_optimizer("transbo-ms", table.encode("shared"),
                                  np.random.default_rng(0), srcs)
    for r in np.random.default_rng(1).choice(table.n_rows, 25, replace=False):
        opt.tell(int(r), table.bleu[r])
    opt.ask()
    assert int(np.argmax(opt.source_weights[-1])) == 0


def test_fixed_weights_of_pogpe_and_tst():
    pogpe, tst = _run("pogpe", steps=2), _run("tst", steps=2)
    assert pogpe.target_weights == [0.5, 0.5]
    # TST: target kernel weight 3/4 normalised with source weights in [0, 3/4]
    assert all(1 / 3 - 1e-12 <= w <= 1 for w in tst.target_weights)


def test_rgpe_weights_are_a_distribution():
    opt = _run("rgpe", steps=3)
    for tw, sw in zip(opt.target_weights, opt.source_weights, strict=True):
        assert tw + sw.sum() == pytest.approx(1.0)


def test_sources_are_standardised_and_shared_across_methods():
    s = source_task("ru-en", **SMALL)
    assert s.rows.size == 12 and np.unique(s.rows).size == 12
    assert abs(s.y.mean()) < 1e-12 and s.y.std() == pytest.approx(1.0)
    assert source_task("ru-en", **SMALL) is s  # cached: fitted once per process


def test_source_validation_messages():
    with pytest.raises(ValueError, match="cannot also be a source"):
        check_sources("zh-en", ["zh-en"])
    with pytest.raises(ValueError, match="do not share the search space"):
        check_sources("zh-en", ["lc-finetune-zh-en"])
    with pytest.raises(KeyError, match="valid tasks"):
        check_sources("zh-en", ["xx-en"])
    with pytest.raises(ValueError, match="needs at least one source"):
        make_transfer_optimizer("transbo", np.zeros((4, 6)), np.random.default_rng(0), [])
    with pytest.raises(KeyError, match="valid methods"):
        make_transfer_optimizer("bogus", np.zeros((4, 6)), np.random.default_rng(0), [])


def test_metafeatures_by_hand():
    table = load_table("en-ja")
    rows = np.array([0, 1, 2])
    f = metafeatures("en-ja", rows)
    upd = table.metrics["num_updates"].to_numpy(float)[rows]
    b = table.bleu[rows]
    np.testing.assert_allclose(f, [0.0, np.mean(np.log10(upd)), b.mean(), b.std()])
    assert metafeatures("lc-finetune-fr-en", rows).size == 3
    d = metafeature_distance(np.array([[0.0, 0.0], [1.0, 2.0]]), np.array([0.0, 2.0]))
    np.testing.assert_allclose(d, [np.sqrt(1 / 2), np.sqrt(1 / 2)])


def test_target_and_scot_gps_follow_the_shared_schedule_with_unchanged_defaults():
    from nmthpo.models.refit import RefitSchedule

    table = load_table("zh-en")
    srcs = source_tasks(("ru-en",), 8, 0, 0)
    opt = make_transfer_optimizer("igp", table.encode("shared"), np.random.default_rng(0), srcs)
    assert opt._target.schedule == RefitSchedule(every=1, restarts=2, restart_every=10)
    assert opt._target.between == "condition"
    scot = make_transfer_optimizer("scot", table.encode("shared"), np.random.default_rng(0),
                                   srcs)
    assert scot._merged.schedule == RefitSchedule(every=10, restarts=2, restart_rule="first")
    for r in range(3):
        scot.tell(r, table.bleu[r])
    for _ in range(3):
        scot.tell(scot.ask(), 20.0)
    # fits at 3 (restarts) only; conditioned on 8 source + 5 target points in between
    assert scot._merged.history.last_fit_n == 3 and scot._merged.gp.X_train.shape[0] == 13
