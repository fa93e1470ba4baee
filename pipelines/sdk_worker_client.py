"""The command FnApiRunner runs for each SDK worker inside ``sdk_workers.forked_workers()``: it asks the
fork server to fork a worker with this process's environment, directory, blocked signals and standard
streams, and ends as the worker ends.

Only the standard library: ``sdk_workers`` runs this file by its path as ``python -I -S FILE PATH``, so
a client (one per worker of every pipeline of a build) starts without ``site`` or the codemix package
(~0.02 CPU s each instead of ~0.04; bench/RESULTS.md, issue 49, round 11). The wire format lives here
and the server imports it.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys

LENGTH = struct.Struct("<I")  # the request's size, sent with the client's standard streams
STATUS = struct.Struct("<i")  # the worker's exit status (negative: the signal that ended it)


def receive_exactly(connection: socket.socket, size: int) -> bytes:
    chunks, remaining = [], size
    while remaining:
        chunk = connection.recv(remaining)
        if not chunk:
            raise OSError("the client closed its connection mid-request")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def connect(path: str) -> int:
    """Asks the server to fork a worker with this process's environment, directory, blocked signals and
    standard streams; waits for it and returns its exit status. Killing this process kills the worker."""
    blocked = sorted(int(signum) for signum in signal.pthread_sigmask(signal.SIG_BLOCK, []))
    request = json.dumps({"env": dict(os.environ), "cwd": os.getcwd(), "blocked": blocked}).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(path)
        socket.send_fds(connection, [LENGTH.pack(len(request))], [0, 1, 2])
        connection.sendall(request)
        status = receive_exactly(connection, STATUS.size)
    (code,) = STATUS.unpack(status)
    if code < 0:  # ended by a signal: end the same way, as the worker's own process would have
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -I -S sdk_worker_client.py PATH", file=sys.stderr)
        return 2
    try:
        return connect(argv[0])
    except OSError as error:
        print(f"codemix SDK worker client: the fork server at {argv[0]} is gone ({error})", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
