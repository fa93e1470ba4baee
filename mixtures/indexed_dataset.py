"""Write and read Megatron indexed datasets (``PREFIX.bin`` + ``PREFIX.idx``), byte-compatible with megatron-core.

Design notes: docs/design/mixtures.md, "mixtures/indexed_dataset.py".
"""

from __future__ import annotations

import array
import struct
import uuid
from collections.abc import Iterable, Iterator, Sequence
from types import TracebackType
from typing import Self

import numpy as np
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

_INDEX_MAGIC = b"MMIDIDX\x00\x00"
_INDEX_VERSION = 1
# megatron.core.datasets.indexed_dataset.DType, restricted to the integer codes (token ids).
_DTYPE_CODES = {"uint8": 1, "int8": 2, "int16": 3, "int32": 4, "int64": 5, "uint16": 8}
_INT32_MAX = np.iinfo(np.int32).max


def dtype_for_vocab(vocab_size: int) -> type[np.integer]:
    """The token dtype for a vocabulary: uint16 below 65,500 ids, else int32.

    This is Megatron's own rule (``DType.optimal_dtype`` in indexed_dataset.py, used by
    ``tools/preprocess_data.py``); the 36-id margin below 2**16 is Megatron's, kept so codemix
    shards match the ones Megatron's own tooling would write for the same tokenizer.
    """
    if vocab_size <= 0:
        raise ValueError(f"vocab_size must be positive, got {vocab_size}")
    return np.uint16 if vocab_size < 65500 else np.int32


class IndexedDatasetWriter:
    """Streams documents into ``PREFIX.bin`` and writes ``PREFIX.idx`` on ``finalize()``.

    Tokens go straight to the .bin file; only one int64 length per document stays in memory (in an
    ``array.array``, 8 bytes a document). Both files are written under temporary names and renamed
    at the end, .idx last: megatron-core needs both files, so a crash at any point leaves either no
    shard or a complete one under the final name, never a torn one.

    ``path_prefix`` is a local path or any Beam FileSystems URL (gs://, s3://...). A document may be
    empty (length 0): megatron-core reads it back as an empty array and GPTDataset skips over it,
    but a shard whose documents are *all* empty has an empty .bin, which numpy cannot memory-map,
    so megatron-core cannot open it; callers should not write such shards.

    Used as a context manager, a clean exit finalizes and an exception deletes the temporary files.
    """

    def __init__(self, path_prefix: str, dtype: type[np.integer] | np.dtype) -> None:
        self.path_prefix = path_prefix
        self.dtype = _token_dtype(dtype)
        self._bin_temp = _temporary_name(f"{path_prefix}.bin")
        self._idx_temp = _temporary_name(f"{path_prefix}.idx")
        # Beam's LocalFileSystem.create makes missing parent directories; object stores have none.
        self._bin = FileSystems.create(self._bin_temp, compression_type=CompressionTypes.UNCOMPRESSED)
        self._lengths = array.array("q")
        self._tokens = 0
        self._open = True

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if not self._open:
            return
        if exc_type is None:
            self.finalize()
        else:
            self.abort()

    def add_document(self, tokens: np.ndarray | Sequence[int]) -> None:
        """Append one document (one Megatron sequence); raises ValueError on an id the dtype cannot hold."""
        self._require_open()
        ids = _as_token_array(tokens, self.dtype)
        if ids.size > _INT32_MAX:
            raise ValueError(f"document of {ids.size:,} tokens exceeds the int32 length field of the .idx")
        self._bin.write(ids.tobytes())
        self._lengths.append(ids.size)
        self._tokens += ids.size

    def add_documents(self, tokens: np.ndarray | Sequence[int], lengths: Sequence[int] | np.ndarray) -> None:
        """Append consecutive documents given back to back in ``tokens``, ``lengths[i]`` ids each.

        Writes exactly what ``add_document`` would for each piece, with one check and one write for
        the lot: what a tokenizer batch hands over, without a numpy array per document.
        """
        self._require_open()
        ids = _as_token_array(tokens, self.dtype)
        sizes = np.asarray(lengths, dtype=np.int64)
        if sizes.ndim != 1 or int(sizes.sum()) != ids.size or (sizes.size and sizes.min() < 0):
            raise ValueError(f"lengths must be non-negative and add up to the {ids.size:,} tokens given")
        if sizes.size and sizes.max() > _INT32_MAX:
            raise ValueError(f"document of {int(sizes.max()):,} tokens exceeds the int32 length field of the .idx")
        self._bin.write(ids.tobytes())
        self._lengths.frombytes(sizes.astype("=i8", copy=False).tobytes())
        self._tokens += ids.size

    def finalize(self) -> tuple[int, int]:
        """Write the .idx, move both files to their final names, return (documents, tokens)."""
        self._require_open()
        self._open = False
        try:
            self._bin.close()
            with FileSystems.create(self._idx_temp, compression_type=CompressionTypes.UNCOMPRESSED) as index:
                _write_index(index, np.frombuffer(self._lengths, dtype=np.int64), self.dtype)
            _commit(self.path_prefix, self._bin_temp, self._idx_temp)
        except BaseException:
            self._delete_temporaries()
            raise
        return len(self._lengths), self._tokens

    def abort(self) -> None:
        """Close and delete the temporary files; nothing appears under the final names."""
        if not self._open:
            return
        self._open = False
        self._bin.close()
        self._delete_temporaries()

    def _delete_temporaries(self) -> None:
        leftovers = [path for path in (self._bin_temp, self._idx_temp) if FileSystems.exists(path)]
        if leftovers:
            FileSystems.delete(leftovers)

    def _require_open(self) -> None:
        if not self._open:
            raise ValueError(f"writer for {self.path_prefix} is already finalized or aborted")


def write_indexed_dataset(
    path_prefix: str, documents: Iterable[Sequence[int] | np.ndarray], dtype: type[np.integer] | np.dtype
) -> tuple[int, int]:
    """Write every document to ``path_prefix``.{bin,idx}; returns (documents, tokens)."""
    with IndexedDatasetWriter(path_prefix, dtype) as writer:
        for document in documents:
            writer.add_document(document)
        return writer.finalize()


def _token_dtype(dtype: type[np.integer] | np.dtype) -> np.dtype:
    # Megatron reads tokens in the machine's byte order, little-endian on every platform it supports.
    resolved = np.dtype(dtype)
    if resolved.name not in _DTYPE_CODES:
        raise ValueError(f"token dtype {resolved} has no integer Megatron DType code; use numpy.uint16 or numpy.int32")
    return resolved.newbyteorder("<")


def _as_token_array(tokens: np.ndarray | Sequence[int], dtype: np.dtype) -> np.ndarray:
    ids = np.asarray(tokens)
    if ids.size == 0:
        return np.empty(0, dtype=dtype)
    if ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(
            f"a document must be a 1-D sequence of integer token ids, got {ids.dtype} of shape {ids.shape}"
        )
    low, high = ids.min(), ids.max()
    if low < 0 or high > np.iinfo(dtype).max:
        bad = low if low < 0 else high
        raise ValueError(
            f"token id {int(bad)} does not fit {dtype.name} (0..{np.iinfo(dtype).max}); "
            "pick the dtype with dtype_for_vocab(tokenizer vocab size)"
        )
    return ids.astype(dtype, copy=False)


def _write_index(stream, lengths: np.ndarray, dtype: np.dtype) -> None:
    """Write the .idx described in the module docstring for sequences of ``lengths`` tokens."""
    count = lengths.size
    pointers = np.zeros(count, dtype="<i8")
    np.cumsum(lengths[:-1] * dtype.itemsize, out=pointers[1:])
    stream.write(_INDEX_MAGIC)
    stream.write(struct.pack("<QBQQ", _INDEX_VERSION, _DTYPE_CODES[dtype.name], count, count + 1))
    stream.write(lengths.astype("<i4").tobytes())
    stream.write(pointers.tobytes())
    stream.write(np.arange(count + 1, dtype="<i8").tobytes())


def read_indexed_documents(path_prefix: str) -> Iterator[np.ndarray]:
    """Every document of a shard, in order, as a token array: the layout above, read back.

    Any ``FileSystems`` path works (local or object store). A document spanning several sequences
    (Megatron's ``--split-sentences``) comes back as their concatenation, as megatron-core's
    ``IndexedDataset`` reads it; tests check the two readers agree on codemix's shards.
    """
    lengths, pointers, document_indices, dtype = _read_index(f"{path_prefix}.idx")
    with FileSystems.open(f"{path_prefix}.bin", compression_type=CompressionTypes.UNCOMPRESSED) as stream:
        data = stream.read()
    for begin, end in zip(document_indices[:-1].tolist(), document_indices[1:].tolist()):
        parts = [np.frombuffer(data, dtype=dtype, count=int(lengths[i]), offset=int(pointers[i])) for i in range(begin, end)]
        yield np.concatenate(parts) if parts else np.empty(0, dtype=dtype)


def _read_index(path: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.dtype]:
    """``(sequence_lengths, sequence_pointers, document_indices, token dtype)`` of a ``.idx`` file."""
    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as stream:
        data = stream.read()
    header = len(_INDEX_MAGIC) + struct.calcsize("<QBQQ")
    if data[: len(_INDEX_MAGIC)] != _INDEX_MAGIC:
        raise ValueError(f"{path} is not a Megatron index (magic {data[:len(_INDEX_MAGIC)]!r})")
    version, code, count, boundaries = struct.unpack_from("<QBQQ", data, len(_INDEX_MAGIC))
    names = {c: name for name, c in _DTYPE_CODES.items()}
    if version != _INDEX_VERSION or code not in names:
        raise ValueError(f"{path}: index version {version} / dtype code {code} is not one codemix reads")
    lengths = np.frombuffer(data, dtype="<i4", count=count, offset=header)
    pointers = np.frombuffer(data, dtype="<i8", count=count, offset=header + 4 * count)
    document_indices = np.frombuffer(data, dtype="<i8", count=boundaries, offset=header + 12 * count)
    return lengths, pointers, document_indices, np.dtype(names[code]).newbyteorder("<")


def _commit(path_prefix: str, bin_temp: str, idx_temp: str) -> None:
    # The .idx is the commit marker: drop a stale one first so that an old .idx can never pair with
    # a new .bin if we crash between the two renames.
    final_idx = f"{path_prefix}.idx"
    if FileSystems.exists(final_idx):
        FileSystems.delete([final_idx])
    FileSystems.rename([bin_temp], [f"{path_prefix}.bin"])
    FileSystems.rename([idx_temp], [final_idx])


def _temporary_name(final: str) -> str:
    # Unique per writer, so retried Beam bundles writing the same shard never share a temp file.
    return f"{final}.tmp-{uuid.uuid4().hex[:12]}"


def document_count(path_prefix: str) -> int:
    """How many documents a shard holds, from its ``.idx`` alone."""
    return len(_read_index(f"{path_prefix}.idx")[2]) - 1


def read_documents_at(path_prefix: str, indices: Iterable[int]) -> list[np.ndarray]:
    """Documents ``indices`` of a shard (in that order), reading only their bytes of the ``.bin``."""
    lengths, pointers, document_indices, dtype = _read_index(f"{path_prefix}.idx")
    documents = []
    with FileSystems.open(f"{path_prefix}.bin", compression_type=CompressionTypes.UNCOMPRESSED) as stream:
        for index in indices:
            parts = []
            for sequence in range(int(document_indices[index]), int(document_indices[index + 1])):
                stream.seek(int(pointers[sequence]))
                parts.append(np.frombuffer(stream.read(int(lengths[sequence]) * dtype.itemsize), dtype=dtype))
            documents.append(np.concatenate(parts) if parts else np.empty(0, dtype=dtype))
    return documents
