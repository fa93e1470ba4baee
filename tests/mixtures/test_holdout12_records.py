"""Layouts of the spent twelfth traces holdout (issue 45 round 13, FIT), each read from the real file where it
has a licence (tests/fixtures/transcript_inputs/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

from codemix.document import Document
from codemix.pipelines.readers import read_location
from codemix.sources import SourceConfig

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"
BROWSER_USE = FIXTURES / "browser-use.AgentHistory.steps-1-2.json"


def read(path: Path) -> list[Document]:
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)])
    return [o for o in read_location(source, str(path)) if isinstance(o, Document)]


def test_a_steps_stated_state_is_the_models_words_and_each_action_gets_its_result():
    steps = json.loads(BROWSER_USE.read_text())["history"]
    state = steps[0]["model_output"]["current_state"]
    assert set(state) == {"evaluation_previous_goal", "memory", "next_goal"}  # the layout under test
    assert all(len(s["result"]) == len(s["model_output"]["action"]) for s in steps)
    (doc,) = read(BROWSER_USE)
    messages = doc.metadata["messages"]
    assert [(m["role"], len(m["tool_calls"])) for m in messages] == [
        ("assistant", 2), ("tool", 0), ("tool", 0), ("assistant", 2), ("tool", 0), ("tool", 0)]
    assert state["next_goal"] in messages[0]["content"] and state["memory"] in messages[0]["content"]
    assert messages[1]["content"] == steps[0]["result"][0]["extracted_content"]
    assert messages[2]["content"] == steps[0]["result"][1]["extracted_content"]
    assert doc.metadata["transcript"]["task_from"] == "opening_step"  # its memory says what it sets out to do


def test_a_session_whose_first_line_is_a_header_of_no_words_is_read_by_its_entries(tmp_path):
    """LHL3341/ResearchOS@da5ff32 conversation.jsonl (Claude Code 2.1.98; no licence: rebuilt in its keys): the file
    opens with a ``permission-mode`` record, a type no reader knew, holding no words; the entries after it decide
    the format (``claude-code``: one assistant message split over block records is one turn)."""
    session = "353c9443-3dab-4039-950c-e8dab6bdb77c"
    lines = [{"type": "permission-mode", "permissionMode": "default", "sessionId": session},
             {"parentUuid": None, "type": "user", "uuid": "u1", "sessionId": session,
              "message": {"role": "user", "content": "Summarise the failing test in tests/test_io.py please"}},
             {"parentUuid": "u1", "type": "assistant", "uuid": "a1", "sessionId": session,
              "message": {"id": "msg_1", "role": "assistant", "content": [{"type": "text", "text": "Reading it."}]}},
             {"parentUuid": "a1", "type": "assistant", "uuid": "a2", "sessionId": session,
              "message": {"id": "msg_1", "role": "assistant", "content": [
                  {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "tests/test_io.py"}}]}},
             {"parentUuid": "a2", "type": "user", "uuid": "u2", "sessionId": session,
              "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]}}]
    (tmp_path / "conversation.jsonl").write_text("\n".join(json.dumps(line) for line in lines))
    (doc,) = read(tmp_path / "conversation.jsonl")
    assert doc.metadata["format"] == "claude-code"
    assert [m["role"] for m in doc.metadata["messages"]] == ["user", "assistant", "tool"]


def test_events_that_name_their_kind_beside_the_role_are_calls_results_and_the_request(tmp_path):
    """open-hai/there-is-more-to-context-than-location-s6c6@ee36f7e transcript.jsonl (a Claude managed-agent
    session's events; no licence: rebuilt in its keys): ``{role, kind, content?, raw}`` lines; the person's
    ``define_outcome`` keeps its words in ``raw.description``; ``tool_use`` is the agent's call (``tool``, the
    arguments in ``content``), joined to the agent's turn before it; ``tool_result`` the tool's turn; a
    ``thinking`` event with no text and system spans are no turns."""
    lines = [{"role": "system", "kind": "status_running", "raw": {"type": "session.status_running"}},
             {"role": "user", "kind": "define_outcome", "raw": {"description": "Audit the reproducibility of this paper."}},
             {"role": "agent", "kind": "message", "content": "I'll start by identifying the paper behind that DOI."},
             {"role": "agent", "kind": "tool_use", "tool": "bash", "content": '{"command": "ls -la /workspace"}'},
             {"role": "system", "kind": "model_request_end", "raw": {"type": "span.model_request_end"}},
             {"role": "agent", "kind": "tool_result", "content": "total 20\nREADME.md"},
             {"role": "agent", "kind": "thinking", "raw": {"type": "agent.thinking"}},
             {"role": "agent", "kind": "message", "content": "The repository holds only a README; fetching the paper."}]
    (tmp_path / "transcript.jsonl").write_text("\n".join(json.dumps(line) for line in lines))
    (doc,) = read(tmp_path / "transcript.jsonl")
    messages = doc.metadata["messages"]
    assert [(m["role"], m["observation"]) for m in messages] == [
        ("user", False), ("assistant", False), ("tool", True), ("assistant", False)]
    assert messages[0]["content"] == "Audit the reproducibility of this paper."
    assert [c["name"] for c in messages[1]["tool_calls"]] == ["bash"]


def test_opentelemetry_genai_spans_are_one_run_of_messages_and_calls():
    """The spans' ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (JSON text) are the person's and the
    model's turns, ``tool.requested`` spans the model's calls (each call id once), in the order the spans started;
    spans of no message or call (a model change, a thought, a shell request) are no turns."""
    path = FIXTURES / "superopen-cursor-spans.lines-1-28.jsonl"
    spans = [json.loads(line) for line in path.read_text().splitlines()]
    said = [json.loads(s["attributes"][k]) for s in spans for k in ("gen_ai.input.messages", "gen_ai.output.messages")
            if k in s["attributes"]]
    calls = {s["attributes"]["gen_ai.tool.call.id"] for s in spans if "gen_ai.tool.call.id" in s["attributes"]}
    assert len(said) == 2 and len(calls) == 4  # one prompt, one reply, four calls between them
    (doc,) = read(path)
    messages = doc.metadata["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "assistant"]
    assert messages[0]["content"] == said[0][0]["parts"][0]["content"]
    assert {c["id"] for c in messages[1]["tool_calls"]} == calls
    assert messages[2]["content"] == said[1][0]["parts"][0]["content"]


def test_a_spans_bare_call_arguments_are_kept_whole_as_an_object():
    from codemix.mixtures.transcript_formats.genai_spans import call_arguments

    assert call_arguments('{"command": "ls"}') == '{"command": "ls"}'
    assert call_arguments("/Users/ishanjain/work/superopen/internal/eval/eval.go") == {
        "arguments": "/Users/ishanjain/work/superopen/internal/eval/eval.go"}  # read_file's path, as the hook logs it


def test_a_persons_prompt_after_a_call_only_model_turn_stays_the_persons_words():
    """The GenAI conventions give a tool's result the role ``tool``; the Cursor hook logs calls without their
    results, so a ``user`` message after a call-only turn is the person's next prompt, never the call's output
    (the position rule, ``canonical.flag_text_observations``, had flagged it: the prose filters never saw it)."""
    path = FIXTURES / "superopen-cursor-spans.lines-533-546.jsonl"
    spans = [json.loads(line) for line in path.read_text().splitlines()]
    prompts = [json.loads(s["attributes"]["gen_ai.input.messages"])[0]["parts"][0]["content"] for s in spans
               if "gen_ai.input.messages" in s["attributes"]]
    assert len(prompts) == 2 and not any("gen_ai.output.messages" in s["attributes"] for s in spans)
    (doc,) = read(path)
    messages = doc.metadata["messages"]
    assert [(m["role"], bool(m["tool_calls"])) for m in messages] == [
        ("user", False), ("assistant", True), ("user", False), ("assistant", True)]
    assert messages[2]["content"] == prompts[1]
    assert not any(m["observation"] for m in messages)
