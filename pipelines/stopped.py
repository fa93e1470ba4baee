"""What a build that stops early says: what it kept, what it removed, and how to go on.

An interrupt, a lost service and a failed write each end with one paragraph built here: whether a
finished build in ``--out`` is untouched, which stages this run finished or reused (committed, so the
rerun reuses them: ``pipelines.resume``), and the line that resumes. A write the operating system refused (no space
left, quota, file too large, read-only, I/O error) is recognised wherever Beam wrapped it
(``write_error``) and becomes ``WriteFailed``: the location, the space free there and about how much
the stage needs, and the unfinished attempt removed, so the space it took is free again.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
from dataclasses import dataclass

from codemix.pipelines import ledger

# What a write can be refused with by the operating system, as opposed to a bug or bad input.
WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO})
# How Python prints an OSError inside text (a worker's traceback that Beam relays as a RuntimeError).
_ERRNO_TEXT = re.compile(r"\[Errno (\d+)\] ([^:'\n\[\]]+)(?:: '([^'\n]+)')?")


@dataclass(frozen=True, slots=True)
class WriteError:
    """An operating system's refusal to write: its errno, its words and the file, when named."""

    number: int
    words: str
    filename: str | None


def write_error(error: BaseException) -> WriteError | None:
    """The refused write behind ``error``: an ``OSError`` among its causes, or one printed in its text
    (Beam relays a worker's exception as text); None when it is no such refusal."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in WRITE_ERRNOS:
            return WriteError(current.errno, current.strerror or os.strerror(current.errno),
                              str(current.filename) if current.filename else None)
        for match in _ERRNO_TEXT.finditer(str(current)):
            if int(match.group(1)) in WRITE_ERRNOS:
                return WriteError(int(match.group(1)), match.group(2).strip(), match.group(3))
        current = current.__cause__ or current.__context__
    return None


class WriteFailed(RuntimeError):
    """A stage (or the publish) could not write; the message is the paragraph the user reads."""


def size_text(n: float) -> str:
    for limit, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if n >= limit:
            return f"{n / limit:.1f} {unit}"
    return f"{n:.0f} B"


def free_space(location: str) -> tuple[int, int] | None:
    """(free bytes for this user, total bytes) of the filesystem holding ``location`` (local only)."""
    if "://" in location:
        return None
    path = os.path.abspath(location)
    while not os.path.exists(path) and path != os.path.dirname(path):
        path = os.path.dirname(path)
    with contextlib.suppress(OSError):
        stats = os.statvfs(path)
        return stats.f_bavail * stats.f_frsize, stats.f_blocks * stats.f_frsize
    return None


def local_bytes(paths: list[str]) -> int:
    """Bytes of the local files and folders among ``paths`` (what a crawl reads of them)."""
    total = 0
    for path in (p for p in paths if "://" not in p):
        if os.path.isfile(path):
            total += os.path.getsize(path)
        for folder, _, names in os.walk(path):
            for name in names:
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(folder, name)).st_size
    return total


def tree_bytes(folder: str) -> int:
    """Bytes of every file under ``folder`` (0 when there is none)."""
    with contextlib.suppress(Exception):
        files = ledger.list_tree(folder)
        return sum(ledger.file_sizes(files)) if files else 0
    return 0


def has_finished_build(out: str) -> bool:
    """A local ``out`` holds a finished build's manifest (a publish that was cut short deleted it
    first). An object store is not asked: after a fault it may be the service that is gone, and Beam's
    S3 filesystem retries for minutes; the paragraph then says nothing of a finished build."""
    return "://" not in out and os.path.isfile(f"{out.rstrip('/')}/manifest.json")


def what_is_left(out: str, kept: list[str]) -> str:
    """What ``out`` holds after a stop, in words; ``kept``: the stages this run finished or reused
    (committed: the rerun reuses them)."""
    out = out.rstrip("/")
    parts = [f"the finished build in {out} is untouched"] if has_finished_build(out) else []
    if kept:
        parts.append(f"finished stages are kept in {out}/work ({', '.join(kept)})")
    elif not parts:
        parts.append("no stage had finished")
    return "; ".join(parts)


def stopped_paragraph(word: str, out: str, command: str, kept: list[str] = (), notes: list[str] = ()) -> str:
    """``word: what is left[; notes]; resume with: COMMAND`` (``rerun:`` when no stage is kept)."""
    command = command or "the same mix build command"
    return "; ".join([f"{word}: {what_is_left(out, list(kept))}", *notes,
                      f"{'resume with' if kept else 'rerun'}: {command}"])


def write_failed(stage: str, attempt_dir: str, out: str, refused: WriteError, needed: int) -> WriteFailed:
    """Remove the unfinished ``attempt_dir`` and say, in one paragraph, where the write failed, the
    space free there and about how much the stage needs (``needed``: what it had written, or more)."""
    written = tree_bytes(attempt_dir)
    where = refused.filename or out
    space = free_space(where)  # before the removal: a file a worker still holds open frees its space only when closed
    with contextlib.suppress(Exception):
        ledger.remove_tree(attempt_dir)
    free = (f"; about {size_text(space[0] + written)} free of {size_text(space[1])} there once the attempt is "
            "gone") if space else ""
    need = max(needed, written)
    return WriteFailed(
        f"stage {stage} could not write {where}: {refused.words} (errno {errno.errorcode.get(refused.number, refused.number)})"
        f"{free}. It needs about {size_text(need)} free to finish (it had written {size_text(written)} when the "
        f"write failed, and a stage writes about as much as it reads). Its unfinished attempt {attempt_dir} was "
        "removed; free space there (or give another --out)")
