"""Headless Chromium, offline: the DOM after the page's scripts ran, a PNG screenshot, and which
non-local URLs the page itself asked for (from Chromium's net log).

Every run gets a fresh profile and these switches: no sandbox (we run as root in containers), no
GPU, no QUIC, no first-run, background networking, component updates or sync; ``--proxy-server``
pointing at a closed local port, so an http(s) request fails rather than leaves the machine, and
host-resolver rules that answer every name "not found", so not even a DNS query does. Loopback
IPs are still reached directly (Chromium never proxies them unless told to), which is how the
``--serve`` page is fetched. A page whose plots render under these switches needs no network.

Chromium itself still tries a few of its own services (update checks, account lookups) even with
these switches; they die at the dead proxy, and ``page_requests`` leaves them out: the net log
marks them ``initiator: "not an origin"``, while a page's requests carry the page's origin.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Nothing listens on the discard port on loopback: a proxied request is refused at once.
DEAD_PROXY = "127.0.0.1:9"
BASE_SWITCHES = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio", "--disable-extensions",
                 "--disable-default-apps", "--no-pings", "--disable-domain-reliability", "--disable-breakpad",
                 "--disable-features=NetworkTimeServiceQuerying", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost")
LOCAL_PREFIXES = ("file:", "data:", "blob:", "about:", "chrome:", "chrome-extension:", "devtools:",
                  "http://127.0.0.1", "https://127.0.0.1", "http://localhost", "https://localhost", "http://[::1]")


class BrowserError(RuntimeError):
    """Chromium is missing, or it failed or timed out on a page."""


def find_chromium() -> str | None:
    """The Chromium binary: ``$CHROMIUM`` if set, else the first of ``CANDIDATES`` on PATH."""
    if os.environ.get("CHROMIUM"):
        return os.environ["CHROMIUM"]
    return next((path for path in map(shutil.which, CANDIDATES) if path), None)


def page_url(target: str) -> str:
    """A URL as is, a file path as ``file://`` (absolute)."""
    return target if "://" in target else Path(target).resolve().as_uri()


def run_chromium(target: str, switches: list[str], *, timeout: float = 90.0,
                 net_log: str | None = None) -> subprocess.CompletedProcess:
    """Run Chromium once on ``target`` with the offline switches plus ``switches``; stdout is the result."""
    binary = find_chromium()
    if binary is None:
        raise BrowserError("Chromium not found: install Debian's `chromium` package (apt-get install -y chromium) "
                           "or set $CHROMIUM")
    with tempfile.TemporaryDirectory(prefix="codemix-chromium-") as profile:
        command = [binary, *BASE_SWITCHES, f"--user-data-dir={profile}", f"--proxy-server={DEAD_PROXY}",
                   *([f"--log-net-log={net_log}"] if net_log else []), *switches, page_url(target)]
        try:
            done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as error:
            raise BrowserError(f"Chromium timed out after {timeout:.0f}s on {target}") from error
    if done.returncode != 0:
        raise BrowserError(f"Chromium exited {done.returncode} on {target}: {done.stderr.strip()[-2000:]}")
    return done


def dump_dom(target: str, *, budget_ms: int = 10_000, timeout: float = 90.0, net_log: str | None = None) -> str:
    """The serialised DOM once the page's scripts ran for ``budget_ms`` of virtual time."""
    done = run_chromium(target, [f"--virtual-time-budget={budget_ms}", "--dump-dom"], timeout=timeout,
                        net_log=net_log)
    if not done.stdout.strip():  # Chromium exits 0 when the page itself failed to load
        failed = [line for line in done.stderr.splitlines() if "Page load failed" in line]
        raise BrowserError(f"Chromium loaded nothing from {target}: {(failed or ['no DOM'])[-1].strip()}")
    return done.stdout


def screenshot(target: str, png: str, *, width: int = 1400, height: int = 3000, budget_ms: int = 10_000,
               timeout: float = 90.0) -> str:
    """A PNG of the first ``width`` × ``height`` pixels of the page; returns ``png``."""
    os.makedirs(os.path.dirname(os.path.abspath(png)), exist_ok=True)
    if os.path.exists(png):
        os.remove(png)
    run_chromium(target, [f"--virtual-time-budget={budget_ms}", f"--screenshot={os.path.abspath(png)}",
                          f"--window-size={width},{height}"], timeout=timeout)
    if not os.path.exists(png):
        raise BrowserError(f"Chromium ran but wrote no screenshot to {png}")
    return png


def rendered_plots(dom: str) -> int:
    """How many plotly SVG layers the DOM holds (each drawn figure has at least one ``main-svg``)."""
    return dom.count('class="main-svg"')


def page_requests(net_log: str) -> list[str]:
    """URLs the page (not Chromium's own services) requested that are not local: file, data, loopback."""
    with open(net_log, encoding="utf-8") as handle:
        log = json.load(handle)
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = []
    for event in log["events"]:
        params = event.get("params", {})
        if event["type"] == start_job and "url" in params and params.get("initiator") != "not an origin":
            urls.append(params["url"])
    return [url for url in urls if not url.startswith(LOCAL_PREFIXES)]
