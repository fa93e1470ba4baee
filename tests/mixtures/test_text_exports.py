"""Chats and runs written as text (issue 45, round 11): agents talking with no person (headed turns of named
agents between a harness's prompts), and source files that are never runs, whatever their docstrings print.

Fixtures (tests/fixtures/transcript_inputs/README.md names source, version or commit, and licence).
Expectations come from the raw files with ``re`` only.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from codemix.mixtures.transcript_formats import has_task, parse_text

INPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"
pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize(("name", "labels"), [
    # a chatbot's example dialogue in a docstring's fence: ``Human:`` printed, ``Bot:`` replies
    ("not-transformers-modeling_blenderbot.py", r"^\s*(?:>>> print\(\"Human: \"|Bot:)"),
    # docstring sections ``Input:`` / ``Output:`` / ``Args:`` / ``Keyword args:`` over 1,491 lines of docstrings
    ("not-torch-_torch_docs.lines-1-1491.py", r"^\s*(?:Input|Output|Args|Keyword args):"),
])
def test_a_source_file_with_labelled_docstrings_is_no_run(name: str, labels: str):
    """A Python module (it imports, defines functions or classes) is code whatever its docstrings hold: the
    labelled lines of its examples and sections (``Bot:``, ``Input:``, ``Args:``) are never turns, though the
    file's code share is low (``_torch_docs.py`` is nearly all docstrings)."""
    text = (INPUTS / name).read_text()
    assert len(re.findall(labels, text, re.MULTILINE)) >= 4  # the fixture holds the labelled lines
    assert re.search(r"^(?:import|from) \S+", text, re.MULTILINE)
    assert parse_text(text) is None


def test_a_page_whose_printed_type_fields_are_objects_is_no_run_and_no_crash():
    """awscli's example prints JSON whose ``type`` fields are objects (``"type": {"measurement": {}}``): the
    printed-object reader asks whether each is a content block and must answer no, not raise."""
    text = (INPUTS / "not-awscli-iotsitewise-update-asset-model.rst").read_text()
    assert re.search(r'"type": \{', text)
    assert parse_text(text) is None


def test_two_models_debating_under_a_referee_s_headings_train_the_models_only():
    """Two models debate (``## Idealist (anthropic: ...)``, ``## Cost Cutter (openai: ...)``), a referee's
    ``## System Prompt`` before each turn; no person speaks. Every heading is one message; the agents' turns
    are the model's (each answers the referee's prompt and the other's argument); the referee's prompts are
    context (the first states the task), never trained."""
    text = (INPUTS / "ai-design-theater.code-editor.conversation.md").read_text()
    sections = re.findall(r"^## (.+)\n\n(.+)", text, re.MULTILINE)
    agents = [first for heading, first in sections if heading != "System Prompt"]
    assert len(sections) == 27 and len(agents) == 13 and {h for h, _ in sections} > {"System Prompt"}
    transcripts = parse_text(text)
    assert transcripts is not None and len(transcripts) == 1
    messages = transcripts[0].messages
    assert len(messages) == len(sections) and has_task(messages)
    model = [m["content"] for m in messages if m["role"] == "assistant"]
    assert [turn.split("\n")[0] for turn in model] == agents
    assert not any("REFEREE" in turn or "ROUND" in turn.split("\n")[0] for turn in model)


def test_a_source_s_speakers_choose_which_agent_is_trained(tmp_path):
    """Which agent of a debate is trained is configurable: the source's ``speakers`` give the names the text
    formats read (the headings' agents) their roles; here the Cost Cutter is trained and the Idealist is
    context, the reverse of the default (both agents answer the referee)."""
    from codemix.document import Document
    from codemix.pipelines.readers import read_location
    from codemix.sources import SourceConfig

    path = INPUTS / "ai-design-theater.code-editor.conversation.md"
    source = SourceConfig(name="runs", type="transcripts", paths=[str(path)],
                          speakers={"Idealist": "user"})
    docs = [o for o in read_location(source, str(path)) if isinstance(o, Document)]
    assert len(docs) == 1
    messages = docs[0].metadata["messages"]
    idealist = [m for m in messages if m["name"].startswith("Idealist")]
    cutter = [m for m in messages if m["name"].startswith("Cost Cutter")]
    assert idealist and cutter and len(idealist) + len(cutter) == 13
    assert all(m["role"] == "user" for m in idealist) and all(m["role"] == "assistant" for m in cutter)


def test_an_export_shown_in_a_readme_s_fence_reads_its_emoji_headed_turns_and_ends_with_the_fence():
    """The Claude Chat Export Tool's README shows an export in a fence: ``## 👤 User`` / ``## 🤖 Claude``
    headings (an emoji before the speaker). Each heading is a turn, User the person, Claude the model; the
    folded ``🧠 Reasoning`` block is the reply's reasoning (masked by default), not its text nor a tool's
    output; the last turn ends with the fence, not with the README's ``## Requirements`` after it."""
    text = (INPUTS / "claude-chat-export-tool.README.md").read_text()
    users = re.findall(r"^## 👤 User\n\n(.+)", text, re.MULTILINE)
    claude = re.findall(r"^## 🤖 Claude$", text, re.MULTILINE)
    assert len(users) == 3 and len(claude) == 2 and "## Requirements" in text
    transcripts = parse_text(text)
    assert transcripts is not None and len(transcripts) == 1
    messages = transcripts[0].messages
    assert [m["content"] for m in messages if m["role"] == "user"] == users
    assert len([m for m in messages if m["role"] == "assistant"]) == len(claude)
    assert len(messages) == len(users) + len(claude)  # one message per heading
    assert not any("Requirements" in m["content"] or "Reasoning" in m["content"] for m in messages)
    thinking = re.search(r"<summary>🧠 Reasoning \(5s\)</summary>\n\n(.+?)\n", text).group(1)
    assert messages[1]["reasoning"].startswith(thinking)  # the folded thinking is the reply's reasoning


def test_numbered_message_headings_with_written_calls_and_results_are_read():
    """CodeRhapsody's conversation history (``## Message 21 - User`` / ``## Message 22 - Assistant``, issue 45
    round 12): each numbered heading opens a turn; a ``**Tool Call**:`` fence of ``{"input": {...}, "name": ...}``
    in a reply is the model's call (its arguments the object's ``input``), a ``**Tool Result**:`` under the
    person's heading the tool's turn (an observation); the reply's own headings (``## ✅ Git Status``) stay in it."""
    text = (INPUTS / "coderhapsody.hints-refactor-single-queue.md").read_text()
    sections = re.split(r"^## Message \d+ - (?:User|Assistant)$", text, flags=re.MULTILINE)[1:]
    calls = [json.loads(c) for c in re.findall(r"^\*\*Tool Call\*\*:\s*```json\n(.*?)\n```", text, re.MULTILINE | re.DOTALL)]
    results = re.findall(r"^\*\*Tool Result\*\*:", text, re.MULTILINE)
    assert len(sections) >= 8 and len(calls) == len(results) >= 3 and "## ✅ Git Status" in text
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert len(messages) == len(sections)  # one per heading: a reply's call and a result stay one turn each
    read_calls = [c for m in messages for c in m["tool_calls"]]
    assert [(c["name"], json.loads(c["arguments"])) for c in read_calls] == [(c["name"], c["input"]) for c in calls]
    assert all(m["role"] == "tool" and m["observation"] for m in messages if m["content"].startswith("```\n**Handle**"))
    assert sum(m["role"] == "tool" for m in messages) == len(results)
    assert any("## ✅ Git Status" in m["content"] for m in messages if m["role"] == "assistant")
    assert has_task(messages) and messages[0]["content"].startswith("This seems to work perfectly!")


def test_prompts_quoted_under_an_alert_and_unquoted_replies_are_read():
    """claude-transcript's export (issue 45 round 12): what the person typed is a ``> [!IMPORTANT]`` block quote,
    a harness's note a ``> [!WARNING]`` one, the model's reply the unquoted text after it; the fenced output under
    an action's bold line (``✏️ **Edit: src/x.ts**``) is the tool's turn, never the model's text."""
    text = (INPUTS / "claude-transcript.2025-08-10-refactor.lines-1-187.md").read_text()
    prompts = ["\n".join(line[2:] for line in block.strip().splitlines())
               for block in re.findall(r"^> \[!IMPORTANT\]\n((?:>.*\n)+)", text, re.MULTILINE)]
    actions = re.findall(r"^\S{1,3} \*\*\w+: [^*\n]+\*\*\n```", text, re.MULTILINE)
    assert len(prompts) >= 4 and len(actions) >= 2 and "> [!WARNING]" in text
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert [m["content"] for m in messages if m["role"] == "user" and not m["name"]] == [p.strip() for p in prompts]
    assert [m["content"] for m in messages if m["name"] == "WARNING"] == ["[Request interrupted by user]"]
    outputs = [m for m in messages if m["role"] == "tool"]
    assert len(outputs) >= len(actions) and all(m["observation"] and m["content"].startswith("```") for m in outputs)
    replies = [m for m in messages if m["role"] == "assistant"]
    assert replies and not any(re.search(r"\*\*Edit: [^*]+\*\*\n```\nError", m["content"]) for m in replies)


def test_documentation_quoting_the_same_note_over_and_over_is_no_chat():
    """Node's API page (``> Stability: 1 - Experimental`` quoted before each section, answered by the section's
    prose): bare quotes recur in documentation, so only quotes that open with the same alert are a person's."""
    text = (INPUTS / "not-nodejs-api-inspector.md").read_text()
    assert len(re.findall(r"^> Stability:", text, re.MULTILINE)) >= 4
    assert parse_text(text) is None


def test_a_rendered_export_page_is_read_by_its_headings_not_by_the_markdown_its_code_shows():
    """ccexport's GitHub-styled HTML page of a Claude Code session (issue 45 round 12): turns under
    ``<h2>👤 User</h2>`` / ``<h2>🤖🔧 Assistant</h2>``, tool calls and results folded in ``<details>``; one folded
    call writes a README whose example export (``## 👤 User`` in a ``<pre>``) was read as the page's chat."""
    text = (INPUTS / "ccexport.VIBE_github.excerpt.html").read_text()
    users = re.findall(r"^<h2>👤 User</h2>", text, re.MULTILINE)
    folded = re.findall(r"^<details>", text, re.MULTILINE)
    assert len(users) == 1 and len(folded) >= 10 and "## 👤 User\n\nHello, can you help me" in text
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert sum(m["role"] == "user" for m in messages) == len(users)
    assert messages[0]["content"].startswith("builde a claude code conversation exporter")
    assert sum(m["role"] == "tool" and m["observation"] for m in messages) == len(folded)
    assert not any("Hello, can you help me with my React project?" == m["content"] for m in messages)


def test_a_chat_clients_request_log_reads_its_messages_under_role_words():
    """GitHub Copilot Chat's debug log (issue 45 round 12, FIT on the eleventh holdout): the request's messages
    under ``System`` / ``User`` / ``Assistant`` alone on their lines after ``Request Messages``, the reply after
    ``Response``, its call written as ``🛠️ run_in_terminal (call_id) {...}`` and the call's output under the
    ``Tool Call - id`` entry's ``Response``; the contents list at the top and the ``Metadata`` block are none."""
    text = (INPUTS / "vscode-copilot-chat.LOGS.lines-1-24-891-1145.md").read_text()
    after = text.split("\nRequest Messages\n")[-1]
    roles = re.findall(r"^(System|User|Assistant)$", after, re.MULTILINE)
    call = re.search(r"^🛠️ (\w+) \((call_\w+)\) (\{.*?^\})", after, re.MULTILINE | re.DOTALL)
    output = after.split("\nResponse\n")[-1].strip()
    assert len(roles) >= 8 and call and output.startswith("build\n")
    (transcript,) = parse_text(text)
    messages = transcript.messages
    assert [m["role"] for m in messages if m["role"] != "tool"] == [r.lower() for r in roles]
    (read_call,) = [c for m in messages for c in m["tool_calls"]]
    assert (read_call["name"], read_call["id"], json.loads(read_call["arguments"])) == (
        call.group(1), call.group(2), json.loads(call.group(3)))
    assert messages[-1]["role"] == "tool" and messages[-1]["observation"] and messages[-1]["content"] == output
    assert not any("copilot_cache_control" in m["content"] or "maxPromptTokens" in m["content"] for m in messages)
