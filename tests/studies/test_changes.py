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


def test_chapter4_changes_pair_every_moved_run_with_its_snapshot() -> None:
    from nmthpo.studies.changes import transfer_changes_table
    from nmthpo.studies.grids import CHAPTER_GRID

    table = transfer_changes_table()
    assert set(table["setting"]) == set(CHAPTER_GRID)
    assert (table["repetitions"] == 30).all()
    assert "rs" not in set(table["method"])  # random search did not move
    want = {(n, m) for n, s in CHAPTER_GRID.items() for m in s.methods if m != "rs"}
    assert set(zip(table["setting"], table["method"], strict=True)) == want
    assert set(table["verdict"]) <= {"no difference", "lower (better)", "higher (worse)"}


def test_a_damaged_transfer_snapshot_is_refused(tmp_path) -> None:
    import shutil

    from nmthpo.engine.cache import results_dir
    from nmthpo.studies.changes import TRANSFER_PREFIX, transfer_snapshots

    src = sorted((results_dir() / "changes").glob(f"{TRANSFER_PREFIX}*.parquet"))[0]
    (tmp_path / "changes").mkdir()
    for p in (src, src.with_suffix(".json")):
        shutil.copy(p, tmp_path / "changes")
    assert len(transfer_snapshots(tmp_path)) == 1
    (tmp_path / "changes" / src.name).write_bytes(b"garbage")
    with pytest.raises(ValueError, match="SHA-256"):
        transfer_snapshots(tmp_path)


def test_ledger_changes_name_the_verdicts_that_moved() -> None:
    from nmthpo.engine.verdicts import VERDICTS
    from nmthpo.studies.changes import ledger_changes

    moved = ledger_changes()
    assert moved.attrs["claims"] > 0
    assert (moved["verdict before"] != moved["verdict now"]).all()
    assert set(moved["verdict before"]) | set(moved["verdict now"]) <= set(VERDICTS)
