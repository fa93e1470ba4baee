"""The RL hand-off bundle: Qwen3-MoE safetensors that round-trip and compute what megatron computes,
the distributed checkpoint, data lineage back through every stage, and the final eval figures."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from safetensors.torch import load_file

from pretrain.checkpoint import load_checkpoint
from pretrain.configs import load_recipe
from pretrain.evaluate import read_eval_texts
from pretrain.handoff import Layout, handoff, hf_to_megatron, join_qkv, split_qkv
from pretrain.loop import causal_mask
from pretrain.model import PositionSetup, build_model


@pytest.fixture(scope="module")
def bundle(sft_run, heldout_dir, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bundle")
    handoff(sft_run.out_dir, out, eval_sets={"heldout": read_eval_texts(str(heldout_dir))})
    return out


@pytest.fixture
def trained(sft_run, runtime):
    """The sft run's final model, loaded from its checkpoint the way training resumes it."""
    record = json.loads((Path(sft_run.out_dir) / "run.json").read_text())
    model = build_model(load_recipe("tiny"), vocab_size=1000, sequence_length=record["sequence_length"],
                        position=PositionSetup(**record["position"]), cpu=True)
    load_checkpoint(sft_run.checkpoint, model)
    return model.eval()


def test_qkv_split_inverts_megatrons_grouped_layout():
    layout = Layout(num_layers=1, num_heads=8, num_query_groups=2, head_dim=3, num_experts=1, dense_layers=frozenset())
    qkv = torch.arange(2 * (4 + 2) * 3 * 5, dtype=torch.float32).reshape(-1, 5)
    q, k, v = split_qkv(qkv, layout)
    assert q.shape == (8 * 3, 5) and k.shape == v.shape == (2 * 3, 5)
    assert torch.equal(k[:3], qkv[4 * 3:5 * 3]) and torch.equal(v[3:], qkv[-3:])  # group 0's key, group 1's value
    assert torch.equal(join_qkv(q, k, v, layout), qkv)


def test_safetensors_round_trip_to_every_trained_tensor(bundle, trained):
    exported = load_file(str(bundle / "hf" / "model.safetensors"))
    assert "model.layers.1.mlp.experts.3.gate_proj.weight" in exported and "lm_head.weight" in exported
    assert "model.layers.0.mlp.shared_expert.up_proj.weight" in exported
    back = hf_to_megatron(exported, Layout.of(load_recipe("tiny")))
    expected = {k: v for k, v in trained.state_dict().items() if isinstance(v, torch.Tensor)}
    assert set(back) == set(expected)
    for name, tensor in expected.items():
        assert torch.equal(back[name], tensor), name


def test_exported_weights_compute_megatrons_logits(bundle, trained):
    """An independent Qwen3-MoE forward (Hugging Face semantics, YaRN included) over the exported
    tensors and config.json gives the trained megatron model's logits."""
    config = json.loads((bundle / "hf" / "config.json").read_text())
    tensors = load_file(str(bundle / "hf" / "model.safetensors"))
    tokens_S = torch.randint(0, 1000, (48,), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        expected_SV = trained(tokens_S[None], torch.arange(48)[None], causal_mask(48))[0].float()
        actual_SV = reference_forward(config, tensors, tokens_S)
    assert config["rope_scaling"]["rope_type"] == "yarn", "guard: the YaRN path is the one compared"
    torch.testing.assert_close(actual_SV, expected_SV, rtol=1e-4, atol=1e-4)


def test_config_json_describes_a_qwen3_moe(bundle):
    config = json.loads((bundle / "hf" / "config.json").read_text())
    assert config["architectures"] == ["Qwen3MoeForCausalLM"] and config["model_type"] == "qwen3_moe"
    assert (config["num_experts"], config["num_experts_per_tok"], config["moe_intermediate_size"]) == (4, 2, 64)
    assert config["shared_expert_intermediate_size"] == 64 and config["tie_word_embeddings"] is False
    assert config["vocab_size"] == 1024 and config["num_key_value_heads"] == 2 and config["head_dim"] == 16
    assert (bundle / "hf" / "tokenizer.json").is_file()


def test_bundle_traces_the_data_through_every_stage(bundle, short_run, long_run, sft_run):
    lineage = json.loads((bundle / "lineage.json").read_text())
    stages = lineage["stages"]
    assert [s["stage"] for s in stages] == ["short", "long", "sft"]
    assert [s["init_from"] for s in stages] == [None, short_run.checkpoint, long_run.checkpoint]
    for stage, summary in zip(stages, (short_run, long_run, sft_run)):
        manifest = json.loads((bundle / stage["manifest"]).read_text())
        assert stage["spec_hash"] == manifest["spec_hash"] == lineage["spec_hashes"][0]
        assert stage["data_path"] == manifest["stages"][stage["stage"]]["data_path"]
        assert stage["tokens_seen"] == summary.state.tokens_seen > 0
        assert sum(stage["tokens_per_source"].values()) == stage["tokens_seen"]
        assert set(stage["tokens_per_source"]) <= set(stage["build_tokens_per_source"])


def test_bundle_holds_checkpoint_eval_and_routing_replay_flag(bundle, sft_run):
    summary = json.loads((bundle / "handoff.json").read_text())
    assert summary["moe_enable_routing_replay"] is False and summary["step"] == sft_run.state.step
    assert (bundle / "checkpoint" / "metadata.json").is_file()
    evals = json.loads((bundle / "eval.json").read_text())
    assert [row["eval_set"] for row in evals] == ["heldout"] and evals[0]["step"] == sft_run.state.step
    assert summary["eval"]["heldout"]["bits_per_byte"] == evals[0]["bits_per_byte"] > 0


# --- an independent Qwen3-MoE (+ Qwen2-MoE shared expert) forward, Hugging Face semantics ---------


def rms_norm(x, weight, eps):
    return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def rope_cos_sin(config, length):
    """HF ``_compute_default_rope_parameters`` / ``_compute_yarn_parameters``, written out."""
    d, base = config["head_dim"], config["rope_theta"]
    inv_freq = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float32) / d)
    scale, scaling = 1.0, config["rope_scaling"]
    if scaling:
        factor, original = scaling["factor"], scaling["original_max_position_embeddings"]

        def dim(rotations):
            return d * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))

        low, high = max(math.floor(dim(scaling["beta_fast"])), 0), min(math.ceil(dim(scaling["beta_slow"])), d - 1)
        ramp = ((torch.arange(d // 2, dtype=torch.float32) - low) / max(high - low, 1e-3)).clamp(0, 1)
        extrapolation = 1 - ramp
        inv_freq = inv_freq / factor * (1 - extrapolation) + inv_freq * extrapolation
        scale = scaling["attention_factor"]
    freqs_SD = torch.outer(torch.arange(length, dtype=torch.float32), inv_freq)
    emb_SD = torch.cat([freqs_SD, freqs_SD], dim=-1)
    return emb_SD.cos() * scale, emb_SD.sin() * scale


def rotate_half(x):
    first, second = x.chunk(2, dim=-1)
    return torch.cat([-second, first], dim=-1)


def attention(config, t, prefix, x_SH, cos_SD, sin_SD):
    heads, groups, d, length = config["num_attention_heads"], config["num_key_value_heads"], config["head_dim"], x_SH.shape[0]
    eps = config["rms_norm_eps"]
    q_SND = rms_norm((x_SH @ t[f"{prefix}.q_proj.weight"].T).view(length, heads, d), t[f"{prefix}.q_norm.weight"], eps)
    k_SGD = rms_norm((x_SH @ t[f"{prefix}.k_proj.weight"].T).view(length, groups, d), t[f"{prefix}.k_norm.weight"], eps)
    v_SGD = (x_SH @ t[f"{prefix}.v_proj.weight"].T).view(length, groups, d)
    cos, sin = cos_SD[:, None], sin_SD[:, None]
    q_SND, k_SGD = q_SND * cos + rotate_half(q_SND) * sin, k_SGD * cos + rotate_half(k_SGD) * sin
    k_SND, v_SND = k_SGD.repeat_interleave(heads // groups, dim=1), v_SGD.repeat_interleave(heads // groups, dim=1)
    scores_NSS = torch.einsum("snd,tnd->nst", q_SND, k_SND) / math.sqrt(d)
    scores_NSS = scores_NSS.masked_fill(causal_mask(length)[0], float("-inf"))
    out_SND = torch.einsum("nst,tnd->snd", scores_NSS.softmax(-1), v_SND)
    return out_SND.reshape(length, heads * d) @ t[f"{prefix}.o_proj.weight"].T


def mlp(t, prefix, x):
    return (F.silu(x @ t[f"{prefix}.gate_proj.weight"].T) * (x @ t[f"{prefix}.up_proj.weight"].T)) @ t[f"{prefix}.down_proj.weight"].T


def sparse_moe(config, t, prefix, x_SH):
    probs_SE = (x_SH @ t[f"{prefix}.gate.weight"].T).softmax(-1)
    weights_SK, experts_SK = probs_SE.topk(config["num_experts_per_tok"], dim=-1)
    weights_SK = weights_SK / weights_SK.sum(-1, keepdim=True)  # norm_topk_prob
    out_SH = torch.zeros_like(x_SH)
    for e in range(config["num_experts"]):
        rows, slot = torch.nonzero(experts_SK == e, as_tuple=True)
        out_SH[rows] += weights_SK[rows, slot, None] * mlp(t, f"{prefix}.experts.{e}", x_SH[rows])
    gate_S1 = torch.sigmoid(x_SH @ t[f"{prefix}.shared_expert_gate.weight"].T)
    return out_SH + gate_S1 * mlp(t, f"{prefix}.shared_expert", x_SH)


def reference_forward(config, t, tokens_S):
    eps, x_SH = config["rms_norm_eps"], t["model.embed_tokens.weight"][tokens_S]
    cos_SD, sin_SD = rope_cos_sin(config, len(tokens_S))
    for i in range(config["num_hidden_layers"]):
        layer = f"model.layers.{i}"
        x_SH = x_SH + attention(config, t, f"{layer}.self_attn", rms_norm(x_SH, t[f"{layer}.input_layernorm.weight"], eps),
                                cos_SD, sin_SD)
        x_SH = x_SH + sparse_moe(config, t, f"{layer}.mlp", rms_norm(x_SH, t[f"{layer}.post_attention_layernorm.weight"], eps))
    return rms_norm(x_SH, t["model.norm.weight"], eps) @ t["lm_head.weight"].T
