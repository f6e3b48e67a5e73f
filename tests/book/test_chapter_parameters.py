"""Every chapter re-executes with other (smoke-size) parameters, and writes nothing into the
repository: runs the book's ``results/`` lacks go to the user cache (``NMTHPO_RESULTS``).

Each chapter of ``notebooks/`` is executed with papermill twice, with parameter sets that are
not the published ones (the README's example among them), with ``papermill -p NAME VALUE`` as a
user would (lists arrive as strings); the two sets of a chapter run concurrently.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

pytest.importorskip("papermill")


#: (chapter, label, parameters, whether new runs are computed into the user cache)
CASES: list[tuple[str, str, dict[str, object], bool]] = [
    (
        "01_benchmark",
        "one-task",
        {
            "tasks": '["ja-en"]',
            "fanova_tasks": '["ja-en"]',
            "n_trees": 4,
            "max_depth": 6,
        },
        False,
    ),
    (
        "01_benchmark",
        "two-tasks",
        {
            "tasks": "zh-en,so-en",
            "fanova_tasks": '["so-en"]',
            "top_fraction": 0.05,
            "n_trees": 4,
            "max_depth": 6,
            "seed": 1,
        },
        False,
    ),
    # the README's example
    ("02_single_objective", "readme", {"tasks": '["ja-en"]', "trials": 20}, False),
    (
        "09_peers",
        "cached-subset",
        {
            "tasks": '["zh-en", "ru-en", "ja-en", "en-ja", "so-en"]',
            "trials": 5,
            "costly_trials": 2,
            "ecdf_task": "so-en",
            "lc_trials": 10,
        },
        False,
    ),
    (
        "02_single_objective",
        "new-runs",
        {
            "tasks": '["zh-en"]',
            "methods": '["rs", "gb-eif-m"]',
            "trials": 3,
            "seed": 1,
            "budget": 10,
            "ties": "first-id",
            "figure6_steps": 10,
        },
        True,
    ),
    (
        "03_multiobjective",
        "cached-subset",
        {
            "tasks": '["zh-en"]',
            "methods": '["rs", "gb-m"]',
            "trials": 5,
            "competition_runs": 2,
        },
        False,
    ),
    (
        "03_multiobjective",
        "new-runs",
        {
            "tasks": '["ja-en", "zh-en"]',
            "methods": "rs,gb-r",
            "trials": 2,
            "seed": 1,
            "figure7_task": "zh-en",
            "figure7_steps": "[5, 10]",
            "competition_budget": 50,
            "competition_runs": 2,
        },
        True,
    ),
    (
        "04_transfer",
        "cached-subset",
        {
            "repeats": 2,
            "static_targets": '["zh-en"]',
            "dynamic_order": '["zh-en", "ru-en"]',
            "nmtlc_targets": '["lc-finetune-zh-en"]',
            "step": 10,
        },
        False,
    ),
    (
        "04_transfer",
        "new-runs",
        {
            "repeats": 1,
            "static_targets": "ja-en,en-ja",
            "dynamic_order": '["ru-en", "zh-en"]',
            "nmtlc_targets": '["lc-finetune-fr-en"]',
            "step": 20,
        },
        True,
    ),
    (
        "05_genetic_algorithm",
        "small-study",
        {
            "init_pops": "[5, 10]",
            "iterations": 40,
            "trials": 1,
            "fair_pops": "[5]",
            "fair_trials": 2,
            "protocol_tasks": '["ja-en"]',
            "protocol_methods": '["rs", "ga"]',
            "protocol_trials": 5,
        },
        True,
    ),
    (
        "05_genetic_algorithm",
        "other-task",
        {
            "task": "zh-en",
            "target": 14.0,
            "init_pops": "5,10",
            "iterations": 30,
            "trials": 2,
            "seed": 1,
            "fair_pops": "[5, 10]",
            "fair_trials": 1,
            "protocol_tasks": "zh-en",
            "protocol_methods": '["ga", "gb-ei-m"]',
            "protocol_trials": 3,
        },
        True,
    ),
    (
        "06_search_space_scoring",
        "tiny",
        {
            "functions": '["branin"]',
            "fractions": "[0.5, 1.0]",
            "boxes_per_fraction": 2,
            "synthetic_seed_sizes": "[5]",
            "synthetic_repeats": 1,
            "max_budget": 10,
            "synthetic_batches": 4,
            "synthetic_samples": 8,
            "tasks": '["ru-en"]',
            "table_seed_sizes": "[5]",
            "table_repeats": 1,
            "table_budgets": "[1, 5, 10]",
            "table_batches": 4,
            "table_samples": 8,
            "prune_budget": 5,
            "select_task": "ru-en",
            "select_budgets": "[5]",
            "select_trials": 2,
            "select_seed_size": 5,
            "compare_task": "ru-en",
            "compare_budgets": "[1, 5]",
            "compare_seed_size": 5,
            "compare_repeats": 2,
            "scatter_budgets": "[1, 5]",
        },
        True,
    ),
    (
        "07_multifidelity",
        "cached-subset",
        {
            "finetune_tasks": '["lc-finetune-zh-en"]',
            "scratch_tasks": "lc-scratch-ru-en",
            "methods": '["rs", "sh"]',
            "scratch_methods": "rs,hb",
            "correlation_checkpoints": "[1, 4]",
        },
        False,
    ),
    (
        "07_multifidelity",
        "new-runs",
        {
            "finetune_tasks": "lc-finetune-fr-en",
            "scratch_tasks": '["lc-scratch-so-en"]',
            "methods": '["rs", "asha", "optuna-pruner:MedianPruner"]',
            "scratch_methods": '["sh"]',
            "trials": 5,
            "seed": 1,
            "budget_curves": 10,
        },
        True,
    ),
    (
        "06_search_space_scoring",
        "tiny-uncached",
        {
            "functions": "hartmann6",
            "fractions": "[0.4, 1.0]",
            "boxes_per_fraction": 3,
            "synthetic_seed_sizes": "[5, 10]",
            "synthetic_repeats": 1,
            "max_budget": 5,
            "synthetic_batches": 4,
            "synthetic_samples": 8,
            "tasks": "zh-en",
            "table_seed_sizes": "[5]",
            "table_repeats": 2,
            "table_budgets": "[1, 2, 5]",
            "table_batches": 4,
            "table_samples": 8,
            "prune_budget": 2,
            "select_task": "zh-en",
            "select_budgets": "[2]",
            "select_trials": 1,
            "select_seed_size": 5,
            "compare_task": "zh-en",
            "compare_budgets": "[1, 2]",
            "compare_seed_size": 5,
            "compare_repeats": 1,
            "score": "mean-b-ei",
            "seed": 1,
            "scatter_budgets": "[1]",
            "cache": False,
        },
        False,
    ),
]


def _status() -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def _papermill(chapter: str, params: dict[str, object], work: Path) -> subprocess.Popen[str]:
    """Start ``papermill notebooks/<chapter>.ipynb`` as a user would (``-p NAME VALUE``)."""
    cmd = [
        sys.executable,
        "-m",
        "papermill",
        str(ROOT / "notebooks" / f"{chapter}.ipynb"),
        str(work / "out.ipynb"),
        "--cwd",
        str(work),
        "-k",
        "python3",
        "--no-progress-bar",
    ]
    for name, value in params.items():
        cmd += ["-p", name, str(value)]
    env = {**os.environ, "NMTHPO_RESULTS": str(work / "user-cache"), "MPLBACKEND": "Agg"}
    env.pop("NMTHPO_WRITE_RESULTS", None)
    return subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


CHAPTERS = list(dict.fromkeys(c for c, _, _, _ in CASES))


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_runs_with_other_parameters(chapter: str, tmp_path: Path) -> None:
    """Both parameter sets of ``chapter`` run (concurrently, one kernel each), open with the
    banner naming the parameters that differ from the published ones, and leave ``git status``
    unchanged; new runs land in the user cache, cached ones are only read."""
    if not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout")
    before = _status()
    cases = [(label, params, computes) for c, label, params, computes in CASES if c == chapter]
    jobs = []
    for label, params, computes in cases:
        work = tmp_path / label
        work.mkdir()
        jobs.append((label, computes, work, _papermill(chapter, params, work)))
    failures = []
    for label, computes, work, proc in jobs:
        out, _ = proc.communicate(timeout=900)
        if proc.returncode != 0:
            failures.append(f"{label}: papermill failed\n{out[-3000:]}")
            continue
        if "Not the published parameters" not in (work / "out.ipynb").read_text(encoding="utf-8"):
            failures.append(f"{label}: no banner naming the parameters that differ")
        user = work / "user-cache"
        new = sorted(p.name for p in user.rglob("*") if p.is_file()) if user.exists() else []
        if computes and not new:
            failures.append(f"{label}: the new runs should be cached in the user cache")
        if not computes and new:
            failures.append(
                f"{label}: the book's cache should have answered, but {new[:3]} were computed"
            )
    assert not failures, "\n\n".join(failures)
    assert _status() == before, "executing a chapter changed the repository"
