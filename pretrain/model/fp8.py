"""FP8 training numerics emulated on CPU: each Transformer Engine recipe's quantise-dequantise, applied
exactly where that recipe quantises, with the GEMMs themselves in fp32.

Design notes: docs/design/pretrain.md, "pretrain/model/fp8.py".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import torch
import torch.nn.functional as F

E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2
RECIPES = ("delayed", "tensorwise", "blockwise", "mxfp8")
ROLES = ("input", "weight", "grad")
BLOCK = 128  # Float8BlockScaling tile edge (DeepSeek-V3's 1x128 activation tiles, 128x128 weight blocks)
MX_BLOCK = 32  # OCP MX block size
E8M0_BIAS = 127
FP32_EXPONENT_MASK = 0x7F800000  # clearing the mantissa of a positive fp32 rounds it down to a power of 2

Role = Literal["input", "weight", "grad"]


def fp8_max(dtype: torch.dtype) -> float:
    """Largest finite value of an FP8 format: 448 for E4M3, 57344 for E5M2."""
    return float(torch.finfo(dtype).max)


def bf16_round(x: torch.Tensor) -> torch.Tensor:
    """``x`` as a BF16 tensor would hold it, in fp32 (round to nearest even)."""
    return x.to(torch.bfloat16).float()


def cast_to_fp8(x_f32: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Saturating cast, round to nearest even: what TE's ``cvt.rn.satfinite`` does on the GPU."""
    limit = fp8_max(dtype)
    return x_f32.clamp(-limit, limit).to(dtype)


def tensor_amax(x: torch.Tensor) -> torch.Tensor:
    """max |x| as a 0-d fp32 tensor; 0 for an empty tensor (an expert that received no tokens)."""
    return x.abs().amax().float() if x.numel() else torch.zeros((), dtype=torch.float32, device=x.device)


def scale_from_amax(amax: torch.Tensor, dtype: torch.dtype, *, power_of_2: bool = False) -> torch.Tensor:
    """TE's scale for an amax: ``fp8_max / amax`` in fp32; 1 where amax is 0 (nothing to scale);
    fp32 max where the quotient overflows. This is TE's ``compute_scale_from_amax`` with
    ``amax_epsilon`` 0 (its default, megatron's too); torchao clamps the amax to 1e-12 first, so the
    two differ only below 1e-12 (tests/pretrain/test_fp8.py pins both sides of that edge). ``power_of_2`` clears the mantissa bits, rounding the scale
    down to a power of 2 (Float8BlockScaling's default), so no scaled value can exceed ``fp8_max``."""
    amax = amax.float()
    # A tensor numerator: torch computes ``float / tensor`` as a reciprocal times the float, off by an ulp.
    scale = torch.where(amax > 0, torch.full_like(amax, fp8_max(dtype)) / amax, torch.ones_like(amax))
    scale = torch.where(torch.isinf(scale), torch.full_like(scale, torch.finfo(torch.float32).max), scale)
    if power_of_2:
        scale = (scale.view(torch.int32) & FP32_EXPONENT_MASK).view(torch.float32)
    return scale


def e8m0_exponent(descale: torch.Tensor) -> torch.Tensor:
    """Biased E8M0 exponent ``clamp(ceil(log2(descale)), -127, 127) + 127`` as uint8, computed exactly.

    Rounding the exponent up (TE's ``float_to_e8m0``, the hardware's ``cvt.rp.satfinite.ue8m0``)
    guarantees ``amax / 2^e <= fp8_max``; the OCP MX spec's floor instead saturates the block's top
    values. ``frexp`` gives the exact exponent: a float log2 would round values a few ulps above a
    power of 2 down onto it. Inputs are finite and non-negative (block amaxes of a finite tensor).
    """
    mantissa, exponent = torch.frexp(descale.float())  # descale = mantissa * 2^exponent, mantissa in [0.5, 1)
    ceil_log2 = torch.where(mantissa == 0.5, exponent - 1, exponent)
    ceil_log2 = torch.where(descale == 0, torch.full_like(ceil_log2, -E8M0_BIAS), ceil_log2)
    return (ceil_log2.clamp(-E8M0_BIAS, E8M0_BIAS) + E8M0_BIAS).to(torch.uint8)


# --- quantised tensors ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Quantised:
    """An FP8 tensor with its scales: ``data ~= x * scale`` blockwise, so ``x ~= data / scale``.

    ``block`` is the (rows, columns) a scale covers, None for one scale over the whole tensor.
    MX tensors also carry their E8M0 exponents; they dequantise as ``data * 2^(e - 127)`` (OCP MX).
    """

    data: torch.Tensor
    scale: torch.Tensor
    block: tuple[int, int] | None = None
    e8m0: torch.Tensor | None = None

    def dequantise(self) -> torch.Tensor:
        values = self.data.float()
        if self.e8m0 is not None:
            factor = torch.ldexp(torch.ones_like(self.scale), self.e8m0.to(torch.int32) - E8M0_BIAS)
            return values * expand_blocks(factor, self.block, values.shape)
        if self.block is None:
            return values / self.scale
        return values / expand_blocks(self.scale, self.block, values.shape)


def block_view(x_RC: torch.Tensor, block: tuple[int, int]) -> torch.Tensor:
    """``x`` zero-padded to whole blocks and viewed as [R/br, br, C/bc, bc]. A partial block at an edge
    is a block of the values it has: zeros change no amax."""
    rows, cols = block
    padded = F.pad(x_RC, (0, -x_RC.shape[1] % cols, 0, -x_RC.shape[0] % rows))
    return padded.view(padded.shape[0] // rows, rows, padded.shape[1] // cols, cols)


def block_amax(x_RC: torch.Tensor, block: tuple[int, int]) -> torch.Tensor:
    """max |x| of each block, [ceil(R/br), ceil(C/bc)]."""
    return block_view(x_RC.abs(), block).amax(dim=(1, 3))


def expand_blocks(per_block: torch.Tensor, block: tuple[int, int], shape: torch.Size) -> torch.Tensor:
    """One value per block spread over the block's elements, cut to ``shape``."""
    rows, cols = block
    return per_block.repeat_interleave(rows, 0).repeat_interleave(cols, 1)[: shape[0], : shape[1]]


def quantise_tensorwise(x: torch.Tensor, dtype: torch.dtype, scale: torch.Tensor | None = None) -> Quantised:
    """One fp32 scale for the whole tensor: this tensor's ``fp8_max / amax`` (current scaling), or the
    given one (delayed scaling)."""
    x_f32 = x.float()
    if scale is None:
        scale = scale_from_amax(tensor_amax(x_f32), dtype)
    return Quantised(cast_to_fp8(x_f32 * scale, dtype), scale)


def quantise_blockwise(x_RC: torch.Tensor, dtype: torch.dtype, block: tuple[int, int], *,
                       power_of_2: bool = True) -> Quantised:
    """One fp32 scale per block: (1, 128) rowwise tiles, (128, 1) columnwise tiles, (128, 128) weight blocks."""
    x_f32 = x_RC.float()
    scale = scale_from_amax(block_amax(x_f32, block), dtype, power_of_2=power_of_2)
    return Quantised(cast_to_fp8(x_f32 * expand_blocks(scale, block, x_f32.shape), dtype), scale, block)


def quantise_mx(x_RC: torch.Tensor, dtype: torch.dtype = E4M3, block_size: int = MX_BLOCK) -> Quantised:
    """MXFP8 along rows: one E8M0 scale per ``block_size`` consecutive values of a row.

    The exponent is ``ceil(log2(amax / fp8_max))``; values are multiplied by ``2^(127 - e)`` (1 for
    e = 0, as TE's ``exp2f_rcp`` does), then cast with saturation.
    """
    x_f32 = x_RC.float()
    block = (1, block_size)
    e8m0 = e8m0_exponent(block_amax(x_f32, block) / fp8_max(dtype))
    scale = torch.where(e8m0 == 0, 1.0, torch.ldexp(torch.ones_like(e8m0, dtype=torch.float32),
                                                     E8M0_BIAS - e8m0.to(torch.int32)))
    return Quantised(cast_to_fp8(x_f32 * expand_blocks(scale, block, x_f32.shape), dtype), scale, block, e8m0)


# --- recipes ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class EmulatedPrecision:
    """What the emulated GEMMs do: the BF16 baseline (``recipe`` None) or one FP8 recipe.

    Delayed-scaling settings are megatron-core's ``TransformerConfig`` defaults (``fp8_margin`` 0,
    ``fp8_amax_history_len`` 1, ``fp8_amax_compute_algo`` "most_recent"), which megatron hands to TE.
    ``power_of_2_scales`` is Float8BlockScaling's default (TE's ``NVTE_FP8_BLOCK_SCALING_FP32_SCALES=1``
    turns it off; DeepSeek-V3's own kernels use plain fp32 scales).
    """

    recipe: Literal["delayed", "tensorwise", "blockwise", "mxfp8"] | None
    fp8: Literal["e4m3", "hybrid"] = "e4m3"
    power_of_2_scales: bool = True
    margin: int = 0
    amax_history_len: int = 1
    amax_compute_algo: Literal["most_recent", "max"] = "most_recent"

    def dtype(self, role: Role) -> torch.dtype:
        """E4M3 everywhere, except gradients under ``hybrid`` (E5M2's range, one mantissa bit less)."""
        return E5M2 if role == "grad" and self.fp8 == "hybrid" and self.recipe != "mxfp8" else E4M3

    @classmethod
    def from_config(cls, precision: Any) -> EmulatedPrecision:
        """From a ``PrecisionConfig``: ``fp8: null`` is the BF16 baseline."""
        if precision.fp8 is None:
            return cls(recipe=None)
        return cls(recipe=precision.fp8_recipe, fp8=precision.fp8)

    @property
    def name(self) -> str:
        return self.recipe or "bf16"


@dataclass(slots=True, kw_only=True)
class DelayedScale:
    """Delayed scaling of one GEMM operand: quantise with the scale derived from earlier amaxes, then
    record this tensor's amax. TE starts from scale 1 and updates after each use (each microbatch's
    forward, each backward): ``scale = fp8_max / amax / 2^margin`` over the history."""

    history_len: int = 1
    algo: str = "most_recent"
    margin: int = 0
    scale: torch.Tensor = field(default_factory=lambda: torch.ones((), dtype=torch.float32))
    history: list[torch.Tensor] = field(default_factory=list)

    def quantise(self, x: torch.Tensor, dtype: torch.dtype) -> Quantised:
        quantised = quantise_tensorwise(x, dtype, scale=self.scale)
        self.record(tensor_amax(x), dtype)
        return quantised

    def record(self, amax: torch.Tensor, dtype: torch.dtype) -> None:
        self.history = [amax, *self.history][: self.history_len]
        reference = self.history[0] if self.algo == "most_recent" else torch.stack(self.history).amax()
        fresh = torch.full_like(reference, fp8_max(dtype)) / reference / 2.0**self.margin
        # An all-zero tensor (or an overflow) keeps the previous scale, as TE does.
        self.scale = torch.where((reference > 0) & torch.isfinite(fresh), fresh, self.scale).float()


def quantise_operand(precision: EmulatedPrecision, role: Role, x_RC: torch.Tensor,
                     delayed: DelayedScale | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(rowwise, columnwise) dequantised copies of one 2-D GEMM operand.

    Rowwise is quantised along the columns (used as is, contracting over its last dim), columnwise
    along the rows (used transposed). The operand is rounded to BF16 first, as the GPU holds it.
    """
    x = bf16_round(x_RC)
    if precision.recipe is None:
        return x, x
    dtype = precision.dtype(role)
    if precision.recipe in ("tensorwise", "delayed"):
        quantised = delayed.quantise(x, dtype) if precision.recipe == "delayed" else quantise_tensorwise(x, dtype)
        values = quantised.dequantise()
        return values, values
    if precision.recipe == "blockwise":
        pow2 = precision.power_of_2_scales
        if role == "weight":
            values = quantise_blockwise(x, dtype, (BLOCK, BLOCK), power_of_2=pow2).dequantise()
            return values, values
        return (quantise_blockwise(x, dtype, (1, BLOCK), power_of_2=pow2).dequantise(),
                quantise_blockwise(x, dtype, (BLOCK, 1), power_of_2=pow2).dequantise())
    return quantise_mx(x, dtype).dequantise(), quantise_mx(x.t(), dtype).dequantise().t()


# --- the emulated linear layer -------------------------------------------------------------------


class _EmulatedLinear(torch.autograd.Function):
    """y = x W^T with each of the three GEMMs fed quantise-dequantised operands (see the module doc)."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, weight_NK: torch.Tensor, gemm: EmulatedGemm) -> torch.Tensor:
        x_MK = x.reshape(-1, x.shape[-1])
        x_row_MK, x_col_MK = gemm.operand("input", x_MK)
        w_row_NK, w_col_NK = gemm.operand("weight", weight_NK)
        y_MN = bf16_round(x_row_MK @ w_row_NK.t())
        # The columnwise copies are made now, from this step's tensors and scales, as TE makes them.
        ctx.save_for_backward(x_col_MK, w_col_NK)
        ctx.gemm, ctx.x_shape = gemm, x.shape
        return y_MN.reshape(*x.shape[:-1], weight_NK.shape[0])

    @staticmethod
    def backward(ctx, dy: torch.Tensor):
        x_col_MK, w_col_NK = ctx.saved_tensors
        dy_MN = dy.reshape(-1, dy.shape[-1])
        dy_row_MN, dy_col_MN = ctx.gemm.operand("grad", dy_MN)
        dx_MK = bf16_round(dy_row_MN @ w_col_NK)
        dw_NK = dy_col_MN.t() @ x_col_MK
        return dx_MK.reshape(ctx.x_shape), dw_NK.to(w_col_NK.dtype), None


class EmulatedGemm:
    """Replaces a megatron linear layer's ``_forward_impl``: its GEMM with one layer's quantisers.

    Each layer holds its own per-operand state (delayed scaling's amax histories), as each TE module
    holds its own FP8 metadata. Tensor and sequence parallelism are refused: the emulation runs in one
    CPU process, where neither exists.
    """

    def __init__(self, precision: EmulatedPrecision, name: str) -> None:
        self.precision, self.name = precision, name
        self.delayed = {role: DelayedScale(history_len=precision.amax_history_len, algo=precision.amax_compute_algo,
                                           margin=precision.margin) for role in ROLES}

    def operand(self, role: Role, x_RC: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return quantise_operand(self.precision, role, x_RC, self.delayed[role])

    def __call__(self, input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None, *,
                 sequence_parallel: bool = False, allreduce_dgrad: bool = False, **_: Any) -> torch.Tensor:
        if sequence_parallel or allreduce_dgrad:
            raise RuntimeError(f"{self.name}: GEMM emulation runs without tensor or sequence parallelism")
        output = _EmulatedLinear.apply(input, weight, self)
        return output if bias is None else output + bias  # TE adds the bias in high precision


def quantised_gemm_names(model: torch.nn.Module) -> list[str]:
    """The megatron linear layers a TE FP8 run quantises: every one inside the transformer layers.

    The output layer sits outside ``decoder.layers``; the router, the shared-expert gate, embeddings
    and norms are not linear layers of megatron's tensor-parallel kind.
    """
    from megatron.core.tensor_parallel.layers import ColumnParallelLinear, RowParallelLinear

    return [name for name, module in model.named_modules()
            if isinstance(module, (ColumnParallelLinear, RowParallelLinear)) and name.startswith("decoder.layers.")]


def emulate_precision(model: torch.nn.Module, precision: EmulatedPrecision) -> list[str]:
    """Route every quantised GEMM of a CPU-built ``GPTModel`` through ``precision``; the patched names.

    The weights, the state dict and checkpoints are unchanged: only how the forward and backward
    GEMMs compute.
    """
    names = quantised_gemm_names(model)
    if not names:
        raise ValueError("no megatron local linear layers in decoder.layers: emulation needs the CPU-built model "
                         "(build_model(..., cpu=True)), not Transformer Engine's layers")
    modules = dict(model.named_modules())
    for name in names:
        modules[name]._forward_impl = EmulatedGemm(precision, name)
    return names
