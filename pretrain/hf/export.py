"""The hand-off's Hugging Face weights as a stream: planned on the ``meta`` device, then read from the
checkpoint a few tensors at a time and written straight into size-capped safetensors shards.

Design notes: docs/design/pretrain.md, "pretrain/hf/export.py".
"""

from __future__ import annotations

import io
import json
import math
import re
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import torch
from torch.distributed.checkpoint.planner import LoadPlanner

from codemix.config import ConfigError
from codemix.pretrain.hf.convert import ExportUnit, Layout, export_units
from codemix.pretrain.hf.shards import SCALE_SUFFIX, dequantize_block_fp8, read_into

INDEX = "model.safetensors.index.json"
SINGLE = "model.safetensors"
DEFAULT_MAX_SHARD_BYTES = 5 * 10**9  # transformers' "5GB" (save_pretrained's max_shard_size before 5.x)
SAFETENSORS_DTYPES = {torch.float32: "F32", torch.bfloat16: "BF16", torch.float16: "F16", torch.float64: "F64",
                      torch.float8_e4m3fn: "F8_E4M3", torch.int64: "I64", torch.int32: "I32", torch.uint8: "U8"}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMG]i?B?|B)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "B": 1, "K": 10**3, "KB": 10**3, "KIB": 2**10, "M": 10**6, "MB": 10**6, "MIB": 2**20,
          "G": 10**9, "GB": 10**9, "GIB": 2**30}


def parse_size(text: str | int, field: str = "--max-shard-size") -> int:
    """``"5GB"``, ``"500MiB"``, ``"2000000"`` -> bytes; ConfigError naming ``field`` otherwise."""
    if isinstance(text, int):
        size = text
    else:
        match = _SIZE.match(text)
        if match is None:
            raise ConfigError(field, f"{text!r} is not a size", "write it like 5GB, 500MB or 2000000 (bytes)")
        size = int(float(match.group(1)) * _UNITS[(match.group(2) or "").upper()])
    if size <= 0:
        raise ConfigError(field, f"{text!r} is not a positive size", "give at least one byte, e.g. 500MB")
    return size


@dataclass(slots=True, frozen=True)
class Planned:
    """One tensor of the bundle: its name, shape and the dtype it is written in."""

    name: str
    shape: tuple[int, ...]
    dtype: torch.dtype

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * torch.empty((), dtype=self.dtype).element_size()


FP8_MAX = 448.0  # the largest float8_e4m3fn value
CAST_CHUNK_BYTES = 16 * 2**20  # a cast to the stored dtype is written in slices of this many source bytes


def quantize_block_fp8(weight: torch.Tensor, block: tuple[int, int]) -> tuple[torch.Tensor, torch.Tensor]:
    """``weight [R, C]`` as a block-FP8 release stores it: float8_e4m3fn codes and one fp32
    ``weight_scale_inv`` per ``block`` (edge blocks ragged), each block's largest value mapped to 448
    (DeepSeek-V3's and Kimi K2's scheme; ``shards.dequantize_block_fp8`` is its inverse)."""
    rows, cols = weight.shape
    b0, b1 = block
    padded = torch.nn.functional.pad(weight.float(), (0, -cols % b1, 0, -rows % b0))
    blocks = padded.reshape(padded.shape[0] // b0, b0, padded.shape[1] // b1, b1)
    amax = blocks.abs().amax(dim=(1, 3))
    scale = torch.where(amax > 0, amax / FP8_MAX, torch.ones_like(amax))
    codes = (blocks / scale[:, None, :, None]).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    return codes.reshape(padded.shape)[:rows, :cols].contiguous(), scale.contiguous()


@dataclass(slots=True, frozen=True)
class Encoding:
    """How each exported tensor is stored: a dtype per name (``dtypes``: ``{"default", "other"}``), and
    the names stored block-FP8 with their ``weight_scale_inv``, as an FP8 base was released."""

    dtypes: dict
    fp8: frozenset[str] = frozenset()
    block: tuple[int, int] = (128, 128)

    def dtype(self, name: str) -> torch.dtype:
        return getattr(torch, self.dtypes["other"].get(name, self.dtypes["default"]))

    def planned(self, name: str, shape: tuple[int, ...]) -> list[Planned]:
        if name not in self.fp8:
            return [Planned(name, shape, self.dtype(name))]
        grid = tuple(-(-size // edge) for size, edge in zip(shape, self.block, strict=True))
        return [Planned(name, shape, torch.float8_e4m3fn), Planned(name + SCALE_SUFFIX, grid, torch.float32)]

    def encode(self, name: str, tensor: torch.Tensor) -> list[tuple[str, torch.Tensor]]:
        """What is written for ``name``: the tensor itself (``ShardFile`` casts it a slice at a time, so no
        whole copy in the stored dtype is made), or an FP8 weight's codes and scales."""
        if name not in self.fp8:
            return [(name, tensor)]
        codes, scale = quantize_block_fp8(tensor, self.block)
        return [(name, codes), (name + SCALE_SUFFIX, scale)]

    def stored(self, name: str, tensor: torch.Tensor) -> torch.Tensor:
        """``tensor`` as a reader of the bundle gets it back, in fp32: what the error is measured on."""
        if name not in self.fp8:
            return tensor.to(self.dtype(name)).float()
        return dequantize_block_fp8(*quantize_block_fp8(tensor, self.block), self.block, name)


def plan_shards(tensors: list[Planned], max_bytes: int) -> list[list[Planned]]:
    """Consecutive runs of ``tensors`` of at most ``max_bytes`` each (a larger tensor alone in its shard)."""
    shards: list[list[Planned]] = [[]]
    size = 0
    for tensor in tensors:
        if shards[-1] and size + tensor.nbytes > max_bytes:
            shards.append([])
            size = 0
        shards[-1].append(tensor)
        size += tensor.nbytes
    return shards


def shard_names(count: int) -> list[str]:
    return [SINGLE] if count == 1 else [f"model-{k:05d}-of-{count:05d}.safetensors" for k in range(1, count + 1)]


class ShardFile:
    """One safetensors file written as its tensors arrive: the header (known from the plan) first,
    then each tensor's bytes in plan order, so no tensor waits in memory for the others."""

    def __init__(self, path: Path, tensors: list[Planned], metadata: dict[str, str]) -> None:
        header: dict[str, object] = {"__metadata__": metadata}
        offset = 0
        for tensor in tensors:
            header[tensor.name] = {"dtype": SAFETENSORS_DTYPES[tensor.dtype], "shape": list(tensor.shape),
                                   "data_offsets": [offset, offset + tensor.nbytes]}
            offset += tensor.nbytes
        encoded = json.dumps(header, separators=(",", ":")).encode()
        encoded += b" " * (-len(encoded) % 8)  # safetensors aligns the data to 8 bytes with spaces
        self.path, self.expected = path, list(tensors)
        self.handle = path.open("wb")
        self.handle.write(len(encoded).to_bytes(8, "little") + encoded)

    def write(self, name: str, tensor: torch.Tensor) -> None:
        """Append ``tensor`` in its planned dtype; a cast is made a slice of rows at a time."""
        planned = self.expected.pop(0)
        castable = tensor.dtype.is_floating_point and planned.dtype != torch.float8_e4m3fn
        if (planned.name, planned.shape) != (name, tuple(tensor.shape)) or (tensor.dtype != planned.dtype
                                                                             and not castable):
            raise RuntimeError(f"{name} {tuple(tensor.shape)} {tensor.dtype} arrived where the plan has "
                               f"{planned.name} {planned.shape} {planned.dtype}")
        flat = tensor.detach().reshape(-1)
        step = max(CAST_CHUNK_BYTES // max(flat.element_size(), 1), 1)
        for start in range(0, flat.numel(), step):
            part = flat[start:start + step].to(planned.dtype).contiguous()
            self.handle.write(memoryview(part.view(torch.uint8).numpy()))

    def close(self) -> None:
        self.handle.close()
        if self.expected:
            raise RuntimeError(f"{self.path.name}: {len(self.expected)} planned tensors never arrived")


def _empty(value):
    """A sharded-state-dict entry of a ``meta`` model with CPU storage to load into."""
    from megatron.core.dist_checkpointing.mapping import ShardedTensor, ShardedTensorFactory

    if isinstance(value, ShardedTensor):
        return replace(value, data=torch.empty(value.local_shape, dtype=value.dtype))
    if isinstance(value, ShardedTensorFactory):
        return replace(value, data=torch.empty(value.data.shape, dtype=value.data.dtype))
    raise TypeError(f"cannot load a {type(value).__name__} by itself")


def _entry_bytes(value) -> int:
    data = value.data
    return data.numel() * data.element_size()


def unit_batches(units: list[ExportUnit], sharded: dict, budget: int) -> list[list[ExportUnit]]:
    """Consecutive units adding up to at most ``budget`` bytes (one unit at least)."""
    batches: list[list[ExportUnit]] = []
    size = budget + 1
    for unit in units:
        unit_size = sum(_entry_bytes(sharded[name]) for name in unit.names)
        if size + unit_size > budget:
            batches.append([])
            size = 0
        batches[-1].append(unit)
        size += unit_size
    return batches


def _leaves(tree) -> Iterator:
    if isinstance(tree, dict):
        for value in tree.values():
            yield from _leaves(value)
    elif isinstance(tree, list):
        for value in tree:
            yield from _leaves(value)
    else:
        yield tree


def _data(tree):
    if isinstance(tree, dict):
        return {key: _data(value) for key, value in tree.items()}
    if isinstance(tree, list):
        return [_data(value) for value in tree]
    return tree.data


class _ChunkPlanner(LoadPlanner):
    """torch DCP's load planner for chunks already planned: each read lands in a view of its chunk's tensor."""

    def __init__(self, targets: list[torch.Tensor]) -> None:
        self.targets = targets  # by the read item's dest_index.index

    def resolve_tensor(self, read_item) -> torch.Tensor:
        return _narrow(self.targets[read_item.dest_index.index], read_item.dest_offsets, read_item.lengths)

    def commit_tensor(self, read_item, tensor: torch.Tensor) -> None:
        pass  # the read was copied into the view resolve_tensor gave

    def load_bytes(self, read_item, value) -> None:
        raise ValueError(f"{read_item.dest_index.fqn}: a tensor was asked for, the checkpoint holds bytes")


class CheckpointChunks:
    """The entries of a megatron ``torch_dist`` checkpoint read chunk by chunk through torch DCP's storage
    reader. megatron-core's own load turns a request into torch ShardedTensors that must list every chunk
    of a key (a layer's 32 stacked experts, 134 MB in fp32, for one of them); here only the chunks asked
    for are read, each stored item once, so memory is the request plus one stored item."""

    def __init__(self, checkpoint: Path) -> None:
        from torch.distributed.checkpoint import FileSystemReader

        backend = json.loads((Path(checkpoint) / "metadata.json").read_text()).get("sharded_backend")
        if backend != "torch_dist":
            raise ValueError(f"{checkpoint}: sharded_backend {backend!r}; the hand-off reads torch_dist checkpoints")
        self.checkpoint = Path(checkpoint)
        self.reader = FileSystemReader(str(checkpoint))
        self.metadata = self.reader.read_metadata()
        self.reader.set_up_storage_reader(self.metadata, is_coordinator=True)

    def load(self, request: dict) -> dict[str, torch.Tensor]:
        """``request``: megatron sharded-state-dict entries (ShardedTensor or ShardedTensorFactory) with CPU
        storage; returns each entry's tensor, factories merged back as megatron-core's load does."""
        from megatron.core.dist_checkpointing.mapping import ShardedTensorFactory
        from torch.distributed.checkpoint.metadata import ChunkStorageMetadata, TensorStorageMetadata
        from torch.distributed.checkpoint.planner import LoadPlan
        from torch.distributed.checkpoint.planner_helpers import create_read_items_for_chunk_list

        built = {name: value.build() if isinstance(value, ShardedTensorFactory) else value
                 for name, value in request.items()}
        targets: list[torch.Tensor] = []
        items = []
        for leaf in _leaves(built):
            if leaf.flattened_range is not None:
                raise ValueError(f"{leaf.key}: a flattened (optimizer-sharded) entry is not a model weight")
            stored = self.metadata.state_dict_metadata.get(leaf.key)
            if not isinstance(stored, TensorStorageMetadata):
                raise KeyError(f"{self.checkpoint}: no tensor {leaf.key!r} in the checkpoint")
            sizes = (1,) * leaf.prepend_axis_num + tuple(leaf.local_shape)
            offsets = tuple(int(o) for o in leaf.global_offset)
            chunk = ChunkStorageMetadata(offsets=torch.Size(offsets), sizes=torch.Size(sizes))
            found = create_read_items_for_chunk_list(leaf.key, stored, [chunk])
            if sum(math.prod(item.lengths) for item in found) != math.prod(sizes):
                raise ValueError(f"{self.checkpoint}: {leaf.key} at {offsets} is not wholly in the checkpoint")
            # two entries may ask for parts of one chunk: each read names its own target by index
            items += [replace(item, dest_index=replace(item.dest_index, index=len(targets))) for item in found]
            targets.append(leaf.data.view(sizes))
        plan = self.reader.prepare_local_plan(LoadPlan(items))
        (plan,) = self.reader.prepare_global_plan([plan])
        self._read(plan.items, _ChunkPlanner(targets))
        loaded = _data(built)
        return {name: request[name].merge_fn(loaded[name]) if isinstance(request[name], ShardedTensorFactory)
                else loaded[name] for name in request}


    def _read(self, items: list, planner: _ChunkPlanner) -> None:
        """DCP's ``FileSystemReader.read_data``, but a stored item whose asked-for part is contiguous and of
        the target's dtype is read from the file straight into the target: DCP's reader loads the whole
        stored item and copies, two copies of the largest tensor (the embedding) at once."""
        by_file: dict[str, list] = {}
        for item in items:
            by_file.setdefault(self.reader.storage_data[item.storage_index].relative_path, []).append(item)
        for relative, reads in by_file.items():
            with open(self.checkpoint / relative, "rb") as file:
                for item in sorted(reads, key=lambda read: self.reader.storage_data[read.storage_index].offset):
                    info = self.reader.storage_data[item.storage_index]
                    if info.transform_descriptors:
                        raise ValueError(f"{self.checkpoint}: {item.storage_index.fqn} is stored transformed "
                                         f"({info.transform_descriptors}); the hand-off reads plain torch_dist items")
                    target = planner.resolve_tensor(item).detach()
                    window = _Window(file, info.offset, info.length)
                    if not _read_contiguous(window, item, target):
                        window.seek(0)
                        stored = torch.load(window, map_location="cpu", weights_only=True)
                        target.copy_(_narrow(stored, item.storage_offsets, item.lengths))


def _narrow(tensor: torch.Tensor, offsets, lengths) -> torch.Tensor:
    for dim, (start, length) in enumerate(zip(offsets, lengths)):
        tensor = tensor.narrow(dim, start, length)
    return tensor


class _Window(io.RawIOBase):
    """``length`` bytes of ``file`` from ``start``, as a file of its own (a stored item is a torch.save archive)."""

    def __init__(self, file, start: int, length: int) -> None:
        self.file, self.start, self.length, self.position = file, start, length, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.length}[whence]
        self.position = min(max(base + offset, 0), self.length)
        return self.position

    def readinto(self, buffer) -> int:
        count = min(len(buffer), self.length - self.position)
        if count <= 0:
            return 0
        self.file.seek(self.start + self.position)
        got = self.file.readinto(memoryview(buffer)[:count])
        self.position += got
        return got


def _read_contiguous(window: _Window, item, target: torch.Tensor) -> bool:
    """Read ``item``'s part of a stored tensor straight into ``target`` when the part is one contiguous byte
    range of the target's dtype, native byte order; False when it is not (the caller loads and copies)."""
    with zipfile.ZipFile(window) as archive:
        orders = [name for name in archive.namelist() if name.endswith("/byteorder")]
        if orders and archive.read(orders[0]).decode() != sys.byteorder:
            return False
    window.seek(0)
    layout = torch.load(window, map_location="meta", weights_only=True)  # shapes and offsets, no bytes read
    record = getattr(layout.untyped_storage(), "_checkpoint_offset", None)
    part = _narrow(layout, item.storage_offsets, item.lengths)
    if record is None or part.dtype != target.dtype or not part.is_contiguous() or not target.is_contiguous():
        return False
    window.seek(record + part.storage_offset() * part.element_size())
    read_into(window, target.reshape(-1).view(torch.uint8), item.storage_index.fqn)
    return True


def checkpoint_tensors(checkpoint: Path, sharded: dict,
                       batches: list[list[ExportUnit]]) -> Iterator[tuple[str, torch.Tensor]]:
    """The Hugging Face tensors of a megatron checkpoint, batch by batch (``unit_batches``): only the chunks a
    batch asks for are read (``CheckpointChunks``), so one batch of the checkpoint is in memory at a time."""
    chunks = CheckpointChunks(checkpoint)
    for batch in batches:
        loaded = chunks.load({name: _empty(sharded[name]) for unit in batch for name in unit.names})
        for unit in batch:
            yield from unit.convert(loaded).items()
        del loaded


def planned_outputs(sharded: dict, units: list[ExportUnit], encoding: Encoding) -> list[Planned]:
    """Every output tensor's name, shape and stored dtype, found by converting the ``meta`` model (nothing read)."""
    meta = {name: value.data for name, value in sharded.items() if not name.endswith("_extra_state")}
    return [planned for unit in units for name, tensor in unit.convert(meta).items()
            for planned in encoding.planned(name, tuple(tensor.shape))]


def model_units(model, layout: Layout) -> tuple[dict, list[ExportUnit]]:
    """The ``meta`` model's sharded state dict (entries by state-dict name) and its export units."""
    sharded = {name: value for name, value in model.sharded_state_dict().items() if not name.endswith("_extra_state")}
    return sharded, export_units(list(sharded), layout)


def write_sharded(hf_dir: Path, planned: list[Planned], tensors: Iterator[tuple[str, torch.Tensor]],
                  max_bytes: int, metadata: dict[str, str]) -> list[str]:
    """Write ``tensors`` (arriving in ``planned`` order) into shards of at most ``max_bytes``, with
    ``model.safetensors.index.json`` when there are several; returns the shard file names."""
    for stale in [*hf_dir.glob("model*.safetensors"), hf_dir / INDEX]:
        stale.unlink(missing_ok=True)  # a hand-off into the same folder leaves no shard of the last one
    shards = plan_shards(planned, max_bytes)
    names = shard_names(len(shards))
    owner = {tensor.name: k for k, shard in enumerate(shards) for tensor in shard}
    files: dict[int, ShardFile] = {}
    opened: set[int] = set()
    for name, tensor in tensors:
        k = owner[name]
        if k not in opened:
            opened.add(k)
            for done in [j for j in files if j < k]:
                files.pop(done).close()
            files[k] = ShardFile(hf_dir / names[k], shards[k], metadata)
        files[k].write(name, tensor)
        del tensor  # not held while the next batch is read
    for file in files.values():
        file.close()
    if len(opened) != len(shards):
        raise RuntimeError(f"{len(shards) - len(opened)} of {len(shards)} planned shards received no tensor")
    if len(shards) > 1:
        index = {"metadata": {"total_size": sum(t.nbytes for t in planned)},
                 "weight_map": {t.name: names[owner[t.name]] for t in sorted(planned, key=lambda t: t.name)}}
        (hf_dir / INDEX).write_text(json.dumps(index, indent=2))
    return names
