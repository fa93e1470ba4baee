"""Recipes load and validate as data; FP8 and parallel layouts the machine cannot honour are refused loudly."""

from __future__ import annotations

import pytest

from codemix.config import ConfigError
from codemix.pretrain.configs import ParallelConfig, PrecisionConfig, load_recipe
from codemix.pretrain.model.params import count_parameters
from codemix.pretrain.model.params import main as params_main
from codemix.pretrain.parallel import HAVE_TE, check_parallel, check_precision
from codemix.pretrain.train import main as train_main


@pytest.mark.parametrize("name", ["tiny", "h100-1b", "kimi-k2.5-shape"])
def test_every_shipped_recipe_loads_and_passes_megatron_core_checks(name):
    from codemix.pretrain.model.gpt import transformer_config

    recipe = load_recipe(name)
    assert recipe.name == name
    transformer_config(recipe, validate_only=True)


def test_kimi_shape_is_counted_without_building_a_tensor(monkeypatch, capsys):
    """~1T total / ~32B active (Moonshot's published figures) from the formula alone."""
    from megatron.core.models.gpt import gpt_model

    def refuse(*args, **kwargs):
        raise AssertionError("the kimi shape must never be instantiated")

    monkeypatch.setattr(gpt_model.GPTModel, "__init__", refuse)
    counts = count_parameters(load_recipe("kimi-k2.5-shape").model)
    assert 1.00e12 < counts.total < 1.06e12 and 31e9 < counts.active < 34e9
    assert params_main(["kimi-k2.5-shape"]) == 0
    assert "1,026" in capsys.readouterr().out


def test_the_formula_reproduces_deepseek_v3s_published_671b():
    """Same architecture family with DeepSeek-V3's sizes: 671B total, 37B active (MTP head excluded)."""
    v3 = load_recipe("kimi-k2.5-shape", ["model.num_attention_heads=128", "model.moe.num_experts=256",
                                         "model.moe.first_dense_layers=3", "model.vocab_size=129280"])
    counts = count_parameters(v3.model)
    assert abs(counts.total / 671e9 - 1) < 0.005 and abs(counts.active / 37e9 - 1) < 0.02


def test_h100_recipe_is_about_1b_total_and_200m_active():
    counts = count_parameters(load_recipe("h100-1b").model)
    assert 0.95e9 < counts.total < 1.1e9 and 0.18e9 < counts.active < 0.23e9


def test_overrides_are_validated_like_the_file():
    assert load_recipe("tiny", ["train.short.lr=1e-3"]).train["short"].lr == 1e-3
    with pytest.raises(ConfigError, match=r"model\.moe\.router_topk: must be between 1 and num_experts"):
        load_recipe("tiny", ["model.moe.router_topk=9"])
    with pytest.raises(ConfigError, match=r"model\.moe\.num_expert: unknown field.*num_experts"):
        load_recipe("tiny", ["model.moe.num_expert=8"])
    with pytest.raises(ConfigError, match=r"train\.sft: recipe 'kimi-k2\.5-shape' has no settings"):
        load_recipe("kimi-k2.5-shape").stage("sft")


def test_fp8_without_transformer_engine_is_refused_naming_the_field_and_fix():
    """megatron-core would accept fp8= and silently train in BF16."""
    with pytest.raises(ConfigError) as error:
        check_precision(PrecisionConfig(fp8="e4m3"), cuda=True, have_te=False, capability=(9, 0))
    message = str(error.value)
    assert message.startswith("precision.fp8:") and "Transformer Engine" in message and "BF16" in message
    assert "Fix: pip install 'transformer_engine[pytorch]'" in message


def test_train_cli_refuses_fp8_here_before_reading_any_data(tmp_path, capsys):
    if HAVE_TE:
        pytest.skip("Transformer Engine is installed: FP8 is allowed on this machine")
    code = train_main(["--model", "tiny", "--stage", "short", "--data", str(tmp_path / "no-build"), "--steps", "1",
                       "--out", str(tmp_path / "run"), "--set", "precision.fp8=e4m3"])
    assert code == 2 and "error: precision.fp8: fp8: e4m3 needs NVIDIA Transformer Engine" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("recipe", "capability", "problem"), [
    ("mxfp8", (9, 0), "needs Blackwell"), ("blockwise", (10, 0), "Hopper"), ("tensorwise", (8, 0), "Ada, Hopper"),
])
def test_fp8_recipes_are_matched_to_the_gpu_generation(recipe, capability, problem):
    with pytest.raises(ConfigError, match=problem):
        check_precision(PrecisionConfig(fp8="e4m3", fp8_recipe=recipe), cuda=True, have_te=True, capability=capability)
    check_precision(PrecisionConfig(fp8="e4m3", fp8_recipe="blockwise"), cuda=True, have_te=True, capability=(9, 0))
    check_precision(PrecisionConfig(fp8="e4m3", fp8_recipe="mxfp8"), cuda=True, have_te=True, capability=(10, 0))


def test_context_parallelism_is_checked_against_the_machine_and_sequence():
    with pytest.raises(ConfigError, match=r"parallel\.context: model parallelism needs CUDA"):
        check_parallel(ParallelConfig(context=2), cuda=False, have_te=False, world_size=1)
    with pytest.raises(ConfigError, match="Transformer Engine attention"):
        check_parallel(ParallelConfig(context=2), cuda=True, have_te=False, world_size=2)
    with pytest.raises(ConfigError, match="must split into 2 x 4 chunks"):
        check_parallel(ParallelConfig(context=4), cuda=True, have_te=True, world_size=8, sequence_length=4100)
    check_parallel(ParallelConfig(context=4, expert=2), cuda=True, have_te=True, world_size=8, sequence_length=262144)
