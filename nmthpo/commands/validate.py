"""One validation layer: every sub-command's arguments are checked before any work starts.

:func:`check` runs after argparse (which already refused malformed numbers and sizes above
the documented limits of :data:`nmthpo.commands.arguments.LIMITS`) and before the command:

* paths of the right kind: an output directory (``--out``, ``--cache``) is not an existing
  file, has no file among its parents and can be created or written; an output file
  (``--plot``) is not a directory and its directory is writable; an input file exists and is
  a readable regular file;
* names: tasks, methods, and method settings known to the method (the error lists the
  valid settings); a package method's setting names come from its class's declaration
  (``Settings``, :mod:`nmthpo.optimizers.settings`), read without loading SciPy or pandas, so
  an unknown one is refused before a table or a numerical library is loaded;
* sizes against the table (``--budget``, ``--n-init``, ``--init-pop``, ``--seed-size``);
* a Dask ``--scheduler`` answers a TCP connection within :data:`SCHEDULER_TIMEOUT_S`;
* ``evaluate``'s sequences are row ids of the task's table, none repeated (the error names the
  file and line).

A failed check raises :class:`UsageError`; the CLI prints it as one line
``nmthpo: error: ...`` with exit status 2. Nothing is written before the checks pass, and
cheap checks (paths, scheduler) come before the ones that import the numerical stack.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from nmthpo.errors import (
    InputValueError,
    check_input_file,
    check_output_dir,
    check_output_file,
)

__all__ = [
    "SCHEDULER_TIMEOUT_S",
    "UsageError",
    "check",
    "check_input_file",
    "check_method_settings",
    "check_output_dir",
    "check_output_file",
    "check_scheduler",
    "parse_settings",
    "read_checked_sequences",
    "transfer_sources",
]

#: Seconds to wait for a Dask scheduler to accept a TCP connection.
SCHEDULER_TIMEOUT_S = 3.0


class UsageError(InputValueError):
    """A user error of the command line: an :class:`~nmthpo.errors.InputError`, printed as
    one line without a traceback, exit status 2."""


# -- scheduler ------------------------------------------------------------------------------------
def check_scheduler(address: str, timeout: float = SCHEDULER_TIMEOUT_S) -> None:
    """A Dask scheduler at ``address`` (``tcp://HOST:PORT`` or ``HOST:PORT``) answers Dask's
    protocol within ``timeout`` seconds (:func:`nmthpo.engine.scheduler.check_scheduler`: a
    port that accepts TCP but is not a Dask scheduler is refused too).

    The address's form is checked first, with the standard library only; ``distributed`` is
    imported only for an address that accepts a connection.
    """
    from nmthpo.engine.scheduler import check_scheduler as answers_dask
    from nmthpo.engine.scheduler import parse_scheduler_address
    from nmthpo.errors import InputError

    try:
        parse_scheduler_address(address, "--scheduler", in_process=False)
        answers_dask(address, timeout, "--scheduler", in_process=False)
    except InputError as exc:
        raise UsageError(str(exc)) from None


# -- methods --------------------------------------------------------------------------------------
def check_method_settings(
    method: str, settings: Mapping[str, object], transfer: bool = False, fidelity: bool = False
) -> Any:
    """Resolve ``method`` and check ``settings`` against what its class declares: names, types
    and ranges (:func:`nmthpo.optimizers.registry.check_settings`; bounds that depend on the
    table are checked again by the run's spec). Returns the
    :class:`~nmthpo.optimizers.registry.MethodSpec`. The package's classes are read without
    loading SciPy or pandas; ``fidelity`` checks the class that runs the method on learning
    curves, ``transfer`` the one of a run with source tasks (whose context is not a setting).
    """
    from nmthpo.optimizers.registry import check_settings, resolve

    try:
        spec = resolve(method)
    except (KeyError, ValueError, TypeError) as exc:
        raise UsageError(exc.args[0] if exc.args else str(exc)) from None
    check_settings(spec, settings, method, transfer=transfer, fidelity=fidelity)
    return spec


def _setting_names_first(args: argparse.Namespace, settings: Mapping[str, object]) -> None:
    """Refuse an unknown ``--set`` name of a registered method before anything else is
    loaded (no table, no numerical library but NumPy: only the optimiser's module, for its
    declared settings), when the kind of run is clear from the arguments alone: a run with
    ``--sources``, a multi-fidelity method, ``--curves``, or a method that runs only on
    lookup tables (``rs`` without those depends on the task: checked later)."""
    from nmthpo.optimizers.registry import METHODS

    spec = METHODS.get(args.method)
    if not settings or spec is None:
        return
    transfer = args.sources is not None
    fidelity = spec.fidelity or (bool(args.curves) and spec.runs_on_curves())
    if fidelity or transfer or spec.fidelity_cls is None:
        check_method_settings(
            args.method, settings, transfer=transfer and not fidelity, fidelity=fidelity
        )


def _task(name: str) -> None:
    from nmthpo.benchmark.tables import check_task

    try:
        check_task(name)
    except KeyError as exc:
        raise UsageError(exc.args[0]) from None


def _rows(task: str) -> int:
    from nmthpo.benchmark.tables import load_table

    return int(load_table(task).n_rows)


# -- evaluate -------------------------------------------------------------------------------------
def read_checked_sequences(path: str | os.PathLike[str], task: str) -> list[list[int]]:
    """Sequences of ``path`` (upstream's format), each checked against ``task``'s table:
    integer row ids in the table, none repeated; errors name the file and line."""
    from nmthpo.engine.metrics import validate_sequence

    p = check_input_file(path, "sequence file")
    n = _rows(task)
    out: list[list[int]] = []
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise UsageError(
            f"{path}: not a text file; give a sequence file (one trial a line, "
            "row ids separated by spaces)"
        ) from None
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}, line {lineno}"
        try:
            seq = [int(tok) for tok in line.split()]
        except ValueError:
            raise UsageError(
                f"{where}: not a list of row ids ({line.strip()[:40]!r}); a "
                "sequence file has one trial a line, row ids separated by "
                "spaces"
            ) from None
        try:
            validate_sequence(seq, n)
        except ValueError as exc:
            raise UsageError(
                f"{where}: {exc}; task {task} has {n} rows: are these sequences "
                "of another task? (check --task)"
            ) from None
        out.append(seq)
    if not out:
        raise UsageError(
            f"{path}: no sample sequences found (one trial a line, row ids separated by spaces)"
        )
    return out


# -- per command ----------------------------------------------------------------------------------
def parse_settings(pairs: Sequence[str]) -> dict[str, object]:
    """``["k=10", "kernel=rbf"]`` -> ``{"k": 10, "kernel": "rbf"}`` (values read as JSON when
    they parse, else kept as strings)."""
    import json

    out: dict[str, object] = {}
    for p in pairs:
        k, sep, v = p.partition("=")
        if not sep or not k.strip():
            raise UsageError(f"--set expects KEY=VALUE (e.g. --set k=10), got {p!r}")
        try:
            out[k.strip()] = json.loads(v)
        except json.JSONDecodeError:
            out[k.strip()] = v
    return out


def _run(args: argparse.Namespace) -> None:
    check_output_dir(args.out, "--out")
    if args.cache is not None:
        check_output_dir(args.cache, "--cache")
    if args.scheduler is not None:
        check_scheduler(args.scheduler)
    settings = parse_settings(args.set)
    _setting_names_first(args, settings)
    if _curves_run(args):
        if getattr(args, "name", None) is not None:
            raise UsageError(
                "--name names a run on a lookup table; a learning-curve run has no display name"
            )
        return
    _task(args.task)
    transfer = args.sources is not None
    if transfer and args.sources != "all":
        for src in (x.strip() for x in args.sources.split(",") if x.strip()):
            _task(src)
    check_method_settings(args.method, settings, transfer=transfer)
    n = _rows(args.task)
    if args.n_init > n:
        raise UsageError(f"--n-init {args.n_init}: task {args.task} has only {n} rows")
    if args.budget is not None and not args.n_init <= args.budget <= n:
        raise UsageError(
            f"--budget {args.budget}: must be between --n-init ({args.n_init}) "
            f"and the {n} rows of {args.task}"
        )
    spec = _table_spec(args, settings)
    spec.validate()  # the API's checks: every setting's type and range, sources, sizes
    _check_out(args, spec.payload())


def run_sources(args: argparse.Namespace) -> tuple[str, ...] | None:
    """``nmthpo run``'s source tasks: ``None`` without ``--sources``, every other task of the
    family for ``all``, else the comma-separated names (an empty list is refused)."""
    if args.sources is None:
        return None
    from nmthpo.engine.runner import default_sources

    if args.sources == "all":
        return default_sources(args.task)
    sources = tuple(s.strip() for s in args.sources.split(",") if s.strip())
    if not sources:
        raise UsageError("--sources is empty; give comma-separated task names or 'all'")
    return sources


def run_stop(args: argparse.Namespace, sources: tuple[str, ...] | None) -> str | None:
    """``nmthpo run``'s stop rule: ``none`` with ``--no-stop``, else the oracle target for a
    single-task run and the runner's default (no stop) for a transfer run."""
    return "none" if args.no_stop else ("target" if sources is None else None)


def _table_spec(args: argparse.Namespace, settings: Mapping[str, object]) -> Any:
    """The :class:`~nmthpo.engine.runner.RunSpec` that ``nmthpo run`` will run (the same
    :func:`run_sources` and :func:`run_stop` as the command)."""
    from nmthpo.engine.runner import RunSpec

    sources = run_sources(args)
    return RunSpec.of(
        args.method,
        args.task,
        objective=args.objective,
        seed=args.seed,
        n_init=args.n_init,
        budget=args.budget,
        stop=run_stop(args, sources),
        settings=dict(settings),
        sources=sources,
        n_source=args.n_source,
    )


def _check_out(args: argparse.Namespace, payload: Mapping[str, Any]) -> None:
    """Refuse an ``--out`` that holds the output of another run (unless ``--force``)."""
    from nmthpo.engine.runner import output_problem

    why = None if getattr(args, "force", False) else output_problem(args.out, payload)
    if why is not None:
        raise UsageError(
            f"--out {args.out}: {why}; choose another directory, or pass --force to replace it"
        )


def _curves_run(args: argparse.Namespace) -> bool:
    """Validate a learning-curve run (:mod:`nmthpo.engine.fidelity`, budget in checkpoints);
    False when the run is a lookup-table run (checked by the rest of :func:`_run`)."""
    from nmthpo.engine import fidelity

    curves = fidelity.on_curves(args.method, args.task, args.curves)  # names a bad method
    if not curves:
        return False
    from nmthpo.benchmark.learning_curves import LC_TASKS, load_curves

    if args.task not in LC_TASKS:
        raise UsageError(
            f"task {args.task!r} has no learning curves; learning-curve tasks: "
            f"{', '.join(LC_TASKS)} (or a lookup-table method for {args.task})"
        )
    if args.sources is not None or args.objective != "bleu":
        raise UsageError("a learning-curve run takes neither --sources nor --objective pareto")
    table = load_curves(args.task)
    spec = fidelity.CurveRunSpec.of(
        args.method, args.task, args.budget, args.seed, parse_settings(args.set)
    )
    try:
        spec.validate()
        fidelity.build_optimizer(spec, table, 0)
    except (ValueError, KeyError, TypeError) as exc:
        raise UsageError(str(exc.args[0]) if exc.args else str(exc)) from None
    _check_out(args, spec.payload())
    return True


def _transfer(args: argparse.Namespace) -> None:
    check_output_dir(args.out, "--out")
    if args.cache is not None:
        check_output_dir(args.cache, "--cache")
    _task(args.target)
    check_method_settings(args.method, {}, transfer=True)
    if args.sources is not None:
        for s in (s.strip() for s in args.sources.split(",") if s.strip()):
            _task(s)
    n = _rows(args.target)
    if args.trials > n:
        raise UsageError(f"--trials {args.trials}: more than the {n} rows of {args.target}")
    if args.trials < 3:
        raise UsageError(
            f"--trials {args.trials}: the target evaluations per repetition include the 3 "
            "random initial rows; give at least 3 (the paper: 50)"
        )
    from nmthpo.engine.runner import RunSpec, default_sources

    sources = transfer_sources(args)
    spec = RunSpec.of(
        args.method,
        args.target,
        n_init=3,
        budget=args.trials,
        seed=args.seed,
        sources=default_sources(args.target) if sources is None else tuple(sources),
        n_source=args.n_source,
    )
    spec.validate()
    _check_out(args, spec.payload())


def transfer_sources(args: argparse.Namespace) -> list[str] | None:
    """``nmthpo transfer``'s ``--sources``: ``None`` (leave one out) or the names given."""
    if args.sources is None:
        return None
    sources = [s.strip() for s in args.sources.split(",") if s.strip()]
    if not sources:
        raise UsageError(
            "--sources is empty; give comma-separated task names or omit it (leave one out)"
        )
    return sources


def _evaluate(args: argparse.Namespace) -> None:
    check_input_file(args.sequences, "sequence file")
    _task(args.task)
    if not math.isfinite(args.tolerance):  # pragma: no cover - the argument type refuses it
        raise UsageError(f"--tolerance {args.tolerance}: must be a finite number of BLEU points")
    n = _rows(args.task)
    if args.budget is not None and args.budget > n:
        raise UsageError(
            f"--budget {args.budget}: must be between 1 and the {n} rows of {args.task}"
        )
    if args.n_init > n:
        raise UsageError(
            f"--n-init {args.n_init}: must be between 0 and the {n} rows of {args.task}"
        )
    budget = args.budget if args.budget is not None else (20 if args.objective == "bleu" else 50)
    if budget < args.n_init:
        raise UsageError(
            f"--budget {budget}: less than --n-init {args.n_init}, so fb/fbp would measure "
            "only the random initial rows; give a budget of at least --n-init"
        )
    read_checked_sequences(args.sequences, args.task)


def _ga_study(args: argparse.Namespace) -> None:
    _task(args.task)
    if not math.isfinite(args.target):
        raise UsageError(f"--target {args.target}: must be a finite BLEU score")
    n = _rows(args.task)
    big = [m for m in args.init_pop if m > n]
    if big:
        raise UsageError(
            f"--init-pop {','.join(map(str, args.init_pop))}: {big[0]} is larger "
            f"than the {n} rows of {args.task}; give sizes up to {n}"
        )


def _score_spaces(args: argparse.Namespace) -> None:
    from nmthpo.benchmark.subspaces import check_spec

    check_spec(args.spaces)  # syntax and sizes, before any table loads
    _task(args.task)
    if args.spaces.startswith("@"):
        check_input_file(args.spaces[1:], "--spaces file")
    n = _rows(args.task)
    if args.seed_size > n:
        raise UsageError(f"--seed-size {args.seed_size}: more than the {n} rows of {args.task}")
    from nmthpo.models.space_scores import SCORES  # SciPy: the command needs it anyway

    if args.score not in SCORES:
        raise UsageError(f"--score {args.score}: unknown score; valid: {', '.join(SCORES)}")


def _compare(args: argparse.Namespace) -> None:
    # every check of compare, cheap ones first, before pandas or SciPy loads
    from nmthpo.commands.compare import check_args

    check_args(args)


def _data(args: argparse.Namespace) -> None:
    mirror = getattr(args, "mirror", None)
    if mirror is not None and not Path(mirror).expanduser().is_dir():
        what = (
            "is a file, not a directory"
            if Path(mirror).expanduser().exists()
            else ("no such directory")
        )
        raise UsageError(
            f"--mirror {mirror}: {what}; give a local copy of "
            "Este1le/hpo_nmt (upstream's layout), or omit --mirror to download"
        )


_CHECKS: dict[str, Callable[[argparse.Namespace], None]] = {
    "run": _run,
    "transfer": _transfer,
    "evaluate": _evaluate,
    "ga-study": _ga_study,
    "score-spaces": _score_spaces,
    "compare": _compare,
    "data": _data,
}


def check(args: argparse.Namespace) -> None:
    """Validate the parsed arguments of any sub-command; raise :class:`UsageError`."""
    fn = _CHECKS.get(getattr(args, "command", ""))
    if fn is not None:
        fn(args)
