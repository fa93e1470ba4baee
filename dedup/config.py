"""One config shared by the signature, band, verify, cluster and keep steps."""

from __future__ import annotations

from dataclasses import dataclass, field

from codemix.config import join, require

KEEPER_CRITERIA = ("permissive_license", "stars", "forks", "recency", "smallest_id")

# How a decision about some ids reaches the documents (``pipelines.dedup.id_joins``): an ``IdSet``
# side input every worker holds whole (16 bytes per id), or a keyed join by document id.
SIDE_INPUT, KEYED_JOIN, AUTO = "side_input", "keyed_join", "auto"
JOINS = (AUTO, SIDE_INPUT, KEYED_JOIN)
# Runners whose shuffle lives in one process's memory (FnApiRunner keeps it in its driver;
# Prism, a single Go process, in its own): a keyed join would hold the whole corpus there, so they
# keep the side inputs. Lower case, without a trailing "runner", as Beam's own lookup of names.
IN_MEMORY_SHUFFLE_RUNNERS = frozenset(
    {"direct", "bundlebaseddirect", "switchingdirect", "testdirect", "pythonrpcdirect", "fnapi", "prism", "interactive"}
)


def resolve_join(choice: str, runner: str) -> str:
    """The join ``choice`` (one of ``JOINS``) means on ``runner`` (a name as ``--runner`` takes it, e.g. ``DataflowRunner``,
    ``dataflow`` or a dotted path): ``auto`` is a keyed join unless the runner shuffles in memory."""
    if choice != AUTO:
        return choice
    short = runner.rsplit(".", 1)[-1].lower().removesuffix("runner")
    return SIDE_INPUT if short in IN_MEMORY_SHUFFLE_RUNNERS else KEYED_JOIN


@dataclass(slots=True, kw_only=True)
class DedupConfig:
    """MinHash LSH parameters.

    With ``bands`` × ``rows`` = ``num_perm``, two documents of Jaccard similarity s share at least
    one band with probability 1 - (1 - s^rows)^bands; the curve's midpoint, ``lsh_threshold``, is
    about (1/bands)^(1/rows). The default 32 × 8 over 256 permutations puts it near 0.65, so pairs
    at the ``jaccard_threshold`` of 0.8 are candidates with probability 0.997; ``verify`` then
    computes their exact Jaccard on the shingle sets and drops candidates below 0.8. Without
    verification, choose bands × rows whose midpoint sits at the similarity you mean (BigCode used
    0.85 for The Stack, e.g. 16 × 16 → 0.84).
    """

    exact: bool = True
    near: bool = True
    num_perm: int = 256
    bands: int = 32
    rows: int = 8
    shingle_size: int = 5  # token n-grams on a \W+ split
    lowercase: bool = False  # code keeps case: `Foo` and `foo` differ
    seed: int = 1
    verify: bool = True  # exact Jaccard on candidate pairs; drops LSH false positives
    max_pairs_per_bucket: int = 64  # verification pairs per LSH bucket; large buckets use pivots (dedup/near.py)
    jaccard_threshold: float = 0.8  # the similarity that makes two documents near duplicates
    rounds_per_pass: int = 4  # large-star/small-star rounds per Beam pipeline
    max_passes: int = 25  # then fail loudly rather than return unconverged clusters
    keeper_order: list[str] = field(default_factory=lambda: list(KEEPER_CRITERIA))
    # Earlier builds' signature indexes (globs of OUT/work/dedup/index/*.parquet): documents of a new
    # crawl that duplicate one of them are dropped without rehashing the earlier corpus.
    previous_indexes: list[str] = field(default_factory=list)
    # One scope for every document kind: a commit may then remove a file it added and a file a commit. Off,
    # documents are compared only with those of their kind's dedup scope (codemix.kinds.DocumentKind.scope).
    across_kinds: bool = False
    # Long-context stage: whole-repository signatures drop forks and mirrors of kept repositories,
    # and file-level dedup never removes single files from a repository kept whole.
    repository_level: bool = True
    # LSH buckets and verification (with join keyed_join: every grouping that grows with the corpus)
    # group through sorted run files under output_dir/_work/shuffle (pipelines/spill.py) rather than
    # the runner's shuffle, which FnApiRunner holds in its driver's memory; set false on a runner
    # with a disk-backed shuffle service (Dataflow, Spark).
    shuffle_on_disk: bool = True
    # How the whole-corpus id sets (the removed documents, the graph's nodes, the documents candidate
    # pairs need) reach the documents: "side_input" hands every worker an IdSet of them (16 bytes
    # per id: 16 GB per worker at a billion documents); "keyed_join" groups the documents with the
    # ids by document id, so no worker holds more than one id's rows, but documents go through the
    # runner's shuffle; "auto" picks the keyed join unless the runner holds its shuffle in memory
    # (FnApiRunner, DirectRunner, Prism), where the join would gather the corpus in one process.
    join: str = AUTO

    @property
    def lsh_threshold(self) -> float:
        return (1.0 / self.bands) ** (1.0 / self.rows)

    @property
    def threshold(self) -> float:
        """The similarity a pair must reach to count as duplicate: verified, or the LSH midpoint."""
        return self.jaccard_threshold if self.verify else self.lsh_threshold

    def validate(self, path: str) -> None:
        require(self.num_perm > 0 and self.bands > 0 and self.rows > 0, join(path, "num_perm"),
                "num_perm, bands and rows must be positive")
        require(self.bands * self.rows == self.num_perm, join(path, "bands"),
                f"bands × rows = {self.bands * self.rows} but num_perm = {self.num_perm}",
                "choose bands and rows whose product is num_perm")
        require(self.shingle_size > 0, join(path, "shingle_size"), "must be positive")
        require(0 < self.jaccard_threshold <= 1, join(path, "jaccard_threshold"), "must be in (0, 1]")
        require(self.max_pairs_per_bucket > 0, join(path, "max_pairs_per_bucket"), "must be positive")
        require(self.near or not self.previous_indexes, join(path, "previous_indexes"),
                "earlier indexes are matched by near dedup, which is off", f"set {join(path, 'near')}: true")
        require(self.rounds_per_pass > 0 and self.max_passes > 0, join(path, "max_passes"), "must be positive")
        require(self.join in JOINS, join(path, "join"), f"unknown join {self.join!r}",
                f"use one of: {', '.join(JOINS)}")
        for i, name in enumerate(self.keeper_order):
            require(name in KEEPER_CRITERIA, join(join(path, "keeper_order"), i), f"unknown criterion {name!r}",
                    f"use some of: {', '.join(KEEPER_CRITERIA)}")
