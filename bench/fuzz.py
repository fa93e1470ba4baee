"""Hostile input: how many fuzzed inputs the readers were given, and how many crashed or lost a record.

Run from the repository root, as a module::

    .venv/bin/python -m bench.fuzz                 # the hostile-input tests with 10x their examples
    .venv/bin/python -m bench.fuzz --scale 1 --results /tmp/RESULTS.md

It runs ``tests/pipelines/test_hostile_input.py`` (the same tests ``make test`` runs) with
``CODEMIX_FUZZ_SCALE`` multiplying every fuzz test's ``max_examples``, and reads Hypothesis's
statistics. Every fuzzed example asserts that the reader did not raise and that each record it was
given ended as exactly one storable outcome (kept, dropped with a reason, or quarantined with its
source and error), so a failing example is a crash or a lost record; the named cases (tar slip and
links, zip and gzip bombs, a 2 GiB line, invalid UTF-8, deep JSON, ...) are the file's other tests.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from bench import tokenize as common

BENCH = Path(__file__).resolve().parent
TESTS = "tests/pipelines/test_hostile_input.py"
BEGIN, END = "<!-- bench.fuzz: generated, begin -->", "<!-- bench.fuzz: generated, end -->"
logger = logging.getLogger("bench.fuzz")

_TEST = re.compile(r"^\S+::(test_\w+):\s*$")
_COUNTS = re.compile(r"(\d+) passing, (\d+) failing, and (\d+) invalid")
# pytest's last line; the fuzzed strings themselves contain lookalikes, so only the last match counts.
_SUMMARY = re.compile(r"^(?:=+ )?(\d+ (?:passed|failed)[^=]*) in [\d.]+s(?: \(.*\))?(?: =+)?$")


def parse_statistics(output: str) -> dict[str, tuple[int, int]]:
    """test name -> (passing, failing) examples, summed over its phases, from --hypothesis-show-statistics."""
    counts: dict[str, tuple[int, int]] = {}
    test = None
    for line in output.splitlines():
        if match := _TEST.match(line):
            test = match.group(1)
        elif test and (match := _COUNTS.search(line)):
            passing, failing = counts.get(test, (0, 0))
            counts[test] = (passing + int(match.group(1)), failing + int(match.group(2)))
    return counts


def render(counts: dict[str, tuple[int, int]], summary: str, code: int, args, started: str, wall: float) -> str:
    tried = sum(p + f for p, f in counts.values())
    failing = sum(f for _, f in counts.values())
    lines = [
        "## Hostile input: fuzzed readers",
        "",
        (f"{started}; {common.machine()}; command `.venv/bin/python -m bench.fuzz {' '.join(args.argv)}` "
         f"(`{TESTS}` with `CODEMIX_FUZZ_SCALE={args.scale}`), {wall:.0f} s."),
        "",
        "| fuzz test | inputs tried | failing (crash or lost record) |",
        "|---|---:|---:|",
    ]
    lines += [f"| `{name}` | {p + f:,} | {f} |" for name, (p, f) in sorted(counts.items())]
    lines += [
        f"| **all** | **{tried:,}** | **{failing}** |",
        "",
        (f"pytest: {summary} (exit {code}). Each fuzzed input asserts that the reader did not raise and "
         "that every record in it ended as exactly one storable outcome (kept, dropped with a reason or "
         "quarantined with its location and error): a failing input is a crash or a lost record. The "
         "file's other tests are the named cases: tar `../` and absolute paths, symlinks and hard links "
         "(refused, nothing extracted), zip and gzip bombs, a 2 GiB line, invalid UTF-8, deeply nested "
         "JSON, truncated zstd, corrupt tar headers."),
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=10, help="multiplies every fuzz test's max_examples")
    parser.add_argument("--results", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args(argv)
    args.argv = argv
    started = common.begin_run()
    command = [sys.executable, "-m", "pytest", TESTS, "-q", "-p", "no:cacheprovider", "--hypothesis-show-statistics",
               "-o", "timeout=0"]
    begin = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True, check=False,  # a failure is reported, then exits
                         env={**os.environ, "CODEMIX_FUZZ_SCALE": str(args.scale)})
    wall = time.perf_counter() - begin
    counts = parse_statistics(run.stdout)
    summaries = [m.group(1) for m in map(_SUMMARY.match, run.stdout.splitlines()) if m]
    summary = summaries[-1] if summaries else "no summary line"
    if not counts:
        raise RuntimeError(f"no Hypothesis statistics in the pytest output:\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
    common.write_section(args.results, render(counts, summary, run.returncode, args, started, wall), BEGIN, END)
    logger.info("%d fuzzed inputs, %d failing; pytest: %s", sum(p + f for p, f in counts.values()),
                sum(f for _, f in counts.values()), summary)
    if run.returncode != 0:
        sys.exit(run.returncode)


if __name__ == "__main__":
    main(sys.argv[1:])
