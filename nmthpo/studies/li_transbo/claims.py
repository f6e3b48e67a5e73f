"""Chapter 4's claims of Li et al. (2022) as records, and the statistics that test them.

Every statement of the paper's experiments (Sections 1, 4.3, 5.2-5.4 and Appendix A) is one
:class:`~nmthpo.engine.claims.Claim`; our own statements (not the paper's) are
:class:`~nmthpo.engine.claims.Finding` records, shown with their interval and never counted.
The one evaluator (:func:`nmthpo.engine.claims.evaluate`) judges them against a
:class:`TransferEvidence` -- the chapter's five settings, the overhead experiment and the
comparison step -- built by :func:`evidence_for` (the notebook, with its parameters) or
:func:`published_evidence` (the ledger, from the book's cache with the published parameters).

Intervals are percentile bootstraps over *repetitions*: repetition ``r`` of every method on a
target shares its initial rows and source samples, so repetitions are resampled jointly for all
methods and targets (:func:`nmthpo.engine.stats.paired_bootstrap`). Counts of places (Table 1)
are recounted in every resample, so their interval is that of the count. What each claim needs
(:class:`~nmthpo.engine.claims.Needs`): the static claims every NMTHPO task as the target in
turn (6 tasks), the dynamic ones the whole arrival order (5 judged tasks), every claim at least
:data:`~nmthpo.engine.claims.MIN_TRIALS` repetitions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from nmthpo.engine.claims import (
    Above,
    AllOf,
    AtLeast,
    AtMost,
    Band,
    Below,
    Claim,
    Covers,
    Estimate,
    Every,
    Finding,
    Needs,
    Rule,
    Scope,
)
from nmthpo.engine.numbers import fmt
from nmthpo.engine.stats import paired_bootstrap, paired_difference, paired_ratio

__all__ = [
    "CHAPTER",
    "CLAIMS",
    "FINDINGS",
    "PAPER",
    "TransferEvidence",
    "evidence_for",
    "published_evidence",
]

CHAPTER = "04_transfer"
PAPER = "li-et-al-2022"

#: Targets of the static settings the static claims need (every NMTHPO task in turn).
N_STATIC = 6
#: Judged tasks of the dynamic setting the dynamic claims need (six tasks in arrival order).
N_DYNAMIC = 5
#: The paper's Section 1: TransBO in the top 2 on 22.25 of 30 dynamic tasks.
PAPER_TOP2_SHARE = 22.25 / 30


# -- evidence -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TransferEvidence:
    """What the chapter's claims read.

    Attributes
    ----------
    static5, static2, dynamic, nmtlc, ablation : DataFrame
        The tidy frames of the chapter's settings
        (:func:`nmthpo.studies.li_transbo.study.load_setting`).
    step : int
        The intermediate trial at which the static and ablation claims compare methods.
    overhead : DataFrame, optional
        The overhead experiment (:func:`nmthpo.studies.li_transbo.study.load_overhead`).
    """

    static5: pd.DataFrame
    static2: pd.DataFrame
    dynamic: pd.DataFrame
    nmtlc: pd.DataFrame
    ablation: pd.DataFrame
    step: int
    overhead: pd.DataFrame | None = None
    _memo: dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    def cached(self, key: str, make: Callable[[], object]) -> object:
        """``make()`` computed once per evidence (rank cubes are shared by several claims)."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]


def _reps(frame: pd.DataFrame) -> int:
    if frame.empty:
        return 0
    return int(frame.groupby(["method", "target"])["rep"].nunique().min())


def evidence_for(
    static5: pd.DataFrame,
    static2: pd.DataFrame,
    dynamic: pd.DataFrame,
    nmtlc: pd.DataFrame,
    ablation: pd.DataFrame,
    step: int,
    overhead: pd.DataFrame | None = None,
) -> tuple[TransferEvidence, Scope]:
    """The evidence of a run of the chapter and the scope that says what it holds."""
    ev = TransferEvidence(static5, static2, dynamic, nmtlc, ablation, int(step), overhead)
    frames = (static5, static2, dynamic, nmtlc, ablation)
    methods = tuple(dict.fromkeys(m for f in frames for m in f["method"].unique()))
    extra = {
        "dynamic tasks": int(dynamic["target"].nunique()),
        "NMTLC targets": int(nmtlc["target"].nunique()),
        "overhead repetitions": 0
        if overhead is None
        else int(overhead.groupby("variant")["rep"].nunique().min()),
    }
    scope = Scope(
        tasks=tuple(dict.fromkeys(static5["target"])),
        methods=methods,
        trials=min(_reps(f) for f in frames),
        extra=extra,
    )
    return ev, scope


def published_evidence() -> tuple[TransferEvidence, Scope]:
    """The evidence of the published chapter, read from the book's cache."""
    from nmthpo.studies.li_transbo import study as ch
    from nmthpo.studies.published import PUBLISHED

    p = PUBLISHED[CHAPTER]
    frames = {
        name: ch.load_setting(name, p["repeats"], tasks)
        for name, tasks in (
            ("static5", p["static_targets"]),
            ("static2", p["static_targets"]),
            ("dynamic", p["dynamic_order"]),
            ("nmtlc", p["nmtlc_targets"]),
            ("ablation", p["static_targets"]),
        )
    }
    return evidence_for(**frames, step=p["step"], overhead=ch.load_overhead(p["repeats"]))


# -- composite statements ----------------------------------------------------------------------
_RANK_OF = {"not reproduced": 0, "partly": 1, "not testable": 2, "reproduced": 3}


def _part_rule(rule: Rule, part: str) -> Rule:
    if isinstance(rule, AllOf):
        return rule.rules[part]
    if isinstance(rule, Every):
        return rule.rule
    raise TypeError(f"{type(rule).__name__} is not a rule of parts")


def composite(
    stat: Callable[[TransferEvidence], Estimate], rule: Rule
) -> Callable[[TransferEvidence], Estimate]:
    """``stat``'s estimate with the value and interval of its *weakest* part.

    A statement of several parts is judged part by part (``rule``: :class:`Every` or
    :class:`AllOf`); the row of the claims table shows the interval of the part judged worst
    (contradicted before inconclusive before reproduced; the first of equals), and its note
    names that part, so that every verdict shows an interval it rests on.
    """

    def wrapped(ev: TransferEvidence) -> Estimate:
        est = stat(ev)
        if not est.parts:
            return est
        judged = {
            k: _part_rule(rule, k).judge(e)[0]
            for k, e in est.parts.items()
            if not isinstance(rule, AllOf) or k in rule.rules
        }
        if not judged:
            return est
        weakest = min(judged, key=lambda k: _RANK_OF[judged[k]])
        w = est.parts[weakest]
        return Estimate(
            w.value,
            w.low,
            w.high,
            text=est.text,
            parts=est.parts,
            quantity=w.quantity,
            note=(
                f"{est.note}; the interval shown is that of the part "
                f"'{weakest}' ({judged[weakest]}), the weakest of "
                f"{len(est.parts)}"
            ),
        )

    return wrapped


# -- statistics: ranks -----------------------------------------------------------------------------
_Cube = tuple[list[str], list[int], np.ndarray]


def _rank_cube(frame: pd.DataFrame) -> _Cube:
    """Methods, steps and ranks averaged over targets: shape (repetitions, methods, steps).

    Ranks are those of :func:`~nmthpo.engine.ranks.average_rank` (within each target,
    repetition and step; ties share the average rank); averaging over targets first and over
    repetitions last gives the aggregated average rank when every target has every repetition.
    """
    from nmthpo.engine.ranks import ranked

    f = ranked(frame)
    wide = f.pivot_table(
        index="rep", columns=["method", "step"], values="rank", aggfunc="mean"
    ).dropna()
    methods = list(dict.fromkeys(wide.columns.get_level_values(0)))
    steps = sorted(set(wide.columns.get_level_values(1)))
    cols = pd.MultiIndex.from_product([methods, steps])
    arr = wide.reindex(columns=cols).to_numpy().reshape(len(wide), len(methods), len(steps))
    return methods, steps, arr


def _adtm_at(frame: pd.DataFrame, step: int) -> pd.DataFrame:
    """ADTM at ``step`` averaged over targets: index repetition, one column per method
    (rounded to 12 decimals, so that equal best rows give exactly equal ADTM)."""
    from nmthpo.engine.ranks import per_repetition

    return per_repetition(frame, step, "adtm").round(12)


def _cube(ev: TransferEvidence, name: str) -> _Cube:
    frame: pd.DataFrame = getattr(ev, name)
    out = ev.cached(f"cube:{name}", lambda: _rank_cube(frame))
    return out  # type: ignore[return-value]


def _at(cube: _Cube, method: str, step: int) -> np.ndarray:
    methods, steps, arr = cube
    return arr[:, methods.index(method), steps.index(step)]


def _order(cube: _Cube, step: int) -> list[str]:
    """Methods by their average rank at ``step`` (best first)."""
    methods, steps, arr = cube
    means = arr[:, :, steps.index(step)].mean(axis=0)
    return [methods[i] for i in np.argsort(means, kind="stable")]


def _place(cube: _Cube, method: str, step: int) -> int:
    methods, steps, arr = cube
    means = arr[:, :, steps.index(step)].mean(axis=0)
    return int((means < means[methods.index(method)] - 1e-12).sum()) + 1


def _versus_place(name: str, method: str, place: int) -> Callable[[TransferEvidence], Estimate]:
    """``method``'s average rank at the evidence's step minus that of the ``place``-th best
    other method (others ordered by their average rank); below 0 means ``method`` is at least
    ``place``-th."""

    def stat(ev: TransferEvidence) -> Estimate:
        cube = _cube(ev, name)
        step = ev.step
        others = [m for m in _order(cube, step) if m != method]
        other = others[place - 1]
        est, lo, hi = paired_difference(_at(cube, method, step), _at(cube, other, step))
        n = len(cube[0])
        which = "best" if place == 1 else "second-best"
        return Estimate(
            est,
            lo,
            hi,
            quantity="rank",
            text=(
                f"{fmt(est, 'rank')} ({method} place {_place(cube, method, step)} of {n}, "
                f"{fmt(_at(cube, method, step).mean(), 'rank')}; {other} "
                f"{fmt(_at(cube, other, step).mean(), 'rank')})"
            ),
            note=(
                f"{method}'s average rank at trial {step} minus the {which} other method's "
                f"({other}); paired bootstrap over repetitions"
            ),
        )

    return stat


def _rgpe_minus_transbo(ev: TransferEvidence) -> Estimate:
    cube = _cube(ev, "static5")
    est, lo, hi = paired_difference(_at(cube, "rgpe", ev.step), _at(cube, "transbo", ev.step))
    return Estimate(
        est,
        lo,
        hi,
        quantity="rank",
        note=f"RGPE's average rank at trial {ev.step} minus TransBO's (5 sources); "
        "paired bootstrap over repetitions",
    )


def _tv(curves: np.ndarray) -> np.ndarray:
    """Total variation of the mean curve of each resample: (B, n, steps) -> (B,)."""
    return np.abs(np.diff(curves.mean(axis=1), axis=-1)).sum(axis=-1)


def _curve(cube: _Cube, method: str, start: int = 4) -> np.ndarray:
    """Per-repetition rank curves of ``method`` from step ``start`` on: (repetitions, steps)."""
    methods, steps, arr = cube
    return arr[:, methods.index(method), [i for i, s in enumerate(steps) if s >= start]]


def _rgpe_fluctuation(ev: TransferEvidence) -> Estimate:
    cube = _cube(ev, "static2")
    a, b = _curve(cube, "rgpe"), _curve(cube, "transbo")
    est, lo, hi = paired_bootstrap([a, b], lambda x, y: _tv(x) - _tv(y))
    return Estimate(
        est,
        lo,
        hi,
        quantity="rank",
        text=(
            f"{fmt(est, 'rank')} (RGPE {fmt(float(_tv(a[None])[0]), 'rank')}, TransBO "
            f"{fmt(float(_tv(b[None])[0]), 'rank')})"
        ),
        note=(
            "total variation of the aggregated average-rank curve from trial 4 on, 2 "
            "sources: RGPE's minus TransBO's; paired bootstrap over repetitions (resampling "
            "adds noise to every curve; the difference cancels most of it)"
        ),
    )


def _rank_drop(ev: TransferEvidence) -> Estimate:
    parts = {}
    for name in ("static5", "static2"):
        cube = _cube(ev, name)
        est, lo, hi = paired_difference(_at(cube, "transbo", ev.step), _at(cube, "transbo", 3))
        parts[name] = Estimate(est, lo, hi, quantity="rank")
    p5 = parts["static5"]
    return Estimate(
        p5.value,
        p5.low,
        p5.high,
        quantity="rank",
        parts=parts,
        text=(
            f"{fmt(p5.value, 'rank')} with 5 sources, {fmt(parts['static2'].value, 'rank')} with 2"
        ),
        note=(
            f"TransBO's average rank at trial {ev.step} minus at trial 3 (where "
            "every method ties: the initial rows are shared); interval of the "
            "5-source run, paired bootstrap over repetitions"
        ),
    )


def _phase1(ev: TransferEvidence) -> Estimate:
    cube = _cube(ev, "ablation")
    adtm = _adtm_at(ev.ablation, ev.step)
    me = "transbo-ms"
    parts = {}
    for other in [m for m in _order(cube, ev.step) if m != me]:
        est, lo, hi = paired_difference(_at(cube, me, ev.step), _at(cube, other, ev.step))
        parts[f"rank vs {other}"] = Estimate(est, lo, hi, quantity="rank")
    for other in [m for m in adtm.columns if m != me]:
        est, lo, hi = paired_difference(adtm[me].to_numpy(), adtm[other].to_numpy())
        parts[f"ADTM vs {other}"] = Estimate(est, lo, hi, quantity="auto")
    held = sum(e.high < 0 for e in parts.values())
    return Estimate(
        float("nan"),
        parts=parts,
        quantity="rank",
        text=f"ahead with 95 % confidence on {held} of {len(parts)} comparisons",
        note=(
            f"TransBO's source surrogate (transbo-ms) minus each other source "
            f"surrogate at trial {ev.step}, average rank and ADTM; paired "
            "bootstrap over repetitions"
        ),
    )


# -- statistics: Table 1 ---------------------------------------------------------------------------
def _best_cube(frame: pd.DataFrame, step: int) -> tuple[list[str], list[str], np.ndarray]:
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


_Best = tuple[list[str], list[str], np.ndarray]


def _best(ev: TransferEvidence, step: int) -> _Best:
    out = ev.cached(f"best:{step}", lambda: _best_cube(ev.dynamic, step))
    return out  # type: ignore[return-value]


def place_counts(best: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First places and top-2 places per method and resample: ``(B, n, M, T) -> (B, M)`` each.

    Places per target are dense ranks of the mean best BLEU over repetitions (tied methods
    share a place), as in :func:`~nmthpo.engine.ranks.rank_counts`.
    """
    v = np.round(best.mean(axis=1), 10)  # (B, M, T)
    m = v.shape[1]
    first = np.ones_like(v, dtype=bool)  # first occurrence of each distinct value
    for j in range(1, m):
        first[:, j] = ~(v[:, :j] == v[:, j : j + 1]).any(axis=1)
    higher = (v[:, None, :, :] > v[:, :, None, :]) & first[:, None, :, :]  # (B, M, M', T)
    place = 1 + higher.sum(axis=2)  # (B, M, T)
    return (place == 1).sum(axis=2), (place <= 2).sum(axis=2)


def top2_lead(best: np.ndarray, methods: list[str], which: int = 1) -> np.ndarray:
    """TransBO's count minus the largest other's, per resample: ``(B, n, M, T) -> (B,)``;
    ``which=0`` counts first places, ``1`` top-2 places."""
    counts = place_counts(best)[which]
    i = methods.index("transbo")
    return np.asarray(counts[:, i] - np.delete(counts, i, axis=1).max(axis=1), dtype=float)


def _dynamic_leads(at_last: bool) -> Callable[[TransferEvidence], Estimate]:
    def stat(ev: TransferEvidence) -> Estimate:
        step = int(ev.dynamic["step"].max()) if at_last else ev.step
        methods, targets, best = _best(ev, step)
        first, top2 = place_counts(best[None])
        i = methods.index("transbo")
        parts = {}
        texts = []
        for key, which, counts in (("1st places", 0, first), ("top-2 places", 1, top2)):
            est, lo, hi = paired_bootstrap([best], lambda b, w=which: top2_lead(b, methods, w))
            parts[key] = Estimate(est, lo, hi, quantity="count")
            rival = max(
                (m for m in methods if m != "transbo"), key=lambda m: counts[0, methods.index(m)]
            )
            texts.append(
                f"{key}: TransBO {int(counts[0, i])}, {rival} "
                f"{int(counts[0, methods.index(rival)])}"
            )
        return Estimate(
            float("nan"),
            parts=parts,
            quantity="count",
            text=f"{'; '.join(texts)} (of {len(targets)} tasks)",
            note=(
                f"TransBO's count of 1st and of top-2 places at trial {step} "
                "minus the largest other method's, recounted in every resample "
                "of the repetitions (places by mean best BLEU, ties share a "
                "place)"
            ),
        )

    return stat


def _top2_share(ev: TransferEvidence) -> Estimate:
    step = int(ev.dynamic["step"].max())
    methods, targets, best = _best(ev, step)
    i, n = methods.index("transbo"), len(targets)
    est, lo, hi = paired_bootstrap([best], lambda b: place_counts(b)[1][:, i] / n)
    return Estimate(
        est,
        lo,
        hi,
        quantity="fraction",
        text=f"{fmt(est, 'fraction')} ({int(round(est * n))} of {n} tasks)",
        note=(
            f"TransBO's share of tasks in the top 2 at trial {step}, recounted in "
            "every resample of the repetitions"
        ),
    )


# -- statistics: weights and overhead ---------------------------------------------------------
def _weights(frame: pd.DataFrame, method: str, step: int) -> np.ndarray:
    """Mean target weight over targets per repetition at ``step`` (repetition order)."""
    f = frame[(frame["method"] == method) & (frame["step"] == step)]
    return f.groupby("rep", sort=True)["target_weight"].mean().to_numpy()


def _weight_rise(ev: TransferEvidence) -> Estimate:
    last = int(ev.static5["step"].max())
    checkpoints = sorted({s for s in (6, 10, 20, last) if s <= last})
    parts = {}
    for a, b in zip(checkpoints, checkpoints[1:], strict=False):
        est, lo, hi = paired_difference(
            _weights(ev.static5, "transbo", b), _weights(ev.static5, "transbo", a)
        )
        parts[f"trials {a} to {b}"] = Estimate(est, lo, hi, quantity="fraction")
    w = [fmt(_weights(ev.static5, "transbo", s).mean(), "fraction") for s in checkpoints]
    return Estimate(
        float("nan"),
        parts=parts,
        quantity="fraction",
        text=" -> ".join(f"{x} (trial {s})" for x, s in zip(w, checkpoints, strict=True)),
        note=(
            "TransBO's mean target weight p^T (5 sources) between checkpoints; "
            "paired bootstrap over repetitions"
        ),
    )


def _tst_weight(ev: TransferEvidence) -> Estimate:
    from nmthpo.engine.stats import bootstrap_mean

    last = int(ev.static5["step"].max())
    est, lo, hi = bootstrap_mean(_weights(ev.static5, "tst", last))
    return Estimate(
        est,
        lo,
        hi,
        quantity="fraction",
        note=f"TST's mean target weight at trial {last} (5 sources); bootstrap over repetitions",
    )


def _jumps(frame: pd.DataFrame, method: str) -> np.ndarray:
    """Mean |p_{t+1} - p_t| from trial 4 on, per repetition (mean over targets)."""
    f = frame[(frame["method"] == method) & (frame["step"] >= 4)]
    f = f.sort_values(["target", "rep", "step"])
    per = f.groupby(["rep", "target"])["target_weight"].apply(
        lambda v: float(np.nanmean(np.abs(np.diff(v.to_numpy()))))
    )
    return per.groupby("rep").mean().to_numpy()


def _rgpe_weight_jumps(ev: TransferEvidence) -> Estimate:
    j = {m: _jumps(ev.static5, m) for m in ("rgpe", "tst", "transbo")}
    rival = max(("tst", "transbo"), key=lambda m: j[m].mean())
    est, lo, hi = paired_difference(j["rgpe"], j[rival])
    return Estimate(
        est,
        lo,
        hi,
        quantity="fraction",
        text=(
            f"{fmt(est, 'fraction')} (RGPE {fmt(j['rgpe'].mean(), 'fraction')}, "
            f"{rival} {fmt(j[rival].mean(), 'fraction')})"
        ),
        note=(
            "mean step-to-step change |dp^T| of RGPE's target weight minus that "
            f"of the next most changing method ({rival}; POGPE's is constant), "
            "5 sources; paired bootstrap over repetitions"
        ),
    )


def seconds_per_rep(frame: pd.DataFrame, by: str = "method") -> dict[str, np.ndarray]:
    """Cumulative suggestion seconds of a trial, mean over targets, per repetition."""
    tot = frame.groupby([by, "rep", "target"])["seconds"].sum()
    per = tot.groupby([by, "rep"]).mean().unstack("rep").dropna(axis=1)
    return {str(m): per.loc[m].to_numpy() for m in per.index}


def _overhead(ev: TransferEvidence) -> Estimate:
    secs = seconds_per_rep(ev.static5)
    rivals = [m for m in ("pogpe", "rgpe", "tst", "transbo") if m in secs]
    top = max(rivals, key=lambda m: secs[m].mean())
    parts = {}
    est, lo, hi = paired_difference(secs["scot"], secs[top])
    parts["SCoT the largest"] = Estimate(est, lo, hi, quantity="seconds")
    for m in ("transbo", "tst", "rgpe"):
        est, lo, hi = paired_ratio(secs[m], secs["pogpe"])
        parts[f"{m} / pogpe"] = Estimate(est, lo, hi, quantity="ratio")
    mean = {m: fmt(secs[m].mean(), "seconds") for m in ("scot", *rivals)}
    return Estimate(
        float("nan"),
        parts=parts,
        quantity="ratio",
        text="; ".join(f"{m} {s} s" for m, s in mean.items()),
        note=(
            f"cumulative suggestion seconds of a trial (5 sources), mean over "
            f"targets: SCoT minus the largest other ({top}), and ratios to "
            "POGPE; paired bootstrap over repetitions; wall-clock seconds of the "
            "machine that wrote the cache"
        ),
    )


def _no_negative_transfer(ev: TransferEvidence) -> Estimate:
    parts = {}
    for name in ("static5", "static2", "nmtlc"):
        frame: pd.DataFrame = getattr(ev, name)
        last = int(frame["step"].max())
        a = _adtm_at(frame[frame["method"].isin(["transbo", "igp"])], last)
        est, lo, hi = paired_difference(a["transbo"].to_numpy(), a["igp"].to_numpy())
        parts[name] = Estimate(est, lo, hi, quantity="auto")
    return Estimate(
        float("nan"),
        parts=parts,
        quantity="auto",
        text="; ".join(f"{k} {fmt(e.value)}" for k, e in parts.items()),
        note=(
            "TransBO's ADTM minus I-GP's at the last trial, per setting; paired "
            "bootstrap over repetitions"
        ),
    )


# -- statistics: findings ------------------------------------------------------------------------
def _nmtlc_second(ev: TransferEvidence) -> Estimate:
    return _versus_place("nmtlc", "transbo", 2)(ev)


def _dynamic_at_step(ev: TransferEvidence) -> Estimate:
    step = ev.step
    methods, targets, best = _best(ev, step)
    est, lo, hi = paired_bootstrap([best], lambda b: top2_lead(b, methods, 1))
    return Estimate(
        est,
        lo,
        hi,
        quantity="count",
        note=(
            f"TransBO's top-2 count at trial {step} minus the largest other "
            "method's, recounted in every resample of the repetitions"
        ),
    )


def _overhead_ratio(a: str, b: str) -> Callable[[TransferEvidence], Estimate]:
    def stat(ev: TransferEvidence) -> Estimate:
        assert ev.overhead is not None
        secs = seconds_per_rep(ev.overhead, by="variant")
        est, lo, hi = paired_ratio(secs[a], secs[b])
        return Estimate(
            est,
            lo,
            hi,
            quantity="ratio",
            note=(
                f"overhead experiment ({ev.overhead['target'].iloc[0]}, "
                f"{len(secs[a])} repetitions): cumulative suggestion seconds of "
                f"'{a}' / '{b}'; paired bootstrap over repetitions"
            ),
        )

    return stat


def _transfer_helps(ev: TransferEvidence) -> Estimate:
    cube = _cube(ev, "static5")
    best = [m for m in _order(cube, ev.step) if m not in ("rs", "igp")][0]
    est, lo, hi = paired_difference(_at(cube, "igp", ev.step), _at(cube, best, ev.step))
    return Estimate(
        est,
        lo,
        hi,
        quantity="rank",
        note=(
            f"I-GP's average rank at trial {ev.step} minus that of the best "
            f"transfer method ({best}), 5 sources; paired bootstrap over "
            "repetitions"
        ),
    )


# -- the records ----------------------------------------------------------------------------------
_STATIC = Needs(
    n_tasks=N_STATIC,
    methods=("rs", "igp", "scot", "sgpr", "pogpe", "tst", "tstm", "rgpe", "transbo"),
)
_DYNAMIC = Needs(methods=("pogpe", "tst", "rgpe", "transbo"), extra={"dynamic tasks": N_DYNAMIC})
_ABLATION = Needs(n_tasks=N_STATIC, methods=("transbo-ms", "pogpe-ms", "tst-ms", "rgpe-ms"))
_ONE_BENCHMARK = (
    "the NMT tables are one benchmark (one search space, six tasks); the paper's "
    "statement compares its four benchmarks (four ML algorithms on 30 OpenML "
    "datasets each), which have no counterpart here"
)

_DYN_RULE = AllOf({"1st places": AtLeast(0.0), "top-2 places": AtLeast(0.0)})
_EVERY_BELOW = Every(Below(0.0))
_EVERY_ABOVE = Every(Above(0.0))
_EVERY_AT_MOST = Every(AtMost(0.0))
_OVERHEAD_RULE = AllOf(
    {
        "SCoT the largest": Above(0.0),
        "transbo / pogpe": Band(0.5, 2.0, why="'nearly the same'"),
        "tst / pogpe": Band(0.5, 2.0, why="'nearly the same'"),
        "rgpe / pogpe": Above(1.0),
    }
)

_SEC = 'Sec. 5.2 ("Static TL Setting")'


def _claim(
    id: str,
    where: str,
    statement: str,
    paper_value: str,
    statistic: Callable[[TransferEvidence], Estimate] | None,
    rule: Rule,
    yardstick: str,
    needs: Needs,
    explanation: str = "",
) -> Claim:
    return Claim(
        id=id,
        paper=PAPER,
        where=where,
        statement=statement,
        paper_value=paper_value,
        statistic=statistic,
        rule=rule,
        yardstick=yardstick,
        needs=needs,
        chapter=CHAPTER,
        explanation=explanation,
    )


CLAIMS: tuple[Claim, ...] = (
    _claim(
        "li22.f2.static-many-best",
        f"{_SEC}, Fig. 2",
        'static transfer with many sources: TransBO shows "superior efficiency and '
        'effectiveness", the best average rank of the nine methods',
        "best on all 4 benchmarks (29 sources)",
        _versus_place("static5", "transbo", 1),
        Below(0.0),
        "TransBO's average rank minus the best other method's lies below 0 at the chapter's "
        "comparison trial (leave one out, all five other tasks as sources)",
        _STATIC,
        "chapter 'What carries over', item 2: Phase 2 hands over to the target GP "
        "(p^T locks at 1, see 'The target weight over trials')",
    ),
    _claim(
        "li22.f3.static-few-well",
        f"{_SEC}, Fig. 3",
        'static transfer with few sources: TransBO "still performs well when given a '
        'different number of source tasks"',
        "best on all 4 benchmarks (5 sources)",
        _versus_place("static2", "transbo", 2),
        Below(0.0),
        "'performs well' read as best or second best: TransBO's average rank minus the "
        "second-best other method's lies below 0 (2 of 5 sources, the NMT counterpart of "
        "5 of 29)",
        _STATIC,
        "chapter 'What carries over', item 2",
    ),
    _claim(
        "li22.s5-2.early-rank-drop",
        _SEC + ", Figs. 2-3",
        '"the average rank of TransBO in Figure 2 and Figure 3 decreases sharply in the '
        'initial 20 trials"',
        "a sharp drop (curves only)",
        None,
        Below(0.0),
        "a shape of the paper's curves, without a value",
        Needs(
            data=(
                "the statement describes the shape of the paper's Figures 2-3, whose "
                "values the text does not give, and 'sharply' has no magnitude; on the "
                "NMT tables every method starts from the same tie at trial 3 (shared "
                "initial rows), so a drop alone only says TransBO beats the field's "
                "average; our rank change is a finding "
                "(li22.ours.early-rank-change)"
            )
        ),
        explanation="not testable: the chapter's finding li22.ours.early-rank-change gives "
        "TransBO's rank change from trial 3 with its interval",
    ),
    _claim(
        "li22.s5-2.stable-benchmarks",
        _SEC + "; App. A.3, Fig. 7",
        '"TransBO is stable on different benchmarks" (average rank, and ADTM in Figure 7)',
        "stable on 4 benchmarks",
        None,
        Below(0.0),
        "a comparison across benchmarks",
        Needs(data=_ONE_BENCHMARK),
        "not testable: one benchmark; the chapter's second setting (NMTLC) is shown instead",
    ),
    _claim(
        "li22.f2.rgpe-comparable",
        f"{_SEC}, Fig. 2(b, c)",
        'RGPE, "one of the most competitive baselines", "achieves comparable or similar '
        'performance with TransBO" with many sources',
        "comparable on 2 of 4 benchmarks",
        _rgpe_minus_transbo,
        Band(-0.5, 0.5, why="'comparable or similar performance'"),
        "an approximation ('comparable or similar'): RGPE's average rank minus TransBO's "
        "within half a rank of 0 among the nine methods",
        _STATIC,
        "chapter 'What carries over', item 4",
    ),
    _claim(
        "li22.f3.rgpe-fluctuates",
        f"{_SEC}, Fig. 3(b, c)",
        'with few sources "RGPE exhibits a larger fluctuation over the trials compared '
        'with TransBO"',
        "larger fluctuation (curves only)",
        _rgpe_fluctuation,
        Above(0.0),
        "'larger fluctuation' of the average-rank curve as its total variation from trial 4 "
        "on: RGPE's minus TransBO's lies above 0",
        _STATIC,
        "chapter 'What carries over', item 4 (RGPE's weights fluctuate, its rank curve does not)",
    ),
    _claim(
        "li22.t1.dynamic-most-places",
        'Sec. 5.2 ("Dynamic TL Setting"), Table 1',
        'dynamic transfer: "TransBO achieves the largest number of top1 and top2 online '
        'performance among the compared methods"',
        "1st 55, top 2 89 of 120 tasks (TST 34, 76; RGPE 33, 71)",
        composite(_dynamic_leads(at_last=True), _DYN_RULE),
        _DYN_RULE,
        "'the largest number' (a tie for the largest counts) of 1st and of top-2 places "
        "after the paper's 50 trials: TransBO's count minus the largest other's at least 0, "
        "recounted in every resample",
        _DYNAMIC,
        "chapter 'What carries over', item 5: ties between the four methods",
    ),
    _claim(
        "li22.s1.dynamic-top2-share",
        "Sec. 1; Table 1",
        'dynamic transfer: "the top-2 results on 22.25 out of 30 tuning tasks"',
        "22.25 of 30 (0.74)",
        _top2_share,
        Covers(PAPER_TOP2_SHARE),
        "a value: TransBO's share of tasks in the top 2 after 50 trials, whose interval "
        "must cover 22.25 / 30 (our 5 tasks against the paper's 30)",
        _DYNAMIC,
    ),
    _claim(
        "li22.s5-2.rgpe-unstable-dynamic",
        'Sec. 5.2 ("Dynamic TL Setting")',
        '"RGPE gets a similar performance with TST on Lightgbm and Extra Trees, but its '
        'performance decreases on Adaboost. Thus, RGPE is not stable in this scenario"',
        "unstable across benchmarks",
        None,
        Below(0.0),
        "a comparison across benchmarks",
        Needs(data=_ONE_BENCHMARK),
        "not testable: one benchmark",
    ),
    _claim(
        "li22.f6.nas-speedup",
        "Sec. 5.3, Fig. 6",
        "on NAS-Bench-201, transferring from CIFAR-10 and CIFAR-100 to ImageNet16-120, "
        '"TransBO could achieve more than 5x speedups over the state-of-the-art NAS '
        'methods" (BO and REA)',
        "more than 5x",
        None,
        Above(5.0),
        "a speed-up on another benchmark",
        Needs(
            data=(
                "the released data are the NMT lookup tables; NAS-Bench-201 and the "
                "paper's BO and REA runs are not part of them, and the paper gives the "
                "speed-up from a figure without the runs it compares"
            )
        ),
        "not testable: no NAS data in the NMT benchmark",
    ),
    _claim(
        "li22.f4.phase1-best",
        'Sec. 5.4 ("Source Knowledge Learning"), Fig. 4; App. A.3, Fig. 8',
        'searching with the source surrogate alone, "TransBO outperforms the other three '
        'baselines on both two metrics: average rank and ADTM"',
        "best rank and ADTM on 4 benchmarks",
        composite(_phase1, _EVERY_BELOW),
        _EVERY_BELOW,
        "'outperforms the other three' on 'both metrics': TransBO's source surrogate minus "
        "each other method's lies below 0, for the average rank and for ADTM (six parts)",
        _ABLATION,
        "chapter 'What carries over', item 7",
    ),
    _claim(
        "li22.f5.transbo-weight-rises",
        'Sec. 5.4 ("Target Weight Analysis"), Fig. 5(a, b)',
        '"TransBO\'s [target weight] keeps increasing with the number of trials"',
        "increasing",
        composite(_weight_rise, _EVERY_ABOVE),
        _EVERY_ABOVE,
        "'keeps increasing': the mean p^T rises between every pair of checkpoints (trials "
        "6, 10, 20 and the last)",
        _STATIC,
    ),
    _claim(
        "li22.f5.tst-weight-low",
        'Sec. 5.4 ("Target Weight Analysis"), Fig. 5(a, b)',
        '"TST\'s [target weight] remains low even when the target observations are sufficient"',
        "low",
        _tst_weight,
        Below(0.5),
        "'low' read as below POGPE's constant 0.5 (the target model counting less than the "
        "sources together), at the last trial",
        _STATIC,
        "chapter 'What carries over', item 8: the sources' rank disagreement with the "
        "target exceeds TST's bandwidth, so their weights vanish",
    ),
    _claim(
        "li22.f5.rgpe-weight-fluctuates",
        'Sec. 5.4 ("Target Weight Analysis"), Fig. 5(a, b)',
        "\"RGPE's [target weight] shows a trend of fluctuation because the sampling-based "
        'ranking loss is not stable"',
        "fluctuating",
        _rgpe_weight_jumps,
        Above(0.0),
        "'fluctuation' against the constant (POGPE), low (TST) and increasing (TransBO) "
        "weights: RGPE's mean step-to-step change of p^T minus the next largest lies "
        "above 0",
        _STATIC,
    ),
    _claim(
        "li22.f5c.overhead",
        'Sec. 5.4 ("Scalability Analysis"), Fig. 5(c)',
        '"ScoT\'s runtime increases rapidly among the compared methods"; "it takes nearly '
        "the same optimization overhead for TST, POGPE, and TransBO\"; RGPE's sampling "
        '"introduces extra overhead"',
        "SCoT largest; TransBO ~ TST ~ POGPE; RGPE above them",
        composite(_overhead, _OVERHEAD_RULE),
        _OVERHEAD_RULE,
        "SCoT's cumulative seconds minus the largest other's above 0; 'nearly the same' "
        "(an approximation, on the figure's log scale) as a ratio to POGPE within a factor "
        "of 2; 'extra overhead' as RGPE / POGPE above 1",
        _STATIC,
        "chapter section 'Why the overhead differs': re-timed side by side, SCoT re-fitting "
        "its merged GP at every trial (ours: every tenth) is the slowest method (SCoT's "
        "place explained), and TransBO with its partial GPs conditioned instead of re-fitted "
        "halves its ratio to POGPE; the remaining factor (its ranking-loss solves) is "
        "unexplained: the paper's shared cost per suggestion, which could hide it, was not "
        "measured",
    ),
    _claim(
        "li22.s4-3.no-negative-transfer",
        'Sec. 4.3 ("Theoretical Discussion"); App. A.4',
        '"the performance of TransBO, given sufficient trials, will be no worse than the '
        'method without transfer learning"',
        "no worse than I-GP",
        composite(_no_negative_transfer, _EVERY_AT_MOST),
        _EVERY_AT_MOST,
        "'given sufficient trials' read as the budget of 50 trials: TransBO's ADTM minus "
        "I-GP's at the last trial at most 0 in every setting (5 and 2 sources, NMTLC)",
        Needs(n_tasks=N_STATIC, methods=("igp", "transbo"), extra={"NMTLC targets": 2}),
        "chapter 'What carries over', item 6",
    ),
    _claim(
        "li22.a2.feasibility",
        "App. A.2, Fig. 9",
        'on two datasets (quake, hypothyroid(2)) "the optimal configuration differs" '
        'while "the performance distribution is somehow similar"',
        "optima differ, surfaces similar",
        None,
        Below(0.0),
        "a statement about two of the paper's datasets",
        Needs(
            data=(
                "the paper's Adaboost grids on quake and hypothyroid(2) are not in the "
                "released NMT data; Chapter 1 compares the NMT tables' response "
                "surfaces"
            )
        ),
        "not testable: the paper's datasets; Chapter 1 compares the NMT tables",
    ),
)

FINDINGS: tuple[Finding, ...] = (
    Finding(
        "li22.ours.transfer-helps",
        "with 5 sources transfer helps: I-GP's average rank minus the best transfer method's",
        _transfer_helps,
        CHAPTER,
        _STATIC,
    ),
    Finding(
        "li22.ours.early-rank-change",
        "TransBO's average rank from trial 3 (all tied) to the comparison trial",
        _rank_drop,
        CHAPTER,
        _STATIC,
    ),
    Finding(
        "li22.ours.dynamic-at-step",
        "dynamic transfer at the comparison trial: TransBO's top-2 count minus the largest other's",
        _dynamic_at_step,
        CHAPTER,
        _DYNAMIC,
    ),
    Finding(
        "li22.ours.nmtlc-second",
        "NMTLC fine-tuned tasks (one source each): TransBO's average rank minus the "
        "second-best other method's",
        _nmtlc_second,
        CHAPTER,
        Needs(methods=("transbo",), extra={"NMTLC targets": 2}),
    ),
    Finding(
        "li22.ours.overhead-fold-refits",
        "overhead experiment: TransBO with its partial target GPs conditioned (not "
        "re-fitted) / POGPE",
        _overhead_ratio("transbo, folds conditioned", "pogpe"),
        CHAPTER,
        Needs(extra={"overhead repetitions": 10}),
    ),
    Finding(
        "li22.ours.overhead-transbo",
        "overhead experiment: TransBO as run by the chapter / POGPE",
        _overhead_ratio("transbo", "pogpe"),
        CHAPTER,
        Needs(extra={"overhead repetitions": 10}),
    ),
    Finding(
        "li22.ours.overhead-scot-refit",
        "overhead experiment: SCoT re-fitting its merged GP at every trial / TransBO",
        _overhead_ratio("scot, refit every trial", "transbo"),
        CHAPTER,
        Needs(extra={"overhead repetitions": 10}),
    ),
)
