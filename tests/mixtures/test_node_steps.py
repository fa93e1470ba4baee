"""A graph's run logged node by node (``transcript_formats.piped``): each record a node's input and output
written with ``str()``, a node's input being what the node before it returned.

The records are printed by pydantic itself (LangChain's messages are pydantic models: ``str(message)`` is
pydantic's ``content='...' name='...'``, a list's ``str()`` its items' ``repr()``), as a LangGraph logger writes
them (the spent tenth holdout's Ukrainian travel agent, Ruskova-Lana/goit-agents-hw-02@2d3e1d2e, has no licence:
it is read in the development corpus, ``bench.traces_dev_corpus``, 15 of 15)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from tests.mixtures.reading import read_documents as read


class HumanMessage(BaseModel):
    content: str
    additional_kwargs: dict = {}
    response_metadata: dict = {}


class ToolMessage(BaseModel):
    content: str
    name: str
    tool_call_id: str


REQUESTS = ("I travel with a friend for 5 days at 80 euros a day each. What is the total budget?",
            "We need 2 rooms for 4 nights at 120 euros a night. What will the hotel cost?")


def node_records(request: str, number: int) -> list[dict]:
    """One request's four nodes: the model calls a tool, the tool answers, the model replies, a formatter
    node restates the reply."""
    call = {"name": "calculate", "args": {"request": number}, "id": f"call_{number}", "type": "tool_call"}
    result = ToolMessage(content=f"Estimated cost: {number * 400} euros.", name="calculate", tool_call_id=f"call_{number}")
    reply = [{"type": "text", "text": f"The cost comes to about {number * 400} euros in all."}]
    return [
        {"node_name": "agent", "input": str(HumanMessage(content=request)), "output": str([]), "tool_calls": [call]},
        {"node_name": "tools", "input": str([call]), "output": str([result]), "tool_calls": [call]},
        {"node_name": "agent", "input": str(result), "output": str(reply), "tool_calls": []},
        {"node_name": "formatter", "input": str(reply), "output": str({"answer": reply[0]["text"], "confidence": 1.0}),
         "tool_calls": []},
    ]


def test_what_a_node_was_passed_is_no_new_turn(tmp_path: Path) -> None:
    """Per request: the person's words once, the model's call, the tool's result (a tool turn answering the call
    by id), the model's reply and the formatter's answer; the inputs that repeat a node's output are not read."""
    steps = [step for number, request in enumerate(REQUESTS, 1) for step in node_records(request, number)]
    assert steps[2]["input"].startswith("content='Estimated cost") and steps[1]["output"].startswith("[ToolMessage("), "guard"
    path = tmp_path / "trajectory.json"
    path.write_text(json.dumps({"total_steps": len(steps), "trajectory": steps}))
    (doc,) = read(path)
    got = [(m["role"], m["content"], tuple(c["id"] for c in m["tool_calls"]), m["tool_call_id"])
           for m in doc.metadata["messages"]]
    expected = []
    for number, request in enumerate(REQUESTS, 1):
        text = f"The cost comes to about {number * 400} euros in all."
        expected += [("user", request, (), ""), ("assistant", "", (f"call_{number}",), ""),
                     ("tool", f"Estimated cost: {number * 400} euros.", (), f"call_{number}"),
                     ("assistant", text, (), ""), ("assistant", text, (), "")]
    assert got == expected
