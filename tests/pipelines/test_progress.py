"""Long stages log records/s, MB/s and an ETA, and report counts that the driver's display sums."""

from __future__ import annotations

import io
import logging
import os
import re
import subprocess
import sys
import time

import pytest

from codemix.pipelines import progress
from codemix.pipelines.options import worker_count
from codemix.pipelines.progress import BuildDisplay, Progress, RateWindow, eta_text


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


STAGES = ["crawl", "filter", "tokenizer", "dedup", "repo_dedup", "shards"]


def screen(width: int, clock=time.monotonic) -> list[str]:
    """The bars of a build half-way through dedup, drawn on a terminal ``width`` columns wide."""
    from rich.console import Console

    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=True)
    display = BuildDisplay(STAGES, live=True, console=console, clock=clock)
    with display.stage("crawl", expected=123_456, step="read", unit="records"):
        display._show({"read": (65_432, 987_654_321), "crawl": (60_000, 0)}, "read", "records")
    with display.stage("dedup", expected=50_000, step="read", status_logger="codemix.pipelines.dedup"):
        display._show({"read": (23_456, 12_345_678), "signed": (20_000, 0)}, "read", "docs")
        logging.getLogger("codemix.pipelines.dedup").info("components pass 2: 1,234 nodes left; dedup, non-star nodes after 4 rounds")
        out = Console(file=io.StringIO(), width=width, color_system=None)
        out.print(display.bars.get_renderable())
    display.close()
    return out.file.getvalue().splitlines()


@pytest.mark.parametrize("width, numbers", [
    (80, ["65.4k records 988MB", "60.0k kept", "23.5k docs 12MB", "20.0k signed"]),
    (160, ["65,432 records, 987.7 MB, 60,000 kept", "23,456 docs, 12.3 MB, 20,000 signed"]),
])
def test_bars_and_numbers_stay_whole_at_80_and_160_columns(width, numbers):
    lines = screen(width)
    text = "\n".join(lines)
    assert all(len(line) <= width for line in lines), [len(line) for line in lines]
    assert text.count("━") >= 15, text  # both bars drawn, not squeezed away
    for number in numbers:
        assert number in text, (number, text)
    assert not re.search(r"[\d,.]…", text), text  # no number cut
    assert "[4/6] dedup" in text and "[1/6] crawl" in text and "components pass 2: 1,234 nodes left" in text
    if width == 80:
        assert all(len(line) >= 70 for line in lines if "━" in line)  # the line is used, not wrapped


def test_the_eta_follows_the_recent_rate_on_a_synthetic_clock():
    """A stage of 10,000 records: 2 s of start-up with nothing done, a 2,000-record burst in the next
    second (a cache, small bundles), then a steady 100 records/s. The true time left at t is
    (10,000 - done) / 100 once steady; the ETA must be within 10% of it after the window has seen
    only the steady part, and say nothing before it spans ETA_MIN_SPAN_SECONDS."""
    def done_at(t: float) -> int:
        if t < 2:
            return 0
        if t < 3:
            return int(2000 * (t - 2))
        return min(10_000, 2000 + int(100 * (t - 3)))

    window = RateWindow()
    window.add(0.0, 0)
    window.add(1.0, 0)
    assert window.eta(10_000) is None  # too early to say
    naive = None
    for step in range(4, 4 * 60):
        t = step / 4
        window.add(t, done_at(t))
        if t == 8.0:
            naive = (10_000 - done_at(t)) / (done_at(t) / t)  # the rate since the start
    t = 60.0
    true_left = (10_000 - done_at(t)) / 100
    assert abs(window.eta(10_000) - true_left) / true_left < 0.10
    assert naive < 0.5 * (10_000 - done_at(8.0)) / 100  # what a since-the-start rate said at 8 s: far too soon
    window.add(200.0, done_at(59.75))  # a stall: no progress for the whole window
    assert window.eta(10_000) is None


def test_the_display_shows_the_window_eta():
    now = [0.0]
    from rich.console import Console

    console = Console(file=io.StringIO(), width=120, force_terminal=True)
    display = BuildDisplay(["crawl"], live=True, console=console, clock=lambda: now[0])
    with display.stage("crawl", expected=1000, step="read", unit="records"):
        for second in range(11):
            now[0] = float(second)
            display._show({"read": (50 * second, 0)}, "read", "records")
        task = display.bars.tasks[0]
        assert task.fields["eta"] == "ETA 0m10s"  # 500 left at 50/s
    display.close()


def test_eta_text_rounds_without_sixty_seconds():
    assert eta_text(59.6) == "1m00s" and eta_text(None) == "--"


def test_the_dedup_summary_fits_80_columns_and_long_statuses_are_abbreviated_not_cut():
    """The dedup stage's last status was its result's repr, whose first word alone filled the narrow
    status line at 80 columns (``dedup:…``). Its summary now fits whole; any longer status is shortened
    (counts in k/M, long words abbreviated) before it is cut, and no number is cut."""
    from rich.console import Console

    from codemix.dedup.stage import DedupResult
    from codemix.pipelines.dedup.deduplicate import progress_summary
    from codemix.pipelines.progress import abbreviate

    result = DedupResult(documents_in=123_456, kept=100_000, exact_duplicates=12_345, near_duplicates=11_111,
                         previous_duplicates=0, component_passes=2, candidate_pairs=45_678, verified_pairs=40_000,
                         rejected_pairs=5_678)
    console = Console(file=io.StringIO(), width=80, color_system=None, force_terminal=True)
    display = BuildDisplay(STAGES, live=True, console=console)
    with display.stage("dedup", expected=123_456, step="read", status_logger="codemix.pipelines.dedup"):
        display._show({"read": (123_456, 9_876_543)}, "read", "docs")
        logging.getLogger("codemix.pipelines.dedup").info("%s; %s", progress_summary(result), result)
        status = display.bars.tasks[0].fields["status"]
        out = Console(file=io.StringIO(), width=80, color_system=None)
        out.print(display.bars.get_renderable())
    display.close()
    lines = out.file.getvalue().splitlines()
    assert display.layout.status == 36 and status == "dedup: kept 100,000 of 123,456"
    assert status in "\n".join(lines) and all(len(line) <= 80 for line in lines)
    long = f"dedup: {result}"
    assert abbreviate(long, 60) == "dedup: docs in 123k, kept 100k, exact dups 12.3k, near…"
    assert abbreviate(long, len(long)) == long  # what fits is left as it is


def test_a_short_stage_shows_an_eta_once_it_has_a_rate():
    """A stage of 2 s (a small build's): an ETA from the second poll on, not ``--`` throughout."""
    from rich.console import Console

    now = [0.0]
    display = BuildDisplay(["crawl"], live=True, console=Console(file=io.StringIO(), width=120, force_terminal=True),
                           clock=lambda: now[0])
    shown = []
    with display.stage("crawl", expected=1000, step="read", unit="records"):
        for poll in range(8):  # every POLL_SECONDS, 500 records/s
            now[0] = poll * progress.POLL_SECONDS
            display._show({"read": (int(500 * now[0]), 0)}, "read", "records")
            shown.append(display.bars.tasks[0].fields["eta"])
    display.close()
    assert shown[0] == shown[1] == "ETA --"  # one sample, then a quarter second: no rate yet
    assert shown[2:] == [f"ETA {eta_text((1000 - 500 * p * progress.POLL_SECONDS) / 500)}" for p in range(2, 8)]
