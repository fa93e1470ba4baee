"""The crawl of one large git repository among smaller ones, with one worker and with two (issue 32).

    python -m bench.git_split LARGE_GIT_DIR SMALL_GIT_DIR... [--rounds 3] [--files-per-part 5000]

Runs only the ``Crawl`` transform (read, redact; outputs counted) in a child process, on FnApiRunner
with ``--direct_running_mode multi_processing``, so each worker is its own process and its peak RSS
is polled from outside (``bench.measure``). Three settings per round: one worker reading each
repository whole; two workers with each repository one part (what the crawl did before: with as many
locations as workers, a repository is read by one worker whatever its size); two workers with the
large repository split into parts of ``--files-per-part`` tree entries. Prints one JSON line per run:
wall seconds, and per worker process its peak RSS and CPU seconds (the busiest worker's CPU is the
crawl's critical path on a machine with a core per worker, whatever else the machine is running).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from bench.measure import run_polled

CHILD = r"""
import json, sys, time
import apache_beam as beam
from codemix.filters.secrets import RedactionConfig
from codemix.pipelines.crawl import Crawl
from codemix.pipelines.options import pipeline_options, worker_count
from codemix.sources import SourceConfig
out, files_per_part, paths, beam_args = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), sys.argv[4:]
source = SourceConfig(name="repos", type="git", paths=paths, files_per_part=files_per_part, license="MIT")
source.validate("sources[0]")
start = time.perf_counter()
with beam.Pipeline(options=pipeline_options(beam_args)) as pipeline:
    outputs = pipeline | "Crawl" >> Crawl([source], RedactionConfig(), worker_count(beam_args))
    counts = [outputs[tag] | f"Count{tag}" >> beam.combiners.Count.Globally()
              | f"Label{tag}" >> beam.Map(lambda n, tag=tag: f"{tag}={n}") for tag in sorted(outputs)]
    counts | beam.Flatten() | beam.io.WriteToText(out, shard_name_template="")
print(json.dumps({"pipeline_s": round(time.perf_counter() - start, 1)}))
"""

SETTINGS = {  # name: (workers, files_per_part)
    "1 worker, whole repositories": (1, 10**9),
    "2 workers, one part per repository (before)": (2, 10**9),
    "2 workers, large repository split": (2, None),
}


def measured(paths: list[str], workers: int, files_per_part: int, work: Path) -> dict:
    argv = [sys.executable, "-c", CHILD, str(work / "counts.txt"), str(files_per_part), ",".join(paths),
            f"--direct_num_workers={workers}", "--direct_running_mode=multi_processing"]
    run = run_polled(argv, work / "log.txt")
    if run.code != 0:
        raise SystemExit(f"crawl failed ({run.code}): {(work / 'log.txt').read_text()[-2000:]}")
    # The SDK workers themselves (their /bin/sh launchers carry the same command line, at ~2 MB).
    workers = [pid for pid, rss in run.seen.peaks.items()
               if run.seen.labels.get(pid) == "Beam SDK worker" and rss > 50 * 2**20]
    return {"wall_s": round(run.wall, 1), "load": [round(x, 1) for x in run.load],
            "driver_peak_mb": round(run.seen.peaks.get(run.pid, 0) / 2**20),
            "worker_peaks_mb": sorted((round(run.seen.peaks[pid] / 2**20) for pid in workers), reverse=True),
            "worker_cpu_s": sorted((round(run.seen.cpu[pid], 1) for pid in workers), reverse=True),
            "counts": sorted((work / "counts.txt").read_text().split())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("large")
    parser.add_argument("small", nargs="*")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--files-per-part", type=int, default=5000)
    args = parser.parse_args()
    paths = [args.large, *args.small]
    for round_ in range(args.rounds):
        for name, (workers, files_per_part) in SETTINGS.items():
            with tempfile.TemporaryDirectory(prefix="codemix-split-") as tmp:
                row = measured(paths, workers, files_per_part or args.files_per_part, Path(tmp))
            print(json.dumps({"round": round_, "setting": name, **row}), flush=True)


if __name__ == "__main__":
    main()
