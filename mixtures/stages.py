"""Stage kinds: what a training stage's documents are, so the build, its checks and the trainer ask the kind.

A stage's name in a spec (``stages.short``) picks its kind. Adding a kind is one entry in ``KINDS``;
the build shapes, shards, blends, checks and reads back its documents by the kind's answers below.
"""

from __future__ import annotations

from dataclasses import dataclass

# How a stage's documents are made from what dedup kept.
FILES = "files"                # each kept document as it is (code files, commits, notebooks...)
REPOSITORIES = "repositories"  # whole repositories, files in dependency order, cut at file boundaries
SAMPLES = "samples"            # agent transcripts as loss-masked chat samples


@dataclass(frozen=True, slots=True, kw_only=True)
class StageKind:
    name: str
    shape: str
    summary: str
    source_types: frozenset[str] | None = None  # source types it may weight; None: any
    extends_context: bool = False  # trained with RoPE scaled for long context (YaRN)

    @property
    def loss_masked(self) -> bool:
        """Its shards carry a ``-loss_mask`` twin, and training and inspection read both."""
        return self.shape == SAMPLES

    @property
    def has_chat_template(self) -> bool:
        """Its samples are rendered with the chat template, which the manifest records for the hand-off."""
        return self.shape == SAMPLES

    @property
    def searchable(self) -> bool:
        """A code mixture whose blend the mixture search tunes (SFT data is not blended by search)."""
        return self.shape != SAMPLES

    def dedup_output(self, repository_level: bool) -> str:
        """The dedup stage whose kept documents it reads: repositories survive repository-level dedup whole."""
        return "repo_dedup" if self.shape == REPOSITORIES and repository_level else "dedup"

    def accepts(self, source_type: str) -> bool:
        return self.source_types is None or source_type in self.source_types


SHORT = StageKind(name="short", shape=FILES, summary="short-context pretraining on kept documents")
LONG = StageKind(name="long", shape=REPOSITORIES, extends_context=True,
                 summary="long-context extension on whole repositories in dependency order")
SFT = StageKind(name="sft", shape=SAMPLES, source_types=frozenset({"transcripts"}),
                summary="supervised fine-tuning on agent transcripts, loss on the assistant's turns")

KINDS: dict[str, StageKind] = {kind.name: kind for kind in (SHORT, LONG, SFT)}
STAGE_NAMES = tuple(KINDS)


def stage_kind(name: str) -> StageKind:
    """The kind of stage ``name``; a spec that names another stage is refused when it loads."""
    try:
        return KINDS[name]
    except KeyError:
        raise ValueError(f"unknown stage {name!r}: use one of {', '.join(STAGE_NAMES)}") from None


def stages_of_shape(names, shape: str) -> list[str]:
    return [name for name in names if stage_kind(name).shape == shape]
