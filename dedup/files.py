"""Edge rows and file patterns shared by the dedup pipelines (their Beam I/O is ``pipelines.dedup.edge_files``).
"""

from __future__ import annotations

import pyarrow as pa

# Undirected candidate or component edges between document ids.
EDGE_SCHEMA = pa.schema([("u", pa.string()), ("v", pa.string())])
PARQUET = ".parquet"


def parquet_pattern(prefix: str) -> str:
    """The glob matching every shard written by ``write_parquet(prefix, schema, file_name_suffix=PARQUET)``."""
    return f"{prefix}-*{PARQUET}"


def edge_to_row(edge: tuple[str, str]) -> dict[str, str]:
    return {"u": edge[0], "v": edge[1]}


def row_to_edge(row: dict[str, str]) -> tuple[str, str]:
    return row["u"], row["v"]
