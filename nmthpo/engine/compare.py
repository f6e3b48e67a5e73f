"""Rank your runs against the book's baselines: ``nmthpo compare``.

A run written by ``nmthpo run`` (a directory with ``spec.json`` and ``results.parquet``) is
compared with the book's methods on the same task, objective, seed and number of initial rows.
Trial *t* of a seed starts from the same initial rows in every method
(:func:`nmthpo.engine.runner.initial_rows`), so the first *N* trials of a cached 100-trial
baseline pair trial by trial with an *N*-trial run; runs of different lengths pair on their
common (first) trials. Which baselines, and which folder of the book's cache holds their runs,
is not this module's to know (the engine imports no study): the caller passes them, per
objective, as :class:`BaselineSet` records (``book``; ``nmthpo compare`` passes the experiment
registry's :func:`nmthpo.studies.grids.compare_baselines`: ``results/single`` and
``results/pareto``) or names the baselines itself. A baseline the book's cache does not hold
(another seed, more trials, another task, or no ``book`` given) is computed into the user cache
(``user_cache_dir() / "compare"``). Every run passed to :func:`compare` must be of its task (a
run of another task is an error, never dropped).

Per method and metric (Zhang & Duh 2020, Section 4: ftb, ftc, fb; or fto, fta, fbp):

* the mean over trials with a 95 % percentile bootstrap interval
  (:func:`nmthpo.engine.stats.bootstrap_mean`);
* ``rel_rs``: mean over random search's mean on the same trials
  (:func:`nmthpo.engine.stats.paired_ratio`, with its paired interval);
* ``mean_rank``: the method's rank among all compared methods within each trial (1 = best,
  ties averaged), averaged over trials.

Paired tests (on the primary metric): Wilcoxon's signed-rank test on the paired trials
(:func:`scipy.stats.wilcoxon`: exact for up to 50 trials without ties or zeros, an exact
permutation test for up to 13 trials with ties, else the normal approximation; zero
differences dropped; all-zero differences give p = 1). By default (``pairs="mine"``) the tests
are your runs (those passed in) against each baseline and your runs among themselves -- not
the baselines among themselves, which would only spend the correction -- and the p-values are
Holm-corrected over those pairs; ``pairs="all"`` tests every pair. ``better`` names the method
favoured by the signed ranks when the corrected p-value is below :data:`ALPHA`.

The design check (:class:`Design`, :func:`plan`): with *n* paired trials the exact two-sided
test cannot go below 2 / 2**n, and Holm multiplies the smallest p-value by the number of pairs
*m*, so no test can succeed unless m * 2 / 2**n < 0.05 (e.g. 8 pairs need 9 trials, 17 need 10).
:func:`plan` says so before any baseline is loaded; ``nmthpo compare`` prints it as a warning.

Over several tasks (:func:`compare_tasks`): :func:`compare` on each task, then

* a pooled paired test: every (task, trial) pair of a *normalised* score -- the metric divided
  by random search's mean on that task's paired trials (the per-trial ``rel_rs``; 1 = random
  search's level, so tasks of different sizes weigh alike; a task where random search's mean
  is 0 is left unscaled) -- Wilcoxon's test on the pooled pairs of each tested pair of methods
  present on every task, Holm over those pairs (:attr:`TaskRanking.pooled`);
* beside it, the methods' mean of the primary metric per task, average ranks, Friedman's test
  and the Nemenyi critical difference, all from ``autorank``.

A run with a budget (``--budget B``) cuts every method's sequences at ``B``; a target not
reached by then is scored ``B + 1`` (a lower bound, counted in ``censored``).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import logging
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from nmthpo.engine.cache import USER_CACHE_ENV, results_dir, user_cache_dir
from nmthpo.engine.metric_names import HIGHER_IS_BETTER, METRICS, check_metric, regret_budget
from nmthpo.errors import (
    NAME_MAX,
    InputError,
    InputKeyError,
    InputTypeError,
    InputValueError,
    check_display_name,
    check_int,
)

if TYPE_CHECKING:  # pandas, the tables and the runner load after the cheap checks
    import pandas as pd

    from nmthpo.engine.runner import RunResult, RunSpec

__all__ = [
    "ALPHA",
    "HIGHER_IS_BETTER",
    "METRICS",
    "MIN_TASKS",
    "PAIRS",
    "RUN_FILES",
    "BaselineSet",
    "Comparison",
    "Design",
    "NotARunDirectory",
    "RunDir",
    "TaskRanking",
    "baseline_run",
    "check_run_dir",
    "check_user_cache",
    "compare",
    "compare_tasks",
    "dumps",
    "holm",
    "load_run_dir",
    "load_run_spec",
    "method_names",
    "min_p_holm",
    "pairs_to_test",
    "plan",
    "plan_tasks",
    "trials_needed",
]

#: Level of the paired tests (after Holm's correction).
ALPHA: float = 0.05
#: Fewest tasks ``autorank`` ranks over.
MIN_TASKS: int = 5
#: Which pairs are tested: ``"mine"`` (default) your runs against each baseline and among
#: themselves; ``"all"`` every pair of methods, the baselines among themselves too.
PAIRS: tuple[str, ...] = ("mine", "all")
#: The files of a run directory that compare reads (``nmthpo run --out DIR`` writes them).
RUN_FILES: tuple[str, ...] = ("spec.json", "sequences.ss", "results.parquet")
#: Messages about the baselines (a damaged file of the book's cache); the CLI prints them.
log = logging.getLogger("nmthpo.compare")


@dataclass(frozen=True)
class BaselineSet:
    """The baselines of one objective: the methods compared by default and where their runs live.

    Attributes
    ----------
    methods : tuple of str
        Registry names compared when no baselines are named (random search is always added).
    folder : str
        The folder of the book's cache (:func:`nmthpo.engine.cache.results_dir`) that holds
        their runs (e.g. ``"single"``): :func:`baseline_run` reads them from there.
    """

    methods: tuple[str, ...]
    folder: str


class NotARunDirectory(InputValueError, FileNotFoundError):
    """A path that is not a directory holding :data:`RUN_FILES` (what ``nmthpo run --out DIR``
    writes): an :class:`~nmthpo.errors.InputError` that is also a ``FileNotFoundError``."""


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_name(v: Any) -> bool:
    try:
        check_display_name(v)
    except InputError:
        return False
    return True


#: The fields of a single-task run's ``spec.json`` (:meth:`RunSpec.payload`) and what each
#: must hold: (test, what the message says is allowed).
_SPEC_FIELDS: dict[str, tuple[Any, str]] = {
    "method": (lambda v: isinstance(v, str) and bool(v.strip()), "a method name"),
    "task": (lambda v: isinstance(v, str) and bool(v), "a task name"),
    "objective": (lambda v: isinstance(v, str) and v in METRICS, "'bleu' or 'pareto'"),
    "seed": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "n_init": (lambda v: _is_int(v) and v >= 1, "an integer >= 1"),
    "budget": (lambda v: v is None or (_is_int(v) and v >= 1), "null or an integer >= 1"),
    "stop": (lambda v: v in ("target", "none"), "'target' or 'none'"),
    "encoding": (lambda v: isinstance(v, str) and bool(v), "an encoding name"),
    "record_mse": (lambda v: isinstance(v, bool), "true or false"),
    "settings": (lambda v: isinstance(v, dict), "a JSON object of settings"),
}
#: Fields a spec holds only when set (:attr:`RunSpec.record_time`; the method's
#: :attr:`~nmthpo.optimizers.registry.MethodSpec.revision` when not 0).
_OPTIONAL_SPEC_FIELDS: dict[str, tuple[Any, str]] = {
    "record_time": (lambda v: v is True, "true (written only when set)"),
    "revision": (lambda v: _is_int(v) and v >= 1, "an integer >= 1 (written only when not 0)"),
    "name": (_is_name, f"a display name of 1-{NAME_MAX} printable characters (--name)"),
}


@dataclass(frozen=True)
class RunDir:
    """A run directory that passed :func:`check_run_dir` (its results not read yet).

    Attributes
    ----------
    path : Path
    spec : dict
        The checked ``spec.json``: exactly the fields of a single-task run's spec.
    sequences : tuple of tuple of int
        ``sequences.ss``: one trial a line, row ids (not yet checked against the table).
    """

    path: Path
    spec: dict[str, Any]
    sequences: tuple[tuple[int, ...], ...]

    @property
    def trials(self) -> int:
        """Trials of the run (lines of ``sequences.ss``)."""
        return len(self.sequences)


def _rerun(path: Path) -> str:
    return (
        f"write it again with `nmthpo run ... --out {path} --force`, or give another run directory"
    )


def _read_text(file: Path, what: str, fix: str) -> str:
    if not os.access(file, os.R_OK):
        raise InputValueError(f"{file}: not readable; check its permissions")
    try:
        return file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputValueError(f"{file}: not text ({what} is; the file is damaged); {fix}") from None


def _json_kind(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    kinds = {list: "an array", str: "a string", int: "a number", float: "a number"}
    return kinds.get(type(value), type(value).__name__)


def _check_spec(file: Path, fix: str) -> dict[str, Any]:
    from nmthpo.benchmark.tasks import task_names  # the task registry: standard library only

    text = _read_text(file, "a run's spec", fix)
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        empty = " (the file is empty)" if not text.strip() else ""
        raise InputValueError(
            f"{file}: not JSON{empty} ({exc.msg} at line {exc.lineno}); {fix}"
        ) from None
    if not isinstance(payload, dict):
        raise InputValueError(
            f"{file}: a run's spec is a JSON object, this holds {_json_kind(payload)}; {fix}"
        )
    if "target" in payload or "sources" in payload:
        raise InputValueError(
            f"{file}: the spec of a transfer run (with source tasks); compare compares "
            "single-task runs (`nmthpo run METHOD --task TASK --out DIR`)"
        )
    extra, missing = (
        sorted(set(payload) - set(_SPEC_FIELDS) - set(_OPTIONAL_SPEC_FIELDS)),
        sorted(set(_SPEC_FIELDS) - set(payload)),
    )
    if extra or missing:
        parts = [f"unknown key(s) {', '.join(extra)}"] if extra else []
        parts += [f"missing key(s) {', '.join(missing)}"] if missing else []
        raise InputValueError(
            f"{file}: not the spec of a single-task run of `nmthpo run` ({'; '.join(parts)}; "
            f"a run's spec has exactly {', '.join(_SPEC_FIELDS)}); {fix}"
        )
    for k, (ok, allowed) in {**_SPEC_FIELDS, **_OPTIONAL_SPEC_FIELDS}.items():
        if k in payload and not ok(payload[k]):
            raise InputValueError(f"{file}: {k}={payload[k]!r}, must be {allowed}; {fix}")
    lookup = task_names("lookup")
    if payload["task"] not in lookup:
        raise InputValueError(
            f"{file}: task {payload['task']!r} is not a lookup table; compare reads runs on "
            f"the tables ({', '.join(lookup)})"
        )
    if payload["budget"] is not None and payload["budget"] < payload["n_init"]:
        raise InputValueError(
            f"{file}: budget={payload['budget']} is below n_init={payload['n_init']}; {fix}"
        )
    return payload


def _check_sequences(file: Path, fix: str) -> tuple[tuple[int, ...], ...]:
    text = _read_text(file, "a sequence file", fix)
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        toks = line.split()
        if not toks:
            continue
        bad = next((t for t in toks if not (t.isascii() and t.isdigit())), None)
        if bad is not None:
            raise InputValueError(
                f"{file}, line {lineno}: {bad[:20]!r} is not a row id (a sequence file holds "
                f"one trial a line, row ids separated by spaces; the file is damaged); {fix}"
            )
        seq = tuple(int(t) for t in toks)
        if len(set(seq)) != len(seq):
            twice = next(r for r in seq if seq.count(r) > 1)
            raise InputValueError(
                f"{file}, line {lineno}: row {twice} appears twice (a trial evaluates a row "
                f"once; the file is damaged); {fix}"
            )
        out.append(seq)
    if not out:
        raise InputValueError(f"{file}: holds no trial (one trial a line); {fix}")
    return tuple(out)


def check_run_dir(path: str | Path) -> RunDir:
    """Check a directory written by ``nmthpo run --out DIR`` without loading pandas or a table.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    RunDir
        Its spec and sequences.

    Raises
    ------
    NotARunDirectory
        ``path`` is missing, a file, or lacks one of :data:`RUN_FILES`.
    nmthpo.errors.InputValueError
        ``spec.json`` is not a single-task run's spec (not JSON, not an object, other keys,
        a value of the wrong type, a task that is not a lookup table), or ``sequences.ss``
        holds what is not row ids, a row twice or no trial; the message names the file and
        the fix.
    """
    path = Path(path)
    if not path.is_dir():
        what = "is a file" if path.exists() else "no such directory"
        raise NotARunDirectory(
            f"run directory {path}: {what}; give directories written by `nmthpo run ... --out DIR`"
        )
    for name in RUN_FILES:
        if (path / name).is_dir():
            raise InputValueError(
                f"run directory {path}: {path / name} is a directory, not a file; {_rerun(path)}"
            )
    missing = [name for name in RUN_FILES if not (path / name).is_file()]
    if missing:
        raise NotARunDirectory(
            f"{path} is not a run directory: it lacks {', '.join(missing)} (`nmthpo run ... "
            f"--out {path}` writes {', '.join(RUN_FILES)}); give the directory of a finished run"
        )
    fix = _rerun(path)
    spec = _check_spec(path / "spec.json", fix)
    return RunDir(path, spec, _check_sequences(path / "sequences.ss", fix))


def _check_checksums(path: Path, fix: str) -> None:
    """Verify the run directory's ``SHA256SUMS`` (written by ``nmthpo run``; a directory of an
    older version has none: its files are then only checked against each other)."""
    import hashlib

    sums = path / "SHA256SUMS"
    if not sums.is_file():
        return
    try:
        lines = sums.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        raise InputValueError(f"{sums}: damaged, not a checksum list; {fix}") from None
    for line in lines:
        digest, _, name = line.partition("  ")
        if len(digest) != 64 or name not in RUN_FILES + _MORE_FILES:
            raise InputValueError(f"{sums}: damaged, line {line[:60]!r}; {fix}")
        f = path / name
        if not f.is_file():
            raise InputValueError(f"{f}: missing, though listed in {sums}; {fix}")
        h = hashlib.sha256()
        with open(f, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        if h.hexdigest() != digest:
            raise InputValueError(
                f"{f}: damaged, its SHA-256 differs from the one {sums.name} records; {fix}"
            )


#: Other files ``nmthpo run`` may write into a run directory (transfer runs).
_MORE_FILES = ("trajectories.parquet", "target_weights.csv")


def load_run_spec(path: str | Path) -> RunSpec:
    """The spec of a directory written by ``nmthpo run``, without reading its results
    (checked by :func:`check_run_dir`)."""
    from nmthpo.engine.runner import RunSpec

    return RunSpec.from_payload(check_run_dir(path).spec)


def _frame_problem(frame: pd.DataFrame, sequences: Sequence[Sequence[int]]) -> str | None:
    if not {"trial", "row"} <= set(frame.columns):
        return "it has no trial and row columns"
    got = [tuple(g["row"].tolist()) for _, g in frame.groupby("trial", sort=True)]
    if len(got) != len(sequences):
        return f"it holds {len(got)} trials, sequences.ss {len(sequences)}"
    for t, (a, b) in enumerate(zip(got, sequences, strict=True)):
        if a != tuple(b):
            return f"its rows of trial {t} differ from line {t + 1} of sequences.ss"
    return None


def load_run_dir(path: str | Path) -> RunResult:
    """Read a directory written by ``nmthpo run`` (``spec.json``, ``sequences.ss``,
    ``results.parquet``).

    Checked first by :func:`check_run_dir`; then the sequences' row ids must lie in the task's
    table and ``results.parquet`` must read and hold the same rows as ``sequences.ss`` (a run
    directory has no checksum: the two files check each other). Every problem is an
    :class:`~nmthpo.errors.InputValueError` naming the file ("damaged") and the fix.
    """
    import pandas as pd

    from nmthpo.benchmark.tables import load_table
    from nmthpo.engine.runner import RunResult, RunSpec

    rd = check_run_dir(path)
    spec = RunSpec.from_payload(rd.spec)
    fix = _rerun(rd.path)
    n = load_table(spec.task).n_rows
    for t, seq in enumerate(rd.sequences):
        out = next((r for r in seq if r >= n), None)
        if out is not None:
            raise InputValueError(
                f"{rd.path / 'sequences.ss'}, line {t + 1}: row id {out} is outside the {n} "
                f"rows of {spec.task}'s table (damaged, or sequences of another task); {fix}"
            )
    pq = rd.path / "results.parquet"
    if not os.access(pq, os.R_OK):
        raise InputValueError(f"{pq}: not readable; check its permissions")
    try:
        frame = pd.read_parquet(pq)
    except Exception as exc:  # pyarrow raises many kinds on damaged bytes
        detail = str(exc).strip().splitlines()[0][:100] if str(exc).strip() else ""
        raise InputValueError(
            f"{pq}: damaged, it cannot be read ({type(exc).__name__}"
            f"{': ' + detail if detail else ''}); {fix}"
        ) from None
    # the two files check each other, and the frame must be a valid run of its spec (rows,
    # steps and BLEU of the table: the runner's check of a cached run)
    problem = _frame_problem(frame, rd.sequences) or spec.frame_problem(frame)
    if problem is not None:
        raise InputValueError(f"{pq}: damaged or altered: {problem}; {fix}")
    _check_checksums(rd.path, fix)  # last: the checks above say more about what is wrong
    return RunResult(spec, frame, rd.spec.get("name"))


def method_names(runs: Sequence[RunResult]) -> list[str]:
    """Display names: a run's :attr:`~nmthpo.engine.runner.RunResult.name` if given, else the
    method name, with its settings when two runs share a name."""
    base = [r.label for r in runs]
    out = []
    for r, b in zip(runs, base, strict=True):
        if base.count(b) > 1 and r.spec.settings and r.name is None:
            b += "[" + ",".join(f"{k}={v}" for k, v in sorted(r.spec.settings.items())) + "]"
        out.append(b)
    dupes = {n for n in out if out.count(n) > 1}
    if dupes:
        raise InputValueError(
            f"two runs of {sorted(dupes)} with the same settings on one task; "
            "pass each run directory once"
        )
    return out


def _book_source(
    name: str, like: RunSpec, trials: int, folder: str | None
) -> tuple[RunSpec, Path] | None:
    """The run of baseline ``name`` in the book's cache ``results/<folder>`` paired with
    ``like`` and holding at least ``trials`` trials, or ``None``."""
    import pandas as pd

    from nmthpo.engine.runner import cached_runs

    book = results_dir() / folder if folder is not None else None
    if book is None or not book.exists():
        return None
    for spec, pq in cached_runs(book):
        if (
            spec.method == name
            and spec.task == like.task
            and spec.objective == like.objective
            and spec.seed == like.seed
            and spec.n_init == like.n_init
            and spec.budget is None
            and spec.stop == "target"
            and not spec.settings
        ):
            try:
                have = int(pd.read_parquet(pq, columns=["trial"])["trial"].nunique())
            except Exception as exc:  # a damaged file of the book's cache: compute instead
                log.warning("%s cannot be read (%s); computing %s instead", pq, exc, name)
                return None
            if have >= trials:
                return spec, pq
    return None


def _user_cached(name: str, like: RunSpec) -> bool:
    """Whether the user cache holds a finished run of baseline ``name`` paired with ``like``."""
    from nmthpo.engine.runner import RunSpec

    try:
        spec = RunSpec.of(
            name, like.task, seed=like.seed, objective=like.objective, n_init=like.n_init
        )
        return (user_cache_dir() / "compare" / f"{spec.stem()}.parquet").is_file()
    except Exception:  # an unresolvable name is refused by the run itself
        return False


def check_user_cache(compute: Sequence[str] = ()) -> Path:
    """The user cache's ``compare`` folder, checked before any baseline is computed there.

    Parameters
    ----------
    compute : sequence of str
        The baselines to compute (named in the messages); empty: only check that the folder
        is not below a file.

    Returns
    -------
    Path
        ``user_cache_dir() / "compare"``.

    Raises
    ------
    nmthpo.errors.InputValueError
        ``NMTHPO_RESULTS`` (or the default user cache) is a file, lies below a file, or (with
        ``compute``) is not writable; the message names the variable and the fix.
    """
    root = user_cache_dir()
    env = os.environ.get(USER_CACHE_ENV)
    where = f"{USER_CACHE_ENV}={env}" if env else f"the user cache {root} ({USER_CACHE_ENV} unset)"
    need = (
        f"compare computes the baselines the book's cache lacks ({', '.join(compute)}) into it"
        if compute
        else "compare computes the baselines the book's cache lacks into it"
    )
    fix = f"set {USER_CACHE_ENV} to a directory you can write to"
    target = root / "compare"
    p = target
    while not p.exists() and p != p.parent:
        p = p.parent
    if not p.is_dir():
        raise InputValueError(
            f"{where}: {p} is a file, not a directory; {need}; {fix}, or remove the file"
        )
    if compute and not os.access(p, os.W_OK | os.X_OK):
        raise InputValueError(f"{where}: {p} is not writable; {need}; {fix}")
    return target


def baseline_run(
    name: str, like: RunSpec, trials: int, progress: bool = False, folder: str | None = None
) -> tuple[RunResult, str]:
    """The first ``trials`` trials of baseline ``name`` paired with ``like``, and their source.

    Read from the book's cache folder ``results/<folder>`` when it holds them, else (or without
    a ``folder``, or when the book's file is damaged) computed (and cached) in
    ``user_cache_dir() / "compare"`` (checked by :func:`check_user_cache` first).
    """
    from nmthpo.engine.runner import load_run, run

    found = _book_source(name, like, trials, folder)
    if found is not None:
        spec, pq = found
        try:
            return load_run(spec, pq.parent, trials=trials), f"results/{folder}/{pq.name}"
        except Exception as exc:  # a damaged file of the book's cache: compute instead
            log.warning("%s is not used (%s); computing %s instead", pq, exc, name)
    cache = check_user_cache([] if _user_cached(name, like) else [name])
    res = run(
        name,
        like.task,
        trials=trials,
        seed=like.seed,
        objective=like.objective,
        n_init=like.n_init,
        cache_dir=cache,
        progress=progress,
    )
    return res, f"computed: {cache / res.spec.stem()}.parquet"


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979), in the input order."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj
    return out


def min_p_holm(trials: int, pairs: int) -> float:
    """The smallest Holm-corrected p-value ``pairs`` signed-rank tests can reach.

    Parameters
    ----------
    trials : int
        Paired observations per test (*n*).
    pairs : int
        Tests corrected together (*m*).

    Returns
    -------
    float
        ``min(1, m * 2 / 2**n)``: the exact two-sided Wilcoxon test is smallest, 2 / 2**n,
        when all *n* differences share one sign, and Holm multiplies the smallest p-value by
        *m*. Zero differences are dropped (a smaller *n*) and the normal approximation is
        larger, so this is the best the design allows: necessary for a difference to be
        found, not sufficient. 1 when there is nothing to test.
    """
    if trials < 1 or pairs < 1:
        return 1.0
    return min(1.0, pairs * 2.0 ** (1 - trials))


def trials_needed(pairs: int, alpha: float = ALPHA) -> int:
    """The fewest paired trials *n* with ``min_p_holm(n, pairs) < alpha``.

    Parameters
    ----------
    pairs : int
        Tests corrected together (at least 1).
    alpha : float
        Level in (0, 1].

    Returns
    -------
    int
        e.g. 9 for 8 pairs at 0.05 (8 * 2 / 512 = 0.031), 11 for 36 pairs.
    """
    if not 0 < alpha <= 1:
        raise InputValueError(f"alpha must be in (0, 1], got {alpha}")
    n = 1
    while min_p_holm(n, max(pairs, 1)) >= alpha:
        n += 1
    return n


@dataclass(frozen=True)
class Design:
    """Whether the paired tests of a comparison can find a difference at all.

    Attributes
    ----------
    trials : int
        Paired observations per test: the common trials of one task, or the pooled
        (task, trial) pairs over tasks.
    pairs : int
        Tests corrected together by Holm.
    alpha : float
    unit : str
        What ``trials`` counts, for the messages.
    longer : dict of str to int
        Runs with more trials than ``trials`` (display name -> their trials): only their
        first ``trials`` trials are paired.
    """

    trials: int
    pairs: int
    alpha: float = ALPHA
    unit: str = "paired trials"
    longer: dict[str, int] = field(default_factory=dict)

    @property
    def min_p_holm(self) -> float:
        """:func:`min_p_holm` of the design."""
        return min_p_holm(self.trials, self.pairs)

    @property
    def can_reach(self) -> bool:
        """True when some test could be significant (smallest corrected p below alpha)."""
        return self.pairs > 0 and self.min_p_holm < self.alpha

    @property
    def trials_needed(self) -> int:
        """:func:`trials_needed` for the design's pairs and alpha."""
        return trials_needed(self.pairs, self.alpha)

    def summary(self) -> str:
        """One line: trials, pairs and the smallest attainable corrected p-value."""
        return (
            f"{self.trials} {self.unit}, {self.pairs} pairs tested: the smallest "
            f"attainable Holm-corrected p is {self.min_p_holm:.3g}"
        )

    def warning(self) -> str | None:
        """The message when no test can reach ``alpha`` (else None)."""
        if self.can_reach:
            return None
        if self.pairs == 0:
            return "no pair of methods to test"
        return (
            f"{self.trials} {self.unit}: the smallest attainable corrected p is "
            f"{self.min_p_holm:.3g} (Wilcoxon signed-rank, Holm over {self.pairs} pairs), "
            f"not below alpha {self.alpha:g}, so no test can find a difference; use at "
            f"least {self.trials_needed} {self.unit}"
        )

    def note(self) -> str | None:
        """The message when runs are cut to the common trials (else None)."""
        if not self.longer:
            return None
        cut = ", ".join(f"{k} has {v}" for k, v in self.longer.items())
        return (
            f"{cut} trials: only the first {self.trials} (the trials common to every run) "
            "are paired"
        )

    def to_json(self) -> dict[str, Any]:
        """``{"trials", "pairs", "alpha", "min_p_holm", "can_reach", "trials_needed", "unit",
        "longer"}``."""
        return {
            "trials": self.trials,
            "pairs": self.pairs,
            "alpha": self.alpha,
            "min_p_holm": self.min_p_holm,
            "can_reach": self.can_reach,
            "trials_needed": self.trials_needed,
            "unit": self.unit,
            "longer": dict(self.longer),
        }


def pairs_to_test(
    mine: Sequence[str],
    baselines: Sequence[str],
    pairs: str = "mine",
) -> list[tuple[str, str]]:
    """The pairs of methods ``(a, b)`` a comparison tests.

    Parameters
    ----------
    mine : sequence of str
        Your runs' names (``a`` of every pair that involves one of them).
    baselines : sequence of str
        The baselines' names.
    pairs : {"mine", "all"}
        ``"mine"``: each of ``mine`` against each baseline and ``mine`` among themselves;
        ``"all"``: every pair.
    """
    if pairs not in PAIRS:
        raise InputValueError(f"unknown pairs {pairs!r}; valid: {', '.join(PAIRS)}")
    mine = list(mine)
    every = itertools.combinations([*mine, *(b for b in baselines if b not in mine)], 2)
    return [(a, b) for a, b in every if pairs == "all" or a in mine]


def _wilcoxon(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Two-sided p-value and the signed-rank balance R+ - R- of ``a - b``."""
    from scipy import stats

    d = a - b
    nz = d[d != 0]
    if nz.size == 0:
        return 1.0, 0.0
    ranks = stats.rankdata(np.abs(nz))
    balance = float(ranks[nz > 0].sum() - ranks[nz < 0].sum())
    return float(stats.wilcoxon(a, b).pvalue), balance


def _scores(
    res: RunResult,
    limit: int | None,
    objective: str,
    ties: str,
    n_init: int,
    regret: int | None = None,
) -> tuple[pd.DataFrame, int]:
    from nmthpo.benchmark.tables import load_table
    from nmthpo.engine.metrics import evaluate_sequences

    table = load_table(res.spec.task)
    seqs = [s[:limit] if limit is not None else s for s in res.sequences]
    default = 20 if objective == "bleu" else 50
    budget = default if limit is None else min(default, limit)
    frame = evaluate_sequences(
        seqs,
        table.bleu,
        table.pareto,
        objective=objective,
        ties=ties,
        n_init=n_init,
        budget=budget,
        regret_at=() if regret is None else (regret,),
    ).drop(columns="trial")
    censored = int(frame.isna().to_numpy().sum())
    if censored:
        if limit is None:
            raise InputValueError(
                f"{res.spec.method}: some sequences stop before the target "
                "without a budget; were they written by `nmthpo run`?"
            )
        frame = frame.fillna(float(limit + 1))
    return frame, censored


@dataclass
class Comparison:
    """The outcome of :func:`compare` on one task (see :meth:`to_json` for its contract)."""

    task: str
    objective: str
    ties: str
    trials: int
    metric: str
    #: per-trial metric values: one frame per method (columns: the objective's metrics)
    values: dict[str, pd.DataFrame]
    #: metric -> method -> {"mean", "ci_low", "ci_high", "rel_rs", "rel_rs_low", ...}
    summary: dict[str, dict[str, dict[str, float]]]
    tests: list[dict[str, Any]]
    sources: dict[str, str]
    censored: dict[str, int] = field(default_factory=dict)
    #: what the tests can reach (:class:`Design`)
    design: Design | None = None
    #: your runs' names (the runs passed in, as opposed to the baselines)
    mine: list[str] = field(default_factory=list)
    #: which pairs ``tests`` holds (:data:`PAIRS`)
    pairs: str = "mine"

    def leaderboard(self, metric: str | None = None) -> pd.DataFrame:
        """One row per method, best mean rank first: mean, interval, ratio to RS, rank."""
        import pandas as pd

        m = metric or self.metric
        frame = pd.DataFrame(self.summary[m]).T
        frame.index.name = "method"
        return frame.sort_values(["mean_rank", "mean"])

    def to_json(self) -> dict[str, Any]:
        """The ``nmthpo compare --json`` object.

        ``{"task", "objective", "ties", "trials", "metric", "methods": {NAME: {"mean",
        "ci_low", "ci_high", "rel_rs", "mean_rank"}}, "tests": [{"a", "b", "p_holm",
        "better"}], "pairs", "design": {...} (:meth:`Design.to_json`), "mine": [NAME],
        "metrics": {metric: {NAME: {...}}}, "sources": {NAME: where from}, "censored"}``.
        """
        keys = ("mean", "ci_low", "ci_high", "rel_rs", "mean_rank")
        return {
            "task": self.task,
            "objective": self.objective,
            "ties": self.ties,
            "trials": self.trials,
            "metric": self.metric,
            "methods": {k: {f: v[f] for f in keys} for k, v in self.summary[self.metric].items()},
            "tests": self.tests,
            "pairs": self.pairs,
            "design": None if self.design is None else self.design.to_json(),
            "mine": list(self.mine),
            "metrics": self.summary,
            "sources": self.sources,
            "censored": self.censored,
        }


@dataclass
class _Setup:
    """What :func:`compare` needs before it loads a baseline (checked, cheap)."""

    runs: list[RunResult]
    names: list[str]
    trials: int
    metric: str
    baselines: list[str]
    pairs: list[tuple[str, str]]
    design: Design
    #: baselines the book's cache lacks (computed into the user cache)
    computed: list[str] = field(default_factory=list)


def _defaults(objective: str, book: Mapping[str, BaselineSet] | None) -> BaselineSet | None:
    """``book``'s baselines of ``objective``, if it has them."""
    return None if book is None else book.get(objective)


def _check_runs(runs: Any, baselines: Any = None, tasks: Any = None) -> None:
    """The compare API's arguments, before any work: ``runs`` a non-empty sequence of
    :class:`~nmthpo.engine.runner.RunResult`, ``baselines``/``tasks`` ``None`` or sequences of
    names (not one string)."""
    from nmthpo.engine.runner import RunResult

    if isinstance(runs, (str, bytes)) or not isinstance(runs, Sequence):
        raise InputTypeError(
            f"runs={str(runs)[:40]!r}: expected a list of runs (nmthpo.run(...) results or "
            "load_run_dir(DIR))"
        )
    if not runs:
        raise InputValueError("runs=[]: no run to compare; give at least one")
    bad = [r for r in runs if not isinstance(r, RunResult)]
    if bad:
        raise InputTypeError(
            f"runs: {str(bad[0])[:40]!r} is not a run (nmthpo.run(...) or load_run_dir(DIR))"
        )
    for name, names in (("baselines", baselines), ("tasks", tasks)):
        if names is None:
            continue
        if isinstance(names, (str, bytes)) or not isinstance(names, Sequence):
            raise InputTypeError(
                f"{name}={names!r}: expected a list of names, e.g. [{names!r}]"
                if isinstance(names, str)
                else f"{name}={names!r}: expected a list of names"
            )
        wrong = [n for n in names if not isinstance(n, str) or not n.strip()]
        if wrong:
            raise InputTypeError(f"{name}: {wrong[0]!r} is not a name")


def _setup(
    runs: Sequence[RunResult],
    task: str,
    baselines: Sequence[str] | None,
    ties: str,
    metric: str | None,
    pairs: str,
    book: Mapping[str, BaselineSet] | None = None,
) -> _Setup:
    from nmthpo.benchmark.tables import check_task
    from nmthpo.engine.metrics import TIES

    _check_runs(runs, baselines)
    check_task(task)
    if ties not in TIES:
        raise InputValueError(f"unknown ties convention {ties!r}; valid: {', '.join(TIES)}")
    if pairs not in PAIRS:
        raise InputValueError(f"unknown pairs {pairs!r}; valid: {', '.join(PAIRS)}")
    if not runs:
        raise InputValueError(f"no run to compare on task {task!r}")
    other = [r for r in runs if r.spec.task != task]
    if other:
        listed = ", ".join(f"{r.spec.method} (task {r.spec.task})" for r in other)
        raise InputValueError(
            f"runs of another task than {task!r}: {listed}; pass only runs of "
            f"{task}, or compare every task with --task all"
        )
    first = runs[0].spec
    for r in runs[1:]:
        for f in ("objective", "seed", "n_init"):
            if getattr(r.spec, f) != getattr(first, f):
                raise InputValueError(
                    f"runs differ in {f} ({getattr(first, f)!r} vs "
                    f"{getattr(r.spec, f)!r}); only runs with one {f} pair up"
                )
    metric = check_metric(metric or METRICS[first.objective][0], first.objective)
    at = regret_budget(metric) or 0
    short = [r.spec.budget for r in runs if r.spec.budget is not None and r.spec.budget < at]
    if short:
        raise InputValueError(
            f"metric {metric}: the runs stop after {min(short)} evaluations, fewer than {at}; "
            "choose a smaller budget B"
        )
    trials = min(r.trials for r in runs)
    for r in runs:
        if sorted(r.frame["trial"].unique())[:trials] != list(range(trials)):
            raise InputValueError(f"{r.spec.method}: trials must be numbered 0..N-1 to pair up")
    names = method_names(runs)
    if baselines is None:
        default = _defaults(first.objective, book)
        if default is None:
            raise InputValueError(
                f"no baselines for objective {first.objective!r}: name them "
                "(baselines=[...]) or pass book={objective: BaselineSet(...)}, "
                "e.g. nmthpo.studies.grids.compare_baselines()"
            )
        baselines = default.methods
    else:
        from nmthpo.optimizers.registry import get_spec

        for b in baselines:
            try:
                get_spec(b, first.objective)
            except (KeyError, ValueError) as exc:
                text = exc.args[0] if exc.args else str(exc)
                raise InputKeyError(f"baselines: {text}") from None
    wanted = ["rs", *baselines]
    base = [b for b in dict.fromkeys(wanted) if b not in names]
    tested = pairs_to_test(names, base, pairs)
    longer = {n: r.trials for n, r in zip(names, runs, strict=True) if r.trials > trials}
    default = _defaults(first.objective, book)
    folder = None if default is None else default.folder
    computed = [
        b
        for b in base
        if _book_source(b, first, trials, folder) is None and not _user_cached(b, first)
    ]
    if computed:  # before any baseline is loaded: the user cache must take them
        check_user_cache(computed)
    return _Setup(
        list(runs),
        names,
        trials,
        metric,
        base,
        tested,
        Design(trials, len(tested), longer=longer),
        computed,
    )


def plan(
    runs: Sequence[RunResult],
    task: str,
    baselines: Sequence[str] | None = None,
    pairs: str = "mine",
    book: Mapping[str, BaselineSet] | None = None,
) -> Design:
    """The :class:`Design` of :func:`compare` with these arguments, before any work.

    Checks the runs as :func:`compare` does (one task, objective, seed and ``n_init``) and
    counts the common trials and the pairs to test; no baseline is loaded.
    """
    return _setup(runs, task, baselines, "value", None, pairs, book).design


def compare(
    runs: Sequence[RunResult],
    task: str,
    baselines: Sequence[str] | None = None,
    ties: str = "value",
    metric: str | None = None,
    seed: int = 0,
    progress: bool = False,
    pairs: str = "mine",
    book: Mapping[str, BaselineSet] | None = None,
) -> Comparison:
    """Compare ``runs`` on ``task`` with the book's ``baselines`` over paired trials.

    Parameters
    ----------
    runs : sequence of RunResult
        Your runs (e.g. :func:`load_run_dir`): all of ``task`` (a run of another task is a
        ``ValueError`` naming it) and of one objective, seed and ``n_init``. Runs of different
        lengths pair on their common trials (:attr:`Design.longer` names the longer ones).
    task : str
    baselines : sequence of str, optional
        Registry names; default ``book``'s methods of the objective (one of the two is
        needed). Random search is always included (``rel_rs`` needs it).
    ties : {"value", "first-id"}
        ftb's tie convention (:mod:`nmthpo.engine.metrics`).
    metric : str, optional
        Primary metric of ``methods`` and ``tests``; default ``ftb`` (``fto`` for Pareto).
    seed : int
        Seed of the bootstrap draws.
    progress : bool
        Show a progress bar while a missing baseline is computed.
    pairs : {"mine", "all"}
        Tested pairs (:func:`pairs_to_test`): your runs against the baselines and among
        themselves (default), or every pair. Holm's correction is over the tested pairs.
    book : mapping of str to BaselineSet, optional
        Per objective, the default baselines and the folder of the book's cache that holds
        their runs (``nmthpo compare`` passes :func:`nmthpo.studies.grids.compare_baselines`).
        Without it every baseline is computed into the user cache.

    Returns
    -------
    Comparison
        With its :class:`Design` (can any test reach :data:`ALPHA`?).
    """
    from scipy import stats

    from nmthpo.engine.runner import RunResult
    from nmthpo.engine.stats import bootstrap_mean, paired_ratio

    check_int("seed", seed, 0)
    if not isinstance(progress, bool):
        raise InputTypeError(f"progress={progress!r}: expected True or False")
    s = _setup(runs, task, baselines, ties, metric, pairs, book)
    first = s.runs[0].spec
    objective = first.objective
    default = _defaults(objective, book)
    folder = None if default is None else default.folder
    metrics = METRICS[objective] + ((s.metric,) if regret_budget(s.metric) else ())
    budgets = [r.spec.budget for r in s.runs if r.spec.budget is not None]
    limit = min(budgets) if budgets else None
    entries: dict[str, RunResult] = {}
    sources: dict[str, str] = {}
    for name, r in zip(s.names, s.runs, strict=True):
        entries[name] = RunResult(r.spec, r.frame[r.frame["trial"] < s.trials])
        sources[name] = "run directory"
    for b in s.baselines:
        entries[b], sources[b] = baseline_run(b, first, s.trials, progress, folder)
    values: dict[str, pd.DataFrame] = {}
    censored: dict[str, int] = {}
    for name, r in entries.items():
        values[name], censored[name] = _scores(
            r, limit, objective, ties, first.n_init, regret_budget(s.metric)
        )
    order = list(entries)
    summary: dict[str, dict[str, dict[str, float]]] = {}
    for m in metrics:
        mat = np.column_stack([values[k][m].to_numpy(dtype=float) for k in order])
        ranks = stats.rankdata(-mat if m in HIGHER_IS_BETTER else mat, axis=1).mean(axis=0)
        rs = values["rs"][m].to_numpy(dtype=float)
        summary[m] = {}
        for j, k in enumerate(order):
            v = mat[:, j]
            mean, lo, hi = bootstrap_mean(v, seed=seed)
            rel, rlo, rhi = paired_ratio(v, rs, seed=seed)
            summary[m][k] = {
                "mean": mean,
                "ci_low": lo,
                "ci_high": hi,
                "rel_rs": rel,
                "rel_rs_low": rlo,
                "rel_rs_high": rhi,
                "mean_rank": float(ranks[j]),
            }
    tests = _pair_tests(
        {k: values[k][s.metric].to_numpy(dtype=float) for k in order},
        s.metric in HIGHER_IS_BETTER,
        s.pairs,
    )
    return Comparison(
        task,
        objective,
        ties,
        s.trials,
        s.metric,
        values,
        summary,
        tests,
        sources,
        censored,
        s.design,
        s.names,
        pairs,
    )


def _pair_tests(
    values: dict[str, np.ndarray], higher: bool, pairs: Sequence[tuple[str, str]] | None = None
) -> list[dict[str, Any]]:
    """Wilcoxon + Holm over ``pairs`` (default: every pair of ``values``)."""
    pairs = list(itertools.combinations(values, 2)) if pairs is None else list(pairs)
    raw = [_wilcoxon(values[a], values[b]) for a, b in pairs]
    adj = holm([p for p, _ in raw]) if raw else np.array([])
    out = []
    for (a, b), (_, bal), p in zip(pairs, raw, adj, strict=True):
        better = None
        if p < ALPHA and bal != 0:
            a_wins = (bal > 0) == higher
            better = a if a_wins else b
        out.append({"a": a, "b": b, "p_holm": float(p), "better": better})
    return out


#: How :func:`compare_tasks` normalises the primary metric before pooling tasks.
_NORMALISATION = (
    "the metric divided by random search's mean on the task's paired trials "
    "(unscaled where that mean is 0)"
)


@dataclass
class TaskRanking:
    """The outcome of :func:`compare_tasks`: per-task comparisons, the pooled paired tests
    and ``autorank``'s ranking."""

    comparisons: dict[str, Comparison]
    #: tasks x methods: mean of the primary metric
    means: pd.DataFrame
    #: methods -> average rank over tasks (1 = best), ascending
    ranks: pd.Series
    cd: float | None
    pvalue: float
    omnibus: str
    posthoc: str
    result: Any = field(repr=False)
    #: Wilcoxon + Holm on the pooled (task, trial) pairs of the normalised metric
    pooled: list[dict[str, Any]] = field(default_factory=list)
    #: the design of the pooled tests
    pooled_design: Design | None = None
    #: method -> mean normalised metric over the pooled pairs (1 = random search)
    pooled_scores: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"task": "all", ..., "ranks", "cd", "pvalue", "omnibus", "posthoc", "pooled":
        {"normalisation", "scores", "tests", "design"}, "tasks"}``."""
        first = next(iter(self.comparisons.values()))
        return {
            "task": "all",
            "objective": first.objective,
            "ties": first.ties,
            "trials": {t: c.trials for t, c in self.comparisons.items()},
            "metric": first.metric,
            "ranks": {k: float(v) for k, v in self.ranks.items()},
            "cd": self.cd,
            "pvalue": self.pvalue,
            "omnibus": self.omnibus,
            "posthoc": self.posthoc,
            "pooled": {
                "normalisation": _NORMALISATION,
                "scores": self.pooled_scores,
                "tests": self.pooled,
                "design": None if self.pooled_design is None else self.pooled_design.to_json(),
            },
            "tasks": {t: c.to_json() for t, c in self.comparisons.items()},
        }


def _by_task(
    runs: Sequence[RunResult],
    tasks: Sequence[str] | None,
) -> dict[str, list[RunResult]]:
    _check_runs(runs, None, tasks)
    have = sorted({r.spec.task for r in runs})
    tasks = list(tasks) if tasks is not None else have
    from nmthpo.benchmark.tables import check_task

    for t in tasks:
        try:
            check_task(t)
        except KeyError as exc:
            raise InputKeyError(f"tasks: {exc.args[0] if exc.args else exc}") from None
    other = [r for r in runs if r.spec.task not in tasks]
    if other:
        names = ", ".join(f"{r.spec.method} (task {r.spec.task})" for r in other)
        raise InputValueError(f"runs of tasks not compared ({', '.join(tasks)}): {names}")
    if len(tasks) < MIN_TASKS:
        raise InputValueError(
            f"ranking across tasks needs runs on at least {MIN_TASKS} tasks "
            f"(autorank's minimum), got {len(tasks)}; for one task pass "
            "--task TASK"
        )
    grouped = {t: [r for r in runs if r.spec.task == t] for t in tasks}
    empty = [t for t, rs in grouped.items() if not rs]
    if empty:
        raise InputValueError(f"no run is on task(s) {', '.join(empty)}")
    return grouped


def _pooled_pairs(
    setups: Sequence[_Setup],
    pairs: str,
) -> tuple[list[str], list[str], list[tuple[str, str]], Design]:
    """Your methods and the baselines present on every task, the pairs to test, the design."""
    mine = [n for n in setups[0].names if all(n in s.names for s in setups)]
    base = [b for b in setups[0].baselines if all(b in s.baselines for s in setups)]
    tested = pairs_to_test(mine, base, pairs)
    design = Design(sum(s.trials for s in setups), len(tested), unit="pooled (task, trial) pairs")
    return mine, base, tested, design


def plan_tasks(
    runs: Sequence[RunResult],
    tasks: Sequence[str] | None = None,
    baselines: Sequence[str] | None = None,
    pairs: str = "mine",
    book: Mapping[str, BaselineSet] | None = None,
) -> tuple[dict[str, Design], Design]:
    """The designs of :func:`compare_tasks` before any work: per task, and pooled."""
    setups = {
        t: _setup(rs, t, baselines, "value", None, pairs, book)
        for t, rs in _by_task(runs, tasks).items()
    }
    design = _pooled_pairs(list(setups.values()), pairs)[3]
    return {t: s.design for t, s in setups.items()}, design


def compare_tasks(
    runs: Sequence[RunResult],
    tasks: Sequence[str] | None = None,
    baselines: Sequence[str] | None = None,
    ties: str = "value",
    metric: str | None = None,
    seed: int = 0,
    progress: bool = False,
    pairs: str = "mine",
    book: Mapping[str, BaselineSet] | None = None,
) -> TaskRanking:
    """:func:`compare` on every task of ``runs`` (or ``tasks``), then pool and rank.

    Parameters
    ----------
    runs : sequence of RunResult
        Runs on at least :data:`MIN_TASKS` tasks, grouped by task; a run of a task not in
        ``tasks`` is a ``ValueError`` naming it.
    tasks : sequence of str, optional
        Default: the tasks of ``runs``.
    baselines, ties, metric, seed, progress, pairs, book
        As in :func:`compare`.

    Returns
    -------
    TaskRanking
        The per-task comparisons; the pooled paired tests (:attr:`TaskRanking.pooled`):
        over all (task, trial) pairs, the primary metric divided by random search's mean on
        the task's paired trials (a ratio scale shared by tasks of any size; a task where
        that mean is 0 is left unscaled), Wilcoxon's signed-rank test for each tested pair of
        methods present on every task, Holm over those pairs; and beside them the average
        ranks of the per-task means, Friedman's test and the Nemenyi critical difference
        from ``autorank`` (non-parametric mode forced: per-task means of runtimes are not
        normal), over the methods present on every task.
    """
    import pandas as pd
    from autorank import autorank

    check_int("seed", seed, 0)
    grouped = _by_task(runs, tasks)
    tasks = list(grouped)
    setups = [_setup(rs, t, baselines, ties, metric, pairs, book) for t, rs in grouped.items()]
    mine, base, tested, design = _pooled_pairs(setups, pairs)
    comps = {
        t: compare(grouped[t], t, baselines, ties, metric, seed, progress, pairs, book)
        for t in tasks
    }
    common = set.intersection(*(set(c.summary[c.metric]) for c in comps.values()))
    if len(common) < 2:
        raise InputValueError(
            "fewer than two methods are on every task; run each method on every task you pass"
        )
    first = next(iter(comps.values()))
    cols = [k for k in first.summary[first.metric] if k in common]
    means = pd.DataFrame(
        {k: [comps[t].summary[c.metric][k]["mean"] for t, c in comps.items()] for k in cols},
        index=tasks,
    )
    higher = first.metric in HIGHER_IS_BETTER
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = autorank(
            means,
            alpha=ALPHA,
            order="descending" if higher else "ascending",
            force_mode="nonparametric",
            verbose=False,
        )
    ranks = result.rankdf["meanrank"].astype(float).sort_values()
    cd = None if result.cd is None else float(result.cd)
    scaled = {
        k: np.concatenate([_normalised(c, k) for c in comps.values()]) for k in [*mine, *base]
    }
    pooled = _pair_tests(scaled, higher, tested)
    scores = {k: float(v.mean()) for k, v in scaled.items()}
    return TaskRanking(
        comps,
        means,
        ranks,
        cd,
        float(result.pvalue),
        str(result.omnibus),
        str(result.posthoc),
        result,
        pooled,
        design,
        scores,
    )


def _normalised(comp: Comparison, name: str) -> np.ndarray:
    """``name``'s primary metric per trial over random search's mean on the same trials."""
    rs = float(comp.values["rs"][comp.metric].to_numpy(dtype=float).mean())
    v = comp.values[name][comp.metric].to_numpy(dtype=float)
    return v / rs if rs > 0 else v


def dumps(obj: Any) -> str:
    """JSON text of a comparison (``NaN`` as null)."""

    def clean(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, list):
            return [clean(v) for v in x]
        if isinstance(x, float) and not np.isfinite(x):
            return None
        return x

    return json.dumps(clean(obj), indent=2)
