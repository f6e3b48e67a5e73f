"""Chapter-specific subcommands of ``nmthpo``; each module has ``HELP`` and ``register``.

A command module imports nothing heavy at module level (``nmthpo --help`` lists them without
loading pandas, SciPy or scikit-learn): its ``register(subparsers)`` adds the full parser and
its command function imports what the command needs.
"""

__all__ = ["COMMAND_MODULES", "command_name"]

#: Modules of this package that add a subcommand (in help order).
COMMAND_MODULES: tuple[str, ...] = (
    "ga_study",
    "score_spaces",
    "transfer",
    "compare",
    "claims",
    "check_method",
)


def command_name(module: str) -> str:
    """The sub-command of a module of :data:`COMMAND_MODULES` (``ga_study`` -> ``ga-study``)."""
    return module.replace("_", "-")
