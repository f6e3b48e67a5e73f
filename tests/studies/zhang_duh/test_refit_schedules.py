"""The prose values of GP-BO's default against the papers' protocol (Chapter 2's appendix)."""

import pandas as pd

from nmthpo.studies.grids import EXACT_PROTOCOL, RUN_GRIDS
from nmthpo.studies.zhang_duh.refit_schedules import refit_values


def _table(findings: list[str]) -> pd.DataFrame:
    idx = pd.MultiIndex.from_tuples(
        [("bo-ei-m", t, "ftb") for t in ("zh-en", "so-en", "sw-en")][: len(findings)],
        names=["method", "task", "metric"],
    )
    return pd.DataFrame({"finding": findings}, index=idx)


def test_condition_holds_only_without_a_worse_cell() -> None:
    ok = refit_values(_table(["no difference", "fast better"]))
    assert ok["ch2.refit.condition"].startswith("holds") and ok["ch2.refit.worse"] == "0"
    bad = refit_values(_table(["no difference", "fast worse", "fast better"]))
    assert bad["ch2.refit.condition"] == ("does not hold to the letter: 1 of 3 cells are worse")
    assert bad["ch2.refit.worst_task"] == "so-en"
    assert set(refit_values(None).values()) == {"n/a"}


def test_the_refit_grid_runs_the_papers_protocol_beside_the_default() -> None:
    assert RUN_GRIDS["refit"].variants == (EXACT_PROTOCOL,)
    assert RUN_GRIDS["refit"].methods == ("bo-ei-m", "bo-ei-r")
