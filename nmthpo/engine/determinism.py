"""Does a method give the same rows however its trials are scheduled? ``check_method``.

The package's promise (Zhang & Duh 2020 compare methods on *paired* trials; the book's caches
and ``compare`` rely on it): trial ``t`` of a run depends only on (method, task, settings, seed,
``t``) -- not on the number of workers, nor on which trials a worker process ran before it.
An optimiser breaks it when it reads state outside its generator: a library's global random
state, a random forest fitted with every core, a cache warmed by an earlier trial. SMAC3's
random-forest facade, used as it comes, is such a case; its adapter fixes it.

:func:`check_method` runs the same trials three ways and compares their rows:

* **forward**: trials ``0 .. n-1`` in order, in one fresh worker process;
* **reverse**: trials ``n-1 .. 0``, in another fresh worker process (so that every trial but
  one runs after different trials than in the forward order);
* **two workers**: :func:`nmthpo.engine.runner.run` with ``jobs=2`` (loky; no cache).

Every trial whose rows differ from the forward order is reported with the first step at which
they diverge. Nothing is cached or written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nmthpo.engine.runner import RunSpec, run, run_trial

__all__ = ["Divergence", "DeterminismReport", "check_method"]

#: The three schedules compared (module docstring).
SCHEDULES: tuple[str, ...] = ("forward", "reverse", "two workers")


@dataclass(frozen=True)
class Divergence:
    """Trial ``trial`` of schedule ``schedule`` left the forward order's rows at ``step``
    (1-based; the evaluation at which the rows first differ)."""

    schedule: str
    trial: int
    step: int
    forward_row: int | None
    other_row: int | None


@dataclass
class DeterminismReport:
    """What :func:`check_method` found."""

    method: str
    task: str
    trials: int
    budget: int | None
    divergences: list[Divergence] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every schedule gave the forward order's rows."""
        return not self.divergences

    def lines(self) -> list[str]:
        """The report as text, one line per divergence."""
        head = (
            f"{self.method} on {self.task}: {self.trials} trials"
            + (f", budget {self.budget}" if self.budget is not None else "")
            + f", schedules: {', '.join(SCHEDULES)}"
        )
        if self.ok:
            return [head, "identical rows in every schedule: deterministic"]
        out = [head, f"{len(self.divergences)} trial(s) diverge from the forward order:"]
        for d in self.divergences:
            out.append(
                f"  {d.schedule}: trial {d.trial} differs at step {d.step} "
                f"(row {d.forward_row} forward, {d.other_row} {d.schedule})"
            )
        return out


def _rows_in_order(spec: RunSpec, order: list[int]) -> dict[int, list[int]]:
    return {t: [int(r) for r in run_trial(spec, t)["row"]] for t in order}


def _in_fresh_process(spec: RunSpec, order: list[int]) -> dict[int, list[int]]:
    from joblib.externals.loky import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=1) as pool:
        return pool.submit(_rows_in_order, spec, order).result()


def _first_difference(a: list[int], b: list[int]) -> tuple[int, int | None, int | None]:
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        if x != y:
            return i + 1, x, y
    raise ValueError("the sequences are equal")


def check_method(
    method: Any,
    task: str,
    trials: int = 3,
    budget: int | None = 30,
    seed: int = 0,
    settings: Mapping[str, Any] | None = None,
    objective: str = "bleu",
) -> DeterminismReport:
    """Run ``trials`` trials of ``method`` on ``task`` in three schedules and compare their rows
    (module docstring).

    Parameters
    ----------
    method : str, class or MethodSpec
        Anything :func:`nmthpo.run` accepts as a lookup-table method.
    task : str
    trials : int
        At least 2 (the reverse order then differs from the forward one).
    budget : int, optional
        Evaluations per trial (default 30: enough for a model to take over).
    seed : int
    settings : mapping, optional
    objective : {"bleu", "pareto"}

    Raises
    ------
    nmthpo.errors.InputError
        Bad arguments, before any work.
    """
    from nmthpo.errors import check_int

    check_int("trials", trials, 2, 1000)
    spec = RunSpec.of(
        method, task, objective=objective, seed=seed, budget=budget, settings=settings or {}
    ).validate()
    order = list(range(trials))
    forward = _in_fresh_process(spec, order)
    reverse = _in_fresh_process(spec, order[::-1])
    res = run(
        method,
        task,
        trials=trials,
        seed=seed,
        objective=objective,
        budget=budget,
        settings=settings or {},
        jobs=2,
        cache_dir=None,
        progress=False,
    )
    frame = res.frame
    workers = {
        t: [int(r) for r in frame.loc[frame["trial"] == t].sort_values("step")["row"]]
        for t in order
    }
    report = DeterminismReport(str(spec.method), task, trials, budget)
    for name, rows in (("reverse", reverse), ("two workers", workers)):
        for t in order:
            if rows[t] != forward[t]:
                step, a, b = _first_difference(forward[t], rows[t])
                report.divergences.append(Divergence(name, t, step, a, b))
    return report
