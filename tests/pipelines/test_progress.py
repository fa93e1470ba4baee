"""Long stages log records/s, MB/s and an ETA."""

from __future__ import annotations

import logging

from pipelines import progress
from pipelines.progress import Progress, eta_text, worker_count


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
