"""Runs kept as records of what a crew or a chained API did (issue 45 round 13): a Responses API run recorded
call by call, each later request sending only what is new (``previous_response_id``), and a swarm's task
outputs (a named agent, its task, its result). Fixtures (tests/fixtures/transcript_inputs/README.md): the
openinference Agent Framework cassette and the Swarms spreadsheet swarm's metadata, both Apache-2.0."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from codemix.document import Document
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"
CASSETTE = FIXTURES / "openinference-agent-framework.test_agent_with_tool_calls.yaml"
SWARM = FIXTURES / "swarms-spreadsheet-swarm.metadata.json"


def read(path: Path) -> list[Document]:
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)])
    return [o for o in read_location(source, str(path)) if isinstance(o, Document)]


def test_a_responses_run_chained_by_previous_response_id_is_one_run_with_its_call_and_result():
    calls = [json.loads(i["request"]["body"]) for i in yaml.safe_load(CASSETTE.read_text())["interactions"]]
    assert len(calls[0]["input"]) == 2 and [i["type"] for i in calls[1]["input"]] == ["function_call_output"]
    assert calls[1]["previous_response_id"]  # the second request resends nothing: the layout under test
    (doc,) = read(CASSETTE)
    messages = doc.metadata["messages"]
    assert [(m["role"], m["observation"]) for m in messages] == [
        ("system", False), ("user", False), ("assistant", False), ("tool", True), ("assistant", False)]
    assert messages[2]["tool_calls"][0]["name"] == "get_weather"
    assert messages[3]["content"] == "The weather in San Francisco is sunny and 72°F"
    assert messages[4]["content"] == "The weather in San Francisco is sunny with a temperature of 72°F."


def test_a_swarms_task_outputs_are_each_a_task_and_the_named_agents_reply():
    outputs = json.loads(SWARM.read_text())["outputs"]
    assert len(outputs) == 3 and all({"agent_name", "task", "result"} <= set(o) for o in outputs)
    docs = read(SWARM)
    assert len(docs) == 3
    for doc, output in zip(docs, outputs):
        user, reply = doc.metadata["messages"]
        assert (user["role"], user["content"]) == ("user", output["task"])
        assert (reply["role"], reply["name"], reply["content"]) == ("assistant", output["agent_name"], output["result"])


def test_a_plan_listing_its_steps_as_strings_is_no_dialogue(tmp_path):
    """SATHISH3-10/autonomous-github-agent@42ad55b agent_log.json (no licence: its layout rebuilt in its own
    keys): an agent's event log whose ``plan_created`` events list the plan's steps as bare strings under
    ``steps``. Bare strings under a key naming talk (``dialog``, ``utterances``...) are utterances; under
    ``steps`` they are a plan, no one's words: the log is no conversation."""
    plan = ["Locate the code related to the bug", "Reproduce the issue", "Identify the faulty logic",
            "Implement the fix", "Test the fix"]
    log = [{"event": "agent_started", "timestamp": "2026-03-14 23:22:46.020469"},
           {"event": "issue_selected", "issue_number": 7, "timestamp": "2026-03-14 23:22:47.013822"},
           {"event": "plan_created", "issue": 7, "steps": plan, "timestamp": "2026-03-14 23:22:47.031324"},
           {"event": "execution_complete", "issue": 7, "status": "success", "timestamp": "2026-03-14 23:22:50"}]
    (tmp_path / "agent_log.json").write_text(json.dumps(log, indent=4))
    assert read(tmp_path / "agent_log.json") == []
    dialog = [{"dialog": plan[:4]}, {"dialog": ["Hi, can you help me?", "Of course, what do you need?"]}]
    (tmp_path / "dialogs.json").write_text(json.dumps(dialog))
    assert [len(d.metadata["messages"]) for d in read(tmp_path / "dialogs.json")] == [4, 2]  # a dialog's strings


def test_steps_that_each_hold_their_turn_keep_their_calls_and_results(tmp_path):
    """amichne/replai@3607432 trajectory.json (ATIF 1.5; no licence: its layout rebuilt in its own keys): each step
    holds its turn under ``message`` ({role, content}), the model's calls under the step's ``tool_calls`` and their
    results under its ``observation`` ({results: [{source_call_id, content}]}): the steps are the turns, each call
    answered by its result."""
    steps = [
        {"step_id": 1, "message": {"role": "system", "content": "You are a code review assistant."}},
        {"step_id": 2, "message": {"role": "user", "content": "What changed in the auth flow? Tokens expire early."}},
        {"step_id": 3, "message": {"role": "agent", "content": "I'll inspect the token refresh path."},
         "reasoning_content": "Two likely causes.",
         "tool_calls": [{"id": "tc_001", "name": "grep_code", "arguments": {"pattern": "refresh_token"}},
                        {"id": "tc_002", "name": "grep_code", "arguments": {"pattern": "TOKEN_TTL"}}],
         "observation": {"results": [{"source_call_id": "tc_001", "content": "auth/middleware.py:42: # refresh"},
                                     {"source_call_id": "tc_002", "content": "auth/config.py:12: TOKEN_TTL = 900"}]},
         "metrics": {"prompt_tokens": 512}},
        {"step_id": 4, "message": {"role": "agent", "content": "Found the root cause: grace_period=0."}}]
    (tmp_path / "trajectory.json").write_text(json.dumps({"schema_version": "1.5", "session_id": "s1", "steps": steps}))
    (doc,) = read(tmp_path / "trajectory.json")
    messages = doc.metadata["messages"]
    assert [(m["role"], m["observation"]) for m in messages] == [
        ("system", False), ("user", False), ("assistant", False), ("tool", True), ("tool", True), ("assistant", False)]
    assert [c["name"] for c in messages[2]["tool_calls"]] == ["grep_code", "grep_code"]
    assert [m["tool_call_id"] for m in messages[3:5]] == ["tc_001", "tc_002"]
    assert messages[2]["reasoning"] == "Two likely causes."


def test_turns_whose_speaker_and_text_keys_are_inferred_take_the_words_not_the_ids(tmp_path):
    """iteam1/agentchat_fastapi@95993d4 agent_history.json (no licence: its layout rebuilt in its own keys):
    AutoGen AgentChat ``TextMessage`` records (``source`` names the speaker, no role key) each with a uuid ``id``
    longer than the short replies: the text is the ``content``, never the id."""
    said = ["Yo", "Hey! What's up? How can I help you?", "My name is Loc", "Nice to meet you, Loc!"]
    records = [{"id": f"c9b0cd1c-e2b1-4efa-ac58-b37c4549{i:04d}", "source": ("user", "assistant")[i % 2],
                "models_usage": None, "metadata": {}, "created_at": "2025-08-10 13:52:18.357010+00:00",
                "content": text, "type": "TextMessage"} for i, text in enumerate(said)]
    (tmp_path / "agent_history.json").write_text(json.dumps(records))
    (doc,) = read(tmp_path / "agent_history.json")
    assert [(m["role"], m["content"]) for m in doc.metadata["messages"]] == [
        ("user", said[0]), ("assistant", said[1]), ("user", said[2]), ("assistant", said[3])]


def test_a_key_shared_by_the_first_records_but_missing_later_is_no_speaker(tmp_path):
    """Dung205789/K3-Day9-Multi-Agent-A2A-B4_2@2c25e31 trace.jsonl (no licence: rebuilt): A2A messages whose
    first 200 records name a ``sender`` and later ones do not; judging the speaker key on a sample raised
    ``KeyError: 'sender'`` for the whole file."""
    lines = [{"sender": ("customer", "coordinator")[i % 2], "note": f"message number {i} about the open case"}
             for i in range(200)] + [{"note": "a closing record that names no sender at all"}]
    (tmp_path / "trace.json").write_text(json.dumps(lines))
    source = SourceConfig(name="runs", type="transcripts", paths=["x"])
    outcomes = list(read_location(source, str(tmp_path / "trace.json")))
    assert not any("KeyError" in str(getattr(o, "error", "")) for o in outcomes)
