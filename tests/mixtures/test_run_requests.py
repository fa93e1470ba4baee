"""Where a run's request sits when no user turn sets it, and records whose parts name their kind (issue 45,
round 9): each property checked on real files (tests/fixtures/transcript_inputs/README.md names source,
commit and licence), against what the file itself says (``json``/``yaml``/``re``), never against our reader."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
import yaml

from codemix.document import Document, Quarantined
from codemix.mixtures.transcript_formats.markers import printed_histories, printed_objects
from codemix.pipelines.readers import read_location
from codemix.sources import ReadLimits, SourceConfig

INPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"
PRINTED = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "printed-messages"
SOURCE = SourceConfig(name="runs", type="transcripts", paths=["unused"], limits=ReadLimits(max_file_bytes=50_000_000))


def read(path: Path) -> tuple[list[Document], list[Quarantined]]:
    outcomes = list(read_location(SOURCE, str(path)))
    return ([o for o in outcomes if isinstance(o, Document)], [o for o in outcomes if isinstance(o, Quarantined)])


def squeeze(text: str) -> str:
    return " ".join(text.split())


def lavague_steps(notebook: dict) -> list[str]:
    """The World Model steps the run's cell printed: each ``- INFO - Thoughts:`` record and its lines."""
    output = "".join("".join(o.get("text", "")) for c in notebook["cells"] for o in c.get("outputs", [])
                     if c["cell_type"] == "code" and "lavague-qa --headless" in "".join(c["source"]))
    return re.findall(r"^\d{4}-\d\d-\d\d [\d:,]+ - INFO - (Thoughts:\n.*?)(?=^\d{4}-\d\d-\d\d |\Z)", output,
                      re.MULTILINE | re.DOTALL)


def test_a_run_takes_its_request_from_the_file_the_notebook_showed_its_agent():
    """LaVague's notebook shows the feature file (``!cat demo_wikipedia.feature``), then runs the agent on it
    (``!lavague-qa ... --feature ./demo_wikipedia.feature``): the shown file is the request, context before
    every step the agent wrote (was quarantined ``no_task``)."""
    path = INPUTS / "lavague.demo_lavague_QA.ipynb"
    notebook = json.loads(path.read_text())
    shown = next("".join(o.get("text", "")) for c in notebook["cells"] if c["cell_type"] == "code"
                 and "".join(c["source"]).startswith("!cat demo_wikipedia.feature") for o in c["outputs"])
    steps = lavague_steps(notebook)
    assert shown.startswith("Feature: Wikipedia Login") and len(steps) >= 4  # the fixture holds both
    docs, quarantined = read(path)
    assert not quarantined and len(docs) == 1
    messages = docs[0].metadata["messages"]
    assert messages[0]["role"] == "user" and squeeze(messages[0]["content"]) == squeeze(shown)
    assert [m["role"] for m in messages[1:]] == ["assistant"] * len(steps)


def test_a_run_no_request_reaches_opens_with_the_models_own_statement_as_context():
    """The same run's cell alone (no cell shows the feature file): the agent's first step, prose that states
    the objective, is the context the other steps answer (a user turn, never trained); nothing invented."""
    path = INPUTS / "lavague.demo_lavague_QA.cell-9.ipynb"
    steps = lavague_steps(json.loads(path.read_text()))
    assert len(steps) >= 4 and "objective" in steps[0].lower()  # the first step says what it was asked
    docs, quarantined = read(path)
    assert not quarantined and len(docs) == 1
    messages = docs[0].metadata["messages"]
    assert [m["role"] for m in messages] == ["user"] + ["assistant"] * (len(steps) - 1)
    assert squeeze(steps[0]) in squeeze(messages[0]["content"])
    assert docs[0].metadata["transcript"]["task_from"] == "statement"


def test_a_run_that_opens_with_an_action_and_no_request_stays_no_task():
    """AgentGym's MCP trajectories keep only moves (``right``, ``up``) and their observations: no request and
    no statement, so each episode stays quarantined ``no_task`` (nothing is invented)."""
    path = INPUTS / "agentgym.agentenv-mcp-trajectories.json"
    episodes = json.loads(path.read_text())["episodes"]
    assert all(len(e["transitions"][0]["action"].split()) == 1 for e in episodes)
    docs, quarantined = read(path)
    assert not docs and len(quarantined) == len(episodes) and all("no_task" in q.error for q in quarantined)


def test_a_gemini_request_reads_its_system_instruction_parts():
    """pydantic-ai's recorded Gemini calls keep the prompt in ``systemInstruction: {parts: [{text}]}`` beside
    ``contents`` whose user text is empty: that instruction is the run's request (was ``no_task``); the calls
    re-send the growing conversation, which is one run read at its longest."""
    path = INPUTS / "pydantic-ai.cassette-google-instructions-only-with-tool-calls.yaml"
    bodies = [i["request"]["parsed_body"] for i in yaml.safe_load(path.read_text())["interactions"]]
    instruction = bodies[-1]["systemInstruction"]["parts"][0]["text"]
    calls = sum(1 for c in bodies[-1]["contents"] for p in c["parts"] if "functionCall" in p)
    assert instruction.startswith("Tell three jokes") and calls >= 4
    docs, quarantined = read(path)
    assert not quarantined and len(docs) == 1  # each request re-sends the conversation, longer: one run
    messages = docs[0].metadata["messages"]
    assert messages[0]["content"] == instruction and messages[0]["role"] == "user"
    assert sum(len(m["tool_calls"]) for m in messages) == calls


def test_printed_messages_of_kinded_parts_read_as_their_turns():
    """pydantic-ai's docs print a run as ``ModelRequest(parts=[UserPromptPart(...)])`` /
    ``ModelResponse(parts=[ToolCallPart(...)])`` (the repr leaves out ``kind``/``part_kind``): each part is
    the turn its class names, the request's ``instructions`` the system prompt."""
    path = INPUTS / "pydantic-ai.docs-tools.lines-1-158.md"
    text = path.read_text()
    printed = text[text.index('"""\n[') : text.rindex(']\n"""')]
    calls = re.findall(r"ToolCallPart\(\s*tool_name='(\w+)'", printed)
    returns = re.findall(r"ToolReturnPart\(\s*tool_name='\w+',\s*content='([^']*)'", printed)
    asked = re.findall(r"UserPromptPart\(\s*content='([^']*)'", printed)
    answer = re.findall(r"TextPart\(\s*content=\"([^\"]*)\"", printed)
    instructions = re.search(r"instructions=\(\s*\"([^\"]*)\"", text)
    assert len(calls) == len(returns) == 2 and asked and answer and instructions  # the fixture holds them
    docs, quarantined = read(path)
    assert not quarantined and len(docs) == 1
    messages = docs[0].metadata["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert messages[0]["content"].startswith(instructions.group(1))
    assert messages[1]["content"] == asked[0] and messages[-1]["content"] == answer[0]
    assert [c["name"] for m in messages for c in m["tool_calls"]] == calls
    assert [m["content"] for m in messages if m["role"] == "tool"] == returns


@pytest.mark.timeout(120)  # a hang guard (comparing every pair of printed histories was quadratic)
def test_printed_histories_keep_each_run_once_when_printed_many_times():
    """watsonx's flow log printed one history per iteration, each repeating the one before: the histories a
    longer one begins with are left out. Printed 100 times between other lines (900 messages), every copy
    reads the same runs as the file alone, and a reprint extended by one message drops the history it extends.
    (Its cost on 10,000 messages: bench/RESULTS.md, "Issue 45, round 9".)"""
    text = (PRINTED / "watsonx.Flow-OneLLMOneAgent.md").read_text()
    alone = printed_histories(text)
    assert len(printed_objects(text)) == 9 and len(alone) >= 1
    copies = 100
    many = printed_histories("\n\nnext run:\n".join([text] * copies))
    assert len(many) == copies * len(alone) and many[: len(alone)] == alone
    spans = printed_objects(text)
    last_start, last_end, _ = spans[-1]
    extended = printed_histories(text + "\n\nand again:\n" + text[spans[0][0]:last_end] + ",\n" + text[last_start:last_end])
    assert len(extended) == len(alone)  # the longer reprint replaced the history it began with


def test_rounds_that_hold_their_turns_under_keys_are_one_conversation():
    """ADK's eval set keeps each invocation as ``{user_content, final_response, intermediate_data: {tool_uses,
    intermediate_responses}}``: one conversation, per invocation the person's words, the calls and the
    sub-agents' replies logged in it, then the final response (was: the call lists alone, ``no_task``)."""
    path = INPUTS / "adk-samples.travel-concierge-pretrip.test.json"
    invocations = [inv for case in json.loads(path.read_text())["eval_cases"] for inv in case["conversation"]]
    assert len(invocations) >= 2 and any(inv["intermediate_data"]["tool_uses"] for inv in invocations)
    docs, quarantined = read(path)
    assert not quarantined and len(docs) == 1
    messages = docs[0].metadata["messages"]
    assert [m["content"] for m in messages if m["role"] == "user"] == [
        inv["user_content"]["parts"][0]["text"] for inv in invocations]
    assert [c["name"] for m in messages for c in m["tool_calls"]] == [
        use["name"] for inv in invocations for use in inv["intermediate_data"]["tool_uses"]]
    finals = [inv["final_response"]["parts"][0]["text"] for inv in invocations]
    assert [m["content"] for m in messages if m["role"] == "assistant" and m["content"] in finals] == finals
    assert messages[-1]["content"] == finals[-1]


def test_a_table_of_turns_whose_roles_are_names_is_a_multi_party_dialogue():
    """A simulation's CSV (``turn,speaker,role,message,...``) whose ``role`` column names people (``guard``,
    ``prisoner``, ``warden``): the chat adapter refuses the roles, and the rows are a dialogue of named speakers
    (the speaker changes at most turns), read as a multi-agent log: every row one turn, in order, under its
    name (was quarantined as no layout)."""
    path = INPUTS / "socialpsychologyarena.conversation.csv"
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    assert len(rows) >= 20 and {r["role"] for r in rows} == {"guard", "prisoner", "warden"}
    docs, quarantined = read(path)
    assert not quarantined and len(docs) == 1
    messages = docs[0].metadata["messages"]
    assert [m["content"] for m in messages] == [r["message"] for r in rows]
    assert [m["name"] for m in messages] == [r["role"] for r in rows]
    assert messages[0]["role"] == "user" and {m["role"] for m in messages[1:]} <= {"user", "assistant"}


def test_a_traced_generation_reads_its_messages_not_its_token_counts():
    """Langfuse's GENERATION observations keep the call's messages as JSON strings (``input``: system and user,
    ``output``: the assistant's message) beside ``usageDetails: {input: "337", output: "57"}``: the call is the
    messages; token counts are no call's words (they were read as a user's "337" and a model's "57")."""
    path = INPUTS / "phase2-day5-multi-agent-lab.trace.rows-1-4.json"
    generations = [o for o in json.loads(path.read_text()) if o["type"] == "GENERATION"]
    assert len(generations) == 2 and all(o["usageDetails"] for o in generations)
    docs, quarantined = read(path)
    assert len(docs) == len(generations) and len(quarantined) == 2  # the CHAIN rows: no conversation
    for doc, generation in zip(docs, generations):
        sent, returned = json.loads(generation["input"]), json.loads(generation["output"])
        messages = doc.metadata["messages"]
        assert [(m["role"], m["content"]) for m in messages] == [
            *((m["role"], m["content"]) for m in sent), ("assistant", returned["content"])]
