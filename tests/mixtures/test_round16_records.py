"""Record layouts of issue 45 round 16 (b45p), found on new development systems before any code changed
(bench/traces_dev_extra.tsv): excerpts of the real files (tests/fixtures/transcript_inputs/README.md names source,
commit and licence), or, for a file that carries no licence, its layout rebuilt in its own keys with short texts."""

from __future__ import annotations

import json
from pathlib import Path

from codemix.document import Document
from codemix.mixtures.transcripts import parse_json_value
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig

INPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"


def read(path: Path) -> list[Document]:
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)])
    return [o for o in read_location(source, str(path)) if isinstance(o, Document)]


def test_two_records_glued_on_one_line_of_a_session_are_both_read():
    """A pi session (f5-sales-demo/xcsh, MIT) whose line 440 holds two records back to back (``...}}{"type":
    "message"...``: an append cut short before its newline). The whole session was quarantined ("line 440 is no
    turn"); now the line's model turn and the person's "ok" after it are both messages, in order."""
    path = INPUTS / "xcsh.pi-session.lines-1-3-440-441.jsonl"
    assert "}}{" in path.read_text(encoding="utf-8").splitlines()[3]  # the fixture holds the glued line
    [doc] = read(path)
    messages = doc.metadata["messages"]
    assert [m["role"] for m in messages if not m["observation"]] == ["user", "assistant", "assistant", "user",
                                                                       "assistant"]
    assert messages[-2]["content"] == "ok"
    assert "entries_unread" not in doc.metadata["transcript"]


def test_one_line_of_no_known_shape_costs_only_itself(tmp_path):
    """One corrupted line among a session's turn lines is left out and counted (``entries_unread``, the first
    named); the session's other turns are read. A file with more such lines than one in twenty is still no file of
    turns."""
    lines = (INPUTS / "xcsh.pi-session.lines-1-3-440-441.jsonl").read_text(encoding="utf-8").splitlines()
    turns = [lines[0], *[lines[1], lines[2]] * 12, lines[4]]  # a header and 25 turn lines
    path = tmp_path / "session.jsonl"
    stray = '{"type": "message", "content": "a stray text that names no speaker"}'
    path.write_text("\n".join([*turns[:5], stray, *turns[5:]]) + "\n")
    [doc] = read(path)
    assert len(doc.metadata["messages"]) >= 25 and doc.metadata["transcript"]["entries_unread"] == 1
    assert "line 6 is no turn" in doc.metadata["transcript"]["first_unread"]
    crowded = tmp_path / "crowded.jsonl"
    crowded.write_text("\n".join([*turns[:5], *[stray] * 3, *turns[5:8]]) + "\n")
    assert read(crowded) == []


def test_a_model_turn_written_a_part_per_line_is_one_message(tmp_path):
    """sjonas50/diffusion@faf64ebe transcript.jsonl (Engram's capture of a Claude Code session; no licence, so
    rebuilt in its keys, texts cut short): each line one part, ``content`` a single block object (thinking, text,
    tool_use with ``tool_name`` / ``tool_id``), results on ``role: tool`` lines. It read as 173 messages for 147,
    each thinking a message of its own and no call at all."""
    rows = [
        {"role": "user", "content": {"type": "text", "text": "i created a new empty github repo for this project"}},
        {"role": "assistant", "content": {"type": "thinking", "text": "The user wants the local project connected."}},
        {"role": "assistant", "content": {"type": "tool_use", "tool_name": "Bash", "tool_id": "toolu_01",
                                          "input": {"command": "git status"}}},
        {"role": "tool", "content": {"type": "tool_result", "tool_id": "toolu_01", "output": "fatal: not a git repo",
                                     "is_error": False}},
        {"role": "assistant", "content": {"type": "text", "text": "It is not a git repository yet."}},
        {"role": "assistant", "content": {"type": "tool_use", "tool_name": "Bash", "tool_id": "toolu_02",
                                          "input": {"command": "git init"}}},
        {"role": "tool", "content": {"type": "tool_result", "tool_id": "toolu_02", "output": "Initialized"}},
        {"role": "assistant", "content": {"type": "text", "text": "Done."}},
        {"role": "user", "content": {"type": "text", "text": "thanks"}},
    ]
    path = tmp_path / "transcript.jsonl"
    path.write_text("".join(json.dumps({"timestamp": f"2026-03-09T02:10:{i:02d}Z", **r}) + "\n"
                            for i, r in enumerate(rows)))
    [doc] = read(path)
    messages = doc.metadata["messages"]
    assert [(m["role"], len(m["tool_calls"])) for m in messages] == [
        ("user", 0), ("assistant", 1), ("tool", 0), ("assistant", 1), ("tool", 0), ("assistant", 0), ("user", 0)]
    assert messages[1]["reasoning"] == "The user wants the local project connected." and messages[1]["content"] == ""
    assert messages[1]["tool_calls"][0]["name"] == "Bash" and messages[1]["tool_calls"][0]["id"] == "toolu_01"
    assert json.loads(messages[1]["tool_calls"][0]["arguments"]) == {"command": "git status"}
    assert (messages[2]["content"], messages[2]["tool_call_id"]) == ("fatal: not a git repo", "toolu_01")
    assert messages[3]["content"] == "It is not a git repository yet."


def test_goose_calls_and_results_inside_status_value_envelopes():
    """teck968/goose-session-analysis (Apache-2.0) tests/test_data/sample_session.jsonl, a Goose session: a tools
    line, then messages whose ``toolRequest`` holds its call as ``toolCall: {status, value: {name, arguments}}`` and
    whose ``toolResponse`` holds ``toolResult: {status, value: [text blocks]}`` (a Rust ``Result`` serialised). The
    call was lost and the result read empty."""
    [doc] = read(INPUTS / "goose-session-analysis.sample_session.jsonl")
    _, asked, result, answer = doc.metadata["messages"]
    [call] = asked["tool_calls"]
    assert (call["id"], call["name"], json.loads(call["arguments"])) == (
        "tool-1", "get_weather", {"location": "San Francisco", "unit": "celsius"})
    assert (result["role"], result["content"], result["tool_call_id"]) == ("tool", "The weather is sunny and 22°C",
                                                                          "tool-1")
    assert answer["content"].startswith("The weather in San Francisco is currently sunny")


def test_run_items_holding_protocol_items_are_the_runs_turns():
    """openai/openai-agents-js (MIT) run-state fixture v1.17: a ``RunState`` serialised mid-run, whose
    ``generatedItems`` each hold a protocol item in ``rawItem`` (a ``function_call``, then the JS SDK's
    ``function_call_result`` with ``callId``) beside the agent's name. No turn list was found in it."""
    state = json.loads((INPUTS / "openai-agents-js.run-state.v1.17-side-effect-committed.json").read_text())
    [transcript] = parse_json_value(state)
    call, output = [m for m in transcript.messages if m["tool_calls"] or m["role"] == "tool"]
    assert [c["name"] for c in call["tool_calls"]] == ["side_effect_tool"]
    assert (output["content"], output["tool_call_id"]) == ("side effect completed", "side-effect-call")
