"""Synchronous successive halving, Hyperband, and upstream's halving schedule.

* :class:`SuccessiveHalving` (``sh``): Jamieson & Talwalkar (2016), in the rung form of Li et
  al. (2018, Hyperband, Algorithm 1, inner loop): ``n`` configurations trained to the first
  rung, the best ``1/eta`` promoted to the next, until the last rung (full fidelity); then a
  new bracket with new configurations, until the budget ends.
* :class:`Hyperband` (``hb``): Li et al. (2018), Algorithm 1: brackets ``s = s_max .. 0`` in
  turn, bracket ``s`` starting ``ceil((s_max + 1) / (s + 1) * eta**s)`` configurations at
  checkpoint ``max * eta**-s``.
* :class:`UpstreamHalving` (``sh-upstream``): the schedule of the NMTLC authors' ranking code
  (Zhang & Duh 2024): ``floor(log2 N)`` cuts evenly spaced over the first 75 % of ``max_len``,
  each keeping the better half; the survivors are trained to the end.

A promoted configuration resumes (the engine charges only new checkpoints). Promotion ranks
by the score at the rung (best so far) and breaks ties by the order of entry.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from nmthpo.optimizers.multifidelity.base import FidelityOptimizer, Job, rung_levels
from nmthpo.optimizers.settings import setting

__all__ = [
    "Bracket",
    "Hyperband",
    "HyperbandSettings",
    "SuccessiveHalving",
    "SuccessiveHalvingSettings",
    "UpstreamHalving",
    "UpstreamHalvingSettings",
    "schedule_cost",
    "upstream_schedule",
]


def _merge_rungs(levels: list[int], sizes: list[int]) -> tuple[list[int], list[int]]:
    """Drop rungs that rounding made no later than the previous one (the later size wins);
    every size at least 1."""
    keep_l: list[int] = []
    keep_s: list[int] = []
    for lv, sz in zip(levels, sizes, strict=True):
        if keep_l and lv <= keep_l[-1]:
            keep_s[-1] = max(1, int(sz))
            continue
        keep_l.append(int(lv))
        keep_s.append(max(1, int(sz)))
    return keep_l, keep_s


class Bracket:
    """One synchronous bracket: rung checkpoints and how many configurations each rung holds.

    Parameters
    ----------
    levels : list of int
        Checkpoints of the rungs, increasing.
    sizes : list of int
        Configurations per rung, non-increasing, the first one the bracket's size.
    """

    def __init__(self, levels: list[int], sizes: list[int]) -> None:
        if len(levels) != len(sizes) or not levels:
            raise ValueError(
                f"levels and sizes must be non-empty and equally long: {levels}, {sizes}"
            )
        self.levels = list(levels)
        self.sizes = [max(1, int(s)) for s in sizes]
        self.rung = 0
        self.members: list[int] = []  # rows of the current rung, in order of entry
        self.queue: list[int] = []  # rows of the current rung not asked yet
        self.scores: dict[int, float] = {}
        self.done = False

    def fill(self, rows: list[int]) -> None:
        """Start the first rung with ``rows``."""
        self.members = list(rows)
        self.queue = list(rows)
        if not rows:
            self.done = True

    def ask(self) -> Job | None:
        """The next job of the current rung, or None (waiting, or the bracket is done)."""
        if self.done or not self.queue:
            return None
        return self.queue.pop(0), self.levels[self.rung]

    def tell(self, row: int, score: float) -> None:
        """Record a result of the current rung; promote when the rung is complete."""
        self.scores[row] = score
        if self.queue or any(r not in self.scores for r in self.members):
            return
        if self.rung + 1 >= len(self.levels):
            self.done = True
            return
        keep = min(self.sizes[self.rung + 1], len(self.members))
        ranked = sorted(range(len(self.members)), key=lambda i: (-self.scores[self.members[i]], i))
        self.members = [self.members[i] for i in sorted(ranked[:keep])]
        self.queue = list(self.members)
        self.scores = {}
        self.rung += 1


class _Brackets(FidelityOptimizer):
    """Runs brackets one after the other; subclasses say which bracket comes next."""

    def __init__(self, X: np.ndarray, longest: int, rng: np.random.Generator) -> None:
        super().__init__(X, longest, rng)
        self.bracket: Bracket | None = None
        self.n_brackets = 0

    def next_bracket(self) -> Bracket | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def new_rows(self, k: int) -> list[int]:
        rows = []
        for _ in range(k):
            r = self.new_row()
            if r is None:
                break
            rows.append(r)
        return rows

    def ask(self) -> Job | None:
        if self.bracket is not None and not self.bracket.done:
            return self.bracket.ask()
        self.bracket = self.next_bracket()
        if self.bracket is None:
            return None
        self.n_brackets += 1
        return self.bracket.ask()

    def tell(self, row: int, checkpoint: int, score: float, complete: bool) -> None:
        if self.bracket is not None:
            self.bracket.tell(int(row), float(score))


@dataclass(frozen=True)
class SuccessiveHalvingSettings:
    """Settings of :class:`SuccessiveHalving` (see its parameters)."""

    eta: float = setting(
        3,
        "reduction factor: the best 1/eta of a rung is promoted",
        low=1.0,
        low_open=True,
        high=100.0,
    )
    min_checkpoint: int = setting(1, "first rung", low=1, high=100_000)
    max_checkpoint: int | None = setting(
        None, "last rung (None: the longest curve)", low=1, high=100_000
    )
    n_configs: int | None = setting(
        None, "configurations per bracket (None: eta**s)", low=1, high=100_000
    )


class SuccessiveHalving(_Brackets):
    """Synchronous successive halving, repeated with new configurations (``sh``).

    Parameters
    ----------
    eta : float
        Reduction factor: the best ``1/eta`` of a rung is promoted (default 3).
    min_checkpoint, max_checkpoint : int, optional
        First and last rung (defaults 1 and the longest curve).
    n_configs : int, optional
        Configurations per bracket (default ``eta**s``, one per configuration at the last rung).
    """

    Settings = SuccessiveHalvingSettings

    def __init__(
        self,
        X: np.ndarray,
        longest: int,
        rng: np.random.Generator,
        eta: float = 3,
        min_checkpoint: int = 1,
        max_checkpoint: int | None = None,
        n_configs: int | None = None,
    ) -> None:
        super().__init__(X, longest, rng)
        self.eta = float(eta)
        hi = self._check_checkpoint("max_checkpoint", max_checkpoint, self.longest)
        lo = self._check_checkpoint("min_checkpoint", min_checkpoint, 1)
        self.levels = rung_levels(hi, min(lo, hi), self.eta)
        s = len(self.levels) - 1
        n0 = int(n_configs) if n_configs is not None else int(round(self.eta**s))
        if n0 < 1:
            raise ValueError(f"n_configs must be >= 1, got {n_configs}")
        self.sizes = [max(1, int(n0 * self.eta**-i)) for i in range(s + 1)]

    def next_bracket(self) -> Bracket | None:
        rows = self.new_rows(self.sizes[0])
        if not rows:
            return None
        b = Bracket(self.levels, self.sizes)
        b.fill(rows)
        return b


@dataclass(frozen=True)
class HyperbandSettings:
    """Settings of :class:`Hyperband` (see its parameters)."""

    eta: float = setting(3, "reduction factor", low=1.0, low_open=True, high=100.0)
    min_checkpoint: int = setting(1, "the smallest rung", low=1, high=100_000)


class Hyperband(_Brackets):
    """Hyperband (``hb``; Li et al. 2018, Algorithm 1), brackets repeated until the budget ends.

    Parameters
    ----------
    eta : float
        Reduction factor (default 3).
    min_checkpoint : int
        The smallest rung (default 1); ``s_max = floor(log_eta(max / min))``.
    """

    Settings: ClassVar[type] = HyperbandSettings  # BOHB declares its own

    def __init__(
        self,
        X: np.ndarray,
        longest: int,
        rng: np.random.Generator,
        eta: float = 3,
        min_checkpoint: int = 1,
    ) -> None:
        super().__init__(X, longest, rng)
        self.eta = float(eta)
        lo = self._check_checkpoint("min_checkpoint", min_checkpoint, 1)
        self.s_max = len(rung_levels(self.longest, lo, self.eta)) - 1
        self.min_checkpoint = lo
        self._s = self.s_max

    def bracket_shape(self, s: int) -> tuple[list[int], list[int]]:
        """Rung checkpoints and sizes of bracket ``s`` (Algorithm 1: ``n``, ``r``)."""
        n = int(math.ceil((self.s_max + 1) / (s + 1) * self.eta**s))
        levels = [
            max(self.min_checkpoint, round(self.longest * self.eta ** (i - s)))
            for i in range(s + 1)
        ]
        levels[-1] = self.longest
        return _merge_rungs(levels, [int(n * self.eta**-i) for i in range(s + 1)])

    def next_bracket(self) -> Bracket | None:
        levels, sizes = self.bracket_shape(self._s)
        self._s = self._s - 1 if self._s > 0 else self.s_max
        rows = self.new_rows(sizes[0])
        if not rows:
            return None
        b = Bracket(levels, sizes)
        b.fill(rows)
        return b


def upstream_schedule(
    n_configs: int, max_len: int, fraction: float = 0.75
) -> tuple[list[int], list[int]]:
    """Upstream's halving schedule for ``n_configs`` configurations (Zhang & Duh 2024).

    ``m = floor(log2 N)`` cuts at checkpoints ``round(fraction * max_len * j / m)``,
    ``j = 1..m`` (evenly spaced over the first 75 %); each cut keeps the better half
    (``floor``); the survivors are trained to ``max_len``. Returns (levels, sizes) of the
    bracket: ``N`` configurations to the first cut, ..., ``floor(N / 2**m)`` to ``max_len``.

    >>> upstream_schedule(8, 20)
    ([5, 10, 15, 20], [8, 4, 2, 1])
    """
    if n_configs < 1:
        raise ValueError(f"n_configs must be >= 1, got {n_configs}")
    m = int(math.floor(math.log2(n_configs)))
    cuts = [max(1, round(fraction * max_len * j / m)) for j in range(1, m + 1)] if m else []
    levels = [*cuts, max_len]
    return _merge_rungs(levels, [n_configs // 2**i for i in range(m + 1)])


def schedule_cost(levels: list[int], sizes: list[int]) -> int:
    """Checkpoints a bracket costs if every curve is as long as its last rung."""
    prev, cost = 0, 0
    for lv, sz in zip(levels, sizes, strict=True):
        cost += sz * (lv - prev)
        prev = lv
    return cost


@dataclass(frozen=True)
class UpstreamHalvingSettings:
    """Settings of :class:`UpstreamHalving` (see its parameters)."""

    n_configs: int | None = setting(
        None, "N (None: all, or the most that fit the budget)", low=1, high=100_000
    )
    budget: int | None = setting(
        None, "the run's budget in checkpoints (the engine passes it)", low=1, high=100_000
    )
    fraction: float = setting(
        0.75,
        "share of max_len the cuts are spread over (upstream: 0.75)",
        low=0.0,
        low_open=True,
        high=1.0,
    )


class UpstreamHalving(_Brackets):
    """Upstream's schedule (``sh-upstream``): one bracket of ``N`` configurations.

    Parameters
    ----------
    n_configs : int, optional
        ``N``; default: every configuration when ``budget`` is None, else the largest ``N``
        whose schedule fits ``budget`` even if every curve runs to ``max_len``.
    budget : int, optional
        The run's budget in checkpoints (the engine passes it).
    fraction : float
        The share of ``max_len`` the cuts are spread over (0.75 upstream).
    """

    Settings = UpstreamHalvingSettings

    def __init__(
        self,
        X: np.ndarray,
        longest: int,
        rng: np.random.Generator,
        n_configs: int | None = None,
        budget: int | None = None,
        fraction: float = 0.75,
    ) -> None:
        super().__init__(X, longest, rng)
        if not 0 < fraction <= 1:
            raise ValueError(f"fraction must lie in (0, 1], got {fraction}")
        if n_configs is None:
            n_configs = self.n
            if budget is not None:
                n_configs = 1
                for n in range(1, self.n + 1):
                    if schedule_cost(*upstream_schedule(n, self.longest, fraction)) <= budget:
                        n_configs = n
        self.n_configs = int(min(n_configs, self.n))
        self.levels, self.sizes = upstream_schedule(self.n_configs, self.longest, fraction)
        self._used = False

    def next_bracket(self) -> Bracket | None:
        if self._used:
            return None
        self._used = True
        b = Bracket(self.levels, self.sizes)
        b.fill(self.new_rows(self.sizes[0]))
        return b
