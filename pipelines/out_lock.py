"""One build at a time per ``--out``: an exclusive lock that names its holder.

Two builds into one folder used to delete each other's attempts. ``hold(out)`` takes the lock
before any stage and keeps it until the build ends:

- a local ``--out``: ``OUT/.codemix-lock``, held with ``flock`` (the kernel drops it when the process
  ends, however it ends) and holding the holder's pid, host, start time and command;
- ``s3://``: a lease object ``OUT/.codemix-lock`` made with a conditional create (``If-None-Match: *``),
  renewed by a thread every third of its lease; one whose lease has expired is taken over with a
  conditional replace (``If-Match`` its ETag), so two builds cannot both take it;
- ``gs://``: the same lease, created with ``if_generation_match`` (GCS's conditional create).

A second build is refused with ``OutputLocked`` (one line naming the holder); a stale lock (its
process gone, or its lease expired) is taken over with a note.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from urllib.parse import urlsplit

LOCK_NAME = ".codemix-lock"
LOCK_SCHEMA = "codemix.lock/1"
LEASE_SECONDS = 120.0  # an object-store lease lasts this long unless renewed (every third of it)


class OutputLocked(RuntimeError):
    """Another build holds ``--out``; the message names it and what to do."""


@dataclass(frozen=True, slots=True)
class Holder:
    """Who holds the lock: what ``mix build`` writes into it."""

    pid: int
    host: str
    started: str  # UTC, ISO 8601
    command: str
    expires: float | None = None  # object stores: the lease's end (Unix time)

    def describe(self) -> str:
        return f"pid {self.pid} on {self.host}, started {self.started} ({self.command})"

    def to_json(self) -> bytes:
        return json.dumps({"schema": LOCK_SCHEMA, **asdict(self)}, sort_keys=True).encode()


def read_holder(data: bytes) -> Holder | None:
    """The holder a lock's bytes name; None for an empty or unreadable lock (a holder cut short)."""
    try:
        fields = json.loads(data.decode())
        return Holder(int(fields["pid"]), str(fields["host"]), str(fields["started"]), str(fields["command"]),
                      fields.get("expires"))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def this_holder(command: str, expires: float | None = None) -> Holder:
    started = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Holder(os.getpid(), socket.gethostname(), started, command[:200], expires)


def refusal(out: str, holder: Holder | None) -> OutputLocked:
    who = holder.describe() if holder else "a build whose lock is being written"
    return OutputLocked(f"{out} is being built by another mix build ({who}); wait for it to end, or give "
                        "another --out")


def stale_note(holder: Holder | None, why: str) -> str:
    who = holder.describe() if holder else "a build that left it empty"
    return f"note: took over the lock of {who}: {why}"


# --- local ---------------------------------------------------------------------------------------

def _hold_local(out: str, command: str, note: Callable[[str], None]) -> Callable[[], None]:
    """Take ``OUT/.codemix-lock`` with ``flock``; returns the release (which removes ``out`` again when
    it made it and nothing else was written there: a build refused in its preflight leaves no folder)."""
    made = not os.path.isdir(out)
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, LOCK_NAME)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = read_holder(os.pread(fd, 65536, 0))
            os.close(fd)
            raise refusal(out, holder) from None
        # A holder that released it between our open and our flock unlinked the file: lock the new one.
        with contextlib.suppress(FileNotFoundError):
            if os.fstat(fd).st_ino == os.stat(path).st_ino:
                break
        os.close(fd)
    left = os.pread(fd, 65536, 0)
    if left:  # a holder that ended without releasing (killed): the kernel dropped its flock
        holder = read_holder(left)
        note(stale_note(holder, "that process is no longer running"))
    os.ftruncate(fd, 0)
    os.pwrite(fd, this_holder(command).to_json(), 0)
    os.fsync(fd)

    def release() -> None:
        with contextlib.suppress(OSError):
            os.unlink(path)  # while still held: no one can have locked this inode meanwhile
        with contextlib.suppress(OSError):
            os.close(fd)
        if made:
            with contextlib.suppress(OSError):
                os.rmdir(out)  # only when empty

    return release


# --- object stores ---------------------------------------------------------------------------------

class _Lease:
    """A lease object on an object store: ``create`` (conditional), ``replace`` (if unchanged), ``read``, ``delete``."""

    def create(self, data: bytes) -> str | None: ...  # its version, or None when one exists
    def replace(self, data: bytes, version: str) -> str | None: ...  # new version, or None when changed
    def read(self) -> tuple[bytes, str] | None: ...
    def delete(self, version: str) -> None: ...


class _S3Lease(_Lease):
    def __init__(self, url: str, beam_args: list[str]):
        from codemix.pipelines.object_store import s3_client

        parts = urlsplit(url)
        self.client, self.bucket, self.key = s3_client(beam_args), parts.netloc, parts.path.lstrip("/")

    def _put(self, data: bytes, **condition) -> str | None:
        try:
            return self.client.put_object(Bucket=self.bucket, Key=self.key, Body=data, **condition)["ETag"]
        except Exception as error:
            if _status(error) in (409, 412):
                return None
            raise

    def create(self, data: bytes) -> str | None:
        return self._put(data, IfNoneMatch="*")

    def replace(self, data: bytes, version: str) -> str | None:
        return self._put(data, IfMatch=version)

    def read(self) -> tuple[bytes, str] | None:
        try:
            found = self.client.get_object(Bucket=self.bucket, Key=self.key)
        except Exception as error:
            if _status(error) == 404:
                return None
            raise
        return found["Body"].read(), found["ETag"]

    def delete(self, version: str) -> None:
        current = self.read()
        if current and current[1] == version:
            self.client.delete_object(Bucket=self.bucket, Key=self.key)


class _GCSLease(_Lease):
    def __init__(self, url: str):
        from google.cloud import storage

        parts = urlsplit(url)
        self.blob = storage.Client().bucket(parts.netloc).blob(parts.path.lstrip("/"))

    def _put(self, data: bytes, generation: int) -> str | None:
        from google.api_core.exceptions import PreconditionFailed

        try:
            self.blob.upload_from_string(data, if_generation_match=generation)
        except PreconditionFailed:
            return None
        return str(self.blob.generation)

    def create(self, data: bytes) -> str | None:
        return self._put(data, 0)

    def replace(self, data: bytes, version: str) -> str | None:
        return self._put(data, int(version))

    def read(self) -> tuple[bytes, str] | None:
        from google.api_core.exceptions import NotFound

        try:
            data = self.blob.download_as_bytes()
        except NotFound:
            return None
        return data, str(self.blob.generation)

    def delete(self, version: str) -> None:
        from google.api_core.exceptions import GoogleAPICallError

        with contextlib.suppress(GoogleAPICallError):
            self.blob.delete(if_generation_match=int(version))


def _status(error: Exception) -> int | None:
    return getattr(error, "response", {}).get("ResponseMetadata", {}).get("HTTPStatusCode")


def _lease_for(url: str, beam_args: list[str]) -> _Lease | None:
    scheme = urlsplit(url).scheme
    return _S3Lease(url, beam_args) if scheme == "s3" else _GCSLease(url) if scheme == "gs" else None


def _hold_lease(lease: _Lease, out: str, command: str, note: Callable[[str], None],
                lease_seconds: float) -> Callable[[], None]:
    """Create (or take over, once expired) the lease object; renew it until the release."""
    holder = this_holder(command, time.time() + lease_seconds)
    version = lease.create(holder.to_json())
    if version is None:
        found = lease.read()
        current = read_holder(found[0]) if found else None
        if found and current is not None and (current.expires or 0) > time.time():
            raise refusal(out, current)
        version = lease.replace(holder.to_json(), found[1]) if found else lease.create(holder.to_json())
        if version is None:  # another build took it over first
            raise refusal(out, read_holder((lease.read() or (b"", ""))[0]))
        note(stale_note(current, "its lease expired, so that build is no longer running"))
    stop = threading.Event()
    state = {"version": version}

    def renew() -> None:
        while not stop.wait(lease_seconds / 3):
            with contextlib.suppress(Exception):  # a missed renewal is retried; the lease outlasts two
                renewed = lease.replace(this_holder(command, time.time() + lease_seconds).to_json(), state["version"])
                if renewed:
                    state["version"] = renewed

    thread = threading.Thread(target=renew, name="codemix-lease", daemon=True)
    thread.start()

    def release() -> None:
        stop.set()
        with contextlib.suppress(Exception):
            lease.delete(state["version"])

    return release


@contextlib.contextmanager
def hold(out: str, beam_args: list[str], command: str, note: Callable[[str], None] = print, *,
         lease_seconds: float = LEASE_SECONDS) -> Iterator[Callable[[], None]]:
    """Hold ``out``'s lock for the block; raises ``OutputLocked`` when another build holds it. Yields
    the release, for an exit that leaves the block by ``os._exit`` (the interrupt handler)."""
    if "://" not in out:
        release = _hold_local(out, command, note)
    else:
        lease = _lease_for(f"{out.rstrip('/')}/{LOCK_NAME}", beam_args)
        if lease is None:
            note(f"note: no lock on {out}: its store offers no conditional create codemix uses (s3://, gs:// do); "
                 "do not start a second build into it")
            release = lambda: None
        else:
            release = _hold_lease(lease, out, command, note, lease_seconds)
    release = _once(release)
    try:
        yield release
    finally:
        release()


def _once(release: Callable[[], None]) -> Callable[[], None]:
    """``release`` that acts the first time only: a second unlink could remove the next holder's lock."""
    done = threading.Event()

    def release_once() -> None:
        if not done.is_set():
            done.set()
            release()

    return release_once
