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
import importlib.util
import math
import os
import socket
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from nmthpo.errors import InputValueError

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
]

#: Seconds to wait for a Dask scheduler to accept a TCP connection.
SCHEDULER_TIMEOUT_S = 3.0
#: Keyword arguments the runner passes to a transfer optimiser itself (not its settings).
_CONTEXT_KEYS = frozenset({"sources", "kernel", "target_task", "metafeatures"})


class UsageError(InputValueError):
    """A user error of the command line: an :class:`~nmthpo.errors.InputError`, printed as
    one line without a traceback, exit status 2."""


# -- paths ----------------------------------------------------------------------------------------
def _nearest_existing(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def check_output_dir(path: str | os.PathLike[str], option: str) -> Path:
    """An output directory: a directory, or a path where one can be created and written."""
    p = Path(path).expanduser()
    if p.exists() and not p.is_dir():
        raise UsageError(
            f"{option} {path}: is an existing file, not a directory; give a "
            "directory path (it is created if missing)"
        )
    base = _nearest_existing(p.absolute())
    if not base.is_dir():
        raise UsageError(
            f"{option} {path}: {base} is a file, so no directory can be created "
            f"below it; give a directory path outside {base}"
        )
    if not os.access(base, os.W_OK | os.X_OK):
        what = "directory" if base == p.absolute() else "parent directory"
        raise UsageError(
            f"{option} {path}: the {what} {base} is not writable; give a directory you can write to"
        )
    return p


def check_output_file(
    path: str | os.PathLike[str], option: str, suffixes: Sequence[str] = ()
) -> Path:
    """An output file: not a directory, its directory creatable and writable."""
    p = Path(path).expanduser()
    if p.is_dir():
        raise UsageError(
            f"{option} {path}: is a directory; give a file name such as "
            f"{Path(path) / ('figure' + (suffixes[0] if suffixes else ''))}"
        )
    if suffixes and p.suffix.lower() not in suffixes:
        raise UsageError(
            f"{option} {path}: unsupported file type {p.suffix or '(none)'!r}; "
            f"use one of {', '.join(suffixes)}"
        )
    check_output_dir(p.parent if str(p.parent) else Path("."), f"{option} {path}: directory")
    if p.exists() and not os.access(p, os.W_OK):
        raise UsageError(f"{option} {path}: the file is not writable; give another name")
    return p


def check_input_file(path: str | os.PathLike[str], what: str) -> Path:
    """An input file: exists, is a regular file, is readable."""
    p = Path(path).expanduser()
    if not p.exists():
        raise UsageError(f"{what} {path}: no such file; check the path")
    if p.is_dir():
        raise UsageError(f"{what} {path}: is a directory; give the file itself")
    if not os.access(p, os.R_OK):
        raise UsageError(f"{what} {path}: not readable; check its permissions")
    return p


# -- scheduler ------------------------------------------------------------------------------------
def check_scheduler(address: str, timeout: float = SCHEDULER_TIMEOUT_S) -> None:
    """A Dask scheduler at ``address`` (``tcp://host:port`` or ``host:port``) accepts a TCP
    connection within ``timeout`` seconds, and ``distributed`` is installed."""
    fix = (
        "start one (`dask scheduler` and `dask worker ADDRESS`) or drop --scheduler to run "
        "on this machine (--jobs N)"
    )
    url = urllib.parse.urlsplit(address if "://" in address else f"tcp://{address}")
    if url.scheme not in ("tcp", "tls"):
        raise UsageError(
            f"--scheduler {address}: unsupported protocol {url.scheme!r}; give tcp://HOST:PORT"
        )
    try:
        host, port = url.hostname, url.port
    except ValueError:
        host, port = None, None
    if not host or port is None:
        raise UsageError(
            f"--scheduler {address}: expected tcp://HOST:PORT (e.g. tcp://127.0.0.1:8786)"
        )
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except socket.gaierror:
        raise UsageError(
            f"--scheduler {address}: cannot resolve host {host!r}; check the address, or {fix}"
        ) from None
    except TimeoutError:
        raise UsageError(
            f"--scheduler {address}: no answer within {timeout:g} s; check that "
            f"the scheduler runs and the port is open, or {fix}"
        ) from None
    except OSError as exc:
        raise UsageError(
            f"--scheduler {address}: no Dask scheduler there ({exc.strerror or exc}); {fix}"
        ) from None
    if importlib.util.find_spec("distributed") is None:
        raise UsageError("--scheduler needs the 'distributed' package: pip install distributed")


# -- methods --------------------------------------------------------------------------------------
def _known_settings(spec: Any, transfer: bool, fidelity: bool = False) -> tuple[list[str], bool]:
    """The settings the method's class takes and whether that list is complete: from the
    class's declaration (its ``Settings`` dataclass; the package's classes, whose modules
    import no numerical library but NumPy), else by introspecting the class (a user's own).
    In a transfer run the context the runner passes is not a setting."""
    from nmthpo.optimizers.registry import constructor_settings, load_class
    from nmthpo.optimizers.settings import complete as declared_complete
    from nmthpo.optimizers.settings import declared, describe

    try:
        cls = load_class(spec, transfer, fidelity)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    decl = declared(cls)
    if decl is not None:
        names = [i.name for i in describe(decl)]
        complete = declared_complete(decl)
    else:
        names, complete = constructor_settings(cls)
    if transfer:
        names = [n for n in names if n not in _CONTEXT_KEYS]
    return names, complete


def _unknown(
    method: str, spec: Any, settings: Mapping[str, object], transfer: bool, fidelity: bool = False
) -> UsageError | None:
    """The error for settings the method's class does not name, or ``None``."""
    names, _ = _known_settings(spec, transfer, fidelity)
    unknown = sorted(set(settings) - set(names))
    if not unknown:
        return None
    valid = ", ".join(names) if names else "none (it takes no settings)"
    return UsageError(
        f"method {method!r} has no setting {', '.join(map(repr, unknown))}; "
        f"valid settings of {spec.path}: {valid}"
    )


def check_method_settings(
    method: str, settings: Mapping[str, object], transfer: bool = False, fidelity: bool = False
) -> Any:
    """Resolve ``method`` and check that it knows every key of ``settings``.

    Returns the :class:`~nmthpo.optimizers.registry.MethodSpec`. The error of an unknown
    setting lists the valid ones. The package's methods are checked against the names their
    classes declare (:meth:`~nmthpo.optimizers.registry.MethodSpec.settings_class`), so no
    numerical library but NumPy is imported; a user's class by its keyword
    parameters, and one whose ``__init__`` takes ``**kwargs`` (e.g. an adapter passing them
    to its library) by building it (:func:`check` does so for single-task runs; for transfer
    runs the keyword parameters found up the class hierarchy are taken as the complete
    list). ``fidelity`` checks the class that runs the method on learning curves.
    """
    from nmthpo.optimizers.registry import resolve

    try:
        spec = resolve(method)
    except (KeyError, ValueError, TypeError) as exc:
        raise UsageError(exc.args[0] if exc.args else str(exc)) from None
    if not settings:
        return spec
    if set(settings) & _CONTEXT_KEYS and transfer:
        raise UsageError(
            f"--set {', '.join(sorted(set(settings) & _CONTEXT_KEYS))}: set by the "
            "runner for transfer runs; use --sources / --n-source instead"
        )
    # a transfer optimiser is not built here (it needs fitted sources): its classes are
    # taken to pass ``**settings`` on, as the package's transfer methods do
    if transfer or _known_settings(spec, transfer, fidelity)[1]:
        err = _unknown(method, spec, settings, transfer, fidelity)
        if err is not None:
            raise err
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
        return
    _task(args.task)
    transfer = args.sources is not None
    if transfer and args.sources != "all":
        for src in (x.strip() for x in args.sources.split(",") if x.strip()):
            _task(src)
    method = check_method_settings(args.method, settings, transfer=transfer)
    n = _rows(args.task)
    if args.n_init > n:
        raise UsageError(f"--n-init {args.n_init}: task {args.task} has only {n} rows")
    if args.budget is not None and not args.n_init <= args.budget <= n:
        raise UsageError(
            f"--budget {args.budget}: must be between --n-init ({args.n_init}) "
            f"and the {n} rows of {args.task}"
        )
    if settings and not transfer:
        _check_setting_values(args, method, settings)
    _check_out(args, _table_spec(args, settings).payload())


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

    try:
        curves = fidelity.on_curves(args.method, args.task, args.curves)
    except (KeyError, ValueError):  # an unknown method: reported with the list by _run
        return False
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


def _check_setting_values(
    args: argparse.Namespace, method: Any, settings: Mapping[str, object]
) -> None:
    """Build the optimiser of trial 0 once, so a setting of the wrong type or range is
    refused now rather than inside the first trial."""
    from nmthpo.engine.runner import RunSpec, trial_optimizer

    spec = RunSpec(
        args.method,
        args.task,
        objective=args.objective,
        seed=args.seed,
        n_init=args.n_init,
        budget=args.budget,
        settings=dict(settings),
        resolved=method,
    )
    try:
        trial_optimizer(spec, 0)
    except (TypeError, ValueError, KeyError) as exc:
        err = _unknown(args.method, method, settings, False) if isinstance(exc, TypeError) else None
        given = " ".join(f"--set {k}={v}" for k, v in settings.items())
        raise err or UsageError(f"method {args.method!r} refused {given}: {exc}") from None


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
    for d in args.run_dirs:
        p = Path(d)
        if not p.is_dir():
            what = "is a file" if p.exists() else "no such directory"
            raise UsageError(
                f"run directory {d}: {what}; give directories written by `nmthpo run ... --out DIR`"
            )
    if args.plot is not None:
        check_output_file(args.plot, "--plot", (".png", ".pdf", ".svg"))
    if args.task != "all":
        _task(args.task)


def _data(args: argparse.Namespace) -> None:
    mirror = getattr(args, "mirror", None)
    if mirror is not None and not Path(mirror).expanduser().is_dir():
        raise UsageError(
            f"--mirror {mirror}: no such directory; give a local copy of "
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
