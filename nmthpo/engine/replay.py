"""Replay a recorded trial through a fresh optimiser: how the cache is checked against the code.

A cached trial is a sequence of rows. *Recomputing* it (:func:`nmthpo.engine.runner.run_trial`)
must give the same rows bit for bit on the CPU model that wrote the cache. On another CPU model
that holds only for methods whose choices do not hinge on floating-point optimisation: OpenBLAS
and NumPy choose their kernels by CPU (``DYNAMIC_ARCH``, SIMD dispatch), the last bits of a GP
fit move, and a GP-BO run may pick another local optimum of the marginal likelihood from some
step on and take another path (measured: 0-50 % of the trials of ``bo-ei-m`` diverge between an
AVX-512 machine and an AVX2 one, while random search, graph-based SMBO and the GA stay
identical). Such methods say so in the registry (``MethodSpec.exact_across_cpus = False``);
cached runs record the machine that computed them
(:func:`nmthpo.engine.cache.machine_fingerprint`, :func:`nmthpo.engine.runner.run_machine`).

For them :func:`replay_trial` checks the code rather than the path: it *teacher-forces* the
recorded rows (tells the optimiser each recorded row, whatever it asked for) and counts the
steps at which the optimiser's own proposal equals the recorded row. Across CPU models the
agreement of the unchanged code is high (measured 0.60-1.00 per run, 0.93 over all GP runs of
Tables 3 and 4), while a different algorithm agrees at chance level (random search: about
1/remaining rows) -- so a floor on the agreement catches code drift without demanding bits the
hardware does not promise.
"""

from __future__ import annotations

from collections.abc import Sequence

from nmthpo.benchmark.tables import load_table
from nmthpo.engine.runner import RunSpec, trial_optimizer

__all__ = ["replay_agreement", "replay_trial"]


def replay_trial(spec: RunSpec, rows: Sequence[int], trial: int) -> tuple[int, int]:
    """Teacher-force ``rows`` through the optimiser of trial ``trial`` of ``spec``.

    The optimiser is built exactly as :func:`nmthpo.engine.runner.run_trial` builds it
    (single-task or transfer), under a one-thread BLAS.

    Returns
    -------
    (agree, steps) : tuple of int
        How many of the ``steps = len(rows) - n_init`` proposals equal the recorded row.
    """
    from threadpoolctl import threadpool_limits

    y = load_table(spec.task).objectives(spec.objective)
    agree = 0
    with threadpool_limits(limits=1, user_api="blas"):
        opt, _ = trial_optimizer(spec, trial)
        for i, r in enumerate(rows):
            if i >= spec.n_init:
                agree += int(opt.ask()) == int(r)
            opt.tell(int(r), y[int(r)])
    return agree, max(len(rows) - spec.n_init, 0)


def replay_agreement(
    method: str,
    task: str,
    rows: Sequence[int],
    seed: int,
    trial: int,
    objective: str = "bleu",
    n_init: int = 3,
    encoding: str = "scaled",
    settings: dict | None = None,
) -> tuple[int, int]:
    """:func:`replay_trial` of a single-task run given by its fields.

    Parameters
    ----------
    method, task, seed, trial, objective, n_init, encoding, settings
        As in :class:`nmthpo.engine.runner.RunSpec`; the optimiser's generator is the runner's
        (``default_rng([seed, trial, 1])``).
    rows : sequence of int
        The recorded rows of the trial, initial rows first.
    """
    spec = RunSpec(
        method, task, objective, seed, n_init, encoding=encoding, settings=dict(settings or {})
    )
    return replay_trial(spec, rows, trial)
