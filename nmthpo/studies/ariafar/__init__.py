"""Ariafar et al. (2022), budget-conditional search-space scores: Chapter 6 of the book.

* :mod:`~nmthpo.studies.ariafar.space_scores` -- the scores at work on the NMT tables and on
  synthetic functions (the score mathematics is :mod:`nmthpo.models.space_scores`);
* :mod:`~nmthpo.studies.ariafar.results` -- the chapter's cached frames, summaries and verdicts;
* :mod:`~nmthpo.studies.ariafar.claims` -- the paper's claims as records.

Nothing is imported here: import the module you need.
"""

__all__ = ["claims", "results", "space_scores"]
