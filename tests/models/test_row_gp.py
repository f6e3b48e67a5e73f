"""Tests of nmthpo.models.row_gp.RowGP: exact conditioning between refits, independent of
predict calls, the shared refit schedule."""

import numpy as np

from nmthpo.models.gp import GaussianProcess
from nmthpo.models.row_gp import RowGP


def _toy(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    bleu = 20 - 10 * (X[:, 0] - 0.7) ** 2 + X[:, 1]
    time = np.exp(5 + X[:, 0] + 0.5 * X[:, 2])
    return X, np.column_stack([bleu, time])


def test_rowgp_equals_gaussian_process_conditioning():
    X, Y = _toy(60)
    g = RowGP(X, "matern52", seed=0, refit_growth=0.5, refit_until=10)
    for r in range(25):  # last refit at 10 observations, then 15 exact O(tN) extensions
        g.add(r, Y[r, 0])
    mean, var = g.predict()
    h = g.hyperparameters
    gp = GaussianProcess(
        "matern52", lengthscales=h["lengthscales"], variance=h["variance"], noise=h["noise"]
    ).fit(X[:25], Y[:25, 0], optimize=False)
    m2, v2 = gp.predict(X)
    np.testing.assert_allclose(mean, m2, atol=1e-8)
    np.testing.assert_allclose(var, v2, atol=1e-8)


def test_rowgp_does_not_depend_on_predict_calls():
    X, Y = _toy(50)
    a = RowGP(X, "rbf", seed=1)
    b = RowGP(X, "rbf", seed=1)
    for r in range(20):
        a.add(r, Y[r, 0])
        b.add(r, Y[r, 0])
        a.predict()  # b is only synced at the end
    np.testing.assert_allclose(a.predict()[0], b.predict()[0], atol=1e-10)


def test_rowgp_schedule_is_the_shared_one_with_unchanged_defaults():
    from nmthpo.models.refit import RefitSchedule

    X, Y = _toy(20)
    g = RowGP(X, "matern52", seed=0)
    assert g.schedule == RefitSchedule(
        growth=0.2, until=200, first_fit=3, restarts=2, restart_rule="doubling"
    )
    assert g.model.between == "keep" and g.gp is None
    for r in range(2):  # before the first checkpoint: initial hyperparameters
        g.add(r, Y[r, 0])
    assert g.hyperparameters["variance"] == 1.0 and g.model.history.last_fit_n is None
