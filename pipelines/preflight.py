"""Before any stage: every location a build reads is checked, and sources no stage uses are set aside.

A missing path, a bad git ref, an unreadable archive, an unreachable URL or an empty object-store
prefix used to surface only after the whole crawl (hours, on a real one). The checks read what the
build fingerprints anyway (``pipelines.fingerprints``: a stat, a ``git rev-parse``/``ls-remote``,
an HTTP HEAD, an object-store listing), plus the first header of each local archive, so they cost
no second pass. ``mix build`` and ``mix plan`` both run them: ``CHECKS``, in order, by ``run_preflight``.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from codemix.config import ConfigError
from codemix.mixtures.spec import MixtureSpec
from codemix.pipelines.fingerprints import input_facts
from codemix.pipelines.gcp import check_gcp
from codemix.pipelines.health import BuildFailure, Problem, allow_hint, allowed_missing, location_fix
from codemix.pipelines.manifest import MANIFEST_SCHEMA
from codemix.pipelines.object_store import check_s3
from codemix.pipelines.options import (
    check_job_server,
    check_output_reachable,
    is_local_path,
    runner_name,
    shares_local_disk,
    use_filesystem_options,
    with_default_runner,
)
from codemix.pipelines.readers.git import ref_problem
from codemix.sources import SourceConfig

# Source types whose every path is one file (a transcript file): a directory
# there failed the whole source with a raw IsADirectoryError after `mix plan` called it readable.
FILE_ONLY_TYPES = ("transcripts",)


@dataclass(kw_only=True)
class Preflight:
    """One run of the checks: what they are given, and what they settle for the build (the runner's
    options, the spec as it will be built, the sources allowed to be missing, the input facts)."""

    spec: MixtureSpec
    beam_args: list[str]
    out: str | None = None  # mix build's --out; mix plan writes nothing, and the checks of --out skip
    force: bool = False     # --force: build into an --out that holds other files
    allow_missing: Sequence[str] = ()
    echo: Callable[[str], None] = print
    resolved: MixtureSpec | None = None  # the spec with its sources made reachable, unused ones still in
    allowed: set[str] = field(default_factory=set)
    facts: dict = field(default_factory=dict)

    def run(self, checks: Sequence[Callable[[Preflight], None]] | None = None) -> Preflight:
        """Run ``checks`` (default: all of ``CHECKS``) in order; the first that fails raises (what was
        settled before it stays here)."""
        for check in CHECKS if checks is None else checks:
            check(self)
        return self


def check_runner(run: Preflight) -> None:
    """The runner named (FnApiRunner unless one is given) and its file-system options in force, before
    the first read or write of a location (S3 needs its endpoint and keys)."""
    run.beam_args = with_default_runner(run.beam_args)
    use_filesystem_options(run.beam_args)


def check_out_reachable(run: Preflight) -> None:
    """A local --out is refused when the workers do not share this disk (``options.check_output_reachable``)."""
    if run.out is not None:
        check_output_reachable(run.out, run.beam_args)


def check_sources_reachable(run: Preflight) -> None:
    """Local source paths made absolute, or refused when no worker could read them; git refs checked.
    A config error, so before any service is reached."""
    run.spec = run.resolved = with_reachable_sources(run.spec, run.beam_args)


def check_runner_service(run: Preflight) -> None:
    """Flink and Spark have a job server to submit to (``options.check_job_server``)."""
    check_job_server(run.beam_args)


def check_object_stores(run: Preflight) -> None:
    """Every S3 and GCS location (and a Dataflow job's options) reachable with the credentials given."""
    locations = named_locations(run.spec, run.out)
    check_s3([location for _, location in locations], run.beam_args)
    check_gcp(locations, run.beam_args)


def check_out(run: Preflight) -> None:
    """--out writable, and empty or a build's (``check_output``)."""
    if run.out is not None:
        check_output(run.out, force=run.force)


def check_unused_sources(run: Preflight) -> None:
    """Sources no stage weights set aside (said, not crawled); the sources allowed to be missing settled."""
    run.allowed = allowed_missing(run.spec, list(run.allow_missing))
    run.spec, unused = without_unused(run.spec)
    if unused:
        run.echo(unused_note(unused))


def check_tokenizer_fits(run: Preflight) -> None:
    """A given tokenizer file loads and fits the spec (``check_tokenizer``): it fails now, not after the crawl."""
    check_tokenizer(run.spec)


def check_readable(run: Preflight) -> None:
    """Every location fingerprinted, and each that cannot be read refused (``check_locations``)."""
    run.facts = input_facts(run.spec)
    check_locations(run.spec, run.facts, run.allowed)


# The checks ``mix build`` and ``mix plan`` run, in this order: options before any service is reached,
# configuration mistakes (ConfigError) before services (ObjectStoreUnreachable), and the reading of every
# location (BuildFailure, listing each) last, as it costs the most. ``mix build`` runs the second part
# holding --out's lock (``out_lock``), so a second build into it is refused before that work.
BEFORE_LOCK: tuple[Callable[[Preflight], None], ...] = (
    check_runner, check_out_reachable, check_sources_reachable, check_runner_service, check_object_stores, check_out)
HOLDING_LOCK: tuple[Callable[[Preflight], None], ...] = (check_unused_sources, check_tokenizer_fits, check_readable)
CHECKS = BEFORE_LOCK + HOLDING_LOCK


def with_reachable_sources(spec: MixtureSpec, beam_args: list[str]) -> MixtureSpec:
    """The spec with every local source path made absolute, so workers that start in another folder
    read the same files; on a runner whose workers do not share this disk, a local path is refused
    before any work, since no worker could read it."""
    spec = copy.deepcopy(spec)
    local_disk = shares_local_disk(beam_args)
    for i, source in enumerate(spec.sources):
        for j, location in enumerate(source.paths):
            if not is_local_path(location) or location.startswith(("git@", "ssh:")):
                continue
            if not local_disk:
                raise ConfigError(
                    f"sources[{i}].paths[{j}]", f"{location} is a local path, but the {runner_name(beam_args)} "
                    "runner's workers do not share this machine's disk, so none of them could read it",
                    "copy it to storage every worker reaches and name that (gs://..., s3://...)")
            source.paths[j] = os.path.abspath(location)
    check_git_refs(spec)
    return spec


def check_git_refs(spec: MixtureSpec) -> None:
    """A git source's ref that one of its local repositories lacks (a shallow clone, another branch)
    stops the build before any work, naming the ref and what the repository holds."""
    for i, source in enumerate(spec.sources):
        if source.type != "git":
            continue
        for location in source.paths:
            if problem := ref_problem(location, source.ref):
                raise ConfigError(f"sources[{i}].ref", f"source {source.name!r}: {problem}",
                                  "set the source's ref to an existing branch, tag or commit of every listed "
                                  "repository, or fetch the ref into the clone")


_COMMIT_ID = re.compile(r"^[0-9a-fA-F]{7,64}$")
# An HTTP server that refuses HEAD (but may serve GET) says nothing about whether the file is there.
_HEAD_REFUSED = ("HTTP Error 405", "HTTP Error 501")


def unused_sources(spec: MixtureSpec) -> list[str]:
    """Sources no stage weights: crawling them would cost time and change nothing the build writes."""
    used = {name for stage in spec.stages.values() for name in stage.weights}
    return [source.name for source in spec.sources if source.name not in used]


def without_unused(spec: MixtureSpec) -> tuple[MixtureSpec, list[str]]:
    """The spec without the sources no stage uses (and their ``allow_missing`` entries), and their names."""
    unused = unused_sources(spec)
    if not unused:
        return spec, []
    spec = copy.deepcopy(spec)
    spec.sources = [s for s in spec.sources if s.name not in unused]
    spec.allow_missing = [name for name in spec.allow_missing if name not in unused]
    return spec, unused


def unused_note(unused: list[str]) -> str:
    return (f"not crawled: source(s) {', '.join(unused)} are weighted by no stage; "
            "give them a weight in a stage to build with them")


def named_locations(spec: MixtureSpec, out: str | None = None) -> list[tuple[str, str]]:
    """``(field, location)`` of everything a build reads or writes: ``--out``, every source path, every
    earlier dedup index; the object-store checks name the field of what they refuse."""
    named = [("--out", out)] if out else []
    named += [(f"sources[{i}].paths[{j}]", path) for i, source in enumerate(spec.sources)
              for j, path in enumerate(source.paths)]
    return named + [(f"dedup.previous_indexes[{k}]", path) for k, path in enumerate(spec.dedup.previous_indexes)]


def archive_error(location: str) -> str | None:
    """Why the local archive at ``location`` cannot be read: its first header is read, as the crawl would."""
    from codemix.pipelines.readers.archive import _tar_members, _zip_members

    members = _zip_members(location) if location.lower().endswith(".zip") else _tar_members(location)
    try:
        with contextlib.closing(members):
            next(members, None)
    except Exception as error:  # noqa: BLE001 - any failure to open it is what the user must hear about
        return f"{type(error).__name__}: {error}"[:300]
    return None


def git_error(source: SourceConfig, location: str, fingerprint: dict) -> str | None:
    """A git location whose ref did not resolve: unreachable, not a repository, or no such ref."""
    from codemix.pipelines.readers.git import is_remote

    if "unresolved" not in fingerprint:
        return None
    status = fingerprint["unresolved"]
    if not is_remote(location):
        if not os.path.exists(location):
            return "FileNotFoundError: No such file or directory"
        return f"not a git repository, or it has no commit {source.ref!r} (git rev-parse failed)"
    if status != 0:
        return f"git ls-remote could not read {location} (exit {status}): unreachable, or not a git repository"
    if _COMMIT_ID.match(source.ref):
        return None  # ls-remote lists branches and tags only; a commit id is checked when it is fetched
    return f"no branch or tag {source.ref!r} at {location}"


def location_error(source: SourceConfig, location: str, fingerprint: dict) -> str | None:
    """What stops the crawl from reading ``location``, from its fingerprint (and a local archive's
    first header); None when it can be read."""
    error = fingerprint.get("error")
    if error:
        return None if any(code in error for code in _HEAD_REFUSED) else error
    if source.type == "git":
        return git_error(source, location, fingerprint)
    if "://" in location:
        if fingerprint.get("files") == 0 or fingerprint.get("objects") == []:
            what = "no objects under this prefix" if source.type == "directory" else "no object at this location"
            return f"{what} (or none this machine's credentials may list)"
        return None
    if not os.access(location, os.R_OK):
        return "PermissionError: not readable by this user"
    if source.type == "directory" and not os.path.isdir(location):
        return "NotADirectoryError: a directory source needs a directory"
    if source.type in FILE_ONLY_TYPES and os.path.isdir(location):
        return f"IsADirectoryError: a {source.type} source reads files, and this path is a directory"
    if source.type == "archive" and os.path.isfile(location):
        return archive_error(location)
    return None


def fix(source_type: str, error: str) -> str:
    if error.startswith("IsADirectoryError"):
        return "list the directory's files under paths (one entry each), or read it as a source of type directory"
    if source_type == "archive" and not error.startswith(("FileNotFoundError", "PermissionError")):
        return "check that the file is a whole archive of the kind its name says (.tar.gz, .tar.zst, .zip, ...)"
    if error.startswith("no object"):
        return "check the bucket and prefix, and that the credentials given may list them"
    return location_fix(source_type, error)


def location_problems(spec: MixtureSpec, source_prints: dict[str, list[dict]]) -> list[Problem]:
    """One problem per configured location that cannot be read, naming the field and the fix; a crawl
    list's entries are checked each as a location of its own (``entry_problems``)."""
    problems = []
    for i, source in enumerate(spec.sources):
        for j, (location, fingerprint) in enumerate(zip(source.paths, source_prints.get(source.name, []))):
            field = f"sources[{i}].paths[{j}] = {location}"
            error = location_error(source, location, fingerprint)
            if error:
                problems.append(Problem(source.name, field, error, f"{fix(source.type, error)}; {allow_hint(source.name)}"))
            elif source.type == "crawl_list":
                problems += entry_problems(source, field, location, fingerprint)
    return problems


def entry_type(entry: str) -> str:
    """The source type a crawl-list entry is read as (``readers.crawl_list.entry_reader``)."""
    from codemix.pipelines.readers.archive import read_archive
    from codemix.pipelines.readers.crawl_list import entry_reader
    from codemix.pipelines.readers.git import read_git

    reader = entry_reader(entry)
    return "git" if reader is read_git else "archive" if reader is read_archive else "directory"


def entry_problems(source: SourceConfig, field: str, location: str, fingerprint: dict) -> list[Problem]:
    """Each entry of the crawl list at ``location`` that cannot be read, checked as the crawl would
    read it, against the fingerprint ``fingerprints.location_fingerprint`` took of it."""
    from codemix.pipelines.readers.common import ReadTally
    from codemix.pipelines.readers.crawl_list import list_entries

    if "entries_error" in fingerprint:
        return [Problem(source.name, field, f"the list cannot be read: {fingerprint['entries_error']}",
                        f"check that the list is a UTF-8 text file of locations; {allow_hint(source.name)}")]
    entries = [entry for entry in list_entries(source, location, ReadTally()) if isinstance(entry, str)]
    problems = []
    for n, (entry, entry_print) in enumerate(zip(entries, fingerprint.get("entries", [])), start=1):
        kind = entry_type(entry)
        error = location_error(dataclasses.replace(source, type=kind), entry, entry_print)
        if error:
            problems.append(Problem(source.name, f"{field}, entry {n} ({kind}) {entry}", error,
                                    f"{fix(kind, error)}, or remove the entry from the list; {allow_hint(source.name)}"))
    return problems


def path_problems(field: str, paths: list[str], prints: list[dict]) -> list[Problem]:
    """Files a stage reads besides the sources (earlier dedup indexes, a quality model) that cannot be read."""
    return [Problem("-", f"{field}[{i}] = {path}", info["error"], "check the path, or remove it from the spec")
            for i, (path, info) in enumerate(zip(paths, prints)) if info.get("error")]


def check_locations(spec: MixtureSpec, facts: dict, allowed: set[str]) -> None:
    """Raise ``BuildFailure`` listing every location that cannot be read, but those of sources in
    ``allowed`` (the crawl quarantines them, and the manifest records it). ``facts`` are
    ``pipelines.fingerprints.input_facts``: the fingerprints of every source location and file."""
    problems = location_problems(spec, facts["sources"])
    problems += path_problems("dedup.previous_indexes", spec.dedup.previous_indexes, facts.get("previous_indexes", []))
    model = [spec.filters.quality.model] if spec.filters.quality.model else []
    problems += path_problems("filters.quality.model", model, facts.get("quality_model", []))
    blocking = [p for p in problems if p.source not in allowed]
    if blocking:
        raise BuildFailure("preflight: a location cannot be read (checked before any stage ran)", blocking)


SHOWN_ENTRIES = 5
WORK_ENTRIES = ("_COMPLETE.json", "attempt-")  # what a stage folder under OUT/work holds (pipelines.resume)


def is_build_manifest(data: object) -> bool:
    """A codemix build's manifest by its content: its schema (or, written before the schema was, the
    fields every codemix manifest has), so another tool's manifest.json is not taken for one."""
    if not isinstance(data, dict):
        return False
    if "schema" in data:
        return data["schema"] == MANIFEST_SCHEMA
    return {"codemix_version", "spec_hash", "stages", "counts"} <= set(data)


def build_evidence(out: str, entries: list[str]) -> str | None:
    """What makes ``out`` a codemix build, finished or begun: a manifest of codemix's schema, stage
    folders under work/ holding attempts or markers, or a build's lock; None when nothing does."""
    from codemix.pipelines.out_lock import LOCK_NAME, read_holder

    if "manifest.json" in entries and is_build_manifest(_read_json(f"{out}/manifest.json")):
        return "manifest"
    if "work" in entries and _holds_stages(f"{out}/work"):
        return "work"
    if LOCK_NAME in entries and read_holder(_read_bytes(f"{out}/{LOCK_NAME}")) is not None:
        return "lock"
    return None


def check_output(out: str, *, force: bool = False) -> None:
    """Refuse, before any work, an ``out`` that cannot be written, or that holds files and is not a
    codemix build (it would be written into: ``force`` allows that, but never over another tool's
    manifest.json). Leaves nothing behind."""
    entries = _local_entries(out) if "://" not in out else _stored_entries(out)
    evidence = build_evidence(out, entries) if entries else None
    if entries and evidence is None and "manifest.json" in entries:
        raise ConfigError("--out", f"{out} holds a manifest.json that is not a codemix build's (no "
                          f"\"schema\": \"{MANIFEST_SCHEMA}\"); the build would replace it",
                          "give an empty or new directory")
    if entries and not force and evidence is None:
        shown = ", ".join(entries[:SHOWN_ENTRIES]) + (f" and {len(entries) - SHOWN_ENTRIES} more"
                                                      if len(entries) > SHOWN_ENTRIES else "")
        raise ConfigError("--out", f"{out} is not empty and is not a codemix build (no codemix manifest.json, no "
                          f"work/ of stages): it holds {shown}", "give an empty or new directory, or add --force to "
                          "build into it")
    problem = _local_write_problem(out) if "://" not in out else _stored_write_problem(out)
    if problem:
        raise ConfigError("--out", f"cannot write to {out}: {problem}",
                          "give a directory this user may write (or, on an object store, credentials that may write)")


def _read_bytes(path: str) -> bytes:
    from apache_beam.io.filesystem import CompressionTypes
    from apache_beam.io.filesystems import FileSystems

    try:
        with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as handle:
            return handle.read(1 << 24)
    except Exception:  # noqa: BLE001 - unreadable is "not a build's", which the caller says
        return b""


def _read_json(path: str) -> object:
    try:
        return json.loads(_read_bytes(path).decode())
    except (ValueError, UnicodeDecodeError):
        return None


def _holds_stages(work: str) -> bool:
    """Some folder under ``work`` holds what a stage writes: its marker or an attempt folder."""
    if "://" not in work:
        with contextlib.suppress(OSError):
            return any(name.startswith(WORK_ENTRIES) for stage in os.listdir(work)
                       if os.path.isdir(os.path.join(work, stage)) for name in os.listdir(os.path.join(work, stage)))
        return False
    from apache_beam.io.filesystems import FileSystems

    prefix = work.rstrip("/") + "/"
    try:
        listed = FileSystems.match([f"{prefix}**"])[0].metadata_list
    except Exception:  # noqa: BLE001 - nothing listed: nothing that says "build"
        return False
    return any(len(p) >= 2 and p[1].startswith(WORK_ENTRIES) for p in (m.path[len(prefix):].split("/") for m in listed))


def _local_entries(out: str) -> list[str]:
    if os.path.isfile(out):
        raise ConfigError("--out", f"{out} is a file", "give a directory (new, empty, or an earlier build's)")
    if not os.path.isdir(out):
        return []
    try:
        return sorted(os.listdir(out))
    except OSError as error:
        raise ConfigError("--out", f"cannot list {out}: {error.strerror}", "give a directory this user may read") \
            from error


def _stored_entries(out: str) -> list[str]:
    """The first path parts under an object-store prefix (``work``, ``manifest.json``, ...)."""
    from apache_beam.io.filesystems import FileSystems

    prefix = out.rstrip("/") + "/"
    listed = FileSystems.match([f"{prefix}**"])[0].metadata_list
    return sorted({m.path[len(prefix):].split("/", 1)[0] for m in listed if m.path.startswith(prefix)})


def _local_write_problem(out: str) -> str | None:
    """Why a file cannot be made in ``out`` (or in its nearest existing parent, where ``out`` will be
    made); a probe is made and removed, since permission bits say nothing on a read-only mount."""
    import tempfile

    target = os.path.abspath(out)
    while not os.path.exists(target):
        target = os.path.dirname(target)
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".codemix-write-check-", dir=target))
    except OSError as error:
        return f"{error.strerror} ({target})"
    return None


def _stored_write_problem(out: str) -> str | None:
    """Why an object cannot be written under ``out`` (a probe object is written and deleted)."""
    import uuid

    from apache_beam.io.filesystems import FileSystems

    probe = f"{out.rstrip('/')}/.codemix-write-check-{uuid.uuid4().hex}"
    try:
        with FileSystems.create(probe) as handle:
            handle.write(b"codemix checks that it may write here\n")  # S3 refuses an upload of no parts
        FileSystems.delete([probe])
    except Exception as error:  # noqa: BLE001 - whatever the store says is the answer
        return f"{type(error).__name__}: {error}"[:300]
    return None


# A few lines of code and prose a tokenizer must encode, as every document will be: a model that
# cannot (a WordPiece whose unk_token is not in its vocabulary) fails on the first one.
TOKENIZER_PROBE = 'def main(argv: list[str]) -> int:\n    print("héllo, wörld 🙂", argv)\n    return 0\n'


def tokenizer_problems(spec: MixtureSpec) -> list[Problem]:
    """What makes ``tokenizer.path`` unusable for this spec: not a ``tokenizers`` tokenizer (or a
    tiktoken file), one that cannot encode, no EOD token, no special token a chat stage needs (its
    template's turn end), or more ids than ``tokenizer.vocab_size`` gives room for. (A tokenizer with
    no pad token pads with the EOD under the loss mask: ``mixtures.tokenizer.pick_pad_token``.)"""
    from codemix.mixtures.stages import stage_kind
    from codemix.mixtures.tokenizer import load_tokenizer

    config = spec.tokenizer
    if not config.path:
        return []
    where = f"tokenizer.path = {config.path}"

    def problem(error: str, fix: str) -> Problem:
        return Problem("-", where, error, fix)

    try:
        tokenizer = load_tokenizer(config.path)
    except Exception as error:  # noqa: BLE001 - whatever the file is, the user needs to hear why it is refused
        first = (str(error).splitlines() or [type(error).__name__])[0][:300]
        return [problem(f"it cannot be loaded as a tokenizer ({type(error).__name__}: {first})", "give a Hugging Face tokenizer.json (as `tokenizers` saves it), a tokenizer "
                               "directory or a tiktoken file, or remove tokenizer.path to train one")]
    try:
        tokenizer.encode(TOKENIZER_PROBE)
    except Exception as error:  # noqa: BLE001 - tokenizers raises a bare Exception from the model
        return [problem(f"it cannot encode text: {str(error)[:300]}",
                        "fix the tokenizer file (e.g. add its unk_token to the vocabulary), or use another")]
    problems = []
    if tokenizer.token_to_id(config.eod_token) is None:
        problems.append(problem(f"no EOD token {config.eod_token!r} in its vocabulary (documents end with it)",
                                "set tokenizer.eod_token to the tokenizer's end-of-text token, or add it as a "
                                "special token"))
    specials = {t.content for t in tokenizer.get_added_tokens_decoder().values() if t.special}
    for name in [stage for stage in spec.stages if stage_kind(stage).has_chat_template]:
        turn_end = spec.stages[name].sft.template.turn_end
        if turn_end not in specials:
            problems.append(problem(f"stage {name}'s template ends a turn with {turn_end!r}, which is not one of its "
                                    "special tokens (the model must learn to stop on one id)",
                                    f"use a tokenizer with {turn_end!r} as a special token, or set "
                                    f"stages.{name}.sft.template.turn_end to one it has"))
    size = tokenizer.get_vocab_size(with_added_tokens=True)
    if config.vocab_size is not None and size > config.vocab_size:
        problems.append(problem(f"it has {size:,} ids, more than tokenizer.vocab_size = {config.vocab_size:,} "
                                "(the ids the model has room for)",
                                f"set tokenizer.vocab_size to at least {size:,}, or remove it"))
    return problems


def check_tokenizer(spec: MixtureSpec) -> None:
    """Raise ``BuildFailure`` when the spec's tokenizer file cannot serve this build (``tokenizer_problems``)."""
    problems = tokenizer_problems(spec)
    if problems:
        raise BuildFailure("preflight: the tokenizer cannot be used (checked before any stage ran)", problems)
