"""Tokenize-and-write throughput: raw ``tokenizers``, codemix's shards stage and datatrove, side by side.

Run from the repository root, as a module (``python bench/tokenize.py`` would put ``bench/`` first on
``sys.path``, where this file shadows the standard library's ``tokenize``)::

    .venv/bin/python -m bench.tokenize                    # 128 MB of Python, 2 workers, bench/RESULTS.md (~10 min)
    .venv/bin/python -m bench.tokenize --megabytes 16 --results /tmp/RESULTS.md
    .venv/bin/python -m bench.tokenize --roots ~/src/repo --tokenizer tok.json --rounds 3

Every measurement runs in a fresh child process on the same Document Parquet files, with the same
``tokenizer.json``, on the same ``--workers`` cores:

  raw        ``Tokenizer.encode_batch`` over every text, already in memory, nothing written: the
             ceiling. ``encode_batch_fast`` (the same ids, no character offsets) is timed too.
  codemix    the shards stage as ``mix build`` runs it: one Beam pipeline (FnApiRunner, ``--workers``
             SDK worker processes) ReadFromParquet -> RouteToStages -> WriteShards, i.e. Parquet
             reading, tokenizing into sorted runs in every worker, and merging the runs into
             .bin/.idx. This is ``pipelines.build.run_shards`` for one plain stage, so it pays every
             cost a build pays.
  datatrove  ParquetReader -> MegatronDocumentTokenizer on LocalPipelineExecutor with tasks = workers
             = ``--workers`` (datatrove splits work by input file, hence several Parquet files). It
             calls ``encode_batch`` on 10,000 documents at a time and appends EOS with a
             post-processor; it leaves ``encode_special_tokens`` off, so the few ``<|endoftext|>``
             strings in the corpus's code become single ids there (a handful of tokens fewer).
  thread study  codemix again with the Rayon choice of ``pipelines.shards.encode_in_parallel``
             reversed through ``TOKENIZERS_PARALLELISM`` (``--no-thread-study`` skips it).

codemix runs in Beam rather than by calling the DoFn: the Parquet read, the runs and their merge
are costs a build pays; a direct call would hide them.

Throughput is UTF-8 text bytes / wall seconds of the timed work (interpreter start and imports are
excluded; Beam's worker start-up and datatrove's pool start-up are included). CPU seconds of the
child's whole process tree are reported too, since this machine is shared: wall times move with
the load average, which is recorded before and after each run.

Corpus: ``*.py`` files under ``--roots`` (default: this interpreter's standard library without its
site-packages, plus the virtualenv's site-packages), valid UTF-8 and at most 1 MB (codemix's
``max_bytes``), taken in document-id order (a hash, so a uniform sample of all roots) until
``--megabytes``; cached under ``bench/.cache/tokenize/``. The tokenizer is ``--tokenizer`` or a
byte-level BPE of 32,000 ids trained with ``mixtures.tokenizer.train_bpe`` on 5,000 corpus files.
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import os
import platform
import resource
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import psutil
import pyarrow as pa
import pyarrow.parquet as pq

from bench.measure import run_polled
from codemix.document import DOCUMENT_SCHEMA, Document, make_doc_id

BENCH = Path(__file__).resolve().parent
CACHE = BENCH / ".cache" / "tokenize"
SOURCE = "python"
EOD = "<|endoftext|>"
VOCAB_SIZE = 32_000
TRAIN_DOCUMENTS = 5_000
MAX_FILE_BYTES = 1_000_000  # codemix's filters.code.max_bytes
PARQUET_FILES = 8  # datatrove splits by file: enough for every worker
RAW_BATCH_DOCUMENTS = 1_000
PIPELINES = ("raw", "codemix", "datatrove")
# The thread study: codemix again with each Rayon choice forced through the variable that
# ``pipelines.shards.tokenizer_parallelism`` leaves alone when set; see ``planned_runs``.
SERIAL, PARALLEL = {"TOKENIZERS_PARALLELISM": "false"}, {"TOKENIZERS_PARALLELISM": "true"}
logger = logging.getLogger("bench.tokenize")
# RESULTS.md is shared with other benchmarks and notes: only this block is ever rewritten.
BEGIN, END = "<!-- bench.tokenize: generated, begin -->", "<!-- bench.tokenize: generated, end -->"


# ---------------------------------------------------------------- corpus and tokenizer


def default_roots() -> list[Path]:
    return [Path(sysconfig.get_path("stdlib")), Path(sysconfig.get_path("purelib"))]


def python_files(roots: list[Path]) -> list[Path]:
    """Every ``*.py`` under ``roots``; under the stdlib root, its site-packages are left out."""
    files = []
    for root in roots:
        for directory, subdirectories, names in os.walk(root):
            subdirectories[:] = sorted(d for d in subdirectories if d not in ("site-packages", "dist-packages"))
            files += [Path(directory, name) for name in names if name.endswith(".py")]
    return files


def read_document(path: Path) -> Document | None:
    """A file as a Document, or None when it is empty, too large or not UTF-8."""
    data = path.read_bytes()
    if not data or len(data) > MAX_FILE_BYTES:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return Document(id=make_doc_id(SOURCE, str(path)), text=text, source=SOURCE, kind="file",
                    path=str(path), language="python")


def sample_documents(roots: list[Path], megabytes: float) -> list[Document]:
    """Documents in id order until ``megabytes`` of UTF-8 text; distinct texts only (a file installed
    twice is read once), so the sample does not depend on which roots hold copies."""
    candidates = sorted((make_doc_id(SOURCE, str(path)), path) for path in python_files(roots))
    documents, seen, size = [], set(), 0
    for _, path in candidates:
        document = read_document(path)
        if document is None or document.text in seen:
            continue
        seen.add(document.text)
        documents.append(document)
        size += len(document.text.encode("utf-8"))
        if size >= megabytes * 1e6:
            break
    return documents


def write_corpus(documents: list[Document], directory: Path) -> dict:
    """``docs-NNNNN.parquet`` files of the Document schema and a ``corpus.json`` describing them."""
    directory.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist([doc.to_row() for doc in documents], schema=DOCUMENT_SCHEMA)
    step = -(-len(documents) // PARQUET_FILES)
    for index in range(PARQUET_FILES):
        pq.write_table(table.slice(index * step, step), directory / f"docs-{index:05d}.parquet")
    info = {"documents": len(documents), "bytes": sum(len(doc.text.encode("utf-8")) for doc in documents)}
    (directory / "corpus.json").write_text(json.dumps(info))
    return info


def corpus(roots: list[Path], megabytes: float, cache: Path) -> tuple[Path, dict]:
    """The cached corpus for these roots and size, built on first use; (directory, info)."""
    key = make_doc_id("corpus", "\x00".join(map(str, roots)))[:8]
    directory = cache / f"corpus-{megabytes:g}MB-{key}"
    if (directory / "corpus.json").exists():
        return directory, json.loads((directory / "corpus.json").read_text())
    documents = sample_documents(roots, megabytes)
    logger.info("corpus: %d files, writing %s", len(documents), directory)
    return directory, write_corpus(documents, directory)


def read_texts(directory: Path) -> list[str]:
    return pq.read_table(sorted(directory.glob("docs-*.parquet")), columns=["text"]).column("text").to_pylist()


def tokenizer_file(given: Path | None, corpus_dir: Path) -> Path:
    """``given``, or a 32k byte-level BPE trained on the corpus's first documents (cached beside it)."""
    if given is not None:
        return given
    path = corpus_dir / "tokenizer.json"
    if not path.exists():
        from codemix.mixtures.tokenizer import save_tokenizer, train_bpe

        logger.info("training a %d-id byte-level BPE on %d documents", VOCAB_SIZE, TRAIN_DOCUMENTS)
        save_tokenizer(train_bpe(read_texts(corpus_dir)[:TRAIN_DOCUMENTS], VOCAB_SIZE), str(path))
    return path


# ---------------------------------------------------------------- the pipelines (run in a child each)


def beam_args(workers: int) -> list[str]:
    args = ["--runner=FnApiRunner"]
    if workers > 1:
        args += [f"--direct_num_workers={workers}", "--direct_running_mode=multi_processing"]
    return args


def run_raw(corpus_dir: Path, tokenizer_path: Path, out: Path, workers: int, shard_bytes: int) -> dict:
    """``encode_batch`` and ``encode_batch_fast`` over texts already in memory; one timing each."""
    from tokenizers import Tokenizer

    texts = read_texts(corpus_dir)
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.encode_special_tokens = True  # as codemix encodes code files
    report = {}
    for method in ("encode_batch", "encode_batch_fast"):
        encode = getattr(tokenizer, method)
        start, cpu, tokens = time.perf_counter(), cpu_seconds(), 0
        for first in range(0, len(texts), RAW_BATCH_DOCUMENTS):
            tokens += sum(len(encoding.ids) for encoding in encode(texts[first:first + RAW_BATCH_DOCUMENTS]))
        report[method] = {"seconds": time.perf_counter() - start, "cpu_seconds": cpu_seconds() - cpu,
                          "tokens": tokens}
    return report


def cpu_seconds() -> float:
    """This process's CPU time, every thread (the tokenizer's Rayon pool) included."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_codemix(corpus_dir: Path, tokenizer_path: Path, out: Path, workers: int, shard_bytes: int) -> dict:
    """``run_shards`` for one stage that takes every document of the corpus's source."""
    import apache_beam as beam

    from codemix.pipelines import ledger
    from codemix.pipelines.options import pipeline_options
    from codemix.pipelines.shards import WriteShards, stage_entries, stats_to_json

    start = time.perf_counter()
    with beam.Pipeline(options=pipeline_options(beam_args(workers))) as pipeline:
        _ = (
            pipeline
            | "ReadDeduplicated" >> ledger.read_documents(str(corpus_dir / "docs-*.parquet"))
            | "RouteToStages" >> beam.FlatMap(stage_entries, {"short": [SOURCE]})
            | "WriteShards" >> WriteShards(out_dir=str(out), runs_dir=str(out / "runs"),
                                           tokenizer_path=str(tokenizer_path), eod_token=EOD,
                                           shard_size_bytes=shard_bytes, workers=workers)
            | "StatsToJson" >> beam.Map(stats_to_json)
            | "WriteStats" >> beam.io.WriteToText(str(out / "stats"), file_name_suffix=".jsonl")
        )
    seconds = time.perf_counter() - start
    ledger.remove_tree(str(out / "runs"))
    stats = [json.loads(line) for path in out.glob("stats*.jsonl") for line in path.read_text().splitlines()]
    return {"codemix": {"seconds": seconds, "tokens": sum(s["tokens"] for s in stats),
                        "documents": sum(s["documents"] for s in stats), "shards": len(stats)}}


def run_datatrove(corpus_dir: Path, tokenizer_path: Path, out: Path, workers: int, shard_bytes: int) -> dict:
    """datatrove's Megatron tokenizer, tasks = workers; EOS appended by its post-processor."""
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import ParquetReader
    from datatrove.pipeline.tokens import MegatronDocumentTokenizer

    executor = LocalPipelineExecutor(
        pipeline=[
            ParquetReader(str(corpus_dir), glob_pattern="docs-*.parquet", text_key="text", id_key="id"),
            MegatronDocumentTokenizer(output_folder=str(out / "tokens"), tokenizer_name_or_path=str(tokenizer_path),
                                      eos_token=EOD),
        ],
        tasks=workers, workers=workers, logging_dir=str(out / "logs"))
    start = time.perf_counter()
    executor.run()
    seconds = time.perf_counter() - start
    tokens = sum(path.stat().st_size for path in (out / "tokens").glob("*.bin")) // 2
    return {"datatrove": {"seconds": seconds, "tokens": tokens}}


RUNS = {"raw": run_raw, "codemix": run_codemix, "datatrove": run_datatrove}


def child(argv: list[str]) -> None:
    name, config = argv[0], json.loads(argv[1])
    logging.basicConfig(level=logging.WARNING)
    out = Path(config["out"])
    report = RUNS[name](Path(config["corpus"]), Path(config["tokenizer"]), out, config["workers"], config["shard_bytes"])
    (out / "report.json").write_text(json.dumps(report))


# ---------------------------------------------------------------- measuring


def run_measured(argv: list[str], log: Path, env: dict[str, str] | None = None) -> dict:
    """Run ``argv`` (output to ``log``): wall and process-tree CPU seconds, load average before and after."""
    run = run_polled(argv, log, env)
    if run.code != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with {run.code}; see {log}")
    return {"wall_seconds": run.wall, "cpu_seconds": sum(run.seen.cpu.values()), "load": run.load}


def measure(name: str, config: dict, env: dict[str, str]) -> dict:
    """Run one pipeline in a child process: its report, each entry with the child's CPU and load."""
    out = Path(config["out"])
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    argv = [sys.executable, "-m", "bench.tokenize", "child", name, json.dumps(config)]
    measured = run_measured(argv, out.parent / f"{out.name}.log", env)
    report = json.loads((out / "report.json").read_text())
    for entry in report.values():
        entry.setdefault("cpu_seconds", measured["cpu_seconds"])
        entry["load"] = measured["load"]
    logger.info("%s: %s", name, {k: round(v["seconds"], 1) for k, v in report.items()})
    return report


def planned_runs(args: argparse.Namespace, info: dict) -> list[tuple[str, str, int, dict[str, str]]]:
    """(pipeline, label, shard_size_bytes, extra environment) of one round.

    Every codemix worker tokenizes its own reads, so with as many workers as cores codemix encodes
    on one thread per worker; the thread study forces a Rayon pool in every worker instead."""
    runs = [(name, "", int(args.shard_mb * 1e6), {}) for name in args.pipelines]
    if args.thread_study and "codemix" in args.pipelines:
        choice = PARALLEL if args.workers >= os.cpu_count() else SERIAL
        forced = "true: a Rayon pool per worker" if choice is PARALLEL else "false: one thread per worker"
        runs.append(("codemix", f"forced TOKENIZERS_PARALLELISM={forced}", int(args.shard_mb * 1e6), choice))
    return runs


def run_rounds(args: argparse.Namespace, info: dict, corpus_dir: Path, tokenizer_path: Path) -> dict[str, list[dict]]:
    """``args.rounds`` rounds of every planned run, the order rotated each round so drift in the
    machine's load does not always favour the same one; results per variant, in run order."""
    results: dict[str, list[dict]] = {}
    numbered = list(enumerate(planned_runs(args, info)))
    for round_index in range(args.rounds):
        shift = round_index % len(numbered)
        for index, (name, label, shard_bytes, env) in numbered[shift:] + numbered[:shift]:
            config = {"corpus": str(corpus_dir), "tokenizer": str(tokenizer_path), "workers": args.workers,
                      "shard_bytes": shard_bytes, "out": str(args.work / f"{index}-{name}")}
            for variant, entry in measure(name, config, {**args.env, **env}).items():
                results.setdefault(f"{variant} ({label})" if label else variant, []).append(entry)
    return results


# ---------------------------------------------------------------- RESULTS.md


def begin_run() -> str:
    """Log with timestamps; the run's start as the results' headers print it."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def machine() -> str:
    lscpu = subprocess.run(["lscpu"], check=False, capture_output=True, text=True).stdout.splitlines()
    model = next((line.split(":", 1)[1].strip() for line in lscpu if line.startswith("Model name")), "?")
    memory = psutil.virtual_memory().total / 2**30
    return f"{model}, {os.cpu_count()} cores, {memory:.0f} GiB RAM, Python {platform.python_version()}"


def versions() -> str:
    from importlib.metadata import version

    return ", ".join(f"{name} {version(name)}" for name in ("tokenizers", "apache-beam", "datatrove", "numpy"))


def median_entry(entries: list[dict]) -> dict:
    return sorted(entries, key=lambda entry: entry["seconds"])[len(entries) // 2]


def render(results: dict[str, list[dict]], info: dict, args: argparse.Namespace, started: str) -> str:
    """The RESULTS.md section: one row per variant (median round) and the two target ratios."""
    megabytes = info["bytes"] / 1e6
    medians = {name: median_entry(entries) for name, entries in results.items()}
    rate = {name: megabytes / entry["seconds"] for name, entry in medians.items()}
    cpu_rate = {name: megabytes / entry["cpu_seconds"] for name, entry in medians.items()}
    lines = [
        "## Tokenize and write: raw tokenizers vs codemix's shards stage vs datatrove",
        "",
        f"{started}; {machine()}; {versions()}.",
        (f"Corpus: {info['documents']:,} Python files, {megabytes:.1f} MB of UTF-8 text ({args.corpus_note}); "
         f"tokenizer: {args.tokenizer_note}; {args.workers} workers; shard_size_bytes {args.shard_mb:g} MB; "
         f"{args.rounds} round(s), median shown. CPU s: every process of the run's tree (raw: its own threads); "
         "the machine is shared, so CPU seconds are the steadier measure of work and wall seconds move with "
         "the load. Every codemix worker tokenizes its own reads (sorted runs, merged into shards); the row "
         "\"codemix (forced ...)\" is the thread study: codemix's Rayon choice reversed."),
        "Command: `.venv/bin/python -m bench.tokenize " + " ".join(args.argv) + "`",
        "",
        "| pipeline | wall s | MB/s | CPU s | MB per CPU s | tokens | load avg before → after |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, entry in medians.items():
        load = f"{entry['load'][0]:.1f} → {entry['load'][1]:.1f}"
        lines.append(f"| {name} | {entry['seconds']:.1f} | {rate[name]:.2f} | {entry['cpu_seconds']:.1f} | "
                     f"{cpu_rate[name]:.2f} | {entry['tokens']:,} | {load} |")
    lines += ["", *ratio_lines(rate, "wall"), *ratio_lines(cpu_rate, "CPU"), ""]
    return "\n".join(lines) + "\n"


def ratio_lines(rate: dict[str, float], basis: str) -> list[str]:
    """The target ratios of codemix's throughput (``basis``: per wall second or per CPU second)."""
    lines = []
    if "codemix" in rate and "encode_batch" in rate:
        lines.append(f"- {basis}: codemix / raw encode_batch = **{rate['codemix'] / rate['encode_batch']:.2f}** "
                     f"(target ≥ 0.85); codemix / raw encode_batch_fast = "
                     f"{rate['codemix'] / rate['encode_batch_fast']:.2f}")
    if "codemix" in rate and "datatrove" in rate:
        lines.append(f"- {basis}: codemix / datatrove = **{rate['codemix'] / rate['datatrove']:.2f}** (target > 1)")
    return lines


def write_section(path: Path, text: str, begin: str = BEGIN, end: str = END) -> None:
    """Replace the block between ``begin`` and ``end`` in ``path`` (appended when absent), re-reading
    the file just before: other scripts and people write their own sections of it."""
    block = f"{begin}\n{text}{end}\n"
    old = path.read_text() if path.exists() else ""
    if begin in old and end in old:
        new = old[: old.index(begin)] + block + old[old.index(end) + len(end):].lstrip("\n")
    else:
        new = old.rstrip("\n") + ("\n\n" if old else "") + block
    path.write_text(new)


# ---------------------------------------------------------------- entry point


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.tokenize", description=__doc__.split("\n\n")[0])
    parser.add_argument("--roots", type=Path, nargs="+", help="directories of .py files (default: stdlib + venv)")
    parser.add_argument("--megabytes", type=float, default=128, help="text to sample from the roots")
    parser.add_argument("--tokenizer", type=Path, help="a tokenizer.json (default: train a 32k BPE on the corpus)")
    parser.add_argument("--workers", type=int, default=2, help="processes for codemix and datatrove")
    parser.add_argument("--shard-mb", type=float, default=512, help="codemix shard_size_bytes in MB (spec default)")
    parser.add_argument("--rounds", type=int, default=1, help="repeat every pipeline; the median is reported")
    parser.add_argument("--pipelines", nargs="+", choices=PIPELINES, default=list(PIPELINES))
    parser.add_argument("--thread-study", action=argparse.BooleanOptionalAction, default=True,
                        help="also run codemix with its Rayon choice reversed")
    parser.add_argument("--env", nargs="*", default=[], metavar="KEY=VALUE",
                        help="environment of every child, e.g. TOKENIZERS_PARALLELISM=false")
    parser.add_argument("--work", type=Path, default=CACHE / "runs", help="outputs of every run")
    parser.add_argument("--results", type=Path, default=BENCH / "RESULTS.md", help="where to write the section")
    args = parser.parse_args(argv)
    args.argv = argv
    args.env = dict(item.split("=", 1) for item in args.env)
    return args


def main(argv: list[str]) -> None:
    if argv[:1] == ["child"]:
        child(argv[1:])
        return
    args = parse_args(argv)
    started = begin_run()
    roots = [root.resolve() for root in (args.roots or default_roots())]
    corpus_dir, info = corpus(roots, args.megabytes, CACHE)
    tokenizer_path = tokenizer_file(args.tokenizer, corpus_dir)
    args.corpus_note = "`*.py` under " + ", ".join(f"`{root}`" for root in roots)
    args.tokenizer_note = (f"`{args.tokenizer}`" if args.tokenizer else
                           f"byte-level BPE, {VOCAB_SIZE:,} ids, trained with train_bpe on {TRAIN_DOCUMENTS:,} files")
    results = run_rounds(args, info, corpus_dir, tokenizer_path)
    write_section(args.results, render(results, info, args, started))
    logger.info("wrote %s", args.results)


if __name__ == "__main__":
    main(sys.argv[1:])
