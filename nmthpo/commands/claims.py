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

__all__ = ["HELP", "register"]

HELP = "the ledger: every claim of the four papers with ours, its 95% interval and the verdict"


def _value(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def _cmd_claims(args: argparse.Namespace) -> int:
    from nmthpo.commands.validate import UsageError
    from nmthpo.engine.cache import results_dir
    from nmthpo.engine.numbers import fmt
    from nmthpo.engine.stats import VERDICTS
    from nmthpo.studies.ledger import LEDGER_FILE, PAPERS, SOURCES, counts, ledger, read_ledger

    if args.paper is not None and args.paper not in PAPERS:
        raise UsageError(f"unknown paper {args.paper!r}; valid: {', '.join(PAPERS)}")
    if args.chapter is not None and args.chapter not in SOURCES:
        raise UsageError(f"unknown chapter {args.chapter!r}; valid: {', '.join(SOURCES)}")
    if args.verdict is not None and args.verdict not in VERDICTS:
        raise UsageError(f"unknown verdict {args.verdict!r}; valid: {', '.join(VERDICTS)}")
    path = results_dir() / LEDGER_FILE
    if args.recompute:
        frame = ledger()
    else:
        if not path.is_file():
            raise UsageError(f"no ledger at {path}; write it with `make results` (or "
                             "`tools/make_results.py --only claims`), or pass --recompute")
        frame = read_ledger(path)
    if args.paper is not None:
        frame = frame[frame["paper"] == args.paper]
    if args.chapter is not None:
        frame = frame[frame["chapter"] == args.chapter]
    if args.verdict is not None:
        frame = frame[frame["verdict"] == args.verdict]
    if args.json:
        rows = [{k: _value(v) for k, v in r.items()} for r in frame.to_dict("records")]
        print(json.dumps({"claims": rows,
                          "counts": {k: int(v) for k, v in counts(frame).items()}},
                         indent=2, ensure_ascii=False))
        return 0
    width = max([len(str(i)) for i in frame["id"]] + [4]) + 2
    for r in frame.to_dict("records"):
        ci = ("" if _value(r["ci_low"]) is None
              else f" [{fmt(r['ci_low'])}, {fmt(r['ci_high'])}]")
        print(f"{r['id']:<{width}}{r['verdict']:<16}ours {r['ours']}{ci}; paper "
              f"{r['paper_value']}: {r['statement']}")
    c = counts(frame)
    print(f"{len(frame)} claims: " + ", ".join(f"{int(n)} {v}" for v, n in c.items()))
    return 0


def register(subparsers: Any) -> None:
    """Add the ``claims`` subcommand to ``subparsers``."""
    p = subparsers.add_parser("claims", help=HELP)
    p.add_argument("--json", action="store_true", help="every field, as JSON")
    p.add_argument("--paper", default=None,
                   help="only this paper (zhang-duh-2020, ganapathy-2020, li-et-al-2022, "
                   "ariafar-et-al-2022, zhang-duh-2024)")
    p.add_argument("--chapter", default=None, help="only this chapter (e.g. 02_single_objective)")
    p.add_argument("--verdict", default=None, help="only this verdict")
    p.add_argument("--recompute", action="store_true",
                   help="evaluate the records on the cached runs instead of reading "
                   "results/claims.csv")
    p.set_defaults(func=_cmd_claims)
