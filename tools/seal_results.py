"""Seal the book's ``results/``: verify every data file, then write its sidecar and seal.

Every data file of the book's cache (``*.parquet``, ``*.npz``, ``*.csv`` under ``results/``)
must have a sidecar recording what determines it and its seal
(:func:`nmthpo.engine.cache.checksum_entry`: the SHA-256 of its bytes and of its record's JSON
followed by its bytes); readers reuse nothing else. Files written before seals existed (the
transfer runs had no sidecar at all, the other runs a sidecar without a checksum) are sealed
here -- but only after each file was verified, never on trust:

runs (``single``, ``figure6``, ``graph_k``, ``eif_text``, ``refit``, ``graph_discrepancy``,
``pareto``, ``own_optimizer``, ``transfer``, ``transfer/overhead``, ``multifidelity``)
    the spec is the grid's (:mod:`nmthpo.studies.grids`, Chapter 4's
    :func:`~nmthpo.studies.li_transbo.study.setting_specs` and
    :func:`~nmthpo.studies.li_transbo.study.overhead_specs`) whose stem is the file's name --
    so the key in the file name is the key of that spec; a sidecar already there must record
    the same spec (a learning-curve run's sidecar gives its spec, whose stem must be the file
    name) and, if it has a checksum, match the bytes; every trial's rows must be valid for the
    table (the runner's ``frame_problem``: ids in the table, none repeated, steps 1, 2, ...,
    BLEU the table's; a transfer frame's method, target and sources the spec's). A seeded
    random sample of transfer runs (``--sample``, default 10) and of the other table runs
    (``--sample-other``, default 5) is *recomputed*: ``--trials`` (default 2) randomly chosen
    trials of each are run again and compared with the file exactly (every column but
    ``seconds``, wall time);
Chapter 5's tables (``ga``) and Chapter 6's entries (``scoring``, sidecar ``.params.txt``)
    the file name's key is the key of the sidecar's record, the checksum the sidecar may
    already hold matches, and the content passes the study's own check (columns, levels);
``changes`` (snapshots of earlier runs, ``tools/extract_changes.py``)
    the bytes equal ``git show <commit>:<path>`` of the commit and path their record names;
``openbox``
    ``ours.npz`` is exported again (``tools/openbox_crosscheck.py export``, its defaults) and
    compared array by array; ``theirs.npz`` (OpenBox's side, computed in its own virtualenv)
    with ``ours.npz`` must print exactly the committed ``crosscheck.txt``;
``claims.csv``
    the ledger is judged again on the (verified) runs (:func:`nmthpo.studies.ledger.ledger`)
    and must equal the file's text.

A file that fails is reported and left unsealed (the command exits 1). Files already sealed are
checked (:func:`nmthpo.engine.cache.artefact_problem`) and kept. ``--check`` only reports the
files whose seal is missing or wrong (``make results`` runs it at the end)::

    python tools/seal_results.py            # verify and seal what is not sealed
    python tools/seal_results.py --check    # exit 1 if any data file is not sealed
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: Suffixes of the data files every one of which needs a sealed sidecar.
DATA_SUFFIXES = (".parquet", ".npz", ".csv")
#: Sidecar suffix per folder of ``results/`` (default ``.json``).
SIDECARS = {"scoring": ".params.txt"}


class Refused(Exception):
    """A file failed its verification: it is not sealed."""


def data_files(root: Path) -> list[Path]:
    """Every data file under ``root`` (set-aside ``.bad-N`` and temporary files excluded)."""
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file()
        and p.suffix in DATA_SUFFIXES
        and ".bad-" not in p.name
        and not p.name.startswith(".")
    )


def folder_of(path: Path, root: Path) -> str:
    """``path``'s folder relative to ``root`` (``""`` for the top), e.g. ``transfer/overhead``."""
    rel = path.parent.relative_to(root).as_posix()
    return "" if rel == "." else rel


def sidecar_suffix(path: Path, root: Path) -> str:
    """The sidecar suffix of a data file of ``root``."""
    return SIDECARS.get(folder_of(path, root), ".json")


def unsealed(root: Path) -> list[tuple[Path, str]]:
    """(file, what is wrong) for every data file of ``root`` without a valid seal."""
    from nmthpo.engine.cache import artefact_problem

    out = []
    for p in data_files(root):
        why = artefact_problem(p, {}, sidecar=sidecar_suffix(p, root))
        if why is not None:
            out.append((p, why))
    return out


# -- the specs the book's grids define ----------------------------------------------------------
def grid_specs() -> dict[tuple[str, str], tuple[Any, int]]:
    """(folder, stem) -> (spec, published trials) of every run the book's grids define."""
    from nmthpo.engine.runner import RunSpec
    from nmthpo.studies.grids import CHAPTER_GRID, RUN_GRIDS
    from nmthpo.studies.li_transbo.study import OVERHEAD_REPEATS, overhead_specs, setting_specs

    out: dict[tuple[str, str], tuple[Any, int]] = {}
    for g in RUN_GRIDS.values():
        for settings in g.variants:
            for task in g.tasks:
                for method in g.methods:
                    spec = RunSpec(method, task, seed=g.seed, settings=dict(settings), **g.options)
                    out[(g.folder, spec.stem())] = (spec, g.trials)
    for name, setting in CHAPTER_GRID.items():
        for spec in setting_specs(name):
            out[("transfer", spec.stem())] = (spec, setting.repeats)
    for spec in overhead_specs().values():
        out[("transfer/overhead", spec.stem())] = (spec, OVERHEAD_REPEATS)
    return out


def _sidecar_record(side: Path) -> dict[str, Any] | None:
    if not side.exists():
        return None
    rec = json.loads(side.read_text(encoding="utf-8"))
    if not isinstance(rec, dict):
        raise Refused(f"its sidecar {side.name} is not a JSON object")
    return rec


def _old_checksum(path: Path, rec: dict[str, Any] | None) -> str:
    """Verify a checksum a sidecar already records (written by a later writer)."""
    from nmthpo.engine.cache import CHECKSUM_FIELD, sha256_file

    check = (rec or {}).get(CHECKSUM_FIELD)
    if check is None:
        return ""
    if sha256_file(path) != check.get("sha256") or path.stat().st_size != check.get("bytes"):
        raise Refused("the checksum its sidecar records does not match its bytes (damaged)")
    return "; its recorded checksum matches"


def _strip(rec: dict[str, Any]) -> dict[str, Any]:
    from nmthpo.engine.cache import CHECKSUM_FIELD

    return {k: v for k, v in rec.items() if k != CHECKSUM_FIELD}


# -- verifications: each returns (the record to seal, how it was verified) -------------------------
def verify_run(
    path: Path, folder: str, grids: dict[tuple[str, str], tuple[Any, int]]
) -> tuple[dict[str, Any], str, Any]:
    """A table run (single-task or transfer): its spec, how it was verified, its spec."""
    import pandas as pd

    from nmthpo.engine.runner import RunSpec

    rec = _sidecar_record(path.with_suffix(".json"))
    entry = grids.get((folder, path.stem))
    how = []
    if entry is not None:
        spec, published = entry
        how.append("file name = stem of the grid's spec")
        if rec is not None:
            side_spec = RunSpec.from_json(json.dumps(_strip(rec)))
            if side_spec.payload() != spec.payload():
                raise Refused("its sidecar records another spec than the grid's")
            how.append("sidecar spec = grid spec")
    else:
        if rec is None:
            raise Refused("no sidecar and no spec of the grids has its name")
        spec = RunSpec.from_json(json.dumps(_strip(rec)))
        published = 1
        if spec.stem() != path.stem:
            raise Refused(f"its sidecar's spec has stem {spec.stem()}, not the file's name")
        how.append("file name = stem of its sidecar's spec (not in the current grids)")
    how_old = _old_checksum(path, rec)
    frame = pd.read_parquet(path)
    why = spec.frame_problem(frame)
    if why is not None:
        raise Refused(f"its rows are not valid for its spec: {why}")
    have = frame[spec.trial_column].nunique()
    if have < published:
        raise Refused(f"it holds {have} trials, the grid publishes {published}")
    how.append(f"{have} trials' rows valid for the table")
    machine = (rec or {}).get("machine", "unknown")
    return {**spec.payload(), "machine": machine}, ", ".join(how) + how_old, spec


def recompute_trials(path: Path, spec: Any, trials: list[int]) -> str:
    """Run ``trials`` of ``spec`` again and compare them with the file exactly."""
    import pandas as pd

    from nmthpo.engine.runner import _prepare

    spec = _prepare(spec)
    frame = pd.read_parquet(path)
    col = spec.trial_column
    for t in trials:
        got = spec.tidy(t, spec.run_trial(t))
        want = frame[frame[col] == t].reset_index(drop=True)
        drop = [c for c in ("seconds",) if c in got.columns]
        try:
            pd.testing.assert_frame_equal(
                got.drop(columns=drop), want.drop(columns=drop), check_exact=True
            )
        except AssertionError as exc:
            raise Refused(f"{col} {t} recomputed differs from the file: {exc}") from None
    return f"; recomputed {col} {', '.join(map(str, trials))}: identical"


def verify_curves(path: Path) -> tuple[dict[str, Any], str]:
    """A learning-curve run (Chapter 7)."""
    import pandas as pd

    from nmthpo.engine.fidelity import CurveRunSpec

    rec = _sidecar_record(path.with_suffix(".json"))
    if rec is None:
        raise Refused("a learning-curve run without a sidecar")
    spec = CurveRunSpec(rec["method"], rec["task"], rec["budget"], rec["seed"], rec["settings"])
    if spec.stem() != path.stem:
        raise Refused(f"its sidecar's spec has stem {spec.stem()}, not the file's name")
    how_old = _old_checksum(path, rec)
    why = spec.frame_problem(pd.read_parquet(path))
    if why is not None:
        raise Refused(f"its rows are not valid for its spec: {why}")
    record = {**spec.payload(), "machine": rec.get("machine", "unknown")}
    return record, "file name = stem of its sidecar's spec, rows valid" + how_old


def _ga_published() -> dict[str, dict[str, Any]]:
    """file stem -> the ordered parameters of each published Chapter 5 table, built as
    :func:`nmthpo.studies.ganapathy.tables.cached_table` builds them (the sidecar's JSON has
    sorted keys, but the tables' rows follow the parameters' order)."""
    import inspect

    from nmthpo.engine.cache import key
    from nmthpo.studies.ganapathy import tables as genetic
    from nmthpo.studies.grids import GA_TABLES

    out = {}
    for kind, extra in GA_TABLES.kinds.items():
        func = genetic._CACHEABLE[kind]
        bound = inspect.signature(func).bind(**{**GA_TABLES.params, **extra})
        bound.apply_defaults()
        args = genetic._jsonable({k: v for k, v in bound.arguments.items() if k != "jobs"})
        name, default = genetic._DEFAULT_SETS[kind]
        if args.get(name) is None:
            args[name] = genetic._jsonable(default)
        payload = {"kind": kind, "params": args, "version": genetic.GA_CACHE_VERSION}
        out[f"{kind}__{key(payload)}"] = payload
    return out


def verify_ga(path: Path) -> tuple[dict[str, Any], str]:
    """A Chapter 5 table: the published parameters' ``<kind>__<key>``, its sidecar records
    them, its content passes the study's check."""
    import pandas as pd

    from nmthpo.studies.ganapathy.tables import _table_problem

    rec = _sidecar_record(path.with_suffix(".json"))
    if rec is None:
        raise Refused("no sidecar")
    payload = _ga_published().get(path.stem)
    if payload is None:
        raise Refused("its name is not the key of a published Chapter 5 table")
    if json.loads(json.dumps(payload)) != _strip(rec):
        raise Refused("its sidecar records other parameters than the published table's")
    how_old = _old_checksum(path, rec)
    why = _table_problem(payload["kind"], payload["params"], pd.read_parquet(path))
    if why is not None:
        raise Refused(f"its content is not what its parameters ask for: {why}")
    return payload, (
        "file name = key of the published parameters = its sidecar's record, content valid"
        + how_old
    )


def verify_scoring(path: Path) -> tuple[dict[str, Any], str]:
    """A Chapter 6 entry: ``<kind>__<label>__<key>``, content checked by the study."""
    import pandas as pd

    from nmthpo.engine.cache import sidecar_path
    from nmthpo.studies.ariafar.results import _frame_problem, _key

    rec = _sidecar_record(sidecar_path(path, ".params.txt"))
    if rec is None:
        raise Refused("no sidecar")
    record = _strip(rec)
    if path.stem.rsplit("__", 1)[-1] != _key(record["kind"], record["params"]):
        raise Refused("the key in its name is not the key of its sidecar's record")
    how_old = _old_checksum(path, rec)
    why = _frame_problem(record["kind"], record["params"], pd.read_parquet(path))
    if why is not None:
        raise Refused(f"its content is not what its parameters ask for: {why}")
    return record, "file name = key of its sidecar's record, content valid" + how_old


def verify_change(path: Path) -> tuple[dict[str, Any], str]:
    """A snapshot of an earlier run: its bytes are those of ``git show commit:path``."""
    import hashlib

    rec = _sidecar_record(path.with_suffix(".json"))
    if rec is None:
        raise Refused("no sidecar recording its commit and path")
    record = _strip(rec)
    blob = subprocess.run(
        ["git", "show", f"{record['commit']}:{record['path']}"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if blob.returncode != 0:
        raise Refused(f"git show {record['commit']}:{record['path']} failed")
    if blob.stdout != path.read_bytes():
        raise Refused(f"its bytes differ from {record['commit']}:{record['path']}")
    if record.get("sha256") != hashlib.sha256(blob.stdout).hexdigest():
        raise Refused("its recorded sha256 is not that of its bytes")
    return record, f"bytes = git show {record['commit']}:{record['path']}"


OPENBOX_EXPORT = {
    "target": "zh-en",
    "sources": ["ru-en", "ja-en", "en-ja"],
    "budget": 20,
    "seed": 0,
}


def _openbox_tool() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "openbox_crosscheck", ROOT / "tools/openbox_crosscheck.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def verify_openbox(path: Path) -> tuple[dict[str, Any], str]:
    """``ours.npz`` exported again; ``theirs.npz`` reproduces ``crosscheck.txt``."""
    import numpy as np

    from nmthpo.engine.cache import sha256_file

    tool = _openbox_tool()
    ours = path.parent / "ours.npz"
    if path.name == "ours.npz":
        with tempfile.TemporaryDirectory() as tmp:
            again = Path(tmp) / "ours.npz"
            with redirect_stdout(io.StringIO()):
                tool.export(
                    OPENBOX_EXPORT["target"],
                    list(OPENBOX_EXPORT["sources"]),
                    OPENBOX_EXPORT["budget"],
                    OPENBOX_EXPORT["seed"],
                    again,
                )
            with np.load(path) as a, np.load(again) as b:
                if sorted(a.files) != sorted(b.files):
                    raise Refused(f"arrays {sorted(a.files)} differ from the export's")
                for k in a.files:
                    nan = a[k].dtype.kind in "fc"  # NaN marks steps without a value
                    if not np.array_equal(a[k], b[k], equal_nan=nan):
                        raise Refused(f"array {k} differs from a new export")
        record = {"tool": "tools/openbox_crosscheck.py", "step": "export", **OPENBOX_EXPORT}
        return record, "exported again: every array identical"
    if path.name == "theirs.npz":
        text = (path.parent / "crosscheck.txt").read_text()
        buf = io.StringIO()
        with redirect_stdout(buf):
            tool.compare(ours, path)
        if buf.getvalue().strip() != text.strip():
            raise Refused("compare(ours.npz, theirs.npz) does not print crosscheck.txt")
        record = {
            "tool": "tools/openbox_crosscheck.py",
            "step": "openbox",
            "data_sha256": sha256_file(ours),
        }
        return record, "compare(ours, theirs) prints crosscheck.txt exactly"
    raise Refused("an unknown file of results/openbox")


def verify_ledger(path: Path) -> tuple[dict[str, Any], str]:
    """``claims.csv``: the ledger judged again on the book's (sealed) files equals the file.

    Judged last, with an empty user cache: if any run had to be computed (a run the book's
    cache lacks or that is not sealed), it is refused.
    """
    from nmthpo.engine.cache import user_cache_dir
    from nmthpo.studies.ledger import ledger

    text = ledger().to_csv(index=False)
    computed = sorted(p for p in user_cache_dir().rglob("*") if p.is_file())
    if computed:
        raise Refused(f"judging the ledger computed {len(computed)} file(s) the book lacks")
    if text != path.read_text():
        raise Refused("the ledger judged again on the runs differs from the file")
    return {"kind": "ledger", "file": path.name}, "the ledger judged again: identical text"


# -- the tool ------------------------------------------------------------------------------------
def seal(root: Path, sample: int, sample_other: int, trials: int, seed: int, dry_run: bool) -> int:
    """Verify and seal every unsealed data file of ``root``; the number refused."""
    from nmthpo.engine.cache import seal_sidecar

    # the ledger is judged last, on the files sealed before it
    todo = sorted((p for p, _ in unsealed(root)), key=lambda p: (p.suffix == ".csv", str(p)))
    print(f"{len(data_files(root))} data files, {len(todo)} without a valid seal", flush=True)
    grids = grid_specs()
    rng = random.Random(seed)
    table_runs = [p for p in todo if folder_of(p, root) in _run_folders(root)]
    transfer = [p for p in table_runs if folder_of(p, root) == "transfer"]
    other = [p for p in table_runs if folder_of(p, root) != "transfer"]
    recompute = set(rng.sample(transfer, min(sample, len(transfer))))
    recompute |= set(rng.sample(other, min(sample_other, len(other))))
    refused = 0
    for p in todo:
        folder = folder_of(p, root)
        try:
            if folder in _run_folders(root):
                record, how, spec = verify_run(p, folder, grids)
                if p in recompute:
                    col = spec.trial_column
                    import pandas as pd

                    have = sorted(pd.read_parquet(p, columns=[col])[col].unique().tolist())
                    how += recompute_trials(
                        p, spec, sorted(rng.sample(have, min(trials, len(have))))
                    )
            elif folder == "multifidelity":
                record, how = verify_curves(p)
            elif folder == "ga":
                record, how = verify_ga(p)
            elif folder == "scoring":
                record, how = verify_scoring(p)
            elif folder == "changes":
                record, how = verify_change(p)
            elif folder == "openbox":
                record, how = verify_openbox(p)
            elif folder == "" and p.name == "claims.csv":
                if dry_run:  # judged on the runs once they are sealed, not before
                    print(f"skipped {p.relative_to(root)} in a dry run", flush=True)
                    continue
                record, how = verify_ledger(p)
            else:
                raise Refused("no verification is known for this file")
        except Refused as exc:
            refused += 1
            print(f"REFUSED {p.relative_to(root)}: {exc}", flush=True)
            continue
        if not dry_run:
            seal_sidecar(p, record, sidecar_suffix(p, root))
        print(f"sealed {p.relative_to(root)}: {how}", flush=True)
    return refused


def _run_folders(root: Path) -> set[str]:
    from nmthpo.studies.grids import RUN_GRIDS

    return {g.folder for g in RUN_GRIDS.values()} | {"transfer", "transfer/overhead"}


def _iter_problems(root: Path) -> Iterator[str]:
    for p, why in unsealed(root):
        yield f"{p.relative_to(root)}: {why}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--root", type=Path, default=ROOT / "results")
    p.add_argument("--check", action="store_true", help="only report files without a seal")
    p.add_argument("--sample", type=int, default=10, help="transfer runs recomputed in part")
    p.add_argument("--sample-other", type=int, default=5, help="other table runs recomputed")
    p.add_argument("--trials", type=int, default=2, help="trials recomputed per sampled run")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--dry-run", action="store_true", help="verify (not the ledger), but write no sidecar"
    )
    args = p.parse_args(argv)
    if args.check:
        problems = list(_iter_problems(args.root))
        for line in problems:
            print(line)
        print(f"{len(problems)} data file(s) of {args.root} without a valid seal")
        return 1 if problems else 0
    # nothing this tool computes may land in (or be read from) the user's cache
    with tempfile.TemporaryDirectory(prefix="seal-results-") as tmp:
        os.environ["NMTHPO_RESULTS"] = tmp
        refused = seal(
            args.root, args.sample, args.sample_other, args.trials, args.seed, args.dry_run
        )
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
