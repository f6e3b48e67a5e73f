"""Chapter 6's claims as data: Ariafar et al. (2022), budget-conditional search-space scores.

The paper states its findings in words, without numbers ("our scores usually were rank
preserving, ... sometimes overestimated the magnitude of improvement, and performed poorly
when conditioned on little data"; Conclusion), so each record says how the words are read
(``yardstick``). The claims are judged on the NMT lookup tables (the book's subject and the
paper's "realistic problems"): per task, the statistics are means over independent *seed
draws* (a seed size and a repeat: ``len(table_seed_sizes) * table_repeats`` of them), with a
percentile bootstrap over the draws. The synthetic functions (the paper's "to build
intuition"; three draws per seed size) and our extensions are :data:`FINDINGS`: an interval,
no verdict, never counted.

"Some" statements ("sometimes overestimated") are judged by :class:`Some`, a rule of this
module: reproduced when the statement holds on some part, not reproduced when every part
contradicts it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from nmthpo.engine.claims import (
    MIN_TRIALS,
    Above,
    Claim,
    Estimate,
    Every,
    Finding,
    Needs,
    Rule,
    Scope,
)
from nmthpo.engine.numbers import fmt
from nmthpo.engine.stats import N_BOOT, bootstrap_mean, paired_difference
from nmthpo.studies.ariafar.results import Chapter6Params

__all__ = [
    "CHAPTER",
    "CLAIMS",
    "FINDINGS",
    "PAPER",
    "Evidence",
    "Some",
    "evidence_for",
    "per_draw",
    "published_evidence",
    "scope_for",
]

CHAPTER = "06_search_space_scoring"
PAPER = "ariafar-et-al-2022"
_DRAWS = "seed draws per task"
_SYN_DRAWS = "seed draws per function"


@dataclass(frozen=True)
class Some(Rule):
    """ "The statement holds on some part": ``rule`` per part; reproduced when some part is
    reproduced, not reproduced when every part is contradicted, else not testable."""

    rule: Rule

    def judge(self, est: Estimate) -> tuple[str, str]:
        """Existential combination of ``rule`` over ``est.parts``."""
        if not est.parts:
            return "not testable", "no part of the statement is in the run"
        judged = {k: self.rule.judge(e) for k, e in est.parts.items()}
        yes = [k for k, (v, _) in judged.items() if v == "reproduced"]
        no = [k for k, (v, _) in judged.items() if v == "not reproduced"]
        if yes:
            return "reproduced", f"holds on {', '.join(yes)}"
        if len(no) == len(judged):
            return "not reproduced", f"contradicted on every part ({', '.join(no)})"
        rest = "; ".join(f"{k}: {r}" for k, (v, r) in judged.items() if v != "not reproduced")
        return "not testable", f"holds on no part; not testable on some ({rest})"

    def describe(self) -> str:
        """In words."""
        return f"on some part: {self.rule.describe()}"


@dataclass(frozen=True)
class Evidence:
    """What Chapter 6's statistics read: the frames of
    :func:`nmthpo.studies.ariafar.results.chapter6_results` and the parameters."""

    results: Mapping[str, pd.DataFrame]
    params: Chapter6Params
    memo: dict[tuple[str, str], pd.DataFrame] = field(
        default_factory=dict, compare=False, repr=False
    )


# -- per-draw statistics --------------------------------------------------------------------------
def _domain(frame: pd.DataFrame) -> str:
    return "task" if "task" in frame.columns else "function"


def per_draw(ev: Evidence, kind: str, what: str) -> pd.DataFrame:
    """One value per seed draw (domain, seed size, repeat) of ``kind`` ("table"/"synthetic").

    ``what``: ``"tau"`` (Kendall's tau of predicted vs empirical score over the spaces, mean
    over budgets; ``NaN`` budgets -- every empirical score 0 -- left out), ``"over"`` (share of
    (space, budget) cells whose predicted score exceeds the empirical one), ``"broader"``
    (Spearman of budget vs the size of the empirical-best space, 0 when that size does not
    change), ``"broader_predicted"`` (the same for the predicted-best space), ``"precision"``
    and ``"kept"`` (pruning at ``prune_budget``: share of the pruned spaces in the empirical
    bottom fraction minus that fraction, its chance level; whether an empirical-best space
    survived).
    """
    if (kind, what) not in ev.memo:
        ev.memo[(kind, what)] = _per_draw(ev, kind, what)
    return ev.memo[(kind, what)]


def _per_draw(ev: Evidence, kind: str, what: str) -> pd.DataFrame:
    from nmthpo.studies.ariafar.space_scores import (
        faithfulness_table,
        preferred_spaces,
        prune_spaces,
    )

    frame = ev.results.get(kind)
    if frame is None or frame.empty:
        return pd.DataFrame(columns=["domain", "seed_size", "repeat", "value"])
    p, dom = ev.params, _domain(frame)
    keys = [dom, "seed_size", "repeat"]
    if what == "tau":
        out = faithfulness_table(frame, p.score).groupby(keys)["kendall_tau"].mean()
    elif what == "over":
        sub = frame[frame["score"] == p.score]
        out = (sub["predicted"] > sub["empirical"]).groupby([sub[k] for k in keys]).mean()
    elif what in ("broader", "broader_predicted"):
        col = "empirical" if what == "broader" else "predicted"
        best = preferred_spaces(frame, p.score, col)
        size = "n_rows" if "n_rows" in best.columns else "fraction"

        def trend(g: pd.DataFrame) -> float:
            if np.ptp(g[size].to_numpy(dtype=float)) == 0:
                return 0.0
            return float(stats.spearmanr(g["budget"], g[size]).statistic)

        out = best.groupby(keys)[["budget", size]].apply(trend)
    elif what in ("precision", "kept"):
        pr = prune_spaces(frame, p.prune_budget, p.score, p.prune_fraction)
        col = "precision" if what == "precision" else "best_kept"
        out = pr.set_index(keys)[col].astype(float)
        if what == "precision":  # above chance: the pruned fraction
            out = out - p.prune_fraction
    else:
        raise ValueError(f"unknown statistic {what!r}")
    return out.rename("value").reset_index().rename(columns={dom: "domain"})


def _mean(
    values: np.ndarray,
    what: str,
    quantity: str = "auto",
    seed: int = 0,
    min_n: int = MIN_TRIALS,
    unit: str = "seed draws",
) -> Estimate:
    """Mean of the finite ``values`` with a bootstrap interval over them (none from fewer
    than ``min_n``)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size < max(min_n, 2):
        return Estimate(
            float(v.mean()) if v.size else float("nan"),
            note=f"only {v.size} {unit} with a defined {what} (an interval needs {max(min_n, 2)})",
            quantity=quantity,
        )
    est, lo, hi = bootstrap_mean(v, seed=seed)
    return Estimate(
        est,
        lo,
        hi,
        quantity=quantity,
        note=f"mean {what} over {v.size} {unit}; bootstrap over the {unit}"
        + ("" if v.size >= MIN_TRIALS else f" (coarse: fewer than {MIN_TRIALS})"),
    )


def _composite(
    parts: Mapping[str, Estimate], text: str, note: str, some: bool = False, quantity: str = "auto"
) -> Estimate:
    """A statement over several parts: its interval columns are those of the part that decides
    the verdict -- the lowest lower bound for "every part" (:class:`Every`), the highest for
    "some part" (:class:`Some`); the text lists every part."""
    defined = {k: e for k, e in parts.items() if e.defined}
    if not defined:
        return Estimate(float("nan"), text=text or "-", parts=parts, note=note, quantity=quantity)
    name = (max if some else min)(defined, key=lambda k: defined[k].low)
    e = defined[name]
    return Estimate(
        e.value,
        e.low,
        e.high,
        text=text or "-",
        parts=parts,
        quantity=quantity,
        note=f"{note}; interval columns: {name}, the part {'most' if some else 'least'} in favour",
    )


def _per_domain(
    kind: str, what: str, label: str, some: bool = False
) -> Callable[[Evidence], Estimate]:
    def stat(ev: Evidence) -> Estimate:
        d = per_draw(ev, kind, what)
        parts = {
            str(name): _mean(g["value"].to_numpy(), label, seed=ev.params.seed)
            for name, g in d.groupby("domain", sort=False)
        }
        text = "; ".join(f"{k} {e.shown()} {e.interval()}" for k, e in parts.items())
        return _composite(
            parts,
            text,
            f"per {'task' if kind == 'table' else 'function'}: "
            f"{label}, mean over seed draws, bootstrap over the draws",
            some,
        )

    return stat


def _one(kind: str, what: str, label: str, domain: str) -> Callable[[Evidence], Estimate]:
    """A finding on one synthetic function (its few draws: an interval, marked coarse)."""

    def stat(ev: Evidence) -> Estimate:
        d = per_draw(ev, kind, what)
        est = _mean(
            d.loc[d["domain"] == domain, "value"].to_numpy(), label, seed=ev.params.seed, min_n=2
        )
        return (
            est
            if d["domain"].eq(domain).any()
            else Estimate(float("nan"), note=f"{domain} is not in the run")
        )

    return stat


def _little_data(kind: str) -> Callable[[Evidence], Estimate]:
    """Mean tau over the draws of the larger half of the seed sizes minus the smaller half."""

    def part(g: pd.DataFrame, seed: int) -> Estimate:
        sizes = sorted(g["seed_size"].unique())
        if len(sizes) < 2:
            return Estimate(float("nan"), note="needs at least two seed sizes")
        half = len(sizes) // 2
        small = g.loc[g["seed_size"].isin(sizes[:half]), "value"].dropna().to_numpy()
        large = g.loc[g["seed_size"].isin(sizes[-half:]), "value"].dropna().to_numpy()
        what = (
            f"tau at seed sizes {', '.join(map(str, sizes[-half:]))} minus "
            f"{', '.join(map(str, sizes[:half]))}"
        )
        if min(small.size, large.size) < MIN_TRIALS // 2:
            return Estimate(
                float("nan"),
                note=f"{what}: only {small.size} and {large.size} draws with a defined tau",
            )
        rng = np.random.default_rng(seed)
        boot = large[rng.integers(0, large.size, (N_BOOT, large.size))].mean(axis=1) - small[
            rng.integers(0, small.size, (N_BOOT, small.size))
        ].mean(axis=1)
        lo, hi = np.quantile(boot, [0.025, 0.975])
        return Estimate(
            float(large.mean() - small.mean()),
            float(lo),
            float(hi),
            note=f"{what} ({large.size} and {small.size} draws; bootstrap of each half's draws)",
        )

    def stat(ev: Evidence) -> Estimate:
        d = per_draw(ev, kind, "tau")
        parts = {str(n): part(g, ev.params.seed) for n, g in d.groupby("domain", sort=False)}
        text = "; ".join(f"{k} {e.shown()} {e.interval()}" for k, e in parts.items())
        return _composite(
            parts,
            text,
            "per domain: mean Kendall tau with more seed data minus "
            "with less (above 0: little data is worse)",
        )

    return stat


def _select(methods: tuple[str, ...]) -> Callable[[Evidence], Estimate]:
    def stat(ev: Evidence) -> Estimate:
        sel = ev.results.get("select")
        if sel is None or sel.empty:
            return Estimate(float("nan"), note="the selection experiment is not in the run")
        w = sel.pivot_table(
            index=["budget", "method", "trial"], columns="where", values="best"
        ).dropna()
        parts = {}
        for (b, m), g in w.groupby(level=["budget", "method"], sort=False):
            if m not in methods:
                continue
            if len(g) < MIN_TRIALS:
                parts[f"{m} b={b}"] = Estimate(float("nan"), note=f"only {len(g)} trials")
                continue
            est, lo, hi = paired_difference(
                g["selected"].to_numpy(), g["full"].to_numpy(), seed=ev.params.seed
            )
            parts[f"{m} b={b}"] = Estimate(est, lo, hi, quantity="bleu")
        text = "; ".join(f"{k}: {e.shown()} {e.interval()}" for k, e in parts.items())
        return _composite(
            parts,
            text,
            "best BLEU of the search in the selected space minus in "
            "the full table, paired by trial (the same seed rows); paired "
            "bootstrap",
            quantity="bleu",
        )

    return stat


def _compare(ev: Evidence) -> Estimate:
    c = ev.results.get("compare")
    if c is None or c.empty:
        return Estimate(float("nan"), note="the comparison is not in the run")
    per_repeat = c.groupby("repeat")["agree"].mean().to_numpy(dtype=float)
    est = _mean(
        per_repeat,
        "share of budgets whose predicted verdict agrees with the empirical one",
        "fraction",
        ev.params.seed,
        unit="repeats",
    )
    return Estimate(
        est.value,
        est.low,
        est.high,
        quantity="fraction",
        text=f"{c['space_a'].iloc[0]} vs {c['space_b'].iloc[0]}: agree in "
        f"{fmt(est.value, 'fraction')} of the budgets",
        note=est.note,
    )


# -- records --------------------------------------------------------------------------------------
_TABLE_NEEDS = Needs(n_tasks=1, trials=0, extra={_DRAWS: MIN_TRIALS})
_CHAPTER_WORDS = "judged on the NMT tables, per task"

CLAIMS: tuple[Claim, ...] = (
    Claim(
        id="ar22.concl.rank-preserving",
        paper=PAPER,
        where="Conclusion",
        statement="our scores usually were rank preserving",
        paper_value="usually",
        statistic=_per_domain("table", "tau", "Kendall tau"),
        rule=Every(Above(0.0)),
        yardstick="'usually rank preserving': most pairs of spaces keep their empirical order, "
        "i.e. Kendall's tau of predicted vs empirical score (concordant minus "
        f"discordant pairs) above 0; {_CHAPTER_WORDS}",
        needs=_TABLE_NEEDS,
        chapter=CHAPTER,
        explanation="Chapter 6, Discussion 1 (many overlapping finite sub-grids); the "
        "synthetic functions are findings (Hartmann-6 fails, Discussion 2)",
    ),
    Claim(
        id="ar22.concl.overestimate",
        paper=PAPER,
        where="Conclusion",
        statement="they sometimes overestimated the magnitude of improvement",
        paper_value="sometimes",
        statistic=_per_domain("table", "over", "share overestimated", some=True),
        rule=Some(Above(0.5)),
        yardstick="'sometimes overestimated': on some task the predicted score exceeds the "
        "empirical one in most (space, budget) cells (share above 0.5)",
        needs=_TABLE_NEEDS,
        chapter=CHAPTER,
    ),
    Claim(
        id="ar22.concl.little-data",
        paper=PAPER,
        where="Conclusion",
        statement="and performed poorly when conditioned on little data",
        paper_value="poorly with little data",
        statistic=_little_data("table"),
        rule=Every(Above(0.0)),
        yardstick="'performed poorly when conditioned on little data': worse than with more "
        "data, i.e. Kendall's tau with the larger half of the seed sizes minus with "
        f"the smaller half above 0; {_CHAPTER_WORDS}",
        needs=_TABLE_NEEDS,
        chapter=CHAPTER,
        explanation="Chapter 6, 'Little seed data': on ru-en the largest seed sets often hold "
        "the table's best row, so no ranking exists for many draws",
    ),
    Claim(
        id="ar22.intro.broader",
        paper=PAPER,
        where="Introduction",
        statement="the quality of a search space will also depend on the compute budget used "
        "to search, with larger budgets tending to favor broader search spaces",
        paper_value="larger budgets favour broader spaces",
        statistic=_per_domain("table", "broader", "Spearman(budget, size of the best space)"),
        rule=Every(Above(0.0)),
        yardstick="'larger budgets tending to favor broader spaces': the size of the "
        "empirically best space grows with the budget, Spearman's rho of budget vs "
        f"size above 0; {_CHAPTER_WORDS}",
        needs=_TABLE_NEEDS,
        chapter=CHAPTER,
        explanation="Chapter 6, Discussion 3: on a finite table a small space holding the best "
        "rows stays best at every budget (the predicted-best space does grow, a "
        "finding)",
    ),
    Claim(
        id="ar22.s3-1.prune",
        paper=PAPER,
        where="Sec. 1 and 3.1 (applications)",
        statement="a search space score could ... help prune bad regions of an initial broad "
        "search space",
        paper_value="helps prune bad regions",
        statistic=_per_domain("table", "precision", "pruning precision minus chance"),
        rule=Every(Above(0.0)),
        yardstick="'help prune bad regions': the spaces pruned at the prune budget are in the "
        "empirical bottom fraction more often than by chance (precision minus its "
        f"chance level, the pruned fraction, above 0); {_CHAPTER_WORDS}",
        needs=_TABLE_NEEDS,
        chapter=CHAPTER,
    ),
    Claim(
        id="ar22.s3-1.select",
        paper=PAPER,
        where="Sec. 1 and 3.1 (applications)",
        statement="a search space score could select the most promising and budget-appropriate "
        "of several candidate search spaces to try next",
        paper_value="selects a better space",
        statistic=_select(("rs",)),
        rule=Every(Above(0.0)),
        yardstick="'select the most promising space': a random search (the search the score "
        "models) of the selected space finds a better model than one of the full "
        "table, at every budget (difference above 0)",
        needs=Needs(trials=0, extra={"select trials": MIN_TRIALS}),
        chapter=CHAPTER,
        explanation="Chapter 6, Discussion 4: the differences are small against the spread of "
        "ten trials",
    ),
    Claim(
        id="ar22.s3-1.compare",
        paper=PAPER,
        where="Sec. 1 and 3.1 (applications)",
        statement="the same question can be answered by comparing the scores of two search spaces",
        paper_value="answers 'is A better than B at budget b?'",
        statistic=_compare,
        rule=Above(0.5),
        yardstick="'can be answered': the predicted verdict (A better than B at budget b) "
        "agrees with the empirical one more often than a coin flip (share above 0.5)",
        needs=Needs(trials=0, extra={"compare repeats": MIN_TRIALS}),
        chapter=CHAPTER,
        explanation="Chapter 6, Discussion 5: twenty seed rows cannot tell the two halves of "
        "the sw-en grid apart",
    ),
)

_SYN = Needs(trials=0, extra={_SYN_DRAWS: 1})

FINDINGS: tuple[Finding, ...] = (
    *(
        Finding(
            id=f"ar22.syn.{f}.rank-preserving",
            chapter=CHAPTER,
            statement=f"{f}: Kendall tau of predicted vs empirical score of the boxes",
            statistic=_one("synthetic", "tau", "Kendall tau", f),
            needs=_SYN,
        )
        for f in ("branin", "hartmann6")
    ),
    *(
        Finding(
            id=f"ar22.syn.{f}.overestimate",
            chapter=CHAPTER,
            statement=f"{f}: share of (box, budget) cells whose predicted score exceeds the "
            "empirical one",
            statistic=_one("synthetic", "over", "share overestimated", f),
            needs=_SYN,
        )
        for f in ("branin", "hartmann6")
    ),
    Finding(
        id="ar22.tab.best-kept",
        chapter=CHAPTER,
        statement="pruning the predicted-worst half keeps an empirically best space "
        "(share of seed draws, all tasks)",
        statistic=lambda ev: _mean(
            per_draw(ev, "table", "kept")["value"].to_numpy(),
            "share of draws keeping a best space",
            "fraction",
            ev.params.seed,
        ),
        needs=Needs(trials=0),
    ),
    Finding(
        id="ar22.tab.broader-predicted",
        chapter=CHAPTER,
        statement="the predicted-best space grows with the budget: Spearman(budget, size "
        "of the predicted-best space), all tasks",
        statistic=lambda ev: _mean(
            per_draw(ev, "table", "broader_predicted")["value"].to_numpy(),
            "Spearman(budget, size of the predicted-best space)",
            "correlation",
            ev.params.seed,
        ),
        needs=Needs(trials=0),
    ),
    Finding(
        id="ar22.tab.select-bo",
        chapter=CHAPTER,
        statement="GP-BO (bo-ei-m) in the selected space minus in the full table "
        "(best BLEU of the search, per budget)",
        statistic=_select(("bo-ei-m",)),
        needs=Needs(trials=0),
    ),
)


# -- evidence -------------------------------------------------------------------------------------
def evidence_for(results: Mapping[str, pd.DataFrame], params: Chapter6Params) -> Evidence:
    """The chapter's evidence from what the notebook computed."""
    return Evidence(dict(results), params)


def scope_for(params: Chapter6Params) -> Scope:
    """What a run of the chapter holds (seed draws, selection trials, comparison repeats)."""
    return Scope(
        tasks=tuple(params.tasks),
        methods=("rs", "bo-ei-m"),
        trials=0,
        extra={
            _DRAWS: len(params.table_seed_sizes) * params.table_repeats,
            _SYN_DRAWS: len(params.synthetic_seed_sizes) * params.synthetic_repeats
            if params.functions
            else 0,
            "select trials": params.select_trials,
            "compare repeats": params.compare_repeats,
        },
    )


def published_evidence() -> tuple[Evidence, Scope]:
    """The evidence and scope of the published chapter, read from ``results/scoring``."""
    from nmthpo.studies.ariafar.results import chapter6_results

    p = Chapter6Params()
    return evidence_for(chapter6_results(p, cache=True), p), scope_for(p)
