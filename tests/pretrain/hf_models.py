"""Tiny random Hugging Face models of the three families, built offline with ``transformers`` (the
independent reference the import and the hand-off are checked against), and the checkpoint forms
real releases take: bf16 weights, tied embeddings, block-FP8 weights, multi-token-prediction layers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import torch

FAMILIES = ["qwen3_moe", "qwen2_moe", "deepseek_v3"]
VOCAB_ROWS = 1024  # the build's tokenizer has 1000 ids; a base's embedding may have more rows
FP8_BLOCK = 128


def tiny_hf_model(family: str, *, eps: float = 1e-6, tied: bool = False, dtype: torch.dtype = torch.float32,
                  expert_bias: list[float] | None = None, n_group: int = 2, layers: int = 2, seed: int | None = None):
    """A small random model of ``family`` with every weight drawn (routers, norms and biases too, so no
    mapping mistake hides behind a zero or a one), in ``dtype``."""
    import transformers

    common = {"vocab_size": VOCAB_ROWS, "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": layers,
              "num_attention_heads": 4, "max_position_embeddings": 256, "rms_norm_eps": eps,
              "tie_word_embeddings": tied}
    if family == "qwen3_moe":
        config = transformers.Qwen3MoeConfig(**common, num_key_value_heads=2, head_dim=24, moe_intermediate_size=32,
                                             num_experts=4, num_experts_per_tok=2, norm_topk_prob=True)
        model = transformers.Qwen3MoeForCausalLM(config)
    elif family == "qwen2_moe":
        config = transformers.Qwen2MoeConfig(**common, num_key_value_heads=2, moe_intermediate_size=32,
                                             shared_expert_intermediate_size=48, num_experts=4, num_experts_per_tok=2,
                                             mlp_only_layers=[0])
        model = transformers.Qwen2MoeForCausalLM(config)
    else:
        config = transformers.DeepseekV3Config(
            **common, num_key_value_heads=4, moe_intermediate_size=32, n_routed_experts=8, num_experts_per_tok=4,
            n_shared_experts=1, n_group=n_group, topk_group=min(n_group, 2), first_k_dense_replace=1, q_lora_rank=48,
            kv_lora_rank=32, qk_nope_head_dim=16, qk_rope_head_dim=8, v_head_dim=12, routed_scaling_factor=2.5)
        model = transformers.DeepseekV3ForCausalLM(config)
    generator = torch.Generator().manual_seed(FAMILIES.index(family) if seed is None else seed)
    with torch.no_grad():
        for name, tensor in [*model.named_parameters(), *model.named_buffers()]:
            if name.endswith("e_score_correction_bias"):
                values = torch.tensor(expert_bias) if expert_bias else torch.randn(tensor.shape, generator=generator) * 0.05
                tensor.copy_(values)
            elif tensor.ndim > 1:
                tensor.copy_(torch.randn(tensor.shape, generator=generator) * 0.05)
            elif tensor.is_floating_point() and "inv_freq" not in name:
                tensor.copy_(1.0 + 0.2 * torch.randn(tensor.shape, generator=generator))
    return model.to(dtype).eval()


def save_base(model, directory: Path, tokenizer_dir: Path) -> Path:
    """``save_pretrained`` plus the base tokenizer's files, as a downloaded Kimi checkpoint lays them out."""
    model.save_pretrained(directory)
    for name in ("tiktoken.model", "tokenizer_config.json"):
        shutil.copyfile(tokenizer_dir / name, directory / name)
    return directory


def quantize_block_fp8(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """DeepSeek-V3's release format: float8_e4m3fn codes and an fp32 ``weight_scale_inv`` (amax/448) per
    128x128 block (edge blocks ragged)."""
    rows, cols = weight.shape
    grid = (-(-rows // FP8_BLOCK), -(-cols // FP8_BLOCK))
    padded = torch.zeros(grid[0] * FP8_BLOCK, grid[1] * FP8_BLOCK)
    padded[:rows, :cols] = weight.float()
    blocks = padded.reshape(grid[0], FP8_BLOCK, grid[1], FP8_BLOCK)
    scale = (blocks.abs().amax(dim=(1, 3)) / 448.0).clamp(min=1e-12)
    codes = (blocks / scale[:, None, :, None]).to(torch.float8_e4m3fn).reshape(padded.shape)[:rows, :cols]
    return codes.contiguous(), scale


def reference_dequantize(weight: torch.Tensor, scale: torch.Tensor, block: int = FP8_BLOCK) -> torch.Tensor:
    """``transformers``' own block-FP8 dequantisation (``Fp8Dequantize``, fp32 product). It derives the
    block from the shapes, so a ragged weight is padded to whole blocks (zeros) and cropped back."""
    from transformers.integrations.finegrained_fp8 import Fp8Dequantize

    rows, cols = weight.shape
    padded = torch.zeros(scale.shape[0] * block, scale.shape[1] * block, dtype=weight.dtype)
    padded[:rows, :cols] = weight
    return Fp8Dequantize(None)._dequantize_one(padded, scale, output_dtype=torch.float32)[:rows, :cols].contiguous()


def add_mtp_layer(directory: Path, source) -> list[str]:
    """Append DeepSeek-V3's multi-token-prediction layer to a saved checkpoint, named as its release
    names layer 61 (``enorm``, ``hnorm``, ``eh_proj``, ``shared_head``, ``embed_tokens`` and a decoder
    layer): the last layer of ``source``, a model one layer deeper. Returns the names added."""
    from safetensors.torch import load_file, save_file

    config = json.loads((directory / "config.json").read_text())
    index, hidden = config["num_hidden_layers"], config["hidden_size"]
    prefix = f"model.layers.{index}."
    generator = torch.Generator().manual_seed(11)
    extra = {name: tensor.detach().clone() for name, tensor in source.state_dict().items() if name.startswith(prefix)}
    extra |= {f"{prefix}enorm.weight": 1 + 0.1 * torch.randn(hidden, generator=generator),
              f"{prefix}hnorm.weight": 1 + 0.1 * torch.randn(hidden, generator=generator),
              f"{prefix}eh_proj.weight": 0.05 * torch.randn(hidden, 2 * hidden, generator=generator),
              f"{prefix}shared_head.norm.weight": 1 + 0.1 * torch.randn(hidden, generator=generator),
              f"{prefix}shared_head.head.weight": 0.05 * torch.randn(VOCAB_ROWS, hidden, generator=generator),
              f"{prefix}embed_tokens.weight": 0.05 * torch.randn(VOCAB_ROWS, hidden, generator=generator)}
    tensors = load_file(str(directory / "model.safetensors")) | {k: v.contiguous() for k, v in extra.items()}
    save_file(tensors, str(directory / "model.safetensors"), metadata={"format": "pt"})
    (directory / "config.json").write_text(json.dumps(config | {"num_nextn_predict_layers": 1}, indent=2))
    return sorted(extra)


def quantized_names(tensors: dict[str, torch.Tensor]) -> list[str]:
    """The weights DeepSeek-V3 ships in FP8: every 2-D projection in a layer but the router's gate."""
    return sorted(name for name, tensor in tensors.items() if tensor.ndim == 2 and name.startswith("model.layers.")
                  and not name.endswith("mlp.gate.weight"))


def to_block_fp8(directory: Path) -> list[str]:
    """Rewrite a saved checkpoint as a block-FP8 release (codes + scales, ``quantization_config``)."""
    from safetensors.torch import load_file, save_file

    tensors = load_file(str(directory / "model.safetensors"))
    names = quantized_names(tensors)
    for name in names:
        tensors[name], tensors[f"{name}_scale_inv"] = quantize_block_fp8(tensors[name])
    save_file(tensors, str(directory / "model.safetensors"), metadata={"format": "pt"})
    config = json.loads((directory / "config.json").read_text())
    config["quantization_config"] = {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                                     "weight_block_size": [FP8_BLOCK, FP8_BLOCK]}
    (directory / "config.json").write_text(json.dumps(config, indent=2))
    return names


def hf_logits(directory: Path, tokens_BS: torch.Tensor, *, info: bool = False):
    """``transformers``' logits (fp32 arithmetic) of the checkpoint in ``directory``; with ``info``
    also its loading info (missing, unexpected, mismatched keys) and parameter count."""
    from transformers import AutoModelForCausalLM

    model, loading = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float32, output_loading_info=True)
    with torch.no_grad():
        logits = model.eval()(tokens_BS).logits.float()
    return (logits, loading, model.num_parameters()) if info else logits


def megatron_logits(run_dir: Path, checkpoint: str | Path, tokens_BS: torch.Tensor, vocab_size: int = 1000) -> torch.Tensor:
    """The run's model at ``checkpoint``, loaded as training resumes it, on ``tokens_BS``."""
    from codemix.pretrain.checkpoint import load_checkpoint
    from codemix.pretrain.configs import ParallelConfig, recipe_from_dict
    from codemix.pretrain.loop import causal_mask
    from codemix.pretrain.model.gpt import PositionSetup, build_model
    from codemix.pretrain.parallel import initialize, shutdown

    record = json.loads((run_dir / "run.json").read_text())
    recipe = recipe_from_dict(record["recipe"])
    # A CPU model needs a CPU runtime even where CUDA exists (megatron's RoPE follows the runtime's device).
    runtime = initialize(ParallelConfig(), seed=0, force_cpu=True)
    try:
        model = build_model(recipe, vocab_size=vocab_size, sequence_length=record["sequence_length"],
                            position=PositionSetup(**record["position"]), cpu=True)
        load_checkpoint(checkpoint, model)
        model.eval()
        length = tokens_BS.shape[1]
        with torch.no_grad():
            return model(tokens_BS, torch.arange(length).expand_as(tokens_BS), causal_mask(length)).float()
    finally:
        shutdown(runtime)


def sample_tokens(length: int = 48) -> torch.Tensor:
    return torch.randint(0, 1000, (2, length), generator=torch.Generator().manual_seed(7))
