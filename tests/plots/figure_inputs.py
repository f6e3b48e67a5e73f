"""Small synthetic inputs, shaped like the chapters' (six tasks, every method of a chapter),
for every figure function of :mod:`nmthpo.plots`: ``FIGURES`` maps a name to a function that
builds the figure. Used by ``test_legibility.py``."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from nmthpo.benchmark.tables import LookupTable

TASKS = ("zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en")
SINGLE = ("rs", "bo-ei-m", "bo-ei-r", "gb-ei-m", "gb-ei-r", "gb-eif-m", "gb-eif-r")
PARETO = ("rs", "bo-m", "bo-r", "gb-m", "gb-r")
TRANSFER = ("rs", "igp", "scot", "sgpr", "pogpe", "tst", "tstm", "rgpe", "transbo")
FIDELITY = (
    "rs",
    "sh",
    "hb",
    "asha",
    "bohb",
    "sh-upstream",
    "optuna SuccessiveHalving",
    "optuna Hyperband",
    "optuna Median",
)
RNG = np.random.default_rng(0)


def table(task: str, n: int = 40) -> LookupTable:
    configs = pd.DataFrame(
        {
            "bpe": RNG.choice([1000, 2000], n),
            "layers": 2,
            "embed": 256,
            "hidden": 1024,
            "heads": 8,
            "lr": 3e-4,
        }
    )
    metrics = pd.DataFrame(
        {
            "dev_bleu": RNG.uniform(5, 20, n),
            "dev_gpu_time": RNG.uniform(100, 200, n),
            "dev_ppl": RNG.uniform(5, 50, n),
            "num_updates": RNG.uniform(1000, 50000, n),
            "gpu_memory": [np.nan] + [4000.0] * (n - 1),
            "num_param": RNG.uniform(1e7, 1e8, n),
        }
    )
    pareto = np.zeros(n, dtype=bool)
    pareto[int(np.argmax(metrics["dev_bleu"]))] = True
    return LookupTable(
        task=task,
        configs=configs,
        metrics=metrics,
        scaled=np.zeros((n, 6)),
        shared=np.zeros((n, 6)),
        pareto=pareto,
    )


def curve(offset: float, n: int = 100) -> pd.DataFrame:
    step = np.arange(1, n + 1)
    best = offset + np.log(step)
    return pd.DataFrame(
        {
            "step": step,
            "best_q25": best - 0.5,
            "best_q50": best,
            "best_q75": best + 0.5,
            "mse_q25": 1.0 / step,
            "mse_q50": 2.0 / step,
            "mse_q75": 3.0 / step,
        }
    )


def bands(k: float) -> pd.DataFrame:
    step = np.arange(1, 101)
    regret = np.exp(-step / (10 + k))
    frame = pd.DataFrame({"step": step})
    for key, v in (("regret", regret), ("hv", 1 - regret)):
        frame[f"{key}_q25"], frame[f"{key}_median"], frame[f"{key}_q75"] = 0.8 * v, v, 1.2 * v
    frame.attrs["true_hv"] = 1.0
    return frame


def front(step_list: tuple[int, ...] = (10, 20, 50, 100)) -> pd.DataFrame:
    rows = []
    for s in step_list:
        for b in np.linspace(10, 20, 5):
            rows.append({"kind": "approximation", "step": s, "bleu": b + s / 50, "time": b * 5})
    for b in (12.0, 18.0):
        rows.append({"kind": "initial", "step": 0, "bleu": b, "time": b * 6})
        rows.append({"kind": "true", "step": 0, "bleu": b + 3, "time": b * 4})
    return pd.DataFrame(rows)


def transfer_curves(value: str, methods: tuple[str, ...], targets: tuple[str, ...] = ()):
    rows = []
    for t in targets or (None,):
        for i, m in enumerate(methods):
            for s in range(1, 51):
                row: dict[str, Any] = {"method": m, "step": s, value: float(i + 1) / s}
                if t is not None:
                    row["target"] = t
                rows.append(row)
    return pd.DataFrame(rows)


def ga_frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    m = pd.Index([5, 10, 15, 20, 25], name="init_pop")
    ga = pd.DataFrame({"average": [20, 21, 24, 27, 30.0], "paper": [19, 20, 23, 27, 31.0]}, m)
    base = ga + 2
    diff = base - ga
    return tuple(f.assign(se=0.3) for f in (ga, base, diff))  # type: ignore[return-value]


def variants() -> pd.DataFrame:
    names = [
        "paper",
        "mutation before selection",
        "fitness-weighted replacement",
        "two-point crossover",
        "generational",
        "invalid not counted",
        "baseline",
    ]
    data = {}
    for m in (5, 10, 15, 20, 25):
        data[str(m)] = RNG.uniform(17, 40, len(names))
        data[f"{m} se"] = RNG.uniform(0.1, 0.6, len(names))
    return pd.DataFrame(data, index=pd.Index(names, name="variant"))


def space_frame() -> pd.DataFrame:
    rows = []
    for task in ("ru-en", "sw-en"):
        for n in (10, 20):
            for s in range(30):
                for b in (1, 10, 50):
                    rows.append(
                        {
                            "task": task,
                            "seed_size": n,
                            "repeat": 0,
                            "space": f"s{s}",
                            "n_rows": 10 * (s + 1),
                            "budget": b,
                            "score": "mean-b-ei",
                            "predicted": RNG.random(),
                            "empirical": RNG.random(),
                        }
                    )
    return pd.DataFrame(rows)


def space_summary(names: tuple[str, ...] = ("branin", "hartmann3", "levy", "ackley")):
    rows = []
    for f in names:
        for n in (5, 10, 20):
            for b in (1, 2, 5, 10, 20, 50):
                rows.append(
                    {
                        "function": f,
                        "seed_size": n,
                        "budget": b,
                        "spearman": RNG.uniform(-1, 1),
                        "kendall_tau": RNG.uniform(-1, 1),
                        "predicted_size": RNG.uniform(0, 1),
                        "empirical_size": RNG.uniform(0, 1),
                        "ratio": RNG.uniform(0.5, 2),
                    }
                )
    return pd.DataFrame(rows)


LC_TASKS = (
    "lc-finetune-fr-en",
    "lc-finetune-zh-en",
    "lc-scratch-zh-en",
    "lc-scratch-ru-en",
    "lc-scratch-ja-en",
    "lc-scratch-en-ja",
    "lc-scratch-sw-en",
    "lc-scratch-so-en",
)


def anytime_frame(tasks: tuple[str, ...]) -> pd.DataFrame:
    rows = []
    for t in tasks:
        for i, m in enumerate(FIDELITY):
            for c in (1, 2, 5, 10, 20, 50, 100):
                r = (i + 1) / c
                rows.append(
                    {
                        "task": t,
                        "method": m,
                        "checkpoints": c,
                        "regret": r,
                        "low": r / 2,
                        "high": r * 2,
                    }
                )
    return pd.DataFrame(rows)


def survival_frame() -> pd.DataFrame:
    rows = []
    for t in LC_TASKS[2:]:
        for m in FIDELITY[1:6]:
            rows.append(
                {
                    "task": t,
                    "method": m,
                    "rungs": "1,3,9,27,81",
                    **{f"rung {k}": RNG.uniform(0, 100) for k in range(5)},
                }
            )
    return pd.DataFrame(rows)


def comparison() -> Any:
    """A stand-in for :class:`nmthpo.engine.compare.Comparison` with what the figures read."""
    methods = ["hpob-nearest", "rs", "bo-ei-m", "bo-ei-r", "gb-eif-m", "gb-eif-r"]
    values = {m: pd.DataFrame({"ftb": RNG.integers(5, 150, 20)}) for m in methods}
    board = pd.DataFrame(
        {
            "mean": [float(values[m]["ftb"].mean()) for m in methods],
            "ci_low": [float(values[m]["ftb"].mean()) - 5 for m in methods],
            "ci_high": [float(values[m]["ftb"].mean()) + 5 for m in methods],
        },
        index=pd.Index(methods, name="method"),
    )
    return SimpleNamespace(
        task="ja-en",
        trials=20,
        metric="ftb",
        values=values,
        sources={"hpob-nearest": "run directory"},
        leaderboard=lambda metric=None: board,
    )


def ranking() -> Any:
    """A stand-in for :class:`nmthpo.engine.compare.TaskRanking` (``ranks``, ``result``)."""
    from autorank import autorank

    data = pd.DataFrame(
        {m: RNG.normal(i, 0.3, 6) for i, m in enumerate(["my-rs", "rs", "gb-eif-m", "bo-ei-m"])}
    )
    import contextlib
    import io
    import warnings

    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = autorank(data, alpha=0.05, verbose=False)
    return SimpleNamespace(ranks=result.rankdf["meanrank"], result=result)


def _figures() -> dict[str, Callable[[], Figure]]:
    from nmthpo import plots
    from nmthpo.plots import compare as cp
    from nmthpo.plots import multifidelity as mf

    tables = [table(t) for t in TASKS]
    metrics = ["dev_gpu_time", "dev_ppl", "num_updates", "gpu_memory", "num_param"]
    rho_metric = pd.DataFrame(RNG.uniform(-1, 1, (6, 5)), index=list(TASKS), columns=metrics)
    rho = pd.DataFrame(RNG.uniform(-1, 1, (6, 6)), index=list(TASKS), columns=list(TASKS))
    counts = pd.DataFrame(RNG.integers(10, 800, (6, 6)), index=list(TASKS), columns=list(TASKS))
    hyps = ["bpe", "#layers", "#embed", "#hidden", "#att heads", "init lr"]
    singles = pd.Series(RNG.uniform(0, 0.5, 6), index=hyps)
    pairs = pd.Series(
        RNG.uniform(0, 0.1, 15),
        index=[f"{a} x {b}" for i, a in enumerate(hyps) for b in hyps[i + 1 :]],
    )
    panels = {f"{t}, top {q}": (singles, pairs) for t in ("en-ja", "sw-en") for q in ("1%", "10%")}
    grid = {(m, t): curve(i) for t in TASKS for i, m in enumerate(SINGLE)}
    ecdf = pd.concat(
        pd.DataFrame(
            {"method": m, "budget": np.arange(1, 200), "fraction": np.linspace(0, i / 8, 199)}
        )
        for i, m in enumerate(SINGLE)
    )
    ranks = pd.DataFrame({"step": np.arange(1, 101), **{m: RNG.uniform(1, 7, 100) for m in SINGLE}})
    ksens = pd.DataFrame(
        [
            {"method": m, "task": t, "k": k, "ftb": RNG.uniform(20, 60), "paper_k": k == 10}
            for m in ("gb-ei-m", "gb-eif-m")
            for t in TASKS
            for k in (3, 5, 10, 20, 50)
        ]
    )
    from nmthpo.studies.zhang_duh.graph_discrepancy import ARMS

    arms = pd.DataFrame(
        [
            {"arm": a, "group": arm.group, "task": t, "ftb": f, "low": f - 5, "high": f + 5}
            for t in TASKS[:4]
            for a, arm in ARMS.items()
            for f in [RNG.uniform(20, 80)]
        ]
    )
    hv = {(m, t): bands(i) for t in TASKS for i, m in enumerate(PARETO)}
    weights = transfer_curves("mean", TRANSFER).assign(std=0.05)
    overhead = transfer_curves(
        "cum_seconds", ("scot", "transbo", "transbo, folds conditioned", "rgpe", "sgpr")
    )
    ga, base, diff = ga_frames()
    counts_ga = {"GA": RNG.integers(1, 200, 500), "random baseline": RNG.integers(1, 300, 500)}
    fair = diff.rename(columns={"average": "edge", "se": "edge_se"})
    cmp = pd.DataFrame(
        {
            "budget": [1, 2, 5, 10, 20],
            "predicted_a": [10, 12, 14, 15, 16.0],
            "predicted_b": [11, 12, 13, 14, 15.0],
            "empirical_a": [10, 11, 13, 15, 16.0],
            "empirical_b": [11, 13, 14, 14, 15.0],
        }
    )
    corr = pd.DataFrame(
        [
            {"task": t, "checkpoint": k, "spearman": 1 - 1 / k}
            for t in LC_TASKS
            for k in (1, 2, 5, 10, 20, 50)
        ]
    )
    return {
        "bleu_histograms": lambda: plots.bleu_histograms(tables),
        "bleu_vs_time": lambda: plots.bleu_vs_time(tables),
        "metric_distributions": lambda: plots.metric_distributions(tables),
        "correlation_heatmap (metrics)": lambda: plots.correlation_heatmap(
            rho_metric, title="Spearman with BLEU"
        ),
        "correlation_heatmap (tasks)": lambda: plots.correlation_heatmap(
            rho, counts, title="configurations common to each pair"
        ),
        "importance_bars": lambda: plots.importance_bars(panels, n_pairs=8),
        "anytime_panels": lambda: plots.anytime_panels(
            {m: curve(i) for i, m in enumerate(SINGLE)}, "ja-en"
        ),
        "best_found_grid": lambda: plots.best_found_grid(grid),
        "runtime_ecdf_plot": lambda: plots.runtime_ecdf_plot(ecdf),
        "average_rank_plot": lambda: plots.average_rank_plot(ranks),
        "k_sensitivity_plot": lambda: plots.k_sensitivity_plot(ksens),
        "arm_forest": lambda: plots.arm_forest(arms),
        "plot_front_evolution": lambda: plots.plot_front_evolution(
            {"BO-M": front(), "GB-M": front()}, title="ja-en"
        ),
        "plot_hypervolume": lambda: plots.plot_hypervolume(
            {m: bands(i) for i, m in enumerate(PARETO)}, relative=True, title="ja-en"
        ),
        "hypervolume_grid": lambda: plots.hypervolume_grid(hv),
        "transfer_curves_plot": lambda: plots.transfer_curves_plot(
            transfer_curves("rank", TRANSFER, TASKS), "rank", title="static, 5 sources"
        ),
        "transfer_summary_plot": lambda: plots.transfer_summary_plot(
            transfer_curves("rank", TRANSFER),
            transfer_curves("adtm", TRANSFER),
            title="static, 5 sources",
        ),
        "transfer_summary_plot (ablation)": lambda: plots.transfer_summary_plot(
            transfer_curves(
                "rank", ("rs", "transbo", "transbo-ms", "rgpe", "rgpe-ms", "tst", "tst-ms")
            ),
            transfer_curves(
                "adtm", ("rs", "transbo", "transbo-ms", "rgpe", "rgpe-ms", "tst", "tst-ms")
            ),
        ),
        "target_weight_plot": lambda: plots.target_weight_plot(weights, title="target weight"),
        "overhead_plot": lambda: plots.overhead_plot(overhead, title="suggestion time"),
        "ga_tables_plot": lambda: plots.ga_tables_plot(ga, base, diff),
        "count_ecdf_plot": lambda: plots.count_ecdf_plot(counts_ga, title="m = 5"),
        "variant_plot": lambda: plots.variant_plot(variants()),
        "fair_edge_plot": lambda: plots.fair_edge_plot(fair, diff["average"]),
        "score_scatter": lambda: plots.score_scatter(space_frame(), [1, 10, 50]),
        "faithfulness_curves": lambda: plots.faithfulness_curves(space_summary()),
        "preferred_size_plot": lambda: plots.preferred_size_plot(space_summary()),
        "calibration_plot": lambda: plots.calibration_plot(space_summary(("a", "b"))),
        "comparison_plot": lambda: plots.comparison_plot(cmp, "layers in {2, 4}", "layers in {6}"),
        "curves_plot": lambda: mf.curves_plot(LC_TASKS, n_curves=5),
        "rank_correlation_plot": lambda: mf.rank_correlation_plot(corr),
        "anytime_plot (fine-tuned)": lambda: mf.anytime_plot(
            anytime_frame(LC_TASKS[:2]), log_y=True
        ),
        "anytime_plot (scratch)": lambda: mf.anytime_plot(anytime_frame(LC_TASKS[2:]), log_y=True),
        "survival_plot": lambda: mf.survival_plot(survival_frame()),
        "leaderboard_plot": lambda: cp.leaderboard_plot(comparison()),
        "runtime_ecdf": lambda: cp.runtime_ecdf(comparison()),
        "cd_diagram": lambda: cp.cd_diagram(ranking()),
    }


FIGURES: dict[str, Callable[[], Figure]] = _figures()
