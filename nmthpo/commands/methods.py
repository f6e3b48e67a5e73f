"""``nmthpo methods``: every registered method with its kind, description and settings.

A method's settings are read from its class's declaration (the ``Settings`` dataclass beside
the class, :mod:`nmthpo.optimizers.settings`), not from a list kept elsewhere: name, type,
default and a one-line help. The default shown is the *effective* one: a registry entry's
fixed setting (e.g. ``kernel=rbf`` of ``bo-ei-r``) replaces the class's default and is marked
(``*`` in the text, ``"fixed": true`` in JSON); ``--set NAME=VALUE`` overrides either. A
method whose class runs differently with source tasks or on learning curves (``rs``) lists
those classes' settings too. Reading the declarations imports the optimiser modules but no
numerical library besides NumPy.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from typing import Any

__all__ = ["DESCRIPTION", "HELP", "method_info", "methods_info", "register"]

HELP = "list every method with its kind, settings (defaults, help) and description"
#: The ``--help`` description (plain text).
DESCRIPTION = (
    "List every registered method with its kind, description and settings: name, type, "
    "default, allowed values and a one-line help. A default marked * is fixed by the "
    "method's registry entry; --set NAME=VALUE of nmthpo run overrides either."
)

#: Width of the text output.
WIDTH = 100

#: Each adapter prefix of :data:`nmthpo.optimizers.registry.PREFIXES`: the class behind it
#: (its settings are read from its declaration), what the name after the prefix is, an example.
_ADAPTERS: dict[str, tuple[str, str, str, str]] = {
    "optuna": (
        "nmthpo.optimizers.adapters.optuna:OptunaSampler",
        "<Sampler>",
        "optuna:TPESampler",
        "an Optuna sampler on a lookup table",
    ),
    "optuna-pruner": (
        "nmthpo.optimizers.multifidelity.optuna_pruner:OptunaPruner",
        "<Pruner>",
        "optuna-pruner:HyperbandPruner",
        "an Optuna pruner on learning curves",
    ),
    "smac": (
        "nmthpo.optimizers.adapters.smac:SmacOptimizer",
        "<hpo|blackbox>",
        "smac:blackbox",
        "SMAC3's facade on a lookup table (extra: peers)",
    ),
    "hebo": (
        "nmthpo.optimizers.adapters.hebo:HeboOptimizer",
        "",
        "hebo",
        "HEBO on a lookup table (extra: peers)",
    ),
    "nevergrad": (
        "nmthpo.optimizers.adapters.nevergrad:NevergradOptimizer",
        "<Optimizer>",
        "nevergrad:NGOpt",
        "a Nevergrad optimizer on a lookup table (extra: peers)",
    ),
    "hyperopt": (
        "nmthpo.optimizers.adapters.hyperopt:HyperoptOptimizer",
        "<tpe|rand|anneal>",
        "hyperopt:tpe",
        "hyperopt on a lookup table (extra: peers)",
    ),
    "skopt": (
        "nmthpo.optimizers.adapters.skopt:SkoptOptimizer",
        "<gp|rf|et>",
        "skopt:gp",
        "scikit-optimize on a lookup table (extra: peers)",
    ),
}


def register(sub: Any) -> None:
    """Add the ``methods`` sub-command to ``sub`` (argparse sub-parsers)."""
    p = sub.add_parser("methods", help=HELP, description=DESCRIPTION)
    p.add_argument(
        "--json", action="store_true", help="a JSON list, one object per registered method"
    )
    p.set_defaults(func=run)


# -- data ----------------------------------------------------------------------------------------
def _introspected(cls: type) -> list[Any]:
    """A user's class without a declaration: its keyword parameters (no help)."""
    import inspect

    from nmthpo.optimizers.registry import constructor_settings
    from nmthpo.optimizers.settings import SettingInfo

    names, _ = constructor_settings(cls)
    found: dict[str, Any] = {}
    for klass in cls.__mro__:
        init = vars(klass).get("__init__")
        if init is None or klass is object:
            continue
        for p in inspect.signature(init).parameters.values():
            if p.name in names and p.name not in found:
                found[p.name] = p
    out = []
    for n in names:
        p = found[n]
        ann = "" if p.annotation is p.empty else p.annotation
        out.append(
            SettingInfo(
                n,
                ann if isinstance(ann, str) else getattr(ann, "__name__", ""),
                None if p.default is p.empty else p.default,
                "",
            )
        )
    return out


def _class_info(spec: Any, transfer: bool = False, fidelity: bool = False) -> dict[str, Any]:
    """The settings of the class that runs ``spec`` in a role (transfer, learning curves)."""
    from nmthpo.optimizers.registry import load_class
    from nmthpo.optimizers.settings import describe, more

    decl = spec.settings_class(transfer, fidelity)
    infos = (
        describe(decl, spec.settings)
        if decl is not None
        else _introspected(load_class(spec, transfer, fidelity))
    )
    return {
        "class": spec.class_path(transfer, fidelity),
        "declared": decl is not None,
        "settings": [
            {k: v for k, v in i.as_dict().items() if k != "context"} for i in infos if not i.context
        ],
        "context": [i.name for i in infos if i.context],
        "more": None if decl is None else more(decl),
    }


def method_info(name: str, spec: Any) -> dict[str, Any]:
    """What ``nmthpo methods --json`` says about one method: ``name``, ``kind``,
    ``description``, ``objectives``, then its class's ``class``, ``settings`` (each with
    ``name``, ``type``, ``default``, ``help``, ``fixed``, ``allowed``), ``context``
    (keywords the runner passes), ``more`` (what else it accepts) and ``declared``;
    ``with_sources`` and ``on_curves``: the same for the class that runs it with source
    tasks or on learning curves, when that is another class (else ``None``)."""
    out = {
        "name": name,
        "kind": spec.kind,
        "description": spec.description,
        "objectives": list(spec.objectives),
        **_class_info(spec),
    }
    out["with_sources"] = _class_info(spec, transfer=True) if spec.transfer_cls else None
    out["on_curves"] = _class_info(spec, fidelity=True) if spec.fidelity_cls else None
    return out


def methods_info() -> list[dict[str, Any]]:
    """:func:`method_info` of every method of :data:`nmthpo.optimizers.registry.METHODS`."""
    from nmthpo.optimizers.registry import METHODS

    return [method_info(name, spec) for name, spec in METHODS.items()]


# -- text ----------------------------------------------------------------------------------------
def _value(v: Any) -> str:
    if isinstance(v, float):
        return format(v, "g")
    return str(v)


def _wrap(text: str, indent: int, first: str = "") -> list[str]:
    """``first`` then ``text`` wrapped to :data:`WIDTH`, continuation lines at ``indent``."""
    lines = textwrap.wrap(text, WIDTH - indent, break_on_hyphens=False) or [""]
    pad = " " * indent
    return [(first or pad) + lines[0]] + [pad + line for line in lines[1:]]


def _settings_lines(info: dict[str, Any], indent: int) -> list[str]:
    pad = " " * indent
    rows = info["settings"]
    if not rows:
        tail = f" (and {info['more']})" if info["more"] else ""
        return [f"{pad}no settings{tail}"]
    wn = max(len(r["name"]) for r in rows) + 2
    wt = max(len(r["type"]) for r in rows) + 2
    wd = max(len(_value(r["default"])) + r["fixed"] for r in rows) + 2
    out = []
    for r in rows:
        default = _value(r["default"]) + ("*" if r["fixed"] else "")
        head = f"{pad}{r['name']:<{wn}}{r['type']:<{wt}}{default:<{wd}}"
        allowed = r.get("allowed") or ""
        text = (r["help"] or "-") + (f" [{allowed}]" if allowed else "")
        out += _wrap(text, len(head), head)
    if info["more"]:
        out += _wrap(f"and {info['more']}", indent)
    if not info["declared"]:
        out += _wrap("(not declared: the class's keyword parameters)", indent)
    return out


def _adapter_lines() -> list[str]:
    """One line per adapter prefix and one for ``module:Class``."""
    import importlib

    from nmthpo.optimizers.registry import prefixes
    from nmthpo.optimizers.settings import declared, describe, more

    out = ["", "Also accepted as METHOD:"]
    for prefix, hook in prefixes().items():
        if prefix not in _ADAPTERS:
            out += _wrap(f"{prefix}:<Name>  an adapter ({hook})", 4, "  ")
            continue
        path, placeholder, example, what = _ADAPTERS[prefix]
        module, _, name = path.partition(":")
        decl = declared(getattr(importlib.import_module(module), name))
        name_form = f"{prefix}:{placeholder}" if placeholder else prefix
        text = f"{name_form}  {what}, e.g. {example}"
        if decl is not None:
            names = [i.name for i in describe(decl) if not i.context]
            extra = more(decl)
            text += f"; settings: {', '.join(names)}" + (f", and {extra}" if extra else "")
        out += _wrap(text, 4, "  ")
    out += _wrap(
        "module:Class  your own optimiser class (module on PYTHONPATH); settings: its "
        "Settings dataclass, else its keyword parameters",
        4,
        "  ",
    )
    return out


def _text(rows: list[dict[str, Any]]) -> list[str]:
    out = _wrap(
        "Methods of `nmthpo run METHOD` with their kind and settings (--set NAME=VALUE):"
        " name, type, default (* fixed by the method's entry, replacing the class's "
        "default), help [allowed values].",
        0,
    )
    out.append("")
    for r in rows:
        out.append(f"{r['name']}  [{r['kind']}]  {r['class']}")
        out += _wrap(r["description"], 4)
        out += _settings_lines(r, 4)
        for key, what in (("with_sources", "with --sources"), ("on_curves", "on learning curves")):
            if r[key] is not None:
                out.append(f"    {what}: {r[key]['class']}")
                out += _settings_lines(r[key], 6)
        out.append("")
    out += _wrap(
        "Transfer methods also get the transfer context from the runner (sources, "
        "kernel, target_task, metafeatures): not settings.",
        0,
    )
    return out + _adapter_lines()


def run(args: argparse.Namespace) -> int:
    """Print the methods (text or ``--json``)."""
    rows = methods_info()
    if args.json:
        print(json.dumps(rows, indent=2, default=repr))
        return 0
    print("\n".join(_text(rows)))
    return 0
