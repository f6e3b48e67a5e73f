"""Numbers that moved since the last published text: old value, new value, paired interval, cause.

A :class:`Change` names a run of the book's cache as it was when the last published text was
written (a commit and a path; ``tools/extract_changes.py`` copies that file from the git
history into ``results/changes/`` with a sidecar holding its commit, path and SHA-256) and the
run that replaced it. Both runs are trials of the same seeds, so trial ``t`` of the old and the
new run start from the same initial rows and their difference is a *paired* one
(:func:`nmthpo.engine.stats.paired_difference`). Where the published number is a difference of
two methods (``minus``), the other method's current run is subtracted from both.

The reproducibility appendix shows :func:`changes_table`; nothing in it is typed: every value
is computed from the two runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nmthpo.engine.cache import results_dir, sha256_file
from nmthpo.engine.numbers import fmt, fmt_interval
from nmthpo.engine.stats import paired_difference

__all__ = [
    "CHANGES",
    "CHANGES_FOLDER",
    "GRAPH_BEFORE",
    "LEDGER_PATH",
    "LEDGER_SNAPSHOT",
    "TRANSFER_BEFORE",
    "TRANSFER_PREFIX",
    "Change",
    "changes_table",
    "graph_changes",
    "graph_changes_table",
    "ledger_changes",
    "moved_trials",
    "old_run",
    "per_trial_metric",
    "transfer_changes_table",
    "transfer_snapshots",
]

#: Folder of ``results/`` holding the old runs (written by ``tools/extract_changes.py``).
CHANGES_FOLDER = "changes"


@dataclass(frozen=True)
class Change:
    """A number of the book that moved: which run, which commit held the old one, and why.

    Attributes
    ----------
    id : str
        Stable name; also the old run's file name in ``results/changes/``.
    chapter : str
        The chapter whose text printed the number.
    what : str
        The number, in words (``Table 3: GB-EIF-R ftb on zh-en``).
    task : str
        The table.
    commit, path : str
        The commit whose tree holds the old run, and its path there.
    new : str
        The path (under ``results/``) of the run that replaced it.
    cause : str
        Why it moved (the commit that changed it, and what changed).
    minus : str, optional
        A current run (path under ``results/``) subtracted from both, when the number was a
        difference of two methods.
    trials : int, optional
        Only the first ``trials`` trials (the number was printed for a shorter grid).
    metric : {"ftb", "fto", "fta", "fbp"}
        The per-trial metric (:func:`per_trial_metric`): ``ftb`` for Table 3's runs, ``fta``
        (or ``fto``, ``fbp``) for Table 4's.
    """

    id: str
    chapter: str
    what: str
    task: str
    commit: str
    path: str
    new: str
    cause: str
    minus: str | None = None
    trials: int | None = None
    metric: str = "ftb"


#: Table 3's GP-BO runs before and after issue 25 made the fast schedule with the lattice fit
#: GP-BO's default: (method, task, old key, new key) of ``results/single``.
_GPBO_DEFAULTS: tuple[tuple[str, str, str, str], ...] = (
    ("bo-ei-m", "zh-en", "57b7d373c0af64c3", "f5ac9f76fc8d675e"),
    ("bo-ei-m", "ru-en", "abc86b7bd12e9e87", "fb7546d9f629f431"),
    ("bo-ei-m", "ja-en", "092ed7dcad910cbd", "95f576877a0f1fd3"),
    ("bo-ei-m", "en-ja", "b153bab23ea0c911", "9159c6fe4766f630"),
    ("bo-ei-m", "sw-en", "e8ab96ce12624f4f", "94dff4634683d0ad"),
    ("bo-ei-m", "so-en", "555e373c21289031", "7d2dc3ced19de90a"),
    ("bo-ei-r", "zh-en", "1aadceef95a74564", "0abd4b6c606bce61"),
    ("bo-ei-r", "ru-en", "5c5ef5f0c9841e6f", "0f8b3d162f9f0cbd"),
    ("bo-ei-r", "ja-en", "433952f1527f5ffb", "56820d111690976d"),
    ("bo-ei-r", "en-ja", "0318160faf5a828a", "c9a83623a37c7314"),
    ("bo-ei-r", "sw-en", "6f62803935a133b1", "9bfd20dd9d6be0da"),
    ("bo-ei-r", "so-en", "1dbb53c7a0726c8c", "78afe3128739f905"),
)
_GPBO_CAUSE = (
    "commit 687c5f0 (issue 25): GP-BO's defaults became the fast refit schedule, the lattice "
    "fit and tie_rtol=1e-9 (before: a fit by L-BFGS-B at every step and exact ties, computed "
    "on another CPU); Chapter 2's appendix pairs the default with that protocol recomputed here"
)

#: Table 4's GP runs before and after issue 25 made the lattice fit and tie_rtol=1e-9 the
#: defaults of ``bo-m`` and ``bo-r``: (method, task, old key, new key) of ``results/pareto``.
_PARETO_DEFAULTS: tuple[tuple[str, str, str, str], ...] = (
    ("bo-m", "zh-en", "0915b68435d85442", "ccd2e9b702fcce3a"),
    ("bo-m", "ru-en", "973ef4a68a1bfa70", "0638c3a426eb1ce1"),
    ("bo-m", "ja-en", "775c9afcc4c8bbf4", "aa712158dd97681a"),
    ("bo-m", "en-ja", "c3e168c69c212006", "7d1e3019e03d9d8f"),
    ("bo-m", "sw-en", "804156537cc703a8", "5b8ce9de3de5be07"),
    ("bo-m", "so-en", "967e44694078f244", "052c8a1207dedfd7"),
    ("bo-r", "zh-en", "96f357e94e21fd70", "d1ad4cc47b2d6fd7"),
    ("bo-r", "ru-en", "3332762778d41b98", "93669a8c1dabf2d6"),
    ("bo-r", "ja-en", "efc58566049f2f08", "767637ecd0c4fddb"),
    ("bo-r", "en-ja", "e967bd5fb157aadd", "6c9692ac926b2fd7"),
    ("bo-r", "sw-en", "983d42d779791353", "7a0c549b7486fe85"),
    ("bo-r", "so-en", "029a0b3c252a289f", "8b5df18e32544c6b"),
)
_PARETO_CAUSE = (
    "commit a99274b (issue 25): bo-m and bo-r fit their GPs on the lattice with tie_rtol=1e-9 "
    "(before: L-BFGS-B and exact ties, whose rows moved with the BLAS kernel: 11 of 16 trials "
    "of the portability sample under another OpenBLAS core type)"
)


#: The folders of the book's graph runs besides Tables 3 and 4 (the chapters' side experiments:
#: k sweeps, graph discrepancy, Figure 6, the text's EIF, Chapter 9's peers) and their chapters.
_GRAPH_CHAPTERS = {
    "eif_text": "02_single_objective",
    "figure6": "02_single_objective",
    "graph_discrepancy": "02_single_objective",
    "graph_k": "02_single_objective",
    "pareto_arms": "03_multiobjective",
    "peers": "09_peers",
}
#: The commit whose tree holds the graph runs with the earlier tie tolerance.
GRAPH_BEFORE = "0a5de4b"
_GRAPH_CAUSE = (
    "issue 25: the graph methods treat scores within 1e-8 of the best as ties (before: 1e-9, "
    "below the rounding noise between NumPy's AVX-512 and AVX2 loops, so that on an AVX-512 "
    "CPU 7 of 30 trials of gb-ei-m with k = 5 on ru-en and 16 of 60 of gb-m with k = 3 chose "
    "other rows)"
)


def _moved_runs(
    runs: tuple[tuple[str, str, str, str], ...],
    folder: str,
    chapter: str,
    table: str,
    objective: str,
    commit: str,
    cause: str,
    suffix: str = "",
) -> tuple[Change, ...]:
    """One :class:`Change` per (method, task, old key, new key) of a grid whose runs all moved
    (ftb for Table 3's single-objective runs, fta for Table 4's Pareto runs); ``suffix`` tells
    the ids of a second change of the same runs apart."""
    metric = "fta" if objective == "pareto" else "ftb"
    return tuple(
        Change(
            f"{folder}-{m}-{t}{suffix}",
            chapter,
            f"{table}: {m.upper()} mean {metric} on {t}",
            t,
            commit,
            f"results/{folder}/{m}__{t}__{objective}__s0__{old}.parquet",
            f"{folder}/{m}__{t}__{objective}__s0__{new}.parquet",
            cause,
            metric=metric,
        )
        for m, t, old, new in runs
    )


#: Every number known to have moved since the last published text.
CHANGES: tuple[Change, ...] = (
    Change(
        "single-gb-eif-r-zh-en",
        "02_single_objective",
        "Table 3: GB-EIF-R mean ftb on zh-en",
        "zh-en",
        "1a7ef82^",
        "results/single/gb-eif-r__zh-en__bleu__s0__e6fb2d64e02ce214.parquet",
        "single/gb-eif-r__zh-en__bleu__s0__5605668f84d9e153.parquet",
        "commit 80ab63e: GB-EIF labels one tied pivot as the authors' released code does (it "
        "labelled every row tied at the best BLEU before); on zh-en three rows tie at the best "
        "BLEU, so the expected-influence labels differ at many steps; then issue 25's graph "
        "tie tolerance (its own row, -ties)",
    ),
    Change(
        "single-gb-eif-m-zh-en",
        "02_single_objective",
        "Table 3: GB-EIF-M mean ftb on zh-en",
        "zh-en",
        "1a7ef82^",
        "results/single/gb-eif-m__zh-en__bleu__s0__5104feafd08e5718.parquet",
        "single/gb-eif-m__zh-en__bleu__s0__96e72a4955ee104b.parquet",
        "commit 80ab63e: the tied pivot of the authors' code (as for GB-EIF-R); then issue "
        "25's graph tie tolerance",
    ),
    Change(
        "k-sweep-gb-eif-m-zh-en",
        "02_single_objective",
        "k sweep: GB-EIF-M mean ftb at the rule's k on zh-en (30 trials)",
        "zh-en",
        "1a7ef82^",
        "results/single/gb-eif-m__zh-en__bleu__s0__5104feafd08e5718.parquet",
        "single/gb-eif-m__zh-en__bleu__s0__96e72a4955ee104b.parquet",
        "commit 80ab63e: the tied pivot of the authors' code (the sweep's rule-k entry reads "
        "the first 30 Table 3 trials); then issue 25's graph tie tolerance",
        trials=30,
    ),
    Change(
        "ga-minus-gb-eif-m-zh-en",
        "05_genetic_algorithm",
        "Chapter 5's protocol: GA minus GB-EIF-M mean ftb on zh-en (its sign)",
        "zh-en",
        "1a7ef82^",
        "results/single/gb-eif-m__zh-en__bleu__s0__5104feafd08e5718.parquet",
        "single/gb-eif-m__zh-en__bleu__s0__96e72a4955ee104b.parquet",
        "commit 80ab63e: GB-EIF-M's tied pivot moved its zh-en runs (the GA's runs did not "
        "change; then issue 25's graph tie tolerance); the difference is computed against the "
        "same GA runs before and after",
        minus="single/ga__zh-en__bleu__s0__a390d49bfd93d8e0.parquet",
    ),
    *_moved_runs(
        _GPBO_DEFAULTS, "single", "02_single_objective", "Table 3", "bleu", "d284449", _GPBO_CAUSE
    ),
    *_moved_runs(
        _PARETO_DEFAULTS,
        "pareto",
        "03_multiobjective",
        "Table 4",
        "pareto",
        "bfa4b4a",
        _PARETO_CAUSE,
    ),
)


#: Tables 3 and 4: folder -> (chapter, table); their runs come first in :func:`graph_changes`.
_GRAPH_TABLES = {
    "single": ("02_single_objective", "Table 3"),
    "pareto": ("03_multiobjective", "Table 4"),
}


def graph_changes(root: Path | None = None) -> tuple[Change, ...]:
    """Every graph run of the book before and after the graph methods' tie tolerance became
    1e-8 (issue 25), derived from the cached runs: Tables 3 and 4 first (grid order), then the
    side experiments (by folder, method, task and old key). :func:`graph_changes_table` pairs
    those whose rows moved.

    A graph run is one whose method is exact with :data:`~nmthpo.optimizers.settings.
    GRAPH_TIE_RTOL`; its old key is its key without the method's revision (the graph methods
    were revision 0 at :data:`GRAPH_BEFORE`, with every other field the same).
    """
    from nmthpo.engine.cache import key
    from nmthpo.engine.runner import CACHE_VERSION, cached_runs
    from nmthpo.optimizers.settings import GRAPH_TIE_RTOL
    from nmthpo.studies.grids import RUN_GRIDS

    base = root or results_dir()
    found: list[tuple[tuple[Any, ...], Change]] = []
    for folder in (*_GRAPH_TABLES, *_GRAPH_CHAPTERS):
        for spec, path in cached_runs(base / folder):
            if spec.method_spec().exact_settings != {"tie_rtol": GRAPH_TIE_RTOL}:
                continue
            payload = spec.payload()
            del payload["revision"]
            old = key({**payload, "version": CACHE_VERSION})
            m, t, objective = spec.method, spec.task, spec.objective
            metric = "fta" if objective == "pareto" else "ftb"
            if folder in _GRAPH_TABLES:
                chapter, table = _GRAPH_TABLES[folder]
                g = RUN_GRIDS[folder]
                order: tuple[Any, ...] = (0, list(_GRAPH_TABLES).index(folder))
                order += (g.methods.index(m), g.tasks.index(t))
                ident, what = f"{folder}-{m}-{t}-ties", f"{table}: {m.upper()} mean {metric} on {t}"
            else:
                chapter = _GRAPH_CHAPTERS[folder]
                sets = ", ".join(f"{k}={v}" for k, v in sorted(spec.settings.items()))
                label = f" ({sets})" if sets else ""
                order = (1, folder, m, t, old)
                ident = f"{folder}-{m}-{t}-{old}-ties"
                what = f"{folder}{label}: {m.upper()} mean {metric} on {t}"
            change = Change(
                ident,
                chapter,
                what,
                t,
                GRAPH_BEFORE,
                f"results/{folder}/{m}__{t}__{objective}__s0__{old}.parquet",
                f"{folder}/{path.name}",
                _GRAPH_CAUSE,
                metric=metric,
            )
            found.append((order, change))
    return tuple(c for _, c in sorted(found, key=lambda oc: oc[0]))


def _snapshot_record(path: Path, commit: str, source: str | None = None) -> dict[str, Any]:
    """The sidecar record of a snapshot ``tools/extract_changes.py`` wrote, checked: the file
    and its sidecar exist, the sidecar names ``commit`` (and ``source``, the path there, when
    given) and the file's bytes match its SHA-256.

    Raises
    ------
    FileNotFoundError
        If the file was never extracted (``python tools/extract_changes.py`` writes it).
    ValueError
        If its bytes or its sidecar do not match (commit, path, SHA-256).
    """
    side = path.with_suffix(".json")
    if not path.is_file() or not side.is_file():
        raise FileNotFoundError(
            f"{path} is missing; write it with `python "
            "tools/extract_changes.py` (reads the git history)"
        )
    meta: dict[str, Any] = json.loads(side.read_text(encoding="utf-8"))
    if meta.get("commit") != commit or (source is not None and meta.get("path") != source):
        raise ValueError(
            f"{side} names {meta.get('commit')}:{meta.get('path')}, not "
            f"{commit}:{source or '...'}; re-run tools/extract_changes.py"
        )
    if meta.get("sha256") != sha256_file(path):
        raise ValueError(
            f"{path} does not match its checksum (SHA-256); re-run tools/extract_changes.py"
        )
    return meta


def old_run(change: Change, root: Path | None = None) -> pd.DataFrame:
    """The old run of ``change`` from ``results/changes/`` (its sidecar and checksum checked,
    :func:`_snapshot_record`: ``FileNotFoundError`` if never extracted, ``ValueError`` if it
    does not match the change)."""
    path = (root or results_dir()) / CHANGES_FOLDER / f"{change.id}.parquet"
    _snapshot_record(path, change.commit, change.path)
    return pd.read_parquet(path)


def per_trial_metric(frame: pd.DataFrame, task: str, metric: str = "ftb") -> np.ndarray:
    """``metric`` of every trial of a run, in trial order: ``ftb`` (Table 3, the paper's tie
    convention) or ``fto``, ``fta``, ``fbp`` (Table 4, a Pareto run)."""
    if metric == "ftb":
        from nmthpo.studies.zhang_duh.single_objective import per_trial_metrics

        per = per_trial_metrics({("run", task): frame}, ties="value")
        return per.sort_values("trial")["ftb"].to_numpy(dtype=float)
    if metric not in ("fto", "fta", "fbp"):
        raise ValueError(f"unknown metric {metric!r}; valid: ftb, fto, fta, fbp")
    from nmthpo.studies.zhang_duh.multiobjective import pareto_metrics

    return pareto_metrics(frame, task)[metric].to_numpy(dtype=float)


def changes_table(changes: tuple[Change, ...] = CHANGES, root: Path | None = None) -> pd.DataFrame:
    """One row per change: the old and new value, new - old with its paired 95 % interval."""
    base = root or results_dir()
    rows = []
    for ch in changes:
        old = per_trial_metric(old_run(ch, root), ch.task, ch.metric)
        new = per_trial_metric(pd.read_parquet(base / ch.new), ch.task, ch.metric)
        if ch.minus is not None:
            other = per_trial_metric(pd.read_parquet(base / ch.minus), ch.task, ch.metric)
            n = min(len(other), len(old), len(new))
            old, new = other[:n] - old[:n], other[:n] - new[:n]
        n = min(len(old), len(new), ch.trials or len(old))
        est, lo, hi = paired_difference(new[:n], old[:n])
        rows.append(
            {
                "chapter": ch.chapter[:2],
                "number": ch.what,
                "old": fmt(old[:n].mean(), "evaluations"),
                "new": fmt(new[:n].mean(), "evaluations"),
                "new - old [95% CI]": fmt_interval(est, lo, hi, "evaluations"),
                "trials": n,
                "cause": ch.cause,
            }
        )
    return pd.DataFrame(rows).set_index("number")


def moved_trials(change: Change, root: Path | None = None) -> tuple[int, int]:
    """``(trials, trials whose rows differ)`` between the old and the new run of ``change``."""
    old = old_run(change, root)
    new = pd.read_parquet((root or results_dir()) / change.new)
    rows_old = old.groupby("trial", sort=True)["row"].apply(tuple)
    rows_new = new.groupby("trial", sort=True)["row"].apply(tuple)
    both = rows_old.index.intersection(rows_new.index)
    return len(both), int((rows_old[both] != rows_new[both]).sum())


def graph_changes_table(
    changes: tuple[Change, ...] | None = None, root: Path | None = None
) -> pd.DataFrame:
    """:func:`changes_table` of the graph runs whose rows moved with the tie tolerance, with
    the number of their trials that chose other rows (column ``other rows``).

    Its ``attrs`` hold ``runs`` and ``trials`` (every run of ``changes``) and ``runs_moved``
    and ``trials_moved`` (those with other rows): the unmoved runs are equal trial by trial.
    """
    if changes is None:
        changes = graph_changes(root)
    counts = [moved_trials(ch, root) for ch in changes]
    moved = tuple(ch for ch, (_, k) in zip(changes, counts, strict=True) if k)
    table = changes_table(moved, root)
    if moved:
        at = list(table.columns).index("trials") + 1
        table.insert(at, "other rows", [k for _, k in counts if k])
    table.attrs.update(
        runs=len(changes),
        trials=sum(n for n, _ in counts),
        runs_moved=len(moved),
        trials_moved=sum(k for _, k in counts),
    )
    return table


# -- Chapter 4: every transfer run moved at once ------------------------------------------------
#: The commit whose ``results/transfer`` holds Chapter 4's runs before issue 25 made the lattice
#: fit, the tie tolerance and Cholesky draws (RGPE) the transfer methods' defaults.
TRANSFER_BEFORE = "bfa4b4a"
#: File-name prefix of those runs' snapshots in ``results/changes/`` (``tools/extract_changes.py``
#: copies every transfer run of a method whose revision is not 0; ``rs`` did not move).
TRANSFER_PREFIX = "transfer-"


def transfer_snapshots(root: Path | None = None) -> dict[str, Path]:
    """The snapshots of Chapter 4's old runs: the *current* stem of each run's spec -> the old
    run's file (its sidecar holds its commit, path, SHA-256 and spec; each is checked).

    The old spec read back names the run that replaced it: a run's key holds its method's
    revision (:attr:`~nmthpo.optimizers.registry.MethodSpec.revision`), which is not a field of
    the spec, so the spec read from the old sidecar has the new run's stem.
    """
    from nmthpo.engine.runner import RunSpec

    folder = (root or results_dir()) / CHANGES_FOLDER
    out: dict[str, Path] = {}
    for path in sorted(folder.glob(f"{TRANSFER_PREFIX}*.parquet")):
        meta = _snapshot_record(path, TRANSFER_BEFORE)
        out[RunSpec.from_payload(meta["spec"]).stem()] = path
    return out


def transfer_changes_table(step: int = 50, root: Path | None = None) -> pd.DataFrame:
    """Chapter 4's ADTM at ``step`` per setting and method, before and after issue 25's
    defaults: old, new and new - old with its paired 95 % interval over the repetitions
    (repetition ``r`` of both starts from the same initial rows and source samples; the ADTM
    of a repetition is averaged over the targets, :func:`nmthpo.engine.ranks.per_repetition`)
    and the verdict of the interval (``no difference`` where it covers 0; a lower ADTM is
    better). Methods whose runs did not move (``rs``) are left out."""
    from nmthpo.engine.ranks import per_repetition
    from nmthpo.studies.grids import CHAPTER_GRID, book_dir
    from nmthpo.studies.li_transbo.study import setting_specs

    base = root or results_dir()
    snaps = transfer_snapshots(root)
    new_dir = base / "transfer" if root is not None else book_dir("transfer")
    rows = []
    for name in CHAPTER_GRID:
        specs = [sp for sp in setting_specs(name) if sp.stem() in snaps]
        if not specs:
            continue
        old = pd.concat([pd.read_parquet(snaps[sp.stem()]) for sp in specs], ignore_index=True)
        new = pd.concat(
            [pd.read_parquet(new_dir / f"{sp.stem()}.parquet") for sp in specs], ignore_index=True
        )
        a, b = per_repetition(old, step, "adtm"), per_repetition(new, step, "adtm")
        reps = a.index.intersection(b.index)
        for m in dict.fromkeys(sp.method for sp in specs):
            o, n = a.loc[reps, m].to_numpy(), b.loc[reps, m].to_numpy()
            est, lo, hi = paired_difference(n, o)
            verdict = "no difference"
            if hi < 0:
                verdict = "lower (better)"
            elif lo > 0:
                verdict = "higher (worse)"
            rows.append(
                {
                    "setting": name,
                    "method": m,
                    f"old ADTM@{step}": fmt(o.mean(), "adtm"),
                    f"new ADTM@{step}": fmt(n.mean(), "adtm"),
                    "new - old [95% CI]": fmt_interval(est, lo, hi, "adtm"),
                    "repetitions": len(reps),
                    "verdict": verdict,
                }
            )
    return pd.DataFrame(rows)


# -- the ledger: verdicts that moved with issue 25's recomputed runs ---------------------------
#: Snapshot of the ledger (``results/claims.csv``) of :data:`TRANSFER_BEFORE` in
#: ``results/changes/`` (``tools/extract_changes.py``): the verdicts before the GP methods of
#: Tables 4 and Chapter 4 moved to the lattice fit.
LEDGER_SNAPSHOT = "claims-before-lattice.csv"
#: The ledger's path in the repository (the snapshot's source).
LEDGER_PATH = "results/claims.csv"


def ledger_changes(root: Path | None = None) -> pd.DataFrame:
    """Claims of the ledger whose verdict differs from the snapshot :data:`LEDGER_SNAPSHOT`
    (checked against its sidecar): id, verdict before and now, and the reason now;
    ``attrs["claims"]``: how many claims both hold."""
    from nmthpo.studies.ledger import read_ledger

    base = root or results_dir()
    path = base / CHANGES_FOLDER / LEDGER_SNAPSHOT
    _snapshot_record(path, TRANSFER_BEFORE, LEDGER_PATH)
    old = read_ledger(path).set_index("id")
    new = read_ledger(base / "claims.csv").set_index("id")
    ids = [
        i for i in new.index if i in old.index and old.loc[i, "verdict"] != new.loc[i, "verdict"]
    ]
    out = pd.DataFrame(
        {
            "claim": ids,
            "chapter": [new.loc[i, "chapter"] for i in ids],
            "verdict before": [old.loc[i, "verdict"] for i in ids],
            "verdict now": [new.loc[i, "verdict"] for i in ids],
            "reason now": [new.loc[i, "reason"] for i in ids],
        }
    )
    out.attrs["claims"] = int(new.index.isin(old.index).sum())  # the claims compared
    return out
