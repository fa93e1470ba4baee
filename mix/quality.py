"""``mix quality``: the learned-quality recipe, one command per step.

    mix quality sample BUILD --n N --out sample.jsonl [--seed S] [--stage filter|crawl]
    mix quality train RATINGS [--sample sample.jsonl] --out model.bin [--backend fasttext|sklearn] [--per-language]

Rate the sample with any model you run (README, "Learned code quality"; the prompt is
examples/quality/rating_prompt.md) into ``{"id", "score"}`` JSONL, train, then name the model in
the spec's ``filters.quality``. Nothing here calls a hosted model.
"""

from __future__ import annotations

import argparse
import json

from codemix.config import ConfigError


def quality_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mix quality", description="Sample, rate and train a code-quality scorer.")
    commands = parser.add_subparsers(dest="quality_command", required=True)
    sample = commands.add_parser("sample", help="a stratified sample (source x language) of a build, as JSONL")
    sample.add_argument("build", help="a mix build output directory")
    sample.add_argument("--n", type=int, required=True, help="documents to sample")
    sample.add_argument("--out", required=True, help="JSONL to write: id, source, language, repo, path, text")
    sample.add_argument("--seed", type=int, default=0)
    sample.add_argument("--stage", choices=("filter", "crawl"), default="filter",
                        help="sample what the filter kept (default) or everything the crawl read")
    train = commands.add_parser("train", help="train a fast scorer on {id, score} ratings of a sample")
    train.add_argument("ratings", help='JSONL of {"id": ..., "score": ...}')
    train.add_argument("--sample", default=None,
                       help="the sample the ratings are of, for the texts (not needed when each rating has 'text')")
    train.add_argument("--out", required=True, help="model file: .bin (fastText) or .joblib (scikit-learn)")
    train.add_argument("--backend", choices=("fasttext", "sklearn"), default="fasttext")
    train.add_argument("--held-out", type=float, default=0.1, help="fraction of ids held out for the metrics")
    train.add_argument("--per-language", action="store_true", help="also report the metrics per language")
    train.add_argument("--positive-at", type=float, default=None,
                       help="AUC counts ratings >= this as positive (default: the middle of the rating range)")
    train.add_argument("--seed", type=int, default=0)
    return parser


def command_sample(args) -> int:
    from codemix.pipelines.options import use_filesystem_options
    from codemix.pipelines.quality_sample import write_sample

    if args.n <= 0:
        raise ConfigError("--n", f"must be positive, got {args.n}")
    use_filesystem_options([])
    strata = write_sample(args.build, args.out, args.n, args.seed, args.stage)
    print(f"sampled {sum(strata.values()):,} documents from {len(strata)} strata -> {args.out}")
    for (source, language), count in sorted(strata.items()):
        print(f"  {source} {language or 'unknown'}: {count:,}")
    return 0


def command_train(args) -> int:
    from codemix.filters.quality_train import TrainConfig, train_quality_model

    if not 0 < args.held_out < 1:
        raise ConfigError("--held-out", f"must be between 0 and 1, got {args.held_out}")
    config = TrainConfig(backend=args.backend, held_out=args.held_out, seed=args.seed, positive_at=args.positive_at,
                         per_language=args.per_language)
    facts = train_quality_model(args.ratings, args.sample, args.out, config)
    print(f"trained {args.backend} on {facts['train']:,} ratings, held out {facts['held_out']:,} -> {args.out}")
    for group, values in facts["metrics"].items():
        print(f"  {group}: " + json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in values.items()}))
    print(f"training facts: {args.out}.json")
    return 0


def main(argv: list[str]) -> int:
    args = quality_parser().parse_args(argv)
    return command_sample(args) if args.quality_command == "sample" else command_train(args)
