"""``nmthpo compare``: rank your runs against the book's baselines (issues 13 and 21).

``nmthpo compare RUN_DIR [RUN_DIR ...] --task T [--json] [--plot FILE]`` reads directories
written by ``nmthpo run`` and compares them with the book's methods on the same task,
objective, seed and trials (:mod:`nmthpo.engine.compare`): each of your runs against each
baseline and your runs among themselves (``--pairs all``: every pair), Wilcoxon's
signed-rank test with Holm's correction over those pairs. The default baselines and the folder
of the book's cache that holds their runs come from the experiment registry
(:func:`nmthpo.studies.grids.compare_baselines`).

Before any baseline is loaded the command checks the runs (a run of another task than
``--task`` is an error naming it: exit status 2) and prints to stderr when the design cannot
reach significance (``nmthpo: warning: 6 paired trials: the smallest attainable corrected p is
0.25 ...; use at least 10 paired trials``) and when runs of different lengths are cut to their
common trials; ``--json`` holds the same in its ``design`` object.

``--task all`` compares on every task of the runs, pools the (task, trial) pairs of the
metric normalised by random search's mean for paired tests over tasks, and ranks the methods
across tasks (average ranks, Friedman test, Nemenyi critical difference by ``autorank``;
``--plot`` then draws the critical-difference diagram).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["HELP", "register"]

HELP = (
    "rank runs of `nmthpo run` against the book's baselines (intervals, paired tests, "
    "critical differences)"
)


def _print_tests(tests: Sequence[dict[str, Any]], mine: Sequence[str]) -> None:
    sig = [t for t in tests if t["better"] is not None]
    print(
        f"{len(sig)} of {len(tests)} pairs differ (Wilcoxon signed-rank, Holm over these "
        f"pairs, alpha 0.05); for your runs:"
    )
    for t in tests:
        if t["a"] in mine or t["b"] in mine:
            verdict = f"{t['better']} better" if t["better"] else "no difference"
            print(f"  {t['a']} vs {t['b']}: p_holm={t['p_holm']:.3g}, {verdict}")


def _print_one(comp: Any) -> None:
    board = comp.leaderboard()
    print(
        f"task {comp.task}, objective {comp.objective}, {comp.trials} paired trials, "
        f"ties={comp.ties}; {comp.metric} (mean, 95% CI), ratio to random search, mean rank"
    )
    width = max(len(str(n)) for n in board.index) + 2
    for name, r in board.iterrows():
        print(
            f"{name!s:<{width}}{r['mean']:>9.2f}  [{r['ci_low']:.2f}, {r['ci_high']:.2f}]"
            f"  x{r['rel_rs']:.2f} RS  rank {r['mean_rank']:.2f}"
        )
    if comp.design is not None:
        print(f"design: {comp.design.summary()}")
    _print_tests(comp.tests, comp.mine)


def _check_tasks(dirs: Sequence[str], task: str) -> None:
    """Refuse runs of another task than ``task`` before any work (names the directories)."""
    from nmthpo.commands.validate import UsageError
    from nmthpo.engine.compare import load_run_spec

    if task == "all":
        return
    other = []
    for d in dirs:
        spec = load_run_spec(d)
        if spec.task != task:
            other.append(f"{d} (task {spec.task})")
    if other:
        raise UsageError(
            f"--task {task}: {', '.join(other)} "
            f"{'is a run' if len(other) == 1 else 'are runs'} of another task; "
            f"pass only runs of {task}, or --task all to compare every task"
        )


def _warn(designs: dict[str, Any]) -> None:
    """Print the design warnings and notes to stderr, one line each (identical ones once)."""
    lines: dict[str, list[str]] = {}
    for where, d in designs.items():
        for kind, msg in (("warning", d.warning()), ("note", d.note())):
            if msg:
                lines.setdefault(f"nmthpo: {kind}: {msg}", []).append(where)
    for line, places in lines.items():
        tag = "" if places == [""] else f" [{', '.join(w for w in places if w)}]"
        print(line + tag, file=sys.stderr)


def _cmd_compare(args: argparse.Namespace) -> int:
    from nmthpo.engine.compare import (
        compare,
        compare_tasks,
        dumps,
        load_run_dir,
        plan,
        plan_tasks,
    )
    from nmthpo.studies.grids import compare_baselines

    _check_tasks(args.run_dirs, args.task)
    runs = [load_run_dir(d) for d in args.run_dirs]
    book = compare_baselines()  # the default baselines and their folder of the book's cache
    baselines = None
    if args.baselines is not None:
        baselines = [b.strip() for b in args.baselines.split(",") if b.strip()]
    if args.task == "all":
        per_task, pooled = plan_tasks(runs, baselines=baselines, pairs=args.pairs, book=book)
        _warn({"pooled over tasks": pooled, **per_task})
    else:
        _warn({"": plan(runs, args.task, baselines, args.pairs, book=book)})
    kw = dict(
        baselines=baselines,
        ties=args.ties,
        metric=args.metric,
        progress=not args.quiet,
        pairs=args.pairs,
        book=book,
    )
    if args.task == "all":
        ranking = compare_tasks(runs, **kw)  # type: ignore[arg-type]
        obj: Any = ranking
        if args.json:
            print(dumps(ranking.to_json()))
        else:
            for comp in ranking.comparisons.values():
                _print_one(comp)
                print()
            comps = list(ranking.comparisons.values())
            mine = [k for k in comps[0].mine if all(k in c.mine for c in comps)]
            print(
                f"pooled over {len(comps)} tasks: {comps[0].metric} over random search's "
                "mean on the task (1 = random search); mean:"
            )
            for name, v in sorted(ranking.pooled_scores.items(), key=lambda kv: kv[1]):
                print(f"  {name}: {v:.2f}")
            if ranking.pooled_design is not None:
                print(f"design: {ranking.pooled_design.summary()}")
            _print_tests(ranking.pooled, mine)
            print()
            cd = "n/a" if ranking.cd is None else f"{ranking.cd:.2f}"
            print(
                f"average ranks over {len(ranking.comparisons)} tasks ({ranking.omnibus} "
                f"p={ranking.pvalue:.3g}, {ranking.posthoc} critical difference {cd}):"
            )
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
    p.add_argument(
        "run_dirs",
        nargs="+",
        metavar="RUN_DIR",
        help="directories written by `nmthpo run ... --out RUN_DIR`, all of --task",
    )
    p.add_argument("--task", required=True, help="the task to compare on, or 'all'")
    p.add_argument(
        "--baselines",
        default=None,
        help="comma-separated registry names (default: the book's methods of "
        "the objective; rs is always included)",
    )
    p.add_argument(
        "--pairs",
        choices=["mine", "all"],
        default="mine",
        help="pairs to test (Holm over them): your runs against each baseline and "
        "among themselves (mine, default), or every pair (all)",
    )
    p.add_argument("--ties", choices=["value", "first-id"], default="value")
    p.add_argument(
        "--metric", default=None, help="primary metric (default ftb; fto for Pareto runs)"
    )
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--plot",
        default=None,
        metavar="FILE",
        help="write a figure: leaderboard + runtime ECDF, or the CD diagram",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_compare)
