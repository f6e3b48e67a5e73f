"""The methods of Zhang & Duh (2020) the book's grids run, in the paper's order.

Chapter 2's seven single-objective systems (Table 3, :data:`METHODS`), the k values of the
k-sensitivity study (footnote 12, :data:`GRAPH_K_VALUES`) and Chapter 3's five multiobjective
systems (Table 4, :data:`PAPER_METHODS`). The experiment registry
(:mod:`nmthpo.studies.grids`) and the chapters' modules
(:mod:`~nmthpo.studies.zhang_duh.single_objective`,
:mod:`~nmthpo.studies.zhang_duh.multiobjective`, which re-export them) both read them from
here, so this module imports nothing of :mod:`nmthpo.studies`.
"""

from __future__ import annotations

__all__ = ["AUTHORS_BOMO", "GRAPH_K_VALUES", "METHODS", "PAPER_METHODS"]

#: The seven single-objective methods of the paper, in its order.
METHODS: tuple[str, ...] = (
    "rs",
    "bo-ei-m",
    "bo-ei-r",
    "gb-ei-m",
    "gb-ei-r",
    "gb-eif-m",
    "gb-eif-r",
)

#: The k values of the k-sensitivity study (``None``: the paper's mean-degree n/7 rule).
GRAPH_K_VALUES: tuple[int, ...] = (5, 10, 20, 40)

#: The five systems of Section 6.2, in the paper's order.
PAPER_METHODS: tuple[str, ...] = ("rs", "bo-m", "bo-r", "gb-m", "gb-r")

#: Qualified name of the authors' AutoML-2022 BOMO
#: (:class:`nmthpo.studies.zhang_duh.multiobjective.AuthorsBOMO`) for the runner: Chapter 3's
#: arm of that name and its grid ``pareto_authors`` (:data:`nmthpo.studies.grids.RUN_GRIDS`).
AUTHORS_BOMO: str = "nmthpo.studies.zhang_duh.multiobjective:AuthorsBOMO"
