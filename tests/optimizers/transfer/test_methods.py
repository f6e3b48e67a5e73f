"""Tests of nmthpo.optimizers.transfer.methods (Li et al. 2022, Sections 4-5; the sources:
test_sources.py, the metafeatures: tests/benchmark/test_metafeatures.py)."""

import numpy as np
import pytest

from nmthpo.benchmark.metafeatures import (
    transfer_metafeatures,
)
from nmthpo.benchmark.tables import load_table
from nmthpo.optimizers.transfer.methods import TRANSFER_METHODS, make_transfer_optimizer
from nmthpo.optimizers.transfer.sources import source_task, source_tasks


def _run(name, target="zh-en", sources=("ru-en", "ja-en"), steps=6, seed=3, n_source=12):
    table = load_table(target)
    X, y = table.encode("shared"), table.bleu
    srcs = source_tasks(sources, n_source, 0, 0)
    opt = make_transfer_optimizer(
        name,
        X,
        np.random.default_rng(seed),
        srcs,
        target_task=target,
        restarts=0,
        metafeatures=transfer_metafeatures(target, srcs),
    )
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
    srcs = [
        source_task("zh-en", 50, 0, 0),
        source_task("so-en", 50, 0, 0),
        source_task("en-ja", 50, 0, 0),
    ]
    opt = make_transfer_optimizer(
        "transbo-ms", table.encode("shared"), np.random.default_rng(0), srcs
    )
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


def test_target_and_scot_gps_follow_the_shared_schedule_with_unchanged_defaults():
    from nmthpo.models.refit import RefitSchedule

    table = load_table("zh-en")
    srcs = source_tasks(("ru-en",), 8, 0, 0)
    opt = make_transfer_optimizer("igp", table.encode("shared"), np.random.default_rng(0), srcs)
    assert opt._target.schedule == RefitSchedule(every=1, restarts=2, restart_every=10)
    assert opt._target.between == "condition"
    scot = make_transfer_optimizer("scot", table.encode("shared"), np.random.default_rng(0), srcs)
    assert scot._merged.schedule == RefitSchedule(every=10, restarts=2, restart_rule="first")
    for r in range(3):
        scot.tell(r, table.bleu[r])
    for _ in range(3):
        scot.tell(scot.ask(), 20.0)
    # fits at 3 (restarts) only; conditioned on 8 source + 5 target points in between
    assert scot._merged.history.last_fit_n == 3 and scot._merged.gp.X_train.shape[0] == 13


def test_every_gp_of_a_transfer_method_fits_with_its_search():
    """Issue 25: the lattice by default (the same rows on every CPU), L-BFGS-B as a setting:
    the target GP, the cross-validation GPs of TransBO, SGPR's levels and SCoT's merged GP."""
    table = load_table("zh-en")
    srcs = source_tasks(("ru-en", "ja-en"), 12, 0, 0)
    for search in ("lattice", "lbfgsb"):
        kw = {} if search == "lattice" else {"search": "lbfgsb", "tie_rtol": 0.0}
        for name in ("transbo", "sgpr", "scot"):
            opt = make_transfer_optimizer(
                name, table.encode("shared"), np.random.default_rng(0), srcs, restarts=0, **kw
            )
            for r in range(6):
                opt.tell(r, table.bleu[r])
            opt.ask()
            if name == "transbo":
                gps = [opt._target.gp, opt._fixed_gp(opt.X[:4], table.bleu[:4], True)]
            elif name == "sgpr":
                gps = [*opt._levels, opt._target.gp]
            else:
                gps = [opt._merged.gp]
            assert {gp.search for gp in gps} == {search}, (name, search)


def test_rgpe_sampling_factor_is_unique_and_factors_a_degenerate_covariance():
    from nmthpo.optimizers.transfer.methods import _sampling_factor

    rng = np.random.default_rng(0)
    A = rng.standard_normal((6, 2))
    cov = A @ A.T  # rank 2 of 6: an eigenbasis of its null space is not unique
    L = _sampling_factor(cov)
    assert np.allclose(L, np.tril(L)) and np.all(np.diag(L) > 0)
    np.testing.assert_allclose(L @ L.T, cov + 1e-8 * np.eye(6), atol=1e-12)
    with pytest.raises(np.linalg.LinAlgError):
        _sampling_factor(-np.eye(3))
