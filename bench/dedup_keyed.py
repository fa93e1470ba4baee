"""Peak RSS per worker process of dedup's two joins (``dedup.join``) at x1, x4, x16 and x64 (issue 17).

Run from the repository root, as a module (no network: the corpus is this Python's stdlib)::

    .venv/bin/python -m bench.dedup_keyed                        # 4 MB base, x1 x4 x16 x64 (~4 min on 2 cores)
    .venv/bin/python -m bench.dedup_keyed --base-megabytes 1 --sizes 1 4 --results /tmp/RESULTS.md

Size xk is k copies of a base of stdlib ``*.py`` files (``bench.tokenize.sample_documents``):
copy 0 as read; in each later copy a quarter of the files are exact copies and the rest forks
with 1-3 lines replaced (``bench.dedup.fork_text``), all under new ids. Per size, ``run_dedup``
runs twice in a child process each, with ``join: side_input`` and ``join: keyed_join`` (every other
setting default), on FnApiRunner with ``--workers`` SDK worker processes; the parent polls the
child's process tree with psutil (``bench.measure``) and reports the driver (the child itself,
where FnApiRunner holds every shuffle) and the largest SDK worker apart. The two outputs are
compared as sets of rows (documents, duplicate rows, index).

What grows where: a side input is held whole by every worker, 16 bytes per id. A keyed join holds
one id's rows per group; with ``shuffle_on_disk`` (the default) it and every other grouping of its
pipelines that grows with the corpus go through run files (``pipelines.spill``, ``ids.keyed_spill``),
so FnApiRunner's own shuffle, which it keeps in the driver and hands each worker as one message per
stage, carries only run names. What can still grow from x1 to x16 are fixed-size buffers that the
4 MB base never fills (a spill's 16 MB of buffered records, 8 MB Parquet row groups read and written
whole); x64 shows where they stop. On Dataflow, Spark or Flink the shuffle spills by itself.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import shutil
import sys
import sysconfig
import time
from dataclasses import asdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from bench import tokenize as common
from bench.dedup import fork_text
from bench.measure import PolledRun, run_polled
from codemix.dedup.config import JOINS, KEYED_JOIN, SIDE_INPUT, DedupConfig
from codemix.dedup.ids import DIGEST_BYTES
from codemix.document import DOCUMENT_SCHEMA, Document, make_doc_id

BENCH = Path(__file__).resolve().parent
JOINS_MEASURED = (SIDE_INPUT, KEYED_JOIN)
FILES_PER_COPY = 2
EXACT_EVERY = 4  # in copies after the first, every 4th file is an exact copy, the others forks
BEGIN, END = "<!-- bench.dedup_keyed: generated, begin -->", "<!-- bench.dedup_keyed: generated, end -->"
logger = logging.getLogger("bench.dedup_keyed")


# ---------------------------------------------------------------- corpus


def copy_of(doc: Document, copy: int, index: int) -> Document:
    """Copy ``copy`` (>= 1) of the base's ``index``-th document: an exact copy or a fork, under a new id."""
    location = f"copy{copy}/{doc.path}"
    exact = (index + copy) % EXACT_EVERY == 0
    text = doc.text if exact else fork_text(doc.text, random.Random(f"{copy}:{doc.id}"))
    return Document(id=make_doc_id(doc.source, location), text=text, source=doc.source, kind=doc.kind,
                    path=doc.path, language=doc.language, metadata={"location": location})


def write_size(base: list[Document], copies: int, directory: Path) -> dict:
    """Write copies 0..copies-1 as ``docs-*.parquet``, one copy in memory at a time; documents and bytes."""
    directory.mkdir(parents=True)
    step, documents, size = -(-len(base) // FILES_PER_COPY), 0, 0
    for copy in range(copies):
        docs = base if copy == 0 else [copy_of(doc, copy, i) for i, doc in enumerate(base)]
        table = pa.Table.from_pylist([doc.to_row() for doc in docs], schema=DOCUMENT_SCHEMA)
        for part in range(FILES_PER_COPY):
            pq.write_table(table.slice(part * step, step), directory / f"docs-{copy:03d}-{part}.parquet")
        documents, size = documents + len(docs), size + sum(len(doc.text.encode()) for doc in docs)
    return {"documents": documents, "bytes": size}


# ---------------------------------------------------------------- one run (child process) and its measurement


def child(join: str, input_dir: Path, output_dir: Path, workers: int) -> None:
    from codemix.pipelines.dedup.deduplicate import run_dedup

    logging.basicConfig(level=logging.INFO)
    start = time.perf_counter()
    result = run_dedup(str(input_dir / "docs-*.parquet"), str(output_dir), DedupConfig(join=join),
                       common.beam_args(workers))
    report = {"result": asdict(result), "dedup_seconds": time.perf_counter() - start}
    (output_dir / "report.json").write_text(json.dumps(report))


def worker_and_driver(run: PolledRun) -> dict:
    peaks = run.seen.peaks
    workers = {pid: rss for pid, rss in peaks.items() if pid != run.pid}
    return {"driver_rss": peaks.get(run.pid, 0), "worker_rss": max(workers.values(), default=0),
            "processes": len(workers), "tree_rss": run.seen.tree_peak, "wall": run.wall,
            "cpu": sum(run.seen.cpu.values()), "load": run.load}


def output_rows(output_dir: Path) -> dict[str, set[tuple]]:
    """What a run wrote, as sets of rows: shuffles may order the Parquet files differently."""
    def rows(pattern: str) -> set[tuple]:
        paths = sorted(output_dir.glob(pattern))
        return {tuple(sorted(row.items())) for row in pq.read_table(paths).to_pylist()} if paths else set()

    return {"docs": rows("docs-*.parquet"), "duplicates": rows("duplicates-*.parquet"),
            "index": rows("index/*.parquet")}


def measure_size(base: list[Document], copies: int, work: Path, workers: int) -> dict:
    """Both joins on size x``copies``; their measurements, counts, and whether they wrote the same rows."""
    root = work / f"x{copies}"
    shutil.rmtree(root, ignore_errors=True)
    size = write_size(base, copies, root / "input")
    logger.info("x%d: %d documents, %.1f MB", copies, size["documents"], size["bytes"] / 1e6)
    runs, outputs = {}, {}
    for join in JOINS_MEASURED:
        out = root / join
        out.mkdir()
        argv = [sys.executable, "-m", "bench.dedup_keyed", "child", join, str(root / "input"), str(out), str(workers)]
        polled = run_polled(argv, root / f"{join}.log")
        if polled.code != 0:
            raise RuntimeError(f"{join} at x{copies} exited with {polled.code}; see {root / f'{join}.log'}")
        runs[join] = {**worker_and_driver(polled), **json.loads((out / "report.json").read_text())}
        outputs[join] = output_rows(out)
        logger.info("x%d %s: %.1f s, driver %.0f MB, largest worker %.0f MB", copies, join, polled.wall,
                    runs[join]["driver_rss"] / 1e6, runs[join]["worker_rss"] / 1e6)
    same = outputs[SIDE_INPUT] == outputs[KEYED_JOIN]
    if not same:
        logger.error("x%d: the two joins wrote different rows", copies)
    shutil.rmtree(root / "input")
    return {"copies": copies, **size, "runs": runs, "same_output": same}


# ---------------------------------------------------------------- RESULTS.md


def ratio(keyed: float, side: float) -> str:
    return f"{keyed / side:.2f}" if side else "-"


def size_row(size: dict) -> str:
    keyed, side = size["runs"][KEYED_JOIN], size["runs"][SIDE_INPUT]
    result = side["result"]
    # The side inputs a worker may hold: ids removed as exact copies, then as near or previous
    # duplicates, the graph's nodes, and the candidate pairs' endpoints (at most the signed documents).
    signed = result["documents_in"] - result["exact_duplicates"]
    id_bytes = DIGEST_BYTES * (result["exact_duplicates"] + result["near_duplicates"] + result["previous_duplicates"]
                               + 2 * signed)
    mb = 1e6
    return (f"| x{size['copies']} | {size['documents']:,} | {size['bytes'] / mb:.1f} | "
            f"{result['exact_duplicates']:,} / {result['near_duplicates']:,} | {id_bytes / 1e3:,.0f} | "
            f"{keyed['worker_rss'] / mb:,.0f} | {side['worker_rss'] / mb:,.0f} | "
            f"**{ratio(keyed['worker_rss'], side['worker_rss'])}** | "
            f"{keyed['driver_rss'] / mb:,.0f} | {side['driver_rss'] / mb:,.0f} | "
            f"{ratio(keyed['driver_rss'], side['driver_rss'])} | "
            f"{keyed['wall']:.1f} | {side['wall']:.1f} | {'yes' if size['same_output'] else '**NO**'} |")


def growth(sizes: list[dict], join: str, key: str) -> str:
    first, last = sizes[0]["runs"][join][key], sizes[-1]["runs"][join][key]
    return f"{first / 1e6:,.0f} → {last / 1e6:,.0f} MB ({last / first:.2f}x)" if first else "-"


def growth_line(sizes: list[dict]) -> str:
    span = f"x{sizes[0]['copies']} → x{sizes[-1]['copies']}"
    return (f"{span}: largest worker, keyed join {growth(sizes, KEYED_JOIN, 'worker_rss')}, side input "
            f"{growth(sizes, SIDE_INPUT, 'worker_rss')}; driver, keyed join {growth(sizes, KEYED_JOIN, 'driver_rss')}, "
            f"side input {growth(sizes, SIDE_INPUT, 'driver_rss')}.")


def render(sizes: list[dict], args: argparse.Namespace, started: str) -> str:
    loads = "; ".join(f"x{s['copies']} {join}: {s['runs'][join]['load'][0]:.1f}/{s['runs'][join]['load'][1]:.1f}"
                      for s in sizes for join in JOINS_MEASURED)
    return "\n".join([
        f"## Dedup keyed joins: peak RSS per worker at {'/'.join(f'x{size}' for size in args.sizes)} (issue 17)",
        "",
        f"- machine: {common.machine()}",
        f"- date: {started}",
        f"- command: `{' '.join(['.venv/bin/python -m bench.dedup_keyed', *sys.argv[1:]])}`",
        (f"- corpus: {args.base_megabytes:g} MB of this Python's stdlib `*.py` (`bench.tokenize.sample_documents`) "
         f"as x1; xk = k copies, each later copy with every {EXACT_EVERY}th file an exact copy and the others "
         "forks with 1-3 lines replaced, all under new ids"),
        (f"- `run_dedup` with `dedup.join` = `keyed_join` and = `side_input` (all else default: "
         f"`shuffle_on_disk: true`), FnApiRunner with {args.workers} SDK worker processes "
         "(`--direct_running_mode=multi_processing`), each run a child process polled every 0.1 s for the "
         "peak RSS of each process: the driver (the child) and the largest SDK worker"),
        f"- {', '.join(JOINS)}: `auto` picks `side_input` on this runner; both were forced here",
        "",
        ("| size | documents | MB | removed exact / near | side-input ids ≤ KB | keyed: largest worker MB "
         "| side input: largest worker MB | keyed / side (worker) | keyed: driver MB | side input: driver MB "
         "| keyed / side (driver) | keyed wall s | side input wall s | same rows |"),
        "| --- |" + " ---: |" * 13,
        *(size_row(size) for size in sizes),
        "",
        growth_line(sizes),
        *(["", growth_line(sizes[-2:])] if len(sizes) > 2 else []),
        "",
        f"1-minute load average before/after each run ({os.cpu_count()} cores): {loads}.",
        "",
    ])


# ---------------------------------------------------------------- entry point


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.dedup_keyed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 4, 16, 64], help="copies of the base per size")
    parser.add_argument("--base-megabytes", type=float, default=4.0, help="stdlib text in the x1 corpus")
    parser.add_argument("--workers", type=int, default=2, help="FnApiRunner SDK worker processes")
    parser.add_argument("--work", type=Path, default=BENCH / ".cache" / "dedup_keyed", help="inputs and outputs")
    parser.add_argument("--results", type=Path, default=BENCH / "RESULTS.md", help="where to write the table")
    return parser.parse_args(argv)


def main(argv: list[str]) -> None:
    if argv[:1] == ["child"]:
        child(argv[1], Path(argv[2]), Path(argv[3]), int(argv[4]))
        return
    args = parse_args(argv)
    started = common.begin_run()
    base = common.sample_documents([Path(sysconfig.get_path("stdlib"))], args.base_megabytes)
    sizes = [measure_size(base, copies, args.work, args.workers) for copies in args.sizes]
    common.write_section(args.results, render(sizes, args, started), BEGIN, END)
    logger.info("wrote %s", args.results)
    if not all(size["same_output"] for size in sizes):
        raise SystemExit("the two joins wrote different rows; see the log")


if __name__ == "__main__":
    main(sys.argv[1:])
