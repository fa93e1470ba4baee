"""Scale-out: what each stage of ``mix build`` costs per GB of input, in core-seconds, shuffle bytes and
wall seconds, projected to 1 TB and 100 TB.

Run from the repository root, as a module::

    .venv/bin/python -m bench.scaleout                          # 16, 64, 256 MB of Python, 2 workers (~15 min)
    .venv/bin/python -m bench.scaleout --megabytes 2 4 --results /tmp/RESULTS.md   # shake-out (~3 min)
    .venv/bin/python -m bench.scaleout --render-only            # rewrite the section from the last run's figures
    .venv/bin/python -m bench.mirror_corpus /tmp/pool --megabytes 256 512 1024 2048
    nice -n 15 .venv/bin/python -m bench.scaleout --pool /tmp/pool --megabytes 256 512 1024 2048 --work /tmp/builds

Each size is a sample of distinct ``*.py`` files (``bench.tokenize.sample_documents``: stdlib and
virtualenv by default, in document-id order, so each size holds the smaller ones) written as a
file tree, or with ``--pool`` the parts of a ``bench.mirror_corpus`` pool (distinct text files from
bare git mirrors and the local Python), and a spec of one ``directory`` source, one ``short`` stage
and every other setting default (filters, dedup, and a 32k BPE trained on a sample of up to 20,000
filtered documents) but ``dedup.join``: ``keyed_join`` unless ``--join`` says otherwise, the path
every runner but the in-memory ones takes. Input bytes are the UTF-8 bytes of the files, which is
their size on disk. Each size's figures are written (``figures.json``, and the section) as soon as
it finishes.

The real ``mix build`` runs in a child process (FnApiRunner, ``--workers`` SDK worker processes),
with probes installed in the driver only (they change no result):

  * ``StageRunner.run`` is wrapped to know which build stage every Beam pipeline belongs to (the
    stage's tally pipeline included) and to split its CPU into driver and reaped workers; the
    manifest's ``local_cpu_seconds`` (the sum of both) is the core-seconds figure.
  * ``FnApiRunner.create_stages`` is wrapped to note, before the run, every GroupByKey write (the
    runner's shuffle, after combiner lifting: a CombinePerKey or CombineGlobally shuffles its
    partial accumulators, a CoGroupByKey and a Reshuffle their own GroupByKey) and every side
    input; after the run, each one's bytes are its element count (``beam:metric:element_count:v1``)
    times the mean of its sampled encoded sizes (``beam:metric:sampled_byte_size:v1``).
  * ``FnApiRunner._execute_bundle`` is timed per fused stage and compared with the fused stage's
    busy milliseconds summed over workers (``beam:metric:ptransform_execution_time:total_msecs:v1``):
    a fused stage busy about as long as its wall ran on one worker at a time.
  * ``FileSystems.delete`` hard-links the run files the driver deletes (dedup's
    ``pipelines.spill`` runs under ``_work/shuffle``, the shards stage's token runs under
    ``runs/``) before they go: they are shuffles done through files, written by every worker and
    read by others, as a cluster would through its bucket. Their on-disk bytes are summed after
    the build, and the spill runs' zstd streams decompressed to compare with the runner's bytes.
  * ``train_bpe`` is timed: the tokenizer stage's driver-side training.
  * The driver's peak RSS: polled from outside for the whole build, and per stage its ``VmHWM``,
    reset as each stage starts. With FnApiRunner the driver is also the runner: the in-memory
    shuffle and every element crossing between fused stages live in it.
  * After the build, ``pipelines.shards.slices_of_run`` is timed on the held token runs: what each
    run's index costs, read once to cut it into shard slices (issue 31; before, every shard's merge
    read every run's whole index).

Projections fit core-seconds = fixed + per-GB x GB over the sizes (least squares; R² and residuals
per stage are reported), likewise the shuffle bytes, and scale the per-GB slope to 1 TB and 100 TB; the tokenizer's training is a
constant (a fixed-size sample) and is projected at its default sample of 20,000 documents. Cluster
walls spread the per-GB work over 500 and 5,000 cores, then again with the merges held to their
task counts (16 per on-disk grouping, one per shard) and the runs' index slicing added.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import logging
import math
import os
import resource
import shutil
import sys
import time
from pathlib import Path

from bench import build as bench_build
from bench import mirror_corpus
from bench import tokenize as common
from bench.measure import run_polled
from codemix.dedup.config import JOINS, KEYED_JOIN
from codemix.mixtures.spec import MixtureSpec, TokenizerConfig
from codemix.pipelines.spill import PARTITIONS

BENCH = Path(__file__).resolve().parent
CACHE = BENCH / ".cache" / "scaleout"
SOURCE = "python"
STAGES = ("crawl", "filter", "tokenizer", "dedup", "shards")
SAMPLE_DOCUMENTS = TokenizerConfig().train_sample_documents  # the spec keeps every default
# A fused stage busy (summed over workers) for less than IDLE x its wall mostly waited: the first of a
# pipeline starts the SDK workers. Below ONE_WORKER x its wall, it ran on about one worker at a time.
IDLE, ONE_WORKER = 0.25, 1.3
# The steps that merge run files: pipelines.spill's MergeRuns (one task per partition) and the shards
# stage's MergeRunsIntoShard (one task per shard).
MERGE_STEPS = ("/MergeRuns",)
CLUSTER_CORES = (500, 5000)
# CombineGlobally's output, read as a side input by its own default-injection step (one task, to emit
# the default on empty input): the same bytes as the combined value, which is the side input that counts.
COMBINE_DEFAULT = "/UnKey"
SPILL_PARTITIONS = PARTITIONS  # merge tasks per on-disk grouping
SHARD_SIZE_BYTES = MixtureSpec.__dataclass_fields__["shard_size_bytes"].default
BEGIN, END = "<!-- bench.scaleout: generated, begin -->", "<!-- bench.scaleout: generated, end -->"
logger = logging.getLogger("bench.scaleout")


# ---------------------------------------------------------------- probes (in the child's driver)


class Probe:
    """What the driver-side probes saw, by build stage."""

    def __init__(self, hold: Path):
        self.stage = "(none)"
        self.hold = hold  # hard links to the run files the driver deleted
        self.pipelines: list[dict] = []
        self.rusage: dict[str, dict] = {}
        self.training: dict = {}
        self.held: list[tuple[str, str, str]] = []  # (stage, kind, held path)
        self.fused_walls: dict[str, float] = collections.defaultdict(float)
        self.driver_peaks: dict[str, int] = {}  # stage -> the driver's peak RSS during it, bytes

    def to_json(self) -> dict:
        return {"pipelines": self.pipelines, "rusage": self.rusage, "training": self.training,
                "held": self.held, "driver_peaks": self.driver_peaks}


def peak_rss() -> int:
    """This process's peak resident set (``VmHWM``), bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def reset_peak_rss() -> None:
    """Start ``VmHWM`` again from the current RSS (Linux: 5 > /proc/self/clear_refs), so each stage's peak
    is its own."""
    Path("/proc/self/clear_refs").write_text("5")


def rusage_seconds() -> tuple[float, float]:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def file_shuffle_kind(path: str) -> str | None:
    """Which file-based shuffle a deleted path belonged to, if any."""
    if "/_work/shuffle/" in path:
        return "spill"
    if "/runs/" in path:
        return "token runs"
    return None


def stage_label(stage) -> str:
    """A fused stage's first and last transform names: enough to tell what it does."""
    names = [transform.unique_name for transform in stage.transforms]
    return names[0] if len(names) == 1 else f"{names[0]} … {names[-1]}"


def planned_data(stages, components) -> tuple[list[dict], list[dict], dict[str, str]]:
    """(GroupByKey writes, side inputs, fused stage labels) of an optimised pipeline, before it runs
    (running rewrites the data channels' payloads)."""
    from apache_beam.runners.worker import bundle_processor

    producers = {pcoll: transform.unique_name for transform in components.transforms.values()
                 for pcoll in transform.outputs.values()}
    groups, sides, labels = [], [], {}
    for stage in stages:
        labels[stage.name] = stage_label(stage)
        for transform in stage.transforms:
            if transform.spec.urn == bundle_processor.DATA_OUTPUT_URN and transform.spec.payload.startswith(b"group:"):
                (pcoll,) = transform.inputs.values()
                groups.append({"name": transform.unique_name.removesuffix("/Write"), "pcoll": pcoll})
        for pcoll in sorted(set(stage.side_inputs())):
            if producers.get(pcoll, "").endswith(COMBINE_DEFAULT):
                continue
            sides.append({"name": producers.get(pcoll, pcoll), "pcoll": pcoll, "fused_stage": stage.name})
    unique_sides = list({side["pcoll"]: side for side in sides}.values())
    return groups, unique_sides, labels


def pcollection_sizes(result) -> dict[str, tuple[int, float]]:
    """PCollection id -> (elements, mean sampled encoded bytes) from a FnApiRunner result. A
    PCollection reported by two fused stages (written by one, read by another) counts once."""
    from apache_beam.metrics import monitoring_infos as mi

    counts: dict[str, int] = {}
    sizes: dict[str, tuple[int, int]] = {}
    for info in result.monitoring_infos():
        pcoll = info.labels.get(mi.PCOLLECTION_LABEL)
        if not pcoll:
            continue
        if info.urn == mi.ELEMENT_COUNT_URN:
            counts[pcoll] = max(counts.get(pcoll, 0), mi.extract_counter_value(info))
        elif info.urn == mi.SAMPLED_BYTE_SIZE_URN:
            count, total, _, _ = mi.extract_distribution(info)
            if count > sizes.get(pcoll, (0, 0))[0]:
                sizes[pcoll] = (count, total)
    return {pcoll: (n, sizes[pcoll][1] / sizes[pcoll][0] if sizes.get(pcoll, (0, 0))[0] else 0.0)
            for pcoll, n in counts.items()}


def busy_seconds(result) -> dict[str, collections.Counter]:
    """Fused stage name -> {transform: seconds busy, summed over workers}."""
    from apache_beam.metrics import monitoring_infos as mi

    busy: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for stage, infos in result._monitoring_infos_by_stage.items():  # per fused stage; FnApiRunner only
        for info in infos:
            if info.urn == mi.TOTAL_MSECS_URN:
                busy[stage][info.labels.get(mi.PTRANSFORM_LABEL, "?")] += mi.extract_counter_value(info) / 1000
    return busy


def fused_entry(label: str, wall: float, busy: collections.Counter) -> dict:
    """One fused stage's wall and busy seconds, named by its busiest transform when it did any work."""
    busiest = busy.most_common(1)
    name = busiest[0][0] if busiest and busiest[0][1] >= 0.05 else label
    return {"label": name, "wall": wall, "busy": sum(busy.values())}


def parallelism(fused: dict) -> str:
    """What a fused stage's busy / wall says: ``idle`` (worker start-up, the driver's own work), ``one
    worker`` at a time, or ``parallel``."""
    if fused["busy"] < IDLE * fused["wall"]:
        return "idle"
    return "one worker" if fused["busy"] < ONE_WORKER * fused["wall"] else "parallel"


def install_probes(probe: Probe) -> None:
    """Wrap the driver's StageRunner, FnApiRunner, FileSystems.delete and train_bpe (see the module docstring)."""
    from apache_beam.io.filesystems import FileSystems
    from apache_beam.runners.portability.fn_api_runner import fn_runner

    import codemix.pipelines.build
    from codemix.pipelines import resume

    run_stage = resume.StageRunner.run

    def run(self, name, *args, **kwargs):
        probe.stage, before, start = name, rusage_seconds(), time.monotonic()
        reset_peak_rss()
        try:
            return run_stage(self, name, *args, **kwargs)
        finally:
            probe.driver_peaks[name] = peak_rss()
            after = rusage_seconds()
            probe.rusage[name] = {"driver": after[0] - before[0], "workers": after[1] - before[1],
                                  "wall": time.monotonic() - start}
            probe.stage = "(none)"

    create_stages, run_stages, execute_bundle = (fn_runner.FnApiRunner.create_stages, fn_runner.FnApiRunner.run_stages,
                                                 fn_runner.FnApiRunner._execute_bundle)

    def planned(self, pipeline_proto):
        context, stages = create_stages(self, pipeline_proto)
        self._probe_plan = planned_data(stages, context.components)
        return context, stages

    def measured(self, context, stages):
        groups, sides, labels = self._probe_plan
        probe.fused_walls.clear()
        start = time.monotonic()
        result = run_stages(self, context, stages)
        wall = time.monotonic() - start
        sizes, busy = pcollection_sizes(result), busy_seconds(result)
        for entry in (*groups, *sides):
            entry["elements"], mean = sizes.get(entry["pcoll"], (0, 0.0))
            entry["bytes"] = entry["elements"] * mean
        fused = [fused_entry(labels.get(name, name), seconds, busy.get(name, collections.Counter()))
                 for name, seconds in probe.fused_walls.items()]
        merges = collections.Counter()  # busy seconds of the steps that merge run files, by step
        for transforms in busy.values():
            for transform, seconds in transforms.items():
                if transform.endswith(MERGE_STEPS):
                    merges[transform] += seconds
        probe.pipelines.append({"stage": probe.stage, "wall": wall, "groups": groups, "sides": sides,
                                "fused": fused, "merges": dict(merges)})
        return result

    def timed_bundle(self, context, bundle_manager, bundle_input):
        start = time.monotonic()
        try:
            return execute_bundle(self, context, bundle_manager, bundle_input)
        finally:
            probe.fused_walls[bundle_manager.stage.name] += time.monotonic() - start

    delete = FileSystems.delete

    def holding_delete(paths):
        for path in paths:
            kind = file_shuffle_kind(path)
            if kind and os.path.isfile(path):
                # one folder per run folder, the name kept: a token run's .json, .index and .tokens stay together
                folder = probe.hold / hashlib.sha1(os.path.dirname(path).encode()).hexdigest()[:12]
                folder.mkdir(exist_ok=True)
                held = folder / os.path.basename(path)
                os.link(path, held)
                probe.held.append((probe.stage, kind, str(held)))
        return delete(paths)

    train = codemix.pipelines.build.train_bpe

    def timed_training(texts, vocab_size, *args, **kwargs):
        texts = list(texts)
        before, start = rusage_seconds(), time.monotonic()
        tokenizer = train(texts, vocab_size, *args, **kwargs)
        probe.training = {"documents": len(texts), "text_bytes": sum(len(t.encode("utf-8")) for t in texts),
                          "wall": time.monotonic() - start, "cpu": rusage_seconds()[0] - before[0]}
        return tokenizer

    resume.StageRunner.run = run
    fn_runner.FnApiRunner.create_stages = planned
    fn_runner.FnApiRunner.run_stages = measured
    fn_runner.FnApiRunner._execute_bundle = timed_bundle
    FileSystems.delete = staticmethod(holding_delete)
    codemix.pipelines.build.train_bpe = timed_training


def zstd_content_bytes(path: str) -> int:
    """Bytes a spill run holds before compression (its length-prefixed records)."""
    import zstandard

    total = 0
    with open(path, "rb") as raw, zstandard.ZstdDecompressor().stream_reader(raw) as reader:
        while chunk := reader.read(1 << 20):
            total += len(chunk)
    return total


def held_bytes(held: list[tuple[str, str, str]]) -> list[dict]:
    """Per (stage, kind): files, on-disk bytes and, for spill runs, uncompressed bytes."""
    sums: dict[tuple[str, str], dict] = {}
    for stage, kind, path in held:
        entry = sums.setdefault((stage, kind), {"stage": stage, "kind": kind, "files": 0, "disk_bytes": 0,
                                                "content_bytes": 0})
        entry["files"] += 1
        entry["disk_bytes"] += os.path.getsize(path)
        entry["content_bytes"] += zstd_content_bytes(path) if kind == "spill" else os.path.getsize(path)
    return list(sums.values())


def run_index_seconds(held: list[tuple[str, str, str]]) -> dict:
    """What the shards stage pays per token run to plan its merges: ``slices_of_run`` reads the run's
    whole index once and cuts it into shard slices (a merge then reads only its slices' rows). Timed
    here on the build's own runs (the .tokens file, held under another name, is never opened)."""
    from codemix.pipelines.shards import slices_of_run

    runs, documents, index_bytes, seconds = 0, 0, 0, 0.0
    for _, kind, path in held:
        if kind == "token runs" and path.endswith(".json"):
            prefix = path.removesuffix(".json")
            start = time.process_time()
            planned = list(slices_of_run((("s", "s"), (prefix, 0)), {("s", "s"): 1 << 40}, SHARD_SIZE_BYTES))
            seconds += time.process_time() - start
            assert planned, prefix
            runs += 1
            documents += json.loads(Path(path).read_text())["documents"]
            index_bytes += os.path.getsize(f"{prefix}.index")
    return {"runs": runs, "documents": documents, "bytes": index_bytes, "cpu": seconds}


def child(argv: list[str]) -> None:
    """``--child PROBE_JSON mix-build-args...``: the build, probed, in this process."""
    probe_json, build_argv = Path(argv[0]), argv[1:]
    hold = probe_json.parent / "held-runs"
    shutil.rmtree(hold, ignore_errors=True)
    hold.mkdir(parents=True)
    probe = Probe(hold)
    install_probes(probe)
    from codemix.mix.cli import main as mix_main

    code = mix_main(build_argv)
    report = {**probe.to_json(), "file_shuffles": held_bytes(probe.held), "run_index": run_index_seconds(probe.held),
              "exit": code}
    probe_json.write_text(json.dumps(report))
    shutil.rmtree(hold)
    sys.exit(code)


# ---------------------------------------------------------------- corpus, spec, one measured build


def corpus(roots: list[Path], megabytes: float) -> tuple[Path, dict]:
    """A cached file tree of ``megabytes`` of distinct ``*.py`` files (bench.tokenize's sample)."""
    from codemix.document import make_doc_id

    key = make_doc_id("corpus", "\x00".join(map(str, roots)))[:8]
    directory = CACHE / f"corpus-{megabytes:g}MB-{key}"
    if (directory / "corpus.json").exists():
        return directory, json.loads((directory / "corpus.json").read_text())
    shutil.rmtree(directory, ignore_errors=True)
    documents = common.sample_documents(roots, megabytes)
    logger.info("corpus: %d files, writing %s", len(documents), directory)
    bench_build.write_tree(documents, roots, directory / "files")
    info = {"documents": len(documents), "bytes": sum(len(d.text.encode("utf-8")) for d in documents)}
    (directory / "corpus.json").write_text(json.dumps(info))
    return directory, info


def pool_corpus(pool: Path, megabytes: float) -> tuple[list[Path], dict]:
    """The parts of a ``bench.mirror_corpus`` pool that make up ``megabytes`` (each size holds the smaller)."""
    parts = [part for part in json.loads((pool / "parts.json").read_text())["parts"]
             if part["megabytes"] <= megabytes]
    if not parts or parts[-1]["megabytes"] != megabytes:
        raise SystemExit(f"{pool} has no part ending at {megabytes:g} MB; its parts: {pool / 'parts.json'}")
    paths = [pool / f"part-{part['megabytes']:g}MB" for part in parts]
    return paths, {"documents": sum(p["files"] for p in parts), "bytes": sum(p["bytes"] for p in parts)}


def write_spec(paths: list[Path], path: Path, join: str, include: list[str]) -> None:
    """One directory source, one short stage; the tokenizer trained by the build (defaults); dedup's
    ``join`` as given (keyed_join: the path every runner but the in-memory ones takes)."""
    spec = {
        "name": "bench-scaleout",
        "sources": [{"name": SOURCE, "type": "directory", "paths": [str(p) for p in paths],
                     "include": include, "license": "PSF-2.0"}],
        "stages": {"short": {"sequence_length": 4096, "token_budget": 10**12, "weights": {SOURCE: 1.0}}},
        "dedup": {"join": join},
    }
    path.write_text(json.dumps(spec, indent=2))  # JSON is YAML


def measured_build(paths: list[Path], work: Path, workers: int, join: str, include: list[str]) -> dict:
    """One probed ``mix build`` in a child; the manifest, the probes' report, the polled tree CPU and
    peak RSS (the driver, the child itself; the largest SDK worker)."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    write_spec(paths, work / "spec.yaml", join, include)
    argv = [sys.executable, "-m", "bench.scaleout", "--child", str(work / "probe.json"),
            "build", str(work / "spec.yaml"), "--out", str(work / "out"), "--no-progress",
            *common.beam_args(workers)[1:]]
    run = run_polled(argv, work / "log.txt")
    if run.code != 0:
        raise RuntimeError(f"mix build exited with {run.code}; see {work / 'log.txt'}")
    manifest = json.loads((work / "out" / "manifest.json").read_text())
    workers_peak = max((rss for pid, rss in run.seen.peaks.items() if pid != run.pid), default=0)
    return {"wall": run.wall, "tree_cpu": sum(run.seen.cpu.values()), "load": run.load,
            "driver_peak_polled": run.seen.peaks.get(run.pid, 0), "worker_peak_polled": workers_peak,
            "manifest": {key: manifest[key] for key in ("timings_seconds", "local_cpu_seconds", "counts")},
            "dedup": json.loads((work / "out" / "work" / "dedup" / "_COMPLETE.json").read_text())["result"],
            "probe": json.loads((work / "probe.json").read_text())}


# ---------------------------------------------------------------- per-stage figures


def stage_figures(result: dict, input_bytes: int) -> dict[str, dict]:
    """Per build stage: wall, core-seconds, shuffle bytes (runner, files), side inputs, and its fused
    stages' wall by what their busy time says (idle, one worker, parallel)."""
    manifest, probe = result["manifest"], result["probe"]
    figures = {}
    for stage in STAGES:
        pipelines = [p for p in probe["pipelines"] if p["stage"] == stage]
        groups = [g for p in pipelines for g in p["groups"]]
        sides = [s for p in pipelines for s in p["sides"]]
        files = [f for f in probe["file_shuffles"] if f["stage"] == stage]
        fused = [f for p in pipelines for f in p["fused"]]
        merges = collections.Counter()
        for pipeline in pipelines:
            merges.update(pipeline.get("merges", {}))
        walls = collections.Counter()
        for entry in fused:
            walls[parallelism(entry)] += entry["wall"]
        figures[stage] = {
            "gb": input_bytes / 1e9,
            "wall": manifest["timings_seconds"].get(stage, 0.0),
            "cpu": manifest["local_cpu_seconds"].get(stage, 0.0),
            "driver_cpu": probe["rusage"].get(stage, {}).get("driver", 0.0),
            "pipelines": len(pipelines),
            "runner_shuffle": sum(g["bytes"] for g in groups),
            "file_shuffle": sum(f["content_bytes"] for f in files),
            "file_shuffle_disk": sum(f["disk_bytes"] for f in files),
            "side_inputs": sum(s["bytes"] for s in sides),
            "walls": dict(walls),
            "merges": dict(merges),
            "top_groups": sorted(groups, key=lambda g: -g["bytes"])[:3],
            "top_sides": sorted(sides, key=lambda s: -s["bytes"])[:3],
            "top_one_worker": sorted((f for f in fused if parallelism(f) == "one worker"),
                                     key=lambda f: -f["wall"])[:3],
        }
    figures["tokenizer"]["training"] = probe["training"]
    figures["shards"]["run_index"] = probe.get("run_index", {})
    return figures


def fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares (fixed, per unit) of y = fixed + per_unit * x; one point: (0, y / x)."""
    if len(points) == 1:
        x, y = points[0]
        return 0.0, y / x
    n = len(points)
    mean_x, mean_y = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    slope = (sum((x - mean_x) * (y - mean_y) for x, y in points)
             / sum((x - mean_x) ** 2 for x, _ in points))
    return mean_y - slope * mean_x, slope


def fit_quality(points: list[tuple[float, float]]) -> tuple[float, list[float]]:
    """(R², residuals y - fit in the order of ``points``) of the least-squares line; R² is NaN under 3 points."""
    fixed, slope = fit(points)
    residuals = [y - (fixed + slope * x) for x, y in points]
    mean_y = sum(y for _, y in points) / len(points)
    total = sum((y - mean_y) ** 2 for _, y in points)
    r2 = 1 - sum(r * r for r in residuals) / total if len(points) >= 3 and total else math.nan
    return r2, residuals


def training_constant(training: dict) -> tuple[float, float]:
    """(driver core-seconds, wall seconds) to train the BPE on the default sample: the measured rate
    per sampled document at ``SAMPLE_DOCUMENTS`` documents, where the sample stops growing. The wall
    is taken as the core-seconds, a driver with one free core: the measured wall moves with this
    shared machine's load, and a driver with more cores trains faster (the trainer is multi-threaded)."""
    scale = SAMPLE_DOCUMENTS / training["documents"]
    return training["cpu"] * scale, training["cpu"] * scale


def projection(all_figures: list[dict]) -> dict[str, dict]:
    """Per stage: fitted (fixed, per GB) core-seconds, shuffle bytes and side-input bytes over every size.
    The tokenizer's training is left out of its fit (a constant, ``training_constant``) and so is its
    side input, the sample's ids: at most ``SAMPLE_DOCUMENTS`` of them, whatever the corpus."""
    fitted = {}
    for stage in STAGES:
        points = [figures[stage] for figures in all_figures]
        training = [f.get("training", {}).get("cpu", 0.0) for f in points]
        fitted[stage] = {
            "cpu": fit([(f["gb"], f["cpu"] - t) for f, t in zip(points, training)]),
            "shuffle": fit([(f["gb"], f["runner_shuffle"] + f["file_shuffle"]) for f in points]),
            "side": fit([(f["gb"], f["side_inputs"]) for f in points]),
        }
    last = all_figures[-1]["tokenizer"]
    sample = last["training"]["documents"]
    fitted["tokenizer"]["side"] = (last["side_inputs"] * SAMPLE_DOCUMENTS / sample, 0.0)
    fitted["tokenizer"]["cpu"] = (fitted["tokenizer"]["cpu"][0] + training_constant(last["training"])[0],
                                  fitted["tokenizer"]["cpu"][1])
    return fitted


# ---------------------------------------------------------------- RESULTS.md


def fmt_bytes(value: float) -> str:
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if value >= size:
            return f"{value / size:,.1f} {unit}"
    return f"{value:,.0f} B"


def measured_argv(args: argparse.Namespace) -> list[str]:
    """The command line that measured the figures (``--render-only`` only rewrites them)."""
    return [arg for arg in args.argv if arg != "--render-only"]


def corpus_text(args: argparse.Namespace, roots: list[Path]) -> str:
    if args.pool:
        pool = json.loads((args.pool / "parts.json").read_text())
        repositories = sorted({ref.split("@")[0] for ref in pool["refs"]})
        return (f"distinct text files (UTF-8, no NUL, ≤ 1 MB; one copy per git blob id) from {len(pool['refs'])} "
                f"trees of {len(repositories)} bare git mirrors (HEAD and up to {mirror_corpus.TAGS_PER_REPOSITORY} "
                "tags spread over each one's history; the secret scanners' repositories left out) and the local "
                "stdlib and virtualenv `*.py`, in blob-id order (`bench.mirror_corpus`; older and newer versions of one "
                "file meet as near duplicates)")
    return f"distinct `*.py` files under {', '.join(f'`{r}`' for r in roots)} in document-id order"


def header(rows: list[tuple[dict, dict]], args: argparse.Namespace, started: str, roots: list[Path]) -> list[str]:
    lines = [
        "## Scale-out: core-seconds and shuffle bytes per GB, projected to 1 TB and 100 TB (issues 17, 31)",
        "",
        f"{started}; {common.machine()}; {common.versions()}.",
        (f"Corpora: {corpus_text(args, roots)} "
         "(each size holds the smaller ones); GB = UTF-8 bytes of the files the crawl read = their size on disk. "
         "Spec: one directory source, one `short` stage, every other setting default (filters, dedup with "
         "`shuffle_on_disk: true`, a 32k BPE "
         f"trained on up to {SAMPLE_DOCUMENTS:,} filtered documents) but `dedup.join: {args.join}`. {args.workers} "
         f"workers (FnApiRunner, multi_processing). Command: "
         f"`{' '.join(['.venv/bin/python -m bench.scaleout', *measured_argv(args)])}`. "
         "core-s = the manifest's `local_cpu_seconds` (driver + reaped workers), checked against every "
         "process of the tree polled every 0.1 s. Driver peak RSS: the `mix build` process (FnApiRunner's "
         "driver, which holds the runner's in-memory shuffle), polled every 0.1 s; per stage, its `VmHWM` reset "
         "at each stage's start (`/proc/self/clear_refs`); workers: the largest SDK worker process, polled."),
        "",
        ("| MB | files | kept | wall s | core-s (manifest) | core-s (polled tree) | candidate pairs | "
         "driver peak RSS MB | largest worker peak RSS MB | load before → after |"),
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for info, result in rows:
        manifest = result["manifest"]
        lines.append(
            f"| {info['bytes'] / 1e6:.1f} | {info['documents']:,} | {manifest['counts']['kept']:,} | "
            f"{result['wall']:.1f} | {sum(manifest['local_cpu_seconds'].values()):.1f} | {result['tree_cpu']:.1f} | "
            f"{result['dedup']['candidate_pairs']:,} | {result.get('driver_peak_polled', 0) / 1e6:,.0f} | "
            f"{result.get('worker_peak_polled', 0) / 1e6:,.0f} | {result['load'][0]:.1f} → {result['load'][1]:.1f} |")
    return lines


def driver_rows(rows: list[tuple[dict, dict]]) -> list[str]:
    """The driver's peak RSS per stage and size (``VmHWM`` reset at each stage's start)."""
    if not all(result["probe"].get("driver_peaks") for _, result in rows):
        return []
    lines = ["", "Driver peak RSS per stage, MB (`VmHWM` of the `mix build` process, reset as each stage starts):",
             "", f"| MB | {' | '.join(STAGES)} |", f"|---:|{'---:|' * len(STAGES)}"]
    for info, result in rows:
        peaks = result["probe"]["driver_peaks"]
        lines.append(f"| {info['bytes'] / 1e6:.0f} | "
                     + " | ".join(f"{peaks.get(stage, 0) / 1e6:,.0f}" for stage in STAGES) + " |")
    return lines


def stage_rows(rows: list[tuple[dict, dict]]) -> list[str]:
    lines = ["", ("Per stage. Shuffle: bytes into the runner's GroupByKeys (after combiner lifting) and run files "
             "that other workers read (uncompressed; on disk in brackets). Side inputs: bytes of the PCollections "
             "read as side inputs (every worker reads each whole). Fused-stage wall: idle (the first fused stage of "
             "each pipeline starts the SDK workers) / one worker at a time / parallel, from busy ÷ wall."), "",
             ("| MB | stage | wall s | core-s | core-s/GB | driver core-s | pipelines | runner shuffle /GB | "
             "file shuffle /GB | side inputs /GB | fused wall s: idle / one worker / parallel |"),
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for info, result in rows:
        for stage in STAGES:
            f = result["figures"][stage]
            gb, walls = f["gb"], f["walls"]
            disk = f" [{fmt_bytes(f['file_shuffle_disk'] / gb)}]" if f["file_shuffle"] else ""
            lines.append(
                f"| {info['bytes'] / 1e6:.0f} | {stage} | {f['wall']:.1f} | {f['cpu']:.1f} | {f['cpu'] / gb:,.0f} | "
                f"{f['driver_cpu']:.1f} | {f['pipelines']} | {fmt_bytes(f['runner_shuffle'] / gb)} | "
                f"{fmt_bytes(f['file_shuffle'] / gb)}{disk} | {fmt_bytes(f['side_inputs'] / gb)} | "
                f"{walls.get('idle', 0):.1f} / {walls.get('one worker', 0):.1f} / {walls.get('parallel', 0):.1f} |")
    info, result = rows[-1]
    lines += ["", (f"Largest shuffles, side inputs and one-worker fused stages at {info['bytes'] / 1e6:.0f} MB "
              "(named by their busiest transform):"), ""]
    for stage in STAGES:
        f = result["figures"][stage]
        groups = "; ".join(f"{g['name']} {fmt_bytes(g['bytes'])} ({g['elements']:,} elements)"
                           for g in f["top_groups"] if g["bytes"])
        sides = "; ".join(f"{s['name']} {fmt_bytes(s['bytes'])}" for s in f["top_sides"] if s["bytes"])
        serial = "; ".join(f"`{s['label']}` {s['wall']:.1f} s wall, {s['busy']:.1f} s busy" for s in f["top_one_worker"])
        lines.append(f"- **{stage}**: shuffles: {groups or 'none'}; side inputs: {sides or 'none'}; "
                     f"one-worker: {serial or 'none'}.")
    return lines


def merge_model(all_figures: list[dict]) -> dict:
    """What bounds the run-file merges: their busy seconds per GB (dedup's spill merges, 16 tasks per
    grouping; the shards' merges, one task per shard) and the run-index slicing each run
    pays per document of the source (``run_index_seconds``), from the largest size."""
    last = all_figures[-1]
    index = last["shards"]["run_index"]
    return {
        "dedup_per_gb": fit([(f["dedup"]["gb"], sum(f["dedup"]["merges"].values())) for f in all_figures])[1],
        "shards_per_gb": fit([(f["shards"]["gb"], sum(f["shards"]["merges"].values())) for f in all_figures])[1],
        "index_seconds_per_document": index["cpu"] / max(1, index["documents"]),
        "index_bytes_per_document": index["bytes"] / max(1, index["documents"]),
        "documents_per_gb": index["documents"] / last["shards"]["gb"],
        "runs_per_gb": index["runs"] / last["shards"]["gb"],
        # the shards' text: what the filters kept (the tokenizer's sample is the whole filtered corpus here)
        "kept_fraction": last["tokenizer"]["training"]["text_bytes"] / (last["tokenizer"]["gb"] * 1e9),
    }


def shard_count(model: dict, gb: float) -> int:
    return max(1, math.ceil(gb * 1e9 * model["kept_fraction"] / SHARD_SIZE_BYTES))


def index_core_seconds(model: dict, gb: float) -> float:
    """Each run's index is read once to cut it into shard slices (issue 31): linear in GB."""
    return model["index_seconds_per_document"] * model["documents_per_gb"] * gb


def cluster_wall(fitted: dict, model: dict, training_wall: float, gb: float, cores: int, capped: bool) -> float:
    """Seconds for every stage at ``gb`` on ``cores``: its per-GB work spread over the cores, the BPE
    training on the driver; ``capped``: dedup's spill merges over at most ``SPILL_PARTITIONS`` tasks
    and the shards' merges over at most one task per shard, the runs' index slicing spread likewise."""
    wall = training_wall
    for stage in STAGES:
        work = fitted[stage]["cpu"][1] * gb
        if capped and stage == "dedup":
            merges = model["dedup_per_gb"] * gb
            work, wall = work - merges, wall + merges / min(cores, SPILL_PARTITIONS)
        if capped and stage == "shards":
            merges = model["shards_per_gb"] * gb
            shards = shard_count(model, gb)
            work, wall = work - merges, wall + (merges + index_core_seconds(model, gb)) / min(cores, shards)
        wall += work / cores
    return wall


def projection_rows(rows: list[tuple[dict, dict]]) -> list[str]:
    all_figures = [result["figures"] for _, result in rows]
    fitted, model = projection(all_figures), merge_model(all_figures)
    training = all_figures[-1]["tokenizer"]["training"]
    training_cpu, training_wall = training_constant(training)
    lines = ["", (f"Projection: least-squares fit over the {len(rows)} sizes, core-s = fixed + per GB × GB (likewise "
             "shuffle and side-input bytes), scaled to 1 TB and 100 TB. The tokenizer's BPE training runs on "
             f"the driver on a fixed-size sample: measured {training['cpu']:.1f} core-s ({training['wall']:.1f} s "
             f"wall) for {training['documents']:,} documents of {training['text_bytes'] / 1e6:.0f} MB, so "
             f"{training_cpu:,.0f} core-s ({training_wall / 60:,.1f} min on a driver with one free core) at the default "
             f"{SAMPLE_DOCUMENTS:,}, in the tokenizer's fixed cost; its side input (the sample's ids) is "
             "likewise constant."), "",
             ("| stage | core-s/GB | fixed core-s | shuffle /GB | core-h at 1 TB | core-h at 100 TB | "
             "shuffle at 1 TB | shuffle at 100 TB | side input at 1 TB | side input at 100 TB |"),
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    totals = collections.Counter()
    for stage in STAGES:
        (fixed, per_gb), shuffle, side = fitted[stage]["cpu"], fitted[stage]["shuffle"], fitted[stage]["side"]
        cells = []
        for gb in (1000, 100_000):
            hours, shuffled = (fixed + per_gb * gb) / 3600, max(0.0, shuffle[0] + shuffle[1] * gb)
            totals[f"cpu{gb}"] += hours
            totals[f"shuffle{gb}"] += shuffled
            cells.append((hours, shuffled, max(0.0, side[0] + side[1] * gb)))
        lines.append(
            f"| {stage} | {per_gb:,.0f} | {fixed:,.0f} | {fmt_bytes(max(0.0, shuffle[1]))} | {cells[0][0]:,.1f} | "
            f"{cells[1][0]:,.0f} | {fmt_bytes(cells[0][1])} | {fmt_bytes(cells[1][1])} | {fmt_bytes(cells[0][2])} | "
            f"{fmt_bytes(cells[1][2])} |")
    index_hours = [index_core_seconds(model, gb) / 3600 for gb in (1000, 100_000)]
    lines.append(f"| shards: run-index slicing (∝ GB) | | | | {index_hours[0]:,.1f} | {index_hours[1]:,.0f} | | | | |")
    lines.append(f"| **total** | {sum(fitted[s]['cpu'][1] for s in STAGES):,.0f} | | | "
                 f"**{totals['cpu1000'] + index_hours[0]:,.0f}** | **{totals['cpu100000'] + index_hours[1]:,.0f}** | "
                 f"**{fmt_bytes(totals['shuffle1000'])}** | **{fmt_bytes(totals['shuffle100000'])}** | | |")
    shard_merge = [model["shards_per_gb"] * gb / shard_count(model, gb)
                   for gb in (1000, 100_000)]
    lines += ["", ("The tokenizer's shuffle is an upper bound: here the sample (20,000 smallest ids) held every "
                   "document, so every id crossed; on a larger corpus each bundle sends at most 20,000 ids, all to "
                   "one key."), "",
              (f"Merges of run files, measured: dedup's spill merges {model['dedup_per_gb']:,.0f} busy s/GB "
               f"(at most {SPILL_PARTITIONS} tasks per grouping, `pipelines.spill.PARTITIONS`); the shards' merges "
               f"{model['shards_per_gb']:,.0f} busy s/GB (one task per {SHARD_SIZE_BYTES / 1e6:,.0f} MB shard), and "
               "before they merge, each run's index is read once and cut into shard slices: "
               f"{model['index_seconds_per_document'] * 1e6:.1f} µs and {model['index_bytes_per_document']:.0f} "
               f"bytes per document ({model['documents_per_gb']:,.0f} documents and {model['runs_per_gb']:.0f} runs "
               f"per GB here); a shard's task then reads only its own documents' rows. One shard's task so takes "
               f"{shard_merge[0] / 60:,.1f} min at 1 TB ({shard_count(model, 1000):,} shards) and "
               f"{shard_merge[1] / 60:,.1f} min at 100 TB ({shard_count(model, 100_000):,} shards)."), "",
              ("Wall on a cluster: \"even\" spreads every stage's per-GB work over the cores; \"capped\" also "
               "holds the merges to their task counts and adds the run-index reads. Both add the driver's BPE "
               "training (one machine, whatever the cluster), and neither counts pipeline start-up, stragglers "
               "or a largest key (see docs/scaling.md):"), "",
              "| cores | 1 TB even | 1 TB capped | 100 TB even | 100 TB capped |", "|---:|---:|---:|---:|---:|"]
    for cores in CLUSTER_CORES:
        cells = [cluster_wall(fitted, model, training_wall, gb, cores, capped)
                 for gb in (1000, 100_000) for capped in (False, True)]
        lines.append(f"| {cores:,} | {cells[0] / 60:,.0f} min | {cells[1] / 60:,.0f} min | {cells[2] / 3600:,.1f} h | "
                     f"{cells[3] / 3600:,.1f} h |")
    return lines


def quality_rows(rows: list[tuple[dict, dict]]) -> list[str]:
    """How well a line fits each stage's core-seconds and shuffle bytes over the sizes: R² and each
    size's residual (measured - fitted)."""
    all_figures = [result["figures"] for _, result in rows]
    sizes = " / ".join(f"{info['bytes'] / 1e6:.0f}" for info, _ in rows)
    lines = ["", (f"Fit quality per stage: R² of the line and residuals (measured − fitted) at {sizes} MB. core-s "
             "leave out the BPE training (a constant, above); shuffle = runner + run files."), "",
             ("| stage | core-s R² | core-s residuals | core-s residuals, % of measured | shuffle R² | "
              "shuffle residuals |"), "|---|---:|---|---|---:|---|"]
    for stage in STAGES:
        points = [figures[stage] for figures in all_figures]
        cpu = [(f["gb"], f["cpu"] - f.get("training", {}).get("cpu", 0.0)) for f in points]
        shuffle = [(f["gb"], f["runner_shuffle"] + f["file_shuffle"]) for f in points]
        (cpu_r2, cpu_res), (sh_r2, sh_res) = fit_quality(cpu), fit_quality(shuffle)
        lines.append(
            f"| {stage} | {cpu_r2:.4f} | {' / '.join(f'{r:+,.1f}' for r in cpu_res)} | "
            f"{' / '.join(f'{100 * r / y:+.1f}' if y else '–' for r, (_, y) in zip(cpu_res, cpu))} | "
            f"{sh_r2:.4f} | {' / '.join(('+' if r >= 0 else '−') + fmt_bytes(abs(r)) for r in sh_res)} |")
    return lines


def render(rows: list[tuple[dict, dict]], args: argparse.Namespace, started: str, roots: list[Path]) -> str:
    return "\n".join([*header(rows, args, started, roots), *driver_rows(rows), *stage_rows(rows),
                      *projection_rows(rows), *quality_rows(rows)]) + "\n\n"


# ---------------------------------------------------------------- entry point


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.scaleout", description=__doc__.split("\n\n")[0])
    parser.add_argument("--roots", type=Path, nargs="+", help="directories of .py files (default: stdlib + venv)")
    parser.add_argument("--megabytes", type=float, nargs="+", default=[16, 64, 256])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--join", choices=JOINS, default=KEYED_JOIN,
                        help="dedup.join (default keyed_join: the path cluster runners take)")
    parser.add_argument("--pool", type=Path, help="a bench.mirror_corpus pool (its parts make up each size)")
    parser.add_argument("--work", type=Path, default=CACHE / "builds")
    parser.add_argument("--results", type=Path, default=BENCH / "RESULTS.md")
    parser.add_argument("--render-only", action="store_true",
                        help="rewrite the section from the figures.json of an earlier run under --work")
    args = parser.parse_args(argv)
    args.argv = argv
    return args


def main(argv: list[str]) -> None:
    if argv[:1] == ["--child"]:
        child(argv[1:])
        return
    args = parse_args(argv)
    started = common.begin_run()
    roots = [root.resolve() for root in (args.roots or common.default_roots())]
    rows = []
    for megabytes in args.megabytes:
        saved = args.work / f"{megabytes:g}MB" / "figures.json"
        if args.render_only:
            result = json.loads(saved.read_text())
            info = result.pop("info")
            result["figures"] = stage_figures(result, info["bytes"])
            rows.append((info, result))
            started = result.get("started", started)
            continue
        if args.pool:
            paths, info = pool_corpus(args.pool, megabytes)
            include = ["*"]
        else:
            corpus_dir, info = corpus(roots, megabytes)
            paths, include = [corpus_dir / "files"], ["*.py"]
        result = measured_build(paths, args.work / f"{megabytes:g}MB", args.workers, args.join, include)
        result["figures"] = stage_figures(result, info["bytes"])
        logger.info("%.1f MB: %.1f s wall, %.1f core-s", info["bytes"] / 1e6, result["wall"],
                    sum(result["manifest"]["local_cpu_seconds"].values()))
        saved.write_text(json.dumps({"info": info, "started": started, **result}))
        rows.append((info, result))
        common.write_section(args.results, render(rows, args, started, roots), BEGIN, END)  # partial results survive
    common.write_section(args.results, render(rows, args, started, roots), BEGIN, END)
    logger.info("wrote %s", args.results)


if __name__ == "__main__":
    main(sys.argv[1:])
