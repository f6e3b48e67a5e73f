"""Tests for nmthpo.studies.genetic: operators, one GA iteration, the baseline's closed form, the
study."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nmthpo.studies.genetic as ga
from nmthpo.engine.stats import check_claims_table
from nmthpo.studies.genetic import (
    GARules,
    GeneSpace,
    baseline_counts,
    baseline_expectation,
    ga_count,
    ga_study,
    one_point_crossover,
    roulette,
    selection_probabilities,
    two_point_crossover,
    weakest_index,
)


def tiny_space() -> GeneSpace:
    """Two binary genes; (1, 1) is the only target (BLEU 20); (1, 0) ... all present."""
    configs = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 1, 0, 1]})
    return GeneSpace.from_table(configs, np.array([1.0, 2.0, 3.0, 20.0]))


# -- operators -------------------------------------------------------------------------------
def test_selection_probabilities_papers_example():
    # Section 3.3: fitnesses 10, 25, 15, 5, 45 -> 10%, 25%, 15%, 5%, 45%
    np.testing.assert_allclose(selection_probabilities([10, 25, 15, 5, 45]),
                               [0.10, 0.25, 0.15, 0.05, 0.45])


def test_roulette_ranges_papers_example():
    # cumulative ranges [10, 35, 50, 55, 100]
    f = [10, 25, 15, 5, 45]
    assert roulette(f, 0.05) == 0
    assert roulette(f, 0.10) == 1
    assert roulette(f, 0.34) == 1
    assert roulette(f, 0.52) == 3
    assert roulette(f, 0.999) == 4


def test_roulette_frequencies_and_zero_fitness_never_picked():
    rng = np.random.default_rng(0)
    f = [0.0, 1.0, 0.0, 3.0]
    picks = np.array([roulette(f, u) for u in rng.random(20000)])
    assert not np.isin(picks, [0, 2]).any()
    assert abs((picks == 3).mean() - 0.75) < 0.015


def test_roulette_rejects_zero_total():
    with pytest.raises(ValueError, match="positive total"):
        roulette([0.0, 0.0], 0.5)


def test_one_point_crossover_by_hand():
    p1, p2 = (0, 0, 0, 0, 0, 0), (1, 2, 1, 1, 1, 2)
    assert one_point_crossover(p1, p2, 2) == (0, 0, 1, 1, 1, 2)
    assert one_point_crossover(p1, p2, 0) == p2
    assert one_point_crossover(p1, p2, 6) == p1
    with pytest.raises(ValueError):
        one_point_crossover(p1, p2, 7)


def test_two_point_crossover_by_hand():
    p1, p2 = (0, 0, 0, 0, 0, 0), (1, 1, 1, 1, 1, 1)
    assert two_point_crossover(p1, p2, 4, 1) == (0, 1, 1, 1, 0, 0)


def test_weakest_is_first_minimum():
    assert weakest_index([3.0, 1.0, 5.0, 1.0]) == 1


def test_gene_space_of_ja_en():
    from nmthpo.benchmark.tables import load_table

    t = load_table("ja-en")
    sp = GeneSpace.from_table(t.configs, t.bleu)
    assert sp.n_rows == 150 and sp.grid_size == 216
    assert sp.values[0] == (10000.0, 30000.0, 50000.0)
    assert sp.fitness[sp.chromosome(int(np.argmax(t.bleu)))] == pytest.approx(16.41)
    assert sp.decode(sp.chromosome(0)) == tuple(float(v) for v in t.configs.iloc[0])


# -- mutation ----------------------------------------------------------------------------------
def test_mutation_redraws_one_present_value_and_spares_the_weakest():
    configs = pd.DataFrame({"a": [0, 5, 9, 5], "b": [1, 1, 2, 2], "c": [7, 8, 7, 8]})
    sp = GeneSpace.from_table(configs, np.array([1.0, 2.0, 3.0, 4.0]))
    pools = ga._mutation_pools(sp, "value")
    assert pools == [[0, 1, 2], [0, 1], [0, 1]]
    u = ga._Uniforms(np.random.default_rng(1))
    rules = GARules()
    for _ in range(300):
        pop = [sp.chromosome(r) for r in (0, 1, 2, 3)]
        fit = [sp.fitness[c] for c in pop]
        before = list(pop)
        ga._mutate(pop, fit, 0, set(pop), sp.fitness, pools, sp.n_rows, u, rules)
        assert pop[0] == before[0]  # the weakest is never mutated
        changed = [k for k in range(4) if pop[k] != before[k]]
        assert len(changed) <= 1
        for k in changed:
            assert sum(a != b for a, b in zip(pop[k], before[k], strict=True)) == 1
            assert all(0 <= v < len(sp.values[g]) for g, v in enumerate(pop[k]))
            assert fit[k] == sp.fitness.get(pop[k], 0.0)


# -- one iteration -------------------------------------------------------------------------------
def test_tiny_space_is_solved_by_one_crossover_and_replaces_the_weakest():
    # population (0,1) f=2 and (1,0) f=3; no mutation. The only new child the two can make is
    # (1,1) = (fitter (1,0))[:1] + (0,1)[1:]: it is added in place of the weakest (index 0).
    sp = tiny_space()
    trace: list[list[tuple[int, ...]]] = []
    rules = GARules(mutation_rate=0.0)
    count = ga_count(sp, [1, 2], 20.0, np.random.default_rng(0), rules, trace=trace)
    assert count == 3  # 2 initial + 1 added
    assert trace[-1] == [(1, 1), (1, 0)]
    assert all(t == [(0, 1), (1, 0)] for t in trace[:-1])  # duplicates were not added


def test_stop_rule_initial_population():
    sp = tiny_space()
    # a target in the initial population: 2 if tested, else one cycle breeds first
    assert ga_count(sp, [3, 0], 20.0, np.random.default_rng(0),
                    GARules(check_initial=True)) == 2
    counts = {ga_count(sp, [3, 0], 20.0, np.random.default_rng(s), GARules(mutation_rate=0.0))
              for s in range(20)}
    assert counts <= {2, 3}


def test_stop_as_soon_as_target_is_in_population():
    sp = tiny_space()
    trace: list[list[tuple[int, ...]]] = []
    ga_count(sp, [0, 1, 2], 20.0, np.random.default_rng(5), GARules(), trace=trace)
    hits = [any(sp.fitness.get(c, 0) >= 20 for c in t) for t in trace]
    assert hits[-1] and not any(hits[:-1])


def test_invalid_offspring_counted_then_replaced():
    # (1, 1) is missing from the table: fitness 0, added (counted) in place of the weakest
    configs = pd.DataFrame({"a": [0, 0, 1], "b": [0, 1, 0]})
    sp = GeneSpace.from_table(configs, np.array([1.0, 2.0, 3.0]))
    trace: list[list[tuple[int, ...]]] = []
    with pytest.raises(RuntimeError):  # no target reachable: the guard fires
        old = ga.MAX_CYCLES
        ga.MAX_CYCLES = 200
        try:
            ga_count(sp, [1, 2], 10.0, np.random.default_rng(0), GARules(mutation_rate=0.0),
                     trace=trace)
        finally:
            ga.MAX_CYCLES = old
    assert (1, 1) in trace[-1]
    # (1,1) entered once only (history memory), then nothing new can be bred
    entries = sum(1 for a, b in zip(trace, trace[1:], strict=False) if a != b)
    assert entries <= 1


def test_count_invalid_false_discards_missing_offspring():
    configs = pd.DataFrame({"a": [0, 0, 1], "b": [0, 1, 0]})
    sp = GeneSpace.from_table(configs, np.array([1.0, 2.0, 3.0]))
    trace: list[list[tuple[int, ...]]] = []
    old = ga.MAX_CYCLES
    ga.MAX_CYCLES = 100
    try:
        with pytest.raises(RuntimeError):
            ga_count(sp, [1, 2], 10.0, np.random.default_rng(0),
                     GARules(mutation_rate=0.0, count_invalid=False), trace=trace)
    finally:
        ga.MAX_CYCLES = old
    assert all((1, 1) not in t for t in trace)


def test_ga_count_deterministic_for_a_seed():
    from nmthpo.benchmark.tables import load_table

    t = load_table("ja-en")
    sp = GeneSpace.from_table(t.configs, t.bleu)
    a = [ga_count(sp, [0, 5, 9, 40, 77], 16.0, np.random.default_rng(s)) for s in range(20)]
    b = [ga_count(sp, [0, 5, 9, 40, 77], 16.0, np.random.default_rng(s)) for s in range(20)]
    assert a == b and len(set(a)) > 1


def test_rules_validation():
    with pytest.raises(ValueError, match="memory"):
        GARules(memory="forever").validate()
    with pytest.raises(ValueError, match="mutation_rate"):
        GARules(mutation_rate=2.0).validate()


# -- baseline closed form ----------------------------------------------------------------------
def test_baseline_expectation_by_hand():
    # with replacement: m + (1 - p)^m / p, p = 7/150
    mean, _ = baseline_expectation(150, 7, 5)
    assert mean == pytest.approx(5 + (143 / 150) ** 5 * 150 / 7)
    # without replacement, distinct initial rows: m + P0 * (n - m + 1) / (b + 1)
    mean, _ = baseline_expectation(150, 7, 5, replacement=False, init_replacement=False)
    p0 = np.prod([(143 - i) / (150 - i) for i in range(5)])
    assert mean == pytest.approx(5 + p0 * 146 / 8)
    # the reproduced rule for ja-en, m = 5..25
    got = [baseline_expectation(150, 7, m)[0] for m in (5, 10, 15, 20, 25)]
    np.testing.assert_allclose(got, [21.874, 23.287, 25.463, 28.239, 31.488], atol=1e-3)


@pytest.mark.parametrize("replacement", [True, False])
@pytest.mark.parametrize("init_replacement", [True, False])
def test_baseline_closed_form_matches_simulation(replacement, init_replacement):
    n, m, iters = 150, 10, 40000
    is_hit = np.zeros(n, dtype=bool)
    is_hit[[3, 17, 40, 41, 99, 120, 149]] = True
    rng = np.random.default_rng(11)
    init = ga.initial_populations(n, m, iters, rng, init_replacement)
    sim = baseline_counts(is_hit, init, rng, replacement)
    mean, var = baseline_expectation(n, 7, m, replacement, init_replacement)
    assert abs(sim.mean() - mean) < 4 * np.sqrt(var / iters)
    assert sim.var() == pytest.approx(var, rel=0.05)


def test_baseline_without_replacement_simulated_by_permutation():
    # the Beta/Binomial draw equals "first target in a random order of the unseen rows"
    n, b, m = 20, 3, 4
    is_hit = np.zeros(n, dtype=bool)
    is_hit[:b] = True
    rng = np.random.default_rng(2)
    init = np.tile(np.arange(10, 10 + m), (30000, 1))
    fast = baseline_counts(is_hit, init, rng, replacement=False)
    rest = np.setdiff1d(np.arange(n), init[0])
    perm = np.array([m + 1 + int(np.argmax(is_hit[rng.permutation(rest)])) for _ in range(30000)])
    assert abs(fast.mean() - perm.mean()) < 0.1
    assert fast.mean() == pytest.approx(m + (n - m + 1) / (b + 1), abs=0.1)


# -- the study ---------------------------------------------------------------------------------
def test_study_deterministic_and_shaped():
    a = ga_study(init_pops=(5, 10), iterations=30, trials=2, seed=4)
    b = ga_study(init_pops=(5, 10), iterations=30, trials=2, seed=4)
    c = ga_study(init_pops=(5, 10), iterations=30, trials=2, seed=5)
    for m in (5, 10):
        np.testing.assert_array_equal(a.ga_counts[m], b.ga_counts[m])
        np.testing.assert_array_equal(a.baseline_counts[m], b.baseline_counts[m])
    assert any((a.ga_counts[m] != c.ga_counts[m]).any() for m in (5, 10))
    assert list(a.per_trial("ga").columns) == ["trial 1", "trial 2"]
    assert (a.ga_counts[5] >= 5).all() and (a.baseline_counts[10] >= 10).all()
    d = a.to_dict()
    assert set(d["ga"]) == {"5", "10"} and set(d["baseline"]) == {"5", "10"}


def test_study_shares_initial_populations():
    # an iteration whose initial population holds a target: the baseline counts exactly m
    s = ga_study(init_pops=(25,), iterations=200, trials=1, seed=0)
    base = s.baseline_counts[25][0]
    assert (base == 25).mean() == pytest.approx(1 - (143 / 150) ** 25, abs=0.1)
    # ... and the GA (which breeds one cycle first) counts at most 2 more there
    assert set(s.ga_counts[25][0][base == 25]) <= {25, 26, 27}  # offspring (+ mutant)


def test_study_errors():
    with pytest.raises(KeyError, match="unknown task"):
        ga_study("xx-en", iterations=2, trials=1)
    with pytest.raises(ValueError, match="never stop"):
        ga_study(target=16.5, iterations=2, trials=1)
    with pytest.raises(ValueError, match=">= 2"):
        ga_study(init_pops=(0,), iterations=2, trials=1)
    with pytest.raises(ValueError, match="iterations"):
        ga_study(iterations=0)


def test_variant_table_and_fair_comparison_shapes():
    v = ga.variant_table(init_pops=(5,), iterations=20, trials=1)
    assert list(v.index) == [*ga.VARIANTS, "baseline"]
    assert list(v.columns) == ["5"]
    f = ga.fair_comparison(init_pops=(5,), iterations=20, trials=1)
    assert f.loc[5, "random_exact"] == pytest.approx(
        baseline_expectation(150, 7, 5, False, False)[0])


@pytest.mark.slow
def test_reproduces_paper_baseline_and_small_population_ga():
    s = ga_study(seed=0)
    z = (pd.Series(ga.PAPER_BASELINE) - s.average("baseline")) / (np.sqrt(2) * s.std_error(
        "baseline"))
    assert (z.abs() < 3).all()
    zg = (pd.Series(ga.PAPER_GA) - s.average("ga")) / (np.sqrt(2) * s.std_error("ga"))
    assert (zg.loc[[5, 10, 15]].abs() < 3).all()


# -- Chapter 5 helpers: rule fits, verdicts, protocol comparison, cache -------------------------
def test_baseline_rule_table_by_hand():
    t = ga.baseline_rule_table(init_pops=(5,))
    mu, var = baseline_expectation(150, 7, 5)
    row = t.loc["draws with replacement (pinned)"]
    assert row["5"] == pytest.approx(mu) and mu == pytest.approx(21.874, abs=1e-3)
    assert row["chi2"] == pytest.approx((21.425 - mu) ** 2 / (var / 3000))
    trials = ga.PAPER_BASELINE_TRIALS[5]
    assert row["chi2_trials"] == pytest.approx(sum((v - mu) ** 2 / (var / 1000) for v in trials))
    assert row["dof"] == 1 and row["dof_trials"] == 3
    full = ga.baseline_rule_table()
    assert full.loc["draws with replacement (pinned)", "p"] > 0.5
    assert full.loc["distinct rows throughout (no re-draws)", "p"] < 1e-6
    assert full.loc["distinct rows throughout (no re-draws)", "5"] == pytest.approx(
        baseline_expectation(150, 7, 5, False, False)[0])
    with pytest.raises(ValueError, match="sizes"):
        ga.baseline_rule_table(init_pops=(7,))


def test_ga_rule_table_matches_the_study():
    t = ga.ga_rule_table(init_pops=(5,), iterations=20, trials=1,
                         alternatives={"pinned": {}, "no mutants": {"count_mutants": "none"}})
    s = ga_study(init_pops=(5,), iterations=20, trials=1)
    assert t.loc["pinned", "5"] == pytest.approx(s.average("ga")[5])
    z = (ga.PAPER_GA[5] - s.average("ga")[5]) / (np.sqrt(2) * s.std_error("ga")[5])
    assert t.loc["pinned", "5 z"] == pytest.approx(z)
    assert t.loc["pinned", "chi2"] == pytest.approx(z**2)
    assert list(t.index) == ["pinned", "no mutants"]


def test_paper_comparison_cells_and_verdicts():
    s = ga_study(init_pops=(5, 10), iterations=40, trials=2, seed=1)
    c = ga.paper_comparison(s, "ga", k=2.0)
    per = s.per_trial("ga")
    assert c.loc[5, "trial 2"] == pytest.approx(per.loc[5, "trial 2"])
    assert c.loc[10, "trial 1 paper"] == ga.PAPER_GA_TRIALS[10][0]
    assert c.loc[10, "paper sd trial"] == pytest.approx(np.std(ga.PAPER_GA_TRIALS[10], ddof=1))
    assert c.loc[5, "average"] == pytest.approx(s.average("ga")[5])
    z = (ga.PAPER_GA[5] - s.average("ga")[5]) / (np.sqrt(2) * s.std_error("ga")[5])
    assert c.loc[5, "z"] == pytest.approx(z)
    assert c.loc[5, "verdict"] == ("reproduced" if abs(z) <= 2 else "not reproduced")
    sigma = np.sqrt(2) * s.std_error("ga")[5]
    assert c.loc[5, "95% CI low"] == pytest.approx(s.average("ga")[5] - 2 * sigma)
    assert c.loc[5, "95% CI high"] == pytest.approx(s.average("ga")[5] + 2 * sigma)
    check_claims_table(c)
    # the default k is the 95 % normal quantile; the verdict follows from the interval
    c95 = ga.paper_comparison(s, "baseline")
    check_claims_table(c95)
    for m in (5, 10):
        lo, hi = c95.loc[m, "95% CI low"], c95.loc[m, "95% CI high"]
        assert hi - lo == pytest.approx(2 * 1.96 * np.sqrt(2) * s.std_error("baseline")[m])
        inside = lo <= ga.PAPER_BASELINE[m] <= hi
        assert c95.loc[m, "verdict"] == ("reproduced" if inside else "not reproduced")
    d = ga.paper_comparison(s, "difference")
    assert d.loc[10, "average"] == pytest.approx(s.difference()[10])
    assert d.loc[10, "se"] == pytest.approx(s.difference_se()[10])
    assert "trial 1" not in d.columns
    with pytest.raises(ValueError, match="which"):
        ga.paper_comparison(s, "table 5")


def test_protocol_comparison_paired_by_trial():
    per = pd.DataFrame({
        "method": ["ga"] * 3 + ["rs"] * 3, "task": ["zh-en"] * 6,
        "trial": [0, 1, 2] * 2, "ftb": [10.0, 20.0, 30.0, 14.0, 22.0, 36.0],
    })
    c = ga.protocol_comparison(per)
    row = c.loc[("zh-en", "rs")]
    d = np.array([4.0, 2.0, 6.0])
    assert row["ga"] == 20.0 and row["other"] == 24.0 and row["difference"] == 4.0
    assert row["se"] == pytest.approx(d.std(ddof=1) / np.sqrt(3))
    assert row["z"] == pytest.approx(4.0 / row["se"])
    with pytest.raises(ValueError, match="not in the frame"):
        ga.protocol_comparison(per, method="bo-ei-m")
    with pytest.raises(ValueError, match="lacks column"):
        ga.protocol_comparison(per, metric="fb")


def test_cached_table_recomputes_identically_and_reads_back(tmp_path):
    kw = dict(init_pops=(5,), iterations=15, trials=1, with_se=True,
              variants={"paper": {}, "two-point crossover": {"two_point": True}})
    first = ga.cached_table("variants", cache_dir=tmp_path, **kw)
    direct = ga.variant_table(**kw)
    pd.testing.assert_frame_equal(first, direct)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == 2 and files[0].endswith(".json") and files[1].endswith(".parquet")

    # a second call (defaults spelled out: the same key) reads the file back: poison it to see
    parquet = tmp_path / files[1]
    (direct * 0).to_parquet(parquet)
    again = ga.cached_table("variants", cache_dir=tmp_path, seed=0, target=16.0, **kw)
    pd.testing.assert_frame_equal(again, direct * 0)
    fresh = ga.cached_table("variants", cache_dir=tmp_path, use_cache=False, **kw)
    pd.testing.assert_frame_equal(fresh, direct)  # computed, the poisoned file ignored
    assert len(list(tmp_path.iterdir())) == 2
    with pytest.raises(ValueError, match="unknown kind"):
        ga.cached_table("tables", cache_dir=tmp_path)
    with pytest.raises(TypeError, match="bad parameters"):
        ga.cached_table("rules", cache_dir=tmp_path, nonsense=1)
