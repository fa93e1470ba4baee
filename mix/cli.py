"""The ``mix`` command line.

Design notes: docs/design/mix.md, "mix/cli.py".
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import warnings

from codemix.config import ConfigError

# Every exit status of `mix build` and what it means: docs/exit-status.md.
BUILD_FAILED, USAGE, STRICT_WARNINGS, INTERRUPTED = 1, 2, 3, 130
WRITE_FAILED, LOCKED = 74, 75  # sysexits.h's EX_IOERR (a write the system refused), EX_TEMPFAIL (try later)
READ_COMMANDS = ("stats", "inspect", "where", "diff")  # read a finished build, local or on an object store
# Third-party noise that says nothing about the build: Beam's optional GCP client check, and
# megatron-core's fallbacks when Apex and Transformer Engine are absent (expected on CPU).
QUIET_LOG_MESSAGES = ("apitools not found",)
QUIET_WARNINGS = r".*(Apex|Transformer Engine).*"


def verbosity_argument(parser: argparse.ArgumentParser, default=0) -> None:
    parser.add_argument("-v", "--verbose", action="count", default=default,
                        help="more detail: -v codemix's INFO logs, -vv DEBUG and Beam's INFO logs")


def version_line() -> str:
    """``mix --version``: codemix's version, and the Python and Apache Beam it runs on (Beam not imported)."""
    import importlib.metadata
    import platform

    import codemix

    try:
        beam = importlib.metadata.version("apache-beam")
    except importlib.metadata.PackageNotFoundError:
        beam = "not installed"
    return f"mix (codemix) {codemix.__version__}; Python {platform.python_version()}; Apache Beam {beam}"


def positive_seconds(text: str) -> float:
    """An option's number of seconds: finite and above zero (argparse reports the error, exit 2)."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return seconds


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mix", description="Build code pretraining mixtures into Megatron shards.")
    verbosity_argument(parser)
    parser.add_argument("--version", action="version", version=version_line())
    parser.add_argument("--log-level", default=None, help="Python logging level (overrides -v)")
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name: str, **kwargs) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, **kwargs)
        verbosity_argument(sub, default=argparse.SUPPRESS)  # -v after the command works too
        return sub

    build = command("build", help="crawl, filter, dedup, tokenize and shard a mixture spec", allow_abbrev=False,
                    description="Options not listed here must be Apache Beam pipeline options; they pass to Beam.")
    build.add_argument("spec", help="mixture spec YAML")
    build.add_argument("--out", required=True, help="output directory (local, gs://, s3://)")
    build.add_argument("--from-stage", default="crawl", choices=("crawl", "filter", "dedup", "shards"),
                       help="rerun from this stage, reusing earlier stages' Parquet in OUT/work")
    build.add_argument("--fresh", action="store_true",
                       help="ignore what an earlier, interrupted run of this build finished (default: resume it)")
    build.add_argument("--allow-missing", action="append", default=[], metavar="SOURCE",
                       help="build without SOURCE if it cannot be read or has no documents left (repeatable); "
                            "recorded in manifest.json")
    build.add_argument("--force", action="store_true",
                       help="build into a non-empty --out that is not a codemix build (refused otherwise)")
    build.add_argument("--strict", action="store_true", help="exit 3 when the health summary has warnings")
    build.add_argument("--no-progress", action="store_true", help="no progress bars, one line per stage event")
    build.add_argument("--json", action="store_true",
                       help="print the final summary as JSON on stdout (docs/json.md); stage lines go to stderr")
    build.add_argument("--stall-timeout", type=positive_seconds, default=60.0, metavar="SECONDS",
                       help="cancel the running Beam job and stop when a service it needs (job service, worker "
                            "pool, S3 endpoint) has not answered for this long (default 60); a cancelled job's "
                            "runner gets as long, at most 10 s, to confirm it stopped")
    build.set_defaults(command_parser=build)

    stats = command("stats", help="a build's funnel per source, drops per reason, redactions and benchmark hits "
                                  "(--costs: CPU per stage and language)")
    stats.add_argument("out", help="a mix build output directory")
    stats.add_argument("--json", action="store_true", help="print JSON instead of tables")
    stats.add_argument("--sample", type=int, default=0, metavar="N",
                       help="also show N dropped and quarantined records per source and reason")
    stats.add_argument("--seed", type=int, default=0, help="which records --sample picks")
    stats.add_argument("--costs", action="store_true",
                       help="also show CPU per stage and language, from the manifest (timings: they differ run to run)")

    inspect = command("inspect", help="print decoded samples of a built stage (DIR/STAGE)")
    inspect.add_argument("stage_dir", help="DIR/STAGE, e.g. out/demo/sft")
    inspect.add_argument("-n", "--sample", "--samples", dest="samples", type=int, default=3, metavar="N",
                         help="how many documents to show (default 3)")
    inspect.add_argument("--seed", type=int, default=None,
                         help="pick the documents at random with this seed (default: the first ones)")
    inspect.add_argument("--max-chars", type=int, default=4000)
    inspect.add_argument("--json", action="store_true",
                         help="print per-source and per-license counts and the samples as JSON (docs/json.md)")

    where = command("where", help="where one document of a built stage came from (its provenance row)")
    where.add_argument("stage_dir", help="DIR/STAGE, e.g. out/demo/short")
    where.add_argument("index", type=int, help="the document's index in the stage (as mix inspect counts them), "
                                               "or in --shard")
    where.add_argument("--shard", default=None, metavar="NAME",
                       help="count INDEX in this shard (its file name, e.g. stdlib-00000-of-00002)")
    where.add_argument("--json", action="store_true", help="print the row as JSON")

    diff = command("diff", help="what changed between two builds: funnel, drops, dedup, tokens and weights")
    diff.add_argument("old", help="a mix build output directory")
    diff.add_argument("new", help="another one")

    # These commands have their own parsers (light ones: --help does not load torch).
    commands.add_parser("train", add_help=False, help="MoE continued pretraining on a build (mix train -h)")
    commands.add_parser("eval", add_help=False, help="bits per byte per checkpoint on held-out code (mix eval -h)")
    commands.add_parser("handoff", add_help=False, help="export a run for RL: HF safetensors, lineage (mix handoff -h)")
    commands.add_parser("dash", add_help=False, help="data-pipeline and perplexity-vs-RL dashboard (mix dash -h)")
    commands.add_parser("search", add_help=False, help="choose a stage's mixture from proxy runs (mix search -h)")
    commands.add_parser("quality", add_help=False, help="sample for rating, train a quality scorer (mix quality -h)")

    plan = command("plan", help="validate a spec, print the resolved plan and check that every location can be read",
                   description="Checks every source location as mix build's preflight does (a stat, git ref, HTTP "
                               "HEAD, object-store listing), reading no document. Beam's pipeline options (runner, "
                               "--s3_endpoint_url, ...) are taken as mix build takes them.")
    plan.add_argument("spec")
    plan.add_argument("--allow-missing", action="append", default=[], metavar="SOURCE",
                      help="as mix build's: a location of SOURCE that cannot be read is not an error")
    plan.add_argument("--json", action="store_true", help="print the plan and the checks as JSON (docs/json.md)")
    plan.set_defaults(command_parser=plan)

    tokenizer = command("tokenizer", help="tokenizer utilities")
    tokenizer_commands = tokenizer.add_subparsers(dest="tokenizer_command", required=True)
    train = tokenizer_commands.add_parser("train", help="train a byte-level BPE on a sample of crawled documents")
    train.add_argument("documents", help="glob of Document Parquet files, e.g. 'OUT/work/filter/attempt-*/docs*.parquet'")
    train.add_argument("--out", required=True, help="where to write tokenizer.json")
    train.add_argument("--vocab-size", type=int, default=32_000)
    train.add_argument("--sample-documents", type=int, default=20_000)
    return parser


class _CurrentStderr(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is at the time, so that while the progress display runs
    (it swaps stderr for a writer that prints above its bars) log lines do not tear the bars."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


class _DropMessages(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not any(text in str(record.msg) for text in QUIET_LOG_MESSAGES)


def is_job_service_message(record: logging.LogRecord) -> bool:
    """A message of a job's own log that Beam's portable runner relays from the job service into this
    process's root logger while it waits for the job (``PipelineResult.wait_until_finish``)."""
    return record.name == "root" and record.module == "portable_runner"


class _DropBundleErrors(logging.Filter):
    """Without ``-v``, Beam's log of a failed bundle (its traceback, at ERROR) stays off the terminal:
    the same error ends the build, which reports it once (a refused write as one paragraph)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.name != "apache_beam.runners.common"


class _DropJobServiceMessages(logging.Filter):
    """Without ``-v``, the job service's relayed messages stay off the terminal: they are its own log,
    tracebacks included (a worker pool that died as a job started its worker); the build's failure
    reaches the user as one paragraph (``service_failure``) or as the job's error. ``-v`` shows them."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not is_job_service_message(record)


def configure_logging(verbosity: int, level: str | None) -> None:
    """Quiet by default; ``-v``/``-vv`` (or ``--log-level``) for detail. Worker processes started by
    the build inherit the same quiet through the environment (``PYTHONWARNINGS``)."""
    chosen = level.upper() if level else {0: "WARNING", 1: "INFO"}.get(verbosity, "DEBUG")
    handler = _CurrentStderr()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=chosen, handlers=[handler], force=True)
    for target in (logging.getLogger(), handler):
        target.addFilter(_DropMessages())
    if verbosity == 0 and not level:
        handler.addFilter(_DropJobServiceMessages())
        handler.addFilter(_DropBundleErrors())
    if chosen != "DEBUG":
        # Beam logs every bundle and worker start at INFO, and relays its workers' start-up warnings
        # ("No semi_persistent_directory found") at WARNING; the progress display says what matters.
        logging.getLogger("apache_beam").setLevel(logging.WARNING if verbosity or level else logging.ERROR)
        logging.getLogger("megatron").setLevel(logging.WARNING)
    if verbosity == 0 and not level:
        warnings.filterwarnings("ignore", message=QUIET_WARNINGS)
        os.environ.setdefault("PYTHONWARNINGS", "ignore::UserWarning")


def absolute_out(out: str) -> str:
    """Local output paths become absolute, so the blend's prefixes work from any directory."""
    return out if "://" in out else os.path.abspath(out)


def check_build_options(parser: argparse.ArgumentParser, build: argparse.ArgumentParser, extra: list[str],
                        command: str = "build") -> None:
    """Refuse options that are neither ``mix build``'s (or ``plan``'s) nor Beam's, naming the closest known one."""
    if not extra:
        return  # nothing to check: Beam (to list its options) is not imported before the spec is read
    from codemix.mix.options import beam_option_names, did_you_mean, option_names, unknown_options

    ours = option_names(build)
    unknown = unknown_options(extra, ours | beam_option_names())
    if unknown:
        name = unknown[0]
        parser.exit(USAGE, f"mix {command}: unknown option {name}.{did_you_mean(name, ours | beam_option_names())} "
                           f"mix {command} takes its own options (mix {command} --help) and Apache Beam's pipeline "
                           "options.\n")


def command_build(args, beam_args: list[str], argv: list[str]) -> int:
    from codemix.mixtures.spec import describe_plan, load_spec

    spec = load_spec(args.spec)  # a spec error stops here, before Beam is imported
    from codemix.pipelines import jobs, stopped
    from codemix.pipelines.build import run_build
    from codemix.pipelines.health import BuildFailure
    from codemix.pipelines.object_store import ObjectStoreUnreachable
    from codemix.pipelines.out_lock import OutputLocked
    from codemix.pipelines.redact import command_line

    # With --json, stdout holds the summary alone: the plan and the stages' lines go to stderr.
    say = (lambda line: print(line, file=sys.stderr, flush=True)) if args.json else print
    say(describe_plan(spec))
    out = absolute_out(args.out)
    live = sys.stderr.isatty() and not args.no_progress
    command = command_line(["mix", *argv])
    done: list[str] = []  # the stages this run commits or reuses

    def failed(paragraph: str, status: int = BUILD_FAILED) -> int:
        notes = [cancel.sentence() for cancel in jobs.unconfirmed_cancels()]
        left = stopped.stopped_paragraph("the build stopped", out, command, done, notes)
        print(f"mix build: {paragraph}\n  {left}", file=sys.stderr)
        return status

    try:
        manifest = run_build(spec, out, beam_args, from_stage=args.from_stage, fresh=args.fresh,
                             allow_missing=args.allow_missing, live=live, command=command,
                             stall_seconds=args.stall_timeout, force=args.force, echo=say, done=done)
    except OutputLocked as locked:
        print(f"mix build: {locked}", file=sys.stderr)
        return LOCKED
    except (BuildFailure, ObjectStoreUnreachable) as failure:
        print(f"mix build: {failure}", file=sys.stderr)
        return BUILD_FAILED
    except stopped.WriteFailed as refused:
        return failed(str(refused), WRITE_FAILED)
    except ConfigError:
        raise  # a spec or option mistake is the user's to fix, whatever a service says (main: exit 2)
    except Exception as error:
        refused = stopped.write_error(error)
        if refused is not None:  # outside a stage (the publish, the card): nothing unfinished to remove
            return failed(f"could not write {refused.filename or out}: {refused.words}; free space there "
                          "(or give another --out)", WRITE_FAILED)
        paragraph = service_failure(error, beam_args)
        if paragraph is None:
            raise
        return failed(paragraph)
    if args.json:
        print(json.dumps(build_json(manifest, out), indent=2, sort_keys=True))
    else:
        print_summary(manifest, out)
    if args.strict and manifest["health"]["warnings"]:
        print(f"mix build: --strict: {len(manifest['health']['warnings'])} health warning(s)", file=sys.stderr)
        return STRICT_WARNINGS
    return 0


def print_summary(manifest: dict, out: str) -> None:
    """What a finished build holds: counts, each stage's blend (never cut) and the health summary."""
    from codemix.mixtures.blend import data_path_argument
    from codemix.mixtures.stages import stage_kind
    from codemix.pipelines.health import format_health

    counts = manifest["counts"]
    print(f"\nread {counts['read']:,}: kept {counts['kept']:,}, dropped {sum(counts['dropped'].values()):,}, "
          f"duplicates {counts['duplicates']:,}, quarantined {counts['quarantined']:,}")
    for reason, n in counts["dropped"].items():
        print(f"  dropped {reason}: {n:,}")
    for stage, info in manifest["stages"].items():
        # The whole blend, never cut: it is meant to be pasted into a Megatron command line.
        print(f"stage {stage:<6} {info['documents']:>8,} documents {info['tokens']:>12,} tokens\n"
              f"  --data-path {data_path_argument(info['data_path'])}")
        if stage_kind(stage).loss_masked:
            print("  note: stock Megatron-LM trains on every token of this blend; the loss mask is the "
                  "-loss_mask twin of each shard, which only codemix's reader (mix train) applies.\n"
                  f"  for other trainers: {out}/{stage}/chat/ (messages + chat template: TRL, verl) and "
                  f"{out}/{stage}/packed/ (Megatron-Bridge, NeMo packed sequences)")
    print(f"\n{format_health(manifest['health'])}")
    print(f"manifest: {out}/manifest.json\ndataset card: {out}/README.md")


def build_json(manifest: dict, out: str) -> dict:
    """``mix build --json`` (schema ``codemix.build/1``, docs/json.md): the summary as data."""
    from codemix.mixtures.blend import data_path_argument

    return {"schema": "codemix.build/1", "out": out, "manifest": f"{out}/manifest.json", "card": f"{out}/README.md",
            "counts": manifest["counts"], "reused_stages": manifest.get("reused_stages", []),
            "stages": {stage: {"documents": info["documents"], "tokens": info["tokens"],
                               "data_path": info["data_path"], "data_path_argument": data_path_argument(info["data_path"])}
                       for stage, info in manifest["stages"].items()},
            "health": {"ok": manifest["health"]["ok"], "warnings": manifest["health"]["warnings"]}}


def service_failure(error: Exception, beam_args: list[str]) -> str | None:
    """One paragraph for a build that stopped because a service it needs is gone: the watchdog's
    ``ServiceLost``, or any error while a service the options name does not answer. None otherwise."""
    from codemix.pipelines.jobs import ServiceLost, services

    silent = [service.name for service in services(beam_args) if not service.answers()]
    if not isinstance(error, ServiceLost) and not silent:
        return None
    first_line = (str(error).splitlines() or [""])[0][:300]
    cause = str(error) if isinstance(error, ServiceLost) else f"{type(error).__name__}: {first_line}"
    also = f"; not answering now: {', '.join(silent)}" if silent else ""
    return (f"the build stopped: {cause}{also}. Check that the service runs and that this machine and the workers "
            "reach it (address, credentials, bucket), then resume.")


def command_plan(args, beam_args: list[str]) -> int:
    """The resolved plan, then the preflight of ``mix build`` (``pipelines.preflight.CHECKS``, but those of
    --out, as plan writes nothing); 1 when a location cannot be read or a service refuses."""
    from codemix.mixtures.spec import describe_plan, load_spec

    spec = load_spec(args.spec)  # a spec error stops here, before Beam is imported
    from codemix.pipelines.health import BuildFailure
    from codemix.pipelines.object_store import ObjectStoreUnreachable
    from codemix.pipelines.preflight import Preflight

    if not args.json:
        print(describe_plan(spec), flush=True)
    notes: list[str] = []
    run = Preflight(spec=spec, beam_args=beam_args, allow_missing=args.allow_missing, echo=notes.append)
    failure = None
    try:
        run.run()
    except ObjectStoreUnreachable as error:
        print(f"mix plan: {error}", file=sys.stderr)
        return BUILD_FAILED
    except BuildFailure as error:  # the tokenizer or a location: raised after the sources were resolved
        failure = error
    spec, checked = run.resolved, run.resolved if failure else run.spec
    if args.json:
        print(json.dumps(plan_json(spec, checked, notes, failure), indent=2, sort_keys=True))
    else:
        print("\n".join(notes + [f"mix plan: {failure}" if failure else
                                  f"preflight: every location of {len(checked.sources)} source(s) can be read"]))
    return BUILD_FAILED if failure else 0


def plan_json(spec, checked, notes: list[str], failure) -> dict:
    """``mix plan --json`` (schema ``codemix.plan/1``, docs/json.md): the resolved spec and the preflight."""
    import dataclasses

    from codemix.pipelines.preflight import unused_sources

    return {
        "schema": "codemix.plan/1", "name": spec.name,
        "sources": [{"name": s.name, "type": s.type, "kind": s.kind, "ref": s.ref if s.type == "git" else None,
                     "license": s.license, "paths": list(s.paths)} for s in spec.sources],
        "stages": {name: {"sequence_length": c.sequence_length, "token_budget": c.token_budget,
                          "weights": c.normalised_weights()} for name, c in spec.stages.items()},
        "dedup": {"exact": spec.dedup.exact, "near": spec.dedup.near, "jaccard_threshold": spec.dedup.lsh_threshold},
        "tokenizer": {"path": spec.tokenizer.path, "vocab_size": spec.tokenizer.vocab_size},
        "preflight": {"ok": failure is None, "not_crawled": unused_sources(spec), "notes": notes,
                      "problems": [dataclasses.asdict(p) for p in (failure.problems if failure else [])]},
    }


def command_stats(args) -> int:
    from codemix.pipelines.stats import build_stats, format_stats, sample_records, stage_costs, stats_json

    out = absolute_out(args.out)
    stats = build_stats(out)
    samples = sample_records(out, args.sample, args.seed) if args.sample else None
    costs = stage_costs(out) if args.costs else None
    print(stats_json(stats, samples, costs) if args.json else format_stats(stats, samples, costs))
    return 0


def command_inspect(args) -> int:
    from codemix.mixtures.inspect import (
        format_samples,
        inspect_json,
        license_table,
        split_stage_dir,
        stage_samples,
        stage_table,
    )

    out_dir, stage = split_stage_dir(absolute_out(args.stage_dir))
    if args.json:
        samples = stage_samples(out_dir, stage, args.samples, seed=args.seed)
        print(json.dumps(inspect_json(out_dir, stage, samples), indent=2, sort_keys=True, default=str))
        return 0
    print(stage_table(out_dir, stage), end="\n\n")
    print(license_table(out_dir, stage), end="\n\n")
    print(format_samples(stage, stage_samples(out_dir, stage, args.samples, seed=args.seed), args.max_chars))
    return 0


def command_where(args) -> int:
    from codemix.mixtures.inspect import format_where, split_stage_dir, where

    out_dir, stage = split_stage_dir(absolute_out(args.stage_dir))
    row = where(out_dir, stage, args.index, args.shard)
    print(json.dumps(row, indent=2, sort_keys=True) if args.json else format_where(row))
    return 0


def command_diff(args) -> int:
    from codemix.dashboards.builds import stage_documents
    from codemix.mixtures.compare import diff_builds
    from codemix.mixtures.inspect import read_manifest

    old, new = absolute_out(args.old), absolute_out(args.new)
    manifests = read_manifest(old), read_manifest(new)
    documents = stage_documents(old, manifests[0]), stage_documents(new, manifests[1])
    print(diff_builds(*manifests, old, new, documents))
    return 0


def command_tokenizer_train(args) -> int:
    import tempfile

    from apache_beam.io.filesystems import FileSystems

    from codemix.mixtures.tokenizer import save_tokenizer, train_bpe
    from codemix.pipelines.tokenizer_sample import sample_texts

    if not FileSystems.match([args.documents])[0].metadata_list:
        raise ConfigError("documents", f"no documents match {args.documents}", "point at Document Parquet files")
    with tempfile.TemporaryDirectory(prefix="mix-tokenizer-") as scratch:
        texts = sample_texts(args.documents, args.sample_documents, scratch, [])
    if not texts:
        raise ConfigError("documents", f"no documents match {args.documents}", "point at Document Parquet files")
    tokenizer = train_bpe(texts, args.vocab_size)
    save_tokenizer(tokenizer, args.out)
    print(f"trained a byte-level BPE of {tokenizer.get_vocab_size(with_added_tokens=True):,} tokens "
          f"on {len(texts):,} documents -> {args.out}")
    return 0


def command_search(argv: list[str]) -> int:
    """Proxies, fit and proposal (pretrain.search.orchestrate), then the dashboard section as SEARCH/search.html."""
    from codemix.pretrain.cli_args import search_parser

    search_parser().parse_args(argv)  # --help and argument errors exit here, torch unloaded
    from codemix.dashboards.render import DashboardInputs, write_dashboard
    from codemix.pretrain.search.orchestrate import SearchError, format_result, parse_args, run_search

    config = parse_args(argv)
    try:
        print(format_result(run_search(config)))
    except SearchError as error:
        print(f"mix search: {error}", file=sys.stderr)
        return 1
    page = write_dashboard(DashboardInputs(eval_jsonl=config.rl_eval, rl_results=config.rl,
                                           out_html=os.path.join(config.out_dir, "search.html"),
                                           title=f"codemix mixture search: {config.out_dir}",
                                           searches=[config.out_dir]))
    print(f"dashboard: {page.html_path}")
    return 0


VERBOSE_FLAGS = {"-v": 1, "--verbose": 1, "-vv": 2, "-vvv": 3}


def quiet_libraries(verbosity: int) -> None:
    """``mix train|eval|handoff`` say what they do; torch's, megatron-core's and transformers' warnings
    (deprecations, fallbacks) are noise to a user, shown with ``-v``. Set for worker processes too."""
    if verbosity:
        return
    warnings.simplefilter("ignore")  # codemix itself warns through its messages, never ``warnings``
    os.environ["PYTHONWARNINGS"] = "ignore"
    for name in ("torch", "megatron", "transformers", "apache_beam"):
        logging.getLogger(name).setLevel(logging.ERROR)


def delegate(command: str, extra: list[str], verbosity: int = 0) -> int:
    """``mix train|eval|handoff|dash``: arguments checked by light parsers first, then the command;
    ``-v`` (before or after the command) shows the libraries' warnings."""
    if command == "dash":
        from codemix.dashboards.cli import main as dash_main

        return dash_main(extra)
    verbosity += sum(VERBOSE_FLAGS.get(arg, 0) for arg in extra)
    extra = [arg for arg in extra if arg not in VERBOSE_FLAGS]
    quiet_libraries(verbosity)
    from codemix.pretrain import cli_args

    parsers = {"train": cli_args.train_parser, "eval": cli_args.evaluate_parser, "handoff": cli_args.handoff_parser}
    parsers[command](f"mix {command}").parse_args(extra)  # --help and argument errors exit here, torch unloaded
    from codemix.pretrain import evaluate, train
    from codemix.pretrain.hf import handoff
    return {"train": train.main, "eval": evaluate.main, "handoff": handoff.main}[command](extra)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    configure_logging(args.verbose, args.log_level)
    if args.command in ("train", "eval", "handoff", "dash"):
        return delegate(args.command, extra, args.verbose)
    if extra and args.command in READ_COMMANDS:
        check_filesystem_options(parser, args.command, extra)
    elif extra and args.command not in ("build", "plan", "search", "quality"):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        if args.command == "search":
            return command_search(extra)
        if args.command == "quality":
            from codemix.mix.quality import main as quality_main

            return quality_main(extra)
        if args.command == "build":
            from codemix.pipelines.interrupts import exit_cleanly_on_interrupt
            from codemix.pipelines.redact import command_line  # light: Beam is not imported yet

            def before_the_stages() -> str:  # asked at the interrupt: before or after run_build's own block
                from codemix.pipelines.stopped import stopped_paragraph

                return stopped_paragraph("interrupted", absolute_out(args.out), command_line(["mix", *argv]))

            # Before Beam is imported: threads it starts would otherwise take a Ctrl-C themselves.
            with exit_cleanly_on_interrupt(before_the_stages):
                check_build_options(parser, args.command_parser, extra)
                return command_build(args, extra, argv)
        if args.command == "plan":
            check_build_options(parser, args.command_parser, extra, "plan")
            return command_plan(args, extra)
        if args.command in READ_COMMANDS:
            return read_command(args, extra)
        return command_tokenizer_train(args)
    except ConfigError as error:
        kind = "option" if error.field_path.startswith("--") else "environment" if error.field_path.startswith("$") \
            else "spec"
        print(f"mix: {kind} error: {error}", file=sys.stderr)
        return USAGE
    except KeyboardInterrupt:  # before or after a build; during one, pipelines.interrupts ends it
        print("interrupted", file=sys.stderr)
        return INTERRUPTED


def check_filesystem_options(parser: argparse.ArgumentParser, command: str, extra: list[str]) -> None:
    """``mix stats``/``inspect`` take Beam's pipeline options for the storage they read (``--s3_endpoint_url``,
    ``--s3_region_name``, ``--project``, ...), as ``mix build`` does; anything else is refused."""
    from codemix.mix.options import beam_option_names, did_you_mean, unknown_options

    unknown = unknown_options(extra, beam_option_names())
    if unknown:
        parser.exit(USAGE, f"mix {command}: unknown option {unknown[0]}.{did_you_mean(unknown[0], beam_option_names())} "
                           f"mix {command} takes its own options (mix {command} --help) and Apache Beam's filesystem "
                           "options (e.g. --s3_endpoint_url).\n")


def read_command(args, beam_args: list[str]) -> int:
    """``mix stats``, ``inspect`` and ``where``: a directory that is not a build is one line, not a
    traceback. Beam's filesystems get their options first: S3 refuses every call without them."""
    from codemix.mixtures.inspect import NotABuild
    from codemix.pipelines.gcp import check_gcp
    from codemix.pipelines.object_store import ObjectStoreUnreachable, check_s3
    from codemix.pipelines.options import use_filesystem_options

    use_filesystem_options(beam_args)
    commands = {"stats": command_stats, "inspect": command_inspect, "where": command_where, "diff": command_diff}
    names = [name for name in ("out", "stage_dir", "old", "new") if hasattr(args, name)]
    try:
        check_s3([getattr(args, name) for name in names], beam_args)
        check_gcp([(name.upper(), getattr(args, name)) for name in names], beam_args)
        return commands[args.command](args)
    except NotABuild as error:
        print(f"mix {args.command}: {error}", file=sys.stderr)
        return USAGE
    except ObjectStoreUnreachable as error:
        print(f"mix {args.command}: {error}", file=sys.stderr)
        return BUILD_FAILED


if __name__ == "__main__":
    sys.exit(main())
