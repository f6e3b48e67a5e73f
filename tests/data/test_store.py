"""Tests for nmthpo.data.store: manifest, atomic verified fetch (mirror, http, file://), verify,
installed_path and the NMTHPO_DATA override (the NMTLC loader: test_nmtlc.py; the user's files
next to the data and the faults of the environment: test_store_faults.py)."""

from __future__ import annotations

import functools
import hashlib
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from nmthpo.data import DataError
from nmthpo.data import store as data
from nmthpo.errors import InputValueError, NmthpoError
from tests.paths import MIRROR

PAIRS = ("zh-en", "ru-en", "ja-en", "en-ja", "sw-en", "so-en")

pytestmark = pytest.mark.skipif(
    not (MIRROR / "datasets").is_dir(),
    reason=f"data mirror {MIRROR} not found (set NMTHPO_MIRROR to a copy of Este1le/hpo_nmt)",
)


def _leftovers(root: Path) -> list[Path]:
    """Temporary files of a fetch (or staging directories of older versions) under ``root``."""
    return sorted(
        p for p in root.rglob("*") if p.name.endswith(".nmthpo-part") or ".staging" in p.name
    )


@pytest.fixture
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NMTHPO_MIRROR", raising=False)
    monkeypatch.delenv("NMTHPO_DATA", raising=False)
    for var in ("no_proxy", "NO_PROXY"):  # never send loopback requests to a proxy
        monkeypatch.setenv(var, "127.0.0.1,localhost")


@pytest.fixture
def mirror_copy(tmp_path: Path) -> Path:
    """A writable copy of the mirror's manifest files (upstream layout)."""
    out = tmp_path / "mirror"
    for rel in data.manifest():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(MIRROR / rel, out / rel)
    return out


@pytest.fixture
def serve(mirror_copy: Path) -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 (ephemeral port) serving the mirror copy."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(mirror_copy))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# ----------------------------------------------------------------------------- manifest


def test_manifest_matches_mirror_checksums_exactly() -> None:
    m = data.manifest()
    expected = {
        *(
            f"datasets/{p}.{ext}"
            for p in PAIRS
            for ext in ("hyps", "hyps_scaled", "evals", "fronts")
        ),
        "lc_datasets/nmtlc.pkl",
        "scripts/examples/example.ss",
        "scripts/examples/example.bleu",
        "scripts/examples/example.fronts",
        "LICENSE.md",
        "README.md",
    }
    assert set(m) == expected and len(m) == 30
    upstream = {}
    for line in (MIRROR / "SHA256SUMS").read_text().splitlines():
        sha, rel = line.split("  ", 1)
        upstream[rel.removeprefix("./")] = sha
    assert all(upstream[rel] == sha for rel, sha in m.items())
    assert "PROVENANCE.md" not in m


@pytest.mark.parametrize(
    "text, match",
    [
        ("abc  x\n", "malformed"),
        ("0" * 64 + "  ./x\n", "unsafe"),
        ("0" * 64 + "  ../x\n", "unsafe"),
        ("0" * 64 + "  /etc/x\n", "unsafe"),
        ("0" * 64 + "  x\n" + "1" * 64 + "  x\n", "duplicate"),
        ("\n# only a comment\n", "no files"),
    ],
)
def test_manifest_parser_rejects_bad_lines(text: str, match: str) -> None:
    with pytest.raises(DataError, match=match):
        data._parse_manifest(text, "SHA256SUMS")


# ----------------------------------------------------------------------------- locations


def test_data_dir_default_and_env_override(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_env: None
) -> None:
    repo = Path(data.__file__).resolve().parents[2]
    assert data.data_dir() == repo / "data" / "hpo_nmt"
    monkeypatch.setenv("NMTHPO_DATA", str(tmp_path / "elsewhere"))
    assert data.data_dir() == tmp_path / "elsewhere"
    # fetch() with no dest installs at the override
    assert data.fetch(mirror=MIRROR) == (tmp_path / "elsewhere").resolve()
    data.verify()
    assert (
        data.installed_path("datasets/zh-en.evals") == tmp_path / "elsewhere/datasets/zh-en.evals"
    )


# ----------------------------------------------------------------------------- fetch


def test_fetch_from_mirror_installs_every_file(tmp_path: Path, no_env: None) -> None:
    dest = tmp_path / "hpo_nmt"
    assert data.fetch(mirror=MIRROR, dest=dest) == dest.resolve()
    for rel, sha in data.manifest().items():
        assert hashlib.sha256((dest / rel).read_bytes()).hexdigest() == sha
    data.verify(dest)
    assert _leftovers(tmp_path) == []


def test_fetch_mirror_from_env_wins_over_network(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("NMTHPO_MIRROR", str(MIRROR))
    dest = data.fetch(base_url="http://127.0.0.1:9/unreachable", dest=tmp_path / "d")
    data.verify(dest)


def test_fetch_over_http_loopback(serve: str, tmp_path: Path, no_env: None) -> None:
    dest = data.fetch(base_url=serve, dest=tmp_path / "d")
    data.verify(dest)
    assert _leftovers(tmp_path) == []


def test_fetch_over_file_url(mirror_copy: Path, tmp_path: Path, no_env: None) -> None:
    dest = data.fetch(base_url=mirror_copy.as_uri(), dest=tmp_path / "d")
    data.verify(dest)


def test_default_base_url_is_the_pinned_raw_commit() -> None:
    assert data.BASE_URL == (
        "https://raw.githubusercontent.com/Este1le/hpo_nmt/7bd0a402b332a6fdea8bdfeabb0271afa5c5be1f"
    )
    assert data._file_url(data.BASE_URL + "/", "datasets/zh-en.evals") == (
        data.BASE_URL + "/datasets/zh-en.evals"
    )


@pytest.mark.parametrize("via", ["mirror", "http", "file"])
def test_tampered_source_installs_nothing(
    via: str, mirror_copy: Path, request: pytest.FixtureRequest, tmp_path: Path, no_env: None
) -> None:
    victim = mirror_copy / "datasets" / "ja-en.evals"
    raw = bytearray(victim.read_bytes())
    raw[100] ^= 0x01  # alter one byte
    victim.write_bytes(bytes(raw))
    dest = tmp_path / "out" / "hpo_nmt"
    with pytest.raises(DataError, match=r"datasets/ja-en\.evals.*SHA-256 mismatch") as err:
        if via == "mirror":
            data.fetch(mirror=mirror_copy, dest=dest)
        elif via == "http":
            data.fetch(base_url=request.getfixturevalue("serve"), dest=dest)
        else:
            data.fetch(base_url=mirror_copy.as_uri(), dest=dest)
    assert hashlib.sha256(bytes(raw)).hexdigest() in str(err.value)
    assert "\n" not in str(err.value)
    # nothing is left: neither the directories the fetch created nor a temporary file
    assert not dest.parent.exists()
    assert _leftovers(tmp_path) == []


def test_failed_fetch_keeps_existing_install(
    mirror_copy: Path, tmp_path: Path, no_env: None
) -> None:
    dest = data.fetch(mirror=MIRROR, dest=tmp_path / "d")
    (mirror_copy / "README.md").write_text("altered")
    with pytest.raises(DataError, match="README.md"):
        data.fetch(mirror=mirror_copy, dest=dest, force=True)
    data.verify(dest)
    assert _leftovers(tmp_path) == []


def test_missing_source_file_and_unreachable_network(
    mirror_copy: Path, tmp_path: Path, no_env: None
) -> None:
    (mirror_copy / "lc_datasets" / "nmtlc.pkl").unlink()
    # a mirror lacking a file is the user's argument: refused before any work, file named
    with pytest.raises(
        InputValueError, match=r"--mirror .*lacks 1 of the 30 dataset files \(lc_datasets/nmtlc"
    ):
        data.fetch(mirror=mirror_copy, dest=tmp_path / "a")
    with pytest.raises(DataError, match=r"nmtlc\.pkl: download failed.*No such file"):
        data.fetch(base_url=mirror_copy.as_uri(), dest=tmp_path / "b")
    # a closed loopback port: connection refused, fast; the other 29 files are not tried
    with pytest.raises(DataError, match=r"download failed.*--mirror DIR.*29 more files not tried"):
        data.fetch(base_url="http://127.0.0.1:9", dest=tmp_path / "c")
    with pytest.raises(InputValueError, match="unsupported scheme"):
        data.fetch(base_url="ftp://example.org/x", dest=tmp_path / "e")
    with pytest.raises(InputValueError, match=r"--mirror .*nope: no such directory"):
        data.fetch(mirror=tmp_path / "nope", dest=tmp_path / "f")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mirror"]


def test_second_fetch_is_noop_and_force_replaces(tmp_path: Path, no_env: None) -> None:
    dest = data.fetch(mirror=MIRROR, dest=tmp_path / "d")
    inode = (dest / "datasets" / "zh-en.evals").stat().st_ino
    # No-op: even an unreachable source is not consulted when the install verifies.
    assert data.fetch(base_url="http://127.0.0.1:9", dest=dest) == dest
    assert (dest / "datasets" / "zh-en.evals").stat().st_ino == inode
    data.fetch(mirror=MIRROR, dest=dest, force=True)
    assert (dest / "datasets" / "zh-en.evals").stat().st_ino != inode
    data.verify(dest)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_fetch_never_deletes_what_it_did_not_create(
    tmp_path: Path, no_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The data-loss scenario: NMTHPO_DATA=DIR holding the user's own files."""
    own = tmp_path / "mine"
    own.mkdir()
    (own / "thesis.tex").write_text("years of work")
    monkeypatch.setenv("NMTHPO_DATA", str(own))
    with pytest.raises(InputValueError, match=r"thesis\.tex.*NMTHPO_DATA.*nothing was changed"):
        data.fetch(mirror=MIRROR)
    assert sorted(p.name for p in own.iterdir()) == ["thesis.tex"]
    assert (own / "thesis.tex").read_text() == "years of work"
    # a copy of the dataset with a file of the user's: --force replaces only the dataset's
    # files (test_store_faults.py checks sub-directories and symbolic links too)
    dest = data.fetch(mirror=MIRROR, dest=tmp_path / "d")
    (dest / "notes.txt").write_text("mine")
    data.fetch(mirror=MIRROR, dest=dest, force=True)
    assert (dest / "notes.txt").read_text() == "mine"
    data.verify(dest)
    # a regular file where the directory should be
    plain = tmp_path / "plain"
    plain.write_text("a file")
    with pytest.raises(InputValueError, match="exists and is not a directory.*dest="):
        data.fetch(mirror=MIRROR, dest=plain)
    assert plain.read_text() == "a file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d", "mine", "plain"]


def test_missing_mirror_is_an_error_even_when_installed(tmp_path: Path, no_env: None) -> None:
    dest = data.fetch(mirror=MIRROR, dest=tmp_path / "d")
    with pytest.raises(InputValueError, match="no such directory"):
        data.fetch(mirror=tmp_path / "nonexistent", dest=dest)


def test_tampered_mirror_reports_every_bad_file(
    tmp_path: Path, no_env: None, mirror_copy: Path
) -> None:
    for rel in ("datasets/zh-en.evals", "datasets/ja-en.hyps", "scripts/examples/example.ss"):
        (mirror_copy / rel).write_bytes(b"tampered\n")
    with pytest.raises(data.DataError) as info:
        data.fetch(mirror=mirror_copy, dest=tmp_path / "d")
    msg = str(info.value)
    assert msg.startswith("3 of 30 files failed, nothing was changed") and "\n" not in msg
    for rel in ("zh-en.evals", "ja-en.hyps", "example.ss"):
        assert rel in msg
    assert not (tmp_path / "d").exists()
    # missing files are named before anything is read (an InputError, not a DataError)
    for rel in ("datasets/so-en.fronts", "LICENSE.md"):
        (mirror_copy / rel).unlink()
    with pytest.raises(
        InputValueError, match=r"lacks 2 of .*\(LICENSE\.md, datasets/so-en\.fronts\)"
    ):
        data.fetch(mirror=mirror_copy, dest=tmp_path / "d")


def test_fetch_repairs_a_broken_install(tmp_path: Path, no_env: None) -> None:
    dest = data.fetch(mirror=MIRROR, dest=tmp_path / "d")
    (dest / "datasets" / "so-en.fronts").write_text("0\n")
    data.fetch(mirror=MIRROR, dest=dest)
    data.verify(dest)


# ----------------------------------------------------------------------------- verify


def test_verify_reports_truncated_file(tmp_path: Path, no_env: None) -> None:
    dest = data.fetch(mirror=MIRROR, dest=tmp_path / "d")
    victim = dest / "datasets" / "sw-en.hyps"
    victim.write_bytes(victim.read_bytes()[:-10])
    with pytest.raises(DataError) as err:
        data.verify(dest)
    msg = str(err.value)
    assert "sw-en.hyps" in msg and "SHA-256 mismatch: expected " in msg
    assert data.manifest()["datasets/sw-en.hyps"] in msg
    assert "nmthpo data fetch" in msg
    # several bad files: one line, every one named, the fix once
    (dest / "datasets" / "zh-en.evals").unlink()
    with pytest.raises(DataError) as err:
        data.verify(dest)
    msg = str(err.value)
    assert msg.startswith("2 of 30 data files failed the check: ") and "\n" not in msg
    assert "sw-en.hyps" in msg and "zh-en.evals: missing" in msg
    assert msg.count("nmthpo data fetch`") == 1


def test_verify_reports_missing_file_and_missing_install(tmp_path: Path, no_env: None) -> None:
    dest = data.fetch(mirror=MIRROR, dest=tmp_path / "d")
    (dest / "scripts" / "examples" / "example.ss").unlink()
    with pytest.raises(DataError, match=r"example\.ss: missing.*nmthpo data fetch"):
        data.verify(dest)
    with pytest.raises(DataError, match=r"not installed.*nmthpo data fetch"):
        data.verify(tmp_path / "absent")


# ----------------------------------------------------------------------------- installed_path


def test_installed_path_checks_and_caches(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, no_env: None
) -> None:
    dest = data.fetch(mirror=MIRROR, dest=tmp_path / "d")
    monkeypatch.setenv("NMTHPO_DATA", str(dest))
    p = data.installed_path("datasets/zh-en.hyps")
    assert p == dest / "datasets" / "zh-en.hyps"
    assert str(p) in data._VERIFIED
    assert data.installed_path("datasets/zh-en.hyps") == p  # cached path: no re-hash needed
    # altering the file after first use changes its stat, so it is hashed again
    p.write_bytes(p.read_bytes() + b"\n")
    with pytest.raises(DataError, match=r"zh-en\.hyps: SHA-256 mismatch"):
        data.installed_path("datasets/zh-en.hyps")
    (dest / "datasets" / "ru-en.evals").unlink()
    with pytest.raises(DataError, match=r"ru-en\.evals: missing.*nmthpo data fetch"):
        data.installed_path("datasets/ru-en.evals")
    with pytest.raises(DataError, match="unknown data file"):
        data.installed_path("datasets/xx-en.evals")
    monkeypatch.setenv("NMTHPO_DATA", str(tmp_path / "absent"))
    with pytest.raises(DataError, match=r"not installed.*nmthpo data fetch"):
        data.installed_path("datasets/zh-en.hyps")


def test_data_error_is_one_of_the_family() -> None:
    assert issubclass(DataError, NmthpoError) and issubclass(DataError, RuntimeError)
    assert DataError("x").exit_status == 2
