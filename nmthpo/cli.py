"""The ``nmthpo`` command: tasks, data, run, evaluate (and the chapter-specific commands).

Every user error (unknown task or method, a negative number, a size above its documented
limit, a budget larger than the table, an output path that is a file, an unknown method
setting, an unreachable scheduler, a malformed sequence file, missing data) is refused by
:mod:`nmthpo.commands.validate` before any work starts and reported as one line
``nmthpo: error: ...`` on stderr with exit status 2, never a traceback. SIGINT (Ctrl-C) and
SIGTERM stop a command with one line and exit status 130; an interrupted ``run`` with
``--cache`` resumes when the same command is given again. A command whose output pipe closes
early (``nmthpo methods --json | head -1``) stops quietly with exit status 141.

BLAS threads: parallelism comes from ``--jobs`` workers, so a command started from the shell
runs its linear algebra on one BLAS thread in every process (``OPENBLAS_NUM_THREADS``,
``MKL_NUM_THREADS`` and ``BLIS_NUM_THREADS`` default to 1 before NumPy loads; the workers
inherit them; a value the user set is kept). Inside a trial the runner also limits BLAS to
one thread with :mod:`threadpoolctl`, which covers library calls such as :func:`nmthpo.run`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

from nmthpo.commands import COMMAND_MODULES, command_name
from nmthpo.commands import methods as methods_command
from nmthpo.commands.arguments import LIMITS, bounded, display_name, int_list, limit_help
from nmthpo.commands.arguments import nonneg_float as _nonneg_float
from nmthpo.commands.validate import (
    UsageError,
    check,
    parse_settings,
    read_checked_sequences,
    run_sources,
    run_stop,
)
from nmthpo.errors import NmthpoError, fault_from_oserror

#: Exit status of a command stopped by SIGINT or SIGTERM (128 + SIGINT, as shells report it).
INTERRUPTED = 130
#: Exit status of a command whose reader closed the pipe early (``nmthpo methods --json | head
#: -1``): 128 + SIGPIPE, as shells report a tool stopped by SIGPIPE; nothing is printed.
BROKEN_PIPE = 141

#: Thread-count variables of the BLAS libraries NumPy/SciPy may load (see the module docstring).
BLAS_THREAD_VARIABLES: tuple[str, ...] = (
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
)


#: Warnings of joblib's worker clean-up that a run stopped by an error (a user's optimiser that
#: raised in a worker) may print from loky's resource tracker, a separate process, after the
#: one line that reports the error; they concern semaphores loky reclaims itself.
_QUIET_CLEANUP = "ignore::UserWarning:joblib.externals.loky.backend.resource_tracker"


def _quiet_worker_cleanup() -> None:
    """Keep loky's clean-up warnings off stderr (:data:`_QUIET_CLEANUP`); the processes this
    command starts inherit the filter, the user's own ``PYTHONWARNINGS`` comes first."""
    current = os.environ.get("PYTHONWARNINGS", "")
    if _QUIET_CLEANUP not in current:
        os.environ["PYTHONWARNINGS"] = ",".join(x for x in (current, _QUIET_CLEANUP) if x)


def _one_blas_thread() -> None:
    """Default every BLAS library to one thread, if NumPy has not loaded one yet."""
    if "numpy" in sys.modules:  # too late to matter (e.g. main() called from Python)
        return
    for var in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(var, "1")


#: The ``--help`` description of the command (plain text, as every ``--help`` text is).
DESCRIPTION = (
    "Hyperparameter optimisation for neural machine translation on lookup tables: list the "
    "tasks and methods, fetch the data, run an optimiser, score its sample sequences, and "
    "reproduce the studies of the book's chapters."
)
TASK_HELP = "a task of `nmthpo tasks` (e.g. ja-en)"


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``nmthpo: error: ... (see --help)``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"nmthpo: error: {message} (see `{self.prog} --help`)\n")


# -- tasks ----------------------------------------------------------------------------------------
_METRIC_NAMES = {"bleu": "BLEU", "perplexity": "perplexity", "f": "f(x)"}


def _cmd_tasks(args: argparse.Namespace) -> int:
    from nmthpo.benchmark.tasks import REGISTRY, summary

    rows = [summary(t) for t in REGISTRY]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0

    def cell(value: object, fmt: str = "") -> str:
        return "-" if value is None else format(value, fmt)

    print(f"{'task':<19}{'kind':<23}{'rows':>5}{'best':>9}  {'metric':<11}{'ties':>5}{'Pareto':>8}")
    for r in rows:
        print(
            f"{r['task']:<19}{r['kind']:<23}{cell(r['rows']):>5}{cell(r['best'], '.2f'):>9}  "
            f"{_METRIC_NAMES.get(r['metric'], r['metric']):<11}{cell(r['best_ties']):>5}"
            f"{cell(r['pareto']):>8}"
        )
    print(
        "best: a table's best BLEU, the best final value of learning curves (perplexity: the "
        "lowest),\na synthetic function's maximum (those serve Chapter 6's space scores, not "
        "`nmthpo run`)."
    )
    return 0


# -- data -----------------------------------------------------------------------------------------
def _cmd_data(args: argparse.Namespace) -> int:
    from nmthpo import data

    if args.data_command == "fetch":
        path = data.fetch(mirror=args.mirror, force=args.force)
        print(f"data installed and verified in {path}")
    else:
        data.verify()
        print(f"data in {data.data_dir()} verified ({len(data.manifest())} files, SHA-256)")
    return 0


# -- run ------------------------------------------------------------------------------------------
def _cmd_run(args: argparse.Namespace) -> int:
    from nmthpo.engine.runner import run

    # every kind of run goes through the one runner; a learning-curve run (budget in
    # checkpoints) was recognised and checked before any work by commands.validate
    sources = run_sources(args)
    stop = run_stop(args, sources)
    res = run(
        args.method,
        args.task,
        trials=args.trials,
        seed=args.seed,
        objective=args.objective,
        n_init=args.n_init,
        budget=args.budget,
        stop=stop,
        settings=parse_settings(args.set),
        jobs=args.jobs,
        scheduler=args.scheduler,
        cache_dir=args.cache,
        progress=not args.quiet,
        sources=sources,
        n_source=args.n_source,
        curves=args.curves,
    )
    if args.name is not None:
        res.name = args.name
    res.save(args.out, force=args.force)
    if hasattr(res, "evaluations"):
        print(
            f"{res.trials} trials of {args.method} on the learning curves of {args.task} "
            f"({res.spec.budget} checkpoints each) -> {Path(args.out) / 'evaluations.parquet'}"
        )
    else:
        print(
            f"{res.trials} trials of {args.method} on {args.task} -> "
            f"{Path(args.out) / 'sequences.ss'}"
        )
    return 0


# -- evaluate -------------------------------------------------------------------------------------
def _cmd_evaluate(args: argparse.Namespace) -> int:
    from nmthpo.benchmark.tables import load_table
    from nmthpo.engine.metrics import evaluate_sequences, summarise

    table = load_table(args.task)
    seqs = read_checked_sequences(args.sequences, args.task)
    if args.objective == "pareto" and not table.pareto.any():
        raise UsageError(f"task {args.task} has no decoding time, so no Pareto objective")
    frame = evaluate_sequences(
        seqs,
        table.bleu,
        table.pareto,
        objective=args.objective,
        ties=args.ties,
        n_init=args.n_init,
        budget=args.budget,
        tolerance=args.tolerance,
        regret_at=args.regret_at or (),
    )
    stats = summarise(frame)
    info = dict(frame.attrs)
    if args.objective == "pareto":
        info.pop("ties")
        info.pop("tolerance")
    # fixed-target metrics are undefined for a trial that never reaches the target
    targets = ("ftb", "ftc") if args.objective == "bleu" else ("fto", "fta")
    missed = {m: int(frame[m].isna().sum()) for m in targets}
    if args.json:
        out = {
            "task": args.task,
            "sequences": len(seqs),
            **info,
            "missed_target": missed,
            "metrics": {
                m: {
                    "mean": float(stats.loc[m, "mean"]),
                    "std": float(stats.loc[m, "std"]),
                    "n": int(stats.loc[m, "n"]),
                }
                for m in stats.index
            },
        }
        print(json.dumps(out, indent=2))
        return 0
    print(
        f"task {args.task}, {len(seqs)} sequences, "
        + ", ".join(f"{k}={v}" for k, v in info.items())
    )
    width = max(4, *(len(str(m)) for m in stats.index))
    for m in stats.index:
        n = int(stats.loc[m, "n"])
        if n == 0:
            print(f"{m:>{width}}: -  (n=0: undefined for every trial)")
            continue
        std = stats.loc[m, "std"]
        spread = f" ± {std:.4g}" if n > 1 else " (one trial: no spread)"
        print(f"{m:>{width}}: {stats.loc[m, 'mean']:.4g}{spread}  (n={n})")
    for m, k in missed.items():
        if k:
            hint = (
                f"; are these sequences of task {args.task}? (check --task)"
                if k == len(seqs)
                else ""
            )
            print(
                f"note: {k} of {len(seqs)} trials never reached the target of {m}; "
                f"they are left out of its statistics (n above){hint}"
            )
    return 0


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``nmthpo`` command.

    ``command`` (the sub-command of this call, e.g. ``"score-spaces"``; ``""`` for none)
    registers only that one of the chapter commands in full and the others by name and help;
    ``None`` registers all of them.
    Either way no numerical library is imported to build the ``--help`` of the command list.
    """
    limits = ", ".join(f"{k.replace('_', ' ')} <= {v:,}" for k, v in LIMITS.items() if k != "seed")
    p = _Parser(
        prog="nmthpo",
        description=DESCRIPTION,
        epilog=f"Size limits (they keep memory bounded): {limits}. Bad input and a "
        "fault of your own optimiser exit with status 2 and one line naming the problem; "
        "a fault of the environment (a full disk, a read-only place) exits 1; Ctrl-C/SIGTERM "
        "exit 130.",
    )
    p.add_argument(
        "--traceback",
        action="store_true",
        help="on an error, also print the exceptions behind it (may be given anywhere)",
    )
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser(
        "tasks",
        help="list every task with its kind (lookup table, learning "
        "curves, synthetic), rows, best value and Pareto size",
        description="List every task: its kind (lookup table, learning curves or synthetic "
        "function), its rows, its best value and the size of its Pareto front.",
    )
    t.add_argument("--json", action="store_true", help="a JSON list, one object per task")
    t.set_defaults(func=_cmd_tasks)
    methods_command.register(sub)

    d = sub.add_parser(
        "data",
        help="fetch or verify the dataset",
        description="Install the dataset (a pinned upstream commit, SHA-256 verified) or "
        "re-check the installed copy.",
    )
    dsub = d.add_subparsers(dest="data_command", required=True)
    f = dsub.add_parser(
        "fetch",
        help="download (or copy from a mirror) and verify the data",
        description="Download the dataset (or copy it from a local mirror) and verify every "
        "file against its SHA-256 checksum.",
    )
    f.add_argument(
        "--mirror",
        help="a local directory with upstream's layout "
        "(default: $NMTHPO_MIRROR, else the pinned upstream commit)",
    )
    f.add_argument("--force", action="store_true", help="re-install even if the copy verifies")
    dsub.add_parser(
        "verify",
        help="re-check the installed copy against data/SHA256SUMS",
        description="Re-check every file of the installed copy against data/SHA256SUMS.",
    )
    d.set_defaults(func=_cmd_data)

    r = sub.add_parser(
        "run",
        help="run repeated trials of one method on one task",
        description="Run repeated trials of one method on one task and write the sample "
        "sequences (upstream's plain format), the results and the run's spec to --out. "
        "Example: nmthpo run nmthpo.examples:LocalSearch --task ja-en --trials 20 --jobs 2 "
        "--out runs/mine",
    )
    r.add_argument(
        "method",
        help="a registered name (e.g. rs, bo-ei-m, transbo), module:Class "
        "of your own optimiser (module on PYTHONPATH; e.g. nmthpo.examples:LocalSearch) or "
        "prefix:Name of an adapter (e.g. optuna:TPESampler)",
    )
    r.add_argument("--task", required=True, help=TASK_HELP)
    r.add_argument(
        "--trials",
        type=bounded(1, LIMITS["trials"]),
        default=100,
        help=f"repeated trials ({limit_help('trials')}; default 100)",
    )
    r.add_argument(
        "--seed",
        type=bounded(0, LIMITS["seed"]),
        default=0,
        help=f"base seed: trial t is seeded by (seed, t) ({limit_help('seed')}; default 0)",
    )
    r.add_argument(
        "--budget",
        type=bounded(1, LIMITS["budget"]),
        default=None,
        help="stop each trial after B evaluations (initial rows included; at most "
        "the table's rows); on learning curves: B checkpoints (default 30 mean "
        "curves)",
    )
    r.add_argument(
        "--curves",
        action="store_true",
        help="run on the task's learning curves (implied by a multi-fidelity method "
        "such as sh, hb, asha, bohb, or an lc-scratch-* task)",
    )
    r.add_argument(
        "--objective",
        choices=["bleu", "pareto"],
        default="bleu",
        help="bleu: maximise BLEU; pareto: maximise BLEU and minimise decoding time (default bleu)",
    )
    r.add_argument(
        "--n-init",
        type=bounded(1, LIMITS["budget"]),
        default=3,
        help="random initial rows per trial (default 3, as the paper)",
    )
    r.add_argument(
        "--no-stop",
        action="store_true",
        help="do not stop at the oracle target (run to the budget or the whole table)",
    )
    r.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a method setting, e.g. --set k=10",
    )
    r.add_argument(
        "--sources",
        default=None,
        metavar="A,B,...",
        help="source tasks of a transfer run ('all': every other task of the "
        "family); transfer runs go to the budget (default 50) without oracle stop",
    )
    r.add_argument(
        "--n-source",
        type=bounded(1, LIMITS["budget"]),
        default=50,
        help="sampled evaluations per source task (N_S; transfer runs)",
    )
    r.add_argument(
        "--jobs",
        type=bounded(1, LIMITS["jobs"]),
        default=1,
        help=f"worker processes ({limit_help('jobs')})",
    )
    r.add_argument(
        "--scheduler",
        default=None,
        metavar="tcp://HOST:PORT",
        help="address of a Dask scheduler (checked to answer within 3 s)",
    )
    r.add_argument(
        "--cache",
        default=None,
        help="cache directory: finished trials are kept "
        "there (SHA-256 checked) and an interrupted run resumes from them",
    )
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.add_argument(
        "--out",
        required=True,
        help="output directory (refused if it holds the "
        "output of another run; the same run writes over its own)",
    )
    r.add_argument(
        "--force", action="store_true", help="replace the output of another run in --out"
    )
    r.add_argument(
        "--name",
        type=display_name,
        default=None,
        help="a short display name that compare's tables and diagrams show instead of the "
        "method and its settings (not part of the run's key)",
    )
    r.set_defaults(func=_cmd_run)

    e = sub.add_parser(
        "evaluate",
        help="score sample sequences (upstream's plain format)",
        description="Score sample sequences (one line per trial, row ids in evaluation "
        "order, space-separated) with the paper's metrics: ftb, ftc and fb for BLEU; fto, "
        "fta and fbp for the Pareto objective.",
    )
    e.add_argument(
        "sequences", help="a sequence file, e.g. the sequences.ss that nmthpo run writes"
    )
    e.add_argument("--task", required=True, help=TASK_HELP)
    e.add_argument(
        "--objective",
        choices=["bleu", "pareto"],
        default="bleu",
        help="which metrics: bleu (ftb, ftc, fb) or pareto (fto, fta, fbp); default bleu",
    )
    e.add_argument(
        "--ties",
        choices=["value", "first-id"],
        default="value",
        help="ftb's target: value (the paper: any row with the best BLEU) or first-id "
        "(upstream's script: the first row with it); default value",
    )
    e.add_argument(
        "--n-init",
        type=bounded(0, LIMITS["budget"]),
        default=3,
        help="initial rows of each sequence: runtimes are floored at this (default 3)",
    )
    e.add_argument(
        "--budget",
        type=bounded(1, LIMITS["budget"]),
        default=None,
        help="fb budget (default 20) or fbp budget (default 50)",
    )
    e.add_argument(
        "--tolerance",
        type=_nonneg_float,
        default=0.5,
        help="ftc's distance to the best BLEU (finite, >= 0)",
    )
    e.add_argument(
        "--regret-at",
        type=int_list(1, LIMITS["budget"], "10,25,50"),
        default=None,
        metavar="B,B,...",
        help="also the simple regret after each of these budgets (regret@B: best BLEU minus "
        "the best found in the first B evaluations; bleu objective)",
    )
    e.add_argument("--json", action="store_true", help="print JSON instead of text")
    e.set_defaults(func=_cmd_evaluate)

    for name in COMMAND_MODULES:
        mod = importlib.import_module(f"nmthpo.commands.{name}")
        if command is None or command == command_name(name):
            mod.register(sub)
        else:  # by name only: its options (and their imports) are not needed for this call
            sub.add_parser(command_name(name), help=mod.HELP, add_help=False)
    return p


def _chosen(argv: Sequence[str]) -> str:
    """The sub-command named in ``argv`` (its first word that is not an option), or ``""``."""
    return next((a for a in argv if not a.startswith("-")), "")


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # SIGTERM stops a command as Ctrl-C does


def _silence_stdout() -> None:
    """Point stdout at the null device after its reader went away, so that Python's final
    flush does not report the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (a captured stdout): nothing to do
        pass


def _report(exc: BaseException, status: int, traceback: bool, shown: Any = None) -> int:
    """Print ``exc`` (or ``shown``) as one line ``nmthpo: error: ...``; with ``--traceback``
    the whole chain of the original exception before it."""
    if traceback:
        import traceback as tb

        tb.print_exception(exc, file=sys.stderr)
    shown = exc if shown is None else shown
    msg = shown.args[0] if isinstance(shown, KeyError) and shown.args else shown
    text = " ".join(str(msg).split()) or type(shown).__name__
    print(f"nmthpo: error: {text}", file=sys.stderr)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status (see the module docstring
    and :mod:`nmthpo.errors`: 2 for bad input and faults of the user's code, 1 for faults of
    the environment, 130 for an interrupt). ``--traceback`` (anywhere in the arguments) also
    prints the chain of exceptions behind an error."""
    _one_blas_thread()
    _quiet_worker_cleanup()
    argv = list(sys.argv[1:] if argv is None else argv)
    traceback = "--traceback" in argv
    argv = [a for a in argv if a != "--traceback"]
    parser = build_parser(_chosen(argv))
    args = parser.parse_args(argv)
    log = logging.getLogger("nmthpo")
    # runner messages (resumed runs, damaged cache entries) go to stderr during this call
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("nmthpo: %(message)s"))
    level = log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main_thread else None
    try:
        check(args)
        code = int(args.func(args))
        sys.stdout.flush()  # a reader that closed the pipe early is noticed here
        return code
    except BrokenPipeError:
        _silence_stdout()
        return BROKEN_PIPE
    except KeyboardInterrupt as exc:  # the runner's RunInterrupted says what was saved
        print(str(exc) or "interrupted", file=sys.stderr)
        return INTERRUPTED
    except NmthpoError as exc:  # bad input (2), the user's code (2), the environment (1)
        return _report(exc, exc.exit_status, traceback)
    except OSError as exc:  # the environment failed under the command: disk full, ...
        return _report(exc, 1, traceback, fault_from_oserror(exc))
    except (ValueError, KeyError, IndexError, RuntimeError) as exc:
        # a check that still raises a built-in kind: one line, as an InputError would
        return _report(exc, 2, traceback)
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
        log.removeHandler(handler)
        log.setLevel(level)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
