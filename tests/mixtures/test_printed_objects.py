"""Printed Python objects (``printed``): SDK reprs and dict literals a notebook printed, read back as the JSON
records the transcript readers handle; Alpaca records with an empty input; several models taken through the
same rounds. Expectations come from the raw files with ``ast``, ``json`` and ``re``, never from the reader."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from codemix.document import Document
from codemix.mixtures.transcript_formats.printed import detect_printed_objects, parse_printed, printed_values
from tests.mixtures.reading import read_split as read

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
ANTHROPIC = FIXTURES / "printed-objects" / "anthropic-cookbook.tool_use.tool_choice.ipynb"
PEG = FIXTURES / "printed-objects" / "prompt-engineering-guide.pe-function-calling.ipynb"
CONVERSE = FIXTURES / "printed-messages" / "amazon-bedrock-samples.function_calling_with_converse.cells-40-54.ipynb"
ALPACA = FIXTURES / "exchanges" / "stanford_alpaca.seed_tasks.lines-1-7-10-11-12.jsonl"
VICUNA = FIXTURES / "page-data" / "chinese-vicuna.performance-chatv1.md"


def said(doc: Document) -> list[tuple[str, str, list[str]]]:
    return [(m["role"], m["content"].strip(), [c["name"] for c in m["tool_calls"]]) for m in doc.metadata["messages"]]


def code_cells(path: Path) -> list[tuple[str, str]]:
    """``(source, printed text)`` of every code cell, in order (the text '' when it printed nothing)."""
    cells = json.loads(path.read_text())["cells"]
    out = []
    for cell in cells:
        text = "".join("".join(o.get("text", []) or o.get("data", {}).get("text/plain", [])) for o in cell.get("outputs", []))
        if cell["cell_type"] == "code":
            out.append(("".join(cell["source"]), text))
    return out


@pytest.mark.parametrize("path", [CONVERSE, PEG], ids=lambda p: p.name)
def test_printed_literals_read_as_the_standard_library_reads_them(path: Path) -> None:
    """Every printed line that is a Python literal (a Converse response dict, ``pprint``'s wrapped message
    lists) reads as ``ast.literal_eval`` reads it; the class reprs beside them (``ChatCompletionMessage(...)``),
    which ``literal_eval`` refuses, read too, as the dict of their fields."""
    literal, reprs = 0, 0
    for _, text in code_cells(path):
        found = {p.start: p.value for p in printed_values(text)}
        for match in re.finditer(r"^[\[{].*?(?=\n\S|\n?\Z)", text, re.MULTILINE | re.DOTALL):
            try:
                expected = ast.literal_eval(match.group())
            except (ValueError, SyntaxError):
                continue
            assert found[match.start()] == expected
            literal += 1
        for match in re.finditer(r"^ChatCompletionMessage\((.*)\)$", text, re.MULTILINE):
            value = parse_printed(match.group())
            assert value["role"] == "assistant" and ("tool_calls=None" in match.group()) == (value["tool_calls"] is None)
            reprs += 1
    assert literal >= 2 and (reprs >= 7 or path != PEG)


def test_anthropic_sdk_reprs_printed_alone_answer_the_task_the_cell_passed() -> None:
    """The Anthropic cookbook prints what the SDK returned: ``ToolsBetaMessage(content=[TextBlock(text=...),
    ToolUseBlock(name=...)])`` or one ``ToolUseBlock(...)``, each the reply to the text the cell's code passed
    (``analyze_tweet_sentiment("...")``). Each is one run: that task, then the reply's text and calls."""
    expected = []
    for source, text in code_cells(ANTHROPIC):
        if "Block(" not in text:
            continue
        task = re.search(r'\("([^"]+)"\)', source).group(1)
        reply_text = " ".join(re.findall(r"TextBlock\(text=\"([^\"]*)\"", text))
        calls = re.findall(r"ToolUseBlock\(id='[^']*', input=\{[^}]*\}, name='(\w+)'", text)
        expected.append([("user", task, []), ("assistant", reply_text, calls)])
    assert len(expected) == 6 and sum(bool(run[1][2]) for run in expected) == 5
    docs, quarantined = read(ANTHROPIC)
    assert not quarantined
    runs = [said(d) for d in docs]
    assert all(run in runs for run in expected)


def test_single_chat_completion_messages_answer_the_messages_the_code_assigned() -> None:
    """The Prompt Engineering Guide prints one ``ChatCompletionMessage(...)`` per call; what was sent is the
    ``messages = [{"role": "user", "content": ...}]`` the notebook last assigned. The run printed as a list
    (twice, growing) ends with a tool's output, and the reply a later cell prints answers it."""
    latest, expected = "", []
    for source, text in code_cells(PEG) + [("", "")]:
        assigned = re.findall(r'"content":\s*"([^"]+)"', source)
        latest = assigned[-1] if re.search(r"^messages = \[", source, re.MULTILINE) and assigned else latest
        if text.startswith("ChatCompletionMessage(") and latest:
            content = re.match(r"ChatCompletionMessage\(content=(None|'[^']*'|\"[^\"]*\")", text).group(1)
            calls = re.findall(r"name='(\w+)'\), type='function'", text)
            expected.append([("user", latest, []), ("assistant", "" if content == "None" else content[1:-1], calls)])
        if re.search(r"^messages = \[\]", source, re.MULTILINE):
            latest = ""  # a new conversation: the later reply continues the printed list, not an old request
    docs, quarantined = read(PEG)
    assert not quarantined and len(expected) == 7
    runs = [said(d) for d in docs]
    assert runs[:7] == expected
    final = runs[7]
    assert [m[0] for m in final] == ["user", "assistant", "tool", "assistant"]
    assert final[-1][1] == "The current temperature in Boston, MA is 50°F."
    assert len(docs) == 8  # the list printed twice (growing) is one run


def test_an_instruction_with_an_empty_input_is_the_request() -> None:
    """Alpaca's seed tasks whose one instance has ``input: ""``: the instruction is what the person asked
    (the user turn), the instance's output the model's reply, and no turn is left empty."""
    records = [json.loads(line) for line in ALPACA.read_text().splitlines()]
    assert len(records) == 5 and all(r["instances"][0]["input"] == "" for r in records)
    docs, quarantined = read(ALPACA)
    assert not quarantined
    assert [[(role, text) for role, text, _ in said(d)] for d in docs] == [
        [("user", r["instruction"].strip()), ("assistant", r["instances"][0]["output"].strip())] for r in records]


def test_models_taken_through_the_same_rounds_are_one_run_each() -> None:
    """Chinese-Vicuna's page keeps ``{model: [{input, output}, ...]}``: every model answered the same three
    questions in turn, a follow-up after each answer. Each model's list is one run of three rounds (not three
    runs of one round)."""
    body = re.search(r"^```\n(.*?)^```", VICUNA.read_text(), re.MULTILINE | re.DOTALL).group(1)
    value = json.loads(body.replace("]\n    \"Vicuna\"", "],\n    \"Vicuna\""))  # the page's one missing comma
    expected = sorted([[("user", r["input"].strip()), ("assistant", r["output"].strip())][i % 2] for r in rounds for i in (0, 1)]
                      for rounds in value.values())
    assert len(expected) == 7 and all(len(run) == 6 for run in expected)
    docs, quarantined = read(VICUNA)
    assert not quarantined
    assert sorted([(role, text) for role, text, _ in said(d)] for d in docs) == expected


@pytest.mark.timeout(60)  # a hang guard, not a timing assertion
@pytest.mark.parametrize("text", ["[" * 200_000, "(" * 50_000 + ")" * 50_000, "x = Foo(" + "a=[" * 5_000 + "]" * 5_000 + ")\n",
                                  "{'role': 'user', 'content': '" + "a" * 100_000])
def test_hostile_printed_text_is_refused_in_bounded_work(text: str) -> None:
    """Deep or unclosed brackets: no value, no RecursionError, and the scan ends."""
    assert printed_values(text) == []


SMALLCHAT = FIXTURES / "printed-objects" / "smallchat.scratch.ipynb"


def test_a_reply_printed_in_a_later_cell_answers_what_its_call_was_sent() -> None:
    """smallchat's notebook assigns ``response = litellm.completion(messages=[...])`` in one cell and prints the
    reply in the next (a ``ModelResponse(...)`` repr, ``pprint`` of ``message.model_dump()``). The run is the
    message list that call was sent, then the reply. Expected from the sources with ``ast.literal_eval`` and
    from the printed text with ``re``."""
    cells = json.loads(SMALLCHAT.read_text())["cells"]
    sent = {}
    for cell in cells:
        source = "".join(cell["source"])
        for match in re.finditer(r"^(\w+) = litellm\.completion\(.*?messages= (\[.*?\])\s*\)\s*$", source, re.MULTILINE | re.DOTALL):
            sent[match.group(1)] = ast.literal_eval(match.group(2))
    assert set(sent) == {"response", "response0"}
    docs, quarantined = read(SMALLCHAT)
    assert not quarantined
    runs = [said(d) for d in docs]
    opened = [[(m["role"], m["content"].strip()) for m in sent_list] for sent_list in (sent["response"], sent["response0"])]
    assert [(role, text) for role, text, _ in runs[-1][:-1]] == opened[1]  # response0: one question, one reply
    called = [run for run in runs if run[-1][2] == ["mogrify_string"]]
    assert len(called) == 1 and called[0][0][1].startswith("What do I get if I mogrify the string `hello`")
    assert all(run[-1][0] == "assistant" for run in runs) and len(runs) == 3


HARMONY = FIXTURES / "template-turns" / "openai-harmony.docs-format.lines-423-459.md"
HARMONY_SPEC = FIXTURES.parent / "transcript_inputs" / "not-openai-harmony.docs-format.md"


def test_a_conversation_rendered_in_harmony_is_read_with_its_calls() -> None:
    """A run kept as the prompt string (OpenAI harmony, ``<|start|>author[ to=recipient]<|channel|>...<|message|>
    body<|end|>``): one message per ``<|start|>``, roles by author (``developer`` is a system turn, the namespaced
    ``functions.get_weather`` the tool), a message addressed to ``functions.X`` the model's call of X; the closing
    ``<|start|>assistant`` with no message (where the next reply would be generated) is no turn."""
    text = HARMONY.read_text()
    headers = re.findall(r"<\|start\|>([^<]*)(?:<\|channel\|>[^<]*)?(?:<\|constrain\|>[^<]*)?<\|message\|>", text)
    assert len(headers) == 6 and text.rstrip("`\n").endswith("<|start|>assistant")  # the cue for the next reply: no message
    docs, quarantined = read(HARMONY)
    assert not quarantined and len(docs) == 1
    got = said(docs[0])
    assert [m[0] for m in got] == ["system", "system", "user", "assistant", "assistant", "tool"]
    call = re.search(r"to=functions\.(\w+).*?<\|message\|>(.*?)<\|call\|>", text, re.DOTALL)
    assert got[4][2] == [call.group(1)] and docs[0].metadata["messages"][4]["tool_calls"][0]["arguments"] == call.group(2).strip()
    assert got[5][1] == re.search(r"to=assistant<\|channel\|>commentary<\|message\|>(.*?)<\|end\|>", text).group(1).strip()


def test_a_page_about_a_template_is_no_conversation() -> None:
    """The harmony specification holds the same renderings as examples among prose and Python code: a page
    about the template, quarantined, not a run."""
    assert HARMONY.read_text().strip("`\n") in HARMONY_SPEC.read_text()  # guard: the example is on the page
    docs, quarantined = read(HARMONY_SPEC)
    assert not docs and len(quarantined) == 1


MISTRAL = FIXTURES / "printed-objects" / "mistral-cookbook.function_calling.ipynb"


def test_a_reply_shown_as_message_content_answers_the_tool_output_before_it() -> None:
    """The Mistral cookbook prints its message list as it grows (a person's dict, the model's
    ``AssistantMessage(...)`` call, the tool's dict) and then shows the final reply as
    ``response.choices[0].message.content``, a string's repr. The reply closes the run the list printed (the
    request the cell sends is that list), not a run of its own. Spent eighth-holdout file: fit."""
    cells = [c for c in json.loads(MISTRAL.read_text())["cells"] if c["cell_type"] == "code"]
    shown = [c for c in cells if "".join(c["source"]).rstrip().endswith("response.choices[0].message.content")]
    assert len(shown) == 1
    reply = ast.literal_eval("".join(shown[0]["outputs"][0]["data"]["text/plain"]))
    docs, quarantined = read(MISTRAL)
    assert not quarantined and len(docs) == 1
    assert [m[0] for m in said(docs[0])] == ["user", "assistant", "tool", "assistant"]
    assert said(docs[0])[1][2] == ["retrieve_payment_status"] and said(docs[0])[-1][1] == reply


def test_labelled_lines_without_a_printed_message_are_not_printed_objects() -> None:
    """smolagents' guided tour (a documentation page) has lines like ``Answer:`` and ``User:`` but prints no
    message object: labels alone open no printed-objects run there (its pasted console is builder B's format)."""
    text = (FIXTURES.parent / "transcript_inputs" / "smolagents.guided_tour.md").read_text()
    assert re.search(r"^[A-Za-z][\w' -]{0,40}:", text, re.MULTILINE)  # guard: the page has labelled lines
    assert not detect_printed_objects(text)
