"""Runs whose names or kinds say nothing of who speaks (issue 45, round 7): AutoGen's addressed messages
(``code_writer_agent (to code_executor_agent):``) between agents whose names hold model-part words, with the
executor's ``Code output:`` label and printed tracebacks inside its messages; and an eval export whose test
case holds a trace of LLM spans (``type: llm``, a ``name``, ``input`` messages, ``output``), each span a run.
Real files (tests/fixtures/transcripts/README.md: repository, commit, path, licence). Every expectation is
taken from the raw file with plain ``json``/``re``, never from the reader."""

from __future__ import annotations

import json
import re
from pathlib import Path

from codemix.document import Document, Quarantined
from codemix.mixtures.transcript_formats import parse_text
from codemix.mixtures.transcript_formats.banners import is_code
from codemix.mixtures.transcript_formats.markers import marker_role
from codemix.pipelines.readers import read_location
from codemix.sources import ReadLimits, SourceConfig

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
AUTOGEN = FIXTURES / "addressed" / "ai-engineering-hub.coding_and_financial_analyst.ipynb"
DEEPEVAL = FIXTURES / "traces" / "deepeval.test_run_sample.json"
HEADER = re.compile(r"^(\w+) \(to (\w+)\):$", re.MULTILINE)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def read(path: Path) -> tuple[list[Document], list[Quarantined]]:
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"], limits=ReadLimits(max_file_bytes=50_000_000))
    outcomes = list(read_location(source, str(path)))
    return [o for o in outcomes if isinstance(o, Document)], [o for o in outcomes if isinstance(o, Quarantined)]


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
