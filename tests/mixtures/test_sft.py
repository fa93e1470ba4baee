"""SFT samples from real agent transcripts: lossless rendering, exact loss masks, splitting, cleaning."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import re
import sysconfig
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from megatron.core.datasets.indexed_dataset import IndexedDataset
from tokenizers import Tokenizer

from codemix.config import ConfigError, load_config
from codemix.document import Document
from codemix.mixtures.chat import render_messages
from codemix.mixtures.indexed_dataset import dtype_for_vocab
from codemix.mixtures.sft import (
    SFTConfig,
    clean_turns,
    masked_calls,
    outcome_drop_reason,
    preamble_indices,
    sft_samples,
    summary_origins,
)
from codemix.mixtures.sft_shards import loss_mask_prefix, write_sft_shard
from codemix.mixtures.sft_summaries import extractive_summary
from codemix.mixtures.sft_tokens import render_segments, tokenize_turns
from codemix.mixtures.tokenizer import train_bpe
from codemix.pipelines.readers import read_location
from codemix.sources import TRANSCRIPT_FORMATS, SourceConfig

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


def call_json(c: dict) -> str:
    """A call as the template writes it: the model's own argument text when it is a JSON object."""
    arguments = c["arguments"] if isinstance(c["arguments"], str) else json.dumps(c["arguments"], ensure_ascii=False)
    return f'{{"name": {json.dumps(c["name"], ensure_ascii=False)}, "arguments": {arguments}}}'


def trained_text(msg: dict) -> str:
    """What an assistant turn trains on: content, tool calls and the closing marker (not header, not the newline)."""
    calls = "".join("\n<tool_call>" + call_json(c) + "</tool_call>" for c in msg["tool_calls"])
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
            assert call_json(c) in text


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


def test_a_run_of_more_messages_than_max_turns_is_split_not_dropped(long_run, tokenizer) -> None:
    """A run longer than ``max_turns`` messages (the round-18 dev corpus's IDE trajectory, 1,139 messages, was
    dropped whole as ``too_many_turns``) continues in the next sample: no sample holds more than ``max_turns``
    messages of the run, and together they carry every turn once."""
    doc, messages = long_run["doc"], long_run["doc"].metadata["messages"]
    config = dataclasses.replace(ANY_OUTCOME, max_turns=20)
    assert len(messages) > 3 * config.max_turns
    samples, reasons = sft_samples(doc, tokenizer, 100_000, config)
    assert reasons == Counter() and len(samples) >= 3
    assert all(s.turns[1] - s.turns[0] <= config.max_turns for s in samples)
    assert samples[0].turns[0] == 0 and samples[-1].turns[1] == len(messages)
    assert all(a.turns[1] == b.turns[0] for a, b in itertools.pairwise(samples))


def test_a_templated_summary_is_context_unless_configured(long_run, tokenizer) -> None:
    """The summary codemix writes for a length split is masked by default (the model is not taught to
    write our heuristic's summaries); ``templated_summary: trained`` trains it."""
    masked = long_run["samples"][1]
    assert masked.summary == "templated"
    trained, _ = sft_samples(long_run["doc"], tokenizer, 3200, dataclasses.replace(ANY_OUTCOME,
                                                                                 templated_summary="trained"))
    assert np.array_equal(trained[1].tokens, masked.tokens)
    summary_turn = next(m for m in masked.messages if m["content"].startswith(ANY_OUTCOME.summary_prefix))
    assert summary_turn["observation"] and int(trained[1].loss_mask.sum()) > int(masked.loss_mask.sum())
    runs = [text for value, text in mask_runs(tokenizer, masked.tokens, masked.loss_mask) if value]
    assert not any(text.startswith(ANY_OUTCOME.summary_prefix) for text in runs)


def test_continuation_starts_with_prompt_task_and_a_trained_summary(long_run, tokenizer) -> None:
    """With ``templated_summary: trained``, a continuation opens with the system prompt and task (masked),
    then the summary (trained)."""
    doc = long_run["doc"]
    samples, _ = sft_samples(doc, tokenizer, 3200, dataclasses.replace(ANY_OUTCOME, templated_summary="trained"))
    long_run = {"doc": doc, "samples": samples}
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


def test_a_real_summary_opens_a_length_split_after_its_compaction(real_docs, tokenizer) -> None:
    """A split inside the part after a compaction builds on the model's summary: it comes first, then
    what happened since (origin "real")."""
    doc = extended(real_docs["swe-agent/function_calling_simple.traj"], repeats=12)
    messages = list(doc.metadata["messages"])
    summary = "the colon is missing in tests/missing_colon.py"
    messages.insert(6, {**message("user", "REAL SUMMARY: " + summary), "observation": True})
    record = {"at": 6, "origin": "codex", "summary_message": True, "trim": [len("REAL SUMMARY: "), 0]}
    doc = dataclasses.replace(doc, metadata={**doc.metadata, "messages": messages, "compactions": [record]})
    samples, _ = sft_samples(doc, tokenizer, 3200, ANY_OUTCOME)
    assert samples[0].turns == (0, 6) and samples[1].turns[0] == 7, "the compaction is a boundary"
    assert [s.summary for s in samples] == ["", *["real"] * (len(samples) - 1)]
    for sample in samples[1:]:
        trained = [text for value, text in mask_runs(tokenizer, sample.tokens, sample.loss_mask) if value]
        assert trained[0].startswith(ANY_OUTCOME.summary_prefix + summary)
    assert all("REAL SUMMARY" not in decode(tokenizer, s.tokens) for s in samples), "replaced, not repeated"


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


def test_a_described_call_is_no_unknown_tool() -> None:
    described = {"id": "", "name": "Viewed", "arguments": "[a.py](file:///a.py)", "kind": "described"}
    messages = [message("user", "t"), message("assistant", "", [described]), message("assistant", "done")]
    assert clean_turns(messages, SFTConfig(known_tools=["bash"])) == (messages, Counter())


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


def test_calls_an_export_describes_are_shown_not_trained_nor_dropped(tokenizer) -> None:
    """Windsurf's Cascade export writes each action as an italic line in its own words (``*Viewed [file](...) *``,
    tests/fixtures/transcript_inputs/README.md): no arguments the model emitted, so the calls are described. They
    are no malformed calls (the turns around them stay, nothing is dropped), they are shown to the model as context
    and never trained, and SFT counts them by reason."""
    path = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs" / "olaf.windsurf-cascade-conversation.lines-1-60.md"
    actions = re.findall(r"^\*([A-Z][a-z]+ed)\b[^*\n]*\*[ \t]*$", path.read_text(), re.MULTILINE)
    assert len(actions) >= 5, "guard: the export's action lines"
    doc = next(read_location(SourceConfig(name="runs", type="transcripts", paths=["unused"]), str(path)))
    samples, reasons = sft_samples(doc, tokenizer, WHOLE, dataclasses.replace(ANY_OUTCOME, min_tokens=1))
    assert reasons == Counter() and len(samples) == 1
    assert masked_calls(doc.metadata["messages"]) == Counter({"tool_call_described": len(actions)})
    trained = decode(tokenizer, samples[0].tokens[samples[0].loss_mask.astype(bool)])
    shown = decode(tokenizer, samples[0].tokens)
    assert "Existing Analysis Found" in trained  # the model's own words
    assert all(f'"name": "{a}"' in shown for a in actions) and not any(f'"name": "{a}"' in trained for a in actions)


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
    ({"outcome_policy": "merged"}, "sft.outcome_policy"),
    ({"reasoning": "hidden"}, "sft.reasoning"),
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


# --- every format: masks checked by re-tokenizing each message on its own ---------------------------

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
FIXTURE_FILES = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.name != "README.md")


@pytest.fixture(scope="module")
def fixture_docs() -> list[Document]:
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"])
    return [doc for path in FIXTURE_FILES for doc in read_location(source, str(path)) if isinstance(doc, Document)]


@pytest.fixture(scope="module")
def fixture_tokenizer(fixture_docs) -> Tokenizer:
    stdlib = [p.read_text(encoding="utf-8") for p in sorted(Path(sysconfig.get_path("stdlib")).glob("json/*.py"))]
    return train_bpe(stdlib + [doc.text for doc in fixture_docs], vocab_size=800)


def expected_turn(m: dict, reasoning: str) -> tuple[str, str, str]:
    """``(header, body, tail)`` of one message as ChatML, written out here, not by the code under test:
    header ``<|im_start|>role\\n``, body the thinking block, content and calls, tail ``<|im_end|>\\n``."""
    think = f"<think>\n{m['reasoning']}\n</think>\n" if m["reasoning"] and reasoning != "dropped" else ""
    calls = "".join("\n<tool_call>" + call_json(c) + "</tool_call>" if c["kind"] == "function" else
                    "\n<tool_call>" + json.dumps({"name": c["name"], "arguments": c["arguments"]}, ensure_ascii=False)
                    + "</tool_call>" for c in m["tool_calls"])
    return f"<|im_start|>{m['role']}\n", think + m["content"] + calls, "<|im_end|>\n"


def message_spans(tokenizer: Tokenizer, ids: np.ndarray) -> list[tuple[int, int]]:
    """``[start, end)`` of each turn: content never holds the special <|im_start|> id (it is encoded as text)."""
    starts = [int(i) for i in np.flatnonzero(ids == tokenizer.token_to_id("<|im_start|>"))]
    return list(zip(starts, [*starts[1:], len(ids)]))


def encode(tokenizer: Tokenizer, text: str) -> list[int]:
    return tokenizer.encode(text, add_special_tokens=False).ids


def test_fixture_docs_hold_every_format(fixture_docs) -> None:
    assert {d.metadata["format"] for d in fixture_docs} == set(TRANSCRIPT_FORMATS)


@pytest.mark.parametrize("reasoning", ["masked", "trained", "dropped"])
def test_loss_mask_is_one_exactly_on_what_the_model_wrote(fixture_docs, fixture_tokenizer, reasoning: str) -> None:
    """For every transcript of every format (compactions set aside: one sample each), each turn's tokens
    are the turn re-tokenized on its own, and the mask is 1 exactly on a model turn's body and
    <|im_end|> (its thinking too when reasoning is trained), 0 on everything else."""
    config = dataclasses.replace(ANY_OUTCOME, reasoning=reasoning, min_tokens=1)
    checked = Counter()
    for doc in fixture_docs:
        whole = dataclasses.replace(doc, metadata={k: v for k, v in doc.metadata.items() if k != "compactions"})
        samples, reasons = sft_samples(whole, fixture_tokenizer, WHOLE, config)
        messages = doc.metadata["messages"]
        if not any(m["role"] == "assistant" and not m["observation"] for m in messages):
            # a run the model never answered (DeepEval's errored span): dropped with its reason, nothing trained
            assert samples == [] and reasons == Counter(no_assistant_turns=1), (doc.metadata["format"], reasons)
            checked[doc.metadata["format"], "unanswered"] += len(messages)
            continue
        (sample,) = samples
        spans = message_spans(fixture_tokenizer, sample.tokens)
        assert len(spans) == len(messages)
        for m, (start, end) in zip(messages, spans):
            header, body, tail = expected_turn(m, reasoning)
            ids, mask = sample.tokens[start:end].tolist(), sample.loss_mask[start:end].tolist()
            assert ids == encode(fixture_tokenizer, header + body + tail), (doc.metadata["format"], m["role"])
            model = m["role"] == "assistant" and not m["observation"]
            think = f"<think>\n{m['reasoning']}\n</think>\n" if m["reasoning"] and reasoning != "dropped" else ""
            untrained_think = len(encode(fixture_tokenizer, think)) if think and reasoning == "masked" else 0
            trained = len(encode(fixture_tokenizer, body + "<|im_end|>")) - untrained_think if model else 0
            lead = len(encode(fixture_tokenizer, header)) + untrained_think
            assert mask == [0] * lead + [1] * trained + [0] * (len(ids) - lead - trained)
            checked[doc.metadata["format"], model] += 1
    assert {fmt for fmt, model in checked if model} == set(TRANSCRIPT_FORMATS), "guard: model turns in every format"
    assert sum(checked.values()) == sum(len(d.metadata["messages"]) for d in fixture_docs)
    assert sum(n for (_, kind), n in checked.items() if kind == "unanswered") < sum(checked.values()) / 100


def test_reasoning_setting(fixture_docs, fixture_tokenizer) -> None:
    doc = next(d for d in fixture_docs if d.metadata["format"] == "anthropic")
    thought = next(m["reasoning"] for m in doc.metadata["messages"] if m["reasoning"])
    texts = {}
    for mode in ("masked", "trained", "dropped"):
        (sample,), _ = sft_samples(doc, fixture_tokenizer, WHOLE, dataclasses.replace(ANY_OUTCOME, reasoning=mode))
        runs = mask_runs(fixture_tokenizer, sample.tokens, sample.loss_mask)
        texts[mode] = ("".join(t for v, t in runs if v), "".join(t for v, t in runs if not v))
    assert thought in texts["masked"][1] and thought not in texts["masked"][0]
    assert thought in texts["trained"][0]
    assert thought not in texts["dropped"][0] + texts["dropped"][1]


# --- real compactions -----------------------------------------------------------------------------------


def compaction_summary_in_file(fmt: str) -> str:
    """The model-written summary as the file stores it, read here from the file's own fields."""
    path = next(p for p in FIXTURE_FILES if p.parent.name == fmt)
    if fmt == "codex":
        line = next(json.loads(x) for x in path.read_text().splitlines() if '"type":"compacted"' in x)
        return line["payload"]["message"].split("\n", 1)[1]  # after Codex's one-line hand-off
    if fmt == "claude-code":
        entry = next(json.loads(x) for x in path.read_text().splitlines() if '"isCompactSummary":true' in x)
        return "\n".join(entry["message"]["content"].split("\n")[1:-1])  # without the harness's first and last line
    events = json.loads(path.read_text())
    return next(e["args"]["summary"] for e in events if e.get("action") == "condensation")


@pytest.mark.parametrize("fmt", ["codex", "claude-code", "openhands-events"])
def test_continuation_after_a_real_compaction_opens_with_its_summary(fixture_docs, fixture_tokenizer, fmt) -> None:
    doc = next(d for d in fixture_docs if d.metadata["format"] == fmt and d.metadata.get("compactions"))
    summary = compaction_summary_in_file(fmt)
    assert len(summary) > 200, "guard: a real, model-written summary"
    samples, reasons = sft_samples(doc, fixture_tokenizer, WHOLE, ANY_OUTCOME)
    assert reasons == Counter() and [s.summary for s in samples] == ["", "real"]
    runs = mask_runs(fixture_tokenizer, samples[1].tokens, samples[1].loss_mask)
    trained = [text for value, text in runs if value]
    assert trained[0] == ANY_OUTCOME.summary_prefix + summary + "<|im_end|>"
    # The samples meet at the compaction; the injected summary turn is not repeated as a user turn.
    at = doc.metadata["compactions"][0]["at"]
    assert samples[0].turns == (0, at) and samples[1].turns[0] == at + 1
    injected = "<|im_start|>user\n" + doc.metadata["messages"][at]["content"]
    assert all(injected not in decode(fixture_tokenizer, s.tokens) for s in samples)


@pytest.mark.parametrize("limit", [700, 900, 1200])
def test_continuations_never_exceed_the_sequence_length(fixture_docs, fixture_tokenizer, limit: int) -> None:
    docs = [d for d in fixture_docs if d.metadata.get("compactions")]
    assert len(docs) == 4  # codex, claude-code, its loglines export, openhands-events
    for doc in docs:
        samples, reasons = sft_samples(doc, fixture_tokenizer, limit, dataclasses.replace(ANY_OUTCOME, min_tokens=1))
        assert all(len(s.tokens) <= limit for s in samples)
        assert samples and (samples[-1].turns[1] == len(doc.metadata["messages"])
                            or reasons["round_exceeds_sequence_length"] == 1)


def test_remote_compaction_without_a_summary_is_templated(fixture_docs, fixture_tokenizer) -> None:
    doc = next(d for d in fixture_docs if d.metadata["format"] == "codex")
    record = {"at": doc.metadata["compactions"][0]["at"], "origin": "codex", "summary_message": False}
    messages = [m for i, m in enumerate(doc.metadata["messages"]) if i != record["at"]]
    remote = dataclasses.replace(doc, metadata={**doc.metadata, "messages": messages, "compactions": [record]})
    samples, _ = sft_samples(remote, fixture_tokenizer, WHOLE, ANY_OUTCOME)
    assert [s.summary for s in samples] == ["", "templated"]
    assert summary_origins(samples) == {"real": 0, "templated": 1}


def test_a_real_summary_is_taken_from_the_redacted_messages(fixture_docs, fixture_tokenizer) -> None:
    """A secret in a compaction summary is redacted at crawl like any message text, and the continuation
    opens with the redacted summary: no copy of it is kept outside the messages."""
    from codemix.filters.secrets import RedactionConfig, redact_document

    doc = next(d for d in fixture_docs if d.metadata["format"] == "codex")
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    at = doc.metadata["compactions"][0]["at"]
    messages = [dict(m) for m in doc.metadata["messages"]]
    messages[at]["content"] = messages[at]["content"].replace("Progress:", f"Progress: pushed with {token};")
    planted = dataclasses.replace(doc, text=render_messages(messages), metadata={**doc.metadata, "messages": messages})
    redacted, counts = redact_document(planted, RedactionConfig())
    assert counts and token not in json.dumps(redacted.metadata)
    samples, _ = sft_samples(redacted, fixture_tokenizer, WHOLE, ANY_OUTCOME)
    opening = decode(fixture_tokenizer, samples[1].tokens)
    assert samples[1].summary == "real" and token not in opening and "pushed with <SECRET_" in opening


def test_a_pasted_page_too_long_for_a_continuation_is_cut_not_the_run(real_docs, tokenizer) -> None:
    """The sixteenth traces holdout (round 17): a VS Code agent chat whose person pasted a whole web page (496 KB)
    as a reply mid-run; the round holding it fit no continuation and ended the trajectory there
    (``round_exceeds_sequence_length``, 739 of 860 messages lost). A person's turn is context, never trained: it is
    cut as a tool's output is, head and tail around the marker, and the run goes on. Here a real run with a real
    page (tests/fixtures/transcript_inputs/not-libxslt-tutorial2-libxslt_pipes.html) pasted after its first round."""
    doc = real_docs["swe-agent/function_calling_simple.traj"]
    messages = list(doc.metadata["messages"])
    first_model = next(i for i, m in enumerate(messages) if m["role"] == "assistant")
    page = (Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"
            / "not-libxslt-tutorial2-libxslt_pipes.html").read_text(encoding="latin-1")
    paste = {**messages[first_model + 1], "role": "user", "content": "figure this one out\n\n" + page * 3,
             "observation": False, "tool_call_id": "", "name": ""}
    messages.insert(first_model + 2, paste)
    pasted = dataclasses.replace(doc, metadata={**doc.metadata, "messages": messages})
    samples, reasons = sft_samples(pasted, tokenizer, 3200, ANY_OUTCOME)
    assert len(tokenize_turns([paste], tokenizer, ANY_OUTCOME)[0][0]) > 3200  # guard: the paste alone overflows
    assert "round_exceeds_sequence_length" not in reasons
    assert samples and samples[-1].turns[1] == len(messages)  # the run reaches its end
    assert any("figure this one out" in decode(tokenizer, s.tokens) for s in samples)
