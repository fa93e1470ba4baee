"""Trace exports (``transcript_formats.traces``): the spans of one traced run read as one run, on two real
Langfuse exports (tests/fixtures/transcript_inputs/README.md). Expectations come from the raw file with plain
``json``: the last model call (``GENERATION``, by start time) was sent the whole conversation."""

from __future__ import annotations

import json
from pathlib import Path

from tests.mixtures.reading import read_documents as read

INPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"
KOOG = INPUTS / "langfuse-koog-trace.json"
LANGGRAPH = INPUTS / "langfuse-langgraph-trace.json"
LLAMAINDEX = INPUTS / "langfuse-llamaindex-trace.json"
OPENAI_AGENTS = INPUTS / "langfuse-openai-agents-trace.json"
LANGSMITH = INPUTS / "langsmith-run-post-patch.json"


def last_call(path: Path) -> dict:
    generations = [o for o in json.loads(path.read_text())["observations"] if o["type"] == "GENERATION"]
    assert len(generations) == 2, "guard: two model calls, each holding the conversation so far"
    return max(generations, key=lambda o: o["startTime"])


def test_a_trace_is_one_run_its_calls_shown_under_the_tool_role_are_the_models() -> None:
    """Koog's export lists each call the model made as a ``role: tool`` turn whose content is the calls
    (``[{id, type: function, function: {name, arguments}}]``): they are the model's calls; each following tool
    turn is the result. One transcript for the trace, not one per span holding a view of it."""
    call = last_call(KOOG)
    sent = call["input"]
    listed = [m for m in sent if m["role"] == "tool" and isinstance(m["content"], list)]
    assert listed and all("function" in c for m in listed for c in m["content"]), "guard"
    (doc,) = read(KOOG)
    got = [(m["role"], m["content"], [c["name"] for c in m["tool_calls"]]) for m in doc.metadata["messages"]]
    expected = []
    for m in sent:
        if m["role"] == "tool" and isinstance(m["content"], list):
            expected.append(("assistant", "", [c["function"]["name"] for c in m["content"]]))
        else:
            expected.append((m["role"], m["content"], []))
    expected += [("assistant", m["content"], []) for m in call["output"]]
    assert got == expected


def test_a_langchain_message_keeps_its_calls_in_additional_kwargs_and_a_declaration_is_no_result() -> None:
    """LangGraph's view: the model's calls under ``additional_kwargs.tool_calls``, a search result that is data
    (kept as its JSON), a tool's declaration (``{type: function, function: {name, description, parameters}}``)
    listed as a tool turn, which is no result: left out."""
    call = last_call(LANGGRAPH)
    sent = call["input"]
    declared = [m for m in sent if m["role"] == "tool" and isinstance(m["content"], dict)]
    assert declared and "parameters" in declared[0]["content"]["function"], "guard"
    (doc,) = read(LANGGRAPH)
    got = [(m["role"], m["content"], [c["id"] for c in m["tool_calls"]], m["tool_call_id"]) for m in doc.metadata["messages"]]
    expected = []
    for m in sent:
        if m in declared:
            continue
        if m["role"] == "tool":
            expected.append(("tool", json.dumps(m["content"], ensure_ascii=False), [], m["tool_call_id"]))
        else:
            calls = [c["id"] for c in m.get("additional_kwargs", {}).get("tool_calls", [])]
            expected.append((m["role"], m["content"], calls, ""))
    expected.append(("assistant", call["output"]["content"], [], ""))
    assert got == expected


def test_a_span_whose_kind_says_model_call_is_a_call_though_it_has_a_name() -> None:
    """LlamaIndex's completion is a ``GENERATION`` named ``OpenAI.complete`` (a name beside input and output is
    otherwise a tool's event): its kind makes it a model call; its input is the traced function's captured
    arguments (``{args: [prompt], kwargs: {}}``), whose text is the prompt."""
    (call,) = [o for o in json.loads(LLAMAINDEX.read_text())["observations"] if o["type"] == "GENERATION"]
    assert call["name"] and set(call["input"]) == {"args"}, "guard"
    (doc,) = read(LLAMAINDEX)
    assert [(m["role"], m["content"]) for m in doc.metadata["messages"]] == [
        ("user", call["input"]["args"][0]), ("assistant", call["output"])]


def test_responses_items_a_call_was_sent_and_the_responses_object_it_returned() -> None:
    """The OpenAI Agents SDK's model calls send Responses API items (the model's earlier ``function_call`` and its
    ``function_call_output`` beside the messages) and return a Responses object (``output: [message ...]``):
    a call item is the model's call, an output item the tool's turn answering it by id."""
    call = last_call(OPENAI_AGENTS)
    kinds = [item.get("type", "message") for item in call["input"]]
    assert kinds == ["message", "function_call", "function_call_output"], "guard"
    (doc,) = read(OPENAI_AGENTS)
    got = [(m["role"], m["content"], [c["name"] for c in m["tool_calls"]], m["tool_call_id"])
           for m in doc.metadata["messages"]]
    user, called, returned = call["input"]
    (reply,) = call["output"]["output"]
    assert got == [("user", user["content"], [], ""), ("assistant", "", [called["name"]], ""),
                   ("tool", returned["output"], [], returned["call_id"]),
                   ("assistant", reply["content"][0]["text"], [], "")]


def test_a_langsmith_run_s_inputs_and_outputs_are_its_call() -> None:
    """A LangSmith run (``run_type: llm``) keeps what the model was sent under ``inputs: {model, messages}`` and
    what it returned under ``outputs`` (here a chat completion): the run is a call record, read once though the
    SDK posted it (``post``, no outputs yet) and patched it (``patch``, with them)."""
    runs = json.loads(LANGSMITH.read_text())
    (posted,), (patched,) = runs["post"], runs["patch"]
    assert posted["run_type"] == "llm" and "outputs" not in posted and "messages" in patched["inputs"], "guard"
    (doc,) = read(LANGSMITH)
    assert [(m["role"], m["content"]) for m in doc.metadata["messages"]] == [
        *((m["role"], m["content"]) for m in patched["inputs"]["messages"]),
        ("assistant", patched["outputs"]["choices"][0]["message"]["content"])]
