"""Event logs and streamed chunks (``transcript_formats.events``) on real files; tests/fixtures/transcript_inputs/
README.md names each file's origin."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from tests.mixtures.reading import read_documents as read

INPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"
AUTOGEN = INPUTS / "autogen-agents-tutorial.cell-5.ipynb"
STREAM = INPUTS / "pydantic-ai.openai-stream-chunks.jsonl"


def printed_events(path: Path) -> list[ast.Call]:
    """The events the notebook printed, parsed with the standard ``ast`` module (the repr is Python syntax)."""
    (cell,) = json.loads(path.read_text())["cells"]
    text = "".join(cell["outputs"][0]["text"])
    return ast.parse(text, mode="eval").body.elts


def fields(call: ast.Call) -> dict:
    return {k.arg: k.value for k in call.keywords}


def test_a_printed_autogen_run_is_read_event_by_event() -> None:
    """Each ``TextMessage`` is its source's turn, a ``ToolCallRequestEvent`` the model's calls, each result of a
    ``ToolCallExecutionEvent`` a tool turn answering its call by id; the ``type`` of every event names its kind."""
    events = printed_events(AUTOGEN)
    kinds = [e.func.id for e in events]
    assert {"TextMessage", "ToolCallRequestEvent", "ToolCallExecutionEvent"} <= set(kinds), "guard"
    expected = []
    for event in events:
        content = fields(event)["content"]
        if isinstance(content, ast.List) and event.func.id.endswith("RequestEvent"):
            expected.append(("assistant", tuple(ast.literal_eval(fields(c)["id"]) for c in content.elts), ""))
        elif isinstance(content, ast.List):
            expected += [("tool", (), ast.literal_eval(fields(c)["call_id"])) for c in content.elts]
        else:
            side = "user" if ast.literal_eval(fields(event)["source"]) == "user" else "assistant"
            expected.append((side, (), ""))
    (doc,) = read(AUTOGEN)
    messages = doc.metadata["messages"]
    assert [(m["role"], tuple(c["id"] for c in m["tool_calls"]), m["tool_call_id"]) for m in messages] == expected
    (call,) = messages[1]["tool_calls"]
    assert (call["name"], json.loads(call["arguments"])) == ("web_search", {"query": "AutoGen"})
    assert messages[2]["observation"] and not messages[0]["observation"]


def test_streamed_chunks_are_merged_into_the_messages_the_client_assembled() -> None:
    """A run saved chunk by chunk reads as whole messages: the call the SDK assembled from its pieces (the next
    request of the recording) and the answer pydantic-ai's own test asserts; no chunk is a turn of its own."""
    lines = [json.loads(line) for line in STREAM.read_text().splitlines()]
    chunks = [line for line in lines if line.get("object") == "chat.completion.chunk"]
    assert len(chunks) == 19 and len(lines) - len(chunks) == 2, "guard: the file is chunks around two messages"
    (doc,) = read(STREAM)
    messages = doc.metadata["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    (call,) = messages[1]["tool_calls"]
    assert (call["id"], call["name"], call["arguments"]) == ("call_ZR5UUuTt3pf61kjwAJIYdVMj", "get_capital",
                                                             '{"country":"UK"}')
    assert messages[2]["tool_call_id"] == call["id"] and messages[2]["content"] == "London"
    assert messages[3]["content"] == "The capital of the UK is London."
