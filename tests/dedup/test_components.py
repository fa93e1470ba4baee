"""Large-star/small-star finds the same components as union-find, in plain Python and in Beam."""

from __future__ import annotations

import itertools
import random
from collections import defaultdict

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.test_pipeline import TestPipeline as BeamTestPipeline
from apache_beam.testing.util import assert_that, equal_to

from codemix.dedup.components import (
    both_directions,
    component_labels,
    is_star_violation,
    large_star_links,
    node_roles,
    small_star_links,
    toward_smaller,
)
from codemix.dedup.config import DedupConfig
from codemix.dedup.files import EDGE_SCHEMA, parquet_pattern, row_to_edge
from codemix.pipelines.dedup import component_passes
from codemix.pipelines.dedup.component_passes import CountStarViolations, StarRounds, resolve_components
from codemix.pipelines.dedup.edge_files import ReadEdges

RUNNER = ["--runner=FnApiRunner"]


def union_find_labels(edges) -> dict[str, str]:
    """Reference answer: node -> smallest id in its component."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v in edges:
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[max(ru, rv)] = min(ru, rv)
    return {node: find(node) for node in list(parent)}


def ids(count: int, rng: random.Random) -> list[str]:
    return [f"{rng.getrandbits(64):016x}" for _ in range(count)]


def random_graph(seed: int, nodes: int = 60, edges: int = 45) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    names = ids(nodes, rng)
    graph = [tuple(rng.sample(names, 2)) for _ in range(edges)]
    return graph + graph[:5] + [(v, u) for u, v in graph[5:10]]  # repeated and reversed edges too


def path_graph(count: int, seed: int | None) -> list[tuple[str, str]]:
    """A path; seed None walks ids in increasing order, the slowest case for these algorithms."""
    names = sorted(ids(count, random.Random(count))) if seed is None else ids(count, random.Random(seed))
    return list(itertools.pairwise(names))


def star_graph(leaves: int) -> list[tuple[str, str]]:
    names = sorted(ids(leaves + 1, random.Random(7)))
    return [(names[-1], leaf) for leaf in names[:-1]]  # centred on the *largest* id


GRAPHS = {
    "random-0": random_graph(0),
    "random-1": random_graph(1),
    "random-2-dense": random_graph(2, nodes=30, edges=60),
    "long-path-shuffled": path_graph(64, seed=3),
    "long-path-increasing": path_graph(64, seed=None),
    "star-on-largest": star_graph(20),
}


def one_round_in_memory(edges, emit, link):
    grouped = defaultdict(list)
    for edge in edges:
        for key, value in emit(edge):
            grouped[key].append(value)
    return {out for item in grouped.items() for out in link(item)}


def violations_in_memory(edges) -> int:
    roles = defaultdict(list)
    for edge in edges:
        for node, role in node_roles(edge):
            roles[node].append(role)
    return sum(is_star_violation(item) for item in roles.items())


def converge_in_memory(edges, max_rounds: int = 40) -> tuple[set, int]:
    edges = set(edges)
    for rounds in range(1, max_rounds + 1):
        edges = one_round_in_memory(edges, both_directions, large_star_links)
        edges = one_round_in_memory(edges, toward_smaller, small_star_links)
        if violations_in_memory(edges) == 0:
            return edges, rounds
    raise AssertionError("did not converge")


def labels_of(star_edges) -> dict[str, str]:
    return dict(label for edge in star_edges for label in component_labels(edge))


def test_large_star_links_larger_neighbours_to_the_minimum():
    assert sorted(large_star_links(("c", ["e", "b", "d", "e"]))) == [("d", "b"), ("e", "b")]
    assert list(large_star_links(("a", ["b"]))) == [("b", "a")]


def test_small_star_links_node_and_smaller_neighbours_to_the_minimum():
    assert sorted(small_star_links(("d", ["b", "c", "a"]))) == [("b", "a"), ("c", "a"), ("d", "a")]


@pytest.mark.parametrize(
    ("roles", "violation"),
    [(["p"], 0), ([None, None], 0), (["p", "p"], 0), (["p", "q"], 1), (["p", None], 1)],
)
def test_star_violation(roles, violation):
    assert is_star_violation(("n", roles)) == violation


def test_self_loops_are_dropped():
    assert list(both_directions(("a", "a"))) == [] and list(toward_smaller(("a", "a"))) == []


@pytest.mark.parametrize("seed", range(200))
def test_in_memory_rounds_match_union_find(seed):
    """The per-element functions alone, on many small random graphs, give union-find's components."""
    rng = random.Random(seed)
    graph = random_graph(seed, nodes=rng.randint(2, 40), edges=rng.randint(1, 50))
    stars, _ = converge_in_memory(graph)
    assert labels_of(stars) == union_find_labels(graph)


@pytest.mark.parametrize("spill", [False, True], ids=["runner_shuffle", "run_files"])
@pytest.mark.parametrize("name", GRAPHS)
def test_beam_rounds_match_union_find(name, spill, tmp_path):
    graph = GRAPHS[name]
    expected = union_find_labels(graph)
    _, rounds_needed = converge_in_memory(graph)
    assert len(set(expected.values())) < len(expected), "fixture should have non-trivial components"
    spill_dir = str(tmp_path / "shuffle") if spill else None
    with BeamTestPipeline(options=PipelineOptions(RUNNER)) as pipeline:
        stars = pipeline | beam.Create(graph) | StarRounds(rounds_needed, spill_dir)
        labels = stars | beam.FlatMap(component_labels) | beam.Distinct()
        assert_that(labels, equal_to(list(expected.items())), label="SameComponents")
        assert_that(stars | CountStarViolations(spill_dir, "roles"), equal_to([0]), label="Converged")
    assert spill == (tmp_path / "shuffle" / "roles").is_dir()


def test_beam_violations_seen_before_convergence():
    graph = path_graph(32, seed=5)
    with BeamTestPipeline(options=PipelineOptions(RUNNER)) as pipeline:
        violations = pipeline | beam.Create(graph) | StarRounds(1) | CountStarViolations()
        assert_that(violations | beam.Map(lambda n: n > 0), equal_to([True]))


def write_edges(path, edges) -> str:
    path.mkdir(parents=True, exist_ok=True)
    pq.write_table(
        pa.Table.from_pylist([{"u": u, "v": v} for u, v in edges], schema=EDGE_SCHEMA),
        path / "edges-00000-of-00001.parquet",
    )
    return str(path / "edges-*.parquet")


# Where each pass runs: in Beam, grouping by the runner's shuffle or through run files; or, as a build
# does with a local runner and few edges, in the driver (``component_pass_locally``).
WHERE = {"beam-runner_shuffle": (False, False), "beam-run_files": (True, False), "in_driver": (True, True)}


@pytest.mark.parametrize("where", WHERE)
def test_driver_runs_passes_until_converged(tmp_path, monkeypatch, where):
    spill, in_driver = WHERE[where]
    if not in_driver:
        monkeypatch.setattr(component_passes, "LOCAL_EDGES", -1)
    graph = path_graph(64, seed=None) + random_graph(11)
    config = DedupConfig(rounds_per_pass=2, max_passes=10)
    spill_dir = tmp_path / "shuffle"
    stars_pattern, passes = resolve_components(
        write_edges(tmp_path / "in", graph), str(tmp_path / "cc"), config, RUNNER,
        spill_dir=str(spill_dir) if spill else None,
    )
    assert (spill and not in_driver) == spill_dir.is_dir(), "each Beam pass groups through run files there"
    assert [path for path in spill_dir.rglob("*") if path.is_file()] == [], "a pass left its run files"
    assert passes > 1, "fixture should need more than one pass"
    assert stars_pattern == parquet_pattern(str(tmp_path / "cc" / f"pass-{passes:03d}" / "edges"))
    with BeamTestPipeline(options=PipelineOptions(RUNNER)) as pipeline:
        labels = pipeline | ReadEdges(stars_pattern) | beam.FlatMap(component_labels) | beam.Distinct()
        assert_that(labels, equal_to(list(union_find_labels(graph).items())))


@pytest.mark.parametrize("name", GRAPHS)
def test_a_pass_in_the_driver_writes_what_the_beam_pass_writes(tmp_path, monkeypatch, name):
    """Same edges (as a multiset: repeats included) and the same violation count after one pass of one
    round, converged or not; union-find above is the reference for the components themselves."""
    edges_in = write_edges(tmp_path / "in", GRAPHS[name])
    local = component_passes.run_component_pass(edges_in, str(tmp_path / "local"), 1, RUNNER)
    monkeypatch.setattr(component_passes, "LOCAL_EDGES", -1)
    beam_pass = component_passes.run_component_pass(edges_in, str(tmp_path / "beam"), 1, RUNNER)

    def written(folder):
        return sorted(row_to_edge(row) for path in (tmp_path / folder).glob("edges-*.parquet")
                      for row in pq.read_table(path).to_pylist())

    assert local == beam_pass and written("local") == written("beam")
    assert len(list((tmp_path / "local").glob("edges-*.parquet"))) == 1, "the driver wrote its one shard"


@pytest.mark.parametrize("in_driver", [True, False], ids=["in_driver", "beam"])
def test_driver_refuses_unconverged_components(tmp_path, monkeypatch, in_driver):
    if not in_driver:
        monkeypatch.setattr(component_passes, "LOCAL_EDGES", -1)
    config = DedupConfig(rounds_per_pass=1, max_passes=1)
    with pytest.raises(RuntimeError, match="did not converge after 1 passes"):
        resolve_components(
            write_edges(tmp_path / "in", path_graph(64, seed=None)), str(tmp_path / "cc"), config, RUNNER
        )
