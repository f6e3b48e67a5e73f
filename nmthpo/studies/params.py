"""Papermill parameters: the chapters' list-valued parameters, however papermill passes them.

``papermill ... -p tasks '["zh-en"]'`` hands the notebook a *string*; :func:`as_task_list`
turns a JSON list, a comma-separated string, one name or a sequence into a list of names, and
:func:`check_tasks` also checks them against the NMTHPO tasks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from nmthpo.benchmark.tables import NMTHPO_TASKS

__all__ = ["as_task_list", "check_tasks"]


def as_task_list(tasks: str | Sequence[str]) -> list[str]:
    """Normalise a task parameter to a list of task names.

    Accepts a sequence of names, one name (``"zh-en"``), a comma-separated string
    (``"zh-en,sw-en"``) or a JSON list (``'["zh-en", "sw-en"]'``) -- papermill's ``-p`` passes
    list values as strings, so ``papermill ... -p tasks '["zh-en"]'`` works as expected.
    """
    if isinstance(tasks, str):
        text = tasks.strip()
        if text.startswith("["):
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(
                    f"tasks {tasks!r} is not a JSON list ({exc}); write e.g. '[\"zh-en\"]'"
                ) from None
            if not isinstance(parsed, list) or not all(isinstance(t, str) for t in parsed):
                raise ValueError(f"tasks {tasks!r} must be a JSON list of task names")
            return [t.strip() for t in parsed]
        return [t.strip() for t in text.split(",") if t.strip()]
    return [str(t) for t in tasks]


def check_tasks(tasks: str | Sequence[str]) -> list[str]:
    """:func:`as_task_list`, then refuse an empty list or a name that is not an NMTHPO task.

    Raises
    ------
    ValueError
        For no task at all.
    KeyError
        For an unknown task (the message lists the valid ones).
    """
    tasks = as_task_list(tasks)
    if not tasks:
        raise ValueError("no tasks given; pass e.g. ['zh-en', 'en-ja']")
    unknown = [t for t in tasks if t not in NMTHPO_TASKS]
    if unknown:
        raise KeyError(f"unknown task(s) {unknown}; valid: {', '.join(NMTHPO_TASKS)}")
    return tasks
