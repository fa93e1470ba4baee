"""Save and resume with megatron-core distributed checkpointing: weights, optimizer, step, RNG, data position.

A checkpoint is one ``dist_checkpointing`` directory, ``RUN_DIR/checkpoints/step_0000042/``:

    model.*              the model's ``sharded_state_dict()``: each tensor saved once, under a key
                         independent of TP/EP/PP layout (layers stacked, experts indexed), so a
                         checkpoint written by 8 GPUs loads on 1 and vice versa
    optimizer.*          Adam moments keyed like the parameters they belong to
                         (``optimizer.state.exp_avg.<param key>``), plus the shared step count
    train_state          ``TrainState`` as a dict: step, consumed samples, tokens seen (common, rank 0)
    rng_state            per rank: torch (and CUDA, megatron tracker) generator states

``RUN_DIR/checkpoints/latest`` names the newest complete checkpoint; it is written after the
checkpoint itself, so a crash mid-save leaves ``latest`` on the previous one.
"""

from __future__ import annotations

import os
import queue
import random
from pathlib import Path
from typing import Any

import numpy as np
import torch
from megatron.core import dist_checkpointing
from megatron.core.dist_checkpointing.mapping import ShardedObject
from megatron.core.dist_checkpointing.optimizer import get_param_id_to_sharded_param_map, optim_state_to_sharding_state
from megatron.core.dist_checkpointing.strategies.torch import (
    MCoreSavePlanner,
    TorchDistSaveShardedStrategy,
    _replace_state_dict_keys_with_sharded_keys,
    mcore_to_pyt_state_dict,
)

LATEST = "latest"
CHECKPOINTS = "checkpoints"
STEP_PREFIX = "step_"


def checkpoints_dir(run_dir: str | Path) -> Path:
    """Where a run's checkpoints (and ``latest``) lie."""
    return Path(run_dir) / CHECKPOINTS


def checkpoint_path(run_dir: str | Path, step: int) -> Path:
    return checkpoints_dir(run_dir) / f"{STEP_PREFIX}{step:07d}"


def checkpoint_step(checkpoint: str | Path) -> int:
    """The step a checkpoint was written at, from its name."""
    return int(Path(checkpoint).name.removeprefix(STEP_PREFIX))


def run_checkpoints(run_dir: str | Path) -> list[Path]:
    """Every checkpoint of a run, in step order."""
    return sorted(checkpoints_dir(run_dir).glob(f"{STEP_PREFIX}*"), key=checkpoint_step)


def run_dir_of(checkpoint: str | Path) -> Path:
    """The run a checkpoint belongs to: ``RUN/checkpoints/step_N`` -> ``RUN``."""
    return Path(checkpoint).resolve().parent.parent


def latest_checkpoint(run_dir: str | Path) -> Path | None:
    """The newest complete checkpoint of a run, or None."""
    marker = checkpoints_dir(run_dir) / LATEST
    if not marker.is_file():
        return None
    path = checkpoints_dir(run_dir) / marker.read_text().strip()
    return path if path.is_dir() else None


def optimizer_sharded_state_dict(optimizer, model_sharded: dict, *, is_loading: bool) -> dict:
    """The optimizer's state keyed by the model's sharded parameters.

    megatron's optimizers (GPU) build this themselves. For ``torch.optim.AdamW`` (CPU) this is what
    megatron's ``FP32Optimizer`` does: moments become ShardedTensors shaped like their parameter,
    and the per-parameter ``step`` (equal for all) is stored once as ``common_step``.
    """
    if hasattr(optimizer, "sharded_state_dict"):
        return optimizer.sharded_state_dict(model_sharded, is_loading=is_loading)
    if is_loading:
        init_adam_state(optimizer)
    state = optimizer.state_dict()
    params = [p for group in optimizer.param_groups for p in group["params"]]
    steps = {float(s["step"]) for s in state["state"].values() if "step" in s}
    optim_state_to_sharding_state(state, get_param_id_to_sharded_param_map(model_sharded, params), exclude_keys=("step",))
    state["state"]["common_step"] = steps.pop() if steps else 0.0
    return state


def init_adam_state(optimizer: torch.optim.Optimizer) -> None:
    """Allocate zero Adam moments so a load has tensors to fill (torch creates them lazily on step 1)."""
    for group in optimizer.param_groups:
        for p in group["params"]:
            if not optimizer.state[p]:
                optimizer.state[p] = {"step": torch.tensor(0.0), "exp_avg": torch.zeros_like(p),
                                      "exp_avg_sq": torch.zeros_like(p)}


def load_optimizer_state(optimizer, state: dict) -> None:
    """Inverse of ``optimizer_sharded_state_dict`` after ``dist_checkpointing.load`` filled it."""
    if hasattr(optimizer, "sharded_state_dict"):
        optimizer.load_state_dict(state)
        return
    step = state["state"].pop("common_step")
    for param_state in state["state"].values():
        param_state["step"] = torch.tensor(float(step))
    optimizer.load_state_dict(state)


def rng_state(cuda: bool) -> dict[str, Any]:
    """Every generator a step may draw from: Python, NumPy, torch, and on GPU CUDA and megatron's tracker."""
    state = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    if cuda:
        from megatron.core.tensor_parallel.random import get_cuda_rng_tracker

        state.update(cuda=torch.cuda.get_rng_state(), tracker=get_cuda_rng_tracker().get_states())
    return state


def set_rng_state(state: dict[str, Any]) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state:
        from megatron.core.tensor_parallel.random import get_cuda_rng_tracker

        torch.cuda.set_rng_state(state["cuda"])
        get_cuda_rng_tracker().set_states(state["tracker"])


def _rng_object(data: Any) -> ShardedObject:
    """RNG states differ per rank, so each rank stores its own shard of a world-sized object."""
    rank, world = torch.distributed.get_rank(), torch.distributed.get_world_size()
    return ShardedObject("rng_state", data, (world,), (rank,), replica_id=0)


def _write_buckets_in_this_thread(transform_list, use_msc, rank, write_buckets, global_results_queue) -> None:
    """megatron-core's ``write_preloaded_data_multiproc``, one bucket after another in the calling
    thread: what its parent collects (bucket index -> write results, or the first exception) goes to
    ``global_results_queue`` the same way, and an error raises here instead of ending a worker."""
    from megatron.core.dist_checkpointing.strategies.filesystem_async import FileSystemWriterAsync

    results: dict[int, list] | Exception = {}
    for index, bucket in enumerate(write_buckets):
        local_results, done = queue.SimpleQueue(), queue.Queue()
        done.put(index)
        extra = {"use_msc": use_msc} if use_msc else {}
        FileSystemWriterAsync.write_preloaded_data(transform_list, index, bucket, local_results, done, True, **extra)
        _, bucket_results = local_results.get_nowait()
        if isinstance(bucket_results, Exception):
            results = bucket_results
            break
        results[index] = bucket_results
    global_results_queue.put(results)


def write_checkpoints_in_process() -> None:
    """megatron-core's FileSystemWriterAsync forks one writer process per bucket (and spawns a
    Manager) from a process that already runs gloo's threads; fork after threads deadlocked a test
    run, and writer threads in their place left ``count_queue.join()`` waiting for ever on another.
    In the single-process CPU path the buckets are written one by one in the saving thread."""
    from megatron.core.dist_checkpointing.strategies import filesystem_async

    filesystem_async.FileSystemWriterAsync.write_preloaded_data_multiproc = staticmethod(_write_buckets_in_this_thread)
    filesystem_async._results_queue = queue.Queue()  # instead of a multiprocessing Manager's


def save_checkpoint(run_dir: str | Path, model, optimizer, train_state: dict[str, Any], *, cuda: bool) -> Path:
    """Write checkpoint ``step_<train_state['step']>`` of ``model`` (the bare GPTModel) and ``optimizer``
    (None: weights only, e.g. an imported base, which ``--init-from`` reads the same way)."""
    path = checkpoint_path(run_dir, train_state["step"])
    path.mkdir(parents=True, exist_ok=True)
    model_sharded = model.sharded_state_dict()
    state = {"model": model_sharded, "train_state": train_state, "rng_state": _rng_object(rng_state(cuda))}
    if optimizer is not None:
        state["optimizer"] = optimizer_sharded_state_dict(optimizer, model_sharded, is_loading=False)
    if not cuda:
        write_checkpoints_in_process()
    dist_checkpointing.save(state, str(path))
    if torch.distributed.get_rank() == 0:
        marker = path.parent / LATEST
        temporary = marker.with_suffix(f".tmp-{os.getpid()}")
        temporary.write_text(path.name)
        os.replace(temporary, marker)  # atomic: readers see the old or the new name, never half
    torch.distributed.barrier()
    return path


def load_checkpoint(path: str | Path, model, optimizer=None, *, cuda: bool = False) -> dict[str, Any]:
    """Restore ``model`` (and, when given, ``optimizer`` and the RNG states) from ``path``.

    Returns the stored train state. With ``optimizer=None`` only the weights are read: how a new
    stage starts from the previous stage's result (``--init-from``).
    """
    model_sharded = model.sharded_state_dict()
    request: dict[str, Any] = {"model": model_sharded}
    if optimizer is not None:
        request["optimizer"] = optimizer_sharded_state_dict(optimizer, model_sharded, is_loading=True)
        request["rng_state"] = _rng_object(None)
    loaded = dist_checkpointing.load(request, str(path))
    model.load_state_dict(loaded["model"])
    if optimizer is not None:
        load_optimizer_state(optimizer, loaded["optimizer"])
        set_rng_state(loaded["rng_state"])
    common = dist_checkpointing.load_common_state_dict(str(path))
    return dict(common.get("train_state", {}))


def save_streamed(run_dir: str | Path, model, materialize, train_state: dict[str, Any]) -> Path:
    """Write checkpoint ``step_<train_state['step']>`` of a model built on the ``meta`` device, weights
    only, reading each tensor when it is written: ``materialize(name)`` gives the ``model.state_dict()``
    tensor ``name`` (its shape and dtype). The checkpoint is the one ``save_checkpoint`` writes for the
    same weights (megatron-core's torch_dist format, one file), made while holding one tensor at a time:
    how a base larger than this process's memory is imported."""
    path = checkpoint_path(run_dir, train_state["step"])
    path.mkdir(parents=True, exist_ok=True)
    state = {"model": model.sharded_state_dict(), "train_state": train_state, "rng_state": _rng_object(rng_state(False))}
    dist_checkpointing.save(state, str(path), sharded_strategy=_StreamingTorchDist(model, materialize))
    if torch.distributed.get_rank() == 0:
        marker = path.parent / LATEST
        temporary = marker.with_suffix(f".tmp-{os.getpid()}")
        temporary.write_text(path.name)
        os.replace(temporary, marker)
    torch.distributed.barrier()
    return path


class _StreamingTorchDist(TorchDistSaveShardedStrategy):
    """megatron-core's torch_dist save with torch's plain ``FileSystemWriter`` (one thread, nothing
    copied ahead) instead of its staging writer, which copies every tensor before writing any; the
    planner resolves each meta tensor to its real values as the writer reaches it."""

    def __init__(self, model, materialize) -> None:
        super().__init__("torch_dist", 1)
        self.planner = _StreamingPlanner(model, materialize)

    def save(self, sharded_state_dict, checkpoint_dir: Path) -> None:
        from megatron.core.dist_checkpointing.dict_utils import nested_values
        from megatron.core.dist_checkpointing.mapping import ShardedTensor
        from torch.distributed import checkpoint as dcp

        self.planner.views = {(value.key, tuple(value.global_offset)): value.data
                              for value in nested_values(sharded_state_dict) if isinstance(value, ShardedTensor)}
        renamed, _, _ = _replace_state_dict_keys_with_sharded_keys(sharded_state_dict, self.keep_only_main_replica)
        writer = dcp.FileSystemWriter(str(checkpoint_dir), thread_count=1, per_thread_copy_ahead=0, sync_files=False)
        dcp.save(mcore_to_pyt_state_dict(renamed, False), storage_writer=writer, planner=self.planner)


class _StreamingPlanner(MCoreSavePlanner):
    """Resolves the write item of a tensor shard (key, global offset) to the same view megatron took
    of its meta parameter, taken of ``materialize(parameter name)``; the last parameter is kept for the
    views that share it (a SwiGLU ``linear_fc1``'s two halves).

    torch's ``FileSystemWriter`` keeps each tensor it wrote in a dict until its file is closed (read
    only by its safetensors format, not megatron's torch.save one), which would hold most of the model:
    the tensor handed out before is emptied (storage resized to 0) when the next one is asked for,
    which is after it was written, as the writer's serial loader resolves one item at a time."""

    def __init__(self, model, materialize) -> None:
        super().__init__(flatten_state_dict=False)
        self.names = {id(tensor): name for name, tensor in model.state_dict(keep_vars=True).items()}
        self.materialize = materialize
        self.views: dict[tuple[str, tuple[int, ...]], torch.Tensor] = {}
        self.last: tuple[str, torch.Tensor] | None = None
        self.handed: torch.Tensor | None = None

    def resolve_data(self, write_item):
        view = self.views.get((write_item.index.fqn, tuple(write_item.index.offset or ())))
        if view is None:  # a ShardedObject's bytes (extra state, RNG)
            return super().resolve_data(write_item)
        self.release()
        tensor = self.real(view).reshape(write_item.tensor_data.chunk.sizes)
        if tensor.untyped_storage().nbytes() != tensor.nbytes:
            tensor = tensor.clone()  # a part of the parameter, in a storage of its own
        else:
            self.last = None  # the whole parameter: handed over
        self.handed = tensor
        return tensor

    def release(self) -> None:
        if self.handed is not None:
            self.handed.untyped_storage().resize_(0)
            self.handed = None

    def real(self, view: torch.Tensor) -> torch.Tensor:
        root = view if view._base is None else view._base
        name = self.names.get(id(root))
        if name is None:
            raise RuntimeError(f"a checkpoint tensor of shape {tuple(view.shape)} is no view of a model parameter")
        if self.last is None or self.last[0] != name:
            self.last = None  # free the previous parameter before reading the next
            tensor = self.materialize(name)
            if tuple(tensor.shape) != tuple(root.shape) or tensor.dtype != root.dtype:
                raise RuntimeError(f"{name}: materialised {tuple(tensor.shape)} {tensor.dtype}, the model has "
                                   f"{tuple(root.shape)} {root.dtype}")
            owned = tensor.is_contiguous() and tensor.untyped_storage().resizable()
            self.last = (name, tensor if owned else tensor.contiguous().clone())
        return self.last[1].as_strided(view.size(), view.stride(), view.storage_offset())
