"""The one task registry with kinds (issue 22): every task list is derived from it, and
``nmthpo tasks`` lists every task with its kind."""

from __future__ import annotations

import json
from typing import Any

import pytest

from nmthpo.benchmark import learning_curves, synthetic, tables
from nmthpo.benchmark.tasks import KINDS, REGISTRY, get_task, summary, task_names
from nmthpo.cli import main

PAIRS = ("zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en")


def test_derived_lists_keep_their_names_and_order() -> None:
    """The old names still hold the same tuples (a task's index in TASKS seeds its source
    samples, so the order is part of the results)."""
    assert tables.NMTHPO_TASKS == PAIRS
    assert tables.NMTLC_TASKS == ("lc-finetune-zh-en", "lc-finetune-fr-en")
    assert tables.TASKS == tables.NMTHPO_TASKS + tables.NMTLC_TASKS == task_names("lookup")
    assert learning_curves.LC_FINETUNE_TASKS == ("lc-finetune-fr-en", "lc-finetune-zh-en")
    assert learning_curves.LC_SCRATCH_TASKS == tuple(f"lc-scratch-{p}" for p in PAIRS)
    assert set(learning_curves.LC_TASKS) == set(task_names("learning-curve"))
    assert task_names("synthetic") == tuple(synthetic.FUNCTIONS)


def test_every_task_has_known_kinds() -> None:
    for t in REGISTRY.values():
        assert t.kinds and set(t.kinds) <= set(KINDS), t
    assert get_task("lc-finetune-zh-en").kind == "lookup+learning-curve"
    assert get_task("lc-scratch-ja-en").kind == "learning-curve"
    assert get_task("ja-en").kind == "lookup" and get_task("branin").kind == "synthetic"
    with pytest.raises(KeyError, match="unknown task 'nope'; tasks: zh-en"):
        get_task("nope")
    with pytest.raises(ValueError, match="unknown task kind"):
        task_names("hpob")


def test_registry_holds_every_nmtlc_task_of_the_data() -> None:
    from nmthpo.data import nmtlc_task_names

    assert set(nmtlc_task_names()) == set(task_names("learning-curve"))


def test_summaries_by_kind() -> None:
    assert summary("ja-en") == {
        "task": "ja-en",
        "kind": "lookup",
        "rows": 150,
        "metric": "bleu",
        "best": 16.41,
        "best_bleu": 16.41,
        "best_ties": 1,
        "pareto": 5,
    }
    curves = learning_curves.load_curves("lc-scratch-zh-en")
    s = summary("lc-scratch-zh-en")
    assert (s["kind"], s["metric"], s["rows"], s["pareto"], s["best_bleu"]) == (
        "learning-curve",
        "perplexity",
        curves.n_rows,
        None,
        None,
    )
    assert s["best"] == round(float(curves.final.min()), 2)
    assert summary("lc-finetune-fr-en")["best"] == round(
        float(learning_curves.load_curves("lc-finetune-fr-en").final.max()), 2
    )
    assert summary("hartmann6")["best"] == round(synthetic.HARTMANN6.maximum, 4)
    assert summary("hartmann6")["rows"] is None


def test_cli_tasks_lists_every_task_with_its_kind(capsys: Any) -> None:
    assert main(["tasks", "--json"]) == 0
    rows = {r["task"]: r for r in json.loads(capsys.readouterr().out)}
    assert list(rows) == list(REGISTRY)
    for name in learning_curves.LC_SCRATCH_TASKS:
        assert rows[name]["kind"] == "learning-curve" and rows[name]["rows"] > 0, name
    assert main(["tasks"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100
    lines = {line.split()[0]: line.split() for line in out.splitlines()[1:] if line}
    assert lines["lc-scratch-sw-en"][1:3] == ["learning-curve", "819"]
    assert lines["lc-scratch-sw-en"][-1] == "-"  # no Pareto set on learning curves
    assert lines["sw-en"][1:] == ["lookup", "767", "26.09", "BLEU", "1", "14"]
    assert lines["branin"][1:3] == ["synthetic", "-"]
