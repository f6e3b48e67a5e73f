"""Claims as data: declarative records of the papers' statements, one rule set, one evaluator.

A paper's statement is a :class:`Claim` *record* -- where the paper makes it, its words, its
value, the statistic that tests it, the :class:`Rule` that judges that statistic (the
yardstick, and why that yardstick) and what a run must contain to judge it (:class:`Needs`).
The statistic is a function of the chapter's *evidence* (whatever the chapter computed: a
per-trial frame, a dict of runs) returning an :class:`Estimate`: our value with its 95 %
interval. One evaluator (:func:`evaluate`) turns (records, evidence, scope) into rows; the
same rows make every chapter's claims table, the ledger (``nmthpo claims``,
``results/claims.csv``) and the intro's counts.

The rules (stated once; the book's appendix prints :func:`rules_table`):

``reproduced``
    the 95 % interval supports the statement as stated (for a composite: every part does);
``not reproduced``
    the interval contradicts it (for a composite: no part is reproduced and at least one is
    contradicted);
``partly``
    only for a composite statement whose parts disagree (some reproduced, some contradicted);
``not testable``
    the interval is undefined, the interval neither supports nor contradicts the statement
    (*inconclusive*: it straddles the statement's bound; more trials would decide), the run
    lacks what the claim needs (fewer tasks, methods or trials than the statement refers to),
    or the data to test it does not exist. The reason is always given.

Our own findings (statements of ours, not of a paper) are :class:`Finding` records: evaluated
the same way, shown with their interval, never given a verdict and never counted as
reproductions.

A band (:class:`Band`) is used only where the paper's statement is itself a band or an
approximation ("about", "roughly"); a statement of a value is judged by :class:`Covers`, a
statement of a direction by :class:`Below` / :class:`Above`, a count of wins ("4 of 6") by
:class:`AtLeast` on the bootstrap interval of the count (:func:`win_count_interval`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from nmthpo.engine.numbers import fmt, fmt_pair
from nmthpo.engine.stats import CONFIDENCE, INTERVAL_COLUMNS, N_BOOT
from nmthpo.engine.verdicts import VERDICTS

__all__ = [
    "CLAIM_TABLE_COLUMNS",
    "LEDGER_COLUMNS",
    "MIN_TRIALS",
    "AllOf",
    "Above",
    "AtLeast",
    "AtMost",
    "Band",
    "Below",
    "Claim",
    "Covers",
    "Estimate",
    "Every",
    "Finding",
    "Needs",
    "NoData",
    "Rule",
    "Scope",
    "combine_verdicts",
    "deciding_part",
    "evaluate",
    "evaluate_findings",
    "rules_table",
    "win_count_interval",
]

#: Trials a claim needs by default before an interval over trials is trusted.
MIN_TRIALS: int = 10

#: Columns of a chapter's claims table (:func:`evaluate`; the index is the statement).
CLAIM_TABLE_COLUMNS: tuple[str, ...] = (
    "id",
    "where in the paper",
    "paper",
    "ours",
    *INTERVAL_COLUMNS,
    "verdict",
    "note",
)
#: Columns of the ledger and of ``results/claims.csv`` (one row per claim).
LEDGER_COLUMNS: tuple[str, ...] = (
    "id",
    "paper",
    "chapter",
    "where",
    "statement",
    "paper_value",
    "ours",
    "ci_low",
    "ci_high",
    "verdict",
    "reason",
    "yardstick",
    "explanation",
)


# -- estimates --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Estimate:
    """Our value of a claim's statistic with its 95 % interval.

    Attributes
    ----------
    value : float
        The point estimate (``NaN`` where the statistic is undefined).
    low, high : float
        The 95 % interval (``NaN`` where none can be computed; the verdict is then
        ``not testable``).
    text : str, optional
        How to show ``value`` when a bare number would mislead ("3 of 6").
    note : str
        How the estimate and its interval were computed.
    parts : mapping, optional
        Per-part estimates of a composite statement (task -> Estimate), judged by
        :class:`Every` or :class:`AllOf`.
    quantity : str
        The kind of number, for :func:`nmthpo.engine.numbers.fmt` ("evaluations", "ratio", ...).
    """

    value: float
    low: float = float("nan")
    high: float = float("nan")
    text: str | None = None
    note: str = ""
    parts: Mapping[str, Estimate] | None = None
    quantity: str = "auto"

    def __post_init__(self) -> None:
        if np.isfinite(self.low) and np.isfinite(self.high) and self.low > self.high:
            raise ValueError(f"interval [{self.low}, {self.high}] is reversed")

    @property
    def defined(self) -> bool:
        """Whether the interval is finite at both ends."""
        return bool(np.isfinite(self.low) and np.isfinite(self.high))

    def shown(self) -> str:
        """``text`` if given, else the value formatted for its quantity."""
        return self.text if self.text is not None else fmt(self.value, self.quantity)

    def interval(self) -> str:
        """``[low, high]`` formatted for the quantity, or ``no interval``."""
        if not self.defined:
            return "no interval"
        lo, hi = fmt_pair(self.low, self.high, self.quantity)
        return f"[{lo}, {hi}]"


# -- rules ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rule:
    """A yardstick: judges an :class:`Estimate` into a verdict and the reason for it."""

    def judge(self, est: Estimate) -> tuple[str, str]:  # pragma: no cover - abstract
        """``(verdict, reason)`` for ``est``."""
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - abstract
        """The rule in words, for the ledger and the appendix."""
        raise NotImplementedError


def _undefined(est: Estimate) -> tuple[str, str] | None:
    if not est.defined:
        return "not testable", "the 95 % interval is undefined"
    return None


def _inconclusive(est: Estimate, what: str) -> tuple[str, str]:
    return (
        "not testable",
        f"inconclusive: the 95 % interval {est.interval()} {what}; more trials would decide",
    )


@dataclass(frozen=True)
class Below(Rule):
    """ "The quantity lies below ``bound``": reproduced when the whole interval does."""

    bound: float

    def judge(self, est: Estimate) -> tuple[str, str]:
        """Wholly below: reproduced; at or above: not reproduced; straddling: inconclusive."""
        if (u := _undefined(est)) is not None:
            return u
        b = fmt(self.bound, est.quantity)
        if est.high < self.bound:
            return "reproduced", f"the 95 % interval {est.interval()} lies below {b}"
        if est.low >= self.bound:
            return "not reproduced", f"the 95 % interval {est.interval()} is not below {b}"
        return _inconclusive(est, f"contains {b}")

    def describe(self) -> str:
        """In words."""
        return f"below {fmt(self.bound)}"


@dataclass(frozen=True)
class Above(Rule):
    """ "The quantity lies above ``bound``": reproduced when the whole interval does."""

    bound: float

    def judge(self, est: Estimate) -> tuple[str, str]:
        """Wholly above: reproduced; at or below: not reproduced; straddling: inconclusive."""
        if (u := _undefined(est)) is not None:
            return u
        b = fmt(self.bound, est.quantity)
        if est.low > self.bound:
            return "reproduced", f"the 95 % interval {est.interval()} lies above {b}"
        if est.high <= self.bound:
            return "not reproduced", f"the 95 % interval {est.interval()} is not above {b}"
        return _inconclusive(est, f"contains {b}")

    def describe(self) -> str:
        """In words."""
        return f"above {fmt(self.bound)}"


@dataclass(frozen=True)
class AtLeast(Rule):
    """ "At least ``k`` (of ``of``)", for counts: the interval's low end must reach ``k``."""

    k: float
    of: int | None = None

    def judge(self, est: Estimate) -> tuple[str, str]:
        """low >= k: reproduced; high < k: not reproduced; else inconclusive."""
        if (u := _undefined(est)) is not None:
            return u
        k = fmt(self.k, est.quantity)
        if est.low >= self.k:
            return "reproduced", f"the 95 % interval {est.interval()} lies at or above {k}"
        if est.high < self.k:
            return "not reproduced", f"the 95 % interval {est.interval()} lies below {k}"
        return _inconclusive(est, f"contains values below and at or above {k}")

    def describe(self) -> str:
        """In words."""
        return f"at least {fmt(self.k)}" + (f" of {self.of}" if self.of else "")


@dataclass(frozen=True)
class AtMost(Rule):
    """ "At most ``k``", for counts: the interval's high end must not exceed ``k``."""

    k: float

    def judge(self, est: Estimate) -> tuple[str, str]:
        """high <= k: reproduced; low > k: not reproduced; else inconclusive."""
        if (u := _undefined(est)) is not None:
            return u
        k = fmt(self.k, est.quantity)
        if est.high <= self.k:
            return "reproduced", f"the 95 % interval {est.interval()} lies at or below {k}"
        if est.low > self.k:
            return "not reproduced", f"the 95 % interval {est.interval()} lies above {k}"
        return _inconclusive(est, f"contains values at or below and above {k}")

    def describe(self) -> str:
        """In words."""
        return f"at most {fmt(self.k)}"


@dataclass(frozen=True)
class Band(Rule):
    """ "The quantity lies in ``[lower, upper]``" -- only where the paper states a band.

    ``why`` says which words of the paper make it a band ("about 10 %", "roughly half").
    """

    lower: float
    upper: float
    why: str = ""

    def __post_init__(self) -> None:
        if not self.lower <= self.upper:
            raise ValueError(f"the band [{self.lower}, {self.upper}] is empty")

    def judge(self, est: Estimate) -> tuple[str, str]:
        """Inside the band: reproduced; missing it: not reproduced; else inconclusive."""
        if (u := _undefined(est)) is not None:
            return u
        band = f"[{fmt(self.lower, est.quantity)}, {fmt(self.upper, est.quantity)}]"
        if self.lower <= est.low and est.high <= self.upper:
            return "reproduced", f"the 95 % interval {est.interval()} lies inside {band}"
        if est.high < self.lower or est.low > self.upper:
            return "not reproduced", f"the 95 % interval {est.interval()} misses {band}"
        return _inconclusive(est, f"overlaps the edge of {band}")

    def describe(self) -> str:
        """In words."""
        return f"in [{fmt(self.lower)}, {fmt(self.upper)}]" + (
            f" (a band: {self.why})" if self.why else ""
        )


@dataclass(frozen=True)
class Covers(Rule):
    """ "The quantity equals ``value``": reproduced when the interval covers it."""

    value: float

    def judge(self, est: Estimate) -> tuple[str, str]:
        """Covered: reproduced; excluded: not reproduced."""
        if (u := _undefined(est)) is not None:
            return u
        v = fmt(self.value, est.quantity)
        if est.low <= self.value <= est.high:
            return "reproduced", f"the 95 % interval {est.interval()} covers {v}"
        return "not reproduced", f"the 95 % interval {est.interval()} excludes {v}"

    def describe(self) -> str:
        """In words."""
        return f"interval covers {fmt(self.value)}"


@dataclass(frozen=True)
class NoData(Rule):
    """The yardstick of a claim the released data cannot test (``Needs.data`` says why).

    :func:`evaluate` returns *not testable* before a rule is asked; asked, it says the same.
    """

    would_need: str = ""

    def judge(self, est: Estimate) -> tuple[str, str]:
        """Always not testable."""
        return "not testable", "the data to test it do not exist"

    def describe(self) -> str:
        """In words."""
        return "no yardstick: the data do not exist" + (
            f" (would need {self.would_need})" if self.would_need else ""
        )


#: Order in which a part decides a composite's verdict (the weakest first).
_WEAKEST = ("not reproduced", "not testable", "partly", "reproduced")


def deciding_part(rule: Rule, est: Estimate) -> Estimate | None:
    """The part of a composite estimate that decides its verdict (the weakest), or None.

    A composite (:class:`Every`, :class:`AllOf`) has no interval of its own; the ledger and the
    tables show the interval of this part, so that no verdict is shown without an interval.
    """
    if not est.parts:
        return None
    judged = []
    for name, part in est.parts.items():
        sub = (
            rule.rule
            if isinstance(rule, Every)
            else rule.rules.get(name)
            if isinstance(rule, AllOf)
            else None
        )
        if sub is None:
            continue
        judged.append((_WEAKEST.index(sub.judge(part)[0]), name, part))
    if not judged:
        return None
    return min(judged, key=lambda t: (t[0], t[1]))[2]


def combine_verdicts(parts: Mapping[str, tuple[str, str]]) -> tuple[str, str]:
    """The verdict on a composite statement from its parts' ``(verdict, reason)``.

    Every part reproduced: ``reproduced``. Some reproduced and some not: ``partly``. None
    reproduced and some contradicted: ``not reproduced``. Otherwise (a part not testable and
    none contradicted): ``not testable``, naming the parts.

    >>> combine_verdicts({"a": ("reproduced", ""), "b": ("not reproduced", "")})[0]
    'partly'
    >>> combine_verdicts({"a": ("reproduced", ""), "b": ("not testable", "x")})[0]
    'not testable'
    """
    if not parts:
        return "not testable", "no part of the statement is in the run"
    by: dict[str, list[str]] = {v: [] for v in VERDICTS}
    for name, (v, _) in parts.items():
        if v not in VERDICTS:
            raise ValueError(f"verdict {v!r} of part {name!r} is not in {VERDICTS}")
        by[v].append(name)
    yes, no, nt = by["reproduced"], by["not reproduced"], by["not testable"]
    if len(yes) == len(parts):
        return "reproduced", f"every part holds ({', '.join(yes)})"
    if yes and no:
        return "partly", f"holds on {', '.join(yes)}; contradicted on {', '.join(no)}"
    if no and not yes:
        return "not reproduced", (
            f"contradicted on {', '.join(no)}"
            + (f"; not testable on {', '.join(nt)}" if nt else "")
        )
    if by["partly"] and not nt:
        return "partly", f"parts only partly reproduced: {', '.join(by['partly'])}"
    reasons = "; ".join(f"{n}: {parts[n][1]}" for n in nt)
    return "not testable", f"not testable on {', '.join(nt)} ({reasons})"


@dataclass(frozen=True)
class Every(Rule):
    """ "The statement holds on every part" (task, method): ``rule`` per part, then combined."""

    rule: Rule

    def judge(self, est: Estimate) -> tuple[str, str]:
        """:func:`combine_verdicts` of ``rule`` over ``est.parts``."""
        if not est.parts:
            return "not testable", "no part of the statement is in the run"
        return combine_verdicts({k: self.rule.judge(e) for k, e in est.parts.items()})

    def describe(self) -> str:
        """In words."""
        return f"on every part: {self.rule.describe()}"


@dataclass(frozen=True)
class AllOf(Rule):
    """A statement of several distinct parts, each with its own rule (``est.parts`` by name)."""

    rules: Mapping[str, Rule]

    def judge(self, est: Estimate) -> tuple[str, str]:
        """:func:`combine_verdicts` of each named part under its rule."""
        parts = est.parts or {}
        judged = {}
        for name, rule in self.rules.items():
            judged[name] = (
                rule.judge(parts[name]) if name in parts else ("not testable", "not in the run")
            )
        return combine_verdicts(judged)

    def describe(self) -> str:
        """In words."""
        return "; ".join(f"{k}: {r.describe()}" for k, r in self.rules.items())


# -- what a claim needs -----------------------------------------------------------------------
@dataclass(frozen=True)
class Scope:
    """What a run holds: its tasks, methods and trials per cell (and free-form extras)."""

    tasks: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    trials: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Needs:
    """What a run must contain before a claim can be judged.

    ``tasks``/``methods``: these must all be in the run; ``n_tasks``: at least so many tasks;
    ``trials``: at least so many trials per cell (:data:`MIN_TRIALS` by default); ``data``:
    a reason why the released data cannot test the claim at all (then never testable);
    ``extra``: ``{key: minimum}`` checked against ``Scope.extra``.
    """

    tasks: tuple[str, ...] = ()
    n_tasks: int = 0
    methods: tuple[str, ...] = ()
    trials: int = MIN_TRIALS
    data: str | None = None
    extra: Mapping[str, float] = field(default_factory=dict)

    def missing(self, scope: Scope) -> str | None:
        """Why ``scope`` cannot carry a verdict, or None when it can."""
        if self.data is not None:
            return self.data
        why = []
        lack = [t for t in self.tasks if t not in scope.tasks]
        if lack:
            why.append(
                f"needs task(s) {', '.join(lack)}, the run has {', '.join(scope.tasks) or 'none'}"
            )
        n = max(self.n_tasks, len(self.tasks))
        if len(scope.tasks) < n and not lack:
            why.append(f"needs {n} tasks, the run has {len(scope.tasks)}")
        lack_m = [m for m in self.methods if m not in scope.methods]
        if lack_m:
            why.append(f"needs method(s) {', '.join(lack_m)}")
        if scope.trials < self.trials:
            why.append(f"needs at least {self.trials} trials, the run has {scope.trials}")
        for key, minimum in self.extra.items():
            have = scope.extra.get(key, 0)
            if have < minimum:
                why.append(f"needs {key} >= {minimum:g}, the run has {have}")
        return "; ".join(why) if why else None


# -- records ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Claim:
    """One statement of a paper, as data.

    Attributes
    ----------
    id : str
        Stable identifier, ``<paper>.<where>.<slug>`` (``zd20.t3.gb-beats-bo``).
    paper : str
        The paper's key (``zhang-duh-2020``, ``ganapathy-2020``, ``li-et-al-2022``,
        ``ariafar-et-al-2022``).
    where : str
        Section, table or figure.
    statement : str
        The statement, in the paper's words where possible.
    paper_value : str
        The paper's value as the paper states it ("4 of 6", "0.74", "beats RS").
    statistic : callable or None
        ``statistic(evidence) -> Estimate``; None when the data cannot test the claim
        (then ``needs.data`` says why).
    rule : Rule
        The yardstick that judges the estimate.
    yardstick : str
        Why this rule and bound (which words of the paper make it so).
    needs : Needs
        What a run must contain to judge it.
    chapter : str
        The chapter that tests it (``02_single_objective``).
    explanation : str
        Where a difference is explained (a section of the chapter), or ``unexplained: ...``
        with what was tried.
    """

    id: str
    paper: str
    where: str
    statement: str
    paper_value: str
    statistic: Callable[[Any], Estimate] | None
    rule: Rule
    yardstick: str = ""
    needs: Needs = Needs()
    chapter: str = ""
    explanation: str = ""


@dataclass(frozen=True)
class Finding:
    """A statement of ours (not of a paper): an estimate with its interval, never a verdict."""

    id: str
    statement: str
    statistic: Callable[[Any], Estimate]
    chapter: str = ""
    needs: Needs = Needs()


# -- the evaluator ----------------------------------------------------------------------------
def _judge(claim: Claim, evidence: Any, scope: Scope) -> tuple[Estimate | None, str, str]:
    why = claim.needs.missing(scope)
    if why is not None or claim.statistic is None:
        return None, "not testable", why or "no statistic can be computed from the data"
    est = claim.statistic(evidence)
    verdict, reason = claim.rule.judge(est)
    if not est.defined and est.parts:
        part = deciding_part(claim.rule, est)
        if part is not None and part.defined:
            est = replace(
                est,
                low=part.low,
                high=part.high,
                note=(est.note + "; " if est.note else "")
                + "interval: of the part that decides the verdict",
            )
    return est, verdict, reason


def evaluate(
    claims: Iterable[Claim], evidence: Any, scope: Scope, ledger: bool = False
) -> pd.DataFrame:
    """Judge every record against ``evidence`` and return one row per claim.

    Parameters
    ----------
    claims : records
        The chapter's :class:`Claim` records.
    evidence : any
        What the records' statistics read (a chapter's per-trial frame, its runs, ...).
    scope : Scope
        What the run holds; a claim whose :class:`Needs` the scope does not meet is
        ``not testable`` with the reason, and its statistic is not computed.
    ledger : bool
        False: the chapter's table (index: the statement; :data:`CLAIM_TABLE_COLUMNS`, numbers
        formatted for reading). True: the ledger's raw rows (:data:`LEDGER_COLUMNS`).
    """
    rows = []
    for c in claims:
        est, verdict, reason = _judge(c, evidence, scope)
        note = reason if est is None or not est.note else f"{reason}; {est.note}"
        if ledger:
            rows.append(
                {
                    "id": c.id,
                    "paper": c.paper,
                    "chapter": c.chapter,
                    "where": c.where,
                    "statement": c.statement,
                    "paper_value": c.paper_value,
                    "ours": "" if est is None else est.shown(),
                    "ci_low": np.nan if est is None or not est.defined else float(est.low),
                    "ci_high": np.nan if est is None or not est.defined else float(est.high),
                    "verdict": verdict,
                    "reason": note,
                    "yardstick": c.rule.describe() + (f" ({c.yardstick})" if c.yardstick else ""),
                    "explanation": c.explanation,
                }
            )
        else:
            q = "auto" if est is None else est.quantity
            rows.append(
                {
                    "claim": c.statement,
                    "id": c.id,
                    "where in the paper": c.where,
                    "paper": c.paper_value,
                    "ours": "-" if est is None else est.shown(),
                    INTERVAL_COLUMNS[0]: (
                        "-" if est is None or not est.defined else fmt_pair(est.low, est.high, q)[0]
                    ),
                    INTERVAL_COLUMNS[1]: (
                        "-" if est is None or not est.defined else fmt_pair(est.low, est.high, q)[1]
                    ),
                    "verdict": verdict,
                    "note": note,
                }
            )
    if ledger:
        return pd.DataFrame(rows, columns=list(LEDGER_COLUMNS))
    return pd.DataFrame(rows, columns=["claim", *CLAIM_TABLE_COLUMNS]).set_index("claim")


def evaluate_findings(findings: Iterable[Finding], evidence: Any, scope: Scope) -> pd.DataFrame:
    """Our own findings: statement, value and 95 % interval (no verdict, not counted)."""
    rows = []
    for f in findings:
        why = f.needs.missing(scope)
        est = None if why is not None else f.statistic(evidence)
        rows.append(
            {
                "finding": f.statement,
                "id": f.id,
                "ours": "-" if est is None else est.shown(),
                "95% CI": "-" if est is None else est.interval(),
                "note": why if est is None else est.note,
            }
        )
    return pd.DataFrame(rows, columns=["finding", "id", "ours", "95% CI", "note"]).set_index(
        "finding"
    )


# -- win counts with a real interval ----------------------------------------------------------
def win_count_interval(
    pairs: Mapping[str, tuple[np.ndarray, np.ndarray]],
    better: str = "below",
    n_boot: int = N_BOOT,
    level: float = CONFIDENCE,
    seed: int = 0,
) -> Estimate:
    """How many parts A beats B on, with a bootstrap interval of the *count*.

    Each part (task) holds paired per-trial values ``(a, b)``; A wins a part when its mean is
    better (``better="below"``: lower, as for runtimes). The point estimate counts wins by
    means; the interval resamples the trials of every part (parts independently, the two
    methods of a part jointly: they share their initial rows) ``n_boot`` times, counts the wins
    of each resample and takes the percentile interval of that count.

    >>> a = {"t1": (np.array([1.0, 2, 1]), np.array([5.0, 6, 7])),
    ...      "t2": (np.array([9.0, 8, 9]), np.array([1.0, 2, 1]))}
    >>> e = win_count_interval(a)
    >>> e.value, e.low, e.high, e.text
    (1.0, 1.0, 1.0, '1 of 2')
    """
    if better not in ("below", "above"):
        raise ValueError(f"better must be 'below' or 'above', got {better!r}")
    if not pairs:
        return Estimate(float("nan"), text="0 parts", note="no part to count", quantity="count")
    rng = np.random.default_rng(seed)
    sign = 1.0 if better == "below" else -1.0
    wins = 0
    counts = np.zeros(n_boot)
    for _, (a, b) in sorted(pairs.items()):
        a, b = np.asarray(a, float), np.asarray(b, float)
        if a.shape != b.shape or a.ndim != 1 or a.size == 0:
            raise ValueError("each part needs two paired 1-D samples of one non-zero length")
        d = sign * (a - b)
        wins += int(d.mean() < 0)
        idx = rng.integers(0, d.size, size=(n_boot, d.size))
        counts += d[idx].mean(axis=1) < 0
    lo, hi = np.quantile(counts, [(1 - level) / 2, 1 - (1 - level) / 2])
    n = len(pairs)
    return Estimate(
        float(wins),
        float(np.floor(lo)),
        float(np.ceil(hi)),
        text=f"{wins} of {n}",
        note=(
            f"wins counted by means over {n} parts; interval: percentile "
            f"bootstrap of the count ({n_boot} resamples of trials per part)"
        ),
        quantity="count",
    )


# -- the rule set, for the book ---------------------------------------------------------------
def rules_table() -> pd.DataFrame:
    """The one rule set, as the appendix prints it (verdict, when it is given)."""
    rows = [
        (
            "reproduced",
            "the 95 % interval supports the statement as stated; for a composite "
            "statement, every part is reproduced",
        ),
        (
            "not reproduced",
            "the 95 % interval contradicts the statement; for a composite, no "
            "part is reproduced and at least one is contradicted",
        ),
        (
            "partly",
            "only for a composite statement whose parts disagree: some reproduced, some "
            "contradicted",
        ),
        (
            "not testable",
            "the interval is undefined; or it straddles the statement's bound "
            "(inconclusive: more trials would decide); or the run lacks the tasks, methods or "
            "trials the statement refers to; or the released data cannot test it. The reason is "
            "always given",
        ),
    ]
    yard = [
        ("Below / Above b", "a direction ('A is faster than B'): the whole interval on that side"),
        ("Covers v", "a value ('38 evaluations'): the interval covers v"),
        (
            "Band [l, u]",
            "only where the paper's words are a band or an approximation ('about', "
            "'roughly'): the whole interval inside the band",
        ),
        (
            "AtLeast k of n",
            "a count of wins ('4 of 6'): the bootstrap interval of the count lies at or above k",
        ),
        (
            "Every / AllOf",
            "a statement over several parts: each part by its rule, then combined as above",
        ),
    ]
    out = pd.DataFrame(rows + yard, columns=["verdict or yardstick", "when"])
    out.insert(0, "kind", ["verdicts"] * len(rows) + ["yardsticks"] * len(yard))
    return out.set_index(["kind", "verdict or yardstick"])


def by_id(claims: Sequence[Claim]) -> dict[str, Claim]:
    """Records keyed by id (ids must be unique)."""
    out: dict[str, Claim] = {}
    for c in claims:
        if c.id in out:
            raise ValueError(f"claim id {c.id!r} is used twice")
        out[c.id] = c
    return out
