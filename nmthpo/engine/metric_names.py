"""The names of the evaluation metrics, light enough to check a command line with
(no pandas): the fixed metrics of each objective (Zhang & Duh 2020, Section 4) and the
family ``regret@B``, the simple regret after ``B`` evaluations (:mod:`nmthpo.engine.metrics`).
"""

from __future__ import annotations

from nmthpo.errors import InputValueError

__all__ = ["HIGHER_IS_BETTER", "METRICS", "REGRET_PREFIX", "check_metric", "regret_budget"]

#: The metrics of each objective, the primary one first.
METRICS: dict[str, tuple[str, ...]] = {
    "bleu": ("ftb", "ftc", "fb"),
    "pareto": ("fto", "fta", "fbp"),
}
#: Metrics where larger is better (every other metric is a runtime or a gap: smaller wins).
HIGHER_IS_BETTER: frozenset[str] = frozenset({"fbp"})
#: Name of the simple regret after ``B`` evaluations: ``regret@B`` (objective ``bleu``).
REGRET_PREFIX = "regret@"


def regret_budget(metric: str) -> int | None:
    """``B`` of a metric named ``regret@B`` (a positive integer), else ``None``."""
    if not metric.startswith(REGRET_PREFIX):
        return None
    text = metric[len(REGRET_PREFIX) :]
    return int(text) if text.isascii() and text.isdigit() and int(text) >= 1 else None


def check_metric(metric: str, objective: str, what: str = "metric") -> str:
    """``metric`` if it applies to ``objective`` (one of :data:`METRICS` or, for ``bleu``,
    ``regret@B``), else an :class:`~nmthpo.errors.InputValueError` naming the valid ones."""
    if metric in METRICS.get(objective, ()):
        return metric
    if objective == "bleu" and regret_budget(metric) is not None:
        return metric
    extra = ", regret@B (e.g. regret@25)" if objective == "bleu" else ""
    raise InputValueError(
        f"{what} {metric!r}: not a metric of objective {objective!r}; valid: "
        f"{', '.join(METRICS.get(objective, ()))}{extra}"
    )
