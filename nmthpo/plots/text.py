"""Prose from the computation: glued values and the banner of a re-executed chapter.

The book's Markdown never types a result: a chapter computes its numbers and verdicts, glues
them by name (:func:`glue_values`, MyST-NB's ``glue``) and the prose pastes them with
``{glue:text}`key``` (or ``{glue:text}`chapters/NN_slug.ipynb::key``` from another page).
A glued value is stored as its text in both ``text/plain`` (compared by nbval, so a changed
number fails ``make notebooks``) and ``text/markdown``.

A chapter executed with parameters other than the published ones opens with
:func:`published_banner`: which parameters differ, and that the narrative describes the
published run while the tables and claims are computed for the given parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nmthpo.errors import InputKeyError
from nmthpo.studies.published import PUBLISHED, differences

__all__ = ["Glued", "banner_text", "glue_values", "published_banner"]


class Glued:
    """A piece of prose whose plain and Markdown forms are both ``text`` (no quotes)."""

    def __init__(self, text: str) -> None:
        self.text = str(text)

    def __repr__(self) -> str:
        return self.text

    def _repr_markdown_(self) -> str:
        return self.text


def glue_values(values: Mapping[str, Any]) -> dict[str, str]:
    """Glue every ``key: text`` (MyST-NB, ``display=False``) and return the texts glued.

    Values are glued as given (format numbers first with :func:`nmthpo.engine.numbers.fmt`):
    a float would be pasted with all its digits.
    """
    from myst_nb import glue

    out = {}
    for key, value in values.items():
        if not isinstance(value, str):
            raise TypeError(
                f"glue {key!r}: give a formatted string, not {type(value).__name__}"
                " (use nmthpo.engine.numbers.fmt)"
            )
        glue(key, Glued(value), display=False)
        out[key] = value
    return out


def banner_text(chapter: str, given: Mapping[str, Any]) -> str | None:
    """The banner's Markdown for ``chapter`` run with ``given``; None for the published run."""
    diff = differences(chapter, given)
    if not diff:
        return None
    lines = [f"> - `{k}` = `{v!r}` (published: `{p!r}`)" for k, (v, p) in diff.items()]
    return (
        "> **Not the published parameters.** This chapter was executed with parameters "
        "that differ from the published book:\n>\n" + "\n".join(lines) + "\n>\n"
        "> The narrative describes the published run. The tables, figures and claims below "
        "are computed for the parameters given; a claim the run cannot judge (fewer tasks, "
        "methods or trials than it refers to) is marked *not testable* with the reason."
    )


def published_banner(chapter: str, namespace: Mapping[str, Any]) -> None:
    """Display the banner when ``namespace`` (a notebook's ``globals()``) is not published.

    Shows nothing for the published run. Returns None, so that the call prints nothing as a
    cell's last line (nbval does not honour a trailing ``;``);
    :func:`nmthpo.studies.published.differences` gives the differing parameters.
    """
    if chapter not in PUBLISHED:
        raise InputKeyError(f"unknown chapter {chapter!r}; known: {', '.join(PUBLISHED)}")
    given = {k: namespace[k] for k in PUBLISHED[chapter] if k in namespace}
    text = banner_text(chapter, given)
    if text is not None:
        from IPython.display import display

        display(Glued(text))
