"""Dedup's last step in the driver: ``run_final``'s outputs from the same per-element functions, with no
pipeline, when the runner is local, the files are on this disk and the decisions are few enough to hold
(``final_runs_locally``). A pipeline would fork two workers to copy the documents less a few ids: at
50 MB that cost ~1.5-1.9 CPU s of workers where Arrow filters the same files in ~0.3.

The documents are never turned into Python rows: each input file is filtered by its ``id`` column
and written as one output file, so memory holds one row group of documents at a time.
"""

from __future__ import annotations

import glob
import json
import os
from collections import defaultdict

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from codemix.dedup.components import component_labels
from codemix.dedup.config import DedupConfig
from codemix.dedup.files import PARQUET, parquet_pattern, row_to_edge
from codemix.dedup.index import index_row, index_schema
from codemix.dedup.stage import DUPLICATE_SCHEMA, near_duplicate_rows, point_to_survivor, ranked_member
from codemix.document import DOCUMENT_SCHEMA
from codemix.pipelines.dedup.component_passes import LOCAL_EDGES
from codemix.pipelines.dedup.rows import RANK_COLUMNS, location_of, rank_of_row
from codemix.pipelines.options import is_local_path, shares_local_disk


def final_runs_locally(output_dir: str, pipeline_args: list[str], edges: int, exact_duplicates: int) -> bool:
    """Whether ``run_final_locally`` may stand in for the pipeline: workers that share this disk, a local
    ``output_dir``, and at most ``LOCAL_EDGES`` edges and exact duplicates (the ids it holds in memory)."""
    return (is_local_path(output_dir) and shares_local_disk(pipeline_args)
            and edges <= LOCAL_EDGES and exact_duplicates <= LOCAL_EDGES)


def near_rows(docs_pattern: str, star_edges: str, order: list[str]) -> list[dict[str, str]]:
    """``NearDuplicateRows`` in this process: a duplicate row for each node of the converged stars that
    is not its component's keeper, from the rank columns of the graph's documents only."""
    labels: dict[str, set[str]] = defaultdict(set)
    for row in _rows(star_edges, ["u", "v"]):
        for node, component in component_labels(row_to_edge(row)):
            labels[node].add(component)
    ranks: dict[str, list[tuple]] = defaultdict(list)
    for row in _rows(docs_pattern, RANK_COLUMNS):
        if row["id"] in labels:
            ranks[row["id"]].append((rank_of_row(row, order), row.get("source") or "", location_of(row)))
    members: dict[str, list[tuple]] = defaultdict(list)
    for node, components in labels.items():
        for component, member in ranked_member((node, {"component": sorted(components), "rank": ranks[node]})):
            members[component].append(member)
    return [row for component in sorted(members) for row in near_duplicate_rows((component, members[component]))]


def run_final_locally(docs_pattern: str, star_edges: str | None, paths, config: DedupConfig) -> None:
    """``run_final``'s files (docs, duplicates, index, the final counts) written by this process."""
    near = near_rows(docs_pattern, star_edges, config.keeper_order) if star_edges else []
    survivors = {row["doc_id"]: row["keeper_id"] for row in near}
    exact = []
    if config.exact:
        for row in _rows(parquet_pattern(paths.work("exact", "duplicates")), DUPLICATE_SCHEMA.names):
            exact += point_to_survivor((row["keeper_id"], {"row": [row], "near_keeper": _listed(survivors, row["keeper_id"])}))
    removed_ids = {row["doc_id"] for row in near} | {row["doc_id"] for row in exact}
    documents_in, kept = _copy_less(docs_pattern, paths.out("docs"), pa.array(sorted(removed_ids), pa.string()))
    _write([*exact, *near], paths.out("duplicates"), DUPLICATE_SCHEMA)
    if config.near:
        rows = [row for row in _rows(parquet_pattern(paths.signatures), ["id", "source", "location", "signature", "kind"])
                if row["id"] not in removed_ids]
        _write([index_row(r["id"], r["source"], r["location"], r["signature"], r["kind"]) for r in rows], paths.index,
               index_schema(config))
    previous = sum(1 for row in near if row["method"] == "previous")
    counts = {"documents_in": documents_in, "kept": kept, "near": len(near) - previous, "previous": previous}
    os.makedirs(os.path.dirname(paths.counts("final")), exist_ok=True)
    with open(paths.counts("final"), "w", encoding="utf-8") as handle:
        handle.write(json.dumps(counts, sort_keys=True) + "\n")


def _listed(survivors: dict[str, str], keeper_id: str) -> list[str]:
    return [survivors[keeper_id]] if keeper_id in survivors else []


def _rows(pattern: str, columns: list[str]):
    for path in sorted(glob.glob(pattern)):
        yield from pq.read_table(path, columns=columns).to_pylist()  # the few columns asked for, not the texts


def _copy_less(pattern: str, prefix: str, removed: pa.Array) -> tuple[int, int]:
    """Each input file less the rows whose id is removed, as ``prefix-SSSSS-of-NNNNN.parquet``; (read, kept)."""
    paths, documents_in, kept = sorted(glob.glob(pattern)), 0, 0
    for shard, path in enumerate(paths):
        target = f"{prefix}-{shard:05d}-of-{len(paths):05d}{PARQUET}"
        with pq.ParquetWriter(f"{target}.partial", DOCUMENT_SCHEMA) as writer:
            for batch in pq.ParquetFile(path).iter_batches():
                table = pa.Table.from_batches([batch]).cast(DOCUMENT_SCHEMA)
                table = table.filter(pc.invert(pc.is_in(table["id"], removed)))
                documents_in, kept = documents_in + batch.num_rows, kept + table.num_rows
                writer.write_table(table)
        os.replace(f"{target}.partial", target)  # whole or not at all, as the Beam sink's rename
    return documents_in, kept


def _write(rows: list[dict], prefix: str, schema: pa.Schema) -> None:
    target = f"{prefix}-00000-of-00001{PARQUET}"
    os.makedirs(os.path.dirname(target), exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), f"{target}.partial")
    os.replace(f"{target}.partial", target)
