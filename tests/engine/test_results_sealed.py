"""Every data file of the book's ``results/`` has a sidecar whose seal matches ("Reliability,
second round", item 3): the book's cache gets no lenient path, so an unsealed file there would
not be used by any chapter. ``tools/seal_results.py`` seals files after verifying them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nmthpo.engine.cache import CHECKSUM_FIELD, artefact_problem, results_dir, sidecar_path

#: Data files (caches read back); their sidecar is ``.json`` except in ``results/scoring``.
DATA_SUFFIXES = (".parquet", ".npz", ".csv")


def _sidecar_suffix(path: Path) -> str:
    return ".params.txt" if path.parent.name == "scoring" else ".json"


def _data_files() -> list[Path]:
    return sorted(
        p
        for p in results_dir().rglob("*")
        if p.is_file()
        and p.suffix in DATA_SUFFIXES
        and ".bad-" not in p.name
        and not p.name.startswith(".")
    )


def test_results_hold_data_files() -> None:
    files = _data_files()
    assert len(files) > 400  # runs, tables, transfer runs, snapshots, the ledger
    assert {p.suffix for p in files} == set(DATA_SUFFIXES)


@pytest.mark.parametrize("path", _data_files(), ids=lambda p: str(p.relative_to(results_dir())))
def test_every_data_file_is_sealed(path: Path) -> None:
    suffix = _sidecar_suffix(path)
    side = sidecar_path(path, suffix)
    assert side.exists(), f"{path} has no sidecar {side.name}: run tools/seal_results.py"
    record = json.loads(side.read_text(encoding="utf-8"))
    check = record[CHECKSUM_FIELD]
    assert {"sha256", "bytes", "bound"} <= set(check)
    assert (
        artefact_problem(
            path, {k: v for k, v in record.items() if k != CHECKSUM_FIELD}, sidecar=suffix
        )
        is None
    )


def test_no_temporary_or_set_aside_file_is_committed() -> None:
    stray = [
        str(p.relative_to(results_dir()))
        for p in results_dir().rglob("*")
        if p.is_file() and (p.name.endswith(".tmp") or ".bad-" in p.name)
    ]
    assert stray == []
