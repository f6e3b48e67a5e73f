"""``nmthpo compare``: rank your runs against the book's baselines (issue 13).

``nmthpo compare RUN_DIR [RUN_DIR ...] --task T [--json] [--plot FILE]`` reads directories
written by ``nmthpo run`` and compares them with the book's methods on the same task,
objective, seed and trials (:mod:`nmthpo.engine.compare`). ``--task all`` compares on every
task of the runs and ranks the methods across tasks (average ranks, Friedman test, Nemenyi
critical difference by ``autorank``; ``--plot`` then draws the critical-difference diagram).
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["HELP", "register"]

HELP = ("rank runs of `nmthpo run` against the book's baselines (intervals, paired tests, "
        "critical differences)")


def _print_one(comp: Any) -> None:
    board = comp.leaderboard()
    print(f"task {comp.task}, objective {comp.objective}, {comp.trials} paired trials, "
          f"ties={comp.ties}; {comp.metric} (mean, 95% CI), ratio to random search, mean rank")
    width = max(len(str(n)) for n in board.index) + 2
    for name, r in board.iterrows():
        print(f"{name!s:<{width}}{r['mean']:>9.2f}  [{r['ci_low']:.2f}, {r['ci_high']:.2f}]"
              f"  x{r['rel_rs']:.2f} RS  rank {r['mean_rank']:.2f}")
    sig = [t for t in comp.tests if t["better"] is not None]
    print(f"{len(sig)} of {len(comp.tests)} pairs differ (Wilcoxon signed-rank, Holm, "
          f"alpha 0.05); for your runs:")
    mine = {k for k, v in comp.sources.items() if v == "run directory"}
    for t in comp.tests:
        if t["a"] in mine or t["b"] in mine:
            verdict = f"{t['better']} better" if t["better"] else "no difference"
            print(f"  {t['a']} vs {t['b']}: p_holm={t['p_holm']:.3g}, {verdict}")


def _cmd_compare(args: argparse.Namespace) -> int:
    from nmthpo.engine.compare import compare, compare_tasks, dumps, load_run_dir

    runs = [load_run_dir(d) for d in args.run_dirs]
    baselines = None
    if args.baselines is not None:
        baselines = [b.strip() for b in args.baselines.split(",") if b.strip()]
    kw = dict(baselines=baselines, ties=args.ties, metric=args.metric,
              progress=not args.quiet)
    if args.task == "all":
        ranking = compare_tasks(runs, **kw)  # type: ignore[arg-type]
        obj: Any = ranking
        if args.json:
            print(dumps(ranking.to_json()))
        else:
            for comp in ranking.comparisons.values():
                _print_one(comp)
                print()
            cd = "n/a" if ranking.cd is None else f"{ranking.cd:.2f}"
            print(f"average ranks over {len(ranking.comparisons)} tasks ({ranking.omnibus} "
                  f"p={ranking.pvalue:.3g}, {ranking.posthoc} critical difference {cd}):")
            for name, r in ranking.ranks.items():
                print(f"  {name}: {r:.2f}")
    else:
        comp = compare(runs, args.task, **kw)  # type: ignore[arg-type]
        obj = comp
        if args.json:
            print(dumps(comp.to_json()))
        else:
            _print_one(comp)
    if args.plot:
        from nmthpo.plots.compare import save_comparison_figure

        path = save_comparison_figure(obj, args.plot)
        if not args.json:
            print(f"figure -> {path}")
    return 0


def register(subparsers: Any) -> None:
    """Add the ``compare`` subcommand to ``subparsers``."""
    p = subparsers.add_parser("compare", help=HELP)
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR",
                   help="directories written by `nmthpo run ... --out RUN_DIR`")
    p.add_argument("--task", required=True, help="the task to compare on, or 'all'")
    p.add_argument("--baselines", default=None,
                   help="comma-separated registry names (default: the book's methods of "
                        "the objective; rs is always included)")
    p.add_argument("--ties", choices=["value", "first-id"], default="value")
    p.add_argument("--metric", default=None,
                   help="primary metric (default ftb; fto for Pareto runs)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--plot", default=None, metavar="FILE",
                   help="write a figure: leaderboard + runtime ECDF, or the CD diagram")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_compare)
