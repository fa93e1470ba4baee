"""Parallelism and precision set-up: process groups, the CPU compatibility layer, FP8 checks, GPU wrappers.

What runs where:

* **GPU** (``torchrun``, NCCL): megatron-core process groups for TP/EP/CP/DP, the model wrapped in
  megatron's ``DistributedDataParallel``, megatron's distributed optimizer (``get_megatron_optimizer``),
  BF16 or FP8 through Transformer Engine.
* **CPU** (tests, laptops): one process, a gloo "world" of size 1 so megatron-core's process-group
  lookups succeed, fp32 weights, plain ``torch.optim.AdamW``. megatron-core 0.16.1 assumes CUDA in a
  few places; ``CpuCompat`` below patches exactly those, and only when CUDA is absent.

The model itself (``pretrain.model.gpt``) and the loss/data path (``pretrain.loop``) are the same on both.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
from dataclasses import dataclass, field
from typing import Any

import torch
from megatron.core import parallel_state
from megatron.core.transformer.dot_product_attention import DotProductAttention
from megatron.core.transformer.multi_latent_attention import MLASelfAttention

from codemix.config import require
from codemix.pretrain.configs import ParallelConfig, PrecisionConfig, StageTrainConfig
from codemix.pretrain.te_probe import TE_UNAVAILABLE

HAVE_TE = TE_UNAVAILABLE is None

# The compute capability each FP8 recipe needs, from Transformer Engine's "supported devices": FP8 tensor
# cores arrive with Ada (8.9); block scaling is a Hopper (9.x) recipe, which TE runs as MXFP8 on Blackwell,
# i.e. with another recipe's numerics; MXFP8's E8M0 block scales need Blackwell tensor cores (10.0+).
FP8_RECIPE_CAPABILITY = {"delayed": (8, 9), "tensorwise": (8, 9), "blockwise": (9, 0), "mxfp8": (10, 0)}


# --- precision ----------------------------------------------------------------------------------


def fp8_recipe_refusal(recipe: str, capability: tuple[int, int]) -> str | None:
    """Why a GPU of ``capability`` cannot run FP8 ``recipe``, or None."""
    here = f"this GPU is compute capability {capability[0]}.{capability[1]}"
    if recipe == "mxfp8" and capability < FP8_RECIPE_CAPABILITY["mxfp8"]:
        return f"mxfp8 needs Blackwell (compute capability 10.0+); {here}"
    if recipe == "blockwise" and capability[0] != 9:
        return (f"blockwise FP8 scaling is a Hopper (9.x) recipe; {here}"
                + (" (Transformer Engine would run it as MXFP8, another recipe's numerics)" if capability[0] >= 10 else ""))
    if capability < FP8_RECIPE_CAPABILITY[recipe]:
        return f"FP8 tensor cores need Ada, Hopper or Blackwell (compute capability 8.9+); {here}"
    return None


def check_precision(precision: PrecisionConfig, *, cuda: bool, have_te: bool,
                    capability: tuple[int, int] | None = None, te_reason: str | None = None) -> None:
    """Refuse precision settings this machine would silently ignore or cannot run, before any work.

    megatron-core without Transformer Engine accepts ``fp8=`` and quietly trains in BF16, so an FP8
    benchmark would measure BF16: FP8 needs ``transformer_engine.pytorch`` to import, a CUDA GPU, and
    a GPU generation that runs the recipe. ``precision.emulate`` instead asks for the CPU emulation
    (``pretrain.model.fp8``), which needs neither.
    """
    require(not (precision.fp8 == "hybrid" and precision.fp8_recipe == "mxfp8"), "precision.fp8",
            "MXFP8 runs E4M3 in both passes in Transformer Engine; hybrid (E5M2 gradients) does not apply",
            "set fp8: e4m3 with fp8_recipe: mxfp8")
    if precision.emulate:
        # pretrain.run sets the emulation up on CPU even where CUDA is present (initialize(force_cpu=True)).
        require(not cuda, "precision.emulate", "emulation is a CPU numerics study; on a GPU FP8 runs in Transformer Engine",
                "train with force_cpu (pretrain.run does), or remove precision.emulate")
        return
    if precision.fp8 is None:
        return
    reason = te_reason or TE_UNAVAILABLE or "Transformer Engine is not installed"
    require(have_te, "precision.fp8", f"fp8: {precision.fp8} needs NVIDIA Transformer Engine: {reason} "
            "(megatron-core would silently train in BF16)",
            "pip install 'transformer_engine[pytorch]' on a CUDA machine (pretrain/README.md, GPU set-up), "
            "set precision.emulate: true to emulate FP8 on CPU, or remove precision.fp8 to train in BF16")
    require(cuda, "precision.fp8", "FP8 needs a CUDA GPU (Ada, Hopper or Blackwell)",
            "set precision.emulate: true to emulate it on CPU, or remove precision.fp8")
    refusal = fp8_recipe_refusal(precision.fp8_recipe, capability or torch.cuda.get_device_capability())
    require(refusal is None, "precision.fp8_recipe", refusal or "",
            "use tensorwise or delayed on Ada; tensorwise, delayed or blockwise on Hopper; mxfp8 on Blackwell")


def check_parallel(parallel: ParallelConfig, *, cuda: bool, have_te: bool, world_size: int,
                   sequence_length: int | None = None) -> None:
    """Check the parallel layout against the machine and the stage's sequence length."""
    if not cuda:
        for name in ("tensor", "expert", "context"):
            require(getattr(parallel, name) == 1, f"parallel.{name}", "model parallelism needs CUDA GPUs",
                    f"set parallel.{name}: 1 for a CPU run")
    if parallel.context > 1:
        require(have_te, "parallel.context", "context parallelism runs in Transformer Engine attention",
                "install transformer_engine, or set parallel.context: 1")
        require(sequence_length is None or sequence_length % (2 * parallel.context) == 0, "parallel.context",
                f"sequence_length {sequence_length} must split into 2 x {parallel.context} chunks (load-balanced causal CP)")
    model_parallel = parallel.tensor * parallel.pipeline * parallel.context
    require(world_size % model_parallel == 0, "parallel", f"world size {world_size} is not a multiple of "
            f"tensor x pipeline x context = {model_parallel}")
    require(world_size % parallel.expert == 0, "parallel.expert", f"must divide the world size {world_size}")


# --- CPU compatibility layer (applied only when CUDA is absent) ----------------------------------


# TransformerConfig fields forced on CPU, and why.
CPU_CONFIG_OVERRIDES: dict[str, Any] = {
    "use_cpu_initialization": True,  # else weights are allocated on torch.cuda.current_device()
    "params_dtype": torch.float32,  # bf16 matmuls on CPU are slow and lose the loss-equality checks
    "bf16": False,
    "fp8": None,  # refused earlier by check_precision; never reaches a CPU config
    "moe_token_dispatcher_type": "allgather",  # the only dispatcher without CUDA-only collectives at world size 1
    "moe_grouped_gemm": False,  # grouped GEMM experts are TE/CUTLASS kernels; SequentialMLP runs anywhere
    "moe_router_padding_for_fp8": False,
    "gradient_accumulation_fusion": False,  # an APEX/TE fused wgrad kernel
}


@dataclass(slots=True)
class CpuCompat:
    """The patches megatron-core 0.16.1 needs to train in a CPU-only process, undone by ``restore``.

    * ``torch.cuda.current_device`` -> ``"cpu"``: megatron allocates buffers (RoPE frequencies, MoE
      token counts) on "the current CUDA device"; "cpu" is a valid device string for those calls.
    * ``torch.cuda.synchronize`` -> no-op: dist_checkpointing syncs after its device-to-host copies.
    * a no-op CUDA RNG tracker (``inference_rng_tracker=True``): the tracker's ``fork()`` swaps CUDA
      RNG states; with dropout off nothing draws from it, and CPU init uses torch's default generator.
    """

    saved: dict[str, Any] = field(default_factory=dict)

    def apply(self) -> None:
        self.saved = {"current_device": torch.cuda.current_device, "synchronize": torch.cuda.synchronize}
        torch.cuda.current_device = lambda: "cpu"
        torch.cuda.synchronize = lambda *args, **kwargs: None

    def restore(self) -> None:
        if self.saved:
            torch.cuda.current_device = self.saved["current_device"]
            torch.cuda.synchronize = self.saved["synchronize"]
            self.saved = {}


def cpu_block_spec(spec):
    """The decoder block spec with multi-latent attention runnable on megatron's local modules: MLA
    builds its core attention with ``k_channels``/``v_channels`` (query/key and value head sizes
    differ), which only Transformer Engine's attention accepts; the local ``DotProductAttention``
    raises a TypeError. Other layers are returned as they are."""
    layers = []
    for layer in spec.layer_specs:
        attention = layer.submodules.self_attention
        if attention.module is MLASelfAttention and attention.submodules.core_attention is DotProductAttention:
            attention = dataclasses.replace(attention, submodules=dataclasses.replace(
                attention.submodules, core_attention=LatentDotProductAttention))
            layer = dataclasses.replace(layer, submodules=dataclasses.replace(layer.submodules, self_attention=attention))
        layers.append(layer)
    return dataclasses.replace(spec, layer_specs=layers)


class LatentDotProductAttention(DotProductAttention):
    """megatron's local attention with value heads of ``v_channels`` (MLA's v_head_dim) instead of
    ``kv_channels``; its forward already takes each head size from the tensors, and MLA passes its
    own softmax scale, so only the output width changes."""

    def __init__(self, *args, k_channels: int | None = None, v_channels: int | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if v_channels is not None:
            self.hidden_size_per_partition = v_channels * self.num_attention_heads_per_partition


def patch_missing_te_symbols() -> None:
    """Without Transformer Engine, 0.16.1's fp32 router GEMM reads an undefined ``te_general_gemm``
    (NameError); None selects its plain-torch branch. Only set when TE is absent."""
    if not HAVE_TE:
        from megatron.core.transformer import multi_latent_attention
        from megatron.core.transformer.moe import moe_utils

        if not hasattr(moe_utils, "te_general_gemm"):
            moe_utils.te_general_gemm = None
        # MLA's import of megatron's TE extension succeeds without TE (placeholder classes), so it
        # believes TE is there and calls isinstance() on a placeholder, a TypeError. It is not.
        multi_latent_attention.HAVE_TE = False


# --- process groups -------------------------------------------------------------------------------


@dataclass(slots=True, kw_only=True)
class Runtime:
    """Where this process trains: device, ranks, and what was set up (so ``shutdown`` undoes it)."""

    device: torch.device
    cuda: bool
    have_te: bool
    world_size: int
    rank: int
    data_parallel_size: int
    data_parallel_rank: int
    cpu_compat: CpuCompat | None = None
    owns_process_group: bool = False

    @property
    def te_attention(self) -> bool:
        """Transformer Engine attention: builds causal masks itself, takes packed SFT as THD segments.
        Otherwise megatron's local attention runs and needs explicit boolean masks."""
        return self.cuda and self.have_te

    @property
    def peak_tflops(self) -> float | None:
        """Peak dense BF16 TFLOPs of this GPU, by product (``pretrain.gpus``: an H100 PCIe is not an
        H100 SXM); None on CPU or an unknown GPU."""
        from codemix.pretrain.gpus import current_gpu

        spec = current_gpu() if self.cuda else None
        return spec.bf16_tflops if spec else None


def initialize(parallel: ParallelConfig, *, seed: int, sequence_length: int | None = None,
               precision: PrecisionConfig | None = None, force_cpu: bool = False) -> Runtime:
    """Start torch.distributed and megatron-core's process groups for this layout.

    Under ``torchrun`` with CUDA: NCCL from the environment. Otherwise (or with ``force_cpu``, for
    CPU-side jobs such as the hand-off export): the CPU compatibility layer and a gloo group of one
    process (an in-memory store, no ports).
    """
    cuda = torch.cuda.is_available() and not force_cpu
    world_size = int(os.environ.get("WORLD_SIZE", "1")) if cuda else 1
    check_parallel(parallel, cuda=cuda, have_te=HAVE_TE, world_size=world_size, sequence_length=sequence_length)
    if precision is not None:
        check_precision(precision, cuda=cuda, have_te=HAVE_TE)
    compat = None if cuda else CpuCompat()
    if compat:
        compat.apply()
    patch_missing_te_symbols()
    owns = _init_process_group(cuda)
    if not parallel_state.model_parallel_is_initialized():
        parallel_state.initialize_model_parallel(
            tensor_model_parallel_size=parallel.tensor, pipeline_model_parallel_size=parallel.pipeline,
            context_parallel_size=parallel.context, expert_model_parallel_size=parallel.expert,
            create_gloo_process_groups=cuda)
    _seed_everything(seed, cuda)
    return Runtime(
        device=torch.device("cuda", torch.cuda.current_device()) if cuda else torch.device("cpu"),
        cuda=cuda, have_te=HAVE_TE, world_size=torch.distributed.get_world_size(), rank=torch.distributed.get_rank(),
        data_parallel_size=parallel_state.get_data_parallel_world_size(),
        data_parallel_rank=parallel_state.get_data_parallel_rank(), cpu_compat=compat, owns_process_group=owns)


def _init_process_group(cuda: bool) -> bool:
    """Create the default process group unless one exists; True when this call created it."""
    if torch.distributed.is_initialized():
        return False
    if cuda and "WORLD_SIZE" in os.environ:  # torchrun: rendezvous from the environment
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        torch.distributed.init_process_group("nccl", timeout=datetime.timedelta(minutes=30))
    elif cuda:  # one GPU, plain `python -m`: a world of one, no ports
        torch.cuda.set_device(0)
        torch.distributed.init_process_group("nccl", store=torch.distributed.HashStore(), rank=0, world_size=1)
    else:
        torch.distributed.init_process_group("gloo", store=torch.distributed.HashStore(), rank=0, world_size=1)
    return True


def _seed_everything(seed: int, cuda: bool) -> None:
    """Seed torch (CPU init draws from it) and megatron's CUDA RNG tracker (a no-op one on CPU)."""
    from megatron.core.tensor_parallel.random import model_parallel_cuda_manual_seed

    torch.manual_seed(seed)
    model_parallel_cuda_manual_seed(seed, inference_rng_tracker=not cuda, force_reset_rng=True)


def shutdown(runtime: Runtime) -> None:
    """Tear down what ``initialize`` set up, so a later run (or test) starts from a clean process."""
    parallel_state.destroy_model_parallel()
    if runtime.owns_process_group and torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()
    if runtime.cpu_compat:
        runtime.cpu_compat.restore()


# --- GPU wrappers and the optimizer ---------------------------------------------------------------


def wrap_model(model: torch.nn.Module, runtime: Runtime) -> torch.nn.Module:
    """GPU: megatron's DDP (fp32 grad buffers, overlapped reduce-scatter for the distributed
    optimizer). CPU: the bare model (one process, nothing to reduce)."""
    if not runtime.cuda:
        return model
    from megatron.core.distributed import DistributedDataParallel, DistributedDataParallelConfig

    ddp_config = DistributedDataParallelConfig(grad_reduce_in_fp32=True, overlap_grad_reduce=True,
                                               use_distributed_optimizer=True, bucket_size=40_000_000)
    return DistributedDataParallel(config=model.config, ddp_config=ddp_config, module=model)


def build_optimizer(model: torch.nn.Module, train: StageTrainConfig, runtime: Runtime, *, bf16: bool):
    """AdamW without weight decay on norms (1-D weights), as megatron's optimizer groups them.

    GPU: megatron's distributed optimizer (fp32 main weights and Adam state sharded over DP ranks).
    CPU: ``torch.optim.AdamW`` over the same two groups.
    """
    if runtime.cuda:
        from megatron.core.optimizer import OptimizerConfig, get_megatron_optimizer

        config = OptimizerConfig(optimizer="adam", lr=train.lr, min_lr=train.min_lr, weight_decay=train.weight_decay,
                                 adam_beta1=train.adam_beta1, adam_beta2=train.adam_beta2, adam_eps=train.adam_eps,
                                 clip_grad=train.clip_grad, bf16=bf16, use_distributed_optimizer=True)
        return get_megatron_optimizer(config, [model])
    decay = [p for p in model.parameters() if p.requires_grad and p.ndim > 1]
    no_decay = [p for p in model.parameters() if p.requires_grad and p.ndim <= 1]
    groups = [{"params": decay, "weight_decay": train.weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=train.lr, betas=(train.adam_beta1, train.adam_beta2), eps=train.adam_eps)

