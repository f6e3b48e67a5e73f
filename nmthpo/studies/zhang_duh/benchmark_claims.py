"""Chapter 1's claims as data: Zhang & Duh (2020), Section 3 (Table 2, Figures 4 and 5).

The records (:data:`CLAIMS`) are judged by the one evaluator of
:mod:`nmthpo.engine.claims` on the chapter's :class:`Evidence`; our own findings
(:data:`FINDINGS`) are shown with their interval and never counted. Statistics:

* Table 2 is exact: counted from the tables (no sampling), so the interval is the count.
* Figure 4's Spearman coefficients get the Fisher-z interval
  (:func:`nmthpo.studies.zhang_duh.benchmark_tables.spearman_interval`) on the configurations
  common to *all six* tables (the paper's footnote 8), so they need all six tasks.
* Figure 5's "X is among the k most important" is X's importance minus the k-th most important
  other term of its kind (:func:`nmthpo.studies.zhang_duh.fanova.rank_gap`): the point value from
  the chapter's model, the interval from the bootstrap over the table's rows
  (:func:`nmthpo.studies.zhang_duh.fanova.importance_bootstrap`), above 0.

:func:`evidence_for` builds the evidence from what the notebook computed, :func:`scope_for`
says what the run holds; :func:`published_evidence` computes both with the published
parameters (:data:`nmthpo.studies.published.PUBLISHED`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from nmthpo.engine.claims import (
    Above,
    AllOf,
    AtLeast,
    Claim,
    Covers,
    Estimate,
    Finding,
    Needs,
    Scope,
)
from nmthpo.engine.numbers import fmt
from nmthpo.studies.zhang_duh.benchmark_tables import PAPER_SPEARMAN, spearman_interval
from nmthpo.studies.zhang_duh.fanova import rank_gap

__all__ = [
    "CHAPTER",
    "CLAIMS",
    "FINDINGS",
    "MIN_BOOT",
    "PAPER",
    "Evidence",
    "PanelNeeds",
    "compute_evidence",
    "evidence_for",
    "published_evidence",
    "scope_for",
]

CHAPTER = "01_benchmark"
PAPER = "zhang-duh-2020"
#: The paper's "top 1%" of Figure 5.
PAPER_TOP = 0.01
#: Bootstrap resamples a Figure 5 interval needs before it is read as a 95 % interval.
MIN_BOOT = 100

#: A panel of Figure 5: (task, top fraction or None for all models).
Panel = tuple[str, float | None]


@dataclass(frozen=True)
class Evidence:
    """What Chapter 1's statistics read.

    ``t2``: :func:`~nmthpo.studies.zhang_duh.benchmark_tables.table2`; ``rho_all``/``n_all``:
    :func:`~nmthpo.studies.zhang_duh.benchmark_tables.spearman_matrix` with ``common="all"``;
    ``panels``: (task, top fraction or None) -> the chapter's importances (singles and pairs,
    display names); ``boots``: the same keys ->
    :func:`~nmthpo.studies.zhang_duh.fanova.importance_bootstrap`.
    """

    t2: pd.DataFrame
    rho_all: pd.DataFrame
    n_all: pd.DataFrame
    panels: Mapping[Panel, pd.Series] = field(default_factory=dict)
    boots: Mapping[Panel, pd.DataFrame] = field(default_factory=dict)
    top_fraction: float = PAPER_TOP


@dataclass(frozen=True)
class PanelNeeds(Needs):
    """Needs of a Figure 5 statement: its task among the chapter's ``fanova_tasks``, the paper's
    top fraction where it speaks of the top models, and enough bootstrap resamples.

    Reads ``Scope.extra``: ``fanova_tasks`` (tuple), ``top_fraction`` (float), ``n_boot``.
    """

    panel_task: str = ""
    top: bool = False
    min_boot: int = MIN_BOOT

    def missing(self, scope: Scope) -> str | None:
        """Why ``scope`` cannot judge the statement, or None."""
        why = []
        have = tuple(scope.extra.get("fanova_tasks", ()))
        if self.panel_task not in have:
            why.append(
                f"needs the Figure 5 panel of {self.panel_task}, the run analyses "
                f"{', '.join(have) or 'no task'} (fanova_tasks)"
            )
        frac = float(scope.extra.get("top_fraction", PAPER_TOP))
        if self.top and not np.isclose(frac, PAPER_TOP):
            why.append(
                f"speaks of the top {100 * PAPER_TOP:g} %, the run analyses the top "
                f"{100 * frac:g} % (top_fraction)"
            )
        boots = int(scope.extra.get("n_boot", 0))
        if boots < self.min_boot:
            why.append(
                f"needs at least {self.min_boot} bootstrap resamples for a 95 % "
                f"interval, the run has {boots} (n_boot)"
            )
        return "; ".join(why) if why else None


# -- statistics ---------------------------------------------------------------------------------
def _table2(ev: Evidence) -> Estimate:
    t2 = ev.t2
    ok = (
        (t2["rows"] == t2["paper rows"])
        & (t2["best BLEU"] == t2["paper best BLEU"])
        & t2["config matches"]
    )
    n = float(ok.sum())
    bad = [str(t) for t in t2.index[~ok.to_numpy()]]
    return Estimate(
        n,
        n,
        n,
        text=f"{int(n)} of {len(t2)} tasks",
        quantity="count",
        note="exact: counted from the tables (no sampling), so the interval is the "
        "count" + (f"; differs on {', '.join(bad)}" if bad else ""),
    )


def _spearman(a: str, b: str):  # noqa: ANN202 - a statistic
    def stat(ev: Evidence) -> Estimate:
        rho, n = float(ev.rho_all.loc[a, b]), int(ev.n_all.loc[a, b])
        lo, hi = spearman_interval(rho, n)
        return Estimate(
            rho,
            lo,
            hi,
            quantity="auto",
            note=f"{n} configurations common to all tables (footnote 8); Fisher-z interval",
        )

    return stat


def _ordinal(k: int) -> str:
    return {1: "first", 2: "second", 3: "third"}.get(k, f"{k}th")


def _gap(ev: Evidence, task: str, top: bool, term: str, k: int) -> Estimate:
    """``term`` minus the ``k``-th most important other term of its kind (panel of ``task``)."""
    key = (task, ev.top_fraction if top else None)
    panel, boots = ev.panels[key], ev.boots.get(key, pd.DataFrame())
    if boots.empty:
        return Estimate(float("nan"), note="no bootstrap resample has any variance")
    gaps = rank_gap(boots, term, k)
    lo, hi = (float(v) for v in np.quantile(gaps, [0.025, 0.975]))
    kind = panel[[c for c in panel.index if (" x " in c) == (" x " in term)]]
    order = list(kind.sort_values(ascending=False).index)
    other = order[1] if order[0] == term else order[0]
    value = float(rank_gap(panel, term, k)[0])
    text = (
        f"{term} is {_ordinal(order.index(term) + 1)} ({fmt(panel[term])}; "
        f"{'next' if order[0] == term else 'first'} {other} {fmt(panel[other])})"
    )
    return Estimate(
        value,
        lo,
        hi,
        text=text,
        note=(
            f"{term} minus the {_ordinal(k)} most important other "
            f"{'pair' if ' x ' in term else 'hyperparameter'}; bootstrap over the "
            f"table's rows ({len(gaps)} resamples, forest refitted)"
        ),
    )


def _gap_stat(task: str, top: bool, term: str, k: int):  # noqa: ANN202 - a statistic
    return lambda ev: _gap(ev, task, top, term, k)


_TOP3 = ("#att heads", "init lr", "#embed")


def _enja_top3(ev: Evidence) -> Estimate:
    parts = {t: _gap(ev, "en-ja", True, t, 3) for t in _TOP3}
    defined = {k: e for k, e in parts.items() if e.defined}
    worst = min(defined, key=lambda k: defined[k].low) if defined else None
    e = defined[worst] if worst else Estimate(float("nan"))
    # the interval columns: the part least in favour (every part must hold)
    return Estimate(
        e.value,
        e.low,
        e.high,
        text="; ".join(x.shown() for x in parts.values()),
        parts=parts,
        note="each part: the term minus the third most important "
        "other hyperparameter, above 0 (bootstrap over rows)"
        + (f"; interval columns: {worst}, the part least in favour" if worst else ""),
    )


# -- records ------------------------------------------------------------------------------------
_FIG5 = "Sec. 3.4, Fig. 5"
_GAP = (
    "the term minus the k-th most important other term of its kind must lie above 0 "
    "(k: how many terms the statement puts it among)"
)

CLAIMS: tuple[Claim, ...] = (
    Claim(
        id="zd20.t2.oracle-best",
        paper=PAPER,
        where="Sec. 3, Table 2",
        statement="Table 2: number of models, best BLEU and best configuration of every task",
        paper_value="6 tasks",
        statistic=_table2,
        rule=AtLeast(6, of=6),
        yardstick="the table is exact (counts and BLEU as printed): every task must match",
        needs=Needs(n_tasks=6, trials=0),
        chapter=CHAPTER,
        explanation="Chapter 1, Table 2 (zh-en's three tied best rows; the paper prints one)",
    ),
    Claim(
        id="zd20.f4.rho-ja-en-so-en",
        paper=PAPER,
        where="Sec. 3.4, Fig. 4",
        statement="other pairs show low correlation (0.084 for ja-en vs. so-en)",
        paper_value=f"{PAPER_SPEARMAN[('ja-en', 'so-en')]}",
        statistic=_spearman("ja-en", "so-en"),
        rule=Covers(PAPER_SPEARMAN[("ja-en", "so-en")]),
        yardstick="a value: the Fisher-z interval of our rho must cover the paper's 0.084",
        needs=Needs(tasks=("ja-en", "so-en"), n_tasks=6, trials=0),
        chapter=CHAPTER,
    ),
    Claim(
        id="zd20.f4.rho-ja-en-en-ja",
        paper=PAPER,
        where="Sec. 3.4, Fig. 4",
        statement="NMT systems with same language pairs (ja-en vs. en-ja) are highly correlated",
        paper_value="highly correlated",
        statistic=_spearman("ja-en", "en-ja"),
        rule=Above(0.7),
        yardstick="'highly correlated' read as Spearman's rho above 0.7, the usual threshold of "
        "a strong correlation",
        needs=Needs(tasks=("ja-en", "en-ja"), n_tasks=6, trials=0),
        chapter=CHAPTER,
    ),
    Claim(
        id="zd20.f5.en-ja-embed",
        paper=PAPER,
        where=_FIG5 + " top middle (all models)",
        statement="on en-ja, over the entire configuration space (top middle), #embed is the "
        "distinguishing factor",
        paper_value="#embed first",
        statistic=_gap_stat("en-ja", False, "#embed", 1),
        rule=Above(0.0),
        yardstick="'the distinguishing factor': the most important (k = 1); " + _GAP,
        needs=PanelNeeds(panel_task="en-ja", trials=0),
        chapter=CHAPTER,
        explanation="Chapter 1, Figure 5: #embed is first and init lr close behind; the "
        "bootstrap over the table's rows cannot order the two",
    ),
    Claim(
        id="zd20.f5.en-ja-top-three",
        paper=PAPER,
        where=_FIG5 + " top left (top 1%)",
        statement="on en-ja, when considering only the top performing NMT models (top left), "
        "#att heads, init lr, and #embed impact BLEU the most",
        paper_value="#att heads, init lr, #embed the top three",
        statistic=_enja_top3,
        rule=AllOf({t: Above(0.0) for t in _TOP3}),
        yardstick="'impact BLEU the most' of three terms: each among the three most important "
        "(k = 3); " + _GAP,
        needs=PanelNeeds(panel_task="en-ja", top=True, trials=0),
        chapter=CHAPTER,
        explanation="Chapter 1, Figure 5, top models: the paper does not define 'top 1%'; with "
        "two models above the quantile any reading moves the ranking",
    ),
    Claim(
        id="zd20.f5.en-ja-embed-lr-pair",
        paper=PAPER,
        where=_FIG5 + " bottom left (top 1%)",
        statement="we observe the interaction of init lr and #embed being important (Figure 5 "
        "bottom left)",
        paper_value="among the eight pairs shown",
        statistic=_gap_stat("en-ja", True, "#embed x init lr", 8),
        rule=Above(0.0),
        yardstick="the caption calls the bottom row 'the eight most important hyperparameter "
        "pairs', and the bottom left panel is the top 1% (caption): 'important' read "
        "as among those eight (k = 8); " + _GAP,
        needs=PanelNeeds(panel_task="en-ja", top=True, trials=0),
        chapter=CHAPTER,
        explanation="Chapter 1, Figure 5: over all models the pair is the largest by far "
        "(finding zd20.f5.en-ja-embed-lr-pair-all)",
    ),
    Claim(
        id="zd20.f5.sw-en-bpe",
        paper=PAPER,
        where=_FIG5 + " right column",
        statement="As shown in the right column of Figure 5, bpe is the most important "
        "hyperparameter for sw-en, instead of #embed",
        paper_value="bpe first",
        statistic=_gap_stat("sw-en", False, "bpe", 1),
        rule=Above(0.0),
        yardstick="'the most important' (k = 1), on the all-models panel that 'instead of "
        "#embed' contrasts with (en-ja's top middle); " + _GAP,
        needs=PanelNeeds(panel_task="sw-en", trials=0),
        chapter=CHAPTER,
        explanation="Chapter 1, 'Figure 5 on sw-en: which analysis puts bpe first': only "
        "analyses of the best models do (quantile capping at the top 1 % and 5 %, "
        "the spread of the best BLEU per bpe value); no all-models analysis tried "
        "does (index, upstream-scaled and raw coding of the grid; fANOVA, "
        "random-forest impurity and permutation importance; spread of the mean BLEU "
        "per value): bpe is second or third there. The paper's sentence holds if "
        "its right column analyses the top models, which the caption leaves open",
    ),
)

FINDINGS: tuple[Finding, ...] = (
    Finding(
        id="zd20.f5.sw-en-bpe-top",
        chapter=CHAPTER,
        statement="sw-en, top 1% (BLEU capped at the 0.99 quantile): bpe is the most important "
        "hyperparameter (our reading of 'top models'; not the panel the paper "
        "contrasts, so not counted)",
        statistic=_gap_stat("sw-en", True, "bpe", 1),
        needs=PanelNeeds(panel_task="sw-en", top=True, trials=0),
    ),
    Finding(
        id="zd20.f5.en-ja-embed-lr-pair-all",
        chapter=CHAPTER,
        statement="en-ja, all models: #embed x init lr is the most important pair",
        statistic=_gap_stat("en-ja", False, "#embed x init lr", 1),
        needs=PanelNeeds(panel_task="en-ja", trials=0),
    ),
)


# -- evidence -----------------------------------------------------------------------------------
def evidence_for(
    t2: pd.DataFrame,
    rho_all: pd.DataFrame,
    n_all: pd.DataFrame,
    panels: Mapping[Panel, pd.Series] | None = None,
    boots: Mapping[Panel, pd.DataFrame] | None = None,
    top_fraction: float = PAPER_TOP,
) -> Evidence:
    """The chapter's evidence from what the notebook computed."""
    return Evidence(t2, rho_all, n_all, dict(panels or {}), dict(boots or {}), float(top_fraction))


def scope_for(
    tasks: Sequence[str], fanova_tasks: Sequence[str], top_fraction: float, n_boot: int
) -> Scope:
    """What a run of the chapter holds."""
    return Scope(
        tasks=tuple(tasks),
        trials=0,
        extra={
            "fanova_tasks": tuple(fanova_tasks),
            "top_fraction": float(top_fraction),
            "n_boot": int(n_boot),
        },
    )


def compute_evidence(
    tasks: Sequence[str],
    fanova_tasks: Sequence[str],
    top_fraction: float,
    n_trees: int,
    max_depth: int,
    seed: int,
    n_boot: int,
) -> Evidence:
    """Compute the evidence as the notebook does (tables, Figure 4, Figure 5 and bootstraps)."""
    from nmthpo.studies.zhang_duh.benchmark_tables import spearman_matrix, table2
    from nmthpo.studies.zhang_duh.fanova import importance_bootstrap, importance_table

    rho_all, n_all = spearman_matrix(tasks, common="all")
    panels, boots = {}, {}
    for task in fanova_tasks:
        for frac in (top_fraction, None):
            singles, pairs = importance_table(
                task, top_fraction=frac, n_trees=n_trees, max_depth=max_depth, seed=seed
            )
            panels[(task, frac)] = pd.concat([singles, pairs])
            boots[(task, frac)] = importance_bootstrap(task, frac, n_boot=n_boot, seed=seed)
    return evidence_for(table2(tasks), rho_all, n_all, panels, boots, top_fraction)


def published_evidence() -> tuple[Evidence, Scope]:
    """The evidence and scope of the published chapter (about half a minute: the bootstraps)."""
    from nmthpo.studies.published import PUBLISHED

    p: dict[str, Any] = PUBLISHED[CHAPTER]
    ev = compute_evidence(
        p["tasks"],
        p["fanova_tasks"],
        p["top_fraction"],
        p["n_trees"],
        p["max_depth"],
        p["seed"],
        p["n_boot"],
    )
    return ev, scope_for(p["tasks"], p["fanova_tasks"], p["top_fraction"], p["n_boot"])
