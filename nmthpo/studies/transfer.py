"""The experiment grid of the book's Chapter 4 (Li et al. 2022) and the tables built from it.

The runs the chapter reads are :data:`nmthpo.studies.grids.CHAPTER_GRID` (re-exported here, with
``BUDGET``, ``N_SOURCE``, ``SEED`` and ``DYNAMIC_ORDER``): :func:`compute_chapter4` fills the
runner's cache (:mod:`nmthpo.engine.runner`) with them (``make results``),
:func:`load_setting` reads them back by calling the runner with the same arguments -- from the
book's ``results/transfer``, or, for runs it lacks, from the user cache
(:func:`nmthpo.studies.grids.user_dir`) -- and the remaining functions turn the tidy frames into
the chapter's tables and its claim check (:func:`claims`).

The settings (all budget ``N_T = 50`` target evaluations including 3 random initial rows,
``N_S = 50`` sampled rows per source, seed 0; Section 5.1 of the paper):

``static5``
    Static transfer, leave one out: each NMTHPO task the target, the other five the sources;
    TransBO and its eight baselines (:data:`~nmthpo.optimizers.transfer.methods.STATIC_METHODS`);
    30 repetitions (the paper's Figure 2 setting, with 5 instead of 29 sources).
``static2``
    The same with a fixed random subset of 2 sources per target
    (:func:`~nmthpo.engine.runner.subset_sources`; the paper's "few sources", Figure 3);
    30 repetitions.
``dynamic``
    Dynamic transfer (Section 5.1 (b), Table 1): tasks arrive in :data:`DYNAMIC_ORDER`,
    task ``i`` uses tasks ``1..i-1`` as sources; POGPE, TST, RGPE, TransBO; 30 repetitions.
    The first task has no source and is skipped; the last one (so-en with all five sources)
    is the ``static5`` run of the same methods, shared through the cache.
``nmtlc``
    The second transfer setting: the two NMTLC fine-tuned tasks, each the other's only source;
    all nine methods; 30 repetitions.
``ablation``
    Section 5.4's source-knowledge ablation: TransBO, POGPE, TST and RGPE searching with their
    source part alone (:data:`~nmthpo.optimizers.transfer.methods.ABLATION_METHODS`), leave one out
    on
    all six NMTHPO tasks; 30 repetitions.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from nmthpo.engine.ranks import (
    adtm,
    average_rank,
    clear_places,
    rank_counts,
    step_intervals,
    weight_curve,
)
from nmthpo.engine.runner import (
    RunSpec,
    default_sources,
    dynamic_experiment,
    static_experiment,
    subset_sources,
    transfer_spec,
)
from nmthpo.studies.grids import (
    BUDGET,
    CHAPTER_GRID,
    DYNAMIC_ORDER,
    FOLDERS,
    N_SOURCE,
    SEED,
    ChapterSetting,
    book_dir,
    seed_user_cache,
    user_dir,
    writing_results,
)

__all__ = [
    "BUDGET",
    "CHAPTER_GRID",
    "DYNAMIC_ORDER",
    "N_SOURCE",
    "PAPER_TABLE1",
    "PAPER_TOP2_TRANSBO",
    "SEED",
    "ChapterSetting",
    "cache_path",
    "claims",
    "compute_chapter4",
    "curve_fluctuation",
    "dynamic_table",
    "load_setting",
    "missing_runs",
    "paper_table1_shares",
    "rank_table",
    "setting_specs",
    "weight_summary",
]

#: Table 1 of the paper (dynamic transfer, 30 tasks per benchmark): method -> benchmark ->
#: (number of 1st places, number of 2nd places).
PAPER_TABLE1: dict[str, dict[str, tuple[int, int]]] = {
    "pogpe": {"Adaboost": (0, 2), "Random Forest": (0, 1), "Extra Trees": (0, 2),
              "LightGBM": (1, 2)},
    "tst": {"Adaboost": (8, 12), "Random Forest": (9, 9), "Extra Trees": (7, 12),
            "LightGBM": (10, 9)},
    "rgpe": {"Adaboost": (8, 5), "Random Forest": (6, 14), "Extra Trees": (10, 9),
             "LightGBM": (9, 10)},
    "transbo": {"Adaboost": (14, 11), "Random Forest": (15, 6), "Extra Trees": (14, 7),
                "LightGBM": (12, 10)},
}

#: Section 1: TransBO is in the top 2 on 22.25 of 30 dynamic tasks (mean over benchmarks).
PAPER_TOP2_TRANSBO = 22.25


def cache_path(cache_dir: str | Path | None = None) -> Path:
    """The chapter's cache: ``cache_dir`` or the book's ``results/transfer``."""
    return Path(cache_dir) if cache_dir is not None else book_dir(FOLDERS["transfer"])


def _setting(name: str) -> ChapterSetting:
    if name not in CHAPTER_GRID:
        raise KeyError(f"unknown chapter setting {name!r}; valid: {', '.join(CHAPTER_GRID)}")
    return CHAPTER_GRID[name]


def _tasks(setting: ChapterSetting, tasks: Sequence[str] | None) -> tuple[str, ...]:
    return setting.tasks if tasks is None else tuple(tasks)


def setting_specs(name: str, tasks: Sequence[str] | None = None) -> list[RunSpec]:
    """The transfer :class:`~nmthpo.engine.runner.RunSpec` of every (method, target) of
    setting ``name``.

    These are exactly the specs :func:`static_experiment` / :func:`dynamic_experiment` build
    for the same arguments (so they name the same cache files). ``tasks`` overrides the
    setting's targets (or arrival order).
    """
    s = _setting(name)
    ts = _tasks(s, tasks)
    if s.kind == "dynamic":
        return [transfer_spec(m, ts[i], ts[:i], N_SOURCE, BUDGET, 3, SEED)
                for i in range(1, len(ts)) for m in s.methods]
    out = []
    for t in ts:
        srcs = default_sources(t) if s.n_sources is None else subset_sources(t, s.n_sources,
                                                                             SEED)
        out += [transfer_spec(m, t, srcs, N_SOURCE, BUDGET, 3, SEED) for m in s.methods]
    return out


def missing_runs(name: str, tasks: Sequence[str] | None = None,
                 cache_dir: str | Path | None = None, repeats: int = 1) -> list[str]:
    """Cache stems of setting ``name`` without a finished Parquet file of ``repeats``
    repetitions (at least)."""
    cache = cache_path(cache_dir)
    out = []
    for sp in setting_specs(name, tasks):
        f = cache / f"{sp.stem()}.parquet"
        if not f.exists() or pd.read_parquet(f, columns=["rep"])["rep"].nunique() < repeats:
            out.append(sp.stem())
    return out


def _run(name: str, repeats: int, tasks: Sequence[str] | None, jobs: int,
         cache_dir: Path | None, progress: bool) -> pd.DataFrame:
    s = _setting(name)
    ts = _tasks(s, tasks)
    if s.kind == "dynamic":
        return dynamic_experiment(s.methods, ts, N_SOURCE, BUDGET, repeats, SEED, jobs,
                                  cache_dir, progress)
    return static_experiment(s.methods, ts, s.n_sources, N_SOURCE, BUDGET, repeats, SEED, jobs,
                             cache_dir, progress)


def compute_chapter4(jobs: int = 2, repeats: int = 30, cache_dir: str | Path | None = None,
                     progress: bool = False) -> None:
    """Run every experiment of :data:`CHAPTER_GRID` into the cache.

    Each setting gets ``min(setting.repeats, repeats)`` repetitions (``repeats=30`` is the
    published grid; a small value gives a quick development cache). Interrupted runs resume.
    On the 2-core machine the published grid (about 5,000 trials, most of them cheap) takes
    about 20 minutes with ``jobs=2``. Without ``cache_dir`` the runs go to the book's
    ``results/transfer`` under ``make results`` (``NMTHPO_WRITE_RESULTS=1``), else to the
    user cache.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    if cache_dir is not None:
        cache = Path(cache_dir)
    else:
        folder = FOLDERS["transfer"]
        cache = book_dir(folder) if writing_results() else user_dir(folder)
    cache.mkdir(parents=True, exist_ok=True)
    for name, s in CHAPTER_GRID.items():
        _run(name, min(s.repeats, repeats), None, jobs, cache, progress)


def load_setting(
    name: str,
    repeats: int | None = None,
    tasks: Sequence[str] | None = None,
    use_cache: bool = True,
    cache_dir: str | Path | None = None,
    jobs: int = 1,
) -> pd.DataFrame:
    """The tidy frame of setting ``name`` (read back from the cache).

    Parameters
    ----------
    repeats : int, optional
        Repetitions to return (default: the setting's published number).
    tasks : sequence of str, optional
        Targets (or arrival order) to use instead of the setting's.
    use_cache : bool
        ``True`` reads the cached runs. Without ``cache_dir``: from the book's
        ``results/transfer`` when it holds every run with ``repeats`` repetitions; otherwise
        the runs it lacks are computed into the user cache (the book's files of the others are
        copied there first, so the book's cache is only read). With ``cache_dir``: raises
        ``FileNotFoundError`` if any run is missing or has fewer than ``repeats`` repetitions
        (naming :func:`compute_chapter4`). ``False`` computes afresh without storing.
    """
    s = _setting(name)
    r = s.repeats if repeats is None else int(repeats)
    if r < 1:
        raise ValueError(f"repeats must be >= 1, got {r}")
    if not use_cache:
        return _run(name, r, tasks, jobs, None, False)
    missing = missing_runs(name, tasks, cache_dir, r)
    if not missing or (cache_dir is None and writing_results()):
        return _run(name, r, tasks, jobs, cache_path(cache_dir), False)
    if cache_dir is not None:
        raise FileNotFoundError(
            f"{len(missing)} run(s) of setting {name!r} with {r} repetitions are not in "
            f"{cache_path(cache_dir)} "
            f"(e.g. {missing[0]}); run nmthpo.studies.transfer.compute_chapter4() first "
            "or pass use_cache=False")
    user = seed_user_cache(FOLDERS["transfer"], [sp.stem() for sp in setting_specs(name, tasks)])
    return _run(name, r, tasks, jobs, user, False)


# -- tables --------------------------------------------------------------------------------------
def rank_table(frame: pd.DataFrame, step: int, value: str = "rank",
               interval: bool = False) -> pd.DataFrame:
    """Average rank (or ADTM) of every method at ``step``: one column per target, plus ``all``.

    ``value="rank"`` uses :func:`~nmthpo.engine.ranks.average_rank` (ties share the
    average rank; the methods in ``frame`` are ranked against each other), ``"adtm"``
    :func:`~nmthpo.engine.ranks.adtm`. ``all`` averages the targets with equal weight.
    Rows are sorted by ``all``. With ``interval`` the 95 % bootstrap interval of ``all`` over
    repetitions (:func:`~nmthpo.engine.ranks.step_intervals`) is added as two columns.
    """
    if value not in ("rank", "adtm"):
        raise ValueError(f"value must be 'rank' or 'adtm', got {value!r}")
    if step not in set(frame["step"]):
        raise ValueError(f"step {step} is not in the frame (steps 1..{frame['step'].max()})")
    fn = average_rank if value == "rank" else adtm
    per = fn(frame, per_target=True)
    per = per[per["step"] == step]
    tab = per.pivot(index="method", columns="target", values=value)
    tab = tab[[t for t in dict.fromkeys(frame["target"]) if t in tab.columns]]
    tab["all"] = tab.mean(axis=1)
    tab.columns.name = None
    if interval:
        ci = step_intervals(frame, step, value)
        tab = tab.join(ci.drop(columns=value))
    return tab.sort_values("all")


def dynamic_table(frame: pd.DataFrame, steps: Sequence[int] = (20, 50)) -> pd.DataFrame:
    """Table 1 for our dynamic run: 1st/2nd places per method at each of ``steps``.

    Places are those of :func:`~nmthpo.engine.ranks.rank_counts` (on mean best BLEU); beside
    them, ``clear 1st@s`` counts only the first places the paired intervals decide and
    ``tied 1st@s`` the first places shared with a method the interval cannot separate
    (:func:`~nmthpo.engine.ranks.clear_places`). Also the paper's counts summed over its four
    benchmarks (120 tasks) and our and the paper's *share* of tasks in the top 2 (ties share a
    place, so shares can exceed 1 in sum). The paper's Table 1 compares the best result after
    50 trials.
    """
    n_tasks = frame["target"].nunique()
    cols = {}
    for st in steps:
        rc = rank_counts(frame, step=st)
        cp = clear_places(frame, st)
        cols[f"1st@{st}"] = rc["first"]
        cols[f"clear 1st@{st}"] = cp["clear 1st"]
        cols[f"tied 1st@{st}"] = cp["tied 1st"]
        cols[f"2nd@{st}"] = rc["second"]
        cols[f"top2 share@{st}"] = (rc["first"] + rc["second"]) / n_tasks
    out = pd.DataFrame(cols)
    paper = paper_table1_shares()
    out = out.join(paper, how="left")
    out.index.name = "method"
    return out


def paper_table1_shares() -> pd.DataFrame:
    """The paper's Table 1 summed over the four benchmarks: 1st, 2nd and top-2 share."""
    rows = {}
    for m, by in PAPER_TABLE1.items():
        first = sum(v[0] for v in by.values())
        second = sum(v[1] for v in by.values())
        rows[m] = {"paper 1st/120": first, "paper 2nd/120": second,
                   "paper top2 share": (first + second) / (30 * len(by))}
    return pd.DataFrame.from_dict(rows, orient="index")


def curve_fluctuation(curves: pd.DataFrame, value: str = "rank", start: int = 4) -> pd.Series:
    """Total variation ``sum |v(t+1) - v(t)|`` of each method's curve from step ``start`` on.

    The paper's "larger fluctuation over the trials" (Section 5.2) as a number: a curve that
    only falls (or only rises) has total variation equal to its net change; every reversal adds.
    ``curves`` has columns ``method``, ``step`` and ``value`` (an aggregated curve).
    """
    c = curves[curves["step"] >= start].sort_values(["method", "step"])
    return c.groupby("method")[value].apply(lambda v: float(np.abs(np.diff(v.to_numpy())).sum()))


def weight_summary(frame: pd.DataFrame, steps: Sequence[int] = (5, 10, 20, 50)) -> pd.DataFrame:
    """Mean target weight ``p^T`` at ``steps`` per method, the share of trials whose weight is
    1 there (the target model alone), and its mean step-to-step change.

    ``mean |dp|`` is the mean over trials of ``|p_{t+1} - p_t|`` (from step 4 on): how much a
    method's weight jumps between suggestions (the paper's RGPE "fluctuation").
    """
    w = weight_curve(frame)
    tab = w[w["step"].isin(steps)].pivot(index="method", columns="step", values="mean")
    tab.columns = [f"p_T@{s}" for s in tab.columns]
    at = frame[frame["step"].isin(steps)]
    one = (at["target_weight"] >= 1.0 - 1e-9).groupby([at["method"], at["step"]]).mean()
    for s in sorted(set(steps) & set(at["step"])):
        tab[f"share p_T=1@{s}"] = one.xs(s, level="step")
    f = frame[frame["step"] >= 4].sort_values(["method", "target", "rep", "step"])
    jumps = f.groupby(["method", "target", "rep"])["target_weight"].apply(
        lambda v: float(np.nanmean(np.abs(np.diff(v.to_numpy())))) if v.notna().sum() > 1
        else np.nan)
    tab["mean |dp|"] = jumps.groupby("method").mean()
    tab.index.name = "method"
    return tab


# -- claims --------------------------------------------------------------------------------------
def _place(tab: pd.DataFrame, method: str) -> int:
    """1-based place of ``method`` in a table sorted by ``all`` (ties share the better place)."""
    v = tab.loc[method, "all"]
    return int((tab["all"] < v - 1e-12).sum()) + 1


def claims(
    static5: pd.DataFrame,
    static2: pd.DataFrame,
    dynamic: pd.DataFrame,
    nmtlc: pd.DataFrame,
    ablation: pd.DataFrame,
    step: int = 20,
    overhead: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The paper's claims, what it reports, what we find, a 95 % interval and a verdict.

    Intervals are paired bootstraps over repetitions: repetition ``r`` of every method on a
    target shares its initial rows and source samples, so repetitions are resampled jointly
    (for all methods and targets at once; :mod:`nmthpo.engine.stats`). Statistics and
    thresholds (our choices; ``ours`` keeps the plain numbers):

    * "best" (static many sources, ablation): TransBO's average rank at ``step`` minus the best
      other method's lies below 0; "best or second best" (few sources, NMTLC): minus the
      second-best other method's lies below 0 (the others ordered by their average rank);
    * "competitive": RGPE's average rank minus TransBO's lies below 0.5;
    * "fluctuates more": the total variation of the aggregated rank curve
      (:func:`curve_fluctuation`) of RGPE with 2 sources exceeds both TransBO's with 2 sources
      and RGPE's with 5: the smaller of the two differences lies above 0 (the bootstrap adds
      noise to every resampled curve, which inflates a total variation; the differences
      cancel most of it);
    * "top 2 most often" (dynamic): TransBO's number of top-2 places at ``step`` minus the
      largest other method's is at least 0 (places as in :func:`dynamic_table`);
    * "rising": TransBO's mean ``p^T`` at the last step minus that at step 10 lies above 0.1;
    * overhead (with ``overhead``, :func:`~nmthpo.engine.ranks.overhead_curve` of ``static5``):
      SCoT's cumulative seconds at the last step exceed the largest other method's, and
      TransBO's / POGPE's lies below 2; composite of the two parts.
    """
    from nmthpo.engine.stats import (
        Claim,
        bootstrap_mean,
        claims_frame,
        composite_verdict,
        interval_verdict,
        paired_bootstrap,
        paired_difference,
        paired_ratio,
        win_count,
    )

    out: list[Claim] = []
    last = int(static5["step"].max())
    t5 = rank_table(static5, step)
    t2 = rank_table(static2, step)
    r5, r2 = _tr_rank_cube(static5), _tr_rank_cube(static2)

    def versus(tab: pd.DataFrame, cube: tuple[list[str], list[int], np.ndarray], method: str,
               place: int) -> tuple[float, float, float, str]:
        """Rank of ``method`` minus that of the ``place``-th best other method at ``step``."""
        others = [m for m in tab.index if m != method]
        other = others[place - 1]
        est, lo, hi = paired_difference(_tr_at(cube, method, step), _tr_at(cube, other, step))
        wc = win_count([paired_difference(_tr_at(cube, method, step),
                                          _tr_at(cube, m, step))[1:] for m in others])
        note = (f"paired bootstrap over repetitions of the average rank at step {step}: "
                f"{method} minus {other} (the {'best' if place == 1 else 'second-best'} other "
                f"method), below 0; {method} is clearly ahead of {wc.wins} of {wc.parts} "
                f"others, clearly behind {wc.losses}, tied with {wc.ties}")
        return est, lo, hi, note

    est, lo, hi, note = versus(t5, r5, "transbo", 1)
    out.append(Claim(
        "static, many sources: TransBO has the best average rank", "Sec. 5.2, Fig. 2",
        "best on 4 benchmarks (29 sources)",
        f"place {_place(t5, 'transbo')} of {len(t5)} at step {step} (rank "
        f"{t5.loc['transbo', 'all']:.2f}; best {t5.index[0]} {t5['all'].iloc[0]:.2f})",
        lo, hi, interval_verdict(lo, hi, 0.0, "below"), f"{note}; estimate {est:+.2f}"))
    est, lo, hi, note = versus(t2, r2, "transbo", 2)
    out.append(Claim(
        "static, few sources: TransBO still performs well (best or second best)",
        "Sec. 5.2, Fig. 3", "best on 4 benchmarks (5 sources)",
        f"place {_place(t2, 'transbo')} of {len(t2)} at step {step} (rank "
        f"{t2.loc['transbo', 'all']:.2f}; best {t2.index[0]} {t2['all'].iloc[0]:.2f})",
        lo, hi, interval_verdict(lo, hi, 0.0, "below"), f"{note}; estimate {est:+.2f}"))
    est, lo, hi = paired_difference(_tr_at(r5, "rgpe", step), _tr_at(r5, "transbo", step))
    out.append(Claim(
        "RGPE is competitive with TransBO given many sources (rank gap below 0.5)",
        "Sec. 5.2, Fig. 2", "comparable on 2 of 4 benchmarks", est, lo, hi,
        interval_verdict(lo, hi, 0.5, "below"),
        f"RGPE - TransBO average rank at step {step} (5 sources), paired bootstrap over "
        "repetitions"))
    fl5 = curve_fluctuation(average_rank(static5))
    fl2 = curve_fluctuation(average_rank(static2))
    curves = [_tr_curve(r2, "rgpe"), _tr_curve(r2, "transbo"), _tr_curve(r5, "rgpe")]
    n = min(c.shape[0] for c in curves)
    _, lo1, hi1 = paired_bootstrap([c[:n] for c in curves], lambda a, b, c: _tv(a) - _tv(b))
    _, lo2, hi2 = paired_bootstrap([c[:n] for c in curves], lambda a, b, c: _tv(a) - _tv(c))
    est, lo, hi = paired_bootstrap([c[:n] for c in curves],
                                   lambda a, b, c: np.minimum(_tv(a) - _tv(b), _tv(a) - _tv(c)))
    out.append(Claim(
        "RGPE fluctuates more than TransBO with few sources", "Sec. 5.2, Fig. 3",
        "larger fluctuation over trials with 5 sources",
        f"rank-curve total variation, 2 sources: RGPE {fl2['rgpe']:.2f}, TransBO "
        f"{fl2['transbo']:.2f}; RGPE with 5 sources {fl5['rgpe']:.2f}",
        lo, hi, interval_verdict(lo, hi, 0.0, "above"),
        "interval of the smaller of TV(RGPE, 2) - TV(TransBO, 2) "
        f"[{lo1:.2f}, {hi1:.2f}] and TV(RGPE, 2) - TV(RGPE, 5) [{lo2:.2f}, {hi2:.2f}], "
        "above 0; paired bootstrap over repetitions (resampling inflates every total "
        "variation)"))
    dt = dynamic_table(dynamic, (step, last))
    top2 = dt[f"top2 share@{step}"]
    n_dyn = dynamic["target"].nunique()
    rival = str(top2.drop("transbo").idxmax())
    best_cube = _tr_best_cube(dynamic, step)
    est, lo, hi = paired_bootstrap([best_cube[2]], lambda b: _tr_top2_lead(b, best_cube[0]))
    out.append(Claim(
        "dynamic: TransBO is first or second most often", "Sec. 1 and 5.2, Table 1",
        f"top 2 on {PAPER_TOP2_TRANSBO} of 30 tasks "
        f"({PAPER_TOP2_TRANSBO / 30:.0%}), the most of the four",
        f"top 2 on {top2['transbo'] * n_dyn:.0f} of {n_dyn} tasks at step {step} "
        f"(RGPE {top2['rgpe'] * n_dyn:.0f}, TST {top2['tst'] * n_dyn:.0f}, "
        f"POGPE {top2['pogpe'] * n_dyn:.0f}); at step {last}: "
        f"{dt[f'top2 share@{last}']['transbo'] * n_dyn:.0f}",
        lo, hi, interval_verdict(lo, hi, -0.5, "above"),
        f"TransBO's top-2 count at step {step} minus the largest other's (now {rival}), "
        f"resampling repetitions jointly; at least 0; estimate {est:+.0f}"))
    top2l = dt[f"top2 share@{last}"]
    rival_l = str(top2l.drop("transbo").idxmax())
    cube_l = _tr_best_cube(dynamic, last)
    est, lo, hi = paired_bootstrap([cube_l[2]], lambda b: _tr_top2_lead(b, cube_l[0]))
    firsts = ", ".join(f"{m} {int(v)}" for m, v in dt[f"1st@{last}"].items())
    out.append(Claim(
        f"dynamic, the paper's yardstick (best after {last} trials): TransBO is first or "
        "second most often", "Table 1", f"top 2 on {PAPER_TOP2_TRANSBO} of 30 tasks, the most",
        f"top 2 on {top2l['transbo'] * n_dyn:.0f} of {n_dyn} tasks at step {last} "
        f"(RGPE {top2l['rgpe'] * n_dyn:.0f}, TST {top2l['tst'] * n_dyn:.0f}, POGPE "
        f"{top2l['pogpe'] * n_dyn:.0f}); first places {firsts}, of them clear "
        f"{int(dt[f'clear 1st@{last}'].sum())}",
        lo, hi, interval_verdict(lo, hi, -0.5, "above"),
        f"TransBO's top-2 count at step {last} minus the largest other's (now {rival_l}), "
        f"resampling repetitions jointly; at least 0; estimate {est:+.0f}"))
    tl = rank_table(nmtlc, step)
    est, lo, hi, note = versus(tl, _tr_rank_cube(nmtlc), "transbo", 2)
    out.append(Claim(
        "second setting (NMTLC fine-tuned, 1 source): TransBO best or second best",
        "(not in the paper)", "(not in the paper)",
        f"place {_place(tl, 'transbo')} of {len(tl)} at step {step} (best {tl.index[0]})",
        lo, hi, interval_verdict(lo, hi, 0.0, "below"), f"{note}; estimate {est:+.2f}"))
    ta = rank_table(ablation, step)
    est, lo, hi, note = versus(ta, _tr_rank_cube(ablation), "transbo-ms", 1)
    out.append(Claim(
        "Phase-1 source surrogate: TransBO's beats POGPE's, TST's, RGPE's",
        "Sec. 5.4, Fig. 4", "best average rank and ADTM",
        f"place {_place(ta, 'transbo-ms')} of {len(ta)} at step {step} (best {ta.index[0]})",
        lo, hi, interval_verdict(lo, hi, 0.0, "below"), f"{note}; estimate {est:+.2f}"))
    ws = weight_summary(static5, (10, last))
    p10, pl = ws.loc["transbo", "p_T@10"], ws.loc["transbo", f"p_T@{last}"]
    w10, wl = _tr_weights(static5, "transbo", 10), _tr_weights(static5, "transbo", last)
    est, lo, hi = paired_difference(wl, w10)
    out.append(Claim(
        "TransBO's target weight keeps increasing with the trials", "Sec. 5.4, Fig. 5",
        "increasing (POGPE constant 0.5; RGPE fluctuating)",
        f"TransBO mean p_T {p10:.2f} at step 10 -> {pl:.2f} at {last}; POGPE "
        f"{ws.loc['pogpe', f'p_T@{last}']:.2f}; TST {ws.loc['tst', f'p_T@{last}']:.2f}"
        f"; RGPE mean |dp| {ws.loc['rgpe', 'mean |dp|']:.2f} vs TransBO "
        f"{ws.loc['transbo', 'mean |dp|']:.2f}",
        lo, hi, interval_verdict(lo, hi, 0.1, "above"),
        f"TransBO's mean p_T at step {last} minus at step 10, paired bootstrap over "
        "repetitions; above 0.1 ('rising'); POGPE's and RGPE's weights are not tested"))
    est, lo, hi = bootstrap_mean(_tr_weights(static5, "tst", last))
    out.append(Claim(
        "TST's target weight stays low", "Sec. 5.4, Fig. 5", "low (below TransBO's)",
        est, lo, hi, interval_verdict(lo, hi, 0.5, "below"),
        f"TST's mean p_T at step {last} (mean over targets per repetition), bootstrap over "
        "repetitions; 'low' read as below 0.5, POGPE's constant"))
    if overhead is not None:
        fin = overhead[overhead["step"] == overhead["step"].max()].set_index("method")[
            "cum_seconds"]
        fin = fin.drop([m for m in ("rs",) if m in fin.index])
        ratio = fin["transbo"] / fin["pogpe"]
        secs = _tr_seconds(static5)
        top = str(fin.drop("scot").idxmax())
        _, lo_a, hi_a = paired_difference(secs["scot"], secs[top])
        est, lo, hi = paired_ratio(secs["transbo"], secs["pogpe"])
        out.append(Claim(
            "overhead: SCoT grows fastest; TransBO close to POGPE", "Sec. 5.4, Fig. 5c",
            "SCoT largest; TransBO ~ POGPE ~ TST; RGPE extra",
            f"largest: {fin.idxmax()}; TransBO / POGPE = {ratio:.0f}x", lo, hi,
            composite_verdict([interval_verdict(lo_a, hi_a, 0.0, "above"),
                               interval_verdict(lo, hi, 2.0, "below")]),
            f"CI: TransBO / POGPE cumulative seconds at step {last} (below 2: 'close'); SCoT "
            f"minus {top} (the largest other) [{lo_a:.1f}, {hi_a:.1f}] s (above 0: "
            "'largest'); paired bootstrap over repetitions; wall-clock seconds of the machine "
            "that wrote the cache"))
    return claims_frame(out)


_RankCube = tuple[list[str], list[int], np.ndarray]


def _tr_rank_cube(frame: pd.DataFrame) -> _RankCube:
    """Methods, steps and ranks averaged over targets: shape (repetitions, methods, steps).

    Ranks are those of :func:`~nmthpo.engine.ranks.average_rank` (within each target,
    repetition and step; ties share the average rank); averaging over targets first and over
    repetitions last gives the aggregated average rank when every target has every repetition.
    """
    from nmthpo.engine.ranks import ranked

    f = ranked(frame)
    wide = f.pivot_table(index="rep", columns=["method", "step"], values="rank",
                         aggfunc="mean").dropna()
    methods = list(dict.fromkeys(wide.columns.get_level_values(0)))
    steps = sorted(set(wide.columns.get_level_values(1)))
    cols = pd.MultiIndex.from_product([methods, steps])
    arr = wide.reindex(columns=cols).to_numpy().reshape(len(wide), len(methods), len(steps))
    return methods, steps, arr


def _tr_at(cube: _RankCube, method: str, step: int) -> np.ndarray:
    methods, steps, arr = cube
    return arr[:, methods.index(method), steps.index(step)]


def _tr_curve(cube: _RankCube, method: str, start: int = 4) -> np.ndarray:
    """Per-repetition rank curves of ``method`` from step ``start`` on: (repetitions, steps)."""
    methods, steps, arr = cube
    return arr[:, methods.index(method), [i for i, s in enumerate(steps) if s >= start]]


def _tv(curves: np.ndarray) -> np.ndarray:
    """Total variation of the mean curve of each resample: (B, n, steps) -> (B,)."""
    return np.abs(np.diff(curves.mean(axis=1), axis=-1)).sum(axis=-1)


def _tr_best_cube(frame: pd.DataFrame, step: int) -> tuple[list[str], list[str], np.ndarray]:
    """Best BLEU after ``step`` evaluations: methods, targets, shape (repetitions, M, T)."""
    from nmthpo.engine.ranks import best_so_far

    f = best_so_far(frame)
    f = f[f["step"] == step]
    wide = f.pivot_table(index="rep", columns=["method", "target"], values="best").dropna()
    methods = sorted(set(wide.columns.get_level_values(0)))
    targets = list(dict.fromkeys(frame["target"]))
    cols = pd.MultiIndex.from_product([methods, targets])
    arr = wide.reindex(columns=cols).to_numpy().reshape(len(wide), len(methods), len(targets))
    return methods, targets, arr


def _tr_top2_lead(best: np.ndarray, methods: list[str]) -> np.ndarray:
    """TransBO's top-2 count minus the largest other's, per resample: (B, n, M, T) -> (B,).

    Places per target are dense ranks of the mean best BLEU over repetitions (tied methods
    share a place), as in :func:`~nmthpo.engine.ranks.rank_counts`.
    """
    v = np.round(best.mean(axis=1), 10)  # (B, M, T)
    m = v.shape[1]
    first = np.ones_like(v, dtype=bool)  # first occurrence of each distinct value
    for j in range(1, m):
        first[:, j] = ~(v[:, :j] == v[:, j:j + 1]).any(axis=1)
    higher = (v[:, None, :, :] > v[:, :, None, :]) & first[:, None, :, :]  # (B, M, M', T)
    place = 1 + higher.sum(axis=2)  # (B, M, T)
    top2 = (place <= 2).sum(axis=2)  # (B, M)
    i = methods.index("transbo")
    return np.asarray(top2[:, i] - np.delete(top2, i, axis=1).max(axis=1), dtype=float)


def _tr_weights(frame: pd.DataFrame, method: str, step: int) -> np.ndarray:
    """Mean target weight over targets per repetition at ``step`` (repetition order)."""
    f = frame[(frame["method"] == method) & (frame["step"] == step)]
    return f.groupby("rep", sort=True)["target_weight"].mean().to_numpy()


def _tr_seconds(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """Cumulative suggestion seconds at each trial's end, mean over targets, per repetition."""
    tot = frame.groupby(["method", "rep", "target"])["seconds"].sum()
    per = tot.groupby(["method", "rep"]).mean().unstack("rep").dropna(axis=1)
    return {str(m): per.loc[m].to_numpy() for m in per.index}
