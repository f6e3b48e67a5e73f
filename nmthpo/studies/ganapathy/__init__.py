"""Ganapathy (2020), a steady-state genetic algorithm against random search on the ja-en table:
Chapter 5 of the book (Tables 2-4, Section 5's variants).

* :mod:`~nmthpo.studies.ganapathy.simulation` -- one GA iteration under the counting rules the
  paper leaves open;
* :mod:`~nmthpo.studies.ganapathy.baseline` -- the random baseline (closed form, simulation);
* :mod:`~nmthpo.studies.ganapathy.study` -- Tables 2-4 on shared initial populations, beside the
  paper's values;
* :mod:`~nmthpo.studies.ganapathy.rules` -- which counting rule fits Tables 2 and 3;
* :mod:`~nmthpo.studies.ganapathy.tables` -- the chapter's tables (variants, the fair count, the
  GA in Table 3's protocol, the cache of the slow tables), re-exporting the modules above;
* :mod:`~nmthpo.studies.ganapathy.claims` -- the paper's claims as records.

Nothing is imported here: import the module you need.
"""

__all__ = ["baseline", "claims", "rules", "simulation", "study", "tables"]
