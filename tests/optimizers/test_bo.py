"""Tests of nmthpo.optimizers.bo.GPBO on small synthetic tables."""

from __future__ import annotations

import numpy as np
import pytest

from nmthpo.optimizers.base import snap_ties
from nmthpo.optimizers.bo import GPBO
from nmthpo.optimizers.registry import make_optimizer


def _table(n_side: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """A 2-d grid table (n_side^2 rows) with a smooth objective and a unique best row."""
    g = np.linspace(0.0, 1.0, n_side)
    X = np.array([(a, b) for a in g for b in g])
    y = 20 - 30 * ((X[:, 0] - 0.7) ** 2 + (X[:, 1] - 0.3) ** 2) + 2 * np.sin(7 * X[:, 0])
    return X, y


def _run(opt: GPBO, y: np.ndarray, rng_init: np.random.Generator, steps: int) -> list[int]:
    """Tell 3 random initial rows (as the runner does), then ask/tell ``steps`` times."""
    for r in rng_init.choice(len(y), 3, replace=False):
        opt.tell(int(r), float(y[r]))
    for _ in range(steps):
        r = opt.ask()
        opt.tell(r, float(y[r]))
    return list(opt.rows)


def _steps_to_best(kernel: str, seed: int, X: np.ndarray, y: np.ndarray) -> int:
    rng = np.random.default_rng(seed)
    opt = GPBO(X, rng, kernel=kernel)
    for r in rng.choice(len(y), 3, replace=False):
        opt.tell(int(r), float(y[r]))
    best = int(np.argmax(y))
    while best not in opt.rows:
        r = opt.ask()
        opt.tell(r, float(y[r]))
    return len(opt.rows)


@pytest.mark.parametrize("kernel", ["matern52", "rbf"])
def test_finds_best_much_faster_than_random(kernel: str) -> None:
    X, y = _table(8)  # 64 rows; random search needs (64 + 1) / 2 = 32.5 on average
    steps = [_steps_to_best(kernel, seed, X, y) for seed in range(6)]
    assert np.mean(steps) < 18, steps


def test_deterministic_and_without_replacement() -> None:
    X, y = _table(6)  # 36 rows, run to exhaustion
    a = _run(GPBO(X, np.random.default_rng(3)), y, np.random.default_rng(9), 33)
    b = _run(GPBO(X, np.random.default_rng(3)), y, np.random.default_rng(9), 33)
    assert a == b
    assert sorted(a) == list(range(36))  # every row once, none proposed twice
    opt = GPBO(X, np.random.default_rng(0))
    _run(opt, y, np.random.default_rng(1), 33)
    with pytest.raises(RuntimeError, match="every row"):
        opt.ask()


def test_ask_never_returns_an_evaluated_row() -> None:
    X, y = _table(6)
    opt = GPBO(X, np.random.default_rng(4), kernel="rbf", refit_every=3)
    _run(opt, y, np.random.default_rng(5), 0)
    for _ in range(20):
        r = opt.ask()
        assert not opt.observed[r]
        opt.tell(r, float(y[r]))


def test_predict_mean_does_not_change_the_run() -> None:
    X, y = _table(6)
    plain = _run(GPBO(X, np.random.default_rng(7)), y, np.random.default_rng(8), 12)
    opt = GPBO(X, np.random.default_rng(7))
    assert np.all(np.isnan(opt.predict_mean()))  # nothing observed yet
    init = np.random.default_rng(8).choice(len(y), 3, replace=False)
    for r in init:
        opt.tell(int(r), float(y[r]))
        assert opt.predict_mean().shape == (len(y),)
    for _ in range(12):
        r = opt.ask()
        opt.tell(r, float(y[r]))
        mean = opt.predict_mean()
    assert list(opt.rows) == plain
    # the surrogate has learnt something: mean close to the truth on the observed rows
    rows = np.asarray(opt.rows)
    assert np.sqrt(np.mean((mean[rows] - y[rows]) ** 2)) < 0.5


def test_first_ask_without_observations_is_random_row() -> None:
    X, _ = _table(4)
    r = GPBO(X, np.random.default_rng(0)).ask()
    assert 0 <= r < len(X)


def test_registry_and_bad_settings() -> None:
    X, y = _table(4)
    rng = np.random.default_rng(0)
    opt = make_optimizer("bo-ei-r", X, rng)
    assert isinstance(opt, GPBO) and opt.kernel == "rbf"
    assert make_optimizer("bo-ei-m", X, rng).kernel == "matern52"  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="valid kernels"):
        GPBO(X, rng, kernel="matern32")
    with pytest.raises(ValueError, match="refit_every"):
        GPBO(X, rng, refit_every=0)
    with pytest.raises(TypeError, match="unknown settings"):
        GPBO(X, rng, n_init=3)
    with pytest.raises(ValueError, match="objective"):
        GPBO(X, rng, objective="pareto")


def test_schedule_is_the_shared_one_with_unchanged_defaults() -> None:
    from nmthpo.models.refit import RefitSchedule

    X, _ = _table()
    opt = GPBO(X, np.random.default_rng(0))
    assert opt.schedule == RefitSchedule(
        every=1, restarts=2, restart_rule="every", restart_every=10
    )
    assert opt.model.between == "add" and opt.gp is None
    opt = GPBO(X, np.random.default_rng(0), refit_every=4, restarts=1, restart_every=3)
    assert opt.schedule == RefitSchedule(every=4, restarts=1, restart_every=3)


def test_lattice_search_and_tie_rtol_settings() -> None:
    X, y = _table(6)
    rng = np.random.default_rng(0)
    opt = GPBO(X, rng, search="lattice", tie_rtol=1e-9)
    assert opt.model.search == "lattice" and opt.tie_rtol == 1e-9
    rows = _run(opt, y, np.random.default_rng(1), 12)
    assert len(set(rows)) == len(rows) == 15
    again = _run(
        GPBO(X, np.random.default_rng(0), search="lattice", tie_rtol=1e-9),
        y,
        np.random.default_rng(1),
        12,
    )
    assert rows == again
    fast = GPBO(X, rng, search="lattice", schedule="fast")
    assert fast.rowgp is not None and fast.rowgp.model.search == "lattice"
    with pytest.raises(ValueError, match="tie_rtol"):
        GPBO(X, rng, tie_rtol=-1.0)
    with pytest.raises(ValueError, match="unknown search"):
        GPBO(X, rng, search="newton")


def test_tie_rtol_makes_near_ties_a_random_choice() -> None:
    """EI values one ulp apart are a tie with ``tie_rtol`` (which row wins is then the
    generator's choice, not the last bit's), and a strict maximum without it."""
    X, _ = _table(4)
    scores = np.zeros(len(X))
    scores[[3, 9]] = [0.5, np.nextafter(0.5, 1.0)]
    picks = set()
    for seed in range(20):
        opt = GPBO(X, np.random.default_rng(seed), tie_rtol=1e-9)
        picks.add(opt.argmax_candidate(snap_ties(scores, opt.tie_rtol)))
    assert picks == {3, 9}
    assert GPBO(X, np.random.default_rng(0)).argmax_candidate(scores) == 9


def test_the_tie_tolerance_grows_with_z_squared_in_the_tail() -> None:
    """Issue 25: far in EI's tail rounding noise of the posterior is amplified by about z^2,
    so the tie tolerance is ``rtol * max(1, z^2)`` at the row of the largest EI."""
    from nmthpo.models.acquisition import expected_improvement, tail_rtol

    std = np.array([1.0, 1.0, 2.0])
    near = np.array([0.5, -0.2, 0.0])  # z of the best row: 0.5 -> the plain tolerance
    ei = expected_improvement(near, std, 0.0)
    assert tail_rtol(1e-9, near, std, 0.0, 0.0, ei) == 1e-9
    far = np.array([-12.0, -13.0, -30.0])  # z = -12 at the largest EI
    ei = expected_improvement(far, std, 0.0)
    assert tail_rtol(1e-9, far, std, 0.0, 0.0, ei) == pytest.approx(144e-9)
    assert tail_rtol(0.0, far, std, 0.0, 0.0, ei) == 0.0  # exact ties stay exact
    # the noise it absorbs: a last-bit change of the posterior moves EI there by more than 1e-9
    bumped = expected_improvement(far * (1 + 1e-13), std, 0.0)
    assert abs(bumped[0] / ei[0] - 1) > 1e-12
