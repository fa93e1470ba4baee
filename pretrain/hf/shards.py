"""A Hugging Face safetensors checkpoint read one tensor at a time: names, dtypes and shapes from the
shard headers, each tensor (block-FP8 pairs dequantised) only when asked, with at most one shard open.

Design notes: docs/design/pretrain.md, "pretrain/hf/shards.py".
"""

from __future__ import annotations

import ctypes
import json
from pathlib import Path
from typing import Any

import torch

from codemix.config import ConfigError, require

INDEX = "model.safetensors.index.json"
SINGLE = "model.safetensors"
SCALE_SUFFIX = "_scale_inv"


class HFShards:
    """The tensors of a checkpoint directory (``model.safetensors``, or the shards its index names).

    The shard headers are read as the safetensors format lays them out; a tensor is read with plain file
    reads into memory of its own (a mapped shard's touched pages would count as the process's until it
    closed), the shard kept open until a tensor of another shard is asked for, so what the reader holds is
    the tensor asked for, whatever the checkpoint's size.
    """

    def __init__(self, hf_dir: str | Path, config: dict[str, Any] | None = None) -> None:
        self.root = Path(hf_dir)
        self.config = config if config is not None else json.loads((self.root / "config.json").read_text())
        self.files = shard_files(self.root)
        self.file_of: dict[str, str] = {}
        self.dtypes: dict[str, torch.dtype] = {}
        self.shapes: dict[str, tuple[int, ...]] = {}
        self.spans: dict[str, tuple[int, int]] = {}  # byte range in the file's data section
        self.data_start: dict[str, int] = {}
        for file in self.files:
            self._read_header(file)
        self._open: tuple[str, Any] | None = None
        self.block = check_fp8_pairs(self.dtypes, self.config)
        for name in self.weights():
            if self.dtypes[name] == torch.float8_e4m3fn:
                scale_grid(self.shapes[name], self.shapes[name + SCALE_SUFFIX], self.block, name)

    def _read_header(self, file: str) -> None:
        # the safetensors layout: an 8-byte little-endian header length, the JSON header, then the data
        path = self.root / file
        with path.open("rb") as handle:
            head = handle.read(8)
            require(len(head) == 8, "init_from_hf", f"{path} is not a safetensors file (shorter than its header)")
            size = int.from_bytes(head, "little")
            require(size <= path.stat().st_size - 8, "init_from_hf", f"{path}: a header longer than the file")
            try:
                header = json.loads(handle.read(size))
            except ValueError as error:
                raise ConfigError("init_from_hf", f"{path} has no readable safetensors header ({error})") from error
        self.data_start[file] = 8 + size
        for name, entry in header.items():
            if name == "__metadata__":
                continue
            begin, end = entry["data_offsets"]
            self.file_of[name] = file
            self.dtypes[name] = getattr(torch, SAFETENSORS_DTYPES.get(entry["dtype"], "uint8"))
            self.shapes[name] = tuple(entry["shape"])
            self.spans[name] = (begin, end)

    def sizes(self) -> dict[str, int]:
        """Bytes on disk per shard file."""
        return {file: (self.root / file).stat().st_size for file in self.files}

    def raw(self, name: str) -> torch.Tensor:
        """The tensor as stored (FP8 codes stay codes), read from its shard into memory of its own: plain
        reads, not a mapping, whose touched pages would count against the process until the shard closes."""
        require(name in self.file_of, "init_from_hf", f"{self.root} has no tensor {name}")
        return self._read(name, self.dtypes[name])

    def tensor(self, name: str, dtype: torch.dtype | None = None) -> torch.Tensor:
        """The tensor as the model uses it: an FP8 weight times its block scales, in fp32; in ``dtype`` when
        given (a bf16 weight wanted in fp32 is cast slice by slice as it is read, never held twice)."""
        require(name in self.file_of, "init_from_hf", f"{self.root} has no tensor {name}")
        if self.dtypes[name] == torch.float8_e4m3fn:
            weight = dequantize_block_fp8(self.raw(name), self.raw(name + SCALE_SUFFIX), self.block, name)
            return weight if dtype is None else weight.to(dtype)
        return self._read(name, dtype or self.dtypes[name])

    def _read(self, name: str, dtype: torch.dtype) -> torch.Tensor:
        file = self.file_of[name]
        if self._open is None or self._open[0] != file:
            self.close()
            trim_heap()
            self._open = (file, (self.root / file).open("rb"))
        stored = self.dtypes[name]
        tensor = torch.empty(self.shapes[name], dtype=dtype)
        begin, end = self.spans[name]
        if end - begin != tensor.numel() * stored.itemsize:
            raise ValueError(f"{self.root / file}: {name} holds {end - begin} bytes, its dtype and shape "
                             f"({stored}, {self.shapes[name]}) need {tensor.numel() * stored.itemsize}")
        handle = self._open[1]
        handle.seek(self.data_start[file] + begin)
        flat = tensor.reshape(-1)
        if dtype == stored:
            read_into(handle, flat.view(torch.uint8), name)
            return tensor
        step = max(CAST_SLICE_BYTES // stored.itemsize, 1)
        staging = torch.empty(min(step, flat.numel()), dtype=stored)
        for start in range(0, flat.numel(), step):
            part = staging[:min(step, flat.numel() - start)]
            read_into(handle, part.view(torch.uint8), name)
            flat[start:start + part.numel()].copy_(part)
        return tensor

    def close(self) -> None:
        if self._open is not None:
            self._open[1].close()
            self._open = None

    def meta(self, name: str) -> torch.Tensor:
        """A storage-less stand-in of ``tensor(name)``: its shape and dtype, for planning without reading."""
        dtype = torch.float32 if self.dtypes[name] == torch.float8_e4m3fn else self.dtypes[name]
        return torch.empty(self.shapes[name], dtype=dtype, device="meta")

    def weights(self) -> list[str]:
        """Every tensor name but the FP8 scales (which ``tensor`` applies)."""
        return [name for name in self.file_of if not name.endswith(SCALE_SUFFIX)]


CAST_SLICE_BYTES = 16 << 20  # a cast while reading holds one slice of the stored bytes


def read_into(handle, buffer: torch.Tensor, name: str) -> None:
    """Read exactly ``buffer``'s bytes (a contiguous uint8 view) from ``handle`` into it."""
    view = memoryview(buffer.numpy()).cast("B")
    done = 0
    while done < len(view):
        got = handle.readinto(view[done:])
        if not got:
            raise ValueError(f"{getattr(handle, 'name', 'the file')} ends inside {name}")
        done += got


def trim_heap() -> None:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``; nothing elsewhere).
    Tensors under glibc's 32 MB mmap threshold come from the heap, whose freed pages it keeps: over a
    many-shard import that slack grew with the model (bench/RESULTS.md), trimmed once per shard it does not."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return
    libc.malloc_trim(0)


SAFETENSORS_DTYPES = {"F64": "float64", "F32": "float32", "F16": "float16", "BF16": "bfloat16", "I64": "int64",
                      "I32": "int32", "I16": "int16", "I8": "int8", "U8": "uint8", "BOOL": "bool",
                      "F8_E4M3": "float8_e4m3fn", "F8_E5M2": "float8_e5m2"}


def shard_files(root: Path) -> list[str]:
    """The safetensors files of a checkpoint directory, refusing an index that names absent shards."""
    index = root / INDEX
    files = sorted(set(json.loads(index.read_text())["weight_map"].values())) if index.is_file() else [SINGLE]
    missing = [name for name in files if not (root / name).is_file()]
    require(not missing, "init_from_hf", f"{root} lacks {', '.join(missing)}", "give a directory save_pretrained wrote")
    return files


def read_hf_tensors(hf_dir: str | Path, names: set[str] | None = None) -> dict[str, torch.Tensor]:
    """Every tensor of a checkpoint directory as stored (or only ``names``), all in memory at once: for
    small checkpoints and the few tensors the hand-off copies."""
    shards = HFShards(hf_dir)
    wanted = set(shards.file_of) if names is None else set(names)
    require(wanted <= set(shards.file_of), "init_from_hf", f"{hf_dir} lacks {sorted(wanted - set(shards.file_of))[:3]}")
    try:
        return {name: shards.raw(name) for name in sorted(wanted, key=lambda n: (shards.file_of[n], n))}
    finally:
        shards.close()


def dequantize_block_fp8(weight: torch.Tensor, scale_inv: torch.Tensor, block: tuple[int, int], name: str) -> torch.Tensor:
    """A block-FP8 weight ``[R, C]`` times its per-block scale ``[ceil(R/b0), ceil(C/b1)]``, in fp32."""
    rows, cols = weight.shape
    scale_grid(tuple(weight.shape), tuple(scale_inv.shape), block, name)
    scale_RC = scale_inv.float().repeat_interleave(block[0], 0)[:rows].repeat_interleave(block[1], 1)[:, :cols]
    return weight.float() * scale_RC


def scale_grid(weight: tuple[int, ...], scale: tuple[int, ...], block: tuple[int, int], name: str) -> None:
    """Refuse a scale that is not one value per ``block`` of the weight (edge blocks ragged)."""
    grid = tuple(-(-size // edge) for size, edge in zip(weight, block, strict=False))
    require(len(weight) == 2 and tuple(scale) == grid, "init_from_hf", f"{name}{SCALE_SUFFIX} has shape {tuple(scale)}, "
            f"not {grid} for a {'x'.join(map(str, weight))} weight in {block[0]}x{block[1]} blocks")


def fp8_block(config: dict[str, Any]) -> tuple[int, int]:
    """The weight block of a checkpoint's ``quantization_config`` (DeepSeek-V3's: fp8, e4m3, 128x128)."""
    quant = config.get("quantization_config") or {}
    require(quant.get("quant_method") == "fp8" and quant.get("fmt", "e4m3") == "e4m3", "init_from_hf: quantization_config",
            f"weights quantised as {quant.get('quant_method')!r} ({quant.get('fmt', quant.get('format'))}) are not "
            "imported", "only block-scaled fp8 e4m3 (DeepSeek-V3, Kimi K2) is; dequantise the checkpoint first")
    block = quant.get("weight_block_size") or [128, 128]
    return int(block[0]), int(block[1])


def check_fp8_pairs(dtypes: dict[str, torch.dtype], config: dict[str, Any]) -> tuple[int, int] | None:
    """The FP8 block size when the checkpoint is block-FP8 (None otherwise), after checking that every
    ``X.weight_scale_inv`` scales a float8_e4m3fn ``X.weight`` and every FP8 tensor has its scale (one
    without would load as unscaled codes). Any other quantisation is refused before a tensor is read."""
    if config.get("quantization_config"):
        fp8_block(config)
    scaled = sorted(name for name in dtypes if name.endswith(SCALE_SUFFIX))
    for scale_name in scaled:
        name = scale_name.removesuffix(SCALE_SUFFIX)
        require(dtypes.get(name) == torch.float8_e4m3fn, "init_from_hf", f"{scale_name} scales no float8_e4m3fn {name}")
    unscaled = [name for name, dtype in dtypes.items()
                if dtype == torch.float8_e4m3fn and name + SCALE_SUFFIX not in dtypes]
    require(not unscaled, "init_from_hf", f"{unscaled[:1]} is FP8 with no weight_scale_inv")
    return fp8_block(config) if scaled else None


def dequantize_checkpoint(tensors: dict[str, torch.Tensor], config: dict[str, Any]) -> dict[str, torch.Tensor]:
    """``tensors`` with every ``X.weight`` + ``X.weight_scale_inv`` pair replaced by the fp32 weight."""
    block = check_fp8_pairs({name: tensor.dtype for name, tensor in tensors.items()}, config)
    return {name: dequantize_block_fp8(tensor, tensors[name + SCALE_SUFFIX], block, name)
            if tensor.dtype == torch.float8_e4m3fn else tensor
            for name, tensor in tensors.items() if not name.endswith(SCALE_SUFFIX)}
