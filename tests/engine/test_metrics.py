import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nmthpo.benchmark.tables import load_table
from nmthpo.data import installed_path
from nmthpo.engine import metrics as M


@pytest.fixture(scope="module")
def example():
    return M.read_sequences(installed_path("scripts/examples/example.ss")), load_table("zh-en")


def _mean(frame, col):
    return round(float(frame[col].mean()), 4)


def test_upstream_example_single_objective(example):
    seqs, table = example
    f = M.evaluate_sequences(seqs, table.bleu, ties="first-id", n_init=3, budget=20)
    assert _mean(f, "ftb") == 38.52
    assert _mean(f, "ftc") == 10.11
    assert _mean(f, "fb") == 0.1404
    # the paper's wording ("reach the best value") differs on zh-en's three-way tie
    g = M.evaluate_sequences(seqs, table.bleu, ties="value")
    assert _mean(g, "ftb") == 20.15
    assert g.attrs["ties"] == "value"


def test_upstream_example_pareto(example):
    seqs, table = example
    f = M.evaluate_sequences(seqs, table.bleu, table.pareto, objective="pareto", budget=50)
    assert _mean(f, "fto") == 24.35
    assert _mean(f, "fta") == 112.2
    assert _mean(f, "fbp") == 1.05


def test_hand_computed_runtimes():
    bleu = np.array([1.0, 5.0, 3.0, 5.0, 4.6])
    assert M.ftb([0, 2, 3, 1], bleu, "value") == 3  # floored at n_init
    assert M.ftb([0, 2, 4, 0 + 3, 1], bleu, "value", n_init=1) == 4
    assert M.ftb([0, 2, 4, 3, 1], bleu, "first-id", n_init=1) == 5
    assert M.ftc([0, 2, 4, 3, 1], bleu, tolerance=0.5, n_init=1) == 3
    assert M.fb([0, 2, 4, 3, 1], bleu, budget=2) == 2.0
    assert np.isnan(M.ftb([0, 2], bleu))
    pareto = np.array([False, True, False, True, False])
    assert M.fto([0, 2, 4, 3, 1], pareto, n_init=1) == 4
    assert M.fta([0, 2, 4, 3, 1], pareto, n_init=1) == 5
    assert M.fbp([0, 2, 4, 3, 1], pareto, budget=4) == 1


def test_early_stopped_sequences_are_complete_for_fixed_budget():
    bleu = np.array([1.0, 5.0, 3.0, 2.0])
    assert M.fb([1, 0, 2], bleu, budget=4) == 0.0
    assert np.isnan(M.fb([0, 2], bleu, budget=4))
    pareto = np.array([False, True, False, False])
    assert M.fbp([1], pareto, budget=3) == 1


def test_validation_errors():
    with pytest.raises(ValueError, match="outside the table"):
        M.validate_sequence([0, 5], 5)
    with pytest.raises(ValueError, match="more than once"):
        M.validate_sequence([0, 1, 1], 5)
    with pytest.raises(ValueError, match="tolerance"):
        M.ftc([0], np.ones(3), tolerance=-1)
    with pytest.raises(
        ValueError, match="budget=4: must be at most 3; between 1 and the table's 3"
    ):
        M.evaluate_sequences([[0]], np.ones(3), budget=4)
    with pytest.raises(ValueError, match="ties"):
        M.evaluate_sequences([[0]], np.ones(3), ties="last")


def test_sequences_round_trip(tmp_path):
    seqs = [[3, 1, 2], [0, 4]]
    M.write_sequences(tmp_path / "a.ss", seqs)
    assert M.read_sequences(tmp_path / "a.ss") == seqs
    assert (tmp_path / "a.ss").read_text() == "3 1 2\n0 4\n"
    (tmp_path / "b.ss").write_text("1 x 2\n")
    with pytest.raises(ValueError, match="line 1"):
        M.read_sequences(tmp_path / "b.ss")


def test_expected_random_search_ftb():
    assert M.expected_rs_ftb(767) == pytest.approx(384.0039, abs=1e-4)
    # brute force over all positions for a small table
    n, m = 10, 3
    assert M.expected_rs_ftb(n, m) == pytest.approx(np.mean([max(k, m) for k in range(1, n + 1)]))
    # with ties: simulate
    rng = np.random.default_rng(0)
    sims = [max(int(np.flatnonzero(rng.permutation(12) < 3)[0]) + 1, 3) for _ in range(20000)]
    assert M.expected_rs_ftb(12, 3, n_best=3) == pytest.approx(np.mean(sims), abs=0.05)


def test_summarise_and_curves():
    s = M.summarise(np.array([[1.0], [3.0]]))
    assert s.loc[0, "mean"] == 2 and s.loc[0, "std"] == 1  # ddof=0
    bleu = np.array([1.0, 3.0, 2.0])
    assert M.best_so_far([0, 2, 1], bleu, length=5).tolist() == [1, 2, 3, 3, 3]
    assert M.regret_curve([0, 2, 1], bleu).tolist() == [2, 1, 0]


def test_hypervolume_hand_computed():
    ref = np.array([0.0, 10.0])  # BLEU 0, time 10
    assert M.hypervolume(np.array([2.0]), np.array([4.0]), ref) == pytest.approx(12.0)
    hv = M.hypervolume(np.array([2.0, 1.0]), np.array([4.0, 2.0]), ref)
    assert hv == pytest.approx(12.0 + 1.0 * 2.0)
    curve = M.hypervolume_curve([0, 1], np.array([2.0, 1.0]), np.array([4.0, 2.0]), ref)
    assert curve.tolist() == pytest.approx([12.0, 14.0])
    table = load_table("ja-en")
    r = M.reference_point(table.bleu, table.time)
    full = M.hypervolume(table.bleu, table.time, r)
    front = M.hypervolume(table.bleu[table.pareto], table.time[table.pareto], r)
    assert full == pytest.approx(front) and full > 0


finite = st.floats(0, 30, allow_nan=False, width=32)


@settings(max_examples=60, deadline=None)
@given(st.lists(finite, min_size=2, max_size=30), st.randoms(use_true_random=False))
def test_property_runtimes(values, rnd):
    bleu = np.array(values, dtype=float)
    seq = list(range(len(bleu)))
    rnd.shuffle(seq)
    n_init = 3
    ftb_v = M.ftb(seq, bleu, "value", n_init)
    ftb_f = M.ftb(seq, bleu, "first-id", n_init)
    ftc_v = M.ftc(seq, bleu, 0.5, n_init)
    assert n_init <= ftc_v <= ftb_v <= ftb_f <= max(len(bleu), n_init)
    assert M.fb(seq, bleu, budget=len(bleu)) == 0
    assert M.fb(seq, bleu, budget=1) == bleu.max() - bleu[seq[0]]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(finite, finite), min_size=1, max_size=25), st.randoms(use_true_random=False)
)
def test_property_hypervolume_monotone_and_front_only(points, rnd):
    from nmthpo.benchmark.tables import pareto_mask

    arr = np.array(points, dtype=float)
    bleu, time = arr[:, 0], arr[:, 1]
    ref = M.reference_point(np.append(bleu, 0.0), np.append(time, 31.0))
    order = list(range(len(bleu)))
    rnd.shuffle(order)
    curve = M.hypervolume_curve(order, bleu, time, ref)
    assert np.all(np.diff(curve) >= -1e-9)
    mask = pareto_mask(bleu, time)
    assert curve[-1] == pytest.approx(M.hypervolume(bleu[mask], time[mask], ref))
    pareto = mask
    assert M.fta(order, pareto, 1) >= M.fto(order, pareto, 1)
    assert M.fbp(order, pareto, budget=len(order)) == pareto.sum()


def test_regret_at_budgets_is_fb_at_each_budget():
    from nmthpo.engine.metric_names import check_metric, regret_budget
    from nmthpo.engine.metrics import evaluate_sequences, fb, regret_at

    bleu = np.array([1.0, 5.0, 3.0, 9.0, 2.0, 4.0])
    seqs = [[0, 2, 1, 3, 4, 5], [5, 4, 3, 2, 1, 0]]
    frame = evaluate_sequences(seqs, bleu, n_init=1, budget=2, regret_at=[1, 3, 4])
    assert list(frame.columns) == ["trial", "ftb", "ftc", "fb", "regret@1", "regret@3", "regret@4"]
    assert frame["regret@1"].tolist() == [8.0, 5.0] and frame["regret@4"].tolist() == [0.0, 0.0]
    assert frame["regret@3"].tolist() == [regret_at(s, bleu, 3) for s in seqs]
    assert regret_at(seqs[0], bleu, 2) == fb(seqs[0], bleu, 2)
    assert [regret_budget(m) for m in ("regret@25", "regret@0", "regret@x", "fb")] == [
        25,
        None,
        None,
        None,
    ]
    assert check_metric("regret@7", "bleu") == "regret@7"
    with pytest.raises(ValueError, match="not a metric of objective 'pareto'"):
        check_metric("regret@7", "pareto")
    with pytest.raises(ValueError, match="regret_at"):
        evaluate_sequences(seqs, bleu, n_init=1, budget=2, regret_at=[7])
