"""FP8 recipes emulated on CPU (pretrain.model.fp8), checked against torchao's implementation of each format.

torchao is the independent reference: its float8 training casts (tensorwise, and axiswise scaling, which
on a tensor viewed one block per row is block scaling) and its MX formats (``to_mx`` with RCEIL scales, the
rounding Transformer Engine's ``float_to_e8m0`` does). Delayed scaling has no torchao equivalent (torchao
dropped it); its cast is torchao's cast with a given scale, and the scale update is checked against TE's
documented rule. "Real" operands are the GEMM inputs, weights and output gradients of the tiny MoE
trained 30 steps on real code (conftest's ``short_run``), captured on held-out code.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from codemix.config import ConfigError
from codemix.pretrain.configs import PrecisionConfig
from codemix.pretrain.model import fp8
from codemix.pretrain.parallel import check_precision

torchao_float8 = pytest.importorskip("torchao.float8.float8_training_tensor")
from torchao.float8.config import ScalingGranularity
from torchao.float8.float8_training_tensor import LinearMMConfig, hp_tensor_and_scale_to_float8
from torchao.float8.float8_utils import tensor_to_scale
from torchao.prototype.mx_formats.config import ScaleCalculationMode
from torchao.prototype.mx_formats.mx_tensor import to_dtype, to_mx

REPO = Path(__file__).resolve().parents[2]
DTYPES = [fp8.E4M3, fp8.E5M2]


def random_operand(rows: int = 256, cols: int = 384, seed: int = 0) -> torch.Tensor:
    """BF16 values over ~7 decades, with outlier columns (as activations have), and an all-zero block."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, cols, generator=generator) * torch.logspace(-4, 1, cols)[torch.randperm(cols, generator=generator)]
    x[:, :3] *= 300.0
    x[:128, 128:256] = 0.0
    return x.to(torch.bfloat16)


# --- torchao references -----------------------------------------------------------------------------


def ao_tensorwise(x: torch.Tensor, dtype: torch.dtype, scale: torch.Tensor | None = None):
    scale = tensor_to_scale(x.float(), dtype) if scale is None else scale
    quantised = hp_tensor_and_scale_to_float8(x.float(), scale, dtype, LinearMMConfig())
    return quantised._data, quantised._scale, quantised.to_original_precision()


def blocks_as_rows(x_RC: torch.Tensor, block: tuple[int, int]) -> torch.Tensor:
    """[n_blocks, block elements]: each block of x (zero-padded to whole blocks) as one row."""
    return fp8.block_view(x_RC.float(), block).permute(0, 2, 1, 3).reshape(-1, block[0] * block[1])


def rows_as_blocks(rows: torch.Tensor, block: tuple[int, int], shape: torch.Size) -> torch.Tensor:
    """Inverse of ``blocks_as_rows`` (cut back to ``shape``)."""
    n_r, n_c = math.ceil(shape[0] / block[0]), math.ceil(shape[1] / block[1])
    full = rows.reshape(n_r, n_c, block[0], block[1]).permute(0, 2, 1, 3).reshape(n_r * block[0], n_c * block[1])
    return full[: shape[0], : shape[1]]


def ao_blockwise(x_RC: torch.Tensor, dtype: torch.dtype, block: tuple[int, int], power_of_2: bool):
    """torchao's axiswise (per-row) float8 cast of the tensor viewed one block per row."""
    rows = blocks_as_rows(x_RC, block)
    scale = tensor_to_scale(rows, dtype, scaling_granularity=ScalingGranularity.AXISWISE, axiswise_dim=-1,
                            round_scales_to_power_of_2=power_of_2)
    quantised = hp_tensor_and_scale_to_float8(rows, scale, dtype, LinearMMConfig(), axiswise_dim=-1)
    data = rows_as_blocks(quantised._data.view(torch.uint8), block, x_RC.shape)
    values = rows_as_blocks(quantised.to_original_precision(), block, x_RC.shape)
    return data, scale.reshape(math.ceil(x_RC.shape[0] / block[0]), -1), values


def ao_mx(x_RC: torch.Tensor, dtype: torch.dtype):
    """torchao's MX cast (RCEIL, TE's scale rounding) along rows; columns zero-padded to whole blocks."""
    padded = F.pad(x_RC.float(), (0, -x_RC.shape[1] % fp8.MX_BLOCK)).contiguous()
    e8m0, data = to_mx(padded, dtype, fp8.MX_BLOCK, ScaleCalculationMode.RCEIL)
    values = to_dtype(data, e8m0, dtype, fp8.MX_BLOCK, torch.float32)
    cols = x_RC.shape[1]
    return data.view(torch.uint8)[:, :cols], e8m0.view(torch.uint8), values[:, :cols]


def bits(t: torch.Tensor) -> torch.Tensor:
    return t.view(torch.uint8)


# --- real operands ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_operands(short_run, build_dir, heldout_dir) -> dict[str, list[torch.Tensor]]:
    """GEMM inputs, weights and output gradients of every quantised GEMM of the trained tiny MoE on held-out code."""
    from codemix.pretrain.checkpoint import load_checkpoint
    from codemix.pretrain.configs import ParallelConfig, load_recipe
    from codemix.pretrain.data.pretraining import HFTokenizerForMegatron
    from codemix.pretrain.evaluate import document_windows, window_batch
    from codemix.pretrain.loop import batch_loss
    from codemix.pretrain.model.gpt import PositionSetup, build_model
    from codemix.pretrain.parallel import initialize, shutdown

    captured: dict[str, list[torch.Tensor]] = {"input": [], "weight": [], "grad": []}
    runtime = initialize(ParallelConfig(), seed=0)
    try:
        tokenizer = HFTokenizerForMegatron.from_file(str(build_dir / "tokenizer.json"))
        model = build_model(load_recipe("tiny"), vocab_size=tokenizer.vocab_size, sequence_length=64,
                            position=PositionSetup(), cpu=True)
        load_checkpoint(short_run.checkpoint, model)
        modules = dict(model.named_modules())
        for name in fp8.quantised_gemm_names(model):
            modules[name]._forward_impl = recorder(modules[name]._forward_impl, captured)
        text = (heldout_dir / "heapq.py").read_text()
        windows = list(document_windows(tokenizer.tokenize(text), tokenizer.eod, 64))[:16]
        loss_sum, _ = batch_loss(model, window_batch(windows, 64, tokenizer.pad), runtime)
        loss_sum.backward()
    finally:
        shutdown(runtime)
    assert all(len(v) >= 20 for v in captured.values()), "guard: every GEMM of both layers was captured"
    return captured


def recorder(forward_impl, captured):
    def record(input, weight, *args, **kwargs):
        output = forward_impl(input, weight, *args, **kwargs)
        if input.numel() == 0:  # an expert the router sent no token to: nothing to quantise
            return output
        captured["input"].append(input.detach().reshape(-1, input.shape[-1]).clone())
        captured["weight"].append(weight.detach().clone())
        output.register_hook(lambda grad: captured["grad"].append(grad.reshape(-1, grad.shape[-1]).clone()))
        return output

    return record


def operands(source: str, real: dict[str, list[torch.Tensor]] | None) -> list[torch.Tensor]:
    if source == "random":
        return [random_operand(), random_operand(96, 200, seed=1)]
    assert real is not None
    return [t for role in ("input", "weight", "grad") for t in real[role][::3]]


@pytest.fixture(params=["random", "real"])
def operand_set(request):
    real = request.getfixturevalue("real_operands") if request.param == "real" else None
    tensors = operands(request.param, real)
    assert tensors and all(t.abs().max() > 0 for t in tensors), "guard: non-trivial operands"
    return tensors


# --- each format against torchao ----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensorwise_current_scaling_equals_torchao_bit_for_bit(operand_set, dtype):
    for x in operand_set:
        ours = fp8.quantise_tensorwise(fp8.bf16_round(x), dtype)
        data, scale, values = ao_tensorwise(fp8.bf16_round(x), dtype)
        assert torch.equal(bits(ours.data), bits(data)) and torch.equal(ours.scale, scale)
        assert torch.equal(ours.dequantise(), values)


@pytest.mark.parametrize("dtype", DTYPES)
def test_delayed_scaling_casts_with_the_scale_of_the_previous_amax(operand_set, dtype):
    """TE's DelayedScaling with megatron's defaults (history 1, most_recent, margin 0): the first cast uses
    scale 1, each later one fp8_max / amax of the previous tensor."""
    state = fp8.DelayedScale()
    previous = None
    for x in [*operand_set, operand_set[0]]:
        x = fp8.bf16_round(x)
        expected_scale = torch.ones(()) if previous is None else tensor_to_scale(previous, dtype)
        data, _, values = ao_tensorwise(x, dtype, scale=expected_scale)
        ours = state.quantise(x, dtype)
        assert torch.equal(ours.scale, expected_scale) and torch.equal(bits(ours.data), bits(data))
        assert torch.equal(ours.dequantise(), values)
        previous = x


def test_delayed_scaling_history_max_takes_the_largest_recent_amax():
    state = fp8.DelayedScale(history_len=2, algo="max")
    big, small = torch.full((4, 4), 8.0), torch.full((4, 4), 2.0)
    state.quantise(big, fp8.E4M3)
    state.quantise(small, fp8.E4M3)
    assert state.scale.item() == 448.0 / 8.0  # 8 is still in the 2-long history
    state.quantise(small, fp8.E4M3)
    assert state.scale.item() == 448.0 / 2.0


@pytest.mark.parametrize("power_of_2", [True, False], ids=["pow2-scales", "fp32-scales"])
@pytest.mark.parametrize("block", [(1, 128), (128, 1), (128, 128)], ids=["1x128", "128x1", "128x128"])
def test_blockwise_scaling_equals_torchao_on_each_block(operand_set, block, power_of_2):
    for x in operand_set:
        x = fp8.bf16_round(x)
        ours = fp8.quantise_blockwise(x, fp8.E4M3, block, power_of_2=power_of_2)
        data, scale, values = ao_blockwise(x, fp8.E4M3, block, power_of_2)
        assert torch.equal(bits(ours.data), data)
        nonzero = scale < 1e12  # torchao clamps an all-zero block's amax to 1e-12; TE (and we) keep scale 1
        assert torch.equal(ours.scale[nonzero], scale[nonzero])
        assert torch.equal(ours.dequantise(), values)


@pytest.mark.parametrize("dtype", DTYPES)
def test_mxfp8_equals_torchao_rceil_bit_for_bit(operand_set, dtype):
    for x in operand_set:
        for oriented in (x, x.t()):  # rowwise and columnwise (blocks along the other dim)
            ours = fp8.quantise_mx(fp8.bf16_round(oriented), dtype)
            data, e8m0, values = ao_mx(fp8.bf16_round(oriented), dtype)
            assert torch.equal(bits(ours.data), data) and torch.equal(ours.e8m0, e8m0)
            assert torch.equal(ours.dequantise(), values)


def test_e8m0_exponent_is_the_exact_ceiling_of_log2():
    """Against exact arithmetic (Python's frexp on doubles), at and around powers of 2 where a float log2 rounds."""
    values = [0.0, 2.0**-140, 2.0**-127, 2.0**-126, 1e-30, 1e-3, 0.5, 1.0, 3.0, 2.0**20, 2.0**127]
    values += [math.nextafter(v, math.inf) for v in (2.0**-20, 2.0**-7, 1.0, 2.0**9)]
    values += [math.nextafter(v, 0.0) for v in (2.0**-20, 1.0, 2.0**9)]
    descale = torch.tensor(values, dtype=torch.float32)

    def exact(v: float) -> int:
        if v == 0:
            return 0
        mantissa, exponent = math.frexp(v)  # exact for the fp32 values above
        ceil_log2 = exponent - 1 if mantissa == 0.5 else exponent
        return min(max(ceil_log2, -127), 127) + 127

    assert fp8.e8m0_exponent(descale).tolist() == [exact(float(v)) for v in descale]


# --- where each recipe quantises ----------------------------------------------------------------------


def reference_linear(recipe: str, x_MK, w_NK, dy_MN):
    """y, dx, dW composed from torchao's casts, each operand along the dimension its GEMM contracts."""
    def tensor(t, dtype):
        return ao_tensorwise(t, dtype)[2]

    def along_rows_blocks(t, block):  # blockwise of t with ``block``
        return ao_blockwise(t, fp8.E4M3, block, True)[2]

    def mx(t, along_columns: bool):
        return ao_mx(t, fp8.E4M3)[2] if along_columns else ao_mx(t.t().contiguous(), fp8.E4M3)[2].t()

    x, w, dy = (fp8.bf16_round(t) for t in (x_MK, w_NK, dy_MN))
    if recipe == "tensorwise":
        xq, wq, dyq = tensor(x, fp8.E4M3), tensor(w, fp8.E4M3), tensor(dy, fp8.E4M3)
        x_row = x_col = xq
        w_row = w_col = wq
        dy_row = dy_col = dyq
    elif recipe == "blockwise":
        x_row, x_col = along_rows_blocks(x, (1, 128)), along_rows_blocks(x, (128, 1))
        w_row = w_col = along_rows_blocks(w, (128, 128))
        dy_row, dy_col = along_rows_blocks(dy, (1, 128)), along_rows_blocks(dy, (128, 1))
    else:
        x_row, x_col, w_row, w_col = mx(x, True), mx(x, False), mx(w, True), mx(w, False)
        dy_row, dy_col = mx(dy, True), mx(dy, False)
    return fp8.bf16_round(x_row @ w_row.t()), fp8.bf16_round(dy_row @ w_col), dy_col.t() @ x_col


@pytest.mark.parametrize("recipe", ["tensorwise", "blockwise", "mxfp8"])
def test_emulated_linear_quantises_each_gemm_operand_along_its_contraction_dim(recipe):
    """fprop X, W along K; dgrad dY along N, W along N; wgrad dY, X along M: equal to torchao composed so."""
    generator = torch.Generator().manual_seed(3)
    x = (torch.randn(160, 192, generator=generator) * torch.logspace(-2, 1, 192)).requires_grad_()
    w = (torch.randn(136, 192, generator=generator) * 0.05).requires_grad_()
    dy = torch.randn(160, 136, generator=generator) * torch.logspace(-6, -2, 160)[:, None]
    y = fp8.EmulatedGemm(fp8.EmulatedPrecision(recipe=recipe), "test")(x, w)
    y.backward(dy)
    y_ref, dx_ref, dw_ref = reference_linear(recipe, x.detach(), w.detach(), dy)
    assert torch.equal(y, y_ref) and torch.equal(x.grad, dx_ref) and torch.equal(w.grad, dw_ref)
    exact = x.detach() @ w.detach().t()
    assert not torch.equal(y, fp8.bf16_round(exact)), "guard: quantisation changed the result"


def test_hybrid_quantises_gradients_to_e5m2_and_mxfp8_stays_e4m3():
    assert fp8.EmulatedPrecision(recipe="tensorwise", fp8="hybrid").dtype("grad") == fp8.E5M2
    assert fp8.EmulatedPrecision(recipe="tensorwise", fp8="hybrid").dtype("input") == fp8.E4M3
    assert fp8.EmulatedPrecision(recipe="mxfp8", fp8="e4m3").dtype("grad") == fp8.E4M3
    with pytest.raises(ConfigError, match="MXFP8 runs E4M3"):
        check_precision(PrecisionConfig(fp8="hybrid", fp8_recipe="mxfp8", emulate=True), cuda=False, have_te=False)


# --- the model: what is quantised, what is not --------------------------------------------------------


def tiny_model(emulate: str | None):
    from codemix.pretrain.configs import load_recipe
    from codemix.pretrain.model.gpt import PositionSetup, build_model

    torch.manual_seed(0)
    model = build_model(load_recipe("tiny"), vocab_size=1000, sequence_length=32, position=PositionSetup(), cpu=True)
    if emulate:
        fp8.emulate_precision(model, fp8.EmulatedPrecision(recipe=emulate))
    return model


def test_emulation_quantises_exactly_the_gemms_transformer_engine_quantises(runtime):
    model = tiny_model(None)
    names = fp8.emulate_precision(model, fp8.EmulatedPrecision(recipe="mxfp8"))
    kinds = {name.rsplit(".", 1)[1] for name in names}
    assert kinds == {"linear_qkv", "linear_proj", "linear_fc1", "linear_fc2"}
    assert sum("local_experts" in n for n in names) == 2 * 4 * 2 and sum("shared_experts" in n for n in names) == 2 * 2
    all_names = dict(model.named_modules())
    assert "output_layer" in all_names and "embedding.word_embeddings" in all_names
    assert not any("router" in n or n.startswith(("output_layer", "embedding")) for n in names)
    assert all("_forward_impl" not in vars(all_names[n]) for n in ("output_layer",))


def test_high_precision_parts_compute_exactly_as_without_emulation(runtime):
    """Embedding, router, output layer and norms of an emulated model give, on the inputs they received,
    bit-identical results to the same modules of an un-emulated twin; a quantised GEMM does not."""
    emulated, plain = tiny_model("mxfp8"), tiny_model(None)
    plain.load_state_dict(emulated.state_dict())
    watched = ["embedding", "decoder.layers.0.mlp.router", "decoder.layers.1.mlp.router", "output_layer",
               "decoder.final_layernorm", "decoder.layers.1.pre_mlp_layernorm", "decoder.layers.0.mlp.shared_experts",
               "decoder.layers.0.self_attention.linear_proj"]
    seen = {}
    modules = dict(emulated.named_modules())
    def keep(name):
        def hook(module, args, kwargs, out) -> None:  # returns None: the output stays as it is
            # Copies: megatron's cross-entropy later works on the logits in place.
            seen.setdefault(name, (snapshot(args), snapshot(kwargs), snapshot(out)))

        return hook

    for name in watched:
        modules[name].register_forward_hook(keep(name), with_kwargs=True)
    tokens = torch.randint(0, 1000, (2, 32))
    position_ids = torch.arange(32).expand(2, 32)
    from codemix.pretrain.loop import causal_mask

    emulated(input_ids=tokens, position_ids=position_ids, attention_mask=causal_mask(32), labels=tokens).sum().backward()
    twins = dict(plain.named_modules())
    for name in watched:
        args, kwargs, out = seen[name]
        again = twins[name](*args, **kwargs)
        quantised = name.endswith(("linear_proj", "shared_experts"))  # the guard: these must differ
        same = all(torch.equal(a, b) for a, b in zip(flat(out), flat(again), strict=True))
        assert same is not quantised, name


def snapshot(value):
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, dict):
        return {k: snapshot(v) for k, v in value.items()}
    return type(value)(snapshot(v) for v in value) if isinstance(value, (tuple, list)) else value


def flat(value) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    return [t for item in value if item is not None for t in flat(item)] if isinstance(value, (tuple, list)) else []


def test_emulated_recipes_train_the_tiny_moe(build_dir, tmp_path, one_thread):
    from codemix.pretrain.configs import load_recipe
    from codemix.pretrain.run import TrainOptions, run

    losses = {}
    for name, overrides in {"bf16": [], "mxfp8": ["precision.fp8=e4m3", "precision.fp8_recipe=mxfp8"]}.items():
        recipe = load_recipe("tiny", ["precision.emulate=true", *overrides])
        summary = run(TrainOptions(recipe=recipe, stage="short", data_dir=str(build_dir), out_dir=str(tmp_path / name),
                                   steps=4))
        losses[name] = [row["loss"] for row in summary.rows]
    assert losses["mxfp8"][-1] < losses["mxfp8"][0] and losses["bf16"][-1] < losses["bf16"][0]
    assert losses["mxfp8"] != losses["bf16"]  # the recipe changed the arithmetic...
    assert abs(losses["mxfp8"][-1] - losses["bf16"][-1]) < 0.01 * losses["bf16"][-1]  # ...not the training


# --- guards -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("pytorch_module", [None, "raise OSError('libtransformer_engine.so: cannot open shared object file')"],
                         ids=["meta-wheel", "broken-build"])
def test_a_transformer_engine_without_a_working_pytorch_module_is_refused(tmp_path, pytorch_module):
    """The name imports (as the empty ``transformer-engine`` meta-wheel's does) but ``transformer_engine.pytorch``
    fails: FP8 is refused with that reason before any data is read, and megatron-core still imports for BF16."""
    package = tmp_path / "fake" / "transformer_engine"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""stand-in for the transformer-engine meta-wheel"""\n')
    (tmp_path / "fake" / "transformer_engine-2.9.0.dist-info").mkdir()
    (tmp_path / "fake" / "transformer_engine-2.9.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: transformer-engine\nVersion: 2.9.0\n")
    if pytorch_module:
        (package / "pytorch").mkdir()
        (package / "pytorch" / "__init__.py").write_text(pytorch_module + "\n")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path / 'fake'}:{REPO}"}
    script = ("import sys; from codemix.pretrain.parallel import HAVE_TE, TE_UNAVAILABLE; import megatron.core; "
              "print(HAVE_TE); print(TE_UNAVAILABLE); from codemix.pretrain.train import main; sys.exit(main(sys.argv[1:]))")
    train = subprocess.run([sys.executable, "-c", script, "--model", "tiny", "--stage", "short", "--data",
                            str(tmp_path / "no-build"), "--steps", "1", "--out", str(tmp_path / "run"),
                            "--set", "precision.fp8=e4m3"], env=env, capture_output=True, text=True, timeout=120,
                           check=False)
    assert train.returncode == 2, train.stderr[-2000:]
    assert train.stdout.splitlines()[0] == "False" and "transformer_engine.pytorch" in train.stdout
    assert "error: precision.fp8: fp8: e4m3 needs NVIDIA Transformer Engine: `import transformer_engine.pytorch` fails" in train.stderr
    assert not (tmp_path / "run").exists()


def test_emulation_is_a_cpu_study_and_needs_no_transformer_engine():
    check_precision(PrecisionConfig(fp8="e4m3", fp8_recipe="mxfp8", emulate=True), cuda=False, have_te=False)
    with pytest.raises(ConfigError, match=r"precision\.emulate: emulation is a CPU numerics study"):
        check_precision(PrecisionConfig(fp8="e4m3", emulate=True), cuda=True, have_te=True, capability=(9, 0))
    with pytest.raises(ConfigError, match=r"precision\.fp8: FP8 needs a CUDA GPU.*precision\.emulate: true"):
        check_precision(PrecisionConfig(fp8="e4m3"), cuda=False, have_te=True)


@pytest.mark.parametrize("power_of_2", [True, False], ids=["pow2-scales", "fp32-scales"])
def test_amax_below_1e_12_follows_transformer_engine_not_torchao(power_of_2):
    """The convention at the small-amax edge is Transformer Engine's (``amax_epsilon`` 0, its default):
    an all-zero block keeps scale 1; any other amax gives ``fp8_max / amax``, fp32 max where that
    overflows. torchao clamps the amax to 1e-12 first. Both agree from 1e-12 up; below it ours keeps
    the block's values to e4m3 precision, where torchao's capped scale flushes tiles of amax 1e-20
    and 1e-38 to zero."""
    edges = [0.0, 1e-38, 1e-20, 1e-13, 9e-13, 1e-12, 2e-12, 1e-3]
    pattern = torch.linspace(-1.0, 1.0, fp8.BLOCK)
    x = fp8.bf16_round(torch.cat([pattern * edge for edge in edges])[None])  # one 1x128 tile per edge
    amax = x.float().abs().reshape(len(edges), -1).amax(dim=1)
    ours = fp8.quantise_blockwise(x, fp8.E4M3, (1, fp8.BLOCK), power_of_2=power_of_2)
    data, scale, values = ao_blockwise(x, fp8.E4M3, (1, fp8.BLOCK), power_of_2)
    agree = amax >= 1e-12
    assert agree.sum() == 3 and (~agree).sum() == 5, "guard: tiles on both sides of the edge"
    assert torch.equal(ours.scale[0, agree], scale[0, agree])
    assert torch.equal(bits(ours.data).reshape(len(edges), -1)[agree], data.reshape(len(edges), -1)[agree])
    per_tile = ours.dequantise().reshape(len(edges), -1), values.reshape(len(edges), -1)
    assert torch.equal(per_tile[0][agree], per_tile[1][agree])
    assert ours.scale[0, 0] == 1.0 and not per_tile[0][0].any() and not per_tile[1][0].any()  # all-zero tile
    expected = torch.full_like(amax[1:5], fp8.fp8_max(fp8.E4M3)) / amax[1:5]
    expected = torch.where(torch.isinf(expected), torch.full_like(expected, torch.finfo(torch.float32).max), expected)
    if power_of_2:
        expected = (expected.view(torch.int32) & fp8.FP32_EXPONENT_MASK).view(torch.float32)
    assert torch.equal(ours.scale[0, 1:5], expected) and bool((scale[0, 1:4] < expected[:3]).all())
    tiny = x.float().reshape(len(edges), -1)[1:5]
    ours_error = (per_tile[0][1:5] - tiny).abs().amax(dim=1) / amax[1:5]
    torchao_error = (per_tile[1][1:5] - tiny).abs().amax(dim=1) / amax[1:5]
    assert bool((ours_error <= 2.0**-4).all()) and bool((torchao_error[:2] == 1.0).all())  # torchao: all zeros
