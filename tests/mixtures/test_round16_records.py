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


def test_events_another_tool_exported_in_lossy_wrappers_are_read_as_the_events(tmp_path):
    """JoakimCarlsson/wasa-cli@0827cd61 transcript.jsonl (rebuilt in its keys, texts cut short): each line
    ``{role, content, timestamp, raw}`` whose ``raw`` is a GitHub Copilot CLI session event (``user.message``,
    ``assistant.message`` listing ``toolRequests``, ``tool.execution_complete`` with a ``result`` or a failed call's
    ``error``, hooks and turn markers), the wrapper's own role and content empty or a summary. 6 of 305 messages
    were read, 1,059 lines quarantined one by one. (The file's ``tool.execution_start`` events, which repeat each
    call, are left out as a kind only some of whose events read; a lone one would read as the model's words: left.)"""
    def event(kind, **data):
        return {"type": kind, "data": data, "id": kind, "timestamp": "2026-07-15T18:53:39Z"}
    events = [
        event("session.start", sessionId="1978f925", producer="copilot-agent", context={"cwd": "/home/j/w"}),
        event("hook.start", hookType="userPromptSubmitted", input={"prompt": "fix issue 143"}),
        event("system.message", role="system", content="You are the GitHub Copilot CLI, a terminal assistant."),
        event("user.message", content="Please fix issue 143 in this repository", interactionId="a4e2"),
        event("assistant.turn_start", turnId="0", interactionId="a4e2"),
        event("assistant.message", messageId="m1", model="claude-sonnet-5", content="",
              toolRequests=[{"toolCallId": "toolu_1", "name": "bash", "arguments": {"command": "gh issue view 143"},
                             "type": "function"}], reasoningText="I need the issue."),
        event("tool.execution_complete", toolCallId="toolu_1", model="claude-sonnet-5", success=True,
              result={"content": "issue 143: bring every agent to parity"}),
        event("assistant.message", messageId="m2", model="claude-sonnet-5", content="",
              toolRequests=[{"toolCallId": "toolu_2", "name": "grep", "arguments": {"pattern": "agent"},
                             "type": "function"}]),
        event("tool.execution_complete", toolCallId="toolu_2", model="claude-sonnet-5", success=False,
              error={"message": "rg: /tmp: Permission denied"}),
        event("assistant.message", messageId="m3", model="claude-sonnet-5", content="The issue is fixed now."),
        event("assistant.turn_end", turnId="0"),
    ]
    path = tmp_path / "transcript.jsonl"
    path.write_text("".join(json.dumps({"role": e["data"].get("role", "user" if e["type"] == "user.message" else ""),
                                        "content": e["data"].get("content", "") if isinstance(
                                            e["data"].get("content"), str) else "",
                                        "timestamp": e["timestamp"], "raw": e}) + "\n" for e in events))
    [doc] = read(path)
    messages = doc.metadata["messages"]
    assert [(m["role"], len(m["tool_calls"])) for m in messages] == [
        ("system", 0), ("user", 0), ("assistant", 1), ("tool", 0), ("assistant", 1), ("tool", 0), ("assistant", 0)]
    assert (messages[3]["tool_call_id"], messages[5]["tool_call_id"]) == ("toolu_1", "toolu_2")
    assert "Permission denied" in messages[5]["content"] and messages[2]["reasoning"] == "I need the issue."


def test_an_ide_agents_steps_take_their_side_from_the_source_and_a_tools_kind_step_is_its_result(tmp_path):
    """MohitMadhu1/Eager@2fcb0bc1 transcript.jsonl (an IDE agent's trajectory; rebuilt in its keys, texts cut
    short): steps ``{step_index, source: USER_EXPLICIT | MODEL | SYSTEM, type, content, thinking, tool_calls}``;
    the model's ``PLANNER_RESPONSE`` calls ``list_dir``, the next step of type ``LIST_DIRECTORY`` holds its output.
    No line was read (each quarantined as no transcript)."""
    steps = [
        {"source": "USER_EXPLICIT", "type": "USER_INPUT", "content": "<USER_REQUEST>Build a bookmarks app</USER_REQUEST>"},
        {"source": "SYSTEM", "type": "CONVERSATION_HISTORY"},
        {"source": "MODEL", "type": "PLANNER_RESPONSE", "thinking": "Let me look at the workspace first.",
         "tool_calls": [{"name": "list_dir", "args": {"DirectoryPath": "/w"}}]},
        {"source": "MODEL", "type": "LIST_DIRECTORY", "content": "Created At: now\n{\"name\":\".git\",\"isDir\":true}"},
        {"source": "SYSTEM", "type": "EPHEMERAL_MESSAGE", "content": "The following is not actually sent by the user."},
        {"source": "MODEL", "type": "PLANNER_RESPONSE", "content": "The workspace is empty; I will scaffold the app."},
    ]
    path = tmp_path / "transcript.jsonl"
    path.write_text("".join(json.dumps({"step_index": i, "status": "DONE", **s}) + "\n" for i, s in enumerate(steps)))
    [doc] = read(path)
    messages = doc.metadata["messages"]
    assert [(m["role"], m["observation"]) for m in messages] == [
        ("user", False), ("assistant", False), ("tool", True), ("system", False), ("assistant", False)]
    assert messages[1]["tool_calls"][0]["name"] == "list_dir" and messages[2]["tool_call_id"] == (
        messages[1]["tool_calls"][0]["id"])


def test_a_round_keeps_the_apis_own_response_under_a_key_that_names_one():
    """KonstantinData/gpt4o-coding-failure-probe (MIT) openrouter_interaction.json, its meta, first turn and
    verification unchanged (the fifteenth traces holdout's row, spent at its 22:20 run): ``turns: [{turn,
    user_message, expected_outcome, raw_api_response: {object: chat.completion, choices: [{message}]}}]``. No turn
    list was found: ``raw_api_response`` is no response key of the vocabulary, but holds an API's own response."""
    path = INPUTS / "gpt4o-coding-failure-probe.openrouter_interaction.turn-1.json"
    turn = json.loads(path.read_text())["turns"][0]
    assert "choices" in turn["raw_api_response"]  # the fixture holds what the test is about
    [doc] = read(path)
    asked, answered = doc.metadata["messages"]
    assert (asked["role"], asked["content"]) == ("user", turn["user_message"])
    assert answered["role"] == "assistant"
    assert answered["content"] == turn["raw_api_response"]["choices"][0]["message"]["content"]


def test_a_chatgpt_tree_a_javascript_module_assigns_is_read(tmp_path):
    """LLMFarm/llmfarm-front@e8161965 src/view/chatbot/dialog/dialog-data.js (the fifteenth traces holdout's row,
    spent at its 22:20 run; ZPL, so rebuilt in its keys, texts cut short): ``export const dialogData = {<node id>:
    {id, message: {author: {role}, content: {content_type, parts}}, parent, children}}``, ChatGPT's ``mapping``
    as the module's one value, its root naming no parent. Quarantined as no JSON; the tree, once found, needed
    every node to name a parent."""
    def node(node_id, parent, children, role=None, text=""):
        out = {"id": node_id, "children": children, **({"parent": parent} if parent else {})}
        if role:
            out["message"] = {"id": node_id, "author": {"role": role, "metadata": {}},
                              "content": {"content_type": "text", "parts": [text]}, "weight": 1, "metadata": {}}
        return out
    tree = {"root": node("root", None, ["u1"]),
            "u1": node("u1", "root", ["a1", "a2"], "user", "How do I repair a broken jpg?"),
            "a1": node("a1", "u1", [], "assistant", "An earlier answer, regenerated."),
            "a2": node("a2", "u1", ["u2"], "assistant", "Try opening it in another viewer first."),
            "u2": node("u2", "a2", ["a3"], "user", "And if that fails?"),
            "a3": node("a3", "u2", [], "assistant", "Then recover the data with a repair tool.")}
    path = tmp_path / "dialog-data.js"
    path.write_text("export const dialogData = " + json.dumps(tree, indent=2, ensure_ascii=False) + "\n")
    [doc] = read(path)
    assert [(m["role"], m["content"]) for m in doc.metadata["messages"]] == [
        ("user", "How do I repair a broken jpg?"), ("assistant", "Try opening it in another viewer first."),
        ("user", "And if that fails?"), ("assistant", "Then recover the data with a repair tool.")]
    (tmp_path / "app.js").write_text("export const dialogData = " + json.dumps(tree) + ";\nrender(dialogData);\n")
    assert read(tmp_path / "app.js") == []  # a module that also runs code is a program, not data


# Values a record may hold where a message, its content or its kind is expected: real files' values moved around.
ODD_VALUES = ("a bare request", ["one", "two"], None, 7, 2.5, True, {"parts": [{"text": "nested"}]},
              {"content": {"content": "x"}}, [{"text": "t"}, "s", None, 3], {}, [], [[["deep"]]],
              {"role": "user", "content": None})


def value_paths(value, at=()):
    yield at
    children = value.items() if isinstance(value, dict) else enumerate(value[:4]) if isinstance(value, list) else ()
    for key, child in children:
        yield from value_paths(child, (*at, key))


def with_value(value, at, new):
    if not at:
        return new
    copy = json.loads(json.dumps(value))
    node = copy
    for step in at[:-1]:
        node = node[step]
    node[at[-1]] = new
    return copy


def fuzz_record_readers(values, samples):
    """Read each value with about ``samples`` of its leaves replaced in turn by every odd value; a shape error is a
    refusal, any other exception a crash. Returns how many mutations were read."""
    from codemix.mixtures.transcript_formats.canonical import TranscriptShapeError
    tried = 0
    for value in values:
        paths = list(value_paths(value))
        for at in paths[::max(1, len(paths) // samples)]:
            for odd in ODD_VALUES:
                tried += 1
                try:
                    parse_json_value(with_value(value, at, odd))
                except (TranscriptShapeError, ValueError, RecursionError):
                    pass
    return tried


def test_record_readers_never_crash_on_a_real_files_values_moved_around():
    """Each value of small real record files (the RunState, the OpenRouter probe, CAMEL's memory lines, an opencode
    export's messages) replaced in turn by a value of another shape (a bare string, a list of strings, null, a
    number, nested parts or content, a list of mixed items, an empty object): the readers read the record or
    refuse it with a shape error, never crash (a crash had cost a Gemini CLI report in round 15; this fuzz found
    a run item's list-valued ``type`` crashing the protocol-item reader)."""
    names = ("openai-agents-js.run-state.v1.17-side-effect-committed.json",
             "gpt4o-coding-failure-probe.openrouter_interaction.turn-1.json", "camel.agent_memory.lines-3-10-11-14.json",
             "dark-factory.opencode-session-crisp-garden.messages-1-4-47.json")
    values = []
    for name in names:
        text = (INPUTS / name).read_text(encoding="utf-8")
        values.append(json.loads(text) if not name.startswith("camel") else [json.loads(line) for line in text.splitlines()])
    tried = fuzz_record_readers(values, samples=40)
    assert tried > 1000
