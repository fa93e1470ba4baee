"""Sharded Hugging Face releases: read one tensor at a time, imported with memory bounded by a shard.

The bases are built with ``transformers`` and saved with ``save_pretrained(max_shard_size=...)``, so the
index and the shard layout are the ones a real release has; ``safetensors``' own ``load_file`` and the
``transformers`` forward are the references.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from codemix.config import ConfigError
from codemix.pretrain.configs import load_recipe
from codemix.pretrain.hf.base_import import import_base
from codemix.pretrain.hf.shards import HFShards, read_hf_tensors

from .hf_models import hf_logits, megatron_logits, sample_tokens, tiny_hf_model

MB = 1 << 20
REPO = Path(__file__).resolve().parents[2]


def sharded_base(directory: Path, tokenizer_dir: Path, family: str = "qwen3_moe") -> Path:
    """A tiny base of ``family`` saved in shards of 40 kB (a dozen or more shards and an index)."""
    tiny_hf_model(family).save_pretrained(directory, max_shard_size="40kB")
    return copy_tokenizer(tokenizer_dir, directory)


def copy_tokenizer(tokenizer_dir: Path, directory: Path) -> Path:
    """The build tokenizer's files in Kimi's form (``tiktoken.model`` + ``tokenizer_config.json``)."""
    for name in ("tiktoken.model", "tokenizer_config.json"):
        shutil.copyfile(tokenizer_dir / name, directory / name)
    return directory


def test_reading_shard_by_shard_gives_safetensors_own_tensors_with_one_shard_open(base_tokenizer, tmp_path):
    base = sharded_base(tmp_path / "hf", base_tokenizer.directory, "deepseek_v3")
    files = sorted(base.glob("model-*.safetensors"))
    assert len(files) >= 10 and (base / "model.safetensors.index.json").is_file(), "guard: a many-shard release"
    expected = {name: tensor for file in files for name, tensor in load_file(str(file)).items()}
    shards = HFShards(base)
    opened = set()
    for name in sorted(expected, key=lambda n: shards.file_of[n]):
        assert torch.equal(shards.tensor(name), expected[name]), name
        opened.add(shards._open[0])
    shards.close()
    assert shards._open is None and opened == {file.name for file in files}
    assert {n: tuple(t.shape) for n, t in expected.items()} == shards.shapes
    assert read_hf_tensors(base, names={"model.norm.weight"}).keys() == {"model.norm.weight"}


def test_a_sharded_base_imports_to_the_transformers_logits(base_tokenizer, tmp_path, one_thread):
    base = sharded_base(tmp_path / "hf", base_tokenizer.directory, "deepseek_v3")
    checkpoint = import_base(load_recipe("continued", [], init_from_hf=str(base)), tmp_path / "base")
    tokens_BS = sample_tokens()
    torch.testing.assert_close(megatron_logits(tmp_path / "base", checkpoint, tokens_BS), hf_logits(base, tokens_BS),
                               rtol=0, atol=4e-6)


def test_an_index_naming_a_missing_shard_is_refused_before_anything_is_written(base_tokenizer, tmp_path):
    base = sharded_base(tmp_path / "hf", base_tokenizer.directory)
    victim = sorted(base.glob("model-*.safetensors"))[3]
    victim.unlink()
    with pytest.raises(ConfigError, match=victim.name):
        import_base(load_recipe("continued", [], init_from_hf=str(base)), tmp_path / "base")
    assert not (tmp_path / "base").exists()


CHILD = """
import json, sys
from pathlib import Path
import torch
from codemix.pretrain.configs import load_recipe
from codemix.pretrain.hf.base_import import import_base
import codemix.pretrain.checkpoint, codemix.pretrain.model.gpt, codemix.pretrain.parallel

def status(key):
    line = next(l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith(key))
    return int(line.split()[1]) * 1024

torch.set_num_threads(1)
recipe = load_recipe("continued", [], init_from_hf=sys.argv[1])
before = status("VmRSS:")
import_base(recipe, sys.argv[2])
print(json.dumps({"before": before, "peak": status("VmHWM:")}))
"""
# What the import needs whatever the model's size: megatron's Python objects for the meta model, torch
# distributed checkpoint's plan, allocator slack: the whole import grew by 28 MB on this model.
FIXED_OVERHEAD = 48 * MB
SHARD_MULTIPLE = 8  # one shard mapped, its largest tensor copied out, that tensor in fp32, a view's copy


def many_shard_base(directory: Path, tokenizer_dir: Path) -> list[int]:
    """A bf16 Qwen3-MoE (8 layers, 16 experts) saved by transformers in 2 MB shards; returns the shard sizes."""
    import transformers

    config = transformers.Qwen3MoeConfig(
        vocab_size=4096, hidden_size=256, intermediate_size=512, num_hidden_layers=8, num_attention_heads=4,
        num_key_value_heads=2, head_dim=64, moe_intermediate_size=256, num_experts=16, num_experts_per_tok=2,
        max_position_embeddings=256)
    torch.manual_seed(0)
    transformers.Qwen3MoeForCausalLM(config).to(torch.bfloat16).save_pretrained(directory, max_shard_size="2MB")
    copy_tokenizer(tokenizer_dir, directory)
    return [path.stat().st_size for path in directory.glob("model-*.safetensors")]


def test_a_sharded_import_grows_memory_by_a_few_shards_not_by_the_model(base_tokenizer, tmp_path):
    """Peak RSS growth of the import (a fresh process; VmHWM minus RSS before it) stays under a few
    shards plus a fixed overhead on a base whose fp32 copy alone would not fit under that bound."""
    base = tmp_path / "hf"
    sizes = many_shard_base(base, base_tokenizer.directory)
    bound = SHARD_MULTIPLE * max(sizes) + FIXED_OVERHEAD
    assert len(sizes) >= 20 and bound < 2 * sum(sizes), "guard: the fp32 model alone would exceed the bound"
    child = subprocess.run([sys.executable, "-c", CHILD, str(base), str(tmp_path / "base")], capture_output=True,
                           text=True, cwd=REPO, check=False)
    assert child.returncode == 0, child.stderr[-2000:]
    rss = json.loads(child.stdout.strip().splitlines()[-1])
    grown = rss["peak"] - rss["before"]
    assert grown < bound, (f"{grown / MB:.0f} MB grown, bound {bound / MB:.0f} MB "
                           f"({len(sizes)} shards, {sum(sizes) / MB:.0f} MB, largest {max(sizes) / MB:.1f} MB)")
    assert (tmp_path / "base" / "checkpoints" / "latest").is_file()


HANDOFF_CHILD = """
import json, sys
from pathlib import Path
import torch
from codemix.pretrain.hf.handoff import handoff
import codemix.pretrain.checkpoint, codemix.pretrain.model.gpt, codemix.pretrain.parallel, codemix.pretrain.hf.export

def status(key):
    line = next(l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith(key))
    return int(line.split()[1]) * 1024

torch.set_num_threads(1)
before = status("VmRSS:")
handoff(sys.argv[1], sys.argv[2], error_check="never")  # the error check loads the model: measured apart
print(json.dumps({"before": before, "peak": status("VmHWM:")}))
"""


def test_a_sharded_base_is_handed_off_streamed_in_its_own_shard_size(base_tokenizer, tmp_path, one_thread):
    """The hand-off of a many-shard bf16 base (imported, untrained) grows memory by a few shards, not
    by the model, writes shards no larger than the base's with an index, and holds the base's tensors
    bit for bit (bf16 -> fp32 -> bf16 is exact), as safetensors and transformers read them."""
    base = tmp_path / "hf"
    sizes = many_shard_base(base, base_tokenizer.directory)
    import_base(load_recipe("continued", [], init_from_hf=str(base)), tmp_path / "base")
    bound = SHARD_MULTIPLE * max(sizes) + FIXED_OVERHEAD
    assert len(sizes) >= 20 and bound < 2 * sum(sizes), "guard: the fp32 model alone would exceed the bound"
    child = subprocess.run([sys.executable, "-c", HANDOFF_CHILD, str(tmp_path / "base"), str(tmp_path / "bundle")],
                           capture_output=True, text=True, cwd=REPO, check=False)
    assert child.returncode == 0, child.stderr[-2000:]
    rss = json.loads(child.stdout.strip().splitlines()[-1])
    assert rss["peak"] - rss["before"] < bound, f"{(rss['peak'] - rss['before']) / MB:.0f} MB grown"
    hf = tmp_path / "bundle" / "hf"
    shards = sorted(hf.glob("model-*-of-*.safetensors"))
    index = json.loads((hf / "model.safetensors.index.json").read_text())
    assert len(shards) >= 10 and set(index["weight_map"].values()) == {p.name for p in shards}
    assert max(p.stat().st_size for p in shards) <= max(sizes) + 4096  # a header's worth over the tensors
    original = {n: t for f in base.glob("model-*.safetensors") for n, t in load_file(str(f)).items()}
    exported = {n: t for f in shards for n, t in load_file(str(f)).items()}
    assert exported.keys() == original.keys()
    assert all(exported[n].dtype == torch.bfloat16 and torch.equal(exported[n], original[n]) for n in original)
    from transformers import AutoModelForCausalLM

    _model, info = AutoModelForCausalLM.from_pretrained(hf, output_loading_info=True)
    assert not info["missing_keys"] and not info["unexpected_keys"]


def test_chunks_of_a_stacked_expert_key_read_as_megatron_core_reads_the_whole_key(base_tokenizer, tmp_path, runtime):
    """The hand-off reads only the chunks it asks for (``CheckpointChunks``); megatron-core's own load,
    asked for every chunk of a layer's stacked routed experts, is the reference: one stored chunk, a
    column half of one (not one byte range: loaded and copied) and the whole key across all its stored
    chunks come out equal to the reference's slices."""
    from megatron.core import dist_checkpointing
    from megatron.core.dist_checkpointing.mapping import ShardedTensor

    from codemix.pretrain.hf.export import CheckpointChunks

    import_base(load_recipe("continued", [], init_from_hf=str(sharded_base(tmp_path / "hf", base_tokenizer.directory))),
                tmp_path / "base")
    checkpoint = next((tmp_path / "base" / "checkpoints").glob("step_*"))
    chunks = CheckpointChunks(checkpoint)
    key, stored = next((k, v) for k, v in chunks.metadata.state_dict_metadata.items()
                       if "experts" in k and k.endswith("linear_fc1.weight") and len(getattr(v, "chunks", [])) > 2)

    def entry(offsets, sizes):
        return ShardedTensor(key=key, data=torch.empty(sizes, dtype=torch.float32), dtype=torch.float32,
                             local_shape=tuple(sizes), global_shape=tuple(stored.size), global_offset=tuple(offsets),
                             axis_fragmentations=None)

    whole_request = {f"c{k}": entry(c.offsets, c.sizes) for k, c in enumerate(stored.chunks)}
    reference = torch.zeros(tuple(stored.size))
    loaded = dist_checkpointing.load(whole_request, str(checkpoint), validate_access_integrity=False)
    for k, chunk in enumerate(stored.chunks):
        tensor = loaded[f"c{k}"]
        reference[tuple(slice(o, o + s) for o, s in zip(chunk.offsets, chunk.sizes))] = tensor
    assert reference.abs().sum() > 0
    one = stored.chunks[3]
    half = (*one.sizes[:-1], one.sizes[-1] // 2)
    got = chunks.load({"one": entry(one.offsets, one.sizes), "half": entry(one.offsets, half),
                       "whole": entry((0,) * len(stored.size), stored.size)})
    assert torch.equal(got["one"], reference[tuple(slice(o, o + s) for o, s in zip(one.offsets, one.sizes))])
    assert torch.equal(got["half"], reference[tuple(slice(o, o + s) for o, s in zip(one.offsets, half))])
    assert torch.equal(got["whole"], reference)
    with pytest.raises(KeyError, match="no tensor"):
        chunks.load({"missing": replace(entry(one.offsets, one.sizes), key="decoder.nothing.weight")})
