"""The declarative mixture spec: sources, and per stage their weights, token budget and length.

A spec says *what* goes into each stage; ``pipelines.build`` decides *how*. Loading validates every
field before any I/O, so a typo in a weight fails in milliseconds, not after an hour of crawling.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from codemix.config import ConfigError, expand_env, join, load_config, load_yaml, require
from codemix.dedup.config import DedupConfig
from codemix.filters.config import FiltersConfig
from codemix.mixtures.repository import RepositoryDocumentConfig
from codemix.mixtures.sft import SFTConfig
from codemix.mixtures.stages import STAGE_NAMES, stage_kind
from codemix.mixtures.tokenizer import resolve_tokenizer_path
from codemix.sources import SourceConfig


@dataclass(slots=True, kw_only=True)
class StageConfig:
    """One training stage's share of the corpus.

    ``repository`` shapes the ``long`` stage: each kept repository becomes documents of its files in
    dependency order, split at file boundaries to ``sequence_length``. ``sft`` shapes the ``sft``
    stage: transcripts become loss-masked samples. Other stages ignore both.
    """

    sequence_length: int
    token_budget: int
    weights: dict[str, float]
    repository: RepositoryDocumentConfig = field(default_factory=RepositoryDocumentConfig)
    sft: SFTConfig = field(default_factory=SFTConfig)

    def validate(self, path: str) -> None:
        require(self.sequence_length > 0, join(path, "sequence_length"), "must be positive")
        require(self.token_budget > 0, join(path, "token_budget"), "must be positive")
        require(len(self.weights) > 0, join(path, "weights"), "no sources", "map at least one source name to a weight")
        for name, weight in self.weights.items():
            require(weight > 0, join(join(path, "weights"), name), f"weight {weight} is not positive")

    def normalised_weights(self) -> dict[str, float]:
        total = sum(self.weights.values())
        return {name: weight / total for name, weight in self.weights.items()}


DEFAULT_VOCAB_SIZE = 32_000


@dataclass(slots=True, kw_only=True)
class TokenizerConfig:
    """A tokenizer (a tokenizer.json, a Hugging Face tokenizer directory, or a tiktoken file with its
    tokenizer_config.json beside it: see ``mixtures.tokenizer``), or how to train a byte-level BPE on
    the crawl when none is given. A directory resolves to the file in it that holds the vocabulary."""

    path: str | None = None
    # The ids the model has room for: a trained BPE gets this many (32,000 when unset); a given
    # tokenizer must fit in it when it is set (preflight checks, before the crawl).
    vocab_size: int | None = None
    train_sample_documents: int = 20_000
    train_seed: int = 0
    eod_token: str = "<|endoftext|>"

    @property
    def trained_vocab_size(self) -> int:
        """How many ids a BPE trained by the build gets."""
        return self.vocab_size or DEFAULT_VOCAB_SIZE

    def validate(self, path: str) -> None:
        if self.path is not None:
            self.path = expand_env(self.path, join(path, "path"))
            if "://" not in self.path:
                try:
                    self.path = resolve_tokenizer_path(self.path)
                except FileNotFoundError as error:
                    raise ConfigError(join(path, "path"), str(error)) from error
                require(os.path.isfile(self.path), join(path, "path"), f"no tokenizer file at {self.path}",
                        "give a tokenizer.json, a Hugging Face tokenizer directory or a tiktoken file, "
                        "or remove 'path' to train one with the build")
        require(self.vocab_size is None or 256 < self.vocab_size <= 2**31 - 1, join(path, "vocab_size"),
                "must be above 256 (the byte alphabet)")
        require(self.train_sample_documents > 0, join(path, "train_sample_documents"), "must be positive")


@dataclass(slots=True, kw_only=True)
class HealthConfig:
    """Thresholds of the health summary every build ends with (``pipelines.health``).

    A warning is printed and recorded in ``manifest.json``; ``mix build --strict`` turns warnings
    into a non-zero exit. ``fail_quarantine_rate`` is not a warning: a source quarantined past it
    fails the build before any shard is written (it is read wrong: a code dump given as transcripts).
    """

    # Muennighoff et al. 2023 ("Scaling Data-Constrained Language Models"): up to ~4 epochs of
    # repeated data is worth nearly as much as unique data; far past it, repetition stops helping.
    max_epochs: float = 4.0
    min_budget_filled: float = 0.25  # a stage's shards below this share of its token budget
    warn_quarantine_rate: float = 0.05  # of a source's records read
    fail_quarantine_rate: float = 0.5
    warn_drop_rate: float = 0.5  # dropped by heuristics (path globs excluded: the spec chose those)

    def validate(self, path: str) -> None:
        require(self.max_epochs > 0, join(path, "max_epochs"), "must be positive")
        for name in ("min_budget_filled", "warn_quarantine_rate", "fail_quarantine_rate", "warn_drop_rate"):
            require(0 <= getattr(self, name) <= 1, join(path, name), "must be a fraction between 0 and 1")


@dataclass(slots=True, kw_only=True)
class MixtureSpec:
    name: str
    sources: list[SourceConfig]
    stages: dict[str, StageConfig]
    tokenizer: TokenizerConfig = field(default_factory=TokenizerConfig)
    filters: FiltersConfig = field(default_factory=FiltersConfig)
    dedup: DedupConfig = field(default_factory=DedupConfig)
    shard_size_bytes: int = 512_000_000  # text bytes per (stage, source) shard before tokenizing
    health: HealthConfig = field(default_factory=HealthConfig)
    # Sources the build may go without: an unreadable location or no surviving documents is then a
    # recorded decision (manifest ``health.allowed_missing``) instead of a failed build.
    allow_missing: list[str] = field(default_factory=list)

    def validate(self, path: str) -> None:
        require(len(self.sources) > 0, "sources", "no sources", "list at least one source")
        names = [s.name for s in self.sources]
        for i, name in enumerate(names):
            require(names.index(name) == i, join(join("sources", i), "name"), f"duplicate source name {name!r}")
        require(len(self.stages) > 0, "stages", "no stages", f"define at least one of: {', '.join(STAGE_NAMES)}")
        for stage, config in self.stages.items():
            require(stage in STAGE_NAMES, join("stages", stage), "unknown stage", f"use one of: {', '.join(STAGE_NAMES)}")
            for source in config.weights:
                require(source in names, join(join(join("stages", stage), "weights"), source),
                        "no source of that name", f"sources are: {', '.join(names)}")
                kind = stage_kind(stage)
                require(kind.accepts(self.source(source).type), join(join(join("stages", stage), "weights"), source),
                        f"the {stage} stage takes sources of type {', '.join(sorted(kind.source_types or ()))} only",
                        f"give it such sources; {self.source(source).type} sources go to "
                        + ", ".join(k for k in STAGE_NAMES if stage_kind(k).accepts(self.source(source).type)))
        require(self.shard_size_bytes > 0, "shard_size_bytes", "must be positive")
        for i, source in enumerate(self.sources):
            if source.snapshot == "before_benchmark":
                require(self.filters.benchmark_instances.enabled or bool(source.snapshot_instances),
                        join(join("sources", i), "snapshot"), "before_benchmark needs benchmark instances",
                        "list their files in filters.benchmark_instances.instances")
                source.snapshot_instances = source.snapshot_instances or list(self.filters.benchmark_instances.instances)
        for i, name in enumerate(self.allow_missing):
            require(name in names, join("allow_missing", i), f"no source named {name!r}", f"sources are: {', '.join(names)}")

    def source(self, name: str) -> SourceConfig:
        return next(s for s in self.sources if s.name == name)

    def spec_hash(self) -> str:
        """Hash of the resolved spec (after env expansion), recorded in the manifest."""
        blob = json.dumps(asdict(self), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()


def parse_spec(data: object) -> MixtureSpec:
    return load_config(MixtureSpec, data)


def load_spec(path: str | Path) -> MixtureSpec:
    """Read and validate a YAML spec; raises ``ConfigError`` naming the field on any problem."""
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise ConfigError("", f"cannot read spec {path}: {error.strerror}", "check the path") from error
    return parse_spec(load_yaml(text, str(path)))


def describe_plan(spec: MixtureSpec) -> str:
    """The resolved plan printed before any work, so a user sees what will happen."""
    lines = [f"mixture {spec.name!r}", "sources:"]
    for s in spec.sources:
        extra = f" ref={s.ref}" if s.type == "git" else (f" format={s.format}" if s.format else "")
        extra += " snapshot=before_benchmark" if s.snapshot == "before_benchmark" else ""
        lines.append(f"  {s.name:<16} {s.type:<12} kind={s.kind}{extra} license={s.license or '-'} paths={len(s.paths)}")
        lines += [f"      {p}" for p in s.paths[:5]] + ([f"      ... {len(s.paths) - 5} more"] if len(s.paths) > 5 else [])
    lines.append("stages:")
    for stage, config in spec.stages.items():
        mix = ", ".join(f"{n}={w:.3f}" for n, w in config.normalised_weights().items())
        lines.append(f"  {stage:<6} seq_len={config.sequence_length:,} budget={config.token_budget:,} tokens  weights: {mix}")
    d = spec.dedup
    verify = f", verified at Jaccard >= {d.jaccard_threshold:.2f}" if d.verify else ""
    lines.append(f"dedup: exact={d.exact} near={d.near} num_perm={d.num_perm} bands={d.bands}x rows={d.rows} "
                 f"shingle={d.shingle_size} -> implied Jaccard threshold {d.lsh_threshold:.3f}{verify}")
    b = spec.filters.benchmark_instances
    if b.enabled:
        lines.append(f"benchmark instances: {len(b.instances)} file(s); traces, commits (patch id, {b.ngram}-grams >= "
                     f"{b.min_overlap}), issue threads dropped; files holding a fix: {b.files}"
                     + ("; every later commit of their repositories" if b.later_commits else ""))
    q = spec.filters.quality
    if q.enabled:
        cut = f"threshold {q.threshold:g}" if q.threshold is not None else f"keep top {q.keep_fraction:.1%}"
        lines.append(f"quality: {q.model}, {cut}{' per language' if q.per_language else ''}")
    tok = spec.tokenizer
    fits = f" (vocab_size {tok.vocab_size:,})" if tok.path and tok.vocab_size else ""
    trained = f"train byte-level BPE, vocab {tok.trained_vocab_size:,}, on {tok.train_sample_documents:,} crawled documents"
    lines.append(f"tokenizer: {tok.path + fits if tok.path else trained}")
    return "\n".join(lines)
