"""Tests of nmthpo.models.graph (Zhang & Duh 2020, Section 5.3, Eqs. 4-8)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from nmthpo.models import graph as g
from nmthpo.optimizers.graph import snap_ties


def chain(weights: list[float]) -> np.ndarray:
    """Path graph 0-1-...-m with the given edge weights."""
    n = len(weights) + 1
    W = np.zeros((n, n))
    for i, w in enumerate(weights):
        W[i, i + 1] = W[i + 1, i] = w
    return W


def random_graph(rng: np.random.Generator, n: int = 14, d: int = 3, k: int = 3) -> np.ndarray:
    X = rng.random((n, d))
    return g.build_graph(X, kernel="matern52", k=k).W


def top_set(scores: np.ndarray) -> set[int]:
    s = snap_ties(scores, 1e-9)
    return set(np.flatnonzero(s == np.nanmax(s)).tolist())


# ------------------------------------------------------------------------------------------------
# graph construction
# ------------------------------------------------------------------------------------------------
def test_laplacian_chain_by_hand() -> None:
    W = chain([1.0, 2.0, 3.0])
    expected = np.array([[1, -1, 0, 0], [-1, 3, -2, 0], [0, -2, 5, -3], [0, 0, -3, 3]], dtype=float)
    np.testing.assert_array_equal(g.laplacian(W), expected)
    f = np.array([0.0, 1.0, 3.0, 2.0])
    # E = 1*(1)^2 + 2*(2)^2 + 3*(1)^2 = 12 (Eq. 5)
    assert g.energy(W, f) == pytest.approx(12.0)


def test_median_lengthscale_by_hand() -> None:
    X = np.array([[0.0], [1.0], [3.0]])  # distances 1, 3, 2
    assert g.median_lengthscale(X) == 2.0


def test_tie_inclusive_knn_by_hand() -> None:
    X = np.array([[0.0], [1.0], [2.0], [4.0]])
    A = g.knn_adjacency(g.distance_matrix(X), 1)
    # NN(0)=1, NN(1)={0,2} (tie), NN(2)=1, NN(4)=2 -> edges 0-1, 1-2, 2-3
    expected = chain([1, 1, 1]) > 0
    np.testing.assert_array_equal(A, expected)
    np.testing.assert_allclose(g.mean_degrees(g.distance_matrix(X)), [1.5, 2.5, 3.0])


def test_paper_k_closest_to_n_over_7() -> None:
    rng = np.random.default_rng(0)
    X = rng.random((70, 2))
    dist = g.distance_matrix(X)
    deg = g.mean_degrees(dist)
    k = g.paper_k(dist)
    assert np.abs(deg[k - 1] - 10.0) == np.abs(deg - 10.0).min()
    G = g.build_graph(X)
    assert G.k == k and G.mean_degree == pytest.approx(deg[k - 1])


def test_build_graph_weights_symmetric_kernel_values() -> None:
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    G = g.build_graph(X, kernel="rbf", k=2, lengthscale=1.0)
    assert np.allclose(G.W, G.W.T) and np.all(np.diag(G.W) == 0)
    assert G.W[0, 1] == pytest.approx(np.exp(-0.5))
    assert G.W[0, 2] == pytest.approx(np.exp(-2.0))
    Gm = g.build_graph(X, kernel="matern52", k=2, lengthscale=1.0)
    r = np.sqrt(5.0)
    assert Gm.W[0, 1] == pytest.approx((1 + r + 5 / 3) * np.exp(-r))


def test_build_graph_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="2-D"):
        g.build_graph(np.zeros(5))
    with pytest.raises(ValueError, match="k must be"):
        g.build_graph(np.random.default_rng(0).random((5, 2)), k=5)
    with pytest.raises(ValueError, match="unknown kernel"):
        g.build_graph(np.random.default_rng(0).random((5, 2)), kernel="cosine")


# ------------------------------------------------------------------------------------------------
# harmonic solution (Eq. 7)
# ------------------------------------------------------------------------------------------------
def test_harmonic_chain_by_hand() -> None:
    # 0 -1- 1 -3- 2 with f0 = 0, f2 = 4: f1 = (1*0 + 3*4) / 4 = 3
    f = g.harmonic_solution(chain([1.0, 3.0]), np.array([0, 2]), np.array([0.0, 4.0]))
    np.testing.assert_allclose(f, [0.0, 3.0, 4.0])
    # unit chain 0..3 with f0 = 0, f3 = 3: linear interpolation
    f = g.harmonic_solution(chain([1.0, 1.0, 1.0]), np.array([3, 0]), np.array([3.0, 0.0]))
    np.testing.assert_allclose(f, [0.0, 1.0, 2.0, 3.0])


def test_harmonic_is_energy_minimiser() -> None:
    rng = np.random.default_rng(1)
    W = random_graph(rng, n=12)
    L = np.array([0, 4, 7])
    vals = np.array([1.0, -2.0, 5.0])
    f = g.harmonic_solution(W, L, vals)
    U = np.setdiff1d(np.arange(12), L)

    def e(fu: np.ndarray) -> float:
        full = f.copy()
        full[U] = fu
        return g.energy(W, full)

    res = minimize(e, np.zeros(U.size), method="BFGS", options={"gtol": 1e-10})
    np.testing.assert_allclose(res.x, f[U], atol=1e-5)
    assert e(f[U]) <= res.fun + 1e-9


def test_disconnected_component_gets_prior() -> None:
    W = np.zeros((4, 4))
    W[0, 1] = W[1, 0] = 1.0
    W[2, 3] = W[3, 2] = 1.0
    with pytest.raises(ValueError, match="no labelled node"):
        g.harmonic_solution(W, np.array([0]), np.array([2.0]))
    f = g.harmonic_solution(W, np.array([0]), np.array([2.0]), eps=1e-9, prior=7.0)
    np.testing.assert_allclose(f, [2.0, 2.0, 7.0, 7.0], atol=1e-6)


def test_downdate_equals_fresh_inverse() -> None:
    rng = np.random.default_rng(2)
    W = random_graph(rng, n=15)
    U = np.arange(15)
    G = g.inverse_unlabelled(W, U, 1e-3)
    for row in [3, 11, 0, 14, 7]:
        pos = int(np.searchsorted(U, row))
        G = g.downdate_inverse(G, pos)
        U = np.delete(U, pos)
        np.testing.assert_allclose(G, g.inverse_unlabelled(W, U, 1e-3), rtol=1e-9, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    u=st.integers(1, 150),
    pos_frac=st.floats(0.0, 1.0, exclude_max=True),
    seed=st.integers(0, 2**31),
)
def test_downdate_is_bitwise_the_plain_schur_expression(u: int, pos_frac: float, seed: int) -> None:
    """The banded in-place update gives exactly the numbers of the one-line formula (so cached
    graph-based runs do not change), at any position, across band boundaries (u > 64)."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((u, u))
    G = A @ A.T + u * np.eye(u)
    pos = int(pos_frac * u)
    keep = np.r_[0:pos, pos + 1 : u]
    gcol = G[keep, pos]
    plain = G[np.ix_(keep, keep)] - np.outer(gcol / G[pos, pos], gcol)
    assert np.array_equal(g.downdate_inverse(G, pos), plain)


def test_harmonic_from_inverse_matches_direct_solve() -> None:
    rng = np.random.default_rng(3)
    W = random_graph(rng)
    L = np.array([2, 5, 9])
    vals = np.array([3.0, 1.0, 2.0])
    U = np.setdiff1d(np.arange(W.shape[0]), L)
    G = g.inverse_unlabelled(W, U, 1e-4)
    np.testing.assert_allclose(
        g.harmonic_from_inverse(W, G, U, L, vals, 1e-4, prior=2.0),
        g.harmonic_solution(W, L, vals, eps=1e-4, prior=2.0),
    )


# ------------------------------------------------------------------------------------------------
# finite-set GP view (footnotes 13, 16)
# ------------------------------------------------------------------------------------------------
def test_grf_posterior_equals_gaussian_conditioning() -> None:
    rng = np.random.default_rng(4)
    W = random_graph(rng, n=10)
    eps = 0.05
    L = np.array([1, 6, 8])
    vals = np.array([10.0, 12.0, 11.0])
    U = np.setdiff1d(np.arange(10), L)
    mean, std = g.grf_posterior(W, g.inverse_unlabelled(W, U, eps), U, L, vals, eps)
    m = vals.mean()
    K1 = g.grf_covariance(W, eps, beta=0.5)  # K at 2 beta = 1
    KLL_inv = np.linalg.inv(K1[np.ix_(L, L)])
    scale = (vals - m) @ KLL_inv @ (vals - m) / L.size  # ML estimate of 1 / (2 beta)
    K = g.grf_covariance(W, eps, beta=0.5 / scale)
    KUL, KLL = K[np.ix_(U, L)], K[np.ix_(L, L)]
    np.testing.assert_allclose(mean[U], m + KUL @ np.linalg.solve(KLL, vals - m))
    var = np.diag(K[np.ix_(U, U)] - KUL @ np.linalg.solve(KLL, KUL.T))
    np.testing.assert_allclose(std[U], np.sqrt(var), rtol=1e-8)
    np.testing.assert_array_equal(std[L], 0.0)
    np.testing.assert_array_equal(mean[L], vals)


# ------------------------------------------------------------------------------------------------
# expected influence (Eq. 8)
# ------------------------------------------------------------------------------------------------
def test_binary_labels_and_eif_by_hand() -> None:
    # chain 0-1-2-3-4, weights 1, 3, 1, 1; labelled 0 (best), 2, 4
    W = chain([1.0, 3.0, 1.0, 1.0])
    L = np.array([0, 2, 4])
    vals = np.array([5.0, 1.0, 0.0])
    # p_2: 0 at 1, 4 at 0, resistances 1, 1/3, 1, 1 -> 2 / (10/3) = 0.6 > 0.5 -> 1
    # p_4: 0 at 1, 2 at 0 -> 0 -> 0
    z = g.binary_labels_naive(W, L, vals, 0.0)
    np.testing.assert_array_equal(z, [1.0, 1.0, 0.0])
    # h1 = 1 (between two 1s), h3 = 0.5; EIF(1) = 1 * f3 = 0.5;
    # EIF(3) = 0.5 * f1(+3,1) + 0.5 * (1 - f1(+3,0)) = 0.5 * 1 + 0.5 * 0 = 0.5
    s = g.eif_scores_naive(W, L, vals, 0.0)
    np.testing.assert_allclose(s[[1, 3]], [0.5, 0.5])
    assert np.isnan(s[L]).all()
    U = np.array([1, 3])
    G = g.inverse_unlabelled(W, U, 0.0)
    np.testing.assert_array_equal(g.binary_labels_fast(W, G, U, L, vals, 0.0), z)
    np.testing.assert_allclose(g.eif_scores_fast(W, G, U, L, vals, 0.0)[U], [0.5, 0.5])


def test_gbopt_probability_by_hand() -> None:
    mean = np.array([9.0, 4.0, 6.0, 10.0, 12.0])
    p = g.gbopt_probability(mean, np.array([1, 2, 3, 4]), best=10.0)
    # below best: 0.5 * (10 - mu) / (10 - 4); at/above: 0.5 + 0.5 * (mu - 10) / (12 - 10)
    np.testing.assert_allclose(p, [0.5, 0.5 * 4 / 6, 0.5, 1.0])


@pytest.mark.parametrize("mode", ["text", "gbopt"])
@pytest.mark.parametrize("seed", range(6))
def test_fast_eif_equals_naive_on_random_graphs(seed: int, mode: str) -> None:
    rng = np.random.default_rng(seed)
    n = 16
    W = random_graph(rng, n=n, k=int(rng.integers(2, 5)))
    n_lab = int(rng.integers(2, 8))
    L = rng.choice(n, n_lab, replace=False)
    vals = rng.normal(size=n_lab)
    U = np.setdiff1d(np.arange(n), L)
    eps = g.default_eps(W)
    G = g.inverse_unlabelled(W, U, eps)
    np.testing.assert_array_equal(
        g.binary_labels_fast(W, G, U, L, vals, eps), g.binary_labels_naive(W, L, vals, eps)
    )
    fast = g.eif_scores_fast(W, G, U, L, vals, eps, mode)
    naive = g.eif_scores_naive(W, L, vals, eps, mode)
    np.testing.assert_allclose(fast[U], naive[U], rtol=1e-9, atol=1e-9)
    assert top_set(fast) == top_set(naive)


@pytest.mark.parametrize("task", ["zh-en", "ja-en"])
@pytest.mark.parametrize("mode", ["text", "gbopt"])
def test_fast_eif_equals_naive_on_small_tables(task: str, mode: str) -> None:
    from nmthpo.benchmark.tables import load_table

    table = load_table(task)
    X, y = table.encode("scaled"), table.bleu
    W = g.build_graph(X, kernel="matern52").W
    rng = np.random.default_rng(7)
    for n_lab in (3, 10, 40):
        S = g.GraphSurrogate(W)
        for r in rng.choice(len(y), n_lab, replace=False):
            S.add(int(r), float(y[r]))
        fast, naive = S.eif("fast", mode), S.eif("naive", mode)
        np.testing.assert_allclose(fast, naive, rtol=1e-8, atol=1e-8)
        assert top_set(fast) == top_set(naive)


def test_surrogate_incremental_inverse_and_predictions() -> None:
    rng = np.random.default_rng(5)
    W = random_graph(rng, n=20)
    S = g.GraphSurrogate(W, refresh_every=0)
    y = rng.normal(size=20)
    S.add(0, y[0])
    S.inverse()  # computed with one label, then downdated
    for r in [5, 9, 13, 17, 2]:
        S.add(r, y[r])
    np.testing.assert_allclose(
        S.inverse(), g.inverse_unlabelled(W, S.unlabelled, S.eps), rtol=1e-9, atol=1e-12
    )
    L = np.array(S.labelled)
    np.testing.assert_allclose(
        S.predict(), g.harmonic_solution(W, L, y[L], eps=S.eps, prior=float(y[L].mean()))
    )
    with pytest.raises(ValueError, match="already labelled"):
        S.add(5, 1.0)
    with pytest.raises(ValueError, match="unknown EIF method"):
        S.eif("slow")
    with pytest.raises(RuntimeError, match="no labelled rows"):
        g.GraphSurrogate(W).predict()


@pytest.mark.parametrize("mode", ["text", "gbopt", "gbopt-ties"])
def test_surrogate_caches_are_bitwise_the_uncached_solves(mode: str) -> None:
    """predict(), posterior() and eif() share one W[U, L] copy and one harmonic solve per
    labelling: the numbers are bitwise those of the free functions, and a new label clears
    them (the cached prediction of the old labelling is never served)."""
    rng = np.random.default_rng(11)
    W = random_graph(rng, n=40, k=5)
    y = rng.normal(size=40)
    S = g.GraphSurrogate(W)
    for step, r in enumerate([3, 17, 8, 29, 0, 35, 21]):
        S.add(r, y[r])
        L = np.array(S.labelled)
        G, U = S.inverse(), S.unlabelled
        plain_f = g.harmonic_from_inverse(W, G, U, L, y[L], S.eps, prior=float(y[L].mean()))
        plain_m, plain_s = g.grf_posterior(W, G, U, L, y[L], S.eps)
        m, s = S.posterior()
        assert np.array_equal(S.predict(), plain_f)
        assert np.array_equal(m, plain_m) and np.array_equal(s, plain_s)
        if step:  # eif needs two labels
            assert np.array_equal(
                S.eif(mode=mode), g.eif_scores_fast(W, G, U, L, y[L], S.eps, mode), equal_nan=True
            )
        S.predict()[:] = 0.0  # a copy: the cache cannot be changed from outside
        assert np.array_equal(S.predict(), plain_f)


# -- graph cache and the unlabelled inverse ------------------------------------------------------
def test_cached_graphs_are_identical_to_rebuilt_ones() -> None:
    rng = np.random.default_rng(4)
    X = rng.uniform(size=(60, 3))
    g.clear_graph_cache()
    first = g.build_graph(X, kernel="matern52", k=6)
    assert g.build_graph(X.copy(), kernel="matern52", k=6) is first  # same bytes: same graph
    other = g.build_graph(X, kernel="rbf", k=6)
    assert other is not first and g.build_graph(X, kernel="matern52", k=7) is not first
    with pytest.raises(ValueError):
        first.W[0, 1] = 1.0  # shared by trials: read-only
    g.clear_graph_cache()
    fresh = g.build_graph(X, kernel="matern52", k=6)
    assert fresh is not first
    np.testing.assert_array_equal(fresh.W, first.W)
    assert (fresh.k, fresh.lengthscale, fresh.mean_degree, fresh.n_components) == (
        first.k,
        first.lengthscale,
        first.mean_degree,
        first.n_components,
    )
    for _ in range(g.GRAPH_CACHE_SIZE):  # the cache is bounded
        g.build_graph(rng.uniform(size=(10, 2)), k=3)
    assert g.build_graph(X, kernel="matern52", k=6) is not fresh


def test_dpotri_inverse_equals_cho_solve() -> None:
    from scipy import linalg

    X = np.random.default_rng(5).uniform(size=(80, 3))
    W = g.build_graph(X, k=8).W
    U = np.setdiff1d(np.arange(80), [3, 17, 42])
    eps = g.default_eps(W)
    G = g.inverse_unlabelled(W, U, eps)
    A = np.diag(W.sum(axis=1)[U] + eps) - W[np.ix_(U, U)]
    ref = linalg.cho_solve(linalg.cho_factor(A), np.eye(U.size))
    np.testing.assert_allclose(G, 0.5 * (ref + ref.T), rtol=1e-9, atol=1e-12 * np.abs(ref).max())
    np.testing.assert_array_equal(G, G.T)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 40), seed=st.integers(0, 2**31))
def test_submatrix_is_the_fancy_index(n: int, seed: int) -> None:
    from nmthpo.models.harmonic import submatrix

    rng = np.random.default_rng(seed)
    W = rng.random((n, n))
    rows = np.sort(rng.choice(n, rng.integers(0, n + 1), replace=False))
    cols = rng.permutation(n)[: rng.integers(0, n + 1)]
    got = submatrix(W, rows, cols)
    assert np.array_equal(got, W[np.ix_(rows, cols)]) and got.flags.c_contiguous
    assert got.flags.writeable and not np.shares_memory(got, W)


def test_laplacian_of_a_shared_graph_is_computed_once() -> None:
    from nmthpo.models import knn_graph

    W = random_graph(np.random.default_rng(4)).copy()
    fresh = knn_graph.laplacian(W)  # writeable: not cached
    assert knn_graph.laplacian(W) is not fresh
    W.setflags(write=False)
    first = knn_graph.laplacian(W)
    assert knn_graph.laplacian(W) is first and not first.flags.writeable
    np.testing.assert_array_equal(first, fresh)
