"""Long stages log records/s, MB/s and an ETA, and report counts that the driver's display sums."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

from codemix.pipelines import progress
from codemix.pipelines.options import worker_count
from codemix.pipelines.progress import BuildDisplay, Progress, eta_text


def test_progress_logs_rates_and_eta(monkeypatch, caplog):
    monkeypatch.setattr(progress, "LOG_EVERY_SECONDS", 0.0)
    step = Progress("filter", len, expected=1000, workers=2)
    step.setup()
    with caplog.at_level(logging.INFO, logger="codemix.progress"):
        passed = [out for element in ["abc"] * 10 for out in step.process(element)]
    assert passed == ["abc"] * 10
    last = caplog.records[-1].getMessage()
    assert last.startswith("[filter] 10 records (") and "MB/s" in last and "ETA" in last


def test_eta_and_worker_count():
    assert eta_text(75) == "1m15s" and eta_text(7200) == "2.0h" and eta_text(-5) == "0m00s"
    assert worker_count(["--direct_num_workers", "2"]) == 2 == worker_count(["--direct_num_workers=2"])
    assert worker_count(["--runner=FnApiRunner"]) == 1


def test_reports_from_several_processes_add_up_for_the_driver(tmp_path, monkeypatch):
    """What the display reads: each process's counts in its own file, summed per step."""
    monkeypatch.setenv(progress.ENV, str(tmp_path))
    script = ("from codemix.pipelines import progress\n"
              "for _ in range(5):\n    progress.report('read', 1, 10)\n"
              "progress.report('merged', 2)\nprogress.flush()\n")
    for _ in range(3):  # three worker processes, as multi_processing starts them
        subprocess.run([sys.executable, "-c", script], check=True, env={**os.environ, progress.ENV: str(tmp_path)})
    assert len(list(tmp_path.glob("*.json"))) == 3
    assert progress.read_reports(str(tmp_path)) == {"read": (15, 150), "merged": (6, 0)}


def test_without_a_folder_reports_are_not_written(tmp_path, monkeypatch):
    monkeypatch.delenv(progress.ENV, raising=False)
    progress.report("read", 1)
    progress.flush()
    assert progress.read_reports(str(tmp_path)) == {}


def test_the_display_off_a_terminal_prints_plain_lines_and_drives_the_environment():
    lines = []
    display = BuildDisplay(["crawl", "shards"], live=False, echo=lines.append)
    with display.stage("crawl", expected=10):
        folder = os.environ[progress.ENV]
        assert os.path.isdir(folder)
        display.echo("[crawl] done")
    assert progress.ENV not in os.environ and not os.path.exists(folder)
    assert lines == ["[crawl] done"]
    assert list(display.counted(range(3), label="training", total=3)) == [0, 1, 2]
