"""The RL hand-off bundle of the tiny short -> long -> sft chain, read the way an RL stack reads it:
``transformers`` loads it as the class with exactly the trained structure (Qwen2-MoE: gated shared
expert, q/k/v biases), computes the trained model's logits and generates; ``AutoTokenizer`` gives the
training ids on over 1 MB of real code, special tokens and the SFT chat template included; the
bundle holds the distributed checkpoint, lineage back through every stage, and the eval figures."""

from __future__ import annotations

import collections
import glob
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import torch
from safetensors.torch import load_file

from codemix.document import Document
from codemix.mixtures.blend import with_found_prefixes
from codemix.mixtures.inspect import read_manifest
from codemix.mixtures.sft import SFTConfig, clean_turns, sft_samples
from codemix.mixtures.tokenizer import load_tokenizer
from codemix.pretrain.checkpoint import load_checkpoint
from codemix.pretrain.configs import load_recipe
from codemix.pretrain.data.pretraining import read_documents
from codemix.pretrain.evaluate import read_eval_texts
from codemix.pretrain.hf.convert import Layout, hf_to_megatron, join_qkv, split_qkv
from codemix.pretrain.hf.handoff import chat_template_jinja, handoff
from codemix.pretrain.loop import causal_mask
from codemix.pretrain.model.gpt import PositionSetup, build_model
from tests.conftest import committed

from .conftest import SFT_LENGTH, SPECIALS


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


@pytest.fixture(scope="module")
def hf_tokenizer(bundle):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(bundle / "hf")


def test_qkv_split_inverts_megatrons_grouped_layout():
    layout = Layout(family="qwen2_moe", num_layers=1, num_heads=8, num_query_groups=2, head_dim=3, num_experts=1,
                    dense_layers=frozenset())
    qkv = torch.arange(2 * (4 + 2) * 3 * 5, dtype=torch.float32).reshape(-1, 5)
    q, k, v = split_qkv(qkv, layout)
    assert q.shape == (8 * 3, 5) and k.shape == v.shape == (2 * 3, 5)
    assert torch.equal(k[:3], qkv[4 * 3:5 * 3]) and torch.equal(v[3:], qkv[-3:])  # group 0's key, group 1's value
    assert torch.equal(join_qkv(q, k, v, layout), qkv)
    bias = torch.arange(2 * (4 + 2) * 3, dtype=torch.float32)
    assert torch.equal(join_qkv(*split_qkv(bias, layout), layout), bias)


def test_transformers_loads_the_bundle_as_qwen2_moe_with_every_tensor(bundle):
    from transformers import AutoModelForCausalLM

    model, info = AutoModelForCausalLM.from_pretrained(bundle / "hf", dtype=torch.float32, output_loading_info=True)
    assert type(model).__name__ == "Qwen2MoeForCausalLM"
    assert not any(info[key] for key in ("missing_keys", "unexpected_keys", "mismatched_keys")), info
    exported = load_file(str(bundle / "hf" / "model.safetensors"))
    assert "model.layers.1.mlp.shared_expert_gate.weight" in exported and "model.layers.0.self_attn.q_proj.bias" in exported


def test_bundle_weights_map_back_to_every_trained_tensor(bundle, trained):
    exported = load_file(str(bundle / "hf" / "model.safetensors"))
    back = hf_to_megatron(exported, Layout.of(load_recipe("tiny")))
    expected = {k: v for k, v in trained.state_dict().items() if isinstance(v, torch.Tensor)}
    assert set(back) == set(expected)
    for name, tensor in expected.items():
        assert torch.equal(back[name], tensor), name


def test_transformers_computes_the_trained_logits_and_generates(bundle, trained):
    """YaRN included: the sft run inherits the long stage's RoPE scaling."""
    from transformers import AutoModelForCausalLM

    config = json.loads((bundle / "hf" / "config.json").read_text())
    assert config["rope_scaling"]["rope_type"] == "yarn", "guard: the YaRN path is the one compared"
    model = AutoModelForCausalLM.from_pretrained(bundle / "hf", dtype=torch.float32).eval()
    tokens_S = torch.randint(0, 1000, (96,), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        expected_SV = trained(tokens_S[None], torch.arange(96)[None], causal_mask(96))[0].float()
        actual_SV = model(tokens_S[None]).logits[0].float()
    torch.testing.assert_close(actual_SV, expected_SV, rtol=0, atol=1e-4)
    generated = model.generate(tokens_S[None, :32], max_new_tokens=6, do_sample=False)
    assert generated.shape == (1, 38) and int(generated[0, 32]) == int(expected_SV[31].argmax())


def kept_texts(build: Path, sources: set[str]) -> list[str]:
    rows = [row for path in sorted(glob.glob(str(committed(build, "dedup") / "docs*.parquet")))
            for row in pq.read_table(path).to_pylist()]
    return [row["text"] for row in rows if row["source"] in sources]


def shard_documents(build: Path, stage: str) -> collections.Counter:
    manifest = read_manifest(str(build))
    return collections.Counter(tuple(int(i) for i in doc) for prefix in manifest["stages"][stage]["data_path"][1::2]
                               for doc in read_documents(prefix))


@pytest.fixture(scope="module")
def code_shards(build_dir) -> tuple[list[str], collections.Counter]:
    """The kept code documents and the short stage's shard documents (over 1 MB of code)."""
    texts = kept_texts(build_dir, {"code", "more"})
    assert sum(len(text.encode()) for text in texts) > 1_000_000, "guard: over 1 MB of real code"
    return texts, shard_documents(build_dir, "short")


def test_shards_hold_tiktokens_ids_for_over_a_megabyte_of_code(code_shards, base_tokenizer):
    """The build tokenized with the tiktoken-form tokenizer: every code document of the short stage is
    ``tiktoken``'s own encoding of a kept document, followed by EOD, and at least 1 MB of them are."""
    texts, shards = code_shards
    encoding, eod = base_tokenizer.encoding(), base_tokenizer.specials["<|endoftext|>"]
    reference = {tuple(ids) + (eod,): len(text.encode()) for text, ids in zip(texts, encoding.encode_ordinary_batch(texts))}
    matched = [doc for doc in shards if doc in reference]
    assert sum(reference[doc] for doc in matched) > 1_000_000
    transcripts = [doc for doc in shards if doc not in reference]
    im_start = base_tokenizer.specials["<|im_start|>"]
    assert all(im_start in doc for doc in transcripts), "only transcripts (ChatML) are not code documents"


def test_bundle_tokenizer_gives_the_training_ids_on_over_a_megabyte_of_code(code_shards, hf_tokenizer):
    """``AutoTokenizer.from_pretrained(bundle)`` reads code as the build did (special-token look-alikes
    in code stay text: ``split_special_tokens``), and the EOS it names is the build's EOD."""
    texts, shards = code_shards
    encoded = hf_tokenizer(texts, add_special_tokens=False, split_special_tokens=True)["input_ids"]
    eod = hf_tokenizer.convert_tokens_to_ids("<|endoftext|>")
    assert hf_tokenizer.eos_token == "<|endoftext|>" and hf_tokenizer.pad_token == "<|pad|>"
    ours = {tuple(ids) + (eod,): len(text.encode()) for text, ids in zip(texts, encoded)}
    assert sum(ours[doc] for doc in shards if doc in ours) > 1_000_000


def test_bundle_tokenizer_reads_special_tokens_as_the_base_tokenizer(hf_tokenizer, base_tokenizer):
    text = "<|im_start|>user\nfix the <|pad|> bug<|im_end|>\n<|endoftext|>def f():\n\treturn 1<|im_end|>"
    expected = base_tokenizer.encoding().encode(text, allowed_special="all")
    assert hf_tokenizer(text, add_special_tokens=False)["input_ids"] == expected
    assert sum(i in base_tokenizer.specials.values() for i in expected) == 5, "guard: the specials are single ids"
    assert set(hf_tokenizer.all_special_tokens) >= {"<|endoftext|>", "<|pad|>"}
    assert set(hf_tokenizer.get_added_vocab()) == set(SPECIALS)


def transcript_documents(build: Path) -> list[Document]:
    rows = [row for path in sorted(glob.glob(str(committed(build, "dedup") / "docs*.parquet")))
            for row in pq.read_table(path).to_pylist() if row["source"] == "runs"]
    return [Document.from_row(row) for row in rows]


def test_chat_template_renders_sft_samples_to_their_training_ids(bundle, build_dir, hf_tokenizer):
    """Every SFT sample that starts a transcript, as the build wrote it to the sft shards, equals
    ``apply_chat_template`` of its messages with the bundle's tokenizer. The transcript with tool calls
    has a round longer than the build's 2048 tokens, so it is checked whole, through the same
    ``mixtures.sft.sft_samples`` the build runs."""
    tokenizer, config = load_tokenizer(str(build_dir / "tokenizer.json")), SFTConfig()
    shards = shard_documents(build_dir, "sft")
    from_shards = with_tool_calls = 0
    for doc in transcript_documents(build_dir):
        messages = clean_turns(doc.metadata["messages"], config, doc.metadata.get("tools") or ())[0]
        for length in (SFT_LENGTH, 1 << 16):
            for sample in sft_samples(doc, tokenizer, length, config)[0]:
                in_shards = tuple(int(i) for i in sample.tokens) in shards
                if sample.is_continuation or (length == SFT_LENGTH) != in_shards:
                    continue
                turns = messages[sample.turns[0]:sample.turns[1]]
                rendered = hf_tokenizer.apply_chat_template(turns, tokenize=True, return_dict=False)
                assert list(rendered) == [int(i) for i in sample.tokens]
                from_shards += in_shards
                with_tool_calls += any(m["tool_calls"] for m in turns)
    assert from_shards >= 2 and with_tool_calls >= 1, "guard: real samples, tool calls among them, were compared"
    prompt = hf_tokenizer.apply_chat_template([{"role": "user", "content": "hi"}], add_generation_prompt=True,
                                              tokenize=False)
    assert prompt == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"


def test_chat_template_comes_from_the_sft_template_and_openai_tool_calls_render_alike(hf_tokenizer):
    from codemix.mixtures.chat import ChatTemplate

    assert hf_tokenizer.chat_template == chat_template_jinja(ChatTemplate())
    canonical = [{"role": "assistant", "content": "ok", "tool_calls": [{"id": "1", "name": "bash",
                                                                         "arguments": {"command": "ls -la"}}]}]
    openai = [{"role": "assistant", "content": "ok", "tool_calls": [
        {"id": "1", "type": "function", "function": {"name": "bash", "arguments": {"command": "ls -la"}}}]}]
    rendered = hf_tokenizer.apply_chat_template(canonical, tokenize=False)
    assert rendered == hf_tokenizer.apply_chat_template(openai, tokenize=False)
    assert rendered == '<|im_start|>assistant\nok\n<tool_call>{"name": "bash", "arguments": {"command": "ls -la"}}' \
                       "</tool_call><|im_end|>\n"


def test_chat_template_renders_every_message_shape_as_training_does(hf_tokenizer):
    """Reasoning, arguments as emitted text (verbatim when an object, a JSON string otherwise), as
    objects, unicode and quotes: the template's text is ``mixtures.chat``'s, which SFT trains on."""
    from codemix.mixtures.chat import render_messages

    messages = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": 'héllo 😀 "q" \\n'},
        {"role": "assistant", "content": "ok", "reasoning": "first, look", "tool_calls": [
            {"id": "1", "name": "bash", "arguments": '{"command":  "ls"}', "kind": "function"},
            {"id": "2", "name": "edit", "arguments": {"path": "a.py", "lines": [1, 2]}},
            {"id": "3", "name": "note", "arguments": "free text", "kind": "function"}]},
        {"role": "tool", "content": "out", "tool_call_id": "1"},
    ]
    canonical = [{"tool_calls": [], "reasoning": "", **m} for m in messages]
    assert hf_tokenizer.apply_chat_template(messages, tokenize=False) == render_messages(canonical)


def test_bundle_traces_the_data_through_every_stage(bundle, build_dir, short_run, long_run, sft_run):
    lineage = json.loads((bundle / "lineage.json").read_text())
    stages = lineage["stages"]
    assert [s["stage"] for s in stages] == ["short", "long", "sft"]
    assert [s["init_from"] for s in stages] == [None, short_run.checkpoint, long_run.checkpoint]
    for stage, summary in zip(stages, (short_run, long_run, sft_run)):
        manifest = with_found_prefixes(json.loads((bundle / stage["manifest"]).read_text()), str(build_dir))
        assert stage["spec_hash"] == manifest["spec_hash"] == lineage["spec_hashes"][0]
        assert stage["data_path"] == manifest["stages"][stage["stage"]]["data_path"]
        assert stage["tokens_seen"] == summary.state.tokens_seen > 0
        assert sum(stage["tokens_per_source"].values()) == stage["tokens_seen"]
        assert set(stage["tokens_per_source"]) <= set(stage["build_tokens_per_source"])


def test_bundle_holds_checkpoint_eval_and_routing_replay_flag(bundle, sft_run):
    summary = json.loads((bundle / "handoff.json").read_text())
    assert summary["moe_enable_routing_replay"] is False and summary["step"] == sft_run.state.step
    assert summary["architecture"] == "Qwen2MoeForCausalLM" and summary["chat_template_source"] == "manifest"
    assert (bundle / "checkpoint" / "metadata.json").is_file()
    evals = json.loads((bundle / "eval.json").read_text())
    assert [row["eval_set"] for row in evals] == ["heldout"] and evals[0]["step"] == sft_run.state.step
    assert summary["eval"]["heldout"]["bits_per_byte"] == evals[0]["bits_per_byte"] > 0

