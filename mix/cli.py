"""The ``mix`` command line.

    mix build SPEC --out DIR [--from-stage STAGE] [BEAM OPTIONS...]
    mix plan SPEC
    mix stats DIR [--json]
    mix inspect DIR/STAGE [-n N]
    mix train --model tiny --stage short --data DIR --steps N --out RUN   (also: mix eval, mix handoff)
    mix dash --build DIR [--build DIR2] --eval FILE... --rl FILE... --tensorboard DIR... [--target-ppl X] --out dash.html [--serve --port N]
    mix tokenizer train DOCS_PARQUET_GLOB --out tokenizer.json [--vocab-size N] [--sample-documents N]

Any option ``mix build`` does not know is a Beam pipeline option and passes through unchanged,
e.g. ``--direct_num_workers 2 --direct_running_mode multi_processing`` or
``--runner DataflowRunner --project P --region R --temp_location gs://B/tmp``.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from codemix.config import ConfigError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mix", description="Build code pretraining mixtures into Megatron shards.")
    parser.add_argument("--log-level", default="INFO", help="Python logging level (default INFO)")
    commands = parser.add_subparsers(dest="command", required=True)

    build = commands.add_parser("build", help="crawl, filter, dedup, tokenize and shard a mixture spec",
                                description="Unknown options are passed to Apache Beam unchanged.")
    build.add_argument("spec", help="mixture spec YAML")
    build.add_argument("--out", required=True, help="output directory (local, gs://, s3://)")
    build.add_argument("--from-stage", default="crawl", choices=("crawl", "filter", "dedup", "shards"),
                       help="rerun from this stage, reusing earlier stages' Parquet in OUT/work")
    build.add_argument("--fresh", action="store_true",
                       help="ignore what an earlier, interrupted run of this build finished (default: resume it)")

    stats = commands.add_parser("stats", help="drops per reason per source and redactions per type of a build")
    stats.add_argument("out", help="a mix build output directory")
    stats.add_argument("--json", action="store_true", help="print JSON instead of a table")

    inspect = commands.add_parser("inspect", help="print a few decoded samples of a built stage (DIR/STAGE)")
    inspect.add_argument("stage_dir", help="DIR/STAGE, e.g. out/demo/sft")
    inspect.add_argument("-n", "--samples", type=int, default=3)
    inspect.add_argument("--max-chars", type=int, default=4000)

    # These commands have their own parsers; their arguments pass through untouched.
    commands.add_parser("train", add_help=False, help="MoE continued pretraining on a build (mix train -h)")
    commands.add_parser("eval", add_help=False, help="bits per byte per checkpoint on held-out code (mix eval -h)")
    commands.add_parser("handoff", add_help=False, help="export a run for RL: HF safetensors, lineage (mix handoff -h)")
    commands.add_parser("dash", add_help=False, help="data-pipeline and perplexity-vs-RL dashboard (mix dash -h)")

    plan = commands.add_parser("plan", help="validate a spec and print the resolved plan, without any I/O")
    plan.add_argument("spec")

    tokenizer = commands.add_parser("tokenizer", help="tokenizer utilities")
    tokenizer_commands = tokenizer.add_subparsers(dest="tokenizer_command", required=True)
    train = tokenizer_commands.add_parser("train", help="train a byte-level BPE on a sample of crawled documents")
    train.add_argument("documents", help="glob of Document Parquet files, e.g. OUT/work/filter/docs*.parquet")
    train.add_argument("--out", required=True, help="where to write tokenizer.json")
    train.add_argument("--vocab-size", type=int, default=32_000)
    train.add_argument("--sample-documents", type=int, default=20_000)
    return parser


def absolute_out(out: str) -> str:
    """Local output paths become absolute, so the blend's prefixes work from any directory."""
    return out if "://" in out else os.path.abspath(out)


def command_build(args, beam_args: list[str]) -> int:
    from mixtures.blend import data_path_argument
    from mixtures.spec import describe_plan, load_spec
    from pipelines.build import run_build

    spec = load_spec(args.spec)
    print(describe_plan(spec), flush=True)
    manifest = run_build(spec, absolute_out(args.out), beam_args, from_stage=args.from_stage, fresh=args.fresh)
    counts = manifest["counts"]
    print(f"\nread {counts['read']:,}: kept {counts['kept']:,}, dropped {sum(counts['dropped'].values()):,}, "
          f"duplicates {counts['duplicates']:,}, quarantined {counts['quarantined']:,}")
    for reason, n in counts["dropped"].items():
        print(f"  dropped {reason}: {n:,}")
    for stage, info in manifest["stages"].items():
        print(f"stage {stage:<6} {info['documents']:>8,} documents {info['tokens']:>12,} tokens"
              f"  --data-path {data_path_argument(info['data_path'])[:160]}")
    print(f"manifest: {absolute_out(args.out)}/manifest.json")
    return 0


def command_plan(args) -> int:
    from mixtures.spec import describe_plan, load_spec

    print(describe_plan(load_spec(args.spec)))
    return 0


def command_stats(args) -> int:
    from pipelines.stats import build_stats, format_stats, stats_json

    stats = build_stats(absolute_out(args.out))
    print(stats_json(stats) if args.json else format_stats(stats))
    return 0


def command_inspect(args) -> int:
    from mixtures.inspect import format_samples, stage_samples

    out_dir, _, stage = absolute_out(args.stage_dir).rstrip("/").rpartition("/")
    print(format_samples(stage, stage_samples(out_dir, stage, args.samples), args.max_chars))
    return 0


def command_tokenizer_train(args) -> int:
    from mixtures.tokenizer import save_tokenizer, train_bpe
    from pipelines.build import sample_texts

    texts = sample_texts(args.documents, args.sample_documents)
    if not texts:
        raise ConfigError("documents", f"no documents match {args.documents}", "point at Document Parquet files")
    tokenizer = train_bpe(texts, args.vocab_size)
    save_tokenizer(tokenizer, args.out)
    print(f"trained a byte-level BPE of {tokenizer.get_vocab_size(with_added_tokens=True):,} tokens "
          f"on {len(texts):,} documents -> {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.log_level.upper() != "DEBUG":
        # Beam logs every bundle and worker start at INFO; our own progress lines say what matters.
        logging.getLogger("apache_beam").setLevel(logging.WARNING)
        logging.getLogger("megatron").setLevel(logging.WARNING)
    if args.command in ("train", "eval", "handoff"):
        from pretrain import evaluate, handoff, train

        return {"train": train.main, "eval": evaluate.main, "handoff": handoff.main}[args.command](extra)
    if args.command == "dash":
        from dashboards.cli import main as dash_main

        return dash_main(extra)
    if extra and args.command != "build":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        if args.command == "build":
            return command_build(args, extra)
        if args.command == "plan":
            return command_plan(args)
        if args.command == "stats":
            return command_stats(args)
        if args.command == "inspect":
            return command_inspect(args)
        return command_tokenizer_train(args)
    except ConfigError as error:
        print(f"mix: spec error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
