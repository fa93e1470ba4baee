"""SFT samples from real agent transcripts: lossless rendering, exact loss masks, splitting, cleaning."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import sysconfig
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from megatron.core.datasets.indexed_dataset import IndexedDataset
from tokenizers import Tokenizer

from codemix.config import ConfigError, load_config
from codemix.document import Document
from codemix.sources import SourceConfig
from mixtures.chat import render_messages
from mixtures.indexed_dataset import dtype_for_vocab
from mixtures.sft import (
    SFTConfig,
    clean_turns,
    extractive_summary,
    loss_mask_prefix,
    outcome_drop_reason,
    preamble_indices,
    render_segments,
    sft_samples,
    tokenize_turns,
    write_sft_shard,
)
from mixtures.tokenizer import train_bpe
from pipelines.readers import read_location

REAL_FILES = ["mini-swe-agent/local.traj.json", "mini-swe-agent/github_issue.traj.json",
              "swe-agent/function_calling_simple.traj"]
ANY_OUTCOME = SFTConfig(outcome_policy="any")
WHOLE = 1 << 16  # a sequence length no real run reaches: one sample per transcript


def message(role: str, content: str = "", calls: list | None = None, call_id: str = "") -> dict:
    return {"role": role, "content": content, "tool_calls": calls or [], "tool_call_id": call_id, "name": ""}


def call(call_id: str, name: str, arguments) -> dict:
    return {"id": call_id, "name": name, "arguments": arguments}


@pytest.fixture(scope="module")
def real_docs(shared_transcripts: Path) -> dict[str, Document]:
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"])
    return {name: next(read_location(source, str(shared_transcripts / name))) for name in REAL_FILES}


@pytest.fixture(scope="module")
def tokenizer(real_docs) -> Tokenizer:
    """A tiny BPE (600 ids) on stdlib code and the transcripts themselves: fast, and every string round-trips."""
    stdlib = [p.read_text(encoding="utf-8") for p in sorted(Path(sysconfig.get_path("stdlib")).glob("json/*.py"))]
    return train_bpe(stdlib + [doc.text for doc in real_docs.values()], vocab_size=600)


def decode(tokenizer: Tokenizer, ids) -> str:
    return tokenizer.decode([int(i) for i in ids], skip_special_tokens=False)


def mask_runs(tokenizer: Tokenizer, ids: np.ndarray, mask: np.ndarray) -> list[tuple[int, str]]:
    """``(mask value, decoded text)`` of each maximal run of equal mask values."""
    edges = [0, *np.flatnonzero(np.diff(mask)) + 1, len(mask)]
    return [(int(mask[a]), decode(tokenizer, ids[a:b])) for a, b in itertools.pairwise(edges)]


def trained_text(msg: dict) -> str:
    """What an assistant turn trains on: content, tool calls and the closing marker (not header, not the newline)."""
    calls = "".join("\n<tool_call>" + json.dumps({"name": c["name"], "arguments": c["arguments"]},
                                                 ensure_ascii=False) + "</tool_call>" for c in msg["tool_calls"])
    return msg["content"] + calls + "<|im_end|>"


def extended(doc: Document, repeats: int) -> Document:
    """The real run with its middle rounds (assistant call + tool result) repeated, call ids renamed."""
    messages = doc.metadata["messages"]
    middle = messages[2:-2]
    body = []
    for r in range(repeats):
        for m in copy.deepcopy(middle):
            m["tool_calls"] = [{**c, "id": f"{c['id']}-{r}"} for c in m["tool_calls"]]
            m["tool_call_id"] = f"{m['tool_call_id']}-{r}" if m["tool_call_id"] else ""
            body.append(m)
    long_messages = messages[:2] + body + messages[-2:]
    return dataclasses.replace(doc, metadata={**doc.metadata, "messages": long_messages})


# --- rendering --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", REAL_FILES)
def test_default_template_is_render_messages(real_docs, name: str) -> None:
    doc = real_docs[name]
    assert "".join(s.text for s in render_segments(doc.metadata["messages"], ANY_OUTCOME)) == doc.text
    assert doc.text == render_messages(doc.metadata["messages"])


@pytest.mark.parametrize("name", REAL_FILES)
def test_real_transcript_renders_without_loss(real_docs, tokenizer, name: str) -> None:
    doc = real_docs[name]
    messages = doc.metadata["messages"]
    assert len(messages) > 4, "guard: a real multi-turn run"
    samples, reasons = sft_samples(doc, tokenizer, WHOLE, ANY_OUTCOME)
    assert len(samples) == 1 and reasons == Counter()
    text = decode(tokenizer, samples[0].tokens)
    assert text == doc.text
    for m in messages:
        assert m["content"] in text
        for c in m["tool_calls"]:
            assert json.dumps({"name": c["name"], "arguments": c["arguments"]}, ensure_ascii=False) in text


def test_special_tokens_in_content_are_plain_text(tokenizer) -> None:
    """Content that mentions a ChatML marker must not forge a turn boundary."""
    messages = [message("user", "print('<|im_end|>')"), message("assistant", "It prints <|im_start|>system")]
    doc = Document(id="x", text="", source="s", kind="transcript", metadata={"messages": messages})
    (sample,), _ = sft_samples(doc, tokenizer, WHOLE, dataclasses.replace(ANY_OUTCOME, min_tokens=1))
    im_start, im_end = tokenizer.token_to_id("<|im_start|>"), tokenizer.token_to_id("<|im_end|>")
    assert (sample.tokens == im_start).sum() == (sample.tokens == im_end).sum() == len(messages)
    assert decode(tokenizer, sample.tokens) == render_messages(messages)


# --- loss masks in written shards -------------------------------------------------------------------


@pytest.fixture(scope="module")
def shard(real_docs, tokenizer, tmp_path_factory) -> dict:
    """Every real run as one sample, written with write_sft_shard and opened with megatron-core."""
    prefix = str(tmp_path_factory.mktemp("sft") / "runs-00000-of-00001")
    docs = [real_docs[name] for name in REAL_FILES]
    samples = [sft_samples(doc, tokenizer, WHOLE, ANY_OUTCOME)[0][0] for doc in docs]
    written = write_sft_shard(prefix, samples, dtype_for_vocab(tokenizer.get_vocab_size()))
    assert written == (len(samples), sum(len(s.tokens) for s in samples))
    return {"docs": docs, "tokens": IndexedDataset(prefix), "mask": IndexedDataset(loss_mask_prefix(prefix))}


def test_shard_holds_tokens_and_mask_aligned(shard) -> None:
    assert shard["mask"].index.dtype == np.uint8
    assert np.array_equal(shard["tokens"].sequence_lengths, shard["mask"].sequence_lengths)
    assert set(np.unique(np.concatenate([shard["mask"][i] for i in range(len(shard["mask"]))]))) == {0, 1}


@pytest.mark.parametrize("index", range(len(REAL_FILES)))
def test_only_assistant_turns_are_trained(shard, tokenizer, index: int) -> None:
    """Decoded run by run: the trained runs are exactly the assistant bodies plus <|im_end|>; system,
    user and tool contents, and every role header, lie in untrained runs."""
    messages = shard["docs"][index].metadata["messages"]
    runs = mask_runs(tokenizer, shard["tokens"][index], shard["mask"][index])
    trained = [text for value, text in runs if value == 1]
    untrained = "\x00".join(text for value, text in runs if value == 0)
    assert trained == [trained_text(m) for m in messages if m["role"] == "assistant"]
    others = [m for m in messages if m["role"] != "assistant" and m["content"]]
    assert {m["role"] for m in others} >= {"system", "user"}, "guard: the run has environment turns"
    for m in others:
        assert m["content"] in untrained
    assert untrained.count("<|im_start|>assistant\n") == len(trained)


def test_tool_output_is_untrained(shard, tokenizer) -> None:
    index = REAL_FILES.index("swe-agent/function_calling_simple.traj")
    tools = [m for m in shard["docs"][index].metadata["messages"] if m["role"] == "tool"]
    assert len(tools) == 5, "guard: the SWE-agent run has tool results"
    trained = "".join(text for value, text in mask_runs(tokenizer, shard["tokens"][index], shard["mask"][index])
                      if value == 1)
    for m in tools:
        assert m["content"].strip() not in trained


# --- long trajectories ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def long_run(real_docs, tokenizer) -> dict:
    doc = extended(real_docs["swe-agent/function_calling_simple.traj"], repeats=12)
    samples, reasons = sft_samples(doc, tokenizer, 3200, ANY_OUTCOME)
    return {"doc": doc, "samples": samples, "reasons": reasons}


def test_long_trajectory_splits_into_samples_within_the_limit(long_run) -> None:
    samples, messages = long_run["samples"], long_run["doc"].metadata["messages"]
    assert len(messages) > 60 and long_run["reasons"] == Counter()
    assert len(samples) >= 2 and all(len(s.tokens) <= 3200 for s in samples)
    assert [s.is_continuation for s in samples] == [False] + [True] * (len(samples) - 1)
    # Together the samples carry every turn once, in order.
    assert samples[0].turns[0] == 0 and samples[-1].turns[1] == len(messages)
    assert all(a.turns[1] == b.turns[0] for a, b in itertools.pairwise(samples))


def test_continuation_starts_with_prompt_task_and_a_trained_summary(long_run, tokenizer) -> None:
    messages = long_run["doc"].metadata["messages"]
    preamble = [tokenize_turns(messages, tokenizer, ANY_OUTCOME)[i] for i in preamble_indices(messages)]
    assert [messages[i]["role"] for i in preamble_indices(messages)] == ["system", "user"]
    second = long_run["samples"][1]
    at = sum(len(ids) for ids, _ in preamble)
    assert np.array_equal(second.tokens[:at], np.concatenate([ids for ids, _ in preamble]))
    assert not second.loss_mask[:at].any(), "system prompt and task are not trained"
    runs = mask_runs(tokenizer, second.tokens[at:], second.loss_mask[at:])
    assert runs[0] == (0, "<|im_start|>assistant\n")
    summary = runs[1]
    assert summary[0] == 1 and summary[1].startswith(ANY_OUTCOME.summary_prefix + "Task: ")
    last_call = next(c for m in reversed(messages[:second.turns[0]]) for c in m["tool_calls"])
    assert summary[1].endswith("<|im_end|>") and f"most recent first:\n- {last_call['name']} " in summary[1]
    assert messages[1]["content"] in decode(tokenizer, second.tokens), "the task is in the sample"


def test_transcripts_own_summary_is_used_when_written_before_the_split(real_docs, tokenizer) -> None:
    doc = extended(real_docs["swe-agent/function_calling_simple.traj"], repeats=12)
    messages = list(doc.metadata["messages"])
    messages.insert(6, message("user", "OWN SUMMARY: the colon is missing in tests/missing_colon.py"))
    doc = dataclasses.replace(doc, metadata={**doc.metadata, "messages": messages, "summary_turns": [6]})
    samples, _ = sft_samples(doc, tokenizer, 3200, ANY_OUTCOME)
    assert samples[1].turns[0] > 6
    trained = [text for value, text in mask_runs(tokenizer, samples[1].tokens, samples[1].loss_mask) if value]
    assert trained[0].startswith(ANY_OUTCOME.summary_prefix + "OWN SUMMARY: the colon")


def test_a_round_longer_than_the_sequence_ends_the_trajectory(real_docs, tokenizer) -> None:
    doc = real_docs["swe-agent/function_calling_simple.traj"]
    samples, reasons = sft_samples(doc, tokenizer, 500, ANY_OUTCOME)
    assert samples == [] and reasons == Counter({"round_exceeds_sequence_length": 1})


def test_samples_with_few_trained_tokens_are_dropped(real_docs, tokenizer) -> None:
    doc = real_docs["mini-swe-agent/local.traj.json"]
    samples, reasons = sft_samples(doc, tokenizer, WHOLE, dataclasses.replace(ANY_OUTCOME, min_tokens=10_000))
    assert samples == [] and reasons == Counter({"sample_too_few_trained_tokens": 1})


# --- summaries --------------------------------------------------------------------------------------


def test_extractive_summary_of_edits_commands_and_tests() -> None:
    messages = [
        message("system", "sys"), message("user", "Fix   the\nparser bug."),
        message("assistant", "", [call("1", "str_replace_editor", {"command": "create", "path": "src/p.py",
                                                                   "file_text": "x"})]),
        message("tool", "created", call_id="1"),
        message("assistant", "", [call("2", "bash", {"command": "sed -i 's/a -> b/c/' src/q.py && pytest"})]),
        message("tool", "=== 1 failed, 2 passed in 0.3s ===", call_id="2"),
        message("assistant", "", [call("3", "bash", {"command": "python -c 'print(1 -> 2)' > out/log.txt"})]),
    ]
    assert extractive_summary(messages).split("\n") == [
        "Task: Fix the parser bug.",
        "Files touched: src/p.py, src/q.py, out/log.txt",
        "Last test run: 1 failed, 2 passed (failed)",
        "Commands run, most recent first:",
        "- python -c 'print(1 -> 2)' > out/log.txt",
        "- sed -i 's/a -> b/c/' src/q.py && pytest",
        "- str_replace_editor create src/p.py x",
    ]


def test_extractive_summary_of_real_mini_swe_agent_run(real_docs) -> None:
    summary = extractive_summary(real_docs["mini-swe-agent/github_issue.traj.json"].metadata["messages"])
    assert "Files touched: tests/missing_colon.py\n" in summary
    assert "- python3 tests/missing_colon.py" in summary


# --- cleaning and outcomes --------------------------------------------------------------------------

GOOD = [message("assistant", "look", [call("c1", "bash", {"command": "ls"})]), message("tool", "a.py", call_id="c1")]
BAD_CALLS = {
    "malformed_tool_call_unknown_tool": call("c2", "rm_everything", {"path": "/"}),
    "malformed_tool_call_arguments": call("c2", "bash", '{"command": "ls"'),
}


@pytest.mark.parametrize("reason", sorted(BAD_CALLS))
def test_malformed_tool_calls_are_dropped_with_their_results(reason: str) -> None:
    bad = [message("assistant", "oops", [BAD_CALLS[reason]]), message("tool", "error: no such tool", call_id="c2")]
    messages = [message("system", "s"), message("user", "task"), *GOOD, *bad, message("assistant", "done")]
    kept, reasons = clean_turns(messages, SFTConfig(known_tools=["bash"]))
    assert kept == [messages[i] for i in (0, 1, 2, 3, 6)]
    assert reasons == Counter({reason: 1, "tool_result_of_malformed_call": 1})


def test_declared_tools_apply_when_none_are_configured() -> None:
    messages = [message("user", "t"), message("assistant", "", [BAD_CALLS["malformed_tool_call_unknown_tool"]])]
    assert clean_turns(messages, SFTConfig())[1] == Counter()  # nothing declared: any name
    assert clean_turns(messages, SFTConfig(), ["bash"])[1] == Counter({"malformed_tool_call_unknown_tool": 1})


def test_broken_json_arguments_from_the_reader_are_counted(tmp_path: Path, tokenizer) -> None:
    broken = {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls'}}
    transcript = {"messages": [{"role": "user", "content": "list the files please"},
                               {"role": "assistant", "content": None, "tool_calls": [broken]},
                               {"role": "tool", "tool_call_id": "c1", "content": "parse error"},
                               {"role": "assistant", "content": "The directory listing could not be produced."}]}
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(transcript) + "\n")
    doc = next(read_location(SourceConfig(name="runs", type="transcripts", paths=["unused"]), str(path)))
    samples, reasons = sft_samples(doc, tokenizer, WHOLE, dataclasses.replace(ANY_OUTCOME, min_tokens=1))
    assert reasons == Counter({"malformed_tool_call_arguments": 1, "tool_result_of_malformed_call": 1})
    assert samples[0].turns == (0, 2) and "parse error" not in decode(tokenizer, samples[0].tokens)


@pytest.mark.parametrize(("policy", "facts", "reason"), [
    ("submitted", {"submitted": True}, None),
    ("submitted", {"submitted": False}, "outcome_not_submitted"),
    ("submitted", {}, "outcome_unknown"),
    ("exit_ok", {"exit_status": "Submitted"}, None),
    ("exit_ok", {"exit_status": "submitted (exit_cost)"}, "outcome_exit_not_ok"),
    ("exit_ok", {"submitted": True}, "outcome_unknown"),
    ("tests_passed", {"tests_passed": True}, None),
    ("tests_passed", {"tests_passed": False}, "outcome_tests_failed"),
    ("any", {}, None),
])
def test_outcome_policy(policy: str, facts: dict, reason: str | None) -> None:
    doc = Document(id="x", text="", source="s", kind="transcript", metadata=facts)
    assert outcome_drop_reason(doc, SFTConfig(outcome_policy=policy)) == reason


def test_unknown_outcome_can_be_kept() -> None:
    doc = Document(id="x", text="", source="s", kind="transcript", metadata={})
    assert outcome_drop_reason(doc, SFTConfig(unknown_outcome="keep")) is None


def test_unsubmitted_run_yields_no_samples(real_docs, tokenizer) -> None:
    doc = real_docs["swe-agent/function_calling_simple.traj"]
    assert sft_samples(doc, tokenizer, WHOLE, SFTConfig())[0], "guard: the real run is submitted"
    unsubmitted = dataclasses.replace(doc, metadata={**doc.metadata, "submitted": False})
    assert sft_samples(unsubmitted, tokenizer, WHOLE, SFTConfig()) == ([], Counter({"outcome_not_submitted": 1}))


# --- config -----------------------------------------------------------------------------------------


def test_config_loads_from_yaml_values() -> None:
    config = load_config(SFTConfig, {"outcome_policy": "exit_ok", "known_tools": ["bash"],
                                     "template": {"tool_call": "<call>{json}</call>"}})
    assert (config.outcome_policy, config.template.tool_call, config.template.turn_end) == (
        "exit_ok", "<call>{json}</call>", "<|im_end|>")


@pytest.mark.parametrize(("data", "field"), [
    ({"template": {"tool_call": "no placeholder"}}, "sft.template.tool_call"),
    ({"min_turns": 5, "max_turns": 2}, "sft.max_turns"),
    ({"outcome_policy": "resolved"}, "sft.outcome_policy"),
])
def test_config_errors_name_the_field(data: dict, field: str) -> None:
    with pytest.raises(ConfigError) as error:
        load_config(SFTConfig, data, "sft")
    assert error.value.field_path == field


def test_every_shared_transcript_renders_the_same_for_pretraining_and_sft(shared_transcripts: Path) -> None:
    """One chat template: the reader's document text is exactly the SFT segments of its messages joined."""
    files = sorted(p for p in shared_transcripts.rglob("*") if p.is_file() and p.name != "README.md")
    assert len(files) >= 3, "guard: the real transcripts are there"
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"])
    for path in files:
        (doc,) = read_location(source, str(path))
        assert isinstance(doc, Document) and len(doc.metadata["messages"]) > 4, path
        assert "".join(s.text for s in render_segments(doc.metadata["messages"], ANY_OUTCOME)) == doc.text, path


def test_sample_ids_are_the_ids_of_the_rendered_text(real_docs) -> None:
    """What the model trains on is what a served model reads: the chat template's text tokenized as one
    string (split only at the template's special tokens). With a realistic vocabulary a merge such as
    ``>{`` spans the tool-call wrapper and its JSON, which segment-by-segment encoding would cut."""
    stdlib = [p.read_text(encoding="utf-8") for p in sorted(Path(sysconfig.get_path("stdlib")).glob("*.py"))[:60]]
    big = train_bpe(stdlib + [doc.text for doc in real_docs.values()], vocab_size=8_000)
    spans_a_boundary = 0
    for doc in real_docs.values():
        messages = clean_turns(doc.metadata["messages"], ANY_OUTCOME, doc.metadata.get("tools") or ())[0]
        ids = np.concatenate([part for part, _ in tokenize_turns(messages, big, ANY_OUTCOME)]).tolist()
        assert ids == big.encode(render_messages(messages), add_special_tokens=False).ids
        segments = render_segments(messages, ANY_OUTCOME)
        cut = [i for s in segments for i in big.encode(s.text, add_special_tokens=False).ids]
        spans_a_boundary += cut != ids
    assert spans_a_boundary >= 1, "guard: a merge across a segment boundary occurs in these transcripts"
