"""Continued pretraining from Hugging Face bases, checked against ``transformers`` itself.

For each family (Qwen3-MoE, Qwen2-MoE with its gated shared expert, DeepSeek-V3 with MLA, sigmoid
routing, expert bias, group limits and routed scaling) a tiny random model is built with
``transformers`` from a config and saved in ``tmp_path`` with the build's tokenizer in Kimi's form
(tiktoken file + tokenizer_config.json). Then: the imported megatron-core model computes the
``transformers`` logits; importing and exporting with no training gives the same tensors bit for bit;
a few training steps on the build and ``mix handoff`` give a bundle that ``AutoModelForCausalLM``
loads with no missing or unexpected key, computing the megatron model's logits and generating;
short -> long -> sft chains from the base; the expert bias balances the load; mismatched tokenizers,
structures no class reproduces and too-long sequences are refused.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from codemix.config import ConfigError
from codemix.pretrain.configs import load_recipe, recipe_from_dict
from codemix.pretrain.evaluate import evaluate_run, read_eval_texts
from codemix.pretrain.hf.base_import import import_base
from codemix.pretrain.hf.convert import export_family
from codemix.pretrain.hf.handoff import handoff
from codemix.pretrain.run import TrainOptions, run

from .conftest import STDLIB
from .hf_models import (
    FAMILIES,
    VOCAB_ROWS,
    add_mtp_layer,
    hf_logits,
    megatron_logits,
    quantize_block_fp8,
    reference_dequantize,
    sample_tokens,
    save_base,
    tiny_hf_model,
    to_block_fp8,
)


@pytest.fixture(scope="session")
def hf_bases(tmp_path_factory, base_tokenizer) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hf-bases")
    return {family: save_base(tiny_hf_model(family), root / family, base_tokenizer.directory) for family in FAMILIES}


def continued(base: Path, *overrides: str):
    return load_recipe("continued", list(overrides), init_from_hf=str(base))


# fp32 rounding of these logits (|logit| < 3) stays near 1e-6; a q/kv latent norm built with
# rms_norm_eps 1e-5 instead of DeepSeek's fixed 1e-6 moves them by 5e-5
LOGIT_ATOL = 4e-6


@pytest.mark.parametrize("eps", [1e-5, 1e-6])
@pytest.mark.parametrize("family", FAMILIES)
def test_imported_base_computes_the_transformers_logits(family, eps, base_tokenizer, tmp_path, one_thread):
    base = save_base(tiny_hf_model(family, eps=eps), tmp_path / "hf", base_tokenizer.directory)
    recipe = continued(base)
    assert recipe.model.fixed_vocab and recipe.model.vocab_size == VOCAB_ROWS and recipe.model.norm_epsilon == eps
    assert (recipe.model.mla is not None) == (family == "deepseek_v3")
    checkpoint = import_base(recipe, tmp_path / "base")
    tokens_BS = sample_tokens()
    expected_BSV = hf_logits(base, tokens_BS)
    actual_BSV = megatron_logits(tmp_path / "base", checkpoint, tokens_BS)
    assert expected_BSV.abs().max() > 1.0, "guard: the random model's logits are not near zero"
    torch.testing.assert_close(actual_BSV, expected_BSV, rtol=0, atol=LOGIT_ATOL)


@pytest.mark.parametrize(("dtype", "tied"), [(torch.float32, False), (torch.bfloat16, True)])
@pytest.mark.parametrize("family", FAMILIES)
def test_import_then_export_returns_the_same_tensors_bit_for_bit(family, dtype, tied, base_tokenizer, tmp_path,
                                                                 one_thread):
    """Through both command lines: ``python -m codemix.pretrain.hf.base_import`` then ``mix handoff`` of the
    base. A bf16 base comes back in bf16; tied embeddings come back tied (one matrix, no lm_head)."""
    from codemix.mix.cli import main as mix
    from codemix.pretrain.hf.base_import import main as hf_import
    from codemix.pretrain.model.params import count_parameters

    base = save_base(tiny_hf_model(family, dtype=dtype, tied=tied), tmp_path / "hf", base_tokenizer.directory)
    assert hf_import([str(base), "--out", str(tmp_path / "base")]) == 0
    assert mix(["handoff", str(tmp_path / "base"), "--out", str(tmp_path / "bundle")]) == 0
    original = load_file(str(base / "model.safetensors"))
    exported = load_file(str(tmp_path / "bundle" / "hf" / "model.safetensors"))
    assert ("lm_head.weight" in original) == (not tied), "guard: save_pretrained wrote a tied matrix once"
    assert set(exported) == set(original)
    for name, tensor in original.items():
        assert tensor.dtype == dtype and exported[name].dtype == dtype and torch.equal(exported[name], tensor), name
    config = json.loads((tmp_path / "bundle" / "hf" / "config.json").read_text())
    assert config["model_type"] == family and config["tie_word_embeddings"] == tied
    assert config["torch_dtype"] == str(dtype).removeprefix("torch.")
    _, info, hf_params = hf_logits(tmp_path / "bundle" / "hf", sample_tokens(), info=True)
    assert not any(info[key] for key in ("missing_keys", "unexpected_keys", "mismatched_keys")), info
    assert count_parameters(continued(base).model, VOCAB_ROWS).total == hf_params


def test_hand_off_writes_the_dtype_asked_for(hf_bases, tmp_path, one_thread):
    import_base(continued(hf_bases["qwen2_moe"]), tmp_path / "base")
    summary = handoff(tmp_path / "base", tmp_path / "bundle", dtype="bfloat16")
    exported = load_file(str(tmp_path / "bundle" / "hf" / "model.safetensors"))
    assert summary["dtype"] == "bfloat16" and {t.dtype for t in exported.values()} == {torch.bfloat16}


@pytest.mark.parametrize("shape", [(256, 384), (192, 320), (40, 64)])
def test_block_fp8_dequantisation_equals_transformers_bit_for_bit(shape):
    """Whole 128x128 blocks, ragged edge blocks and a weight smaller than one block."""
    from codemix.pretrain.hf.shards import dequantize_block_fp8

    generator = torch.Generator().manual_seed(shape[0])
    weight = torch.randn(shape, generator=generator) * torch.logspace(-3, 1, shape[1])  # blocks of unlike scale
    codes, scale = quantize_block_fp8(weight)
    assert codes.dtype == torch.float8_e4m3fn and (scale.numel() == 1 or scale.std() > 0), "guard: scales differ"
    ours = dequantize_block_fp8(codes, scale, (128, 128), "w")
    assert ours.dtype == torch.float32 and torch.equal(ours, reference_dequantize(codes, scale))
    assert (ours - weight).abs().max() <= weight.abs().max() / 8, "guard: the codes are the weight's"


def test_a_block_fp8_release_imports_as_the_reference_dequantisation(base_tokenizer, tmp_path, one_thread):
    """DeepSeek-V3's release form (float8_e4m3fn weights, per-block weight_scale_inv, bf16 rest): the
    imported model computes what ``transformers`` computes on the reference's fp32 dequantisation, and
    the hand-off writes the reference's weights rounded to the config's bf16, bit for bit, as a plain
    (unquantised) checkpoint."""
    base = save_base(tiny_hf_model("deepseek_v3", eps=1e-5, dtype=torch.bfloat16), tmp_path / "hf",
                     base_tokenizer.directory)
    quantized = to_block_fp8(base)
    stored = load_file(str(base / "model.safetensors"))
    assert len(quantized) > 20 and stored[quantized[0]].dtype == torch.float8_e4m3fn, "guard: an FP8 checkpoint"
    reference = {name: tensor.float() for name, tensor in stored.items() if not name.endswith("_scale_inv")}
    for name in quantized:
        reference[name] = reference_dequantize(stored[name], stored[f"{name}_scale_inv"])
    plain = save_base(tiny_hf_model("deepseek_v3", eps=1e-5), tmp_path / "reference", base_tokenizer.directory)
    save_file(reference, str(plain / "model.safetensors"), metadata={"format": "pt"})

    checkpoint = import_base(continued(base), tmp_path / "base")
    tokens_BS = sample_tokens()
    torch.testing.assert_close(megatron_logits(tmp_path / "base", checkpoint, tokens_BS), hf_logits(plain, tokens_BS),
                               rtol=0, atol=LOGIT_ATOL)
    summary = handoff(tmp_path / "base", tmp_path / "bundle")
    exported = load_file(str(tmp_path / "bundle" / "hf" / "model.safetensors"))
    assert summary["dtype"] == "bfloat16" and set(exported) == set(stored)  # handed back in the release format
    for name, tensor in reference.items():
        if name in quantized:  # the same codes; scales to fp32 rounding (448 x scale / 448)
            assert torch.equal(exported[name].view(torch.uint8), stored[name].view(torch.uint8)), name
            torch.testing.assert_close(exported[f"{name}_scale_inv"], stored[f"{name}_scale_inv"], rtol=1e-6, atol=0)
        else:
            assert torch.equal(exported[name], tensor.bfloat16()), name
    config = json.loads((tmp_path / "bundle" / "hf" / "config.json").read_text())
    assert config["quantization_config"] == json.loads((base / "config.json").read_text())["quantization_config"]
    assert summary["export_error"]["measured"] and summary["export_error"]["fp8_weights"] == len(quantized)
    assert summary["export_error"]["max_abs_logit_error"] < 1e-5


@pytest.mark.parametrize(("damage", "reason"), [
    ("drop_scale", "is FP8 with no weight_scale_inv"),
    ("reshape_scale", r"weight_scale_inv has shape \(1, 2\), not \(1, 1\)"),
    ("int4_config", r"quantization_config: weights quantised as 'compressed-tensors' \(pack-quantized\)"),
])
def test_a_damaged_fp8_release_is_refused_naming_the_tensor(damage, reason, base_tokenizer, tmp_path):
    base = save_base(tiny_hf_model("deepseek_v3"), tmp_path / "hf", base_tokenizer.directory)
    name = to_block_fp8(base)[0]
    tensors = load_file(str(base / "model.safetensors"))
    if damage == "drop_scale":
        del tensors[f"{name}_scale_inv"]
    elif damage == "reshape_scale":
        tensors[f"{name}_scale_inv"] = torch.ones(1, 2)
    else:  # an int4 compressed-tensors release
        config = json.loads((base / "config.json").read_text())
        config["quantization_config"] = {"quant_method": "compressed-tensors", "format": "pack-quantized"}
        (base / "config.json").write_text(json.dumps(config))
    save_file(tensors, str(base / "model.safetensors"))
    with pytest.raises(ConfigError, match=reason):
        import_base(continued(base), tmp_path / "base")
    assert not (tmp_path / "base" / "checkpoints").exists()


def test_multi_token_prediction_layers_pass_through_to_the_hand_off(base_tokenizer, tmp_path, one_thread):
    """DeepSeek-V3's MTP layer (after the last decoder layer) is not trained; the hand-off carries the
    base's unchanged, with ``num_nextn_predict_layers``. ``transformers`` has no MTP module: it reports
    exactly those tensors as unexpected and computes the base's logits."""
    base = save_base(tiny_hf_model("deepseek_v3"), tmp_path / "hf", base_tokenizer.directory)
    added = add_mtp_layer(base, tiny_hf_model("deepseek_v3", layers=3))
    assert "model.layers.2.eh_proj.weight" in added and "model.layers.2.self_attn.kv_b_proj.weight" in added
    import_base(continued(base), tmp_path / "base")
    assert json.loads((tmp_path / "base" / "run.json").read_text())["hf_mtp_tensors"] == added
    summary = handoff(tmp_path / "base", tmp_path / "bundle")
    original, exported = load_file(str(base / "model.safetensors")), load_file(
        str(tmp_path / "bundle" / "hf" / "model.safetensors"))
    assert set(exported) == set(original) and all(torch.equal(exported[n], t) for n, t in original.items())
    assert summary["mtp_layers"] == 1
    tokens_BS = sample_tokens()
    logits_BSV, info, _ = hf_logits(tmp_path / "bundle" / "hf", tokens_BS, info=True)
    assert sorted(info["unexpected_keys"]) == added and not info["missing_keys"]
    torch.testing.assert_close(logits_BSV, hf_logits(base, tokens_BS), rtol=0, atol=0)


def train_stage(recipe, build: Path, out: Path, stage: str, steps: int, **options):
    return run(TrainOptions(recipe=recipe, stage=stage, data_dir=str(build), out_dir=str(out), steps=steps, **options))


@pytest.mark.parametrize(("family", "tied"), [*((family, False) for family in FAMILIES), ("deepseek_v3", True)])
def test_trained_bundle_loads_in_transformers_and_computes_megatrons_logits(family, tied, hf_bases, base_tokenizer,
                                                                            build_dir, tmp_path, one_thread):
    from transformers import AutoModelForCausalLM

    base = save_base(tiny_hf_model(family, tied=True), tmp_path / "hf", base_tokenizer.directory) if tied \
        else hf_bases[family]
    summary = train_stage(continued(base), build_dir, tmp_path / "run", "short", 3)
    handoff(summary.out_dir, tmp_path / "bundle")
    if tied:
        assert "lm_head.weight" not in load_file(str(tmp_path / "bundle" / "hf" / "model.safetensors"))
    hf_dir = tmp_path / "bundle" / "hf"
    model, info = AutoModelForCausalLM.from_pretrained(hf_dir, dtype=torch.float32, output_loading_info=True)
    assert type(model).__name__ == json.loads((hf_dir / "config.json").read_text())["architectures"][0]
    assert not any(info[key] for key in ("missing_keys", "unexpected_keys", "mismatched_keys")), info
    tokens_BS = sample_tokens()
    expected_BSV = megatron_logits(Path(summary.out_dir), summary.checkpoint, tokens_BS)
    with torch.no_grad():
        actual_BSV = model.eval()(tokens_BS).logits.float()
    torch.testing.assert_close(actual_BSV, expected_BSV, rtol=0, atol=1e-4)
    generated = model.generate(tokens_BS[:1, :16], max_new_tokens=4, do_sample=False)
    assert generated.shape == (1, 20)
    first = int(megatron_logits(Path(summary.out_dir), summary.checkpoint, tokens_BS[:1, :16])[0, -1].argmax())
    assert int(generated[0, 16]) == first  # greedy decoding agrees with the trained model


def test_three_stages_from_an_imported_base(hf_bases, build_dir, heldout_dir, tmp_path, one_thread):
    """short -> long (YaRN x8) -> sft from a DeepSeek-V3 base, each stage --init-from the last; the
    held-out loss after short is below the base's, and the final bundle (MLA with YaRN) computes what
    megatron computes in transformers."""
    base = hf_bases["deepseek_v3"]
    recipe = continued(base, "model.max_context=2048", "train.short.lr=3e-3")
    short = train_stage(recipe, build_dir, tmp_path / "short", "short", 12)
    later = load_recipe("continued", parent_model=json.loads((tmp_path / "short" / "run.json").read_text())["recipe"]["model"])
    long = train_stage(later, build_dir, tmp_path / "long", "long", 1, init_from=short.checkpoint)
    sft = train_stage(later, build_dir, tmp_path / "sft", "sft", 1, init_from=long.checkpoint)
    texts = {"heldout": read_eval_texts(str(heldout_dir))}
    base_loss = evaluate_run(tmp_path / "short" / "base", texts, sequence_length=256)[0]["loss_nats"]
    short_loss = evaluate_run(tmp_path / "short", texts, step=12, sequence_length=256)[0]["loss_nats"]
    assert short_loss < base_loss - 0.5, (short_loss, base_loss)
    positions = [json.loads((tmp_path / s / "run.json").read_text())["position"] for s in ("short", "long", "sft")]
    assert positions == [{"kind": "rope", "factor": 1.0, "linear": False}] + [{"kind": "yarn", "factor": 8.0,
                                                                                "linear": False}] * 2
    handoff(sft.out_dir, tmp_path / "bundle")
    lineage = json.loads((tmp_path / "bundle" / "lineage.json").read_text())
    assert [s["stage"] for s in lineage["stages"]] == ["base", "short", "long", "sft"]
    assert lineage["stages"][0]["hf_dir"] == str(base.resolve())
    config = json.loads((tmp_path / "bundle" / "hf" / "config.json").read_text())
    assert config["rope_scaling"]["factor"] == 8.0, "guard: the YaRN export is what is compared"
    tokens_BS = sample_tokens(96)
    torch.testing.assert_close(hf_logits(tmp_path / "bundle" / "hf", tokens_BS),
                               megatron_logits(Path(sft.out_dir), sft.checkpoint, tokens_BS), rtol=0, atol=1e-4)


def window_imbalance(rows: list[dict], steps: slice) -> float:
    """max/mean expert load of the MoE layer over a window of steps (every step routes the same number
    of tokens, so the window's load is the mean of the steps' shares)."""
    loads_E = torch.tensor([row["expert_load"][-1] for row in rows[steps]]).mean(0)
    return float(loads_E.max() / loads_E.mean())


def test_expert_bias_moves_the_load_towards_balance(build_dir, base_tokenizer, tmp_path, one_thread):
    """A tiny MLA + shared-expert + expert-bias model whose bias starts skewed to two of eight experts,
    no auxiliary loss: with the bias update the measured max/mean expert load falls over the steps
    and ends below the run without it; the loss falls in both. (The sign update moves each bias by
    the rate every step, so per-step loads oscillate around balance; windows of steps average that.)"""
    skew = [0.3, 0.3, 0, 0, 0, 0, 0, 0]
    base = save_base(tiny_hf_model("deepseek_v3", expert_bias=skew, n_group=1), tmp_path / "base",
                     base_tokenizer.directory)
    runs = {}
    for rate in (0.0, 0.05):
        recipe = continued(base, "model.moe.load_balancing=none", "model.moe.aux_loss_coeff=0",
                           f"model.moe.expert_bias_update_rate={rate}", "train.short.lr=3e-3")
        assert recipe.model.mla and recipe.model.moe.expert_bias and recipe.model.moe.shared_expert_intermediate_size
        runs[rate] = train_stage(recipe, build_dir, tmp_path / f"rate-{rate}", "short", 24).rows
    first, last = slice(0, 1), slice(-12, None)
    assert window_imbalance(runs[0.05], first) > 1.8, "guard: the skewed bias starts the load far from balance"
    assert window_imbalance(runs[0.05], last) < window_imbalance(runs[0.05], first) - 0.4
    assert window_imbalance(runs[0.05], last) < window_imbalance(runs[0.0], last) - 0.4
    for rows in runs.values():
        assert sum(row["loss"] for row in rows[-4:]) / 4 < rows[0]["loss"] - 0.5


def test_a_build_with_another_tokenizer_is_refused_naming_both(hf_bases, build_dir, tmp_path, capsys):
    """`mix train --init-from-hf` on a build tokenized otherwise exits 2, naming both tokenizers."""
    from codemix.mix.cli import main as mix
    from codemix.mixtures.tokenizer import save_tokenizer, train_bpe

    other = tmp_path / "other-base"
    shutil.copytree(hf_bases["qwen3_moe"], other, ignore=shutil.ignore_patterns("tiktoken.model", "tokenizer_config.json"))
    save_tokenizer(train_bpe(["def f(x):\n    return x\n"] * 10, 300), str(other / "tokenizer.json"))
    code = mix(["train", "--model", "continued", "--init-from-hf", str(other), "--stage", "short",
                "--data", str(build_dir), "--steps", "1", "--out", str(tmp_path / "run")])
    error = capsys.readouterr().err
    assert code == 2 and f"tokenized with {build_dir.resolve() / 'tokenizer.json'}" in error
    assert f"the model's tokenizer is {other.resolve() / 'tokenizer.json'}" in error
    assert not (tmp_path / "run" / "base").exists(), "refused before importing anything"


@pytest.mark.parametrize(("change", "reason"), [
    ({"qk_layernorm": True}, "Qwen2-MoE .* has no q/k RMSNorm"),
    ({"moe": {"shared_expert_gate": False}}, "ungated shared expert with GQA"),
    ({"moe": {"score_function": "sigmoid"}}, "exist only in DeepSeek-V3"),
    ({"mla": {"q_lora_rank": 16, "kv_lora_rank": 16, "qk_head_dim": 8, "qk_pos_emb_head_dim": 8, "v_head_dim": 8}},
     "softmax routing with MLA has no class"),
    ({"qk_layernorm": True, "moe": {"score_function": "sigmoid", "shared_expert_gate": False},
      "mla": {"q_lora_rank": 16, "kv_lora_rank": 16, "qk_head_dim": 8, "qk_pos_emb_head_dim": 8, "v_head_dim": 8,
              "latent_norm_epsilon": 1e-5}},
     "model.mla.latent_norm_epsilon: DeepSeek-V3's q/kv latent norms use 1e-06"),
])
def test_structures_no_class_reproduces_are_refused_with_the_reason(change, reason):
    assert export_family(load_recipe("tiny")) == "qwen2_moe"
    from codemix.pretrain.configs import merge

    data = {"name": "x", "model": merge(json.loads(json.dumps(_tiny_model())), change)}
    with pytest.raises(ConfigError, match=reason):
        export_family(recipe_from_dict(data))


def _tiny_model() -> dict:
    from dataclasses import asdict

    return asdict(load_recipe("tiny").model)


def test_hand_off_refuses_before_any_work(tmp_path):
    from dataclasses import asdict

    recipe = load_recipe("tiny", ["model.qk_layernorm=true"])
    (tmp_path / "run" / "checkpoints" / "step_0000001").mkdir(parents=True)
    (tmp_path / "run" / "checkpoints" / "latest").write_text("step_0000001")
    (tmp_path / "run" / "run.json").write_text(json.dumps({"recipe": asdict(recipe)}, default=str))
    with pytest.raises(ConfigError, match="model.qk_layernorm: Qwen2-MoE"):
        handoff(tmp_path / "run", tmp_path / "bundle", eval_sets={"heldout": ["x = 1\n"]})
    assert not (tmp_path / "bundle").exists()


def test_a_sequence_longer_than_the_model_is_refused_with_its_origin(build_dir, tmp_path):
    with pytest.raises(ConfigError, match=r"--seq-length: --seq-length asks for 4096 tokens, above .* 2048"):
        run(TrainOptions(recipe=load_recipe("tiny"), stage="short", data_dir=str(build_dir), out_dir=str(tmp_path),
                         steps=1, sequence_length=4096))
    with pytest.raises(ConfigError, match=r"the build's long stage asks for 1024 tokens, above .* 512"):
        run(TrainOptions(recipe=load_recipe("tiny", ["model.max_context=512", "train.long.sequence_length=null"]),
                         stage="long", data_dir=str(build_dir), out_dir=str(tmp_path), steps=1))


def test_recipe_may_not_retype_the_imported_architecture(hf_bases):
    with pytest.raises(ConfigError, match=r"model.hidden_size: is 128, but .*config.json has 64"):
        continued(hf_bases["qwen3_moe"], "model.hidden_size=128")
    assert continued(hf_bases["qwen3_moe"], "model.max_context=1024").model.max_context == 1024
    assert math.isclose(continued(hf_bases["deepseek_v3"]).model.moe.routed_scaling_factor, 2.5)


def test_a_gpt2_style_base_with_only_an_eos_trains_and_hands_off_padding_with_the_eos(base_tokenizer, tmp_path,
                                                                                    one_thread):
    """A base tokenizer whose only special token is ``<|endoftext|>`` (GPT-2-style code tokenizers):
    the build, 2 training steps and the hand-off all work, padding with the EOS under the loss mask
    (pad = EOS in the bundle, as Hugging Face trainers set it), and transformers loads the bundle."""
    import base64

    import yaml
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from codemix.mix.cli import main as mix

    tokenizer_dir = tmp_path / "gpt2-style"
    tokenizer_dir.mkdir()
    ranks = base_tokenizer.ranks
    (tokenizer_dir / "tiktoken.model").write_text("".join(f"{base64.b64encode(token).decode()} {rank}\n"
                                                          for token, rank in ranks.items()))
    (tokenizer_dir / "tokenizer_config.json").write_text(json.dumps(
        {"pat_str": "gpt2", "eos_token": "<|endoftext|>",
         "added_tokens_decoder": {str(len(ranks)): {"content": "<|endoftext|>", "special": True}}}))
    code = tmp_path / "code"
    code.mkdir()
    for name in ("textwrap.py", "shlex.py", "fnmatch.py", "queue.py"):
        shutil.copyfile(STDLIB / name, code / name)
    spec = {"name": "gpt2-style", "sources": [{"name": "code", "type": "directory", "paths": [str(code)],
                                               "include": ["*.py"], "license": "PSF-2.0"}],
            "stages": {"short": {"sequence_length": 64, "token_budget": 100_000, "weights": {"code": 1.0}}},
            "tokenizer": {"path": str(tokenizer_dir)}}
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    assert mix(["build", str(tmp_path / "spec.yaml"), "--out", str(tmp_path / "build"), "--no-progress"]) == 0
    base = save_base(tiny_hf_model("qwen3_moe"), tmp_path / "hf", tokenizer_dir)
    summary = train_stage(continued(base), tmp_path / "build", tmp_path / "run", "short", 2)
    assert summary.state.step == 2
    handoff(summary.out_dir, tmp_path / "bundle")
    hf_dir = tmp_path / "bundle" / "hf"
    tokenizer = AutoTokenizer.from_pretrained(hf_dir)
    assert tokenizer.pad_token == tokenizer.eos_token == "<|endoftext|>"
    assert json.loads((hf_dir / "config.json").read_text())["pad_token_id"] == tokenizer.eos_token_id
    _model, info = AutoModelForCausalLM.from_pretrained(hf_dir, dtype=torch.float32, output_loading_info=True)
    assert not any(info[key] for key in ("missing_keys", "unexpected_keys", "mismatched_keys")), info


@pytest.mark.parametrize(("family", "form"), [("qwen3_moe", "bfloat16"), ("deepseek_v3", "bfloat16"),
                                              ("qwen3_moe", "float32"), ("deepseek_v3", "fp8")])
def test_the_stated_export_error_is_what_transformers_measures(family, form, base_tokenizer, build_dir, tmp_path,
                                                              one_thread):
    """After training (fp32 weights), the hand-off keeps the base's format and states the bundle's logit
    error against the trained model; transformers' forward of the bundle (FP8 dequantised by
    transformers' own code) against megatron's fp32 forward of the checkpoint measures the same error."""
    from codemix.pretrain.hf.handoff import probe_tokens

    dtype = torch.float32 if form == "float32" else torch.bfloat16
    base = save_base(tiny_hf_model(family, eps=1e-5, dtype=dtype), tmp_path / "hf", base_tokenizer.directory)
    if form == "fp8":
        to_block_fp8(base)
    summary = train_stage(continued(base), build_dir, tmp_path / "run", "short", 2)
    stated = handoff(summary.out_dir, tmp_path / "bundle")["export_error"]
    hf_dir = tmp_path / "bundle" / "hf"
    tensors = load_file(str(hf_dir / "model.safetensors"))
    if form == "fp8":
        fp8 = [name for name, tensor in tensors.items() if tensor.dtype == torch.float8_e4m3fn]
        assert len(fp8) > 20 and stated["fp8_weights"] == len(fp8), "guard: handed back as block FP8"
        for name in fp8:
            tensors[name] = reference_dequantize(tensors.pop(name), tensors.pop(f"{name}_scale_inv"))
        config = json.loads((hf_dir / "config.json").read_text())
        del config["quantization_config"]
        (hf_dir / "config.json").write_text(json.dumps(config))
        save_file(tensors, str(hf_dir / "model.safetensors"), metadata={"format": "pt"})
    else:
        assert {tensor.dtype for tensor in tensors.values()} == {dtype}
    tokens_BS = probe_tokens(stated["probe"]["vocab_size"])
    trained_BSV = megatron_logits(Path(summary.out_dir), summary.checkpoint, tokens_BS,
                                  vocab_size=stated["probe"]["vocab_size"])
    measured = float((hf_logits(hf_dir, tokens_BS) - trained_BSV).abs().max())
    assert stated["measured"]
    if form == "float32":
        assert stated["max_abs_logit_error"] < 1e-5 and measured < 1e-4
    else:
        assert stated["max_abs_logit_error"] > 1e-4, "guard: a lossy format has an error to state"
        assert abs(measured - stated["max_abs_logit_error"]) <= 1e-4 + 0.02 * measured
