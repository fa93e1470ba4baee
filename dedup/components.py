"""Connected components of the near-duplicate graph, by alternating large-star and small-star.

Design notes: docs/design/dedup.md, "dedup/components.py".
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

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
