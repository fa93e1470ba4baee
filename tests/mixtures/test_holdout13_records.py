"""Layouts of the spent thirteenth traces holdout (issue 45 round 14, FIT), read from the real file where it has
a licence (tests/fixtures/transcript_inputs/README.md); unlicensed layouts rebuilt in their own keys, the texts
cut short, source and commit named."""

from __future__ import annotations

import json
from pathlib import Path

from codemix.document import Document
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig


def read(path: Path, **options) -> list[Document]:
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)], **options)
    return [o for o in read_location(source, str(path)) if isinstance(o, Document)]


def test_headless_stream_json_runs_appended_to_one_file_are_one_run_each_their_replies_merged(tmp_path):
    """Zeeeepa/github.gg@766f99b8947dd5f0e40b72a2dc3c875b1a07019e claude_output.jsonl (no licence; its keys kept):
    ``claude -p --output-format stream-json`` appended by a loop: each run opens with ``{type: system, subtype:
    init, session_id}``, an assistant reply comes as one record per content block sharing ``message.id``, tool
    results as user records, a ``result`` summary closes the run. Read before as one run of one message per
    record (454 for the collector's 363)."""
    def reply(session, msg_id, block):
        return {"type": "assistant", "session_id": session,
                "message": {"id": msg_id, "type": "message", "role": "assistant", "content": [block]}}
    lines = [
        {"type": "system", "subtype": "init", "cwd": "/home/ubuntu/github.gg", "session_id": "s1", "tools": ["Bash"]},
        reply("s1", "msg_a", {"type": "text", "text": "I'll analyze the repository structure first."}),
        reply("s1", "msg_a", {"type": "tool_use", "id": "toolu_1", "name": "LS", "input": {"path": "/home/ubuntu"}}),
        {"type": "user", "session_id": "s1", "message": {"role": "user", "content": [
            {"tool_use_id": "toolu_1", "type": "tool_result", "content": "- src/\n- package.json"}]}},
        reply("s1", "msg_b", {"type": "text", "text": "The repository holds a Next.js app under src/."}),
        {"type": "result", "subtype": "success", "session_id": "s1", "num_turns": 3, "result": "Done."},
        {"type": "system", "subtype": "init", "cwd": "/home/ubuntu/github.gg", "session_id": "s2", "tools": ["Bash"]},
        reply("s2", "msg_c", {"type": "text", "text": "Continuing with the agent button feature now."}),
        reply("s2", "msg_d", {"type": "text", "text": "The button now starts the agent run."}),
        {"type": "result", "subtype": "success", "session_id": "s2", "num_turns": 1, "result": "Done."}]
    path = tmp_path / "claude_output.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines))
    first, second = read(path)
    assert [(m["role"], len(m["tool_calls"])) for m in first.metadata["messages"]] == [
        ("assistant", 1), ("tool", 0), ("assistant", 0)]
    assert first.metadata["messages"][0]["content"] == "I'll analyze the repository structure first."
    assert [m["content"] for m in second.metadata["messages"]] == [
        "Continuing with the agent button feature now.", "The button now starts the agent run."]
    assert {first.metadata["transcript"]["session_id"], second.metadata["transcript"]["session_id"]} == {"s1", "s2"}


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"


def test_json_lines_under_a_json_name_are_read_as_lines_never_as_printed_text():
    """Mentat's transcripts (AbanteAI/exercism-python, MIT): one ``{messages: [...]}`` run per line in a file named
    ``transcript.json``; the whole file is no JSON value, and before it was read as printed text (947 of 1,171
    messages, runs cut apart), now line by line as chat runs."""
    path = FIXTURES / "mentat.exercism-python.transcript.lines-1-2.json"
    runs = [json.loads(line)["messages"] for line in path.read_text().splitlines()]
    docs = read(path)
    assert len(docs) == 2 and {d.metadata["format"] for d in docs} == {"openai-chat"}
    for doc, run in zip(docs, runs):
        assert [(m["role"], m["content"]) for m in doc.metadata["messages"]] == [(m["role"], m["content"]) for m in run]


def test_an_event_log_whose_sender_names_its_kind_reads_the_turns_and_leaves_acknowledgements_out(tmp_path):
    """bensincs/agent-ops-room@1fe7fbae61c18249988479dc36fe2d3125c183d5 messages.jsonl (no licence; its keys kept):
    ``{type: say | result, from: {kind: user | agent, id}, payload: {text} | {content: {text}, message_type: ack |
    result | finding, task_id}}``. Each event's ``task_id`` is a handle most events hold alone, no run id (the log
    had been cut into one-event runs and refused); acknowledgements and empty results are no turns."""
    def result(agent, text, kind, task):
        return {"type": "result", "room_id": "default", "from": {"kind": "agent", "id": agent},
                "payload": {"content": {"text": text}, "message_type": kind, "task_id": task}}
    events = [{"type": "say", "room_id": "default", "from": {"kind": "user", "id": "alice"},
               "payload": {"text": "create a test file"}},
              result("facilitator", "Processing your request...", "ack", "facilitator_task_1"),
              result("facilitator", "", "result", "facilitator_handoff_1"),
              result("cmd-agent", "Task received, processing...", "ack", "task_0"),
              result("cmd-agent", "Executing: touch test.txt && ls -l test.txt", "finding", "task_0"),
              result("cmd-agent", "I created an empty file called test.txt in the current directory.", "result", "task_0"),
              {"type": "say", "room_id": "default", "from": {"kind": "user", "id": "alice"},
               "payload": {"text": "delete it"}},
              result("facilitator", "Processing your request...", "ack", "facilitator_task_2"),
              result("cmd-agent", "The file test.txt has been removed.", "result", "task_1")]
    path = tmp_path / "messages.jsonl"
    path.write_text("\n".join(json.dumps(event) for event in events))
    (doc,) = read(path)
    assert [(m["role"], m["content"][:12]) for m in doc.metadata["messages"]] == [
        ("user", "create a tes"), ("assistant", "Executing: t"), ("assistant", "I created an"),
        ("user", "delete it"), ("assistant", "The file tes")]
