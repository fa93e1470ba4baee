"""`mix build`: crawl -> filter -> tokenizer -> dedup (+ repositories) -> shards -> manifest.

Each stage is its own Beam pipeline that reads the previous stage's Parquet under ``OUT/work/``
and writes its own, so any stage can be inspected with pyarrow or rerun alone (``--from-stage``).
Stages are resumable (``pipelines.resume``): a build killed at any point and rerun with the same
command reuses every stage that had finished and gives byte-identical output, unless its inputs or
the code changed since (``pipelines.fingerprints``). An unchanged rerun of a finished build is up
to date; a changed one replaces its outputs only once complete (``publish_build``). Counts come
from the files each stage wrote.

The build fails loudly, before any shard is written, when a source cannot be read or would be left
out of a blend (``pipelines.health``), ends with a health summary, draws its progress
(``pipelines.progress``) and ends cleanly on Ctrl-C (``pipelines.interrupts``).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable, Iterable

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from tokenizers import Tokenizer

from codemix.mixtures.blend import relative_prefixes, with_found_prefixes
from codemix.mixtures.sft_export import tokenizer_files
from codemix.mixtures.spec import MixtureSpec
from codemix.mixtures.stages import FILES, REPOSITORIES, SAMPLES, stage_kind, stages_of_shape
from codemix.mixtures.tokenizer import load_tokenizer, pick_pad_token, save_tokenizer, token_id, train_bpe
from codemix.mixtures.tokenizer import tokenizer_fingerprint as ids_fingerprint
from codemix.pipelines import fingerprints, jobs, ledger, out_lock, sdk_workers, stopped
from codemix.pipelines.card import write_card
from codemix.pipelines.crawl import Crawl
from codemix.pipelines.dedup.deduplicate import run_dedup
from codemix.pipelines.dedup.repository_dedup import run_repo_dedup
from codemix.pipelines.filter import Filter
from codemix.pipelines.git_copies import submodules_by_location
from codemix.pipelines.health import build_health, check_crawl, check_kept, check_stages_filled
from codemix.pipelines.interrupts import exit_cleanly_on_interrupt
from codemix.pipelines.manifest import BuildLayout, build_manifest, write_json
from codemix.pipelines.options import (
    pipeline_options,
    runner_name,
    worker_count,
)
from codemix.pipelines.preflight import BEFORE_LOCK, HOLDING_LOCK, Preflight
from codemix.pipelines.progress import BuildDisplay, Progress, doc_text_bytes
from codemix.pipelines.quality import QUALITY, QUALITY_SCHEMA
from codemix.pipelines.resume import MissingOutputs, StageRunner, stage_key, write_atomically
from codemix.pipelines.shape_long_context import ShapeLongContext
from codemix.pipelines.shape_sft import ShapeSFT
from codemix.pipelines.shards import WriteShards, stage_entries, stats_to_json
from codemix.pipelines.tally import STAGE_MEASURES, TallyRecords, by_first, tallies_locally, tally_stage, total
from codemix.pipelines.tokenizer_sample import sample_texts

LOG = logging.getLogger("codemix.build")
STAGES = ("crawl", "filter", "dedup", "shards")  # where --from-stage may start
# What a stage's attempt must hold before it is committed (Beam writes one Parquet file even for no
# rows, so these are there whenever the workers wrote where the driver reads).
DOCUMENT_OUTPUTS = ("docs-*.parquet", "dropped-*.parquet")
DEDUP_OUTPUTS = ("docs-*.parquet", "duplicates-*.parquet")


def run_crawl(spec: MixtureSpec, out: str, beam_args: list[str]) -> dict:
    with jobs.Pipeline(options=pipeline_options(beam_args)) as pipeline:
        outcomes = pipeline | "Crawl" >> Crawl(spec.sources, spec.filters.redaction, worker_count(beam_args))
        _ = outcomes[ledger.DOCS] | "WriteDocuments" >> ledger.WriteDocuments(f"{out}/docs")
        _ = outcomes[ledger.DROPPED] | "WriteDropped" >> ledger.WriteDropped(f"{out}/dropped")
        _ = outcomes[ledger.QUARANTINED] | "WriteQuarantined" >> ledger.WriteQuarantined(f"{out}/quarantine/crawl")
        _ = outcomes[ledger.REDACTIONS] | "WriteRedactions" >> ledger.WriteRedactions(f"{out}/redactions")
        _ = outcomes[ledger.READS] | "WriteReadCounts" >> ledger.WriteReadCounts(f"{out}/reads")
        if not tallies_locally(out, beam_args):
            _ = ({"docs": outcomes[ledger.DOCS], "dropped": outcomes[ledger.DROPPED],
                  "redactions": outcomes[ledger.REDACTIONS]} | "Tally" >> TallyRecords(out, STAGE_MEASURES["crawl"]))
    if tallies_locally(out, beam_args):
        tally_stage(out, STAGE_MEASURES["crawl"], beam_args)
    return {}


def publish_quarantine(layout: BuildLayout, attempt_dir: str) -> None:
    """The crawl's quarantine records are copied to OUT/quarantine/, where users look for them (copied,
    not moved: the crawl's committed attempt lists them)."""
    ledger.remove_tree(layout.quarantine)
    FileSystems.mkdirs(layout.quarantine)
    files = ledger.matched_files(f"{attempt_dir}/quarantine/*.jsonl")
    if files:
        FileSystems.copy(files, [f"{layout.quarantine}/{path.rsplit('/', 1)[-1]}" for path in files])


def run_filter(spec: MixtureSpec, layout: BuildLayout, out: str, beam_args: list[str]) -> dict:
    with jobs.Pipeline(options=pipeline_options(beam_args)) as pipeline:
        inputs = {"docs": pipeline | "ReadCrawled" >> ledger.read_documents(layout.docs("crawl")),
                  "evidence": pipeline | "ReadForLicenses" >> ledger.read_documents(layout.docs("crawl"))}
        outcomes = inputs | "Filter" >> Filter(spec.filters, expected=total(layout.tally("crawl")["docs"]),
                                               workers=worker_count(beam_args), spill_dir=f"{out}/runs/groups")
        _ = outcomes[ledger.DOCS] | "WriteDocuments" >> ledger.WriteDocuments(f"{out}/docs")
        _ = outcomes[ledger.DROPPED] | "WriteDropped" >> ledger.WriteDropped(f"{out}/dropped")
        _ = outcomes[ledger.HELD] | "WriteHeld" >> ledger.WriteDocuments(f"{out}/held")
        _ = outcomes[ledger.CONTAMINATION] | "WriteContamination" >> ledger.WriteContamination(
            f"{out}/contamination")
        if QUALITY in outcomes:
            _ = outcomes[QUALITY] | "WriteQuality" >> ledger.WriteRows(f"{out}/quality", QUALITY_SCHEMA, dict)
        if not tallies_locally(out, beam_args):
            _ = ({"docs": outcomes[ledger.DOCS], "dropped": outcomes[ledger.DROPPED]}
                 | "Tally" >> TallyRecords(out, STAGE_MEASURES["filter"]))
    if tallies_locally(out, beam_args):
        tally_stage(out, STAGE_MEASURES["filter"], beam_args)
    ledger.remove_tree(f"{out}/runs")  # the amalgamation check's grouped line hashes, read by now
    return {}


def uses_repository_dedup(spec: MixtureSpec) -> bool:
    return spec.dedup.repository_level and bool(stages_of_shape(spec.stages, REPOSITORIES))


def run_shards(spec: MixtureSpec, layout: BuildLayout, out: str, beam_args: list[str],
               vocab_size: int | None = None) -> dict:
    """Each stage's documents by its kind (``mixtures.stages``): kept documents as they are, whole
    repositories in dependency order (read after repository-level dedup, so file-level dedup never
    removes files from them), or transcripts as loss-masked samples; then tokenized into shards. Shards
    go into the attempt folder ``out`` (``out/STAGE/``), like every stage's output: ``publish_build``
    puts them in place once the build is complete."""
    tokenizer_path = committed_tokenizer(layout)
    with jobs.Pipeline(options=pipeline_options(beam_args)) as pipeline:
        deduplicated = (pipeline | "ReadDeduplicated" >> ledger.read_documents(layout.docs("dedup"))
                        | "CountRead" >> beam.ParDo(Progress("read", doc_text_bytes)))
        file_sources = {stage: sorted(spec.stages[stage].weights) for stage in stages_of_shape(spec.stages, FILES)}
        entries = [deduplicated | "RouteToStages" >> beam.FlatMap(stage_entries, file_sources)]
        entries += [shape_repositories(pipeline, spec, layout, out, stage)
                    for stage in stages_of_shape(spec.stages, REPOSITORIES)]
        sample_stats = [shape_samples(pipeline, deduplicated, spec, layout, out, stage)
                        for stage in stages_of_shape(spec.stages, SAMPLES)]
        stats = (
            tuple(entries)
            | "AllEntries" >> beam.Flatten()
            | "WriteShards" >> WriteShards(out_dir=out, runs_dir=f"{out}/runs", tokenizer_path=tokenizer_path,
                                           eod_token=spec.tokenizer.eod_token, shard_size_bytes=spec.shard_size_bytes,
                                           workers=worker_count(beam_args), docs=True, vocab_size=vocab_size))
        _ = (
            (stats, *sample_stats)
            | "AllStats" >> beam.Flatten()
            | "StatsToJson" >> beam.Map(stats_to_json)
            | "WriteStats" >> ledger.write_text(f"{out}/stats", ".jsonl")
        )
    ledger.remove_tree(f"{out}/runs")  # merged into the shards; what is left is from failed bundles
    shard_stats = ledger.read_jsonl(f"{out}/stats*.jsonl")
    check_shards_written(out, shard_stats)
    check_stages_filled(spec, layout, "shards", repository_level=uses_repository_dedup(spec), shard_stats=shard_stats,
                        shaping=ledger.read_jsonl(f"{out}/shaping*.jsonl"))
    return {}


def shape_repositories(pipeline, spec: MixtureSpec, layout: BuildLayout, out: str, stage: str):
    """A repositories stage's entries, with the filter's held files its kept files import and each
    repository's submodules; what shaping dropped or put back goes to ``shaping-STAGE``."""
    config = spec.stages[stage]
    input_docs = layout.docs(stage_kind(stage).dedup_output(spec.dedup.repository_level))
    inputs = {"docs": pipeline | f"Read[{stage}]" >> ledger.read_documents(input_docs)
              | f"CountRead[{stage}]" >> beam.ParDo(Progress("read", doc_text_bytes))}
    if ledger.matched_files(layout.held("filter")):  # absent from a filter attempt made before held files
        inputs["held"] = pipeline | f"ReadHeld[{stage}]" >> ledger.read_documents(layout.held("filter"))
    entries, shaping = inputs | f"ShapeRepositories[{stage}]" >> ShapeLongContext(
        stage=stage, sources=sorted(config.weights), tokenizer_path=committed_tokenizer(layout),
        sequence_length=config.sequence_length, config=config.repository, spill_dir=f"{out}/runs/groups",
        submodules=submodules_by_location(layout.dropped("crawl")))
    _ = shaping | f"WriteShaping[{stage}]" >> ledger.write_text(f"{out}/shaping-{stage}", ".jsonl")
    return entries


def shape_samples(pipeline, deduplicated, spec: MixtureSpec, layout: BuildLayout, out: str, stage: str):
    """A samples stage's shard stats (it writes its own paired shards); shaping drops to ``shaping-STAGE``."""
    config = spec.stages[stage]
    inputs = {"docs": deduplicated, "sizes": pipeline | f"ReadSizes[{stage}]" >> ledger.read_documents(layout.docs("dedup"))}
    stats, shaping = inputs | f"ShapeSamples[{stage}]" >> ShapeSFT(
        stage=stage, sources=sorted(config.weights), out_dir=out, tokenizer_path=committed_tokenizer(layout),
        sequence_length=config.sequence_length, config=config.sft, shard_size_bytes=spec.shard_size_bytes,
        spill_dir=f"{out}/runs/groups")
    _ = shaping | f"WriteShaping[{stage}]" >> ledger.write_text(f"{out}/shaping-{stage}", ".jsonl")
    return stats


def check_shards_written(out: str, shard_stats: list[dict]) -> None:
    """Every shard the stats name has its .bin and .idx where the driver will look (the attempt ``out``)."""
    present = {path for stage in {s["stage"] for s in shard_stats}
               for path in ledger.matched_files(f"{out}/{stage}/*")}
    missing = [f"{s['prefix']}{suffix}" for s in shard_stats for suffix in (".bin", ".idx")
               if f"{s['prefix']}{suffix}" not in present]
    if missing:
        raise MissingOutputs(f"the shards stage finished, but {len(missing)} shard file(s) are missing, e.g. "
                             f"{missing[0]}. Its workers wrote where this machine cannot see: with a runner whose "
                             "workers share no disk with this machine, give --out as gs://... or s3://...")


def shard_entries(spec: MixtureSpec, layout: BuildLayout) -> int:
    """Documents the shards stage tokenizes (what its bar counts): every kept document once per
    file-level stage that weights its source, exactly; the long stage's documents are known only once
    its repositories are shaped, so each repository counts as one (it makes at least one)."""
    kept = by_first(layout.tally("dedup")["docs"])
    entries = sum(kept.get(source, 0) for stage in stages_of_shape(spec.stages, FILES)
                  for source in spec.stages[stage].weights)
    for stage in stages_of_shape(spec.stages, REPOSITORIES):
        entries += total(layout.tally(stage_kind(stage).dedup_output(spec.dedup.repository_level))["repositories"])
    return entries


def prepare_tokenizer(spec: MixtureSpec, layout: BuildLayout, out: str, beam_args: list[str],
                      counted: Callable[[list[str]], Iterable[str]] = iter) -> dict:
    """Copy the spec's tokenizer, or train a byte-level BPE on filtered documents, into ``out``.
    ``counted`` wraps the training texts, to show how far the trainer has read them."""
    config = spec.tokenizer
    if config.path:
        tokenizer = load_tokenizer(config.path)
        origin = config.path
    else:
        texts = sample_texts(layout.docs("filter"), config.train_sample_documents, out, beam_args)
        if not texts:
            raise RuntimeError("no documents survived filtering, so there is nothing to train a tokenizer on; "
                               "check the quarantine and drop counts, or give tokenizer.path")
        tokenizer = train_bpe(counted(texts), config.trained_vocab_size)
        origin = f"trained on {len(texts):,} filtered documents"
    save_tokenizer(tokenizer, f"{out}/tokenizer.json")
    return {"path": layout.tokenizer, "origin": origin,
            "vocab_size": tokenizer.get_vocab_size(with_added_tokens=True),
            "eod_token": config.eod_token, "eod_id": token_id(tokenizer, config.eod_token)}


def committed_tokenizer(layout: BuildLayout) -> str:
    """The tokenizer the shards stage reads: the committed tokenizer stage's, not OUT/tokenizer.json,
    which stays the finished build's until ``publish_build`` replaces it."""
    return f"{layout.stage_dir('tokenizer')}/tokenizer.json"


def publish_build(spec: MixtureSpec, layout: BuildLayout, manifest: dict) -> None:
    """Put the committed tokenizer and shards where a trainer looks (OUT/tokenizer.json, OUT/STAGE/),
    then write the manifest. An earlier build's manifest goes first: a publish cut short leaves an
    unfinished build, which the rerun (every stage reused) publishes again. Local shards are
    hard-linked, not copied; the committed attempt's files are never written again."""
    if FileSystems.exists(layout.manifest):
        FileSystems.delete([layout.manifest])
    with FileSystems.open(committed_tokenizer(layout)) as handle:
        write_atomically(layout.tokenizer, handle.read())
    shards = layout.stage_dir("shards")
    for stage in spec.stages:
        ledger.remove_tree(f"{layout.out}/{stage}")
        committed = f"{shards}/{stage}/"
        files = ledger.list_tree(committed)  # shards, their sidecars, and the published documents in docs/
        ledger.link_or_copy(files, [f"{layout.out}/{stage}/{path[len(committed):]}" for path in files])
        if stage_kind(stage).has_chat_template and any("/chat/" in path for path in files):
            publish_chat_tokenizer(spec, layout, stage, manifest["tokenizer"]["eod_token"])
    write_json(layout.manifest, relative_prefixes(manifest, layout.out))  # a moved build still names its shards


def publish_chat_tokenizer(spec: MixtureSpec, layout: BuildLayout, stage: str, eod_token: str) -> None:
    """OUT/STAGE/chat/: the build's tokenizer.json and the chat template its exported messages render
    to the shards' ids with (``mixtures.sft_export.tokenizer_files``)."""
    config = spec.stages[stage]
    with FileSystems.open(layout.tokenizer) as handle:
        tokenizer_json = handle.read()
    pad_token = pick_pad_token(Tokenizer.from_str(tokenizer_json.decode()), eod_token) or eod_token  # as HF trainers
    files = {"tokenizer.json": tokenizer_json, **tokenizer_files(config.sft.template, config.sft.reasoning, eod_token,
                                                                 pad_token, config.sequence_length)}
    for name, data in files.items():
        write_atomically(f"{layout.out}/{stage}/chat/{name}", data)


def tokenizer_fingerprint(spec: MixtureSpec) -> str:
    """A given tokenizer is part of the tokenizer stage's identity: what decides its ids (vocabulary,
    merges, special tokens, pre-tokenizer), however it is stored. A tiktoken file's special tokens and
    split pattern live in the tokenizer_config.json beside it, so hashing the file alone would miss an edit there."""
    if not spec.tokenizer.path:
        return ""
    return ids_fingerprint(load_tokenizer(spec.tokenizer.path))


def crawl_facts(facts: dict) -> dict:
    """What the crawl's marker keeps to explain a rerun: the code, and each source's inputs."""
    return {"code": facts["code"], **{f"source:{name}": prints for name, prints in facts["sources"].items()}}


def stage_keys(spec: MixtureSpec, facts: dict) -> dict[str, str]:
    """Each stage's key: the config and inputs that shape its output, chained to what it reads. The
    code fingerprint starts the chain: any change to a build package's sources reruns every stage."""
    crawl = stage_key(facts["code"], facts["version"], spec.sources, facts["sources"], spec.filters.redaction)
    filtered = stage_key(crawl, spec.filters, facts["benchmarks"], facts["quality_model"])
    tokenizer = stage_key(filtered, spec.tokenizer, tokenizer_fingerprint(spec))
    dedup = stage_key(filtered, spec.dedup, facts["previous_indexes"])
    repo_dedup = stage_key(dedup, "repositories")
    shards = stage_key(repo_dedup, tokenizer, spec.stages, spec.shard_size_bytes)
    return {"crawl": crawl, "filter": filtered, "tokenizer": tokenizer, "dedup": dedup, "repo_dedup": repo_dedup,
            "shards": shards}


def tallied(stage: str, run: Callable[[str], dict], beam_args: list[str]) -> Callable[[str], dict]:
    """``run``, then the stage's counts (``pipelines.tally``) by a Beam pipeline over what it wrote:
    dedup's stages run several pipelines, and count what their last one kept."""
    def run_and_tally(out: str) -> dict:
        result = run(out)
        tally_stage(out, STAGE_MEASURES[stage], beam_args)
        return result
    return run_and_tally


def stage_plan(spec: MixtureSpec) -> list[str]:
    return ["crawl", "filter", "tokenizer", "dedup", *(["repo_dedup"] if uses_repository_dedup(spec) else []), "shards"]


def run_build(spec: MixtureSpec, out_dir: str, beam_args: list[str], **options) -> dict:
    """``_run_build`` (its keyword ``options``) within the build's one SDK worker server block. With
    FnApiRunner's ``multi_processing`` mode the server is this driver forked now, before any check loads
    anything (a tokenizer, a lock, a source's listing) or any pipeline runs: it has every module the stages'
    workers unpickle without importing one again (``sdk_workers.forked_workers``' ``start``)."""
    forked = sdk_workers.forks_workers(pipeline_options(beam_args))
    with sdk_workers.forked_workers(sdk_workers.loaded_modules("codemix"), start=forked):
        return _run_build(spec, out_dir, beam_args, **options)


def _run_build(spec: MixtureSpec, out_dir: str, beam_args: list[str], *, from_stage: str = "crawl",
               fresh: bool = False, echo: Callable[[str], None] = print, allow_missing: Iterable[str] = (),
               live: bool = False, command: str = "", stall_seconds: float = jobs.STALL_SECONDS,
               force: bool = False, done: list[str] | None = None) -> dict:
    """Run (or resume) every stage and write ``OUT/manifest.json``; returns the manifest.

    An unfinished build in ``out_dir`` is resumed; a finished one is rebuilt, unless ``from_stage``
    names a later stage: then that stage and every later one rerun, reusing the earlier outputs.
    ``fresh`` ignores every earlier output. An ``out_dir`` that cannot be written, that holds other
    files than a build's (unless ``force``), or that another build holds (``out_lock.OutputLocked``)
    is refused before any work; so is a location that cannot be read, or a tokenizer file that does
    not fit the spec (``pipelines.preflight``). Sources in ``allow_missing`` (with the spec's own) may
    be unreadable or left out of a blend; any other such source raises ``health.BuildFailure``
    before shards are written. ``live`` draws progress bars; an interrupt cancels the running Beam job
    (``pipelines.jobs``), says what is kept and how to resume (``command``, the user's command line)
    and exits 130 (143 on SIGTERM); a service the job needs that stays silent for ``stall_seconds``
    cancels it and raises ``jobs.ServiceLost``; a write the system refuses raises ``stopped.WriteFailed``.
    ``done`` (a list) receives each stage this run commits or reuses, for the caller's own messages.
    """
    done = [] if done is None else done
    checked = Preflight(spec=spec, beam_args=beam_args, out=out_dir, force=force, allow_missing=allow_missing,
                        echo=echo).run(BEFORE_LOCK)
    beam_args = checked.beam_args

    def stop_message() -> str:
        notes = [cancel.sentence() for cancel in jobs.unconfirmed_cancels()]
        return stopped.stopped_paragraph("interrupted", out_dir, command, done, notes)

    with out_lock.hold(out_dir, beam_args, command or "mix build", echo) as release_lock, \
            exit_cleanly_on_interrupt(stop_message, before_exit=release_lock):
        checked.run(HOLDING_LOCK)
        spec, facts, allowed = checked.spec, checked.facts, checked.allowed
        display = BuildDisplay(stage_plan(spec), live=live, echo=echo)
        try:
            # One SDK worker server for every stage: run_build's (forked from this driver), else one preloaded
            # with the modules the driver imported to build the stages.
            with exit_cleanly_on_interrupt(stop_message, before_exit=lambda: (jobs.cancel_running(), display.close())), \
                    jobs.watching(beam_args, stall_seconds), \
                    sdk_workers.forked_workers(sdk_workers.loaded_modules("codemix"), shared=True):
                return _run_stages(spec, facts, BuildLayout(out_dir.rstrip("/")), beam_args, allowed,
                                   display, from_stage=from_stage, fresh=fresh, done=done)
        finally:
            display.close()


def _run_stages(spec: MixtureSpec, facts: dict, layout: BuildLayout, beam_args: list[str], allowed: set[str],
                display: BuildDisplay, *, from_stage: str, fresh: bool, done: list[str]) -> dict:
    """``run_build``'s body; ``beam_args`` name the runner, so every stage, dedup's passes too, use it."""
    # A finished build stays whole (its manifest, tokenizer and shards) until this run publishes its own.
    finished = FileSystems.exists(layout.manifest)
    runner = StageRunner(layout.work, display.echo, runner_name(beam_args), reuse=not fresh,
                         force_from=None if from_stage == "crawl" else from_stage,
                         earlier="the finished build" if finished else "the interrupted run", done=done)
    runner.on_reuse = display.mark_reused
    keys = stage_keys(spec, facts)
    with display.stage("crawl", expected=fingerprints.expected_records(facts["sources"]), step="read",
                       unit="records"):
        runner.run("crawl", keys["crawl"], lambda out: run_crawl(spec, out, beam_args),
                   after=lambda attempt: publish_quarantine(layout, attempt), facts=crawl_facts(facts),
                   outputs=DOCUMENT_OUTPUTS,
                   input_bytes=lambda: stopped.local_bytes([p for source in spec.sources for p in source.paths]))
    allowed_notes = check_crawl(spec, layout, allowed)
    with display.stage("filter", expected=total(layout.tally("crawl")["docs"])):
        runner.run("filter", keys["filter"], lambda out: run_filter(spec, layout, out, beam_args),
                   outputs=DOCUMENT_OUTPUTS)
    check_stages_filled(spec, layout, "filter")
    with display.stage("tokenizer"):
        tokenizer = runner.run("tokenizer", keys["tokenizer"], lambda out: prepare_tokenizer(
            spec, layout, out, beam_args, lambda texts: display.counted(texts, label="training BPE", total=len(texts))),
            outputs=("tokenizer.json",))
    filtered = total(layout.tally("filter")["docs"])
    with display.stage("dedup", expected=filtered, step="read", status_logger="codemix.pipelines.dedup"):
        dedup = runner.run("dedup", keys["dedup"], tallied("dedup", lambda out: dataclasses.asdict(
            run_dedup(layout.docs("filter"), out, spec.dedup, beam_args)), beam_args), outputs=DEDUP_OUTPUTS)
    display.echo(f"[dedup] {dedup['exact_duplicates']:,} exact, {dedup['near_duplicates']:,} near and "
                 f"{dedup['previous_duplicates']:,} earlier-build duplicates (Jaccard >= {spec.dedup.threshold:.2f}); "
                 f"{dedup['verified_pairs']:,} of {dedup['candidate_pairs']:,} candidate pairs verified, "
                 f"{dedup['component_passes']} component passes")
    if uses_repository_dedup(spec):
        with display.stage("repo_dedup", expected=filtered, step="read", status_logger="codemix.pipelines.dedup"):
            repos = runner.run("repo_dedup", keys["repo_dedup"], tallied("repo_dedup", lambda out: dataclasses.asdict(
                run_repo_dedup(layout.docs("filter"), out, spec.dedup, beam_args)), beam_args), outputs=DEDUP_OUTPUTS)
        display.echo(f"[repo_dedup] {repos['repositories_kept']:,} of {repos['repositories_in']:,} repositories "
                     f"kept whole for the long stage ({repos['repository_duplicates']:,} forks or mirrors removed)")
    for source, notes in check_kept(spec, layout, allowed, repository_level=uses_repository_dedup(spec)).items():
        allowed_notes.setdefault(source, []).extend(notes)
    with display.stage("shards", expected=shard_entries(spec, layout), step="tokenized", unit="tokenized"):
        runner.run("shards", keys["shards"], lambda out: run_shards(spec, layout, out, beam_args, tokenizer["vocab_size"]))
    return finish_manifest(spec, layout, runner, tokenizer, beam_args, allowed, allowed_notes)


def finish_manifest(spec: MixtureSpec, layout: BuildLayout, runner: StageRunner, tokenizer: dict,
                    beam_args: list[str], allowed: set[str], allowed_notes: dict) -> dict:
    """The manifest, with its health summary and what was allowed to be missing, written last."""
    if set(runner.reused) >= set(stage_plan(spec)) and FileSystems.exists(layout.manifest):
        with FileSystems.open(layout.manifest) as handle:
            manifest = with_found_prefixes(json.loads(handle.read()), layout.out)
        runner.echo(f"up to date: every stage is as the finished build made it ({layout.manifest})")
        return manifest
    # Each shard where publish_build puts it: OUT/STAGE/NAME (the stats name it in the attempt folder).
    shard_stats = [{**s, "prefix": "/".join([layout.out, *s["prefix"].rsplit("/", 2)[-2:]])}
                   for s in ledger.read_jsonl(f"{layout.stage_dir('shards')}/stats*.jsonl")]
    manifest = build_manifest(spec, layout, runner=runner_name(beam_args), tokenizer=tokenizer,
                              shard_stats=shard_stats, repository_level=uses_repository_dedup(spec),
                              timings=runner.timings, reused=runner.reused,
                              cpu_seconds=runner.cpu_seconds, stage_costs=runner.stage_costs)
    for info in manifest["stages"].values():
        info["allowed_missing"] = sorted(s for s in info["missing_sources"] if s in allowed)
    manifest["health"] = build_health(spec, manifest, allowed_notes)
    publish_build(spec, layout, manifest)
    write_card(layout.out, spec, manifest)
    return manifest
