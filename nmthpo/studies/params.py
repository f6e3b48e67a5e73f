"""Papermill parameters: the chapters' list-valued parameters, however papermill passes them.

``papermill ... -p tasks '["zh-en"]'`` hands the notebook a *string*; :func:`as_task_list`
turns a JSON list, a comma-separated string, one name or a sequence into a list of names, and
:func:`check_tasks` also checks them against the NMTHPO tasks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from nmthpo.benchmark.tables import NMTHPO_TASKS
from nmthpo.errors import InputKeyError

__all__ = ["as_list", "as_task_list", "check_tasks"]


def as_list(value: Any, kind: type, name: str) -> list[Any]:
    """A list parameter from a list, one value, ``"a,b"`` or a JSON list (papermill ``-p``)."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                items = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{name}={value!r} is not a JSON list ({exc})") from None
        else:
            items = [t for t in text.split(",") if t.strip()]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        items = [value]
    try:
        return [kind(v.strip()) if isinstance(v, str) else kind(v) for v in items]
    except (TypeError, ValueError):
        raise ValueError(
            f"{name}={value!r}: expected a list of {kind.__name__} such as [5, 10]"
        ) from None


def as_task_list(tasks: str | Sequence[str]) -> list[str]:
    """Normalise a task parameter to a list of task names (:func:`as_list` of ``str``).

    Accepts a sequence of names, one name (``"zh-en"``), a comma-separated string
    (``"zh-en,sw-en"``) or a JSON list (``'["zh-en", "sw-en"]'``) -- papermill's ``-p`` passes
    list values as strings, so ``papermill ... -p tasks '["zh-en"]'`` works as expected.
    """
    return as_list(tasks, str, "tasks")


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
        raise InputKeyError(f"unknown task(s) {unknown}; valid: {', '.join(NMTHPO_TASKS)}")
    return tasks
