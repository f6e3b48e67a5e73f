"""Time each chapter's exercise solutions and keep the table of ``book/teaching.md`` current.

    python tools/teaching_times.py              # execute chapters 01-09, time them, rewrite
    python tools/teaching_times.py --only 07    # re-time one chapter, keep the other rows
    python tools/teaching_times.py --from DIR   # read the timings of notebooks executed in DIR
    python tools/teaching_times.py --check      # exit 1 if the table is not current

The times are measured, never typed. Each chapter source ``notebooks/NN_*.ipynb`` (01 to 09)
is executed with papermill and its published parameters into a temporary directory (the
kernel's working directory, so nothing is written into the repository); papermill records every
cell's run time in ``metadata.papermill.duration``. (The executed chapters in ``book/chapters``
do not keep these timings: ``tools/build_book.py`` strips them so that re-executing an unchanged
chapter changes nothing but its outputs.) An exercise's time is the sum over the code cells of
its solution: the code cells that follow its ``{admonition} Solution N`` in the chapter's
closing *Exercises* section, before the next solution. An exercise whose solution is prose only
has no time. The table also gives the time to execute the whole chapter.

The table is written between the marker comments of ``book/teaching.md``, with the data it was
made from (exercise titles, times, a digest of each chapter's exercise text and solution code,
the machine) in an HTML comment. ``--check`` re-reads the exercises of the executed chapters in
``book/chapters``, whatever they hold now, and fails if a chapter's exercises or solution code
changed since they were timed (re-time that chapter with ``--only NN``), if a chapter is
missing from the table, or if the table is not the rendering of its data.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
CHAPTERS = ROOT / "book" / "chapters"
PAGE = ROOT / "book" / "teaching.md"
#: The chapters with exercises (the appendices 97-99 have none).
CHAPTER_RE = re.compile(r"^0[1-9]_[A-Za-z0-9_\-]+\.ipynb$")
START = "<!-- teaching-times:start (written by tools/teaching_times.py; do not edit by hand) -->"
END = "<!-- teaching-times:end -->"
DATA_RE = re.compile(r"<!-- teaching-times-data (\{.*?\}) -->", re.S)
ITEM_RE = re.compile(r"^(\d+)\.\s+\*\*(.+?)\*\*", re.M)
SOLUTION_RE = re.compile(r"^```+\{admonition\}\s+Solution\s+(\d+)", re.M)


class TimesError(RuntimeError):
    """The exercises could not be read or timed; the message says what to fix."""


@dataclass
class Exercise:
    """One exercise of a chapter and the code cells of its solution."""

    number: int
    title: str
    cells: list[int]  # indices of the solution's code cells in the notebook
    seconds: float | None = None  # summed papermill durations (None: not timed / no code)


# -- reading chapters ------------------------------------------------------------------------
def _source(cell: dict[str, Any]) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _plain(title: str) -> str:
    """A title without its Markdown: roles, backticks and emphasis reduced to their text (math,
    ``$...$``, is kept: the table renders it)."""
    title = re.sub(r"\{[\w:.-]+\}`([^`]*)`", r"\1", title)
    title = title.replace("`", "").replace("*", "").replace("|", "/")
    return " ".join(title.split()).rstrip(".")


def exercises(nb: dict[str, Any]) -> list[Exercise]:
    """The exercises of a chapter: its last ``## Exercises`` cell and the solutions after it."""
    cells = nb["cells"]
    heads = [
        i
        for i, c in enumerate(cells)
        if c.get("cell_type") == "markdown" and _source(c).lstrip().startswith("## Exercises")
    ]
    if not heads:
        return []
    start = heads[-1]
    items = {int(n): _plain(t) for n, t in ITEM_RE.findall(_source(cells[start]))}
    out = {n: Exercise(number=n, title=t, cells=[]) for n, t in sorted(items.items())}
    current: int | None = None
    for i in range(start + 1, len(cells)):
        cell = cells[i]
        text = _source(cell)
        if cell.get("cell_type") == "markdown":
            if text.lstrip().startswith("#"):
                break  # a later section ends the exercises
            match = SOLUTION_RE.search(text)
            if match:
                current = int(match.group(1))
                out.setdefault(current, Exercise(number=current, title="", cells=[]))
        elif cell.get("cell_type") == "code" and current is not None and text.strip():
            out[current].cells.append(i)
    return list(out.values())


def digest(nb: dict[str, Any], exs: list[Exercise]) -> str:
    """A short digest of a chapter's exercise text and solution code: what was timed."""
    h = hashlib.sha256()
    for ex in exs:
        h.update(f"{ex.number}\0{ex.title}\0".encode())
        for i in ex.cells:
            h.update(_source(nb["cells"][i]).encode())
            h.update(b"\0")
    return h.hexdigest()[:12]


def read_notebook(path: Path) -> dict[str, Any]:
    try:
        nb = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise TimesError(f"{path}: not a readable notebook ({exc})") from exc
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise TimesError(f"{path}: not a notebook")
    return nb


def chapter_paths(directory: Path, only: str | None = None) -> list[Path]:
    paths = sorted(p for p in Path(directory).glob("*.ipynb") if CHAPTER_RE.match(p.name))
    return [p for p in paths if only is None or p.name.startswith(only)]


# -- timing ----------------------------------------------------------------------------------
def timed_chapter(executed: dict[str, Any], stem: str) -> dict[str, Any]:
    """The record of one executed chapter: its exercises with their summed cell durations."""
    exs = exercises(executed)
    for ex in exs:
        durations = [
            executed["cells"][i].get("metadata", {}).get("papermill", {}).get("duration")
            for i in ex.cells
        ]
        if ex.cells and all(isinstance(d, (int, float)) for d in durations):
            ex.seconds = round(float(sum(durations)), 2)
        elif ex.cells:
            raise TimesError(f"{stem}: solution {ex.number} has code cells without a duration")
    total = executed.get("metadata", {}).get("papermill", {}).get("duration")
    if not isinstance(total, (int, float)):
        raise TimesError(f"{stem}: no papermill duration; was it executed by papermill?")
    return {
        "chapter": stem,
        "digest": digest(executed, exs),
        "chapter_seconds": round(float(total), 1),
        "exercises": [
            {"number": e.number, "title": e.title, "cells": len(e.cells), "seconds": e.seconds}
            for e in exs
        ],
    }


def execute_and_time(source: Path, workdir: Path) -> dict[str, Any]:
    """Execute ``source`` (published parameters) in ``workdir`` with papermill; time it."""
    import papermill

    out = workdir / source.name
    print(f"executing {source.relative_to(ROOT)} ...", flush=True)
    papermill.execute_notebook(
        str(source),
        str(out),
        kernel_name="python3",
        cwd=str(workdir),
        progress_bar=False,
        log_output=False,
    )
    return timed_chapter(read_notebook(out), source.stem)


def machine() -> str:
    """A one-line description of the machine the times were measured on."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    model = model or platform.processor() or platform.machine()
    return f"{model}, {os.cpu_count()} logical cores, Python {platform.python_version()}"


# -- the page --------------------------------------------------------------------------------
def _fmt(seconds: float | None) -> str:
    if seconds is None:
        return "--"
    if seconds < 1:
        return "under 1 s"
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min"


def render(data: dict[str, Any]) -> str:
    """The block between the markers: two tables and the data they were made from."""
    chapters = sorted(data["chapters"], key=lambda c: c["chapter"])
    lines = [
        START,
        "",
        "| chapter | exercise | solution code | time to run the solution |",
        "|---|---|---|---|",
    ]
    for ch in chapters:
        num = int(ch["chapter"][:2])
        for ex in ch["exercises"]:
            code = f"{ex['cells']} cell" + ("s" if ex["cells"] != 1 else "") if ex["cells"] else ""
            lines.append(
                f"| {num} | {ex['number']}. {ex['title']} | {code or 'none (discussion)'} | "
                f"{_fmt(ex['seconds']) if ex['cells'] else '--'} |"
            )
    lines += [
        "",
        "| chapter | exercises | their solutions, in all | executing the whole chapter |",
        "|---|---|---|---|",
    ]
    for ch in chapters:
        timed = [e["seconds"] for e in ch["exercises"] if e["seconds"] is not None]
        lines.append(
            f"| {int(ch['chapter'][:2])} | {len(ch['exercises'])} | "
            f"{_fmt(sum(timed)) if timed else '--'} | {_fmt(ch['chapter_seconds'])} |"
        )
    lines += [
        "",
        f"Measured on {data['machine']}; every chapter executed by papermill with its "
        "published parameters, reading the book's cached results. A dash marks an exercise "
        "answered in prose, with no code to run.",
        "",
        "<!-- teaching-times-data "
        + json.dumps(data, indent=None, sort_keys=True).replace("--", "-\\u002d")
        + " -->",
        END,
    ]
    return "\n".join(lines)


def read_block(text: str) -> tuple[str, dict[str, Any] | None]:
    """The current block of ``text`` (between the markers) and the data it holds."""
    if START not in text or END not in text:
        raise TimesError(f"{PAGE}: the marker comments are missing ({START} ... {END})")
    block = text[text.index(START) : text.index(END) + len(END)]
    match = DATA_RE.search(block)
    return block, json.loads(match.group(1)) if match else None


def write_page(data: dict[str, Any], page: Path = PAGE) -> None:
    text = page.read_text(encoding="utf-8")
    block, _ = read_block(text)
    page.write_text(text.replace(block, render(data)), encoding="utf-8")


def check(page: Path = PAGE, chapters: Path = CHAPTERS) -> list[str]:
    """Everything that is not current in the page's table (empty: current)."""
    block, data = read_block(page.read_text(encoding="utf-8"))
    if data is None:
        return [f"{page}: no timings yet; run python tools/teaching_times.py"]
    problems = []
    if block != render(data):
        problems.append(f"{page}: the table was edited by hand; run python tools/teaching_times.py")
    recorded = {c["chapter"]: c for c in data["chapters"]}
    for path in chapter_paths(chapters):
        nb = read_notebook(path)
        exs = exercises(nb)
        rec = recorded.pop(path.stem, None)
        if rec is None:
            problems.append(f"{path.stem}: not timed; run python tools/teaching_times.py")
        elif rec["digest"] != digest(nb, exs):
            problems.append(
                f"{path.stem}: its exercises or solution code changed since they were timed; "
                f"run python tools/teaching_times.py --only {path.stem[:2]}"
            )
    problems += [f"{stem}: timed, but no such chapter in {chapters}" for stem in recorded]
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--only", help="re-time the chapters whose name starts with this")
    parser.add_argument(
        "--from",
        dest="source",
        type=Path,
        help="read timings from papermill-executed notebooks in this directory (no execution)",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if the table is not current")
    args = parser.parse_args(argv)
    try:
        if args.check:
            problems = check()
            for p in problems:
                print(f"error: {p}", file=sys.stderr)
            if not problems:
                print(f"{PAGE.relative_to(ROOT)} is current")
            return 1 if problems else 0
        _, old = read_block(PAGE.read_text(encoding="utf-8"))
        kept = {c["chapter"]: c for c in (old or {}).get("chapters", [])}
        if args.source is not None:
            paths = chapter_paths(args.source, args.only)
            records = [timed_chapter(read_notebook(p), p.stem) for p in paths]
        else:
            paths = chapter_paths(NOTEBOOKS, args.only)
            with tempfile.TemporaryDirectory(prefix="nmthpo-teaching-") as tmp:
                records = [execute_and_time(p, Path(tmp)) for p in paths]
        if not paths:
            raise TimesError(f"no chapters matching {args.only!r}")
        if args.only is None:
            kept = {}
        kept.update({r["chapter"]: r for r in records})
        data = {"machine": machine(), "chapters": sorted(kept.values(), key=lambda c: c["chapter"])}
        if args.only is not None and old is not None and old.get("machine") != data["machine"]:
            print("warning: other chapters were timed on another machine", file=sys.stderr)
        write_page(data)
        for r in records:
            print(
                f"timed {r['chapter']}: {r['chapter_seconds']} s, exercises "
                + ", ".join(_fmt(e["seconds"]) for e in r["exercises"])
            )
    except TimesError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
