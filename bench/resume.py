"""Resume after a crash: a `mix build` SIGKILLed at 75% of a full build's time, then rerun.

Run from the repository root, as a module::

    .venv/bin/python -m bench.resume                    # 64 MB of Python, 2 workers (~4 min)
    .venv/bin/python -m bench.resume --megabytes 8 --results /tmp/RESULTS.md

The corpus and spec are ``bench.build``'s (a cached sample of ``*.py`` files, one directory source,
one ``short`` stage, default filters and dedup, the corpus's own tokenizer). Three runs, back to
back, each ``mix build SPEC --out DIR`` in its own process group:

  1. full: an uninterrupted build into a fresh directory; its wall time is T;
  2. killed: a fresh directory again, the whole process group SIGKILLed at ``--kill-at`` x T;
  3. rerun: the same command as 2, which finishes the job, reusing the stages 2 completed.

Reported: the rerun's wall time as a fraction of T, which stages the killed run had completed
(their ``_COMPLETE.json`` markers), and whether every shard (.bin/.idx) of the rerun is
byte-identical to the full build's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench import build
from bench import tokenize as common

BEGIN, END = "<!-- bench.resume: generated, begin -->", "<!-- bench.resume: generated, end -->"
logger = logging.getLogger("bench.resume")


def mix_build(spec: Path, out: Path, workers: int) -> list[str]:
    return [str(Path(sys.executable).parent / "mix"), "build", str(spec), "--out", str(out),
            *common.beam_args(workers)[1:]]


def timed_run(argv: list[str], log: Path, kill_after: float | None = None) -> tuple[float, int]:
    """(wall seconds, exit code) of ``argv`` in its own process group; SIGKILL the group after
    ``kill_after`` seconds when given (exit code -9 then)."""
    start = time.perf_counter()
    with log.open("w") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = process.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            code = process.wait()
    return time.perf_counter() - start, code


def shard_digests(out: Path) -> dict[str, str]:
    return {str(path.relative_to(out)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(out.rglob("*")) if path.suffix in (".bin", ".idx")}


def completed_stages(out: Path) -> list[str]:
    return sorted(marker.parent.name for marker in out.rglob("_COMPLETE.json"))


def run(args: argparse.Namespace) -> dict:
    roots = [root.resolve() for root in (args.roots or common.default_roots())]
    corpus_dir, info = build.corpus(roots, args.megabytes, args.workers)
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    spec = args.work / "spec.yaml"
    build.write_spec(corpus_dir, spec)
    full_out, resumed_out = args.work / "full", args.work / "resumed"
    load = [os.getloadavg()[0]]
    full_seconds, code = timed_run(mix_build(spec, full_out, args.workers), args.work / "full.log")
    if code != 0:
        raise RuntimeError(f"the full build failed ({code}); see {args.work / 'full.log'}")
    kill_after = args.kill_at * full_seconds
    killed_seconds, code = timed_run(mix_build(spec, resumed_out, args.workers), args.work / "killed.log", kill_after)
    if code != -signal.SIGKILL:
        raise RuntimeError(f"the build ended ({code}) before the kill at {kill_after:.1f} s; raise --megabytes")
    done_before_rerun = completed_stages(resumed_out)
    rerun_seconds, code = timed_run(mix_build(spec, resumed_out, args.workers), args.work / "rerun.log")
    if code != 0:
        raise RuntimeError(f"the rerun failed ({code}); see {args.work / 'rerun.log'}")
    load.append(os.getloadavg()[0])
    full, resumed = shard_digests(full_out), shard_digests(resumed_out)
    manifest = json.loads((full_out / "manifest.json").read_text())
    return {"info": info, "full_seconds": full_seconds, "kill_after": kill_after, "killed_seconds": killed_seconds,
            "rerun_seconds": rerun_seconds, "completed_before_rerun": done_before_rerun,
            "stage_seconds": manifest["timings_seconds"], "shards": len(full),
            "identical": bool(full) and full == resumed, "load": load}


def render(result: dict, args: argparse.Namespace, started: str) -> str:
    info = result["info"]
    stages = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in result["stage_seconds"].items())
    fraction = result["rerun_seconds"] / result["full_seconds"]
    return "\n".join([
        "## Resume: a build killed at 75%, then rerun",
        "",
        f"{started}; {common.machine()}; {common.versions()}.",
        (f"Corpus: {info['documents']:,} Python files, {info['bytes'] / 1e6:.1f} MB (bench.build's sample); "
        f"{args.workers} workers; command `.venv/bin/python -m bench.resume {' '.join(args.argv)}`."),
        "",
        "| run | wall s |",
        "|---|---:|",
        f"| full build (T) | {result['full_seconds']:.1f} |",
        f"| killed (SIGKILL to the process group at {args.kill_at:.2f} T) | {result['killed_seconds']:.1f} |",
        f"| rerun of the same command | {result['rerun_seconds']:.1f} |",
        "",
        (f"- rerun / full build = **{fraction:.2f}**; stages complete when killed: "
        f"{', '.join(result['completed_before_rerun']) or 'none'}; full build's stages: {stages}"),
        (f"- the rerun's {result['shards']} shard files (.bin/.idx) are byte-identical to the full build's: "
        f"**{'yes' if result['identical'] else 'NO'}**"),
        f"- 1-minute load average (2 cores) before → after: {result['load'][0]:.1f} → {result['load'][1]:.1f}",
        "",
    ])


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.resume", description=__doc__.split("\n\n")[0])
    parser.add_argument("--roots", type=Path, nargs="+", help="directories of .py files (default: stdlib + venv)")
    parser.add_argument("--megabytes", type=float, default=64, help="text to sample from the roots")
    parser.add_argument("--workers", type=int, default=2, help="Beam worker processes")
    parser.add_argument("--kill-at", type=float, default=0.75, help="fraction of the full build's time")
    parser.add_argument("--work", type=Path, default=build.CACHE / "resume", help="outputs of the three runs")
    parser.add_argument("--results", type=Path, default=build.BENCH / "RESULTS.md", help="where to write the section")
    args = parser.parse_args(argv)
    args.argv = argv
    return args


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    started = common.begin_run()
    result = run(args)
    logger.info("full %.1f s, rerun %.1f s, identical %s", result["full_seconds"], result["rerun_seconds"],
                result["identical"])
    common.write_section(args.results, render(result, args, started), BEGIN, END)
    logger.info("wrote %s", args.results)


if __name__ == "__main__":
    main(sys.argv[1:])
