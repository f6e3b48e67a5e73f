"""Moved numbers: the old runs extracted from the history are intact and pair with the new."""

from __future__ import annotations

import pytest

from nmthpo.studies.changes import CHANGES, changes_table, old_run


def test_every_change_has_its_old_run_and_a_paired_interval() -> None:
    table = changes_table()
    assert len(table) == len(CHANGES)
    assert set(table["trials"]) == {30, 100}
    assert table["new - old [95% CI]"].str.contains(r"\[").all()
    assert table["cause"].str.contains("commit").all()


def test_a_damaged_old_run_is_refused(tmp_path) -> None:
    import shutil

    from nmthpo.engine.cache import results_dir

    ch = CHANGES[0]
    (tmp_path / "changes").mkdir()
    for ext in (".parquet", ".json"):
        shutil.copy(results_dir() / "changes" / f"{ch.id}{ext}", tmp_path / "changes")
    (tmp_path / "changes" / f"{ch.id}.parquet").write_bytes(b"garbage")
    with pytest.raises(ValueError, match="checksum"):
        old_run(ch, root=tmp_path)
    (tmp_path / "changes" / f"{ch.id}.json").unlink()
    with pytest.raises(FileNotFoundError, match="extract_changes"):
        old_run(ch, root=tmp_path)
