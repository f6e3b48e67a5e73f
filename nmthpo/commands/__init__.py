"""Chapter-specific subcommands of ``nmthpo``; each module has ``register(subparsers)``."""

#: Modules of this package that add a subcommand (in help order).
COMMAND_MODULES: tuple[str, ...] = ("ga_study", "score_spaces", "transfer", "compare")
