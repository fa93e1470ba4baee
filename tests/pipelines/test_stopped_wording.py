"""What an interrupted build says is what --out holds: a finished build untouched (a Ctrl-C during an
up-to-date rerun once said "nothing was finished yet"), the stages this run committed (what the
rerun reuses), or that none had finished; "resume with" only when something is kept."""

from __future__ import annotations

from codemix.pipelines.interrupts import worded
from codemix.pipelines.stopped import stopped_paragraph


def test_the_wording_follows_what_the_folder_holds(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    command = f"mix build spec.yaml --out {out}"
    assert stopped_paragraph("interrupted", str(out), command) == f"interrupted: no stage had finished; rerun: {command}"
    (out / "manifest.json").write_text("{}")
    assert stopped_paragraph("interrupted", str(out), command) == (
        f"interrupted: the finished build in {out} is untouched; rerun: {command}")
    assert stopped_paragraph("interrupted", str(out), command, ["crawl", "filter"]) == (
        f"interrupted: the finished build in {out} is untouched; finished stages are kept in {out}/work "
        f"(crawl, filter); resume with: {command}")


def test_sigterm_is_not_called_an_interrupt():
    import signal

    assert worded("interrupted: no stage had finished", signal.SIGTERM) == "stopped by SIGTERM: no stage had finished"
    assert worded("interrupted: no stage had finished", signal.SIGINT) == "interrupted: no stage had finished"
