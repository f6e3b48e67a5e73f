"""The studies layer: one package per paper (its experiment grids, tables and claims against the
paper), built only from the layers below.

* :mod:`~nmthpo.studies.zhang_duh` -- Zhang & Duh (2020), Chapters 1-3;
* :mod:`~nmthpo.studies.li_transbo` -- Li et al. (2022), Chapter 4;
* :mod:`~nmthpo.studies.ganapathy` -- Ganapathy (2020), Chapter 5;
* :mod:`~nmthpo.studies.ariafar` -- Ariafar et al. (2022), Chapter 6;
* :mod:`~nmthpo.studies.multifidelity` -- the NMTLC curves of Zhang & Duh (2024), Chapter 7.

The modules of the book as a whole stay here: :mod:`~nmthpo.studies.grids` (every experiment
and where its runs are cached), :mod:`~nmthpo.studies.ledger` (every claim of the papers),
:mod:`~nmthpo.studies.published` and :mod:`~nmthpo.studies.params` (the chapters' parameters),
:mod:`~nmthpo.studies.changes`, :mod:`~nmthpo.studies.reproducibility` and
:mod:`~nmthpo.studies.speed` (the appendices). Chapter 8 (your own optimiser) has no module of
its own: it reads the ``own_optimizer`` grid of :mod:`~nmthpo.studies.grids` and compares with
:mod:`nmthpo.engine.compare`.
"""

__all__: list[str] = []
