"""What each git repository's copy lacked or pointed elsewhere for, from the crawl's drop ledger:
blobs missing from a partial or incomplete copy, Git LFS pointers and submodules. ``mix stats`` and
the manifest report it per repository."""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from codemix.pipelines import ledger
from codemix.pipelines.readers.common import split_tree_location

# Crawl outcomes that say what a git copy lacked or pointed elsewhere for, counted per repository.
REPOSITORY_REASONS = ("blob_missing", "lfs_pointer", "submodule")


def repository_drops(pattern: str) -> Iterable[dict]:
    """The drop rows with a ``REPOSITORY_REASONS`` reason, one file at a time, three columns only."""
    for path in ledger.matched_files(pattern):
        with FileSystems.open(path) as handle:
            table = pq.read_table(handle, columns=["source", "reason", "location"])
        yield from table.filter(pc.is_in(table["reason"], pa.array(REPOSITORY_REASONS))).to_pylist()


def repository_outcomes(rows: Iterable[dict]) -> dict[str, dict[str, dict]]:
    """``{source: {repository: {"blob_missing": n, "lfs_pointer": n, "submodules": [path, ...]}}}`` from
    crawl drop rows (``source``, ``reason``, ``location``) of git repositories."""
    found: dict[str, dict[str, dict]] = {}
    for row in rows:
        where = split_tree_location(row["location"]) if row["reason"] in REPOSITORY_REASONS else None
        if where is None:
            continue
        entry = found.setdefault(row["source"], {}).setdefault(
            where[0], {"blob_missing": 0, "lfs_pointer": 0, "submodules": []})
        if row["reason"] == "submodule":
            entry["submodules"].append(where[2])
        else:
            entry[row["reason"]] += 1
    for repositories in found.values():
        for entry in repositories.values():
            entry["submodules"].sort()
    return found




def submodules_by_location(pattern: str) -> dict[str, list[str]]:
    """``{repository location: sorted submodule paths}`` from the crawl's drop ledger files ``pattern``
    (the long stage names them in each repository's documents)."""
    found: dict[str, list[str]] = {}
    for row in repository_drops(pattern):
        where = split_tree_location(row["location"]) if row["reason"] == "submodule" else None
        if where is not None:
            found.setdefault(where[0], []).append(where[2])
    return {location: sorted(paths) for location, paths in found.items()}
