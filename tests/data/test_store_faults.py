"""Tests for nmthpo.data.store under adverse conditions: the user's own files, directories and
symbolic links next to the data (``--force`` replaces only the dataset's files), and the faults
of the environment (full disk, read-only or vanished directory, an interrupted install), each
ending in one line of the right kind with nothing half-written or temporary left behind."""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nmthpo.data import DataError
from nmthpo.data import store as data
from nmthpo.errors import FaultError, InputError, InputValueError
from tests.paths import MIRROR

pytestmark = pytest.mark.skipif(
    not (MIRROR / "datasets").is_dir(),
    reason=f"data mirror {MIRROR} not found (set NMTHPO_MIRROR to a copy of Este1le/hpo_nmt)",
)

ROOT = os.geteuid() == 0


@pytest.fixture(autouse=True)
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NMTHPO_MIRROR", raising=False)
    monkeypatch.delenv("NMTHPO_DATA", raising=False)


@pytest.fixture
def installed(tmp_path: Path) -> Path:
    """A verified copy of the data in ``tmp_path/d``."""
    return data.fetch(mirror=MIRROR, dest=tmp_path / "d")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _temps(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.name.endswith(".nmthpo-part"))


def _snapshot(root: Path) -> dict[str, tuple[Any, ...]]:
    """Every entry under ``root`` (links not followed): kind, inode, mtime, content or target."""
    out: dict[str, tuple[Any, ...]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            if p.is_symlink():
                what: Any = ("link", os.readlink(p))
            elif p.is_dir():
                what = ("dir",)
            else:
                what = ("file", _sha(p))
            out[p.relative_to(root).as_posix()] = (*what, st.st_ino, st.st_mtime_ns, st.st_mode)
    return out


def _inodes(dest: Path) -> dict[str, int]:
    return {rel: (dest / rel).stat().st_ino for rel in data.manifest()}


def _one_line(exc: BaseException) -> str:
    msg = str(exc)
    assert msg and "\n" not in msg, msg
    return msg


def _failing_write(
    monkeypatch: pytest.MonkeyPatch, at: int | Callable[[bytes], bool], exc: BaseException
) -> list[int]:
    """Make store's writing function raise ``exc`` on its ``at``-th call (or on the first chunk
    for which ``at(chunk)`` is true); returns the call counter."""
    real: Callable[[int, bytes], None] = data._write_chunk
    calls = [0]

    def write(fd: int, chunk: bytes) -> None:
        calls[0] += 1
        if (calls[0] == at) if isinstance(at, int) else at(chunk):
            raise exc
        real(fd, chunk)

    monkeypatch.setattr(data, "_write_chunk", write)
    return calls


# ----------------------------------------------------------------------- the user's files


def test_force_replaces_only_the_datasets_files(tmp_path: Path, installed: Path) -> None:
    dest = installed
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "kept.txt").write_text("outside file\n")
    (outside / "sub" / "deep.txt").write_text("deep\n")
    # the user's things inside the data directory, at the top and inside a dataset directory
    (dest / "mine").mkdir()
    (dest / "mine" / "notes.txt").write_text("my notes\n")
    (dest / "empty-dir").mkdir()
    (dest / "thesis.tex").write_text("years of work\n")
    (dest / "datasets" / "my-extra.evals").write_text("1 2 3\n")
    (dest / "link-to-dir").symlink_to(outside, target_is_directory=True)
    (dest / "link-to-file").symlink_to(outside / "kept.txt")
    (dest / "datasets" / "link-in-datasets").symlink_to(outside / "sub")
    (dest / "broken-link").symlink_to(tmp_path / "nowhere")
    dataset = set(data.manifest()) | {"SHA256SUMS"}
    dataset |= {
        str(Path(rel).parents[i]) for rel in dataset for i in range(len(Path(rel).parts) - 1)
    }
    before = {k: v for k, v in _snapshot(dest).items() if k not in dataset}
    outside_before = _snapshot(outside)
    old = _inodes(dest)

    assert data.fetch(mirror=MIRROR, dest=dest, force=True) == dest

    after = {k: v for k, v in _snapshot(dest).items() if k not in dataset}
    assert after == before  # kind, content or link target, inode, mtime and mode all unchanged
    assert _snapshot(outside) == outside_before
    new = _inodes(dest)
    assert all(new[rel] != old[rel] for rel in old)  # every dataset file was replaced ...
    data.verify(dest)  # ... by a verified copy
    assert _temps(tmp_path) == []


def test_first_fetch_into_a_dataset_copy_without_marker_and_umask(tmp_path: Path) -> None:
    """A directory holding only verified dataset files (no SHA256SUMS) is a copy of it."""
    dest = tmp_path / "d"
    for rel in data.manifest():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(MIRROR / rel, dest / rel)
    (dest / "empty").mkdir()
    old = os.umask(0o027)
    try:
        data.fetch(mirror=MIRROR, dest=dest, force=True)
    finally:
        os.umask(old)
    assert (dest / "SHA256SUMS").is_file() and (dest / "empty").is_dir()
    assert ((dest / "datasets" / "zh-en.evals").stat().st_mode & 0o777) == 0o640
    data.verify(dest)


def test_a_users_readme_is_not_the_datasets(tmp_path: Path) -> None:
    """Without SHA256SUMS, a file at a dataset path counts only if its SHA-256 matches."""
    own = tmp_path / "project"
    own.mkdir()
    (own / "README.md").write_text("# my project\n")
    with pytest.raises(InputValueError, match=r"holds files that are not.*\(README\.md\)") as err:
        data.fetch(mirror=MIRROR, dest=own)
    assert "dest=" in _one_line(err.value)
    assert sorted(p.name for p in own.iterdir()) == ["README.md"]
    # a SHA256SUMS that is not this dataset's does not make it a copy either
    (own / "SHA256SUMS").write_text("0" * 64 + "  other.bin\n")
    with pytest.raises(InputValueError, match="README.md, SHA256SUMS"):
        data.fetch(mirror=MIRROR, dest=own, force=True)
    assert (own / "README.md").read_text() == "# my project\n"


@pytest.mark.parametrize(
    "where",
    ["datasets/zh-en.evals", "datasets", "scripts/examples", "SHA256SUMS"],
)
def test_links_where_dataset_files_go_are_refused_not_followed(
    tmp_path: Path, installed: Path, where: str
) -> None:
    dest = installed
    outside = tmp_path / "outside"
    shutil.copytree(dest / where, outside) if (dest / where).is_dir() else None
    if not outside.exists():
        outside.write_bytes((dest / where).read_bytes())
    victim = dest / where
    if victim.is_dir():
        shutil.rmtree(victim)
    else:
        victim.unlink()
    victim.symlink_to(outside)
    outside_before = _snapshot(outside) if outside.is_dir() else _sha(outside)
    link_before = victim.lstat()
    # (a linked SHA256SUMS does not mark the directory as a copy: refused as foreign)
    match = "holds files that are not" if where == "SHA256SUMS" else "symbolic link stands where"
    with pytest.raises(InputValueError, match=match) as err:
        data.fetch(mirror=MIRROR, dest=dest, force=True)
    assert where in _one_line(err.value) and "move " in str(err.value)
    assert victim.is_symlink() and victim.lstat().st_ino == link_before.st_ino
    assert (_snapshot(outside) if outside.is_dir() else _sha(outside)) == outside_before
    assert _temps(tmp_path) == []


def test_directory_where_a_dataset_file_goes_is_refused(installed: Path) -> None:
    victim = installed / "datasets" / "ru-en.hyps"
    victim.unlink()
    victim.mkdir()
    (victim / "mine.txt").write_text("x")
    with pytest.raises(InputValueError, match=r"ru-en\.hyps: not a regular file"):
        data.fetch(mirror=MIRROR, dest=installed)
    assert (victim / "mine.txt").read_text() == "x"


# ----------------------------------------------------------------------- bad arguments


def test_data_directory_that_is_a_file_names_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "plain"
    plain.write_text("a file\n")
    monkeypatch.setenv("NMTHPO_DATA", str(plain))
    with pytest.raises(InputError, match=r"exists and is not a directory") as err:
        data.fetch(mirror=MIRROR)
    msg = _one_line(err.value)
    assert str(plain) in msg and "$NMTHPO_DATA" in msg and "set NMTHPO_DATA to" in msg
    assert err.value.exit_status == 2
    # a data directory under a file
    monkeypatch.setenv("NMTHPO_DATA", str(plain / "sub"))
    with pytest.raises(InputError, match=r"plain is a file, not a directory.*NMTHPO_DATA"):
        data.fetch(mirror=MIRROR)
    # a broken link as the data directory
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "gone")
    monkeypatch.setenv("NMTHPO_DATA", str(link))
    with pytest.raises(InputError, match="broken symbolic link"):
        data.fetch(mirror=MIRROR)
    assert plain.read_text() == "a file\n" and not (tmp_path / "gone").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "plain"]


def test_mirror_that_is_a_file_or_lacks_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "plain"
    plain.write_text("x")
    with pytest.raises(InputValueError, match=r"--mirror .*plain: is a file, not a directory"):
        data.fetch(mirror=plain, dest=tmp_path / "d")
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("NMTHPO_MIRROR", str(empty))
    with pytest.raises(InputValueError) as err:
        data.fetch(dest=tmp_path / "d")
    msg = _one_line(err.value)
    assert msg.startswith(f"$NMTHPO_MIRROR={empty}: the mirror lacks 30 of the 30 dataset files")
    assert "and 25 more" in msg and "point --mirror / $NMTHPO_MIRROR at a complete" in msg
    assert not (tmp_path / "d").exists()


# ----------------------------------------------------------------------- faults


def test_full_disk_keeps_the_verified_copy_and_a_rerun_succeeds(
    tmp_path: Path, installed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dest = installed
    old = _inodes(dest)
    _failing_write(monkeypatch, 12, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
    with pytest.raises(FaultError) as err:
        data.fetch(mirror=MIRROR, dest=dest, force=True)
    msg = _one_line(err.value)
    assert err.value.errno == errno.ENOSPC and err.value.exit_status == 1
    assert "No space left on device" in msg and str(dest) in msg and "free some space" in msg
    assert _temps(tmp_path) == []
    assert _inodes(dest) == old  # not one file replaced
    data.verify(dest)
    monkeypatch.undo()
    data.fetch(mirror=MIRROR, dest=dest, force=True)
    data.verify(dest)
    assert _temps(tmp_path) == []


def test_full_disk_on_a_first_install_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _failing_write(monkeypatch, 3, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
    with pytest.raises(FaultError, match=r"No space left on device \(.*\.evals\)"):
        data.fetch(mirror=MIRROR, dest=tmp_path / "new" / "d")
    assert list(tmp_path.iterdir()) == []  # the directories it created are gone as well
    monkeypatch.undo()
    data.verify(data.fetch(mirror=MIRROR, dest=tmp_path / "new" / "d"))


def test_full_disk_while_writing_the_marker(
    tmp_path: Path, installed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = (installed / "SHA256SUMS").read_bytes()
    _failing_write(monkeypatch, lambda chunk: chunk == marker, OSError(errno.ENOSPC, "full"))
    with pytest.raises(FaultError, match=r"SHA256SUMS"):
        data.fetch(mirror=MIRROR, dest=installed, force=True)
    assert (installed / "SHA256SUMS").read_bytes() == marker
    assert _temps(tmp_path) == []
    data.verify(installed)


def test_full_disk_over_http(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write error under a download is a fault of the destination, not a download failure."""
    src = tmp_path / "src"
    for rel in data.manifest():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(MIRROR / rel, src / rel)
    _failing_write(monkeypatch, 2, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
    with pytest.raises(FaultError, match="No space left") as err:
        data.fetch(base_url=src.as_uri(), dest=tmp_path / "d")
    assert "download failed" not in str(err.value)
    assert not (tmp_path / "d").exists() and _temps(tmp_path) == []


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES])
def test_read_only_place_simulated(
    tmp_path: Path, installed: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    """The path every user meets, as root too: creating a file in the directory fails."""
    old = _inodes(installed)

    def refuse(final: Path) -> tuple[int, Path]:
        raise OSError(code, os.strerror(code), str(final.parent))

    monkeypatch.setattr(data, "_open_temp", refuse)
    with pytest.raises(FaultError) as err:
        data.fetch(mirror=MIRROR, dest=installed, force=True)
    msg = _one_line(err.value)
    assert err.value.errno == code and str(installed) in msg
    assert ("read-only" if code == errno.EROFS else "permission denied") in msg
    assert _inodes(installed) == old and _temps(tmp_path) == []
    with pytest.raises(FaultError, match=r"choose a"):
        data.fetch(mirror=MIRROR, dest=tmp_path / "fresh" / "d")
    assert not (tmp_path / "fresh").exists()


@pytest.mark.skipif(
    ROOT,
    reason="running as root: chmod 0o555 does not stop root's writes "
    "(test_read_only_place_simulated covers the same path by monkeypatching)",
)
def test_read_only_directory_chmod(tmp_path: Path, installed: Path) -> None:  # pragma: no cover
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(0o555)
    installed.chmod(0o555)
    (installed / "datasets").chmod(0o555)
    try:
        with pytest.raises(FaultError, match="ermission denied"):
            data.fetch(mirror=MIRROR, dest=parent / "d")
        with pytest.raises(FaultError, match="ermission denied"):
            data.fetch(mirror=MIRROR, dest=installed, force=True)
    finally:
        parent.chmod(0o755)
        installed.chmod(0o755)
        (installed / "datasets").chmod(0o755)
    assert list(parent.iterdir()) == [] and _temps(tmp_path) == []
    data.verify(installed)


def test_vanished_directory(
    tmp_path: Path, installed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = data._write_chunk
    calls = [0]

    def write(fd: int, chunk: bytes) -> None:
        calls[0] += 1
        if calls[0] == 5:
            shutil.rmtree(installed)  # someone removes the data directory under the copy
        real(fd, chunk)

    monkeypatch.setattr(data, "_write_chunk", write)
    with pytest.raises(FaultError) as err:
        data.fetch(mirror=MIRROR, dest=installed, force=True)
    msg = _one_line(err.value)
    assert err.value.errno == errno.ENOENT and "vanished" in msg and str(installed) in msg
    assert _temps(tmp_path) == []
    monkeypatch.undo()
    data.verify(data.fetch(mirror=MIRROR, dest=installed))


def test_interrupted_renames_leave_whole_files(
    tmp_path: Path, installed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure among the renames: every file is the old verified copy or the new one."""
    real = os.replace
    calls = [0]

    def replace(src: Any, dst: Any) -> None:
        calls[0] += 1
        if calls[0] == 6:
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(dst))
        real(src, dst)

    old = _inodes(installed)
    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(FaultError, match="Input/output error"):
        data.fetch(mirror=MIRROR, dest=installed, force=True)
    monkeypatch.undo()
    new = _inodes(installed)
    assert 0 < sum(new[rel] != old[rel] for rel in old) < len(old)  # some replaced, some not
    data.verify(installed)
    assert _temps(tmp_path) == []
    data.fetch(mirror=MIRROR, dest=installed, force=True)
    data.verify(installed)


def test_interrupt_leaves_no_temporary_file(
    tmp_path: Path, installed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = _inodes(installed)
    _failing_write(monkeypatch, 7, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        data.fetch(mirror=MIRROR, dest=installed, force=True)
    assert _temps(tmp_path) == [] and _inodes(installed) == old
    data.verify(installed)


def test_unreadable_installed_file_is_a_fault_and_fetch_repairs_it(
    installed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = installed / "datasets" / "so-en.evals"
    real = data._sha256_file

    def sha(path: Path) -> str:
        if path == victim:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real(path)

    monkeypatch.setattr(data, "_sha256_file", sha)
    with pytest.raises(FaultError, match=r"so-en\.evals.*Permission denied"):
        data.verify(installed)
    inode = victim.stat().st_ino
    data.fetch(mirror=MIRROR, dest=installed)  # not installed as far as it can tell: replaced
    assert victim.stat().st_ino != inode
    monkeypatch.undo()
    data.verify(installed)


def test_source_problems_are_data_errors_and_change_nothing(
    tmp_path: Path, installed: Path
) -> None:
    src = tmp_path / "src"
    shutil.copytree(MIRROR, src, ignore=shutil.ignore_patterns(".git"))
    (src / "README.md").write_text("altered\n")
    old = _inodes(installed)
    with pytest.raises(DataError) as err:
        data.fetch(mirror=src, dest=installed, force=True)
    assert isinstance(err.value, RuntimeError) and not isinstance(err.value, FaultError)
    assert _one_line(err.value).startswith(
        f"1 of 30 files failed, nothing was changed in {installed}"
    )
    assert _inodes(installed) == old and _temps(tmp_path) == []
