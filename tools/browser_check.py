"""Check every page of the built book in headless Chromium, at a desktop and a phone width.

Serves ``book/_build/html`` on 127.0.0.1 (``http.server`` in a thread), starts
``/usr/bin/chromium --headless`` with a throw-away profile and its DevTools endpoint on a
loopback port, and drives it over the DevTools protocol (``websocket-client``). Every page of
the book (every ``*.html`` outside the ``_*`` asset folders, except redirect stubs such as
``index.html``) is opened at each width (1400 px and 390 px by default, the second as a
phone), and the check fails when

* the page did not load with HTTP 200, or a request failed,
* a request left 127.0.0.1 (the book must work offline),
* an ``<img>`` did not load (``naturalWidth`` 0),
* a JavaScript exception was thrown or anything was logged at level ``error``,
* the page overflows horizontally (``scrollWidth`` of the document wider than the viewport:
  wide tables, code and equations must scroll inside their own box, not move the page); the
  report names the outermost elements that stick out,
* the visible text (``document.body.innerText``) shows ``NaN`` (as a whole word) or ``<NA>``
  (prose may name the value as inline code, ````NaN````: text in ``code.literal`` elements is
  not a shown value; tables, outputs and code cells are checked),
* a chapter page (``chapters/01`` to ``chapters/08``) lacks a *Learning goals* or an
  *Exercises* heading.

At a desktop width it also notes (without failing) every table, output or display equation
that is wider than the content column and therefore scrolls inside its own box.

Measurements are taken after MathJax has typeset the page and every image has loaded. A
full-page screenshot of every page at every width is kept for review under
``book/_build/screenshots/`` as ``<page>-<width>.png`` (e.g. ``chapters/01_benchmark-390.png``;
a page taller than :data:`MAX_SHOT_HEIGHT` continues in ``<page>-<width>-2.png`` and so on).

Usage: ``python tools/browser_check.py [--html DIR] [--page PATH ...] [--width PX ...]
[--timeout S]``. Exit status 1 lists every problem, page by page and width by width.
"""

from __future__ import annotations

import argparse
import base64
import functools
import http.server
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parents[1]
HTML = REPO / "book" / "_build" / "html"
SCREENSHOTS = REPO / "book" / "_build" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--mute-audio",
)
#: Viewport widths checked by default: a desktop browser and a phone (CSS px).
WIDTHS = (1400, 390)
#: Viewport height (CSS px); the screenshots cover the whole page regardless.
HEIGHT = 900
#: Widths up to this one are emulated as a phone (touch, ``meta viewport`` honoured).
PHONE_MAX_WIDTH = 600
#: Screenshots are captured in tiles of about this many pixels (one capture of a tall page
#: comes out blank below some height) and stitched; a page taller than MAX_SHOT_HEIGHT (CSS px)
#: continues in a second file, and so on.
SHOT_TILE_PIXELS = 11_000_000
MAX_SHOT_HEIGHT = 32000
#: Chapter pages, which must state their learning goals and end with exercises.
CHAPTER_PAGE = re.compile(r"^chapters/0[1-8]_[^/]+\.html$")
REQUIRED_HEADINGS = ("Learning goals", "Exercises")
#: Values a reader must never see in a table or in the text: pandas' missing-value markers.
MISSING_VALUE = re.compile(r"(?<![A-Za-z0-9_])NaN(?![A-Za-z0-9_])|<NA>")

#: Evaluated in the page after load (awaited): wait for MathJax and images, then measure.
PAGE_STATE_JS = """
(async (WIDTH) => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    try { await MathJax.startup.promise; } catch (e) {}
  }
  const imgs = Array.from(document.images);
  imgs.forEach(i => { if (i.loading === "lazy") i.loading = "eager"; });
  await Promise.race([
    Promise.all(imgs.map(i => i.complete ? null : new Promise(r => {
      i.addEventListener("load", r); i.addEventListener("error", r);
    }))),
    new Promise(r => setTimeout(r, 10000)),
  ]);
  const de = document.documentElement;
  const vw = Math.min(window.innerWidth, WIDTH);
  const culprits = [];
  if (de.scrollWidth > vw + 1) {
    const clipped = el => {
      for (let a = el.parentElement; a && a !== document.body && a !== de; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== "visible") return true;
      }
      return false;
    };
    for (const el of document.body.querySelectorAll("*")) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= vw + 1) continue;
      const p = el.parentElement;
      if (p && p !== document.body && p.getBoundingClientRect().right > vw + 1) continue;
      if (clipped(el) || getComputedStyle(el).position === "fixed") continue;
      const cls = Array.from(el.classList).slice(0, 3).map(c => "." + c).join("");
      const id = el.id ? "#" + el.id : "";
      const text = (el.innerText || "").trim().replace(/\\s+/g, " ").slice(0, 60);
      culprits.push(`<${el.tagName.toLowerCase()}${id}${cls}> ${Math.round(r.width)} px wide, `
        + `right edge at ${Math.round(r.right)} px: "${text}"`);
      if (culprits.length >= 5) break;
    }
    // nothing sticks out as a box: look for text wider than its box (a long URL, an identifier)
    for (const el of culprits.length ? [] : document.body.querySelectorAll("*")) {
      if (el.clientWidth === 0 || el.scrollWidth <= el.clientWidth + 1) continue;
      if (getComputedStyle(el).overflowX !== "visible" || clipped(el)) continue;
      const kids = Array.from(el.children);
      if (kids.some(c => c.clientWidth > 0 && c.scrollWidth > c.clientWidth + 1)) continue;
      const cls = Array.from(el.classList).slice(0, 3).map(c => "." + c).join("");
      const text = (el.innerText || "").trim().replace(/\\s+/g, " ").slice(0, 60);
      culprits.push(`<${el.tagName.toLowerCase()}${cls}> holds content ${el.scrollWidth} px `
        + `wide in ${el.clientWidth} px: "${text}"`);
      if (culprits.length >= 5) break;
    }
  }
  const named = Array.from(document.querySelectorAll("code.literal"))
    .filter(el => /NaN|<NA>/.test(el.textContent))
    .map(el => [el, el.style.display]);
  named.forEach(([el, _]) => { el.style.display = "none"; });
  const text = document.body.innerText;
  named.forEach(([el, d]) => { el.style.display = d; });
  const wide = Array.from(document.querySelectorAll(
    "article mjx-container[display=true], article .output, article .table-wrapper,"
    + " article .pst-scrollable-table-container"))
    .filter(el => el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1)
    .slice(0, 10)
    .map(el => `<${el.tagName.toLowerCase()}.${Array.from(el.classList).slice(0, 2).join(".")}> `
      + `${el.scrollWidth} px in a ${el.clientWidth} px box: `
      + `"${(el.innerText || "").trim().replace(/\\s+/g, " ").slice(0, 50)}"`);
  const headings = Array.from(document.querySelectorAll(
    "article h1, article h2, article h3, article h4")).map(h => {
      const c = h.cloneNode(true);
      c.querySelectorAll(".section-number, .headerlink").forEach(x => x.remove());
      return c.textContent.trim();
  });
  return {
    scrollWidth: de.scrollWidth, innerWidth: window.innerWidth, culprits: culprits,
    images: imgs.map(i => ({src: i.currentSrc || i.src, complete: i.complete,
                            width: i.naturalWidth})),
    text: text, headings: headings, wide: wide,
  };
})
"""


class CheckError(AssertionError):
    """A page failed the browser check; the message lists every problem found."""


@dataclass
class PageReport:
    """What one page did in the browser at one viewport width."""

    url: str
    status: int | None = None
    width: int | None = None
    images: list[dict[str, Any]] = field(default_factory=list)
    js_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    remote_requests: list[str] = field(default_factory=list)
    scroll_width: int | None = None
    overflow_culprits: list[str] = field(default_factory=list)
    missing_values: list[str] = field(default_factory=list)
    missing_headings: list[str] = field(default_factory=list)
    screenshots: list[Path] = field(default_factory=list)
    #: boxes that scroll horizontally inside the content (not a failure: noted at desktop width)
    scrolling_boxes: list[str] = field(default_factory=list)
    failure: str | None = None

    def problems(self) -> list[str]:
        """Human-readable list of everything wrong with the page (empty = pass)."""
        if self.failure is not None:
            return [self.failure]
        out = []
        if self.status != 200:
            out.append(f"HTTP status {self.status}")
        for img in self.images:
            if not img.get("complete") or not img.get("width"):
                out.append(f"image did not load: {img.get('src')}")
        out += [f"JavaScript error: {e}" for e in self.js_errors]
        out += [f"request failed: {r}" for r in self.failed_requests]
        out += [f"remote request (book must be offline): {r}" for r in self.remote_requests]
        if self.width is not None and self.scroll_width is not None:
            if self.scroll_width > self.width + 1:
                out.append(
                    f"page overflows horizontally: {self.scroll_width} px wide in a "
                    f"{self.width} px viewport"
                )
                out += [f"  sticks out: {c}" for c in self.overflow_culprits]
        out += [f"visible missing value: {m}" for m in self.missing_values]
        out += [f"chapter has no '{h}' heading" for h in self.missing_headings]
        return out


def missing_values(text: str, limit: int = 5) -> list[str]:
    """The lines of ``text`` that show ``NaN`` (a whole word) or ``<NA>``, at most ``limit``."""
    hits = []
    for line in text.splitlines():
        if MISSING_VALUE.search(line):
            hits.append(repr(" ".join(line.split())[:100]))
    if len(hits) > limit:
        return hits[:limit] + [f"... and {len(hits) - limit} more lines"]
    return hits


def missing_headings(page: str, headings: list[str]) -> list[str]:
    """The required headings a chapter page lacks (none for pages that are not chapters)."""
    if not is_chapter(page):
        return []
    norm = [" ".join(h.split()).lower() for h in headings]
    return [want for want in REQUIRED_HEADINGS if not any(h.startswith(want.lower()) for h in norm)]


def is_chapter(page: str) -> bool:
    """Whether ``page`` (relative to the HTML root) is one of the numbered chapters 01-08."""
    return CHAPTER_PAGE.match(page.replace(os.sep, "/")) is not None


def book_pages(html_dir: Path) -> list[str]:
    """Every page of the built book, relative to ``html_dir``, in path order.

    Files under ``_static``, ``_sources`` and the other ``_*`` asset folders are not pages;
    redirect stubs (``<meta http-equiv="refresh">``, such as ``index.html``) are skipped,
    their target is checked as a page of its own.
    """
    pages = []
    for path in sorted(Path(html_dir).rglob("*.html")):
        rel = path.relative_to(html_dir)
        if any(part.startswith("_") for part in rel.parts[:-1]):
            continue
        head = path.read_text(encoding="utf-8", errors="replace")[:2000].lower()
        if 'http-equiv="refresh"' in head and "<body" not in head:
            continue
        pages.append(rel.as_posix())
    return pages


def screenshot_path(page: str, width: int, root: Path = SCREENSHOTS) -> Path:
    """Where the screenshot of ``page`` at ``width`` goes: ``<root>/<page>-<width>.png``."""
    rel = Path(page)
    return root / rel.parent / f"{rel.stem}-{width}.png"


# -- static server ---------------------------------------------------------------------------
class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


def serve(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve ``directory`` on an ephemeral 127.0.0.1 port; return the server and base URL."""
    if not (Path(directory) / "index.html").is_file():
        raise CheckError(f"{directory}/index.html not found; build the book first (make html)")
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


# -- DevTools protocol -----------------------------------------------------------------------
class DevTools:
    """A minimal DevTools-protocol client over one browser websocket (flattened sessions)."""

    def __init__(self, ws_url: str, timeout: float) -> None:
        import websocket

        self._ws = websocket.create_connection(ws_url, timeout=timeout, suppress_origin=True)
        self._timeout = timeout
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        """Send one command and wait for its reply; events received meanwhile are kept."""
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self._ws.send(json.dumps(msg))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._ws.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                reply = json.loads(self._ws.recv())
            except Exception as exc:  # websocket timeout
                raise CheckError(f"DevTools {method}: no reply within {timeout} s") from exc
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise CheckError(f"DevTools {method} failed: {reply['error']}")
                return dict(reply.get("result", {}))
            self.events.append(reply)
        raise CheckError(f"DevTools {method}: no reply within {timeout} s")

    def wait_for(self, method: str, session: str, timeout: float) -> dict[str, Any]:
        """Wait for an event (already received ones count) and return it."""
        deadline = time.monotonic() + timeout
        while True:
            for ev in self.events:
                if ev.get("method") == method and ev.get("sessionId") == session:
                    return ev
            left = deadline - time.monotonic()
            if left <= 0:
                raise CheckError(f"page did not fire {method} within {timeout} s")
            self._ws.settimeout(left)
            try:
                self.events.append(json.loads(self._ws.recv()))
            except Exception as exc:  # websocket timeout
                raise CheckError(f"page did not fire {method} within {timeout} s") from exc

    def drain(self, seconds: float) -> None:
        """Collect events for ``seconds`` (late console errors, image loads)."""
        self._ws.settimeout(0.2)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                self.events.append(json.loads(self._ws.recv()))
            except Exception:  # websocket timeout: nothing arrived
                continue
        self._ws.settimeout(self._timeout)

    def close(self) -> None:
        self._ws.close()


def start_chromium(profile: Path, timeout: float) -> tuple[subprocess.Popen[str], str]:
    """Start headless Chromium with DevTools on a loopback port; return it and its ws URL."""
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        raise CheckError(f"{CHROMIUM} not found; install it (apt-get install chromium)")
    cmd = [
        CHROMIUM,
        *CHROMIUM_FLAGS,
        f"--user-data-dir={profile}",
        "--remote-debugging-address=127.0.0.1",
        "--remote-debugging-port=0",
        "about:blank",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + timeout
    stderr = proc.stderr
    assert stderr is not None
    while time.monotonic() < deadline:
        line = stderr.readline()
        if not line and proc.poll() is not None:
            raise CheckError(f"chromium exited with code {proc.returncode} before DevTools came up")
        match = re.search(r"DevTools listening on (ws://\S+)", line)
        if match:
            # keep draining stderr so Chromium never blocks on a full pipe
            threading.Thread(target=lambda: [None for _ in stderr], daemon=True).start()
            return proc, match.group(1)
    proc.kill()
    raise CheckError(f"chromium did not open its DevTools endpoint within {timeout} s")


def _collect(report: PageReport, events: list[dict[str, Any]], session: str, host: str) -> None:
    for ev in events:
        if ev.get("sessionId") != session:
            continue
        method, p = ev.get("method"), ev.get("params", {})
        if method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            report.js_errors.append(str(d.get("exception", {}).get("description") or d.get("text")))
        elif method == "Runtime.consoleAPICalled" and p.get("type") == "error":
            report.js_errors.append(
                " ".join(str(a.get("value", a.get("description"))) for a in p.get("args", []))
            )
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            e = p["entry"]
            if str(e.get("url", "")).endswith("/favicon.ico"):
                continue  # the browser's own favicon probe; the book declares no favicon
            report.js_errors.append(f"{e.get('source')}: {e.get('text')} {e.get('url', '')}")
        elif method == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            parsed = urlparse(url)
            if parsed.scheme in ("http", "https", "ws", "wss") and parsed.hostname != host:
                report.remote_requests.append(url)
        elif method == "Network.loadingFailed" and not p.get("canceled"):
            report.failed_requests.append(f"{p.get('errorText')} ({p.get('type')})")
        elif method == "Network.responseReceived" and p.get("type") == "Document":
            if report.status is None:
                report.status = int(p.get("response", {}).get("status", 0))


def _screenshot(dt: DevTools, session: str, width: int, phone: bool, path: Path) -> list[Path]:
    """Save a full-page PNG of the current page; return the files written.

    The viewport is stretched to the page's height (after the measurements: it changes
    ``vh`` units) and the page captured in tiles of about :data:`SHOT_TILE_PIXELS` pixels,
    stitched with Pillow: one capture of a tall page comes out blank below some height. A page
    taller than :data:`MAX_SHOT_HEIGHT` continues in ``<page>-<width>-2.png``, ``-3.png``, ...
    so that no part of it is lost and no image becomes too large to open.
    """
    from PIL import Image

    metrics = dt.call("Page.getLayoutMetrics", session=session)
    size = metrics.get("cssContentSize") or metrics.get("contentSize") or {}
    height = max(1, int(size.get("height", HEIGHT)))
    clip_w = max(width, int(size.get("width", width)))
    dt.call(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": phone},
        session=session,
    )
    tile = max(500, min(MAX_SHOT_HEIGHT, SHOT_TILE_PIXELS // clip_w))
    path.parent.mkdir(parents=True, exist_ok=True)
    written = []
    for part, top in enumerate(range(0, height, MAX_SHOT_HEIGHT), start=1):
        part_h = min(MAX_SHOT_HEIGHT, height - top)
        canvas = Image.new("RGB", (clip_w, part_h), "white")
        for y in range(top, top + part_h, tile):
            clip = {"x": 0, "y": y, "width": clip_w, "height": min(tile, top + part_h - y)}
            shot = dt.call(
                "Page.captureScreenshot",
                {"format": "png", "optimizeForSpeed": True, "clip": {**clip, "scale": 1}},
                session=session,
                timeout=120.0,
            )
            with Image.open(io.BytesIO(base64.b64decode(shot["data"]))) as img:
                canvas.paste(img.convert("RGB"), (0, y - top))
        out = path if part == 1 else path.with_name(f"{path.stem}-{part}{path.suffix}")
        canvas.save(out, compress_level=1)
        written.append(out)
    return written


def check_page(
    dt: DevTools,
    base: str,
    page: str,
    width: int,
    screenshot: Path | None,
    timeout: float,
) -> PageReport:
    """Open ``page`` in a fresh tab at ``width``, wait until it is rendered, measure it."""
    url = base + page
    target = dt.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = dt.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    try:
        for domain in ("Page", "Runtime", "Log", "Network"):
            dt.call(f"{domain}.enable", session=session)
        phone = width <= PHONE_MAX_WIDTH
        dt.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": phone},
            session=session,
        )
        start = len(dt.events)
        dt.call("Page.navigate", {"url": url}, session=session)
        dt.wait_for("Page.loadEventFired", session, timeout)
        state = dt.call(
            "Runtime.evaluate",
            {
                "expression": f"({PAGE_STATE_JS.strip()})({int(width)})",
                "returnByValue": True,
                "awaitPromise": True,
            },
            session=session,
            timeout=timeout,
        )
        if "exceptionDetails" in state:
            raise CheckError(f"{url}: the page measurement failed: {state['exceptionDetails']}")
        value = state.get("result", {}).get("value", {})
        dt.drain(0.2)
        report = PageReport(url=url, width=width)
        report.images = list(value.get("images", []))
        report.scroll_width = int(value.get("scrollWidth", 0))
        report.overflow_culprits = list(value.get("culprits", []))
        report.missing_values = missing_values(str(value.get("text", "")))
        report.missing_headings = missing_headings(page, list(value.get("headings", [])))
        report.scrolling_boxes = list(value.get("wide", []))
        _collect(report, dt.events[start:], session, host="127.0.0.1")
        if screenshot is not None:
            report.screenshots = _screenshot(dt, session, width, phone, screenshot)
    finally:
        dt.call("Target.closeTarget", {"targetId": target})
        dt.events = [ev for ev in dt.events if ev.get("sessionId") != session]
    return report


def run(
    html_dir: Path,
    pages: list[str] | None = None,
    widths: tuple[int, ...] = WIDTHS,
    timeout: float = 60.0,
    screenshots: Path | None = SCREENSHOTS,
) -> list[PageReport]:
    """Check ``pages`` (default: every page) of the book at every width.

    Returns the reports of all pages; raises :class:`CheckError` listing every problem of
    every page and width if any page failed. Screenshots go to ``screenshots`` (``None``:
    none); a check of every page first removes the screenshots of an earlier run.
    """
    html_dir = Path(html_dir)
    server, base = serve(html_dir)
    if pages is None:
        pages = book_pages(html_dir)
        if screenshots is not None and screenshots.is_dir():
            shutil.rmtree(screenshots)
    for page in pages:
        if not (html_dir / page).is_file():
            server.shutdown()
            raise CheckError(f"{html_dir / page} not found; is the page in _toc.yml?")
    profile = Path(tempfile.mkdtemp(prefix="nmthpo-chromium-"))
    proc: subprocess.Popen[str] | None = None
    reports: list[PageReport] = []
    try:
        proc, ws_url = start_chromium(profile, timeout)
        dt = DevTools(ws_url, timeout)
        try:
            for page in pages:
                for width in widths:
                    shot = screenshot_path(page, width, screenshots) if screenshots else None
                    try:
                        reports.append(check_page(dt, base, page, width, shot, timeout))
                    except CheckError as exc:
                        reports.append(PageReport(url=base + page, width=width, failure=str(exc)))
        finally:
            dt.close()
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    for r in reports:
        if r.width is not None and r.width > PHONE_MAX_WIDTH and r.scrolling_boxes:
            print(
                f"note: {r.url} at {r.width} px: wider than the content column, scrolls in "
                "its box:\n  " + "\n  ".join(r.scrolling_boxes),
                file=sys.stderr,
            )
    bad = [(r, r.problems()) for r in reports if r.problems()]
    if bad:
        lines = [f"{r.url} at {r.width} px:\n  " + "\n  ".join(p) for r, p in bad]
        raise CheckError(
            f"browser check failed on {len(bad)} of {len(reports)} page views:\n" + "\n".join(lines)
        )
    return reports


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--html", type=Path, default=HTML, help="built HTML directory")
    parser.add_argument(
        "--page",
        action="append",
        help="page to check, relative to --html (repeatable; default: every page)",
    )
    parser.add_argument(
        "--width",
        type=int,
        action="append",
        help=f"viewport width in CSS px (repeatable; default: {' and '.join(map(str, WIDTHS))})",
    )
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per page")
    args = parser.parse_args(argv)
    widths = tuple(args.width) if args.width else WIDTHS
    start = time.perf_counter()
    try:
        reports = run(args.html, args.page, widths, args.timeout)
    except CheckError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for r in reports:
        shots = f", {len(r.screenshots)} screenshot files" if len(r.screenshots) > 1 else ""
        print(f"ok {r.url} at {r.width} px: {len(r.images)} images{shots}")
    print(
        f"browser check passed: {len(reports)} page views in "
        f"{time.perf_counter() - start:.1f} s; screenshots in "
        f"{os.path.relpath(SCREENSHOTS, Path.cwd())}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
