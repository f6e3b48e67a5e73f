"""The one task registry: every task of the package, with its kind.

:data:`REGISTRY` holds one :class:`Task` per name; every other list of task names is derived
from it: :data:`nmthpo.benchmark.tables.TASKS` (``NMTHPO_TASKS``, ``NMTLC_TASKS``),
:data:`nmthpo.benchmark.learning_curves.LC_TASKS` (``LC_FINETUNE_TASKS``,
``LC_SCRATCH_TASKS``); :data:`nmthpo.benchmark.synthetic.FUNCTIONS` holds the functions of
the synthetic tasks (a test checks that the names agree).

Kinds (:data:`KINDS`) say what a task is to a method:

* ``lookup`` -- a lookup table (:func:`nmthpo.benchmark.tables.load_table`): a finite set of
  trained models, one row per configuration, searched by the single-objective, Pareto (where
  the table records decoding time) and transfer methods: the six NMTHPO tables and the
  lookup view of the NMTLC fine-tuned tasks (BLEU: each configuration's best dev BLEU);
* ``learning-curve`` -- learning curves (:func:`nmthpo.benchmark.learning_curves.load_curves`):
  a value per checkpoint, searched by the multi-fidelity methods: the NMTLC fine-tuned tasks
  (BLEU curves) and the from-scratch tasks ``lc-scratch-*`` (perplexity curves, no lookup
  table);
* ``synthetic`` -- a test function on the unit cube (:mod:`nmthpo.benchmark.synthetic`): used
  by Chapter 6's search-space scores only; no method of the registry runs on it.

A task may have two kinds: ``lc-finetune-*`` is a lookup table *and* learning curves (one
task, two views; :attr:`Task.kind` reads ``lookup+learning-curve``).

HPO-B is not a kind of task here: HPO-B's ``observe_and_suggest(X_obs, y_obs, X_pen)`` is a
*method* interface, which :mod:`nmthpo.optimizers.adapters.hpob` turns into a table
optimiser that runs on the lookup tables.

This module imports only the standard library: task names are checked without loading
pandas or a table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nmthpo.errors import InputKeyError

__all__ = ["FAMILIES", "KINDS", "REGISTRY", "Task", "get_task", "summary", "task_names"]

#: Kinds of task (see the module docstring).
KINDS: tuple[str, ...] = ("lookup", "learning-curve", "synthetic")

#: Families: tasks of one family share a search space (``nmthpo``: Table 1 of Zhang & Duh
#: 2020; ``nmtlc-finetune``: LLM, LoRA rank, batch size, learning rate; ``nmtlc-scratch``:
#: the from-scratch Transformers of NMTLC; ``synthetic``: one function each).
FAMILIES: tuple[str, ...] = ("nmthpo", "nmtlc-finetune", "nmtlc-scratch", "synthetic")

_PAIRS: tuple[str, ...] = ("zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en")


@dataclass(frozen=True)
class Task:
    """One task of the registry.

    Attributes
    ----------
    name : str
    kinds : tuple of str
        Its kinds (:data:`KINDS`), one or two.
    family : str
        :data:`FAMILIES`.
    metric : str
        What is optimised: ``"bleu"``, ``"perplexity"`` (learning curves of scratch tasks) or
        ``"f"`` (a synthetic function).
    maximise : bool
    description : str
    """

    name: str
    kinds: tuple[str, ...]
    family: str
    metric: str
    maximise: bool
    description: str

    @property
    def kind(self) -> str:
        """Its kinds joined by ``+`` (e.g. ``lookup+learning-curve``)."""
        return "+".join(self.kinds)

    def has(self, kind: str) -> bool:
        """Whether the task has ``kind`` (e.g. a lookup table)."""
        return kind in self.kinds


def _tasks() -> tuple[Task, ...]:
    out = [
        Task(
            p,
            ("lookup",),
            "nmthpo",
            "bleu",
            True,
            f"NMTHPO {p}: Transformer models of Table 1's grid (Zhang & Duh 2020)",
        )
        for p in _PAIRS
    ]
    # the order of these two is the order of TASKS (task codes seed source samples)
    out += [
        Task(
            f"lc-finetune-{p}",
            ("lookup", "learning-curve"),
            "nmtlc-finetune",
            "bleu",
            True,
            f"NMTLC {p}: LoRA fine-tuned LLMs, BLEU per checkpoint (Zhang & Duh 2024)",
        )
        for p in ("zh-en", "fr-en")
    ]
    out += [
        Task(
            f"lc-scratch-{p}",
            ("learning-curve",),
            "nmtlc-scratch",
            "perplexity",
            False,
            f"NMTLC {p}: Transformers trained from scratch, dev perplexity per "
            "checkpoint (Zhang & Duh 2024)",
        )
        for p in _PAIRS
    ]
    out += [
        Task(
            "branin",
            ("synthetic",),
            "synthetic",
            "f",
            True,
            "negated Branin-Hoo function on [0, 1]^2 (Chapter 6)",
        ),
        Task(
            "hartmann6",
            ("synthetic",),
            "synthetic",
            "f",
            True,
            "Hartmann-6 function on [0, 1]^6 (Chapter 6)",
        ),
    ]
    return tuple(out)


#: Every task, by name, in the order ``nmthpo tasks`` lists them.
REGISTRY: dict[str, Task] = {t.name: t for t in _tasks()}


def task_names(kind: str | None = None, family: str | None = None) -> tuple[str, ...]:
    """Names of the tasks with ``kind`` (any kind: ``None``) in ``family`` (any: ``None``),
    in registry order."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"unknown task kind {kind!r}; valid: {', '.join(KINDS)}")
    if family is not None and family not in FAMILIES:
        raise ValueError(f"unknown task family {family!r}; valid: {', '.join(FAMILIES)}")
    return tuple(
        t.name
        for t in REGISTRY.values()
        if (kind is None or t.has(kind)) and (family is None or t.family == family)
    )


def get_task(name: str) -> Task:
    """The :class:`Task` of ``name``; a ``KeyError`` listing every task otherwise."""
    if name not in REGISTRY:
        raise InputKeyError(f"unknown task {name!r}; tasks: {', '.join(REGISTRY)}")
    return REGISTRY[name]


def summary(name: str) -> dict[str, Any]:
    """What ``nmthpo tasks`` shows for a task, by kind (``None`` where a field does not apply).

    Keys: ``task``, ``kind``, ``rows`` (configurations), ``metric``, ``best`` (the oracle's
    value of the metric: best BLEU of a lookup table, best final value of learning curves,
    the maximum of a synthetic function), ``best_bleu``, ``best_ties`` (rows that attain
    ``best``) and ``pareto`` (size of the Pareto set; lookup tables only). A lookup task is
    summarised by its table (:meth:`~nmthpo.benchmark.tables.LookupTable.summary`), a
    learning-curve-only task by its curves, a synthetic one by its known maximum. Loads the
    data (cached per process), except for synthetic tasks.
    """
    task = get_task(name)
    out: dict[str, Any] = {
        "task": name,
        "kind": task.kind,
        "rows": None,
        "metric": task.metric,
        "best": None,
        "best_bleu": None,
        "best_ties": None,
        "pareto": None,
    }
    if task.has("lookup"):
        from nmthpo.benchmark.tables import load_table

        out.update(load_table(name).summary())
        out["best"] = out["best_bleu"]
    elif task.has("learning-curve"):
        from nmthpo.benchmark.learning_curves import load_curves

        curves = load_curves(name)
        out.update(
            rows=curves.n_rows,
            best=round(curves.best_final, 2),
            best_ties=int(curves.best_rows.size),
        )
        if curves.metric == "bleu":
            out["best_bleu"] = out["best"]
    else:
        from nmthpo.benchmark.synthetic import get_function

        out["best"] = round(get_function(name).maximum, 4)
    return out
