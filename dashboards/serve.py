"""`mix dash --serve`: the dashboard on localhost, rebuilt while training and RL write new rows.

A watcher thread polls the inputs' modification times and sizes (eval and RL files, every
TensorBoard event file under the given folders, each build's manifest) every ``poll_seconds``; on a
change it rewrites the page and bumps a version number. The served page carries a small inline
script that asks ``/version`` (same origin) every ``refresh_seconds`` and reloads when it changed.

    GET /            the page (with the refresh script; the file on disk stays without it)
    GET /version     {"version": n, "generated": unix time, "error": last rebuild error or null}
    GET /fits.json   the fitted parameters

``DashboardServer`` runs in background threads and stops with ``stop()`` (or as a context manager),
which is what tests use; ``serve()`` blocks until interrupted or ``duration`` seconds passed.
"""

from __future__ import annotations

import http.server
import json
import logging
import os
import threading
import time
from typing import Self

from codemix.dashboards.builds import BuildSummary, load_build
from codemix.dashboards.render import DashboardInputs, DashboardResult, write_dashboard

logger = logging.getLogger(__name__)

REFRESH_SCRIPT = """<script>
(function () {{
  var shown = {version};
  setInterval(function () {{
    fetch("/version", {{cache: "no-store"}}).then(function (r) {{ return r.json(); }}).then(function (d) {{
      if (d.version !== shown) {{ location.reload(); }}
    }}).catch(function () {{}});
  }}, {interval_ms});
}})();
</script>
"""


def signature(paths: list[str]) -> tuple:
    """What changes when any input is written: each path's mtime and size (None while it is missing)."""
    stats = []
    for path in paths:
        try:
            info = os.stat(path)
            stats.append((path, info.st_mtime_ns, info.st_size))
        except OSError:
            stats.append((path, None, None))
    return tuple(stats)


class CachedBuilds:
    """``load_build`` once per build and manifest version: rescanning Parquet on every eval row is waste."""

    def __init__(self):
        self._cache: dict[str, tuple[tuple, BuildSummary]] = {}

    def __call__(self, path: str) -> BuildSummary:
        key = signature([f"{path.rstrip('/')}/manifest.json"])
        if path not in self._cache or self._cache[path][0] != key:
            self._cache[path] = (key, load_build(path))
        return self._cache[path][1]


class DashboardServer:
    """The page on ``http://host:port/``, rebuilt when its inputs change. ``port=0`` picks a free port."""

    def __init__(self, inputs: DashboardInputs, *, host: str = "127.0.0.1", port: int = 0,
                 poll_seconds: float = 2.0, refresh_seconds: float = 2.0):
        self.inputs = inputs
        self.poll_seconds = poll_seconds
        self.refresh_seconds = refresh_seconds
        self.version = 0
        self.error: str | None = None
        self.generated = 0.0
        self.result: DashboardResult | None = None
        self._page = b""
        self._fits = b"{}"
        self._seen: tuple = ()
        self._builds = CachedBuilds()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._http = http.server.ThreadingHTTPServer((host, port), self._handler())
        self._http.daemon_threads = True

    @property
    def running(self) -> bool:
        """Whether the HTTP or the watcher thread is still alive."""
        return any(thread.is_alive() for thread in self._threads)

    @property
    def url(self) -> str:
        host, port = self._http.server_address[:2]
        return f"http://{host}:{port}/"

    def rebuild(self) -> None:
        """Write the page from the inputs as they are now and serve it under a new version."""
        seen = signature(self.inputs.watched())
        result = write_dashboard(self.inputs, build_loader=self._builds)
        with open(result.html_path, "rb") as handle:
            page = handle.read()
        with open(result.fits_path, "rb") as handle:
            fits = handle.read()
        with self._lock:
            self.version += 1
            self._page, self._fits, self._seen, self.result = page, fits, seen, result
            self.generated, self.error = time.time(), None

    def check(self) -> bool:
        """Rebuild if any input changed since the last build; True if it did. A failed rebuild keeps
        the last page and reports the error on ``/version``."""
        if signature(self.inputs.watched()) == self._seen:
            return False
        try:
            self.rebuild()
        except Exception as error:  # the server outlives a bad input; the error is shown, not swallowed
            logger.exception("rebuilding the dashboard failed")
            with self._lock:
                self._seen, self.error = signature(self.inputs.watched()), f"{type(error).__name__}: {error}"
        return True

    def page(self) -> bytes:
        with self._lock:
            page, version = self._page, self.version
        script = REFRESH_SCRIPT.format(version=version, interval_ms=int(self.refresh_seconds * 1000)).encode()
        cut = page.rfind(b"</body>")
        return page[:cut] + script + page[cut:] if cut >= 0 else page + script

    def status(self) -> dict:
        with self._lock:
            return {"version": self.version, "generated": self.generated, "error": self.error}

    def _watch(self) -> None:
        while not self._stopping.wait(self.poll_seconds):
            self.check()

    def start(self) -> str:
        """Build the page, then serve it and watch the inputs in background threads; returns the URL."""
        self.rebuild()
        for target in (lambda: self._http.serve_forever(poll_interval=0.2), self._watch):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self.url

    def stop(self) -> None:
        self._stopping.set()
        self._http.shutdown()
        self._http.server_close()
        for thread in self._threads:
            thread.join(timeout=10)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _handler(self):
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                path = self.path.split("?", 1)[0]
                if path in ("/", "/index.html", "/dashboard.html"):
                    self._send(server.page(), "text/html; charset=utf-8")
                elif path == "/version":
                    self._send(json.dumps(server.status()).encode(), "application/json")
                elif path == "/fits.json":
                    self._send(server._fits, "application/json")
                else:
                    self.send_error(404)

            def _send(self, body: bytes, content_type: str):
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format, *args):
                logger.debug("%s %s", self.address_string(), format % args)

        return Handler


def serve(inputs: DashboardInputs, *, host: str = "127.0.0.1", port: int = 8050, poll_seconds: float = 2.0,
          duration: float | None = None, echo=print) -> None:
    """Serve the dashboard until Ctrl-C (or for ``duration`` seconds), rebuilding it as inputs change."""
    server = DashboardServer(inputs, host=host, port=port, poll_seconds=poll_seconds)
    url = server.start()
    echo(f"serving {inputs.out_html} at {url} (rebuilt when inputs change; Ctrl-C stops)")
    try:
        server._stopping.wait(duration)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
