"""The experiment grid of the book's Chapter 4 (Li et al. 2022) and the tables built from it.

The runs the chapter reads are :data:`nmthpo.studies.grids.CHAPTER_GRID` (re-exported here, with
``BUDGET``, ``N_SOURCE``, ``SEED`` and ``DYNAMIC_ORDER``): :func:`compute_chapter4` fills the
runner's cache (:mod:`nmthpo.engine.runner`) with them (``make results``),
:func:`load_setting` reads them back by calling the runner with the same arguments -- from the
book's ``results/transfer``, or, for runs it lacks, from the user cache
(:func:`nmthpo.studies.grids.user_dir`) -- and the remaining functions turn the tidy frames into
the chapter's tables. The paper's claims are records in :mod:`nmthpo.studies.li_transbo.claims`.

The settings (all budget ``N_T = 50`` target evaluations including 3 random initial rows,
``N_S = 50`` sampled rows per source, seed 0; Section 5.1 of the paper):

``static5``
    Static transfer, leave one out: each NMTHPO task the target, the other five the sources;
    TransBO and its eight baselines (:data:`~nmthpo.optimizers.transfer.methods.STATIC_METHODS`);
    30 repetitions (the paper's Figure 2 setting, with 5 instead of 29 sources).
``static2``
    The same with a fixed random subset of 2 sources per target
    (:func:`~nmthpo.studies.li_transbo.designs.subset_sources`; the "few sources", Figure 3);
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

One more experiment explains the overhead claim of Section 5.4 (:func:`load_overhead`, cached
in ``results/transfer/overhead``): the methods of Figure 5(c) and I-GP, re-timed side by side
on one target, plus two variants that remove a cost of our implementations (TransBO's partial
target GPs conditioned instead of re-fitted; SCoT's merged GP re-fitted at every trial instead
of every tenth).
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
from nmthpo.engine.runner import RunSpec, default_sources
from nmthpo.errors import InputKeyError
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
from nmthpo.studies.li_transbo.designs import (
    dynamic_experiment,
    static_experiment,
    subset_sources,
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
    "OVERHEAD_REPEATS",
    "OVERHEAD_TARGET",
    "OVERHEAD_VARIANTS",
    "NAMES",
    "cache_path",
    "claim_glue",
    "compute_chapter4",
    "compute_overhead",
    "curve_fluctuation",
    "dynamic_table",
    "load_overhead",
    "load_setting",
    "missing_runs",
    "overhead_specs",
    "overhead_table",
    "overhead_variant_curves",
    "part_glue",
    "prose_values",
    "paper_table1_shares",
    "rank_table",
    "setting_specs",
    "weight_summary",
]

#: Table 1 of the paper (dynamic transfer, 30 tasks per benchmark): method -> benchmark ->
#: (number of 1st places, number of 2nd places).
PAPER_TABLE1: dict[str, dict[str, tuple[int, int]]] = {
    "pogpe": {
        "Adaboost": (0, 2),
        "Random Forest": (0, 1),
        "Extra Trees": (0, 2),
        "LightGBM": (1, 2),
    },
    "tst": {
        "Adaboost": (8, 12),
        "Random Forest": (9, 9),
        "Extra Trees": (7, 12),
        "LightGBM": (10, 9),
    },
    "rgpe": {
        "Adaboost": (8, 5),
        "Random Forest": (6, 14),
        "Extra Trees": (10, 9),
        "LightGBM": (9, 10),
    },
    "transbo": {
        "Adaboost": (14, 11),
        "Random Forest": (15, 6),
        "Extra Trees": (14, 7),
        "LightGBM": (12, 10),
    },
}

#: Section 1: TransBO is in the top 2 on 22.25 of 30 dynamic tasks (mean over benchmarks).
PAPER_TOP2_TRANSBO = 22.25


def cache_path(cache_dir: str | Path | None = None) -> Path:
    """The chapter's cache: ``cache_dir`` or the book's ``results/transfer``."""
    return Path(cache_dir) if cache_dir is not None else book_dir(FOLDERS["transfer"])


def _setting(name: str) -> ChapterSetting:
    if name not in CHAPTER_GRID:
        raise InputKeyError(f"unknown chapter setting {name!r}; valid: {', '.join(CHAPTER_GRID)}")
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
        return [
            RunSpec(m, ts[i], seed=SEED, budget=BUDGET, sources=ts[:i], n_source=N_SOURCE)
            for i in range(1, len(ts))
            for m in s.methods
        ]
    out = []
    for t in ts:
        srcs = default_sources(t) if s.n_sources is None else subset_sources(t, s.n_sources, SEED)
        out += [
            RunSpec(m, t, seed=SEED, budget=BUDGET, sources=srcs, n_source=N_SOURCE)
            for m in s.methods
        ]
    return out


def missing_runs(
    name: str,
    tasks: Sequence[str] | None = None,
    cache_dir: str | Path | None = None,
    repeats: int = 1,
) -> list[str]:
    """Cache stems of setting ``name`` without a finished Parquet file of ``repeats``
    repetitions (at least)."""
    cache = cache_path(cache_dir)
    out = []
    for sp in setting_specs(name, tasks):
        f = cache / f"{sp.stem()}.parquet"
        if not f.exists() or pd.read_parquet(f, columns=["rep"])["rep"].nunique() < repeats:
            out.append(sp.stem())
    return out


def _run(
    name: str,
    repeats: int,
    tasks: Sequence[str] | None,
    jobs: int,
    cache_dir: Path | None,
    progress: bool,
) -> pd.DataFrame:
    s = _setting(name)
    ts = _tasks(s, tasks)
    if s.kind == "dynamic":
        return dynamic_experiment(
            s.methods, ts, N_SOURCE, BUDGET, repeats, SEED, jobs, cache_dir, progress
        )
    return static_experiment(
        s.methods, ts, s.n_sources, N_SOURCE, BUDGET, repeats, SEED, jobs, cache_dir, progress
    )


def compute_chapter4(
    jobs: int = 2, repeats: int = 30, cache_dir: str | Path | None = None, progress: bool = False
) -> None:
    """Run every experiment of :data:`CHAPTER_GRID` into the cache.

    Each setting gets ``min(setting.repeats, repeats)`` repetitions (``repeats=30`` is the
    published grid; a small value gives a quick development cache). Interrupted runs resume.
    On the 2-core machine the published grid (about 5,000 trials, most of them cheap) takes
    about 20 minutes with ``jobs=2``, the overhead experiment (:func:`compute_overhead`, into
    ``<cache>/overhead``) about 2 more. Without ``cache_dir`` the runs go to the book's
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
    compute_overhead(min(OVERHEAD_REPEATS, repeats), jobs, cache / "overhead", progress)


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
            f"(e.g. {missing[0]}); run nmthpo.studies.li_transbo.study.compute_chapter4() first "
            "or pass use_cache=False"
        )
    user = seed_user_cache(FOLDERS["transfer"], [sp.stem() for sp in setting_specs(name, tasks)])
    return _run(name, r, tasks, jobs, user, False)


# -- tables --------------------------------------------------------------------------------------
def rank_table(
    frame: pd.DataFrame, step: int, value: str = "rank", interval: bool = False
) -> pd.DataFrame:
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
        rows[m] = {
            "paper 1st/120": first,
            "paper 2nd/120": second,
            "paper top2 share": (first + second) / (30 * len(by)),
        }
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
        lambda v: (
            float(np.nanmean(np.abs(np.diff(v.to_numpy())))) if v.notna().sum() > 1 else np.nan
        )
    )
    tab["mean |dp|"] = jumps.groupby("method").mean()
    tab.index.name = "method"
    return tab


# -- the overhead experiment ---------------------------------------------------------------------
#: The target of the overhead experiment (the paper times one benchmark, Random Forest).
OVERHEAD_TARGET = "zh-en"
#: Its repetitions (the paper: 20; each repetition times every variant once, interleaved).
OVERHEAD_REPEATS = 10
#: Its folder in the book's cache (beside, not inside, the grid's runs).
OVERHEAD_FOLDER = f"{FOLDERS['transfer']}/overhead"
#: variant -> (method, settings): Figure 5(c)'s methods and I-GP as run by the chapter, and two
#: variants without a cost of our implementations (:class:`~nmthpo.optimizers.transfer.methods.
#: TransBO`'s ``cv_refit``, :class:`~nmthpo.optimizers.transfer.methods.SCoT`'s ``refit_every``).
OVERHEAD_VARIANTS: dict[str, tuple[str, dict[str, object]]] = {
    "igp": ("igp", {}),
    "pogpe": ("pogpe", {}),
    "tst": ("tst", {}),
    "rgpe": ("rgpe", {}),
    "transbo": ("transbo", {}),
    "transbo, folds conditioned": ("transbo", {"cv_refit": False}),
    "scot": ("scot", {}),
    "scot, refit every trial": ("scot", {"refit_every": 1}),
}


def overhead_specs(target: str = OVERHEAD_TARGET) -> dict[str, RunSpec]:
    """variant -> the :class:`~nmthpo.engine.runner.RunSpec` of the overhead experiment.

    Leave one out on ``target`` (its five sources), the chapter's budget and source sample;
    the variants of :data:`OVERHEAD_VARIANTS`.
    """
    srcs = default_sources(target)
    return {
        v: RunSpec(
            m, target, seed=SEED, budget=BUDGET, settings=dict(st), sources=srcs, n_source=N_SOURCE
        )
        for v, (m, st) in OVERHEAD_VARIANTS.items()
    }


def _overhead_frame(
    specs: dict[str, RunSpec], repeats: int, jobs: int, cache: Path | None, progress: bool
) -> pd.DataFrame:
    """Run ``repeats`` repetitions of every variant, one repetition of all variants at a time
    (so that every variant is timed under the same load), and tag each run's frame."""
    from nmthpo.engine.runner import run_specs

    res = []
    for r in range(1, repeats + 1):
        res = run_specs(list(specs.values()), r, jobs, cache, progress)
    frames = []
    for v, rr in zip(specs, res, strict=True):
        f = rr.frame.copy()
        f.insert(0, "variant", v)
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def compute_overhead(
    repeats: int = OVERHEAD_REPEATS,
    jobs: int = 1,
    cache_dir: str | Path | None = None,
    progress: bool = False,
) -> None:
    """Time every variant of :data:`OVERHEAD_VARIANTS` into the cache (interleaved by
    repetition). Without ``cache_dir``: the book's ``results/transfer/overhead`` under
    ``make results``, else the user cache."""
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    if cache_dir is not None:
        cache = Path(cache_dir)
    else:
        cache = book_dir(OVERHEAD_FOLDER) if writing_results() else user_dir(OVERHEAD_FOLDER)
    cache.mkdir(parents=True, exist_ok=True)
    _overhead_frame(overhead_specs(), repeats, jobs, cache, progress)


def load_overhead(
    repeats: int | None = None,
    use_cache: bool = True,
    cache_dir: str | Path | None = None,
    jobs: int = 1,
) -> pd.DataFrame:
    """The overhead experiment's tidy frame (a ``variant`` column before the runner's).

    ``repeats`` is capped at :data:`OVERHEAD_REPEATS`. ``use_cache`` reads the book's
    ``results/transfer/overhead`` when it holds every run (else the missing ones are timed
    into the user cache, as :func:`load_setting` does); ``False`` times afresh without storing
    (the seconds then describe this machine, not the published run).
    """
    r = OVERHEAD_REPEATS if repeats is None else min(int(repeats), OVERHEAD_REPEATS)
    if r < 1:
        raise ValueError(f"repeats must be >= 1, got {r}")
    specs = overhead_specs()
    if not use_cache:
        return _overhead_frame(specs, r, jobs, None, False)
    if cache_dir is not None:
        cache = Path(cache_dir)
    else:
        book = book_dir(OVERHEAD_FOLDER)
        have = all(
            (book / f"{sp.stem()}.parquet").exists()
            and pd.read_parquet(book / f"{sp.stem()}.parquet", columns=["rep"])["rep"].nunique()
            >= r
            for sp in specs.values()
        )
        if have or writing_results():
            cache = book
        else:
            cache = seed_user_cache(OVERHEAD_FOLDER, [sp.stem() for sp in specs.values()])
    return _overhead_frame(specs, r, jobs, cache, False)


def overhead_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per variant: cumulative suggestion seconds at the last trial (mean over repetitions),
    milliseconds per suggestion, and the ratio to POGPE's seconds."""
    last = frame.groupby(["variant", "rep"])["seconds"].sum()
    n_sugg = int(frame["step"].max()) - 3  # the 3 initial rows are not suggested
    tab = last.groupby("variant").mean().rename("seconds").to_frame()
    tab["ms per suggestion"] = 1000 * tab["seconds"] / max(n_sugg, 1)
    if "pogpe" in tab.index:
        tab["/ POGPE"] = tab["seconds"] / tab.loc["pogpe", "seconds"]
    tab = tab.reindex([v for v in OVERHEAD_VARIANTS if v in tab.index])
    tab.index.name = "variant"
    return tab


def overhead_variant_curves(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean cumulative suggestion seconds per variant and step (columns ``method`` -- the
    variant's label --, ``step``, ``cum_seconds``), for :func:`nmthpo.plots.overhead_plot`."""
    f = frame.sort_values(["variant", "target", "rep", "step"]).copy()
    f["cum_seconds"] = f.groupby(["variant", "target", "rep"], sort=False)["seconds"].cumsum()
    out = f.groupby(["variant", "step"], as_index=False)["cum_seconds"].mean()
    out = out.rename(columns={"variant": "method"})
    order = {v: i for i, v in enumerate(OVERHEAD_VARIANTS)}
    return out.sort_values(
        ["method", "step"], key=lambda c: c.map(order) if c.name == "method" else c
    ).reset_index(drop=True)


# -- prose -----------------------------------------------------------------------------------------
#: How the prose names the methods.
NAMES: dict[str, str] = {
    "rs": "random search",
    "igp": "I-GP",
    "scot": "SCoT",
    "sgpr": "SGPR",
    "pogpe": "POGPE",
    "tst": "TST",
    "tstm": "TST-M",
    "rgpe": "RGPE",
    "transbo": "TransBO",
    "transbo-ms": "TransBO",
    "pogpe-ms": "POGPE",
    "tst-ms": "TST",
    "rgpe-ms": "RGPE",
}


def _name(method: str) -> str:
    return NAMES.get(method, method)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _names(methods: Sequence[str]) -> str:
    from nmthpo.engine.numbers import join

    return join([_name(m) for m in methods])


def claim_glue(table: pd.DataFrame, prefix: str = "ch4") -> dict[str, str]:
    """Glue keys ``<prefix>.v.<id>`` (verdict), ``.ours.<id>`` and ``.ci.<id>`` of every row
    of an evaluated claims (or findings) table."""
    out = {}
    for _, r in table.iterrows():
        cid = str(r["id"])
        out[f"{prefix}.ours.{cid}"] = str(r["ours"])
        if "verdict" in r:
            out[f"{prefix}.v.{cid}"] = str(r["verdict"])
            lo, hi = r["95% CI low"], r["95% CI high"]
            out[f"{prefix}.ci.{cid}"] = "no interval" if lo == "-" else f"[{lo}, {hi}]"
        else:
            out[f"{prefix}.ci.{cid}"] = str(r["95% CI"])
    return out


def part_glue(ev: object, scope: object, prefix: str = "ch4") -> dict[str, str]:
    """Glue keys ``<prefix>.part.<id>.<part>`` (``value [low, high]``) of every part of the
    composite claims whose needs ``scope`` meets (``n/a`` for the others)."""
    import re

    from nmthpo.engine.claims import Scope
    from nmthpo.engine.numbers import fmt_interval
    from nmthpo.studies.li_transbo.claims import CLAIMS

    assert isinstance(scope, Scope)
    out = {}
    for c in CLAIMS:
        if c.statistic is None or not hasattr(c.rule, "rules") and not hasattr(c.rule, "rule"):
            continue
        est = None if c.needs.missing(scope) is not None else c.statistic(ev)
        for part in getattr(c.rule, "rules", None) or (est.parts if est and est.parts else {}):
            key = f"{prefix}.part.{c.id}.{re.sub(r'[^a-z0-9]+', '-', part.lower()).strip('-')}"
            e = None if est is None or not est.parts else est.parts.get(part)
            out[key] = "n/a" if e is None else fmt_interval(e.value, e.low, e.high, e.quantity)
    return out


def prose_values(
    ev: object,
    scope: object,
    claims_table: pd.DataFrame,
    findings_table: pd.DataFrame,
    crosscheck: str | None = None,
) -> dict[str, str]:
    """Every number, name and verdict the chapter's prose quotes, formatted (glue keys
    ``ch4.*``). ``ev`` and ``scope`` are :func:`nmthpo.studies.li_transbo.claims.evidence_for`'s."""
    import re

    from nmthpo.engine.numbers import fmt, join
    from nmthpo.studies.li_transbo.claims import TransferEvidence, seconds_per_rep

    assert isinstance(ev, TransferEvidence)
    step = ev.step
    s5, s2 = ev.static5, ev.static2
    last = int(s5["step"].max())
    out: dict[str, str] = {"ch4.step": str(step), "ch4.last": str(last)}
    out.update(claim_glue(claims_table))
    out.update(claim_glue(findings_table))
    out.update(part_glue(ev, scope))

    def r(x: float) -> str:
        return fmt(x, "rank")

    # static, 5 sources
    t5 = rank_table(s5, step, interval=True)
    a5 = rank_table(s5, step, "adtm", interval=True)
    ci = ["95% CI low", "95% CI high"]
    out["ch4.rank_noise"] = r(float(((t5[ci[1]] - t5[ci[0]]) / 2).mean()))
    out["ch4.adtm_noise"] = fmt(float(((a5[ci[1]] - a5[ci[0]]) / 2).mean()))
    tr = [m for m in t5.index if m not in ("rs", "igp")]
    out["ch4.s5_tr_lo"], out["ch4.s5_tr_hi"] = (
        r(t5.loc[tr, "all"].min()),
        r(t5.loc[tr, "all"].max()),
    )
    out["ch4.s5_igp"] = r(t5.loc["igp", "all"])
    out["ch4.s5_best"] = _name(t5.index[0])
    out["ch4.s5_worst_tr"] = _name(tr[-1])
    atr = [m for m in a5.index if m not in ("rs", "igp")]
    out["ch4.a5_tr_lo"], out["ch4.a5_tr_hi"] = (
        fmt(a5.loc[atr, "all"].min()),
        fmt(a5.loc[atr, "all"].max()),
    )
    out["ch4.a5_igp"], out["ch4.a5_rs"] = fmt(a5.loc["igp", "all"]), fmt(a5.loc["rs", "all"])
    worse = [m for m in atr if a5.loc[m, "all"] >= a5.loc["igp", "all"]]
    out["ch4.a5_not_below_igp"] = _names(worse) if worse else "none"
    place = int((t5["all"] < t5.loc["transbo", "all"] - 1e-12).sum()) + 1
    out["ch4.s5_tb_place"] = _ordinal(place)
    out["ch4.n_static"] = str(len(t5))
    ahead = list(t5.index[:place])
    out["ch4.s5_top"] = ", ".join(f"{_name(m)} {r(t5.loc[m, 'all'])}" for m in ahead)
    out["ch4.s5_top1"] = _name(t5.index[0])
    out["ch4.s5_tb_gap"] = r(t5.loc["transbo", "all"] - t5["all"].iloc[0])
    # static, 2 sources
    t2 = rank_table(s2, step, interval=True)
    place2 = int((t2["all"] < t2.loc["transbo", "all"] - 1e-12).sum()) + 1
    out["ch4.s2_tb_place"] = _ordinal(place2)
    out["ch4.s2_tb"], out["ch4.s2_igp"] = r(t2.loc["transbo", "all"]), r(t2.loc["igp", "all"])
    out["ch4.s2_best"] = _name(t2.index[0])
    # target weights
    four = s5[s5["method"].isin(["pogpe", "tst", "rgpe", "transbo"])]
    ws = weight_summary(four, (6, 10, 20, last))
    pct = {s: fmt(100 * ws.loc["transbo", f"share p_T=1@{s}"], "percent") for s in (6, last)}
    out["ch4.locked6"], out["ch4.locked_last"] = pct[6], pct[last]
    out["ch4.tb_p10"] = fmt(ws.loc["transbo", "p_T@10"], "fraction")
    out["ch4.tb_plast"] = fmt(ws.loc["transbo", f"p_T@{last}"], "fraction")
    out["ch4.tst_plast"] = fmt(ws.loc["tst", f"p_T@{last}"], "fraction")
    out["ch4.rgpe_dp"] = fmt(ws.loc["rgpe", "mean |dp|"], "fraction")
    out["ch4.tb_dp"] = fmt(ws.loc["transbo", "mean |dp|"], "fraction")
    # RGPE
    out["ch4.rgpe_place5"] = _ordinal(int((t5["all"] < t5.loc["rgpe", "all"] - 1e-12).sum()) + 1)
    fl5 = curve_fluctuation(average_rank(s5))
    fl2 = curve_fluctuation(average_rank(s2))
    out["ch4.tv2_rgpe"], out["ch4.tv2_tb"] = r(fl2["rgpe"]), r(fl2["transbo"])
    out["ch4.tv5_rgpe"] = r(fl5["rgpe"])
    # dynamic
    dyn = ev.dynamic
    dlast = int(dyn["step"].max())
    dt = dynamic_table(dyn, (step, dlast))
    n_dyn = int(dyn["target"].nunique())
    out["ch4.n_dyn"] = str(n_dyn)
    for s, tag in ((step, "s"), (dlast, "l")):
        for m in ("transbo", "rgpe", "tst", "pogpe"):
            out[f"ch4.d{tag}_1st_{m}"] = str(int(dt.loc[m, f"1st@{s}"]))
            out[f"ch4.d{tag}_2nd_{m}"] = str(int(dt.loc[m, f"2nd@{s}"]))
            out[f"ch4.d{tag}_top2_{m}"] = str(int(round(dt.loc[m, f"top2 share@{s}"] * n_dyn)))
            out[f"ch4.d{tag}_tied_{m}"] = str(int(dt.loc[m, f"tied 1st@{s}"]))
        out[f"ch4.d{tag}_clear"] = str(int(dt[f"clear 1st@{s}"].sum()))
    out["ch4.d_share_place"] = fmt(100 / n_dyn, "percent")
    td = rank_table(dyn, step)
    close = td.drop(index=[m for m in ("pogpe",) if m in td.index])["all"]
    out["ch4.dyn_spread"] = r(float(close.max() - close.min()))
    # NMTLC
    tl = rank_table(ev.nmtlc, step)
    order = list(tl.index)
    out["ch4.nm_best"] = _names([m for m in order if tl.loc[m, "all"] <= tl["all"].min() + 1e-12])
    out["ch4.nm_tb_place"] = _ordinal(order.index("transbo") + 1)
    out["ch4.nm_rgpe_place"] = _ordinal(order.index("rgpe") + 1)
    # Phase 1 ablation
    ta = rank_table(ev.ablation, step)
    aa = rank_table(ev.ablation, step, "adtm")
    out["ch4.ab_order"] = ", ".join(f"{_name(m)} {r(ta.loc[m, 'all'])}" for m in ta.index)
    out["ch4.ab_best"] = _name(ta.index[0])
    out["ch4.ab_adtm"] = ", ".join(f"{_name(m)} {fmt(aa.loc[m, 'all'])}" for m in aa.index)
    # overhead
    secs = seconds_per_rep(s5)
    out["ch4.oh_ratio"] = fmt(secs["transbo"].mean() / secs["pogpe"].mean(), "ratio")
    out["ch4.oh_slowest"] = _name(max(secs, key=lambda m: secs[m].mean()))
    if ev.overhead is not None:
        ot = overhead_table(ev.overhead)
        out["ch4.ox_target"] = str(ev.overhead["target"].iloc[0])
        out["ch4.ox_reps"] = str(int(ev.overhead.groupby("variant")["rep"].nunique().min()))
        for v, key in (
            ("transbo", "tb"),
            ("transbo, folds conditioned", "tbc"),
            ("scot", "scot"),
            ("scot, refit every trial", "scot1"),
            ("igp", "igp"),
            ("pogpe", "pogpe"),
        ):
            out[f"ch4.ox_ms_{key}"] = fmt(ot.loc[v, "ms per suggestion"], "auto")
            out[f"ch4.ox_ratio_{key}"] = fmt(ot.loc[v, "/ POGPE"], "ratio")
        slow = ot.drop(index=[v for v in ot.index if v == "scot, refit every trial"])
        out["ch4.ox_slowest_without"] = str(slow["seconds"].idxmax())
        out["ch4.ox_slowest"] = str(ot["seconds"].idxmax())
    # OpenBox cross-check
    if crosscheck:
        dw = re.search(r"max \|dw\| = ([0-9.e+-]+)", crosscheck)
        dp = re.search(r"max \|dp\| [^=]*= ([0-9.e+-]+)", crosscheck)
        if dw and dp:
            out["ch4.ob_dw"] = fmt(max(float(dw.group(1)), float(dp.group(1))), "p")
    # exercises
    few = rank_table(s5[s5["rep"] < 10], step, interval=True)
    w30 = float((t5[ci[1]] - t5[ci[0]]).mean())
    w10 = float((few[ci[1]] - few[ci[0]]).mean())
    out["ch4.ex1_widen"] = fmt(100 * (w10 / w30 - 1) if w30 > 0 else float("nan"), "percent")
    out["ch4.ex1_top"] = ", ".join(f"{_name(m)} {r(few.loc[m, 'all'])}" for m in few.index[:4])
    out["ch4.ex1_tb_place"] = _ordinal(list(few.index).index("transbo") + 1)
    counts = {s: rank_counts(dyn, step=s).sum(axis=1) for s in range(5, dlast + 1, 5)}
    lead = [s for s, c in counts.items() if c["transbo"] >= c.drop("transbo").max()]
    out["ch4.ex2_tb_leads"] = join([str(s) for s in lead]) if lead else "no trial"
    out["ch4.ex2_tb_seq"] = ", ".join(str(int(c["transbo"])) for s, c in counts.items() if s >= 25)
    rg = [s for s, c in counts.items() if c["rgpe"] >= c.drop("rgpe").max()]
    out["ch4.ex2_rgpe_leads"] = str(len(rg))
    out["ch4.ex2_n"] = str(len(counts))
    return out
