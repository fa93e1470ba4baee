"""Resumable stages: a build killed at any point finishes on rerun, reusing what was finished.

Design notes: docs/design/pipelines.md, "pipelines/resume.py".
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import json
import os
import resource
import shutil
import time
import uuid
from collections.abc import Callable
from typing import Any

from apache_beam.io.filesystems import FileSystems

from codemix.pipelines import costs, jobs, ledger, sdk_workers

MARKER = "_COMPLETE.json"


def stage_key(previous: str, *parts: Any) -> str:
    """A stage's identity: the previous stage's key and the config that shapes this stage's output."""
    blob = json.dumps([previous, *[dataclasses.asdict(p) if dataclasses.is_dataclass(p) else p for p in parts]],
                      sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class MissingOutputs(RuntimeError):
    """A stage's pipeline succeeded, yet the files it must write are not where the driver looks."""


def new_attempt_name() -> str:
    """Sortable by start time, unique across machines and processes."""
    return f"attempt-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:8]}"


def committed_dir(stage_dir: str) -> str | None:
    """The folder of the attempt that ``stage_dir``'s marker commits, or None while none is."""
    marker = read_marker(stage_dir)
    if marker is None or "attempt" not in marker:
        return None
    return f"{stage_dir}/{marker['attempt']}"


def check_outputs(stage: str, attempt_dir: str, files: list[str], required: tuple[str, ...]) -> None:
    """Each pattern in ``required`` (a file name glob inside the attempt folder) names at least one file."""
    names = [path[len(attempt_dir) + 1:] for path in files]
    missing = [pattern for pattern in required if not fnmatch.filter(names, pattern)]
    if missing:
        raise MissingOutputs(
            f"stage {stage}'s pipeline finished, but {attempt_dir} holds no {', '.join(missing)} "
            f"({len(files)} file(s) in all). Its workers wrote where this machine cannot see: with a runner "
            "whose workers share no disk with this machine, give --out as gs://... or s3://...")


def remove_other_attempts(stage_dir: str, keep: str) -> None:
    """Everything under ``stage_dir`` but the marker and the ``keep`` attempt: earlier attempts, and
    files a failed attempt left; listed and deleted, on any filesystem (then, locally, the emptied folders)."""
    stale = [path for path in ledger.list_tree(stage_dir)
             if path[len(stage_dir) + 1:] != MARKER and not path[len(stage_dir) + 1:].startswith(f"{keep}/")]
    if stale:
        FileSystems.delete(stale)
    if "://" not in stage_dir:
        for entry in os.listdir(stage_dir):
            if entry != keep and os.path.isdir(os.path.join(stage_dir, entry)):
                shutil.rmtree(os.path.join(stage_dir, entry))


def write_atomically(path: str, data: bytes) -> None:
    temporary = f"{path}.tmp-{os.getpid()}"
    with FileSystems.create(temporary) as handle:
        handle.write(data)
    if FileSystems.exists(path):
        FileSystems.delete([path])
    FileSystems.rename([temporary], [path])


def read_marker(stage_dir: str) -> dict | None:
    path = f"{stage_dir}/{MARKER}"
    if not FileSystems.exists(path):
        return None
    with FileSystems.open(path) as handle:
        return json.loads(handle.read().decode())


class StageRunner:
    """Runs stages in order, skipping those a previous run of the same build finished. ``earlier``
    names that run in messages: "the interrupted run", or "the finished build" when one is there."""

    def __init__(self, work_dir: str, echo: Callable[[str], None], runner: str, *, reuse: bool,
                 force_from: str | None = None, earlier: str = "the interrupted run", done: list[str] | None = None):
        self.work_dir = work_dir
        self.echo = echo
        self.runner = runner
        self.reuse = reuse  # stays True only while every stage so far was reused
        self.force_from = force_from  # this stage and every later one run whatever their markers say
        self.timings: dict[str, float] = {}
        # CPU seconds of this process and of the local workers it started and reaped (FnApiRunner's
        # multi-process workers); a cluster's workers are not counted: their runner reports them.
        self.cpu_seconds: dict[str, float] = {}
        # Per stage and language: the bytes the stage took in and its documents' own CPU (``pipelines.costs``).
        self.stage_costs: dict[str, dict] = {}
        self.reused: list[str] = []
        self.earlier = earlier
        self.on_reuse: Callable[[str], None] | None = None  # e.g. the progress display's mark_reused
        self.last_bytes = 0  # what the last stage run or reused holds: about what the next one writes
        self.done = [] if done is None else done  # stages committed (run or reused) by this run, in order

    def run(self, name: str, key: str, fn: Callable[[str], Any], *, after: Callable[[str], None] | None = None,
            facts: dict | None = None, outputs: tuple[str, ...] = (),
            input_bytes: Callable[[], int] | None = None) -> Any:
        """``fn(attempt_dir)`` writes the stage's outputs and returns a JSON-able result; ``outputs`` are
        file name globs each of which the attempt must have written; ``after(attempt_dir)`` copies
        outputs that live outside the stage folder into place, before the marker is written. ``facts`` (JSON-able, part
        of ``key``) are kept in the marker to explain a later rerun. A write the system refuses raises
        ``stopped.WriteFailed`` with the attempt removed; ``input_bytes()`` then says what the stage reads
        (default: what the stage before it wrote), about what it needs."""
        stage_dir = f"{self.work_dir}/{name}"
        marker = read_marker(stage_dir)
        if name == self.force_from:
            self.reuse = False
        if self.reuse and marker is not None and marker["key"] == key and "attempt" in marker:
            self.echo(f"[{name}] reused from {self.earlier}")
            self.reused.append(name)
            self.last_bytes = sum(entry["bytes"] for entry in marker.get("files", []))
            self.done.append(name)
            if self.on_reuse is not None:
                self.on_reuse(f"reused from {self.earlier}")
            return marker["result"]
        if self.reuse and marker is not None:
            self.echo(f"[{name}] rerun: {changed_facts(marker.get('facts') or {}, facts or {}, self.earlier)}")
        self.reuse = False
        if marker is not None:  # uncommitted from here on: nothing reads the stage until it commits again
            FileSystems.delete([f"{stage_dir}/{MARKER}"])
        attempt = new_attempt_name()
        attempt_dir = f"{stage_dir}/{attempt}"
        FileSystems.mkdirs(attempt_dir)
        start, cpu_start = time.monotonic(), local_cpu_seconds()
        self.echo(f"[{name}] running on {self.runner} ...")
        try:
            # the build's worker server when there is one (``run_build``), else one of the stage's own
            with jobs.writing_into(attempt_dir), sdk_workers.forked_workers(shared=True), \
                    costs.collecting() as measured:
                result = fn(attempt_dir)
            files = self._commit(name, key, result, facts, attempt, outputs, after)
        except jobs.ServiceLost as lost:
            raise jobs.ServiceLost(f"stage {name}: {lost}") from None
        except Exception as error:
            from codemix.pipelines import stopped

            refused = stopped.write_error(error)
            if refused is None:
                raise
            needed = input_bytes() if input_bytes is not None else self.last_bytes
            raise stopped.write_failed(name, attempt_dir, self.work_dir.rsplit("/", 1)[0], refused, needed) from error
        self.timings[name] = round(time.monotonic() - start, 3)
        self.cpu_seconds[name] = round(local_cpu_seconds() - cpu_start, 3)
        self.stage_costs[name] = costs.as_seconds(measured)
        self.last_bytes = sum(entry["bytes"] for entry in files)
        self.done.append(name)
        self.echo(f"[{name}] done in {self.timings[name]:.1f}s")
        return result

    def _commit(self, name: str, key: str, result: Any, facts: dict | None, attempt: str,
                outputs: tuple[str, ...], after: Callable[[str], None] | None) -> list[dict]:
        """Check the attempt's outputs, place what lives outside it, write the marker; returns its file list."""
        stage_dir = f"{self.work_dir}/{name}"
        attempt_dir = f"{stage_dir}/{attempt}"
        files = ledger.list_tree(attempt_dir)
        check_outputs(name, attempt_dir, files, outputs)
        if after is not None:
            after(attempt_dir)
        listed = [{"path": path[len(attempt_dir) + 1:], "bytes": size}
                  for path, size in zip(files, ledger.file_sizes(files))]
        write_atomically(f"{stage_dir}/{MARKER}", json.dumps({
            "stage": name, "key": key, "result": result, "facts": facts, "attempt": attempt,
            "files": listed}).encode())
        remove_other_attempts(stage_dir, attempt)
        return listed


def local_cpu_seconds() -> float:
    """This process, the children it reaped, and the running worker server with the workers it reaped."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + sdk_workers.cpu_seconds()


def changed_facts(before: dict, now: dict, earlier: str = "the interrupted run") -> str:
    """Which of a stage's facts differ from those of the ``earlier`` run, in words."""
    changed = sorted(name for name in set(before) | set(now) if before.get(name) != now.get(name))
    if not changed:
        return f"its configuration changed since {earlier}"
    named = ["the code (codemix sources)" if name == "code" else
             f"the inputs of source {name.removeprefix('source:')}" if name.startswith("source:") else name
             for name in changed]
    return f"{', '.join(named)} changed since {earlier}"
