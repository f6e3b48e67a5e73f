"""The ledger: every claim of the four papers, judged on the book's published runs.

Each chapter keeps its claims as records (:class:`nmthpo.engine.claims.Claim`) in one module of
:data:`SOURCES`; such a module holds

``CLAIMS``
    the chapter's records (ids unique across the book);
``FINDINGS``
    our own findings (:class:`~nmthpo.engine.claims.Finding`), never counted as reproductions;
``published_evidence()``
    ``(evidence, scope)`` read from the book's cache (``results/``) with the chapter's
    published parameters: what the records' statistics read, and what the run holds.

:func:`ledger` evaluates every record with :func:`nmthpo.engine.claims.evaluate` (the
columns :data:`nmthpo.engine.claims.LEDGER_COLUMNS`); the
appendix shows it, ``make results`` writes it to ``results/claims.csv`` and ``nmthpo claims``
prints it. The intro's counts are :func:`counts` of the same frame.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from nmthpo.engine.verdicts import VERDICTS

if TYPE_CHECKING:  # imported where used: `nmthpo claims --help` stays light
    import pandas as pd

    from nmthpo.engine.claims import Claim, Finding

__all__ = [
    "LEDGER_FILE",
    "PAPERS",
    "SOURCES",
    "all_claims",
    "all_findings",
    "count_text",
    "counts",
    "glue_counts",
    "ledger",
    "read_ledger",
    "readable",
    "write_ledger",
]

#: chapter -> the module holding its records.
SOURCES: dict[str, str] = {
    "01_benchmark": "nmthpo.studies.zhang_duh.benchmark_claims",
    "02_single_objective": "nmthpo.studies.zhang_duh.single_objective_claims",
    "03_multiobjective": "nmthpo.studies.zhang_duh.multiobjective_claims",
    "04_transfer": "nmthpo.studies.li_transbo.claims",
    "05_genetic_algorithm": "nmthpo.studies.ganapathy.claims",
    "06_search_space_scoring": "nmthpo.studies.ariafar.claims",
    "07_multifidelity": "nmthpo.studies.multifidelity.claims",
}

#: The papers the claims come from (key -> citation label).
PAPERS: dict[str, str] = {
    "zhang-duh-2020": "Zhang & Duh 2020 (TACL)",
    "ganapathy-2020": "Ganapathy 2020",
    "li-et-al-2022": "Li et al. 2022 (TransBO)",
    "ariafar-et-al-2022": "Ariafar et al. 2022",
    "zhang-duh-2024": "Zhang & Duh 2024 (NMTLC)",
}

#: Name of the ledger in the book's cache.
LEDGER_FILE = "claims.csv"


def _module(chapter: str) -> ModuleType:
    return importlib.import_module(SOURCES[chapter])


def all_claims(chapters: Sequence[str] | None = None) -> list[Claim]:
    """Every record of the given chapters (all by default), ids checked unique."""
    from nmthpo.engine.claims import by_id

    out = [c for ch in (chapters or SOURCES) for c in _module(ch).CLAIMS]
    by_id(out)
    bad = [c.id for c in out if c.paper not in PAPERS]
    if bad:
        raise ValueError(f"claims {bad} name an unknown paper; known: {', '.join(PAPERS)}")
    return out


def all_findings(chapters: Sequence[str] | None = None) -> list[Finding]:
    """Every finding of ours in the given chapters."""
    return [f for ch in (chapters or SOURCES) for f in getattr(_module(ch), "FINDINGS", ())]


def ledger(
    papers: Sequence[str] | None = None, chapters: Sequence[str] | None = None
) -> pd.DataFrame:
    """Evaluate every record on the book's published runs (one row per claim)."""
    import pandas as pd

    from nmthpo.engine.claims import LEDGER_COLUMNS, evaluate

    frames = []
    for ch in chapters or SOURCES:
        mod = _module(ch)
        claims = [c for c in mod.CLAIMS if papers is None or c.paper in papers]
        if not claims:
            continue
        evidence, scope = mod.published_evidence()
        frames.append(evaluate(claims, evidence, scope, ledger=True))
    if not frames:
        return pd.DataFrame(columns=list(LEDGER_COLUMNS))
    return pd.concat(frames, ignore_index=True)


def counts(frame: pd.DataFrame, by: str | None = None) -> pd.DataFrame | pd.Series:
    """Verdict counts of a ledger (every verdict, zeros included), optionally per ``by``."""
    import pandas as pd

    if by is None:
        return frame["verdict"].value_counts().reindex(list(VERDICTS), fill_value=0)
    table = pd.crosstab(frame[by], frame["verdict"])
    table = table.reindex(columns=list(VERDICTS), fill_value=0)
    table.columns.name = None  # a table of counts, not of verdicts
    return table


def write_ledger(path: str | Path) -> pd.DataFrame:
    """Compute the ledger and write it as CSV atomically (through the one cache layer)."""
    from nmthpo.engine.cache import write_text

    frame = ledger()
    write_text(Path(path), frame.to_csv(index=False))
    return frame


def read_ledger(path: str | Path) -> pd.DataFrame:
    """Read a ledger CSV written by :func:`write_ledger` (columns checked)."""
    import pandas as pd

    from nmthpo.engine.claims import LEDGER_COLUMNS

    frame = pd.read_csv(path, keep_default_na=False, na_values={"ci_low": [""], "ci_high": [""]})
    missing = [c for c in LEDGER_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{path} is not a claims ledger (columns {missing} missing); "
            "rewrite it with `make results` (--only claims)"
        )
    return frame


def readable(frame: pd.DataFrame) -> pd.DataFrame:
    """The ledger as the appendix shows it: one row per claim, the chapter beside the place in
    the paper (``ch. 2: Sec. 5``), the interval in one column."""
    import pandas as pd

    from nmthpo.engine.numbers import fmt

    def interval(r: pd.Series) -> str:
        lo, hi = r["ci_low"], r["ci_high"]
        if pd.isna(lo) or pd.isna(hi):
            return "-"
        return f"[{fmt(float(lo))}, {fmt(float(hi))}]"

    out = pd.DataFrame(
        {
            "id": frame["id"],
            # the chapter beside the place in the paper: one column less to fit the page
            "where": [
                f"ch. {int(c[:2])}: {w}"
                for c, w in zip(frame["chapter"], frame["where"], strict=True)
            ],
            "statement": frame["statement"],
            "paper": frame["paper_value"],
            "ours": frame["ours"].replace("", "-"),
            "95% CI": frame.apply(interval, axis=1),
            "verdict": frame["verdict"],
            "reason / explanation": [
                r if not e else f"{r}. Explanation: {e}"
                for r, e in zip(frame["reason"], frame["explanation"], strict=True)
            ],
        }
    )
    return out.set_index("id")


def count_text(frame: pd.DataFrame) -> str:
    """``"5 reproduced, 2 partly, 1 not reproduced, 3 not testable"`` (zeros left out)."""
    c = counts(frame)
    parts = [f"{int(n)} {v}" for v, n in c.items() if n]
    return ", ".join(parts) if parts else "no claims"


def glue_counts(frame: pd.DataFrame) -> dict[str, str]:
    """The texts the intro and the appendix paste: totals and one line per chapter.

    Keys: ``ledger.claims`` (number of claims), ``ledger.<verdict>`` (spaces as ``_``),
    ``ledger.summary`` and ``ledger.chNN`` (:func:`count_text` of chapter ``NN``).
    """
    c = counts(frame)
    out = {"ledger.claims": str(len(frame)), "ledger.summary": count_text(frame)}
    out.update({f"ledger.{v.replace(' ', '_')}": str(int(n)) for v, n in c.items()})
    for ch in SOURCES:
        out[f"ledger.ch{ch[:2]}"] = count_text(frame[frame["chapter"] == ch])
    return out
