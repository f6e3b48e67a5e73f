"""``nmthpo ga-study``: Ganapathy (2020) Tables 2-4 (GA vs random baseline counts).

Example::

    nmthpo ga-study --task ja-en --target 16 --init-pop 5,10,15,20,25 --iterations 1000 \\
        --trials 3 [--seed S] [--json]

prints the GA's and the baseline's per-trial and averaged counts (individuals added, initial
population included) beside the paper's, and the differences (Table 4). ``--json`` prints the
same as JSON: ``ga`` and ``baseline`` map each initial population size (a string key) to its
average; ``per_trial``, ``difference``, ``std_error``, ``paper`` and ``rules`` add the rest.
Bad input raises ``ValueError``/``KeyError`` (the CLI reports them with exit status 2).
"""

from __future__ import annotations

import argparse
from typing import Any

from nmthpo.commands.arguments import LIMITS, bounded, int_list, limit_help

__all__ = ["DESCRIPTION", "HELP", "format_study", "register", "run_command"]

HELP = "Ganapathy (2020) Tables 2-4: genetic algorithm vs random baseline"
#: The ``--help`` description (plain text).
DESCRIPTION = (
    "Reproduce Ganapathy (2020), Tables 2-4: for each initial population size, count the "
    "individuals the steady-state genetic algorithm and a random baseline add (initial "
    "population included) until one reaches the target BLEU, per trial and on average, "
    "beside the paper's counts and the differences (Table 4)."
)


def register(subparsers: Any) -> None:
    """Add the ``ga-study`` subcommand to an ``argparse`` subparsers object."""
    p = subparsers.add_parser("ga-study", help=HELP, description=DESCRIPTION)
    p.add_argument("--task", default="ja-en", help="a lookup-table task (default ja-en)")
    p.add_argument(
        "--target",
        type=float,
        default=16.0,
        help="stop once an individual with BLEU >= TARGET is in the population",
    )
    p.add_argument(
        "--init-pop",
        type=int_list(1, LIMITS["population"], "5,10,15,20,25"),
        default=[5, 10, 15, 20, 25],
        help="initial population sizes, comma-separated (default 5,10,15,20,25; "
        "each at most the table's rows)",
    )
    p.add_argument(
        "--iterations",
        type=bounded(1, LIMITS["iterations"]),
        default=1000,
        help=f"iterations per trial ({limit_help('iterations')}; default 1000)",
    )
    p.add_argument(
        "--trials",
        type=bounded(1, LIMITS["trials"]),
        default=3,
        help=f"trials ({limit_help('trials')}; default 3)",
    )
    p.add_argument(
        "--seed",
        type=bounded(0, LIMITS["seed"]),
        default=0,
        help=f"base seed of the trials ({limit_help('seed')}; default 0)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print JSON: the averages, per-trial counts, differences and the paper's values",
    )
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    """Run the study for the parsed arguments and print it; return the exit status."""
    from nmthpo.studies.ganapathy.tables import ga_study

    sizes = list(args.init_pop)
    study = ga_study(args.task, args.target, sizes, args.iterations, args.trials, args.seed)
    if args.json:
        print(study.to_json())
        return 0
    print(format_study(study, args))
    return 0


def format_study(study: Any, args: argparse.Namespace) -> str:
    """Plain-text Tables 2-4 with standard errors and the paper's values."""
    from nmthpo.studies.ganapathy.tables import PAPER_BASELINE, PAPER_DIFFERENCE, PAPER_GA

    lines = [
        f"Ganapathy (2020) on {args.task}: individuals added until BLEU >= {args.target} "
        f"(initial population included), {args.iterations} iterations x {args.trials} "
        f"trials, seed {args.seed}"
    ]
    for which, title, paper in (
        ("ga", "Table 2: genetic algorithm", PAPER_GA),
        ("baseline", "Table 3: random baseline", PAPER_BASELINE),
    ):
        per = study.per_trial(which)
        avg, se = study.average(which), study.std_error(which)
        lines.append("")
        lines.append(title)
        head = f"{'init pop':>8}" + "".join(f"{c:>10}" for c in per.columns)
        lines.append(head + f"{'average':>10}{'± se':>8}{'paper':>9}")
        for m in study.init_pops:
            ref = f"{paper[m]:>9.3f}" if m in paper else f"{'-':>9}"
            lines.append(
                f"{m:>8}"
                + "".join(f"{v:>10.3f}" for v in per.loc[m])
                + f"{avg[m]:>10.3f}{se[m]:>8.3f}"
                + ref
            )
    diff, dse = study.difference(), study.difference_se()
    lines += [
        "",
        "Table 4: baseline minus GA (positive: GA needs fewer)",
        f"{'init pop':>8}{'winner':>10}{'difference':>12}{'± se':>8}{'paper':>9}",
    ]
    for m in study.init_pops:
        winner = "GA" if diff[m] > 0 else "baseline"
        ref = f"{PAPER_DIFFERENCE[m]:>9.3f}" if m in PAPER_DIFFERENCE else f"{'-':>9}"
        lines.append(f"{m:>8}{winner:>10}{diff[m]:>12.3f}{dse[m]:>8.3f}" + ref)
    lines.append(f"{'mean':>8}{'':>10}{float(diff.mean()):>12.3f}")
    rules = ", ".join(f"{k}={v}" for k, v in study.rules.as_dict().items())
    lines += ["", f"rules: {rules}"]
    return "\n".join(lines)
