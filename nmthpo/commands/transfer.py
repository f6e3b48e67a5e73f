"""``nmthpo transfer``: repeated transfer-learning HPO trials (Li et al. 2022, Section 5).

``nmthpo transfer METHOD --target T [--sources A,B,...] [--n-source 50] [--trials 50]
[--repeats 30] [--seed S] --out DIR`` writes ``DIR/trajectories.parquet`` (one line per
repetition and step: row, BLEU, target weight, source weights, seconds per suggestion),
``DIR/sequences.ss``, ``DIR/target_weights.csv`` and ``DIR/spec.json``. ``--trials`` is the
total number of target evaluations per repetition, the 3 random initial rows included.
"""

from __future__ import annotations

import argparse
from typing import Any

from nmthpo.commands.arguments import LIMITS, bounded, limit_help

__all__ = ["DESCRIPTION", "HELP", "register"]

HELP = "transfer-learning HPO (TransBO and baselines)"
#: The ``--help`` description (plain text).
DESCRIPTION = (
    "Repeated transfer-learning HPO trials (Li et al. 2022, Section 5): a method searches "
    "the target task with the sampled evaluations of the source tasks. Writes "
    "trajectories.parquet (one line per repetition and step: row, BLEU, target and source "
    "weights, seconds per suggestion), sequences.ss, target_weights.csv and spec.json to "
    "--out."
)


def _cmd_transfer(args: argparse.Namespace) -> int:
    from nmthpo.commands.validate import transfer_sources
    from nmthpo.engine.runner import run_transfer

    sources = transfer_sources(args)
    res = run_transfer(
        args.method,
        args.target,
        sources,
        n_source=args.n_source,
        budget=args.trials,
        repeats=args.repeats,
        seed=args.seed,
        jobs=args.jobs,
        cache_dir=args.cache,
        progress=not args.quiet,
    )
    res.save(args.out, force=args.force)
    best = res.frame.groupby("rep")["bleu"].max()
    print(
        f"{args.repeats} repetitions of {args.method} on {args.target} "
        f"(sources {','.join(res.spec.sources or ()) or '-'}): final best BLEU "
        f"{best.mean():.2f} ± {best.std(ddof=0):.2f} -> {args.out}"
    )
    return 0


def register(subparsers: Any) -> None:
    """Add the ``transfer`` subcommand to ``subparsers``."""
    p = subparsers.add_parser("transfer", help=HELP, description=DESCRIPTION)
    p.add_argument(
        "method",
        help="transbo, rs, igp, scot, sgpr, pogpe, tst, tstm, rgpe, an "
        "ablation (transbo-ms, pogpe-ms, tst-ms, rgpe-ms), or module:Class of a "
        "transfer optimiser",
    )
    p.add_argument("--target", required=True, help="the target task (e.g. ja-en)")
    p.add_argument(
        "--sources",
        default=None,
        help="comma-separated source tasks (default: all other tasks of the family)",
    )
    p.add_argument(
        "--n-source",
        type=bounded(1, LIMITS["budget"]),
        default=50,
        help="sampled evaluations per source task (N_S; at most its rows)",
    )
    p.add_argument(
        "--trials",
        type=bounded(1, LIMITS["budget"]),
        default=50,
        help="target evaluations per repetition, initial rows included (N_T; at "
        "most the target's rows)",
    )
    p.add_argument(
        "--repeats",
        type=bounded(1, LIMITS["trials"]),
        default=30,
        help=f"repetitions ({limit_help('trials')}; default 30)",
    )
    p.add_argument(
        "--seed",
        type=bounded(0, LIMITS["seed"]),
        default=0,
        help=f"base seed of the repetitions ({limit_help('seed')}; default 0)",
    )
    p.add_argument(
        "--jobs",
        type=bounded(1, LIMITS["jobs"]),
        default=1,
        help=f"worker processes ({limit_help('jobs')})",
    )
    p.add_argument("--cache", default=None, help="cache directory (resume interrupted runs)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--out",
        required=True,
        help="output directory (refused if it holds the output of another run)",
    )
    p.add_argument(
        "--force", action="store_true", help="replace the output of another run in --out"
    )
    p.set_defaults(func=_cmd_transfer)
