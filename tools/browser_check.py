"""Check the built book in headless Chromium: pages load, images render, no JavaScript errors.

Serves ``book/_build/html`` on 127.0.0.1 (``http.server`` in a thread), starts
``/usr/bin/chromium --headless`` with a throw-away profile and its DevTools endpoint on a
loopback port, and drives it over the DevTools protocol (``websocket-client``). For every
checked page it asserts that

* the page loaded with HTTP 200 and no request failed,
* no request left 127.0.0.1 (the book is offline),
* every ``<img>`` finished loading with ``naturalWidth > 0``,
* no JavaScript exception was thrown and nothing was logged at level ``error``.

It saves a screenshot of Chapter 1 to ``book/_build/screenshots/ch1.png``.

Usage: ``python tools/browser_check.py [--html DIR] [--page PATH ...] [--timeout S]``.
"""

from __future__ import annotations

import argparse
import base64
import functools
import http.server
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
#: Pages checked by default (relative to the HTML root) and the screenshot each one gets.
DEFAULT_PAGES: dict[str, str | None] = {
    "intro.html": None,
    "chapters/01_benchmark.html": "ch1.png",
}

IMAGE_STATE_JS = """
Array.from(document.images).map(i => ({
  src: i.currentSrc || i.src, complete: i.complete, width: i.naturalWidth
}))
"""


class CheckError(AssertionError):
    """A page failed the browser check; the message lists every problem found."""


@dataclass
class PageReport:
    """What one page did in the browser."""

    url: str
    status: int | None = None
    images: list[dict[str, Any]] = field(default_factory=list)
    js_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    remote_requests: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        """Human-readable list of everything wrong with the page (empty = pass)."""
        out = []
        if self.status != 200:
            out.append(f"HTTP status {self.status}")
        for img in self.images:
            if not img.get("complete") or not img.get("width"):
                out.append(f"image did not load: {img.get('src')}")
        out += [f"JavaScript error: {e}" for e in self.js_errors]
        out += [f"request failed: {r}" for r in self.failed_requests]
        out += [f"remote request (book must be offline): {r}" for r in self.remote_requests]
        return out


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


def check_page(dt: DevTools, url: str, screenshot: Path | None, timeout: float) -> PageReport:
    """Open ``url`` in a fresh tab, wait for it to load, gather the report, screenshot it."""
    target = dt.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = dt.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log", "Network"):
        dt.call(f"{domain}.enable", session=session)
    dt.call(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1280, "height": 1600, "deviceScaleFactor": 1, "mobile": False},
        session=session,
    )
    start = len(dt.events)
    dt.call("Page.navigate", {"url": url}, session=session)
    dt.wait_for("Page.loadEventFired", session, timeout)
    dt.drain(1.0)
    report = PageReport(url=url)
    state = dt.call(
        "Runtime.evaluate", {"expression": IMAGE_STATE_JS, "returnByValue": True}, session=session
    )
    report.images = list(state.get("result", {}).get("value", []))
    _collect(report, dt.events[start:], session, host="127.0.0.1")
    if screenshot is not None:
        shot = dt.call("Page.captureScreenshot", {"format": "png"}, session=session)
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        screenshot.write_bytes(base64.b64decode(shot["data"]))
    dt.call("Target.closeTarget", {"targetId": target})
    return report


def run(html_dir: Path, pages: dict[str, str | None], timeout: float = 60.0) -> list[PageReport]:
    """Check ``pages`` of the book in ``html_dir``; raise :class:`CheckError` on any problem."""
    server, base = serve(html_dir)
    profile = Path(tempfile.mkdtemp(prefix="nmthpo-chromium-"))
    proc: subprocess.Popen[str] | None = None
    try:
        proc, ws_url = start_chromium(profile, timeout)
        dt = DevTools(ws_url, timeout)
        try:
            reports = []
            for page, shot in pages.items():
                if not (html_dir / page).is_file():
                    raise CheckError(f"{html_dir / page} not found; is the page in _toc.yml?")
                path = SCREENSHOTS / shot if shot else None
                reports.append(check_page(dt, base + page, path, timeout))
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
    bad = [(r, r.problems()) for r in reports if r.problems()]
    if bad:
        lines = [f"{r.url}:\n  " + "\n  ".join(p) for r, p in bad]
        raise CheckError("browser check failed:\n" + "\n".join(lines))
    return reports


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", type=Path, default=HTML, help="built HTML directory")
    parser.add_argument("--page", action="append", help="page to check (repeatable)")
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    pages: dict[str, str | None] = (
        {p: None for p in args.page} if args.page else dict(DEFAULT_PAGES)
    )
    start = time.perf_counter()
    try:
        reports = run(args.html, pages, args.timeout)
    except CheckError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for r in reports:
        print(f"ok {r.url}: {len(r.images)} images loaded, no JavaScript errors")
    print(
        f"browser check passed in {time.perf_counter() - start:.1f} s; screenshots in "
        f"{os.path.relpath(SCREENSHOTS, Path.cwd())}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
