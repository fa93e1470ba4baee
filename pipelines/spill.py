"""GroupByKey through sorted run files, for shuffles a runner would otherwise hold in memory.

Design notes: docs/design/pipelines.md, "pipelines/spill.py".
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import json
import pickle
import struct
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

import apache_beam as beam
import zstandard
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.transforms.window import GlobalWindows

RUN_BYTES = 16 << 20  # memory a bundle's buffered records may take before its runs are written
# What a buffered record costs beyond its bytes: the (key, value) tuple, two bytes headers and a list
# slot. Counted, so that a shuffle of small records (band keys, pairs) holds RUN_BYTES, not ~3x that.
RECORD_OVERHEAD = 130
PARTITIONS = 16  # merge tasks per shuffle; memory does not depend on it, parallelism does
MAX_FAN_IN = 128  # runs open at once in a merge (a file and a zstd stream each); more are merged in rounds
_LENGTHS = struct.Struct("<II")
WRITE_RECORDS = 4096  # records framed per zstd write
READ_BYTES = 1 << 20  # decompressed bytes read at a time
_END = 0xFFFFFFFF  # key length of the trailer, whose value length is the run's record count
_STR, _BYTES, _TUPLE = b"s", b"b", b"t"
Key = str | bytes | tuple


def encode_key(key: Key) -> bytes:
    """Bytes equal exactly when the keys are, tagged by type so a str, bytes and tuple never collide.

    A tuple (of str, int, float, bool or None) is encoded as compact JSON, which is canonical for them.
    """
    if isinstance(key, str):
        return _STR + key.encode("utf-8", "surrogatepass")
    if isinstance(key, bytes):
        return _BYTES + key
    if isinstance(key, tuple) and all(item is None or isinstance(item, str | int | float) for item in key):
        return _TUPLE + json.dumps(list(key), ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8", "surrogatepass")
    raise TypeError(f"GroupByKeyOnDisk keys are str, bytes or flat tuples, not {key!r}")


def decode_key(data: bytes) -> Key:
    tag, body = data[:1], data[1:]
    if tag == _STR:
        return body.decode("utf-8", "surrogatepass")
    if tag == _TUPLE:
        return tuple(json.loads(body.decode("utf-8", "surrogatepass")))
    return body


def partition_of(key_bytes: bytes, partitions: int) -> int:
    return int.from_bytes(hashlib.blake2b(key_bytes, digest_size=8).digest(), "big") % partitions


def write_run(path: str, records: list[tuple[bytes, bytes]]) -> None:
    """Sort ``records`` by key and write them, length-prefixed and zstd-compressed, temp then rename."""
    records.sort(key=_by_key)
    write_sorted_run(path, records)


def write_sorted_run(path: str, records: Iterable[tuple[bytes, bytes]]) -> None:
    """Write records already in key order as one run, temp then rename.

    Records are framed in memory and handed to zstd ``WRITE_RECORDS`` at a time: one write per record
    part cost more than the compression (a band-key shuffle is ~32 small records per document)."""
    count, temporary = 0, f"{path}.tmp-{uuid.uuid4().hex}"
    pack = _LENGTHS.pack
    with (
        FileSystems.create(temporary, compression_type=CompressionTypes.UNCOMPRESSED) as out,
        zstandard.ZstdCompressor(level=1).stream_writer(out, closefd=False) as writer,
    ):
        parts: list[bytes] = []
        for key, value in records:
            parts += (pack(len(key), len(value)), key, value)
            count += 1
            if len(parts) >= 3 * WRITE_RECORDS:
                writer.write(b"".join(parts))
                parts.clear()
        parts.append(pack(_END, count))  # a run cut short lacks it: an error, not fewer records
        writer.write(b"".join(parts))
    FileSystems.rename([temporary], [path])


def read_run(path: str) -> Iterator[tuple[bytes, bytes]]:
    """The (key bytes, value bytes) records of one run, in key order, streamed ``READ_BYTES`` of
    decompressed data at a time and cut into records there (a read per record part cost more than
    the decompression)."""
    unpack_from, header = _LENGTHS.unpack_from, _LENGTHS.size
    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as raw:
        reader, count = zstandard.ZstdDecompressor().stream_reader(raw), 0
        buffer, offset = b"", 0
        while True:
            if len(buffer) - offset < header:
                buffer, offset = _refill(reader, buffer, offset, header, path)
            key_length, value_length = unpack_from(buffer, offset)
            if key_length == _END:
                if value_length != count:
                    raise OSError(f"{path}: run holds {count} records, its trailer says {value_length}")
                return
            end = offset + header + key_length + value_length
            if end > len(buffer):
                buffer, offset = _refill(reader, buffer, offset, end - offset, path)
                end = header + key_length + value_length
            start = offset + header
            yield buffer[start : start + key_length], buffer[start + key_length : end]
            offset = end
            count += 1


def _refill(reader, buffer: bytes, offset: int, needed: int, path: str) -> tuple[bytes, int]:
    """The unread rest of ``buffer`` followed by enough more of ``reader`` to hold ``needed`` bytes, at 0."""
    chunks, have = [buffer[offset:]], len(buffer) - offset
    while have < needed:
        chunk = reader.read(max(READ_BYTES, needed - have))
        if not chunk:
            raise OSError(f"{path}: truncated run (a record is cut short)")
        chunks.append(chunk)
        have += len(chunk)
    return b"".join(chunks), 0


def _by_key(record: tuple[bytes, bytes]) -> bytes:
    return record[0]


def merged_runs(paths: list[str], fan_in: int = MAX_FAN_IN) -> list[str]:
    """At most ``fan_in`` runs holding the records of ``paths``: groups of ``fan_in`` runs are merged
    into new runs beside them until few enough are left, so a merge never opens more files than that."""
    paths = sorted(paths)
    while len(paths) > fan_in:
        merged = []
        for start in range(0, len(paths), fan_in):
            group = paths[start : start + fan_in]
            target = f"{group[0]}.merged-{uuid.uuid4().hex}.run"
            write_sorted_run(target, heapq.merge(*(read_run(path) for path in group), key=_by_key))
            merged.append(target)
        paths = merged
    return paths


def merged_groups(paths: Iterable[str], fan_in: int = MAX_FAN_IN, min_values: int = 1) -> Iterator[tuple[Key, list[Any]]]:
    """(key, values) for every key in the runs with at least ``min_values`` values, in key order; the
    values of a key come in no particular order, as from ``GroupByKey``. A smaller group is dropped
    before its key or values are decoded (most LSH buckets hold one document and pair nothing)."""
    merged = heapq.merge(*(read_run(path) for path in merged_runs(list(paths), fan_in)), key=_by_key)
    current, values, min_values = None, [], max(1, min_values)
    for key, value in merged:
        if key != current:
            if len(values) >= min_values:
                yield decode_key(current), [pickle.loads(data) for data in values]
            current, values = key, []
        values.append(value)
    if len(values) >= min_values:
        yield decode_key(current), [pickle.loads(data) for data in values]


class SpillRuns(beam.DoFn):
    """(key, value) -> (partition, run path), written as sorted runs under ``directory``. With
    ``many_keys``, an element is (keys, value): one record per key, the value pickled once."""

    def __init__(self, directory: str, partitions: int, run_bytes: int, many_keys: bool = False):
        self.directory, self.partitions, self.run_bytes = directory, partitions, run_bytes
        self.many_keys = many_keys

    def start_bundle(self):
        self.buffers: dict[int, list[tuple[bytes, bytes]]] = {}
        self.buffered = 0

    def process(self, element):
        keys, value = element
        value_bytes, buffers, partitions = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), self.buffers, self.partitions
        for key in keys if self.many_keys else (keys,):
            key_bytes = encode_key(key)
            buffers.setdefault(partition_of(key_bytes, partitions), []).append((key_bytes, value_bytes))
            self.buffered += len(key_bytes) + len(value_bytes) + RECORD_OVERHEAD
        # Nothing to emit for most records: no generator is made for them.
        return list(self._flush()) if self.buffered >= self.run_bytes else None

    def finish_bundle(self):
        for written in self._flush():
            yield GlobalWindows.windowed_value(written)

    def _flush(self) -> Iterator[tuple[int, str]]:
        for partition, records in sorted(self.buffers.items()):
            path = FileSystems.join(self.directory, f"p{partition:05d}-{uuid.uuid4().hex}.run")
            write_run(path, records)
            yield partition, path
        self.buffers, self.buffered = {}, 0


class GroupByKeyOnDisk(beam.PTransform):
    """(key, value) -> (key, [values]), like ``beam.GroupByKey``, with the records in run files under
    ``directory`` instead of in the runner's shuffle (see the module docstring).

    The input may also be a tuple of PCollections, grouped together as if flattened first: each is
    spilled where it is produced and only the run names are flattened, since FnApiRunner would
    hold a ``Flatten`` of records from different stages in its driver. With ``min_values``, only keys
    with at least that many values come out. With ``many_keys``, each input element is (keys, value),
    standing for (key, value) per key: one element a document instead of one per band key.
    """

    def __init__(self, directory: str, partitions: int = PARTITIONS, run_bytes: int = RUN_BYTES, min_values: int = 1,
                 many_keys: bool = False):
        super().__init__()
        self.directory, self.partitions, self.run_bytes = directory, partitions, run_bytes
        self.min_values, self.many_keys = min_values, many_keys

    def expand(self, inputs):
        inputs = tuple(inputs) if isinstance(inputs, tuple | list) else (inputs,)
        spill = SpillRuns(self.directory, self.partitions, self.run_bytes, self.many_keys)
        runs = [pcoll | f"SpillRuns{i or ''}" >> beam.ParDo(spill) for i, pcoll in enumerate(inputs)]
        if len(runs) > 1:
            runs = [runs | "AllRuns" >> beam.Flatten()]
        min_values = self.min_values
        return (
            runs[0]
            | "GroupRunsByPartition" >> beam.GroupByKey()
            | "MergeRuns" >> beam.FlatMapTuple(lambda _, paths: merged_groups(paths, min_values=min_values))
        )


def _flattened(inputs) -> beam.PCollection:
    inputs = tuple(inputs) if isinstance(inputs, tuple | list) else (inputs,)
    return inputs | "Flatten" >> beam.Flatten() if len(inputs) > 1 else inputs[0]


def _each_key(keys_value):
    keys, value = keys_value
    return ((key, value) for key in keys)


class _FlattenThenGroup(beam.PTransform):
    def __init__(self, min_values: int = 1, many_keys: bool = False):
        super().__init__()
        self.min_values, self.many_keys = min_values, many_keys

    def expand(self, inputs):
        if self.many_keys:
            inputs = tuple(inputs) if isinstance(inputs, tuple | list) else (inputs,)
            inputs = tuple(pcoll | f"EachKey{i or ''}" >> beam.FlatMap(_each_key) for i, pcoll in enumerate(inputs))
        grouped = _flattened(inputs) | "Group" >> beam.GroupByKey()
        if self.min_values <= 1:
            return grouped
        min_values = self.min_values
        return grouped | "AtLeast" >> beam.Filter(
            lambda key_values: sum(1 for _ in itertools.islice(key_values[1], min_values)) >= min_values)


def grouping(directory: str | None, label: str, min_values: int = 1, many_keys: bool = False) -> beam.PTransform:
    """Groups one PCollection, or a tuple of them as if flattened: ``GroupByKeyOnDisk`` under
    ``directory/label`` when a directory is given, else a ``Flatten`` and the runner's ``GroupByKey``.
    With ``min_values``, a key with fewer values is left out (on disk, before it is decoded). With
    ``many_keys``, elements are (keys, value), grouped as (key, value) for each of the keys."""
    if directory is None:
        return _FlattenThenGroup(min_values, many_keys)
    return GroupByKeyOnDisk(FileSystems.join(directory, label), min_values=min_values, many_keys=many_keys)


class _FlattenThenDistinct(beam.PTransform):
    def expand(self, inputs):
        return _flattened(inputs) | "Distinct" >> beam.Distinct()


class _DistinctOnDisk(beam.PTransform):
    def __init__(self, directory: str):
        super().__init__()
        self.directory = directory

    def expand(self, inputs):
        inputs = tuple(inputs) if isinstance(inputs, tuple | list) else (inputs,)
        keyed = tuple(pcoll | f"AsKey{i or ''}" >> beam.Map(lambda element: (element, None))
                      for i, pcoll in enumerate(inputs))
        return keyed | "Group" >> GroupByKeyOnDisk(self.directory) | "Keys" >> beam.Keys()


def distinct(directory: str | None, label: str) -> beam.PTransform:
    """``beam.Distinct`` of one PCollection, or a tuple of them as if flattened, whose elements are
    keys (str, bytes, flat tuples): through run files under ``directory/label`` when a directory is
    given (repeats never leave the worker that made them), else a ``Flatten`` and ``beam.Distinct``."""
    if directory is None:
        return _FlattenThenDistinct()
    return _DistinctOnDisk(FileSystems.join(directory, label))


class _FlattenOnDisk(beam.PTransform):
    def __init__(self, directory: str, key):
        super().__init__()
        self.directory, self.key = directory, key

    def expand(self, inputs):
        key = self.key
        keyed = tuple(pcoll | f"Key{i or ''}" >> beam.Map(lambda element: (key(element), element))
                      for i, pcoll in enumerate(inputs))
        return keyed | "Group" >> GroupByKeyOnDisk(self.directory) | "Values" >> beam.FlatMap(lambda kv: kv[1])


def flatten(directory: str | None, label: str, key) -> beam.PTransform:
    """``beam.Flatten`` of a tuple of PCollections, through run files under ``directory/label`` when a
    directory is given, keyed by ``key(element)`` (a str, bytes or flat tuple; it only spreads the
    work). FnApiRunner holds a ``Flatten`` of PCollections made in different stages in its driver."""
    if directory is None:
        return beam.Flatten()
    return _FlattenOnDisk(FileSystems.join(directory, label), key)


def _tag(name: str):
    return lambda key_value: (key_value[0], (name, key_value[1]))


def _untag(names: tuple[str, ...]):
    def by_name(key_values):
        key, tagged = key_values
        joined: dict[str, list] = {name: [] for name in names}
        for name, value in tagged:
            joined[name].append(value)
        return key, joined
    return by_name


class CoGroup(beam.PTransform):
    """{name: (key, value)} -> (key, {name: [values]}), like ``beam.CoGroupByKey``, grouped by
    ``grouping(directory, label)``: through run files when ``directory`` is given."""

    def __init__(self, directory: str | None, label: str):
        super().__init__()
        self.directory, self.label = directory, label

    def expand(self, named):
        names = tuple(sorted(named))
        tagged = tuple(named[name] | f"Tag_{name}" >> beam.Map(_tag(name)) for name in names)
        return tagged | "Group" >> grouping(self.directory, self.label) | "ByName" >> beam.Map(_untag(names))
