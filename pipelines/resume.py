"""Resumable stages: a build killed at any point finishes on rerun, reusing what was finished.

Each stage writes into ``work/STAGE.partial``; when its pipeline has succeeded the folder is renamed
to ``work/STAGE`` and only then is ``work/STAGE/_COMPLETE.json`` written, holding the stage's key
(a hash of everything that shapes its output, chained to the previous stage's key) and its result.
What shapes the output is the config and also what it read: the build puts fingerprints of every
input location and of the code into the keys (``pipelines.fingerprints``), so a build resumed
after its inputs or codemix changed reruns instead of reusing stale stages; the facts behind a key
are kept in the marker, so a rerun can say which of them changed.
A rerun skips a stage whose marker holds the same key, as long as every stage before it was skipped
too; anything half-written is removed and redone. FnApiRunner does not retry failed bundles, so this
is where a local build gets its fault tolerance (peers do the same with per-task markers).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import time
from collections.abc import Callable
from typing import Any

from apache_beam.io.filesystems import FileSystems

from pipelines import ledger

MARKER = "_COMPLETE.json"


def stage_key(previous: str, *parts: Any) -> str:
    """A stage's identity: the previous stage's key and the config that shapes this stage's output."""
    blob = json.dumps([previous, *[dataclasses.asdict(p) if dataclasses.is_dataclass(p) else p for p in parts]],
                      sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def publish(partial: str, final: str) -> None:
    """Move a finished stage's folder into place (one rename locally; file by file on object stores)."""
    ledger.remove_tree(final)
    if "://" not in partial:
        os.replace(partial, final)
        return
    sources = [m.path for m in FileSystems.match([f"{partial}/**"])[0].metadata_list]
    FileSystems.rename(sources, [final + path[len(partial):] for path in sources])


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
    """Runs stages in order, skipping those a previous, interrupted run of the same build finished."""

    def __init__(self, work_dir: str, echo: Callable[[str], None], runner: str, *, reuse: bool,
                 force_from: str | None = None):
        self.work_dir = work_dir
        self.echo = echo
        self.runner = runner
        self.reuse = reuse  # stays True only while every stage so far was reused
        self.force_from = force_from  # this stage and every later one run whatever their markers say
        self.timings: dict[str, float] = {}
        self.reused: list[str] = []
        self.on_reuse: Callable[[], None] | None = None  # e.g. the progress display's mark_reused

    def run(self, name: str, key: str, fn: Callable[[str], Any], *, after: Callable[[], None] | None = None,
            facts: dict | None = None) -> Any:
        """``fn(partial_dir)`` writes the stage's outputs and returns a JSON-able result; ``after`` moves
        outputs that live outside the stage folder into place, before the marker is written. ``facts``
        (JSON-able, part of ``key``) are kept in the marker to explain a later rerun."""
        final, partial = f"{self.work_dir}/{name}", f"{self.work_dir}/{name}.partial"
        marker = read_marker(final)
        if name == self.force_from:
            self.reuse = False
        if self.reuse and marker is not None and marker["key"] == key:
            self.echo(f"[{name}] reused: finished by an earlier run of this build")
            self.reused.append(name)
            if self.on_reuse is not None:
                self.on_reuse()
            return marker["result"]
        if self.reuse and marker is not None:
            self.echo(f"[{name}] rerun: {changed_facts(marker.get('facts') or {}, facts or {})}")
        self.reuse = False
        ledger.remove_tree(partial)
        ledger.remove_tree(final)
        FileSystems.mkdirs(partial)
        start = time.monotonic()
        self.echo(f"[{name}] running on {self.runner} ...")
        result = fn(partial)
        publish(partial, final)
        if after is not None:
            after()
        self.timings[name] = round(time.monotonic() - start, 3)
        write_atomically(f"{final}/{MARKER}", json.dumps({"stage": name, "key": key, "result": result,
                                                          "facts": facts}).encode())
        self.echo(f"[{name}] done in {self.timings[name]:.1f}s")
        return result


def changed_facts(before: dict, now: dict) -> str:
    """Which of a stage's facts differ from the interrupted run's, in words."""
    changed = sorted(name for name in set(before) | set(now) if before.get(name) != now.get(name))
    if not changed:
        return "its configuration changed since the interrupted run"
    named = ["the code (codemix sources)" if name == "code" else
             f"the inputs of source {name.removeprefix('source:')}" if name.startswith("source:") else name
             for name in changed]
    return f"{', '.join(named)} changed since the interrupted run"
