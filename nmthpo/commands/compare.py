"""``nmthpo compare``: rank your runs against the book's baselines.

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
0.25 ...; use at least 9 paired trials``) and when runs of different lengths are cut to their
common trials; ``--json`` holds the same in its ``design`` object.

Every refusal comes before pandas, SciPy or a table is loaded (:func:`check_args`, which the
command line's validation calls): the run directories (each holds ``spec.json``, a
single-task run's spec, ``sequences.ss`` and ``results.parquet``, as ``nmthpo run --out``
writes them; :func:`nmthpo.engine.compare.check_run_dir`), ``--task``, ``--plot``,
``--baselines`` (registry names that support the runs' objective; an empty list or an empty
name is refused), ``--metric`` and ``NMTHPO_RESULTS``. Then the runs are read
(:func:`nmthpo.engine.compare.load_run_dir`: a damaged ``results.parquet`` is named) and the
numerical stack is loaded.

``--task all`` compares on every task of the runs, pools the (task, trial) pairs of the
metric normalised by random search's mean for paired tests over tasks, and ranks the methods
across tasks (average ranks, Friedman test, Nemenyi critical difference by ``autorank``;
``--plot`` then draws the critical-difference diagram).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["DESCRIPTION", "HELP", "check_args", "parse_baselines", "register"]

HELP = (
    "rank runs of `nmthpo run` against the book's baselines (intervals, paired tests, "
    "critical differences)"
)
#: The ``--help`` description (plain text).
DESCRIPTION = (
    "Rank your runs against the book's baselines on the same task, objective, seed and "
    "trials. Reads directories written by nmthpo run --out and tests each of your runs "
    "against each baseline and your runs among themselves (Wilcoxon's signed-rank test, "
    "Holm's correction over the pairs). --task all pools every task of the runs and ranks the "
    "methods across tasks (average ranks, Friedman test, Nemenyi critical difference). "
    "Example: nmthpo compare runs/mine --task ja-en"
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


def _table_methods(objective: str | None = None) -> list[str]:
    """Registry names a comparison can use as baselines (single-task table methods)."""
    from nmthpo.optimizers.registry import METHODS

    return [
        k
        for k, v in METHODS.items()
        if not v.fidelity
        and not v.needs_sources
        and (objective is None or objective in v.objectives)
    ]


def _resolved_by_run(name: str) -> bool:
    """``module:Class``, ``prefix:Name`` or a library's method named alone (``hebo``): names
    the run resolves (and checks) itself, not the registry's table."""
    from nmthpo.optimizers.registry import prefixes

    return ":" in name or name in prefixes()


def parse_baselines(text: str | None) -> list[str] | None:
    """``--baselines`` as a list of names (``None``: the book's methods of the objective).

    An empty list, an empty name (``"rs,,gb-m"``) or a name the registry does not know
    (``module:Class``, ``prefix:Name`` and a library's method such as ``hebo`` pass: the run
    resolves them, computing it into the user cache) is a
    :class:`~nmthpo.commands.validate.UsageError` listing the valid baselines.
    """
    from nmthpo.commands.validate import UsageError

    if text is None:
        return None
    names = [b.strip() for b in text.split(",")]
    if not any(names):
        raise UsageError(
            f"--baselines {text!r}: empty; give comma-separated baselines (valid: "
            f"{', '.join(_table_methods())}), or omit --baselines for the book's methods"
        )
    if "" in names:
        raise UsageError(
            f"--baselines {text!r}: name {names.index('') + 1} is empty; give names "
            "separated by single commas, e.g. --baselines gb-eif-m,bo-ei-m"
        )
    valid = _table_methods()
    unknown = [n for n in names if not _resolved_by_run(n) and n not in valid]
    if unknown:
        raise UsageError(
            f"--baselines {text!r}: {', '.join(map(repr, unknown))} "
            f"{'is not a baseline' if len(unknown) == 1 else 'are not baselines'}; valid: "
            f"{', '.join(valid)}, another library's method (optuna:TPESampler, smac:hpo, "
            "hebo, ...: nmthpo methods) or module:Class of your own optimiser"
        )
    return list(dict.fromkeys(names))


def _check_runs(args: argparse.Namespace, dirs: Sequence[Any], baselines: list[str] | None) -> None:
    """The runs against ``--task``, each other, ``--metric`` and ``--baselines``."""
    from nmthpo.commands.validate import UsageError
    from nmthpo.engine.compare import MIN_TASKS
    from nmthpo.engine.metric_names import check_metric

    task = args.task
    if task != "all":
        other = [f"{d.path} (task {d.spec['task']})" for d in dirs if d.spec["task"] != task]
        if other:
            raise UsageError(
                f"--task {task}: {', '.join(other)} "
                f"{'is a run' if len(other) == 1 else 'are runs'} of another task; "
                f"pass only runs of {task}, or --task all to compare every task"
            )
    else:
        tasks = sorted({d.spec["task"] for d in dirs})
        if len(tasks) < MIN_TASKS:
            raise UsageError(
                f"--task all: ranking across tasks needs runs on at least {MIN_TASKS} tasks "
                f"(autorank's minimum), these are on {len(tasks)} ({', '.join(tasks)}); pass "
                "runs of more tasks, or --task TASK to compare on one"
            )
    groups: dict[str, list[Any]] = {}
    for d in dirs:
        groups.setdefault(d.spec["task"], []).append(d)
    for group in groups.values():
        first = group[0]
        for d in group[1:]:
            for f in ("objective", "seed", "n_init"):
                if d.spec[f] != first.spec[f]:
                    raise UsageError(
                        f"{d.path} and {first.path}: runs differ in {f} ({d.spec[f]!r} vs "
                        f"{first.spec[f]!r}); only runs with one {f} pair up: pass runs of "
                        "one objective, seed and --n-init"
                    )
    for objective in sorted({d.spec["objective"] for d in dirs}):
        if args.metric is not None:
            check_metric(args.metric, objective, "--metric")
        valid = _table_methods(objective)
        wrong = [b for b in baselines or () if not _resolved_by_run(b) and b not in valid]
        if wrong:
            raise UsageError(
                f"--baselines {args.baselines!r}: {', '.join(map(repr, wrong))} does not "
                f"support objective {objective!r} of the runs; valid: {', '.join(valid)}"
            )


def check_args(args: argparse.Namespace) -> list[Any]:
    """Check ``nmthpo compare``'s arguments before any numerical library loads.

    In this order: each ``RUN_DIR`` is a directory, given once; ``--plot``; ``--task`` (a
    lookup task or ``all``); ``--baselines`` (:func:`parse_baselines`); ``--metric``;
    ``NMTHPO_RESULTS`` is not a file (:func:`nmthpo.engine.compare.check_user_cache`); then
    each run directory (:func:`nmthpo.engine.compare.check_run_dir`: its files, its spec, its
    sequences) and the runs against the options (task, objective, seed, ``n_init``, metric,
    baselines). Returns the checked :class:`~nmthpo.engine.compare.RunDir` records (kept on
    ``args``, so a second call is free).

    Raises
    ------
    nmthpo.errors.InputError
        One line naming the argument or file and the fix.
    """
    from nmthpo.benchmark.tasks import task_names
    from nmthpo.commands.validate import UsageError, check_output_file

    done = getattr(args, "_checked_runs", None)
    if done is not None:
        return list(done)
    seen: dict[Path, str] = {}
    for d in args.run_dirs:
        p = Path(d)
        if not p.is_dir():
            what = "is a file" if p.exists() else "no such directory"
            raise UsageError(
                f"run directory {d}: {what}; give directories written by `nmthpo run ... --out DIR`"
            )
        key = p.resolve()
        if key in seen:
            raise UsageError(
                f"run directory {d}: given twice (as {seen[key]} too); pass each run once"
            )
        seen[key] = d
    if args.plot is not None:
        check_output_file(args.plot, "--plot", (".png", ".pdf", ".svg"))
    lookup = task_names("lookup")
    if args.task != "all" and args.task not in lookup:
        raise UsageError(
            f"--task {args.task}: unknown task {args.task!r}; valid tasks: "
            f"{', '.join(lookup)}, or all"
        )
    baselines = parse_baselines(args.baselines)
    from nmthpo.engine.compare import METRICS, check_run_dir, check_user_cache
    from nmthpo.engine.metric_names import regret_budget

    every = sorted({m for ms in METRICS.values() for m in ms})
    if args.metric is not None and args.metric not in every and regret_budget(args.metric) is None:
        raise UsageError(
            f"--metric {args.metric!r}: unknown metric; valid: {', '.join(every)}, regret@B "
            "(e.g. regret@25)"
        )
    check_user_cache()
    dirs = [check_run_dir(d) for d in args.run_dirs]
    _check_runs(args, dirs, baselines)
    args._checked_runs = tuple(dirs)
    return dirs


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
    from nmthpo.engine.compare import load_run_dir

    check_args(args)  # cheap, and done already when called through `nmthpo compare`
    baselines = parse_baselines(args.baselines)
    # the runs first (a damaged file is refused before SciPy and the registry load)
    runs = [load_run_dir(d) for d in args.run_dirs]
    from nmthpo.engine.compare import compare, compare_tasks, dumps, plan, plan_tasks
    from nmthpo.studies.grids import compare_baselines

    book = compare_baselines()  # the default baselines and their folder of the book's cache
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
    p = subparsers.add_parser("compare", help=HELP, description=DESCRIPTION)
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
    p.add_argument(
        "--ties",
        choices=["value", "first-id"],
        default="value",
        help="ftb's target: value (the paper: any row with the best BLEU) or first-id "
        "(upstream's script: the first row with it); default value",
    )
    p.add_argument(
        "--metric", default=None, help="primary metric (default ftb; fto for Pareto runs)"
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print JSON: the design, the leaderboard and the paired tests",
    )
    p.add_argument(
        "--plot",
        default=None,
        metavar="FILE",
        help="write a figure: leaderboard + runtime ECDF, or the CD diagram",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_compare)
