"""Copy the old runs of :data:`nmthpo.studies.changes.CHANGES` from the git history into
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
    from nmthpo.engine.cache import atomic_write, seal_sidecar, sha256_file
    from nmthpo.studies.changes import CHANGES, CHANGES_FOLDER

    out = REPO / "results" / CHANGES_FOLDER
    out.mkdir(parents=True, exist_ok=True)
    for ch in CHANGES:
        target = out / f"{ch.id}.parquet"
        blob = subprocess.run(
            ["git", "show", f"{ch.commit}:{ch.path}"], cwd=REPO, capture_output=True, check=False
        )
        if blob.returncode != 0:
            print(
                f"{ch.id}: {ch.commit}:{ch.path} is not in the history: "
                f"{blob.stderr.decode().strip()}",
                file=sys.stderr,
            )
            return 2
        atomic_write(target, lambda p, b=blob.stdout: p.write_bytes(b))
        meta = {
            "commit": ch.commit,
            "path": ch.path,
            "sha256": sha256_file(target),
            "bytes": target.stat().st_size,
        }
        seal_sidecar(target, meta)
        print(f"{ch.id}: {ch.commit}:{ch.path} -> {target.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
