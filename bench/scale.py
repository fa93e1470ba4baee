"""Scaling of the whole `mix build`: wall time and peak RSS per process at x1, x4 and x16.

Run from the repository root, as a module::

    .venv/bin/python -m bench.scale                              # 16, 64, 256 MB of Python (~10 min)
    .venv/bin/python -m bench.scale --base-megabytes 4 --results /tmp/RESULTS.md
    .venv/bin/python -m bench.pypi_corpus                        # 1.3 GB more Python, from PyPI, then:
    .venv/bin/python -m bench.scale --base-megabytes 64 \
        --roots "$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')" \
        .venv/lib/python3.11/site-packages bench/.cache/pypi_py        # 64 MB, 256 MB, 1 GB (~25 min)

Each size is ``bench.build``'s corpus of that many MB (distinct ``*.py`` files under the roots,
by default the stdlib and the virtualenv, each size a superset sample of the same files in
document-id order) and its spec
(one directory source, one ``short`` stage, default filters and dedup, the corpus's own
tokenizer). Each build runs in a child process tree polled every 0.1 s for RSS: the driver
(FnApiRunner, which holds every shuffle it runs itself) and each Beam SDK worker are reported apart.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import sys
from pathlib import Path

from bench import build
from bench import tokenize as common
from bench.measure import run_polled

BEGIN, END = "<!-- bench.scale: generated, begin -->", "<!-- bench.scale: generated, end -->"
logger = logging.getLogger("bench.scale")


def measured_build(corpus_dir: Path, work: Path, workers: int) -> dict:
    """One `mix build` in a child: wall, CPU, peak RSS of the driver and of the largest worker, stages."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    build.write_spec(corpus_dir, work / "spec.yaml")
    argv = [str(Path(sys.executable).parent / "mix"), "build", str(work / "spec.yaml"), "--out", str(work / "out"),
            *common.beam_args(workers)[1:]]
    run = run_polled(argv, work / "log.txt")
    if run.code != 0:
        raise RuntimeError(f"mix build exited with {run.code}; see {work / 'log.txt'}")
    manifest = json.loads((work / "out" / "manifest.json").read_text())
    peaks = run.seen.peaks
    return {"wall_seconds": run.wall, "cpu_seconds": sum(run.seen.cpu.values()), "driver_rss": peaks.get(run.pid, 0),
            "worker_rss": max((rss for pid, rss in peaks.items() if pid != run.pid), default=0),
            "tree_rss": run.seen.tree_peak, "load": run.load,
            "stages": manifest["timings_seconds"], "kept": manifest["counts"]["kept"],
            "tokens": manifest["stages"]["short"]["tokens"]}


def render(rows: list[tuple[int, dict, dict]], args: argparse.Namespace, started: str, roots: list[Path]) -> str:
    stage_names = list(rows[0][2]["stages"])
    lines = [
        "## Scaling: the whole `mix build` at x1, x4, x16",
        "",
        f"{started}; {common.machine()}; {common.versions()}.",
        (f"Corpora: bench.build's samples of distinct `*.py` files under {', '.join(f'`{r}`' for r in roots)}, "
         f"in document-id order, base {args.base_megabytes:g} MB; "
         f"{args.workers} workers (FnApiRunner, multi_processing); default filters and dedup; "
         f"command `.venv/bin/python -m bench.scale {' '.join(args.argv)}`. RSS polled every 0.1 s."),
        "",
        "| size | files | MB | wall s | s per MB | CPU s | kept | tokens | driver peak RSS MB | largest worker peak RSS MB | tree peak MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for factor, info, result in rows:
        megabytes = info["bytes"] / 1e6
        lines.append(
            f"| x{factor} | {info['documents']:,} | {megabytes:.1f} | {result['wall_seconds']:.1f} | "
            f"{result['wall_seconds'] / megabytes:.2f} | {result['cpu_seconds']:.1f} | {result['kept']:,} | "
            f"{result['tokens']:,} | {result['driver_rss'] / 1e6:,.0f} | {result['worker_rss'] / 1e6:,.0f} | "
            f"{result['tree_rss'] / 1e6:,.0f} |")
    lines += ["", "Stage seconds:", "", "| size | " + " | ".join(stage_names) + " |",
              "|---|" + "---:|" * len(stage_names)]
    for factor, _, result in rows:
        lines.append(f"| x{factor} | " + " | ".join(f"{result['stages'].get(name, 0):.1f}" for name in stage_names)
                     + " |")
    loads = ", ".join(f"x{factor} {r['load'][0]:.1f} → {r['load'][1]:.1f}" for factor, _, r in rows)
    lines += ["", f"1-minute load average (2 cores) before → after: {loads}.", ""]
    return "\n".join(lines)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--roots", type=Path, nargs="+", help="directories of .py files (default: stdlib + venv)")
    parser.add_argument("--base-megabytes", type=float, default=16, help="the x1 corpus")
    parser.add_argument("--factors", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--work", type=Path, default=build.CACHE / "scale")
    parser.add_argument("--results", type=Path, default=build.BENCH / "RESULTS.md")
    args = parser.parse_args(argv)
    args.argv = argv
    return args


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    started = common.begin_run()
    roots = [root.resolve() for root in (args.roots or common.default_roots())]
    rows = []
    for factor in args.factors:
        corpus_dir, info = build.corpus(roots, args.base_megabytes * factor, args.workers)
        result = measured_build(corpus_dir, args.work / f"x{factor}", args.workers)
        logger.info("x%d: %.1f MB, %.1f s, driver %.0f MB, worker %.0f MB", factor, info["bytes"] / 1e6,
                    result["wall_seconds"], result["driver_rss"] / 1e6, result["worker_rss"] / 1e6)
        rows.append((factor, info, result))
    common.write_section(args.results, render(rows, args, started, roots), BEGIN, END)
    logger.info("wrote %s", args.results)


if __name__ == "__main__":
    main(sys.argv[1:])
