"""The chapters' published parameters: what the book's narrative describes.

Each chapter's ``parameters`` cell (papermill) holds these values;
``tests/studies/test_published.py`` checks that the two agree. A chapter re-executed with other
parameters opens with a banner (:func:`nmthpo.plots.banner.published_banner`) naming the
parameters that differ, and its claims tables are judged for the given parameters
(:class:`nmthpo.engine.claims.Needs`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nmthpo.errors import InputKeyError

__all__ = ["PUBLISHED", "differences"]

#: chapter (notebook stem) -> parameter -> published value
PUBLISHED: dict[str, dict[str, Any]] = {
    "01_benchmark": {
        "tasks": ["zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en"],
        "fanova_tasks": ["en-ja", "sw-en"],
        "top_fraction": 0.01,
        "n_trees": 64,
        "max_depth": 64,
        "seed": 0,
        "n_boot": 200,
    },
    "02_single_objective": {
        "tasks": ["zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en"],
        "methods": ["rs", "bo-ei-m", "bo-ei-r", "gb-ei-m", "gb-ei-r", "gb-eif-m", "gb-eif-r"],
        "trials": 100,
        "seed": 0,
        "budget": 20,
        "ties": "value",
        "figure6_task": "ja-en",
        "figure6_steps": 100,
        "discrepancy_trials": 20,
    },
    "03_multiobjective": {
        "tasks": ["zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en"],
        "methods": ["rs", "bo-m", "bo-r", "gb-m", "gb-r"],
        "trials": 100,
        "seed": 0,
        "figure7_task": "ru-en",
        "figure7_trial": 0,
        "figure7_steps": [5, 10, 20, 40],
        "competition_budget": 200,
        "competition_runs": 10,
    },
    "04_transfer": {
        "repeats": 30,
        "static_targets": ["zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en"],
        "dynamic_order": ["zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en"],
        "nmtlc_targets": ["lc-finetune-zh-en", "lc-finetune-fr-en"],
        "step": 20,
        "use_cache": True,
        "jobs": 1,
    },
    "05_genetic_algorithm": {
        "task": "ja-en",
        "target": 16.0,
        "init_pops": [5, 10, 15, 20, 25],
        "iterations": 1000,
        "trials": 3,
        "seed": 0,
        "k_sigma": 2.0,
        "use_cache": True,
        "fair_pops": [2, 5, 10, 15, 20, 25, 30, 40],
        "fair_trials": 10,
        "protocol_tasks": ["zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en"],
        "protocol_methods": ["rs", "bo-ei-m", "gb-ei-m", "gb-eif-m", "ga"],
        "protocol_trials": 100,
    },
    "06_search_space_scoring": {
        "functions": ["branin", "hartmann6"],
        "fractions": [0.2, 0.4, 0.6, 0.8, 1.0],
        "boxes_per_fraction": 5,
        "synthetic_seed_sizes": [5, 10, 30],
        "synthetic_repeats": 3,
        "max_budget": 100,
        "synthetic_batches": 64,
        "synthetic_samples": 128,
        "tasks": ["sw-en", "ru-en"],
        "spaces": "default",
        "table_seed_sizes": [5, 10, 20, 50],
        "table_repeats": 5,
        "table_budgets": [1, 2, 5, 10, 20, 50, 100],
        "table_batches": 256,
        "table_samples": 256,
        "prune_budget": 10,
        "prune_fraction": 0.5,
        "select_task": "sw-en",
        "select_budgets": [10, 50],
        "select_trials": 10,
        "select_seed_size": 20,
        "compare_task": "sw-en",
        "space_a": "layers=4",
        "space_b": "layers=2",
        "compare_budgets": [1, 2, 5, 10, 20, 50],
        "compare_seed_size": 20,
        "compare_repeats": 10,
        "score": "mean-b-ei",
        "seed": 0,
        "scatter_budgets": [1, 10, 100],
        "cache": True,
    },
    "07_multifidelity": {
        "finetune_tasks": ["lc-finetune-fr-en", "lc-finetune-zh-en"],
        "scratch_tasks": [
            "lc-scratch-zh-en",
            "lc-scratch-ru-en",
            "lc-scratch-ja-en",
            "lc-scratch-en-ja",
            "lc-scratch-sw-en",
            "lc-scratch-so-en",
        ],
        "methods": [
            "rs",
            "sh",
            "hb",
            "asha",
            "bohb",
            "sh-upstream",
            "optuna-pruner:SuccessiveHalvingPruner",
            "optuna-pruner:HyperbandPruner",
            "optuna-pruner:MedianPruner",
        ],
        "scratch_methods": ["rs", "sh", "hb", "asha", "bohb", "sh-upstream"],
        "trials": 100,
        "seed": 0,
        "budget_curves": 30,
        "bleu_tolerance": 0.5,
        "ppl_tolerance": 0.02,
        "correlation_checkpoints": [1, 2, 3, 4, 6, 8, 12, 16, 24],
    },
    "08_own_optimizer": {
        "tasks": ["zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en"],
        "trials": 20,
        "seed": 0,
        "samplers": ["TPESampler", "GPSampler"],
        "sampler_settings": {
            "TPESampler": {"n_startup_trials": 3},
            "GPSampler": {"n_startup_trials": 3},
        },
        "baselines": ["rs", "bo-ei-m", "bo-ei-r", "gb-eif-m", "gb-eif-r"],
        "ecdf_task": "sw-en",
    },
    "09_peers": {
        "tasks": ["zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en"],
        "trials": 20,
        "costly_trials": 3,
        "ecdf_task": "sw-en",
        "lc_trials": 100,
    },
    "97_claims": {
        "recompute": False,
    },
    "98_speed": {
        "benchmark": "bench_speed",
    },
    "99_reproducibility": {
        "chapters_dir": ".",
    },
}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return float(a) == float(b)
    return bool(a == b)


def differences(chapter: str, given: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
    """``{name: (given, published)}`` for each published parameter whose value differs.

    List parameters are compared after papermill's string forms are parsed
    (:func:`nmthpo.studies.params.as_list`): ``'["ja-en"]'`` and ``"ja-en"`` equal ``["ja-en"]``.
    """
    import json

    from nmthpo.studies.params import as_list

    if chapter not in PUBLISHED:
        raise InputKeyError(f"unknown chapter {chapter!r}; known: {', '.join(PUBLISHED)}")
    out = {}
    for name, pub in PUBLISHED[chapter].items():
        if name not in given:
            continue
        val = given[name]
        if isinstance(pub, list) and not isinstance(val, (list, tuple)):
            kind = type(pub[0]) if pub else str
            val = as_list(val, kind, name)
        elif isinstance(pub, dict) and isinstance(val, str):
            val = json.loads(val)
        elif isinstance(pub, (int, float)) and isinstance(val, str) and not isinstance(pub, bool):
            val = type(pub)(val)
        if not _same(val, pub):
            out[name] = (given[name], pub)
    return out
