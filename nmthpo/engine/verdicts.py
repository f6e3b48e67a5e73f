"""The book's one verdict vocabulary (a module of its own so that the CLI can check a verdict
without loading NumPy). The rules that give each verdict: :mod:`nmthpo.engine.claims`."""

__all__ = ["VERDICTS"]

#: The one verdict vocabulary of the book.
VERDICTS: tuple[str, ...] = ("reproduced", "partly", "not reproduced", "not testable")
