"""A user's module that imports a package that is not installed: the module exists, so this
is the user's code failing (not a misspelt module name)."""

import nmthpo_no_such_dependency  # noqa: F401


class Optimizer:  # pragma: no cover - never reached
    def ask(self):
        return 0

    def tell(self, row, y):
        pass
