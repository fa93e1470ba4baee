"""Training recipes as data: one YAML per model under ``pretrain/configs/``, loaded into typed dataclasses.

A recipe has four parts, kept apart as torchtitan keeps model, parallelism and training apart:

    model:     the architecture (``ModelConfig``: attention, MoE, RoPE/YaRN); what ``pretrain.model.params``
               counts and ``pretrain.model.gpt`` builds
    parallel:  how it is split over GPUs (``ParallelConfig``: TP, PP, EP, CP)
    precision: BF16/FP8 settings (``PrecisionConfig``), checked against the machine by ``pretrain.parallel``
    train:     per stage (``short``/``long``/``sft``) batch sizes, optimizer and schedule (``StageTrainConfig``)

``load_recipe("tiny")`` reads ``pretrain/configs/tiny.yaml``; a path to any YAML works too.
Overrides use OLMo-core's dotted form, ``["train.short.lr=1e-3", "parallel.context=2"]``, applied to the
YAML before validation, so an override is checked exactly like the file. Every check raises
``codemix.config.ConfigError`` naming the field and the fix, never ``assert``.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from codemix.config import ConfigError, join, load_config, load_yaml, require
from codemix.mixtures.stages import STAGE_NAMES
from codemix.pretrain.architecture import check_same_architecture, model_from_hf

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
STAGES = STAGE_NAMES


@dataclass(slots=True, kw_only=True)
class MoEConfig:
    """Mixture-of-experts feed-forward layers (megatron-core ``moe_*`` fields).

    Routing is softmax over the top-k logits (megatron's default, i.e. Qwen3-MoE's ``norm_topk_prob``);
    ``pre_softmax`` takes the softmax over all experts first and keeps the top-k probabilities
    unnormalised (Qwen's ``norm_topk_prob: false``). ``score_function: sigmoid`` is DeepSeek-V3's:
    sigmoid scores, top-k normalised to sum to one, times ``routed_scaling_factor`` (Kimi K2: 2.827),
    optionally limited to the best ``group_topk`` of ``num_groups`` expert groups (node-limited routing).
    The router runs in fp32 (``router_dtype``) because with many experts bf16 logits tie and flip
    between steps.

    Balancing: the auxiliary loss is GShard/Switch's (``aux_loss``, ``aux_loss_coeff`` 1e-2 as
    megatron recommends), or per sequence (``seq_aux_loss``, DeepSeek-V3's complementary loss, coeff
    1e-4). ``expert_bias`` is DeepSeek-V3's auxiliary-loss-free balancing (Wang et al. 2024): a
    per-expert bias added to the sigmoid scores for choosing experts only (never to the weights), moved
    after every optimizer step by ``expert_bias_update_rate`` towards the under-loaded experts
    (``bias += rate * sign(mean load - load)``; DeepSeek-V3 used 1e-3). It is the checkpoint's
    ``e_score_correction_bias``. The shared expert (DeepSeekMoE, Qwen2-MoE) sees every token; its
    optional sigmoid gate is Qwen2-MoE's ``shared_expert_gate``.
    """

    num_experts: int
    router_topk: int
    ffn_hidden_size: int  # per routed expert
    shared_expert_intermediate_size: int = 0  # 0: no shared expert; n shared experts of size f: n * f
    shared_expert_gate: bool = False
    first_dense_layers: int = 0  # DeepSeek-V3/Kimi-K2 ``first_k_dense_replace``: leading layers with a dense MLP
    aux_loss_coeff: float = 1e-2
    load_balancing: Literal["aux_loss", "seq_aux_loss", "global_aux_loss", "none"] = "aux_loss"
    z_loss_coeff: float = 0.0
    router_dtype: Literal["fp32", "fp64"] = "fp32"
    score_function: Literal["softmax", "sigmoid"] = "softmax"
    pre_softmax: bool = False  # softmax over all experts, then top-k (unnormalised); Qwen norm_topk_prob: false
    expert_bias: bool = False  # aux-loss-free balancing bias (sigmoid routing); HF e_score_correction_bias
    expert_bias_update_rate: float = 1e-3
    routed_scaling_factor: float | None = None  # multiplies the routed experts' weights (DeepSeek-V3 2.5, Kimi 2.827)
    num_groups: int | None = None  # group-limited routing: experts in this many groups...
    group_topk: int | None = None  # ...of which each token may use this many
    enable_routing_replay: bool = False  # record routing for RL to replay (megatron ``moe_enable_routing_replay``)

    def validate(self, path: str) -> None:
        require(self.num_experts >= 1, join(path, "num_experts"), "must be at least 1")
        require(1 <= self.router_topk <= self.num_experts, join(path, "router_topk"),
                f"must be between 1 and num_experts ({self.num_experts})")
        require(self.ffn_hidden_size > 0, join(path, "ffn_hidden_size"), "must be positive")
        require(self.shared_expert_intermediate_size >= 0, join(path, "shared_expert_intermediate_size"),
                "must be 0 (no shared expert) or positive")
        require(not self.shared_expert_gate or self.shared_expert_intermediate_size > 0,
                join(path, "shared_expert_gate"), "needs a shared expert", "set shared_expert_intermediate_size")
        require(self.first_dense_layers >= 0, join(path, "first_dense_layers"), "must not be negative")
        require(not self.expert_bias or self.score_function == "sigmoid", join(path, "expert_bias"),
                "needs score_function: sigmoid (the bias is added to sigmoid scores)", "set score_function: sigmoid")
        require(self.expert_bias_update_rate >= 0, join(path, "expert_bias_update_rate"), "must not be negative")
        require(self.routed_scaling_factor is None or self.routed_scaling_factor > 0, join(path, "routed_scaling_factor"),
                "must be positive or null")
        require((self.num_groups is None) == (self.group_topk is None), join(path, "group_topk"),
                "set both num_groups and group_topk, or neither")
        if self.num_groups is not None:
            require(self.num_groups >= 1 and self.num_experts % self.num_groups == 0, join(path, "num_groups"),
                    f"must divide num_experts ({self.num_experts})")
            require(1 <= self.group_topk <= self.num_groups and self.router_topk % self.group_topk == 0,
                    join(path, "group_topk"), f"must be at most num_groups and divide router_topk ({self.router_topk})")


@dataclass(slots=True, kw_only=True)
class MLAConfig:
    """Multi-latent attention (DeepSeek-V2): queries and keys/values pass through low-rank latents.

    Head dims follow DeepSeek's naming: each query/key head is ``qk_head_dim`` (no position) plus
    ``qk_pos_emb_head_dim`` (RoPE'd, shared by all heads on the key side); values are ``v_head_dim``.
    """

    q_lora_rank: int | None  # None: a full-rank query projection (DeepSeek-V2-Lite)
    kv_lora_rank: int
    qk_head_dim: int = 128
    qk_pos_emb_head_dim: int = 64
    v_head_dim: int = 128
    # epsilon of the q/kv latent RMSNorms: DeepSeek-V3's and Kimi K2's released modeling code and
    # transformers fix 1e-6 whatever rms_norm_eps says (vLLM and SGLang use rms_norm_eps instead)
    latent_norm_epsilon: float = 1e-6

    def validate(self, path: str) -> None:
        require(self.latent_norm_epsilon > 0, join(path, "latent_norm_epsilon"), "must be positive")
        for name in ("kv_lora_rank", "qk_head_dim", "qk_pos_emb_head_dim", "v_head_dim"):
            require(getattr(self, name) > 0, join(path, name), "must be positive")
        require(self.q_lora_rank is None or self.q_lora_rank > 0, join(path, "q_lora_rank"), "must be positive or null")


@dataclass(slots=True, kw_only=True)
class RopeConfig:
    """Rotary positions, and how the ``long`` stage stretches them past the pretraining context.

    ``long_scaling: yarn`` (Peng et al. 2023, YaRN) interpolates low frequencies by
    ``factor = model.max_context / original_context`` and keeps high ones; ``linear`` is position
    interpolation (Chen et al. 2023); ``none`` trains the long stage with plain RoPE.
    """

    base: float = 10_000.0
    original_context: int = 4096  # the context the short stage trains at; YaRN's original_max_position_embeddings
    long_scaling: Literal["yarn", "linear", "none"] = "yarn"
    yarn_beta_fast: float = 32.0
    yarn_beta_slow: float = 1.0
    yarn_mscale: float = 1.0
    yarn_mscale_all_dim: float | None = None  # None: 1.0 with MLA (DeepSeek-V3's), 0.0 otherwise
    # An imported base already trained with YaRN (Kimi K2: factor 64 over 4096): every stage keeps
    # the factor max_context / original_context, not only the long stage.
    base_extended: bool = False

    def validate(self, path: str) -> None:
        require(self.base > 0, join(path, "base"), "must be positive")
        require(self.original_context > 0, join(path, "original_context"), "must be positive")

    def scaling_factor(self, sequence_length: int) -> float:
        """How far reaching ``sequence_length`` stretches RoPE (1.0: no scaling needed)."""
        return max(1.0, sequence_length / self.original_context)


@dataclass(slots=True, kw_only=True)
class ModelConfig:
    """A decoder-only MoE transformer: pre-norm RMSNorm, SwiGLU experts, untied embeddings, no biases."""

    num_layers: int
    hidden_size: int
    num_attention_heads: int
    num_query_groups: int | None = None  # GQA groups; None = one per head (MHA). Ignored with MLA
    head_dim: int | None = None  # None: hidden_size / num_attention_heads. Ignored with MLA
    ffn_hidden_size: int  # the dense MLP of layers without experts
    vocab_size: int  # for planning and parameter counts; training uses the tokenizer's, padded
    max_context: int  # the longest sequence the recipe is meant to reach (the long stage)
    qk_layernorm: bool = True  # Qwen3's per-head RMSNorm on queries and keys (MLA: the latent norms)
    qkv_bias: bool = False  # biases on the query/key/value projections (Qwen2-MoE)
    # The embedding and output layer have exactly vocab_size rows (an imported checkpoint's), instead of
    # the tokenizer's vocabulary padded to a multiple of 128.
    fixed_vocab: bool = False
    tie_embeddings: bool = False  # one matrix is both the input embedding and the output layer
    norm_epsilon: float = 1e-6
    init_std: float = 0.02
    moe: MoEConfig
    mla: MLAConfig | None = None
    rope: RopeConfig = field(default_factory=RopeConfig)

    def validate(self, path: str) -> None:
        for name in ("num_layers", "hidden_size", "num_attention_heads", "ffn_hidden_size", "vocab_size", "max_context"):
            require(getattr(self, name) > 0, join(path, name), "must be positive")
        groups = self.query_groups
        require(self.num_attention_heads % groups == 0, join(path, "num_query_groups"),
                f"must divide num_attention_heads ({self.num_attention_heads})")
        require(self.mla is not None or self.head_dim is not None or self.hidden_size % self.num_attention_heads == 0,
                join(path, "head_dim"), "hidden_size is not a multiple of num_attention_heads", "set head_dim")
        require(self.moe.first_dense_layers < self.num_layers, join(path, "moe.first_dense_layers"),
                f"leaves no MoE layer of {self.num_layers}")
        require(self.max_context >= self.rope.original_context, join(path, "max_context"),
                f"is below rope.original_context ({self.rope.original_context})")

    @property
    def query_groups(self) -> int:
        return self.num_query_groups or self.num_attention_heads

    @property
    def kv_channels(self) -> int:
        return self.head_dim or self.hidden_size // self.num_attention_heads

    @property
    def moe_layer_pattern(self) -> list[int]:
        """megatron's ``moe_layer_freq`` list: 0 = dense MLP, 1 = MoE, one entry per layer."""
        dense = self.moe.first_dense_layers
        return [0] * dense + [1] * (self.num_layers - dense)


@dataclass(slots=True, kw_only=True)
class ParallelConfig:
    """Degrees of parallelism. Data parallelism is whatever is left of the world size.

    ``context`` (CP) splits each sequence over GPUs for the 256K stage; megatron's CP runs in
    Transformer Engine attention, so CP > 1 needs CUDA and TE (checked in ``pretrain.parallel``).
    """

    tensor: int = 1
    pipeline: int = 1
    expert: int = 1
    context: int = 1

    def validate(self, path: str) -> None:
        for name in ("tensor", "pipeline", "expert", "context"):
            require(getattr(self, name) >= 1, join(path, name), "must be at least 1")
        require(self.pipeline == 1, join(path, "pipeline"), "pipeline parallelism is not wired into pretrain.loop",
                "use tensor/expert/context parallelism, or set pipeline: 1")


@dataclass(slots=True, kw_only=True)
class PrecisionConfig:
    """Numerics on GPU. CPU runs train in fp32 (bf16 matmuls on CPU are slow and inexact), unless
    ``emulate`` rounds the transformer layers' GEMM operands as BF16 or the FP8 recipe would (``pretrain.model.fp8``).

    FP8 runs through Transformer Engine: ``fp8: e4m3`` (or ``hybrid``: e5m2 gradients) with
    ``fp8_recipe`` ``tensorwise`` or ``blockwise`` (DeepSeek-V3's 1x128/128x128 scaling) on Hopper,
    ``mxfp8`` on Blackwell. Experts use TE grouped GEMMs, and ``router_padding_for_fp8`` pads each
    expert's token count to the FP8 GEMM alignment in the router instead of in every expert.
    """

    dtype: Literal["bf16", "fp32"] = "bf16"
    fp8: Literal["e4m3", "hybrid"] | None = None
    fp8_recipe: Literal["tensorwise", "blockwise", "mxfp8", "delayed"] = "tensorwise"
    grouped_gemm: bool = True
    router_padding_for_fp8: bool = True
    # CPU only: round the transformer layers' GEMM operands as the GPU run would (BF16, or the fp8
    # recipe's quantise-dequantise) with fp32 GEMMs, to study the numerics without a GPU (pretrain.model.fp8)
    emulate: bool = False


@dataclass(slots=True, kw_only=True)
class StageTrainConfig:
    """Batch, optimizer (AdamW) and schedule (linear warmup, cosine to ``min_lr``) of one stage."""

    micro_batch_size: int
    global_batch_size: int
    lr: float
    min_lr: float = 0.0
    warmup_steps: int = 0
    weight_decay: float = 0.1
    adam_beta1: float = 0.9
    adam_beta2: float = 0.95
    adam_eps: float = 1e-8
    clip_grad: float = 1.0
    sequence_length: int | None = None  # None: the stage's sequence_length in the build's manifest.json
    seed: int = 1234

    def validate(self, path: str) -> None:
        require(self.micro_batch_size >= 1, join(path, "micro_batch_size"), "must be at least 1")
        require(self.global_batch_size % self.micro_batch_size == 0, join(path, "global_batch_size"),
                f"must be a multiple of micro_batch_size ({self.micro_batch_size})")
        require(self.lr > 0 and 0 <= self.min_lr <= self.lr, join(path, "min_lr"), "needs 0 <= min_lr <= lr")
        require(self.sequence_length is None or self.sequence_length > 1, join(path, "sequence_length"),
                "must be above 1 or null")


@dataclass(slots=True, kw_only=True)
class Recipe:
    """Everything a run needs besides the data: model, parallelism, precision, per-stage training."""

    name: str
    model: ModelConfig
    init_from_hf: str | None = None  # the Hugging Face checkpoint directory ``model`` was derived from
    parallel: ParallelConfig = field(default_factory=ParallelConfig)
    precision: PrecisionConfig = field(default_factory=PrecisionConfig)
    train: dict[str, StageTrainConfig] = field(default_factory=dict)

    def validate(self, path: str) -> None:
        for stage in self.train:
            require(stage in STAGES, join(join(path, "train"), stage), "unknown stage", f"use one of: {', '.join(STAGES)}")
        moe, parallel = self.model.moe, self.parallel
        require(moe.num_experts % parallel.expert == 0, join(path, "parallel.expert"),
                f"must divide model.moe.num_experts ({moe.num_experts})")
        if self.model.mla is None:
            require(self.model.query_groups % parallel.tensor == 0, join(path, "parallel.tensor"),
                    f"must divide the query groups ({self.model.query_groups})")

    def stage(self, name: str) -> StageTrainConfig:
        """The training settings of stage ``name``, or a ConfigError naming what to add."""
        require(name in self.train, join("train", name), f"recipe {self.name!r} has no settings for this stage",
                f"add train.{name}: {{micro_batch_size: ..., global_batch_size: ..., lr: ...}}")
        return self.train[name]


def recipe_path(name_or_path: str) -> Path:
    """``tiny`` -> ``pretrain/configs/tiny.yaml``; anything ending in .yaml/.yml is a path."""
    if name_or_path.endswith((".yaml", ".yml")):
        return Path(name_or_path)
    path = CONFIG_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.yaml")))
        raise ConfigError("model", f"no recipe named {name_or_path!r}", f"use one of: {known}, or a YAML path")
    return path


def load_recipe(name_or_path: str, overrides: list[str] | tuple[str, ...] = (), *, init_from_hf: str | None = None,
                parent_model: dict[str, Any] | None = None) -> Recipe:
    """Load, override (``a.b=value``, value parsed as YAML) and validate a recipe.

    The model is typed once: a recipe with ``init_from_hf: DIR`` (or ``init_from_hf`` given here, the
    ``--init-from-hf`` flag) takes its architecture from ``DIR/config.json``; a recipe without a
    ``model`` section takes the one of the checkpoint it starts from (``parent_model``, from that
    run's run.json). Either way the recipe may only change training fields of that model
    (``pretrain.architecture.TRAINING_FIELDS``: context length, balancing loss, ...).
    """
    path = recipe_path(name_or_path)
    data = load_yaml(path.read_text(), str(path))
    data.setdefault("name", path.stem if name_or_path.endswith((".yaml", ".yml")) else name_or_path)
    if init_from_hf:
        data["init_from_hf"] = init_from_hf
    source, derived = model_source(data, parent_model)
    if derived is not None:
        check_same_architecture(derived, data.get("model") or {}, source)
        data["model"] = merge(derived, data.get("model") or {})
    data = apply_overrides(data, overrides)
    if derived is not None:
        check_same_architecture(derived, data["model"], source)
    return recipe_from_dict(data)


def model_source(data: dict[str, Any], parent_model: dict[str, Any] | None) -> tuple[str, dict[str, Any] | None]:
    """(where the architecture comes from, its ModelConfig dict) when the recipe does not type it itself."""
    if data.get("init_from_hf"):
        directory = str(data["init_from_hf"])
        config_path = Path(directory) / "config.json"
        if not config_path.is_file():
            raise ConfigError("init_from_hf", f"{config_path} does not exist",
                              "give a Hugging Face checkpoint directory (config.json + *.safetensors)")
        return f"{config_path}", model_from_hf(json.loads(config_path.read_text()))
    if parent_model is not None:
        return "the checkpoint this run starts from", parent_model
    if "model" not in data:
        raise ConfigError("model", "the recipe has no model section",
                          "add one, or start from a base (--init-from-hf DIR) or a checkpoint (--init-from CKPT)")
    return "", None


def merge(base: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``update``'s leaves set over it (nested mappings merged, not replaced)."""
    out = copy.deepcopy(base)
    for key, value in update.items():
        out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def recipe_from_dict(data: dict[str, Any]) -> Recipe:
    """A validated ``Recipe`` from its dict form (YAML, or ``run.json`` of an earlier run)."""
    return load_config(Recipe, data)


def apply_overrides(data: dict[str, Any], overrides: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """A copy of ``data`` with each ``dotted.key=value`` set; missing intermediate mappings are created."""
    data = copy.deepcopy(data)
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ConfigError(item, "an override must look like key.sub=value", "e.g. train.short.lr=1e-3")
        *parents, leaf = key.split(".")
        node = data
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(key, f"{part!r} is not a mapping, cannot set {leaf!r} inside it")
        node[leaf] = parse_value(raw)
    return data


def parse_value(raw: str) -> Any:
    """A YAML scalar, except that ``1e-3`` is a float (YAML 1.1 wants ``1.0e-3`` and reads a string)."""
    value = yaml.safe_load(raw)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value
