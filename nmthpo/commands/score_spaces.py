"""``nmthpo score-spaces``: budget-conditional search-space scores on a table (Ariafar et al. 2022).

Usage::

    nmthpo score-spaces --task sw-en [--spaces SPEC] [--seed-size 20]
        [--budgets 1,2,5,10,20,50] [--score mean-b-ei] [--seed 0] [--json]

Draws ``--seed-size`` random rows of the table as seed data, fits the GP on them, and prints,
for every candidate space (SPEC syntax in :mod:`nmthpo.benchmark.subspaces`; default ``default`` =
``full,single,random:50``) and budget, the predicted score
(:mod:`nmthpo.studies.ariafar.space_scores`, Monte Carlo)
next to the exact empirical score (batches with replacement, as the prediction), then the
rank correlations per budget and the preferred space per budget.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from nmthpo.commands.arguments import LIMITS, bounded, int_list, limit_help

__all__ = ["DESCRIPTION", "HELP", "compute", "parse_budgets", "register", "run"]

HELP = "budget-conditional search-space scores (Ariafar et al. 2022) on a table"
#: The ``--help`` description (plain text; the module docstring is reST).
DESCRIPTION = (
    "Budget-conditional search-space scores on a table (Ariafar et al. 2022). Draws "
    "--seed-size random rows of the table as seed data, fits a Gaussian process on them and "
    "prints, for every candidate space and budget, the predicted score (Monte Carlo) next "
    "to the exact empirical score (batches drawn with replacement, as the prediction), then "
    "the rank correlations and the preferred space per budget. Example: nmthpo "
    "score-spaces --task sw-en --budgets 1,2,5,10,20,50 --score mean-b-ei"
)

_BUDGETS = int_list(1, LIMITS["score_budget"], "1,2,5,10")


def parse_budgets(text: str) -> list[int]:
    """``"1,2,5"`` -> ``[1, 2, 5]``; a bad token, a budget < 1 or one above the documented
    limit (:data:`nmthpo.commands.arguments.LIMITS` ``["score_budget"]``) raises
    ``ValueError`` naming it."""
    try:
        return _BUDGETS(text)
    except argparse.ArgumentTypeError as exc:
        raise ValueError(f"--budgets: {exc}") from None


def _budgets(text: str) -> str:
    """argparse type of ``--budgets``: checked at parse time, kept as text for :func:`compute`."""
    _BUDGETS(text)
    return text


def _clean(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def compute(args: argparse.Namespace) -> dict[str, Any]:
    """Run the scoring for parsed arguments; return the JSON-ready result."""
    from nmthpo.benchmark.tables import check_task
    from nmthpo.studies.ariafar.space_scores import SCORES, faithfulness_table, table_experiment

    check_task(args.task)
    budgets = parse_budgets(args.budgets)
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0; got {args.seed}")
    if args.score not in SCORES:
        raise ValueError(f"unknown score {args.score!r}; valid: {', '.join(SCORES)}")
    frame = table_experiment(
        args.task,
        args.spaces,
        seed_sizes=(args.seed_size,),
        repeats=1,
        budgets=budgets,
        seed=args.seed,
    )
    sub = frame[frame["score"] == args.score]
    labels = list(dict.fromkeys(sub["space"]))
    wide = {
        c: sub.pivot(index="space", columns="budget", values=c).loc[labels, budgets]
        for c in ("predicted", "empirical", "empirical_norepl")
    }
    rows = sub.drop_duplicates("space").set_index("space")["n_rows"]
    faith = faithfulness_table(frame, args.score)
    preferred = [
        {
            "budget": b,
            "predicted": str(wide["predicted"][b].idxmax()),
            "empirical": str(wide["empirical"][b].idxmax()),
        }
        for b in budgets
    ]
    return {
        "task": args.task,
        "seed_size": int(args.seed_size),
        "seed": int(args.seed),
        "score": args.score,
        "budgets": budgets,
        "incumbent": float(sub["incumbent"].iloc[0]),
        "spaces": [
            {
                "space": lab,
                "rows": int(rows[lab]),
                **{c: [float(x) for x in wide[c].loc[lab]] for c in wide},
            }
            for lab in labels
        ],
        "faithfulness": [
            {k: _clean(v.item() if hasattr(v, "item") else v) for k, v in r.items()}
            for r in faith[
                ["budget", "n_spaces", "kendall_tau", "spearman", "top1", "regret"]
            ].to_dict("records")
        ],
        "preferred": preferred,
    }


def _format(res: dict[str, Any]) -> str:
    import pandas as pd

    budgets = res["budgets"]
    lines = [
        f"score-spaces: task {res['task']}, {len(res['spaces'])} spaces, seed data "
        f"{res['seed_size']} random rows (incumbent y+ = {res['incumbent']:.2f} BLEU), "
        f"score {res['score']}, seed {res['seed']}",
        "predicted (GP, Monte Carlo) / empirical (exact, i.i.d. batches) per budget:",
    ]
    table = pd.DataFrame(
        {
            "space": [s["space"] for s in res["spaces"]],
            "rows": [s["rows"] for s in res["spaces"]],
            **{
                f"b={b}": [
                    f"{s['predicted'][j]:.3f}/{s['empirical'][j]:.3f}" for s in res["spaces"]
                ]
                for j, b in enumerate(budgets)
            },
        }
    )
    lines.append(table.to_string(index=False))
    lines.append("")
    lines.append("faithfulness per budget (over spaces):")
    lines.append(
        pd.DataFrame(res["faithfulness"]).to_string(index=False, float_format="%.3f", na_rep="nan")
    )
    lines.append("")
    lines.append("preferred space per budget (predicted | empirical):")
    for p in res["preferred"]:
        lines.append(f"  b={p['budget']}: {p['predicted']} | {p['empirical']}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Entry point of ``nmthpo score-spaces``."""
    res = compute(args)
    print(json.dumps(res, indent=2) if args.json else _format(res))
    return 0


def register(subparsers: Any) -> None:
    """Add the ``score-spaces`` subcommand to ``subparsers``."""
    p = subparsers.add_parser(
        "score-spaces",
        help=HELP,
        description=DESCRIPTION,
    )
    p.add_argument("--task", required=True, help="a lookup-table task (e.g. sw-en)")
    p.add_argument(
        "--spaces",
        default="default",
        help="candidate spaces, SPEC syntax (default 'default': "
        "nmthpo.benchmark.subspaces.DEFAULT_SPEC, the full space, each "
        "single-value space and random sub-grids); "
        "e.g. 'layers=2;embed<=512;bpe=10k|30k,full', '@file', 'random:100'",
    )
    p.add_argument(
        "--seed-size",
        type=bounded(1, LIMITS["population"]),
        default=20,
        help="random seed rows for the GP (at most the table's rows)",
    )
    p.add_argument(
        "--budgets",
        type=_budgets,
        default="1,2,5,10,20,50",
        help="comma-separated budgets (each at most "
        f"{LIMITS['score_budget']:,}; default 1,2,5,10,20,50)",
    )
    p.add_argument(
        "--score",
        default="mean-b-ei",
        help="mean-b-ei (default) or another of nmthpo.models.space_scores.SCORES",
    )
    p.add_argument(
        "--seed",
        type=bounded(0, LIMITS["seed"]),
        default=0,
        help=f"random seed ({limit_help('seed')})",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.set_defaults(func=run)
