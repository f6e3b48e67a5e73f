"""The bad-input matrix as declarative records (used by ``test_bad_input_matrix.py``).

A :class:`Cli` record is one call of ``nmthpo`` that must be refused "clean": exit status
``status`` (2: bad input or the user's code; 1: the environment), exactly one line on stderr
starting ``nmthpo: error:``, no traceback, nothing written. Every entry of ``needles`` must
appear in that line; an entry ``"a|b"`` is satisfied by either alternative. An :class:`Api`
record is one call of the Python API that must raise ``error`` before any work, with every
needle in its message.

Placeholders in arguments and environment values are filled per sandbox (the test's ``box``
fixture): ``{ro}`` a read-only directory, ``{run}`` a run directory written by ``nmthpo run``
(10 trials of ``userpkg.mymod:MyOptimizer`` on ja-en, seed 0; ``{run7}`` the same with seed 7),
``{example}`` upstream's example sequences (of zh-en), ``{closed}`` the address of a closed
local port, ``{partial}`` a cache directory whose ``partial`` entry is a file.

The kinds are fixed; the values are variations of each kind.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Any

from nmthpo.errors import LIMITS

__all__ = [
    "API_CASES",
    "API_NUMBERS",
    "CLI_NAMES",
    "CLI_NUMBERS",
    "CLI_PATHS",
    "CLI_SCHEDULER",
    "CLI_SETTINGS",
    "SETTINGS",
    "USER_CLASSES",
    "Api",
    "Cli",
    "setting_value",
]


@dataclass(frozen=True)
class Cli:
    """One refused command line (module docstring)."""

    id: str
    argv: tuple[str, ...]
    needles: tuple[str, ...]
    status: tuple[int, ...] = (2,)
    env: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Api:
    """One refused call: ``target`` names the callable (see the test's ``API_TARGETS``)."""

    id: str
    target: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    needles: tuple[str, ...] = ()
    error: str = "input"  # "input" (InputError, ValueError/TypeError) or "user" (UserCodeError)


# -- numbers ----------------------------------------------------------------------------------
HUGE = str(10**13)
INT_BAD = ("-1", "2.5", "1e3", "nan", "inf", "-inf", "abc", "true", "", " ", "0x10", HUGE)
FLOAT_BAD = ("nan", "inf", "-inf", "abc", "", "1e999", "true")
LIST_BAD = ("", ",", "5,2.5", "5,-1", "5,nan", "5,abc", "0", f"5,{HUGE}", "5;10")

BASE = {
    "run": ("run", "rs", "--task", "ja-en", "--out", "out", "--quiet", "--trials", "1"),
    "evaluate": ("evaluate", "{example}", "--task", "zh-en"),
    "ga-study": ("ga-study", "--task", "ja-en", "--trials", "1", "--iterations", "2"),
    "score-spaces": ("score-spaces", "--task", "zh-en", "--spaces", "full", "--budgets", "1"),
    "transfer": (
        "transfer",
        "rs",
        "--target",
        "ja-en",
        "--sources",
        "zh-en",
        "--repeats",
        "1",
        "--trials",
        "5",
        "--out",
        "out",
        "--quiet",
    ),
}
#: (command, option, smallest valid value, kind)
NUMBER_OPTIONS = [
    ("run", "--trials", 1, "int"),
    ("run", "--seed", 0, "int"),
    ("run", "--budget", 1, "int"),
    ("run", "--n-init", 1, "int"),
    ("run", "--n-source", 1, "int"),
    ("run", "--jobs", 1, "int"),
    ("evaluate", "--n-init", 0, "int"),
    ("evaluate", "--budget", 1, "int"),
    ("evaluate", "--tolerance", 0, "float"),
    ("ga-study", "--iterations", 1, "int"),
    ("ga-study", "--trials", 1, "int"),
    ("ga-study", "--seed", 0, "int"),
    ("ga-study", "--init-pop", 1, "list"),
    ("ga-study", "--target", None, "float"),
    ("score-spaces", "--seed-size", 1, "int"),
    ("score-spaces", "--budgets", 1, "list"),
    ("score-spaces", "--seed", 0, "int"),
    ("transfer", "--n-source", 1, "int"),
    ("transfer", "--trials", 1, "int"),
    ("transfer", "--repeats", 1, "int"),
    ("transfer", "--seed", 0, "int"),
    ("transfer", "--jobs", 1, "int"),
]


#: The entry of LIMITS that bounds an option.
LIMIT_OF = {
    "--trials": "trials",
    "--repeats": "trials",
    "--iterations": "iterations",
    "--budget": "budget",
    "--n-init": "budget",
    "--n-source": "budget",
    "--jobs": "jobs",
    "--seed-size": "population",
    "--init-pop": "population",
    "--budgets": "score_budget",
}


def _opt(opt: str) -> str:
    """An option's name as the command line and the API spell it: ``--n-init|n_init``."""
    return f"{opt}|{opt[2:].replace('-', '_')}"


def _numbers() -> list[Cli]:
    out = []
    for cmd, opt, low, kind in NUMBER_OPTIONS:
        bad: tuple[str, ...] = {"int": INT_BAD, "float": FLOAT_BAD, "list": LIST_BAD}[kind]
        if kind == "int" and low == 1:
            bad = (*bad, "0")
        if kind == "float" and low == 0:
            bad = (*bad, "-1", "-0.001")
        if opt in LIMIT_OF:  # one above the documented limit (nmthpo.errors.LIMITS)
            bad = (*bad, str(LIMITS[LIMIT_OF[opt]] + 1))
        if opt == "--seed":  # 10**13 is a valid seed; 2**64 is not
            bad = (*[b for b in bad if b != HUGE], str(2**64))
        for v in bad:
            out.append(Cli(f"{cmd}{opt}={v!r}", (*BASE[cmd], opt, v), (_opt(opt),)))
    r, e, t = BASE["run"], BASE["evaluate"], BASE["transfer"]
    out += [  # sizes against the table (ja-en: 150 rows, zh-en: 118)
        Cli("run-n-init-151", (*r, "--n-init", "151"), (_opt("--n-init"),)),
        Cli("run-n-init-119-zh", (*r, "--task", "zh-en", "--n-init", "119"), (_opt("--n-init"),)),
        Cli("run-budget-151", (*r, "--budget", "151"), (_opt("--budget"),)),
        Cli("run-budget-below-n-init", (*r, "--budget", "2"), (_opt("--budget"),)),
        Cli(
            "run-budget-below-n-init-6", (*r, "--budget", "5", "--n-init", "6"), (_opt("--budget"),)
        ),
        Cli(
            "run-n-source-rows",
            (*r, "--sources", "zh-en", "--n-source", "119"),
            (_opt("--n-source"),),
        ),
        Cli("eval-budget-119-zh", (*e, "--budget", "119"), (_opt("--budget"),)),
        Cli("eval-n-init-119-zh", (*e, "--n-init", "119"), (_opt("--n-init"),)),
        Cli(
            "eval-budget-below-n-init", (*e, "--budget", "2", "--n-init", "3"), (_opt("--budget"),)
        ),
        Cli("transfer-trials-151", (*t, "--trials", "151"), (_opt("--trials"),)),
        Cli("transfer-trials-below-init", (*t, "--trials", "2"), (_opt("--trials"),)),
        Cli("transfer-n-source-rows", (*t, "--n-source", "119"), (_opt("--n-source"),)),
        Cli(
            "score-seed-size-119",
            (*BASE["score-spaces"], "--seed-size", "119"),
            (_opt("--seed-size"),),
        ),
        Cli(
            "score-budgets-10001",
            (*BASE["score-spaces"], "--budgets", "10001"),
            (_opt("--budgets"),),
        ),
        Cli("ga-init-pop-151", (*BASE["ga-study"], "--init-pop", "151"), (_opt("--init-pop"),)),
    ]
    return out


CLI_NUMBERS = _numbers()

# -- method settings: (method, task, KEY=VALUE, extra arguments) -------------------------------
_LC = "lc-scratch-ja-en"
_SRC = ("--sources", "zh-en")
SETTINGS: list[tuple[str, str, str, tuple[str, ...]]] = [
    *[
        ("gb-ei-m", "ja-en", kv, ())
        for kv in (
            "k=2.5",
            "k=true",
            "k=-1",
            "k=0",
            "k=abc",
            "k=151",
            "k=[1]",
            "k={}",
            "k=",
            "lengthscale=-1",
            "lengthscale=NaN",
            "eps=-1",
            "refresh_every=-1",
            "tie_rtol=abc",
            "eif_method=bogus",
            "eif_mode=bogus",
        )
    ],
    *[
        ("ga", "ja-en", kv, ())
        for kv in (
            "population=1e12",
            "population=1000000000000",
            "population=151",
            "population=2.5",
            "population=true",
            "population=1",
            "population=abc",
            "mutation_rate=-1",
            "mutation_rate=2",
            "mutation_rate=NaN",
            "max_tries=0",
            "max_tries=-5",
        )
    ],
    *[
        ("bo-ei-m", "ja-en", kv, ())
        for kv in (
            "restarts=1000000000",
            "restarts=-1",
            "restarts=2.5",
            "refit_every=0",
            "refit_every=abc",
            "restart_every=0",
            "xi=abc",
            "xi=NaN",
            "schedule=bogus",
            "refit_growth=-1",
        )
    ],
    *[
        ("bo-m", "ja-en", kv, ("--objective", "pareto"))
        for kv in (
            "log_time=abc",
            "log_time=2",
            "log_time=null",
            "ref_margin=-1",
            "refit_until=-1",
            "restarts=1e9",
        )
    ],
    *[
        ("bo-ei-m-mcmc", "ja-en", kv, ())
        for kv in ("n_hypers=0", "burnin=-1", "step=-0.3", "chain_length=2.5")
    ],
    *[
        ("sh", _LC, kv, ())
        for kv in (
            "eta=1",
            "eta=0",
            "eta=abc",
            "min_checkpoint=0",
            "min_checkpoint=2.5",
            "max_checkpoint=-1",
            "n_configs=0",
        )
    ],
    *[
        ("bohb", _LC, kv, ())
        for kv in (
            "min_bandwidth=-1",
            "gamma=2",
            "gamma=0",
            "random_fraction=-1",
            "random_fraction=2",
            "eta=1",
        )
    ],
    ("hb", _LC, "eta=1", ()),
    ("hb", _LC, "min_checkpoint=-1", ()),
    ("asha", _LC, "workers=0", ()),
    ("asha", _LC, "workers=1000000000", ()),
    ("optuna:CmaEsSampler", "ja-en", "sigma0=-1", ()),
    ("optuna:CmaEsSampler", "ja-en", "sigma0=abc", ()),
    ("optuna:CmaEsSampler", "ja-en", "n_startup_trials=-1", ()),
    ("optuna:TPESampler", "ja-en", "n_startup_trials=abc", ()),
    ("optuna:TPESampler", "ja-en", "n_startup_trials=-1", ()),
    ("optuna:TPESampler", "ja-en", "n_startup_trials=2.5", ()),
    ("rgpe", "ja-en", "n_samples=0", _SRC),
    ("rgpe", "ja-en", "n_samples=abc", _SRC),
    ("transbo", "ja-en", "n_cv=1", _SRC),
    ("transbo", "ja-en", "n_cv=0", _SRC),
    ("transbo", "ja-en", "n_cv=abc", _SRC),
    ("pogpe", "ja-en", "target_weight=2", _SRC),
    ("pogpe", "ja-en", "target_weight=-1", _SRC),
    ("tst", "ja-en", "rho=-1", _SRC),
    ("sgpr", "ja-en", "alpha=2", _SRC),
    ("igp", "ja-en", "restarts=-1", _SRC),
    # unknown names
    ("ga", "ja-en", "foo=1", ()),
    ("bo-m", "ja-en", "bar=1", ("--objective", "pareto")),
    ("bohb", _LC, "nosuch=1", ()),
    ("transbo", "ja-en", "nosuch=1", _SRC),
    ("optuna:CmaEsSampler", "ja-en", "nosuch=1", ()),
    ("optuna:TPESampler", "ja-en", "bogus_setting=1", ()),
    ("bo-ei-m-mcmc", "ja-en", "nosuch=1", ()),
    ("rs", "ja-en", "foo=1", ()),
]


def setting_value(kv: str) -> tuple[str, Any]:
    """``KEY=VALUE`` -> ``(key, value)`` as ``--set`` reads it (JSON, else the string)."""
    k, _, v = kv.partition("=")
    try:
        return k, json.loads(v)
    except json.JSONDecodeError:
        return k, v


def _setting_needles(kv: str) -> tuple[str, ...]:
    k = kv.partition("=")[0]
    return (f"{k}=|'{k}'|{k}:|{k} must|{k} is|setting {k}",)


CLI_SETTINGS = [
    Cli(
        f"{m}:{kv}",
        ("run", m, "--task", t, "--out", "out", "--quiet", "--trials", "1", *x, "--set", kv),
        _setting_needles(kv),
    )
    for m, t, kv, x in SETTINGS
] + [
    Cli(f"set-key-{kv!r}", (*BASE["run"], "--set", kv), ("--set",))
    for kv in ("=3", " =3", "=", "  =  ", "==1")
]

# -- names ------------------------------------------------------------------------------------
_R, _T = BASE["run"], BASE["transfer"]
_COMPARE = ("compare", "{run}", "--task", "ja-en", "--quiet")


def _name(cid: str, argv: tuple[str, ...], opt: str, value: str) -> Cli:
    return Cli(cid, argv, (f"{opt}|{value!r}" if not value.strip() else f"{opt}|{value}",))


def _names() -> list[Cli]:
    out = []
    for m in (
        "nope",
        "",
        "RS",
        "rs ",
        "optuna:NoSuchSampler",
        "nmthpo.optimizers.random:Nope",
        "os:path",
        "sys:maxsize",
        "json:JSONDecoder",
        "userpkg.mymod:NotAnOptimizer",
        ":Opt",
        "mod:",
        "a:b:c",
    ):
        tail = m.rpartition(":")[2]
        need = f"method|{m}|{tail}" if tail.strip() else f"method|{m!r}"
        out.append(Cli(f"run-method-{m!r}", ("run", m, *_R[2:]), (need,)))
    out.append(
        _name(
            "run-pruner",
            ("run", "optuna-pruner:NoSuchPruner", "--task", _LC, "--out", "out", "--quiet"),
            "pruner",
            "NoSuchPruner",
        )
    )
    out.append(_name("transfer-method-nope", ("transfer", "nope", *_T[2:]), "method", "nope"))
    for t in ("xx-en", "", "JA-EN", " ja-en", "branin", "hartmann6", "../ja-en", "ja-en,zh-en"):
        out.append(_name(f"run-task-{t!r}", (*_R, "--task", t), "--task", t))
        out.append(_name(f"transfer-target-{t!r}", (*_T, "--target", t), "--target", t))
        out.append(_name(f"eval-task-{t!r}", (*BASE["evaluate"], "--task", t), "--task", t))
        out.append(_name(f"ga-task-{t!r}", (*BASE["ga-study"], "--task", t), "--task", t))
        out.append(_name(f"score-task-{t!r}", (*BASE["score-spaces"], "--task", t), "--task", t))
    for s in ("", ",", " , ", "xx-en", "zh-en,xx-en"):
        need = ("--sources|xx-en" if "xx" in s else f"--sources|{s!r}",)
        out.append(Cli(f"run-sources-{s!r}", (*_R, "--sources", s), need))
        out.append(Cli(f"transfer-sources-{s!r}", (*_T, "--sources", s), need))
    for sc in ("nope", "", "MEAN-B-EI"):
        out.append(_name(f"score-{sc!r}", (*BASE["score-spaces"], "--score", sc), "--score", sc))
    for sp in (
        "",
        ",",
        "bogus",
        "random:1e12",
        "random:1000000000000",
        "random:100001",
        "random:0",
        "random:-1",
        "random:abc",
        "layers=abc",
        "nosuchfield=2",
        "@adir",
        "@afile",
    ):
        argv = ("score-spaces", "--task", "zh-en", "--budgets", "1", "--spaces", sp)
        out.append(_name(f"score-spaces-{sp!r}", argv, "--spaces", sp))
    for b in ("nope", "", ",", "rs,nope", "RS"):
        out.append(
            _name(f"compare-baselines-{b!r}", (*_COMPARE, "--baselines", b), "--baselines", b)
        )
    for mt in ("nope", "", "FTB"):
        out.append(_name(f"compare-metric-{mt!r}", (*_COMPARE, "--metric", mt), "--metric", mt))
    out.append(_name("compare-task-empty", ("compare", "{run}", "--task", ""), "--task", ""))
    out.append(
        _name("compare-task-other", ("compare", "{run}", "--task", "zh-en"), "--task", "zh-en")
    )
    for opt in ("--paper", "--chapter", "--verdict"):
        for v in ("", "nope"):
            out.append(_name(f"claims{opt}={v!r}", ("claims", opt, v), opt, v))
    for t, needle in (("", "task"), ("nope", "nope"), ("lc-scratch-sw-en", "lc-scratch-sw-en")):
        argv = ("check-method", "rs", "--task", t)
        out.append(Cli(f"check-method-task-{t!r}", argv, (needle,)))
    for m in ("", "nope", "skopt:nope", "nevergrad:", "smac:x", "hyperopt:tp"):
        argv = ("check-method", m, "--task", "ja-en")
        out.append(Cli(f"check-method-method-{m!r}", argv, (m or "method",)))
    out.append(_name("data-mirror-empty", ("data", "fetch", "--mirror", ""), "--mirror", ""))
    out.append(_name("data-bogus", ("data", "bogus"), "data_command", "bogus"))
    out.append(_name("tasks-extra", ("tasks", "extra"), "unrecognized", "extra"))
    out.append(_name("methods-extra", ("methods", "--json", "x"), "unrecognized", "x"))
    return out


CLI_NAMES = _names()

# -- paths ------------------------------------------------------------------------------------
_BAD_DIRS = (
    ("", (2,)),
    ("afile", (2,)),
    ("filelink", (2,)),
    ("dangling", (2,)),
    ("afile/sub", (2,)),
    ("afile/sub/deeper", (2,)),
    ("/dev/null", (2,)),
    ("{ro}", (1, 2)),
    ("{ro}/out", (1, 2)),
)


def _paths() -> list[Cli]:
    out = []
    for d, st in _BAD_DIRS:
        n = (f"--out|{d}",) if d else ("--out",)
        out.append(Cli(f"run--out={d!r}", (*_R, "--out", d), n, st))
        out.append(Cli(f"transfer--out={d!r}", (*_T, "--out", d), n, st))
        c = (f"--cache|{d}",) if d else ("--cache",)
        out.append(Cli(f"run--cache={d!r}", (*_R, "--cache", d), c, st))
        out.append(Cli(f"transfer--cache={d!r}", (*_T, "--cache", d), c, st))
    out.append(Cli("run-cache-partial-file", (*_R, "--cache", "{partial}"), ("partial",), (1, 2)))
    for p, st in (("", (2,)), ("afile/fig.png", (2,)), ("{ro}/fig.png", (1, 2)), ("adir", (2,))):
        out.append(Cli(f"compare--plot={p!r}", (*_COMPARE, "--plot", p), ("--plot",), st))
    ev = ("--task", "ja-en")
    for f in (
        "",
        "adir",
        "dangling",
        "filelink-dir",
        "seqs/neg.ss",
        "seqs/float.ss",
        "seqs/exp.ss",
        "seqs/huge.ss",
        "seqs/oob150.ss",
        "seqs/repeat-far.ss",
        "seqs/utf16.ss",
        "seqs/nul.ss",
        "seqs/spaces.ss",
        "seqs/zero.ss",
        "seqs/comma.ss",
        "seqs/latin1.ss",
        "seqs/random.bin",
    ):
        out.append(Cli(f"evaluate-{f!r}", ("evaluate", *ev, f), (f or "sequence",)))
    out.append(Cli("evaluate-oob-zh", ("evaluate", "--task", "zh-en", "seqs/oob118.ss"), ("118",)))
    for variant in RUN_DAMAGE:
        out.append(
            Cli(f"compare-{variant}", ("compare", "--task", "ja-en", f"runs/{variant}"), (variant,))
        )
    for where, st in (("afile", (1, 2)), ("afile/sub", (1, 2)), ("{ro}", (1, 2))):
        out.append(
            Cli(
                f"compare-NMTHPO_RESULTS={where}",
                ("compare", "{run7}", "--task", "ja-en", "--quiet", "--baselines", "rs"),
                ("NMTHPO_RESULTS|" + where.replace("{ro}", "ro"),),
                st,
                (("NMTHPO_RESULTS", where),),
            )
        )
    return out


#: Damaged copies of the sandbox's run directory (``runs/<variant>``): what is done to them.
RUN_DAMAGE = (
    "spec-list",
    "spec-extra-key",
    "spec-missing-key",
    "spec-not-json",
    "spec-empty",
    "spec-binary",
    "spec-task-unknown",
    "spec-method-int",
    "spec-seed-str",
    "seq-flip",
    "parquet-flip",
    "parquet-truncated",
    "parquet-empty",
    "parquet-missing",
    "parquet-csv",
)

CLI_PATHS = _paths()

# -- scheduler --------------------------------------------------------------------------------
CLI_SCHEDULER = [
    Cli(f"scheduler={a!r}", (*_R, "--scheduler", a), ("--scheduler",))
    for a in (
        "",
        "tcp://",
        "tcp://:8786",
        "tcp://127.0.0.1:abc",
        "tcp://127.0.0.1:99999",
        "tcp://127.0.0.1:0",
        "tcp://127.0.0.1:-1",
        "udp://127.0.0.1:8786",
        "inproc://x",
        "127.0.0.1:",
        "tcp://[::1",
        "{closed}",
        "tcp://localhost:1",
    )
]

# -- user code --------------------------------------------------------------------------------
#: (class of tests/userpkg/matrix_faults.py, a text its error must show besides its name)
USER_CLASSES = (
    ("InitRaises", "matrix-init-boom"),
    ("AskFirstRaises", "matrix-ask-first-boom"),
    ("AskMidRaises", "matrix-ask-mid-boom"),
    ("TellRaises", "matrix-tell-boom"),
    ("ReturnsNone", "None"),
    ("ReturnsFloat", "3.5"),
    ("ReturnsString", "12"),
    ("ReturnsArray", "array|[1 2]|[1, 2]"),
    ("ReturnsBool", "True|bool"),
    ("ReturnsOutOfRange", "1000000"),
    ("ReturnsNegative", "-1"),
    ("ReturnsRepeated", "more than once|repeated|already|again"),
)

# -- API numbers: (argument, bad values) of nmthpo.run --------------------------------------------
_NUM = (0, -1, 2.5, 1e3, float("nan"), float("inf"), "3", True, 10**12)
API_NUMBERS: list[Api] = []
for _arg, _vals in (
    ("trials", (*_NUM, None, 100_001)),
    ("seed", (-1, 2.5, float("nan"), "3", True, 2**64)),
    ("n_init", (*_NUM, 151)),
    ("budget", (*_NUM, 151, 2)),
    ("jobs", (*_NUM, 257)),
    ("n_source", (*_NUM, 119)),
):
    for _v in _vals:
        _kw: dict[str, Any] = {_arg: _v}
        if _arg == "n_source":
            _kw["sources"] = ("zh-en",)
        API_NUMBERS.append(Api(f"run-{_arg}={_v!r}", "run", _kw, (_arg,)))


def _api_cases() -> list[Api]:
    A = Api
    out = list(API_NUMBERS)
    for v in ("nope", "", 3, None, "optuna:NoSuch", "os:path"):
        out.append(A(f"run-method={v!r}", "run", {"method": v}, ("method",)))
    for v in ("xx-en", "", 3, None, "branin", "JA-EN"):
        out.append(A(f"run-task={v!r}", "run", {"task": v}, ("task",)))
    for arg, v in (
        ("objective", "nope"),
        ("stop", "nope"),
        ("encoding", "nope"),
        ("scheduler", "tcp://127.0.0.1:1"),
        ("scheduler", "bogus"),
        ("scheduler", 3),
        ("cache_dir", "afile"),
        ("cache_dir", "afile/sub"),
        ("sources", []),
        ("sources", "zh-en"),
        ("sources", ["xx-en"]),
        ("sources", [3]),
        ("settings", [("k", 1)]),
        ("settings", "k=1"),
        ("settings", {"": 1}),
        ("settings", {3: 1}),
        ("kernel", "nope"),
    ):
        kw: dict[str, Any] = {arg: v}
        if arg == "kernel":
            kw["sources"] = ("zh-en",)
        out.append(A(f"run-{arg}={v!r}", "run", kw, (arg,)))
    for m, t, kv, x in SETTINGS:
        k, v = setting_value(kv)
        kw = {"method": m, "task": t, "settings": {k: v}}
        if "--objective" in x:
            kw["objective"] = "pareto"
        if "--sources" in x:
            kw["sources"] = ("zh-en",)
        out.append(A(f"run-{m}-settings-{kv}", "run", kw, (k,)))
    for arg, vals in (
        ("sequences", ([[150]], [[0, 0]], [[-1]], [[1.5]], [["1"]], [], [[]], None, "012")),
        ("n_init", (-1, 2.5, "3", 151)),
        ("budget", (0, -3, 2.5, 10**12, 151)),
        ("tolerance", (float("nan"), float("inf"), -1, "0.5")),
        ("objective", ("nope",)),
        ("ties", ("nope",)),
        ("bleu", (None, "abc")),
    ):
        for v in vals:
            need = "sequence|row" if arg == "sequences" else arg
            out.append(A(f"evaluate-{arg}={v!r}", "evaluate", {arg: v}, (need,)))
    out.append(A("evaluate-pareto-missing", "evaluate", {"objective": "pareto"}, ("pareto",)))
    for v in ("xx-en", "", 3, None, "JA-EN", "branin"):
        out.append(A(f"load_table-{v!r}", "load_table", {"task": v}, ("task",)))
    from userpkg import matrix_faults as F

    for label, v in (
        ("42", 42),
        ("str", "rs"),
        ("None", None),
        ("lambda", lambda a, b, c: 0),
        ("partial", functools.partial(F.hpob_float)),
    ):
        out.append(A(f"from_hpob-fn={label}", "from_hpob", {"fn": v}, ("fn|observe_and_suggest",)))
    for v in ("", 3, "a/b", "a:b", " "):
        out.append(A(f"from_hpob-key={v!r}", "from_hpob", {"fn": F.hpob_float, "key": v}, ("key",)))
    for v in ("", "rs", "a:b", 3, None, " "):
        out.append(
            A(f"register-name={v!r}", "register", {"name": v, "spec": F.ReturnsNone}, ("name",))
        )
    for v in (42, "rs", None, int):
        need = ("spec|class|optimi",)
        out.append(A(f"register-spec={v!r}", "register", {"name": "matrix-ok", "spec": v}, need))
    for arg, v in (
        ("task", "xx-en"),
        ("task", ""),
        ("task", 3),
        ("task", "zh-en"),
        ("runs", []),
        ("runs", None),
        ("runs", "abc"),
        ("runs", [3]),
        ("baselines", ["nope"]),
        ("baselines", "rs"),
        ("baselines", [3]),
        ("baselines", None),
        ("ties", "nope"),
        ("metric", "nope"),
        ("seed", -1),
        ("seed", 2.5),
        ("pairs", "nope"),
    ):
        out.append(A(f"compare-{arg}={v!r}", "compare", {arg: v}, (arg,)))
    out.append(A("plan-pairs=nope", "plan", {"pairs": "nope"}, ("pairs",)))
    out.append(
        A("compare_tasks-tasks=xx-en", "compare_tasks", {"tasks": ["xx-en"]}, ("tasks|xx-en",))
    )
    out.append(A("compare_tasks-tasks=[]", "compare_tasks", {"tasks": []}, ("tasks",)))
    for p in ("nope", "afile", "adir", *[f"runs/{v}" for v in RUN_DAMAGE]):
        out.append(A(f"load_run_dir-{p}", "load_run_dir", {"path": p}, (p,)))
    for cls, text in USER_CLASSES:
        out.append(A(f"user-{cls}", "run_user", {"cls": cls}, (cls, text), "user"))
    for fn, text in (
        ("hpob_float", "0.5"),
        ("hpob_string", "'1'"),
        ("hpob_none", "None"),
        ("hpob_out_of_range", "index"),
        ("hpob_negative", "-1"),
        ("hpob_raises", "matrix-hpob-boom"),
    ):
        out.append(A(f"hpob-{fn}", "run_hpob", {"fn": fn}, (fn, text), "user"))
    return out


#: Every refused call of the Python API.
API_CASES = _api_cases()
