"""Every figure of the book is readable at the book's width (issue: "legible figures").

The book's content column is about ``BOOK_COLUMN_PX`` pixels wide at a 1400 px window and a wider
image is scaled down, so every text of every figure function's figure, as rendered, is at least
``MIN_FONT_PT`` points; methods keep one style across figures and any two methods drawn together
differ by more than their hue.
"""

from __future__ import annotations

import inspect
import itertools

import pytest
from matplotlib.figure import Figure

from nmthpo import plots
from nmthpo.plots import compare, multifidelity, style
from nmthpo.plots.style import (
    BOOK_COLUMN_PX,
    METHOD_STYLES,
    MIN_FONT_PT,
    OKABE_ITO,
    effective_font_sizes,
    method_style,
    method_styles,
)
from tests.plots.figure_inputs import FIDELITY, FIGURES, PARETO, SINGLE, TRANSFER


@pytest.mark.parametrize("name", list(FIGURES))
def test_every_text_is_readable_at_the_books_width(name: str) -> None:
    fig = FIGURES[name]()
    assert isinstance(fig, Figure)
    sizes = effective_font_sizes(fig)
    assert sizes, "the figure has no text"
    small = [(text, round(size, 2)) for text, size in sizes if size < MIN_FONT_PT - 1e-9]
    assert not small, f"{name}: text below {MIN_FONT_PT} pt as rendered: {small[:5]}"
    # and the figure itself fits the column (nothing is scaled down)
    assert fig.get_figwidth() * fig.dpi <= BOOK_COLUMN_PX


def test_every_figure_function_is_drawn_in_the_shared_style() -> None:
    modules = (plots, multifidelity, compare)
    functions = {
        f"{m.__name__}.{n}": getattr(m, n)
        for m in modules
        for n in m.__all__
        if inspect.isfunction(getattr(m, n))
        and inspect.signature(getattr(m, n)).return_annotation in ("Figure", Figure)
    }
    assert len(functions) > 30
    bare = [n for n, f in functions.items() if not hasattr(f, "__wrapped__")]
    assert not bare, f"not wrapped by nmthpo.plots.style.book_figure: {bare}"
    # the wrapper keeps each function's signature (the chapters call them by keyword)
    sig = inspect.signature(plots.transfer_curves_plot)
    assert list(sig.parameters) == ["curves", "value", "title", "log_y"]


CHAPTER_GROUPS = {
    "single objective": (*SINGLE, "ga", "bo-ei-m-mcmc", "gb-eif-text-m"),
    "multiobjective": PARETO,
    "transfer": TRANSFER,
    "transfer ablation": ("rs", "transbo", "transbo-ms", "rgpe", "rgpe-ms", "tst", "tst-ms"),
    "multi-fidelity": FIDELITY,
}


@pytest.mark.parametrize("group", list(CHAPTER_GROUPS))
def test_methods_shown_together_differ_by_more_than_hue(group: str) -> None:
    styles = method_styles(CHAPTER_GROUPS[group])
    for a, b in itertools.combinations(styles, 2):
        sa, sb = styles[a], styles[b]
        assert (sa.linestyle, sa.marker, sa.filled) != (sb.linestyle, sb.marker, sb.filled), (
            f"{a} and {b} differ only in colour"
        )


def test_look_alike_pairs_differ_in_colour_line_and_marker() -> None:
    for a, b in [
        ("gb-ei-m", "gb-ei-r"),
        ("bo-ei-m", "bo-ei-r"),
        ("gb-eif-m", "gb-eif-r"),
        ("bo-m", "bo-r"),
        ("gb-m", "gb-r"),
        ("tst", "tstm"),
        ("rs", "scot"),
    ]:
        sa, sb = method_style(a), method_style(b)
        assert sa.colour != sb.colour and sa.marker != sb.marker, (a, b)
        assert sa.linestyle != sb.linestyle or sa.filled != sb.filled or a == "tst", (a, b)


def test_palette_is_okabe_ito_and_the_mapping_is_fixed() -> None:
    allowed = set(OKABE_ITO.values()) | {style.GREY}
    assert {s.colour for s in METHOD_STYLES.values()} <= allowed
    # a method keeps its style: the same in every figure and for undeclared names too
    assert method_style("gb-ei-m") == METHOD_STYLES["gb-ei-m"]
    assert method_style("my-method") == method_style("my-method")
    assert method_style("my-method").colour in allowed
    # ablations and variants keep their method's colour
    assert method_style("rgpe-ms").colour == METHOD_STYLES["rgpe"].colour
    assert method_style("transbo, folds conditioned").linestyle == ":"
    # an undeclared method in a figure takes a colour no other method of it has
    styles = method_styles(["hpob-nearest", *SINGLE])
    others = {styles[m].colour for m in SINGLE}
    assert styles["hpob-nearest"].colour not in others


def test_heatmap_shows_readable_names_not_columns() -> None:
    fig = FIGURES["correlation_heatmap (metrics)"]()
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert "decoding time on dev (GPU s)" in ticks
    assert not any("_" in t for t in ticks), ticks


def test_compare_plots_agree_on_colours_and_the_title_says_how_your_runs_look() -> None:
    lb = FIGURES["leaderboard_plot"]()
    ec = FIGURES["runtime_ecdf"]()
    ax = lb.axes[0]
    title = ax.get_title()
    assert "bold: your runs" in title and "red:" not in title
    bold = [t.get_text() for t in ax.get_yticklabels() if t.get_fontweight() == "bold"]
    assert bold == ["hpob-nearest"]
    # one errorbar per leaderboard row, in the order of the tick labels
    board_colour = {
        t.get_text(): c.lines[0].get_color()
        for t, c in zip(ax.get_yticklabels(), ax.containers, strict=True)
    }
    legend = ec.legends[0]
    ecdf_colour = {
        t.get_text(): h.get_color()
        for h, t in zip(legend.legend_handles, legend.get_texts(), strict=True)
    }
    assert board_colour == ecdf_colour
    assert "thick: your runs" in ec.axes[0].get_title()
