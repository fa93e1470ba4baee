"""`mix dash --serve`: the page on localhost, rebuilt when new eval rows arrive, and stoppable."""

from __future__ import annotations

import json
import shutil
import time
import urllib.error
import urllib.request

import pytest

from codemix.dashboards import serve as serve_module
from codemix.dashboards.browser import dump_dom, rendered_plots
from codemix.dashboards.render import DashboardInputs
from codemix.dashboards.serve import DashboardServer
from tests.dashboards import fixtures

POLL_SECONDS = 0.2


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read()


def version(server: DashboardServer) -> dict:
    return json.loads(get(server.url + "version"))


@pytest.fixture
def inputs(tmp_path, build_dir, run_files) -> DashboardInputs:
    """Copies of the run files, so a test can append to them."""
    files = {name: tmp_path / path.name for name, path in run_files.items() if name != "tensorboard"}
    for name, path in files.items():
        shutil.copy(run_files[name], path)
    return DashboardInputs(builds=[str(build_dir)], eval_jsonl=[str(files["eval"])],
                           rl_results=[str(files["rl_jsonl"]), str(files["rl_csv"])],
                           tensorboard_dirs=[str(run_files["tensorboard"])], out_html=str(tmp_path / "live.html"),
                           target_ppl=2.5, n_boot=50)


def wait_for(condition, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def append_checkpoint(inputs: DashboardInputs, step: int) -> None:
    """A new evaluated checkpoint of run-a and its RL result, as training and RL would append them."""
    loss = fixtures.code_loss("run-a", step)
    with open(inputs.eval_jsonl[0], "a", encoding="utf-8") as handle:  # completes the half-written line first
        handle.write("\n" + json.dumps({"run_id": "run-a", "step": step, "tokens_seen": step * 10**6,
                                        "eval_set": "code", "loss_nats": loss, "bits_per_byte": loss}) + "\n")
    with open(inputs.rl_results[0], "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"run_id": "run-a", "step": step, "benchmark": "humaneval", "metric": "pass@1",
                                 "value": fixtures.humaneval("run-a", step)}) + "\n")


def humaneval_points(server: DashboardServer) -> int:
    fits = json.loads(get(server.url + "fits.json"))
    return next(f for f in fits["fits"] if f["benchmark"] == "humaneval")["n_points"]


def test_serves_the_page_with_its_refresh_script_on_loopback(inputs):
    with DashboardServer(inputs, poll_seconds=POLL_SECONDS) as server:
        assert server.url.startswith("http://127.0.0.1:")
        page = get(server.url).decode()
        assert 'fetch("/version"' in page and "var shown = 1;" in page
        assert version(server)["version"] == 1
    with open(inputs.out_html, encoding="utf-8") as handle:
        assert 'fetch("/version"' not in handle.read()  # the file on disk stays a plain offline page


def test_a_new_eval_row_rebuilds_the_page_under_a_new_version(inputs):
    with DashboardServer(inputs, poll_seconds=POLL_SECONDS) as server:
        before = humaneval_points(server)
        append_checkpoint(inputs, 600)
        assert wait_for(lambda: version(server)["version"] == 2), "the page was not rebuilt"
        assert humaneval_points(server) == before + 1
        assert "var shown = 2;" in get(server.url).decode()
        time.sleep(3 * POLL_SECONDS)
        assert version(server)["version"] == 2  # nothing changed since: no rebuild


def test_stop_closes_the_port(inputs):
    server = DashboardServer(inputs, poll_seconds=POLL_SECONDS)
    url = server.start()
    get(url)
    server.stop()
    with pytest.raises((urllib.error.URLError, ConnectionError)):
        get(url)
    assert not server.running


def test_a_failed_rebuild_keeps_the_last_page_and_reports_the_error(inputs, monkeypatch):
    with DashboardServer(inputs, poll_seconds=POLL_SECONDS) as server:
        page = get(server.url)

        def broken(*args, **kwargs):
            raise ValueError("bad input")

        monkeypatch.setattr(serve_module, "write_dashboard", broken)
        append_checkpoint(inputs, 700)
        assert wait_for(lambda: version(server)["error"] is not None)
        assert version(server) | {"generated": 0} == {"version": 1, "generated": 0, "error": "ValueError: bad input"}
        assert get(server.url) == page


def test_chromium_renders_the_served_page(chromium, inputs):
    with DashboardServer(inputs, poll_seconds=POLL_SECONDS) as server:
        dom = dump_dom(server.url)
    assert rendered_plots(dom) >= server.result.figures
    assert 'fetch("/version"' in dom
