"""Sub-grids of a lookup table: candidate search spaces for scoring (Ariafar et al. 2022, Sec. 3).

Ariafar et al. score candidate search spaces ``S`` inside a broad enclosing space ``X``. On an
NMTHPO lookup table the enclosing space is the table's grid (Zhang & Duh 2020, Table 1) and a
candidate space is a *sub-grid*: every hyperparameter restricted to a non-empty subset of the
values it takes in the table. Its rows are the table rows whose configuration lies in it.

SPEC syntax (the ``--spaces`` argument of ``nmthpo score-spaces``)
------------------------------------------------------------------
A SPEC is a list of *items* separated by ``,``. An item is one of

``full`` (or ``*``)
    the whole table;
``single``
    every single-hyperparameter restriction to an *interval* of its ordered values
    (``layers=2``, ``embed<=512``, ``bpe>=8000``, ...; the full range excluded);
``random:N``
    ``N`` sub-grids sampled by :func:`sample_subgrids` (distinct, non-empty);
``default``
    ``full,single,random:50``;
``@PATH``
    the items of a text file, one or more per line (``,``-separated), ``#`` starts a comment;
    files may not include other files;
a space
    clauses separated by ``;``, each ``NAME OP VALUES``: ``NAME`` a hyperparameter column
    (``bpe layers embed hidden heads lr``); ``OP`` one of ``= != <= >= < >``; for ``=`` and
    ``!=`` one or more values separated by ``|`` (each must be a value of the table's grid),
    for the comparisons exactly one threshold. Numbers may carry a ``k`` suffix (``10k`` =
    10000). Clauses on the same hyperparameter intersect. Example:
    ``layers=2;embed<=512;bpe=10k|30k``.

Spaces are canonicalised (restrictions in column order, a restriction to every value dropped)
and de-duplicated by label, keeping the first occurrence. A space without rows is an error.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from nmthpo.errors import LIMITS, InputKeyError, InputValueError, check_input_file

__all__ = [
    "DEFAULT_SPEC",
    "SubGrid",
    "format_value",
    "grid_values",
    "parse_space",
    "parse_spaces",
    "sample_subgrids",
    "single_restrictions",
    "space_rows",
]

#: What ``default`` expands to (44 spaces plus 50 random ones on sw-en).
DEFAULT_SPEC = "full,single,random:50"

_CLAUSE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(<=|>=|!=|=|<|>)\s*(.*?)\s*$")
_RTOL = 1e-9


def format_value(v: float) -> str:
    """A grid value as printed in labels: integers without a decimal point, else ``%g``."""
    return str(int(v)) if float(v).is_integer() else format(float(v), "g")


def _parse_number(token: str, clause: str) -> float:
    t = token.strip()
    mult = 1.0
    if t[-1:] in ("k", "K"):
        t, mult = t[:-1], 1000.0
    try:
        return float(t) * mult
    except ValueError:
        raise ValueError(
            f"cannot parse value {token.strip()!r} in clause {clause.strip()!r}: "
            "expected a number such as 512, 3e-4 or 10k"
        ) from None


def grid_values(configs: pd.DataFrame) -> dict[str, tuple[float, ...]]:
    """The sorted distinct values of every hyperparameter column of ``configs``."""
    return {c: tuple(sorted(float(v) for v in configs[c].unique())) for c in configs.columns}


@dataclass(frozen=True)
class SubGrid:
    """A sub-grid: some hyperparameters restricted to subsets of their grid values.

    Attributes
    ----------
    restrictions : tuple of (name, values)
        Only the restricted hyperparameters, in column order; ``values`` sorted ascending.
        The empty tuple is the full space.
    grid : tuple of (name, all values)
        The enclosing grid (used for labels such as ``embed<=512``).
    """

    restrictions: tuple[tuple[str, tuple[float, ...]], ...]
    grid: tuple[tuple[str, tuple[float, ...]], ...]

    @classmethod
    def from_mapping(
        cls, allowed: Mapping[str, Iterable[float]], grid: Mapping[str, Sequence[float]]
    ) -> SubGrid:
        """Canonical sub-grid from ``{name: allowed values}`` (unknown names raise KeyError)."""
        restr = []
        for name in allowed:
            if name not in grid:
                raise InputKeyError(f"unknown hyperparameter {name!r}; valid: {', '.join(grid)}")
        for name, values in grid.items():
            if name not in allowed:
                continue
            keep = tuple(sorted(float(v) for v in allowed[name]))
            if not keep:
                raise ValueError(f"restriction of {name!r} leaves no value: empty space")
            if len(keep) < len(values):
                restr.append((name, keep))
        return cls(tuple(restr), tuple((k, tuple(v)) for k, v in grid.items()))

    @property
    def label(self) -> str:
        """Canonical SPEC of the space (parses back to an equal :class:`SubGrid`)."""
        if not self.restrictions:
            return "full"
        full = dict(self.grid)
        parts = []
        for name, keep in self.restrictions:
            values = full[name]
            k = len(keep)
            if k == 1:
                parts.append(f"{name}={format_value(keep[0])}")
            elif keep == values[:k]:
                parts.append(f"{name}<={format_value(keep[-1])}")
            elif keep == values[-k:]:
                parts.append(f"{name}>={format_value(keep[0])}")
            else:
                parts.append(f"{name}=" + "|".join(format_value(v) for v in keep))
        return ";".join(parts)

    @property
    def n_restricted(self) -> int:
        """Number of restricted hyperparameters."""
        return len(self.restrictions)

    def volume_fraction(self) -> float:
        """Fraction of the *grid* (not of the table's rows) the sub-grid covers."""
        full = dict(self.grid)
        return float(np.prod([len(k) / len(full[n]) for n, k in self.restrictions]))

    def mask(self, configs: pd.DataFrame) -> np.ndarray:
        """Boolean mask of the rows of ``configs`` inside the sub-grid."""
        m = np.ones(len(configs), dtype=bool)
        for name, keep in self.restrictions:
            col = configs[name].to_numpy(dtype=float)
            m &= np.isclose(col[:, None], np.asarray(keep)[None, :], rtol=_RTOL, atol=0).any(1)
        return m

    def __str__(self) -> str:
        return self.label


def space_rows(space: SubGrid, configs: pd.DataFrame) -> np.ndarray:
    """Row indices of ``configs`` inside ``space``; an empty space raises ``ValueError``."""
    rows = np.flatnonzero(space.mask(configs))
    if rows.size == 0:
        raise ValueError(
            f"space {space.label!r} contains no row of the table (the grid is not full "
            "factorial); widen a restriction"
        )
    return rows


def _match_grid(value: float, values: Sequence[float], name: str, clause: str) -> float:
    for v in values:
        if np.isclose(value, v, rtol=_RTOL, atol=0):
            return float(v)
    raise ValueError(
        f"value {format_value(value)} in clause {clause.strip()!r} is not a value of {name!r}; "
        f"valid: {'|'.join(format_value(v) for v in values)}"
    )


def _compare(v: float, op: str, thr: float) -> bool:
    """``v OP thr`` with a relative tolerance (grid values are floats, e.g. 3e-4)."""
    tol = _RTOL * max(abs(thr), 1.0)
    if op == "<=":
        return v <= thr + tol
    if op == ">=":
        return v >= thr - tol
    if op == "<":
        return v < thr - tol
    return v > thr + tol


def parse_space(text: str, grid: Mapping[str, Sequence[float]]) -> SubGrid:
    """Parse one space (``;``-separated clauses, see the module docstring).

    Raises
    ------
    KeyError
        For an unknown hyperparameter name.
    ValueError
        For an unparseable clause or value (named in the message) or an empty restriction.
    """
    text = text.strip()
    if text in ("full", "*", ""):
        return SubGrid.from_mapping({}, grid)
    allowed: dict[str, set[float]] = {}
    for clause in text.split(";"):
        if not clause.strip():
            continue
        m = _CLAUSE.match(clause)
        if m is None:
            raise ValueError(
                f"cannot parse clause {clause.strip()!r} in space {text!r}: expected "
                "NAME OP VALUES with OP one of = != <= >= < >, e.g. 'layers=2' or 'embed<=512'"
            )
        name, op, rhs = m.groups()
        if name not in grid:
            raise InputKeyError(
                f"unknown hyperparameter {name!r} in clause {clause.strip()!r}; "
                f"valid: {', '.join(grid)}"
            )
        values = tuple(float(v) for v in grid[name])
        if not rhs:
            raise ValueError(f"clause {clause.strip()!r} has no value after {op!r}")
        if op in ("=", "!="):
            picked = {
                _match_grid(_parse_number(t, clause), values, name, clause) for t in rhs.split("|")
            }
            keep = picked if op == "=" else set(values) - picked
        else:
            if "|" in rhs:
                raise ValueError(f"clause {clause.strip()!r}: {op!r} takes a single threshold")
            thr = _parse_number(rhs, clause)
            keep = {v for v in values if _compare(v, op, thr)}
        current = allowed.get(name, set(values))
        allowed[name] = current & keep
        if not allowed[name]:
            raise ValueError(
                f"clause {clause.strip()!r} leaves no value of {name!r} in space {text!r}: "
                "empty space"
            )
    return SubGrid.from_mapping(allowed, grid)


def single_restrictions(grid: Mapping[str, Sequence[float]]) -> list[SubGrid]:
    """Every restriction of one hyperparameter to an interval of its ordered values.

    The full range is excluded; a hyperparameter with ``k`` values gives ``k (k + 1) / 2 - 1``
    spaces (44 on sw-en, 25 on the four WMT tasks).
    """
    out = []
    for name, values in grid.items():
        k = len(values)
        for i, j in itertools.combinations(range(k + 1), 2):
            if j - i < k:
                out.append(SubGrid.from_mapping({name: values[i:j]}, grid))
    return out


def sample_subgrids(
    configs: pd.DataFrame,
    n: int,
    rng: np.random.Generator,
    *,
    p_free: float = 0.5,
    min_rows: int = 1,
    max_tries: int = 100_000,
    exclude: Iterable[str] = (),
) -> list[SubGrid]:
    """Sample ``n`` distinct random sub-grids of the table with at least ``min_rows`` rows.

    Each hyperparameter is left unrestricted with probability ``p_free``; otherwise it is
    restricted to a uniformly random non-empty *proper* subset of its values (not necessarily
    an interval). Draws that give the full space, fewer than ``min_rows`` rows, or a label in
    ``exclude`` or already drawn are rejected. (These sampling choices are ours; the paper
    samples no sub-grids.)

    Returns
    -------
    list of SubGrid
        Exactly ``n`` spaces, unless ``max_tries`` draws could not find that many distinct ones
        (then all that were found; small tables have few distinct sub-grids).
    """
    if n < 0:
        raise ValueError(f"n must be >= 0; got {n}")
    if not 0.0 <= p_free <= 1.0:
        raise ValueError(f"p_free must be in [0, 1]; got {p_free}")
    grid = grid_values(configs)
    seen = set(exclude)
    out: list[SubGrid] = []
    tries = 0
    while len(out) < n and tries < max_tries:
        tries += 1
        allowed: dict[str, tuple[float, ...]] = {}
        for name, values in grid.items():
            k = len(values)
            if k < 2 or rng.random() < p_free:
                continue
            size = int(rng.integers(1, k))  # proper subset: 1 .. k-1 values
            allowed[name] = tuple(np.asarray(values)[rng.choice(k, size=size, replace=False)])
        if not allowed:
            continue
        space = SubGrid.from_mapping(allowed, grid)
        if space.label in seen:
            continue
        if int(space.mask(configs).sum()) < max(min_rows, 1):
            continue
        seen.add(space.label)
        out.append(space)
    return out


def _split_items(spec: str) -> list[str]:
    return [s.strip() for s in spec.split(",") if s.strip()]


def _random_count(item: str) -> int:
    """N of a ``random:N`` item: a positive integer up to ``LIMITS["spaces"]``."""
    count = item.partition(":")[2]
    if not count.isdigit() or int(count) < 1:
        raise InputValueError(
            f"--spaces: cannot parse {item!r}: expected random:N with N a positive integer"
        )
    if int(count) > LIMITS["spaces"]:
        raise InputValueError(
            f"--spaces: {item!r} asks for {int(count):,} random spaces; at most "
            f"{LIMITS['spaces']:,} (a documented limit that keeps the run bounded)"
        )
    return int(count)


def _spec_file(item: str, in_file: bool) -> tuple[Path, str]:
    """The path of an ``@FILE`` item and its spaces as one SPEC (``#`` comments and blank
    lines dropped); a file naming another file, an unreadable or empty one is refused."""
    if in_file:
        raise InputValueError(f"{item!r}: a SPEC file may not include another file")
    path = check_input_file(item[1:], "--spaces file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputValueError(f"--spaces file {path}: not a text file") from None
    lines = [ln.split("#", 1)[0] for ln in text.splitlines()]
    body = ",".join(ln for ln in lines if ln.strip())
    if not body:
        raise InputValueError(f"--spaces file {path}: lists no space")
    return path, body


def check_spec(spec: str, *, _in_file: bool = False) -> None:
    """Check a SPEC's syntax without a table (cheap: before any table is loaded): not empty,
    ``random:N`` with N in range, each clause ``NAME OP VALUES``; names and values are
    checked against the table by :func:`parse_spaces`.

    Raises
    ------
    nmthpo.errors.InputValueError
    """
    items = _split_items(spec)
    if not items:
        raise InputValueError(
            f"--spaces {spec!r}: empty SPEC; give at least one space, e.g. 'full' or 'layers=2'"
        )
    for item in items:
        if item in ("default", "single", "full", "*"):
            continue
        if item.startswith("@"):
            path, body = _spec_file(item, _in_file)
            try:
                check_spec(body, _in_file=True)
            except InputValueError as exc:
                raise InputValueError(f"--spaces file {path}: {exc}") from None
            continue
        if item.startswith("random:") or item == "random":
            _random_count(item)
            continue
        for clause in item.split(";"):
            if clause.strip() and _CLAUSE.match(clause) is None:
                raise InputValueError(
                    f"--spaces: cannot parse clause {clause.strip()!r} in space {item!r}: "
                    "expected NAME OP VALUES with OP one of = != <= >= < >, e.g. 'layers=2' "
                    "or 'embed<=512'"
                )


def parse_spaces(
    spec: str,
    configs: pd.DataFrame,
    rng: np.random.Generator | None = None,
    *,
    _in_file: bool = False,
) -> list[SubGrid]:
    """Expand a SPEC (module docstring) into distinct non-empty sub-grids of ``configs``.

    Parameters
    ----------
    spec : str
        The SPEC, e.g. ``"full,layers=2,layers=4;embed<=512,random:20"``.
    configs : DataFrame
        The table's hyperparameters (``LookupTable.configs``).
    rng : numpy.random.Generator, optional
        Needed only if the SPEC contains ``random:N`` (or ``default``).

    Raises
    ------
    ValueError / KeyError
        Naming the offending item or token; also for a space without rows and for an empty
        SPEC.
    """
    grid = grid_values(configs)
    items = _split_items(spec)
    if not items:
        raise ValueError("empty SPEC: give at least one space, e.g. 'full' or 'layers=2'")
    out: list[SubGrid] = []
    labels: set[str] = set()

    def add(space: SubGrid) -> None:
        if space.label not in labels:
            space_rows(space, configs)  # raises for an empty space
            labels.add(space.label)
            out.append(space)

    for item in items:
        if item == "default":
            for s in parse_spaces(DEFAULT_SPEC, configs, rng, _in_file=_in_file):
                add(s)
        elif item == "single":
            for s in single_restrictions(grid):
                if s.mask(configs).any():
                    add(s)
        elif item.startswith("random:") or item == "random":
            count = str(_random_count(item))
            if rng is None:
                raise ValueError(f"{item!r} needs a random generator (pass rng=...)")
            for s in sample_subgrids(configs, int(count), rng, exclude=labels):
                add(s)
        elif item.startswith("@"):
            path, body = _spec_file(item, _in_file)
            try:
                spaces = parse_spaces(body, configs, rng, _in_file=True)
            except (KeyError, ValueError) as exc:
                text = exc.args[0] if exc.args else str(exc)
                raise type(exc)(f"--spaces file {path}: {text}") from None
            for s in spaces:
                add(s)
        else:
            add(parse_space(item, grid))
    return out
