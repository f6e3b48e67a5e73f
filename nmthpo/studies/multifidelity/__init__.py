"""Multi-fidelity HPO on the NMTLC learning curves of Zhang & Duh (2024): Chapter 7 of the book.

* :mod:`~nmthpo.studies.multifidelity.study` -- the chapter's grid, its cache and its tables
  (the methods are :mod:`nmthpo.optimizers.multifidelity`);
* :mod:`~nmthpo.studies.multifidelity.claims` -- the records: the one statement of the authors
  the chapter checks, and our own findings.

Nothing is imported here: import the module you need.
"""

__all__ = ["claims", "study"]
