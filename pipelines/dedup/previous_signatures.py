"""Earlier builds' signature indexes, read in Beam and checked against this build's MinHash
parameters (the index format is ``dedup.index``).
"""

from __future__ import annotations

import json
from typing import Any

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from codemix.config import ConfigError, join
from codemix.dedup.config import DedupConfig
from codemix.dedup.index import FIELD, METADATA_KEY, index_parameters, previous_signature


def read_index_schema(path: str) -> pa.Schema:
    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as handle:
        return pq.read_schema(handle)


def read_index_parameters(path: str) -> dict[str, Any] | None:
    """The parameters stored in one index file's footer; None if it has none (not an index)."""
    raw = (read_index_schema(path).metadata or {}).get(METADATA_KEY)
    return json.loads(raw) if raw else None


def check_previous_indexes(config: DedupConfig) -> None:
    """Before any pipeline: every glob matches files, and every file was built with this run's parameters.

    Raises ``FileNotFoundError`` for a glob matching nothing and ``ConfigError`` for a file that is
    not an index, whose signatures were drawn with other parameters, or (unless ``across_kinds``) that
    records no document kinds, so its signatures cannot be placed in their dedup scopes.
    """
    if config.previous_indexes and not config.near:
        raise ConfigError(FIELD, "earlier indexes are matched by near dedup, which is off", "set dedup.near: true")
    expected = index_parameters(config)
    for i, pattern in enumerate(config.previous_indexes):
        paths = [meta.path for meta in FileSystems.match([pattern])[0].metadata_list]
        if not paths:
            raise FileNotFoundError(f"{join(FIELD, i)}: {pattern} matched no files")
        for path in paths:
            found = read_index_parameters(path)
            if found is None:
                raise ConfigError(join(FIELD, i), f"{path} is not a codemix signature index (no minhash metadata)")
            if found != expected:
                raise ConfigError(
                    join(FIELD, i),
                    f"{path} was built with {found}, this run uses {expected}; signatures from different "
                    "hash functions cannot be compared",
                    "use the dedup settings that built the index, or rebuild it",
                )
            if not config.across_kinds and "kind" not in read_index_schema(path).names:
                raise ConfigError(
                    join(FIELD, i),
                    f"{path} records no document kinds (written before dedup scopes), so its signatures cannot "
                    "be kept to their kind's scope: a commit could remove a file, or a file a commit",
                    "rebuild the index, or set dedup.across_kinds: true to compare every kind with every other",
                )


class ReadPreviousSignatures(beam.PTransform):
    """The ``previous_indexes`` globs -> (node, signature bytes, dedup scope) for every earlier document."""

    def __init__(self, patterns: list[str], num_perm: int, across_kinds: bool = False):
        super().__init__()
        self.patterns, self.num_perm, self.across_kinds = list(patterns), num_perm, across_kinds

    def expand(self, pbegin):
        if not self.patterns:
            return pbegin | "NoIndexes" >> beam.Create([])
        # An index without kinds is read only across kinds (check_previous_indexes refuses it otherwise).
        columns = ["doc_id", "signature"] if self.across_kinds else ["doc_id", "signature", "kind"]
        reads = [
            pbegin | f"ReadIndex{i}" >> beam.io.ReadFromParquet(pattern, columns=columns)
            for i, pattern in enumerate(self.patterns)
        ]
        num_perm, across_kinds = self.num_perm, self.across_kinds
        return reads | "AllIndexes" >> beam.Flatten() | "ToNodes" >> beam.Map(previous_signature, num_perm, across_kinds)
