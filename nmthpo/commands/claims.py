"""``nmthpo claims``: the ledger of every claim of the four papers, with our verdicts.

``nmthpo claims [--json] [--paper P] [--chapter NN_slug] [--verdict V] [--recompute]`` prints
one line per claim: id, verdict, ours with its 95 % interval, the paper's value and the
statement (``--json``: every field of :data:`nmthpo.engine.claims.LEDGER_COLUMNS`). It reads
the book's ledger ``results/claims.csv`` (written by ``make results``); ``--recompute``
evaluates the records on the book's cached runs instead (a few seconds to a minute).
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

__all__ = ["DESCRIPTION", "HELP", "register"]

HELP = "the ledger: every claim of the four papers, ours with its interval, and the verdict"
#: The ``--help`` description (plain text).
DESCRIPTION = (
    "The ledger: one line per claim of the four papers with its id, our verdict, our value "
    "with its 95 % interval, the paper's value and the statement. Reads the book's ledger "
    "results/claims.csv (written by make results); --recompute evaluates the claims on the "
    "book's cached runs instead."
)


def _value(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def _cmd_claims(args: argparse.Namespace) -> int:
    from nmthpo.commands.validate import UsageError
    from nmthpo.engine.cache import results_dir
    from nmthpo.studies.ledger import LEDGER_FILE

    path = results_dir() / LEDGER_FILE
    if not args.recompute and not path.is_file():
        raise UsageError(
            f"no ledger at {path}; write it with `make results` (or "
            "`tools/make_results.py --only claims`), or pass --recompute"
        )
    if not args.recompute:
        from nmthpo.engine.cache import artefact_problem

        why = artefact_problem(path, {"kind": "ledger", "file": LEDGER_FILE})
        if why is not None:
            raise UsageError(
                f"the ledger {path} is not usable ({why}); restore it with `git checkout "
                "results/`, rewrite it with `tools/make_results.py --only claims`, or pass "
                "--recompute"
            )
    from nmthpo.engine.numbers import fmt_pair
    from nmthpo.studies.ledger import counts, ledger, read_ledger

    if args.recompute:
        frame = ledger()
    else:
        frame = read_ledger(path)
    if args.paper is not None:
        frame = frame[frame["paper"] == args.paper]
    if args.chapter is not None:
        frame = frame[frame["chapter"] == args.chapter]
    if args.verdict is not None:
        frame = frame[frame["verdict"] == args.verdict]
    if args.json:
        rows = [{k: _value(v) for k, v in r.items()} for r in frame.to_dict("records")]
        print(
            json.dumps(
                {"claims": rows, "counts": {k: int(v) for k, v in counts(frame).items()}},
                indent=2,
                ensure_ascii=False,
            )
        )
        return 0
    width = max([len(str(i)) for i in frame["id"]] + [4]) + 2
    for r in frame.to_dict("records"):
        ci = (
            ""
            if _value(r["ci_low"]) is None
            else " [{}, {}]".format(*fmt_pair(r["ci_low"], r["ci_high"]))
        )
        print(
            f"{r['id']:<{width}}{r['verdict']:<16}ours {r['ours']}{ci}; paper "
            f"{r['paper_value']}: {r['statement']}"
        )
    c = counts(frame)
    print(f"{len(frame)} claims: " + ", ".join(f"{int(n)} {v}" for v, n in c.items()))
    return 0


def register(subparsers: Any) -> None:
    """Add the ``claims`` subcommand to ``subparsers`` (choices checked by argparse)."""
    from nmthpo.engine.verdicts import VERDICTS
    from nmthpo.studies.ledger import PAPERS, SOURCES

    p = subparsers.add_parser("claims", help=HELP, description=DESCRIPTION)
    p.add_argument("--json", action="store_true", help="every field, as JSON")
    p.add_argument(
        "--paper",
        default=None,
        choices=list(PAPERS),
        metavar="PAPER",
        help=f"only this paper ({', '.join(PAPERS)})",
    )
    p.add_argument(
        "--chapter",
        default=None,
        choices=list(SOURCES),
        metavar="CHAPTER",
        help="only this chapter (e.g. 02_single_objective)",
    )
    p.add_argument(
        "--verdict",
        default=None,
        choices=list(VERDICTS),
        metavar="VERDICT",
        help=f"only this verdict ({', '.join(VERDICTS)})",
    )
    p.add_argument(
        "--recompute",
        action="store_true",
        help="evaluate the records on the cached runs instead of reading results/claims.csv",
    )
    p.set_defaults(func=_cmd_claims)
