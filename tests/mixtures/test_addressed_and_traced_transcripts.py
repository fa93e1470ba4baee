"""Runs whose names, kinds or script say nothing the reader knew (issue 45, round 7): AutoGen's addressed
messages (``code_writer_agent (to code_executor_agent):``) between agents whose names hold model-part words,
with the executor's ``Code output:`` label and printed tracebacks inside its messages; an eval export whose
test case holds a trace of LLM spans (``type: llm``, a ``name``, ``input`` messages, ``output``), each span a
run; dialogues in a script written without spaces (KdConv, Chinese) or short Korean lines in a ``Q,A`` table;
a message list whose speakers are a role alias and a name (SMILE's ``client``/``counselor``); a Claude Code
session rendered as an HTML page; CAMEL's bracketed speakers (``[AI User]``, ``[AI Assistant]``). Real files
(tests/fixtures/transcripts/README.md: repository, commit, path, licence). Every expectation is taken from the
raw file with plain ``json``/``re``/``csv``/``html.parser``, never from the reader."""

from __future__ import annotations

import csv
import html.parser
import io
import json
import re
from pathlib import Path

from codemix.mixtures.transcript_formats import parse_text
from codemix.mixtures.transcript_formats.banners import is_code
from codemix.mixtures.transcript_formats.markers import marker_role
from tests.mixtures.reading import read_split as read

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
AUTOGEN = FIXTURES / "addressed" / "ai-engineering-hub.coding_and_financial_analyst.ipynb"
DEEPEVAL = FIXTURES / "traces" / "deepeval.test_run_sample.json"
KDCONV = FIXTURES / "keyed" / "kdconv.travel-dev.first-3.json"
QA_TABLE = FIXTURES / "keyed" / "chatbot_data.ChatbotData.first-30-rows.csv"
SMILE = FIXTURES / "shape" / "smile.data-0.json"
PAGE = FIXTURES / "html-messages" / "claude-code-log.transcript_style_guide.html"
CAMEL = FIXTURES / "marker-turns" / "camel.create_your_first_agents_society.ipynb"
NOT_A_CHAT_PAGE = FIXTURES.parent / "transcript_inputs" / "not-libxslt-tutorial2-libxslt_pipes.html"
HEADER = re.compile(r"^(\w+) \(to (\w+)\):$", re.MULTILINE)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def autogen_output() -> str:
    """The printed text of the notebook's one cell that ran the two agents (ANSI colours removed)."""
    cells = json.loads(AUTOGEN.read_text())["cells"]
    texts = ["".join("".join(o.get("text", [])) for o in c.get("outputs", [])) for c in cells if c["cell_type"] == "code"]
    (text,) = [ANSI.sub("", t) for t in texts if "(to " in t]
    return text


def autogen_messages() -> list[tuple[str, str]]:
    """``(writer, text)`` of every addressed message, cut where AutoGen's rule of dashes closes it."""
    text = autogen_output()
    heads = list(HEADER.finditer(text))
    return [(h.group(1), text[h.end():heads[i + 1].start() if i + 1 < len(heads) else len(text)].split("-" * 80)[0].strip())
            for i, h in enumerate(heads)]


def test_an_autogen_notebook_whose_agents_are_named_for_code_is_read() -> None:
    """Both agents' names hold ``code`` (a word for a part of the model's turn): the run is read anyway, the
    writer who opens (the executor, who brings the task) on the person's side and the one it addresses on
    the model's, every message in order; the executor's reports (``exitcode: 1``, a traceback) are tool
    output, never the model's."""
    expected = autogen_messages()
    assert len(expected) == 5 and {w for w, _ in expected} == {"code_executor_agent", "code_writer_agent"}
    docs, quarantined = read(AUTOGEN)
    assert not quarantined and len(docs) == 1
    messages = docs[0].metadata["messages"]
    assert [(m["role"], m["content"].strip()) for m in messages] == [
        ("user" if writer == "code_executor_agent" else "assistant", text) for writer, text in expected]
    assert [m["observation"] for m in messages] == [False, False, True, False, True]


def test_addressed_headers_are_the_turns_whatever_labels_the_messages_hold() -> None:
    """Read as a marker log, the ``A (to B):`` headers alone cut the turns: ``Code output:`` inside the
    executor's message stays its text (never a model part that would be trained), sides by who opens, each
    message keeps its writer as its name."""
    expected = autogen_messages()
    (transcript,) = parse_text(autogen_output(), forced="marker-turns")
    assert [(m["name"], m["role"]) for m in transcript.messages] == [
        (w, "user" if w == "code_executor_agent" else "assistant") for w, _ in expected]
    assert [m["content"] for m in transcript.messages] == [t for _, t in expected]
    assert all("Code output:" in m["content"] for m in transcript.messages[2::2])
    assert marker_role({"code", "output"}) == "tool" and marker_role({"tool", "called"}) == "part"


def test_a_printed_traceback_is_output_not_code() -> None:
    """The source lines a Python traceback quotes (``    return ...``, ``    raise ...``) are a program's
    output: they do not make a log a source file, while the same lines outside a traceback still do."""
    text = autogen_output()
    assert "Traceback (most recent call last):" in text and re.search(r"^\s+raise ", text, re.MULTILINE)
    assert not is_code(text)
    assert is_code(text.replace("Traceback (most recent call last):", "Frames:"))


def test_each_llm_span_of_a_trace_is_its_own_run() -> None:
    """DeepEval's test-run export: a test case (``input``, ``actualOutput``) over a trace whose ``llmSpans``
    are named calls of kind ``llm``. Each span is a run: the messages it was sent, then what it returned;
    the span that errored (``output: null``) returned nothing."""
    spans = json.loads(DEEPEVAL.read_text())["testCases"][0]["trace"]["llmSpans"]
    assert len(spans) == 4 and all(s["type"] == "llm" and s["name"] for s in spans)
    docs, quarantined = read(DEEPEVAL)
    assert not quarantined and len(docs) == len(spans)
    for doc, span in zip(docs, spans):
        messages = doc.metadata["messages"]
        sent, got = [(m["role"], m["content"]) for m in span["input"]], [(m["role"], m["content"]) for m in messages]
        assert [r for r in got if r[0] == "system"] == [r for r in sent if r[0] == "system"] and set(sent) <= set(got)
        assert messages[0]["role"] == "system"  # a task taken from the trace goes after the span's system prompt
        replies = [m["content"] for m in messages if m["role"] == "assistant"]
        assert replies == ([span["output"]["content"]] if span["output"] else [])


def test_dialogues_in_a_script_written_without_spaces_are_read_by_position() -> None:
    """KdConv's dialogues (``{messages: [{message[, attrs]}], name}``): Chinese utterances with no speaker field,
    taking turns; each dialogue its own run, every message in order, the first speaker the person."""
    raw = json.loads(KDCONV.read_text())
    assert all(" " not in m["message"] for d in raw for m in d["messages"][:3])  # no spaces to find prose by
    docs, quarantined = read(KDCONV)
    assert not quarantined and len(docs) == len(raw) == 3
    for doc, dialogue in zip(docs, raw):
        messages = doc.metadata["messages"]
        assert [m["content"] for m in messages] == [m["message"] for m in dialogue["messages"]]
        assert [m["role"] for m in messages] == [("user", "assistant")[i % 2] for i in range(len(messages))]


def test_a_table_of_short_questions_and_answers_is_a_dataset_of_exchanges() -> None:
    """Chatbot_data's ``Q,A,label`` rows (Korean chit-chat, ~10 characters a line): each row a question and its
    answer, its own run; the ``label`` column (0/1/2) is no turn."""
    rows = list(csv.DictReader(io.StringIO(QA_TABLE.read_text())))
    assert len(rows) == 30 and all(len(r["Q"]) < 20 for r in rows[:5])
    docs, quarantined = read(QA_TABLE)
    assert not quarantined and len(docs) == len(rows)
    assert [[(m["role"], m["content"]) for m in d.metadata["messages"]] for d in docs] == [
        [("user", r["Q"]), ("assistant", r["A"])] for r in rows]


def test_a_role_alias_and_a_name_are_the_two_sides() -> None:
    """SMILE's messages (``role: client`` / ``role: counselor``): the chat adapter refuses ``client``; the alias
    is the person and the name the other side, every message kept with its text."""
    raw = json.loads(SMILE.read_text())
    assert {m["role"] for m in raw} == {"client", "counselor"}
    docs, quarantined = read(SMILE)
    assert not quarantined and len(docs) == 1
    assert [(m["role"], m["content"]) for m in docs[0].metadata["messages"]] == [
        ("user" if m["role"] == "client" else "assistant", m["content"]) for m in raw]


class PageMessages(html.parser.HTMLParser):
    """The reference reading of claude-code-log's page: each ``div.message KIND``'s ``div.content`` text, without
    the ``<summary>`` that previews a collapsed block (the block itself follows it whole)."""

    def __init__(self) -> None:
        super().__init__()
        self.kinds: list[str] = []
        self.texts: list[str] = []
        self.depth = 0
        self.summary = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag == "div" and classes[:1] == ["message"] and len(classes) == 2 and classes[1] != "session-header":
            self.kinds.append(classes[1])
            self.texts.append("")
        self.summary += tag == "summary"
        if tag == "div" and "content" in classes and self.kinds and not self.depth:
            self.depth = 1
        elif self.depth and tag not in ("br", "img"):
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        self.summary -= tag == "summary"
        if self.depth and tag not in ("br", "img"):
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth and not self.summary:
            self.texts[-1] += data


def test_a_session_rendered_as_an_html_page_is_read_message_by_message() -> None:
    """claude-code-log's HTML (``<div class='message user|assistant|tool_use|tool_result|system'>``): one turn
    per message element, its role from the class (a tool use the model's, a tool result an observation), its
    text without the header's label and timestamp."""
    reference = PageMessages()
    reference.feed(PAGE.read_text())
    expected_roles = {"user": "user", "assistant": "assistant", "tool_use": "assistant", "tool_result": "tool",
                      "system": "system"}
    assert len(reference.kinds) == 9 and {"tool_use", "tool_result"} <= set(reference.kinds)
    docs, quarantined = read(PAGE)
    assert not quarantined and len(docs) == 1
    messages = docs[0].metadata["messages"]
    assert [m["role"] for m in messages] == [expected_roles[k] for k in reference.kinds]
    assert [m["observation"] for m in messages] == [k == "tool_result" for k in reference.kinds]
    for message, text in zip(messages, reference.texts):
        assert re.sub(r"\s+", "", message["content"]) == re.sub(r"\s+", "", text)  # a preview copy is left out
        assert "2025-06-14" not in message["content"]  # the header's timestamp is no text


def test_an_html_page_of_no_conversation_stays_quarantined() -> None:
    """A DocBook tutorial page whose elements carry classes (``userinput``, ``command``, ``author``): no class
    names a writer's role, so no message is read and the file is quarantined."""
    assert NOT_A_CHAT_PAGE.read_bytes().count(b'class="userinput"') == 7  # guard: role-like classes are there
    docs, quarantined = read(NOT_A_CHAT_PAGE)
    assert not docs and len(quarantined) == 1


def test_bracketed_speakers_are_the_turns_and_an_ai_user_is_the_user() -> None:
    """CAMEL's society printed by a notebook: ``[AI User] Instruction: ... Input: ...`` then ``[AI Assistant]
    Solution: ...``. The bracketed labels cut the turns (``Input:`` stays in the instruction); ``AI User`` is
    the person (the head of the compound), ``AI Assistant`` the model."""
    cells = json.loads(CAMEL.read_text())["cells"]
    outputs = [ANSI.sub("", "".join("".join(o.get("text", [])) for o in c.get("outputs", []))) for c in cells
               if c["cell_type"] == "code"]
    (text,) = [t for t in outputs if "[AI User]" in t]
    heads = list(re.finditer(r"^\[AI (User|Assistant)\] ", text, re.MULTILINE))
    expected = [("user" if h.group(1) == "User" else "assistant",
                 text[h.end():heads[i + 1].start() if i + 1 < len(heads) else len(text)].strip()) for i, h in enumerate(heads)]
    assert len(expected) == 17 and "Input:" in expected[0][1]
    docs, quarantined = read(CAMEL)
    assert not quarantined and len(docs) == 1
    assert [(m["role"], m["content"].strip()) for m in docs[0].metadata["messages"]] == expected
