"""Record layouts of issue 45 round 14's development systems, read from the real file where it has a licence
(tests/fixtures/transcript_inputs/README.md); unlicensed layouts rebuilt in their own keys, source named."""

from __future__ import annotations

import json
from pathlib import Path

from codemix.document import Document
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig


def read(path: Path, **options) -> list[Document]:
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)], **options)
    return [o for o in read_location(source, str(path)) if isinstance(o, Document)]


# sundai-club/agent-x@f9728cd9e3cf4691301693c2b9ca97f482751fe8 groupchat_messages.json (AG2's group chat saved by
# the team; no licence: its keys and speakers kept, the texts cut short): every message is role ``user``, the agent
# who said it in ``name``; the first is the task the team was given.
GROUP_CHAT = [
    {"content": "Extract posts from these subreddits: r/learnprogramming, r/GetStudying", "role": "user", "name": "PostAgent"},
    {"content": "Given the discussion on the subreddits focusing on education, here are the insights.", "role": "user",
     "name": "DataAnalyst"},
    {"content": "Thank you for the contribution! For each subreddit mentioned, I will check the rules.", "role": "user",
     "name": "Reviewer"},
    {"content": "Analyzing and extracting the posts from these subreddits will provide a wealth of information.",
     "role": "user", "name": "PostAgent"},
]


def test_a_group_chat_of_one_role_and_several_names_is_a_request_and_the_parties_replies(tmp_path):
    path = tmp_path / "groupchat_messages.json"
    path.write_text(json.dumps(GROUP_CHAT))
    (doc,) = read(path)
    messages = doc.metadata["messages"]
    assert [(m["role"], m["name"]) for m in messages] == [
        ("user", "PostAgent"), ("assistant", "DataAnalyst"), ("assistant", "Reviewer"), ("assistant", "PostAgent")]
    assert [m["content"] for m in messages] == [m["content"] for m in GROUP_CHAT]


def test_named_parties_leave_a_told_conversation_and_a_calling_opener_as_they_are():
    from codemix.mixtures.transcript_formats.canonical import message
    from codemix.mixtures.transcripts import named_parties

    told = [message("user", "Plan the trip", name="Ann"), message("assistant", "Done.", name="Bot")]
    assert named_parties(told) == told  # roles already apart
    one_name = [message("user", "a b c", name="Ann"), message("user", "d e f", name="Ann")]
    assert named_parties(one_name) == one_name  # one speaker: nothing to tell apart
    calling = [message("assistant", "", name="Coder", tool_calls=[{"id": "1", "name": "ls", "arguments": "{}",
                                                                   "kind": "function"}]),
               message("assistant", "Looks fine.", name="Critic")]
    assert named_parties(calling) == calling  # the opener calls tools: a model, not the person


def test_a_sources_speakers_decide_before_the_group_rule(tmp_path):
    path = tmp_path / "groupchat_messages.json"
    path.write_text(json.dumps(GROUP_CHAT))
    (doc,) = read(path, speakers={"Reviewer": "user"})
    assert [m["role"] for m in doc.metadata["messages"]] == ["user", "user", "user", "user"]


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"


def test_span_events_of_one_trace_are_one_run_whatever_the_tracers_prefix():
    """RAAF logs each span's start and end as JSONL events; a later model call re-sends the conversation
    (``llm.request.messages``), a tool span keeps its call and result under ``function.*`` on its end event: one
    run, each message once, the call joined to the model's turn, its result a tool turn."""
    path = FIXTURES / "raaf.traces.lines-10-19.jsonl"
    events = [json.loads(line) for line in path.read_text().splitlines()]
    assert len({e["span"]["trace_id"] for e in events}) == 1 and len(events) == 10
    sent = [e["span"]["attributes"]["llm.request.messages"] for e in events
            if "llm.request.messages" in e["span"]["attributes"]]
    tool = next(e["span"]["attributes"] for e in events if "function.output" in e["span"]["attributes"])
    (doc,) = read(path)
    messages = doc.metadata["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool"]
    assert [m["content"] for m in messages[:2]] == [sent[0][0]["content"], sent[0][1]["content"]]
    (call,) = messages[2]["tool_calls"]
    assert call["name"] == tool["function.name"] and "25 * 37 + 142" in call["arguments"]
    assert messages[3]["content"] == tool["function.output"] and messages[3]["observation"]


def test_a_memorys_records_keep_the_role_beside_the_message_and_the_call_in_its_own_fields():
    """CAMEL's agent memory: ``role_at_backend`` beside ``message``; a call's ``func_name`` / ``args`` (a Python
    literal) / ``tool_call_id`` on the model's record, its result under ``result`` on a record whose backend role
    is ``function`` though its message says ``role_type: assistant``: the call well formed, the result the tool's."""
    path = FIXTURES / "camel.agent_memory.lines-3-10-11-14.json"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["role_at_backend"] for r in records] == ["user", "assistant", "function", "assistant"]
    assert records[2]["message"]["role_type"] == "assistant" and records[2]["message"]["content"] == ""
    (doc,) = read(path)
    messages = doc.metadata["messages"]
    assert [(m["role"], m["observation"]) for m in messages] == [
        ("user", False), ("assistant", False), ("tool", True), ("assistant", False)]
    (call,) = messages[1]["tool_calls"]
    assert (call["name"], call["id"]) == (records[1]["message"]["func_name"], records[1]["message"]["tool_call_id"])
    assert json.loads(call["arguments"]) == {"ref": "e4079"}  # the literal ``{'ref': 'e4079'}`` as JSON
    assert json.loads(messages[2]["content"]) == records[2]["message"]["result"]  # a result that is data, as JSON
    assert messages[2]["tool_call_id"] == call["id"] and messages[1]["tool_call_id"] == ""
    assert messages[3]["content"] == records[3]["message"]["content"]


def test_a_log_whose_type_names_the_person_and_a_model_reads_the_models_kind_by_its_model_field(tmp_path):
    """Gemini CLI's session JSON (layout from the tool's own ``ConversationRecord`` / ``MessageRecord`` /
    ``ToolCallRecord`` types, google-gemini/gemini-cli@5411f113cafae26161b4969b0237b8e1e024e2c2
    packages/core/src/services/chatRecordingTypes.ts, Apache-2.0; no published session file was found to cut
    from): ``type: user`` and ``type: gemini`` messages, the model's naming its ``model`` and keeping its calls
    with their results inside (``toolCalls: [{id, name, args, result: [{functionResponse}]}]``); an ``info``
    note names no model and stays out."""
    call = {"id": "c1", "name": "list_directory", "args": {"path": "."}, "status": "success",
            "result": [{"functionResponse": {"id": "c1", "name": "list_directory", "response": {"output": "a.py b.py"}}}]}
    session = {"sessionId": "s1", "projectHash": "h", "startTime": "t0", "lastUpdated": "t3", "messages": [
        {"id": "u1", "timestamp": "t0", "type": "user", "content": "List the files in this folder"},
        {"id": "g1", "timestamp": "t1", "type": "gemini", "content": "", "toolCalls": [call], "thoughts": [],
         "model": "gemini-2.5-pro"},
        {"id": "i1", "timestamp": "t2", "type": "info", "content": "Request cancelled."},
        {"id": "g2", "timestamp": "t3", "type": "gemini", "content": "There are two files: a.py and b.py.",
         "model": "gemini-2.5-pro"}]}
    path = tmp_path / "session-2026-01-01T00-00-s1.json"
    path.write_text(json.dumps(session))
    (doc,) = read(path)
    messages = doc.metadata["messages"]
    assert [(m["role"], m["observation"]) for m in messages] == [
        ("user", False), ("assistant", False), ("tool", True), ("assistant", False)]
    assert [c["name"] for c in messages[1]["tool_calls"]] == ["list_directory"]
    assert (messages[2]["content"], messages[2]["tool_call_id"]) == ("a.py b.py", "c1")
    assert messages[3]["content"] == "There are two files: a.py and b.py."


def test_an_append_only_session_keeps_a_rewritten_record_once_and_the_models_lines_by_their_model_field(tmp_path):
    """Gemini CLI's newer session JSONL (the same types; the service appends: a header line, ``$set`` updates, a
    message appended again once its calls finished, the last copy holding all the first did): one run, the
    model's lines read by their ``model`` field, the re-written reply once."""
    lines = [{"sessionId": "s1", "projectHash": "h", "startTime": "t0", "lastUpdated": "t0", "kind": "main"},
             {"id": "u1", "timestamp": "t1", "type": "user", "content": [{"text": "List the files in this folder"}]},
             {"$set": {"lastUpdated": "t2"}},
             {"id": "g1", "timestamp": "t3", "type": "gemini", "content": "", "model": "gemini-2.5-pro"},
             {"id": "g1", "timestamp": "t3", "type": "gemini", "content": "", "model": "gemini-2.5-pro", "toolCalls": [
                 {"id": "c1", "name": "list_directory", "args": {"path": "."}, "status": "success", "result": [
                     {"functionResponse": {"id": "c1", "name": "list_directory", "response": {"output": "a.py b.py"}}}]}]},
             {"id": "g2", "timestamp": "t4", "type": "gemini", "content": "There are two files: a.py and b.py.",
              "model": "gemini-2.5-pro"}]
    path = tmp_path / "session-s1.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines))
    (doc,) = read(path)
    messages = doc.metadata["messages"]
    assert [(m["role"], len(m["tool_calls"])) for m in messages] == [
        ("user", 0), ("assistant", 1), ("tool", 0), ("assistant", 0)]
    assert messages[2]["content"] == "a.py b.py" and messages[3]["content"].startswith("There are two files")


def test_typed_call_and_result_parts_with_hyphenated_kinds_are_calls_and_results(tmp_path):
    """The Vercel AI SDK's ModelMessage list (layout from the SDK's own ``ToolCallPart`` / ``ToolResultPart``
    types, vercel/ai@ed857f50f112e23930b0c2dd8d532cc8bebbc911 packages/provider-utils/src/types/content-part.ts,
    Apache-2.0; no saved message list was found to cut from): ``{type: tool-call, toolCallId, toolName, input}``
    in the assistant's content, ``{type: tool-result, toolCallId, toolName, output: {type: text, value}}`` in the
    tool's; chat content would have dropped both."""
    messages_in = [
        {"role": "user", "content": "What time is it on the server?"},
        {"role": "assistant", "content": [{"type": "text", "text": "Checking."},
                                          {"type": "tool-call", "toolCallId": "call_1", "toolName": "shell_command",
                                           "input": {"command": "date"}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "call_1", "toolName": "shell_command",
                                      "output": {"type": "text", "value": "Fri Jun 26 23:56:08 CEST 2026"}}]},
        {"role": "assistant", "content": "It is Friday evening on the server."}]
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(messages_in))
    (doc,) = read(path)
    messages = doc.metadata["messages"]
    assert [(m["role"], m["observation"]) for m in messages] == [
        ("user", False), ("assistant", False), ("tool", True), ("assistant", False)]
    (call,) = messages[1]["tool_calls"]
    assert (call["id"], call["name"], json.loads(call["arguments"])) == ("call_1", "shell_command", {"command": "date"})
    assert (messages[2]["content"], messages[2]["tool_call_id"]) == ("Fri Jun 26 23:56:08 CEST 2026", "call_1")


def test_a_messages_role_in_a_child_record_and_a_part_keeping_its_call_with_its_state():
    """opencode's session export (victoryforphil/dark-factory, MIT; its messages 1, 4 and 47 of 47): each message
    ``{info: {role, ...}, parts: [...]}``, a tool part ``{type: tool, tool, callID, state: {status, input,
    output}}``: the role is the child record's, the part a call whose output follows as the tool's turn (the run
    had been refused ``no_task``, its person's request and calls unread); a ``reasoning`` part is the turn's
    reasoning, not its text."""
    path = FIXTURES / "dark-factory.opencode-session-crisp-garden.messages-1-4-47.json"
    export = json.loads(path.read_text())
    assert [m["info"]["role"] for m in export["messages"]] == ["user", "assistant", "assistant"]
    tool = next(part for part in export["messages"][1]["parts"] if part["type"] == "tool")
    (doc,) = read(path)
    messages = doc.metadata["messages"]
    assert [(m["role"], m["observation"]) for m in messages] == [
        ("user", False), ("assistant", False), ("tool", True), ("assistant", False)]
    assert messages[0]["content"].startswith("Update the newly made @core/ Elysia Bun app")
    (call,) = messages[1]["tool_calls"]
    assert (call["id"], call["name"]) == (tool["callID"], tool["tool"])
    assert json.loads(call["arguments"]) == tool["state"]["input"]
    assert (messages[2]["content"], messages[2]["tool_call_id"]) == (tool["state"]["output"], tool["callID"])
    thought = next(part["text"] for part in export["messages"][1]["parts"] if part["type"] == "reasoning")
    assert messages[1]["reasoning"] == thought and messages[1]["content"] == ""  # its reasoning part is no text
