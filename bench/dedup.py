"""Benchmark codemix's dedup stage against datatrove's MinHash pipeline, and score codemix against brute force.

Run by hand from the repository root (pytest does not collect it)::

    .venv/bin/python -m bench.dedup                        # everything: sizes x1 x4 x16, quality, RESULTS.md
    .venv/bin/python -m bench.dedup --sizes 1 --skip-datatrove --results /tmp/RESULTS.md

Steps:

  1. fetch the sdists pinned in ``bench/sdists.txt`` into ``bench/.cache/sdists`` (one
     ``pip download --no-binary :all: --no-deps`` per line; cached, so later runs skip it);
  2. read them with codemix's archive reader, code files only (``CODE_GLOBS``), into Documents;
  3. size xk = k copies of a base: the files whose path hashes into the first ``--base-fraction``
     of the hash range (every release of a path together); copy 0 as read, each later copy a "fork"
     whose files have 1-3 lines replaced (seeded by copy and document id) and new ids;
  4. per size, in a child process each, ``run_dedup`` (FnApiRunner, ``--workers`` processes) and
     datatrove's four MinHash stages (``LocalPipelineExecutor``, same workers) with the same
     num_perm and bands x rows; the parent polls the child's process tree with psutil for RSS;
  5. x1 of the whole corpus (run as its own size when the base is a fraction): ``dedup.evaluate``
     scores both outputs against exact Jaccard on codemix's shingles;
  6. rewrite this script's block of ``bench/RESULTS.md``.

The base is a fraction because forks make duplicate clusters grow with k, so candidate pairs grow
about k² (``near.bucket_pairs`` caps them per bucket), and FnApiRunner holds every shuffle in the
driver's memory: x16 of a quarter of the corpus was killed by the OOM killer at 20 GB on 24 GB.

datatrove 0.10.1 hashes ``str`` shingles with ``xxhash.xxh64_intdigest``, which xxhash 4 refuses
("Strings must be encoded before hashing"); ``xxh64_utf8`` does what xxhash 3 did (hash the UTF-8
bytes) and is set on the signature step, so the comparison uses datatrove's own default hash.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import json
import logging
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import psutil
import pyarrow as pa
import pyarrow.parquet as pq
import xxhash

from bench import tokenize as common
from bench.measure import run_polled
from codemix.dedup.config import DedupConfig
from codemix.dedup.evaluate import QualityReport, evaluate, evaluate_clusters, read_rows
from codemix.document import DOCUMENT_SCHEMA, Document, make_doc_id

BENCH = Path(__file__).resolve().parent
CACHE = BENCH / ".cache"
SDIST_LIST = BENCH / "sdists.txt"
SOURCE = "pypi"
# Source code only: docs, test fixtures and data files (.txt, .rst, .output, .json) are left out.
CODE_EXTENSIONS = (  # noqa: SIM905 - a word list reads better than 52 quoted strings
    "py pyi pyx pxd c h cc cpp cxx hpp hh js mjs ts tsx rs go java kt scala rb pl pm php lua sh bash "
    "zsh ps1 bat hs ml clj cljs erl ex exs groovy swift cs fs r jl sql m mm vb d nim zig dart tcl"
).split()
CODE_GLOBS = [f"*.{extension}" for extension in CODE_EXTENSIONS]
SHARDS_PER_COPY = 2  # Parquet files per corpus copy: enough files for two workers at every size
logger = logging.getLogger("bench.dedup")
# RESULTS.md is shared with other benchmarks and hand-written notes: only this block is rewritten.
BEGIN, END = "<!-- bench.dedup: generated, begin -->", "<!-- bench.dedup: generated, end -->"


# ---------------------------------------------------------------- corpus


def requirements(list_path: Path) -> list[str]:
    """``name==version`` lines of the pinned list, comments and blanks dropped."""
    lines = (line.split("#", 1)[0].strip() for line in list_path.read_text().splitlines())
    return [line for line in lines if line]


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def cached_archive(requirement: str, dest: Path) -> Path | None:
    """The sdist already in ``dest`` for ``name==version`` (sdist names vary in case and separators)."""
    name, version = requirement.split("==")
    for path in dest.iterdir():
        stem = path.name.removesuffix(".tar.gz").removesuffix(".zip")
        if normalise(stem) == normalise(f"{name}-{version}"):
            return path
    return None


def fetch_sdists(list_path: Path, dest: Path, parallel: int) -> list[Path]:
    """Each pinned sdist, downloaded with its own ``pip download`` unless cached; sorted paths."""
    dest.mkdir(parents=True, exist_ok=True)
    missing = [req for req in requirements(list_path) if cached_archive(req, dest) is None]

    def download(requirement: str) -> None:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", ":all:", "--no-deps"]
        subprocess.run([*command, "--dest", str(dest), requirement], check=True)

    with concurrent.futures.ThreadPoolExecutor(parallel) as pool:
        list(pool.map(download, missing))
    return sorted(cached_archive(req, dest) for req in requirements(list_path))


def in_sample(doc: Document, fraction: float) -> bool:
    """Deterministic by path inside the archive, so every release of a file is in or out together."""
    return xxhash.xxh64_intdigest(doc.path.encode()) < fraction * 2**64


def read_corpus(archives: list[Path]) -> list[Document]:
    """Code files of every archive through codemix's archive reader; drops and quarantines are counted, not kept."""
    from codemix.pipelines.readers import read_location
    from codemix.sources import SourceConfig

    documents, other = [], 0
    for archive in archives:
        source = SourceConfig(name=SOURCE, type="archive", paths=[str(archive)], include=CODE_GLOBS)
        for outcome in read_location(source, str(archive)):
            if isinstance(outcome, Document):
                documents.append(outcome)
            elif getattr(outcome, "reason", "") != "path_not_included":
                other += 1
    logger.info(
        "corpus: %d code files from %d archives (%d dropped or quarantined)", len(documents), len(archives), other
    )
    return documents


# Replacement lines a fork writes; {n} is a random number so repeated edits differ.
FORK_LINES = (
    "value_{n} = compute_{n}(config, retries={n})",
    "# patched downstream, see issue {n}",
    "logger.debug('fork %s', {n})",
    "if flag_{n}: raise RuntimeError('unsupported {n}')",
)


def fork_text(text: str, rng: random.Random) -> str:
    """1-3 non-blank lines replaced by new code at the same indentation: a fork's small drift."""
    lines = text.splitlines(keepends=True)
    candidates = [i for i, line in enumerate(lines) if line.strip()]
    if not candidates:
        return text + f"# fork {rng.randrange(10**6)}\n"
    for i in rng.sample(candidates, min(len(candidates), rng.randint(1, 3))):
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        lines[i] = indent + rng.choice(FORK_LINES).format(n=rng.randrange(10**6)) + "\n"
    return "".join(lines)


def fork(doc: Document, copy: int) -> Document:
    """Copy ``copy`` of a document: edited text, its own location, id and repo."""
    rng = random.Random(f"{copy}:{doc.id}")
    location = f"fork{copy}/{doc.metadata['location']}"
    return Document(
        id=make_doc_id(SOURCE, location),
        text=fork_text(doc.text, rng),
        source=SOURCE,
        kind=doc.kind,
        repo=f"fork{copy}/{doc.repo}",
        path=doc.path,
        language=doc.language,
        license=doc.license,
        metadata={**doc.metadata, "location": location},
    )


def write_copies(base: list[Document], copies: int, directory: Path) -> tuple[int, int]:
    """Write copies 0..copies-1 as ``docs-*.parquet``, one copy in memory at a time; (documents, text bytes)."""
    directory.mkdir(parents=True, exist_ok=True)
    step, documents, size = -(-len(base) // SHARDS_PER_COPY), 0, 0
    for copy in range(copies):
        docs = base if copy == 0 else [fork(doc, copy) for doc in base]
        table = pa.Table.from_pylist([doc.to_row() for doc in docs], schema=DOCUMENT_SCHEMA)
        for shard in range(SHARDS_PER_COPY):
            pq.write_table(table.slice(shard * step, step), directory / f"docs-{copy:03d}-{shard}.parquet")
        documents, size = documents + len(docs), size + sum(len(doc.text.encode()) for doc in docs)
    return documents, size


# ---------------------------------------------------------------- the two pipelines (child processes)


def beam_args(workers: int) -> list[str]:
    args = ["--runner=FnApiRunner"]
    if workers > 1:
        args += [f"--direct_num_workers={workers}", "--direct_running_mode=multi_processing"]
    return args


def timed_stages(module, names: list[str], timings: dict[str, float]) -> None:
    """Wrap the module's stage functions so each call adds its wall time under its name."""
    for name in names:
        original = getattr(module, name)

        def wrapper(*args, _original=original, _name=name, **kwargs):
            start = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                timings[_name] = timings.get(_name, 0.0) + time.perf_counter() - start

        setattr(module, name, wrapper)


def run_codemix(input_dir: Path, output_dir: Path, workers: int) -> dict:
    """``run_dedup`` with its pipelines timed: every ``run_*`` of pipelines.dedup.deduplicate, and ``resolve_components``."""
    from codemix.pipelines.dedup import deduplicate as stage

    timings: dict[str, float] = {}
    names = [name for name in dir(stage) if name.startswith("run_") and name != "run_dedup"]
    timed_stages(stage, [*names, "resolve_components"], timings)
    result = stage.run_dedup(str(input_dir / "docs-*.parquet"), str(output_dir), DedupConfig(), beam_args(workers))
    counts = asdict(result)
    removed = counts["exact_duplicates"] + counts["near_duplicates"] + counts.get("previous_duplicates", 0)
    signed = counts["documents_in"] - counts["exact_duplicates"]
    # The pipeline that signs (run_edges, formerly run_candidate_edges) also bands, verifies and clusters.
    signing = next(name for name in timings if "edges" in name)
    return {"stages": timings, "counts": counts, "removed": removed, "signed": signed, "signature_stage": signing}


def xxh64_utf8(text: str) -> int:
    """datatrove's xxhash64 shingle hash as it behaved under xxhash 3 (see the module docstring)."""
    return xxhash.xxh64_intdigest(text.encode("utf-8"))


def datatrove_stages(input_dir: Path, work: Path, workers: int, config: DedupConfig) -> list[tuple[str, object]]:
    """datatrove's four MinHash executors, configured as its minhash example does, with our bands × rows."""
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.dedup.minhash import (
        MinhashConfig,
        MinhashDedupBuckets,
        MinhashDedupCluster,
        MinhashDedupFilter,
        MinhashDedupSignature,
    )
    from datatrove.pipeline.readers import ParquetReader
    from datatrove.pipeline.writers import ParquetWriter

    minhash = MinhashConfig(
        n_grams=config.shingle_size, num_buckets=config.bands, hashes_per_bucket=config.rows, seed=config.seed
    )
    tasks = SHARDS_PER_COPY  # input files per rank must match between the signature and filter stages

    def reader():
        return ParquetReader(str(input_dir), glob_pattern="docs-*.parquet", text_key="text", id_key="id")

    def executor(pipeline, name, stage_tasks, stage_workers):
        return LocalPipelineExecutor(
            pipeline=pipeline, tasks=stage_tasks, workers=stage_workers, logging_dir=str(work / "logs" / name)
        )

    signature = MinhashDedupSignature(output_folder=str(work / "signatures"), config=minhash)
    signature._hash_func = xxh64_utf8
    buckets = MinhashDedupBuckets(
        input_folder=str(work / "signatures"), output_folder=str(work / "buckets"), config=minhash
    )
    cluster = MinhashDedupCluster(
        input_folder=str(work / "buckets"), output_folder=str(work / "remove"), config=minhash, save_cluster_id=True
    )
    keep = [
        reader(),
        MinhashDedupFilter(
            input_folder=str(work / "remove"),
            load_cluster_ids=True,
            exclusion_writer=ParquetWriter(str(work / "removed")),
        ),
        ParquetWriter(str(work / "kept")),
    ]
    return [
        ("MinhashDedupSignature", executor([reader(), signature], "signature", tasks, workers)),
        ("MinhashDedupBuckets", executor([buckets], "buckets", config.bands, workers)),
        ("MinhashDedupCluster", executor([cluster], "cluster", 1, 1)),
        ("MinhashDedupFilter", executor(keep, "filter", tasks, workers)),
    ]


def run_datatrove(input_dir: Path, work: Path, workers: int) -> dict:
    """The four stages one after another, each timed."""
    timings = {}
    for name, stage in datatrove_stages(input_dir, work, workers, DedupConfig()):
        start = time.perf_counter()
        stage.run()
        timings[name] = time.perf_counter() - start
    removed = sum(path.stat().st_size // 4 for path in (work / "remove").glob("*.remove"))
    signed = sum(pq.read_metadata(path).num_rows for path in input_dir.glob("docs-*.parquet"))
    return {"stages": timings, "removed": removed, "signed": signed, "signature_stage": "MinhashDedupSignature"}


def datatrove_labels(work: Path, ids: list[str]) -> np.ndarray:
    """Cluster representatives from the filter's outputs (``minhash_cluster_id``; -1 means no cluster)."""
    index = {doc_id: i for i, doc_id in enumerate(ids)}
    labels = np.arange(len(ids), dtype=np.int64)
    first: dict[int, int] = {}
    for path in sorted([*(work / "kept").glob("*.parquet"), *(work / "removed").glob("*.parquet")]):
        table = pq.read_table(path, columns=["id", "metadata"]).to_pylist()
        for row in table:
            cluster = row["metadata"]["minhash_cluster_id"]
            if cluster >= 0:
                labels[index[row["id"]]] = first.setdefault(cluster, index[row["id"]])
    return labels


# ---------------------------------------------------------------- measuring a child


@dataclass(slots=True, kw_only=True)
class Measurement:
    """One child run: its wall time, the largest single process's peak RSS, and the tree's peak total."""

    wall_s: float
    peak_rss_max: int  # bytes, max over processes of each one's peak
    peak_rss_tree: int  # bytes, max over polls of the summed RSS of the tree
    processes: int
    largest: str  # which process reached ``peak_rss_max``
    exit_code: int = 0  # -9 is SIGKILL: on this machine, the kernel's OOM killer
    cpu_s: float = 0.0  # user + system seconds of the tree's processes (last poll of each): robust to other load
    load: tuple[float, float] = (0.0, 0.0)  # 1-minute load average before and after: > cores means contention
    report: dict = field(default_factory=dict)


def measure(argv: list[str], log: Path, report: Path) -> Measurement:
    """Run ``argv`` with output to ``log``; the child writes its JSON report to ``report``."""
    run = run_polled(argv, log)
    code, wall, seen = run.code, run.wall, run.seen
    if code != 0:
        logger.error("%s exited with %d; see %s", " ".join(argv), code, log)
    largest = max(seen.peaks, key=seen.peaks.get, default=None)
    return Measurement(
        wall_s=wall,
        peak_rss_max=seen.peaks.get(largest, 0),
        peak_rss_tree=seen.tree_peak,
        processes=len(seen.peaks),
        largest=seen.labels.get(largest, "?"),
        exit_code=code,
        cpu_s=sum(seen.cpu.values()),
        load=run.load,
        report=json.loads(report.read_text()) if code == 0 else {},
    )


def child_argv(pipeline: str, input_dir: Path, work: Path, workers: int) -> list[str]:
    return [sys.executable, "-m", "bench.dedup", "child", pipeline, str(input_dir), str(work), str(workers)]


def run_size(copies: int, base: list[Document], root: Path, workers: int, pipelines: list[str], name: str) -> dict:
    """Write size x``copies`` of ``base`` and run each pipeline on it in a fresh directory ``root/name``."""
    input_dir = root / name / "input"
    shutil.rmtree(input_dir.parent, ignore_errors=True)
    documents, size = write_copies(base, copies, input_dir)
    logger.info("size x%d: %d documents, %.1f MB", copies, documents, size / 1e6)
    runs = {}
    for pipeline in pipelines:
        work = input_dir.parent / pipeline
        work.mkdir()
        runs[pipeline] = measure(child_argv(pipeline, input_dir, work, workers), work / "log.txt", work / "report.json")
        logger.info(
            "size x%d %s: %.1f s, peak RSS %.0f MB",
            copies,
            pipeline,
            runs[pipeline].wall_s,
            runs[pipeline].peak_rss_max / 1e6,
        )
    return {"name": name, "copies": copies, "documents": documents, "bytes": size, "input": input_dir, "runs": runs}


# ---------------------------------------------------------------- quality


def quality(size: dict) -> dict[str, QualityReport]:
    """Both pipelines' x1 clusters against brute force on codemix's shingles."""
    rows = read_rows(str(size["input"] / "docs-*.parquet"), ["id", "text"])
    config, reports = DedupConfig(), {}
    if "codemix" in size["runs"] and size["runs"]["codemix"].exit_code == 0:
        reports["codemix"] = evaluate(rows["id"], rows["text"], str(size["input"].parent / "codemix" / "out"), config)
    if "datatrove" in size["runs"] and size["runs"]["datatrove"].exit_code == 0:
        labels = datatrove_labels(size["input"].parent / "datatrove", rows["id"])
        reports["datatrove"] = evaluate_clusters(rows["id"], rows["text"], labels, config)
    return reports


# ---------------------------------------------------------------- RESULTS.md


def machine() -> str:
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in subprocess.run(["lscpu"], check=False, capture_output=True, text=True).stdout.splitlines()
            if line.startswith("Model name")
        ),
        "?",
    )
    memory = psutil.virtual_memory().total / 2**30
    return f"{model}, {os.cpu_count()} cores, {memory:.0f} GiB RAM, Python {platform.python_version()}"


def versions() -> str:
    from importlib.metadata import version

    names = ("apache-beam", "datatrove", "numpy", "xxhash", "spacy")
    return ", ".join(f"{name} {version(name)}" for name in names)


def stage_rows(run: Measurement) -> list[str]:
    return [f"| {name} | {seconds:.1f} |" for name, seconds in run.report["stages"].items()]


def signatures_per_core(run: Measurement, workers: int) -> float:
    seconds = run.report["stages"][run.report["signature_stage"]]
    return run.report["signed"] / (seconds * workers)


def failure_lines(runs: dict[str, Measurement]) -> list[str]:
    return [
        f"**{name} failed**: exit code {run.exit_code} after {run.wall_s:.0f} s (-9: killed by the kernel's OOM "
        f"killer); peak RSS until then: largest process {run.peak_rss_max / 1e6:,.0f} MB ({run.largest}), whole "
        f"tree {run.peak_rss_tree / 1e6:,.0f} MB."
        for name, run in runs.items()
        if run.exit_code != 0
    ]


def size_section(size: dict, workers: int) -> list[str]:
    lines = [f"### {size['name']}: {size['documents']:,} documents, {size['bytes'] / 1e6:.1f} MB of text", ""]
    failures = failure_lines(size["runs"])
    lines += [*failures, ""] if failures else []
    runs = {name: run for name, run in size["runs"].items() if run.exit_code == 0}
    if not runs:
        return lines
    for name, run in runs.items():
        lines += [f"{name} stages (s):", "", "| stage | wall s |", "| --- | ---: |", *stage_rows(run), ""]
    header = "| metric | " + " | ".join(runs) + (" | codemix / datatrove |" if len(runs) == 2 else " |")
    lines += [header, "| --- |" + " ---: |" * (len(runs) + (len(runs) == 2))]
    metrics = {
        "total wall s (child process, incl. start-up)": lambda r: r.wall_s,
        "sum of stages s": lambda r: sum(r.report["stages"].values()),
        "CPU s of the process tree (user + system)": lambda r: r.cpu_s,
        "documents removed": lambda r: r.report["removed"],
        "documents signed": lambda r: r.report["signed"],
        "signatures / s / core": lambda r: signatures_per_core(r, workers),
        "peak RSS, largest process (MB)": lambda r: r.peak_rss_max / 1e6,
        "peak RSS, whole tree (MB)": lambda r: r.peak_rss_tree / 1e6,
        "processes seen": lambda r: r.processes,
    }
    largest = "; ".join(f"{name}: {run.largest}" for name, run in runs.items())
    for label, get in metrics.items():
        values = [get(run) for run in runs.values()]
        cells = [f"{v:,.1f}" if isinstance(v, float) else f"{v:,}" for v in values]
        ratio = [f"{values[0] / values[1]:.2f}" if values[1] else "-"] if len(values) == 2 else []
        lines.append(f"| {label} | " + " | ".join(cells + ratio) + " |")
    loads = "; ".join(f"{name}: {run.load[0]:.1f} before, {run.load[1]:.1f} after" for name, run in runs.items())
    return [*lines, "", f"Largest process: {largest}. 1-minute load average ({os.cpu_count()} cores): {loads}.", ""]


def score_cells(score) -> list[str]:
    if score is None:
        return ["-", "-"]
    return [
        f"{score.precision:.4f} ({score.true_positives:,}/{score.predicted:,})",
        f"{score.recall:.4f} ({score.true_positives:,}/{score.actual:,})",
    ]


QUALITY_ROWS = (
    ("cluster pairs, all", "all_pairs"),
    ("cluster pairs, differing texts only", "near_pairs"),
    ("cluster pairs vs pairs joined by chains of true pairs", "transitive"),
    ("verified edges between exact keepers (codemix only)", "edges"),
)


def quality_section(reports: dict[str, QualityReport]) -> list[str]:
    if not reports:
        return []
    first = next(iter(reports.values()))
    lines = [
        (
            f"### Quality on the whole corpus, x1 ({first.documents:,} documents, {first.evaluated:,} with shingles; "
            f"truth: exact Jaccard ≥ {first.threshold} on codemix's shingles)"
        ),
        "",
        "| pairs | " + " | ".join(f"{name} precision | {name} recall" for name in reports) + " |",
        "| --- |" + " ---: |" * (2 * len(reports)),
    ]
    for label, attribute in QUALITY_ROWS:
        cells = [cell for report in reports.values() for cell in score_cells(getattr(report, attribute))]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append("")
    for name, report in reports.items():
        lines.append(
            f"- {name}: {report.clusters:,} clusters; removed documents within the threshold of their "
            f"cluster's representative {report.keeper_precision:.4f}"
        )
    lines += [
        (
            f"- true near pairs whose codemix signatures share an LSH band: {first.lsh_recall:.4f}; confusable "
            f"pairs (LSH midpoint ≤ J < threshold, texts differ): {first.confusable_pairs:,}"
        ),
        "",
    ]
    return lines


def render(
    sizes: list[dict], reports: dict[str, QualityReport], args: argparse.Namespace, started: str, base: int, whole: int
) -> str:
    config = DedupConfig()
    lines = [
        "## Dedup",
        "",
        f"- machine: {machine()}",
        f"- date: {started}; {versions()}",
        f"- command: `{' '.join(['.venv/bin/python -m bench.dedup', *sys.argv[1:]])}`",
        (
            f"- corpus: {whole:,} code files from the {len(requirements(SDIST_LIST))} sdists in `bench/sdists.txt`; "
            f"sizes {', '.join(f'x{k}' for k in args.sizes)} use a base of {base:,} of them (every release of a path with xxh64(path) below "
            f"{args.base_fraction} of the hash range); xk = k copies, copies after the first with 1-3 lines of every "
            "file replaced and new ids"
        ),
        (
            f"- both pipelines: num_perm {config.num_perm} = {config.bands} bands × {config.rows} rows, "
            f"{config.shingle_size}-token shingles, seed {config.seed}, {args.workers} worker processes; codemix "
            f"verify={config.verify} at J ≥ {config.jaccard_threshold}"
        ),
        "",
    ]
    for size in sizes:
        lines += size_section(size, args.workers)
    lines += quality_section(reports)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- entry points


def child(argv: list[str]) -> None:
    pipeline, input_dir, work, workers = argv[0], Path(argv[1]), Path(argv[2]), int(argv[3])
    logging.basicConfig(level=logging.INFO)
    if pipeline == "codemix":
        report = run_codemix(input_dir, work / "out", workers)
    else:
        report = run_datatrove(input_dir, work, workers)
    (work / "report.json").write_text(json.dumps(report, indent=2))


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.dedup", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 4, 16], help="copies of the corpus per size")
    parser.add_argument(
        "--base-fraction",
        type=float,
        default=0.1,
        help="keep this share of the corpus's file paths (all releases of a path together)",
    )
    parser.add_argument("--workers", type=int, default=2, help="worker processes for both pipelines")
    parser.add_argument("--skip-datatrove", action="store_true", help="run codemix only")
    parser.add_argument("--skip-quality", action="store_true", help="no brute-force scoring of x1")
    parser.add_argument("--work", type=Path, default=CACHE / "runs", help="inputs and outputs of every run")
    parser.add_argument("--results", type=Path, default=BENCH / "RESULTS.md", help="where to write the tables")
    parser.add_argument("--download-parallel", type=int, default=4, help="pip downloads at once")
    return parser.parse_args(argv)


def write_section(path: Path, text: str) -> None:
    """Replace the text between this script's markers in ``path`` (appended if absent), keeping the rest."""
    block = f"{BEGIN}\n{text}{END}\n"
    old = path.read_text() if path.exists() else ""
    if BEGIN in old and END in old:
        rest = old[old.index(END) + len(END) :].lstrip("\n")
        new = old[: old.index(BEGIN)] + block + ("\n" + rest if rest else "")
    else:
        new = old + ("\n" if old else "") + block
    path.write_text(new)


def main(argv: list[str]) -> None:
    if argv[:1] == ["child"]:
        child(argv[1:])
        return
    args = parse_args(argv)
    started = common.begin_run()
    corpus = read_corpus(fetch_sdists(SDIST_LIST, CACHE / "sdists", args.download_parallel))
    base = [doc for doc in corpus if in_sample(doc, args.base_fraction)]
    pipelines = ["codemix"] + ([] if args.skip_datatrove else ["datatrove"])
    run = functools.partial(run_size, root=args.work, workers=args.workers, pipelines=pipelines)
    sizes = [run(copies, base, name=f"x{copies}") for copies in args.sizes]
    reports = {}
    if not args.skip_quality:  # always on the whole corpus, once
        whole = next((size for size in sizes if size["copies"] == 1 and len(base) == len(corpus)), None)
        whole = whole or run(1, corpus, name="whole corpus x1")
        sizes += [] if whole in sizes else [whole]
        reports = quality(whole)
    write_section(args.results, render(sizes, reports, args, started, len(base), len(corpus)))
    logger.info("wrote %s", args.results)


if __name__ == "__main__":
    # Re-import under the package name, so datatrove's worker processes unpickle bench.dedup.xxh64_utf8.
    from bench import dedup

    dedup.main(sys.argv[1:])
