"""The figures' shared style: palette, method styles, font sizes, labels and panel helpers.

Every chapter's plot module (:mod:`nmthpo.plots.benchmark_tables` ...
:mod:`nmthpo.plots.multifidelity`, :mod:`nmthpo.plots.compare`) draws with these:

* one colour-blind-safe palette, Okabe & Ito's eight colours (:data:`OKABE_ITO`), plus a
  neutral grey for the random-search baseline;
* one style per method (:data:`METHOD_STYLES`: colour, line style and marker), declared once,
  so that a method looks the same in every figure and any two methods drawn together differ by
  more than their hue (``-m`` variants solid, ``-r`` variants dashed with another marker);
* font sizes that stay readable in the book (:data:`RC`): the content column is about
  :data:`BOOK_COLUMN_PX` pixels wide at a 1400 px window and a wider image is scaled down, so every
  figure is at most :data:`MAX_WIDTH_IN` inches wide at :data:`DPI` and no text is smaller than
  :data:`MIN_FONT_PT` points (:func:`effective_font_sizes` measures it);
* human-readable axis labels (:data:`METRIC_LABELS`, :func:`display_label`).

Every public figure function is wrapped by :func:`book_figure`, which builds it under
:data:`RC` and fixes the tick-label size.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ParamSpec, cast

import matplotlib
import numpy as np
import pandas as pd
from cycler import cycler
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.text import Text

__all__ = [
    "BOOK_COLUMN_PX",
    "DPI",
    "GREY",
    "LEGEND_FONTSIZE",
    "MAX_WIDTH_IN",
    "METHOD_COLOURS",
    "METHOD_STYLES",
    "METRIC_LABELS",
    "MIN_FONT_PT",
    "OKABE_ITO",
    "PALETTE",
    "RC",
    "MethodStyle",
    "book_figure",
    "display_label",
    "effective_font_sizes",
    "grid_shape",
    "hide_unused",
    "method_colour",
    "method_style",
    "method_styles",
    "panel_width",
    "require_columns",
    "series_style",
    "shared_legend",
]

#: Okabe & Ito's colour-blind-safe palette (Color Universal Design), by name.
OKABE_ITO: dict[str, str] = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
}
#: The neutral grey of the random-search baseline (a reference, not a method to pick out).
GREY = "#7F7F7F"

_K, _O, _S, _G, _Y, _B, _V, _P = OKABE_ITO.values()

#: The order in which series that are not methods (tasks, seed sizes, variants) take colours;
#: yellow, hard to see as a line on white, comes last.
PALETTE: tuple[str, ...] = (_B, _V, _G, _O, _P, _S, _K, _Y)
_LINESTYLES: tuple[str, ...] = ("-", "--", "-.", ":")
_MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")

#: Figures are drawn at this resolution (pixels per inch) ...
DPI = 100
#: ... and the book's content column is about this many pixels wide at a 1400 px window;
#: a wider image is scaled down to it.
BOOK_COLUMN_PX = 800
#: The widest figure shown at full size: the column less the 0.1 in margins that the notebook's
#: ``bbox_inches="tight"`` adds on either side.
MAX_WIDTH_IN = (BOOK_COLUMN_PX - 20) / DPI
#: No text in a figure is smaller than this, as rendered in the book.
MIN_FONT_PT = 9.0
#: Font size of tick labels and legends.
TICK_FONTSIZE = 9.0
#: Font size of a legend (readable at the book's width).
LEGEND_FONTSIZE = 9.0

#: The matplotlib settings every figure is built under (:func:`book_figure`).
RC: dict[str, Any] = {
    "figure.dpi": DPI,
    "font.size": 10.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 10.0,
    "xtick.labelsize": TICK_FONTSIZE,
    "ytick.labelsize": TICK_FONTSIZE,
    "legend.fontsize": LEGEND_FONTSIZE,
    "legend.title_fontsize": LEGEND_FONTSIZE,
    "figure.titlesize": 11.0,
    "axes.prop_cycle": cycler(color=list(PALETTE)),
    "lines.markersize": 4.5,
    "image.cmap": "viridis",
}


#: Axis labels of the recorded metrics.
METRIC_LABELS: dict[str, str] = {
    "dev_bleu": "dev BLEU",
    "dev_gpu_time": "decoding time on dev (GPU s)",
    "dev_ppl": "dev perplexity",
    "num_updates": "updates to convergence",
    "gpu_memory": "training GPU memory (MiB)",
    "num_param": "parameters",
}


def display_label(name: object) -> str:
    """A column or metric name as a reader sees it: :data:`METRIC_LABELS` for the metrics, the
    paper's names (:data:`nmthpo.benchmark.space.DISPLAY_NAMES`) for the hyperparameters, any
    other name unchanged."""
    from nmthpo.benchmark.space import DISPLAY_NAMES

    key = str(name)
    return METRIC_LABELS.get(key, DISPLAY_NAMES.get(key, key))


@dataclass(frozen=True)
class MethodStyle:
    """How one method is drawn: colour, line style, marker (hollow when not ``filled``)."""

    colour: str
    linestyle: str = "-"
    marker: str = "o"
    filled: bool = True

    def line(self, markevery: float | int | None = 0.1) -> dict[str, Any]:
        """Keyword arguments of ``Axes.plot``/``step``/``errorbar``; ``markevery`` (a float:
        spacing as a fraction of the axes' diagonal) keeps the markers of long curves apart."""
        kw: dict[str, Any] = {
            "color": self.colour,
            "linestyle": self.linestyle,
            "marker": self.marker,
            "markersize": 5.5 if self.marker == "*" else 4.5,
        }
        if markevery is not None:
            kw["markevery"] = markevery
        if not self.filled:
            kw["markerfacecolor"] = "white"
        return kw


def _s(colour: str, ls: str, marker: str) -> MethodStyle:
    return MethodStyle(colour, ls, marker)


#: One style per method, declared once and used by every figure. Methods drawn together (one
#: chapter's methods) differ in line style or marker as well as, for the pairs a reader must
#: tell apart (``-m``/``-r`` kernels, ``tst``/``tstm``, ``rs``/``scot``), in colour.
METHOD_STYLES: dict[str, MethodStyle] = {
    # the random-search baseline, in every chapter
    "rs": _s(GREY, ":", "x"),
    # single-objective methods (Chapters 2, 5, 6, 8): -m solid, -r dashed
    "bo-ei-m": _s(_B, "-", "o"),
    "bo-ei-r": _s(_S, "--", "s"),
    "bo-ei-m-mcmc": _s(_B, ":", "P"),
    "gb-ei-m": _s(_V, "-", "^"),
    "gb-ei-r": _s(_O, "--", "v"),
    "gb-eif-m": _s(_G, "-", "D"),
    "gb-eif-r": _s(_P, "--", "h"),
    "gb-eif-text-m": _s(_G, ":", "X"),
    "ga": _s(_K, "-.", "*"),
    # multiobjective systems (Chapter 3): the same kernels' styles
    "bo-m": _s(_B, "-", "o"),
    "bo-r": _s(_S, "--", "s"),
    "gb-m": _s(_V, "-", "^"),
    "gb-r": _s(_O, "--", "v"),
    # transfer methods (Chapter 4); the -ms ablations are dashed with hollow markers
    "igp": _s(GREY, "--", "o"),
    "scot": _s(_O, "-", "s"),
    "sgpr": _s(_P, "-", "D"),
    "pogpe": _s(_S, "-", "v"),
    "tst": _s(_G, "-", "^"),
    "tstm": _s(_B, "-.", "<"),
    "rgpe": _s(_V, "-", ">"),
    "transbo": _s(_K, "-", "*"),
    # multi-fidelity methods (Chapter 7); Optuna's pruners dotted
    "sh": _s(_V, "-", "^"),
    "hb": _s(_B, "-", "o"),
    "asha": _s(_O, "--", "v"),
    "bohb": _s(_G, "-", "D"),
    "sh-upstream": _s(_P, "-.", "s"),
    "optuna SuccessiveHalving": _s(_V, ":", "<"),
    "optuna Hyperband": _s(_B, ":", ">"),
    "optuna Median": _s(_K, ":", "P"),
}

#: The colour of every declared method (:data:`METHOD_STYLES`).
METHOD_COLOURS: dict[str, str] = {m: s.colour for m, s in METHOD_STYLES.items()}


def _fallback(method: str, taken: Iterable[MethodStyle] = ()) -> MethodStyle:
    """A deterministic style for an undeclared method, from a hash of its name; among the
    figure's other styles (``taken``) it prefers a colour and a marker that no other has."""
    colours = (_B, _V, _G, _O, _P, _S, _K)
    combos = [MethodStyle(c, ls, mk) for ls in _LINESTYLES for mk in _MARKERS for c in colours]
    taken = list(taken)
    used_colours = {s.colour for s in taken}
    used_markers = {s.marker for s in taken}
    used = {(s.colour, s.linestyle, s.marker) for s in taken}
    start = zlib.crc32(method.encode()) % len(combos)
    order = [combos[(start + i) % len(combos)] for i in range(len(combos))]
    free = [s for s in order if (s.colour, s.linestyle, s.marker) not in used] or order

    def cost(s: MethodStyle) -> tuple[bool, bool]:
        return (s.colour in used_colours, s.marker in used_markers)

    return min(free, key=cost)  # the first (in hash order) of the least used


def _declared(method: str) -> MethodStyle | None:
    if method in METHOD_STYLES:
        return METHOD_STYLES[method]
    base, sep, _ = method.partition(", ")
    if sep and base in METHOD_STYLES:
        s = METHOD_STYLES[base]
        return MethodStyle(s.colour, ":", s.marker, filled=False)
    if method.endswith("-ms") and method.removesuffix("-ms") in METHOD_STYLES:
        s = METHOD_STYLES[method.removesuffix("-ms")]
        return MethodStyle(s.colour, "--", s.marker, filled=False)
    return None


def method_style(method: str) -> MethodStyle:
    """The method's style: declared (:data:`METHOD_STYLES`), derived for an ablation
    (``"<method>-ms"``: dashed, hollow markers) or a variant (``"<method>, <what differs>"``:
    dotted, hollow markers), else a deterministic style from the name."""
    method = str(method)
    return _declared(method) or _fallback(method)


def method_styles(methods: Iterable[str]) -> dict[str, MethodStyle]:
    """:func:`method_style` of every method of one figure; undeclared methods take styles
    that no other method of the figure has."""
    names = list(dict.fromkeys(str(m) for m in methods))
    declared = {m: _declared(m) for m in names}
    taken = [s for s in declared.values() if s is not None]
    out: dict[str, MethodStyle] = {}
    for m in names:
        s = declared[m]
        if s is None:
            s = _fallback(m, taken)
            taken.append(s)
        out[m] = s
    return out


def method_colour(method: str) -> str:
    """The method's colour (:func:`method_style`)."""
    return method_style(method).colour


def series_style(i: int) -> MethodStyle:
    """The ``i``-th style of a sequence of series that are not methods (tasks, seed sizes):
    colour, line style and marker all change with ``i``."""
    return MethodStyle(
        PALETTE[i % len(PALETTE)], _LINESTYLES[i % len(_LINESTYLES)], _MARKERS[i % len(_MARKERS)]
    )


def grid_shape(n: int, ncols: int = 3) -> tuple[int, int]:
    """``(rows, columns)`` of a panel grid for ``n`` panels, at most ``ncols`` per row."""
    if n < 1:
        raise ValueError("nothing to plot: pass at least one table")
    ncols = min(ncols, n)
    return (n + ncols - 1) // ncols, ncols


def panel_width(ncols: int, width: float) -> float:
    """The width of one of ``ncols`` panels: ``width``, narrowed so that the row fits in
    :data:`MAX_WIDTH_IN`."""
    return min(width, MAX_WIDTH_IN / max(ncols, 1))


def hide_unused(axes: np.ndarray, used: int) -> None:
    """Hide the panels of ``axes`` after the first ``used`` (row-major)."""
    for ax in axes.ravel()[used:]:
        ax.set_visible(False)


def require_columns(frame: pd.DataFrame, cols: Sequence[str], source: str) -> None:
    """Raise a ValueError naming the missing ``cols`` and the function (``source``) to call."""
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise ValueError(f"frame lacks columns {missing}; pass the frame of {source}")


def _legend_ncols(labels: Sequence[str], width_in: float, fontsize: float, most: int) -> int:
    """The most legend columns (at most ``most``) whose widest entries fit in ``width_in``."""
    em = fontsize / 72.0
    entry = max(len(lab) for lab in labels) * 0.62 * em + 5.0 * em  # text, handle, spacing
    return int(max(1, min(most, len(labels), (0.97 * width_in) // entry)))


def shared_legend(
    fig: Figure,
    axes: Axes | np.ndarray | Sequence[Axes],
    ncols: int | None = None,
    title: str | None = None,
) -> None:
    """One legend for a whole panel grid, below the panels: the union of the labelled artists
    of ``axes`` (one panel or an array of panels), first occurrence of each label kept.

    Multi-panel figures draw the same methods in every panel; one figure-level legend at a
    readable size (:data:`LEGEND_FONTSIZE`) replaces a small legend inside a panel. ``ncols``
    defaults to as many columns (up to 8) as fit in the figure's width. Needs
    ``layout="constrained"``.
    """
    seen: dict[str, Artist] = {}
    for ax in np.ravel(np.asarray(axes, dtype=object)):
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(lab, h)
    if not seen:
        return
    fits = _legend_ncols(list(seen), fig.get_figwidth(), LEGEND_FONTSIZE, 8)
    fig.legend(
        list(seen.values()),
        list(seen),
        loc="outside lower center",
        ncols=min(ncols, fits) if ncols else fits,
        fontsize=LEGEND_FONTSIZE,
        frameon=False,
        title=title,
        title_fontsize=LEGEND_FONTSIZE,
    )


_Params = ParamSpec("_Params")


def finish(fig: Figure) -> Figure:
    """Apply the book's minimum text size to a built figure: tick labels (also those drawn
    later) at :data:`TICK_FONTSIZE`, no text below :data:`MIN_FONT_PT`."""
    for ax in fig.axes:
        ax.tick_params(labelsize=TICK_FONTSIZE)
    for t in fig.findobj(Text):
        if t.get_text() and float(t.get_fontsize()) < MIN_FONT_PT:
            t.set_fontsize(MIN_FONT_PT)
    return fig


def book_figure(func: Callable[_Params, Figure]) -> Callable[_Params, Figure]:
    """Build a figure function's figure under :data:`RC` and :func:`finish` it (the function's
    signature and docstring are kept)."""

    @functools.wraps(func)
    def wrapper(*args: _Params.args, **kwargs: _Params.kwargs) -> Figure:
        with matplotlib.rc_context(cast(Any, RC)):
            return finish(func(*args, **kwargs))

    return wrapper


def effective_font_sizes(fig: Figure, column_px: int = BOOK_COLUMN_PX) -> list[tuple[str, float]]:
    """Every visible text of ``fig`` with its size as rendered in the book, in points.

    The notebook shows the figure as an image cropped to its content (``bbox_inches="tight"``);
    an image wider than ``column_px`` is scaled down to it, and every text with it. The width
    taken is the larger of the figure and its tight box, so the estimate errs on the small side.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    tight = fig.get_tightbbox(canvas.get_renderer())
    width_px = max(fig.get_figwidth(), tight.width + 0.2) * fig.dpi
    scale = min(1.0, column_px / width_px)
    out = []
    for t in fig.findobj(Text):
        if not (t.get_visible() and t.get_text().strip()):
            continue
        if t.axes is not None and not t.axes.get_visible():
            continue
        out.append((t.get_text(), float(t.get_fontsize()) * scale))
    return out
