"""``nmthpo check-method``: does a method give the same rows however its trials are scheduled?

``nmthpo check-method METHOD --task T [--trials 3] [--budget 30] [--seed 0] [--set K=V ...]``
runs the trials forward and in reverse order, each order in a fresh worker process, and with two
workers, and prints where the rows of a trial diverge (:mod:`nmthpo.engine.determinism`).
Exit status 0 when every schedule gives the same rows, 1 when one does not, 2 for bad input.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["DESCRIPTION", "HELP", "register"]

HELP = "check that a method gives the same rows in any order of trials and with two workers"
#: The ``--help`` description (plain text).
DESCRIPTION = (
    "Run a method's trials forward and in reverse order (each order in a fresh worker "
    "process) and with two workers, and report every trial whose rows differ from the "
    "forward order, with the first step at which they diverge. A method that reads state "
    "outside its trial's generator (a library's global random state, a model fitted with "
    "every core, a cache warmed by an earlier trial) fails. Exit status 0: deterministic; "
    "1: a trial diverged; 2: bad input. Nothing is cached or written."
)


def _cmd(args: argparse.Namespace) -> int:
    from nmthpo.commands.validate import parse_settings
    from nmthpo.engine.determinism import check_method

    report = check_method(
        args.method,
        args.task,
        trials=args.trials,
        budget=args.budget,
        seed=args.seed,
        settings=parse_settings(args.set),
    )
    print("\n".join(report.lines()))
    return 0 if report.ok else 1


def register(subparsers: Any) -> None:
    """Add the ``check-method`` subcommand to ``subparsers``."""
    from nmthpo.commands.arguments import bounded
    from nmthpo.errors import LIMITS

    p = subparsers.add_parser("check-method", help=HELP, description=DESCRIPTION)
    p.add_argument("method", metavar="METHOD", help="a method name, module:Class or prefix:Name")
    p.add_argument("--task", required=True, help="a lookup-table task, e.g. ja-en")
    p.add_argument(
        "--trials", type=bounded(2, 1000), default=3, help="trials per schedule (default 3)"
    )
    p.add_argument(
        "--budget",
        type=bounded(1, LIMITS["budget"]),
        default=30,
        help="evaluations per trial, initial rows included (default 30)",
    )
    p.add_argument("--seed", type=bounded(0, LIMITS["seed"]), default=0, help="default 0")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a method setting, e.g. --set k=10",
    )
    p.set_defaults(func=_cmd)
