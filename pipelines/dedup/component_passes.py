"""Beam wiring of ``dedup.components``: star rounds, the convergence test, and passes until the edges are stars.
"""

from __future__ import annotations

import glob
import logging
import os
from collections import defaultdict
from collections.abc import Iterable

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions

from codemix.dedup.components import (
    Edge,
    both_directions,
    is_star_violation,
    large_star_links,
    node_roles,
    small_star_links,
    toward_smaller,
)
from codemix.dedup.config import DedupConfig
from codemix.dedup.files import EDGE_SCHEMA, PARQUET, edge_to_row, parquet_pattern
from codemix.pipelines import jobs
from codemix.pipelines.dedup.edge_files import ReadEdges, WriteEdges, WriteSum, delete_matching, read_count
from codemix.pipelines.options import is_local_path, shares_local_disk
from codemix.pipelines.spill import grouping

logger = logging.getLogger(__name__)
LOCAL_EDGES = 1_000_000  # at most this many edges (~150 MB of Python tuples) are resolved in the driver


class _Grouped(beam.PTransform):
    """A component step's grouping by node: the runner's ``GroupByKey``, or through run files under
    ``spill_dir/label`` when ``spill_dir`` is given (``pipelines.spill.grouping``)."""

    def __init__(self, spill_dir: str | None = None, label: str = ""):
        super().__init__()
        self.spill_dir, self.label = spill_dir, label


class LargeStar(_Grouped):
    """One large-star round over undirected edges; outputs (child, parent) edges, possibly repeated."""

    def expand(self, edges):
        return (
            edges
            | "BothDirections" >> beam.FlatMap(both_directions)
            | "GroupNeighbours" >> grouping(self.spill_dir, self.label)
            | "LinkLargerToMin" >> beam.FlatMap(large_star_links)
        )


class SmallStar(_Grouped):
    """One small-star round over undirected edges; outputs (child, parent) edges, possibly repeated."""

    def expand(self, edges):
        return (
            edges
            | "TowardSmaller" >> beam.FlatMap(toward_smaller)
            | "GroupSmallerNeighbours" >> grouping(self.spill_dir, self.label)
            | "LinkToMin" >> beam.FlatMap(small_star_links)
        )


class StarRounds(beam.PTransform):
    """``rounds`` alternations of large-star then small-star, grouped through run files under
    ``spill_dir`` when it is given."""

    def __init__(self, rounds: int, spill_dir: str | None = None):
        super().__init__()
        self.rounds, self.spill_dir = rounds, spill_dir

    def expand(self, edges):
        spill = self.spill_dir
        for r in range(self.rounds):
            edges = (
                edges
                | f"LargeStar{r}" >> LargeStar(spill, f"large-star-{r}")
                | f"SmallStar{r}" >> SmallStar(spill, f"small-star-{r}")
            )
        return edges


class CountStarViolations(_Grouped):
    """A one-element PCollection: how many nodes break "the edges form disjoint stars" (0 = converged)."""

    def expand(self, edges):
        return (
            edges
            | "Roles" >> beam.FlatMap(node_roles)
            | "GroupRoles" >> grouping(self.spill_dir, self.label)
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
    With ``spill_dir``, every grouping by node goes through run files there (``pipelines.spill``).
    """

    def __init__(self, out_dir: str, rounds: int, spill_dir: str | None = None):
        super().__init__()
        self.out_dir, self.rounds, self.spill_dir = out_dir, rounds, spill_dir

    def expand(self, edges):
        edges = edges | "Rounds" >> StarRounds(self.rounds, self.spill_dir)
        edges | "WriteEdges" >> WriteEdges(FileSystems.join(self.out_dir, "edges"))
        (
            edges
            | "CountViolations" >> CountStarViolations(self.spill_dir, "roles")
            | "WriteViolations" >> WriteSum(_violations_path(self.out_dir))
        )
        return edges


def run_component_pass(
    edges_pattern: str, out_dir: str, rounds: int, pipeline_args: list[str], spill_dir: str | None = None
) -> int:
    """One Beam pipeline: read edges, run ``rounds`` rounds, write edges and the violation count.

    Returns the number of violating nodes; the new edges are under ``parquet_pattern(out_dir/edges)``.
    With ``spill_dir``, the groupings go through run files there, deleted when the pipeline is done.
    With a local runner, local files and at most ``LOCAL_EDGES`` edges, the same steps run in this
    process (``component_pass_locally``): a pipeline would start workers for a few thousand edges.
    """
    if is_local_path(out_dir) and shares_local_disk(pipeline_args):
        paths = sorted(glob.glob(edges_pattern))
        if sum(pq.ParquetFile(path).metadata.num_rows for path in paths) <= LOCAL_EDGES:
            return component_pass_locally(paths, out_dir, rounds)
    with jobs.Pipeline(options=PipelineOptions(pipeline_args)) as pipeline:
        pipeline | "ReadEdges" >> ReadEdges(edges_pattern) | "Pass" >> ComponentPass(out_dir, rounds, spill_dir)
    if spill_dir:
        delete_matching([FileSystems.join(spill_dir, "**")])
    return read_count(_violations_path(out_dir))


def _grouped(edges: Iterable[Edge]) -> dict[str, list[str]]:
    """``GroupByKey`` in memory: (node, [values]) in the order the edges come."""
    groups: dict[str, list[str]] = defaultdict(list)
    for node, value in edges:
        groups[node].append(value)
    return groups


def star_round_locally(edges: list[Edge]) -> list[Edge]:
    """One large-star then one small-star round, as ``LargeStar`` and ``SmallStar`` run them."""
    large = _grouped(edge for undirected in edges for edge in both_directions(undirected))
    edges = [link for group in large.items() for link in large_star_links(group)]
    small = _grouped(edge for undirected in edges for edge in toward_smaller(undirected))
    return [link for group in small.items() for link in small_star_links(group)]


def component_pass_locally(paths: list[str], out_dir: str, rounds: int) -> int:
    """``run_component_pass`` in this process: the edges of ``paths`` (Parquet), ``rounds`` rounds,
    the new edges written as one shard of ``out_dir/edges`` and the violation count beside them."""
    edges = [(row["u"], row["v"]) for path in paths for row in pq.read_table(path, columns=["u", "v"]).to_pylist()]
    for _ in range(rounds):
        edges = star_round_locally(edges)
    roles = _grouped(role for edge in edges for role in node_roles(edge))
    violations = sum(is_star_violation(group) for group in roles.items())
    os.makedirs(out_dir, exist_ok=True)
    target = f"{FileSystems.join(out_dir, 'edges')}-00000-of-00001{PARQUET}"
    table = pa.Table.from_pylist([edge_to_row(edge) for edge in edges], schema=EDGE_SCHEMA)
    pq.write_table(table, f"{target}.partial")  # whole or not at all, as the Beam sink's rename
    os.replace(f"{target}.partial", target)
    with open(_violations_path(out_dir), "w", encoding="utf-8") as handle:
        handle.write(f"{violations}\n")
    return violations


def resolve_components(
    edges_pattern: str,
    work_dir: str,
    config: DedupConfig,
    pipeline_args: list[str],
    *,
    passes_done: int = 0,
    spill_dir: str | None = None,
) -> tuple[str, int]:
    """Run passes until the edges are stars; returns (pattern of the star edges, passes run).

    ``passes_done`` passes already ran in the caller's pipeline (``ComponentPass`` into
    ``pass_dir(work_dir, n)``); the loop continues from the last one's edges, and ``edges_pattern``
    is only read when it is 0. With ``spill_dir``, each pass groups through run files there
    (``ComponentPass``). Raises ``RuntimeError`` after ``config.max_passes`` unconverged
    passes: returning partial clusters would silently keep near duplicates (or, worse, split one
    cluster into two keepers).
    """
    current, violations = edges_pattern, -1
    if passes_done:
        out_dir = pass_dir(work_dir, passes_done)
        current, violations = parquet_pattern(FileSystems.join(out_dir, "edges")), read_count(_violations_path(out_dir))
        logger.info("components pass %d: %d nodes left; dedup, non-star nodes after the edges pipeline",
                    passes_done, violations)
        if violations == 0:
            return current, passes_done
    for attempt in range(passes_done + 1, config.max_passes + 1):
        out_dir = pass_dir(work_dir, attempt)
        violations = run_component_pass(current, out_dir, config.rounds_per_pass, pipeline_args, spill_dir)
        current = parquet_pattern(FileSystems.join(out_dir, "edges"))
        logger.info("components pass %d: %d nodes left; dedup, non-star nodes after %d rounds",
                    attempt, violations, config.rounds_per_pass)
        if violations == 0:
            return current, attempt
    raise RuntimeError(
        f"dedup: connected components did not converge after {config.max_passes} passes of "
        f"{config.rounds_per_pass} large-star/small-star rounds ({violations} nodes still not in stars; "
        f"last edges at {current}). Raise dedup.max_passes or dedup.rounds_per_pass."
    )
