"""Check that the book's prose types no result: every decimal number in a Markdown cell of a
chapter (``notebooks/*.ipynb``) or in a Markdown page of ``book/`` is either pasted from the
computation (MyST-NB ``{glue:text}`key```, which holds no digits) or a quotation of a paper
listed in the one allow-list ``book/quotations.tsv`` (chapter, number, where the paper says it).

Skipped: blocks a tool writes between ``<!-- NAME:start (written by tools/...) -->`` and
``<!-- NAME:end -->`` (measured, and kept current by that tool's own ``--check``), HTML
comments, code spans and fenced code (the text of a directive such as an admonition is prose
and is checked), roles (``{cite}``, ``{glue...}``, ``{doc}``), link targets,
and numbers that name a section, table, figure or equation ("Section 6.1", "Eq. 3.2").

Usage: ``python tools/prose_check.py`` prints every typed decimal not in the allow-list (and
every allow-list entry no longer in its chapter) and exits 1 if there is any; ``--list``
prints every decimal found, allowed or not.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ALLOW = REPO / "book" / "quotations.tsv"

# code fences (not MyST directives such as ```{admonition}, whose text is prose)
_FENCE = re.compile(r"^(`{3,}|~{3,})(?![ \t]*\{)[^\n]*\n.*?^\1[ \t]*$", re.S | re.M)
_CODE = re.compile(r"`[^`\n]*`")
# a block a tool writes from its measurements (``tools/teaching_times.py``, checked by its
# ``--check``), and any other HTML comment (not rendered)
_GENERATED = re.compile(
    r"<!--\s*([\w\-]+):start \(written by (tools/[\w\-]+\.py)[^)]*\)\s*-->.*?<!--\s*\1:end\s*-->",
    re.S,
)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_ROLE = re.compile(r"\{[\w:\-]+\}`[^`]*`")
_LINK = re.compile(r"\]\([^)]*\)")
_REF = re.compile(
    r"(?:Sections?|Sec\.|Secs\.|Tables?|Figures?|Figs?\.|Eqs?\.|Equations?|"
    r"Appendix|footnotes?|§|version|v)\s*\d+(?:\.\d+)+",
    re.I,
)
_DECIMAL = re.compile(r"(?<![\w.])[-−+]?\d+\.\d+(?![\w.]*\d)")


def sources() -> dict[str, list[str]]:
    """``{chapter: [markdown text, ...]}`` for every chapter source and Markdown page."""
    out: dict[str, list[str]] = {}
    for nb in sorted((REPO / "notebooks").glob("*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        out[nb.stem] = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    for md in sorted((REPO / "book").glob("*.md")):
        out[md.stem] = [md.read_text(encoding="utf-8")]
    return out


def decimals(text: str) -> list[tuple[str, str]]:
    """The typed decimals of one Markdown text, each with some context."""
    # a generated block counts only if the tool that writes it exists
    text = _GENERATED.sub(lambda m: " " if (REPO / m.group(2)).is_file() else m.group(0), text)
    for pat in (_COMMENT, _FENCE, _ROLE, _CODE, _LINK, _REF):
        text = pat.sub(" ", text)
    found = []
    for m in _DECIMAL.finditer(text):
        num = m.group(0).lstrip("+").replace("−", "-")
        ctx = text[max(0, m.start() - 40) : m.end() + 40].replace("\n", " ")
        found.append((num, ctx))
    return found


def allow_list(path: Path = ALLOW) -> dict[str, dict[str, str]]:
    """``{chapter: {number: where}}`` from the allow-list."""
    out: dict[str, dict[str, str]] = {}
    with path.open(encoding="utf-8") as f:
        rows = csv.reader((ln for ln in f if ln.strip() and not ln.startswith("#")), delimiter="\t")
        for row in rows:
            if len(row) != 3:
                raise ValueError(f"{path}: each line is 'chapter<TAB>number<TAB>where', got {row}")
            chapter, number, where = (x.strip() for x in row)
            out.setdefault(chapter, {})[number] = where
    return out


def problems() -> list[str]:
    """Every typed decimal not allowed, and every allow-list entry no longer used."""
    allowed = allow_list()
    out = []
    for chapter, texts in sources().items():
        seen = set()
        for text in texts:
            for num, ctx in decimals(text):
                seen.add(num)
                if num not in allowed.get(chapter, {}):
                    out.append(
                        f"{chapter}: typed number {num} in '...{ctx.strip()}...' "
                        "(glue it from the computation, or add the paper's quotation "
                        "to book/quotations.tsv)"
                    )
        for num in sorted(set(allowed.get(chapter, {})) - seen):
            out.append(
                f"{chapter}: allow-list entry {num} is not in the text any more "
                "(remove it from book/quotations.tsv)"
            )
    unknown = sorted(set(allowed) - set(sources()))
    out += [f"book/quotations.tsv names unknown chapter {c}" for c in unknown]
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line: print problems (or ``--list`` every decimal); exit 1 on a problem."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="print every decimal found")
    args = ap.parse_args(argv)
    if args.list:
        for chapter, texts in sources().items():
            for text in texts:
                for num, ctx in decimals(text):
                    print(f"{chapter}\t{num}\t{ctx.strip()}")
        return 0
    found = problems()
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
