"""Connected components of the near-duplicate graph, by alternating large-star and small-star.

Kiveris, Lattanzi, Mirrokni, Rastogi & Vassilvitskii, "Connected Components in MapReduce and
Beyond" (SoCC 2014). Edges are undirected pairs of document ids; ids compare as strings. With
Γ(u) the neighbours of u and m(u) = min(Γ(u) ∪ {u}):

  * large-star: every u links each *larger* neighbour v > u to m(u);
  * small-star: every u links each smaller-or-equal neighbour and itself to m over those.

Both keep connectivity, their outputs are always oriented (child, parent) with child > parent,
and alternating them converges in O(log² n) rounds to a set of stars, each centred on the
smallest id of its component, which is then its label. A star set is also a fixed point of both
steps, so "is a set of stars" is the convergence test (``CountStarViolations``).

Rounds do not deduplicate their output: a node links each of its *distinct* neighbours once, so
a round emits at most as many edges as there are distinct edges in its input, and repeats never
accumulate. A ``Distinct`` per step would cost one more shuffle of every edge to save at most
that many in the next grouping; consumers that need distinct labels deduplicate them.

Each pass runs ``rounds_per_pass`` rounds and then the test, in its own Beam pipeline or (the
first) inside the pipeline that made the edges; ``resolve_components`` loops passes up to
``max_passes`` and raises rather than return unconverged clusters.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions

from dedup.config import DedupConfig
from dedup.files import ReadEdges, WriteEdges, WriteSum, parquet_pattern, read_count

logger = logging.getLogger(__name__)

Edge = tuple[str, str]


def both_directions(edge: Edge) -> Iterator[Edge]:
    """Each undirected edge as (u, v) and (v, u), so grouping by node gives all neighbours; drops self-loops."""
    u, v = edge
    if u != v:
        yield u, v
        yield v, u


def toward_smaller(edge: Edge) -> Iterator[Edge]:
    """The edge as (larger, smaller), i.e. keyed by the endpoint whose smaller neighbours it lists."""
    u, v = edge
    if u != v:
        yield (u, v) if u > v else (v, u)


def large_star_links(node_neighbours: tuple[str, Iterable[str]]) -> Iterator[Edge]:
    """Large-star at one node u: link every neighbour v > u to m(u) = min(Γ(u) ∪ {u})."""
    u, neighbours = node_neighbours
    distinct = set(neighbours)
    smallest = min(distinct | {u})
    for v in distinct:
        if v > u:
            yield v, smallest


def small_star_links(node_smaller: tuple[str, Iterable[str]]) -> Iterator[Edge]:
    """Small-star at one node u: link u and each neighbour v <= u to the smallest of them."""
    u, smaller = node_smaller
    members = set(smaller) | {u}
    smallest = min(members)
    for v in members:
        if v != smallest:
            yield v, smallest


def node_roles(edge: Edge) -> Iterator[tuple[str, str | None]]:
    """For the star test: the child is keyed to its parent's id, the parent to None ("has a child")."""
    for child, parent in toward_smaller(edge):
        yield child, parent
        yield parent, None


def is_star_violation(node_roles_seen: tuple[str, Iterable[str | None]]) -> int:
    """1 if the node has two different parents or is both a parent and a child, else 0."""
    _, roles = node_roles_seen
    parents, has_children = set(), False
    for role in roles:
        if role is None:
            has_children = True
        else:
            parents.add(role)
    return int(len(parents) > 1 or (bool(parents) and has_children))


def component_labels(edge: Edge) -> Iterator[tuple[str, str]]:
    """(node, component) pairs from a converged star edge: the centre (the smaller id) labels both."""
    for child, parent in toward_smaller(edge):
        yield child, parent
        yield parent, parent


class LargeStar(beam.PTransform):
    """One large-star round over undirected edges; outputs (child, parent) edges, possibly repeated."""

    def expand(self, edges):
        return (
            edges
            | "BothDirections" >> beam.FlatMap(both_directions)
            | "GroupNeighbours" >> beam.GroupByKey()
            | "LinkLargerToMin" >> beam.FlatMap(large_star_links)
        )


class SmallStar(beam.PTransform):
    """One small-star round over undirected edges; outputs (child, parent) edges, possibly repeated."""

    def expand(self, edges):
        return (
            edges
            | "TowardSmaller" >> beam.FlatMap(toward_smaller)
            | "GroupSmallerNeighbours" >> beam.GroupByKey()
            | "LinkToMin" >> beam.FlatMap(small_star_links)
        )


class StarRounds(beam.PTransform):
    """``rounds`` alternations of large-star then small-star."""

    def __init__(self, rounds: int):
        super().__init__()
        self.rounds = rounds

    def expand(self, edges):
        for r in range(self.rounds):
            edges = edges | f"LargeStar{r}" >> LargeStar() | f"SmallStar{r}" >> SmallStar()
        return edges


class CountStarViolations(beam.PTransform):
    """A one-element PCollection: how many nodes break "the edges form disjoint stars" (0 = converged)."""

    def expand(self, edges):
        return (
            edges
            | "Roles" >> beam.FlatMap(node_roles)
            | "GroupRoles" >> beam.GroupByKey()
            | "Violations" >> beam.Map(is_star_violation)
            | "Sum" >> beam.CombineGlobally(sum)
        )


def pass_dir(work_dir: str, attempt: int) -> str:
    return FileSystems.join(work_dir, f"pass-{attempt:03d}")


def _violations_path(out_dir: str) -> str:
    return FileSystems.join(out_dir, "violations.txt")


class ComponentPass(beam.PTransform):
    """Edges -> ``rounds`` rounds, written under ``out_dir/edges`` with the star-violation count beside them.

    Applied by ``run_component_pass``, or by a caller's pipeline to fuse the first pass with the step
    that produced the edges (one pipeline launch fewer; see ``resolve_components(passes_done=1)``).
    """

    def __init__(self, out_dir: str, rounds: int):
        super().__init__()
        self.out_dir, self.rounds = out_dir, rounds

    def expand(self, edges):
        edges = edges | "Rounds" >> StarRounds(self.rounds)
        edges | "WriteEdges" >> WriteEdges(FileSystems.join(self.out_dir, "edges"))
        (
            edges
            | "CountViolations" >> CountStarViolations()
            | "WriteViolations" >> WriteSum(_violations_path(self.out_dir))
        )
        return edges


def run_component_pass(edges_pattern: str, out_dir: str, rounds: int, pipeline_args: list[str]) -> int:
    """One Beam pipeline: read edges, run ``rounds`` rounds, write edges and the violation count.

    Returns the number of violating nodes; the new edges are under ``parquet_pattern(out_dir/edges)``.
    """
    with beam.Pipeline(options=PipelineOptions(pipeline_args)) as pipeline:
        pipeline | "ReadEdges" >> ReadEdges(edges_pattern) | "Pass" >> ComponentPass(out_dir, rounds)
    return read_count(_violations_path(out_dir))


def resolve_components(
    edges_pattern: str, work_dir: str, config: DedupConfig, pipeline_args: list[str], *, passes_done: int = 0
) -> tuple[str, int]:
    """Run passes until the edges are stars; returns (pattern of the star edges, passes run).

    ``passes_done`` passes already ran in the caller's pipeline (``ComponentPass`` into
    ``pass_dir(work_dir, n)``); the loop continues from the last one's edges, and ``edges_pattern``
    is only read when it is 0. Raises ``RuntimeError`` after ``config.max_passes`` unconverged
    passes: returning partial clusters would silently keep near duplicates (or, worse, split one
    cluster into two keepers).
    """
    current, violations = edges_pattern, -1
    if passes_done:
        out_dir = pass_dir(work_dir, passes_done)
        current, violations = parquet_pattern(FileSystems.join(out_dir, "edges")), read_count(_violations_path(out_dir))
        logger.info("dedup components: pass %d (in the edges pipeline) left %d non-star nodes", passes_done, violations)
        if violations == 0:
            return current, passes_done
    for attempt in range(passes_done + 1, config.max_passes + 1):
        out_dir = pass_dir(work_dir, attempt)
        violations = run_component_pass(current, out_dir, config.rounds_per_pass, pipeline_args)
        current = parquet_pattern(FileSystems.join(out_dir, "edges"))
        logger.info(
            "dedup components: pass %d (%d rounds) left %d non-star nodes", attempt, config.rounds_per_pass, violations
        )
        if violations == 0:
            return current, attempt
    raise RuntimeError(
        f"dedup: connected components did not converge after {config.max_passes} passes of "
        f"{config.rounds_per_pass} large-star/small-star rounds ({violations} nodes still not in stars; "
        f"last edges at {current}). Raise dedup.max_passes or dedup.rounds_per_pass."
    )
