"""Copy the old runs of :data:`nmthpo.studies.changes.CHANGES` and ``graph_changes()`` (and
Chapter 4's runs of :data:`~nmthpo.studies.changes.TRANSFER_BEFORE`) from the git history into
``results/changes/`` (``<id>.parquet`` and a sidecar ``<id>.json`` with the commit, the path and
the SHA-256), so that the reproducibility appendix can pair each moved number's old run with
the run that replaced it. Needs the repository's history (a clone, not an archive).

Usage: ``python tools/extract_changes.py`` (idempotent: an entry already extracted and intact is
kept).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    """Extract every old run (see the module docstring)."""
    import argparse

    argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0]).parse_args(argv)
    from nmthpo.studies.changes import CHANGES, CHANGES_FOLDER, graph_changes

    out = REPO / "results" / CHANGES_FOLDER
    out.mkdir(parents=True, exist_ok=True)
    for ch in (*CHANGES, *graph_changes()):
        target = out / f"{ch.id}.parquet"
        error = _snapshot(target, ch.commit, ch.path)
        if error is not None:
            print(f"{ch.id}: {ch.commit}:{ch.path} is not in the history: {error}", file=sys.stderr)
            return 2
        print(f"{ch.id}: {ch.commit}:{ch.path} -> {target.relative_to(REPO)}")
    return transfer_snapshots(out)


def _git(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, check=False)


def _snapshot(target: Path, commit: str, path: str, **extra: object) -> str | None:
    """Copy ``commit:path`` to ``target`` with its sealed sidecar (the commit, the path, the
    SHA-256 and size of the bytes, and ``extra``); git's error when it is not in the history."""
    from nmthpo.engine.cache import atomic_write, seal_sidecar, sha256_file

    blob = _git("show", f"{commit}:{path}")
    if blob.returncode != 0:
        return blob.stderr.decode().strip()
    atomic_write(target, lambda p: p.write_bytes(blob.stdout))
    meta = {
        "commit": commit,
        "path": path,
        "sha256": sha256_file(target),
        "bytes": target.stat().st_size,
        **extra,
    }
    seal_sidecar(target, meta)
    return None


def transfer_snapshots(out: Path) -> int:
    """Copy Chapter 4's runs of :data:`nmthpo.studies.changes.TRANSFER_BEFORE` whose method has
    moved since (revision not 0) as ``transfer-<file>``, each with a sidecar holding its commit,
    path, SHA-256 and the run's spec (:func:`nmthpo.studies.changes.transfer_snapshots`)."""
    import json

    from nmthpo.engine.cache import CHECKSUM_FIELD
    from nmthpo.engine.runner import RunSpec
    from nmthpo.studies.changes import TRANSFER_BEFORE, TRANSFER_PREFIX

    listing = _git("ls-tree", "--name-only", TRANSFER_BEFORE, "results/transfer/")
    if listing.returncode != 0:
        print(f"results/transfer is not in {TRANSFER_BEFORE}'s tree", file=sys.stderr)
        return 2
    copied = 0
    for path in sorted(p for p in listing.stdout.decode().split() if p.endswith(".parquet")):
        side = _git("show", f"{TRANSFER_BEFORE}:{path[: -len('.parquet')]}.json")
        if side.returncode != 0:
            continue  # not a run (no spec sidecar)
        spec = json.loads(side.stdout)
        spec.pop(CHECKSUM_FIELD, None)
        if RunSpec.from_payload(spec).method_spec().revision == 0:
            continue  # the method did not move (rs): its run is the current one
        error = _snapshot(
            out / f"{TRANSFER_PREFIX}{Path(path).name}", TRANSFER_BEFORE, path, spec=spec
        )
        if error is not None:
            print(f"{TRANSFER_BEFORE}:{path}: {error}", file=sys.stderr)
            return 2
        copied += 1
    print(
        f"{copied} transfer runs of {TRANSFER_BEFORE} -> {out.relative_to(REPO)}/{TRANSFER_PREFIX}*"
    )
    return ledger_snapshot(out)


def ledger_snapshot(out: Path) -> int:
    """Copy the ledger of :data:`nmthpo.studies.changes.TRANSFER_BEFORE` as
    :data:`~nmthpo.studies.changes.LEDGER_SNAPSHOT` (with its sidecar)."""
    from nmthpo.studies.changes import LEDGER_PATH, LEDGER_SNAPSHOT, TRANSFER_BEFORE

    target = out / LEDGER_SNAPSHOT
    error = _snapshot(target, TRANSFER_BEFORE, LEDGER_PATH)
    if error is not None:
        print(f"{TRANSFER_BEFORE}:{LEDGER_PATH}: {error}", file=sys.stderr)
        return 2
    print(f"the ledger of {TRANSFER_BEFORE} -> {target.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
