"""Record a command's terminal as an asciinema v2 ``.cast`` file, under a pty of a given size.

    .venv/bin/python bench/recordings/record_cast.py --cols 80 --rows 30 --out bench/recordings/build-80.cast \\
        -- .venv/bin/mix build examples/demo.yaml --out out/rec-80

The command runs with its stdin, stdout and stderr on the pty's slave end, so it sees a terminal
of ``cols`` x ``rows`` (``TIOCSWINSZ``) as a person's would be; every chunk it writes is one ``"o"``
event with its time since the start (https://docs.asciinema.org/manual/asciicast/v2/). Replay with
``asciinema play FILE``, or ``python bench/recordings/record_cast.py --screen FILE`` for the last
screen as text (through tmux, at the recorded size).
"""

from __future__ import annotations

import argparse
import codecs
import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time


def record(command: list[str], cols: int, rows: int, out: str, title: str) -> int:
    """Run ``command`` on a fresh pty of ``cols`` x ``rows``, writing what it prints to ``out``; its exit status."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(cols), "LINES": str(rows)}
    start = time.monotonic()
    process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    with open(out, "w", encoding="utf-8") as cast:
        header = {"version": 2, "width": cols, "height": rows, "timestamp": int(time.time()), "title": title,
                  "env": {"TERM": env["TERM"], "SHELL": os.environ.get("SHELL", "/bin/bash")}}
        cast.write(json.dumps(header) + "\n")
        while True:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the slave side closed
                break
            if not chunk:
                break
            text = decoder.decode(chunk)
            if text:
                cast.write(json.dumps([round(time.monotonic() - start, 6), "o", text]) + "\n")
    os.close(master)
    return process.wait()


def last_screen(cast_file: str) -> str:
    """The screen at the end of a recording, as tmux draws it at the recorded size."""
    with open(cast_file, encoding="utf-8") as handle:
        header = json.loads(handle.readline())
        output = "".join(json.loads(line)[2] for line in handle if line.strip())
    with tempfile.NamedTemporaryFile("w", suffix=".out", delete=False, encoding="utf-8") as raw:
        raw.write(output)
    session = f"cast-{os.getpid()}"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", str(header["width"]), "-y",
                    str(header["height"]), f"cat {raw.name}; sleep 30"], check=True)
    try:
        time.sleep(2)
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", session], check=True, capture_output=True,
                              text=True).stdout.rstrip() + "\n"
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)
        os.unlink(raw.name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cols", type=int, default=80)
    parser.add_argument("--rows", type=int, default=30)
    parser.add_argument("--out", help="the .cast file to write")
    parser.add_argument("--title", default="")
    parser.add_argument("--screen", metavar="CAST", help="print the last screen of a recording and exit")
    parser.add_argument("command", nargs="*")
    args = parser.parse_args(argv)
    if args.screen:
        sys.stdout.write(last_screen(args.screen))
        return 0
    return record(args.command, args.cols, args.rows, args.out, args.title or " ".join(args.command))


if __name__ == "__main__":
    sys.exit(main())
