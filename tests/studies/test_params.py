"""Tests for nmthpo.studies.params: papermill's list parameters."""

from __future__ import annotations

import pytest

from nmthpo.studies.params import as_task_list, check_tasks


def test_as_task_list_accepts_papermill_strings() -> None:
    assert as_task_list('["zh-en", "sw-en"]') == ["zh-en", "sw-en"]
    assert as_task_list("zh-en, sw-en") == ["zh-en", "sw-en"]
    assert as_task_list(("en-ja",)) == ["en-ja"]
    with pytest.raises(ValueError, match="JSON list"):
        as_task_list("[zh-en")
    with pytest.raises(KeyError, match="valid"):
        check_tasks(["xx-yy"])


def test_check_tasks_refuses_an_empty_list() -> None:
    with pytest.raises(ValueError, match="no tasks"):
        check_tasks("")
    assert check_tasks("zh-en,sw-en") == ["zh-en", "sw-en"]
