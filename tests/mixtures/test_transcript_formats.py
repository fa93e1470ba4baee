"""Every transcript format on fixtures in its tool's own layout: the format is recognised, nothing the
file says is lost, environment output is flagged as such, and outcome facts are read as recorded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codemix.mixtures.transcript_formats import (
    FORMAT_NAMES,
    Transcript,
    TranscriptShapeError,
    outcome_facts,
    parse_json_value,
    parse_session,
    parse_text,
    rows_of,
    session_format,
)
from codemix.mixtures.transcript_formats.base import compaction_summary
from codemix.mixtures.transcript_formats.canonical import parsed_arguments

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
FILES = {
    "openai-chat": "openai-chat/agent-runs.jsonl",
    "openai-responses": "openai-responses/conversation.json",
    "anthropic": "anthropic/messages.json",
    "claude-code": "claude-code/5f0c7a52-9d3e-4c1b-8f2a-6b7d1e0a9c34.jsonl",
    "codex": "codex/rollout-2025-09-30T14-10-00-0199a2b4-7c1e-7f30-9a41-3e8f5d2c6b10.jsonl",
    "openhands-events": "openhands-events/trajectory.json",
    "openhands-messages": "openhands-messages/trajectories.jsonl",
    "swe-agent": "swe-agent/dev__calc-12.v0.traj",
    "mini-swe-agent": "mini-swe-agent/dev__calc-12.traj.json",
    "swe-agent-rows": "swe-agent-rows/nebius-trajectories.jsonl",
    "aider": "aider/.aider.chat.history.md",
    "sharegpt": "sharegpt/glaive_toolcall_en_demo.first5.json",
    "moatless": "moatless/two_edits.json",
    "aider-llm-history": "aider-llm-history/llm.history.first-4-requests",
    "shape": "shape/tau-bench-gpt-4o-airline.rows-1-3.json",
    "markdown-turns": "markdown-turns/2025-03-28_16-14-refining-create-model-instance-for-efficiency.md",
    "turn-lines": "turn-lines/tau-bench-gpt-4o-airline.row-2.turn-per-line.jsonl",
    "react-text": "react-text/autoact-13b-easy.line-1.prompt.txt",
    "speaker-turns": "speaker-turns/taskweaver-raw_exp_test-session-1.posts.txt",
    "banner-turns": "scored/curie-mle_activation_func_20250326.lines-1-100.log",
    "logged-calls": "logged-calls/lats-webshop-example.lines-1-651.log",
    "printed-messages": "printed-messages/watsonx.Flow-OneLLMOneAgent.md",
    "marker-turns": "marker-turns/langchain-benchmarks-runs.relaid-as-markers.md",
    "chain-log": "chain-log/langchain-benchmarks.multiverse_math.ipynb",
    "printed-attributes": "printed-attributes/trpc-agent-go.draft.md",
    "labelled-dialogue": "labelled-dialogue/cpsycoun.case_0.txt",
    "html-messages": "html-messages/claude-code-log.transcript_style_guide.html",
    "console-log": "console-log/camel.workforce_judge_committee.ipynb",
    "printed-objects": "printed-objects/anthropic-cookbook.tool_use.tool_choice.ipynb",
    "template-turns": "template-turns/openai-harmony.docs-format.lines-423-459.md",
    "cline-ui": "cline-ui/ui_messages.json",
}


def read_fixture(relative: str) -> list[Transcript]:
    """The fixture through the same entry points the crawl uses (JSON, JSONL rows, JSONL session, text)."""
    path = FIXTURES / relative
    text = path.read_text(encoding="utf-8")
    if path.suffix in (".md", ".txt", ".log", ".html") or path.parent.name == "aider-llm-history":
        return parse_text(text) or []
    if path.suffix != ".jsonl":
        value = json.loads(text)
        return [t for row in rows_of(value) or [value] for t in parse_json_value(row)]
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    fmt = session_format(lines[0])
    return parse_session(fmt, lines) if fmt else [t for line in lines for t in parse_json_value(line)]


def raw_strings(value: Any, keys: frozenset[str]) -> list[str]:
    """Every non-empty string stored under one of ``keys`` anywhere in ``value`` (the format's own text fields)."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found += [v for k, v in item.items() if k in keys and isinstance(v, str) and v.strip()]
            stack += [v for v in item.values() if isinstance(v, (dict, list))]
        elif isinstance(item, list):
            stack += item
    return found


def canonical_text(transcripts: list[Transcript]) -> str:
    return "\n".join(m["content"] + "\n" + m["reasoning"] + "\n" + "\n".join(c["arguments"] for c in m["tool_calls"])
                     for t in transcripts for m in t.messages)


def test_every_format_has_a_fixture() -> None:
    assert set(FILES) == set(FORMAT_NAMES)


@pytest.mark.parametrize(("name", "relative"), FILES.items())
def test_fixture_is_read_as_its_format(name: str, relative: str) -> None:
    transcripts = read_fixture(relative)
    assert transcripts and {t.format for t in transcripts} == {name}
    assert all(any(m["role"] == "assistant" for m in t.messages) for t in transcripts)


# The text-bearing fields of each layout, by the names its tool writes (docs/transcript-formats.md).
TEXT_FIELDS = {
    "openai-chat": {"content", "reasoning_content", "arguments"},
    "openai-responses": {"text", "arguments", "output", "instructions"},
    "anthropic": {"text", "thinking", "content", "system"},
    "codex": {"text", "arguments", "output", "input", "message"},
    "openhands-messages": {"content", "arguments"},
    "swe-agent": {"content"},
    "mini-swe-agent": {"content"},
    "swe-agent-rows": {"text", "system_prompt"},
}


@pytest.mark.parametrize("name", sorted(TEXT_FIELDS))
def test_no_text_field_is_lost(name: str) -> None:
    """Every string in a text field of the file is in some canonical message (content, reasoning or call)."""
    raw = (FIXTURES / FILES[name]).read_text(encoding="utf-8")
    values = [json.loads(line) for line in raw.splitlines() if line.strip()] if FILES[name].endswith(".jsonl") \
        else [json.loads(raw)]
    if name == "codex":  # event_msg payloads repeat the response items for the UI; the items are the record
        values = [v for v in values if v.get("type") != "event_msg"]
    if name == "mini-swe-agent":  # the exit record is the run's outcome (read as facts), not a turn
        values = [v["messages"][:-1] for v in values if v["messages"][-1]["role"] == "exit"]
    expected = [s for value in values for s in raw_strings(value, frozenset(TEXT_FIELDS[name]))]
    assert len(expected) >= 5, "guard: the fixture holds text in those fields"
    text = canonical_text(read_fixture(FILES[name]))
    assert [s for s in expected if s.strip() not in text] == []


def test_claude_code_main_chain_sidechain_and_redo() -> None:
    entries = [json.loads(line) for line in (FIXTURES / FILES["claude-code"]).read_text().splitlines()]
    main, side = read_fixture(FILES["claude-code"])
    abandoned = next(e for e in entries if e.get("uuid") == "x1")["message"]["content"][0]["text"]
    assert abandoned not in canonical_text([main, side]), "the redo's abandoned reply is on no chain"
    assert side.extra["sidechain"] is True and "sidechain" not in main.extra
    # The sub-agent's own tool output (its prompt and answer are also in the main chain's Task call and result).
    sidechain_texts = [b["content"] for e in entries if e.get("isSidechain") and e["type"] == "user"
                       and isinstance(e["message"]["content"], list) for b in e["message"]["content"]]
    assert sidechain_texts and all(s in canonical_text([side]) and s not in canonical_text([main])
                                   for s in sidechain_texts)
    # One API reply written as three entries (thinking, text, tool_use) is one assistant turn.
    reply = [e for e in entries if e.get("message", {}).get("id") == "msg_01Qa"]
    assert len(reply) == 3
    turn = next(m for m in main.messages if m["tool_calls"] and m["tool_calls"][0]["name"] == "Read")
    assert (turn["reasoning"], turn["content"]) == (reply[0]["message"]["content"][0]["thinking"],
                                                    reply[1]["message"]["content"][0]["text"])


@pytest.mark.parametrize(("name", "origin"), [("claude-code", "claude_code"), ("codex", "codex"),
                                               ("openhands-events", "openhands")])
def test_real_compaction_is_recorded_with_the_model_written_summary(name: str, origin: str) -> None:
    transcript = read_fixture(FILES[name])[0]
    (record,) = transcript.compactions
    injected = transcript.messages[record["at"]]
    assert record["origin"] == origin and record["summary_message"] and injected["observation"]
    summary = compaction_summary(transcript.messages, record)
    assert len(summary) > 100 and summary in injected["content"]
    # Turns before and after the compaction are both in the transcript.
    assert any(m["role"] == "assistant" for m in transcript.messages[:record["at"]])
    assert any(m["role"] == "assistant" for m in transcript.messages[record["at"] + 1:])


def test_compaction_summaries_lose_only_the_harness_wrapping() -> None:
    claude, codex = (compaction_summary(t.messages, t.compactions[0])
                     for t in (read_fixture(FILES["claude-code"])[0], read_fixture(FILES["codex"])[0]))
    assert claude.startswith("Analysis:\n") and claude.endswith("run the tests.")
    assert codex.startswith("Goal: make calc.divide") and codex.endswith("report the change.")


def test_remote_codex_compaction_marks_the_reset_without_a_summary() -> None:
    lines = [json.loads(line) for line in (FIXTURES / FILES["codex"]).read_text().splitlines()]
    for line in lines:
        if line["type"] == "compacted":
            line["payload"] = {"message": "", "replacement_history": [
                {"type": "compaction", "encrypted_content": "gAAAAABo-opaque"}]}
    transcript = parse_session(session_format(lines[0]), lines)[0]
    (record,) = transcript.compactions
    assert (compaction_summary(transcript.messages, record), record["summary_message"]) == ("", False)
    assert not any(m["content"].startswith("Another language model") for m in transcript.messages)


# Recorded facts, as each file writes them, and what the messages add (evidence in brackets).
OUTCOMES = [
    ("openai-chat", 0, {"submitted": (True, "submit_action"), "tests_passed": (True, "test_output")}),
    ("openai-chat", 1, {}),
    ("anthropic", 0, {"tests_passed": (True, "test_output")}),
    ("claude-code", 0, {"tests_passed": (True, "test_output")}),
    ("codex", 0, {"tests_passed": (True, "test_output")}),
    ("openhands-events", 0, {"exit_status": ("finished", "recorded"), "submitted": (True, "submit_action"),
                             "tests_passed": (True, "test_output")}),
    ("openhands-messages", 0, {"resolved": (True, "recorded"), "submitted": (True, "submit_action"),
                               "tests_passed": (True, "resolved")}),
    ("openhands-messages", 1, {"exit_status": ("submit", "recorded"), "submitted": (True, "recorded"),
                               "resolved": (False, "recorded"), "tests_passed": (False, "resolved")}),
    ("swe-agent", 0, {"exit_status": ("submitted", "recorded"), "submitted": (True, "recorded"),
                      "tests_passed": (True, "test_output")}),
    ("mini-swe-agent", 0, {"exit_status": ("Submitted", "recorded"), "submitted": (True, "recorded"),
                           "tests_passed": (True, "test_output")}),
    ("swe-agent-rows", 0, {"exit_status": ("submitted", "recorded"), "submitted": (True, "recorded"),
                           "resolved": (True, "recorded"), "tests_passed": (True, "resolved")}),
    ("swe-agent-rows", 1, {"exit_status": ("exit_context", "recorded"), "submitted": (False, "recorded"),
                           "resolved": (False, "recorded"), "tests_passed": (False, "resolved")}),
    # aider printed the run (``3 passed``) and the person did not add it to the chat: no message, the file's record
    ("aider", 0, {"tests_passed": (True, "recorded")}),
    ("aider", 1, {}),
]


@pytest.mark.parametrize(("name", "index", "expected"), OUTCOMES)
def test_outcome_facts_as_recorded(name: str, index: int, expected: dict[str, tuple[Any, str]]) -> None:
    transcript = read_fixture(FILES[name])[index]
    facts = outcome_facts(transcript.facts, transcript.messages)
    evidence = facts.pop("outcome_evidence", {})
    assert {key: (value, evidence[key]) for key, value in facts.items()} == expected


def test_swe_agent_1x_exit_cost_is_not_submitted() -> None:
    (transcript,) = read_fixture("swe-agent/dev__calc-12.v1.traj")
    assert transcript.facts == {"exit_status": "exit_cost", "submitted": False}


@pytest.mark.parametrize("name", ["swe-agent", "mini-swe-agent", "swe-agent-rows"])
def test_output_returned_as_user_turns_is_an_observation(name: str) -> None:
    """SWE-agent-style agents send command output back as `user` turns: all flagged, the task is not."""
    messages = read_fixture(FILES[name])[0].messages
    users = [m for m in messages if m["role"] == "user"]
    task = next(m for m in users if "Here's the issue text" in m["content"] or "Please solve" in m["content"])
    assert not task["observation"]
    outputs = [m for m in users if m is not task and ("(Current directory:" in m["content"]
                                                      or m["content"].startswith("<returncode>"))]
    assert len(outputs) >= 2 and all(m["observation"] for m in outputs)


def test_demonstrations_are_observations() -> None:
    messages = read_fixture(FILES["swe-agent"])[0].messages
    demo = next(m for m in messages if "DEMONSTRATION" in m["content"])
    assert demo["observation"] and demo["role"] == "user"


def test_harness_turns_are_observations() -> None:
    codex = read_fixture(FILES["codex"])[0].messages
    claude = read_fixture(FILES["claude-code"])[0].messages
    aider = read_fixture(FILES["aider"])[0].messages
    assert [m["observation"] for m in codex if m["role"] == "user"][:3] == [True, True, False]
    assert all(m["observation"] for m in claude if m["content"].startswith(("<command-name>", "Caveat:")))
    assert [m["content"] for m in aider if m["role"] == "user" and not m["observation"]] == [
        ("calc.divide returns inf when b is 0. Make it raise ValueError('division by zero') instead.\n"
        "Keep the rest of the module as it is.")]


def test_call_arguments_are_kept_verbatim() -> None:
    """Key order, spacing and escapes as the model sent them: the exact string, not a re-serialisation."""
    rows = [json.loads(line) for line in (FIXTURES / FILES["openai-chat"]).read_text().splitlines()]
    sent = [c["function"]["arguments"] for row in rows for m in row["messages"] for c in m.get("tool_calls") or []]
    got = [c["arguments"] for t in read_fixture(FILES["openai-chat"]) for m in t.messages for c in m["tool_calls"]]
    assert got == sent
    assert any("\\u2014" in s for s in sent) and any(s.startswith('{"timeout":30,') for s in sent), "guard"
    assert all(parsed_arguments({"arguments": s}) is not None for s in got)


def test_anthropic_input_objects_keep_their_key_order() -> None:
    raw = json.loads((FIXTURES / FILES["anthropic"]).read_text())
    inputs = [b["input"] for m in raw["messages"] if isinstance(m["content"], list) for b in m["content"]
              if b["type"] == "tool_use"]
    got = [json.loads(c["arguments"]) for m in read_fixture(FILES["anthropic"])[0].messages for c in m["tool_calls"]]
    assert [list(g) for g in got] == [list(i) for i in inputs] and got == inputs
    assert next(iter(inputs[1])) == "path", "guard: an input whose keys are not in sorted order"


def test_codex_apply_patch_is_a_free_text_call() -> None:
    calls = [c for m in read_fixture(FILES["codex"])[0].messages for c in m["tool_calls"]]
    patch = next(c for c in calls if c["name"] == "apply_patch")
    assert patch["kind"] == "custom" and patch["arguments"].startswith("*** Begin Patch\n")
    assert all(parsed_arguments(c) is not None for c in calls if c["kind"] == "function")


def test_reasoning_is_kept_and_encrypted_state_is_not() -> None:
    responses = read_fixture(FILES["openai-responses"])[0].messages
    assert [m["reasoning"].split("\n")[0] for m in responses if m["reasoning"]] == ["**Inspecting calc.py**"]
    assert "gAAAA" not in canonical_text(read_fixture(FILES["openai-responses"]))
    anthropic = read_fixture(FILES["anthropic"])[0].messages
    assert "EmwKAhgB" not in canonical_text([Transcript(format="anthropic", messages=anthropic)])


def test_aider_sessions_are_transcripts_and_edits_stay_in_the_reply() -> None:
    first, second = read_fixture(FILES["aider"])
    reply = next(m for m in first.messages if m["role"] == "assistant")
    assert "<<<<<<< SEARCH" in reply["content"] and ">>>>>>> REPLACE" in reply["content"]
    assert second.extra["started_at"] == "2025-05-03 09:12:44"


@pytest.mark.parametrize("value", [{"prompt": "no transcript here"}, 42, [1, 2]])
def test_unknown_shapes_name_every_format_tried(value: Any) -> None:
    with pytest.raises(TranscriptShapeError) as caught:
        parse_json_value(value)
    json_formats = [n for n in FORMAT_NAMES if n not in ("codex", "claude-code", "turn-lines", "aider",
                                                         "aider-llm-history", "markdown-turns", "logged-calls",
                                                         "react-text", "speaker-turns", "banner-turns",
                                                         "printed-messages", "marker-turns", "chain-log",
                                                         "labelled-dialogue", "html-messages", "console-log",
                                                         "printed-objects", "template-turns", "printed-attributes")]
    assert all(name in str(caught.value) for name in json_formats)


@pytest.mark.parametrize("value", [{"messages": []}, {"output": {"history": []}, "index": 3}])
def test_an_empty_conversation_is_its_own_reason(value: Any) -> None:
    with pytest.raises(TranscriptShapeError, match=r"^empty_conversation: \$\.\S+ holds no turns"):
        parse_json_value(value)


def test_a_forced_format_is_the_only_one_tried() -> None:
    value = json.loads((FIXTURES / FILES["anthropic"]).read_text())
    assert parse_json_value(value, "anthropic")[0].format == "anthropic"
    with pytest.raises(TranscriptShapeError, match="tried swe-agent$"):
        parse_json_value(value, "swe-agent")


def test_swe_agent_trajectory_steps_alone_are_read() -> None:
    """A .traj that kept only its `trajectory` steps: each response, then its observation."""
    value = json.loads((FIXTURES / FILES["swe-agent"]).read_text())
    steps = value["trajectory"]
    (transcript,) = parse_json_value({"trajectory": steps, "info": value["info"]})
    assert transcript.format == "swe-agent" and len(transcript.messages) == 2 * len(steps)
    assert [m["content"] for m in transcript.messages[::2]] == [s["response"] for s in steps]
    assert all(m["observation"] for m in transcript.messages[1::2])
    assert transcript.facts["exit_status"] == "submitted"
